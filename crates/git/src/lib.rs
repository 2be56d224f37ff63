//! The git engine's library. It selects no provider and links none: a caller brings the hashers
//! and the inflater its build selected ([`Providers`]).
//!
//! git's object storage formats, parsed as untrusted bytes: the pack index ([`idx`], versions 1
//! and 2), pack entries ([`pack`]: the pack header, each entry's type and size, OFS and REF
//! delta bases), deltas ([`delta`]) and loose object headers ([`loose`]); the big-endian reads
//! ([`bytes`]) and the fan-out search ([`fanout`]) git's other binary files share with them.
//!
//! Every parser works over a byte slice that the caller read or mapped, checks every length and
//! count against that slice before using it, and never allocates from a size the data claims
//! (callers bound what they inflate by the input's own size). None panics on any input; the
//! fuzz targets `idx`, `pack_entry`, `delta` and `loose` hold that.
//!
//! Above them: object formats and the hash each names ([`mod@format`]), git's checks of one object
//! (`fsck.c`: [`check`]), what an object links to as git's walk follows it ([`links`]), finding
//! the repository ([`repository`]), a repository's refs, reflogs, worktrees and index files as
//! `git fsck` reads them ([`repo`]: git's files and reftable ref backends, index versions 2 to 4),
//! git's configuration files ([`gitconfig`]), its progress meters ([`progress`]) and its wording of
//! system errors ([`os_error`]), git's C quoting of names ([`quote`]).
//!
//! The commands: `git fsck --full`'s verdict on a repository ([`fsck`]: `fsck::run::<P>`, its
//! findings handed to the caller's [`fsck::finding::Sink`] as values), the checks of reverse
//! indexes, bitmaps, commit-graphs and multi-pack-indexes it runs ([`verify`]), object ids
//! ([`object_id`]) and `git hash-object`'s many paths hashed in parallel with their ids in input
//! order ([`hash_object`]).
//!
//! A sketch of an application's providers (examples/verify-repo has a whole one):
//!
//! ```text
//! struct Mine;
//! impl flagsplit_git::Providers for Mine {
//!     type Hasher = MyHasher; // a StreamHasher: checked SHA-1, unchecked SHA-1, SHA-256
//!     type Inflater = MyInflater; // a flagsplit_zlib::Inflater
//! }
//! let found = flagsplit_git::fsck::find_repo();
//! // ... change to found.work_dir, as git does, then:
//! let status = flagsplit_git::fsck::run::<Mine>(&Default::default(), repo, sink);
//! ```
#![deny(missing_docs)]

pub use format::{HashAlgo, Hashes, ObjectFormat, hex};
pub use providers::{Collision, Digest, Providers, StreamHasher};

pub mod bytes;
pub mod check;
pub mod delta;
pub mod fanout;
pub mod format;
pub mod fsck;
pub mod gitconfig;
pub mod hash_object;
pub mod idx;
pub mod links;
pub mod loose;
pub mod object_id;
pub mod os_error;
pub mod pack;
pub mod progress;
pub mod providers;
pub mod quote;
pub mod repo;
pub mod repository;
pub mod verify;

#[cfg(test)]
pub(crate) mod test_hashes;

/// The kinds of object git stores, with their pack type numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// 1
    Commit,
    /// 2
    Tree,
    /// 3
    Blob,
    /// 4
    Tag,
}

impl Kind {
    /// git's name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Commit => "commit",
            Kind::Tree => "tree",
            Kind::Blob => "blob",
            Kind::Tag => "tag",
        }
    }

    /// The kind git names `name`.
    pub fn from_name(name: &[u8]) -> Option<Kind> {
        match name {
            b"commit" => Some(Kind::Commit),
            b"tree" => Some(Kind::Tree),
            b"blob" => Some(Kind::Blob),
            b"tag" => Some(Kind::Tag),
            _ => None,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

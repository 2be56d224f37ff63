//! git object ids with this build's hashers: the engine's [`flagsplit_git::object_id`] over the
//! `sha1` facility (collision-detecting with the default `dc` provider, like git), the
//! `sha1-unsafe` one (`--no-collision-detection`) or the `sha256` one, for `hash-object`.
//!
//! Blobs are any bytes. Commits, trees and tags go through the checks `git hash-object` runs
//! (git's fsck checks in strict mode, [`fsck`]): what git refuses is refused, with git's messages.

/// git's checks of one object (`fsck.c`), from the engine's library.
pub use flagsplit_git::check as fsck;
pub use flagsplit_git::{links, repository};

use std::io::Read;

use crate::hash::Hasher;

/// A git object type (the storage formats' own, [`flagsplit_git::Kind`]).
pub use flagsplit_git::Kind;

pub use flagsplit_git::format::{HashAlgo, ObjectFormat, hex};
pub use flagsplit_git::object_id::{ObjectError, Warnings, check};

/// An object id of either format: the digest of the object's header and content.
pub type ObjectId = flagsplit_git::Digest;

/// A hasher for one object, whose header is written first, with this build's hashers.
pub type ObjectHasher = flagsplit_git::object_id::ObjectHasher<Hasher>;

/// The id of an object whose content is all in memory, checked first when it is not a blob.
pub fn id_of_bytes(
    format: ObjectFormat,
    kind: Kind,
    content: &[u8],
    detect: bool,
) -> Result<(ObjectId, Warnings), ObjectError> {
    flagsplit_git::object_id::id_of_bytes::<Hasher>(format, kind, content, detect)
}

/// The id of a blob of `len` bytes that `reader` yields, in constant memory. Exactly `len` bytes
/// must come: a stream that ends early or goes on is an error, not a wrong id.
pub fn blob_id_streaming(
    format: ObjectFormat,
    reader: impl Read,
    len: u64,
    buf: &mut [u8],
    detect: bool,
) -> Result<ObjectId, ObjectError> {
    flagsplit_git::object_id::blob_id_streaming::<Hasher>(format, reader, len, buf, detect)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This build's hashers give git's ids (the engine's own tests use flagsplit-hash's).
    #[test]
    fn empty_objects_are_gits_with_this_builds_hashers() {
        let id = |format, kind| {
            id_of_bytes(format, kind, b"", true)
                .map(|(id, _)| id.to_hex())
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(
            id(ObjectFormat::Sha1, Kind::Blob),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            id(ObjectFormat::Sha256, Kind::Tree),
            "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
        );
        let mut h = ObjectHasher::new(ObjectFormat::Sha1, Kind::Blob, 0, false);
        h.update(b"");
        assert_eq!(
            h.finalize().map(|d| d.to_hex()).as_deref(),
            Ok("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        );
    }
}

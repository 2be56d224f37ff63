//! Object formats (SHA-1 and SHA-256 repositories), the hash functions they use, and object ids
//! as git prints them.

/// Lowercase hexadecimal of raw bytes (an object id as git prints it).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Parses exactly `2 * len` hexadecimal digits (either case, as git's `get_oid_hex`) into `len`
/// bytes.
pub fn parse_hex(text: &[u8], len: usize) -> Option<Vec<u8>> {
    if text.len() != 2 * len {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    text.chunks_exact(2)
        .map(|p| Some((digit(p[0])? << 4) | digit(p[1])?))
        .collect()
}

/// A hash function git's object formats use (git's `git_hash_algo`, with its SHA-1 checked for
/// collisions or not). The engine names the one it needs; the caller's providers compute it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashAlgo {
    /// SHA-1 with collision detection (object ids).
    Sha1,
    /// SHA-1 without it (git's `unsafe` hash: its own files' trailing checksums).
    Sha1Unchecked,
    /// SHA-256.
    Sha256,
}

/// The hashing the engine asks of its caller, whose build selected the providers: the engine
/// names the function ([`HashAlgo`]) and never links one itself.
pub trait Hashes {
    /// The digest of `data` with `algo`, or `None` when SHA-1's collision detection finds `data`
    /// to be part of an attack.
    fn digest(algo: HashAlgo, data: &[u8]) -> Option<Vec<u8>>;
}

/// A repository's object format (`extensions.objectFormat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ObjectFormat {
    /// SHA-1, 20-byte ids (every repository without the extension, and outside a repository).
    #[default]
    Sha1,
    /// SHA-256, 32-byte ids (`git init --object-format=sha256`).
    Sha256,
}

impl ObjectFormat {
    /// The name git uses (`sha1`, `sha256`).
    pub fn name(self) -> &'static str {
        match self {
            ObjectFormat::Sha1 => "sha1",
            ObjectFormat::Sha256 => "sha256",
        }
    }

    /// Parses `sha1` or `sha256` (ASCII case ignored, as git's config values).
    pub fn from_name(name: &str) -> Option<ObjectFormat> {
        [ObjectFormat::Sha1, ObjectFormat::Sha256]
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// Length of an id in bytes.
    pub fn raw_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 20,
            ObjectFormat::Sha256 => 32,
        }
    }

    /// Length of an id in hexadecimal.
    pub fn hex_len(self) -> usize {
        2 * self.raw_len()
    }

    /// The hash of object ids: SHA-1 with collision detection when `detect` (the `sha1`
    /// facility), without (`sha1-unsafe`) otherwise; SHA-256 for the SHA-256 format.
    pub fn object_hash(self, detect: bool) -> HashAlgo {
        match self {
            ObjectFormat::Sha1 if detect => HashAlgo::Sha1,
            ObjectFormat::Sha1 => HashAlgo::Sha1Unchecked,
            ObjectFormat::Sha256 => HashAlgo::Sha256,
        }
    }

    /// The hash of the trailing checksums git verifies without collision detection (pack indexes,
    /// reverse indexes, bitmaps, commit-graphs, multi-pack-indexes): the object format's, with
    /// git's `unsafe` SHA-1. A pack's trailer and the index are checked with
    /// [`ObjectFormat::object_hash`] and collision detection, as git does.
    pub fn file_hash(self) -> HashAlgo {
        self.object_hash(false)
    }
}

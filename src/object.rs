//! git object ids: the hash of `<type> <length>\0<content>` in the repository's object format —
//! SHA-1 (the `sha1` facility: collision-detecting with the default `dc` provider, like git) or
//! SHA-256 — streaming, so that memory stays constant whatever the size.
//!
//! Blobs are any bytes. Commits, trees and tags go through the checks `git hash-object` runs
//! (git's fsck checks in strict mode, [`fsck`]): what git refuses is refused, with git's messages.
//! The same checks serve `git fsck` ([`fsck::check_object`]), with the links its walk follows
//! ([`links`]).

/// git's checks of one object (`fsck.c`), from the engine's library.
pub use flagsplit_git::check as fsck;
pub use flagsplit_git::{links, repository};

use std::fmt;
use std::io::{self, Read};

use crate::hash::{Collision, Digest, Hasher, read_retrying};

/// A git object type (the storage formats' own, [`flagsplit_git::Kind`]).
pub use flagsplit_git::Kind;

pub use flagsplit_git::format::{HashAlgo, ObjectFormat, hex};

/// An object id of either format: the digest of the object's header and content.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ObjectId(Digest);

impl ObjectId {
    /// The bytes (20 or 32).
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Writes the lowercase hexadecimal form into `out` and returns its length.
    pub fn write_hex(&self, out: &mut [u8; 64]) -> usize {
        self.0.write_hex(out)
    }

    /// Lowercase hexadecimal.
    pub fn to_hex(&self) -> String {
        self.0.to_hex()
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Why an object id could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The content is part of a SHA-1 collision attack.
    #[error("SHA-1 appears to be part of a collision attack: {}", Digest::new(&.0.digest))]
    Collision(Collision),
    /// The stream ended before, or went on after, the length announced in the header.
    #[error("size changed while reading: expected {expected} bytes, read {actual}")]
    SizeChanged {
        /// The length in the header.
        expected: u64,
        /// What was read.
        actual: u64,
    },
    /// A commit, tree or tag that fails the checks: git's `error:` lines (without the prefix), in
    /// git's order.
    #[error("refusing to create malformed object")]
    Malformed {
        /// git's messages, e.g. `object fails fsck: nullSha1: contains entries pointing to null sha1`.
        errors: Vec<String>,
    },
}

/// A hasher for one object, whose header is written first: the run-time [`Hasher`] over the
/// `sha1` facility (collision detection), the `sha1-unsafe` one (`--no-collision-detection`), or
/// the `sha256` one for the SHA-256 object format.
pub struct ObjectHasher(flagsplit_git::object_id::ObjectHasher<Hasher>);

impl ObjectHasher {
    /// Starts an object of `kind` and `len` bytes.
    pub fn new(format: ObjectFormat, kind: Kind, len: u64, detect: bool) -> ObjectHasher {
        ObjectHasher(flagsplit_git::object_id::ObjectHasher::new(
            format, kind, len, detect,
        ))
    }

    /// Starts an object whose header names any type (`--literally`).
    pub fn with_type_name(
        format: ObjectFormat,
        type_name: &[u8],
        len: u64,
        detect: bool,
    ) -> ObjectHasher {
        ObjectHasher(flagsplit_git::object_id::ObjectHasher::with_type_name(
            format, type_name, len, detect,
        ))
    }

    /// Feeds content.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The object id.
    pub fn finalize(self) -> Result<ObjectId, ObjectError> {
        match self.0.finalize() {
            Ok(d) => Ok(ObjectId(Digest::new(d.as_bytes()))),
            Err(c) => Err(ObjectError::Collision(Collision {
                digest: c.digest.as_bytes().try_into().unwrap_or([0; 20]),
            })),
        }
    }
}

/// What checking a commit, tree or tag found, when it is not refused: git's `error:` lines that
/// it prints and still hashes the object (nearly always none).
pub type Warnings = Vec<String>;

/// The id of an object whose content is all in memory, checked first when it is not a blob.
pub fn id_of_bytes(
    format: ObjectFormat,
    kind: Kind,
    content: &[u8],
    detect: bool,
) -> Result<(ObjectId, Warnings), ObjectError> {
    let warnings = check(format, kind, content)?;
    let mut h = ObjectHasher::new(format, kind, content.len() as u64, detect);
    h.update(content);
    Ok((h.finalize()?, warnings))
}

/// The id of a blob of `len` bytes that `reader` yields, in constant memory. Exactly `len` bytes
/// must come: a stream that ends early or goes on is an error, not a wrong id.
pub fn blob_id_streaming(
    format: ObjectFormat,
    mut reader: impl Read,
    len: u64,
    buf: &mut [u8],
    detect: bool,
) -> Result<ObjectId, ObjectError> {
    let mut h = ObjectHasher::new(format, Kind::Blob, len, detect);
    let mut read = 0u64;
    loop {
        let n = read_retrying(&mut reader, buf)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        if read > len {
            return Err(ObjectError::SizeChanged {
                expected: len,
                actual: read,
            });
        }
        h.update(&buf[..n]);
    }
    if read != len {
        return Err(ObjectError::SizeChanged {
            expected: len,
            actual: read,
        });
    }
    h.finalize()
}

/// Runs git's checks on an object of `kind` (blobs always pass): `Err(Malformed)` when git
/// refuses it, else the messages git prints while accepting it.
pub fn check(format: ObjectFormat, kind: Kind, content: &[u8]) -> Result<Warnings, ObjectError> {
    let report = match kind {
        Kind::Blob => return Ok(Vec::new()),
        Kind::Tree => fsck::tree(content, format),
        Kind::Commit => fsck::commit(content, format),
        Kind::Tag => fsck::tag(content, format),
    };
    if report.refused {
        Err(ObjectError::Malformed {
            errors: report.errors,
        })
    } else {
        Ok(report.errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(format: ObjectFormat, kind: Kind, content: &[u8]) -> String {
        id_of_bytes(format, kind, content, true)
            .map(|(id, _)| id.to_hex())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn empty_blob_is_gits_in_both_formats() {
        // git's EMPTY_BLOB_SHA1_BIN and EMPTY_BLOB_SHA256_BIN.
        assert_eq!(
            id(ObjectFormat::Sha1, Kind::Blob, b""),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            id(ObjectFormat::Sha256, Kind::Blob, b""),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        );
        // The empty tree (git's EMPTY_TREE_SHA256_BIN).
        assert_eq!(
            id(ObjectFormat::Sha256, Kind::Tree, b""),
            "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
        );
    }

    #[test]
    fn streaming_equals_in_memory_and_detects_size_change() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut buf = [0u8; 4096];
        for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
            let a = blob_id_streaming(
                format,
                (&data[..10]).chain(&data[10..]),
                data.len() as u64,
                &mut buf,
                true,
            )
            .unwrap();
            let (b, _) = id_of_bytes(format, Kind::Blob, &data, true).unwrap();
            assert_eq!(a, b);
            assert!(matches!(
                blob_id_streaming(format, &data[..], data.len() as u64 + 1, &mut buf, true),
                Err(ObjectError::SizeChanged { .. })
            ));
            assert!(matches!(
                blob_id_streaming(format, &data[..], data.len() as u64 - 1, &mut buf, true),
                Err(ObjectError::SizeChanged { .. })
            ));
        }
    }

    #[test]
    fn any_type_name_literally() {
        let mut h = ObjectHasher::with_type_name(ObjectFormat::Sha1, b"1234567890", 8, true);
        h.update(b"example\n");
        // `echo example | git hash-object -t 1234567890 --literally --stdin`
        assert_eq!(
            h.finalize().unwrap().to_hex(),
            "f78b23c3f872d473c764d5fcf4fb39af8bbf2123"
        );
    }
}

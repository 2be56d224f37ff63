//! Object ids: the hash of `<type> <length>\0<content>` in the repository's object format, with
//! the caller's hasher ([`StreamHasher`]), streaming, so that memory stays constant whatever the
//! size.
//!
//! Blobs are any bytes. Commits, trees and tags go through the checks `git hash-object` runs
//! (git's fsck checks in strict mode, [`crate::check`]) in [`id_of_bytes`]: what git refuses is
//! refused, with git's messages.

use std::io::{self, Read};

use crate::Kind;
use crate::check as fsck;
use crate::format::ObjectFormat;
use crate::providers::{Collision, Digest, StreamHasher};

/// Why an object id could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The content is part of a SHA-1 collision attack.
    #[error(transparent)]
    Collision(#[from] Collision),
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

/// What checking a commit, tree or tag found, when it is not refused: git's `error:` lines that
/// it prints and still hashes the object (nearly always none).
pub type Warnings = Vec<String>;

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

/// The id of an object whose content is all in memory, checked first when it is not a blob.
pub fn id_of_bytes<H: StreamHasher>(
    format: ObjectFormat,
    kind: Kind,
    content: &[u8],
    detect: bool,
) -> Result<(Digest, Warnings), ObjectError> {
    let warnings = check(format, kind, content)?;
    Ok((object_id::<H>(format, kind, content, detect)?, warnings))
}

/// The id of a blob of `len` bytes that `reader` yields, in constant memory, read through `buf`.
/// Exactly `len` bytes must come: a stream that ends early or goes on is an error, not a wrong id.
pub fn blob_id_streaming<H: StreamHasher>(
    format: ObjectFormat,
    mut reader: impl Read,
    len: u64,
    buf: &mut [u8],
    detect: bool,
) -> Result<Digest, ObjectError> {
    let mut h = ObjectHasher::<H>::new(format, Kind::Blob, len, detect);
    let mut read = 0u64;
    loop {
        let n = match reader.read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
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
    Ok(h.finalize()?)
}

/// A hasher for one object, whose header is written first: collision-detecting SHA-1
/// (`detect`) or the unchecked one in a SHA-1 repository, SHA-256 in a SHA-256 one.
pub struct ObjectHasher<H: StreamHasher>(H);

impl<H: StreamHasher> ObjectHasher<H> {
    /// Starts an object of `kind` and `len` bytes.
    pub fn new(format: ObjectFormat, kind: Kind, len: u64, detect: bool) -> Self {
        ObjectHasher::with_type_name(format, kind.name().as_bytes(), len, detect)
    }

    /// Starts an object whose header names any type (`--literally`, or a loose object whose
    /// type is unknown).
    pub fn with_type_name(format: ObjectFormat, type_name: &[u8], len: u64, detect: bool) -> Self {
        let mut h = ObjectHasher(H::new(format.object_hash(detect)));
        h.update(type_name);
        let mut digits = [0u8; 22];
        let n = write_length(&mut digits, len);
        h.update(&digits[..n]);
        h
    }

    /// Feeds content.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The object id, or the collision the checked SHA-1 detected.
    pub fn finalize(self) -> Result<Digest, Collision> {
        self.0.finalize()
    }
}

/// The id of an object of `kind` whose content is `data`.
pub fn object_id<H: StreamHasher>(
    format: ObjectFormat,
    kind: Kind,
    data: &[u8],
    detect: bool,
) -> Result<Digest, Collision> {
    let mut h = ObjectHasher::<H>::new(format, kind, data.len() as u64, detect);
    h.update(data);
    h.finalize()
}

/// Writes ` <len>\0` into `buf` and returns its length.
fn write_length(buf: &mut [u8; 22], len: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = len;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8; // v % 10 < 10
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let d = &digits[i..];
    buf[0] = b' ';
    buf[1..1 + d.len()].copy_from_slice(d);
    buf[1 + d.len()] = 0;
    d.len() + 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_hashes::TestHasher;

    #[test]
    fn length_field() {
        let mut b = [0u8; 22];
        let n = write_length(&mut b, 0);
        assert_eq!(&b[..n], b" 0\0");
        let n = write_length(&mut b, u64::MAX);
        assert_eq!(&b[..n], b" 18446744073709551615\0");
    }

    #[test]
    fn streaming_equals_in_memory_and_detects_size_change() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut buf = [0u8; 4096];
        for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
            let stream = |len: u64, buf: &mut [u8]| {
                blob_id_streaming::<TestHasher>(format, &data[..], len, buf, true)
            };
            let (whole, _) =
                id_of_bytes::<TestHasher>(format, Kind::Blob, &data, true).expect("in memory");
            assert_eq!(
                stream(data.len() as u64, &mut buf).expect("streamed"),
                whole
            );
            for len in [data.len() as u64 + 1, data.len() as u64 - 1] {
                assert!(matches!(
                    stream(len, &mut buf),
                    Err(ObjectError::SizeChanged { .. })
                ));
            }
        }
    }

    #[test]
    fn any_type_name_literally() {
        let mut h =
            ObjectHasher::<TestHasher>::with_type_name(ObjectFormat::Sha1, b"1234567890", 8, true);
        h.update(b"example\n");
        // `echo example | git hash-object -t 1234567890 --literally --stdin`
        assert_eq!(
            h.finalize().map(|d| d.to_string()).as_deref(),
            Ok("f78b23c3f872d473c764d5fcf4fb39af8bbf2123")
        );
    }

    #[test]
    fn a_malformed_tree_is_refused() {
        assert!(matches!(
            id_of_bytes::<TestHasher>(ObjectFormat::Sha1, Kind::Tree, b"junk", true),
            Err(ObjectError::Malformed { .. })
        ));
    }

    #[test]
    fn empty_blob_and_tree_are_gits() {
        let id = |f, k| object_id::<TestHasher>(f, k, b"", true).map(|d| d.to_string());
        assert_eq!(
            id(ObjectFormat::Sha1, Kind::Blob).as_deref(),
            Ok("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
        );
        assert_eq!(
            id(ObjectFormat::Sha1, Kind::Tree).as_deref(),
            Ok("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
        );
        assert_eq!(
            id(ObjectFormat::Sha256, Kind::Blob).as_deref(),
            Ok("473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813")
        );
    }
}

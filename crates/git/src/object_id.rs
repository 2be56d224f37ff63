//! Object ids: the hash of `<type> <length>\0<content>` in the repository's object format, with
//! the caller's hasher ([`StreamHasher`]), streaming, so that memory stays constant whatever the
//! size.

use crate::Kind;
use crate::format::ObjectFormat;
use crate::providers::{Collision, Digest, StreamHasher};

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

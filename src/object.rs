//! git object ids: the SHA-1 of `<type> <length>\0<content>`, computed with the `sha1` facility
//! (collision-detecting with the default `dc` provider, like git), streaming so that memory stays
//! constant whatever the size.
//!
//! Blobs are any bytes. Commits, trees and tags must be well formed (a structural check in the spirit
//! of `git fsck`, not all of its rules): a malformed one is refused, as `git hash-object` refuses it.

use std::fmt;
use std::io::{self, Read};

use crate::hash::{Algorithm, Collision, Digest, HashError, Hasher};

/// A git object type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// File content.
    Blob,
    /// A commit.
    Commit,
    /// A directory listing.
    Tree,
    /// An annotated tag.
    Tag,
}

impl Kind {
    /// The type's name in the object header.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Blob => "blob",
            Kind::Commit => "commit",
            Kind::Tree => "tree",
            Kind::Tag => "tag",
        }
    }

    /// Parses `blob`, `commit`, `tree` or `tag`.
    pub fn from_name(name: &str) -> Option<Kind> {
        [Kind::Blob, Kind::Commit, Kind::Tree, Kind::Tag]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
    /// A commit, tree or tag that is not well formed.
    #[error("malformed {kind} object: {reason}")]
    Malformed {
        /// The type asked for.
        kind: Kind,
        /// What is wrong.
        reason: String,
    },
}

impl From<HashError> for ObjectError {
    fn from(e: HashError) -> Self {
        match e {
            HashError::Io(e) => ObjectError::Io(e),
            HashError::Collision(c) => ObjectError::Collision(c),
        }
    }
}

/// A hasher for one object, whose header is written first: the run-time [`Hasher`] over the
/// `sha1` facility (collision detection) or the `sha1-unsafe` one (`--no-collision-detection`).
pub struct ObjectHasher(Hasher);

impl ObjectHasher {
    /// Starts an object of `kind` and `len` bytes.
    pub fn new(kind: Kind, len: u64, detect_collisions: bool) -> ObjectHasher {
        let algorithm = if detect_collisions {
            Algorithm::Sha1
        } else {
            Algorithm::Sha1Unchecked
        };
        let mut h = Hasher::new(algorithm);
        let mut header = [0u8; 32];
        let n = write_header(&mut header, kind, len);
        h.update(&header[..n]);
        ObjectHasher(h)
    }

    /// Feeds content.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The object id.
    pub fn finalize(self) -> Result<Digest, ObjectError> {
        self.0.finalize().map_err(ObjectError::Collision)
    }
}

/// Writes `<type> <len>\0` into `buf` (32 bytes is always enough) and returns its length.
fn write_header(buf: &mut [u8; 32], kind: Kind, len: u64) -> usize {
    let name = kind.name().as_bytes();
    buf[..name.len()].copy_from_slice(name);
    let mut at = name.len();
    buf[at] = b' ';
    at += 1;
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
    buf[at..at + d.len()].copy_from_slice(d);
    at += d.len();
    buf[at] = 0;
    at + 1
}

/// The id of an object whose content is all in memory (checked first when it is not a blob).
pub fn id_of_bytes(kind: Kind, content: &[u8], detect: bool) -> Result<Digest, ObjectError> {
    check(kind, content)?;
    let mut h = ObjectHasher::new(kind, content.len() as u64, detect);
    h.update(content);
    h.finalize()
}

/// The id of a blob of `len` bytes: `first` (already read) followed by what `reader` yields, in
/// constant memory. Exactly `len` bytes must come: a file that grows or shrinks while it is read is
/// an error, not a wrong id.
pub fn blob_id_streaming(
    first: &[u8],
    mut reader: impl Read,
    len: u64,
    buf: &mut [u8],
    detect: bool,
) -> Result<Digest, ObjectError> {
    let mut h = ObjectHasher::new(Kind::Blob, len, detect);
    let mut read = first.len() as u64;
    if read > len {
        return Err(ObjectError::SizeChanged {
            expected: len,
            actual: read,
        });
    }
    h.update(first);
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
    h.finalize()
}

/// Checks that `content` is a well-formed object of `kind` (blobs always are).
pub fn check(kind: Kind, content: &[u8]) -> Result<(), ObjectError> {
    let result = match kind {
        Kind::Blob => Ok(()),
        Kind::Tree => check_tree(content),
        Kind::Commit => check_commit(content),
        Kind::Tag => check_tag(content),
    };
    result.map_err(|reason| ObjectError::Malformed { kind, reason })
}

fn check_tree(mut rest: &[u8]) -> Result<(), String> {
    let mut previous: Option<(Vec<u8>, bool)> = None;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|&b| b == b' ')
            .ok_or("entry without a mode")?;
        let mode = &rest[..space];
        if mode.is_empty() || mode.len() > 6 || !mode.iter().all(|b| (b'0'..=b'7').contains(b)) {
            return Err(format!("bad mode {:?}", String::from_utf8_lossy(mode)));
        }
        if mode[0] == b'0' {
            return Err("zero-padded file mode".into());
        }
        let mode = std::str::from_utf8(mode).map_err(|_| "bad mode")?;
        let is_dir = mode == "40000";
        if !matches!(
            mode,
            "100644" | "100755" | "120000" | "40000" | "160000" | "100664"
        ) {
            return Err(format!("bad file mode {mode}"));
        }
        rest = &rest[space + 1..];
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("entry name not terminated")?;
        let name = &rest[..nul];
        if name.is_empty() {
            return Err("empty file name".into());
        }
        if name.contains(&b'/') {
            return Err("file name contains '/'".into());
        }
        if name == b"." || name == b".." {
            return Err("file name '.' or '..'".into());
        }
        rest = &rest[nul + 1..];
        if rest.len() < 20 {
            return Err("truncated object id".into());
        }
        rest = &rest[20..];
        if let Some((prev, prev_dir)) = &previous {
            match tree_order(prev, *prev_dir, name, is_dir) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return Err("duplicate entries".into()),
                std::cmp::Ordering::Greater => return Err("entries not sorted".into()),
            }
            if prev.as_slice() == name {
                return Err("duplicate entries".into());
            }
        }
        previous = Some((name.to_vec(), is_dir));
    }
    Ok(())
}

/// git's tree order: names compared as bytes, a directory's name as if it ended in '/'.
fn tree_order(a: &[u8], a_dir: bool, b: &[u8], b_dir: bool) -> std::cmp::Ordering {
    let key = |name: &[u8], dir: bool, i: usize| -> u8 {
        match name.get(i) {
            Some(&c) => c,
            None if dir => b'/',
            None => 0,
        }
    };
    let n = a.len().max(b.len()) + 1;
    for i in 0..n {
        let (x, y) = (key(a, a_dir, i), key(b, b_dir, i));
        if x != y || (x == 0 && y == 0) {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

/// Splits the header lines (up to the blank line) from the message.
fn header_lines(content: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut lines = Vec::new();
    let mut rest = content;
    loop {
        let nl = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("unterminated header")?;
        let line = &rest[..nl];
        rest = &rest[nl + 1..];
        if line.is_empty() {
            return Ok(lines);
        }
        lines.push(line);
        if rest.is_empty() {
            return Ok(lines);
        }
    }
}

fn is_hex_id(v: &[u8]) -> bool {
    v.len() == 40
        && v.iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// `Name <email> 1234567890 +0100`
fn check_ident(what: &str, v: &[u8]) -> Result<(), String> {
    let bad = |why: &str| Err(format!("bad {what} line: {why}"));
    let Some(lt) = v.iter().position(|&b| b == b'<') else {
        return bad("no '<'");
    };
    let Some(gt) = v.iter().position(|&b| b == b'>') else {
        return bad("no '>'");
    };
    if gt < lt || v[lt + 1..gt].contains(&b'<') || v[..lt].contains(&b'>') {
        return bad("bad email");
    }
    if lt == 0 || v[lt - 1] != b' ' {
        return bad("no space before email");
    }
    let tail = &v[gt + 1..];
    let Some(tail) = tail.strip_prefix(b" ") else {
        return bad("no date");
    };
    let mut parts = tail.split(|&b| b == b' ');
    let (Some(date), Some(zone), None) = (parts.next(), parts.next(), parts.next()) else {
        return bad("bad date");
    };
    if date.is_empty()
        || !date.iter().all(u8::is_ascii_digit)
        || (date.len() > 1 && date[0] == b'0')
    {
        return bad("bad date");
    }
    if zone.len() != 5
        || !matches!(zone[0], b'+' | b'-')
        || !zone[1..].iter().all(u8::is_ascii_digit)
    {
        return bad("bad time zone");
    }
    Ok(())
}

fn check_commit(content: &[u8]) -> Result<(), String> {
    let lines = header_lines(content)?;
    let mut it = lines.iter().peekable();
    match it.next().and_then(|l| l.strip_prefix(b"tree ")) {
        Some(id) if is_hex_id(id) => {}
        _ => return Err("first line must be 'tree <id>'".into()),
    }
    while let Some(id) = it.peek().and_then(|l| l.strip_prefix(b"parent ")) {
        if !is_hex_id(id) {
            return Err("bad parent line".into());
        }
        it.next();
    }
    match it.next().and_then(|l| l.strip_prefix(b"author ")) {
        Some(v) => check_ident("author", v)?,
        None => return Err("missing author line".into()),
    }
    match it.next().and_then(|l| l.strip_prefix(b"committer ")) {
        Some(v) => check_ident("committer", v)?,
        None => return Err("missing committer line".into()),
    }
    Ok(())
}

fn check_tag(content: &[u8]) -> Result<(), String> {
    let lines = header_lines(content)?;
    let mut it = lines.iter();
    match it.next().and_then(|l| l.strip_prefix(b"object ")) {
        Some(id) if is_hex_id(id) => {}
        _ => return Err("first line must be 'object <id>'".into()),
    }
    match it.next().and_then(|l| l.strip_prefix(b"type ")) {
        Some(t)
            if std::str::from_utf8(t)
                .ok()
                .and_then(Kind::from_name)
                .is_some() => {}
        _ => return Err("second line must be 'type <blob|commit|tree|tag>'".into()),
    }
    match it.next().and_then(|l| l.strip_prefix(b"tag ")) {
        Some(name) if !name.is_empty() => {}
        _ => return Err("third line must be 'tag <name>'".into()),
    }
    if let Some(tagger) = it.next().and_then(|l| l.strip_prefix(b"tagger ")) {
        check_ident("tagger", tagger)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header() {
        let mut b = [0u8; 32];
        let n = write_header(&mut b, Kind::Blob, 0);
        assert_eq!(&b[..n], b"blob 0\0");
        let n = write_header(&mut b, Kind::Commit, u64::MAX);
        assert_eq!(&b[..n], b"commit 18446744073709551615\0");
    }

    #[test]
    fn empty_blob_is_gits() {
        // The empty blob id is famous enough to state (git's EMPTY_BLOB_SHA1_BIN).
        let id = id_of_bytes(Kind::Blob, b"", true).unwrap();
        assert_eq!(id.to_hex(), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn streaming_equals_in_memory_and_detects_size_change() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut buf = [0u8; 4096];
        let a =
            blob_id_streaming(&data[..10], &data[10..], data.len() as u64, &mut buf, true).unwrap();
        let b = id_of_bytes(Kind::Blob, &data, true).unwrap();
        assert_eq!(a, b);
        assert!(matches!(
            blob_id_streaming(&[], &data[..], data.len() as u64 + 1, &mut buf, true),
            Err(ObjectError::SizeChanged { .. })
        ));
        assert!(matches!(
            blob_id_streaming(&[], &data[..], data.len() as u64 - 1, &mut buf, true),
            Err(ObjectError::SizeChanged { .. })
        ));
    }

    #[test]
    fn tree_order_matches_git() {
        use std::cmp::Ordering::*;
        // "a.b" < "a/" (directory a) because '.' < '/'; "a" (file) < "a.b".
        assert_eq!(tree_order(b"a.b", false, b"a", true), Less);
        assert_eq!(tree_order(b"a", false, b"a.b", false), Less);
        assert_eq!(tree_order(b"a", true, b"a0", false), Less);
    }

    #[test]
    fn malformed_objects_are_refused() {
        for (kind, content) in [
            (Kind::Commit, &b"junk"[..]),
            (Kind::Commit, b"tree 123\n\nmsg"),
            (Kind::Tag, b"object x\n"),
            (Kind::Tree, b"100644 a\0abc"),
            (Kind::Tree, b"0100644 a\0aaaaaaaaaaaaaaaaaaaa"),
        ] {
            assert!(
                matches!(check(kind, content), Err(ObjectError::Malformed { .. })),
                "{content:?}"
            );
        }
    }
}

//! The checks `git fsck` (git 2.47.3) runs on the files that index a repository's objects besides
//! the pack indexes: pack reverse indexes ([`rev`]), reachability bitmaps ([`bitmap`]), the
//! commit-graph ([`commit_graph`], what `git commit-graph verify` prints) and the multi-pack-index
//! ([`midx`], what `git multi-pack-index verify` prints).
//!
//! Each check takes the file's bytes (or the objects directory) and what it needs of the rest of
//! the repository as plain data or callbacks, and returns an [`Outcome`]: the lines git prints on
//! standard error, with their `error:`/`warning:`/`fatal:` prefixes, and whether git counts a
//! failure. `git fsck` runs the commit-graph and multi-pack-index checks as child processes, so
//! their lines are the child's; the reverse-index and bitmap checks run in `git fsck` itself.
//!
//! The parsers work on `&[u8]` and never panic: every read is bounds-checked, and no count read
//! from a file is used to allocate before it has been checked against the file's length.

pub mod bitmap;
pub mod commit_graph;
pub mod midx;
pub mod rev;

use crate::Hashes;
use crate::ObjectFormat;

/// What a check printed and whether it failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Standard-error lines exactly as git prints them (with `error: ` etc. where git has one;
    /// the verify commands' own reports have no prefix), without the newline.
    pub lines: Vec<String>,
    /// Whether git counts this as a failure (the bit of `git fsck`'s exit status: 0100 for the
    /// reverse indexes, 0200 for bitmaps, 020 for the commit-graph, 040 for the multi-pack-index).
    pub failed: bool,
}

impl Outcome {
    pub(crate) fn error(&mut self, msg: impl AsRef<str>) {
        self.lines.push(format!("error: {}", msg.as_ref()));
    }

    pub(crate) fn warning(&mut self, msg: impl AsRef<str>) {
        self.lines.push(format!("warning: {}", msg.as_ref()));
    }

    pub(crate) fn fatal(&mut self, msg: impl AsRef<str>) {
        self.lines.push(format!("fatal: {}", msg.as_ref()));
        self.failed = true;
    }

    pub(crate) fn plain(&mut self, msg: impl Into<String>) {
        self.lines.push(msg.into());
    }
}

pub(crate) use crate::bytes::{be32, be64};

/// Big-endian `u32` at `at`, reading bytes past the end as zero: git maps these files and reads
/// some fields without checking them against the file's length; what lies past the end of the
/// file in the last page of the mapping is zero.
pub(crate) fn be32_or_zero(data: &[u8], at: usize) -> u32 {
    let mut v = 0u32;
    for i in 0..4 {
        let byte = at
            .checked_add(i)
            .and_then(|p| data.get(p))
            .copied()
            .unwrap_or(0);
        v = (v << 8) | u32::from(byte);
    }
    v
}

/// [`be32_or_zero`] for a `u64`.
pub(crate) fn be64_or_zero(data: &[u8], at: usize) -> u64 {
    (u64::from(be32_or_zero(data, at)) << 32) | u64::from(be32_or_zero(data, at.saturating_add(4)))
}

pub(crate) use crate::hex;

/// Parses exactly `format.raw_len()` bytes of hexadecimal (either case) at the start of `text`,
/// as git's `get_oid_hex` does (what follows is not looked at).
pub(crate) fn parse_hex_id(text: &[u8], format: ObjectFormat) -> Option<Vec<u8>> {
    let len = format.raw_len();
    crate::format::parse_hex(text.get(..2 * len)?, len)
}

/// Whether `data` ends with the hash of what precedes it (git's `hashfile_checksum_valid`; a file
/// shorter than a hash is not valid).
pub(crate) fn checksum_valid<H: Hashes>(data: &[u8], format: ObjectFormat) -> bool {
    let Some(split) = data.len().checked_sub(format.raw_len()) else {
        return false;
    };
    let (body, trailer) = data.split_at(split);
    H::digest(format.file_hash(), body).is_some_and(|d| d == trailer)
}

/// `oid_version`: the hash id the commit-graph and multi-pack-index headers carry.
pub(crate) fn oid_version(format: ObjectFormat) -> u8 {
    match format {
        ObjectFormat::Sha1 => 1,
        ObjectFormat::Sha256 => 2,
    }
}

/// One chunk of a chunk-format file (commit-graph, multi-pack-index): its id and where it lies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    pub id: u32,
    pub start: usize,
    pub len: usize,
}

/// Reads a chunk table of contents as git's `read_table_of_contents` does, with its messages
/// (added to `out` as errors). `Err(())` when git refuses the table. Entries past the end of the
/// file read as zero.
pub(crate) fn read_toc(
    data: &[u8],
    toc_offset: usize,
    count: usize,
    alignment: u64,
    format: ObjectFormat,
    out: &mut Outcome,
) -> Result<Vec<Chunk>, ()> {
    const ENTRY: usize = 12;
    let mut chunks: Vec<Chunk> = Vec::new();
    let limit = (data.len() as u64).saturating_sub(format.raw_len() as u64);
    let mut at = toc_offset;
    for _ in 0..count {
        let id = be32_or_zero(data, at);
        let offset = be64_or_zero(data, at.saturating_add(4));
        if id == 0 {
            out.error("terminating chunk id appears earlier than expected");
            return Err(());
        }
        if !offset.is_multiple_of(alignment) {
            out.error(format!("chunk id {id:x} not {alignment}-byte aligned"));
            return Err(());
        }
        at = at.saturating_add(ENTRY);
        let next = be64_or_zero(data, at.saturating_add(4));
        if next < offset || next > limit {
            out.error(format!("improper chunk offset(s) {offset:x} and {next:x}"));
            return Err(());
        }
        if chunks.iter().any(|c| c.id == id) {
            out.error(format!("duplicate chunk ID {id:x} found"));
            return Err(());
        }
        // Both offsets are at most the file's length here.
        chunks.push(Chunk {
            id,
            start: offset as usize,
            len: (next - offset) as usize,
        });
    }
    let last = be32_or_zero(data, at);
    if last != 0 {
        out.error(format!("final chunk has non-zero id {last:x}"));
        return Err(());
    }
    Ok(chunks)
}

/// The first chunk with `id` (git's `read_chunk`/`pair_chunk` take the first match).
pub(crate) fn find_chunk<'a>(data: &'a [u8], chunks: &[Chunk], id: u32) -> Option<&'a [u8]> {
    let c = chunks.iter().find(|c| c.id == id)?;
    data.get(c.start..c.start.checked_add(c.len)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_as_zero() {
        assert_eq!(be32_or_zero(&[1, 2], 0), 0x0102_0000);
        assert_eq!(be32_or_zero(&[1, 2], usize::MAX), 0);
        assert_eq!(be32(&[1, 2, 3], 0), None);
        assert_eq!(be64(&[0, 0, 0, 0, 0, 0, 0, 7], 0), Some(7));
    }

    #[test]
    fn hex_round_trip() {
        let id = [0xabu8; 20];
        let h = hex(&id);
        assert_eq!(
            parse_hex_id(h.as_bytes(), ObjectFormat::Sha1),
            Some(id.to_vec())
        );
        assert_eq!(parse_hex_id(b"zz", ObjectFormat::Sha1), None);
    }

    #[test]
    fn checksum_of_short_input_is_invalid() {
        assert!(!checksum_valid::<crate::test_hashes::TestHashes>(
            &[0; 10],
            ObjectFormat::Sha1
        ));
    }

    #[test]
    fn toc_errors() {
        let mut out = Outcome::default();
        // A table with one entry at offset 3 (not aligned to 4).
        let mut data = vec![0u8; 64];
        data[0..4].copy_from_slice(b"ABCD");
        data[11] = 3;
        assert!(read_toc(&data, 0, 1, 4, ObjectFormat::Sha1, &mut out).is_err());
        assert_eq!(out.lines, ["error: chunk id 41424344 not 4-byte aligned"]);
    }
}

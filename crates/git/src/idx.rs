//! The pack index (`.idx`), versions 1 and 2, as git's `load_idx` accepts it: a 256-entry
//! fan-out of cumulative counts (non-decreasing), the sorted object ids, per object a CRC32 of its
//! pack bytes (version 2 only) and its offset (31 bits, or an index into a table of 64-bit
//! offsets), then the pack's checksum and the index's own.
//!
//! [`Index::parse`] checks the header, the fan-out and the file's size against the object count
//! (git's rules and messages); the accessors then read within bounds it has established, except
//! a 64-bit offset's table index, which comes from the file and is checked on each read
//! ([`Index::offset`]).

use std::fmt;

use crate::bytes::{be32, be64};
use crate::fanout::bsearch_hash;

const SIGNATURE: [u8; 4] = [0xff, b't', b'O', b'c'];

/// Why an index file is refused; the `Display` text is git's, with `{path}` for the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdxError {
    /// Shorter than a fan-out and two checksums.
    #[error("index file {path} is too small")]
    TooSmall {
        /// The index file as git names it.
        path: Display,
    },
    /// A version other than 1 (no header) or 2.
    #[error(
        "index file {path} is version {version} and is not supported by this binary (try upgrading GIT to a newer version)"
    )]
    Version {
        /// The index file.
        path: Display,
        /// The version the header names.
        version: u32,
    },
    /// A fan-out count smaller than the one before it.
    #[error("non-monotonic index {path}")]
    NonMonotonic {
        /// The index file.
        path: Display,
    },
    /// The size does not fit the object count.
    #[error("wrong index v{version} file size in {path}")]
    WrongSize {
        /// The index file.
        path: Display,
        /// 1 or 2.
        version: u32,
    },
}

/// A path as an error prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Display(pub String);

impl fmt::Display for Display {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An offset that the index cannot give: a 64-bit offset entry outside the file (git dies with
/// "offset beyond end of pack index for PACK (truncated index?)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadOffset;

/// A parsed pack index over its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Index<'a> {
    data: &'a [u8],
    version: u32,
    count: u32,
    hash_len: usize,
    /// Where the fan-out starts.
    fanout: usize,
}

impl<'a> Index<'a> {
    /// Parses `data`, the index file `path` (for messages), for ids of `hash_len` bytes.
    pub fn parse(data: &'a [u8], hash_len: usize, path: &str) -> Result<Index<'a>, IdxError> {
        let p = || Display(path.to_string());
        let len = data.len() as u64;
        let hash = hash_len as u64;
        if len < 4 * 256 + 2 * hash {
            return Err(IdxError::TooSmall { path: p() });
        }
        let (version, fanout) = if data.get(..4) == Some(&SIGNATURE[..]) {
            let version = be32(data, 4).unwrap_or(0);
            if version != 2 {
                return Err(IdxError::Version { path: p(), version });
            }
            (2, 8)
        } else {
            (1, 0)
        };
        let mut count = 0u32;
        for i in 0..256 {
            let n = be32(data, fanout + 4 * i).ok_or(IdxError::TooSmall { path: p() })?;
            if n < count {
                return Err(IdxError::NonMonotonic { path: p() });
            }
            count = n;
        }
        let n = u64::from(count);
        if version == 1 {
            if len != 4 * 256 + 2 * hash + n * (hash + 4) {
                return Err(IdxError::WrongSize {
                    path: p(),
                    version: 1,
                });
            }
        } else {
            let min = 8 + 4 * 256 + 2 * hash + n * (hash + 8);
            let max = min + n.saturating_sub(1) * 8;
            if len < min || len > max {
                return Err(IdxError::WrongSize {
                    path: p(),
                    version: 2,
                });
            }
        }
        Ok(Index {
            data,
            version,
            count,
            hash_len,
            fanout,
        })
    }

    /// 1 or 2.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The number of objects.
    pub fn len(&self) -> u32 {
        self.count
    }

    /// Whether it indexes no object.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The length of an object id.
    pub fn hash_len(&self) -> usize {
        self.hash_len
    }

    fn names(&self) -> usize {
        self.fanout + 4 * 256
    }

    /// The id of the `n`th object (in id order); empty when `n` is out of range.
    pub fn id(&self, n: u32) -> &'a [u8] {
        if n >= self.count {
            return &[];
        }
        let n = n as usize;
        let at = if self.version == 1 {
            self.names() + n * (self.hash_len + 4) + 4
        } else {
            self.names() + n * self.hash_len
        };
        self.data.get(at..at + self.hash_len).unwrap_or(&[])
    }

    /// The pack offset of the `n`th object.
    pub fn offset(&self, n: u32) -> Result<u64, BadOffset> {
        if n >= self.count {
            return Err(BadOffset);
        }
        let count = self.count as usize;
        let n = n as usize;
        if self.version == 1 {
            let at = self.names() + n * (self.hash_len + 4);
            return be32(self.data, at).map(u64::from).ok_or(BadOffset);
        }
        let offsets = self.names() + count * (self.hash_len + 4);
        let off = be32(self.data, offsets + 4 * n).ok_or(BadOffset)?;
        if off & 0x8000_0000 == 0 {
            return Ok(u64::from(off));
        }
        let at = offsets + 4 * count + 8 * (off & 0x7fff_ffff) as usize;
        // git refuses an entry that reaches into the two trailing checksums' last 8 bytes.
        if at + 8 > self.data.len() - 2 * self.hash_len {
            return Err(BadOffset);
        }
        be64(self.data, at).ok_or(BadOffset)
    }

    /// The CRC32 the index records for the `n`th object's pack bytes (version 2 only).
    pub fn crc32(&self, n: u32) -> Option<u32> {
        if self.version == 1 || n >= self.count {
            return None;
        }
        let at = self.names() + self.count as usize * self.hash_len + 4 * n as usize;
        be32(self.data, at)
    }

    /// The position of `id`, by the fan-out and a binary search.
    pub fn lookup(&self, id: &[u8]) -> Option<u32> {
        let fanout = self.data.get(self.fanout..)?;
        bsearch_hash(fanout, self.count, id, |n| self.id(n))
    }

    /// The pack checksum the index records.
    pub fn pack_checksum(&self) -> &'a [u8] {
        let end = self.data.len() - self.hash_len;
        &self.data[end - self.hash_len..end]
    }

    /// The bytes the index's own checksum covers, and the checksum.
    pub fn checksummed(&self) -> (&'a [u8], &'a [u8]) {
        self.data.split_at(self.data.len() - self.hash_len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 index over `ids` (sorted), offsets and CRCs given, 64-bit offsets as git
    /// writes them (those above 2^31 - 1).
    fn v2(ids: &[[u8; 20]], offsets: &[u64]) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        out.extend(2u32.to_be_bytes());
        for b in 0..256usize {
            let n = ids.iter().filter(|id| (id[0] as usize) <= b).count() as u32;
            out.extend(n.to_be_bytes());
        }
        for id in ids {
            out.extend(id);
        }
        for (i, _) in ids.iter().enumerate() {
            out.extend((i as u32 * 7).to_be_bytes());
        }
        let mut large = Vec::new();
        for &o in offsets {
            if o < 0x8000_0000 {
                out.extend((o as u32).to_be_bytes());
            } else {
                out.extend((0x8000_0000u32 | large.len() as u32).to_be_bytes());
                large.push(o);
            }
        }
        for o in large {
            out.extend(o.to_be_bytes());
        }
        out.extend([0xaa; 20]);
        out.extend([0xbb; 20]);
        out
    }

    fn id(first: u8, last: u8) -> [u8; 20] {
        let mut id = [0u8; 20];
        id[0] = first;
        id[19] = last;
        id
    }

    #[test]
    fn reads_ids_offsets_crcs_and_large_offsets() {
        let ids = [id(1, 0), id(1, 5), id(0xff, 0)];
        let data = v2(&ids, &[12, 1 << 33, 40]);
        let idx = Index::parse(&data, 20, "x.idx").unwrap();
        assert_eq!(idx.len(), 3);
        assert_eq!(idx.version(), 2);
        assert_eq!(idx.id(1), &ids[1]);
        assert_eq!(idx.offset(0), Ok(12));
        assert_eq!(idx.offset(1), Ok(1 << 33));
        assert_eq!(idx.offset(2), Ok(40));
        assert_eq!(idx.crc32(2), Some(14));
        assert_eq!(idx.lookup(&ids[2]), Some(2));
        assert_eq!(idx.lookup(&id(1, 6)), None);
        assert_eq!(idx.pack_checksum(), &[0xaa; 20]);
    }

    #[test]
    fn refuses_what_git_refuses() {
        let ids = [id(1, 0), id(2, 0)];
        let mut data = v2(&ids, &[12, 30]);
        assert!(matches!(
            Index::parse(&data[..100], 20, "p"),
            Err(IdxError::TooSmall { .. })
        ));
        let mut bad = data.clone();
        bad.truncate(bad.len() - 1);
        assert_eq!(
            Index::parse(&bad, 20, "p").unwrap_err().to_string(),
            "wrong index v2 file size in p"
        );
        // fan-out entry 1 says 2, entry 2 says 1.
        let mut fan = data.clone();
        fan[8..12].copy_from_slice(&2u32.to_be_bytes());
        assert_eq!(
            Index::parse(&fan, 20, "p").unwrap_err().to_string(),
            "non-monotonic index p"
        );
        data[7] = 3;
        assert!(matches!(
            Index::parse(&data, 20, "p"),
            Err(IdxError::Version { version: 3, .. })
        ));
    }

    #[test]
    fn a_large_offset_entry_past_the_table_is_refused_on_read() {
        let ids = [id(1, 0), id(2, 0)];
        let mut data = v2(&ids, &[1 << 33, 30]);
        // Point the first object's large-offset index at entry 5.
        let at = 8 + 1024 + 2 * 20 + 2 * 4;
        data[at..at + 4].copy_from_slice(&0x8000_0005u32.to_be_bytes());
        let idx = Index::parse(&data, 20, "p").unwrap();
        assert_eq!(idx.offset(0), Err(BadOffset));
        assert_eq!(idx.offset(1), Ok(30));
    }

    #[test]
    fn no_input_panics() {
        for len in 0..1200 {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            if let Ok(idx) = Index::parse(&data, 20, "p") {
                for n in 0..idx.len().min(4) {
                    let _ = (idx.id(n), idx.offset(n), idx.crc32(n));
                }
            }
        }
    }
}

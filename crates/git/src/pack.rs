//! Pack files: the 12-byte header (`PACK`, version 2 or 3, object count) and each entry's header,
//! as git's `unpack_object_header_buffer` and `get_delta_base` read them: a type (1 commit, 2 tree,
//! 3 blob, 4 tag, 6 OFS_DELTA, 7 REF_DELTA) and size in a base-128 varint, then for an OFS_DELTA
//! the distance back to its base (git's offset encoding, which adds one per continuation byte) or
//! for a REF_DELTA the base's id; the entry's zlib stream follows.

use crate::Kind;

/// The pack header's length.
pub const HEADER_LEN: usize = 12;

/// Why a pack file as a whole is refused; `Display` is git's text, with the pack's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    /// Shorter than a header.
    #[error("file {0} is far too short to be a packfile")]
    TooShort(String),
    /// No `PACK` signature.
    #[error("file {0} is not a GIT packfile")]
    Signature(String),
    /// A version other than 2 or 3.
    #[error("packfile {0} is version {1} and not supported (try upgrading GIT to a newer version)")]
    Version(String, u32),
}

/// Reads the header of `pack` (named `name` in messages): the object count.
pub fn header(pack: &[u8], name: &str) -> Result<u32, PackError> {
    let h = pack
        .get(..HEADER_LEN)
        .ok_or_else(|| PackError::TooShort(name.to_string()))?;
    if &h[..4] != b"PACK" {
        return Err(PackError::Signature(name.to_string()));
    }
    let version = crate::bytes::be32(h, 4).unwrap_or(0);
    if version != 2 && version != 3 {
        return Err(PackError::Version(name.to_string(), version));
    }
    Ok(crate::bytes::be32(h, 8).unwrap_or(0))
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind<'a> {
    /// A whole object.
    Object(Kind),
    /// A delta against the entry at this pack offset.
    OfsDelta(u64),
    /// A delta against the object with this id.
    RefDelta(&'a [u8]),
}

/// One entry's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// What it holds.
    pub kind: EntryKind<'a>,
    /// The inflated size of its data (the object, or the delta).
    pub size: u64,
    /// Where its zlib stream starts.
    pub data: u64,
}

/// Why an entry's header cannot be read. `Display` gives git's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The size varint runs past the data or past 64 bits.
    #[error("bad object header")]
    BadHeader,
    /// Type 0 or 5.
    #[error("unknown object type {type_code} at offset {offset} in {{pack}}")]
    UnknownType {
        /// The type number.
        type_code: u8,
        /// The entry's offset.
        offset: u64,
    },
    /// An OFS_DELTA base that overflows, is not before the entry or is before the pack's data,
    /// or a REF_DELTA id cut off by the end of the pack. `at` is where the base reference starts
    /// (git's `curpos` in its message).
    #[error("failed to validate delta base reference at offset {at} from {{pack}}")]
    BadBase {
        /// Where the reference starts.
        at: u64,
    },
}

impl EntryError {
    /// git's line for this error, in the pack named `pack` (`Display` with the name filled in).
    pub fn git_line(&self, pack: &str) -> String {
        match self {
            EntryError::BadHeader => "bad object header".to_string(),
            EntryError::UnknownType { type_code, offset } => {
                unknown_type_line(i32::from(*type_code), *offset, pack)
            }
            EntryError::BadBase { at } => {
                format!("failed to validate delta base reference at offset {at} from {pack}")
            }
        }
    }

    /// git's lines when it reads the entry at `offset` for its type: a header it cannot read is
    /// also an object of type -1 to it (`unpack_object_header` gives `OBJ_BAD`), a second line
    /// naming `offset` (the other errors carry their own offsets).
    pub fn git_lines(&self, offset: u64, pack: &str) -> Vec<String> {
        match self {
            EntryError::BadHeader => vec![self.git_line(pack), unknown_type_line(-1, offset, pack)],
            _ => vec![self.git_line(pack)],
        }
    }
}

/// git's line for an entry whose type it cannot use: `type_code` is the header's type number,
/// or -1 for a header it could not read.
pub fn unknown_type_line(type_code: i32, offset: u64, pack: &str) -> String {
    format!("unknown object type {type_code} at offset {offset} in {pack}")
}

/// Reads the header of the entry at `offset` in `pack` (a REF_DELTA names a `hash_len`-byte id).
pub fn entry(pack: &[u8], offset: u64, hash_len: usize) -> Result<Entry<'_>, EntryError> {
    let start = usize::try_from(offset).map_err(|_| EntryError::BadHeader)?;
    let mut at = start;
    let mut c = *pack.get(at).ok_or(EntryError::BadHeader)?;
    at += 1;
    let type_code = (c >> 4) & 7;
    let mut size = u64::from(c & 15);
    let mut shift = 4u32;
    while c & 0x80 != 0 {
        if shift > 64 - 7 {
            return Err(EntryError::BadHeader);
        }
        c = *pack.get(at).ok_or(EntryError::BadHeader)?;
        at += 1;
        size += u64::from(c & 0x7f) << shift;
        shift += 7;
    }
    let base_at = at as u64;
    let kind = match type_code {
        1 => EntryKind::Object(Kind::Commit),
        2 => EntryKind::Object(Kind::Tree),
        3 => EntryKind::Object(Kind::Blob),
        4 => EntryKind::Object(Kind::Tag),
        6 => {
            let bad = EntryError::BadBase { at: base_at };
            let mut c = *pack.get(at).ok_or(bad.clone())?;
            at += 1;
            let mut back = u64::from(c & 127);
            while c & 128 != 0 {
                back = back.checked_add(1).ok_or(bad.clone())?;
                if back >> 57 != 0 {
                    return Err(bad);
                }
                c = *pack.get(at).ok_or(bad.clone())?;
                at += 1;
                back = (back << 7) + u64::from(c & 127);
            }
            if back == 0 || back >= offset {
                return Err(bad);
            }
            EntryKind::OfsDelta(offset - back)
        }
        7 => {
            let id = pack
                .get(at..at + hash_len)
                .ok_or(EntryError::BadBase { at: base_at })?;
            at += hash_len;
            EntryKind::RefDelta(id)
        }
        t => {
            return Err(EntryError::UnknownType {
                type_code: t,
                offset,
            });
        }
    };
    Ok(Entry {
        kind,
        size,
        data: at as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// git's wording, the same as `Display` with the pack's name in it.
    #[test]
    fn entry_errors_in_gits_words() {
        let p = "./objects/pack/pack-1.pack";
        let bad = EntryError::BadHeader;
        assert_eq!(
            bad.git_lines(12, p),
            [
                "bad object header".to_string(),
                format!("unknown object type -1 at offset 12 in {p}")
            ]
        );
        for e in [
            EntryError::UnknownType {
                type_code: 5,
                offset: 40,
            },
            EntryError::BadBase { at: 41 },
        ] {
            assert_eq!(e.git_lines(40, p), [e.to_string().replace("{pack}", p)]);
        }
        assert_eq!(
            EntryError::UnknownType {
                type_code: 0,
                offset: 40
            }
            .git_line(p),
            format!("unknown object type 0 at offset 40 in {p}")
        );
    }

    #[test]
    fn reads_headers() {
        assert_eq!(header(b"PACK\0\0\0\x02\0\0\0\x05", "p"), Ok(5));
        assert!(matches!(
            header(b"PACK\0\0\0\x04\0\0\0\x05", "p"),
            Err(PackError::Version(_, 4))
        ));
        assert!(matches!(
            header(b"PACX\0\0\0\x02\0\0\0\x05", "p"),
            Err(PackError::Signature(_))
        ));
        assert!(matches!(header(b"PACK", "p"), Err(PackError::TooShort(_))));
    }

    #[test]
    fn reads_entries() {
        // A blob of 0x95 bytes: 0b1_011_0101, then 0x09.
        let pack = [0u8, 0xb5, 0x09, 0x78];
        let e = entry(&pack, 1, 20).unwrap();
        assert_eq!(e.kind, EntryKind::Object(Kind::Blob));
        assert_eq!(e.size, 5 + (9 << 4));
        assert_eq!(e.data, 3);
        // OFS_DELTA of size 3 at offset 200, distance 0x81 0x00 = (1 + 1) << 7 = 256: before start.
        let mut pack = vec![0u8; 210];
        pack[200] = 0x63;
        pack[201] = 0x81;
        pack[202] = 0x00;
        assert_eq!(entry(&pack, 200, 20), Err(EntryError::BadBase { at: 201 }));
        pack[201] = 0x10; // distance 16
        assert_eq!(
            entry(&pack, 200, 20).unwrap().kind,
            EntryKind::OfsDelta(184)
        );
        pack[200] = 0x03; // type 0
        assert!(matches!(
            entry(&pack, 200, 20),
            Err(EntryError::UnknownType { type_code: 0, .. })
        ));
        // A size varint running off the end.
        assert_eq!(entry(&[0xb5, 0x80], 0, 20), Err(EntryError::BadHeader));
    }

    #[test]
    fn no_input_panics() {
        for seed in 0..5000u32 {
            let data: Vec<u8> = (0..(seed % 30))
                .map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i * 131) >> 9) as u8)
                .collect();
            for off in 0..data.len() as u64 + 2 {
                let _ = entry(&data, off, 20);
            }
        }
    }
}

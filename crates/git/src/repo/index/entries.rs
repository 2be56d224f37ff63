//! An index file's header, checksum and entries (`do_read_index`, `create_from_disk`), the
//! dispatch of its extensions, and git's check of the entries' order (`check_ce_order`).

use super::cache_tree::parse_cache_tree;
use super::extensions::{check_fsmonitor, parse_resolve_undo};
use super::split::parse_link;
use super::{
    EXTENDED, EXTENDED_KNOWN, INTENT_TO_ADD, Index, IndexEntry, IndexError, NAME_MASK, ParsedIndex,
    SKIP_WORKTREE, STAGE_MASK, name_key,
};
use crate::bytes::{be16, be32};
use crate::{ObjectFormat, Providers, StreamHasher};

/// Parses one index file's bytes (`path` only names it in messages): header, checksum, entries
/// and extensions, as `do_read_index` does. Entry order is not checked here (git checks it after
/// merging a split index): see [`check_order`].
pub fn parse_index<P: Providers>(
    data: &[u8],
    format: ObjectFormat,
    path: &str,
) -> Result<ParsedIndex, IndexError> {
    let rawsz = format.raw_len();
    if data.len() < 12 + rawsz {
        return Err(IndexError::fatal(format!(
            "{path}: index file smaller than expected"
        )));
    }
    let signature = be32(data, 0).ok_or_else(IndexError::corrupt)?;
    if signature != 0x4449_5243 {
        // git prints the signature as read in host order
        return Err(IndexError::corrupt_after(format!(
            "bad signature 0x{:08x}",
            u32::from_le_bytes(signature.to_be_bytes())
        )));
    }
    let version = be32(data, 4).ok_or_else(IndexError::corrupt)?;
    if !(2..=4).contains(&version) {
        return Err(IndexError::corrupt_after(format!(
            "bad index version {}",
            version as i32
        )));
    }
    let body_len = data.len() - rawsz;
    let checksum = data
        .get(body_len..)
        .ok_or_else(IndexError::corrupt)?
        .to_vec();
    if checksum.iter().any(|&b| b != 0) {
        let mut h = P::Hasher::new(format.object_hash(true));
        h.update(data.get(..body_len).ok_or_else(IndexError::corrupt)?);
        match h.finalize() {
            Ok(d) if d.as_bytes() == checksum.as_slice() => {}
            Ok(_) => return Err(IndexError::corrupt_after("bad index file sha1 signature")),
            Err(c) => {
                return Err(IndexError::fatal(format!(
                    "SHA-1 appears to be part of a collision attack: {}",
                    c.digest
                )));
            }
        }
    }
    let count = be32(data, 8).ok_or_else(IndexError::corrupt)?;
    let mut entries: Vec<IndexEntry> = Vec::new();
    let mut offset = 12usize;
    // Version 4 paths repeat the previous one's prefix, so their total can grow quadratically
    // with the file's size; past this bound the file is refused as corrupt (git would try to
    // allocate it all).
    let path_budget = data.len().saturating_mul(64).max(1 << 26);
    let mut path_bytes = 0usize;
    for _ in 0..count {
        let previous = entries.last().map(|e| e.path.as_slice());
        let (entry, size) = parse_entry(data, offset, version, rawsz, previous)?;
        path_bytes = path_bytes.saturating_add(entry.path.len());
        if path_bytes > path_budget {
            return Err(IndexError::corrupt());
        }
        entries.push(entry);
        offset = offset.checked_add(size).ok_or_else(IndexError::corrupt)?;
        if offset > data.len() {
            return Err(IndexError::corrupt());
        }
    }
    let mut index = Index {
        version,
        entries,
        checksum,
        ..Index::default()
    };
    let mut link = None;
    // extensions: 4-byte name, 4-byte length, while 8 bytes and the checksum remain
    while offset
        .checked_add(8 + rawsz)
        .is_some_and(|end| end <= data.len())
    {
        let name = data
            .get(offset..offset + 4)
            .ok_or_else(IndexError::corrupt)?;
        let size = be32(data, offset + 4).ok_or_else(IndexError::corrupt)? as usize;
        let start = offset + 8;
        let ext = start
            .checked_add(size)
            .and_then(|end| data.get(start..end))
            .ok_or_else(IndexError::corrupt)?;
        match name {
            b"TREE" => index.cache_tree = parse_cache_tree(ext, rawsz)?,
            b"REUC" => match parse_resolve_undo(ext, rawsz) {
                Some(r) => index.resolve_undo = Some(r),
                None => {
                    index.resolve_undo = None;
                    index
                        .messages
                        .push("error: Index records invalid resolve-undo information".into());
                }
            },
            b"link" => {
                if index.sparse {
                    return Err(IndexError::fatal(
                        "cannot use split index with a sparse index",
                    ));
                }
                link = Some(parse_link(ext, rawsz)?);
            }
            b"FSMN" => {
                if let Err(mut lines) = check_fsmonitor(ext) {
                    index.messages.append(&mut lines);
                }
            }
            b"UNTR" | b"EOIE" | b"IEOT" => {}
            b"sdir" => index.sparse = true,
            _ => {
                let shown = ext_name(name);
                if name.first().is_some_and(u8::is_ascii_uppercase) {
                    index.messages.push(format!("ignoring {shown} extension"));
                } else {
                    return Err(IndexError::corrupt_after(format!(
                        "index uses {shown} extension, which we do not understand"
                    )));
                }
            }
        }
        offset = start + size;
    }
    Ok(ParsedIndex { index, link })
}

/// An extension's name as `%.4s` prints it (up to a NUL).
fn ext_name(name: &[u8]) -> String {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    String::from_utf8_lossy(name.get(..end).unwrap_or_default()).into_owned()
}

/// git's `decode_varint` (index v4 strip lengths): `None` on overflow or end of data.
pub(super) fn decode_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut c = *data.get(*at)?;
    *at += 1;
    let mut val = u64::from(c & 127);
    while c & 128 != 0 {
        c = *data.get(*at)?;
        *at += 1;
        val = val.checked_add(1)?;
        if val >> 57 != 0 {
            return None;
        }
        val = (val << 7) + u64::from(c & 127);
    }
    Some(val)
}

/// One entry at `offset`: the entry and the bytes it takes (`create_from_disk`).
fn parse_entry(
    data: &[u8],
    offset: usize,
    version: u32,
    rawsz: usize,
    previous: Option<&[u8]>,
) -> Result<(IndexEntry, usize), IndexError> {
    let corrupt = IndexError::corrupt;
    let mode = be32(data, offset + 24).ok_or_else(corrupt)?;
    let id_at = offset + 40;
    let id = data.get(id_at..id_at + rawsz).ok_or_else(corrupt)?.to_vec();
    let flags_at = id_at + rawsz;
    let flags = be16(data, flags_at).ok_or_else(corrupt)?;
    let mut ce_flags = u32::from(flags & !NAME_MASK);
    let mut name_at = flags_at + 2;
    if flags & EXTENDED != 0 {
        let extended = u32::from(be16(data, flags_at + 2).ok_or_else(corrupt)?) << 16;
        if extended & !EXTENDED_KNOWN != 0 {
            return Err(IndexError::fatal(format!(
                "unknown index entry format 0x{extended:08x}"
            )));
        }
        ce_flags |= extended;
        name_at += 2;
    }
    let mut len = usize::from(flags & NAME_MASK);
    let (path, size) = if version == 4 {
        let mut at = name_at;
        let strip = decode_varint(data, &mut at).ok_or_else(corrupt)?;
        let mut copy_len = 0usize;
        if let Some(prev) = previous {
            let strip = usize::try_from(strip).unwrap_or(usize::MAX);
            if prev.len() < strip {
                return Err(IndexError::fatal(format!(
                    "malformed name field in the index, near path '{}'",
                    String::from_utf8_lossy(prev)
                )));
            }
            copy_len = prev.len() - strip;
        }
        let rest = data.get(at..).ok_or_else(corrupt)?;
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        if len == usize::from(NAME_MASK) {
            len = nul + copy_len;
        }
        let suffix_len = len.checked_sub(copy_len).ok_or_else(corrupt)?;
        let suffix = rest.get(..suffix_len).ok_or_else(corrupt)?;
        let mut path = previous
            .and_then(|p| p.get(..copy_len))
            .unwrap_or_default()
            .to_vec();
        path.extend_from_slice(suffix);
        (path, at - offset + suffix_len + 1)
    } else {
        let rest = data.get(name_at..).ok_or_else(corrupt)?;
        if len == usize::from(NAME_MASK) {
            len = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        }
        let path = rest.get(..len).ok_or_else(corrupt)?.to_vec();
        let flag_bytes = if flags & EXTENDED != 0 { 4 } else { 2 };
        let size = (40 + rawsz + flag_bytes + len + 8) & !7;
        (path, size)
    };
    Ok((
        IndexEntry {
            mode,
            id,
            path,
            stage: ((flags & STAGE_MASK) >> 12) as u8,
            skip_worktree: ce_flags & SKIP_WORKTREE != 0,
            intent_to_add: ce_flags & INTENT_TO_ADD != 0,
            flags: ce_flags,
        },
        size,
    ))
}

/// `check_ce_order` (`verify_ce_order`): names ascending, and a path's stages ascending with no
/// stage 0 among them.
pub fn check_order(entries: &[IndexEntry]) -> Result<(), IndexError> {
    for pair in entries.windows(2) {
        let [a, b] = pair else { continue };
        match name_key(&a.path).cmp(name_key(&b.path)) {
            std::cmp::Ordering::Greater => {
                return Err(IndexError::fatal("unordered stage entries in index"));
            }
            std::cmp::Ordering::Equal => {
                let name = String::from_utf8_lossy(name_key(&a.path));
                if a.stage == 0 {
                    return Err(IndexError::fatal(format!(
                        "multiple stage entries for merged file '{name}'"
                    )));
                }
                if a.stage > b.stage {
                    return Err(IndexError::fatal(format!(
                        "unordered stage entries for '{name}'"
                    )));
                }
            }
            std::cmp::Ordering::Less => {}
        }
    }
    Ok(())
}

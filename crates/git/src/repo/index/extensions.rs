//! The index extensions read on their own: resolve-undo (`REUC`), the fsmonitor extension's
//! checks (`FSMN`), and the EWAH bitmaps that it and the split index's `link` hold.

use super::ResolveUndo;
use crate::bytes::be32;

/// `read_fsmonitor_extension`'s checks: git prints its error and goes on without the
/// extension. (git's check that the bitmap is no larger than the index, a `BUG`, is not made.)
pub(super) fn check_fsmonitor(data: &[u8]) -> Result<(), Vec<String>> {
    if data.len() < 9 {
        return Err(vec![
            "error: corrupt fsmonitor extension (too short)".into(),
        ]);
    }
    let version = be32(data, 0).unwrap_or(0);
    let mut at = 4;
    match version {
        1 => at += 8,
        2 => {
            let rest = data.get(at..).unwrap_or_default();
            at += rest.iter().position(|&b| b == 0).unwrap_or(rest.len()) + 1;
        }
        v => return Err(vec![format!("error: bad fsmonitor version {}", v as i32)]),
    }
    let failed = "error: failed to parse ewah bitmap reading fsmonitor index extension";
    let Some(size) = be32(data, at) else {
        return Err(vec![failed.into()]);
    };
    at += 4;
    let size = size as usize;
    let bitmap = data
        .get(at..)
        .map(|rest| rest.get(..size).unwrap_or(rest))
        .unwrap_or_default();
    match read_ewah(bitmap) {
        Ok((_, used)) if used == size => Ok(()),
        Ok(_) => Err(vec![failed.into()]),
        Err(e) => Err(vec![format!("error: {e}"), failed.into()]),
    }
}

/// The `REUC` extension (`resolve_undo_read`): `None` when invalid.
pub(super) fn parse_resolve_undo(data: &[u8], rawsz: usize) -> Option<Vec<ResolveUndo>> {
    let mut out: Vec<ResolveUndo> = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let nul = rest.iter().position(|&b| b == 0)?;
        if rest.len() <= nul + 1 {
            return None;
        }
        let path = rest.get(..nul)?.to_vec();
        rest = rest.get(nul + 1..)?;
        let mut modes = [0u32; 3];
        for mode in &mut modes {
            // strtoul base 8 up to a NUL that must follow the digits
            let end = rest.iter().position(|&b| b == 0)?;
            let text = rest.get(..end)?;
            *mode = strtoul_octal(text)?;
            if rest.len() <= end + 1 {
                return None;
            }
            rest = rest.get(end + 1..)?;
        }
        let mut ids: [Option<Vec<u8>>; 3] = [None, None, None];
        for (id, &mode) in ids.iter_mut().zip(&modes) {
            if mode == 0 {
                continue;
            }
            *id = Some(rest.get(..rawsz)?.to_vec());
            rest = rest.get(rawsz..)?;
        }
        let record = ResolveUndo { path, modes, ids };
        // string_list_insert: sorted, a repeated path keeps its first record's slot but takes
        // the later values
        match out.binary_search_by(|r| r.path.cmp(&record.path)) {
            Ok(p) => {
                if let Some(slot) = out.get_mut(p) {
                    *slot = record;
                }
            }
            Err(p) => out.insert(p, record),
        }
    }
    Some(out)
}

/// `strtoul(text, &end, 8)` that must consume all of `text` (non-empty), as
/// `resolve_undo_read` requires; values wrap to 32 bits like git's `unsigned int` mode.
fn strtoul_octal(text: &[u8]) -> Option<u32> {
    let mut i = 0;
    while text
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = text.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let start = i;
    let mut value: u64 = 0;
    while let Some(&c) = text.get(i).filter(|c| (b'0'..=b'7').contains(c)) {
        value = value.saturating_mul(8).saturating_add(u64::from(c - b'0'));
        i += 1;
    }
    if i == start || i != text.len() {
        return None;
    }
    let value = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some(value as u32)
}

/// An EWAH bitmap (`ewah_read_mmap`): its words and the bytes it took, or git's error text.
pub(super) fn read_ewah(data: &[u8]) -> Result<(Vec<u64>, usize), String> {
    be32(data, 0).ok_or("corrupt ewah bitmap: eof before bit size")?;
    let words = be32(data, 4).ok_or("corrupt ewah bitmap: eof before length")? as usize;
    let left = data.len() - 8;
    let data_len = words.saturating_mul(8);
    if left < data_len {
        return Err(format!(
            "corrupt ewah bitmap: eof in data ({} bytes short)",
            data_len - left
        ));
    }
    let buffer: Vec<u64> = data
        .get(8..8 + data_len)
        .unwrap_or_default()
        .chunks_exact(8)
        .filter_map(|c| crate::bytes::be64(c, 0))
        .collect();
    if left - data_len < 4 {
        return Err("corrupt ewah bitmap: eof before rlw".into());
    }
    Ok((buffer, 8 + data_len + 4))
}

/// The set bits of an EWAH bitmap, in order (`ewah_each_bit`), as long as they are below
/// `limit`: `Err(position)` for the first one that is not (git dies there).
pub fn ewah_positions(words: &[u64], limit: usize) -> Result<Vec<usize>, usize> {
    match ewah_scan(words, limit) {
        (out, None) => Ok(out),
        (_, Some(bad)) => Err(bad),
    }
}

/// The set bits below `limit` up to the first one that is not, and that one.
pub(super) fn ewah_scan(words: &[u64], limit: usize) -> (Vec<usize>, Option<usize>) {
    let mut out = Vec::new();
    let mut pos: usize = 0;
    let mut i = 0;
    while let Some(&word) = words.get(i) {
        let running = ((word >> 1) & 0xffff_ffff) as usize * 64;
        let literals = (word >> 33) as usize;
        if word & 1 != 0 && running > 0 {
            if pos.saturating_add(running) > limit {
                out.extend(pos..limit.max(pos));
                return (out, Some(pos.max(limit)));
            }
            out.extend(pos..pos + running);
        }
        pos = pos.saturating_add(running);
        i += 1;
        for _ in 0..literals {
            let Some(&lit) = words.get(i) else {
                return (out, None);
            };
            for c in 0..64 {
                if lit & (1u64 << c) != 0 {
                    let p = pos.saturating_add(c);
                    if p >= limit {
                        return (out, Some(p));
                    }
                    out.push(p);
                }
            }
            pos = pos.saturating_add(64);
            i += 1;
        }
    }
    (out, None)
}

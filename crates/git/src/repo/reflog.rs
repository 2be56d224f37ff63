//! Reflogs as `git fsck` reads them: for each worktree, the reflogs its ref store lists
//! (`refs_for_each_reflog`), named as the current worktree's store names them
//! (`strbuf_worktree_ref`), and their entries as the files backend parses them
//! (`show_one_reflog_ent`: a malformed line, or a last line without a newline, is skipped
//! silently), or as the reftable backend reads them ([`super::reftable::store`]).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

pub use super::model::{Reflog, ReflogEntry};
use super::model::{WorktreeRefType, check_refname_format, parse_worktree_ref};
use super::refs::RefStore;
use super::worktrees::Worktree;
use crate::ObjectFormat;

/// The reflogs of `wt` (`refs_for_each_reflog(get_worktree_ref_store(wt))`), each read through
/// `main` (the current worktree's ref store), in name order. `common_dir` is the repository's.
pub fn worktree_reflogs(main: &RefStore, wt: &Worktree, common_dir: &Path) -> Vec<Reflog> {
    if let Some(store) = main.reftable() {
        return store.worktree_reflogs(wt);
    }
    let mut names: BTreeMap<Vec<u8>, ()> = BTreeMap::new();
    if wt.is_main() {
        for n in list_logs(&common_dir.join("logs")) {
            names.insert(n, ());
        }
    } else {
        for n in list_logs(&wt.git_dir.join("logs")) {
            names.insert(n, ());
        }
        for n in list_logs(&common_dir.join("logs")) {
            if parse_worktree_ref(&n).0 == WorktreeRefType::Shared {
                names.entry(n).or_insert(());
            }
        }
    }
    names
        .into_keys()
        .map(|logname| {
            let name = wt.ref_name(&String::from_utf8_lossy(&logname));
            let entries = fs::read(main.reflog_path(name.as_bytes()))
                .map(|data| parse_reflog(&data, main_format(main)))
                .unwrap_or_default();
            Reflog { name, entries }
        })
        .collect()
}

fn main_format(store: &RefStore) -> ObjectFormat {
    store.format()
}

/// The reflog names under a `logs` directory: regular files (symbolic links are not followed)
/// whose base name is a valid one-level ref name, by path relative to `logs`.
fn list_logs(logs: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack: Vec<(std::path::PathBuf, Vec<u8>)> = vec![(logs.to_path_buf(), Vec::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(read) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            let base = entry
                .file_name()
                .to_string_lossy()
                .into_owned()
                .into_bytes();
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(&base);
            let Ok(meta) = fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push((entry.path(), rel));
            } else if meta.is_file() && check_refname_format(&base, true) {
                out.push(rel);
            }
        }
    }
    out
}

/// A reflog file's entries (`show_one_reflog_ent` on each line).
pub fn parse_reflog(data: &[u8], format: ObjectFormat) -> Vec<ReflogEntry> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(p) => (
                rest.get(..=p).unwrap_or_default(),
                rest.get(p + 1..).unwrap_or_default(),
            ),
            None => (rest, &b""[..]),
        };
        rest = next;
        if let Some(e) = parse_reflog_line(line, format) {
            out.push(e);
        }
    }
    out
}

/// One line, with its newline: `<old> SP <new> SP <name> <<email>> SP <time> SP <tz> TAB <msg>`.
pub fn parse_reflog_line(line: &[u8], format: ObjectFormat) -> Option<ReflogEntry> {
    if line.last() != Some(&b'\n') {
        return None;
    }
    // the parse is C-string based: it ends at a NUL
    let end = line.iter().position(|&b| b == 0).unwrap_or(line.len());
    let line = line.get(..end)?;
    let hexsz = format.hex_len();
    let raw = format.raw_len();
    let old = super::parse_hex(line.get(..hexsz)?, raw)?;
    let mut p = hexsz;
    if line.get(p) != Some(&b' ') {
        return None;
    }
    p += 1;
    let new = super::parse_hex(line.get(p..p + hexsz)?, raw)?;
    p += hexsz;
    if line.get(p) != Some(&b' ') {
        return None;
    }
    p += 1;
    let email_end = p + line.get(p..)?.iter().position(|&b| b == b'>')?;
    if line.get(email_end + 1) != Some(&b' ') {
        return None;
    }
    let (timestamp, used) = strtoumax(line.get(email_end + 2..)?);
    if timestamp == 0 {
        return None;
    }
    let m = email_end + 2 + used;
    let msg = line.get(m..)?;
    if msg.first() != Some(&b' ')
        || !matches!(msg.get(1), Some(b'+' | b'-'))
        || !msg.get(2..6)?.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let digits = std::str::from_utf8(msg.get(2..)?)
        .ok()
        .map(|s| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .unwrap_or_default();
    let value: i64 = digits.parse().unwrap_or(i64::MAX);
    let tz = if msg.get(1) == Some(&b'-') {
        -value
    } else {
        value
    };
    Some(ReflogEntry {
        old,
        new,
        timestamp,
        tz,
    })
}

/// C's `strtoumax(s, &end, 10)`: the value (`UINTMAX_MAX` on overflow, negated for a `-`) and
/// the bytes consumed (0 when no digits).
fn strtoumax(s: &[u8]) -> (u64, usize) {
    let mut i = 0;
    while s
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = s.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(&c) = s.get(i).filter(|c| c.is_ascii_digit()) {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    if overflow {
        return (u64::MAX, i);
    }
    (
        if negative {
            value.wrapping_neg()
        } else {
            value
        },
        i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let z = "0".repeat(40);
        let a = "9dbbace5f52438716f05d6c4e25b0f70b43989bd";
        let good = format!("{z} {a} A U Thor <a@b> 1700000000 +0100\tcommit (initial): one\n");
        let e = parse_reflog_line(good.as_bytes(), ObjectFormat::Sha1);
        let Some(e) = e else { panic!() };
        assert_eq!(e.timestamp, 1_700_000_000);
        assert_eq!(e.tz, 100);
        assert_eq!(e.old, vec![0; 20]);
        // no newline, zero time, short tz, missing '>'
        assert!(parse_reflog_line(good.trim_end().as_bytes(), ObjectFormat::Sha1).is_none());
        let bad = format!("{z} {a} A <a@b> 0 +0100\tx\n");
        assert!(parse_reflog_line(bad.as_bytes(), ObjectFormat::Sha1).is_none());
        let bad = format!("{z} {a} A <a@b> 5 +01\tx\n");
        assert!(parse_reflog_line(bad.as_bytes(), ObjectFormat::Sha1).is_none());
        let bad = format!("{z} {a} A a@b 5 +0100\tx\n");
        assert!(parse_reflog_line(bad.as_bytes(), ObjectFormat::Sha1).is_none());
        let two = format!("{good}garbage\n{good}");
        assert_eq!(parse_reflog(two.as_bytes(), ObjectFormat::Sha1).len(), 2);
    }
}

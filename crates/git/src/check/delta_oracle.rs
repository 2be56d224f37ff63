//! The check of a delta tree that skips what the delta copied from its base
//! ([`super::check_delta_tree_links`]) against the check of every entry
//! ([`super::check_tree_links`]), on pairs of trees made from arbitrary bytes: the findings,
//! the special blobs, whether the tree is well-formed and clean, and the links (a run's taken
//! from the base's entries) must be the same. Used by the unit tests and the `tree_delta` fuzz
//! target.

use super::{
    BaseEntry, DeltaOf, Options, SpecialBlobs, TreeEntryAt, check_delta_tree_links,
    check_tree_links,
};
use crate::delta::Copy;
use crate::{Kind, ObjectFormat};

/// Bytes read one at a time, zero when there are no more.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
}

/// Names chosen to reach git's name and order checks: prefixes of one another (the duplicate
/// candidates), a directory and a file of one name, `.`-names and their aliases.
const NAMES: [&[u8]; 20] = [
    b"a",
    b"b",
    b"foo",
    b"foo.c",
    b"foo-bar",
    b"foo0",
    b"fo",
    b"README",
    b"README.md",
    b".gitmodules",
    b".gitattributes",
    b".git",
    b"GIT~1",
    b"x/y",
    b"",
    b".",
    b"..",
    b"a\\b",
    b".gitignore",
    b"zz",
];

const MODES: [&[u8]; 8] = [
    b"100644", b"100644", b"100755", b"120000", b"40000", b"160000", b"040000", b"100664",
];

/// One entry, as bytes.
fn entry(b: &mut Bytes<'_>, raw: usize) -> Vec<u8> {
    // Mostly what git writes (the runs of a clean base), now and then anything.
    let odd = b.next();
    let mode = match odd % 8 {
        0 => MODES[usize::from(b.next()) % MODES.len()],
        1 | 2 => b"40000",
        _ => b"100644",
    };
    let pick = b.next();
    let name: Vec<u8> = match pick {
        240.. => (0..b.next() % 6).map(|_| b.next()).collect(),
        200.. => NAMES[usize::from(pick) % NAMES.len()].to_vec(),
        // Plain names, some prefixes of others (`f`, `fo`, `fo-`, `fo.`, ...).
        _ => {
            let mut n = vec![b'f'];
            n.extend((0..pick % 3).map(|i| b"o-.x/"[usize::from(pick / 3 + i) % 4]));
            n
        }
    };
    let fill = if odd >= 250 { 0 } else { 1 + b.next() % 4 };
    let mut e = Vec::new();
    e.extend_from_slice(mode);
    e.push(b' ');
    e.extend_from_slice(&name);
    e.push(0);
    // Ids of one byte repeated (zero is git's null id).
    e.extend(std::iter::repeat_n(fill, raw));
    e
}

/// The name of an encoded entry, for sorting.
fn name_of(e: &[u8]) -> &[u8] {
    let start = e.iter().position(|&c| c == b' ').map_or(0, |i| i + 1);
    let end = e.iter().position(|&c| c == 0).unwrap_or(e.len());
    e.get(start..end).unwrap_or_default()
}

/// A base tree, a tree made from it by edits, and the copies of a delta between them.
fn pair(b: &mut Bytes<'_>, raw: usize) -> (Vec<u8>, Vec<u8>, Vec<Copy>) {
    let n = usize::from(b.next() % 24);
    let mut entries: Vec<Vec<u8>> = (0..n).map(|_| entry(b, raw)).collect();
    if !b.next().is_multiple_of(8) {
        entries.sort_by(|x, y| name_of(x).cmp(name_of(y)));
        entries.dedup_by(|x, y| name_of(x) == name_of(y));
    }
    let mut base = Vec::new();
    let mut at = Vec::new();
    for e in &entries {
        at.push(base.len());
        base.extend_from_slice(e);
    }
    // The target: each base entry kept, dropped, changed or preceded by a new one; kept bytes
    // are copies of the base.
    let mut target = Vec::new();
    let mut copies: Vec<Copy> = Vec::new();
    let copy = |copies: &mut Vec<Copy>, target: &mut Vec<u8>, from: usize, len: usize| {
        if len == 0 {
            return;
        }
        match copies.last_mut() {
            Some(c) if c.to + c.len == target.len() && c.from + c.len == from => c.len += len,
            _ => copies.push(Copy {
                to: target.len(),
                from,
                len,
            }),
        }
        target.extend_from_slice(&base[from..from + len]);
    };
    for (e, &start) in entries.iter().zip(&at) {
        match b.next() % 8 {
            0 => {}
            1 => target.extend_from_slice(&entry(b, raw)),
            2 => {
                // The id changed: the mode and name are still copied.
                let keep = e.len() - raw;
                copy(&mut copies, &mut target, start, keep);
                target.extend(std::iter::repeat_n(b.next() % 5, raw));
            }
            3 => {
                target.extend_from_slice(&entry(b, raw));
                copy(&mut copies, &mut target, start, e.len());
            }
            4 => {
                // Copied in two, split anywhere, or partly written out.
                let cut = usize::from(b.next()) % e.len().max(1);
                copy(&mut copies, &mut target, start, cut);
                if b.next().is_multiple_of(2) {
                    target.extend_from_slice(&e[cut..]);
                } else {
                    copies.push(Copy {
                        to: target.len(),
                        from: start + cut,
                        len: e.len() - cut,
                    });
                    target.extend_from_slice(&e[cut..]);
                }
            }
            _ => copy(&mut copies, &mut target, start, e.len()),
        }
    }
    if b.next().is_multiple_of(8) {
        target.extend_from_slice(&entry(b, raw));
    }
    if b.next().is_multiple_of(16) && !target.is_empty() {
        // A broken end.
        target.truncate(target.len() - 1 - usize::from(b.next()) % target.len().min(30));
        copies.retain_mut(|c| {
            c.len = c.len.min(target.len().saturating_sub(c.to));
            c.len > 0
        });
    }
    (base, target, copies)
}

/// What a check of `tree` said, with its links spelled out (a run's from `base`).
#[derive(Debug, PartialEq, Eq)]
struct Said {
    failed: bool,
    simple: bool,
    clean: bool,
    findings: Vec<super::Finding>,
    gitmodules: Vec<Vec<u8>>,
    gitattributes: Vec<Vec<u8>>,
    links: Vec<(Kind, u32, u32)>,
}

fn said(
    tree: &[u8],
    format: ObjectFormat,
    opts: &Options,
    delta: Option<DeltaOf<'_, TreeEntryAt>>,
) -> (Said, usize, Vec<TreeEntryAt>) {
    let raw = format.raw_len();
    let id = vec![7u8; raw];
    let mut special = SpecialBlobs::default();
    let mut findings = Vec::new();
    let mut out = Vec::new();
    let mut runs = Vec::new();
    let c = match delta {
        Some(d) => check_delta_tree_links(
            &id,
            tree,
            format,
            opts,
            &mut special,
            &mut findings,
            &mut out,
            &mut runs,
            Some(d),
        ),
        None => check_tree_links(
            &id,
            tree,
            format,
            opts,
            &mut special,
            &mut findings,
            &mut out,
        ),
    };
    let mut links = Vec::new();
    let mut r = runs.iter().peekable();
    for k in 0..=out.len() {
        while let Some(run) = r.next_if(|run| run.at as usize == k) {
            let entries = delta.map_or(&[][..], |d| d.entries);
            let first = entries[run.first as usize].span(raw).0 as i64;
            let shift = i64::from(run.to) - first;
            for e in &entries[run.first as usize..=run.last as usize] {
                links.push((
                    e.kind,
                    (i64::from(e.name) + shift) as u32,
                    (i64::from(e.id) + shift) as u32,
                ));
            }
        }
        if let Some(e) = out.get(k) {
            links.push((e.kind, e.name, e.id));
        }
    }
    let (modules, attributes) = special.found_since((0, 0));
    (
        Said {
            failed: c.failed,
            simple: c.simple,
            clean: c.clean,
            findings,
            gitmodules: modules.to_vec(),
            gitattributes: attributes.to_vec(),
            links: if c.simple { links } else { Vec::new() },
        },
        runs.iter().map(|r| (r.last - r.first + 1) as usize).sum(),
        out,
    )
}

/// Checks one pair made from `input`; panics where the two checks disagree. Returns how many
/// entries the delta check skipped.
pub fn check(input: &[u8]) -> usize {
    let mut b = Bytes(input);
    let format = if b.next().is_multiple_of(4) {
        ObjectFormat::Sha256
    } else {
        ObjectFormat::Sha1
    };
    let strict = b.next().is_multiple_of(4);
    let opts = Options::new(strict);
    let raw = format.raw_len();
    let (base, target, copies) = pair(&mut b, raw);
    check_pair(format, &opts, &base, &target, &copies)
}

/// [`check`] for one pair: `target` is `base` edited, `copies` the delta's copies between them.
pub fn check_pair(
    format: ObjectFormat,
    opts: &Options,
    base: &[u8],
    target: &[u8],
    copies: &[Copy],
) -> usize {
    for c in copies {
        assert_eq!(base[c.from..c.from + c.len], target[c.to..c.to + c.len]);
    }
    let (base_said, _, base_entries) = said(base, format, opts, None);
    if !(base_said.simple && base_said.clean) || base_entries.is_empty() {
        return 0;
    }
    let (plain, _, _) = said(target, format, opts, None);
    let delta = DeltaOf {
        entries: &base_entries,
        copies,
    };
    let (skipping, skipped, _) = said(target, format, opts, Some(delta));
    assert_eq!(
        plain, skipping,
        "base {base:?}\ntarget {target:?}\ncopies {copies:?}"
    );
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut t = Vec::new();
        for (mode, name) in entries {
            t.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            t.extend_from_slice(&[1; 20]);
        }
        t
    }

    /// A file `foo` before `foo.c` is a candidate for a duplicate of a directory `foo` that the
    /// delta copied from a base where it was no duplicate: the run must not hide it.
    #[test]
    fn a_copied_run_does_not_hide_a_duplicate() {
        let base = tree(&[
            ("100644", "a"),
            ("100644", "foo.c"),
            ("40000", "foo"),
            ("100644", "g"),
        ]);
        let target = tree(&[
            ("100644", "a"),
            ("100644", "foo"),
            ("100644", "foo.c"),
            ("40000", "foo"),
            ("100644", "g"),
        ]);
        let a = 8 + 20;
        let foo = 11 + 20;
        let copies = [
            Copy {
                to: 0,
                from: 0,
                len: a,
            },
            Copy {
                to: a + foo,
                from: a,
                len: base.len() - a,
            },
        ];
        let opts = Options::new(false);
        // Only `g`, after the duplicate, is taken from the base.
        assert_eq!(
            check_pair(ObjectFormat::Sha1, &opts, &base, &target, &copies),
            1
        );
        let (plain, _, _) = said(&target, ObjectFormat::Sha1, &opts, None);
        assert!(
            plain
                .findings
                .iter()
                .any(|f| f.message.starts_with("duplicateEntries"))
        );
    }

    /// Pseudo-random inputs: the two checks agree on all of them, and runs were skipped.
    #[test]
    fn skipping_copied_entries_changes_nothing() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut skipped = 0;
        for _ in 0..30_000 {
            let input: Vec<u8> = (0..160)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            skipped += super::check(&input);
        }
        assert!(skipped > 2_000, "only {skipped} entries skipped");
    }
}

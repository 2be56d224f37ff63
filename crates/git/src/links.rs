//! What `git fsck` follows from an object, and what it prints on the way: git's object parsers
//! (`parse_commit_buffer` in `commit.c`, `parse_tag_buffer` in `tag.c`, through
//! `parse_object_buffer` in `object.c`) and its walk (`fsck_walk_tree`, `fsck_walk_commit`,
//! `fsck_walk_tag` in `fsck.c`), git 2.47.
//!
//! - A commit links to its tree, then its parents in order. git's parser wants
//!   `tree <hex>\n` at the very start (else `bogus commit object <id>`, or `bad tree pointer in
//!   commit <id>` when the id is not hexadecimal), then reads `parent <hex>\n` lines while one
//!   fits (a bad one, or one that leaves no byte after it, is `bad parents in commit <id>`).
//!   Nothing else in the commit matters to it.
//! - A tag links to the object of its `object` line, with the type its `type` line names.
//!   Most malformed tags fail silently (too short, no `object <hex>\n`, no `type ` line, a type
//!   of 20 bytes or more, no `tag ` line after the type, no newline after the name); an unknown
//!   type is `unknown tag type '<type>' in <id>`.
//! - A tree links to each entry in order: directories as trees, files and symbolic links as
//!   blobs, everything else (gitlinks, and modes git's walker reads as gitlinks) skipped. A tree
//!   whose first entry cannot be decoded prints the decoder's message and fails the walk (`git
//!   fsck` then says `error in tree <id>: broken links`); when a later entry cannot be decoded,
//!   the message is printed, the walk stops without failing, and the entry before it is not
//!   visited (git's `tree_entry_gently` drops it).
//!
//! When a commit or tag fails to parse, `git fsck` prints `<id>: object corrupt or missing`
//! (packed) or `<id>: object could not be parsed: <path>` (loose) and checks nothing else about
//! it. What git's parser looked up before failing is still given in [`Links::targets`], because
//! git records those ids with that type (a later object of another type with the same id is
//! then `object <id> is a <type>, not a <type>`).
//!
//! Grafts and shallow commits (whose parents git does not follow) are the caller's to apply
//! (then [`Links::grafted`]).

use crate::check::{decode_tree_entry, parse_hex_id};
use crate::hex as to_hex;
use crate::{Kind, ObjectFormat};

/// One object git's walk visits from another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The type git expects it to have (a tag's is the type its `type` line names).
    pub kind: Kind,
    /// The raw id.
    pub id: Vec<u8>,
    /// For a tree entry, its mode as written (octal digits, cut to 16 bits); 0 otherwise.
    pub mode: u16,
    /// For a tree entry, its name; empty otherwise.
    pub name: Vec<u8>,
}

/// What git's parser and walk make of one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// The objects the walk visits, in git's order (when `parse_failed`: what the parser looked
    /// up before failing, which git does not walk).
    pub targets: Vec<Link>,
    /// The `error:` lines git prints while parsing and walking (without `error: `), in order.
    pub errors: Vec<String>,
    /// git's `parse_object_buffer` fails (a commit or a tag): `git fsck` prints `<id>: object
    /// corrupt or missing` and does not check or walk the object.
    pub parse_failed: bool,
    /// The walk itself fails (a tree whose first entry cannot be decoded): `git fsck` prints
    /// `error in tree <id>: broken links`.
    pub walk_failed: bool,
    /// For a tag that parses, the name of its `tag` line.
    pub tag_name: Option<Vec<u8>>,
    /// For a commit: its parents in `targets` are the ones a graft (or the shallow boundary)
    /// gives it, not its own (the caller applies grafts).
    pub grafted: bool,
}

impl Links {
    /// git's parser looks up each object a commit or tag names (`lookup_tree`, `lookup_commit`,
    /// ... in `parse_commit_buffer` and `parse_tag_buffer`), in [`Links::targets`]' order, with
    /// the type it is named as; an object known as another type fails the parse there. `lookup`
    /// gives `Err(its type)` for such an object. `Err` holds git's lines then (without `error: `):
    /// `object X is a blob, not a commit`, and `bad tree pointer X in commit Y`, `bad parent X in
    /// commit Y` or `bad tag pointer to X in Y`; the objects after it are not looked up, and the
    /// parser's own [`Links::errors`] (which come after every lookup) are not printed.
    pub fn parse_lookups(
        &self,
        kind: Kind,
        oid: &[u8],
        mut lookup: impl FnMut(&[u8], Kind) -> Result<(), Kind>,
    ) -> Result<(), Vec<String>> {
        if !matches!(kind, Kind::Commit | Kind::Tag) {
            return Ok(());
        }
        for (n, t) in self.targets.iter().enumerate() {
            let Err(is) = lookup(&t.id, t.kind) else {
                continue;
            };
            let (id, of) = (to_hex(&t.id), to_hex(oid));
            let bad = match kind {
                Kind::Tag => format!("bad tag pointer to {id} in {of}"),
                _ if n == 0 => format!("bad tree pointer {id} in commit {of}"),
                _ if self.grafted => format!("bad graft parent {id} in commit {of}"),
                _ => format!("bad parent {id} in commit {of}"),
            };
            return Err(vec![
                format!("object {id} is a {}, not a {}", is.name(), t.kind.name()),
                bad,
            ]);
        }
        Ok(())
    }
}

/// What `git fsck`'s walk visits from the object of `kind` with raw id `oid` and content `buf`
/// (the id appears in git's messages).
pub fn links_for(kind: Kind, oid: &[u8], buf: &[u8], format: ObjectFormat) -> Links {
    // The id's hex is made only for a message: most objects have none.
    match kind {
        Kind::Blob => Links::default(),
        Kind::Tree => tree(buf, format),
        Kind::Commit => commit(buf, format, oid),
        Kind::Tag => tag(buf, format, oid),
    }
}

/// Raw bytes of `n` hexadecimal digits at `buf[i..]` (checked by the caller).
fn raw_id(buf: &[u8], i: usize, format: ObjectFormat) -> Vec<u8> {
    let d = |k: usize| {
        buf.get(k)
            .and_then(|&c| (c as char).to_digit(16))
            .unwrap_or(0) as u8
    };
    (0..format.raw_len())
        .map(|k| (d(i + 2 * k) << 4) | d(i + 2 * k + 1))
        .collect()
}

fn tree(buf: &[u8], format: ObjectFormat) -> Links {
    let raw = format.raw_len();
    let mut l = Links::default();
    if buf.is_empty() {
        return l;
    }
    let mut entry = match decode_tree_entry(buf, 0, raw) {
        Ok(e) => e,
        Err(why) => {
            l.errors.push(why.to_string());
            l.walk_failed = true;
            return l;
        }
    };
    loop {
        let next = if entry.end < buf.len() {
            match decode_tree_entry(buf, entry.end, raw) {
                Ok(e) => Some(e),
                Err(why) => {
                    // git's tree_entry_gently gives up on the entry whose successor is bad.
                    l.errors.push(why.to_string());
                    break;
                }
            }
        } else {
            None
        };
        // git's walker canonicalises modes: regular files and symbolic links are blobs,
        // directories trees, and anything else a gitlink, which is not followed.
        let kind = match entry.mode & 0o170000 {
            0o100000 | 0o120000 => Some(Kind::Blob),
            0o040000 => Some(Kind::Tree),
            _ => None,
        };
        if let Some(kind) = kind {
            l.targets.push(Link {
                kind,
                id: entry.id.to_vec(),
                mode: entry.mode,
                name: entry.name.to_vec(),
            });
        }
        match next {
            Some(e) => entry = e,
            None => break,
        }
    }
    l
}

/// The id of every entry of the tree `buf` as git's `tree_entry_gently` gives them, gitlinks
/// included: none when the first entry does not decode, and none from the entry whose successor
/// does not (what git's `add_promisor_object` takes of a tree), without allocating.
pub fn tree_entry_ids(buf: &[u8], format: ObjectFormat, mut each: impl FnMut(&[u8])) {
    let raw = format.raw_len();
    if buf.is_empty() {
        return;
    }
    let Ok(mut entry) = decode_tree_entry(buf, 0, raw) else {
        return;
    };
    loop {
        let next = if entry.end < buf.len() {
            match decode_tree_entry(buf, entry.end, raw) {
                Ok(e) => Some(e),
                Err(_) => return,
            }
        } else {
            None
        };
        each(entry.id);
        match next {
            Some(e) => entry = e,
            None => return,
        }
    }
}

fn commit(buf: &[u8], format: ObjectFormat, oid: &[u8]) -> Links {
    let hex = || to_hex(oid);
    let mut l = Links::default();
    let n = format.hex_len();
    let tree_entry_len = n + 5;
    let parent_entry_len = n + 7;
    let len = buf.len();
    if len <= tree_entry_len + 1
        || !buf.starts_with(b"tree ")
        || buf.get(tree_entry_len) != Some(&b'\n')
    {
        l.errors.push(format!("bogus commit object {}", hex()));
        l.parse_failed = true;
        return l;
    }
    if parse_hex_id(buf, 5, format).is_none() {
        l.errors
            .push(format!("bad tree pointer in commit {}", hex()));
        l.parse_failed = true;
        return l;
    }
    l.targets.push(Link {
        kind: Kind::Tree,
        id: raw_id(buf, 5, format),
        mode: 0,
        name: Vec::new(),
    });
    let mut p = tree_entry_len + 1;
    while p + parent_entry_len < len && buf.get(p..).is_some_and(|r| r.starts_with(b"parent ")) {
        if len <= p + parent_entry_len + 1
            || parse_hex_id(buf, p + 7, format).is_none()
            || buf.get(p + parent_entry_len) != Some(&b'\n')
        {
            l.errors.push(format!("bad parents in commit {}", hex()));
            l.parse_failed = true;
            return l;
        }
        l.targets.push(Link {
            kind: Kind::Commit,
            id: raw_id(buf, p + 7, format),
            mode: 0,
            name: Vec::new(),
        });
        p += parent_entry_len + 1;
    }
    l
}

fn tag(buf: &[u8], format: ObjectFormat, oid: &[u8]) -> Links {
    let hex = || to_hex(oid);
    let mut l = Links::default();
    let fail = |mut l: Links| {
        l.parse_failed = true;
        l
    };
    let n = format.hex_len();
    let len = buf.len();
    if len < n + 24 {
        return fail(l);
    }
    if !buf.starts_with(b"object ") || parse_hex_id(buf, 7, format).is_none() {
        return fail(l);
    }
    let mut p = 7 + n;
    if buf.get(p) != Some(&b'\n') {
        return fail(l);
    }
    p += 1;
    if !buf.get(p..).is_some_and(|r| r.starts_with(b"type ")) {
        return fail(l);
    }
    p += 5;
    let Some(nl) = buf
        .get(p..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
    else {
        return fail(l);
    };
    if nl >= 20 {
        return fail(l);
    }
    // git copies the type into a C string: a NUL ends it.
    let type_line = &buf[p..p + nl];
    let type_name = type_line.split(|&c| c == 0).next().unwrap_or(type_line);
    let Some(kind) = Kind::from_name(type_name) else {
        l.errors.push(format!(
            "unknown tag type '{}' in {}",
            String::from_utf8_lossy(type_name),
            hex()
        ));
        return fail(l);
    };
    l.targets.push(Link {
        kind,
        id: raw_id(buf, 7, format),
        mode: 0,
        name: Vec::new(),
    });
    p += nl + 1;
    if !(p + 4 < len && buf.get(p..).is_some_and(|r| r.starts_with(b"tag "))) {
        return fail(l);
    }
    p += 4;
    let Some(nl) = buf
        .get(p..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
    else {
        return fail(l);
    };
    l.tag_name = Some(buf[p..p + nl].to_vec());
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "4b825dc642cb6eb9a060e54bf8d69288fbc4904f";

    /// [`links_for`] under an arbitrary id: the id only appears in messages.
    fn links(kind: Kind, buf: &[u8], format: ObjectFormat) -> Links {
        links_for(kind, &[0x5a; 32][..format.raw_len()], buf, format)
    }

    #[test]
    fn commit_links() {
        let c = format!("tree {H}\nparent {H}\nparent {H}\nauthor x\n");
        let l = links(Kind::Commit, c.as_bytes(), ObjectFormat::Sha1);
        assert!(!l.parse_failed);
        assert_eq!(
            l.targets.iter().map(|t| t.kind).collect::<Vec<_>>(),
            [Kind::Tree, Kind::Commit, Kind::Commit]
        );
        // A commit that ends right after a parent line: git's parser wants one more byte.
        let c = format!("tree {H}\nparent {H}\n");
        let l = links(Kind::Commit, c.as_bytes(), ObjectFormat::Sha1);
        assert!(l.parse_failed);
        assert!(l.errors[0].starts_with("bad parents in commit "));
        assert_eq!(l.targets.len(), 1);
    }

    #[test]
    fn tag_links() {
        let t = format!("object {H}\ntype tree\ntag v1\ntagger x\n\nmsg\n");
        let l = links(Kind::Tag, t.as_bytes(), ObjectFormat::Sha1);
        assert!(!l.parse_failed);
        assert_eq!(l.tag_name.as_deref(), Some(&b"v1"[..]));
        assert_eq!(l.targets[0].kind, Kind::Tree);
        let t = format!("object {H}\ntype bogus\ntag v1\ntagger x\n\nmsg\n");
        let l = links(Kind::Tag, t.as_bytes(), ObjectFormat::Sha1);
        assert!(l.parse_failed);
        assert!(l.errors[0].starts_with("unknown tag type 'bogus' in "));
    }

    /// The first object named as another type than it has fails the parse, with git's lines;
    /// nothing after it is looked up.
    #[test]
    fn parse_lookups_stop_at_the_first_conflict() {
        let other = "1111111111111111111111111111111111111111";
        let c = format!("tree {H}\nparent {other}\nparent {H}\nauthor x\n");
        let l = links(Kind::Commit, c.as_bytes(), ObjectFormat::Sha1);
        let mut asked = Vec::new();
        let r = l.parse_lookups(Kind::Commit, &[0xab; 20], |id, k| {
            asked.push((to_hex(id), k));
            if to_hex(id) == other {
                Err(Kind::Blob)
            } else {
                Ok(())
            }
        });
        let lines = r.expect_err("a conflict");
        assert_eq!(lines[0], format!("object {other} is a blob, not a commit"));
        assert_eq!(
            lines[1],
            format!("bad parent {other} in commit {}", "ab".repeat(20))
        );
        assert_eq!(asked.len(), 2);
        let r = l.parse_lookups(Kind::Commit, &[0xab; 20], |_, k| {
            if k == Kind::Tree {
                Err(Kind::Commit)
            } else {
                Ok(())
            }
        });
        assert!(r.expect_err("tree")[1].starts_with(&format!("bad tree pointer {H} in commit ")));
        let t = format!("object {H}\ntype commit\ntag v1\ntagger x\n\nmsg\n");
        let l = links(Kind::Tag, t.as_bytes(), ObjectFormat::Sha1);
        let r = l.parse_lookups(Kind::Tag, &[1; 20], |_, _| Err(Kind::Blob));
        assert_eq!(
            r.expect_err("tag"),
            [
                format!("object {H} is a blob, not a commit"),
                format!("bad tag pointer to {H} in {}", "01".repeat(20))
            ]
        );
        // Trees and blobs are not parsed with lookups.
        assert!(
            l.parse_lookups(Kind::Tree, &[1; 20], |_, _| Err(Kind::Blob))
                .is_ok()
        );
    }

    #[test]
    fn tree_links() {
        let mut t = Vec::new();
        for (mode, name) in [
            ("100644", "a"),
            ("40000", "d"),
            ("160000", "g"),
            ("120000", "l"),
        ] {
            t.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            t.extend_from_slice(&[1u8; 20]);
        }
        let l = links(Kind::Tree, &t, ObjectFormat::Sha1);
        assert_eq!(
            l.targets
                .iter()
                .map(|t| (t.kind, t.name.clone()))
                .collect::<Vec<_>>(),
            [
                (Kind::Blob, b"a".to_vec()),
                (Kind::Tree, b"d".to_vec()),
                (Kind::Blob, b"l".to_vec())
            ]
        );
        let l = links(Kind::Tree, b"abc\n", ObjectFormat::Sha1);
        assert!(l.walk_failed);
        assert_eq!(l.errors, ["too-short tree object"]);
    }
}

//! The checks `git hash-object` runs on commits, trees and tags before hashing them: git's fsck
//! checks in strict mode, where every finding (error, warning or info) refuses the object. The
//! message ids and texts are git's (its `fsck.c` is the reference for both), so that a refusal
//! reads the same: `error: object fails fsck: <msgId>: <text>`.
//!
//! The behaviour follows git 2.47 closely, quirks included, because the point is to accept and
//! refuse exactly what git does: a tree's parse error is printed before the fsck message for it,
//! a tree reports every kind of problem it has (in a fixed order) while commits and tags stop at
//! the first, and a tag whose bad `tagger` line is followed by an extra header line is reported
//! but still accepted. What git reads from its object database after hashing (the blobs a tree
//! names `.gitmodules` or `.gitattributes`) is not checked here: flagsplit reads no database.

use super::ObjectFormat;

/// The result of checking one object.
#[derive(Debug, Default)]
pub struct Report {
    /// git's `error:` lines, without `error: `, in the order git prints them.
    pub errors: Vec<String>,
    /// Whether git refuses the object (`fatal: refusing to create malformed object`).
    pub refused: bool,
}

impl Report {
    /// An fsck finding: printed, and the object is refused.
    fn fsck(&mut self, id: &str, text: &str) {
        self.errors.push(format!("object fails fsck: {id}: {text}"));
        self.refused = true;
    }

    /// A plain `error:` line (a tree that cannot be parsed says why first).
    fn error(&mut self, text: &str) {
        self.errors.push(text.to_string());
    }
}

/// The byte at `i`, or NUL past the end: git's parsers read NUL-terminated buffers.
#[inline]
fn at(buf: &[u8], i: usize) -> u8 {
    buf.get(i).copied().unwrap_or(0)
}

/// Longest name git accepts in a tree entry (fsck's `max_tree_entry_len`).
const MAX_TREE_ENTRY_LEN: usize = 4096;

const S_IFMT: u16 = 0o170000;
const S_IFLNK: u16 = 0o120000;
const S_IFDIR: u16 = 0o040000;

fn is_link(mode: u16) -> bool {
    mode & S_IFMT == S_IFLNK
}

fn is_dir(mode: u16) -> bool {
    mode & S_IFMT == S_IFDIR
}

/// One decoded tree entry.
struct Entry<'a> {
    /// Offset of the entry's first byte (its mode) in the tree.
    start: usize,
    /// The mode as git keeps it: octal digits accumulated in 32 bits, then cut to 16.
    mode: u16,
    name: &'a [u8],
    id: &'a [u8],
    /// Offset just after the entry.
    end: usize,
}

/// Decodes the entry at `start`, as git's tree walker does: the whole rest of the tree must be
/// long enough and have a NUL where the last entry's name ends.
fn decode(tree: &[u8], start: usize, raw: usize) -> Result<Entry<'_>, &'static str> {
    let rest = &tree[start..];
    let size = rest.len();
    if size < raw + 3 || rest[size - (raw + 1)] != 0 {
        return Err("too-short tree object");
    }
    if rest[0] == b' ' {
        return Err("malformed mode in tree entry");
    }
    let mut mode: u32 = 0;
    let mut i = 0;
    loop {
        let c = rest[i]; // a NUL comes before the end, and ends the loop as malformed
        i += 1;
        if c == b' ' {
            break;
        }
        if !(b'0'..=b'7').contains(&c) {
            return Err("malformed mode in tree entry");
        }
        mode = (mode << 3).wrapping_add(u32::from(c - b'0'));
    }
    if rest[i] == 0 {
        return Err("empty filename in tree entry");
    }
    let name_len = rest[i..]
        .iter()
        .position(|&b| b == 0)
        .ok_or("too-short tree object")?;
    let name = &rest[i..i + name_len];
    let id_at = i + name_len + 1;
    let id = rest
        .get(id_at..id_at + raw)
        .ok_or("too-short tree object")?;
    Ok(Entry {
        start,
        mode: mode as u16, // git stores the mode in 16 bits
        name,
        id,
        end: start + id_at + raw,
    })
}

/// Checks a tree.
pub fn tree(buf: &[u8], format: ObjectFormat) -> Report {
    let raw = format.raw_len();
    let mut r = Report::default();
    if buf.is_empty() {
        return r;
    }
    let mut entry = match decode(buf, 0, raw) {
        Ok(e) => e,
        Err(why) => {
            r.error(why);
            r.fsck("badTree", "cannot be parsed as a tree");
            return r;
        }
    };
    let mut null_id = false;
    let mut full_path = false;
    let mut empty_name = false;
    let mut dot = false;
    let mut dotdot = false;
    let mut dotgit = false;
    let mut zero_pad = false;
    let mut bad_modes = false;
    let mut duplicates = false;
    let mut unsorted = false;
    let mut large_name = false;
    let mut previous: Option<(u16, &[u8])> = None;
    let mut candidates: Vec<&[u8]> = Vec::new();
    loop {
        let (mode, name) = (entry.mode, entry.name);
        null_id |= entry.id.iter().all(|&b| b == 0);
        full_path |= name.contains(&b'/');
        empty_name |= name.is_empty();
        dot |= name == b".";
        dotdot |= name == b"..";
        dotgit |= is_hfs_dot(name, b"git") || is_ntfs_dotgit(name);
        zero_pad |= buf[entry.start] == b'0';
        large_name |= name.len() > MAX_TREE_ENTRY_LEN;

        if (is_hfs_dot(name, b"gitmodules") || is_ntfs_dot(name, b"gitmodules", b"gi7eba"))
            && is_link(mode)
        {
            r.fsck("gitmodulesSymlink", ".gitmodules is a symbolic link");
        }
        if (is_hfs_dot(name, b"gitattributes") || is_ntfs_dot(name, b"gitattributes", b"gi7d29"))
            && is_link(mode)
        {
            r.fsck("gitattributesSymlink", ".gitattributes is a symlink");
        }
        if is_link(mode) {
            if is_hfs_dot(name, b"gitignore") || is_ntfs_dot(name, b"gitignore", b"gi250a") {
                r.fsck("gitignoreSymlink", ".gitignore is a symlink");
            }
            if is_hfs_dot(name, b"mailmap") || is_ntfs_dot(name, b"mailmap", b"maba30") {
                r.fsck("mailmapSymlink", ".mailmap is a symlink");
            }
        }
        // A backslash is a directory separator on NTFS: each part after one is checked too.
        for (i, _) in name.iter().enumerate().filter(|(_, b)| **b == b'\\') {
            let after = &name[i + 1..];
            dotgit |= is_ntfs_dotgit(after);
            if is_ntfs_dot(after, b"gitmodules", b"gi7eba") && is_link(mode) {
                r.fsck("gitmodulesSymlink", ".gitmodules is a symbolic link");
            }
        }

        let next = if entry.end < buf.len() {
            match decode(buf, entry.end, raw) {
                Ok(e) => Some(e),
                Err(why) => {
                    r.error(why);
                    r.fsck("badTree", "cannot be parsed as a tree");
                    break;
                }
            }
        } else {
            None
        };

        // Strict mode: 100664, accepted by a lenient fsck, is a bad mode too.
        if !matches!(mode, 0o100755 | 0o100644 | 0o120000 | 0o040000 | 0o160000) {
            bad_modes = true;
        }
        if let Some((o_mode, o_name)) = previous {
            match verify_ordered(o_mode, o_name, mode, name, &mut candidates) {
                Order::Unordered => unsorted = true,
                Order::Duplicate => duplicates = true,
                Order::Ok => {}
            }
        }
        previous = Some((mode, name));
        match next {
            Some(e) => entry = e,
            None => break,
        }
    }
    let findings = [
        (
            null_id,
            "nullSha1",
            "contains entries pointing to null sha1",
        ),
        (full_path, "fullPathname", "contains full pathnames"),
        (empty_name, "emptyName", "contains empty pathname"),
        (dot, "hasDot", "contains '.'"),
        (dotdot, "hasDotdot", "contains '..'"),
        (dotgit, "hasDotgit", "contains '.git'"),
        (
            zero_pad,
            "zeroPaddedFilemode",
            "contains zero-padded file modes",
        ),
        (bad_modes, "badFilemode", "contains bad file modes"),
        (
            duplicates,
            "duplicateEntries",
            "contains duplicate file entries",
        ),
        (unsorted, "treeNotSorted", "not properly sorted"),
        (
            large_name,
            "largePathname",
            "contains excessively large pathname",
        ),
    ];
    for (found, id, text) in findings {
        if found {
            r.fsck(id, text);
        }
    }
    r
}

enum Order {
    Ok,
    Unordered,
    Duplicate,
}

fn less_than_slash(c: u8) -> bool {
    c != 0 && c < b'/'
}

/// git's tree order (a directory sorts as if its name ended in `/`) between consecutive entries,
/// and the duplicates that order hides: a file `foo` and a directory `foo` need not be adjacent
/// (`foo`, `foo.bar`, `foo/`), so files that could clash with a later directory are kept in
/// `candidates`.
fn verify_ordered<'a>(
    mode1: u16,
    name1: &'a [u8],
    mode2: u16,
    name2: &'a [u8],
    candidates: &mut Vec<&'a [u8]>,
) -> Order {
    let len = name1.len().min(name2.len());
    match name1[..len].cmp(&name2[..len]) {
        std::cmp::Ordering::Less => return Order::Ok,
        std::cmp::Ordering::Greater => return Order::Unordered,
        std::cmp::Ordering::Equal => {}
    }
    let mut c1 = at(name1, len);
    let mut c2 = at(name2, len);
    if c1 == 0 && c2 == 0 {
        return Order::Duplicate;
    }
    if c1 == 0 && is_dir(mode1) {
        c1 = b'/';
    }
    if c2 == 0 && is_dir(mode2) {
        c2 = b'/';
    }
    if c1 == 0 && less_than_slash(c2) {
        candidates.push(name1);
    } else if c2 == b'/' && less_than_slash(c1) {
        while let Some(f_name) = candidates.pop() {
            let Some(p) = name2.strip_prefix(f_name) else {
                continue;
            };
            if p.is_empty() {
                return Order::Duplicate;
            }
            if less_than_slash(p[0]) {
                candidates.push(f_name);
                break;
            }
        }
    }
    if c1 < c2 { Order::Ok } else { Order::Unordered }
}

/// The next character of `name` as HFS+ sees it: UTF-8 decoded, with the code points HFS+
/// ignores skipped; 0 at the end and for invalid UTF-8 (which git, too, takes for the end).
fn next_hfs_char(name: &[u8], i: &mut usize) -> u32 {
    loop {
        let Some(c) = utf8_char(name, i) else {
            return 0;
        };
        match c {
            0x200c..=0x200f | 0x202a..=0x202e | 0x206a..=0x206f | 0xfeff => continue,
            _ => return c,
        }
    }
}

/// Decodes one UTF-8 character at `*i` as git's `pick_one_utf8_char` does (no overlong forms,
/// surrogates, U+FFFE/U+FFFF or code points past U+10FFFF); the end reads as NUL.
fn utf8_char(s: &[u8], i: &mut usize) -> Option<u32> {
    let b = |k: usize| u32::from(at(s, *i + k));
    let s0 = b(0);
    let cont = |k: usize| b(k) & 0xc0 == 0x80;
    let (c, n) = if s0 < 0x80 {
        (s0, 1)
    } else if s0 & 0xe0 == 0xc0 {
        if !cont(1) || s0 & 0xfe == 0xc0 {
            return None;
        }
        (((s0 & 0x1f) << 6) | (b(1) & 0x3f), 2)
    } else if s0 & 0xf0 == 0xe0 {
        if !cont(1)
            || !cont(2)
            || (s0 == 0xe0 && b(1) & 0xe0 == 0x80)
            || (s0 == 0xed && b(1) & 0xe0 == 0xa0)
            || (s0 == 0xef && b(1) == 0xbf && b(2) & 0xfe == 0xbe)
        {
            return None;
        }
        (
            ((s0 & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f),
            3,
        )
    } else if s0 & 0xf8 == 0xf0 {
        if !cont(1)
            || !cont(2)
            || !cont(3)
            || (s0 == 0xf0 && b(1) & 0xf0 == 0x80)
            || (s0 == 0xf4 && b(1) > 0x8f)
            || s0 > 0xf4
        {
            return None;
        }
        (
            ((s0 & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f),
            4,
        )
    } else {
        return None;
    };
    *i += n;
    Some(c)
}

/// Whether `name` is `.<needle>` for HFS+: case folded, ignorable code points skipped, and
/// possibly followed by a directory part.
fn is_hfs_dot(name: &[u8], needle: &[u8]) -> bool {
    let mut i = 0;
    if next_hfs_char(name, &mut i) != u32::from(b'.') {
        return false;
    }
    for &n in needle {
        let c = next_hfs_char(name, &mut i);
        if c > 127 || (c as u8).to_ascii_lowercase() != n {
            return false;
        }
    }
    matches!(next_hfs_char(name, &mut i), 0 | 0x2f)
}

/// Whether `name` is `.git` for NTFS: `.git` or its short name `git~1` (any case), followed
/// only by spaces and dots, up to the end, a directory separator or an alternate data stream.
fn is_ntfs_dotgit(name: &[u8]) -> bool {
    let lower = |i: usize| at(name, i).to_ascii_lowercase();
    let mut i = if at(name, 0) == b'.' {
        if lower(1) != b'g' || lower(2) != b'i' || lower(3) != b't' {
            return false;
        }
        4
    } else if lower(0) == b'g' {
        if lower(1) != b'i' || lower(2) != b't' || at(name, 3) != b'~' || at(name, 4) != b'1' {
            return false;
        }
        5
    } else {
        return false;
    };
    loop {
        let c = at(name, i);
        i += 1;
        if c == 0 || c == b'/' || c == b'\\' || c == b':' {
            return true;
        }
        if c != b'.' && c != b' ' {
            return false;
        }
    }
}

/// Spaces and dots up to the end or an alternate data stream (`:`).
fn only_spaces_and_periods(name: &[u8], mut i: usize) -> bool {
    loop {
        let c = at(name, i);
        i += 1;
        if c == 0 || c == b':' {
            return true;
        }
        if c != b' ' && c != b'.' {
            return false;
        }
    }
}

/// Whether `name` is `.<dotgit_name>` for NTFS: the name itself (any case), its 8.3 short name
/// (the first six characters, `~1` to `~4`), or the hashed fall-back short name that starts
/// with `short_prefix`; each followed only by spaces and dots.
fn is_ntfs_dot(name: &[u8], dotgit_name: &[u8], short_prefix: &[u8]) -> bool {
    let len = dotgit_name.len();
    let case_eq = |from: usize, needle: &[u8]| {
        needle
            .iter()
            .enumerate()
            .all(|(k, &n)| at(name, from + k).to_ascii_lowercase() == n)
    };
    if at(name, 0) == b'.' && case_eq(1, dotgit_name) {
        return only_spaces_and_periods(name, len + 1);
    }
    if case_eq(0, &dotgit_name[..6]) && at(name, 6) == b'~' && (b'1'..=b'4').contains(&at(name, 7))
    {
        return only_spaces_and_periods(name, 8);
    }
    let mut saw_tilde = false;
    let mut i = 0;
    while i < 8 {
        let c = at(name, i);
        if c == 0 {
            return false;
        } else if saw_tilde {
            if !c.is_ascii_digit() {
                return false;
            }
        } else if c == b'~' {
            i += 1;
            if !(b'1'..=b'9').contains(&at(name, i)) {
                return false;
            }
            saw_tilde = true;
        } else if i >= 6 || c & 0x80 != 0 || c.to_ascii_lowercase() != short_prefix[i] {
            return false;
        }
        i += 1;
    }
    only_spaces_and_periods(name, 8)
}

/// The header (up to the blank line) must hold no NUL and end with a newline. `Err` stops the
/// check there.
fn verify_headers(buf: &[u8], r: &mut Report) -> Result<(), ()> {
    for (i, &c) in buf.iter().enumerate() {
        match c {
            0 => {
                r.fsck(
                    "nulInHeader",
                    &format!("unterminated header: NUL at offset {i}"),
                );
                return Err(());
            }
            b'\n' if at(buf, i + 1) == b'\n' && i + 1 < buf.len() => return Ok(()),
            _ => {}
        }
    }
    if buf.last() == Some(&b'\n') {
        return Ok(());
    }
    r.fsck("unterminatedHeader", "unterminated header");
    Err(())
}

/// Whether `buf[i..]` starts with `prefix`; on success `i` moves past it.
fn skip_prefix(buf: &[u8], i: &mut usize, prefix: &[u8]) -> bool {
    if buf.get(*i..).is_some_and(|rest| rest.starts_with(prefix)) {
        *i += prefix.len();
        true
    } else {
        false
    }
}

/// An id in hexadecimal (either case) at `i`; returns the offset after it.
fn parse_hex_id(buf: &[u8], i: usize, format: ObjectFormat) -> Option<usize> {
    let n = format.hex_len();
    (0..n)
        .all(|k| at(buf, i + k).is_ascii_hexdigit())
        .then_some(i + n)
}

/// The prefix git gives every identity message.
const IDENT: &str = "invalid author/committer line - ";

/// Checks the identity (`Name <email> 1234567890 +0100`) that starts at `*i`, and moves `*i` to
/// the next line whatever the verdict.
fn ident(buf: &[u8], i: &mut usize, r: &mut Report) -> Result<(), ()> {
    let mut p = *i;
    *i = match buf[*i..].iter().position(|&c| c == b'\n' || c == 0) {
        Some(k) if buf[*i + k] == b'\n' => *i + k + 1,
        Some(k) => *i + k,
        None => buf.len(),
    };
    let fail = |r: &mut Report, id: &str, text: &str| {
        r.fsck(id, &format!("{IDENT}{text}"));
        Err(())
    };
    let span = |p: usize| {
        let mut q = p;
        while !matches!(at(buf, q), 0 | b'<' | b'>' | b'\n') {
            q += 1;
        }
        q
    };
    if at(buf, p) == b'<' {
        return fail(r, "missingNameBeforeEmail", "missing space before email");
    }
    p = span(p);
    if at(buf, p) == b'>' {
        return fail(r, "badName", "bad name");
    }
    if at(buf, p) != b'<' {
        return fail(r, "missingEmail", "missing email");
    }
    if at(buf, p - 1) != b' ' {
        return fail(r, "missingSpaceBeforeEmail", "missing space before email");
    }
    p = span(p + 1);
    if at(buf, p) != b'>' {
        return fail(r, "badEmail", "bad email");
    }
    p += 1;
    if at(buf, p) != b' ' {
        return fail(r, "missingSpaceBeforeDate", "missing space before date");
    }
    p += 1;
    while matches!(at(buf, p), b' ' | b'\t') {
        p += 1;
    }
    if !at(buf, p).is_ascii_digit() {
        return fail(r, "badDate", "bad date");
    }
    if at(buf, p) == b'0' && at(buf, p + 1) != b' ' {
        return fail(r, "zeroPaddedDate", "zero-padded date");
    }
    // strtoumax: saturates at the largest value; git's timestamps must also fit a signed time_t.
    let mut end = p;
    let mut value: u64 = 0;
    while at(buf, end).is_ascii_digit() {
        value = value
            .saturating_mul(10)
            .saturating_add(u64::from(at(buf, end) - b'0'));
        end += 1;
    }
    if value > i64::MAX as u64 {
        return fail(r, "badDateOverflow", "date causes integer overflow");
    }
    if at(buf, end) != b' ' {
        return fail(r, "badDate", "bad date");
    }
    p = end + 1;
    if !matches!(at(buf, p), b'+' | b'-')
        || !(1..=4).all(|k| at(buf, p + k).is_ascii_digit())
        || at(buf, p + 5) != b'\n'
    {
        return fail(r, "badTimezone", "bad time zone");
    }
    Ok(())
}

/// Checks a commit.
pub fn commit(buf: &[u8], format: ObjectFormat) -> Report {
    let mut r = Report::default();
    let _ = commit_checks(buf, format, &mut r);
    r
}

fn commit_checks(buf: &[u8], format: ObjectFormat, r: &mut Report) -> Result<(), ()> {
    verify_headers(buf, r)?;
    let end = buf.len();
    let mut i = 0;
    if !skip_prefix(buf, &mut i, b"tree ") {
        r.fsck("missingTree", "invalid format - expected 'tree' line");
        return Err(());
    }
    match parse_hex_id(buf, i, format) {
        Some(p) if at(buf, p) == b'\n' => i = p + 1,
        _ => {
            r.fsck("badTreeSha1", "invalid 'tree' line format - bad sha1");
            return Err(());
        }
    }
    while i < end && skip_prefix(buf, &mut i, b"parent ") {
        match parse_hex_id(buf, i, format) {
            Some(p) if at(buf, p) == b'\n' => i = p + 1,
            _ => {
                r.fsck("badParentSha1", "invalid 'parent' line format - bad sha1");
                return Err(());
            }
        }
    }
    let mut authors = 0;
    while i < end && skip_prefix(buf, &mut i, b"author ") {
        authors += 1;
        ident(buf, &mut i, r)?;
    }
    if authors == 0 {
        r.fsck("missingAuthor", "invalid format - expected 'author' line");
        return Err(());
    }
    if authors > 1 {
        r.fsck(
            "multipleAuthors",
            "invalid format - multiple 'author' lines",
        );
        return Err(());
    }
    if i >= end || !skip_prefix(buf, &mut i, b"committer ") {
        r.fsck(
            "missingCommitter",
            "invalid format - expected 'committer' line",
        );
        return Err(());
    }
    ident(buf, &mut i, r)?;
    if buf.contains(&0) {
        r.fsck("nulInCommit", "NUL byte in the commit object body");
        return Err(());
    }
    Ok(())
}

/// Checks a tag.
pub fn tag(buf: &[u8], format: ObjectFormat) -> Report {
    let mut r = Report::default();
    if tag_checks(buf, format, &mut r).is_ok() {
        // A tagger finding followed by an extra header line: git reports the finding, then the
        // extra header (a message it ignores) resets its verdict to success.
        r.refused = false;
    }
    r
}

/// `Err` when git refuses the tag.
fn tag_checks(buf: &[u8], format: ObjectFormat, r: &mut Report) -> Result<(), ()> {
    verify_headers(buf, r)?;
    let end = buf.len();
    let mut i = 0;
    let fail = |r: &mut Report, id: &str, text: &str| {
        r.fsck(id, text);
        Err(())
    };
    if !skip_prefix(buf, &mut i, b"object ") {
        return fail(
            r,
            "missingObject",
            "invalid format - expected 'object' line",
        );
    }
    match parse_hex_id(buf, i, format) {
        Some(p) if at(buf, p) == b'\n' => i = p + 1,
        _ => {
            return fail(
                r,
                "badObjectSha1",
                "invalid 'object' line format - bad sha1",
            );
        }
    }
    if i >= end || !skip_prefix(buf, &mut i, b"type ") {
        return fail(
            r,
            "missingTypeEntry",
            "invalid format - expected 'type' line",
        );
    }
    let Some(eol) = buf[i..].iter().position(|&c| c == b'\n').map(|k| i + k) else {
        return fail(
            r,
            "missingType",
            "invalid format - unexpected end after 'type' line",
        );
    };
    if super::Kind::from_bytes(&buf[i..eol]).is_none() {
        return fail(r, "badType", "invalid 'type' value");
    }
    i = eol + 1;
    if i >= end || !skip_prefix(buf, &mut i, b"tag ") {
        return fail(r, "missingTagEntry", "invalid format - expected 'tag' line");
    }
    let Some(eol) = buf[i..].iter().position(|&c| c == b'\n').map(|k| i + k) else {
        return fail(
            r,
            "missingTag",
            "invalid format - unexpected end after 'type' line",
        );
    };
    let name = &buf[i..eol];
    if !tag_name_ok(name) {
        return fail(
            r,
            "badTagName",
            &format!("invalid 'tag' name: {}", String::from_utf8_lossy(name)),
        );
    }
    i = eol + 1;
    let mut verdict = Ok(());
    if i >= end || !skip_prefix(buf, &mut i, b"tagger ") {
        // Early tags have no tagger line; strict mode refuses them.
        return fail(
            r,
            "missingTaggerEntry",
            "invalid format - expected 'tagger' line",
        );
    } else if ident(buf, &mut i, r).is_err() {
        verdict = Err(());
    }
    if i < end && buf[i] != b'\n' {
        // Extra header lines after the tagger: a message git ignores, whose "no error" becomes
        // the verdict.
        verdict = Ok(());
    }
    verdict
}

/// Whether `refs/tags/<name>` is a valid ref name (git's `check_refname_format` without flags).
fn tag_name_ok(name: &[u8]) -> bool {
    let mut full = b"refs/tags/".to_vec();
    full.extend_from_slice(name);
    refname_ok(&full)
}

fn refname_ok(refname: &[u8]) -> bool {
    if refname == b"@" {
        return false;
    }
    let mut components = 0;
    let mut last_component: &[u8] = b"";
    for component in refname.split(|&c| c == b'/') {
        if !component_ok(component) {
            return false;
        }
        components += 1;
        last_component = component;
    }
    !last_component.ends_with(b".") && components >= 2
}

/// One path component of a ref name: not empty, no leading `.`, no `..`, no `@{`, no control
/// character, space or any of `:?[\^~*`, not ending in `.lock`.
fn component_ok(c: &[u8]) -> bool {
    if c.is_empty() || c[0] == b'.' || c.ends_with(b".lock") {
        return false;
    }
    let mut last = 0u8;
    for &ch in c {
        let bad = ch < 0x20
            || ch == 0x7f
            || matches!(ch, b' ' | b':' | b'?' | b'[' | b'\\' | b'^' | b'~' | b'*')
            || (ch == b'.' && last == b'.')
            || (ch == b'{' && last == b'@');
        if bad {
            return false;
        }
        last = ch;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotgit_forms() {
        for name in [
            &b".git"[..],
            b".GIT",
            b".Git.",
            b".git ",
            b".git::$INDEX_ALLOCATION",
            b"git~1",
            b"GIT~1..",
            b".g\xe2\x80\x8cit",
            b"\xef\xbb\xbf.git",
        ] {
            assert!(
                is_hfs_dot(name, b"git") || is_ntfs_dotgit(name),
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
        for name in [&b".gitx"[..], b"git~2", b"git", b".gi", b"x.git"] {
            assert!(
                !(is_hfs_dot(name, b"git") || is_ntfs_dotgit(name)),
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
        assert!(is_ntfs_dot(b"GITMOD~1", b"gitmodules", b"gi7eba"));
        assert!(is_ntfs_dot(b"gi7eba~9", b"gitmodules", b"gi7eba"));
        assert!(is_ntfs_dot(b".gitmodules . ", b"gitmodules", b"gi7eba"));
        assert!(!is_ntfs_dot(b"gitmodules", b"gitmodules", b"gi7eba"));
    }

    #[test]
    fn ref_names() {
        for ok in [&b"v1.0"[..], b"a/b", b"x@y", b"caf\xc3\xa9"] {
            assert!(tag_name_ok(ok), "{:?}", String::from_utf8_lossy(ok));
        }
        for bad in [
            &b""[..],
            b"a b",
            b"a..b",
            b".a",
            b"a.",
            b"a.lock",
            b"a@{1}",
            b"a/",
            b"a~1",
            b"a*",
            b"a\x7f",
        ] {
            assert!(!tag_name_ok(bad), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn tree_parse_errors_come_first() {
        let r = tree(b"abc\n", ObjectFormat::Sha1);
        assert_eq!(
            r.errors,
            [
                "too-short tree object",
                "object fails fsck: badTree: cannot be parsed as a tree"
            ]
        );
        assert!(r.refused);
    }
}

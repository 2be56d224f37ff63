//! Name rules of git's fsck: tree order, the names that HFS+ and NTFS read as `.git`,
//! `.gitmodules` and friends, and ref names.

use crate::Kind;

/// The byte at `i`, or NUL past the end: git's parsers read NUL-terminated buffers.
#[inline]
pub(super) fn at(buf: &[u8], i: usize) -> u8 {
    buf.get(i).copied().unwrap_or(0)
}

pub(super) const S_IFMT: u16 = 0o170000;
pub(super) const S_IFLNK: u16 = 0o120000;
pub(super) const S_IFDIR: u16 = 0o040000;

pub(super) fn is_link(mode: u16) -> bool {
    mode & S_IFMT == S_IFLNK
}

pub(super) fn is_dir(mode: u16) -> bool {
    mode & S_IFMT == S_IFDIR
}

pub(super) enum Order {
    Ok,
    Unordered,
    Duplicate,
}

pub(super) fn less_than_slash(c: u8) -> bool {
    c != 0 && c < b'/'
}

/// git's tree order (a directory sorts as if its name ended in `/`) between consecutive entries,
/// and the duplicates that order hides: a file `foo` and a directory `foo` need not be adjacent
/// (`foo`, `foo.bar`, `foo/`), so files that could clash with a later directory are kept in
/// `candidates`.
pub(super) fn verify_ordered<'a>(
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
pub(super) fn next_hfs_char(name: &[u8], i: &mut usize) -> u32 {
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
pub(super) fn utf8_char(s: &[u8], i: &mut usize) -> Option<u32> {
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
pub(super) fn is_hfs_dot(name: &[u8], needle: &[u8]) -> bool {
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
pub(super) fn is_ntfs_dotgit(name: &[u8]) -> bool {
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
pub(super) fn only_spaces_and_periods(name: &[u8], mut i: usize) -> bool {
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
pub(super) fn is_ntfs_dot(name: &[u8], dotgit_name: &[u8], short_prefix: &[u8]) -> bool {
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

/// Whether `refs/tags/<name>` is a valid ref name (git's `check_refname_format` without flags).
pub(super) fn tag_name_ok(name: &[u8]) -> bool {
    let mut full = b"refs/tags/".to_vec();
    full.extend_from_slice(name);
    refname_ok(&full)
}

pub(super) fn refname_ok(refname: &[u8]) -> bool {
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
pub(super) fn component_ok(c: &[u8]) -> bool {
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

/// The mode at the start of a tree entry when it is one of a well-formed tree's (a directory, a
/// file, an executable, a symbolic link, a gitlink), followed by its space: its length with the
/// space, the type a link to it names (`None`: a gitlink, not followed) and its value. Compared
/// as words: this runs once per entry of every tree.
pub(crate) fn simple_mode(rest: &[u8]) -> Option<(usize, Option<Kind>, u16)> {
    let word = |n: usize| -> Option<u64> {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(rest.get(..n)?);
        Some(u64::from_le_bytes(w))
    };
    let as_word = |m: &[u8]| {
        let mut w = [0u8; 8];
        w[..m.len()].copy_from_slice(m);
        u64::from_le_bytes(w)
    };
    if word(6)? == as_word(b"40000 ") {
        return Some((6, Some(Kind::Tree), 0o40000));
    }
    let w = word(7)?;
    if w == as_word(b"100644 ") {
        Some((7, Some(Kind::Blob), 0o100644))
    } else if w == as_word(b"100755 ") {
        Some((7, Some(Kind::Blob), 0o100755))
    } else if w == as_word(b"120000 ") {
        Some((7, Some(Kind::Blob), 0o120000))
    } else if w == as_word(b"160000 ") {
        Some((7, None, 0o160000))
    } else {
        None
    }
}

/// The position of the first NUL in `s`, eight bytes at a time.
pub(crate) fn first_nul(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for c in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        // The lowest flagged byte is the first zero byte (a borrow flags only bytes above one).
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == 0)
        .map(|p| at + p)
}

/// Whether every check of a tree entry's name passes without a closer look: each needs a name
/// that starts with `.` (HFS+ skips ignorable characters, all outside ASCII, before it), an NTFS
/// short name (which has a `~`), a backslash or a slash, and nearly all names have none.
pub(super) fn plain_name(name: &[u8]) -> bool {
    if !name.first().is_some_and(|&b| b != b'.' && b < 0x80) {
        return false;
    }
    // Eight bytes at a time: whether a word holds one of the three bytes.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGHS != 0
    };
    let special = |w: u64| has(w, b'~') || has(w, b'\\') || has(w, b'/');
    let mut words = name.chunks_exact(8);
    for c in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        if special(u64::from_le_bytes(w)) {
            return false;
        }
    }
    let rest = words.remainder();
    let mut w = [b'a'; 8];
    w[..rest.len()].copy_from_slice(rest);
    !special(u64::from_le_bytes(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain name is none of the names the tree checks look for, whatever its case and
    /// whichever bytes follow: every name of up to three bytes over an alphabet of the bytes
    /// that matter, and the special names with one byte changed.
    #[test]
    fn plain_names_match_no_special_name() {
        let special = |n: &[u8]| {
            n.is_empty()
                || n == b"."
                || n == b".."
                || n.contains(&b'/')
                || is_hfs_dot(n, b"git")
                || is_ntfs_dotgit(n)
                || [
                    (&b"gitmodules"[..], &b"gi7eba"[..]),
                    (b"gitattributes", b"gi7d29"),
                    (b"gitignore", b"gi250a"),
                    (b"mailmap", b"maba30"),
                ]
                .iter()
                .any(|(d, p)| is_hfs_dot(n, d) || is_ntfs_dot(n, d, p))
                || n.iter()
                    .enumerate()
                    .any(|(i, &b)| b == b'\\' && is_ntfs_dotgit(&n[i + 1..]))
        };
        let alphabet = b"gGiIt.~1 :\\/am\xe2\x80\x8c\xef\xbb\xbf";
        let mut names: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u8>> = names
                .iter()
                .flat_map(|n| alphabet.iter().map(move |&b| [n.as_slice(), &[b]].concat()))
                .collect();
            names.extend(longer);
        }
        for base in [
            &b".git"[..],
            b"git~1",
            b".gitmodules",
            b"GITMOD~1",
            b"gi7eba~9",
            b".gitattributes",
            b"gi7d29~1",
            b".gitignore",
            b".mailmap",
            b"maba30~2",
            b"\xef\xbb\xbf.git",
        ] {
            for i in 0..base.len() {
                for &b in alphabet.iter().chain(b"xX0") {
                    let mut n = base.to_vec();
                    n[i] = b;
                    names.push(n);
                }
            }
            names.push(base.to_vec());
        }
        for n in &names {
            if plain_name(n) {
                assert!(!special(n), "{:?}", String::from_utf8_lossy(n));
            }
        }
        assert!(plain_name(b"Makefile") && plain_name(b"fsck.c") && plain_name(b"gitk"));
        // Each of the bytes that matter, anywhere in a long name.
        for len in 1..24 {
            assert!(plain_name(&vec![b'x'; len]));
            for at in 1..len {
                for b in [b'~', b'\\', b'/'] {
                    let mut n = vec![b'x'; len];
                    n[at] = b;
                    assert!(!plain_name(&n), "{:?}", String::from_utf8_lossy(&n));
                }
                let mut n = vec![b'x'; len];
                n[at] = 0xff;
                assert!(plain_name(&n));
            }
        }
        assert!(!plain_name(b".git") && !plain_name(b"GIT~1") && !plain_name(b"a\\b"));
    }

    #[test]
    fn first_nul_is_the_first_zero_byte() {
        for len in 0..40 {
            for fill in [1u8, 0x80, 0xff, b'a'] {
                let none = vec![fill; len];
                assert_eq!(first_nul(&none), None);
                for at in 0..len {
                    let mut s = none.clone();
                    s[at] = 0;
                    // A second NUL later, and a 0x01 just after the first (a borrow's neighbour).
                    if at + 1 < len {
                        s[at + 1] = 1;
                    }
                    if at + 3 < len {
                        s[at + 3] = 0;
                    }
                    assert_eq!(first_nul(&s), Some(at), "{s:?}");
                }
            }
        }
    }

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
}

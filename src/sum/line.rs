//! Checksum lines: formatting them (`HASH  NAME`, `HASH *NAME`, `SHA1 (NAME) = HASH`), the
//! file-name escaping, and parsing them back for `--check`, byte for byte as GNU coreutils 9.1
//! does.
//!
//! Escaping: when a name contains a backslash, a newline or a carriage return (and the line ends
//! with a newline, not `-z`'s NUL), the line starts with `\` and the name is written with `\\`,
//! `\n` and `\r`. Reading, a line starting (after blanks) with `\` has its name unescaped; only
//! those three escapes are valid.

use std::borrow::Cow;

use super::Sum;

/// How `flagsplit sha1sum FILE` prints a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `HASH  NAME` (the default, `-t`).
    Text,
    /// `HASH *NAME` (`-b`).
    Binary,
    /// `SHA1 (NAME) = HASH` (`--tag`).
    Tag,
}

/// Whether coreutils escapes `name` on an output line: it contains `\`, `\n` or `\r`.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Appends `name`, with `\\`, `\n` and `\r` escapes when `escape`.
pub fn push_name(out: &mut Vec<u8>, name: &[u8], escape: bool) {
    if !escape {
        out.extend_from_slice(name);
        return;
    }
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// The name of an escaped line: `\\`, `\n` and `\r` decoded. `None` for any other escape, a
/// trailing lone backslash, or a NUL byte (coreutils rejects the line then).
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => match bytes.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            },
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `digest` in lower-case hexadecimal.
pub fn push_hex(out: &mut Vec<u8>, digest: &[u8]) {
    for &b in digest {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

/// Appends the line `sha1sum`/`md5sum` prints for `name` (including the final newline, or NUL
/// with `zero`, which also turns escaping off).
pub fn format_line(
    out: &mut Vec<u8>,
    sum: Sum,
    digest: &[u8],
    name: &[u8],
    style: Style,
    zero: bool,
) {
    let escape = !zero && needs_escape(name);
    if escape {
        out.push(b'\\');
    }
    if style == Style::Tag {
        out.extend_from_slice(sum.tag().as_bytes());
        out.extend_from_slice(b" (");
        push_name(out, name, escape);
        out.extend_from_slice(b") = ");
        push_hex(out, digest);
    } else {
        push_hex(out, digest);
        out.push(b' ');
        out.push(if style == Style::Binary { b'*' } else { b' ' });
        push_name(out, name, escape);
    }
    out.push(if zero { 0 } else { b'\n' });
}

/// The line as `--check` looks at it: `None` for lines it skips (comments starting with `#`,
/// empty lines), else the line without its final `\n` and then one final `\r`.
pub fn strip_line(raw: &[u8]) -> Option<&[u8]> {
    if raw.first() == Some(&b'#') {
        return None;
    }
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// coreutils' memory of how untagged lines are laid out, kept for a whole run (all check files):
/// the first untagged line decides between the standard `HASH  NAME` / `HASH *NAME` layout and
/// the "reversed BSD" `HASH NAME` (one blank, as `md5 -r` prints), and lines of the other layout
/// are improperly formatted from then on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout(Option<bool>);

impl Layout {
    /// Whether the reversed BSD layout has been seen (`None`: no untagged line yet).
    pub fn reversed(self) -> Option<bool> {
        self.0
    }
}

/// One properly formatted checksum line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine<'a> {
    /// The hexadecimal digest as written (either case).
    pub digest: &'a [u8],
    /// The file name, unescaped.
    pub name: Cow<'a, [u8]>,
    /// Whether the line said `*` (binary); no difference on GNU systems.
    pub binary: bool,
}

impl CheckLine<'_> {
    /// Whether the line's digest is `computed` (hexadecimal compared without case).
    pub fn matches(&self, computed: &[u8]) -> bool {
        self.digest.len() == computed.len() * 2
            && self.digest.chunks_exact(2).zip(computed).all(|(hex, &b)| {
                hex[0].eq_ignore_ascii_case(&HEX[usize::from(b >> 4)])
                    && hex[1].eq_ignore_ascii_case(&HEX[usize::from(b & 15)])
            })
    }
}

fn at(s: &[u8], i: usize) -> u8 {
    // coreutils works on a NUL-terminated copy of the line.
    s.get(i).copied().unwrap_or(0)
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` up to its first NUL, as C string functions see it.
fn c_str(s: &[u8]) -> &[u8] {
    s.iter().position(|&b| b == 0).map_or(s, |n| &s[..n])
}

/// `hex_len` hexadecimal digits at `s[i..]`, followed by the end of the C string.
fn hex_digits_at(s: &[u8], i: usize, hex_len: usize) -> Option<&[u8]> {
    let ok = (0..hex_len).all(|k| at(s, i + k).is_ascii_hexdigit()) && at(s, i + hex_len) == 0;
    ok.then(|| &s[i..i + hex_len])
}

/// Parses one line of a check file (as returned by [`strip_line`]), as coreutils 9.1's
/// `split_3` does: the standard layout (`HASH  NAME`, `HASH *NAME`), the reversed BSD layout
/// (`HASH NAME`), the BSD tagged layout (`SHA1 (NAME) = HASH`, also `SHA1(NAME)= HASH`), each
/// optionally escaped (a leading `\`). Leading blanks are ignored; everything after the mode
/// character is the name. `None`: improperly formatted.
pub fn parse_check_line<'a>(s: &'a [u8], sum: Sum, layout: &mut Layout) -> Option<CheckLine<'a>> {
    let mut i = 0;
    while is_blank(at(s, i)) {
        i += 1;
    }
    let escaped = at(s, i) == b'\\';
    if escaped {
        i += 1;
    }
    let tag = sum.tag().as_bytes();
    if s[i..].starts_with(tag) {
        let mut j = i + tag.len();
        if at(s, j) == b' ' {
            j += 1;
        }
        // An untagged line cannot start with the tag, its first letter not being a hex digit.
        return (at(s, j) == b'(')
            .then(|| parse_tagged(&s[j + 1..], sum, escaped))
            .flatten();
    }

    let hex_len = sum.hex_len();
    // The digest, one blank and at least one byte of name (one more after a second backslash).
    if s.len() - i < hex_len + 2 + usize::from(at(s, i) == b'\\') {
        return None;
    }
    let digest = &s[i..i + hex_len];
    i += hex_len;
    if !is_blank(at(s, i)) || !digest.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    i += 1;
    let mut binary = false;
    if s.len() - i == 1 || (at(s, i) != b' ' && at(s, i) != b'*') {
        if layout.0 == Some(false) {
            return None;
        }
        layout.0 = Some(true);
    } else if layout.0 != Some(true) {
        layout.0 = Some(false);
        binary = at(s, i) == b'*';
        i += 1;
    }
    let rest = &s[i..];
    let name = if escaped {
        Cow::Owned(unescape(rest)?)
    } else {
        Cow::Borrowed(c_str(rest))
    };
    Some(CheckLine {
        digest,
        name,
        binary,
    })
}

/// The part of a tagged line after `SHA1 (`: `NAME) = HASH`, the name ending at the last `)`.
fn parse_tagged(s: &[u8], sum: Sum, escaped: bool) -> Option<CheckLine<'_>> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = if escaped {
        Cow::Owned(unescape(&s[..close])?)
    } else {
        Cow::Borrowed(c_str(&s[..close]))
    };
    let mut i = close + 1;
    while is_blank(at(s, i)) {
        i += 1;
    }
    if at(s, i) != b'=' {
        return None;
    }
    i += 1;
    while is_blank(at(s, i)) {
        i += 1;
    }
    let digest = hex_digits_at(s, i, sum.hex_len())?;
    Some(CheckLine {
        digest,
        name,
        binary: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY_SHA1: &str = "da39a3ee5e6b4b0d3255bfef95601890afd80709";

    fn line(sum: Sum, digest: &[u8], name: &[u8], style: Style, zero: bool) -> Vec<u8> {
        let mut v = Vec::new();
        format_line(&mut v, sum, digest, name, style, zero);
        v
    }

    #[test]
    fn formats_like_coreutils() {
        let d = [0xab, 0x01];
        assert_eq!(line(Sum::Md5, &d, b"f", Style::Text, false), b"ab01  f\n");
        assert_eq!(line(Sum::Md5, &d, b"f", Style::Binary, false), b"ab01 *f\n");
        assert_eq!(
            line(Sum::Md5, &d, b"f", Style::Tag, false),
            b"MD5 (f) = ab01\n"
        );
        assert_eq!(
            line(Sum::Sha1, &d, b"f", Style::Tag, true),
            b"SHA1 (f) = ab01\0"
        );
        assert_eq!(
            line(Sum::Sha1, &d, b"a\\b\nc\rd", Style::Text, false),
            b"\\ab01  a\\\\b\\nc\\rd\n"
        );
        assert_eq!(
            line(Sum::Sha1, &d, b"a\\b", Style::Tag, false),
            b"\\SHA1 (a\\\\b) = ab01\n"
        );
        // -z: no escaping at all.
        assert_eq!(
            line(Sum::Sha1, &d, b"a\\b\nc", Style::Binary, true),
            b"ab01 *a\\b\nc\0"
        );
        assert!(!needs_escape(b"plain \t\x01\xff"));
    }

    #[test]
    fn unescape_accepts_only_three_escapes() {
        assert_eq!(
            unescape(b"a\\\\b\\nc\\rd").as_deref(),
            Some(&b"a\\b\nc\rd"[..])
        );
        assert_eq!(unescape(b""), Some(Vec::new()));
        assert_eq!(unescape(b"a\\t"), None);
        assert_eq!(unescape(b"a\\"), None);
        assert_eq!(unescape(b"a\0b"), None);
        for name in [&b"x"[..], b"\\", b"\n\r\\n", b"\xff\\\\"] {
            let mut esc = Vec::new();
            push_name(&mut esc, name, true);
            assert_eq!(unescape(&esc).as_deref(), Some(name));
        }
    }

    #[test]
    fn strips_like_getline_loop() {
        assert_eq!(strip_line(b"# comment\n"), None);
        assert_eq!(strip_line(b"\n"), None);
        assert_eq!(strip_line(b"\r\n"), None);
        assert_eq!(strip_line(b"\r"), None);
        assert_eq!(strip_line(b"x\r\r\n"), Some(&b"x\r"[..]));
        assert_eq!(strip_line(b" #x"), Some(&b" #x"[..]));
        assert_eq!(strip_line(b"x"), Some(&b"x"[..]));
    }

    fn parse(s: &str, layout: &mut Layout) -> Option<(String, Vec<u8>, bool)> {
        parse_check_line(s.as_bytes(), Sum::Sha1, layout).map(|l| {
            (
                String::from_utf8_lossy(l.digest).into_owned(),
                l.name.into_owned(),
                l.binary,
            )
        })
    }

    #[test]
    fn parses_standard_lines() {
        let mut l = Layout::default();
        let r = parse(&format!("{EMPTY_SHA1}  name with  spaces "), &mut l).unwrap();
        assert_eq!(
            (r.0.as_str(), &r.1[..], r.2),
            (EMPTY_SHA1, &b"name with  spaces "[..], false)
        );
        assert_eq!(l.reversed(), Some(false));
        let r = parse(&format!(" \t{EMPTY_SHA1} *bin"), &mut l).unwrap();
        assert_eq!((&r.1[..], r.2), (&b"bin"[..], true));
        let r = parse(&format!("\\{EMPTY_SHA1}  a\\\\b\\nc"), &mut l).unwrap();
        assert_eq!(&r.1[..], b"a\\b\nc");
        assert_eq!(parse(&format!("\\{EMPTY_SHA1}  a\\b"), &mut l), None);
        // Upper case digests are fine; a short or long digest is not.
        assert!(parse(&format!("{}  x", EMPTY_SHA1.to_uppercase()), &mut l).is_some());
        assert_eq!(parse(&format!("{}  x", &EMPTY_SHA1[1..]), &mut l), None);
        assert_eq!(parse(&format!("{EMPTY_SHA1}0  x"), &mut l), None);
        assert_eq!(parse(EMPTY_SHA1, &mut l), None);
        assert_eq!(parse(&format!("{EMPTY_SHA1}  "), &mut l), None);
        // The standard layout was seen first: a reversed line is refused from now on.
        assert_eq!(parse(&format!("{EMPTY_SHA1} x"), &mut l), None);
        // A NUL ends an unescaped name (C string), and makes an escaped one invalid.
        let text = format!("{EMPTY_SHA1}  ab\0cd");
        let r = parse_check_line(text.as_bytes(), Sum::Sha1, &mut l);
        assert_eq!(r.unwrap().name.as_ref(), b"ab");
        let text = format!("\\{EMPTY_SHA1}  ab\0cd");
        assert_eq!(parse_check_line(text.as_bytes(), Sum::Sha1, &mut l), None);
    }

    #[test]
    fn reversed_layout_sticks() {
        let mut l = Layout::default();
        let r = parse(&format!("{EMPTY_SHA1} x"), &mut l).unwrap();
        assert_eq!((&r.1[..], l.reversed()), (&b"x"[..], Some(true)));
        // Now "  name" keeps its blank: the name is " name".
        let r = parse(&format!("{EMPTY_SHA1}  name"), &mut l).unwrap();
        assert_eq!(&r.1[..], b" name");
        // One byte after the blank is always the reversed layout, even "*".
        let mut l = Layout::default();
        let r = parse(&format!("{EMPTY_SHA1} *"), &mut l).unwrap();
        assert_eq!(
            (&r.1[..], r.2, l.reversed()),
            (&b"*"[..], false, Some(true))
        );
    }

    #[test]
    fn parses_tagged_lines() {
        let mut l = Layout::default();
        let r = parse(&format!("SHA1 (a (b) c) = {EMPTY_SHA1}"), &mut l).unwrap();
        assert_eq!(&r.1[..], b"a (b) c");
        let r = parse(&format!("SHA1(x)={EMPTY_SHA1}"), &mut l).unwrap();
        assert_eq!(&r.1[..], b"x");
        let r = parse(&format!("  \\SHA1 (a\\\\b\\r) \t=\t {EMPTY_SHA1}"), &mut l).unwrap();
        assert_eq!(&r.1[..], b"a\\b\r");
        assert_eq!(l.reversed(), None, "tagged lines do not decide the layout");
        assert_eq!(parse(&format!("SHA1 (x) = {EMPTY_SHA1} "), &mut l), None);
        assert_eq!(parse(&format!("SHA1  (x) = {EMPTY_SHA1}"), &mut l), None);
        assert_eq!(parse(&format!("SHA1 (x) {EMPTY_SHA1}"), &mut l), None);
        assert_eq!(
            parse(&format!("MD5 (x) = {}", &EMPTY_SHA1[..32]), &mut l),
            None
        );
        assert_eq!(parse("SHA1 (", &mut l), None);
        let md5 = parse_check_line(
            b"MD5 (x) = d41d8cd98f00b204e9800998ecf8427e",
            Sum::Md5,
            &mut l,
        );
        assert_eq!(md5.unwrap().name.as_ref(), b"x");
        // The digest is a C string: a NUL right after it ends the line.
        let nul = format!("SHA1 (x) = {EMPTY_SHA1}\0junk");
        assert!(parse_check_line(nul.as_bytes(), Sum::Sha1, &mut l).is_some());
    }

    #[test]
    fn matches_ignores_case() {
        let line = CheckLine {
            digest: b"aBcD",
            name: Cow::Borrowed(b"x"),
            binary: false,
        };
        assert!(line.matches(&[0xab, 0xcd]));
        assert!(!line.matches(&[0xab, 0xce]));
        assert!(!line.matches(&[0xab]));
    }
}

//! File names in messages, quoted as coreutils quotes them (gnulib's `quotef`: the
//! `shell-escape` quoting style with `:` also quoted), so that `flagsplit sha1sum: 'a b': No such
//! file or directory` reads exactly like `sha1sum: 'a b': No such file or directory`.
//!
//! A name made only of characters that are safe for a shell is printed as is. Otherwise it is
//! single-quoted, with control characters and bytes that are not printable in the locale's
//! character set written as `$'\n'`-style escapes (`'a'$'\n''b'`), except that a name whose only
//! trouble is a single quote is double-quoted (`"it's"`).
//!
//! What is printable depends on the locale, as in coreutils: with a UTF-8 `LC_ALL`/`LC_CTYPE`/
//! `LANG` it is what glibc's `iswprint` accepts (a table generated from glibc 2.36, see
//! `gen_printable.py`), otherwise (the C locale) only printable ASCII.

use std::borrow::Cow;
use std::ffi::OsStr;

use super::printable::PRINTABLE;

/// The character set names are decoded with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// A UTF-8 locale: valid, printable multibyte characters are kept.
    Utf8,
    /// A single-byte locale such as C/POSIX: every byte above 0x7e is escaped.
    Ascii,
}

impl Charset {
    /// The character set of the locale glibc's `setlocale(LC_ALL, "")` would pick: the first
    /// non-empty of `LC_ALL`, `LC_CTYPE`, `LANG`; UTF-8 when its codeset says so.
    ///
    /// Approximation: a UTF-8 locale that is not installed counts as UTF-8 here, where glibc
    /// would fall back to the C locale.
    pub fn from_env() -> Charset {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .filter_map(std::env::var_os)
            .find(|v| !v.is_empty());
        match name {
            Some(name) => Charset::from_locale_name(&name),
            None => Charset::Ascii,
        }
    }

    /// The character set of a locale name like `en_US.UTF-8`, `C.utf8` or `de_DE@euro`.
    pub fn from_locale_name(name: &OsStr) -> Charset {
        let name = name.as_encoded_bytes();
        let codeset = match name.iter().position(|&b| b == b'.') {
            Some(dot) => &name[dot + 1..],
            None => return Charset::Ascii,
        };
        let codeset = codeset.split(|&b| b == b'@').next().unwrap_or(codeset);
        let normalized: Vec<u8> = codeset
            .iter()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
            .collect();
        if normalized == b"utf8" {
            Charset::Utf8
        } else {
            Charset::Ascii
        }
    }
}

/// Whether code point `c` is printable (glibc's `iswprint` in a UTF-8 locale).
pub fn is_printable(c: char) -> bool {
    let c = u32::from(c);
    if c < 0x80 {
        return (0x20..0x7f).contains(&c);
    }
    PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// One unit of a name: an ASCII byte, a valid multibyte character (with its length) or a byte
/// that is not part of any valid character.
#[derive(Clone, Copy)]
enum Unit {
    Ascii(u8),
    Char { printable: bool, len: usize },
    Invalid,
}

fn next_unit(s: &[u8], charset: Charset) -> Unit {
    let b = s[0];
    if b < 0x80 {
        return Unit::Ascii(b);
    }
    if charset == Charset::Ascii {
        return Unit::Invalid;
    }
    let len = match b {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Unit::Invalid,
    };
    match s.get(..len).map(std::str::from_utf8) {
        Some(Ok(text)) => match text.chars().next() {
            Some(c) => Unit::Char {
                printable: is_printable(c),
                len,
            },
            None => Unit::Invalid,
        },
        _ => Unit::Invalid,
    }
}

/// ASCII bytes that never need quoting (`:` is quoted too, as `quotef` asks).
fn is_safe_ascii(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b']' | b'_' | b'@'
        )
}

/// Whether `name` can be printed without quotes.
fn is_bare(name: &[u8], charset: Charset) -> bool {
    if name.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        match next_unit(&name[i..], charset) {
            Unit::Ascii(b) => {
                let ok = is_safe_ascii(b)
                    || (matches!(b, b'#' | b'~') && i != 0)
                    || (matches!(b, b'{' | b'}') && name.len() != 1);
                if !ok {
                    return false;
                }
                i += 1;
            }
            Unit::Char {
                printable: true,
                len,
            } => i += len,
            Unit::Char {
                printable: false, ..
            }
            | Unit::Invalid => return false,
        }
    }
    true
}

/// `name` quoted for a message, as coreutils' `quotef` does it.
pub fn quote(name: &[u8], charset: Charset) -> Cow<'_, [u8]> {
    if is_bare(name, charset) {
        return Cow::Borrowed(name);
    }
    let mut out = Vec::with_capacity(name.len() + 8);
    out.push(b'\'');
    // Whether a `$'...'` escape section is open.
    let mut in_escape = false;
    let mut single_quote = false;
    // Whether every character could go between double quotes as is.
    let mut double_quotable = true;
    let escape = |out: &mut Vec<u8>, in_escape: &mut bool, text: &[u8]| {
        if !*in_escape {
            out.extend_from_slice(b"'$'");
            *in_escape = true;
        }
        out.push(b'\\');
        out.extend_from_slice(text);
    };
    let plain = |out: &mut Vec<u8>, in_escape: &mut bool, bytes: &[u8]| {
        if *in_escape {
            out.extend_from_slice(b"''");
            *in_escape = false;
        }
        out.extend_from_slice(bytes);
    };
    let octal = |b: u8| [b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)];
    let mut i = 0;
    while i < name.len() {
        match next_unit(&name[i..], charset) {
            Unit::Ascii(b) => {
                let letter = match b {
                    b'\n' => Some(b'n'),
                    b'\r' => Some(b'r'),
                    b'\t' => Some(b't'),
                    0x07 => Some(b'a'),
                    0x08 => Some(b'b'),
                    0x0c => Some(b'f'),
                    0x0b => Some(b'v'),
                    _ => None,
                };
                if let Some(letter) = letter {
                    escape(&mut out, &mut in_escape, &[letter]);
                    double_quotable = false;
                } else if b == b'\'' {
                    single_quote = true;
                    out.extend_from_slice(b"'\\''");
                    in_escape = false;
                } else if (0x20..0x7f).contains(&b) {
                    plain(&mut out, &mut in_escape, &[b]);
                    double_quotable &= is_safe_ascii(b)
                        || matches!(b, b' ' | b':')
                        || (matches!(b, b'#' | b'~') && i == 0)
                        || (matches!(b, b'{' | b'}') && name.len() == 1);
                } else {
                    escape(&mut out, &mut in_escape, &octal(b));
                    double_quotable = false;
                }
                i += 1;
            }
            Unit::Char {
                printable: true,
                len,
            } => {
                plain(&mut out, &mut in_escape, &name[i..i + len]);
                i += len;
            }
            Unit::Char {
                printable: false,
                len,
            } => {
                for &b in &name[i..i + len] {
                    escape(&mut out, &mut in_escape, &octal(b));
                }
                double_quotable = false;
                i += len;
            }
            Unit::Invalid => {
                escape(&mut out, &mut in_escape, &octal(name[i]));
                double_quotable = false;
                i += 1;
            }
        }
    }
    if single_quote && double_quotable {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return Cow::Owned(out);
    }
    out.push(b'\'');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &[u8]) -> String {
        String::from_utf8_lossy(&quote(name, Charset::Utf8)).into_owned()
    }

    fn qc(name: &[u8]) -> String {
        String::from_utf8_lossy(&quote(name, Charset::Ascii)).into_owned()
    }

    // Expected values observed from coreutils 9.1 (`sha1sum -- NAME` on a missing NAME).
    #[test]
    fn like_quotef() {
        assert_eq!(q(b"plain"), "plain");
        assert_eq!(q(b"no file"), "'no file'");
        assert_eq!(q(b"no\nfile"), "'no'$'\\n''file'");
        assert_eq!(q(b"no\xff"), "'no'$'\\377'");
        assert_eq!(q("café".as_bytes()), "café");
        assert_eq!(qc("café".as_bytes()), "'caf'$'\\303\\251'");
        assert_eq!(q(b"it's"), "\"it's\"");
        assert_eq!(q(b"it's:x"), "\"it's:x\"");
        assert_eq!(q(b"it's\n"), "'it'\\''s'$'\\n'");
        assert_eq!(q(b"$x"), "'$x'");
        assert_eq!(q(b"a:b"), "'a:b'");
        assert_eq!(q(b""), "''");
        assert_eq!(q(b"{"), "'{'");
        assert_eq!(q(b"{a"), "{a");
        assert_eq!(q(b"~x"), "'~x'");
        assert_eq!(q(b"x~"), "x~");
        assert_eq!(q(b"#a"), "'#a'");
        assert_eq!(q(b"@x"), "@x");
        assert_eq!(q(b"a\x01b"), "'a'$'\\001''b'");
        assert_eq!(q(b"\t"), "''$'\\t'");
        assert_eq!(q(b"x\x7f"), "'x'$'\\177'");
        assert_eq!(q("\u{85}".as_bytes()), "''$'\\302\\205'");
        assert_eq!(q("\u{2028}".as_bytes()), "''$'\\342\\200\\250'");
        assert_eq!(q(b"a\xc3"), "'a'$'\\303'");
        assert_eq!(q(b"a\xed\xa0\x80b"), "'a'$'\\355\\240\\200''b'");
        assert_eq!(q(b"a\\b"), "'a\\b'");
        assert_eq!(q(b"standard input"), "'standard input'");
    }

    #[test]
    fn printable_table() {
        assert!(is_printable('a') && is_printable(' ') && !is_printable('\u{7f}'));
        assert!(!is_printable('\u{85}') && is_printable('\u{a0}') && is_printable('\u{e000}'));
        assert!(
            !is_printable('\u{378}') && !is_printable('\u{ffff}') && !is_printable('\u{10ffff}')
        );
        assert!(PRINTABLE.windows(2).all(|w| w[0].1 + 1 < w[1].0));
        assert!(PRINTABLE.iter().all(|&(lo, hi)| lo <= hi && lo >= 0x80));
    }

    #[test]
    fn locale_names() {
        let cs = |s: &str| Charset::from_locale_name(OsStr::new(s));
        assert_eq!(cs("C.UTF-8"), Charset::Utf8);
        assert_eq!(cs("en_US.utf8"), Charset::Utf8);
        assert_eq!(cs("sr_RS.UTF-8@latin"), Charset::Utf8);
        assert_eq!(cs("C"), Charset::Ascii);
        assert_eq!(cs("POSIX"), Charset::Ascii);
        assert_eq!(cs("de_DE.ISO-8859-1"), Charset::Ascii);
    }
}

//! git's C-style quoting of names (`quote.c`), as its readers of paths undo it.

/// git's `unquote_c_style`: `text` starts with `"`; the text up to the closing quote, unescaped
/// (`\a \b \f \n \r \t \v \\ \"` and three octal digits, the first 0-3), and how many bytes
/// were used (through the closing quote; what follows is not looked at). `None` when there is
/// no closing quote or an escape is not one of those.
pub fn unquote_c_style(text: &[u8]) -> Option<(Vec<u8>, usize)> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        let c = *text.get(i)?;
        i += 1;
        match c {
            b'"' => return Some((out, i)),
            b'\\' => {
                let e = *text.get(i)?;
                i += 1;
                let v = match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let d = |b: Option<&u8>| {
                            b.filter(|b| (b'0'..=b'7').contains(b)).map(|b| b - b'0')
                        };
                        let (x, y) = (d(text.get(i))?, d(text.get(i + 1))?);
                        i += 2;
                        ((e - b'0') << 6) | (x << 3) | y
                    }
                    _ => return None,
                };
                out.push(v);
            }
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_as_git() {
        let u = |s: &[u8]| {
            unquote_c_style(s).map(|(v, n)| (String::from_utf8_lossy(&v).into_owned(), n))
        };
        assert_eq!(u(b"\"a\\tb\" rest"), Some(("a\tb".to_string(), 6)));
        assert_eq!(u(b"\"\\141\\303\\251\""), Some(("a\u{e9}".to_string(), 14)));
        assert_eq!(u(b"\"\\400\""), None);
        assert_eq!(u(b"\"\\q\""), None);
        assert_eq!(u(b"\"open"), None);
        assert_eq!(u(b"plain"), None);
    }
}

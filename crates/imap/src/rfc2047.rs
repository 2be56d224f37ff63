//! Decoding RFC 2047 encoded words (`=?UTF-8?q?caf=C3=A9?=`) in a header value, for reports:
//! `git format-patch` encodes a non-ASCII subject so. Charsets decoded: UTF-8, US-ASCII and
//! ISO-8859-1 (Latin-1); an encoded word in any other charset, or malformed, is kept as written.
//! White space between two adjacent encoded words is dropped (RFC 2047 §6.2).

/// `value` with its encoded words decoded.
pub fn decode(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let (before, from) = rest.split_at(start);
        match encoded_word(from) {
            Some((text, len)) => {
                if !(after_word && before.trim_matches([' ', '\t']).is_empty()) {
                    out.push_str(before);
                }
                out.push_str(&text);
                rest = &from[len..];
                after_word = true;
            }
            None => {
                out.push_str(before);
                out.push_str("=?");
                rest = &from[2..];
                after_word = false;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The encoded word at the start of `s`: its text and its length in bytes.
fn encoded_word(s: &str) -> Option<(String, usize)> {
    let body = s.strip_prefix("=?")?;
    let (charset, body) = body.split_once('?')?;
    let (encoding, body) = body.split_once('?')?;
    let end = body.find("?=")?;
    let text = &body[..end];
    if text.contains(' ') || charset.is_empty() {
        return None;
    }
    let len = 2 + charset.len() + 1 + encoding.len() + 1 + end + 2;
    // `charset*language` (RFC 2231) names the charset first.
    let charset = charset.split('*').next().unwrap_or(charset);
    let bytes = match encoding {
        "Q" | "q" => q_decode(text)?,
        "B" | "b" => crate::sasl::base64_decode(text.as_bytes())?,
        _ => return None,
    };
    let decoded = match charset.to_ascii_lowercase().as_str() {
        "utf-8" | "utf8" => String::from_utf8(bytes).ok()?,
        "us-ascii" => String::from_utf8(bytes).ok().filter(|t| t.is_ascii())?,
        "iso-8859-1" | "latin1" => bytes.iter().map(|&b| char::from(b)).collect(),
        _ => return None,
    };
    Some((decoded, len))
}

fn q_decode(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn encoded_words() {
        assert_eq!(decode("plain subject"), "plain subject");
        assert_eq!(
            decode("[PATCH 1/2] =?UTF-8?q?caf=C3=A9_cr=C3=A8me?="),
            "[PATCH 1/2] café crème"
        );
        assert_eq!(
            decode("=?UTF-8?q?[PATCH]_na=C3=AFve?= =?UTF-8?q?_more?= tail"),
            "[PATCH] naïve more tail"
        );
        assert_eq!(decode("=?utf-8?B?w6l0w6k=?="), "été");
        assert_eq!(decode("=?ISO-8859-1?Q?caf=E9?="), "café");
        // Kept as written: unknown charset, malformed, or not a word.
        assert_eq!(decode("=?KOI8-R?Q?x?="), "=?KOI8-R?Q?x?=");
        assert_eq!(decode("a =?UTF-8?q?=ZZ?= b"), "a =?UTF-8?q?=ZZ?= b");
        assert_eq!(decode("x =? y"), "x =? y");
        assert_eq!(decode("=?UTF-8?q?a?= b =?UTF-8?q?c?="), "a b c");
    }
}

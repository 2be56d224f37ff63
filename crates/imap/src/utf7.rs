//! Modified UTF-7 for mailbox names (RFC 3501 §5.1.3): printable ASCII stands for itself (`&` as
//! `&-`), everything else is UTF-16 in a base64 variant (`,` for `/`) between `&` and `-`.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

/// Encodes a mailbox name.
pub fn encode(name: &str) -> String {
    let mut out = String::new();
    let mut pending: Vec<u16> = Vec::new();
    let flush = |pending: &mut Vec<u16>, out: &mut String| {
        if pending.is_empty() {
            return;
        }
        out.push('&');
        let bytes: Vec<u8> = pending.iter().flat_map(|u| u.to_be_bytes()).collect();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            let chars = chunk.len() + 1;
            for i in 0..chars {
                let index = ((n >> (18 - 6 * i)) & 63) as usize;
                out.push(char::from(ALPHABET[index]));
            }
        }
        out.push('-');
        pending.clear();
    };
    for c in name.chars() {
        if (' '..='~').contains(&c) {
            flush(&mut pending, &mut out);
            if c == '&' {
                out.push_str("&-");
            } else {
                out.push(c);
            }
        } else {
            let mut buf = [0u16; 2];
            pending.extend_from_slice(c.encode_utf16(&mut buf));
        }
    }
    flush(&mut pending, &mut out);
    out
}

/// Decodes a mailbox name; `None` when it is not valid modified UTF-7.
pub fn decode(name: &[u8]) -> Option<String> {
    let mut out = String::new();
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if b != b'&' {
            if !(0x20..0x7f).contains(&b) {
                return None;
            }
            out.push(char::from(b));
            i += 1;
            continue;
        }
        let end = i + 1 + name.get(i + 1..)?.iter().position(|&b| b == b'-')?;
        let encoded = &name[i + 1..end];
        i = end + 1;
        if encoded.is_empty() {
            out.push('&');
            continue;
        }
        let mut bits: u32 = 0;
        let mut nbits = 0;
        let mut bytes = Vec::new();
        for &c in encoded {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            bits = (bits << 6) | v;
            nbits += 6;
            if nbits >= 8 {
                nbits -= 8;
                bytes.push((bits >> nbits) as u8);
                bits &= (1 << nbits) - 1;
            }
        }
        if bytes.len() % 2 != 0 {
            return None;
        }
        let units: Vec<u16> = bytes
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        out.push_str(&String::from_utf16(&units).ok()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_examples() {
        assert_eq!(
            encode("~peter/mail/台北/日本語"),
            "~peter/mail/&U,BTFw-/&ZeVnLIqe-"
        );
        assert_eq!(encode("Entwürfe"), "Entw&APw-rfe");
        assert_eq!(encode("A&B"), "A&-B");
        assert_eq!(encode("[Gmail]/Drafts"), "[Gmail]/Drafts");
        assert_eq!(
            decode(b"~peter/mail/&U,BTFw-/&ZeVnLIqe-").as_deref(),
            Some("~peter/mail/台北/日本語")
        );
        assert_eq!(decode(b"A&-B").as_deref(), Some("A&B"));
        assert_eq!(decode(b"&Jjo-!").as_deref(), Some("☺!"));
        assert_eq!(decode(b"&Jjo"), None);
        assert_eq!(decode(b"&*-"), None);
    }

    #[test]
    fn round_trip() {
        for s in [
            "",
            "Drafts",
            "Brouillons é",
            "😀 & more",
            "日本語&x",
            "a-b&c-",
        ] {
            assert_eq!(decode(encode(s).as_bytes()).as_deref(), Some(s), "{s}");
        }
    }
}

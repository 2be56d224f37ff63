//! Property tests: the response parser and the mbox splitter never panic on arbitrary bytes, and
//! what they parse round-trips.

use std::io::BufReader;

use flagsplit_imap::mbox::{self, Format};
use flagsplit_imap::response::{self, Response, ResponseError, ResponseReader, Untagged};
use flagsplit_imap::{sasl, utf7};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes biased towards IMAP syntax, so that the parser gets deep.
fn imap_like() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"* ".to_vec()),
        Just(b"+ ".to_vec()),
        Just(b"a1 ".to_vec()),
        Just(b"OK ".to_vec()),
        Just(b"NO ".to_vec()),
        Just(b"FETCH ".to_vec()),
        Just(b"LIST ".to_vec()),
        Just(b"SEARCH ".to_vec()),
        Just(b"BODY[] ".to_vec()),
        Just(b"BODY[HEADER.FIELDS (DATE)]<0> ".to_vec()),
        Just(b"[APPENDUID 1 2:4] ".to_vec()),
        Just(b"[CAPABILITY IMAP4rev1] ".to_vec()),
        Just(b"(".to_vec()),
        Just(b")".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"{3}\r\n".to_vec()),
        Just(b"~{2}\r\n".to_vec()),
        Just(b"{99999999999999999999}\r\n".to_vec()),
        Just(b"NIL ".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"42 ".to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(token, 0..40).prop_map(|v| v.concat())
}

fn read_everything(input: &[u8]) -> usize {
    let mut reader = ResponseReader::new(BufReader::new(input));
    let mut n = 0;
    loop {
        match reader.read() {
            Ok(raw) => {
                let _ = response::parse(&raw);
                n += 1;
            }
            Err(ResponseError::Closed) => return n,
            Err(_) => return n,
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parser_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = response::parse(&bytes);
        read_everything(&bytes);
    }

    #[test]
    fn parser_never_panics_on_imap_like_bytes(bytes in imap_like()) {
        let _ = response::parse(&bytes);
        read_everything(&bytes);
    }

    #[test]
    fn literals_and_quoted_strings_round_trip(name in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut wire = format!("* LIST (\\Marked) \"/\" {{{}}}\r\n", name.len()).into_bytes();
        wire.extend_from_slice(&name);
        wire.extend_from_slice(b"\r\n");
        let mut reader = ResponseReader::new(BufReader::new(wire.as_slice()));
        let raw = reader.read().unwrap();
        let parsed = response::parse(&raw).unwrap();
        let Response::Untagged(Untagged::List { name: got, .. }) = parsed else { panic!() };
        prop_assert_eq!(got, name.clone());
        // The same as a quoted string, when it can be one.
        if name.iter().all(|&b| b != b'\r' && b != b'\n' && b != 0 && b < 0x80) {
            let mut q = b"* LIST () \"/\" \"".to_vec();
            for &b in &name {
                if b == b'"' || b == b'\\' { q.push(b'\\'); }
                q.push(b);
            }
            q.push(b'"');
            let Ok(Response::Untagged(Untagged::List { name: got, .. })) = response::parse(&q) else { panic!() };
            prop_assert_eq!(got, name);
        }
    }

    #[test]
    fn mbox_split_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..1024), rd in any::<bool>()) {
        let format = if rd { Format::Mboxrd } else { Format::Mboxo };
        let _ = mbox::split(&bytes, format);
        let mut with_from = b"From x\n".to_vec();
        with_from.extend_from_slice(&bytes);
        let _ = mbox::split(&with_from, format);
    }

    #[test]
    fn mbox_split_recovers_generated_series(
        bodies in prop::collection::vec("[a-zA-Z0-9 >\n]{0,80}", 1..8),
    ) {
        let magic = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n";
        let mut input = String::new();
        let mut expected = Vec::new();
        for (i, body) in bodies.iter().enumerate() {
            let msg = format!("From: a@b\nSubject: [PATCH {i}]\n\n{body}\n");
            input.push_str(magic);
            input.push_str(&msg);
            expected.push(msg);
        }
        let got = mbox::split(input.as_bytes(), Format::Mboxo).unwrap();
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert_eq!(&g.raw, e.as_bytes());
            let crlf = g.to_crlf();
            prop_assert!(!crlf.windows(2).enumerate().any(|(k, w)| w[1] == b'\n' && w[0] != b'\r' && k > 0));
        }
    }

    #[test]
    fn utf7_round_trips(s in "\\PC{0,24}") {
        let encoded = utf7::encode(&s);
        prop_assert!(encoded.is_ascii());
        prop_assert_eq!(utf7::decode(encoded.as_bytes()), Some(s));
    }

    #[test]
    fn utf7_decode_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = utf7::decode(&bytes);
    }

    #[test]
    fn base64_round_trips(bytes in prop::collection::vec(any::<u8>(), 0..128)) {
        let e = sasl::base64_encode(&bytes);
        prop_assert_eq!(sasl::base64_decode(e.as_bytes()), Some(bytes));
    }
}

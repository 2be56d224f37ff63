//! IMAP server responses (RFC 3501 §7 and the extensions the sender uses): reading one whole
//! response off the wire (its line and every literal in it) with [`ResponseReader`], and parsing it
//! with [`parse`].
//!
//! The parser is deliberately lenient where servers differ and strict where it matters (tags,
//! literal sizes): it never panics, on any bytes (property-tested and fuzzed), and anything it
//! does not model is kept as [`Untagged::Other`] rather than rejected.
//!
//! - reading: [`ResponseReader`] takes whole responses off the wire, within [`Limits`];
//! - what a response is: [`Response`], [`Status`], [`Untagged`], [`Code`], [`Value`];
//! - parsing: [`parse`] turns bytes into a [`Response`], [`parse_uid_set`] reads uid sets.

mod parse;
mod reader;
mod types;

pub use parse::{parse, parse_uid_set};
pub use reader::{
    Limit, Limits, MAX_ITEMS, MAX_LINE, MAX_LITERAL, RawResponse, ResponseError, ResponseReader,
    printable, size,
};
pub use types::{Code, QUOTE_MAX, Response, Status, StatusKind, Untagged, Value};

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    fn read_all(input: &[u8]) -> Vec<Result<Response, String>> {
        let mut r = ResponseReader::new(io::BufReader::new(input));
        let mut out = Vec::new();
        loop {
            match r.read() {
                Ok(raw) => out.push(parse(&raw).map_err(|e| e.to_string())),
                Err(ResponseError::Closed) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn greeting_and_capabilities() {
        let r = read_all(
            b"* OK [CAPABILITY IMAP4rev1 LITERAL+ STARTTLS AUTH=PLAIN] Dovecot ready.\r\n",
        );
        let Ok(Response::Untagged(Untagged::Status(s))) = &r[0] else {
            panic!("{r:?}")
        };
        assert_eq!(s.kind, StatusKind::Ok);
        assert_eq!(
            s.code,
            Some(Code::Capability(vec![
                "IMAP4rev1".into(),
                "LITERAL+".into(),
                "STARTTLS".into(),
                "AUTH=PLAIN".into()
            ]))
        );
        assert_eq!(s.text, "Dovecot ready.");
        let r = read_all(b"* PREAUTH [CAPABILITY IMAP4rev1] Logged in as tester\n");
        assert!(matches!(
            &r[0],
            Ok(Response::Untagged(Untagged::Status(Status {
                kind: StatusKind::Preauth,
                ..
            })))
        ));
    }

    #[test]
    fn tagged() {
        let r = read_all(b"a3 OK [APPENDUID 1700000000 5:7] Append completed.\r\na4 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n");
        assert_eq!(
            r[0],
            Ok(Response::Tagged {
                tag: "a3".into(),
                status: Status {
                    kind: StatusKind::Ok,
                    code: Some(Code::AppendUid {
                        validity: 1700000000,
                        uids: vec![5, 6, 7]
                    }),
                    text: "Append completed.".into()
                }
            })
        );
        let Ok(Response::Tagged { status, .. }) = &r[1] else {
            panic!()
        };
        assert_eq!(
            status.quote(),
            "NO [AUTHENTICATIONFAILED] Authentication failed."
        );
    }

    #[test]
    fn list_with_literal_and_quoted() {
        let r = read_all(
            b"* LIST (\\HasNoChildren \\Drafts) \"/\" Drafts\r\n* LIST () \"/\" {7}\r\nA\"b c/d\r\n* LIST (\\Noselect) NIL \"x \\\"y\\\"\"\r\n",
        );
        assert_eq!(
            r[0],
            Ok(Response::Untagged(Untagged::List {
                attributes: vec!["\\HasNoChildren".into(), "\\Drafts".into()],
                delimiter: Some('/'),
                name: b"Drafts".to_vec()
            }))
        );
        let Ok(Response::Untagged(Untagged::List { name, .. })) = &r[1] else {
            panic!("{r:?}")
        };
        assert_eq!(name, b"A\"b c/d");
        let Ok(Response::Untagged(Untagged::List {
            name, delimiter, ..
        })) = &r[2]
        else {
            panic!()
        };
        assert_eq!((name.as_slice(), *delimiter), (b"x \"y\"".as_slice(), None));
    }

    #[test]
    fn fetch_with_literal_body() {
        let r = read_all(b"* 3 FETCH (UID 12 BODY[] {5}\r\nab\r\nc RFC822.SIZE 5)\r\n* SEARCH 1 5 9\r\n* SEARCH\r\n* 4 EXISTS\r\n+ go ahead\r\n");
        assert_eq!(
            r[0],
            Ok(Response::Untagged(Untagged::Fetch {
                seq: 3,
                items: vec![
                    ("UID".into(), Value::Atom("12".into())),
                    ("BODY[]".into(), Value::String(b"ab\r\nc".to_vec())),
                    ("RFC822.SIZE".into(), Value::Atom("5".into())),
                ]
            }))
        );
        assert_eq!(
            r[1],
            Ok(Response::Untagged(Untagged::Search(vec![1, 5, 9])))
        );
        assert_eq!(r[2], Ok(Response::Untagged(Untagged::Search(vec![]))));
        assert_eq!(r[3], Ok(Response::Untagged(Untagged::Exists(4))));
        assert_eq!(r[4], Ok(Response::Continuation(b"go ahead".to_vec())));
    }

    #[test]
    fn esearch() {
        let r = read_all(b"* ESEARCH (TAG \"f3\") UID ALL 1:3,7\r\n* ESEARCH (TAG \"f4\") UID\r\n* ESEARCH (TAG \"f5\") UID COUNT 2 ALL 9\r\n");
        assert_eq!(
            r[0],
            Ok(Response::Untagged(Untagged::Esearch {
                tag: Some("f3".into()),
                all: vec![1, 2, 3, 7]
            }))
        );
        assert_eq!(
            r[1],
            Ok(Response::Untagged(Untagged::Esearch {
                tag: Some("f4".into()),
                all: vec![]
            }))
        );
        assert_eq!(
            r[2],
            Ok(Response::Untagged(Untagged::Esearch {
                tag: Some("f5".into()),
                all: vec![9]
            }))
        );
        assert!(read_all(b"* ESEARCH (TAG \"f\") UID ALL x\r\n")[0].is_err());
    }

    #[test]
    fn malformed_and_truncated() {
        assert!(read_all(b"* 3 FETCH (BODY[] {99}\r\nshort").is_empty());
        assert!(read_all(b"garbage\r\n")[0].is_err());
        assert!(read_all(b"* 99999999999 EXISTS\r\n")[0].is_err());
        assert!(read_all(b"* LIST (\r\n")[0].is_err());
        assert!(read_all(b"* x {18446744073709551616}\r\n")[0].is_err());
    }

    fn reader(input: &[u8], limits: Limits) -> ResponseReader<io::BufReader<&[u8]>> {
        let mut r = ResponseReader::new(io::BufReader::new(input));
        r.set_limits(limits);
        r
    }

    fn too_large(e: Result<RawResponse, ResponseError>) -> (Limit, usize, String) {
        match e {
            Err(e @ ResponseError::TooLarge { which, limit }) => (which, limit, e.to_string()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn allowance_before_authentication_covers_every_response() {
        let mut wire = b"* OK {300}\r\n".to_vec();
        wire.extend([b'x'; 300]);
        wire.extend(b"\r\n");
        let mut r = reader(&wire, Limits::default());
        r.set_allowance(Some(256));
        assert_eq!(
            too_large(r.read()),
            (
                Limit::BeforeAuthentication,
                256,
                "more than 256 bytes before authentication".into()
            )
        );
        // Many small responses: the allowance is for all of them together.
        let wire = b"* OK hello there\r\n".repeat(20);
        let mut r = reader(&wire, Limits::default());
        r.set_allowance(Some(256));
        let mut n = 0;
        let e = loop {
            match r.read() {
                Ok(_) => n += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(n, 256 / 18, "{e}");
        assert!(matches!(
            e,
            ResponseError::TooLarge {
                which: Limit::BeforeAuthentication,
                ..
            }
        ));
        // Lifted: the rest reads.
        let mut r = reader(&wire, Limits::default());
        r.set_allowance(Some(256));
        r.set_allowance(None);
        assert_eq!(read_all(&wire).len(), 20);
        assert!(r.read().is_ok());
    }

    #[test]
    fn response_literal_and_line_limits() {
        let limits = Limits {
            line: 64,
            literal: 100,
            discard_larger: false,
            response: 250,
        };
        let mut wire = Vec::new();
        for _ in 0..3 {
            wire.extend(b"* 1 FETCH (BODY[] {100}\r\n");
            wire.extend([b'y'; 100]);
        }
        wire.extend(b")\r\n");
        let (which, limit, text) = too_large(reader(&wire, limits).read());
        assert_eq!((which, limit), (Limit::Response, 250), "{text}");
        assert_eq!(text, "a response larger than 250 bytes");
        let mut wire = b"* 1 FETCH (BODY[] {101}\r\n".to_vec();
        wire.extend([b'y'; 101]);
        wire.extend(b")\r\n");
        assert_eq!(too_large(reader(&wire, limits).read()).0, Limit::Literal);
        let wire = [b"* OK ".as_slice(), &[b'z'; 70], b"\r\n"].concat();
        assert_eq!(
            too_large(reader(&wire, limits).read()),
            (
                Limit::Line,
                64,
                "a response line longer than 64 bytes".into()
            )
        );
        let wire = b"* 1 FETCH (BODY[] {1073741825}\r\n";
        assert_eq!(
            too_large(reader(wire, Limits::default()).read()),
            (
                Limit::Literal,
                MAX_LITERAL,
                "a literal larger than 1 GiB".into()
            )
        );
        // Within the limits, the buffer is not grown past the response limit.
        let mut wire = b"* 1 FETCH (BODY[] {100}\r\n".to_vec();
        wire.extend([b'y'; 100]);
        wire.extend(b" UID 7)\r\n");
        let raw = reader(&wire, limits).read().unwrap();
        assert!(raw.capacity() <= 250, "{}", raw.capacity());
        assert_eq!(raw.len(), wire.len() - 2);
    }

    #[test]
    fn larger_literals_are_dropped_when_asked() {
        let limits = Limits {
            line: 64,
            literal: 10,
            discard_larger: true,
            response: 100,
        };
        let mut wire = b"* 1 FETCH (UID 7 BODY[] ~{5000}\r\n".to_vec();
        wire.extend([b'y'; 5000]);
        wire.extend(b")\r\n* 2 FETCH (UID 8 BODY[] {3}\r\nabc)\r\n");
        let mut r = reader(&wire, limits);
        let raw = r.read().unwrap();
        assert_eq!(raw, b"* 1 FETCH (UID 7 BODY[] NIL)");
        let Response::Untagged(Untagged::Fetch { items, .. }) = parse(&raw).unwrap() else {
            panic!()
        };
        assert_eq!(items[1], ("BODY[]".into(), Value::Nil));
        let Response::Untagged(Untagged::Fetch { items, .. }) = parse(&r.read().unwrap()).unwrap()
        else {
            panic!()
        };
        assert_eq!(items[1], ("BODY[]".into(), Value::String(b"abc".to_vec())));
        // Never before authentication: refused.
        let mut r = reader(&wire, limits);
        r.set_allowance(Some(1000));
        assert_eq!(too_large(r.read()).0, Limit::Literal);
        let mut r = reader(
            &wire,
            Limits {
                literal: 2000,
                response: 10_000,
                ..limits
            },
        );
        r.set_allowance(Some(1000));
        assert_eq!(too_large(r.read()).0, Limit::BeforeAuthentication);
    }

    #[test]
    fn items_are_bounded() {
        let many = |head: &[u8], item: &[u8], tail: &[u8]| {
            let mut v = head.to_vec();
            for _ in 0..=MAX_ITEMS {
                v.extend(item);
            }
            v.extend(tail);
            v
        };
        for raw in [
            many(b"* CAPABILITY", b" a", b""),
            many(b"* OK [CAPABILITY", b" a", b"] x"),
            many(b"* 1 FETCH (X (", b"a ", b"))"),
            many(b"* LIST (", b"\\a ", b") \"/\" x"),
        ] {
            let e = parse(&raw).unwrap_err().to_string();
            assert!(e.contains("more than 100,000 items"), "{e}");
        }
        assert!(parse(b"* ESEARCH (TAG \"a\") ALL 1:999999 ALL 1:999999").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(size(256 * 1024), "256 KiB");
        assert_eq!(size(16 << 20), "16 MiB");
        assert_eq!(size(1 << 30), "1 GiB");
        assert_eq!(size(1000), "1000 bytes");
        assert_eq!(size(1536), "1536 bytes");
    }

    #[test]
    fn uid_sets() {
        assert_eq!(parse_uid_set(b"4,7:8"), Some(vec![4, 7, 8]));
        assert_eq!(parse_uid_set(b"9:7"), Some(vec![9, 8, 7]));
        assert_eq!(parse_uid_set(b"1:4294967295"), None);
        assert_eq!(parse_uid_set(b"x"), None);
    }
}

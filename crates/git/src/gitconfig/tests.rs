//! The reader's tests: the syntax, values, includes and their conditions, wildcards.

use super::*;

fn parse(s: &str) -> Result<Vec<(String, Option<String>)>, ConfigError> {
    Config::parse(s.as_bytes(), Path::new("f")).map(|v| {
        v.into_iter()
            .map(|e| {
                (
                    e.key,
                    e.value.map(|v| String::from_utf8_lossy(&v).into_owned()),
                )
            })
            .collect()
    })
}

fn kv(k: &str, v: Option<&str>) -> (String, Option<String>) {
    (k.to_string(), v.map(str::to_string))
}

#[test]
fn syntax() {
    assert_eq!(
        parse("[Core]\n\tBare = true ; c\n  x\n[Sub \"CaSe\"] K = \" a  b \" # x\n[a.B]c=1\n")
            .unwrap(),
        [
            kv("core.bare", Some("true")),
            kv("core.x", None),
            kv("sub.CaSe.k", Some(" a  b ")),
            kv("a.b.c", Some("1")),
        ]
    );
    assert_eq!(
        parse("[s]\nv = a\\\n b\\t\\\"\\\\\\n\n").unwrap(),
        [kv("s.v", Some("a b\t\"\\\n"))]
    );
    assert_eq!(
        parse("[s]\nv = a   b  \n").unwrap(),
        [kv("s.v", Some("a   b"))]
    );
}

#[test]
fn bad_lines() {
    let line =
        |s: &str| Config::parse_partial(s.as_bytes(), Path::new("f"), Scope::Unknown).bad_line;
    assert_eq!(line("[s]\nv = \"open\n"), Some(2));
    assert_eq!(line("[s]\nv = \\q\n"), Some(2));
    assert_eq!(line("[s\n"), Some(1));
    assert_eq!(line("[s]\n1 = x\n"), Some(2));
    assert_eq!(line("[s]\nv x\n"), Some(2));
    assert_eq!(line("v = x\n"), None);
    assert_eq!(line("[s \"x\n"), Some(1));
}

#[test]
fn numbers_and_bools() {
    assert_eq!(parse_maybe_bool(Some(b"YeS")), Some(true));
    assert_eq!(parse_maybe_bool(Some(b"")), Some(false));
    assert_eq!(parse_maybe_bool(None), Some(true));
    assert_eq!(parse_maybe_bool(Some(b"2k")), Some(true));
    assert_eq!(parse_maybe_bool(Some(b"maybe")), None);
    assert_eq!(parse_unsigned(b"1k", u64::MAX), Ok(1024));
    assert_eq!(parse_unsigned(b"0x10", u64::MAX), Ok(16));
    assert_eq!(parse_unsigned(b"1x", u64::MAX), Err("invalid unit"));
    assert_eq!(parse_unsigned(b"-1", u64::MAX), Err("invalid unit"));
}

#[test]
fn wildmatch_basics() {
    assert!(wildmatch(b"**/foo/**", b"/a/b/foo/.git", true, false));
    assert!(wildmatch(b"/a/*/c", b"/a/b/c", true, false));
    assert!(!wildmatch(b"/a/*/c", b"/a/b/x/c", true, false));
    assert!(wildmatch(b"**/FOO/**", b"/x/foo/y", true, true));
    assert!(wildmatch(b"ma[s-t]ter", b"master", true, false));
}

#[test]
fn keys() {
    assert_eq!(parse_key(b"A.B.C").unwrap(), b"a.B.c");
    assert!(parse_key(b"nodot").is_err());
    assert!(parse_key(b"a.").is_err());
    assert!(parse_key(b"a.1b").is_err());
}

//! IMAP server responses (RFC 3501 §7 and the extensions the sender uses): reading one whole
//! response off the wire (its line and every literal in it) with [`ResponseReader`], and parsing it
//! with [`parse`].
//!
//! The parser is deliberately lenient where servers differ and strict where it matters (tags,
//! literal sizes): it never panics, on any bytes (property-tested and fuzzed), and anything it
//! does not model is kept as [`Untagged::Other`] rather than rejected.

use std::io::{self, BufRead, Read as _};

/// The longest response line (without literals) accepted: far more than any server sends.
pub const MAX_LINE: usize = 1 << 20;
/// The largest literal accepted in a response (a fetched message).
pub const MAX_LITERAL: usize = 1 << 30;

/// Why a response could not be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum ResponseError {
    /// The connection failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server closed the connection.
    #[error("the server closed the connection")]
    Closed,
    /// A line or literal beyond the limits.
    #[error("response too large ({0} bytes)")]
    TooLarge(usize),
    /// Bytes that are not an IMAP response.
    #[error("malformed response from the server ({reason}): {line}")]
    Malformed {
        /// What is wrong.
        reason: &'static str,
        /// The start of the offending line, printable.
        line: String,
    },
}

/// One whole response, as bytes: its line with any literals in place, without the final CRLF.
pub type RawResponse = Vec<u8>;

/// Reads whole responses: a line, and when it ends with `{n}`, `n` bytes and the rest of the line.
pub struct ResponseReader<R> {
    inner: R,
}

impl<R: BufRead> ResponseReader<R> {
    /// Over a buffered stream.
    pub fn new(inner: R) -> ResponseReader<R> {
        ResponseReader { inner }
    }

    /// The stream.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The stream, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The stream back.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads one response.
    pub fn read(&mut self) -> Result<RawResponse, ResponseError> {
        let mut out = Vec::new();
        loop {
            let start = out.len();
            let n = (&mut self.inner)
                .take((MAX_LINE + 2) as u64)
                .read_until(b'\n', &mut out)?;
            if n == 0 {
                return Err(ResponseError::Closed);
            }
            if !out.ends_with(b"\n") {
                if n > MAX_LINE {
                    return Err(ResponseError::TooLarge(n));
                }
                return Err(ResponseError::Closed);
            }
            out.pop();
            // Only this line's CR: a literal just before may end in one of its own.
            if out.len() > start && out.ends_with(b"\r") {
                out.pop();
            }
            if out.len() - start > MAX_LINE {
                return Err(ResponseError::TooLarge(out.len() - start));
            }
            match literal_size(&out[start..]) {
                Some(Ok(size)) => {
                    if size > MAX_LITERAL {
                        return Err(ResponseError::TooLarge(size));
                    }
                    out.extend_from_slice(b"\r\n");
                    let before = out.len();
                    (&mut self.inner).take(size as u64).read_to_end(&mut out)?;
                    if out.len() - before != size {
                        return Err(ResponseError::Closed);
                    }
                }
                Some(Err(())) => {
                    return Err(malformed("literal size", &out[start..]));
                }
                None => return Ok(out),
            }
        }
    }
}

/// When `line` ends with a literal announcement `{n}` (or `~{n}`), its size.
fn literal_size(line: &[u8]) -> Option<Result<usize, ()>> {
    let body = line.strip_suffix(b"}")?;
    let open = body.iter().rposition(|&b| b == b'{')?;
    let digits = &body[open + 1..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Some(Err(()));
    }
    Some(
        parse_number(digits)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(()),
    )
}

fn parse_number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

fn malformed(reason: &'static str, line: &[u8]) -> ResponseError {
    ResponseError::Malformed {
        reason,
        line: printable(line, 120),
    }
}

/// The first `max` bytes of `bytes` with control bytes escaped, for messages.
pub fn printable(bytes: &[u8], max: usize) -> String {
    let mut s = String::new();
    let cut = bytes.len().min(max);
    for chunk in bytes[..cut].utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                s.extend(c.escape_default());
            } else {
                s.push(c);
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    if cut < bytes.len() {
        s.push_str("...");
    }
    s
}

/// A parsed response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// `+ text`: go on (send the literal, or the next SASL step).
    Continuation(Vec<u8>),
    /// `tag OK|NO|BAD [code] text`.
    Tagged {
        /// The command's tag.
        tag: String,
        /// The status.
        status: Status,
    },
    /// `* ...`.
    Untagged(Untagged),
}

/// `OK|NO|BAD [code] text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Which one.
    pub kind: StatusKind,
    /// The response code.
    pub code: Option<Code>,
    /// The human-readable text.
    pub text: String,
}

impl Status {
    /// `NO [CODE] text` as the server said it (for error messages).
    pub fn quote(&self) -> String {
        let mut s = String::from(self.kind.name());
        if let Some(code) = &self.code {
            s.push_str(" [");
            s.push_str(&code.to_string());
            s.push(']');
        }
        if !self.text.is_empty() {
            s.push(' ');
            s.push_str(&self.text);
        }
        s
    }
}

/// The status word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    /// `OK`.
    Ok,
    /// `NO`.
    No,
    /// `BAD`.
    Bad,
    /// `PREAUTH` (greeting only).
    Preauth,
    /// `BYE`.
    Bye,
}

impl StatusKind {
    /// As written.
    pub fn name(self) -> &'static str {
        match self {
            StatusKind::Ok => "OK",
            StatusKind::No => "NO",
            StatusKind::Bad => "BAD",
            StatusKind::Preauth => "PREAUTH",
            StatusKind::Bye => "BYE",
        }
    }
}

/// A response code (`[...]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// `CAPABILITY ...`.
    Capability(Vec<String>),
    /// `APPENDUID uidvalidity uid-set` (RFC 4315).
    AppendUid {
        /// UIDVALIDITY.
        validity: u32,
        /// The UIDs assigned, in order.
        uids: Vec<u32>,
    },
    /// `UIDVALIDITY n`.
    UidValidity(u32),
    /// `UIDNEXT n`.
    UidNext(u32),
    /// Any other code: its atom and the rest.
    Other(String, String),
}

impl Code {
    /// The code's atom, upper case.
    pub fn name(&self) -> &str {
        match self {
            Code::Capability(_) => "CAPABILITY",
            Code::AppendUid { .. } => "APPENDUID",
            Code::UidValidity(_) => "UIDVALIDITY",
            Code::UidNext(_) => "UIDNEXT",
            Code::Other(name, _) => name,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Capability(c) => write!(f, "CAPABILITY {}", c.join(" ")),
            Code::AppendUid { validity, uids } => {
                write!(f, "APPENDUID {validity} ")?;
                let list: Vec<String> = uids.iter().map(u32::to_string).collect();
                f.write_str(&list.join(","))
            }
            Code::UidValidity(n) => write!(f, "UIDVALIDITY {n}"),
            Code::UidNext(n) => write!(f, "UIDNEXT {n}"),
            Code::Other(name, rest) if rest.is_empty() => f.write_str(name),
            Code::Other(name, rest) => write!(f, "{name} {rest}"),
        }
    }
}

/// Untagged data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untagged {
    /// `* OK|NO|BAD|PREAUTH|BYE ...`.
    Status(Status),
    /// `* CAPABILITY ...`.
    Capability(Vec<String>),
    /// `* LIST (attributes) delimiter name` (also LSUB).
    List {
        /// Attributes (`\Drafts`, `\Noselect`, ...).
        attributes: Vec<String>,
        /// The hierarchy delimiter, if any.
        delimiter: Option<char>,
        /// The name as sent (modified UTF-7).
        name: Vec<u8>,
    },
    /// `* SEARCH n ...`.
    Search(Vec<u32>),
    /// `* ESEARCH (TAG "t") UID ALL 1:3,5` (RFC 4731): the UIDs (or sequence numbers) found by
    /// the command with that tag.
    Esearch {
        /// The command's tag.
        tag: Option<String>,
        /// The numbers found (`ALL`).
        all: Vec<u32>,
    },
    /// `* n EXISTS`.
    Exists(u32),
    /// `* n FETCH (...)`.
    Fetch {
        /// Sequence number.
        seq: u32,
        /// The attribute/value pairs.
        items: Vec<(String, Value)>,
    },
    /// Anything else (`FLAGS`, `RECENT`, `EXPUNGE`, `ENABLED`, ...): its keyword.
    Other(String),
}

/// A value in a parenthesised list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An atom (or a number).
    Atom(String),
    /// A quoted string or literal.
    String(Vec<u8>),
    /// `NIL`.
    Nil,
    /// `( ... )`.
    List(Vec<Value>),
}

impl Value {
    /// The bytes of a string, or of an atom.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Atom(a) => Some(a.as_bytes()),
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Parses one whole response (as returned by [`ResponseReader::read`]).
pub fn parse(raw: &[u8]) -> Result<Response, ResponseError> {
    let mut p = Parser { s: raw, i: 0 };
    if p.eat(b"+") {
        p.eat(b" ");
        return Ok(Response::Continuation(p.rest().to_vec()));
    }
    if p.eat(b"* ") {
        return p.untagged().map(Response::Untagged);
    }
    let tag = p.atom();
    if tag.is_empty() || !p.eat(b" ") {
        return Err(malformed("no tag", raw));
    }
    let tag = String::from_utf8_lossy(tag).into_owned();
    let word = p.atom().to_ascii_uppercase();
    let kind = match word.as_slice() {
        b"OK" => StatusKind::Ok,
        b"NO" => StatusKind::No,
        b"BAD" => StatusKind::Bad,
        _ => return Err(malformed("tagged response without OK, NO or BAD", raw)),
    };
    let status = p.status(kind);
    Ok(Response::Tagged { tag, status })
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

fn is_atom_char(b: u8) -> bool {
    // RFC 3501 ATOM-CHAR, plus `]` (resp-text-code and section ends are handled by callers).
    b > b' ' && b < 0x7f && !matches!(b, b'(' | b')' | b'{' | b'%' | b'*' | b'"' | b'\\' | b']')
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn rest(&self) -> &'a [u8] {
        self.s.get(self.i..).unwrap_or_default()
    }

    fn eat(&mut self, token: &[u8]) -> bool {
        if self.rest().starts_with(token) {
            self.i += token.len();
            true
        } else {
            false
        }
    }

    fn eat_ci(&mut self, token: &[u8]) -> bool {
        let r = self.rest();
        if r.len() >= token.len() && r[..token.len()].eq_ignore_ascii_case(token) {
            self.i += token.len();
            true
        } else {
            false
        }
    }

    fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    /// Atom characters (also `*`, `%`, `\` so that flags and wildcards read as atoms).
    fn atom(&mut self) -> &'a [u8] {
        let start = self.i;
        while let Some(b) = self.peek() {
            if is_atom_char(b) || matches!(b, b'\\' | b'*' | b'%') {
                self.i += 1;
            } else {
                break;
            }
        }
        &self.s[start..self.i]
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        parse_number(&self.s[start..self.i]).and_then(|n| u32::try_from(n).ok())
    }

    fn text(&mut self) -> String {
        String::from_utf8_lossy(self.rest()).into_owned()
    }

    fn status(&mut self, kind: StatusKind) -> Status {
        self.spaces();
        let code = if self.eat(b"[") { self.code() } else { None };
        self.spaces();
        Status {
            kind,
            code,
            text: self.text(),
        }
    }

    fn code(&mut self) -> Option<Code> {
        let name = String::from_utf8_lossy(self.atom()).to_ascii_uppercase();
        let start = self.i;
        let end = self
            .rest()
            .iter()
            .position(|&b| b == b']')
            .map(|p| start + p);
        let inner = &self.s[start..end.unwrap_or(self.s.len())];
        self.i = end.map_or(self.s.len(), |e| e + 1);
        let inner_text = String::from_utf8_lossy(inner).trim().to_string();
        let mut sub = Parser { s: inner, i: 0 };
        sub.spaces();
        Some(match name.as_str() {
            "CAPABILITY" => Code::Capability(words(&inner_text)),
            "APPENDUID" => {
                let validity = sub.number();
                sub.spaces();
                let uids = parse_uid_set(sub.rest());
                match (validity, uids) {
                    (Some(validity), Some(uids)) => Code::AppendUid { validity, uids },
                    _ => Code::Other(name, inner_text),
                }
            }
            "UIDVALIDITY" => match sub.number() {
                Some(n) => Code::UidValidity(n),
                None => Code::Other(name, inner_text),
            },
            "UIDNEXT" => match sub.number() {
                Some(n) => Code::UidNext(n),
                None => Code::Other(name, inner_text),
            },
            _ => Code::Other(name, inner_text),
        })
    }

    fn untagged(&mut self) -> Result<Untagged, ResponseError> {
        if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            let Some(n) = self.number() else {
                return Err(malformed("number too large", self.s));
            };
            self.spaces();
            let word = self.atom().to_ascii_uppercase();
            return Ok(match word.as_slice() {
                b"EXISTS" => Untagged::Exists(n),
                b"FETCH" => {
                    self.spaces();
                    let Some(Value::List(list)) = self.value(0) else {
                        return Err(malformed("FETCH without a list", self.s));
                    };
                    let mut items = Vec::new();
                    let mut it = list.into_iter();
                    while let Some(name) = it.next() {
                        let Value::Atom(name) = name else {
                            return Err(malformed("FETCH item name", self.s));
                        };
                        let value = it.next().unwrap_or(Value::Nil);
                        items.push((name.to_ascii_uppercase(), value));
                    }
                    Untagged::Fetch { seq: n, items }
                }
                other => Untagged::Other(String::from_utf8_lossy(other).into_owned()),
            });
        }
        let word = self.atom().to_ascii_uppercase();
        let status = |p: &mut Self, kind| Ok(Untagged::Status(p.status(kind)));
        match word.as_slice() {
            b"OK" => status(self, StatusKind::Ok),
            b"NO" => status(self, StatusKind::No),
            b"BAD" => status(self, StatusKind::Bad),
            b"PREAUTH" => status(self, StatusKind::Preauth),
            b"BYE" => status(self, StatusKind::Bye),
            b"CAPABILITY" => Ok(Untagged::Capability(words(&self.text()))),
            b"SEARCH" => {
                let mut uids = Vec::new();
                loop {
                    self.spaces();
                    if self.peek().is_none() || self.peek() == Some(b'(') {
                        break; // `(MODSEQ n)` and the like
                    }
                    match self.number() {
                        Some(n) => uids.push(n),
                        None => return Err(malformed("SEARCH result", self.s)),
                    }
                }
                Ok(Untagged::Search(uids))
            }
            b"LIST" | b"LSUB" => self.list(),
            b"ESEARCH" => self.esearch(),
            b"" => Err(malformed("empty untagged response", self.s)),
            other => Ok(Untagged::Other(String::from_utf8_lossy(other).into_owned())),
        }
    }

    fn esearch(&mut self) -> Result<Untagged, ResponseError> {
        self.spaces();
        let mut tag = None;
        if self.peek() == Some(b'(') {
            let Some(Value::List(items)) = self.value(0) else {
                return Err(malformed("ESEARCH correlator", self.s));
            };
            if let [Value::Atom(name), Value::String(t)] = items.as_slice()
                && name.eq_ignore_ascii_case("TAG")
            {
                tag = Some(String::from_utf8_lossy(t).into_owned());
            }
        }
        let mut all = Vec::new();
        loop {
            self.spaces();
            if self.peek().is_none() {
                break;
            }
            let Some(Value::Atom(name)) = self.value(0) else {
                return Err(malformed("ESEARCH data", self.s));
            };
            if name.eq_ignore_ascii_case("UID") {
                continue;
            }
            self.spaces();
            let Some(value) = self.value(0) else {
                return Err(malformed("ESEARCH value", self.s));
            };
            if name.eq_ignore_ascii_case("ALL") {
                let Some(set) = value.bytes().and_then(parse_uid_set) else {
                    return Err(malformed("ESEARCH ALL", self.s));
                };
                all.extend(set);
            }
        }
        Ok(Untagged::Esearch { tag, all })
    }

    fn list(&mut self) -> Result<Untagged, ResponseError> {
        self.spaces();
        let Some(Value::List(attrs)) = self.value(0) else {
            return Err(malformed("LIST attributes", self.s));
        };
        let attributes = attrs
            .iter()
            .filter_map(|v| v.bytes().map(|b| String::from_utf8_lossy(b).into_owned()))
            .collect();
        self.spaces();
        let delimiter = match self.value(0) {
            Some(Value::Nil) => None,
            Some(Value::String(d)) if d.len() == 1 => Some(char::from(d[0])),
            Some(Value::String(d)) if d.len() == 2 && d[0] == b'\\' => Some(char::from(d[1])),
            _ => return Err(malformed("LIST delimiter", self.s)),
        };
        self.spaces();
        let name = match self.value(0) {
            Some(Value::String(n)) => n,
            Some(Value::Atom(a)) => a.into_bytes(),
            _ => return Err(malformed("LIST name", self.s)),
        };
        Ok(Untagged::List {
            attributes,
            delimiter,
            name,
        })
    }

    /// One value; `None` at the end or on something that is not a value.
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > 64 {
            return None;
        }
        match self.peek()? {
            b'(' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.spaces();
                    if self.eat(b")") {
                        return Some(Value::List(items));
                    }
                    items.push(self.value(depth + 1)?);
                }
            }
            b'"' => self.quoted().map(Value::String),
            b'{' | b'~' => self.literal().map(Value::String),
            _ => {
                let start = self.i;
                if self.eat_ci(b"NIL") && !self.peek().is_some_and(|b| is_atom_char(b) || b == b'[')
                {
                    return Some(Value::Nil);
                }
                self.i = start;
                while let Some(b) = self.peek() {
                    if b != b'[' && (is_atom_char(b) || matches!(b, b'\\' | b'*' | b'%')) {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                // A fetch attribute such as `BODY[HEADER.FIELDS (DATE)]<0>`.
                if self.peek() == Some(b'[') {
                    let close = self.rest().iter().position(|&b| b == b']')?;
                    self.i += close + 1;
                    if self.peek() == Some(b'<') {
                        let close = self.rest().iter().position(|&b| b == b'>')?;
                        self.i += close + 1;
                    }
                }
                if self.i == start {
                    return None;
                }
                Some(Value::Atom(
                    String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
                ))
            }
        }
    }

    fn quoted(&mut self) -> Option<Vec<u8>> {
        if !self.eat(b"\"") {
            return None;
        }
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.i += 1;
            match b {
                b'"' => return Some(out),
                b'\\' => {
                    out.push(self.peek()?);
                    self.i += 1;
                }
                _ => out.push(b),
            }
        }
    }

    fn literal(&mut self) -> Option<Vec<u8>> {
        self.eat(b"~");
        if !self.eat(b"{") {
            return None;
        }
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        let size = usize::try_from(parse_number(&self.s[start..self.i])?).ok()?;
        if !self.eat(b"}\r\n") {
            return None;
        }
        let end = self.i.checked_add(size)?;
        let data = self.s.get(self.i..end)?.to_vec();
        self.i = end;
        Some(data)
    }
}

fn words(text: &str) -> Vec<String> {
    text.split_ascii_whitespace().map(str::to_string).collect()
}

/// Parses a uid-set (`4`, `4:6`, `4,7:8`) into its UIDs in order; `None` when malformed or when
/// it would name more than a million UIDs.
pub fn parse_uid_set(s: &[u8]) -> Option<Vec<u32>> {
    let s = std::str::from_utf8(s).ok()?.trim();
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once(':') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let n = part.parse::<u32>().ok()?;
                (n, n)
            }
        };
        let (lo, hi) = (a.min(b), a.max(b));
        if out.len() + (hi - lo) as usize >= 1_000_000 {
            return None;
        }
        if a <= b {
            out.extend(lo..=hi);
        } else {
            out.extend((lo..=hi).rev());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn uid_sets() {
        assert_eq!(parse_uid_set(b"4,7:8"), Some(vec![4, 7, 8]));
        assert_eq!(parse_uid_set(b"9:7"), Some(vec![9, 8, 7]));
        assert_eq!(parse_uid_set(b"1:4294967295"), None);
        assert_eq!(parse_uid_set(b"x"), None);
    }
}

//! Parsing one whole response (as [`super::ResponseReader::read`] returns it), and uid sets.

use super::reader::{malformed, parse_number};
use super::{Code, MAX_ITEMS, Response, ResponseError, Status, StatusKind, Untagged, Value};

/// Parses one whole response (as returned by
/// [`ResponseReader::read`](super::ResponseReader::read)).
pub fn parse(raw: &[u8]) -> Result<Response, ResponseError> {
    let mut p = Parser::new(raw);
    let parsed = p.response();
    if p.items > MAX_ITEMS {
        return Err(malformed("more than 100,000 items", raw));
    }
    parsed
}

impl Parser<'_> {
    fn response(&mut self) -> Result<Response, ResponseError> {
        let raw = self.s;
        let p = self;
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
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// Values and words made so far (see [`MAX_ITEMS`]).
    items: usize,
}

fn is_atom_char(b: u8) -> bool {
    // RFC 3501 ATOM-CHAR, plus `]` (resp-text-code and section ends are handled by callers).
    b > b' ' && b < 0x7f && !matches!(b, b'(' | b')' | b'{' | b'%' | b'*' | b'"' | b'\\' | b']')
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8]) -> Parser<'a> {
        Parser { s, i: 0, items: 0 }
    }

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
        let mut sub = Parser::new(inner);
        sub.spaces();
        Some(match name.as_str() {
            "CAPABILITY" => Code::Capability(self.words(&inner_text)),
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
            b"CAPABILITY" => {
                let text = self.text();
                Ok(Untagged::Capability(self.words(&text)))
            }
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
                if all.len() + set.len() > 1_000_000 {
                    return Err(malformed("ESEARCH ALL: more than a million UIDs", self.s));
                }
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
        self.items += 1;
        if depth > 64 || self.items > MAX_ITEMS {
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

impl Parser<'_> {
    /// The words of `text`, counted as items: no more than [`MAX_ITEMS`] are made.
    fn words(&mut self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for w in text.split_ascii_whitespace() {
            self.items += 1;
            if self.items > MAX_ITEMS {
                break;
            }
            out.push(w.to_string());
        }
        out
    }
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

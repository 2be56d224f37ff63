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
/// The largest literal announcement ever read, even to be discarded
/// ([`Limits::discard_larger`]).
pub const MAX_LITERAL: usize = 1 << 30;
/// The most values (atoms, strings, list items, capability words) one response may parse into:
/// each costs some 30 to 60 bytes of memory for as little as 2 bytes on the wire, so this bounds
/// what parsing adds to the response's own size (100,000 × 64 bytes: about 6 MiB).
pub const MAX_ITEMS: usize = 100_000;

const KIB: usize = 1 << 10;

/// What one response may hold. The sender sets them for each phase of a session (see
/// [`crate::session`]); [`Limits::default`] is what it needs after authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest line between literals.
    pub line: usize,
    /// The largest literal kept.
    pub literal: usize,
    /// Whether a literal larger than `literal` (up to [`MAX_LITERAL`]) is read and dropped,
    /// standing as `NIL` in the response, instead of refused.
    pub discard_larger: bool,
    /// The largest response: its lines and the literals kept.
    pub response: usize,
}

impl Default for Limits {
    /// Lines up to 1 MiB, literals up to 1 MiB, responses up to 16 MiB.
    fn default() -> Limits {
        Limits {
            line: MAX_LINE,
            literal: 1 << 20,
            discard_larger: false,
            response: 16 << 20,
        }
    }
}

/// Which limit a response went beyond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::line`].
    Line,
    /// [`Limits::literal`] (or [`MAX_LITERAL`]).
    Literal,
    /// [`Limits::response`].
    Response,
    /// The allowance for everything before authentication ([`ResponseReader::set_allowance`]).
    BeforeAuthentication,
}

/// `n` bytes as a reader would say it: `256 KiB`, `16 MiB`, `1 GiB`, else bytes.
pub fn size(n: usize) -> String {
    for (unit, name) in [(KIB << 20, "GiB"), (KIB << 10, "MiB"), (KIB, "KiB")] {
        if n >= unit && n.is_multiple_of(unit) {
            return format!("{} {name}", n / unit);
        }
    }
    format!("{n} bytes")
}

/// Why a response could not be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum ResponseError {
    /// The connection failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server closed the connection.
    #[error("the server closed the connection")]
    Closed,
    /// A line, literal or response beyond the limits.
    #[error("{}", too_large(*which, *limit))]
    TooLarge {
        /// Which limit.
        which: Limit,
        /// Its value, in bytes.
        limit: usize,
    },
    /// Bytes that are not an IMAP response.
    #[error("malformed response from the server ({reason}): {line}")]
    Malformed {
        /// What is wrong.
        reason: &'static str,
        /// The start of the offending line, printable.
        line: String,
    },
}

fn too_large(which: Limit, limit: usize) -> String {
    let limit = size(limit);
    match which {
        Limit::Line => format!("a response line longer than {limit}"),
        Limit::Literal => format!("a literal larger than {limit}"),
        Limit::Response => format!("a response larger than {limit}"),
        Limit::BeforeAuthentication => format!("more than {limit} before authentication"),
    }
}

/// One whole response, as bytes: its line with any literals in place, without the final CRLF.
pub type RawResponse = Vec<u8>;

/// Reads whole responses: a line, and when it ends with `{n}`, `n` bytes and the rest of the line.
///
/// Memory: a response is held in one buffer that never grows beyond [`Limits::response`] (its
/// growth is capped there, and a literal is reserved for exactly), plus one line buffer of at
/// most twice [`Limits::line`]; a discarded literal is never held.
pub struct ResponseReader<R> {
    inner: R,
    limits: Limits,
    /// Bytes still allowed, and the allowance, until [`ResponseReader::set_allowance`] lifts it.
    allowance: Option<(usize, usize)>,
    line: Vec<u8>,
}

impl<R: BufRead> ResponseReader<R> {
    /// Over a buffered stream, with [`Limits::default`] and no allowance.
    pub fn new(inner: R) -> ResponseReader<R> {
        ResponseReader {
            inner,
            limits: Limits::default(),
            allowance: None,
            line: Vec::new(),
        }
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

    /// The limits of each response.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Sets the limits of each response from now on.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// With `Some(n)`: at most `n` bytes from now on, over all responses together (the phase
    /// before authentication), and no literal discarded; `None` lifts it.
    pub fn set_allowance(&mut self, allowance: Option<usize>) {
        self.allowance = allowance.map(|n| (n, n));
    }

    /// The tightest of `limit` (of kind `which`), `room` left in the response and the
    /// allowance, and which one it is.
    fn cap(&self, limit: usize, which: Limit, room: usize) -> (usize, Limit) {
        let mut cap = (limit, which);
        if room < cap.0 {
            cap = (room, Limit::Response);
        }
        if let Some((left, _)) = self.allowance
            && left < cap.0
        {
            cap = (left, Limit::BeforeAuthentication);
        }
        cap
    }

    fn exceeded(&self, which: Limit) -> ResponseError {
        let limit = match which {
            Limit::Line => self.limits.line,
            Limit::Literal => self.limits.literal,
            Limit::Response => self.limits.response,
            Limit::BeforeAuthentication => self.allowance.map_or(0, |(_, all)| all),
        };
        ResponseError::TooLarge { which, limit }
    }

    fn spend(&mut self, n: usize) {
        if let Some((left, _)) = &mut self.allowance {
            *left = left.saturating_sub(n);
        }
    }

    /// Reads one response.
    pub fn read(&mut self) -> Result<RawResponse, ResponseError> {
        let result = self.read_response();
        if self.line.capacity() > 64 * KIB {
            self.line = Vec::new();
        }
        result
    }

    fn read_response(&mut self) -> Result<RawResponse, ResponseError> {
        let limits = self.limits;
        let mut out = Vec::new();
        loop {
            // The line with its CRLF must fit: the allowance counts both.
            let room = limits.response.saturating_sub(out.len());
            let (cap, which) = self.cap(limits.line, Limit::Line, room);
            let cap = match which {
                Limit::BeforeAuthentication => cap.saturating_sub(2),
                _ => cap,
            };
            self.line.clear();
            let n = (&mut self.inner)
                .take(cap as u64 + 2)
                .read_until(b'\n', &mut self.line)?;
            self.spend(n);
            if n == 0 {
                return Err(ResponseError::Closed);
            }
            if !self.line.ends_with(b"\n") {
                if n > cap {
                    return Err(self.exceeded(which));
                }
                return Err(ResponseError::Closed);
            }
            self.line.pop();
            // Only this line's CR: a literal just before may end in one of its own.
            if self.line.ends_with(b"\r") {
                self.line.pop();
            }
            if self.line.len() > cap {
                return Err(self.exceeded(which));
            }
            let size = match literal_size(&self.line) {
                None => {
                    reserve(&mut out, self.line.len(), limits.response)?;
                    out.extend_from_slice(&self.line);
                    return Ok(out);
                }
                Some(Err(())) => return Err(malformed("literal size", &self.line)),
                Some(Ok(size)) => size,
            };
            if size > MAX_LITERAL {
                return Err(ResponseError::TooLarge {
                    which: Limit::Literal,
                    limit: MAX_LITERAL,
                });
            }
            let room = limits
                .response
                .saturating_sub(out.len() + self.line.len() + 2);
            let (keep, which) = self.cap(limits.literal, Limit::Literal, room);
            if size <= keep {
                let start = out.len() + self.line.len() + 2;
                reserve(&mut out, self.line.len() + 2 + size, limits.response)?;
                out.extend_from_slice(&self.line);
                out.extend_from_slice(b"\r\n");
                out.resize(start + size, 0);
                read_exact(&mut self.inner, &mut out[start..])?;
                self.spend(size);
            } else if limits.discard_larger
                && self.allowance.is_none()
                && size > limits.literal
                && room >= 3
            {
                // Dropped as it is read, through a small buffer: the response holds NIL instead.
                let mut open = self.line.len() - literal_digits(&self.line) - 2;
                if open > 0 && self.line[open - 1] == b'~' {
                    open -= 1;
                }
                reserve(&mut out, open + 3, limits.response)?;
                out.extend_from_slice(&self.line[..open]);
                out.extend_from_slice(b"NIL");
                let skipped = io::copy(&mut (&mut self.inner).take(size as u64), &mut io::sink())?;
                if skipped != size as u64 {
                    return Err(ResponseError::Closed);
                }
            } else {
                return Err(self.exceeded(which));
            }
        }
    }
}

/// Makes room for `additional` more bytes in `out`: doubling, as a `Vec` would, but never past
/// `limit` (so that a response near its limit does not reserve up to twice it).
fn reserve(out: &mut Vec<u8>, additional: usize, limit: usize) -> Result<(), ResponseError> {
    let needed = out.len().saturating_add(additional);
    if needed <= out.capacity() {
        return Ok(());
    }
    let target = out
        .capacity()
        .saturating_mul(2)
        .max(256)
        .min(limit)
        .max(needed);
    out.try_reserve_exact(target - out.len())
        .map_err(|_| ResponseError::Io(io::ErrorKind::OutOfMemory.into()))
}

fn read_exact(r: &mut impl io::Read, buf: &mut [u8]) -> Result<(), ResponseError> {
    match r.read_exact(buf) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(ResponseError::Closed),
        Err(e) => Err(e.into()),
    }
}

/// The number of digits in the `{n}` that ends `line` (which [`literal_size`] accepted).
fn literal_digits(line: &[u8]) -> usize {
    line.iter()
        .rev()
        .skip(1)
        .take_while(|b| b.is_ascii_digit())
        .count()
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

impl Untagged {
    /// About how many bytes of memory it takes (itself and what it owns), for limits on what a
    /// session keeps.
    pub fn memory(&self) -> usize {
        let strings = |v: &[String]| {
            v.iter()
                .map(|s| s.len() + std::mem::size_of::<String>())
                .sum::<usize>()
        };
        std::mem::size_of::<Untagged>()
            + match self {
                Untagged::Status(s) => s.memory(),
                Untagged::Capability(c) => strings(c),
                Untagged::List {
                    attributes, name, ..
                } => strings(attributes) + name.len(),
                Untagged::Search(n) => 4 * n.len(),
                Untagged::Esearch { tag, all } => {
                    tag.as_ref().map_or(0, String::len) + 4 * all.len()
                }
                Untagged::Exists(_) => 0,
                Untagged::Fetch { items, .. } => items
                    .iter()
                    .map(|(name, value)| {
                        name.len() + std::mem::size_of::<String>() + value.memory()
                    })
                    .sum(),
                Untagged::Other(s) => s.len(),
            }
    }
}

impl Status {
    fn memory(&self) -> usize {
        self.text.len()
            + match &self.code {
                None | Some(Code::UidValidity(_) | Code::UidNext(_)) => 0,
                Some(Code::Capability(c)) => c
                    .iter()
                    .map(|s| s.len() + std::mem::size_of::<String>())
                    .sum(),
                Some(Code::AppendUid { uids, .. }) => 4 * uids.len(),
                Some(Code::Other(a, b)) => a.len() + b.len(),
            }
    }
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
    /// About how many bytes of memory it takes.
    pub fn memory(&self) -> usize {
        std::mem::size_of::<Value>()
            + match self {
                Value::Atom(a) => a.len(),
                Value::String(s) => s.len(),
                Value::Nil => 0,
                Value::List(l) => l.iter().map(Value::memory).sum(),
            }
    }

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

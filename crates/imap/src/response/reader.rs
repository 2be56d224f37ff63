//! Reading one whole response off the wire: its line and every literal in it, within
//! [`Limits`] and, before authentication, an allowance over all responses.

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
    #[error(transparent)]
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

pub(super) fn parse_number(digits: &[u8]) -> Option<u64> {
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

pub(super) fn malformed(reason: &'static str, line: &[u8]) -> ResponseError {
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

//! One IMAP session: greeting, capabilities, STARTTLS, authentication, and commands, pipelined
//! where the sender needs speed (several commands in flight, literals sent without waiting when
//! the server offers LITERAL+).
//!
//! What a server can make the sender hold is bounded (each limit, when exceeded, ends the session
//! with an error naming the server and the limit):
//! - until authentication completes (greeting, CAPABILITY, STARTTLS, the AUTHENTICATE or LOGIN
//!   exchange), [`BEFORE_AUTH_LIMIT`] bytes in all, whoever is on the other end of a plaintext
//!   connection;
//! - after it, each response by [`response::Limits`] (lines up to 1 MiB, literals up to 1 MiB,
//!   responses up to 16 MiB; the duplicate check raises the literal limit to the largest message
//!   being uploaded and drops longer ones unread into memory, see [`Session::set_limits`]);
//! - untagged data kept until its command completes, by [`UNTAGGED_LIMIT`].

use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Write};
use std::time::Duration;

use crate::Md5Provider;
use flagsplit_tls::{TlsConfig, TlsProvider};
use zeroize::{Zeroize, Zeroizing};

use crate::error::ImapError;
use crate::response::{self, Code, Response, ResponseReader, Status, StatusKind, Untagged};
use crate::sasl::{self, AuthMethod};
use crate::secret::Secret;
use crate::transport::{self, Stream, TimedOut, Transport};

/// Where protocol traces go (`-v -v`); lines carrying a secret are redacted before they get here.
pub trait Trace {
    /// One line sent (`C: `) or received (`S: `).
    fn line(&self, direction: char, text: &str);
}

/// No tracing.
pub struct NoTrace;

impl Trace for NoTrace {
    fn line(&self, _: char, _: &str) {}
}

/// A piece of a command.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// Sent as is (an atom, a number, a list such as `(\Seen)`).
    Raw(&'a str),
    /// An astring: an atom or quoted string when possible, else a literal.
    Str(&'a [u8]),
    /// A literal.
    Literal(&'a [u8]),
    /// A string that is a secret: sent like `Str`, never traced.
    Secret(&'a str),
}

/// A completed command: its status and the untagged data that arrived while it ran.
#[derive(Debug)]
pub struct Done {
    /// The tagged status.
    pub status: Status,
    /// Untagged responses.
    pub data: Vec<Untagged>,
}

impl Done {
    /// `Ok(self)` when the status is OK, else the server's answer as an error for `what`.
    pub fn ok(self, what: impl Into<String>) -> Result<Done, ImapError> {
        if self.status.kind == StatusKind::Ok {
            Ok(self)
        } else {
            Err(ImapError::Command {
                command: what.into(),
                quote: self.status.quote(),
            })
        }
    }
}

/// How the session came to be authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Greeting {
    /// `* OK`: a login is needed.
    NotAuthenticated,
    /// `* PREAUTH`: already logged in (tunnels).
    Preauth,
}

/// An IMAP session.
pub struct Session<'t> {
    reader: ResponseReader<BufReader<Transport>>,
    /// The server, for messages (`host:port`, or `tunnel`).
    server: String,
    out: Vec<u8>,
    capabilities: Vec<String>,
    next_tag: u32,
    pending: VecDeque<String>,
    /// Answers not yet taken by their callers, with the memory of their untagged data.
    done: HashMap<String, (Done, usize)>,
    untagged: Vec<Untagged>,
    /// The memory of `untagged`.
    untagged_memory: usize,
    /// The memory of all untagged data kept: in `untagged`, `done` and `esearch`.
    held: usize,
    trace: &'t dyn Trace,
    greeting: Greeting,
    bye: Option<String>,
    esearch: HashMap<String, (Vec<u32>, usize)>,
    /// The command of each pending tag (its first words), to say what timed out.
    commands: HashMap<String, String>,
    /// What the session is waiting for, for a timeout's message.
    step: String,
    /// The connection failed (I/O, timeout, a response refused or not understood): no LOGOUT.
    broken: bool,
    logged_out: bool,
}

/// How long LOGOUT may take when the session is dropped without [`Session::logout`] (after an
/// error): at most this, or `imap.timeout` when shorter.
const LOGOUT_TIMEOUT: Duration = Duration::from_secs(5);

const FLUSH_AT: usize = 64 * 1024;

/// Everything received until authentication completes: some hundreds of bytes from real servers
/// (Dovecot's greeting, capabilities and login answer take under 1 KiB), and a few KiB at most.
pub const BEFORE_AUTH_LIMIT: usize = 256 * 1024;
/// Untagged data kept for the commands in progress (reckoned with [`Untagged::memory`]): a LIST
/// of tens of thousands of folders, or the SEARCH results of the sender's pipelined commands,
/// stay far below it.
pub const UNTAGGED_LIMIT: usize = 32 << 20;

impl<'t> Session<'t> {
    /// Reads the greeting on a new connection to `server` (named in messages), and the
    /// capabilities when it carries none. Until [`Session::authenticate`] succeeds (or the
    /// greeting is PREAUTH), at most [`BEFORE_AUTH_LIMIT`] bytes are read.
    pub fn start(
        transport: Transport,
        server: &str,
        trace: &'t dyn Trace,
    ) -> Result<Session<'t>, ImapError> {
        let mut reader = ResponseReader::new(BufReader::with_capacity(64 * 1024, transport));
        reader.set_allowance(Some(BEFORE_AUTH_LIMIT));
        let mut s = Session {
            reader,
            server: server.to_string(),
            out: Vec::new(),
            capabilities: Vec::new(),
            next_tag: 1,
            pending: VecDeque::new(),
            done: HashMap::new(),
            untagged: Vec::new(),
            untagged_memory: 0,
            held: 0,
            trace,
            greeting: Greeting::NotAuthenticated,
            bye: None,
            esearch: HashMap::new(),
            commands: HashMap::new(),
            step: "waiting for the server's greeting".into(),
            broken: false,
            logged_out: false,
        };
        match s.greet() {
            Ok(()) => Ok(s),
            Err(e) => {
                s.broken = true;
                Err(e)
            }
        }
    }

    fn greet(&mut self) -> Result<(), ImapError> {
        let s = self;
        let greeting = match s.read()? {
            Response::Untagged(Untagged::Status(status)) => status,
            _ => {
                return Err(ImapError::Protocol(
                    "the server's greeting is not '* OK'".into(),
                ));
            }
        };
        s.greeting = match greeting.kind {
            StatusKind::Ok => Greeting::NotAuthenticated,
            StatusKind::Preauth => Greeting::Preauth,
            _ => return Err(ImapError::Bye(greeting.quote())),
        };
        match greeting.code {
            Some(Code::Capability(caps)) => s.set_capabilities(caps),
            _ => s.refresh_capabilities()?,
        }
        if s.greeting == Greeting::Preauth {
            s.reader.set_allowance(None);
        }
        Ok(())
    }

    /// The limits of each response from now on (after authentication; before it, the
    /// allowance of [`BEFORE_AUTH_LIMIT`] applies as well).
    pub fn set_limits(&mut self, limits: response::Limits) {
        self.reader.set_limits(limits);
    }

    /// The limits of each response.
    pub fn limits(&self) -> response::Limits {
        self.reader.limits()
    }

    /// The greeting's kind.
    pub fn greeting(&self) -> Greeting {
        self.greeting
    }

    /// The transport, for its description and protection.
    pub fn transport(&self) -> &Transport {
        self.reader.get_ref().get_ref()
    }

    fn transport_mut(&mut self) -> &mut Transport {
        self.reader.get_mut().get_mut()
    }

    /// The capabilities, upper case.
    pub fn capabilities(&self) -> &[String] {
        &self.capabilities
    }

    /// Whether `cap` is advertised (case-insensitive).
    pub fn has(&self, cap: &str) -> bool {
        self.capabilities
            .iter()
            .any(|c| c.eq_ignore_ascii_case(cap))
    }

    /// The SASL mechanisms advertised (`AUTH=...`).
    pub fn auth_mechanisms(&self) -> Vec<String> {
        self.capabilities
            .iter()
            .filter_map(|c| c.strip_prefix("AUTH="))
            .map(str::to_string)
            .collect()
    }

    fn set_capabilities(&mut self, caps: Vec<String>) {
        self.capabilities = caps.into_iter().map(|c| c.to_ascii_uppercase()).collect();
    }

    /// Asks for the capabilities again (after STARTTLS, after login).
    pub fn refresh_capabilities(&mut self) -> Result<(), ImapError> {
        let done = self.run(&[Arg::Raw("CAPABILITY")])?.ok("CAPABILITY")?;
        for d in done.data {
            if let Untagged::Capability(caps) = d {
                self.set_capabilities(caps);
            }
        }
        Ok(())
    }

    /// Upgrades the connection with STARTTLS and reads the capabilities again.
    pub fn starttls(
        &mut self,
        provider: &dyn TlsProvider,
        config: &TlsConfig<'_>,
    ) -> Result<(), ImapError> {
        self.run(&[Arg::Raw("STARTTLS")])?.ok("STARTTLS")?;
        // Anything already buffered arrived before the handshake: it would be taken as coming
        // from the TLS server (the STARTTLS command injection attack).
        if !self.reader.get_ref().buffer().is_empty() {
            return Err(ImapError::Protocol(
                "the server sent data after its STARTTLS answer, before the TLS handshake: refusing it".into(),
            ));
        }
        let timeout = self.transport().timeout();
        let Stream::Tcp(tcp) = self.transport_mut().replace(Stream::Closed) else {
            self.broken = true;
            return Err(ImapError::Protocol(
                "STARTTLS on a connection that is not plain TCP".into(),
            ));
        };
        let tls = match transport::tls_connect(provider, tcp, config, timeout) {
            Ok(tls) => tls,
            Err(e) => {
                self.broken = true;
                return Err(e);
            }
        };
        self.transport_mut().replace(Stream::Tls(tls));
        self.trace
            .line('*', &format!("TLS: {}", self.transport().describe()));
        self.refresh_capabilities()
    }

    /// Logs in with `method` (CRAM-MD5 computes its MD5 with `M`). The caller has checked that
    /// the method is allowed on this connection and offered ([`crate::auth::check`]). On
    /// success the capabilities are read again.
    pub fn authenticate<M: Md5Provider>(
        &mut self,
        method: AuthMethod,
        user: &str,
        secret: &Secret,
        host: &str,
        port: u16,
    ) -> Result<(), ImapError> {
        let failed = |status: &Status| ImapError::AuthFailed {
            method,
            quote: status.quote(),
        };
        let done = match method {
            AuthMethod::Login => self.run(&[
                Arg::Raw("LOGIN"),
                Arg::Str(user.as_bytes()),
                Arg::Secret(secret.expose()),
            ])?,
            _ => {
                let initial = match method {
                    AuthMethod::Plain => Some(sasl::plain(user, secret)),
                    AuthMethod::Xoauth2 => Some(sasl::xoauth2(user, secret)),
                    AuthMethod::Oauthbearer => Some(sasl::oauthbearer(user, host, port, secret)),
                    _ => None,
                };
                self.sasl::<M>(method, initial, user, secret)?
            }
        };
        if done.status.kind != StatusKind::Ok {
            return Err(failed(&done.status));
        }
        match done.status.code {
            Some(Code::Capability(caps)) => self.set_capabilities(caps),
            _ => self.refresh_capabilities()?,
        }
        self.reader.set_allowance(None);
        Ok(())
    }

    fn sasl<M: Md5Provider>(
        &mut self,
        method: AuthMethod,
        initial: Option<Secret>,
        user: &str,
        secret: &Secret,
    ) -> Result<Done, ImapError> {
        let tag = self.tag();
        let sasl_ir = self.has("SASL-IR");
        let mut line = Zeroizing::new(format!("{tag} AUTHENTICATE {}", method.name()));
        self.trace.line('C', &line);
        self.commands
            .insert(tag.clone(), format!("AUTHENTICATE {}", method.name()));
        self.step = format!("waiting for the answer to AUTHENTICATE {}", method.name());
        let mut initial = initial;
        let mut sent_initial = false;
        if let (true, Some(ir)) = (sasl_ir, initial.as_ref()) {
            line.push(' ');
            line.push_str(ir.expose());
            sent_initial = true;
            self.trace.line('C', "  (initial response hidden)");
        }
        line.push_str("\r\n");
        self.out.extend_from_slice(line.as_bytes());
        drop(line);
        self.pending.push_back(tag.clone());
        self.flush()?;
        if sent_initial {
            initial = None;
        }
        loop {
            match self.read()? {
                Response::Continuation(challenge) => {
                    let answer = if let Some(ir) = initial.take() {
                        ir
                    } else if method == AuthMethod::CramMd5 {
                        match sasl::cram_md5::<M>(user, secret, &challenge) {
                            Some(a) => Secret::new(a),
                            None => {
                                self.out.extend_from_slice(b"*\r\n");
                                self.flush()?;
                                continue;
                            }
                        }
                    } else {
                        // XOAUTH2/OAUTHBEARER error details arrive as a challenge: answer
                        // with an empty line so that the server completes with NO.
                        Secret::new("")
                    };
                    self.trace.line('C', "  (authentication data hidden)");
                    self.out.extend_from_slice(answer.expose().as_bytes());
                    self.out.extend_from_slice(b"\r\n");
                    self.flush()?;
                }
                Response::Tagged { tag: t, status } => {
                    let data = std::mem::take(&mut self.untagged);
                    self.held -= std::mem::take(&mut self.untagged_memory);
                    if t == tag {
                        self.pending.retain(|p| *p != tag);
                        self.commands.remove(&tag);
                        return Ok(Done { status, data });
                    }
                    self.broken = true;
                    return Err(ImapError::Protocol(format!(
                        "unexpected tag {}",
                        response::printable(t.as_bytes(), 20)
                    )));
                }
                Response::Untagged(u) => self.note_untagged(u)?,
            }
        }
    }

    fn tag(&mut self) -> String {
        let tag = format!("f{}", self.next_tag);
        self.next_tag += 1;
        tag
    }

    /// Sends buffered bytes. The buffer is cleared with volatile writes: it may have held a
    /// password (LOGIN, AUTHENTICATE).
    pub fn flush(&mut self) -> Result<(), ImapError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let out = std::mem::take(&mut self.out);
        let transport = self.transport_mut();
        let result = transport.write_all(&out).and_then(|()| transport.flush());
        self.out = out;
        self.out.zeroize();
        result.map_err(|e| self.write_error(e))
    }

    /// Writes `bytes` at once (a large literal), not through the buffer.
    fn write_now(&mut self, bytes: &[u8]) -> Result<(), ImapError> {
        let result = self.transport_mut().write_all(bytes);
        result.map_err(|e| self.write_error(e))
    }

    fn write_error(&mut self, e: std::io::Error) -> ImapError {
        self.broken = true;
        let timeout = self.transport().timeout().as_secs();
        match self.transport().timed_out() {
            Some(TimedOut::Sending) => ImapError::TimedOut {
                seconds: timeout,
                step: format!(
                    "sending {} (the server stopped reading)",
                    self.commands
                        .get(self.pending.back().map_or("", String::as_str))
                        .map_or("a command", String::as_str)
                ),
            },
            _ => ImapError::ConnectionLost(e.to_string()),
        }
    }

    /// Queues a command and returns its tag, without waiting for its answer (literals are sent
    /// without waiting only with LITERAL+ or LITERAL- for small ones; otherwise this waits for
    /// the server's go-ahead before each literal). `progress` is told after each literal.
    pub fn send(
        &mut self,
        args: &[Arg<'_>],
        mut progress: impl FnMut(usize),
    ) -> Result<String, ImapError> {
        let tag = self.tag();
        let mut traced = tag.clone();
        self.out.extend_from_slice(tag.as_bytes());
        let name: Vec<&str> = args
            .iter()
            .take(2)
            .filter_map(|a| match a {
                Arg::Raw(r) => Some(*r),
                _ => None,
            })
            .take_while(|r| r.bytes().all(|b| b.is_ascii_uppercase() || b == b' '))
            .collect();
        self.commands.insert(tag.clone(), name.join(" "));
        let plus = self.has("LITERAL+");
        let minus = self.has("LITERAL-");
        self.pending.push_back(tag.clone());
        for (i, arg) in args.iter().enumerate() {
            self.out.push(b' ');
            traced.push(' ');
            let (bytes, literal, secret) = match *arg {
                Arg::Raw(s) => (s.as_bytes(), false, false),
                Arg::Str(b) => (b, !quotable(b), false),
                Arg::Literal(b) => (b, true, false),
                Arg::Secret(s) => (s.as_bytes(), !quotable(s.as_bytes()), true),
            };
            if !literal {
                let start = self.out.len();
                match *arg {
                    Arg::Raw(_) => self.out.extend_from_slice(bytes),
                    _ => quote_into(bytes, &mut self.out),
                }
                if secret {
                    traced.push_str("<secret hidden>");
                } else {
                    traced.push_str(&String::from_utf8_lossy(&self.out[start..]));
                }
                continue;
            }
            let nonsync = plus || (minus && bytes.len() <= 4096);
            let header = if nonsync {
                format!("{{{}+}}\r\n", bytes.len())
            } else {
                format!("{{{}}}\r\n", bytes.len())
            };
            self.out.extend_from_slice(header.as_bytes());
            traced.push_str(header.trim_end());
            self.trace.line('C', &traced);
            traced.clear();
            if secret {
                self.trace.line('C', "  (secret literal hidden)");
            } else {
                self.trace
                    .line('C', &format!("  ({} bytes of literal data)", bytes.len()));
            }
            if !nonsync {
                self.flush()?;
                self.wait_continuation(&tag)?;
            }
            if self.out.len() + bytes.len() > FLUSH_AT {
                self.flush()?;
                self.write_now(bytes)?;
            } else {
                self.out.extend_from_slice(bytes);
            }
            progress(i);
        }
        self.out.extend_from_slice(b"\r\n");
        if !traced.is_empty() {
            self.trace.line('C', &traced);
        }
        if self.out.len() > FLUSH_AT {
            self.flush()?;
        }
        Ok(tag)
    }

    fn wait_continuation(&mut self, tag: &str) -> Result<(), ImapError> {
        self.step = format!(
            "waiting for the go-ahead to send {}'s literal",
            self.command(tag)
        );
        loop {
            match self.read()? {
                Response::Continuation(_) => return Ok(()),
                Response::Tagged { tag: t, status } => {
                    let done_tag = t.clone();
                    self.complete(t, status)?;
                    if done_tag == tag {
                        // The server refused the command before its literal: report it.
                        return Err(match self.take_done(tag) {
                            Some(done) => ImapError::Command {
                                command: self.command(tag),
                                quote: done.status.quote(),
                            },
                            None => ImapError::Protocol("lost a command's answer".into()),
                        });
                    }
                }
                Response::Untagged(u) => self.note_untagged(u)?,
            }
        }
    }

    /// Waits for the answer to `tag` (answers to other commands are kept for their callers).
    pub fn wait(&mut self, tag: &str) -> Result<Done, ImapError> {
        self.wait_with(tag, Some)
    }

    /// Waits for the answer to `tag`, giving each untagged response to `take` as it arrives:
    /// what `take` returns is kept (for the answer's [`Done::data`]), what it consumes is not
    /// (so that a caller can look at large responses one at a time instead of holding them all).
    pub fn wait_with(
        &mut self,
        tag: &str,
        mut take: impl FnMut(Untagged) -> Option<Untagged>,
    ) -> Result<Done, ImapError> {
        self.flush()?;
        self.step = format!("waiting for the answer to {}", self.command(tag));
        loop {
            if let Some(done) = self.take_done(tag) {
                self.commands.remove(tag);
                return Ok(done);
            }
            match self.read()? {
                Response::Tagged { tag: t, status } => self.complete(t, status)?,
                Response::Untagged(u) => {
                    if let Some(u) = take(u) {
                        self.note_untagged(u)?;
                    }
                }
                Response::Continuation(_) => {
                    self.broken = true;
                    return Err(ImapError::Protocol(
                        "the server asked for data no command was sending".into(),
                    ));
                }
            }
        }
    }

    /// Tags sent and not answered yet, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &str> {
        self.pending.iter().map(String::as_str)
    }

    /// Sends a command and waits for its answer.
    pub fn run(&mut self, args: &[Arg<'_>]) -> Result<Done, ImapError> {
        let tag = self.send(args, |_| {})?;
        self.wait(&tag)
    }

    /// The command sent with `tag` (its first words), for messages.
    fn command(&self, tag: &str) -> String {
        match self.commands.get(tag) {
            Some(c) if !c.is_empty() => c.clone(),
            _ => "a command".into(),
        }
    }

    fn complete(&mut self, tag: String, status: Status) -> Result<(), ImapError> {
        if !self.pending.iter().any(|p| *p == tag) {
            self.broken = true;
            return Err(ImapError::Protocol(format!(
                "the server answered a command that was not sent (tag {})",
                response::printable(tag.as_bytes(), 20)
            )));
        }
        self.pending.retain(|p| *p != tag);
        let data = std::mem::take(&mut self.untagged);
        let memory = std::mem::take(&mut self.untagged_memory);
        self.done.insert(tag, (Done { status, data }, memory));
        Ok(())
    }

    fn take_done(&mut self, tag: &str) -> Option<Done> {
        let (done, memory) = self.done.remove(tag)?;
        self.held -= memory;
        Some(done)
    }

    /// The ESEARCH result of the command tagged `tag`; `None` when the server sent none for
    /// it (RFC 4731 requires one, empty when nothing matched).
    pub fn take_esearch(&mut self, tag: &str) -> Option<Vec<u32>> {
        let (all, memory) = self.esearch.remove(tag)?;
        self.held -= memory;
        Some(all)
    }

    fn note_untagged(&mut self, u: Untagged) -> Result<(), ImapError> {
        let memory = u.memory();
        if self.held + memory > UNTAGGED_LIMIT {
            self.broken = true;
            return Err(ImapError::TooLarge {
                server: self.server.clone(),
                what: format!(
                    "more than {} of untagged responses for the commands in progress",
                    response::size(UNTAGGED_LIMIT)
                ),
            });
        }
        self.held += memory;
        if let Untagged::Esearch {
            tag: Some(tag),
            all,
        } = u
        {
            let entry = self.esearch.entry(tag).or_default();
            entry.0.extend(all);
            entry.1 += memory;
            return Ok(());
        }
        if let Untagged::Status(s) = &u
            && s.kind == StatusKind::Bye
        {
            self.bye = Some(s.quote());
        }
        self.untagged_memory += memory;
        self.untagged.push(u);
        Ok(())
    }

    fn read(&mut self) -> Result<Response, ImapError> {
        let result = self.read_parsed();
        if result.is_err() {
            self.broken = true;
        }
        result
    }

    fn read_parsed(&mut self) -> Result<Response, ImapError> {
        let raw = match self.reader.read() {
            Ok(raw) => raw,
            Err(response::ResponseError::Io(_))
                if self.transport().timed_out() == Some(TimedOut::Waiting) =>
            {
                return Err(ImapError::TimedOut {
                    seconds: self.transport().timeout().as_secs(),
                    step: std::mem::take(&mut self.step),
                });
            }
            Err(response::ResponseError::TooLarge { which, limit }) => {
                return Err(ImapError::TooLarge {
                    server: self.server.clone(),
                    what: response::ResponseError::TooLarge { which, limit }.to_string(),
                });
            }
            Err(e) => {
                let e = ImapError::from(e);
                return Err(match (e, self.bye.take()) {
                    (ImapError::ConnectionLost(_), Some(bye)) => ImapError::Bye(bye),
                    (e, _) => e,
                });
            }
        };
        if raw.len() > 300 {
            let mut shown = response::printable(&raw[..200], 200);
            shown.push_str(&format!(" ... ({} bytes)", raw.len()));
            self.trace.line('S', &shown);
        } else {
            self.trace.line('S', &response::printable(&raw, 300));
        }
        Ok(response::parse(&raw)?)
    }

    /// Says LOGOUT and waits for the answer (errors are ignored: the work is done).
    pub fn logout(mut self) {
        self.say_logout();
    }

    fn say_logout(&mut self) {
        if self.logged_out || self.broken {
            return;
        }
        self.logged_out = true;
        if let Ok(tag) = self.send(&[Arg::Raw("LOGOUT")], |_| {}) {
            let _ = self.wait(&tag);
        }
    }
}

impl Drop for Session<'_> {
    /// A session left without [`Session::logout`] (an error, a refused login) still says
    /// LOGOUT when the connection works, within a short timeout (the private `LOGOUT_TIMEOUT`,
    /// or `imap.timeout` when shorter); then the transport ends (a tunnel's process group with it).
    fn drop(&mut self) {
        let timeout = self.transport().timeout().min(LOGOUT_TIMEOUT);
        self.transport_mut().set_timeout(timeout);
        self.say_logout();
    }
}

/// Whether `b` can be sent as a quoted string (7-bit, no CR, LF or NUL).
fn quotable(b: &[u8]) -> bool {
    b.len() < 1024
        && b.iter()
            .all(|&c| c != 0 && c != b'\r' && c != b'\n' && c < 0x80)
}

fn quote_into(b: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in b {
        if c == b'"' || c == b'\\' {
            out.push(b'\\');
        }
        out.push(c);
    }
    out.push(b'"');
}

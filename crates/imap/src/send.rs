//! The upload: connect and log in as configured, find the folder, skip messages already there,
//! store the rest (one MULTIAPPEND when offered, else one APPEND per message), and account for
//! every message — also after a failure, by reconnecting and looking the messages up.
//!
//! The providers come from the caller: TLS in [`Job::tls`], MD5 (for CRAM-MD5) as the type
//! parameter `M` of [`send`] and [`list`].

use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;

use crate::Md5Provider;
use flagsplit_tls::{TlsConfig, TlsProvider};

use crate::config::{Scheme, Settings};
use crate::credential::{self, Credential, CredentialKey};
use crate::error::ImapError;
use crate::mbox::Message;
use crate::response::{Code, Limits, StatusKind, Untagged, Value};
use crate::sasl::AuthMethod;
use crate::session::{Arg, Greeting, Session, Trace};
use crate::utf7;

/// How many commands are kept in flight when pipelining.
const WINDOW: usize = 64;
/// How many APPEND commands are kept in flight: enough to hide the round trips, few enough that
/// after a lost connection most messages are known to be unsent rather than unknown.
const APPEND_WINDOW: usize = 16;

/// What the sender tells the user.
pub trait Ui {
    /// A normal message (`-q` hides these).
    fn info(&self, message: &str);
    /// A warning (always shown).
    fn warn(&self, message: &str);
    /// `done` of `total` messages sent.
    fn progress(&self, done: usize, total: usize);
    /// Where protocol traces go.
    fn trace(&self) -> &dyn Trace;
}

/// Where credentials come from when the configuration has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialSource {
    /// `imap.user`/`imap.pass` only.
    ConfigOnly,
    /// Then `git credential fill` (approve/reject), then a terminal prompt.
    GitThenTerminal,
}

/// One upload (or `--list`).
pub struct Job<'a> {
    /// The settings.
    pub settings: &'a Settings,
    /// The TLS provider, `None` when the caller has none (a `TLS: none` build): then only plain
    /// connections and tunnels work.
    pub tls: Option<&'a dyn TlsProvider>,
    /// Connect, log in and look for duplicates, but store nothing.
    pub dry_run: bool,
    /// Do not look for duplicates.
    pub allow_duplicates: bool,
    /// Where credentials come from.
    pub credentials: CredentialSource,
    /// The user interface.
    pub ui: &'a dyn Ui,
}

/// What happened to one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Stored (with its UID when the server offers UIDPLUS).
    Stored(Option<u32>),
    /// Skipped: an identical message is already in the folder (its UID).
    Duplicate(u32),
    /// `--dry-run`: would be stored.
    WouldStore,
    /// Not stored.
    NotStored,
    /// Unknown: the connection was lost while the server had it, and the lookup afterwards
    /// could not be done.
    Unknown,
}

/// The result of an upload.
#[derive(Debug, Clone)]
pub struct Report {
    /// The folder (as the user knows it, not modified UTF-7).
    pub folder: String,
    /// One per message, in order.
    pub outcomes: Vec<Outcome>,
    /// Whether the folder had to be created.
    pub created: bool,
}

impl Report {
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.outcomes.iter().filter(|o| f(o)).count()
    }

    /// Messages stored.
    pub fn stored(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Stored(_)))
    }

    /// Messages skipped as duplicates.
    pub fn duplicates(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Duplicate(_)))
    }

    /// Messages whose fate is unknown.
    pub fn unknown(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Unknown))
    }
}

/// A failed upload: the error, and what is known of each message.
#[derive(Debug)]
pub struct Failure {
    /// What went wrong.
    pub error: ImapError,
    /// Per-message outcomes, when the upload had started.
    pub report: Option<Report>,
    /// Why the lookup after a lost connection could not be done.
    pub recovery_error: Option<ImapError>,
}

impl From<ImapError> for Box<Failure> {
    fn from(error: ImapError) -> Box<Failure> {
        Box::new(Failure {
            error,
            report: None,
            recovery_error: None,
        })
    }
}

/// What is needed to open a logged-in session, and another after a lost connection; `M` is the
/// MD5 provider of CRAM-MD5.
struct Connector<'a, M> {
    job: &'a Job<'a>,
    credential: Option<Credential>,
    approved: bool,
    md5: PhantomData<fn() -> M>,
}

impl<'a, M: Md5Provider> Connector<'a, M> {
    /// Checks what can be checked before connecting (refusals that need no server), warns about
    /// `imap.sslverify=false`, and connects.
    fn start(job: &'a Job<'a>) -> Result<(Connector<'a, M>, Session<'a>), ImapError> {
        let mut c = Connector {
            job,
            credential: None,
            approved: false,
            md5: PhantomData,
        };
        c.precheck()?;
        warn_sslverify(job);
        let session = c.open()?;
        Ok((c, session))
    }

    fn host(&self) -> &str {
        match (&self.job.settings.tunnel, &self.job.settings.host) {
            (Some(_), _) => "tunnel",
            (None, Some(h)) => h,
            (None, None) => "",
        }
    }

    /// The checks that need no connection: a value `git credential` cannot carry (checked here
    /// too for settings not read by [`Settings::apply`]), a `TLS: none` build asked for TLS,
    /// no host.
    fn precheck(&self) -> Result<(), ImapError> {
        let s = self.job.settings;
        self.key().check()?;
        if s.tunnel.is_some() {
            return Ok(());
        }
        if s.host.is_none() {
            return Err(ImapError::Credentials(
                "no server: set imap.host (imaps://HOST or imap://HOST), or imap.tunnel".into(),
            ));
        }
        if self.job.tls.is_some() {
            return Ok(());
        }
        if s.scheme == Scheme::Imaps {
            return Err(ImapError::NoTls {
                what: format!("imap.host asks for imaps://{} (TLS)", self.host()),
            });
        }
        let method = s.auth_method.unwrap_or(AuthMethod::Login);
        if method.reveals_secret() && !s.allow_plaintext {
            return Err(ImapError::NoTls {
                what: format!(
                    "logging in to imap://{} with {method} needs STARTTLS, so that the password is not sent in clear text",
                    self.host()
                ),
            });
        }
        Ok(())
    }

    fn tls_config(&self) -> TlsConfig<'_> {
        TlsConfig {
            host: self.host(),
            ca_file: self.job.settings.ca_file.as_deref(),
            verify: self.job.settings.ssl_verify,
        }
    }

    fn open(&mut self) -> Result<Session<'a>, ImapError> {
        let job = self.job;
        let s = job.settings;
        let trace = job.ui.trace();
        let mut session = if let Some(tunnel) = &s.tunnel {
            let t = crate::transport::Tunnel::spawn(tunnel)?;
            Session::start(crate::transport::Transport::Tunnel(t), "tunnel", trace)?
        } else {
            let port = s.effective_port();
            let tcp = crate::transport::connect_tcp(self.host(), port, s.timeout)?;
            let transport = if s.scheme == Scheme::Imaps {
                let Some(tls) = job.tls else {
                    return Err(ImapError::NoTls {
                        what: "imaps:// needs TLS".into(),
                    });
                };
                crate::transport::Transport::Tls(tls.connect(tcp, &self.tls_config())?)
            } else {
                crate::transport::Transport::Tcp(tcp)
            };
            let server = match self.host() {
                h if h.contains(':') => format!("[{h}]:{port}"),
                h => format!("{h}:{port}"),
            };
            Session::start(transport, &server, trace)?
        };
        trace.line(
            '*',
            &format!("connected: {}", session.transport().describe()),
        );
        let mut starttls_offered = false;
        if matches!(session.transport(), crate::transport::Transport::Tcp(_))
            && session.greeting() == Greeting::NotAuthenticated
            && session.has("STARTTLS")
        {
            starttls_offered = true;
            match job.tls {
                Some(tls) => session.starttls(tls, &self.tls_config())?,
                None => job.ui.warn(
                    "the server offers STARTTLS, but this build has no TLS: the session is not encrypted",
                ),
            }
        }
        if session.greeting() == Greeting::Preauth {
            return Ok(session);
        }
        let method = s.auth_method.unwrap_or(AuthMethod::Login);
        let protected = session.transport().is_protected();
        if method == AuthMethod::Login && session.has("LOGINDISABLED") {
            return Err(ImapError::LoginDisabled {
                offered: session.auth_mechanisms().join(" "),
                hint: if protected {
                    ""
                } else {
                    " because it is not encrypted"
                },
            });
        }
        if method != AuthMethod::Login && !session.has(&format!("AUTH={}", method.name())) {
            return Err(ImapError::MethodNotOffered {
                method,
                offered: session.auth_mechanisms().join(" "),
            });
        }
        if !protected && method.reveals_secret() {
            if !s.allow_plaintext {
                return Err(ImapError::PlaintextRefused {
                    what: if method.uses_token() {
                        "token"
                    } else {
                        "password"
                    },
                    host: self.host().to_string(),
                    method,
                    why: if starttls_offered {
                        ""
                    } else {
                        " (the server does not offer STARTTLS)"
                    },
                });
            }
            job.ui.warn(&format!(
                "imap.allowPlaintext: sending the {} for {} in clear text",
                if method.uses_token() {
                    "token"
                } else {
                    "password"
                },
                self.host()
            ));
        }
        let credential = match self.credential.clone() {
            Some(c) => c,
            None => {
                let c = self.obtain_credential()?;
                self.credential = Some(c.clone());
                c
            }
        };
        let port = s.effective_port();
        let host = self.host().to_string();
        match session.authenticate::<M>(
            method,
            &credential.username,
            &credential.password,
            &host,
            port,
        ) {
            Ok(()) => {
                if credential.from_git && !self.approved {
                    credential::git_report(&self.key(), &credential, true)?;
                    self.approved = true;
                }
                Ok(session)
            }
            Err(e) => {
                if matches!(e, ImapError::AuthFailed { .. }) && credential.from_git {
                    credential::git_report(&self.key(), &credential, false)?;
                }
                Err(e)
            }
        }
    }

    fn key(&self) -> CredentialKey {
        let s = self.job.settings;
        let default_port = match s.scheme {
            Scheme::Imap => 143,
            Scheme::Imaps => 993,
        };
        // With a tunnel the port is not used: the host is `tunnel`, as git's.
        let host = if s.tunnel.is_some() || s.effective_port() == default_port {
            self.host().to_string()
        } else {
            format!("{}:{}", self.host(), s.effective_port())
        };
        CredentialKey {
            protocol: match s.scheme {
                Scheme::Imap => "imap",
                Scheme::Imaps => "imaps",
            },
            host,
            username: s.user.clone(),
        }
    }

    fn obtain_credential(&self) -> Result<Credential, ImapError> {
        let s = self.job.settings;
        if let (Some(user), Some(pass)) = (&s.user, &s.pass) {
            return Ok(Credential::new(user.clone(), pass.clone()));
        }
        if self.job.credentials == CredentialSource::GitThenTerminal {
            let key = self.key();
            if let Some(mut c) = credential::git_fill(&key)? {
                if let Some(pass) = &s.pass {
                    c.password = pass.clone();
                    c.from_git = false;
                }
                return Ok(c);
            }
            if let Some(c) = credential::tty_prompt(&key) {
                return Ok(c);
            }
        }
        Err(ImapError::Credentials(format!(
            "no {} for {}: set imap.user, and configure a git credential helper (git help credentials) or run from a terminal to be asked",
            if s.user.is_none() {
                "user name"
            } else {
                "password"
            },
            self.host()
        )))
    }
}

/// The folders (`--list`): their names, decoded, and their attributes. `M` computes MD5 for
/// CRAM-MD5.
pub fn list<M: Md5Provider>(job: &Job<'_>) -> Result<Vec<(String, Vec<String>)>, ImapError> {
    let (_connector, mut session) = Connector::<M>::start(job)?;
    let done = session
        .run(&[Arg::Raw("LIST"), Arg::Str(b""), Arg::Str(b"*")])?
        .ok("LIST")?;
    let mut out = Vec::new();
    for d in done.data {
        if let Untagged::List {
            attributes, name, ..
        } = d
        {
            let shown =
                utf7::decode(&name).unwrap_or_else(|| String::from_utf8_lossy(&name).into_owned());
            out.push((shown, attributes));
        }
    }
    session.logout();
    Ok(out)
}

fn warn_sslverify(job: &Job<'_>) {
    if !job.settings.ssl_verify && job.settings.tunnel.is_none() {
        job.ui.warn(
            "imap.sslverify=false: the server's certificate is NOT verified; anyone on the network path can pose as the server and read the password and the patches",
        );
    }
}

/// Uploads `messages` (`stored`: their bytes as stored). `M` computes MD5 for CRAM-MD5.
pub fn send<M: Md5Provider>(
    job: &Job<'_>,
    messages: &[Message],
    stored: &[Vec<u8>],
) -> Result<Report, Box<Failure>> {
    let (mut c, mut session) = Connector::<M>::start(job)?;
    let folder = find_folder(job, &mut session)?;
    let wire = utf7::encode(&folder);
    let mut report = Report {
        folder: folder.clone(),
        outcomes: vec![Outcome::NotStored; messages.len()],
        created: false,
    };

    // The folder, its UIDNEXT (to tell our messages from older ones after a lost connection).
    let examine = session.run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?;
    let mut mark = Mark::default();
    let exists = examine.status.kind == StatusKind::Ok;
    if exists {
        mark = Mark::from(&examine.data);
    } else if job.dry_run {
        job.ui.info(&format!(
            "folder '{folder}' does not exist: it would be created"
        ));
    } else {
        session
            .run(&[Arg::Raw("CREATE"), Arg::Str(wire.as_bytes())])?
            .ok(format!("CREATE '{folder}'"))?;
        job.ui.info(&format!("created missing folder '{folder}'"));
        report.created = true;
        if let Ok(done) = session.run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())]) {
            mark = Mark::from(&done.data);
        }
    }

    if exists && !job.allow_duplicates {
        let all: Vec<usize> = (0..messages.len()).collect();
        let found = find_identical(&mut session, messages, stored, &all, None)?;
        for (i, uid) in found {
            report.outcomes[i] = Outcome::Duplicate(uid);
        }
    }
    let todo: Vec<usize> = (0..messages.len())
        .filter(|&i| report.outcomes[i] == Outcome::NotStored)
        .collect();
    if job.dry_run {
        for &i in &todo {
            report.outcomes[i] = Outcome::WouldStore;
        }
        session.logout();
        return Ok(report);
    }
    if todo.is_empty() {
        session.logout();
        return Ok(report);
    }

    let result = if session.has("MULTIAPPEND") && todo.len() > 1 {
        append_multi(job, &mut session, &wire, stored, &todo, &mut report)
    } else {
        append_each(job, &mut session, &wire, stored, &todo, &mut report)
    };
    match result {
        Ok(()) => {
            session.logout();
            Ok(report)
        }
        Err(error) => {
            drop(session);
            let mut recovery_error = None;
            if report.unknown() > 0
                && let Err(e) = recover(&mut c, &wire, messages, stored, &mut report, mark)
            {
                recovery_error = Some(e);
            }
            Err(Box::new(Failure {
                error,
                report: Some(report),
                recovery_error,
            }))
        }
    }
}

/// UIDVALIDITY and UIDNEXT of the folder before the upload.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    validity: Option<u32>,
    next: Option<u32>,
}

impl Mark {
    fn from(data: &[Untagged]) -> Mark {
        let mut m = Mark::default();
        for d in data {
            if let Untagged::Status(s) = d {
                match s.code {
                    Some(Code::UidValidity(v)) => m.validity = Some(v),
                    Some(Code::UidNext(n)) => m.next = Some(n),
                    _ => {}
                }
            }
        }
        m
    }
}

fn find_folder(job: &Job<'_>, session: &mut Session<'_>) -> Result<String, ImapError> {
    if let Some(f) = &job.settings.folder {
        return Ok(f.clone());
    }
    if !session.has("SPECIAL-USE") {
        return Err(ImapError::Folder(
            "no folder: set imap.folder or use --folder (the server does not mark its Drafts folder: no SPECIAL-USE)".into(),
        ));
    }
    let args: &[Arg<'_>] = if session.has("LIST-EXTENDED") {
        &[
            Arg::Raw("LIST"),
            Arg::Raw("(SPECIAL-USE)"),
            Arg::Str(b""),
            Arg::Str(b"*"),
        ]
    } else {
        &[Arg::Raw("LIST"), Arg::Str(b""), Arg::Str(b"*")]
    };
    let done = session.run(args)?.ok("LIST")?;
    for d in done.data {
        if let Untagged::List {
            attributes, name, ..
        } = d
            && attributes
                .iter()
                .any(|a| a.eq_ignore_ascii_case("\\Drafts"))
        {
            let name =
                utf7::decode(&name).unwrap_or_else(|| String::from_utf8_lossy(&name).into_owned());
            job.ui.info(&format!(
                "no folder configured: using the server's drafts folder '{name}'"
            ));
            return Ok(name);
        }
    }
    Err(ImapError::Folder(
        "no folder: set imap.folder or use --folder (the server marks no folder as \\Drafts)"
            .into(),
    ))
}

/// The search key for a message: its Message-ID, else its Date (and Subject, when plain ASCII).
fn search_args(m: &Message) -> Vec<(&'static str, Vec<u8>)> {
    if let Some(id) = &m.message_id {
        return vec![("HEADER Message-ID", id.clone().into_bytes())];
    }
    let mut keys = Vec::new();
    if let Some(date) = &m.date {
        keys.push(("HEADER Date", date.clone().into_bytes()));
    }
    let subject = m.subject.trim();
    if !subject.is_empty() && subject.is_ascii() && !subject.contains("=?") {
        keys.push(("SUBJECT", subject.as_bytes().to_vec()));
    }
    keys
}

/// For each message `which`, the UID of an identical message in the selected folder (compared
/// byte for byte), if any; with `min_uid`, only UIDs from it on count.
fn find_identical(
    session: &mut Session<'_>,
    messages: &[Message],
    stored: &[Vec<u8>],
    which: &[usize],
    min_uid: Option<u32>,
) -> Result<Vec<(usize, u32)>, ImapError> {
    // 1. One UID SEARCH per message. Dovecot runs pipelined commands concurrently and may send
    // their `* SEARCH` results in any order, so plain SEARCH results cannot be told apart when
    // pipelined: with ESEARCH (RFC 4731) each result names its command's tag and the searches
    // are pipelined; without it they run one at a time.
    let esearch = session.has("ESEARCH");
    let window = if esearch { WINDOW } else { 1 };
    let mut candidates: HashMap<usize, Vec<u32>> = HashMap::new();
    let mut in_flight: Vec<(usize, String)> = Vec::new();
    let mut collect =
        |session: &mut Session<'_>, (i, tag): (usize, String)| -> Result<(), ImapError> {
            let done = session.wait(&tag)?.ok("SEARCH")?;
            let found = if esearch {
                session.take_esearch(&tag)
            } else {
                done.data
                    .into_iter()
                    .filter_map(|d| match d {
                        Untagged::Search(found) => Some(found),
                        _ => None,
                    })
                    .flatten()
                    .collect()
            };
            let uids: Vec<u32> = found
                .into_iter()
                .filter(|u| min_uid.is_none_or(|m| *u >= m))
                .collect();
            if !uids.is_empty() {
                candidates.insert(i, uids);
            }
            Ok(())
        };
    for &i in which {
        let keys = search_args(&messages[i]);
        let ascii = keys.iter().all(|(_, v)| v.is_ascii());
        let mut args = vec![Arg::Raw("UID SEARCH")];
        if esearch {
            args.push(Arg::Raw("RETURN (ALL)"));
        }
        if !ascii {
            args.push(Arg::Raw("CHARSET UTF-8"));
        }
        for (key, value) in &keys {
            args.push(Arg::Raw(key));
            args.push(Arg::Str(value));
        }
        if keys.is_empty() {
            // Nothing to search by: every message is a candidate.
            args.push(Arg::Raw("ALL"));
        }
        let tag = session.send(&args, |_| {})?;
        in_flight.push((i, tag));
        if in_flight.len() >= window {
            let batch: Vec<_> = in_flight.drain(..window.div_ceil(2)).collect();
            for item in batch {
                collect(session, item)?;
            }
        }
    }
    for item in in_flight.drain(..) {
        collect(session, item)?;
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    // 2. Fetch the candidates and compare bytes, each body as it arrives (none is kept). A body
    // longer than the largest message cannot be identical to any: the reader drops it unheld
    // (it arrives as NIL) instead of holding up to a server-chosen size.
    let mut uids: Vec<u32> = candidates.values().flatten().copied().collect();
    uids.sort_unstable();
    uids.dedup();
    let mut wanted: HashMap<u32, Vec<usize>> = HashMap::new();
    for (&i, cands) in &candidates {
        for &uid in cands {
            wanted.entry(uid).or_default().push(i);
        }
    }
    let largest = which.iter().map(|&i| stored[i].len()).max().unwrap_or(0);
    let before = session.limits();
    session.set_limits(Limits {
        literal: largest,
        discard_larger: true,
        response: before.response.saturating_add(largest),
        ..before
    });
    let mut identical: HashSet<(usize, u32)> = HashSet::new();
    let mut fetched = || -> Result<(), ImapError> {
        for chunk in uids.chunks(200) {
            let set: Vec<String> = chunk.iter().map(u32::to_string).collect();
            let set = set.join(",");
            let tag = session.send(
                &[
                    Arg::Raw("UID FETCH"),
                    Arg::Raw(&set),
                    Arg::Raw("(UID BODY.PEEK[])"),
                ],
                |_| {},
            )?;
            session
                .wait_with(&tag, |d| {
                    let Untagged::Fetch { items, .. } = d else {
                        return Some(d);
                    };
                    let mut uid = None;
                    let mut body = None;
                    for (name, value) in items {
                        match (name.as_str(), value) {
                            ("UID", Value::Atom(a)) => uid = a.parse::<u32>().ok(),
                            ("BODY[]", Value::String(b)) => body = Some(b),
                            _ => {}
                        }
                    }
                    if let (Some(uid), Some(body)) = (uid, body)
                        && let Some(is) = wanted.get(&uid)
                    {
                        for &i in is {
                            if body == stored[i] {
                                identical.insert((i, uid));
                            }
                        }
                    }
                    None
                })?
                .ok("FETCH")?;
        }
        Ok(())
    };
    let result = fetched();
    session.set_limits(before);
    result?;
    let mut found = Vec::new();
    let mut taken: Vec<u32> = Vec::new();
    for &i in which {
        let Some(cands) = candidates.get(&i) else {
            continue;
        };
        if let Some(&uid) = cands
            .iter()
            .find(|u| !taken.contains(u) && identical.contains(&(i, **u)))
        {
            taken.push(uid);
            found.push((i, uid));
        }
    }
    Ok(found)
}

fn append_uids(status_code: &Option<Code>) -> Option<Vec<u32>> {
    match status_code {
        Some(Code::AppendUid { uids, .. }) => Some(uids.clone()),
        _ => None,
    }
}

fn append_multi(
    job: &Job<'_>,
    session: &mut Session<'_>,
    wire: &str,
    stored: &[Vec<u8>],
    todo: &[usize],
    report: &mut Report,
) -> Result<(), ImapError> {
    let mut args = vec![Arg::Raw("APPEND"), Arg::Str(wire.as_bytes())];
    for &i in todo {
        args.push(Arg::Raw("(\\Seen)"));
        args.push(Arg::Literal(&stored[i]));
    }
    let total = todo.len();
    let mut sent = 0;
    // Once the first byte is out, the server may store the whole series: unknown until answered.
    for &i in todo {
        report.outcomes[i] = Outcome::Unknown;
    }
    let tag = session.send(&args, |arg| {
        if matches!(args.get(arg), Some(Arg::Literal(_))) {
            sent += 1;
            job.ui.progress(sent, total);
        }
    })?;
    let done = session.wait(&tag)?;
    if done.status.kind != StatusKind::Ok {
        for &i in todo {
            report.outcomes[i] = Outcome::NotStored;
        }
        return Err(ImapError::Command {
            command: format!("APPEND of {total} messages to '{}'", report.folder),
            quote: done.status.quote(),
        });
    }
    let uids = append_uids(&done.status.code).filter(|u| u.len() == todo.len());
    for (k, &i) in todo.iter().enumerate() {
        report.outcomes[i] = Outcome::Stored(uids.as_ref().map(|u| u[k]));
    }
    Ok(())
}

fn append_each(
    job: &Job<'_>,
    session: &mut Session<'_>,
    wire: &str,
    stored: &[Vec<u8>],
    todo: &[usize],
    report: &mut Report,
) -> Result<(), ImapError> {
    let total = todo.len();
    let mut in_flight: Vec<(usize, String)> = Vec::new();
    let mut answered = 0;
    let mut first_error: Option<ImapError> = None;
    let finish = |session: &mut Session<'_>,
                  (i, tag): (usize, String),
                  report: &mut Report,
                  answered: &mut usize,
                  first_error: &mut Option<ImapError>|
     -> Result<(), ImapError> {
        let done = session.wait(&tag)?;
        *answered += 1;
        job.ui.progress(*answered, total);
        if done.status.kind == StatusKind::Ok {
            let uid = append_uids(&done.status.code).and_then(|u| u.first().copied());
            report.outcomes[i] = Outcome::Stored(uid);
        } else {
            report.outcomes[i] = Outcome::NotStored;
            if first_error.is_none() {
                *first_error = Some(ImapError::Command {
                    command: format!("APPEND of message {} to '{}'", i + 1, report.folder),
                    quote: done.status.quote(),
                });
            }
        }
        Ok(())
    };
    for &i in todo {
        if first_error.is_some() {
            break;
        }
        report.outcomes[i] = Outcome::Unknown;
        let sent = session.send(
            &[
                Arg::Raw("APPEND"),
                Arg::Str(wire.as_bytes()),
                Arg::Raw("(\\Seen)"),
                Arg::Literal(&stored[i]),
            ],
            |_| {},
        );
        let tag = match sent {
            Ok(tag) => tag,
            Err(ImapError::Command { quote, .. }) => {
                // Refused before the literal was sent (synchronising literal): not stored.
                report.outcomes[i] = Outcome::NotStored;
                first_error = Some(ImapError::Command {
                    command: format!("APPEND of message {} to '{}'", i + 1, report.folder),
                    quote,
                });
                break;
            }
            Err(e) => return Err(e),
        };
        in_flight.push((i, tag));
        if in_flight.len() >= APPEND_WINDOW || !session.has("LITERAL+") {
            let batch: Vec<_> = in_flight
                .drain(..in_flight.len().saturating_sub(APPEND_WINDOW / 2).max(1))
                .collect();
            for item in batch {
                finish(session, item, report, &mut answered, &mut first_error)?;
            }
        }
    }
    for item in std::mem::take(&mut in_flight) {
        finish(session, item, report, &mut answered, &mut first_error)?;
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// After a lost connection: reconnect and look up every message whose fate is unknown.
fn recover<M: Md5Provider>(
    c: &mut Connector<'_, M>,
    wire: &str,
    messages: &[Message],
    stored: &[Vec<u8>],
    report: &mut Report,
    mark: Mark,
) -> Result<(), ImapError> {
    let job = c.job;
    job.ui
        .info("connection lost: reconnecting to find out which messages were stored");
    let mut session = c.open()?;
    let examine = session
        .run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?
        .ok(format!("EXAMINE '{}'", report.folder))?;
    let now = Mark::from(&examine.data);
    if mark.validity.is_some() && now.validity != mark.validity {
        return Err(ImapError::Protocol(
            "the folder's UIDVALIDITY changed: cannot tell which messages were stored".into(),
        ));
    }
    let unknown: Vec<usize> = (0..messages.len())
        .filter(|&i| report.outcomes[i] == Outcome::Unknown)
        .collect();
    // Without the duplicate check, an identical message may predate the upload: only UIDs
    // from the folder's UIDNEXT before the upload count then.
    let min_uid = if job.allow_duplicates {
        match mark.next {
            Some(n) => Some(n),
            None => {
                return Err(ImapError::Protocol(
                    "the server gave no UIDNEXT: with --allow-duplicates the stored messages cannot be told from older copies".into(),
                ));
            }
        }
    } else {
        mark.next
    };
    // The server may still be finishing the old connection's commands (a message received in
    // full but not yet committed when we looked): look again while the folder's UIDNEXT moves.
    let mut missing = unknown;
    let mut next = now.next;
    for round in 0..6u32 {
        let found = find_identical(&mut session, messages, stored, &missing, min_uid)?;
        for (i, uid) in found {
            report.outcomes[i] = Outcome::Stored(Some(uid));
        }
        missing.retain(|&i| report.outcomes[i] == Outcome::Unknown);
        if missing.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100 << round.min(3)));
        let again = session
            .run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?
            .ok(format!("EXAMINE '{}'", report.folder))?;
        let later = Mark::from(&again.data).next;
        if round > 0 && later == next {
            break;
        }
        next = later;
    }
    for i in missing {
        report.outcomes[i] = Outcome::NotStored;
    }
    session.logout();
    Ok(())
}

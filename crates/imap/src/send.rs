//! The upload: connect and log in as configured, find the folder, skip messages already there,
//! store the rest (one MULTIAPPEND when offered, else one APPEND per message), and account for
//! every message — also after a failure, by reconnecting and looking the messages up.
//!
//! The providers come from the caller: TLS in [`Job::tls`], MD5 (for CRAM-MD5) as the type
//! parameter `M` of [`send`] and [`list`].

use crate::Md5Provider;
use flagsplit_tls::TlsProvider;

use crate::config::Settings;
use crate::connect::Connector;
use crate::error::ImapError;
use crate::mbox::Message;
use crate::response::{self, Untagged};
use crate::session::{Arg, Trace};
use crate::upload;
use crate::utf7;

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
            let attributes = attributes
                .iter()
                .map(|a| response::printable(a.as_bytes(), usize::MAX))
                .collect();
            out.push((folder_name(&name), attributes));
        }
    }
    session.logout();
    Ok(out)
}

/// Uploads `messages` (`stored`: their bytes as stored). `M` computes MD5 for CRAM-MD5.
pub fn send<M: Md5Provider>(
    job: &Job<'_>,
    messages: &[Message],
    stored: &[Vec<u8>],
) -> Result<Report, Box<Failure>> {
    let (mut c, session) = Connector::<M>::start(job)?;
    upload::run(job, session, &mut || c.open(), messages, stored)
}

/// A folder name as the server sent it, decoded (modified UTF-7), control characters escaped.
pub(crate) fn folder_name(wire: &[u8]) -> String {
    let name = utf7::decode(wire).unwrap_or_else(|| String::from_utf8_lossy(wire).into_owned());
    response::printable(name.as_bytes(), usize::MAX)
}

pub(crate) fn find_folder(
    job: &Job<'_>,
    session: &mut crate::session::Session<'_>,
) -> Result<String, ImapError> {
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
            job.ui.info(&format!(
                "no folder configured: using the server's drafts folder '{}'",
                folder_name(&name)
            ));
            return Ok(
                utf7::decode(&name).unwrap_or_else(|| String::from_utf8_lossy(&name).into_owned())
            );
        }
    }
    Err(ImapError::Folder(
        "no folder: set imap.folder or use --folder (the server marks no folder as \\Drafts)"
            .into(),
    ))
}

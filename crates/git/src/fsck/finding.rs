//! What a run found, as values: each line git prints is a [`Finding`] with what the run knows
//! of it (git's message id and severity for an object's check, the object, the pack and offset,
//! the exit bit), handed to a [`Sink`] as it is found. [`TextSink`] writes git's lines, byte for
//! byte; the `flagsplit fsck --json` sink (in the binary) writes each as a JSON object.

use std::io::{self, Write};

use crate::Kind;
use crate::check::Severity;

/// Where git prints the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output (`dangling ...`, `missing ...`, `broken link ...`, `root ...`, `tagged ...`).
    Out,
    /// Standard error (`error: ...`, `warning ...`, notices, `--verbose` lines).
    Err,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Out => "stdout",
            Stream::Err => "stderr",
        }
    }
}

/// How serious the line is: for an object's check, its severity after `--strict`, `fsck.<msg-id>`
/// and `fsck.skipList` (as git prints it); otherwise what git's prefix says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `fatal: ...`: the run stops (exit status 128).
    Fatal,
    /// `error: ...`, `error in <type> <id>: ...`.
    Error,
    /// `warning: ...`, `warning in <type> <id>: ...`.
    Warning,
    /// Anything else: git's reports on standard output, notices and `--verbose` lines.
    Info,
}

impl Level {
    /// `fatal`, `error`, `warning` or `info`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Fatal => "fatal",
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }

    /// The level git's prefix gives a line: `fatal:`, `error` (`error:`, `error in`), `warning`.
    pub fn of_line(line: &[u8]) -> Level {
        if line.starts_with(b"fatal: ") {
            Level::Fatal
        } else if line.starts_with(b"error: ") || line.starts_with(b"error in ") {
            Level::Error
        } else if line.starts_with(b"warning: ") || line.starts_with(b"warning in ") {
            Level::Warning
        } else {
            Level::Info
        }
    }
}

/// What kind of line it is, where the run knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// One of git's object checks (`error in <type> <id>: <msgId>: ...`): `msg_id` is set.
    Check,
    /// `dangling <type> <id>`.
    Dangling,
    /// `unreachable <type> <id>`.
    Unreachable,
    /// `missing <type> <id>`: a reachable object is not in the repository.
    Missing,
    /// `broken link from <type> <id>` (and its `to` line): `object` is the one that links.
    BrokenLink,
    /// `root <id>` (`--root`).
    Root,
    /// `tagged <type> <id> (<name>) in <id>` (`--tags`).
    Tagged,
    /// A pack entry that cannot be read, or a pack or its index that fails its checks: `pack` is
    /// set, and `offset` for an entry.
    Pack,
    /// Any other line.
    Other,
}

impl What {
    /// The name in `--json`: `check`, `dangling`, `unreachable`, `missing`, `broken-link`,
    /// `root`, `tagged`, `pack`, `other`.
    pub fn name(self) -> &'static str {
        match self {
            What::Check => "check",
            What::Dangling => "dangling",
            What::Unreachable => "unreachable",
            What::Missing => "missing",
            What::BrokenLink => "broken-link",
            What::Root => "root",
            What::Tagged => "tagged",
            What::Pack => "pack",
            What::Other => "other",
        }
    }
}

/// One line git prints, and what the run knows of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Where git prints it.
    pub stream: Stream,
    /// How serious it is.
    pub level: Level,
    /// What kind of line it is.
    pub what: What,
    /// git's message id (`badDate`, `missingEmail`, ...) for an object's check.
    pub msg_id: Option<String>,
    /// The object it is about (hex).
    pub object: Option<String>,
    /// That object's type, as git names it.
    pub object_type: Option<&'static str>,
    /// The loose object's file, as git names it.
    pub path: Option<String>,
    /// The pack it is about, as git names it.
    pub pack: Option<String>,
    /// The offset in that pack.
    pub offset: Option<u64>,
    /// The exit bit (see [`super::bits`]) the line goes with, where it sets one.
    pub bit: Option<u8>,
    /// git's line, exactly (without the newline).
    pub line: Vec<u8>,
}

impl Finding {
    /// A line the run knows nothing more of: its level from git's prefix.
    pub fn line(stream: Stream, line: impl Into<Vec<u8>>) -> Finding {
        let line = line.into();
        Finding {
            stream,
            level: Level::of_line(&line),
            what: What::Other,
            msg_id: None,
            object: None,
            object_type: None,
            path: None,
            pack: None,
            offset: None,
            bit: None,
            line,
        }
    }

    /// `error: MESSAGE` on standard error.
    pub fn error(message: &str) -> Finding {
        Finding::line(Stream::Err, format!("error: {message}"))
    }

    /// A report on standard output (`dangling`, `missing`, ...) about `hex`, of the type git
    /// names (`unknown`: none).
    pub fn report(what: What, object_type: &'static str, hex: &str, line: String) -> Finding {
        Finding {
            what,
            object: Some(hex.to_string()),
            object_type: (object_type != "unknown").then_some(object_type),
            ..Finding::line(Stream::Out, line)
        }
    }

    /// git's line for one of its object checks of the object of `kind` whose id is `hex`
    /// (`error in <type> <id>: <msgId>: ...`, or the parser's plain `error: ...` line).
    pub fn check(finding: &crate::fsck::walk::Finding, kind: Kind, hex: &str) -> Finding {
        let line = finding.line(kind, hex);
        let msg_id = (!finding.plain)
            .then(|| {
                finding
                    .message
                    .split_once(": ")
                    .map(|(id, _)| id.to_string())
            })
            .flatten();
        // As `line` prints it: a parser's plain line and an error are errors.
        let level = if finding.plain || finding.severity == Severity::Error {
            Level::Error
        } else {
            Level::Warning
        };
        Finding {
            what: if finding.plain {
                What::Other
            } else {
                What::Check
            },
            msg_id,
            object: Some(hex.to_string()),
            object_type: Some(kind.name()),
            bit: (level == Level::Error).then_some(super::bits::OBJECT),
            ..Finding::line(Stream::Err, line)
        }
    }

    /// An `error: MESSAGE` of git's check of the pack `pack` (as git names it), at `offset` when
    /// the message is about one of its entries: it fails the pack's check (exit bit 4).
    pub fn pack_error(message: &str, pack: &str, offset: Option<u64>) -> Finding {
        Finding {
            what: What::Pack,
            pack: Some(pack.to_string()),
            offset,
            bit: Some(super::bits::PACK),
            ..Finding::error(message)
        }
    }

    /// The same, with `object` (hex) and its type where known.
    pub fn about(mut self, hex: &str, kind: Option<Kind>) -> Finding {
        self.object = Some(hex.to_string());
        self.object_type = kind.map(Kind::name);
        self
    }

    /// The same, with the exit bit it goes with.
    pub fn with_bit(mut self, bit: u8) -> Finding {
        self.bit = Some(bit);
        self
    }
}

/// What the findings of a stretch of the run are about, where a finding does not say: the
/// loose object being checked and its file, or the pack.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The object (hex).
    pub object: Option<String>,
    /// Its file.
    pub path: Option<String>,
    /// The pack.
    pub pack: Option<String>,
}

impl Context {
    /// Gives `f` what it does not say itself.
    pub fn fill(&self, f: &mut Finding) {
        if f.object.is_none() {
            f.object.clone_from(&self.object);
        }
        if f.path.is_none() {
            f.path.clone_from(&self.path);
        }
        if f.pack.is_none() {
            f.pack.clone_from(&self.pack);
        }
    }
}

/// How many findings there were at each level (what a sink's summary says).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// [`Level::Fatal`].
    pub fatal: u64,
    /// [`Level::Error`].
    pub errors: u64,
    /// [`Level::Warning`].
    pub warnings: u64,
    /// [`Level::Info`].
    pub info: u64,
}

impl Counts {
    /// Counts `f`.
    pub fn add(&mut self, f: &Finding) {
        *match f.level {
            Level::Fatal => &mut self.fatal,
            Level::Error => &mut self.errors,
            Level::Warning => &mut self.warnings,
            Level::Info => &mut self.info,
        } += 1;
    }
}

/// Where findings go, in the order they are found, and the run's exit status at its end.
pub trait Sink {
    /// One finding.
    fn finding(&mut self, f: Finding);
    /// The run ended with `status` (git's bits, or 128 when it died).
    fn finish(&mut self, status: u8) {
        let _ = status;
    }
    /// Writes what is buffered.
    fn flush(&mut self);
}

/// git's lines: standard output buffered, standard error written as each line comes (after
/// standard output is flushed, so that the two interleave as git's do on a terminal).
pub struct TextSink {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

impl TextSink {
    /// Writes to the given sinks.
    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> TextSink {
        TextSink { out, err }
    }

    /// Writes to the process's standard output and error.
    pub fn stdio() -> TextSink {
        TextSink::new(
            Box::new(io::BufWriter::new(io::stdout())),
            Box::new(io::stderr()),
        )
    }
}

impl Sink for TextSink {
    fn finding(&mut self, f: Finding) {
        match f.stream {
            Stream::Out => {
                let _ = self.out.write_all(&f.line);
                let _ = self.out.write_all(b"\n");
            }
            Stream::Err => {
                let _ = self.out.flush();
                let _ = self.err.write_all(&f.line);
                let _ = self.err.write_all(b"\n");
            }
        }
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
        let _ = self.err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Severity;
    use crate::fsck::walk::Finding as CheckFinding;

    #[test]
    fn counts_by_level() {
        let mut c = Counts::default();
        for line in [
            "error: a",
            "warning in tag x: y",
            "dangling blob x",
            "error in tree x: z",
        ] {
            c.add(&Finding::line(Stream::Err, line));
        }
        assert_eq!(
            c,
            Counts {
                fatal: 0,
                errors: 2,
                warnings: 1,
                info: 1
            }
        );
    }

    #[test]
    fn levels_follow_gits_prefixes() {
        assert_eq!(Level::of_line(b"fatal: bad object HEAD"), Level::Fatal);
        assert_eq!(Level::of_line(b"error: bad sha1 file"), Level::Error);
        assert_eq!(Level::of_line(b"error in tree 1234: x"), Level::Error);
        assert_eq!(Level::of_line(b"warning in tag 1234: x"), Level::Warning);
        assert_eq!(Level::of_line(b"dangling blob 1234"), Level::Info);
        assert_eq!(Level::of_line(b"errors: not a prefix"), Level::Info);
    }

    #[test]
    fn a_check_carries_its_message_id_and_bit() {
        let c = CheckFinding {
            severity: Severity::Warn,
            message: "missingTaggerEntry: invalid format".into(),
            raw: b"missingTaggerEntry: invalid format".to_vec(),
            plain: false,
        };
        let f = Finding::check(&c, Kind::Tag, "ab12");
        assert_eq!(
            f.line,
            b"warning in tag ab12: missingTaggerEntry: invalid format"
        );
        assert_eq!(f.msg_id.as_deref(), Some("missingTaggerEntry"));
        assert_eq!(
            (f.level, f.bit, f.what),
            (Level::Warning, None, What::Check)
        );
        let e = Finding::check(
            &CheckFinding {
                severity: Severity::Error,
                ..c.clone()
            },
            Kind::Tag,
            "ab12",
        );
        assert_eq!(
            (e.level, e.bit),
            (Level::Error, Some(super::super::bits::OBJECT))
        );
        let plain = Finding::check(
            &CheckFinding {
                plain: true,
                severity: Severity::Error,
                message: "too-short tree object".into(),
                raw: b"too-short tree object".to_vec(),
            },
            Kind::Tree,
            "ab12",
        );
        assert_eq!(plain.line, b"error: too-short tree object");
        assert_eq!((plain.msg_id, plain.what), (None, What::Other));
    }

    #[test]
    fn text_is_gits_lines_on_their_streams() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0
                    .lock()
                    .map_err(|_| io::ErrorKind::Other)?
                    .extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (out, err) = (Shared::default(), Shared::default());
        let mut s = TextSink::new(Box::new(out.clone()), Box::new(err.clone()));
        s.finding(Finding::report(
            What::Dangling,
            "blob",
            "ab",
            "dangling blob ab".into(),
        ));
        s.finding(Finding::error("x"));
        s.flush();
        assert_eq!(*out.0.lock().unwrap(), b"dangling blob ab\n");
        assert_eq!(*err.0.lock().unwrap(), b"error: x\n");
    }
}

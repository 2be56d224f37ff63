//! The `sha1sum`/`md5sum`/`sha256sum` commands: options, hashing files and standard input, `--check`, the
//! messages and the exit status, with the process's streams passed in (see [`Io`]) so that the
//! whole command runs in tests too.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;

use thiserror::Error;

use super::Sum;
use super::line::{self, Layout, Style};
use super::quote::{self, Charset};
use crate::cli::Matches;
use crate::hash::{self, Algorithm};
use crate::inherited::Inherited;
use crate::os_error::strerror;

/// The exit status after stdout turned out to be a closed pipe: what a shell reports for
/// coreutils, which dies of `SIGPIPE` there (128 + 13). Nothing is printed. (When the parent
/// ignored `SIGPIPE`, coreutils gets `EPIPE` instead and reports a write error: so does this.)
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// An option combination coreutils refuses (its wording).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum UsageError {
    /// `--tag` then `-t`.
    #[error("--tag does not support --text mode")]
    TagText,
    /// `-z` with `--check`.
    #[error("the --zero option is not supported when verifying checksums")]
    ZeroCheck,
    /// `--tag` with `--check`.
    #[error("the --tag option is meaningless when verifying checksums")]
    TagCheck,
    /// `-b` or `-t` with `--check`.
    #[error("the --binary and --text options are meaningless when verifying checksums")]
    BinaryCheck,
    /// A `--check`-only option (`--ignore-missing`, `--status`, `--warn`, `--quiet`, `--strict`)
    /// without `--check`.
    #[error("the --{0} option is meaningful only when verifying checksums")]
    CheckOnly(&'static str),
}

/// What the options asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// Which checksum.
    pub sum: Sum,
    /// The hash that computes it (`Sha1Unchecked` with `--no-collision-detection` or
    /// `FLAGSPLIT_SHA1DC=0`).
    pub algorithm: Algorithm,
    /// `-c`.
    pub check: bool,
    /// The output line layout (`-b`, `-t`, `--tag`).
    pub style: Style,
    /// `-z`.
    pub zero: bool,
    /// `--ignore-missing`.
    pub ignore_missing: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// `--status`.
    pub status: bool,
    /// `--strict`.
    pub strict: bool,
    /// `-w`.
    pub warn: bool,
    /// The prefix of messages, `flagsplit sha1sum`.
    pub program: String,
    /// The character set names are quoted for in messages (`None`: from the environment, when
    /// first needed).
    pub charset: Option<Charset>,
}

impl Options {
    /// The options of a parsed command line, applied in order as coreutils does (`--status`,
    /// `--warn` and `--quiet` override each other, `-b`/`-t`/`--tag` too), then checked.
    pub fn from_matches(sum: Sum, m: &Matches) -> Result<Options, UsageError> {
        let mut binary = None;
        let mut tag = false;
        let mut no_collision_detection = false;
        let mut o = Options {
            sum,
            algorithm: sum.algorithm(true),
            check: false,
            style: Style::Text,
            zero: false,
            ignore_missing: false,
            quiet: false,
            status: false,
            strict: false,
            warn: false,
            program: format!("{} {}", crate::cli::flagsplit::PROGRAM.name, sum.command()),
            charset: None,
        };
        for (long, _) in &m.options {
            match *long {
                "binary" => binary = Some(true),
                "text" => binary = Some(false),
                "tag" => {
                    tag = true;
                    binary = Some(true);
                }
                "check" => o.check = true,
                "zero" => o.zero = true,
                "ignore-missing" => o.ignore_missing = true,
                "quiet" => (o.status, o.warn, o.quiet) = (false, false, true),
                "status" => (o.status, o.warn, o.quiet) = (true, false, false),
                "warn" => (o.status, o.warn, o.quiet) = (false, true, false),
                "strict" => o.strict = true,
                "no-collision-detection" => no_collision_detection = true,
                _ => {}
            }
        }
        if tag && binary == Some(false) {
            return Err(UsageError::TagText);
        }
        if o.zero && o.check {
            return Err(UsageError::ZeroCheck);
        }
        if tag && o.check {
            return Err(UsageError::TagCheck);
        }
        if binary.is_some() && o.check {
            return Err(UsageError::BinaryCheck);
        }
        if !o.check {
            for (set, name) in [
                (o.ignore_missing, "ignore-missing"),
                (o.status, "status"),
                (o.warn, "warn"),
                (o.quiet, "quiet"),
                (o.strict, "strict"),
            ] {
                if set {
                    return Err(UsageError::CheckOnly(name));
                }
            }
        }
        o.style = match (tag, binary) {
            (true, _) => Style::Tag,
            (false, Some(true)) => Style::Binary,
            _ => Style::Text,
        };
        o.algorithm =
            sum.algorithm(!no_collision_detection && hash::collision_detection_from_env());
        Ok(o)
    }
}

/// The process's streams.
pub struct Io<'a> {
    /// Standard input (`-`, and no operand).
    pub stdin: &'a mut dyn BufRead,
    /// Standard output: buffered here, written in large blocks (and after each line when
    /// `line_buffered`).
    pub stdout: &'a mut dyn Write,
    /// Standard error: each message is written with one call.
    pub stderr: &'a mut dyn Write,
    /// Write stdout line by line (a terminal: results appear as each file is done).
    pub line_buffered: bool,
    /// How the process was started: a closed stdin or stdout fails as it does for coreutils
    /// (`Bad file descriptor`), whatever `stdin`/`stdout` are; with `SIGPIPE` ignored a closed
    /// pipe is a write error.
    pub inherited: Inherited,
}

/// A descriptor that was closed when the process started: every read and write fails with
/// `EBADF`, as it does for a C program.
struct Closed;

fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

impl io::Read for Closed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(ebadf())
    }
}

impl BufRead for Closed {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Err(ebadf())
    }

    fn consume(&mut self, _: usize) {}
}

impl Write for Closed {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(ebadf())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs `sha1sum`/`md5sum`/`sha256sum` with the parsed command line; returns the exit status (0, 1, or
/// [`BROKEN_PIPE_STATUS`]).
pub fn main(sum: Sum, m: &Matches, io: Io<'_>) -> u8 {
    match Options::from_matches(sum, m) {
        Ok(options) => run(&options, &m.operands, io),
        Err(e) => {
            let program = format!("{} {}", crate::cli::flagsplit::PROGRAM.name, sum.command());
            let text = format!("{program}: {e}\nTry '{program} --help' for more information.\n");
            let _ = io.stderr.write_all(text.as_bytes());
            1
        }
    }
}

/// Hashes or checks `operands` (standard input when there are none).
pub fn run(options: &Options, operands: &[OsString], io: Io<'_>) -> u8 {
    let (mut closed_in, mut closed_out) = (Closed, Closed);
    let stdin: &mut dyn BufRead = if io.inherited.stdin_closed {
        &mut closed_in
    } else {
        io.stdin
    };
    let stdout: &mut dyn Write = if io.inherited.stdout_closed {
        &mut closed_out
    } else {
        io.stdout
    };
    let mut runner = Runner {
        o: options,
        out: Out {
            w: stdout,
            buf: Vec::with_capacity(OUT_BLOCK),
            error: None,
            broken: false,
            line_buffered: io.line_buffered,
            epipe_is_error: io.inherited.sigpipe_ignored,
        },
        stderr: io.stderr,
        stdin: Some(stdin),
        stdin_read: false,
        charset: options.charset,
        read_buf: Vec::new(),
        buffers: Default::default(),
        layout: Layout::default(),
    };
    let stdin_only = [OsString::from("-")];
    let operands = if operands.is_empty() {
        &stdin_only[..]
    } else {
        operands
    };
    let mut ok = true;
    for operand in operands {
        let name = operand.as_bytes();
        ok &= if options.check {
            runner.check(name)
        } else {
            runner.print(name)
        };
        if runner.out.broken {
            return BROKEN_PIPE_STATUS;
        }
    }
    if io.inherited.stdin_closed && runner.stdin_read {
        // coreutils closes stdin at the end when it read it, and reports that failing.
        runner.message(format_args!("standard input: {}", strerror(&ebadf())));
        ok = false;
    }
    runner.out.flush();
    if runner.out.broken {
        return BROKEN_PIPE_STATUS;
    }
    if let Some(e) = &runner.out.error {
        // coreutils 9.1 says just this (measured with stdout on /dev/full, or a pipe with
        // SIGPIPE ignored), without the reason, except when closing stdout fails too: for a
        // descriptor that is not open (`>&-`), "write error: Bad file descriptor".
        if e.raw_os_error() == Some(libc::EBADF) {
            let reason = strerror(e);
            runner.message(format_args!("write error: {reason}"));
        } else {
            runner.message(format_args!("write error"));
        }
        return 1;
    }
    u8::from(!ok)
}

/// stdout is written when this much is buffered (glibc's stdio buffer for a pipe or a file here).
const OUT_BLOCK: usize = 4096;

/// Buffered standard output that remembers the first error: a closed pipe stops the command,
/// any other error is reported at the end (coreutils reports it when closing stdout), the other
/// files still being processed.
struct Out<'a> {
    w: &'a mut dyn Write,
    buf: Vec<u8>,
    error: Option<io::Error>,
    broken: bool,
    line_buffered: bool,
    /// `EPIPE` is an ordinary write error (the parent ignored `SIGPIPE`), not the end.
    epipe_is_error: bool,
}

impl Out<'_> {
    /// After a complete line has been appended to `buf`.
    fn line_done(&mut self) {
        if self.line_buffered || self.buf.len() >= OUT_BLOCK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        if self.error.is_none() && !self.broken {
            let r = self.w.write_all(&self.buf).and_then(|()| self.w.flush());
            match r {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe && !self.epipe_is_error => {
                    self.broken = true;
                }
                Err(e) => self.error = Some(e),
            }
        }
        self.buf.clear();
    }
}

/// How hashing one named file ended.
enum Hashed {
    /// Its digest.
    Digest(hash::Digest),
    /// `--ignore-missing` and it does not exist.
    Missing,
    /// Reported on stderr already.
    Failed,
}

struct Runner<'a, 'o> {
    o: &'o Options,
    out: Out<'a>,
    stderr: &'a mut dyn Write,
    /// Taken while standard input is the check file being read.
    stdin: Option<&'a mut dyn BufRead>,
    /// Whether standard input was read (hashed or checked).
    stdin_read: bool,
    charset: Option<Charset>,
    read_buf: Vec<u8>,
    /// The reader thread's buffers for large files.
    buffers: super::file::Buffers,
    layout: Layout,
}

impl Runner<'_, '_> {
    /// `PROGRAM: text` on stderr, after what stdout has so far (so that `2>&1` keeps the order).
    fn message(&mut self, text: std::fmt::Arguments<'_>) {
        self.out.flush();
        let mut line = Vec::with_capacity(128);
        let _ = write!(line, "{}: {text}", self.o.program);
        line.push(b'\n');
        let _ = self.stderr.write_all(&line);
    }

    /// `PROGRAM: 'NAME': text` on stderr (`NAME` quoted as coreutils does).
    fn name_message(&mut self, name: &[u8], text: std::fmt::Arguments<'_>) {
        let charset = *self.charset.get_or_insert_with(Charset::from_env);
        let quoted = quote::quote(name, charset);
        let quoted = String::from_utf8_lossy(&quoted);
        // Non-UTF-8 bytes are always escaped by quote(), so nothing is lost here.
        self.message(format_args!("{quoted}: {text}"));
    }

    /// Hashes the file (or standard input for `-`), reporting failures.
    fn digest(&mut self, name: &[u8]) -> Hashed {
        let result = if name == b"-" {
            match self.stdin.take() {
                Some(stdin) => {
                    self.stdin_read = true;
                    let r =
                        hash::hash_reader_with(self.o.algorithm, &mut *stdin, &mut self.read_buf);
                    self.stdin = Some(stdin);
                    r
                }
                // Only while stdin is the check file, whose "-" lines are refused before.
                None => Err(hash::HashError::Io(io::Error::from(
                    io::ErrorKind::InvalidInput,
                ))),
            }
        } else {
            match File::open(OsStr::from_bytes(name)) {
                Ok(mut file) => super::file::hash_file(
                    self.o.algorithm,
                    &mut file,
                    &mut self.read_buf,
                    &mut self.buffers,
                ),
                Err(e) if self.o.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                    return Hashed::Missing;
                }
                Err(e) => Err(e.into()),
            }
        };
        match result {
            Ok(digest) => Hashed::Digest(digest),
            Err(hash::HashError::Io(e)) => {
                self.name_message(name, format_args!("{}", strerror(&e)));
                Hashed::Failed
            }
            Err(hash::HashError::Collision(c)) => {
                self.name_message(name, format_args!("{c}"));
                Hashed::Failed
            }
        }
    }

    /// Without `--check`: prints the line for one operand.
    fn print(&mut self, name: &[u8]) -> bool {
        match self.digest(name) {
            Hashed::Digest(d) => {
                let o = self.o;
                line::format_line(
                    &mut self.out.buf,
                    o.sum,
                    d.as_bytes(),
                    name,
                    o.style,
                    o.zero,
                );
                self.out.line_done();
                true
            }
            Hashed::Missing | Hashed::Failed => false,
        }
    }

    /// `--check` one check file (`-`: standard input); whether everything in it verified.
    fn check(&mut self, checkfile: &[u8]) -> bool {
        if checkfile == b"-" {
            let Some(stdin) = self.stdin.take() else {
                return false;
            };
            self.stdin_read = true;
            let ok = self.check_stream(&mut *stdin, b"standard input", true);
            self.stdin = Some(stdin);
            ok
        } else {
            match File::open(OsStr::from_bytes(checkfile)) {
                Ok(file) => {
                    let mut reader = BufReader::with_capacity(64 * 1024, file);
                    self.check_stream(&mut reader, checkfile, false)
                }
                Err(e) => {
                    self.name_message(checkfile, format_args!("{}", strerror(&e)));
                    false
                }
            }
        }
    }

    fn check_stream(&mut self, reader: &mut dyn BufRead, display: &[u8], is_stdin: bool) -> bool {
        let o = self.o;
        let mut misformatted: u64 = 0;
        let mut mismatched: u64 = 0;
        let mut unreadable: u64 = 0;
        let mut properly_formatted = false;
        let mut matched = false;
        let mut raw = Vec::new();
        let mut line_number: u64 = 0;
        let mut read_error = false;
        loop {
            line_number += 1;
            raw.clear();
            match reader.read_until(b'\n', &mut raw) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => {
                    read_error = true;
                    break;
                }
            }
            let Some(text) = line::strip_line(&raw) else {
                continue;
            };
            let parsed = line::parse_check_line(text, o.sum, &mut self.layout)
                .filter(|l| !(is_stdin && l.name.as_ref() == b"-"));
            let Some(entry) = parsed else {
                misformatted += 1;
                if o.warn {
                    self.name_message(
                        display,
                        format_args!(
                            "{line_number}: improperly formatted {} checksum line",
                            o.sum.tag()
                        ),
                    );
                }
                continue;
            };
            properly_formatted = true;
            let name: &[u8] = &entry.name;
            let verdict: &[u8] = match self.digest(name) {
                Hashed::Failed => {
                    unreadable += 1;
                    b"FAILED open or read"
                }
                Hashed::Missing => continue,
                Hashed::Digest(d) if entry.matches(d.as_bytes()) => {
                    matched = true;
                    if o.quiet || o.status {
                        continue;
                    }
                    b"OK"
                }
                Hashed::Digest(_) => {
                    mismatched += 1;
                    b"FAILED"
                }
            };
            if o.status {
                continue;
            }
            // Only a newline makes a result line escaped (coreutils 9.1).
            let escape = name.contains(&b'\n');
            let buf = &mut self.out.buf;
            if escape {
                buf.push(b'\\');
            }
            line::push_name(buf, name, escape);
            buf.extend_from_slice(b": ");
            buf.extend_from_slice(verdict);
            buf.push(b'\n');
            self.out.line_done();
            if self.out.broken {
                return false;
            }
        }
        if read_error {
            self.name_message(display, format_args!("read error"));
            return false;
        }
        if !properly_formatted {
            self.name_message(
                display,
                format_args!("no properly formatted checksum lines found"),
            );
        } else if !o.status {
            let plural = |n: u64| {
                if n == 1 {
                    ("", "is", "")
                } else {
                    ("s", "are", "s")
                }
            };
            if misformatted != 0 {
                let (s, verb, _) = plural(misformatted);
                self.message(format_args!(
                    "WARNING: {misformatted} line{s} {verb} improperly formatted"
                ));
            }
            if unreadable != 0 {
                let (s, _, _) = plural(unreadable);
                self.message(format_args!(
                    "WARNING: {unreadable} listed file{s} could not be read"
                ));
            }
            if mismatched != 0 {
                let (_, _, s) = plural(mismatched);
                self.message(format_args!(
                    "WARNING: {mismatched} computed checksum{s} did NOT match"
                ));
            }
            if o.ignore_missing && !matched {
                self.name_message(display, format_args!("no file was verified"));
            }
        }
        properly_formatted
            && matched
            && mismatched == 0
            && unreadable == 0
            && (!o.strict || misformatted == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flagsplit::{MD5SUM, SHA1SUM, SHA256SUM};

    struct Run {
        status: u8,
        stdout: Vec<u8>,
        stderr: String,
    }

    fn run_cmd(sum: Sum, args: &[&str], stdin: &[u8]) -> Run {
        let cmd = match sum {
            Sum::Sha1 => &SHA1SUM,
            Sum::Md5 => &MD5SUM,
            Sum::Sha256 => &SHA256SUM,
        };
        let m = cmd.parse(args.iter().copied()).unwrap();
        let mut input = stdin;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let status = main(
            sum,
            &m,
            Io {
                stdin: &mut input,
                stdout: &mut stdout,
                stderr: &mut stderr,
                line_buffered: false,
                inherited: Inherited::default(),
            },
        );
        Run {
            status,
            stdout,
            stderr: String::from_utf8(stderr).unwrap(),
        }
    }

    #[test]
    fn stdin_and_usage_errors() {
        let r = run_cmd(Sum::Md5, &[], b"abc");
        assert_eq!(r.stdout, b"900150983cd24fb0d6963f7d28e17f72  -\n");
        assert_eq!(r.status, 0);
        let r = run_cmd(Sum::Sha1, &["--tag", "-"], b"abc");
        assert_eq!(
            r.stdout,
            b"SHA1 (-) = a9993e364706816aba3e25717850c26c9cd0d89d\n"
        );
        let r = run_cmd(Sum::Sha1, &["--quiet"], b"");
        assert_eq!(r.status, 1);
        assert_eq!(
            r.stderr,
            "flagsplit sha1sum: the --quiet option is meaningful only when verifying checksums\n\
             Try 'flagsplit sha1sum --help' for more information.\n"
        );
        assert!(r.stdout.is_empty());
        let r = run_cmd(Sum::Md5, &["--status", "--warn"], b"");
        assert!(
            r.stderr.starts_with("flagsplit md5sum: the --warn option"),
            "{}",
            r.stderr
        );
        let r = run_cmd(Sum::Md5, &["-t", "--tag"], b"");
        assert_eq!(r.status, 0);
        let r = run_cmd(Sum::Md5, &["--tag", "-t"], b"");
        assert!(r.stderr.contains("--tag does not support --text mode"));
    }

    #[test]
    fn check_from_stdin() {
        let input = b"900150983cd24fb0d6963f7d28e17f72  -\n";
        let r = run_cmd(Sum::Md5, &["-c"], input);
        // "-" in a check file read from stdin is an improperly formatted line.
        assert_eq!(r.status, 1);
        assert_eq!(
            r.stderr,
            "flagsplit md5sum: 'standard input': no properly formatted checksum lines found\n"
        );
        let r = run_cmd(Sum::Md5, &["-c", "--warn"], b"junk\n");
        assert_eq!(
            r.stderr,
            "flagsplit md5sum: 'standard input': 1: improperly formatted MD5 checksum line\n\
             flagsplit md5sum: 'standard input': no properly formatted checksum lines found\n"
        );
    }

    #[test]
    fn broken_pipe_stops_quietly() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let m = SHA1SUM.parse(["-", "-"]).unwrap();
        let mut stderr = Vec::new();
        let status = main(
            Sum::Sha1,
            &m,
            Io {
                stdin: &mut &b""[..],
                stdout: &mut Closed,
                stderr: &mut stderr,
                line_buffered: true,
                inherited: Inherited::default(),
            },
        );
        assert_eq!(status, BROKEN_PIPE_STATUS);
        assert!(stderr.is_empty());
    }
}

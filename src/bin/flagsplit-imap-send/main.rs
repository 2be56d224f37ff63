//! `flagsplit-imap-send` (also run as `flagsplit imap-send`): stores a patch series from standard
//! input in an IMAP folder, like `git imap-send`. It is the only flagsplit binary that links TLS,
//! and only the provider the build selected ([`providers`]).
//!
//! It does not link the `flagsplit` library: its command line and its build-options report come
//! from `flagsplit-cli` and `flagsplit-spec`, and it names no `flagsplit::` item. The library also
//! holds the hashing commands, which name the selected hashing providers; GNU ld puts a library in
//! NEEDED for any object file it pulls in that mentions it, and which of the library's object files
//! hold what follows rustc's code partitioning, so linking the library made the sender's NEEDED
//! depend on it (libcrypto with `--features openssl-sha1`, measured).

mod providers;

use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use flagsplit_cli::build_options::{self, RuntimeFacts};
use flagsplit_cli::cli::imap_send::IMAP_SEND;
use flagsplit_cli::cli::{self, Matches};
use flagsplit_cli::json;
use flagsplit_imap::config::Settings;
use flagsplit_imap::mbox::{self, Format};
use flagsplit_imap::response::printable;
use flagsplit_imap::rfc2047;
use flagsplit_imap::send::{self, CredentialSource, Job, Outcome, Report, Ui};
use flagsplit_imap::session::{NoTrace, Trace};
use flagsplit_info::BuildInfo;
use flagsplit_spec::IMAP_SEND as SENDER;

const PROGRAM: &str = "flagsplit";
const NAME: &str = "flagsplit-imap-send";

/// The build-options table the root build script generated (the library's
/// `flagsplit::build_options::BUILD_INFO`, which the sender does not link).
const BUILD_INFO: BuildInfo = include!(concat!(env!("OUT_DIR"), "/build_info.rs"));

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    args.next();
    let matches = match IMAP_SEND.parse(args) {
        Ok(m) => m,
        Err(e) => return ExitCode::from(e.report(PROGRAM)),
    };
    match run(&matches) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{NAME}: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// git's verbosity (`OPT__VERBOSITY`): -v counts up (from 1 after a -q), -q down (from -1 after a
/// -v), --no-verbose and --no-quiet set it back to 0. Below 0 is quiet; above, how verbose.
fn verbosity(m: &Matches) -> i64 {
    m.events().fold(0, |v, event| match event {
        ("verbose" | "quiet", false) => 0,
        ("verbose", true) => v.max(0) + 1,
        ("quiet", true) => v.min(0) - 1,
        _ => v,
    })
}

fn run(m: &Matches) -> Result<ExitCode> {
    if m.flag("help") {
        print(&IMAP_SEND.help(PROGRAM))?;
        return Ok(ExitCode::SUCCESS);
    }
    let operands: Vec<String> = m
        .operands
        .iter()
        .map(|o| o.to_string_lossy().into_owned())
        .collect();
    match operands.as_slice() {
        [] => {}
        [v] if v == "version" => return version(m.flag("build-options"), m.flag("json")),
        // As git imap-send: an operand is a usage error (the series is read from standard
        // input), the usage on standard error and 129.
        _ => {
            eprint!("{}", IMAP_SEND.help(PROGRAM));
            return Ok(ExitCode::from(cli::git::USAGE_STATUS));
        }
    }
    if m.flag("build-options") || m.flag("version") {
        return version(m.flag("build-options"), m.flag("json"));
    }
    // flagsplit has one IMAP implementation, git's own kind (git's --no-curl): --curl gets the
    // warning of a git built without libcurl's, and the same implementation.
    if m.flag("curl") {
        eprintln!("{NAME}: warning: --curl not supported in this build");
    }

    let mut settings = Settings::from_git_config()?;
    for c in m.values("config") {
        let c = c.to_str().context("a -c argument is not valid UTF-8")?;
        settings.apply_override(c)?;
    }
    if let Some(folder) = m.value("folder") {
        settings.folder = Some(
            folder
                .to_str()
                .context("the folder name is not valid UTF-8")?
                .to_string(),
        );
    }
    let verbosity = verbosity(m);
    let quiet = verbosity < 0;
    let ui = Terminal {
        quiet,
        verbose: usize::try_from(verbosity).unwrap_or(0),
        progress: !quiet && !m.flag("no-progress") && io::stderr().is_terminal(),
        progress_shown: AtomicBool::new(false),
        trace: StderrTrace,
    };
    for key in &settings.unknown_keys {
        ui.warn(&format!(
            "unknown configuration key {key}: ignored (see '{PROGRAM} imap-send --help')"
        ));
    }
    let job = Job {
        settings: &settings,
        tls: providers::tls(),
        dry_run: m.flag("dry-run"),
        allow_duplicates: m.flag("allow-duplicates"),
        credentials: CredentialSource::GitThenTerminal,
        ui: &ui,
    };

    if m.flag("list") {
        let folders = send::list::<providers::Md5>(&job)?;
        let mut out = String::new();
        // The library escapes control characters in the names and attributes.
        for (name, attributes) in folders {
            if ui.verbose > 0 && !attributes.is_empty() {
                out.push_str(&format!("{name}\t{}\n", attributes.join(" ")));
            } else {
                out.push_str(&name);
                out.push('\n');
            }
        }
        print(&out)?;
        return Ok(ExitCode::SUCCESS);
    }

    let mut input = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut input)
        .context("cannot read the series from standard input")?;
    let format = if m.flag("mboxrd") {
        Format::Mboxrd
    } else {
        Format::Mboxo
    };
    let messages = mbox::split(&input, format).context("nothing was stored")?;
    drop(input);
    let stored: Vec<Vec<u8>> = messages
        .iter()
        .map(|msg| {
            if settings.preformatted_html {
                mbox::to_crlf(&mbox::wrap_in_html(&msg.raw))
            } else {
                msg.to_crlf()
            }
        })
        .collect();
    ui.info(&format!(
        "sending {} message{}",
        messages.len(),
        if messages.len() == 1 { "" } else { "s" }
    ));
    let json = m.flag("json");
    match send::send::<providers::Md5>(&job, &messages, &stored) {
        Ok(report) => {
            ui.end_progress();
            print_outcomes(&ui, &messages, &report, false);
            ui.summary(&report, job.dry_run);
            if json {
                print(&json_report(&messages, &report, job.dry_run, None))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(failure) => {
            ui.end_progress();
            eprintln!("{NAME}: error: {}", failure.error);
            if let Some(report) = &failure.report {
                if let Some(e) = &failure.recovery_error {
                    eprintln!("{NAME}: could not look the messages up after the failure: {e}");
                }
                print_outcomes(&ui, &messages, report, true);
                ui.summary(report, false);
            } else {
                eprintln!("{NAME}: nothing was stored");
            }
            if json {
                let nothing = Report {
                    folder: settings.folder.clone().unwrap_or_default(),
                    outcomes: vec![Outcome::NotStored; messages.len()],
                    created: false,
                };
                let report = failure.report.as_ref().unwrap_or(&nothing);
                let error = failure.error.to_string();
                print(&json_report(&messages, report, false, Some(&error)))?;
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// What happened to a message, in the report's words.
fn status(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Stored(_) => "stored",
        Outcome::Duplicate(_) => "skipped",
        Outcome::WouldStore => "would be stored",
        Outcome::NotStored => "not stored",
        Outcome::Unknown => "unknown",
    }
}

/// A message's subject for the reports: RFC 2047 decoded, control characters escaped.
fn subject(msg: &mbox::Message) -> String {
    printable(rfc2047::decode(&msg.subject).as_bytes(), usize::MAX)
}

/// The per-message report as one JSON document (`--json`).
fn json_report(
    messages: &[mbox::Message],
    report: &Report,
    dry_run: bool,
    error: Option<&str>,
) -> String {
    let text = json::opt_string;
    let mut out = String::from("{\n");
    out.push_str(&format!(
        "  \"folder\": {},\n",
        json::string(&report.folder)
    ));
    out.push_str(&format!("  \"dry_run\": {dry_run},\n"));
    out.push_str(&format!("  \"created\": {},\n", report.created));
    let total = report.outcomes.len();
    let (stored, skipped, unknown) = (report.stored(), report.duplicates(), report.unknown());
    let would = report
        .outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::WouldStore))
        .count();
    out.push_str(&format!(
        "  \"total\": {total},\n  \"stored\": {stored},\n  \"skipped\": {skipped},\n  \"would_be_stored\": {would},\n  \"not_stored\": {},\n  \"unknown\": {unknown},\n",
        total - stored - skipped - unknown - would
    ));
    out.push_str(&format!("  \"error\": {},\n", text(error)));
    out.push_str("  \"messages\": [");
    for (i, (msg, outcome)) in messages.iter().zip(&report.outcomes).enumerate() {
        let uid = match outcome {
            Outcome::Stored(Some(uid)) | Outcome::Duplicate(uid) => uid.to_string(),
            _ => "null".into(),
        };
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(&format!(
            "    {{\"index\": {}, \"subject\": {}, \"message_id\": {}, \"date\": {}, \"status\": {}, \"uid\": {uid}}}",
            i + 1,
            json::string(&rfc2047::decode(&msg.subject)),
            text(msg.message_id.as_deref()),
            text(if msg.message_id.is_some() { None } else { msg.date.as_deref() }),
            json::string(status(outcome)),
        ));
    }
    out.push_str(if messages.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

fn print_outcomes(ui: &Terminal, messages: &[mbox::Message], report: &Report, all: bool) {
    let n = messages.len();
    for (i, (msg, outcome)) in messages.iter().zip(&report.outcomes).enumerate() {
        let state = match outcome {
            Outcome::Stored(Some(uid)) => format!("stored (UID {uid})"),
            Outcome::Stored(None) => "stored".to_string(),
            Outcome::Duplicate(uid) => format!("skipped: identical to UID {uid}, already there"),
            Outcome::WouldStore => "would be stored".to_string(),
            Outcome::NotStored => "NOT stored".to_string(),
            Outcome::Unknown => "UNKNOWN (may or may not be stored)".to_string(),
        };
        let show =
            all || ui.verbose > 0 || matches!(outcome, Outcome::Duplicate(_) | Outcome::WouldStore);
        if show && (all || !ui.quiet) {
            eprintln!("  {}/{n} {state}: {}", i + 1, subject(msg));
        }
    }
}

fn version(build_options: bool, json: bool) -> Result<ExitCode> {
    if json && !build_options {
        bail!("--json goes with --build-options");
    }
    if !build_options {
        print(&format!("{NAME} version {}\n", env!("CARGO_PKG_VERSION")))?;
        return Ok(ExitCode::SUCCESS);
    }
    let facts = RuntimeFacts {
        openssl: providers::openssl_version(),
        tls: providers::tls().map(|t| t.version()),
        zlib: None,
    };
    if json {
        print(&build_options::json(&BUILD_INFO, SENDER, &facts))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Vec::new();
    build_options::write(&mut out, &BUILD_INFO, SENDER, &facts)?;
    print(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::SUCCESS)
}

fn print(text: &str) -> Result<()> {
    match io::stdout().write_all(text.as_bytes()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e).context("write error"),
        _ => Ok(()),
    }
}

struct StderrTrace;

impl Trace for StderrTrace {
    fn line(&self, direction: char, text: &str) {
        eprintln!("{NAME}: {direction}: {text}");
    }
}

struct Terminal {
    quiet: bool,
    verbose: usize,
    progress: bool,
    progress_shown: AtomicBool,
    trace: StderrTrace,
}

impl Terminal {
    fn end_progress(&self) {
        if self.progress_shown.swap(false, Ordering::Relaxed) {
            eprintln!();
        }
    }

    fn summary(&self, report: &Report, dry_run: bool) {
        let total = report.outcomes.len();
        let stored = report.stored();
        let dup = report.duplicates();
        let unknown = report.unknown();
        let not = total - stored - dup - unknown;
        let line = if dry_run {
            format!(
                "dry run: {} of {total} message{} would be stored in '{}', {dup} already there",
                total - dup,
                if total == 1 { "" } else { "s" },
                printable(report.folder.as_bytes(), usize::MAX)
            )
        } else {
            let mut s = format!(
                "{stored} of {total} message{} stored in '{}'",
                if total == 1 { "" } else { "s" },
                printable(report.folder.as_bytes(), usize::MAX)
            );
            if dup > 0 {
                s.push_str(&format!(", {dup} skipped (already there)"));
            }
            if not > 0 {
                s.push_str(&format!(", {not} not stored"));
            }
            if unknown > 0 {
                s.push_str(&format!(", {unknown} unknown"));
            }
            s
        };
        if !self.quiet || not > 0 || unknown > 0 {
            eprintln!("{NAME}: {line}");
        }
    }
}

impl Ui for Terminal {
    fn info(&self, message: &str) {
        if !self.quiet {
            self.end_progress();
            eprintln!("{NAME}: {message}");
        }
    }

    fn warn(&self, message: &str) {
        self.end_progress();
        eprintln!("{NAME}: warning: {message}");
    }

    fn progress(&self, done: usize, total: usize) {
        if self.progress && total >= 10 {
            eprint!(
                "\r{NAME}: sending: {}% ({done}/{total})",
                done * 100 / total
            );
            self.progress_shown.store(done < total, Ordering::Relaxed);
            if done == total {
                eprintln!();
            }
        }
    }

    fn trace(&self) -> &dyn Trace {
        if self.verbose >= 2 {
            &self.trace
        } else {
            &NoTrace
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbosity_is_gits() {
        for (args, want) in [
            (&[][..], 0),
            (&["-v", "-v"], 2),
            (&["-vv", "-q"], -1),
            (&["-q", "-q"], -2),
            (&["-q", "-v"], 1),
            (&["-vv", "--no-quiet"], 0),
            (&["-q", "--no-verbose", "-v"], 1),
            (&["--verb", "--q", "--qu"], -2),
        ] {
            let m = IMAP_SEND.parse(args.iter().copied()).expect("parses");
            assert_eq!(verbosity(&m), want, "{args:?}");
        }
    }
}

//! `flagsplit fsck` against `git fsck` as the oracle, on a corpus of repositories made with git
//! (every storage shape: loose, packed with OFS and REF deltas, idx v1, several packs, a
//! multi-pack-index, bitmaps, commit-graphs, worktrees, clones that are shallow, partial, shared
//! or bare, SHA-256) and of corruptions made from them by editing their files (bit flips and
//! truncations at offsets computed from the pack, idx, `.rev`, commit-graph and midx formats,
//! malformed objects, missing objects, broken refs and reflogs), plus packs written byte by byte
//! (hostile deltas, cycles, zlib bombs).
//!
//! For each case both programs run with the same options in the same directory, and their exit
//! status and their stdout and stderr lines, in any order and each as many times as it is printed
//! (a line of [`KNOWN_COUNT_DIFFERENCES`] would be compared as present or absent; none is), are compared
//! (flagsplit's own `notice: not checked: PATH (WHAT)` lines are left out and listed in the
//! report). git's results
//! are recorded in `tests/fsck-corpus/` (one file per case): `FLAGSPLIT_BLESS=1 cargo test --test
//! integration fsck::` rewrites them. With git 2.47 installed, a normal run also checks that git
//! still gives the recorded result; with another git, flagsplit is compared with the recorded
//! results only (and the report says so).
//!
//! A few cases are too hostile for git itself (it runs out of memory or loops): for those the
//! record says only that flagsplit must fail within bounded time and memory, with an `error:` or
//! `fatal:` line naming the pack and the offset of the entry, and without a panic.
//!
//! Variables: `FLAGSPLIT_FSCK_CASES=SUBSTRING` runs the cases whose names contain it;
//! `FLAGSPLIT_FSCK_SUBJECT=git` compares git with itself (to check the harness), and
//! `FLAGSPLIT_FSCK_SUBJECT=PATH` another flagsplit build (to see which cases a change fixed);
//! `FLAGSPLIT_FSCK_KEEP=1` keeps the built repositories and prints where they are;
//! `FLAGSPLIT_FSCK_ALL_CORES_ONLY=1` runs each case on all cores only (not also with `--threads 1`
//! and `--low-memory`), as `scripts/test.sh --quick` does.

mod build;
mod classes;
mod corrupt;
mod lost_found;
mod packgen;
mod progress;
mod reftable;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::support;

const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

/// The prefix of flagsplit's own lines, which git never prints and which are not compared.
const NOT_CHECKED: &str = "notice: not checked: ";

/// Cases where flagsplit's answer is known to differ from git's, and why (none now: a case that
/// cannot be made to agree goes here with the reason, and is reported on every run).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// Lines whose number of repetitions flagsplit does not give (a line containing one of these
/// would be compared as present or absent; every other line must come as many times as git prints
/// it), and why. None now: every line, a damaged pack's included, comes as often as git prints it;
/// a text that cannot be made to agree goes here with the reason, and is reported on every run.
const KNOWN_COUNT_DIFFERENCES: &[(&str, &str)] = &[];

/// `o` with each line of [`KNOWN_COUNT_DIFFERENCES`] once, for comparing counts.
fn counted(o: &Outcome) -> Outcome {
    let once = |v: &[String]| {
        let mut out: Vec<String> = Vec::new();
        for l in v {
            let known = KNOWN_COUNT_DIFFERENCES.iter().any(|(p, _)| l.contains(p));
            if !known || out.last() != Some(l) {
                out.push(l.clone());
            }
        }
        out
    };
    Outcome {
        status: o.status.clone(),
        stdout: once(&o.stdout),
        stderr: once(&o.stderr),
    }
}

/// What a case expects.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    /// git's result, recorded.
    Git,
    /// git cannot be run on it: flagsplit must fail in bounded time with an `error:` or `fatal:`
    /// line naming `pack` (relative to the root, written `$ROOT/...`) and one of `offsets`.
    Bounded { pack: String, offsets: Vec<u64> },
}

/// One run of `fsck` to compare.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// The recorded file's name, without `.expected`.
    pub name: String,
    /// The working directory, relative to the root.
    pub cwd: String,
    /// Extra environment; `$ROOT` in a value is the root.
    pub env: Vec<(String, String)>,
    /// `fsck`'s arguments.
    pub args: Vec<String>,
    pub expect: Expect,
}

/// The built repositories and the cases run on them.
pub(crate) struct World {
    pub root: PathBuf,
    pub cases: Vec<Case>,
    tmp: Option<tempfile::TempDir>,
}

static WORLD: OnceLock<World> = OnceLock::new();

/// The repositories, built once per test binary run (git must run).
fn world() -> &'static World {
    WORLD.get_or_init(|| {
        let tmp = tempfile::Builder::new()
            .prefix("fsck-corpus")
            .tempdir()
            .expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonicalize");
        let started = Instant::now();
        let mut b = build::Builder::new(&root);
        build::repositories(&mut b);
        corrupt::corruptions(&mut b);
        packgen::hostile_packs(&mut b);
        reftable::reftable_cases(&mut b);
        classes::classes(&mut b);
        let cases = b.into_cases();
        let keep = std::env::var_os("FLAGSPLIT_FSCK_KEEP").is_some();
        let _ = writeln_stderr(&format!(
            "fsck corpus: {} cases on repositories built in {:.1}s{}",
            cases.len(),
            started.elapsed().as_secs_f64(),
            if keep {
                format!(", kept in {}", root.display())
            } else {
                String::new()
            }
        ));
        let tmp = if keep {
            let _ = tmp.keep();
            None
        } else {
            // A static is never dropped, so the directory would outlive the run: it is removed
            // when the process exits.
            // SAFETY: `remove_world` cannot unwind into C (a panic in an `extern "C"` function
            // aborts, and it ignores every error), and after `main` returns it touches only
            // `WORLD` through `OnceLock::get` (which copes with a `WORLD` not set yet) and the
            // file system, no standard stream or thread-local.
            if unsafe { libc::atexit(remove_world) } != 0 {
                let _ = writeln_stderr(&format!(
                    "fsck corpus: cannot remove {} at exit; remove it by hand",
                    root.display()
                ));
            }
            Some(tmp)
        };
        World { root, cases, tmp }
    })
}

/// Removes the corpus's repositories (registered with atexit by [`world`]).
extern "C" fn remove_world() {
    if let Some(dir) = WORLD.get().and_then(|w| w.tmp.as_ref()) {
        let _ = fs::remove_dir_all(dir.path());
    }
}

fn writeln_stderr(s: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr(), "{s}")
}

/// The environment every program runs in: nothing inherited but `PATH`, `HOME` in the root, no
/// system config, the C locale, fixed identities and dates, no repository above the root.
pub(crate) fn command(root: &Path, program: &str) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", root.join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .env("TZ", "UTC")
        .env("GIT_CEILING_DIRECTORIES", root)
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .env("GIT_AUTHOR_DATE", "1700000000 +0000")
        .env("GIT_COMMITTER_DATE", "1700000000 +0000");
    c
}

/// What one run gave, in the recorded form: lines sorted, the root written `$ROOT`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    status: String,
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// A run's raw result.
struct Ran {
    status: String,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `program fsck ARGS` for `case`, killed after `limit`; with `memory_kib`, under
/// `ulimit -v`.
fn run_fsck(
    root: &Path,
    program: &str,
    case: &Case,
    limit: Duration,
    memory_kib: Option<u64>,
) -> Ran {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let (out_path, err_path) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let mut c = match memory_kib {
        Some(kib) => {
            let mut c = command(root, "sh");
            c.arg("-c")
                .arg(format!("ulimit -v {kib} && exec \"$@\""))
                .arg("sh")
                .arg(program);
            c
        }
        None => command(root, program),
    };
    c.arg("fsck")
        .args(&case.args)
        .current_dir(root.join(&case.cwd));
    for (k, v) in &case.env {
        c.env(k, v.replace("$ROOT", &root.to_string_lossy()));
    }
    c.stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).expect("out"))
        .stderr(fs::File::create(&err_path).expect("err"));
    let started = Instant::now();
    let mut child = c.spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                (Some(code), _) => code.to_string(),
                (None, Some(sig)) => format!("signal {sig}"),
                (None, None) => "unknown".to_string(),
            };
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break format!("timeout after {}s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    let read = |p: &Path| String::from_utf8_lossy(&fs::read(p).unwrap_or_default()).into_owned();
    Ran {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
        elapsed,
    }
}

fn lines(text: &str, root: &Path) -> Vec<String> {
    let root = root.to_string_lossy();
    let mut v: Vec<String> = text.lines().map(|l| l.replace(&*root, "$ROOT")).collect();
    v.sort();
    v
}

/// The outcome to compare, and flagsplit's own `notice: not checked:` lines.
fn outcome(ran: &Ran, root: &Path) -> (Outcome, Vec<String>) {
    let (notices, stderr): (Vec<String>, Vec<String>) = lines(&ran.stderr, root)
        .into_iter()
        .partition(|l| l.starts_with(NOT_CHECKED));
    (
        Outcome {
            status: ran.status.clone(),
            stdout: lines(&ran.stdout, root),
            stderr,
        },
        notices,
    )
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fsck-corpus")
}

/// The command line of a case, for reports.
fn shown(case: &Case, program: &str) -> String {
    let env: String = case.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    format!(
        "cd $ROOT/{} && {env}{program} fsck {}",
        case.cwd,
        case.args.join(" ")
    )
}

/// The header every record starts with.
fn header(case: &Case) -> String {
    let mut s = format!("cwd {}\n", case.cwd);
    for (k, v) in &case.env {
        let _ = writeln!(s, "env {k}={v}");
    }
    let _ = writeln!(s, "args {}", case.args.join(" "));
    s
}

fn record(case: &Case, o: &Outcome) -> String {
    let mut s = header(case);
    let _ = writeln!(s, "status {}", o.status);
    let _ = writeln!(s, "stdout {}", o.stdout.len());
    for l in &o.stdout {
        let _ = writeln!(s, "{l}");
    }
    let _ = writeln!(s, "stderr {}", o.stderr.len());
    for l in &o.stderr {
        let _ = writeln!(s, "{l}");
    }
    s
}

fn bounded_record(case: &Case, pack: &str, offsets: &[u64]) -> String {
    let mut s = header(case);
    let offsets: Vec<String> = offsets.iter().map(u64::to_string).collect();
    let _ = writeln!(
        s,
        "bounded: git is not run; fsck must fail in bounded time, naming the pack and an offset"
    );
    let _ = writeln!(s, "pack $ROOT/{pack}");
    let _ = writeln!(s, "offsets {}", offsets.join(" "));
    s
}

/// Parses a record written by [`record`] (after its header).
fn parse_record(text: &str) -> Option<Outcome> {
    let mut it = text.lines();
    let mut status = None;
    for l in it.by_ref() {
        if let Some(s) = l.strip_prefix("status ") {
            status = Some(s.to_string());
            break;
        }
    }
    let mut take = |what: &str| -> Option<Vec<String>> {
        let n: usize = it.next()?.strip_prefix(what)?.parse().ok()?;
        (0..n).map(|_| it.next().map(str::to_string)).collect()
    };
    let stdout = take("stdout ")?;
    let stderr = take("stderr ")?;
    Some(Outcome {
        status: status?,
        stdout,
        stderr,
    })
}

/// Lines only in `a` (`-`) and only in `b` (`+`); with `exact`, also each line that comes a
/// different number of times (`N x/M x`: git prints some lines more than once, and so must
/// flagsplit).
fn diff(what: &str, a: &[String], b: &[String], exact: bool) -> String {
    let (sa, sb): (BTreeSet<&String>, BTreeSet<&String>) = (a.iter().collect(), b.iter().collect());
    let mut s = String::new();
    for l in sa.difference(&sb) {
        let _ = writeln!(s, "  {what} - {l}");
    }
    for l in sb.difference(&sa) {
        let _ = writeln!(s, "  {what} + {l}");
    }
    if exact && s.is_empty() && a != b {
        let count = |v: &[String], l: &String| v.iter().filter(|x| *x == l).count();
        for l in &sa {
            let (n, m) = (count(a, l), count(b, l));
            if n != m {
                let _ = writeln!(s, "  {what} {n}x/{m}x {l}");
            }
        }
    }
    s
}

/// A status with the bits git's fsck ORs into it named (builtin/fsck.c's `ERROR_*`), for
/// reports: `14 (reachable pack refs)`.
fn status_bits(status: &str) -> String {
    const BITS: [&str; 8] = [
        "object",
        "reachable",
        "pack",
        "refs",
        "commit-graph",
        "multi-pack-index",
        "pack-rev-index",
        "bitmap",
    ];
    match status.parse::<u32>() {
        Ok(n) if n > 0 && n < 256 && n != 128 => {
            let names: Vec<&str> = BITS
                .iter()
                .enumerate()
                .filter(|(i, _)| n & (1 << i) != 0)
                .map(|(_, name)| *name)
                .collect();
            format!("{status} ({})", names.join(" "))
        }
        _ => status.to_string(),
    }
}

fn explain(expected: &Outcome, got: &Outcome, exact: bool) -> String {
    let mut s = String::new();
    if expected.status != got.status {
        let _ = writeln!(
            s,
            "  status - {}\n  status + {}",
            status_bits(&expected.status),
            status_bits(&got.status)
        );
    }
    s.push_str(&diff("stdout", &expected.stdout, &got.stdout, exact));
    s.push_str(&diff("stderr", &expected.stderr, &got.stderr, exact));
    s
}

/// git's version, when git runs.
fn git_version() -> Option<String> {
    let out = Command::new("git").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.trim().strip_prefix("git version ")?.to_string())
}

/// Whether `program` has an `fsck` command.
fn has_fsck(program: &str) -> bool {
    let root = Path::new("/");
    let out = command(root, program)
        .args(["fsck", "-h"])
        .current_dir(root)
        .output();
    out.is_ok_and(|o| !String::from_utf8_lossy(&o.stderr).contains("is not a flagsplit command"))
}

/// The program under test: flagsplit when it has `fsck`, git with `FLAGSPLIT_FSCK_SUBJECT=git`,
/// another flagsplit with `FLAGSPLIT_FSCK_SUBJECT=PATH`.
fn subject() -> Option<String> {
    match std::env::var("FLAGSPLIT_FSCK_SUBJECT").ok().as_deref() {
        Some("git") => Some("git".to_string()),
        Some(path) if !path.is_empty() => Some(path.to_string()),
        _ if has_fsck(FLAGSPLIT) => Some(FLAGSPLIT.to_string()),
        _ => None,
    }
}

/// Checks a bounded case's run: non-zero, in time, an `error:`/`fatal:` line with the pack's
/// path and an offset, no panic.
fn check_bounded(
    root: &Path,
    ran: &Ran,
    case: &Case,
    pack: &str,
    offsets: &[u64],
) -> Result<(), String> {
    let stderr = lines(&ran.stderr, root);
    // Absolute, or relative to the working directory (as git names packs).
    let relative = pack
        .strip_prefix(&format!("{}/", case.cwd))
        .unwrap_or(pack)
        .to_string();
    let pack = format!("$ROOT/{pack}");
    let mut problems = Vec::new();
    if ran.status == "0" || ran.status.starts_with("timeout") || ran.status.starts_with("signal") {
        problems.push(format!("status {} (must be a non-zero exit)", ran.status));
    }
    if stderr.iter().any(|l| l.contains("panicked")) {
        problems.push("a panic".to_string());
    }
    let names = |l: &String| {
        (l.starts_with("error: ") || l.starts_with("fatal: "))
            && (l.contains(&pack) || l.contains(&relative))
            && offsets.iter().any(|o| {
                l.split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == o.to_string() || w == format!("0x{o:x}") || w == format!("{o:x}"))
            })
    };
    if !stderr.iter().any(names) {
        problems.push(format!(
            "no error:/fatal: line naming {pack} (or {relative}) and one of the offsets {offsets:?}"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "  {} ({:.1}s)\n  stderr:\n{}",
            problems.join("; "),
            ran.elapsed.as_secs_f64(),
            stderr
                .iter()
                .map(|l| format!("    {l}\n"))
                .collect::<String>()
        ))
    }
}

/// How a case went.
enum Verdict {
    Pass,
    Fail(String),
    /// The recorded result is no longer git's (only this, flagsplit aside).
    Stale(String),
}

struct Settings {
    bless: bool,
    live: bool,
    subject: Option<String>,
}

/// The runs of a case: flagsplit checks packs on every core by default; `--threads 1` must
/// agree, and so must the check without delta trees (`--low-memory`).
///
/// `FLAGSPLIT_FSCK_ALL_CORES_ONLY=1` (the test command's quick tier) runs the first alone.
fn variants(case: &Case) -> Vec<(Case, &'static str)> {
    let mut one_thread = case.clone();
    one_thread
        .args
        .extend(["--threads".to_string(), "1".to_string()]);
    let mut low_memory = case.clone();
    low_memory.args.push("--low-memory".to_string());
    let mut runs = vec![
        (case.clone(), ""),
        (one_thread, " (--threads 1)"),
        (low_memory, " (--low-memory)"),
    ];
    if std::env::var_os("FLAGSPLIT_FSCK_ALL_CORES_ONLY").is_some_and(|v| v == "1") {
        runs.truncate(1);
    }
    runs
}

fn run_case(root: &Path, case: &Case, s: &Settings, notices: &Mutex<Vec<String>>) -> Verdict {
    let path = corpus_dir().join(format!("{}.expected", case.name));
    match &case.expect {
        Expect::Bounded { pack, offsets } => {
            let want = bounded_record(case, pack, offsets);
            if s.bless {
                fs::write(&path, &want).expect("write record");
            } else if fs::read_to_string(&path).ok().as_deref() != Some(&want) {
                return Verdict::Stale(format!(
                    "{}: the record differs from the case (run with FLAGSPLIT_BLESS=1)",
                    case.name
                ));
            }
            let Some(subject) = &s.subject else {
                return Verdict::Pass;
            };
            if subject == "git" {
                return Verdict::Pass;
            }
            // On every core, on one thread and without delta trees: each bounded, and the
            // last two saying what the first says.
            let mut problems = String::new();
            let mut first: Option<Outcome> = None;
            for (run, label) in variants(case) {
                let ran = run_fsck(
                    root,
                    subject,
                    &run,
                    Duration::from_secs(20),
                    Some(4 * 1024 * 1024),
                );
                if let Err(why) = check_bounded(root, &ran, &run, pack, offsets) {
                    let _ = write!(problems, "{label}\n{why}");
                }
                let (got, _) = outcome(&ran, root);
                let set = |o: &Outcome| {
                    let all = |v: &[String]| v.iter().cloned().collect::<BTreeSet<String>>();
                    (o.status.clone(), all(&o.stdout), all(&o.stderr))
                };
                match &first {
                    None => first = Some(got),
                    Some(f) if set(f) != set(&got) => {
                        let _ = write!(
                            problems,
                            "{label}: not what the default run said\n  default: {f:?}\n  this:    {got:?}\n"
                        );
                    }
                    Some(_) => {}
                }
            }
            if problems.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail(format!(
                    "{}: {}\n{problems}",
                    case.name,
                    shown(case, "flagsplit")
                ))
            }
        }
        Expect::Git => {
            let limit = Duration::from_secs(60);
            let recorded = fs::read_to_string(&path).ok();
            let git_now = (s.live || s.bless).then(|| {
                let ran = run_fsck(root, "git", case, limit, Some(4 * 1024 * 1024));
                outcome(&ran, root).0
            });
            if s.bless {
                let text = record(case, git_now.as_ref().expect("git ran"));
                fs::write(&path, text).expect("write record");
            }
            let reference = match (&git_now, &recorded) {
                (Some(g), _) if s.bless => g.clone(),
                (Some(g), Some(r)) => {
                    let parsed = parse_record(r);
                    let head_ok = r.starts_with(&header(case));
                    if parsed.as_ref() != Some(g) || !head_ok {
                        return Verdict::Stale(format!(
                            "{}: git now differs from the record ({}; FLAGSPLIT_BLESS=1 rewrites it)\n{}",
                            case.name,
                            shown(case, "git"),
                            parsed.map_or_else(
                                || "  (no readable record)\n".to_string(),
                                |p| explain(&p, g, true)
                            )
                        ));
                    }
                    g.clone()
                }
                (_, Some(r)) => match parse_record(r) {
                    Some(p) => p,
                    None => return Verdict::Stale(format!("{}: unreadable record", case.name)),
                },
                (_, None) => {
                    return Verdict::Stale(format!(
                        "{}: no record {} (run with FLAGSPLIT_BLESS=1)",
                        case.name,
                        path.display()
                    ));
                }
            };
            let Some(subject) = &s.subject else {
                return Verdict::Pass;
            };
            let mut problems = String::new();
            for (run, label) in variants(case) {
                let run = &run;
                let ran = run_fsck(root, subject, run, limit, Some(4 * 1024 * 1024));
                let (got, mine) = outcome(&ran, root);
                if !mine.is_empty() && label.is_empty() {
                    let mut n = notices.lock().expect("notices");
                    n.extend(mine.into_iter().map(|l| format!("{}: {l}", case.name)));
                }
                let found = explain(&counted(&reference), &counted(&got), true);
                if !found.is_empty() {
                    let _ = write!(problems, "{label}\n{found}");
                }
                if ran.stderr.contains("panicked") {
                    let _ = writeln!(problems, "  a panic{label}");
                }
            }
            // `--json` carries the same verdict: git's lines, each as a finding on its stream,
            // and the exit status in the summary.
            let mut json = case.clone();
            json.args.push("--json".to_string());
            let ran = run_fsck(root, subject, &json, limit, Some(4 * 1024 * 1024));
            match json_outcome(&ran, root) {
                Ok(got) => {
                    let found = explain(&counted(&reference), &counted(&got), true);
                    if !found.is_empty() {
                        let _ = write!(problems, " (--json)\n{found}");
                    }
                }
                Err(why) => {
                    let _ = writeln!(problems, " (--json): {why}");
                }
            }
            if problems.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail(format!(
                    "{}: {}\n{problems}",
                    case.name,
                    shown(case, subject)
                ))
            }
        }
    }
}

/// The outcome a `--json` run gives: the lines of its findings on their streams (with what it
/// still wrote to standard error itself: progress), the status its summary names, which must be
/// the process's.
fn json_outcome(ran: &Ran, root: &Path) -> Result<Outcome, String> {
    let (mut out, mut err) = (String::new(), ran.stderr.clone());
    let mut status = None;
    for line in ran.stdout.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
        if status.is_some() {
            return Err(format!("a line after the summary: {line}"));
        }
        match v["type"].as_str() {
            Some("finding") => {
                let text = v["line"].as_str().ok_or(format!("no line: {line}"))?;
                match v["stream"].as_str() {
                    Some("stdout") => out.push_str(text),
                    Some("stderr") => err.push_str(text),
                    _ => return Err(format!("no stream: {line}")),
                }
                if v["stream"] == "stdout" {
                    out.push('\n');
                } else {
                    err.push('\n');
                }
            }
            Some("summary") => status = v["exit_status"].as_u64(),
            _ => return Err(format!("neither a finding nor the summary: {line}")),
        }
    }
    let status = status.ok_or("no summary")?.to_string();
    if status != ran.status {
        return Err(format!(
            "the summary says {status}, the process exited with {}",
            ran.status
        ));
    }
    let (_, stderr): (Vec<String>, Vec<String>) = lines(&err, root)
        .into_iter()
        .partition(|l| l.starts_with(NOT_CHECKED));
    Ok(Outcome {
        status,
        stdout: lines(&out, root),
        stderr,
    })
}

/// Every case: git's result (recorded, and live when git is 2.47) is flagsplit's.
#[test]
fn fsck_corpus_matches_git() {
    const TEST: &str = "fsck_corpus_matches_git";
    if !support::runs("git", &["--version"]) {
        support::skip(TEST, "git not found; the corpus is made with git");
        return;
    }
    let version = git_version().unwrap_or_default();
    let live = version.starts_with("2.47.");
    let bless = std::env::var_os("FLAGSPLIT_BLESS").is_some();
    if bless && !live {
        panic!("FLAGSPLIT_BLESS=1 needs git 2.47.x (found {version})");
    }
    let subject = subject();
    let w = world();
    let filter = std::env::var("FLAGSPLIT_FSCK_CASES").unwrap_or_default();
    let cases: Vec<&Case> = w
        .cases
        .iter()
        .filter(|c| c.name.contains(&filter))
        .collect();
    if bless && filter.is_empty() {
        // Records of cases that no longer exist go.
        let names: BTreeSet<String> = cases
            .iter()
            .map(|c| format!("{}.expected", c.name))
            .collect();
        if let Ok(dir) = fs::read_dir(corpus_dir()) {
            for e in dir.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.ends_with(".expected") && !names.contains(&n) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    }
    fs::create_dir_all(corpus_dir()).expect("corpus dir");
    let settings = Settings {
        bless,
        live,
        subject: subject.clone(),
    };
    let notices = Mutex::new(Vec::new());
    let results: Mutex<Vec<(usize, Verdict)>> = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().expect("next");
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(case) = cases.get(i) else { break };
                    let v = run_case(&w.root, case, &settings, &notices);
                    results.lock().expect("results").push((i, v));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    let (mut passed, mut failed, mut stale) = (Vec::new(), Vec::new(), Vec::new());
    for (i, v) in results {
        match v {
            Verdict::Pass => passed.push(i),
            Verdict::Fail(s) => failed.push(s),
            Verdict::Stale(s) => stale.push(s),
        }
    }
    let mut report = format!(
        "fsck corpus: {} cases in {:.1}s; git {version} ({}); subject {}: {} passed, {} failed; {} records not git's",
        cases.len(),
        started.elapsed().as_secs_f64(),
        if bless {
            "recording"
        } else if live {
            "live, checked against the records"
        } else {
            "not 2.47: compared with the records only"
        },
        subject
            .as_deref()
            .unwrap_or("none (flagsplit has no fsck yet)"),
        passed.len(),
        failed.len(),
        stale.len(),
    );
    let notices = notices.into_inner().expect("notices");
    if !notices.is_empty() {
        let _ = write!(
            report,
            "\nflagsplit's own notices ({}):\n  {}",
            notices.len(),
            notices.join("\n  ")
        );
    }
    // The cases flagsplit is known to answer differently, each with why; they are reported, and
    // one that starts to agree with git fails the test until it is taken off the list.
    let case_name = |f: &String| f.split(':').next().unwrap_or(f).to_string();
    let (known, failed): (Vec<String>, Vec<String>) = failed
        .into_iter()
        .partition(|f| KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == case_name(f)));
    let known_names: Vec<String> = known.iter().map(case_name).collect();
    let mut failed = failed;
    for (name, why) in KNOWN_DIFFERENCES {
        let selected = cases.iter().any(|c| c.name == *name);
        if known_names.iter().any(|k| k == name) {
            let _ = write!(
                report,
                "
known difference: {name}: {why}"
            );
        } else if selected && subject.is_some() && !bless {
            failed.push(format!(
                "{name}: agrees with git now; take it off KNOWN_DIFFERENCES"
            ));
        }
    }
    let _ = write!(
        report,
        "\nrepetitions compared as presence only: lines with {} known texts (KNOWN_COUNT_DIFFERENCES)",
        KNOWN_COUNT_DIFFERENCES.len()
    );
    let _ = writeln_stderr(&report);
    let mut all = stale;
    all.extend(failed);
    if subject.is_none() {
        support::skip(TEST, "flagsplit has no fsck command; only git was checked");
    }
    let names: Vec<&str> = all
        .iter()
        .map(|f| f.split(':').next().unwrap_or(f))
        .collect();
    assert!(
        all.is_empty(),
        "{report}\n\n{}\n{} failing cases: {}",
        all.join("\n"),
        all.len(),
        names.join(" ")
    );
}

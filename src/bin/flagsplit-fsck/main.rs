//! `flagsplit-fsck` (also run as `flagsplit fsck`): git's `git fsck --full` verdict (see
//! `flagsplit::fsck`), with git's options. An executable of its own, as `flagsplit-imap-send` is,
//! so that the `flagsplit` binary does not link the object-store reader, the thread pool and the
//! checks: linking them into `flagsplit` measured 5% more instructions for `flagsplit sha1sum
//! /dev/null` (callgrind; see book/src/benchmarks.md).

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use flagsplit::cli::flagsplit::FSCK;
use flagsplit::cli::{Command, Matches};
use flagsplit::fsck::finding::{Sink, TextSink};
use flagsplit::fsck::{self, Options};

mod json;

/// The last `--X` / `--no-X` given for `name`, else `default`.
fn setting(m: &Matches, name: &str, default: bool) -> bool {
    m.events()
        .filter(|(n, _)| *n == name)
        .last()
        .map_or(default, |(_, on)| on)
}

fn main() -> ExitCode {
    tune_malloc();
    let mut args = std::env::args_os();
    args.next();
    run(&FSCK, args)
}

/// glibc's malloc raises its mmap threshold each time a large block is freed (up to 32 MiB), after
/// which the object buffers of a pack's walk come from each thread's heap and fragment it: on
/// git.git about 20 MB of peak RSS. Fixed thresholds keep a buffer of 1 MiB or more mapped (and
/// returned when freed) and a heap's free top for reuse up to 32 MiB; the run takes no longer.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters, here before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 32 << 20);
    }
}

fn run(command: &'static Command, args: impl Iterator<Item = OsString>) -> ExitCode {
    let m = match command.parse(args) {
        Ok(m) => m,
        Err(e) => return ExitCode::from(e.report("flagsplit")),
    };
    if m.flag("help") {
        return match io::stdout().write_all(command.help("flagsplit").as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(1),
        };
    }
    let threads = match m
        .value("threads")
        .map(|v| v.to_str().and_then(|t| t.parse::<usize>().ok()))
    {
        None => 0,
        Some(Some(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("error: --threads expects a positive number");
            return ExitCode::from(129);
        }
    };
    let progress = m
        .events()
        .filter(|(n, _)| *n == "progress")
        .last()
        .map(|(_, on)| on);
    let opts = Options {
        full: setting(&m, "full", true),
        connectivity_only: setting(&m, "connectivity-only", false),
        strict: setting(&m, "strict", false),
        unreachable: setting(&m, "unreachable", false),
        dangling: setting(&m, "dangling", true),
        root: setting(&m, "root", false),
        tags: setting(&m, "tags", false),
        cache: setting(&m, "cache", false),
        reflogs: setting(&m, "reflogs", true),
        name_objects: setting(&m, "name-objects", false),
        verbose: m.count("verbose") > 0,
        progress,
        heads: m.operands.clone(),
        threads,
        timing: std::env::var_os("FLAGSPLIT_FSCK_TIMES").is_some_and(|v| v == "1"),
        low_memory: m.flag("low-memory"),
        lost_found: setting(&m, "lost-found", false),
    };
    let sink: Box<dyn Sink> = if m.flag("json") {
        Box::new(json::JsonSink::stdout())
    } else {
        Box::new(TextSink::stdio())
    };
    // git works from the top of the worktree (or a bare repository) and names paths from there;
    // the engine leaves the working directory to the program.
    let repo = fsck::find_repo().and_then(|found| found.enter().map_err(fsck::Fatal::msg));
    ExitCode::from(fsck::run::<flagsplit::hash::Selected>(&opts, repo, sink))
}

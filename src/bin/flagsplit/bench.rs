//! `flagsplit bench`: throughput of this build's providers (hashing, zlib inflate), the checksum
//! commands timed as whole processes on a file, and the start-up cost of this binary.

use std::io::{self, IsTerminal};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use flagsplit::bench::{self, Environment, FsckRun, Plan, Report, Startup};
use flagsplit::cli::Matches;

/// The command whose start-up is measured (book/src/benchmarks.md compares it with `git hash-object /dev/null`).
const STARTUP_ARGS: [&str; 2] = ["sha1sum", "/dev/null"];

/// Runs the command.
pub fn main(m: &Matches) -> ExitCode {
    let plan = if m.flag("quick") {
        Plan::QUICK
    } else {
        Plan::DEFAULT
    };
    let terminal = io::stderr().is_terminal();
    let progress = |what: &str, step: usize, total: usize| {
        if terminal {
            eprint!("\r\x1b[Kmeasuring {what} [{step}/{total}]");
        }
    };
    // First, while this process is small: a child started with vfork-like spawning counts the
    // parent's pages in its peak RSS until it execs.
    if terminal {
        eprint!("\r\x1b[Kmeasuring fsck");
    }
    let fsck = fsck_run(m.value("repo").map(PathBuf::from));
    let cells = bench::throughput(plan, progress);
    let zlib = match bench::zlib(plan, progress) {
        Ok(zlib) => zlib,
        Err(e) => {
            if terminal {
                eprint!("\r\x1b[K");
            }
            eprintln!("flagsplit: bench: {e}");
            return ExitCode::from(1);
        }
    };
    let commands = match std::env::current_exe() {
        Ok(exe) => bench::commands(&exe, plan.rounds, progress),
        Err(e) => Err(format!("cannot find this executable: {e}")),
    };
    if terminal {
        eprint!("\r\x1b[Kmeasuring start-up");
    }
    let startup = startup(plan.startup_runs);
    if terminal {
        eprint!("\r\x1b[K");
    }
    let report = Report {
        cells,
        commands,
        zlib,
        startup,
        fsck,
    };
    let text = if m.flag("json") {
        bench::json(&report, &Environment::detect(), env!("FLAGSPLIT_RUSTC"))
    } else {
        bench::table(&report)
    };
    crate::print(&text)
}

/// Wall time of `runs` runs of this binary, and its instruction count under callgrind when
/// valgrind is installed (instructions are repeatable on a noisy machine; wall time is not).
fn startup(runs: usize) -> Startup {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            return Startup {
                command: "flagsplit sha1sum /dev/null".into(),
                instructions_note: Some(format!("cannot find this executable: {e}")),
                ..Startup::default()
            };
        }
    };
    let command = format!("{} {}", exe.display(), STARTUP_ARGS.join(" "));
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let ok = Command::new(&exe)
            .args(STARTUP_ARGS)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    let (instructions, instructions_note) = callgrind(&exe);
    Startup {
        command,
        wall_ms_min: times.first().copied().unwrap_or(f64::NAN),
        wall_ms_median: times.get(times.len() / 2).copied().unwrap_or(f64::NAN),
        instructions,
        instructions_note,
    }
}

fn callgrind(exe: &std::path::Path) -> (Option<u64>, Option<String>) {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args(STARTUP_ARGS)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match out {
        Err(_) => (None, Some("valgrind not installed".into())),
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stderr);
            let n = text
                .lines()
                .find_map(|l| l.split("Collected :").nth(1))
                .and_then(|v| v.trim().parse().ok());
            match n {
                Some(n) => (Some(n), None),
                None => (None, Some("valgrind gave no instruction count".into())),
            }
        }
    }
}

/// The bytes of the packs, from the report `FLAGSPLIT_FSCK_TIMES=1` makes `flagsplit-fsck` print
/// (`flagsplit fsck: packs N (B bytes)`): flagsplit itself lists no directory, since each C
/// function it imports costs every process's start-up a symbol lookup.
fn pack_bytes(report: &str) -> u64 {
    report
        .lines()
        .find_map(|l| l.strip_prefix("flagsplit fsck: packs "))
        .and_then(|rest| rest.split_once('(')?.1.split_once(' ')?.0.parse().ok())
        .unwrap_or(0)
}

/// Runs `flagsplit-fsck` (found as `flagsplit fsck` finds it) on `repo`, or on the repository
/// the current directory is in: wall time, and CPU time and peak RSS from `wait4`.
fn fsck_run(repo: Option<PathBuf>) -> Result<FsckRun, String> {
    let dir = match repo {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    {
        let saved = std::env::current_dir().ok();
        std::env::set_current_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let found = flagsplit::object::repository::find_git_dir();
        if let Some(s) = saved {
            let _ = std::env::set_current_dir(s);
        }
        match found {
            Ok(Some(_)) => {}
            Ok(None) => return Err(format!("{} is not in a git repository", dir.display())),
            Err(e) => return Err(e),
        }
    }
    let exe = flagsplit::exec_path::find("flagsplit-fsck").map_err(|e| e.to_string())?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let start = Instant::now();
    let mut child = Command::new(&exe)
        .args(["--no-progress", "--no-dangling"])
        .env("FLAGSPLIT_FSCK_TIMES", "1")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    // Read to the end before waiting, so that the child never blocks on a full pipe.
    let mut report = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = io::Read::read_to_string(&mut err, &mut report);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // wait4 through syscall(2), which flagsplit imports already: a symbol of its own would cost
    // every flagsplit process's start-up its lookup.
    // SAFETY: `pid` is our child, not yet waited for (the `Child` is never waited on); `status`
    // and `usage` are valid for writes for the duration of the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_wait4,
            pid,
            &mut status as *mut libc::c_int,
            0,
            &mut usage as *mut libc::rusage,
        )
    };
    let wall_s = start.elapsed().as_secs_f64();
    if rc != libc::c_long::from(pid) {
        return Err(format!("wait4: {}", io::Error::last_os_error()));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let exit = std::process::ExitStatus::from_raw(status);
    Ok(FsckRun {
        repo: dir.display().to_string(),
        pack_bytes: pack_bytes(&report),
        threads,
        wall_s,
        cpu_s: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss as u64,
        status: exit.code().unwrap_or(-1),
    })
}

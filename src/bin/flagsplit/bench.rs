//! `flagsplit bench`: throughput of this build's providers (hashing, zlib inflate) and the start-up
//! cost of this binary.

use std::io::{self, IsTerminal};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use flagsplit::bench::{self, Environment, Plan, Report, Startup};
use flagsplit::cli::Matches;

/// The command whose start-up is measured (BENCHMARKS.md compares it with `git hash-object /dev/null`).
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
    if terminal {
        eprint!("\r\x1b[Kmeasuring start-up");
    }
    let startup = startup(plan.startup_runs);
    if terminal {
        eprint!("\r\x1b[K");
    }
    let report = Report {
        cells,
        zlib,
        startup,
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

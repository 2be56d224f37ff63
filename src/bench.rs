//! `flagsplit bench`: what this build's selected providers do on this machine, in-process, and
//! what starting this binary costs — the figures the 2010 thread argued about, measured where the
//! user is. The shipped binary only measures the providers it was built with; comparing providers
//! is for the criterion benches (`cargo bench`) and `scripts/bench-builds.sh`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::build_options::{BUILD_INFO, provider_members};
use crate::cpu::CpuFeatures;
use crate::hash::{Algorithm, Hasher};
use crate::json;
use crate::spec::{MD5, SHA1, SHA1_UNSAFE, SHA256};

/// Message sizes measured: one cache line, a small file, a typical read buffer, and the 300 MiB of
/// git's SHA1DC-vs-OpenSSL comparison (p0013).
pub const SIZES: [usize; 4] = [64, 1024, 64 * 1024, 300 * 1024 * 1024];

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Rounds; each round measures every cell once, so drift affects all providers alike.
    pub rounds: usize,
    /// Time per cell per round for the small sizes.
    pub cell_time: Duration,
    /// Start-up runs.
    pub startup_runs: usize,
}

impl Plan {
    /// The default run: under a minute.
    pub const DEFAULT: Plan = Plan {
        rounds: 3,
        cell_time: Duration::from_millis(400),
        startup_runs: 30,
    };
    /// `--quick`: a few seconds.
    pub const QUICK: Plan = Plan {
        rounds: 1,
        cell_time: Duration::from_millis(60),
        startup_runs: 5,
    };
}

/// One measured cell.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Which hash.
    pub algorithm: Algorithm,
    /// Message size in bytes.
    pub size: usize,
    /// Best throughput over the rounds, in MB/s (10^6 bytes per second).
    pub mb_per_s: f64,
    /// Time per message at that throughput, in nanoseconds.
    pub ns_per_message: f64,
}

/// Start-up cost of this binary.
#[derive(Clone, Debug, Default)]
pub struct Startup {
    /// The command measured.
    pub command: String,
    /// Fastest wall time, in milliseconds.
    pub wall_ms_min: f64,
    /// Median wall time, in milliseconds.
    pub wall_ms_median: f64,
    /// Instructions counted by `valgrind --tool=callgrind` (repeatable), when valgrind is there.
    pub instructions: Option<u64>,
    /// Why instructions are missing.
    pub instructions_note: Option<String>,
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Report {
    /// Throughput cells.
    pub cells: Vec<Cell>,
    /// Start-up cost.
    pub startup: Startup,
}

/// The algorithms this build selected, each with its facility.
pub fn algorithms() -> [(Algorithm, &'static str); 4] {
    [
        (Algorithm::Sha1, SHA1),
        (Algorithm::Sha1Unchecked, SHA1_UNSAFE),
        (Algorithm::Md5, MD5),
        (Algorithm::Sha256, SHA256),
    ]
}

/// A label like `SHA-1 dc (collision detection)`.
pub fn label(algorithm: Algorithm) -> String {
    let p = algorithm.provider();
    match algorithm {
        Algorithm::Sha1 if p == "dc" => {
            format!("SHA-1 {p} (collision detection)")
        }
        Algorithm::Sha1 => format!("SHA-1 {p} (sha1)"),
        Algorithm::Sha1Unchecked => format!("SHA-1 {p} (sha1-unsafe)"),
        Algorithm::Md5 => format!("MD5 {p}"),
        Algorithm::Sha256 => format!("SHA-256 {p}"),
    }
}

/// Deterministic, incompressible-looking input (xorshift64), for every benchmark of the project.
pub fn fill(buf: &mut [u8]) {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for chunk in buf.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let bytes = x.to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

/// `len` bytes of [`fill`]'s input.
pub fn input(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    fill(&mut v);
    v
}

/// Hashes messages of `data.len()` bytes for about `time` (at least once); returns bytes per second.
fn measure(algorithm: Algorithm, data: &[u8], time: Duration) -> f64 {
    let start = Instant::now();
    let mut messages: u64 = 0;
    let batch = (1 << 20) / data.len().max(1) + 1;
    loop {
        for _ in 0..batch {
            let mut h = Hasher::new(algorithm);
            h.update(black_box(data));
            // A collision cannot occur in this input; either result is consumed.
            let _ = black_box(h.finalize());
        }
        messages += batch as u64;
        let elapsed = start.elapsed();
        if elapsed >= time {
            return (messages as f64 * data.len() as f64) / elapsed.as_secs_f64();
        }
    }
}

/// Runs the throughput grid; `progress` is told each step.
pub fn throughput(plan: Plan, mut progress: impl FnMut(&str, usize, usize)) -> Vec<Cell> {
    let big = *SIZES.iter().max().unwrap_or(&0);
    let mut data = vec![0u8; big];
    fill(&mut data);
    let algos = algorithms();
    let total = plan.rounds * algos.len() * SIZES.len();
    let mut best = vec![0f64; algos.len() * SIZES.len()];
    let mut step = 0;
    for _ in 0..plan.rounds {
        for (si, &size) in SIZES.iter().enumerate() {
            for (ai, (algorithm, _)) in algos.iter().enumerate() {
                step += 1;
                progress(
                    &format!("{} {}", label(*algorithm), size_label(size)),
                    step,
                    total,
                );
                // The large size is hashed once per round: it is its own steady state.
                let time = if size == big {
                    Duration::ZERO
                } else {
                    plan.cell_time
                };
                let rate = measure(*algorithm, &data[..size], time);
                let slot = &mut best[ai * SIZES.len() + si];
                *slot = slot.max(rate);
            }
        }
    }
    let mut cells = Vec::new();
    for (ai, (algorithm, _)) in algos.iter().enumerate() {
        for (si, &size) in SIZES.iter().enumerate() {
            let rate = best[ai * SIZES.len() + si];
            cells.push(Cell {
                algorithm: *algorithm,
                size,
                mb_per_s: rate / 1e6,
                ns_per_message: if rate > 0.0 {
                    size as f64 / rate * 1e9
                } else {
                    0.0
                },
            });
        }
    }
    cells
}

/// `64 B`, `1 KiB`, `300 MiB`.
pub fn size_label(size: usize) -> String {
    if size >= 1 << 20 {
        format!("{} MiB", size >> 20)
    } else if size >= 1 << 10 {
        format!("{} KiB", size >> 10)
    } else {
        format!("{size} B")
    }
}

/// The Markdown table of a report.
pub fn table(report: &Report) -> String {
    let mut s = String::from("| provider |");
    for size in SIZES {
        let _ = write!(s, " {} |", size_label(size));
    }
    s.push_str("\n|---|");
    for _ in SIZES {
        s.push_str("---:|");
    }
    s.push('\n');
    for (algorithm, _) in algorithms() {
        let _ = write!(s, "| {} |", label(algorithm));
        for cell in report.cells.iter().filter(|c| c.algorithm == algorithm) {
            let _ = write!(s, " {:.0} MB/s |", cell.mb_per_s);
        }
        s.push('\n');
    }
    let st = &report.startup;
    let _ = write!(
        s,
        "\nStart-up of `{}`: {:.2} ms fastest, {:.2} ms median",
        st.command, st.wall_ms_min, st.wall_ms_median
    );
    match (st.instructions, &st.instructions_note) {
        (Some(n), _) => {
            let _ = write!(s, ", {n} instructions (callgrind)");
        }
        (None, Some(note)) => {
            let _ = write!(s, " (instructions: {note})");
        }
        (None, None) => {}
    }
    s.push('\n');
    let _ = writeln!(
        s,
        "MB/s = 10^6 bytes per second, best of the rounds; 64 B and 1 KiB include new+finalize per message."
    );
    if cfg!(debug_assertions) {
        s.push_str(
            "WARNING: this is a debug build; build with --release for meaningful figures.\n",
        );
    }
    s
}

/// Facts about the machine and the build, for the JSON report.
pub struct Environment {
    /// `model name` from /proc/cpuinfo.
    pub cpu_model: String,
    /// `flags` from /proc/cpuinfo.
    pub cpu_flags: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// `PRETTY_NAME` from /etc/os-release.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// OpenSSL's version text, when this binary links it.
    pub openssl: Option<String>,
}

impl Environment {
    /// Reads what Linux tells (fields stay empty elsewhere).
    pub fn detect() -> Environment {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            cpuinfo
                .lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        let os = std::fs::read_to_string("/etc/os-release")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        Environment {
            cpu_model: field("model name"),
            cpu_flags: field("flags"),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os,
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .unwrap_or_default()
                .trim()
                .to_string(),
            openssl: crate::hash::openssl_version(),
        }
    }
}

/// The shareable JSON report: machine, build, every figure.
pub fn json(report: &Report, env: &Environment, rustc: &str) -> String {
    let info = &BUILD_INFO;
    let cpu = CpuFeatures::detect();
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"schema\": 1,");
    let _ = writeln!(
        s,
        "  \"flagsplit\": {},",
        json::string(env!("CARGO_PKG_VERSION"))
    );
    let _ = writeln!(
        s,
        "  \"machine\": {{\"cpu_model\": {}, \"cpu_flags\": {}, \"sha_instructions\": {}, \"avx2\": {}, \"logical_cpus\": {}, \"os\": {}, \"kernel\": {}, \"arch\": {}}},",
        json::string(&env.cpu_model),
        json::string(&env.cpu_flags),
        cpu.sha,
        cpu.avx2,
        env.cpus,
        json::string(&env.os),
        json::string(&env.kernel),
        json::string(std::env::consts::ARCH)
    );
    let features: Vec<String> = info.features.iter().map(|f| json::string(f)).collect();
    let providers = provider_members();
    let openssl = match (&env.openssl, info.openssl.as_ref()) {
        (Some(runtime), Some(b)) => format!(
            "{{\"runtime\": {}, \"build\": {}, \"static\": {}}}",
            json::string(runtime),
            json::string(b.version),
            b.static_link
        ),
        _ => "null".into(),
    };
    let _ = writeln!(
        s,
        "  \"build\": {{\"rustc\": {}, \"target\": {}, \"profile\": {}, \"features\": [{}], \"providers\": {{{}}}, \"openssl\": {}}},",
        json::string(rustc),
        json::string(info.target),
        json::string(if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }),
        features.join(", "),
        providers.join(", "),
        openssl
    );
    s.push_str("  \"throughput\": [\n");
    for (i, c) in report.cells.iter().enumerate() {
        let facility = algorithms()
            .into_iter()
            .find(|(a, _)| *a == c.algorithm)
            .map_or("", |(_, f)| f);
        let _ = write!(
            s,
            "    {{\"facility\": {}, \"provider\": {}, \"size_bytes\": {}, \"mb_per_s\": {}, \"ns_per_message\": {}}}",
            json::string(facility),
            json::string(c.algorithm.provider()),
            c.size,
            json::number(c.mb_per_s),
            json::number(c.ns_per_message)
        );
        s.push_str(if i + 1 < report.cells.len() {
            ",\n"
        } else {
            "\n"
        });
    }
    s.push_str("  ],\n");
    let st = &report.startup;
    let _ = writeln!(
        s,
        "  \"startup\": {{\"command\": {}, \"wall_ms_min\": {}, \"wall_ms_median\": {}, \"instructions\": {}, \"instructions_note\": {}}}",
        json::string(&st.command),
        json::number(st.wall_ms_min),
        json::number(st.wall_ms_median),
        st.instructions.map_or("null".into(), |n| n.to_string()),
        json::opt_string(st.instructions_note.as_deref())
    );
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_label(64), "64 B");
        assert_eq!(size_label(65536), "64 KiB");
        assert_eq!(size_label(300 << 20), "300 MiB");
    }
}

//! `flagsplit bench`: what this build's selected providers (hashing and zlib inflate) do on this
//! machine, in-process, and what starting this binary costs — the figures the 2010 thread argued about, measured where the
//! user is. The shipped binary only measures the providers it was built with; comparing providers
//! is for the criterion benches (`cargo bench`) and `scripts/bench-builds.sh`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::build_options::{BUILD_INFO, provider_members};
use crate::cpu::CpuFeatures;
use crate::hash::{Algorithm, Hasher};
use crate::json;
use crate::spec::{MD5, SHA1, SHA1_UNSAFE, SHA256, ZLIB};
use crate::zlib::Inflater;
use flagsplit_zlib::Inflater as _;

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

/// The inflated size of the zlib facility's large stream.
pub const ZLIB_STREAM: usize = 16 * 1024 * 1024;

/// The number of git-object-shaped zlib streams.
pub const ZLIB_OBJECTS: usize = 1000;

/// The compression level of the zlib inputs (git's default, `core.compression` -1, is zlib's 6).
pub const ZLIB_LEVEL: i32 = 6;

/// What a zlib figure inflates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZlibInput {
    /// One large stream of [`ZLIB_STREAM`] bytes.
    Stream,
    /// [`ZLIB_OBJECTS`] streams of 100 B to 20 KB back to back, as objects in a pack.
    Objects,
}

impl ZlibInput {
    /// `stream`, `objects`: the JSON report's `input`.
    pub fn as_str(self) -> &'static str {
        match self {
            ZlibInput::Stream => "stream",
            ZlibInput::Objects => "objects",
        }
    }
}

/// One measured zlib figure of the selected provider.
#[derive(Clone, Debug)]
pub struct ZlibCell {
    /// What was inflated.
    pub input: ZlibInput,
    /// zlib streams in the input.
    pub streams: usize,
    /// Their inflated size in bytes.
    pub inflated_bytes: usize,
    /// Their compressed size in bytes.
    pub compressed_bytes: usize,
    /// Best throughput over the rounds, in MB/s of inflated output (10^6 bytes per second).
    pub mb_per_s: f64,
    /// Mean time per stream at that throughput, in nanoseconds.
    pub ns_per_stream: f64,
}

/// One run of `flagsplit-fsck` on a repository: the real load.
#[derive(Clone, Debug)]
pub struct FsckRun {
    /// The repository, as given.
    pub repo: String,
    /// The bytes of its packs.
    pub pack_bytes: u64,
    /// The threads it ran on.
    pub threads: usize,
    /// Wall time in seconds.
    pub wall_s: f64,
    /// CPU time (user + system) in seconds.
    pub cpu_s: f64,
    /// Peak resident set in KiB.
    pub max_rss_kib: u64,
    /// Its exit status (git's bits).
    pub status: i32,
}

/// The size of the file the checksum commands are timed on as whole processes: the largest of
/// [`SIZES`], so that each command's figure stands beside its in-process one.
pub const FILE_SIZE: usize = 300 * 1024 * 1024;

/// One whole-command figure: a checksum command of this binary run as a new process on a file
/// of [`FILE_SIZE`] bytes in the page cache (start-up, reading and hashing), as a user runs it.
#[derive(Clone, Debug)]
pub struct CommandCell {
    /// Which hash the command computes.
    pub algorithm: Algorithm,
    /// The command's arguments before the file (`sha1sum --no-collision-detection`).
    pub command: String,
    /// The file's size in bytes.
    pub size: usize,
    /// Median wall time over the rounds, in seconds.
    pub wall_s: f64,
    /// The file's size over that time, in MB/s (10^6 bytes per second).
    pub mb_per_s: f64,
}

/// The checksum command that computes `algorithm` with this build's provider.
pub fn sum_command(algorithm: Algorithm) -> &'static [&'static str] {
    match algorithm {
        Algorithm::Sha1 => &["sha1sum"],
        Algorithm::Sha1Unchecked => &["sha1sum", "--no-collision-detection"],
        Algorithm::Md5 => &["md5sum"],
        Algorithm::Sha256 => &["sha256sum"],
    }
}

/// Times `EXE COMMAND FILE` for every algorithm of [`algorithms`] on a temporary file of
/// [`FILE_SIZE`] bytes (written first, so it is in the page cache), `rounds` rounds
/// (each round runs every command once, so drift affects all alike); the medians. A command
/// that fails is an error naming it.
pub fn commands(
    exe: &std::path::Path,
    rounds: usize,
    mut progress: impl FnMut(&str, usize, usize),
) -> Result<Vec<CommandCell>, String> {
    use std::io::Write as _;
    let mut file = tempfile::NamedTempFile::new().map_err(|e| format!("temporary file: {e}"))?;
    // 1 MiB of [`input`] over and over: what is hashed does not change the speed, and a debug
    // build (the tests') would take seconds to generate 300 MiB.
    let block = input(1 << 20);
    (0..FILE_SIZE / block.len())
        .try_for_each(|_| file.write_all(&block))
        .and_then(|()| file.flush())
        .map_err(|e| format!("{}: {e}", file.path().display()))?;
    let algos = algorithms();
    let rounds = rounds.max(1);
    let mut times = vec![Vec::with_capacity(rounds); algos.len()];
    let mut step = 0;
    for _ in 0..rounds {
        for (i, (algorithm, _)) in algos.iter().enumerate() {
            step += 1;
            let args = sum_command(*algorithm);
            progress(&args.join(" "), step, rounds * algos.len());
            let start = Instant::now();
            let status = std::process::Command::new(exe)
                .args(args)
                .arg(file.path())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
            let elapsed = start.elapsed().as_secs_f64();
            match status {
                Ok(s) if s.success() => times[i].push(elapsed),
                Ok(s) => return Err(format!("{}: {s}", args.join(" "))),
                Err(e) => return Err(format!("{}: {e}", exe.display())),
            }
        }
    }
    Ok(algos
        .iter()
        .zip(&mut times)
        .map(|((algorithm, _), t)| {
            t.sort_by(f64::total_cmp);
            let wall_s = t[t.len() / 2];
            CommandCell {
                algorithm: *algorithm,
                command: sum_command(*algorithm).join(" "),
                size: FILE_SIZE,
                wall_s,
                mb_per_s: FILE_SIZE as f64 / wall_s / 1e6,
            }
        })
        .collect())
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Report {
    /// Throughput cells.
    pub cells: Vec<Cell>,
    /// The checksum commands timed as whole processes, or why they are not.
    pub commands: Result<Vec<CommandCell>, String>,
    /// The zlib facility's figures.
    pub zlib: Vec<ZlibCell>,
    /// Start-up cost.
    pub startup: Startup,
    /// The fsck run, or why there is none.
    pub fsck: Result<FsckRun, String>,
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

/// xorshift64, for the zlib inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `0..n` (near enough: `n` is small).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Skewed to the low end of `0..n`, as word frequencies are.
    fn skewed(&mut self, n: usize) -> usize {
        self.below(n).min(self.below(n))
    }
}

/// The vocabulary of [`text`]: keywords, identifiers and punctuation of source code.
const WORDS: [&str; 64] = [
    "=", "(", ")", "{", "}", ";", ",", "&", "let", "fn", "if", "return", "self", "mut", "for",
    "in", "else", "match", "->", "=>", "::", "0", "1", "len", "buf", "out", "size", "pos", "err",
    "Ok", "None", "Some", "pub", "struct", "impl", "use", "const", "while", "break", "true",
    "false", "object", "tree", "commit", "blob", "parent", "author", "hash", "index", "path",
    "name", "data", "Result", "Error", "Vec<u8>", "&str", "usize", "u64", "+", "-", "==", "<",
    "// size", "/* id */",
];

/// Appends source-like text to `out` until it holds `len` bytes: lines of 2 to 11 tokens of
/// [`WORDS`] (skewed to the first ones), indented by 0 to 3 levels. That is what most of git's
/// objects hold (source, commit messages), and it compresses the way text does rather than not
/// at all like [`fill`]'s bytes.
fn text(out: &mut Vec<u8>, len: usize, rng: &mut Rng) {
    while out.len() < len {
        for _ in 0..rng.below(4) {
            out.extend_from_slice(b"    ");
        }
        for i in 0..2 + rng.below(10) {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(WORDS[rng.skewed(WORDS.len())].as_bytes());
        }
        out.push(b'\n');
    }
    out.truncate(len);
}

/// File names of [`tree`] entries.
const NAMES: [&str; 16] = [
    "main", "lib", "object", "tree", "commit", "blob", "hash", "index", "path", "config", "spec",
    "bench", "json", "cpu", "zlib", "error",
];

/// Appends tree entries (`100644 name.rs\0` and a 20-byte binary id) to `out` until it holds
/// `len` bytes: git's trees, where every entry carries 20 incompressible bytes.
fn tree(out: &mut Vec<u8>, len: usize, rng: &mut Rng) {
    while out.len() < len {
        let mode: &[u8] = match rng.below(8) {
            0 => b"40000 ",
            1 => b"100755 ",
            _ => b"100644 ",
        };
        out.extend_from_slice(mode);
        out.extend_from_slice(NAMES[rng.skewed(NAMES.len())].as_bytes());
        out.extend_from_slice(b".rs\0");
        let mut id = [0u8; 24];
        for chunk in id.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next().to_le_bytes());
        }
        out.extend_from_slice(&id[..20]);
    }
    out.truncate(len);
}

/// The large stream's content: [`text`], with one 4 KiB block in 8 replaced by [`fill`]'s
/// incompressible bytes (binary files, ids), as a large blob or a pack's worth of content mixes
/// them.
fn stream_content(len: usize) -> Vec<u8> {
    let mut data = Vec::with_capacity(len);
    text(&mut data, len, &mut Rng(0x2545_F491_4F6C_DD1D));
    let binary = input(len);
    for (i, block) in data.chunks_mut(4096).enumerate() {
        if i % 8 == 7 {
            let at = i * 4096;
            block.copy_from_slice(&binary[at..at + block.len()]);
        }
    }
    data
}

/// The objects' contents: sizes of 100 B to 20 KB, uniform per octave (git's objects are mostly small);
/// one in five is a [`tree`], the others [`text`] (blobs, commits).
fn object_contents(count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|_| {
            // One of eight octaves from 100 B up, then uniform within it: integer arithmetic only
            // (`f64::powf` would make every `flagsplit` process load libm).
            let low = 100usize << rng.below(8);
            let size = (low + rng.below(low)).min(20_000);
            let mut object = Vec::with_capacity(size);
            if rng.below(5) == 0 {
                tree(&mut object, size, &mut rng);
            } else {
                text(&mut object, size, &mut rng);
            }
            object
        })
        .collect()
}

/// The zlib inputs, compressed once before anything is timed.
struct ZlibInputs {
    stream: Vec<u8>,
    compressed: Vec<u8>,
    objects: Vec<Vec<u8>>,
    /// The objects' streams, back to back.
    pack: Vec<u8>,
}

impl ZlibInputs {
    /// Compressed by zlib-rs's compressor (compiled in every build), whatever provider inflates.
    fn new() -> Result<ZlibInputs, String> {
        let compress = |data: &[u8]| {
            crate::zlib::zlib_rs::compress(data, ZLIB_LEVEL).map_err(|e| e.to_string())
        };
        let stream = stream_content(ZLIB_STREAM);
        let compressed = compress(&stream)?;
        let objects = object_contents(ZLIB_OBJECTS);
        let mut pack = Vec::new();
        for object in &objects {
            pack.extend_from_slice(&compress(object)?);
        }
        Ok(ZlibInputs {
            stream,
            compressed,
            objects,
            pack,
        })
    }

    fn inflated_objects(&self) -> usize {
        self.objects.iter().map(Vec::len).sum()
    }

    /// Inflates every input once and compares the output with what was compressed.
    fn check(&self, inflater: &mut Inflater, out: &mut Vec<u8>) -> Result<(), String> {
        let name = Inflater::PROVIDER;
        let used = inflater
            .inflate_to_vec(&self.compressed, self.stream.len(), out)
            .map_err(|e| format!("zlib {name}: the large stream: {e}"))?;
        if used != self.compressed.len() || *out != self.stream {
            return Err(format!("zlib {name}: the large stream inflates wrongly"));
        }
        let mut pos = 0;
        for (i, object) in self.objects.iter().enumerate() {
            pos += inflater
                .inflate_to_vec(&self.pack[pos..], object.len(), out)
                .map_err(|e| format!("zlib {name}: object {i}: {e}"))?;
            if out != object {
                return Err(format!("zlib {name}: object {i} inflates wrongly"));
            }
        }
        if pos != self.pack.len() {
            return Err(format!(
                "zlib {name}: the objects took {pos} of {} bytes",
                self.pack.len()
            ));
        }
        Ok(())
    }
}

/// Runs `pass` (which inflates `bytes` bytes) for about `time` (at least once); returns bytes per
/// second.
fn measure_zlib(
    bytes: usize,
    time: Duration,
    mut pass: impl FnMut() -> Result<(), flagsplit_zlib::Error>,
) -> Result<f64, String> {
    let start = Instant::now();
    let mut passes: u64 = 0;
    loop {
        pass().map_err(|e| format!("zlib {}: {e}", Inflater::PROVIDER))?;
        passes += 1;
        let elapsed = start.elapsed();
        if elapsed >= time {
            return Ok(passes as f64 * bytes as f64 / elapsed.as_secs_f64());
        }
    }
}

/// Measures the zlib facility's selected provider: MB/s of inflated output on one large stream
/// and on [`ZLIB_OBJECTS`] git-object-shaped streams, one reused inflater throughout, each stream
/// inflated with `inflate_to_vec` and its known size. The output is checked against the input
/// once before the rounds. `progress` is told each step.
pub fn zlib(
    plan: Plan,
    mut progress: impl FnMut(&str, usize, usize),
) -> Result<Vec<ZlibCell>, String> {
    let name = Inflater::PROVIDER;
    progress(
        &format!("zlib {name}: compressing the input"),
        0,
        2 * plan.rounds,
    );
    let inputs = ZlibInputs::new()?;
    let mut inflater = Inflater::new().map_err(|e| format!("zlib {name}: {e}"))?;
    let mut out = Vec::new();
    inputs.check(&mut inflater, &mut out)?;
    let cells = [
        (
            ZlibInput::Stream,
            1,
            inputs.stream.len(),
            inputs.compressed.len(),
        ),
        (
            ZlibInput::Objects,
            inputs.objects.len(),
            inputs.inflated_objects(),
            inputs.pack.len(),
        ),
    ];
    let mut best = [0f64; 2];
    let mut step = 0;
    for _ in 0..plan.rounds {
        for (i, &(input, streams, inflated, _)) in cells.iter().enumerate() {
            step += 1;
            progress(&zlib_label(input, streams), step, 2 * plan.rounds);
            let rate = match input {
                ZlibInput::Stream => measure_zlib(inflated, plan.cell_time, || {
                    inflater.inflate_to_vec(black_box(&inputs.compressed), inflated, &mut out)?;
                    black_box(&out);
                    Ok(())
                }),
                ZlibInput::Objects => measure_zlib(inflated, plan.cell_time, || {
                    let mut pos = 0;
                    for object in &inputs.objects {
                        pos += inflater.inflate_to_vec(
                            black_box(&inputs.pack[pos..]),
                            object.len(),
                            &mut out,
                        )?;
                        black_box(&out);
                    }
                    Ok(())
                }),
            }?;
            best[i] = best[i].max(rate);
        }
    }
    Ok(cells
        .iter()
        .zip(best)
        .map(|(&(input, streams, inflated, compressed), rate)| ZlibCell {
            input,
            streams,
            inflated_bytes: inflated,
            compressed_bytes: compressed,
            mb_per_s: rate / 1e6,
            ns_per_stream: if rate > 0.0 {
                inflated as f64 / rate / streams as f64 * 1e9
            } else {
                0.0
            },
        })
        .collect())
}

/// A zlib row's label: `zlib zlib-rs, one 16 MiB stream`, `zlib zlib-rs, 1000 objects`.
pub fn zlib_label(input: ZlibInput, streams: usize) -> String {
    let name = Inflater::PROVIDER;
    match input {
        ZlibInput::Stream => format!("zlib {name}, one {} stream", size_label(ZLIB_STREAM)),
        ZlibInput::Objects => format!("zlib {name}, {streams} objects"),
    }
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
    let _ = write!(s, " {} file, whole command |", size_label(FILE_SIZE));
    s.push_str("\n|---|");
    for _ in SIZES {
        s.push_str("---:|");
    }
    s.push_str("---:|\n");
    for (algorithm, _) in algorithms() {
        let _ = write!(s, "| {} |", label(algorithm));
        for cell in report.cells.iter().filter(|c| c.algorithm == algorithm) {
            let _ = write!(s, " {:.0} MB/s |", cell.mb_per_s);
        }
        match &report.commands {
            Ok(cells) => match cells.iter().find(|c| c.algorithm == algorithm) {
                Some(c) => {
                    let _ = write!(s, " {:.0} MB/s ({:.3} s) |", c.mb_per_s, c.wall_s);
                }
                None => s.push_str(" - |"),
            },
            Err(_) => s.push_str(" - |"),
        }
        s.push('\n');
    }
    if !report.zlib.is_empty() {
        s.push_str(
            "\n| zlib inflate | MB/s of output | inflated | compressed |\n|---|---:|---:|---:|\n",
        );
        for z in &report.zlib {
            let _ = writeln!(
                s,
                "| {} | {:.0} MB/s | {:.1} MiB | {:.1} MiB |",
                zlib_label(z.input, z.streams),
                z.mb_per_s,
                z.inflated_bytes as f64 / 1048576.0,
                z.compressed_bytes as f64 / 1048576.0
            );
        }
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
    match &report.commands {
        Ok(_) => {
            let _ = writeln!(
                s,
                "Whole command: `flagsplit sha1sum FILE` and the like run as new processes on one {} file \
                 in the page cache (start-up, reads and hashing; the in-process columns hash memory), \
                 wall time, median of the rounds.",
                size_label(FILE_SIZE)
            );
        }
        Err(why) => {
            let _ = writeln!(s, "Whole command: not measured ({why}).");
        }
    }
    if !report.zlib.is_empty() {
        let _ = writeln!(
            s,
            "zlib: git-like text and binary compressed at level {ZLIB_LEVEL} by zlib-rs; objects are 100 B-20 KB \
             streams back to back as in a pack, each inflated to its known size; one reused inflater, \
             output checked once."
        );
    }
    match &report.fsck {
        Ok(r) => {
            let _ = writeln!(
                s,
                "\nfsck of {} ({:.0} MB of packs, {} threads): {:.2} s wall, {:.2} s CPU, {:.0} MB peak RSS, exit {}",
                r.repo,
                r.pack_bytes as f64 / 1e6,
                r.threads,
                r.wall_s,
                r.cpu_s,
                r.max_rss_kib as f64 * 1024.0 / 1e6,
                r.status
            );
        }
        Err(why) => {
            let _ = writeln!(s, "\nfsck: not measured ({why})");
        }
    }
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

/// The shareable JSON report: machine, build, every figure. Schema 1: `schema`, `flagsplit`,
/// `machine`, `build`, `throughput` (one entry per hashing facility and size: `facility`,
/// `provider`, `size_bytes`, `mb_per_s`, `ns_per_message`), `zlib` (one entry per zlib input of
/// the selected provider: `facility` `"zlib"`, `provider`, `version`, `input` `"stream"` or
/// `"objects"`, `streams`, `inflated_bytes`, `compressed_bytes`, `level`, `mb_per_s` of inflated
/// output, `ns_per_stream`; added to schema 1 without changing any other key, so readers of the
/// earlier reports are unaffected), `startup`, `commands` (added the same way: one entry per
/// hashing facility, its checksum command timed as a whole process on a [`FILE_SIZE`] file:
/// `facility`, `provider`, `command`, `size_bytes`, `wall_s`, `mb_per_s`; or `null` and
/// `commands_note`) and `fsck` (added the same way: `repo`, `pack_bytes`, `threads`, `wall_s`,
/// `cpu_s`, `max_rss_kib`, `status`; or `null` and `fsck_note`).
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
    let providers = provider_members(info);
    let openssl = match (&env.openssl, info.library(crate::spec::OPENSSL.name)) {
        (Some(runtime), Some(b)) => format!(
            "{{\"runtime\": {}, \"build\": {}, \"static\": {}}}",
            json::string(runtime),
            json::string(b.version.unwrap_or("unknown")),
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
    s.push_str("  \"zlib\": [\n");
    for (i, z) in report.zlib.iter().enumerate() {
        let _ = write!(
            s,
            "    {{\"facility\": {}, \"provider\": {}, \"version\": {}, \"input\": {}, \"streams\": {}, \"inflated_bytes\": {}, \"compressed_bytes\": {}, \"level\": {}, \"mb_per_s\": {}, \"ns_per_stream\": {}}}",
            json::string(ZLIB),
            json::string(Inflater::PROVIDER),
            json::string(&Inflater::version()),
            json::string(z.input.as_str()),
            z.streams,
            z.inflated_bytes,
            z.compressed_bytes,
            ZLIB_LEVEL,
            json::number(z.mb_per_s),
            json::number(z.ns_per_stream)
        );
        s.push_str(if i + 1 < report.zlib.len() {
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
    // Added to schema 1 like `zlib`: `commands` is an array, or null with `commands_note`.
    s.truncate(s.trim_end().len());
    s.push_str(",\n");
    match &report.commands {
        Ok(cells) => {
            s.push_str("  \"commands\": [\n");
            for (i, c) in cells.iter().enumerate() {
                let facility = algorithms()
                    .into_iter()
                    .find(|(a, _)| *a == c.algorithm)
                    .map_or("", |(_, f)| f);
                let _ = write!(
                    s,
                    "    {{\"facility\": {}, \"provider\": {}, \"command\": {}, \"size_bytes\": {}, \"wall_s\": {}, \"mb_per_s\": {}}}",
                    json::string(facility),
                    json::string(c.algorithm.provider()),
                    json::string(&c.command),
                    c.size,
                    json::number(c.wall_s),
                    json::number(c.mb_per_s)
                );
                s.push_str(if i + 1 < cells.len() { ",\n" } else { "\n" });
            }
            s.push_str("  ]\n");
        }
        Err(why) => {
            let _ = writeln!(
                s,
                "  \"commands\": null, \"commands_note\": {}",
                json::string(why)
            );
        }
    }
    // Added to schema 1 like `zlib`: `fsck` is an object, or null with `fsck_note` saying why.
    s.truncate(s.trim_end().len());
    s.push_str(",\n");
    match &report.fsck {
        Ok(r) => {
            let _ = writeln!(
                s,
                "  \"fsck\": {{\"repo\": {}, \"pack_bytes\": {}, \"threads\": {}, \"wall_s\": {}, \"cpu_s\": {}, \"max_rss_kib\": {}, \"status\": {}}}",
                json::string(&r.repo),
                r.pack_bytes,
                r.threads,
                json::number(r.wall_s),
                json::number(r.cpu_s),
                r.max_rss_kib,
                r.status
            );
        }
        Err(why) => {
            let _ = writeln!(s, "  \"fsck\": null, \"fsck_note\": {}", json::string(why));
        }
    }
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

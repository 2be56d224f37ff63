//! The provider comparison as one Markdown table, measured in one process:
//!
//! ```text
//! cargo bench --bench ratios --features openssl-sha1,openssl-md5,openssl-sha256
//! ```
//!
//! (a) throughput of one `update` over a buffer in memory (256 MiB by default), best and median of
//! several rounds, in MB/s (10^6 bytes per second); (b) the cost of one 64-byte message
//! (`new` + `update` + `finalize`), median of many rounds, in ns. Both with ratios to OpenSSL.
//!
//! Rows: every compiled provider of every algorithm, reached through the one visitor
//! `for_each_provider` (`dc`, `block`, `openssl` for SHA-1; `builtin`, `openssl` for MD5 and
//! SHA-256); the RustCrypto crates through their `digest` API as references (`md-5 crate`, which
//! the built-in MD5 replaced, and `sha2 crate`, whose block function the built-in SHA-256 uses
//! under flagsplit's own buffer); and, when the OpenSSL features are on, two baselines per
//! algorithm that call libcrypto straight from this file, without any flagsplit code in between:
//! `raw SHA1_*` (`SHA1_Init`/`SHA1_Update`/`SHA1_Final` on a context on the stack — "OpenSSL
//! low-level SHA1_*", the baseline the targets are judged against; likewise `raw MD5_*`, `raw
//! SHA256_*`) and `raw SHA1()` (the one-shot call). The `openssl` provider calls the same
//! low-level functions through `flagsplit-openssl-hash`, so its distance from `raw SHA1_*` is what
//! flagsplit's wrapper costs. Without the OpenSSL features the built-in providers are still
//! measured and the table says that the baseline is not compiled.
//!
//! Rounds interleave the rows (each round starts at another row) so that drift, frequency changes
//! and neighbours' load hit every row alike. Knobs (environment): `FLAGSPLIT_RATIOS_MIB` (buffer
//! size, default 256), `FLAGSPLIT_RATIOS_ROUNDS` (throughput rounds, default 7),
//! `FLAGSPLIT_RATIOS_SMALL_ROUNDS` (64-byte rounds, default 41), `FLAGSPLIT_RATIOS_ONLY` (only
//! these rows, e.g. `block,sha1:openssl`, for profiling), `FLAGSPLIT_RATIOS_PROFILE=N` (only run
//! the 64-byte loop N times per row, untimed: for `valgrind --tool=callgrind`). Run as a test (`cargo test
//! --benches`, no `--bench` argument) it only does a quick smoke run on 1 MiB.
//!
//! A second table, for the `zlib` facility, follows (`--features zlib-miniz,zlib-system,zlib-ng`
//! for every provider): MB/s of inflated output per compiled provider (`for_each_provider` of
//! flagsplit-zlib) (c) on one large stream, the repository's own files concatenated and repeated
//! to `FLAGSPLIT_RATIOS_ZLIB_MIB` (default 64) MiB, and (d) on git-object-shaped input: streams
//! of 100 B to 20 KB cut from the same files, back to back in one buffer as in a pack
//! (`FLAGSPLIT_RATIOS_OBJECTS_MIB` of output, default 16), each inflated with `inflate_to_vec`
//! and its known size by one reused inflater. Both inputs are compressed at level 6 by
//! miniz_oxide's compressor. `FLAGSPLIT_RATIOS_ONLY` takes `zlib` (only this table) or
//! `zlib:<provider>`, and a bare algorithm prefix (`sha1`) selects that algorithm's rows.

use std::hint::black_box;
use std::time::{Duration, Instant};

use flagsplit::hash::{Digest, HashProvider, Visitor, for_each_provider};

// `for_each_provider` visits every compiled provider. libcrypto is linked by build.rs (or
// openssl-sys) only when an OpenSSL hashing provider is selected, so with the OpenSSL hashing
// providers compiled and none selected, this links it for them.
#[cfg(all(
    any(
        feature = "openssl-sha1",
        feature = "openssl-md5",
        feature = "openssl-sha256"
    ),
    not(any(openssl_sha1, openssl_md5, openssl_sha256))
))]
#[link(name = "crypto")]
unsafe extern "C" {}

/// The algorithms in table order, as `HashProvider::ALGORITHM` spells them, with the prefix
/// `FLAGSPLIT_RATIOS_ONLY` takes and the feature that compiles the OpenSSL baseline.
const ALGORITHMS: [(&str, &str, &str); 3] = [
    ("SHA-1", "sha1", "openssl-sha1"),
    ("MD5", "md5", "openssl-md5"),
    ("SHA-256", "sha256", "openssl-sha256"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
// Without an OpenSSL hashing provider selected there are no raw rows (libcrypto is linked only then).
#[cfg_attr(not(any(openssl_sha1, openssl_md5, openssl_sha256)), allow(dead_code))]
enum Kind {
    /// A flagsplit provider.
    Provider,
    /// The flagsplit provider that calls OpenSSL (the `openssl` provider of the facility table).
    OpensslProvider,
    /// libcrypto's low-level functions called directly from here: the baseline of the targets.
    RawLowLevel,
    /// libcrypto's one-shot function, for reference.
    RawOneShot,
    /// A RustCrypto crate through its `digest` API, for reference.
    Crate,
}

/// One row of the table.
struct Row {
    algo: &'static str,
    name: String,
    kind: Kind,
    /// Hashes the whole buffer in one `update`; returns the digest.
    stream: fn(&[u8]) -> Digest,
    /// Hashes the 64-byte message `n` times, each time with a fresh hasher.
    small: fn(&[u8; 64], u64),
}

// ---------------------------------------------------------------------------------------------
// The flagsplit providers, reached through the visitor

fn stream<P: HashProvider>(data: &[u8]) -> Digest {
    let mut h = P::new();
    h.update(data);
    match h.finalize() {
        Ok(d) => Digest::new(d.as_ref()),
        // Only `dc` can refuse; the bench input is no collision attack.
        Err(e) => Digest::new(&e.into().digest),
    }
}

fn small<P: HashProvider>(message: &[u8; 64], n: u64) {
    for _ in 0..n {
        let mut h = P::new();
        h.update(black_box(&message[..]));
        black_box(h.finalize().ok());
    }
}

struct Collect(Vec<Row>);

impl Visitor for Collect {
    fn visit<P: HashProvider>(&mut self) {
        let name = P::PROVIDER;
        self.0.push(Row {
            algo: P::ALGORITHM,
            name: name.to_owned(),
            kind: if name == "openssl" {
                Kind::OpensslProvider
            } else {
                Kind::Provider
            },
            stream: stream::<P>,
            small: small::<P>,
        });
    }
}

// ---------------------------------------------------------------------------------------------
// The RustCrypto crates through their `digest` API (references)

fn stream_crate<D: md5::Digest>(data: &[u8]) -> Digest {
    Digest::new(&D::digest(data))
}

fn small_crate<D: md5::Digest>(message: &[u8; 64], n: u64) {
    for _ in 0..n {
        let mut h = D::new();
        h.update(black_box(&message[..]));
        black_box(h.finalize());
    }
}

// ---------------------------------------------------------------------------------------------
// libcrypto called directly (the baselines)

#[cfg(any(openssl_sha1, openssl_md5, openssl_sha256))]
mod raw {
    use std::ffi::{c_int, c_void};
    use std::hint::black_box;
    use std::mem::MaybeUninit;

    use flagsplit::hash::Digest;

    /// Room for libcrypto's `SHA_CTX` (96 bytes: five `u32` chaining values, two `u32` length
    /// words, sixteen `u32` of block buffer and one `u32` count, in OpenSSL 1.1 and 3.x),
    /// `SHA256_CTX` (112 bytes: eight chaining values, then the same fields and `md_len`) and
    /// `MD5_CTX` (92 bytes; the build's probes check these sizes).
    #[repr(C, align(16))]
    pub struct Ctx([u8; 128]);

    // libcrypto is on the link line whenever an OpenSSL hashing provider is selected (the `openssl_*`
    // cfgs): through the root build script, or through openssl-sys when it is in the build.
    unsafe extern "C" {
        fn SHA1_Init(c: *mut Ctx) -> c_int;
        fn SHA1_Update(c: *mut Ctx, data: *const c_void, len: usize) -> c_int;
        fn SHA1_Final(md: *mut u8, c: *mut Ctx) -> c_int;
        fn SHA1(d: *const u8, n: usize, md: *mut u8) -> *mut u8;
        fn MD5_Init(c: *mut Ctx) -> c_int;
        fn MD5_Update(c: *mut Ctx, data: *const c_void, len: usize) -> c_int;
        fn MD5_Final(md: *mut u8, c: *mut Ctx) -> c_int;
        fn MD5(d: *const u8, n: usize, md: *mut u8) -> *mut u8;
        fn SHA256_Init(c: *mut Ctx) -> c_int;
        fn SHA256_Update(c: *mut Ctx, data: *const c_void, len: usize) -> c_int;
        fn SHA256_Final(md: *mut u8, c: *mut Ctx) -> c_int;
        fn SHA256(d: *const u8, n: usize, md: *mut u8) -> *mut u8;
    }

    #[inline(always)]
    fn sha256_lowlevel(data: &[u8]) -> [u8; 32] {
        let mut ctx = MaybeUninit::<Ctx>::uninit();
        let ctx = ctx.as_mut_ptr();
        let mut out = [0u8; 32];
        // SAFETY: `ctx` is larger and more aligned than SHA256_CTX and is initialised by
        // SHA256_Init before use; valid slice; `out` has the 32 bytes SHA256_Final writes.
        unsafe {
            SHA256_Init(ctx);
            SHA256_Update(ctx, data.as_ptr().cast(), data.len());
            SHA256_Final(out.as_mut_ptr(), ctx);
        }
        out
    }

    #[inline(always)]
    fn sha256_oneshot(data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        // SAFETY: valid input slice; `out` has the 32 bytes SHA256 writes.
        unsafe {
            SHA256(data.as_ptr(), data.len(), out.as_mut_ptr());
        }
        out
    }

    pub fn stream_sha256_lowlevel(data: &[u8]) -> Digest {
        Digest::new(&sha256_lowlevel(data))
    }
    pub fn stream_sha256_oneshot(data: &[u8]) -> Digest {
        Digest::new(&sha256_oneshot(data))
    }
    pub fn small_sha256_lowlevel(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(sha256_lowlevel(black_box(&message[..])));
        }
    }
    pub fn small_sha256_oneshot(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(sha256_oneshot(black_box(&message[..])));
        }
    }

    #[inline(always)]
    fn sha1_lowlevel(data: &[u8]) -> [u8; 20] {
        // Uninitialised, as C code would declare it (zeroing it would slow the baseline down).
        let mut ctx = MaybeUninit::<Ctx>::uninit();
        let ctx = ctx.as_mut_ptr();
        let mut out = [0u8; 20];
        // SAFETY: `ctx` is larger and more aligned than SHA_CTX and is initialised by SHA1_Init
        // before use; the pointer/length pair is a valid slice; `out` has the 20 bytes
        // SHA1_Final writes.
        unsafe {
            SHA1_Init(ctx);
            SHA1_Update(ctx, data.as_ptr().cast(), data.len());
            SHA1_Final(out.as_mut_ptr(), ctx);
        }
        out
    }

    #[inline(always)]
    fn sha1_oneshot(data: &[u8]) -> [u8; 20] {
        let mut out = [0u8; 20];
        // SAFETY: valid input slice; `out` has the 20 bytes SHA1 writes.
        unsafe {
            SHA1(data.as_ptr(), data.len(), out.as_mut_ptr());
        }
        out
    }

    #[inline(always)]
    fn md5_lowlevel(data: &[u8]) -> [u8; 16] {
        let mut ctx = MaybeUninit::<Ctx>::uninit();
        let ctx = ctx.as_mut_ptr();
        let mut out = [0u8; 16];
        // SAFETY: `ctx` is larger and more aligned than MD5_CTX and is initialised by MD5_Init
        // before use; valid slice; `out` has the 16 bytes MD5_Final writes.
        unsafe {
            MD5_Init(ctx);
            MD5_Update(ctx, data.as_ptr().cast(), data.len());
            MD5_Final(out.as_mut_ptr(), ctx);
        }
        out
    }

    #[inline(always)]
    fn md5_oneshot(data: &[u8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: valid input slice; `out` has the 16 bytes MD5 writes.
        unsafe {
            MD5(data.as_ptr(), data.len(), out.as_mut_ptr());
        }
        out
    }

    pub fn stream_sha1_lowlevel(data: &[u8]) -> Digest {
        Digest::new(&sha1_lowlevel(data))
    }
    pub fn stream_sha1_oneshot(data: &[u8]) -> Digest {
        Digest::new(&sha1_oneshot(data))
    }
    pub fn stream_md5_lowlevel(data: &[u8]) -> Digest {
        Digest::new(&md5_lowlevel(data))
    }
    pub fn stream_md5_oneshot(data: &[u8]) -> Digest {
        Digest::new(&md5_oneshot(data))
    }

    pub fn small_sha1_lowlevel(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(sha1_lowlevel(black_box(&message[..])));
        }
    }
    pub fn small_sha1_oneshot(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(sha1_oneshot(black_box(&message[..])));
        }
    }
    pub fn small_md5_lowlevel(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(md5_lowlevel(black_box(&message[..])));
        }
    }
    pub fn small_md5_oneshot(message: &[u8; 64], n: u64) {
        for _ in 0..n {
            black_box(md5_oneshot(black_box(&message[..])));
        }
    }
}

/// Whether `row` passes the `FLAGSPLIT_RATIOS_ONLY` filter: a comma-separated list of row names
/// (`block`, `raw SHA1_*`), optionally prefixed by the algorithm (`sha1:openssl`, `md5:openssl`,
/// `sha256:builtin`).
/// For profiling one row, e.g. under `valgrind --tool=callgrind`.
fn selected(row: &Row, only: Option<&str>) -> bool {
    let Some(only) = only else { return true };
    let algo = ALGORITHMS
        .iter()
        .find(|(name, _, _)| *name == row.algo)
        .map_or("", |(_, prefix, _)| *prefix);
    only.split(',').map(str::trim).any(|want| {
        want == row.name
            || want.eq_ignore_ascii_case(algo)
            || want
                .split_once(':')
                .is_some_and(|(a, n)| a.eq_ignore_ascii_case(algo) && n == row.name)
    })
}

fn rows() -> Vec<Row> {
    let only = std::env::var("FLAGSPLIT_RATIOS_ONLY").ok();
    let mut rows = all_rows();
    rows.retain(|r| selected(r, only.as_deref()));
    rows
}

/// Every row, grouped by algorithm in table order: the providers, then the references.
fn all_rows() -> Vec<Row> {
    let mut c = Collect(Vec::new());
    for_each_provider(&mut c);
    let mut rows = c.0;
    let mut reference = |algo: &'static str, name: &str, kind, stream, small| {
        rows.push(Row {
            algo,
            name: name.to_owned(),
            kind,
            stream,
            small,
        });
    };
    #[cfg(openssl_sha1)]
    {
        reference(
            "SHA-1",
            "raw SHA1_*",
            Kind::RawLowLevel,
            raw::stream_sha1_lowlevel,
            raw::small_sha1_lowlevel,
        );
        reference(
            "SHA-1",
            "raw SHA1()",
            Kind::RawOneShot,
            raw::stream_sha1_oneshot,
            raw::small_sha1_oneshot,
        );
    }
    reference(
        "MD5",
        "md-5 crate",
        Kind::Crate,
        stream_crate::<md5::Md5>,
        small_crate::<md5::Md5>,
    );
    #[cfg(openssl_md5)]
    {
        reference(
            "MD5",
            "raw MD5_*",
            Kind::RawLowLevel,
            raw::stream_md5_lowlevel,
            raw::small_md5_lowlevel,
        );
        reference(
            "MD5",
            "raw MD5()",
            Kind::RawOneShot,
            raw::stream_md5_oneshot,
            raw::small_md5_oneshot,
        );
    }
    reference(
        "SHA-256",
        "sha2 crate",
        Kind::Crate,
        stream_crate::<sha2::Sha256>,
        small_crate::<sha2::Sha256>,
    );
    #[cfg(openssl_sha256)]
    {
        reference(
            "SHA-256",
            "raw SHA256_*",
            Kind::RawLowLevel,
            raw::stream_sha256_lowlevel,
            raw::small_sha256_lowlevel,
        );
        reference(
            "SHA-256",
            "raw SHA256()",
            Kind::RawOneShot,
            raw::stream_sha256_oneshot,
            raw::small_sha256_oneshot,
        );
    }
    // Stable sort: table order of the algorithms, providers before references.
    rows.sort_by_key(|r| ALGORITHMS.iter().position(|(name, _, _)| *name == r.algo));
    rows
}

// ---------------------------------------------------------------------------------------------
// Measuring

struct Settings {
    mib: usize,
    rounds: usize,
    small_rounds: usize,
    /// Wall time one 64-byte batch should take.
    small_batch: Duration,
    quick: bool,
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("ratios: ignoring {name}={v:?} (want a positive integer)");
                default
            }
        },
        Err(_) => default,
    }
}

fn settings() -> Settings {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then only a smoke run.
    let quick = !std::env::args().any(|a| a == "--bench");
    if quick {
        return Settings {
            mib: 1,
            rounds: 1,
            small_rounds: 3,
            small_batch: Duration::from_millis(1),
            quick,
        };
    }
    Settings {
        mib: env_usize("FLAGSPLIT_RATIOS_MIB", 256),
        rounds: env_usize("FLAGSPLIT_RATIOS_ROUNDS", 7),
        small_rounds: env_usize("FLAGSPLIT_RATIOS_SMALL_ROUNDS", 41),
        small_batch: Duration::from_millis(10),
        quick,
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Index order of round `r`: every row once, starting at another row each round.
fn order(len: usize, r: usize) -> impl Iterator<Item = usize> {
    (0..len).map(move |i| (i + r) % len)
}

struct Results {
    /// Per row: MB/s of each throughput round.
    mbps: Vec<Vec<f64>>,
    /// Per row: ns per 64-byte message of each round.
    ns: Vec<Vec<f64>>,
}

fn measure(rows: &[Row], s: &Settings) -> Results {
    let buf = flagsplit::bench::input(s.mib * 1024 * 1024);

    // Every row of an algorithm must compute the same digest, or the comparison is meaningless
    // (this also checks the raw baselines' declarations). It is the warm-up round, too.
    for (algo, _, _) in ALGORITHMS {
        let digests: Vec<(&str, Digest)> = rows
            .iter()
            .filter(|r| r.algo == algo)
            .map(|r| (r.name.as_str(), (r.stream)(&buf)))
            .collect();
        for (name, d) in digests.iter().skip(1) {
            assert_eq!(
                *d, digests[0].1,
                "{algo} rows {} and {name} disagree",
                digests[0].0
            );
        }
    }

    let mut mbps = vec![Vec::new(); rows.len()];
    for r in 0..s.rounds {
        for i in order(rows.len(), r) {
            let t = Instant::now();
            black_box((rows[i].stream)(black_box(&buf)));
            let secs = t.elapsed().as_secs_f64();
            mbps[i].push(buf.len() as f64 / secs / 1e6);
        }
    }
    drop(buf);

    let message: [u8; 64] = flagsplit::bench::input(64).try_into().expect("64 bytes");
    // Calibrate: messages per batch so that one batch takes about `small_batch`.
    let batch: Vec<u64> = rows
        .iter()
        .map(|row| {
            let mut n = 64u64;
            loop {
                let t = Instant::now();
                (row.small)(&message, n);
                if t.elapsed() >= s.small_batch / 4 || n >= 1 << 30 {
                    let per = t.elapsed().as_secs_f64() / n as f64;
                    return ((s.small_batch.as_secs_f64() / per) as u64).max(1);
                }
                n *= 2;
            }
        })
        .collect();
    let mut ns = vec![Vec::new(); rows.len()];
    for r in 0..s.small_rounds {
        for i in order(rows.len(), r) {
            let t = Instant::now();
            (rows[i].small)(&message, batch[i]);
            ns[i].push(t.elapsed().as_secs_f64() * 1e9 / batch[i] as f64);
        }
    }
    Results { mbps, ns }
}

// ---------------------------------------------------------------------------------------------
// Reporting

fn ratio(x: f64, base: Option<f64>) -> String {
    match base {
        Some(b) if b > 0.0 => format!("{:.2}×", x / b),
        _ => "n/a".to_owned(),
    }
}

struct Target {
    what: String,
    got: Option<f64>,
    limit: f64,
    at_least: bool,
}

fn main() {
    let rows = rows();
    if let Some(n) = std::env::var("FLAGSPLIT_RATIOS_PROFILE")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        // Only the 64-byte loop of the selected rows, `n` messages each, no timing: run under
        // `valgrind --tool=callgrind` with n and 0 and subtract to get instructions per message.
        let message: [u8; 64] = flagsplit::bench::input(64).try_into().expect("64 bytes");
        for row in &rows {
            (row.small)(&message, n);
        }
        println!("profile: {} rows x {n} messages", rows.len());
        return;
    }
    let s = settings();
    if !rows.is_empty() {
        hash_section(&rows, &s);
    }
    let zlib_rows = zlib::rows();
    if !zlib_rows.is_empty() {
        zlib::section(&zlib_rows, &s);
    }
}

/// The hashing table: (a) and (b), and the targets.
fn hash_section(rows: &[Row], s: &Settings) {
    let load_before = loadavg();
    let started = Instant::now();
    let res = measure(rows, s);
    let load_after = loadavg();

    let best: Vec<f64> = res
        .mbps
        .iter()
        .map(|v| v.iter().copied().fold(0.0, f64::max))
        .collect();
    let med_mbps: Vec<f64> = res.mbps.iter().map(|v| median(&mut v.clone())).collect();
    let med_ns: Vec<f64> = res.ns.iter().map(|v| median(&mut v.clone())).collect();
    let find = |algo: &str, kind: Kind| rows.iter().position(|r| r.algo == algo && r.kind == kind);
    let name_of =
        |algo: &str, name: &str| rows.iter().position(|r| r.algo == algo && r.name == name);

    println!("## flagsplit provider ratios");
    println!();
    if s.quick {
        println!(
            "(smoke run: no `--bench` argument, so 1 MiB and a few rounds; not a measurement)"
        );
        println!();
    }
    println!(
        "- cpu: {}; libcrypto: {}",
        flagsplit::cpu::CpuFeatures::detect().describe(),
        flagsplit::hash::openssl_version().unwrap_or_else(|| "not linked".to_owned())
    );
    println!(
        "- load average (1/5/15 min) before: {load_before}, after: {load_after}; took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!(
        "- (a) one `update` over {} MiB in memory, {} interleaved rounds after a warm-up round; \
         MB/s = 10^6 bytes/s",
        s.mib, s.rounds
    );
    println!(
        "- (b) `new` + `update(64 bytes)` + `finalize`, median of {} interleaved rounds of ~{} ms",
        s.small_rounds,
        s.small_batch.as_millis()
    );
    println!(
        "- baselines: `openssl` = flagsplit's provider (libcrypto SHA1_*/MD5_*/SHA256_* through \
         flagsplit-openssl-hash); `raw SHA1_*`/`raw MD5_*`/`raw SHA256_*` = the same libcrypto \
         functions called directly from the bench (\"OpenSSL low-level\", the targets' baseline); \
         `raw SHA1()`/`raw MD5()`/`raw SHA256()` = libcrypto's one-shot call; `md-5 crate`/`sha2 \
         crate` = RustCrypto through its `digest` API"
    );
    for (algo, _, feature) in ALGORITHMS {
        if find(algo, Kind::RawLowLevel).is_none() {
            println!(
                "- {algo}: the OpenSSL baseline is not compiled (build with `--features {feature}`)"
            );
        }
    }
    println!();
    println!(
        "| algorithm | provider | best MB/s | median MB/s | × openssl provider | × raw low-level \
         | 64-byte message ns | × openssl provider | × raw low-level |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (i, row) in rows.iter().enumerate() {
        let prov = find(row.algo, Kind::OpensslProvider);
        let raw = find(row.algo, Kind::RawLowLevel);
        println!(
            "| {} | {} | {:.0} | {:.0} | {} | {} | {:.1} | {} | {} |",
            row.algo,
            row.name,
            best[i],
            med_mbps[i],
            ratio(best[i], prov.map(|p| best[p])),
            ratio(best[i], raw.map(|p| best[p])),
            med_ns[i],
            ratio(med_ns[i], prov.map(|p| med_ns[p])),
            ratio(med_ns[i], raw.map(|p| med_ns[p])),
        );
    }

    // The targets, against the raw low-level baseline.
    let thr = |algo: &str, name: &str| -> Option<f64> {
        let i = name_of(algo, name)?;
        let b = find(algo, Kind::RawLowLevel)?;
        Some(best[i] / best[b])
    };
    let cost = |algo: &str, name: &str| -> Option<f64> {
        let i = name_of(algo, name)?;
        let b = find(algo, Kind::RawLowLevel)?;
        Some(med_ns[i] / med_ns[b])
    };
    let targets = [
        Target {
            what: "SHA-1 block throughput ≥ 0.95× OpenSSL".into(),
            got: thr("SHA-1", "block"),
            limit: 0.95,
            at_least: true,
        },
        Target {
            what: "SHA-1 dc throughput ≥ 0.85× OpenSSL".into(),
            got: thr("SHA-1", "dc"),
            limit: 0.85,
            at_least: true,
        },
        Target {
            what: "SHA-1 block 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("SHA-1", "block"),
            limit: 1.2,
            at_least: false,
        },
        Target {
            what: "SHA-1 openssl provider 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("SHA-1", "openssl"),
            limit: 1.2,
            at_least: false,
        },
        Target {
            what: "SHA-1 dc 64-byte cost ≤ 1.5× OpenSSL low-level".into(),
            got: cost("SHA-1", "dc"),
            limit: 1.5,
            at_least: false,
        },
        Target {
            what: "MD5 builtin 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("MD5", "builtin"),
            limit: 1.2,
            at_least: false,
        },
        Target {
            what: "MD5 openssl provider 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("MD5", "openssl"),
            limit: 1.2,
            at_least: false,
        },
        Target {
            what: "SHA-256 builtin throughput ≥ 0.95× OpenSSL".into(),
            got: thr("SHA-256", "builtin"),
            limit: 0.95,
            at_least: true,
        },
        Target {
            what: "SHA-256 builtin 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("SHA-256", "builtin"),
            limit: 1.2,
            at_least: false,
        },
        Target {
            what: "SHA-256 openssl provider 64-byte cost ≤ 1.2× OpenSSL low-level".into(),
            got: cost("SHA-256", "openssl"),
            limit: 1.2,
            at_least: false,
        },
    ];
    println!();
    if s.quick {
        println!("Targets: not judged in a smoke run.");
        return;
    }
    println!("Targets (against the raw low-level baseline):");
    println!();
    for t in &targets {
        let verdict = match t.got {
            None => "not measured (baseline or provider not compiled)".to_owned(),
            Some(x) => {
                let ok = if t.at_least {
                    x >= t.limit
                } else {
                    x <= t.limit
                };
                format!("{:.2}× — {}", x, if ok { "met" } else { "MISSED" })
            }
        };
        println!("- {}: {verdict}", t.what);
    }
}

// ---------------------------------------------------------------------------------------------
// The zlib inflaters

mod zlib {
    use std::hint::black_box;
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    use flagsplit_zlib::{Inflater, Visitor, for_each_provider};

    use super::{Settings, env_usize, loadavg, median, order, ratio};

    /// One provider.
    pub struct Row {
        name: &'static str,
        version: String,
        /// Inflates the large stream with a fresh inflater and checks its size.
        large: fn(&[u8], usize, &mut Vec<u8>),
        /// Inflates every object of the pack with one reused inflater (and checks each against
        /// the source when given).
        pack: fn(&Pack, Option<&[u8]>),
    }

    struct Collect(Vec<Row>);

    impl Visitor for Collect {
        fn visit<I: Inflater>(&mut self) {
            self.0.push(Row {
                name: I::PROVIDER,
                version: I::version(),
                large: large::<I>,
                pack: pack::<I>,
            });
        }
    }

    /// The compiled providers that `FLAGSPLIT_RATIOS_ONLY` selects (`zlib`, `zlib:<provider>`).
    pub fn rows() -> Vec<Row> {
        let mut c = Collect(Vec::new());
        for_each_provider(&mut c);
        let only = std::env::var("FLAGSPLIT_RATIOS_ONLY").ok();
        if let Some(only) = only.as_deref() {
            c.0.retain(|row| {
                only.split(',').map(str::trim).any(|want| {
                    want.eq_ignore_ascii_case("zlib")
                        || want
                            .split_once(':')
                            .is_some_and(|(a, n)| a.eq_ignore_ascii_case("zlib") && n == row.name)
                })
            });
        }
        c.0
    }

    fn large<I: Inflater>(stream: &[u8], size: usize, out: &mut Vec<u8>) {
        let mut inf = I::new().expect("new");
        let used = inf.inflate_to_vec(stream, size, out).expect("inflate");
        assert_eq!(used, stream.len());
    }

    /// Streams back to back, as objects in a pack.
    pub struct Pack {
        buf: Vec<u8>,
        /// Per object: stream length, inflated size, offset of its data in the source.
        objects: Vec<(usize, usize, usize)>,
        inflated: usize,
    }

    fn pack<I: Inflater>(pack: &Pack, source: Option<&[u8]>) {
        let mut inf = I::new().expect("new");
        let mut out = Vec::new();
        let mut pos = 0;
        for &(len, size, from) in &pack.objects {
            let used = inf
                .inflate_to_vec(&pack.buf[pos..], size, &mut out)
                .expect("inflate");
            assert_eq!(used, len);
            if let Some(source) = source {
                assert!(out[..] == source[from..from + size], "{}", I::PROVIDER);
            }
            black_box(&out);
            pos += used;
        }
    }

    /// The repository's files (without build output and fuzzing state), concatenated in path
    /// order.
    fn repository_files() -> Vec<u8> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                if name == ".git" || name == "target" || is_fuzz_state(&e.path()) {
                    continue;
                }
                match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path(), out),
                    Ok(t) if t.is_file() => out.push(e.path()),
                    _ => {}
                }
            }
        }
        let mut paths = Vec::new();
        walk(Path::new(env!("CARGO_MANIFEST_DIR")), &mut paths);
        paths.sort();
        let mut blob = Vec::new();
        for p in paths {
            if let Ok(data) = std::fs::read(p) {
                blob.extend_from_slice(&data);
            }
        }
        assert!(
            blob.len() > 1 << 20,
            "the repository's files were not found"
        );
        blob
    }

    /// `fuzz/corpus` and `fuzz/artifacts`: what `cargo fuzz` left behind, not the repository's.
    fn is_fuzz_state(path: &Path) -> bool {
        path.ends_with("fuzz/corpus") || path.ends_with("fuzz/artifacts")
    }

    /// Objects of 100 B to 20 KB (log-uniform) cut from `source` at random offsets, until
    /// `total` bytes, each compressed at level 6, back to back.
    fn make_pack(source: &[u8], total: usize) -> Pack {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut buf, mut objects, mut inflated) = (Vec::new(), Vec::new(), 0);
        while inflated < total {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let size = (100.0 * 200f64.powf(u)) as usize;
            let from = (next() as usize) % (source.len() - size);
            let z = miniz_oxide::deflate::compress_to_vec_zlib(&source[from..from + size], 6);
            objects.push((z.len(), size, from));
            buf.extend_from_slice(&z);
            inflated += size;
        }
        Pack {
            buf,
            objects,
            inflated,
        }
    }

    pub fn section(rows: &[Row], s: &Settings) {
        let (mib, objects_mib) = if s.quick {
            (1, 1)
        } else {
            (
                env_usize("FLAGSPLIT_RATIOS_ZLIB_MIB", 64),
                env_usize("FLAGSPLIT_RATIOS_OBJECTS_MIB", 16),
            )
        };
        let source = repository_files();
        let size = mib << 20;
        let data: Vec<u8> = source.iter().copied().cycle().take(size).collect();
        let t = Instant::now();
        let stream = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        let pack_in = make_pack(&source, objects_mib << 20);
        let prepared = t.elapsed().as_secs_f64();

        // The warm-up round checks every provider's output.
        let mut out = Vec::new();
        for row in rows {
            (row.large)(&stream, size, &mut out);
            assert!(
                out == data,
                "{}: the large stream inflates wrongly",
                row.name
            );
            (row.pack)(&pack_in, Some(&source));
        }
        let load_before = loadavg();
        let started = Instant::now();
        let (mut large_mbps, mut pack_mbps) =
            (vec![Vec::new(); rows.len()], vec![Vec::new(); rows.len()]);
        for r in 0..s.rounds {
            for i in order(rows.len(), r) {
                let t = Instant::now();
                (rows[i].large)(black_box(&stream), size, &mut out);
                large_mbps[i].push(size as f64 / t.elapsed().as_secs_f64() / 1e6);
                let t = Instant::now();
                (rows[i].pack)(black_box(&pack_in), None);
                pack_mbps[i].push(pack_in.inflated as f64 / t.elapsed().as_secs_f64() / 1e6);
            }
        }
        let load_after = loadavg();
        let best = |v: &[Vec<f64>]| -> Vec<f64> {
            v.iter()
                .map(|r| r.iter().copied().fold(0.0, f64::max))
                .collect()
        };
        let (large_best, pack_best) = (best(&large_mbps), best(&pack_mbps));
        let large_med: Vec<f64> = large_mbps.iter().map(|v| median(&mut v.clone())).collect();
        let pack_med: Vec<f64> = pack_mbps.iter().map(|v| median(&mut v.clone())).collect();
        let system = rows.iter().position(|r| r.name == "system");
        let mut sizes: Vec<f64> = pack_in.objects.iter().map(|o| o.1 as f64).collect();
        let median_size = median(&mut sizes);

        println!();
        println!("## zlib inflate");
        println!();
        if s.quick {
            println!("(smoke run: 1 MiB inputs, one round; not a measurement)");
            println!();
        }
        println!(
            "- load average (1/5/15 min) before: {load_before}, after: {load_after}; took {:.1} s \
             (inputs prepared in {prepared:.1} s)",
            started.elapsed().as_secs_f64()
        );
        println!(
            "- (c) one stream: {mib} MiB of the repository's files ({:.1} MiB, repeated), level 6 \
             (miniz_oxide), {:.1} MiB compressed; `inflate_to_vec` with its size, a fresh inflater \
             per round",
            source.len() as f64 / 1048576.0,
            stream.len() as f64 / 1048576.0
        );
        println!(
            "- (d) {} objects of 100 B–20 KB (median {median_size:.0} B) cut from the same files, \
             {:.1} MiB inflated from {:.1} MiB, back to back; one reused inflater, \
             `inflate_to_vec` with each object's size",
            pack_in.objects.len(),
            pack_in.inflated as f64 / 1048576.0,
            pack_in.buf.len() as f64 / 1048576.0
        );
        println!(
            "- best and median of {} interleaved rounds after a checked warm-up round; MB/s = \
             10^6 inflated bytes/s; × system = against the system libz (git's usual zlib)",
            s.rounds
        );
        println!();
        println!(
            "| provider | version | (c) best MB/s | (c) median MB/s | × system | (d) best MB/s | \
             (d) median MB/s | × system | (d) ns per object |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
        for (i, row) in rows.iter().enumerate() {
            let per_object =
                pack_in.inflated as f64 / (pack_best[i] * 1e6) / pack_in.objects.len() as f64 * 1e9;
            println!(
                "| {} | {} | {:.0} | {:.0} | {} | {:.0} | {:.0} | {} | {:.0} |",
                row.name,
                row.version,
                large_best[i],
                large_med[i],
                ratio(large_best[i], system.map(|j| large_best[j])),
                pack_best[i],
                pack_med[i],
                ratio(pack_best[i], system.map(|j| pack_best[j])),
                per_object,
            );
        }
    }
}

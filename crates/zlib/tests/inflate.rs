//! Known answers and agreement for every compiled provider, through `for_each_provider`: Python's
//! zlib compresses (the oracle: random, text-like and run-heavy data of many sizes, levels 0, 1, 6
//! and 9, every strategy, window sizes 2^9 to 2^15, and the repository's own files), each
//! provider inflates, whole and in random chunks, and must give back the original; many small
//! streams back to back must each end exactly where Python's did; every prefix of a few streams
//! is truncated, flipped bytes, bad headers and bad Adler-32s are refused, a wrong expected size
//! or limit is refused, and nothing panics. Every provider's transcript of verdicts must be the
//! same, byte for byte.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use flagsplit_test_support::{Rng, hex, runs, skip};
use flagsplit_zlib::{ActualSize, Error, Inflater, Step, Visitor, for_each_provider};

// ---------------------------------------------------------------------------------------------
// The oracle

/// One stream for Python to make: zlib.compressobj(level, DEFLATED, wbits, memlevel, strategy).
#[derive(Clone, Copy, Debug)]
struct Params {
    level: i8,
    wbits: u8,
    memlevel: u8,
    strategy: u8,
}

const DEFAULT: Params = Params {
    level: 6,
    wbits: 15,
    memlevel: 8,
    strategy: 0,
};

/// Compresses each `(params, data)` with Python's zlib, in one process.
fn python_compress(jobs: &[(Params, &[u8])]) -> Vec<Vec<u8>> {
    const SCRIPT: &str = "import sys,zlib,struct
d=sys.stdin.buffer.read();o=sys.stdout.buffer;i=0
while i<len(d):
    lv,wb,ml,st,n=struct.unpack_from('<bBBBI',d,i);i+=8
    c=zlib.compressobj(lv,zlib.DEFLATED,wb,ml,st);z=c.compress(d[i:i+n])+c.flush();i+=n
    o.write(struct.pack('<I',len(z))+z)
";
    let mut request = Vec::new();
    for (p, data) in jobs {
        request.push(p.level as u8);
        request.extend_from_slice(&[p.wbits, p.memlevel, p.strategy]);
        request.extend_from_slice(&(data.len() as u32).to_le_bytes());
        request.extend_from_slice(data);
    }
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&request));
    let mut reply = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut reply)
        .expect("read python's output");
    writer.join().expect("writer").expect("write to python");
    assert!(child.wait().expect("wait").success(), "python3 failed");
    let mut out = Vec::new();
    let mut rest = &reply[..];
    while !rest.is_empty() {
        let n = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        out.push(rest[4..4 + n].to_vec());
        rest = &rest[4 + n..];
    }
    assert_eq!(
        out.len(),
        jobs.len(),
        "python3 returned another number of streams"
    );
    out
}

// ---------------------------------------------------------------------------------------------
// The inputs

/// Data of one kind: incompressible, text-like, runs, or a mixture.
fn data(rng: &mut Rng, kind: usize, len: usize) -> Vec<u8> {
    const WORDS: [&[u8]; 12] = [
        b"tree ",
        b"blob ",
        b"commit ",
        b"parent ",
        b"author ",
        b"\n",
        b"fn ",
        b"let ",
        b"0000",
        b"flagsplit ",
        b"zlib ",
        b"{}\n",
    ];
    let mut out = Vec::with_capacity(len + 16);
    match kind % 4 {
        0 => out = rng.bytes(len),
        1 => {
            while out.len() < len {
                out.extend_from_slice(WORDS[rng.below(WORDS.len())]);
            }
        }
        2 => {
            while out.len() < len {
                let b = rng.below(4) as u8;
                let run = 1 + rng.below(300);
                out.extend(std::iter::repeat_n(b, run));
            }
        }
        _ => {
            while out.len() < len {
                let part = 1 + rng.below(5000);
                let k = rng.below(3);
                out.extend(data(rng, k, part));
            }
        }
    }
    out.truncate(len);
    out
}

/// The repository's own files (sources, manifests, documents; not build output or fuzzing
/// state), smallest first.
fn repository_files() -> Vec<Vec<u8>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            if name == ".git" || name == "target" || is_fuzz_state(&path) {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => walk(&path, out),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    let mut files: Vec<Vec<u8>> = paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|d| d.len() <= 4 << 20)
        .collect();
    files.sort_by_key(Vec::len);
    files
}

/// `fuzz/corpus` and `fuzz/artifacts`: what `cargo fuzz` left behind, not the repository's.
fn is_fuzz_state(path: &Path) -> bool {
    path.ends_with("fuzz/corpus") || path.ends_with("fuzz/artifacts")
}

/// A test case: original data and Python's stream of it.
struct Case {
    name: String,
    data: Vec<u8>,
    stream: Vec<u8>,
}

fn cases(rng: &mut Rng) -> Vec<Case> {
    const SIZES: [usize; 17] = [
        0,
        1,
        2,
        3,
        31,
        100,
        255,
        258,
        1000,
        4095,
        32767,
        32768,
        32769,
        65543,
        100_000,
        300_001,
        1 << 20,
    ];
    let mut jobs: Vec<(String, Params, Vec<u8>)> = Vec::new();
    for (i, &size) in SIZES.iter().enumerate() {
        for kind in 0..4 {
            for level in [0i8, 1, 6, 9] {
                let d = data(rng, kind + i, size);
                jobs.push((
                    format!("kind {kind} size {size} level {level}"),
                    Params { level, ..DEFAULT },
                    d,
                ));
            }
        }
    }
    // Every strategy (filtered, Huffman only, RLE, fixed codes) and window size, on mixed data.
    for strategy in 1..=4u8 {
        for wbits in [9u8, 12, 15] {
            let size = [5000, 70_000][usize::from(wbits) % 2];
            jobs.push((
                format!("strategy {strategy} wbits {wbits} size {size}"),
                Params {
                    strategy,
                    wbits,
                    memlevel: 1 + rng.below(9) as u8,
                    ..DEFAULT
                },
                data(rng, 3, size),
            ));
        }
    }
    let files = repository_files();
    assert!(files.len() > 50, "the repository's files were not found");
    for (i, f) in files.iter().enumerate() {
        let level = [6i8, 1, 9][i % 3];
        jobs.push((
            format!("repository file #{i} ({} bytes) level {level}", f.len()),
            Params { level, ..DEFAULT },
            f.clone(),
        ));
    }
    let requests: Vec<(Params, &[u8])> = jobs.iter().map(|(_, p, d)| (*p, &d[..])).collect();
    let streams = python_compress(&requests);
    jobs.into_iter()
        .zip(streams)
        .map(|((name, _, data), stream)| Case { name, data, stream })
        .collect()
}

/// A zlib stream (no dictionary flag) of 300 zeros and `tail` whose deflate data was made with a
/// preset dictionary of zeros, so its first match reaches before the start; and its data.
fn too_far_back() -> (Vec<u8>, Vec<u8>) {
    let script = "import sys,zlib
d=b'\\0'*300+b'tail'
c=zlib.compressobj(9,zlib.DEFLATED,-15,9,0,zdict=b'\\0'*1000)
sys.stdout.buffer.write(b'\\x78\\xda'+c.compress(d)+c.flush()+zlib.adler32(d).to_bytes(4,'big'))";
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3");
    assert!(out.status.success(), "python3 failed");
    let mut data = vec![0u8; 300];
    data.extend_from_slice(b"tail");
    (data, out.stdout)
}

/// Many small streams back to back, as objects in a pack: sizes 100 B to 20 KB, random levels.
fn pack(rng: &mut Rng, count: usize) -> (Vec<Vec<u8>>, Vec<u8>, Vec<usize>) {
    let objects: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let size = 100 + rng.below(20_000 - 100);
            data(rng, i, size)
        })
        .collect();
    let requests: Vec<(Params, &[u8])> = objects
        .iter()
        .enumerate()
        .map(|(i, d)| {
            (
                Params {
                    level: [1i8, 6, 9, 0][i % 4],
                    ..DEFAULT
                },
                &d[..],
            )
        })
        .collect();
    let streams = python_compress(&requests);
    let lens = streams.iter().map(Vec::len).collect();
    (objects, streams.concat(), lens)
}

// ---------------------------------------------------------------------------------------------
// Driving an inflater

/// A verdict on corrupt input, as the providers must agree on it: accepted (with the input
/// consumed; the output is compared separately) or refused. Which error refuses it may differ: the
/// decoders validate at different points, e.g. zlib (and its ports) accepts an empty code-length
/// code and reads on until the input ends (truncated) or a missing end-of-block code shows,
/// where miniz_oxide refuses it at once (corrupt). Valid streams, their prefixes and wrong sizes
/// are checked for their exact error.
fn verdict(r: &Result<usize, Error>) -> String {
    match r {
        Ok(n) => format!("ok, {n} bytes of input"),
        Err(Error::Library { provider, detail }) => format!("library error {provider}: {detail}"),
        Err(_) => "refused".to_owned(),
    }
}

/// Inflates the stream at the start of `input` through `inflate` alone, feeding input and output
/// in random chunk sizes (small ones below `small` bytes of output).
fn inflate_chunked<I: Inflater>(
    inf: &mut I,
    input: &[u8],
    rng: &mut Rng,
    small: bool,
) -> Result<(usize, Vec<u8>), Error> {
    inf.reset();
    let pick = |rng: &mut Rng| {
        if small {
            1 + rng.below(64)
        } else {
            [1, 1 + rng.below(300), 1 + rng.below(100_000)][rng.below(3)]
        }
    };
    let (mut pos, mut out) = (0, Vec::new());
    let mut buf = vec![0u8; 100_000];
    loop {
        let n_in = pick(rng).min(input.len() - pos);
        let n_out = pick(rng);
        let step: Step = inf.inflate(&input[pos..pos + n_in], &mut buf[..n_out])?;
        assert!(step.consumed <= n_in && step.written <= n_out, "{step:?}");
        out.extend_from_slice(&buf[..step.written]);
        pos += step.consumed;
        if step.end {
            return Ok((pos, out));
        }
        if step.consumed == 0 && step.written == 0 {
            assert_eq!(n_in, 0, "{}: no progress with input and room", I::PROVIDER);
            return Err(Error::Truncated {
                inflated: out.len() as u64,
            });
        }
    }
}

/// Runs every check on provider `I` and returns its transcript of verdicts.
fn transcript<I: Inflater>(cases: &[Case], pack: &(Vec<Vec<u8>>, Vec<u8>, Vec<usize>)) -> String {
    let p = I::PROVIDER;
    let mut t = String::new();
    let mut inf = I::new().expect("new");
    let mut out = Vec::new();
    let mut rng = Rng(7);

    // Known answers, whole and chunked, with what follows the stream, and wrong sizes.
    for c in cases {
        let n = c.data.len();
        let r = inf.inflate_to_vec(&c.stream, n, &mut out);
        assert_eq!(r, Ok(c.stream.len()), "{p}: {}", c.name);
        assert!(out == c.data, "{p}: {}: output differs", c.name);

        let mut followed = c.stream.clone();
        followed.extend_from_slice(b"x\x9c next object");
        assert_eq!(
            inf.inflate_to_vec(&followed, n, &mut out),
            Ok(c.stream.len()),
            "{p}: {} followed by more",
            c.name
        );
        let (used, chunked) = inflate_chunked(&mut inf, &followed, &mut rng, n <= 65536)
            .unwrap_or_else(|e| panic!("{p}: {} in chunks: {e}", c.name));
        assert_eq!(used, c.stream.len(), "{p}: {} in chunks: end", c.name);
        assert!(
            chunked == c.data,
            "{p}: {} in chunks: output differs",
            c.name
        );

        assert_eq!(
            inf.inflate_to_vec_limited(&c.stream, n, &mut out),
            Ok(c.stream.len()),
            "{p}: {} limited to its size",
            c.name
        );
        assert!(out == c.data, "{p}: {} limited: output differs", c.name);
        let mut fresh = Vec::new();
        let r = inf.inflate_to_vec(&c.stream, n + 1, &mut fresh);
        assert_eq!(
            r,
            Err(Error::SizeMismatch {
                expected: n as u64 + 1,
                actual: ActualSize::Exactly(n as u64)
            }),
            "{p}: {} expected one byte more",
            c.name
        );
        assert!(fresh == c.data, "{p}: {}: what came before", c.name);
        if n > 0 {
            let mut fresh = Vec::new();
            let r = inf.inflate_to_vec(&c.stream, n - 1, &mut fresh);
            assert_eq!(
                r,
                Err(Error::SizeMismatch {
                    expected: n as u64 - 1,
                    actual: ActualSize::MoreThan(n as u64 - 1)
                }),
                "{p}: {} expected one byte less",
                c.name
            );
            assert!(
                fresh == c.data[..n - 1],
                "{p}: {}: what came before",
                c.name
            );
            // The expected size and the fixed room past it, no more.
            assert!(
                fresh.capacity() <= n - 1 + flagsplit_zlib::EXPECTED_SLACK,
                "{p}: {}",
                c.name
            );
            let r = inf.inflate_to_vec_limited(&c.stream, n - 1, &mut fresh);
            assert_eq!(
                r,
                Err(Error::LimitExceeded {
                    limit: n as u64 - 1
                }),
                "{p}: {} limited to one byte less",
                c.name
            );
            assert!(fresh.len() < n, "{p}: {}", c.name);
        }
        writeln!(t, "{}: ok", c.name).unwrap();
    }

    // Back to back: each stream must end exactly where Python's did.
    let (objects, buf, lens) = pack;
    let mut pos = 0;
    for (i, (obj, len)) in objects.iter().zip(lens).enumerate() {
        let r = inf.inflate_to_vec(&buf[pos..], obj.len(), &mut out);
        assert_eq!(r, Ok(*len), "{p}: packed object {i}");
        assert!(out == *obj, "{p}: packed object {i}: output differs");
        let (used, chunked) = inflate_chunked(&mut inf, &buf[pos..], &mut rng, false)
            .unwrap_or_else(|e| panic!("{p}: packed object {i} in chunks: {e}"));
        assert_eq!(used, *len, "{p}: packed object {i} in chunks: end");
        assert!(chunked == *obj, "{p}: packed object {i} in chunks");
        pos += len;
    }
    assert_eq!(pos, buf.len());
    writeln!(t, "{} packed objects: ok", objects.len()).unwrap();

    // Truncation: every proper prefix of a few streams of each kind.
    let few: Vec<&Case> = cases
        .iter()
        .filter(|c| (100..=5000).contains(&c.data.len()) || c.data.len() <= 3)
        .step_by(3)
        .take(12)
        .collect();
    assert!(few.len() >= 8);
    for c in &few {
        for k in 0..c.stream.len() {
            let prefix = &c.stream[..k];
            let r = inf.inflate_to_vec(prefix, c.data.len(), &mut out);
            assert!(
                matches!(r, Err(Error::Truncated { .. })),
                "{p}: {} cut at {k}: {r:?}",
                c.name
            );
            assert!(
                c.data.starts_with(&out),
                "{p}: {} cut at {k}: output",
                c.name
            );
            let r = inflate_chunked(&mut inf, prefix, &mut rng, true);
            assert!(
                matches!(r, Err(Error::Truncated { .. })),
                "{p}: {} cut at {k}, in chunks: {r:?}",
                c.name
            );
        }
        writeln!(t, "{}: every prefix truncated", c.name).unwrap();
    }

    // Corruption: flipped bytes anywhere (the verdict is recorded: any error, or the original when
    // only ignored bits changed), bad headers, bad Adler-32s. Never a panic, never more output
    // than expected.
    let mut flips = Rng(99);
    for c in &few {
        let n = c.data.len();
        for _ in 0..300 {
            let mut bad = c.stream.clone();
            let at = flips.below(bad.len());
            bad[at] ^= 1 << flips.below(8);
            if flips.below(4) == 0 {
                let at2 = flips.below(bad.len());
                bad[at2] = flips.next_u64() as u8;
            }
            let mut fresh = Vec::new();
            let r = inf.inflate_to_vec(&bad, n, &mut fresh);
            assert!(fresh.len() <= n && fresh.capacity() <= n.max(1024));
            let same = r.is_ok() && fresh == c.data;
            assert!(
                r.is_err() || same,
                "{p}: {} flipped: other data accepted",
                c.name
            );
            let chunked = inflate_chunked(&mut inf, &bad, &mut rng, true);
            let chunked_kind = match &chunked {
                Ok((used, d)) => {
                    assert!(*d == c.data, "{p}: {} flipped, in chunks", c.name);
                    format!("ok, {used} bytes of input")
                }
                Err(e) => verdict(&Err(e.clone())),
            };
            let shown = if bad.len() <= 64 {
                hex(&bad)
            } else {
                String::new()
            };
            writeln!(
                t,
                "{} flipped at {at} {shown}: {}; {chunked_kind}",
                c.name,
                verdict(&r)
            )
            .unwrap();
        }
        let mut bad_adler = c.stream.clone();
        *bad_adler.last_mut().unwrap() ^= 0x40;
        let r = inf.inflate_to_vec(&bad_adler, n, &mut out);
        assert!(
            matches!(r, Err(Error::Corrupt { .. })),
            "{p}: {} bad Adler-32: {r:?}",
            c.name
        );
        let r = inflate_chunked(&mut inf, &bad_adler, &mut rng, true);
        assert!(
            matches!(r, Err(Error::Corrupt { .. })),
            "{p}: {} bad Adler-32: {r:?}",
            c.name
        );
    }
    let good = &few[few.len() - 1].stream;
    let headers: [(&str, [u8; 2]); 6] = [
        ("method 7", [0x77, 0x00]),
        ("window 2^16", [0x88, 0x00]),
        ("check bits", [0x78, 0x9d]),
        ("preset dictionary", [0x78, 0xbb]),
        ("gzip magic", [0x1f, 0x8b]),
        ("raw deflate", [good[2], good[3]]),
    ];
    for (what, mut h) in headers {
        if what.starts_with("method") || what.starts_with("window") {
            // A valid check for the bad method or window.
            h[1] = (31 - (u16::from(h[0]) * 256 % 31) as u8) % 31;
        }
        let mut bad = good.clone();
        bad[..2].copy_from_slice(&h);
        let r = inf.inflate_to_vec(&bad, 1 << 20, &mut out);
        assert!(
            matches!(r, Err(Error::Corrupt { .. })),
            "{p}: header {what}: {r:?}"
        );
        writeln!(t, "header {what}: {}", verdict(&r)).unwrap();
    }

    // A distance reaching before the stream's start, whose target bytes (a preset dictionary of
    // zeros) a decoder reading an unwritten zeroed window would reproduce, with the Adler-32 of
    // exactly that: only checking the distance refuses it.
    let (far_data, far) = too_far_back();
    let r = inf.inflate_to_vec(&far, far_data.len(), &mut out);
    assert!(
        matches!(r, Err(Error::Corrupt { .. })),
        "{p}: too far back: {r:?}"
    );
    let r = inflate_chunked(&mut inf, &far, &mut rng, true);
    assert!(
        matches!(r, Err(Error::Corrupt { .. })),
        "{p}: too far back, in chunks: {r:?}"
    );
    writeln!(t, "too far back: refused").unwrap();

    // Arbitrary bytes: whatever the verdict, no panic, and the same for every provider.
    let mut junk = Rng(1234);
    for i in 0..2000 {
        let len = junk.below(64);
        let mut bytes = junk.bytes(len);
        if i % 2 == 0 && len >= 2 {
            bytes[..2].copy_from_slice(&[0x78, 0x9c]);
        }
        let limit = junk.below(200);
        let r = inf.inflate_to_vec_limited(&bytes, limit, &mut out);
        assert!(out.len() <= limit);
        writeln!(t, "junk {i}: {}", verdict(&r)).unwrap();
    }

    // A fresh inflater per stream gives the same as a reused one.
    for c in cases.iter().take(20) {
        let mut once = I::new().expect("new");
        assert_eq!(
            once.inflate_to_vec(&c.stream, c.data.len(), &mut out),
            Ok(c.stream.len())
        );
        assert!(out == c.data);
    }
    t
}

struct Agreement<'a> {
    cases: &'a [Case],
    pack: &'a (Vec<Vec<u8>>, Vec<u8>, Vec<usize>),
    transcripts: Vec<(&'static str, String)>,
}

impl Visitor for Agreement<'_> {
    fn visit<I: Inflater>(&mut self) {
        let t = transcript::<I>(self.cases, self.pack);
        self.transcripts.push((I::PROVIDER, t));
    }
}

#[test]
fn providers_match_python_and_each_other() {
    if !runs("python3", &["-c", "import zlib"]) {
        skip(
            "providers_match_python_and_each_other",
            "python3 with zlib not found (the oracle)",
        );
        return;
    }
    let mut rng = Rng(2026);
    let cases = cases(&mut rng);
    let pack = pack(&mut rng, 2000);
    let mut a = Agreement {
        cases: &cases,
        pack: &pack,
        transcripts: Vec::new(),
    };
    for_each_provider(&mut a);
    let (first, reference) = &a.transcripts[0];
    for (name, t) in &a.transcripts[1..] {
        if t != reference {
            let (l, r) = t
                .lines()
                .zip(reference.lines())
                .find(|(l, r)| l != r)
                .unwrap_or(("(length)", "(length)"));
            panic!("{name} and {first} disagree: {l:?} against {r:?}");
        }
    }
    eprintln!(
        "zlib: {} cases, {} packed objects, {} providers agree: {}",
        cases.len(),
        pack.0.len(),
        a.transcripts.len(),
        a.transcripts
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    );
}

struct Versions(Vec<(&'static str, String)>);

impl Visitor for Versions {
    fn visit<I: Inflater>(&mut self) {
        self.0.push((I::PROVIDER, I::version()));
    }
}

/// The version of package `name` in the workspace's Cargo.lock.
fn locked(name: &str) -> Option<String> {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock"))
            .ok()?;
    let key = format!("name = \"{name}\"\nversion = \"");
    let at = lock.find(&key)? + key.len();
    Some(lock[at..].split('"').next()?.to_owned())
}

#[test]
fn versions() {
    let mut v = Versions(Vec::new());
    for_each_provider(&mut v);
    for (provider, version) in &v.0 {
        assert!(
            version.starts_with(|c: char| c.is_ascii_digit()),
            "{provider}: {version:?}"
        );
        let crate_name = match *provider {
            "zlib-rs" => Some("zlib-rs"),
            "miniz" => Some("miniz_oxide"),
            _ => None,
        };
        if let Some(name) = crate_name {
            assert_eq!(
                locked(name).as_deref(),
                Some(version.as_str()),
                "{provider}"
            );
        }
        if *provider == "zlib-ng" {
            assert!(version.starts_with("2."), "{version}");
        }
    }
}

/// Python's zlib's message for each stream inflated in one go (`None`: no error), in one
/// process: the oracle for zlib's words.
fn python_messages(streams: &[Vec<u8>]) -> Vec<Option<String>> {
    const SCRIPT: &str = "import sys,zlib,struct
d=sys.stdin.buffer.read();o=sys.stdout.buffer;i=0
while i<len(d):
    n,=struct.unpack_from('<I',d,i);i+=4;s=d[i:i+n];i+=n
    try:
        zlib.decompressobj().decompress(s);m=b''
    except zlib.error as e:
        m=str(e).split(': ',1)[-1].encode()
    o.write(struct.pack('<I',len(m))+m)
";
    let mut request = Vec::new();
    for s in streams {
        request.extend_from_slice(&(s.len() as u32).to_le_bytes());
        request.extend_from_slice(s);
    }
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&request));
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read python's output");
    writer.join().expect("writer").expect("write to python");
    assert!(child.wait().expect("wait").success(), "python3 failed");
    let mut messages = Vec::new();
    let mut i = 0;
    while i < out.len() {
        let n = u32::from_le_bytes(out[i..i + 4].try_into().expect("4")) as usize;
        let m = String::from_utf8_lossy(&out[i + 4..i + 4 + n]).into_owned();
        messages.push((!m.is_empty()).then_some(m));
        i += 4 + n;
    }
    messages
}

/// Each provider's inflate_to_vec over the corrupt streams: the detail of each `Corrupt` error.
struct Details<'a> {
    streams: &'a [(Vec<u8>, usize)],
    seen: Vec<(&'static str, Vec<Option<String>>)>,
}

impl Visitor for Details<'_> {
    fn visit<I: Inflater>(&mut self) {
        let mut inf = I::new().expect("new");
        let mut out = Vec::new();
        let details = self
            .streams
            .iter()
            .map(|(s, n)| match inf.inflate_to_vec(s, *n, &mut out) {
                Err(Error::Corrupt { detail, .. }) => Some(detail),
                _ => None,
            })
            .collect();
        self.seen.push((I::PROVIDER, details));
    }
}

/// zlib's message for a corrupt stream (`invalid distance too far back`, `incorrect data
/// check`...) is the same from `failure::inflate_failure` and from every provider's
/// `inflate_to_vec` as from Python's zlib (the system's): zlib-rs loses the messages of the
/// errors its fast loop finds, and miniz_oxide has none of its own.
#[test]
fn zlib_messages_are_zlibs() {
    if !runs("python3", &["-c", "import zlib"]) {
        skip(
            "zlib_messages_are_zlibs",
            "python3 with zlib not found (the oracle)",
        );
        return;
    }
    let mut rng = Rng(77);
    let originals: Vec<Vec<u8>> = (0..40)
        .map(|i| {
            let size = 200 + rng.below(30_000);
            data(&mut rng, i, size)
        })
        .collect();
    let requests: Vec<(Params, &[u8])> = originals
        .iter()
        .enumerate()
        .map(|(i, d)| {
            (
                Params {
                    level: [1i8, 6, 9][i % 3],
                    ..DEFAULT
                },
                &d[..],
            )
        })
        .collect();
    let streams = python_compress(&requests);
    let mut corrupt: Vec<(Vec<u8>, usize)> = Vec::new();
    for (s, d) in streams.iter().zip(&originals) {
        for _ in 0..60 {
            let mut bad = s.clone();
            let at = rng.below(bad.len());
            bad[at] ^= 1 << rng.below(8);
            corrupt.push((bad, d.len()));
        }
    }
    let bytes: Vec<Vec<u8>> = corrupt.iter().map(|(s, _)| s.clone()).collect();
    let python = python_messages(&bytes);
    let mut compared = 0;
    for ((s, _), want) in corrupt.iter().zip(&python) {
        let got = flagsplit_zlib::failure::inflate_failure(s, &[usize::MAX]);
        match want {
            Some(w) => {
                let got = got.and_then(|f| f.message);
                assert_eq!(got.as_deref(), Some(w.as_str()), "stream {}", hex(s));
                compared += 1;
            }
            // No error for Python: none for the reference (the stream ends, or is cut short).
            None => assert!(got.is_none_or(|f| f.message.is_none()), "stream {}", hex(s)),
        }
    }
    assert!(compared > 1000, "{compared} corrupt streams compared");
    let mut d = Details {
        streams: &corrupt,
        seen: Vec::new(),
    };
    for_each_provider(&mut d);
    for (provider, details) in &d.seen {
        for (((s, _), want), got) in corrupt.iter().zip(&python).zip(details) {
            if let Some(got) = got {
                assert_eq!(Some(got), want.as_ref(), "{provider}: stream {}", hex(s));
            }
        }
    }
    eprintln!(
        "zlib: {compared} corrupt streams, zlib's message from the reference and from {}",
        d.seen
            .iter()
            .map(|(p, _)| *p)
            .collect::<Vec<_>>()
            .join(", ")
    );
}

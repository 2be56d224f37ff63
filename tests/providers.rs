//! Every compiled hashing provider against the standards' known answers, against each other on
//! random inputs fed in random pieces, against coreutils (and the `openssl` CLI when installed),
//! and against real SHA-1 collision files.
//!
//! The providers are reached through the generic visitors `for_each_sha1_provider` /
//! `for_each_md5_provider`, so this file tests whatever the feature set compiles: `dc` and `block`
//! always, `openssl` with `--features openssl-sha1`; `builtin` always, `openssl` with
//! `--features openssl-md5`. The facility types `Sha1`, `Sha1Unsafe` and `Md5` (the selected
//! providers) are tested the same way.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use flagsplit::hash::md5::{Md5Provider, Md5Visitor, for_each_md5_provider};
use flagsplit::hash::sha1::block::Sha1Block;
use flagsplit::hash::sha1::dc::Sha1Dc;
use flagsplit::hash::sha1::{Sha1Provider, Sha1Visitor, for_each_sha1_provider};
use flagsplit::hash::{Algorithm, Collision, HashError, Md5, Sha1, Sha1Unsafe, hash_reader};

// ---------------------------------------------------------------------------------------------
// Helpers

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// splitmix64 (Steele, Lea, Flood 2014): a tiny deterministic PRNG, so every run tests the same
/// inputs and a failure can be reproduced from its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(len + 8);
        while v.len() < len {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(len);
        v
    }
}

/// Cuts `len` bytes into pieces for `update`: empty pieces, single bytes, pieces that end just
/// before, on and after 64-byte block boundaries, and larger ones; the pieces cover `0..len`.
fn random_pieces(rng: &mut SplitMix, len: usize) -> Vec<usize> {
    let mut pieces = Vec::new();
    let mut done = 0;
    // Start with an empty update now and then.
    if rng.below(4) == 0 {
        pieces.push(0);
    }
    while done < len {
        let want = match rng.below(8) {
            0 => 0,
            1 => 1,
            2 => 63,
            3 => 64,
            4 => 65,
            5 => 64 - done % 64 + rng.below(3), // to (or just past) the next block boundary
            6 => rng.below(200),
            _ => rng.below(len.max(1) / 2 + 1),
        };
        let n = want.min(len - done);
        pieces.push(n);
        done += n;
    }
    if rng.below(4) == 0 {
        pieces.push(0);
    }
    pieces
}

fn feed(data: &[u8], pieces: &[usize], mut update: impl FnMut(&[u8])) {
    let mut at = 0;
    for &n in pieces {
        update(&data[at..at + n]);
        at += n;
    }
    assert_eq!(at, data.len(), "the pieces must cover the input");
}

fn sha1_pieces<P: Sha1Provider>(data: &[u8], pieces: &[usize]) -> Result<[u8; 20], Collision> {
    let mut h = P::new();
    feed(data, pieces, |d| h.update(d));
    h.finalize()
}

fn md5_pieces<P: Md5Provider>(data: &[u8], pieces: &[usize]) -> [u8; 16] {
    let mut h = P::new();
    feed(data, pieces, |d| h.update(d));
    h.finalize()
}

/// Pieces of `chunk` bytes (the last one shorter), for "fed in odd-sized chunks".
fn fixed_pieces(len: usize, chunk: usize) -> Vec<usize> {
    let mut v = vec![chunk; len / chunk];
    if !len.is_multiple_of(chunk) {
        v.push(len % chunk);
    }
    v
}

/// One test vector: the message and the expected digest as the standard prints it.
struct Vector {
    what: &'static str,
    message: Vec<u8>,
    hex: &'static str,
}

fn vector(what: &'static str, message: impl Into<Vec<u8>>, hex: &'static str) -> Vector {
    Vector {
        what,
        message: message.into(),
        hex,
    }
}

// ---------------------------------------------------------------------------------------------
// Known answers

/// SHA-1 examples of FIPS 180-2 Appendix A (also the NIST "Cryptographic Standards and Guidelines
/// — Examples with Intermediate Values" for FIPS 180-4 SHA-1 and RFC 3174 §7.3): one-block "abc",
/// the 448-bit two-block message, the 896-bit message of the SHA-512 example, one million 'a',
/// and the empty message.
fn sha1_vectors() -> Vec<Vector> {
    vec![
        vector(
            "empty message",
            "",
            "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        ),
        vector(
            "FIPS 180 A.1 \"abc\"",
            "abc",
            "a9993e364706816aba3e25717850c26c9cd0d89d",
        ),
        vector(
            "FIPS 180 A.2 448-bit message",
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        ),
        vector(
            "FIPS 180 896-bit message",
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno\
             ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259",
        ),
        vector(
            "FIPS 180 A.3 one million 'a'",
            vec![b'a'; 1_000_000],
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
        ),
    ]
}

/// The whole MD5 test suite of RFC 1321, appendix A.5.
fn md5_vectors() -> Vec<Vector> {
    vec![
        vector("RFC 1321 \"\"", "", "d41d8cd98f00b204e9800998ecf8427e"),
        vector("RFC 1321 \"a\"", "a", "0cc175b9c0f1b6a831c399e269772661"),
        vector(
            "RFC 1321 \"abc\"",
            "abc",
            "900150983cd24fb0d6963f7d28e17f72",
        ),
        vector(
            "RFC 1321 \"message digest\"",
            "message digest",
            "f96b697d7cb7938d525a2f31aaf161d0",
        ),
        vector(
            "RFC 1321 a..z",
            "abcdefghijklmnopqrstuvwxyz",
            "c3fcd3d76192e4007dfb496cca67e13b",
        ),
        vector(
            "RFC 1321 A..Za..z0..9",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f",
        ),
        vector(
            "RFC 1321 8 x \"1234567890\"",
            "1234567890".repeat(8),
            "57edf4a22be3c955ac49da2e2107b67a",
        ),
    ]
}

/// The ways each known-answer message is fed: whole, byte by byte (short messages only), in odd
/// chunks (7, 63, 65, 4097 bytes and a prime near 64 KiB), and in random pieces with empty updates.
fn feeding_plans(len: usize, rng: &mut SplitMix) -> Vec<(String, Vec<usize>)> {
    let mut plans = vec![("one update".to_owned(), vec![len])];
    if len <= 1000 {
        plans.push(("byte by byte".to_owned(), vec![1; len]));
    }
    for chunk in [7, 63, 65, 4097, 65_521] {
        if chunk < len {
            plans.push((format!("{chunk}-byte chunks"), fixed_pieces(len, chunk)));
        }
    }
    plans.push(("random pieces".to_owned(), random_pieces(rng, len)));
    plans
}

/// The SHA-1 providers this feature set must compile, in the visitors' order.
fn expected_sha1_providers() -> Vec<&'static str> {
    let mut v = vec!["dc", "block"];
    if cfg!(feature = "openssl-sha1") {
        v.push("openssl");
    }
    v
}

/// The MD5 providers this feature set must compile, in the visitors' order.
fn expected_md5_providers() -> Vec<&'static str> {
    let mut v = vec!["builtin"];
    if cfg!(feature = "openssl-md5") {
        v.push("openssl");
    }
    v
}

/// Seed of the random feeding plans of the known-answer tests.
const KAT_SEED: u64 = 0x0005_4a1f_1805;

struct Sha1Kat {
    vectors: Vec<Vector>,
    visited: Vec<&'static str>,
}

impl Sha1Visitor for Sha1Kat {
    fn visit<P: Sha1Provider>(&mut self) {
        let mut rng = SplitMix(KAT_SEED);
        for v in &self.vectors {
            for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
                let got = sha1_pieces::<P>(&v.message, &pieces);
                assert_eq!(
                    got.map(|d| hex(&d)),
                    Ok(v.hex.to_owned()),
                    "SHA-1 provider {} on {} ({plan})",
                    P::PROVIDER,
                    v.what
                );
            }
        }
        self.visited.push(P::PROVIDER);
    }
}

#[test]
fn sha1_known_answers_every_provider() {
    let mut kat = Sha1Kat {
        vectors: sha1_vectors(),
        visited: Vec::new(),
    };
    for_each_sha1_provider(&mut kat);
    assert_eq!(kat.visited, expected_sha1_providers());
}

#[test]
fn sha1_known_answers_facility_types() {
    let mut rng = SplitMix(KAT_SEED);
    for v in sha1_vectors() {
        for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
            let mut checked = Sha1::new();
            let mut unchecked = Sha1Unsafe::new();
            feed(&v.message, &pieces, |d| {
                checked.update(d);
                unchecked.update(d);
            });
            let what = format!("{} ({plan})", v.what);
            assert_eq!(
                checked.finalize().map(|d| hex(&d)),
                Ok(v.hex.to_owned()),
                "Sha1 ({}) on {what}",
                Sha1::PROVIDER
            );
            assert_eq!(
                hex(&unchecked.finalize()),
                v.hex,
                "Sha1Unsafe ({}) on {what}",
                Sha1Unsafe::PROVIDER
            );
        }
        // The run-time facade over the same facilities.
        for algorithm in [Algorithm::Sha1, Algorithm::Sha1Unchecked] {
            let got = hash_reader(algorithm, &v.message[..]).map(|d| d.to_hex());
            assert_eq!(
                got.ok().as_deref(),
                Some(v.hex),
                "{algorithm:?} on {}",
                v.what
            );
        }
    }
}

struct Md5Kat {
    vectors: Vec<Vector>,
    visited: Vec<&'static str>,
}

impl Md5Visitor for Md5Kat {
    fn visit<P: Md5Provider>(&mut self) {
        let mut rng = SplitMix(KAT_SEED);
        for v in &self.vectors {
            for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
                assert_eq!(
                    hex(&md5_pieces::<P>(&v.message, &pieces)),
                    v.hex,
                    "MD5 provider {} on {} ({plan})",
                    P::PROVIDER,
                    v.what
                );
            }
        }
        self.visited.push(P::PROVIDER);
    }
}

#[test]
fn md5_known_answers_every_provider() {
    let mut kat = Md5Kat {
        vectors: md5_vectors(),
        visited: Vec::new(),
    };
    for_each_md5_provider(&mut kat);
    assert_eq!(kat.visited, expected_md5_providers());
}

#[test]
fn md5_known_answers_facility_type() {
    let mut rng = SplitMix(KAT_SEED);
    for v in md5_vectors() {
        for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
            let mut h = Md5::new();
            feed(&v.message, &pieces, |d| h.update(d));
            assert_eq!(
                hex(&h.finalize()),
                v.hex,
                "Md5 ({}) on {} ({plan})",
                Md5::PROVIDER,
                v.what
            );
        }
        let got = hash_reader(Algorithm::Md5, &v.message[..]).map(|d| d.to_hex());
        assert_eq!(
            got.ok().as_deref(),
            Some(v.hex),
            "Algorithm::Md5 on {}",
            v.what
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Agreement on random inputs

/// One random input.
struct Case {
    data: Vec<u8>,
    /// Seed of this case's feeding plans (each provider gets its own plan from it).
    seed: u64,
}

/// Every length 0..=4096, lengths around the 64-byte block boundaries of larger sizes (64 KiB,
/// 1 MiB), and a few MiB.
fn random_cases() -> Vec<Case> {
    let mut rng = SplitMix(0xa9ee_0000_0000_0001);
    let mut lengths: Vec<usize> = (0..=4096).collect();
    for base in [64 * 1024, 1024 * 1024] {
        lengths.extend([base - 65, base - 64, base - 1, base, base + 1, base + 63]);
    }
    lengths.push(3 * 1024 * 1024 + 13);
    lengths
        .into_iter()
        .map(|len| Case {
            data: rng.bytes(len),
            seed: rng.next_u64(),
        })
        .collect()
}

/// What one provider computed for every case, one-shot and fed in pieces.
struct Computed<D> {
    provider: &'static str,
    digests: Vec<D>,
}

struct Sha1Agree<'a> {
    cases: &'a [Case],
    computed: Vec<Computed<Result<[u8; 20], Collision>>>,
}

impl Sha1Visitor for Sha1Agree<'_> {
    fn visit<P: Sha1Provider>(&mut self) {
        let salt = self.computed.len() as u64 + 1;
        let digests = self
            .cases
            .iter()
            .map(|case| {
                let one = sha1_pieces::<P>(&case.data, &[case.data.len()]);
                let mut rng = SplitMix(case.seed ^ salt.wrapping_mul(0x9e37_79b9));
                let pieces = random_pieces(&mut rng, case.data.len());
                let split = sha1_pieces::<P>(&case.data, &pieces);
                assert_eq!(
                    one,
                    split,
                    "SHA-1 provider {}: one update vs pieces {pieces:?} of {} bytes",
                    P::PROVIDER,
                    case.data.len()
                );
                one
            })
            .collect();
        self.computed.push(Computed {
            provider: P::PROVIDER,
            digests,
        });
    }
}

struct Md5Agree<'a> {
    cases: &'a [Case],
    computed: Vec<Computed<[u8; 16]>>,
}

impl Md5Visitor for Md5Agree<'_> {
    fn visit<P: Md5Provider>(&mut self) {
        let salt = self.computed.len() as u64 + 1;
        let digests = self
            .cases
            .iter()
            .map(|case| {
                let one = md5_pieces::<P>(&case.data, &[case.data.len()]);
                let mut rng = SplitMix(case.seed ^ salt.wrapping_mul(0x9e37_79b9));
                let pieces = random_pieces(&mut rng, case.data.len());
                let split = md5_pieces::<P>(&case.data, &pieces);
                assert_eq!(
                    one,
                    split,
                    "MD5 provider {}: one update vs pieces {pieces:?} of {} bytes",
                    P::PROVIDER,
                    case.data.len()
                );
                one
            })
            .collect();
        self.computed.push(Computed {
            provider: P::PROVIDER,
            digests,
        });
    }
}

/// Asserts that every provider computed what the first one did.
fn assert_all_agree<D: PartialEq + std::fmt::Debug>(
    algorithm: &str,
    cases: &[Case],
    computed: &[Computed<D>],
) {
    let (first, rest) = computed.split_first().expect("at least one provider");
    for other in rest {
        for (i, case) in cases.iter().enumerate() {
            assert_eq!(
                first.digests[i],
                other.digests[i],
                "{algorithm}: providers {} and {} disagree on {} random bytes (case {i})",
                first.provider,
                other.provider,
                case.data.len()
            );
        }
    }
}

#[test]
fn sha1_providers_agree_on_random_inputs() {
    let cases = random_cases();
    let mut agree = Sha1Agree {
        cases: &cases,
        computed: Vec::new(),
    };
    for_each_sha1_provider(&mut agree);
    let providers: Vec<&'static str> = agree.computed.iter().map(|c| c.provider).collect();
    assert_eq!(providers, expected_sha1_providers());
    // Random data is no collision attack.
    assert!(agree.computed[0].digests.iter().all(Result::is_ok));
    assert_all_agree("SHA-1", &cases, &agree.computed);

    // The facility types, fed in yet other pieces, agree too.
    let reference = &agree.computed[0].digests;
    for (i, case) in cases.iter().enumerate() {
        let mut rng = SplitMix(case.seed ^ 0xfac1);
        let pieces = random_pieces(&mut rng, case.data.len());
        let mut checked = Sha1::new();
        let mut unchecked = Sha1Unsafe::new();
        feed(&case.data, &pieces, |d| {
            checked.update(d);
            unchecked.update(d);
        });
        assert_eq!(checked.finalize(), reference[i], "Sha1 on case {i}");
        assert_eq!(
            Ok(unchecked.finalize()),
            reference[i],
            "Sha1Unsafe on case {i}"
        );
    }
}

#[test]
fn md5_providers_agree_on_random_inputs() {
    let cases = random_cases();
    let mut agree = Md5Agree {
        cases: &cases,
        computed: Vec::new(),
    };
    for_each_md5_provider(&mut agree);
    let providers: Vec<&'static str> = agree.computed.iter().map(|c| c.provider).collect();
    assert_eq!(providers, expected_md5_providers());
    assert_all_agree("MD5", &cases, &agree.computed);

    let reference = &agree.computed[0].digests;
    for (i, case) in cases.iter().enumerate() {
        let mut rng = SplitMix(case.seed ^ 0xfac1);
        let pieces = random_pieces(&mut rng, case.data.len());
        let mut h = Md5::new();
        feed(&case.data, &pieces, |d| h.update(d));
        assert_eq!(h.finalize(), reference[i], "Md5 on case {i}");
    }
}

// ---------------------------------------------------------------------------------------------
// External oracles: coreutils sha1sum/md5sum, and the openssl CLI when it is installed

/// Runs `program args... files...` and returns the first word of each output line (the digest,
/// in both `sha1sum`'s `hex  path` and `openssl dgst -r`'s `hex *path` formats), checking that
/// each line names the file it is about.
fn oracle_digests(program: &str, args: &[&str], files: &[PathBuf]) -> Vec<String> {
    let out = Command::new(program)
        .args(args)
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the oracle {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("oracle output is UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), files.len(), "{program} output:\n{text}");
    lines
        .iter()
        .zip(files)
        .map(|(line, file)| {
            let (digest, rest) = line.split_once(' ').expect("`digest path` line");
            let named = rest.trim_start_matches([' ', '*']);
            assert_eq!(Path::new(named), file.as_path(), "{program} line {line:?}");
            digest.to_owned()
        })
        .collect()
}

fn openssl_cli_available() -> bool {
    Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Random files (plus one million 'a'), their contents, in a temporary directory.
fn oracle_files(dir: &Path) -> (Vec<PathBuf>, Vec<Vec<u8>>) {
    let mut rng = SplitMix(0x0dac_1e00);
    let mut contents: Vec<Vec<u8>> = [0, 1, 55, 56, 63, 64, 65, 1000, 4096, 100_003, 1_048_583]
        .into_iter()
        .map(|len| rng.bytes(len))
        .collect();
    contents.push(vec![b'a'; 1_000_000]);
    let paths = contents
        .iter()
        .enumerate()
        .map(|(i, data)| {
            let path = dir.join(format!("random-{i}-{}.bin", data.len()));
            let mut f = fs::File::create(&path).expect("create temp file");
            f.write_all(data).expect("write temp file");
            path
        })
        .collect();
    (paths, contents)
}

struct Sha1Each<'a> {
    contents: &'a [Vec<u8>],
    computed: Vec<Computed<Result<[u8; 20], Collision>>>,
}

impl Sha1Visitor for Sha1Each<'_> {
    fn visit<P: Sha1Provider>(&mut self) {
        let digests = self
            .contents
            .iter()
            .map(|d| sha1_pieces::<P>(d, &fixed_pieces(d.len(), 8191)))
            .collect();
        self.computed.push(Computed {
            provider: P::PROVIDER,
            digests,
        });
    }
}

struct Md5Each<'a> {
    contents: &'a [Vec<u8>],
    computed: Vec<Computed<[u8; 16]>>,
}

impl Md5Visitor for Md5Each<'_> {
    fn visit<P: Md5Provider>(&mut self) {
        let digests = self
            .contents
            .iter()
            .map(|d| md5_pieces::<P>(d, &fixed_pieces(d.len(), 8191)))
            .collect();
        self.computed.push(Computed {
            provider: P::PROVIDER,
            digests,
        });
    }
}

#[test]
fn sha1_providers_match_external_oracles() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, contents) = oracle_files(dir.path());
    let mut oracles = vec![("sha1sum", oracle_digests("sha1sum", &[], &files))];
    if openssl_cli_available() {
        oracles.push((
            "openssl dgst -sha1",
            oracle_digests("openssl", &["dgst", "-sha1", "-r"], &files),
        ));
    } else {
        eprintln!("note: no `openssl` CLI; SHA-1 checked against sha1sum only");
    }
    let mut each = Sha1Each {
        contents: &contents,
        computed: Vec::new(),
    };
    for_each_sha1_provider(&mut each);
    assert_eq!(each.computed.len(), expected_sha1_providers().len());
    for (oracle, expected) in &oracles {
        for c in &each.computed {
            for (i, file) in files.iter().enumerate() {
                assert_eq!(
                    c.digests[i].map(|d| hex(&d)).as_ref(),
                    Ok(&expected[i]),
                    "SHA-1 provider {} vs {oracle} on {}",
                    c.provider,
                    file.display()
                );
            }
        }
        for (i, file) in files.iter().enumerate() {
            let via_facade = fs::File::open(file)
                .map_err(HashError::from)
                .and_then(|f| hash_reader(Algorithm::Sha1, f))
                .map(|d| d.to_hex());
            assert_eq!(via_facade.ok().as_ref(), Some(&expected[i]), "{oracle}");
            let via_unchecked = fs::File::open(file)
                .map_err(HashError::from)
                .and_then(|f| hash_reader(Algorithm::Sha1Unchecked, f))
                .map(|d| d.to_hex());
            assert_eq!(via_unchecked.ok().as_ref(), Some(&expected[i]), "{oracle}");
        }
    }
}

#[test]
fn md5_providers_match_external_oracles() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, contents) = oracle_files(dir.path());
    let mut oracles = vec![("md5sum", oracle_digests("md5sum", &[], &files))];
    if openssl_cli_available() {
        oracles.push((
            "openssl dgst -md5",
            oracle_digests("openssl", &["dgst", "-md5", "-r"], &files),
        ));
    } else {
        eprintln!("note: no `openssl` CLI; MD5 checked against md5sum only");
    }
    let mut each = Md5Each {
        contents: &contents,
        computed: Vec::new(),
    };
    for_each_md5_provider(&mut each);
    assert_eq!(each.computed.len(), expected_md5_providers().len());
    for (oracle, expected) in &oracles {
        for c in &each.computed {
            for (i, file) in files.iter().enumerate() {
                assert_eq!(
                    &hex(&c.digests[i]),
                    &expected[i],
                    "MD5 provider {} vs {oracle} on {}",
                    c.provider,
                    file.display()
                );
            }
        }
        for (i, file) in files.iter().enumerate() {
            let via_facade = fs::File::open(file)
                .map_err(HashError::from)
                .and_then(|f| hash_reader(Algorithm::Md5, f))
                .map(|d| d.to_hex());
            assert_eq!(via_facade.ok().as_ref(), Some(&expected[i]), "{oracle}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real SHA-1 collisions (../shared/data/collisions)

/// The collision files, or `None` (after a loud message that test capture does not swallow) when
/// the shared data is not there; under CI=true its absence is a failure.
fn collisions_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/collisions");
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!("SKIPPED: {} not found", dir.display());
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true: the shared test data must be present)");
    }
    // Straight to the process's stderr: libtest captures `eprintln!` of passing tests.
    let _ = writeln!(std::io::stderr(), "\n!!!!!!!! {msg} !!!!!!!!\n");
    None
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn block_sha1(data: &[u8]) -> [u8; 20] {
    sha1_pieces::<Sha1Block>(data, &[data.len()]).expect("block SHA-1 never reports collisions")
}

/// The collision attacks that `dc` must detect.
const ATTACKS: [&str; 4] = [
    "shattered-1.pdf",
    "shattered-2.pdf",
    "sha-mbles-1.bin",
    "sha-mbles-2.bin",
];

#[test]
fn dc_detects_collision_attacks_with_the_block_digest() {
    let Some(dir) = collisions_dir() else { return };
    for name in ATTACKS {
        let data = read(&dir, name);
        let block = block_sha1(&data);
        assert_eq!(
            sha1_pieces::<Sha1Dc>(&data, &[data.len()]),
            Err(Collision { digest: block }),
            "{name}"
        );
        // However the content arrives.
        let mut rng = SplitMix(data.len() as u64);
        for _ in 0..4 {
            let pieces = random_pieces(&mut rng, data.len());
            assert_eq!(
                sha1_pieces::<Sha1Dc>(&data, &pieces),
                Err(Collision { digest: block }),
                "{name} in pieces {pieces:?}"
            );
        }
    }
}

#[test]
fn collision_pairs_really_collide() {
    let Some(dir) = collisions_dir() else { return };
    let one = read(&dir, "shattered-1.pdf");
    let two = read(&dir, "shattered-2.pdf");
    assert_ne!(one, two, "the shattered files differ");
    assert_eq!(
        hex(&block_sha1(&one)),
        "38762cf7f55934b34d179ae6a4c80cadccbb7f0a"
    );
    assert_eq!(block_sha1(&one), block_sha1(&two));

    let one = read(&dir, "sha-mbles-1.bin");
    let two = read(&dir, "sha-mbles-2.bin");
    assert_ne!(one, two, "the SHA-mbles files differ");
    assert_eq!(block_sha1(&one), block_sha1(&two));

    // sha1sum agrees that these are the digests of the files.
    let files: Vec<PathBuf> = ATTACKS.iter().map(|n| dir.join(n)).collect();
    let expected = oracle_digests("sha1sum", &[], &files);
    for (i, name) in ATTACKS.iter().enumerate() {
        assert_eq!(hex(&block_sha1(&read(&dir, name))), expected[i], "{name}");
    }
}

/// Every compiled provider on one attack file: `dc` reports the collision, the others the digest.
struct OnAttack<'a> {
    data: &'a [u8],
    block: [u8; 20],
    visited: usize,
}

impl Sha1Visitor for OnAttack<'_> {
    fn visit<P: Sha1Provider>(&mut self) {
        let got = sha1_pieces::<P>(self.data, &fixed_pieces(self.data.len(), 4097));
        if P::DETECTS_COLLISIONS {
            assert_eq!(
                got,
                Err(Collision { digest: self.block }),
                "{}",
                P::PROVIDER
            );
        } else {
            assert_eq!(got, Ok(self.block), "{}", P::PROVIDER);
        }
        self.visited += 1;
    }
}

#[test]
fn facilities_on_collision_attacks() {
    let Some(dir) = collisions_dir() else { return };
    for name in ATTACKS {
        let data = read(&dir, name);
        let block = block_sha1(&data);
        let mut visitor = OnAttack {
            data: &data,
            block,
            visited: 0,
        };
        for_each_sha1_provider(&mut visitor);
        assert_eq!(visitor.visited, expected_sha1_providers().len());

        let mut checked = Sha1::new();
        checked.update(&data);
        let mut unchecked = Sha1Unsafe::new();
        unchecked.update(&data);
        assert_eq!(unchecked.finalize(), block, "Sha1Unsafe on {name}");
        let via_reader = hash_reader(Algorithm::Sha1, &data[..]);
        if Sha1::DETECTS_COLLISIONS {
            assert_eq!(
                checked.finalize(),
                Err(Collision { digest: block }),
                "{name}"
            );
            match via_reader {
                Err(HashError::Collision(c)) => assert_eq!(c.digest, block, "{name}"),
                other => panic!("hash_reader(Sha1) on {name}: {other:?}"),
            }
        } else {
            assert_eq!(checked.finalize(), Ok(block), "{name}");
            assert_eq!(via_reader.ok().map(|d| d.to_hex()), Some(hex(&block)));
        }
        let unchecked = hash_reader(Algorithm::Sha1Unchecked, &data[..]);
        assert_eq!(
            unchecked.ok().map(|d| d.to_hex()),
            Some(hex(&block)),
            "{name}"
        );
    }
}

#[test]
fn reduced_round_collision_is_an_ordinary_file() {
    let Some(dir) = collisions_dir() else { return };
    let name = "sha1_reducedsha_coll.bin";
    let path = dir.join(name);
    let data = read(&dir, name);
    let expected = oracle_digests("sha1sum", &[], std::slice::from_ref(&path));
    let dc = sha1_pieces::<Sha1Dc>(&data, &[data.len()]);
    assert_eq!(dc.map(|d| hex(&d)), Ok(expected[0].clone()), "dc on {name}");

    // No provider reports anything, so `dc` must give the plain digest as well.
    struct Plain<'a> {
        data: &'a [u8],
        block: [u8; 20],
        visited: usize,
    }
    impl Sha1Visitor for Plain<'_> {
        fn visit<P: Sha1Provider>(&mut self) {
            let got = sha1_pieces::<P>(self.data, &fixed_pieces(self.data.len(), 7));
            assert_eq!(got, Ok(self.block), "{}", P::PROVIDER);
            self.visited += 1;
        }
    }
    let mut visitor = Plain {
        data: &data,
        block: block_sha1(&data),
        visited: 0,
    };
    for_each_sha1_provider(&mut visitor);
    assert_eq!(visitor.visited, expected_sha1_providers().len());
    assert_eq!(
        hash_reader(Algorithm::Sha1, &data[..])
            .ok()
            .map(|d| d.to_hex()),
        Some(expected[0].clone())
    );
}

//! Every compiled hashing provider, of every algorithm, through one harness: the standards' known
//! answers, agreement with each other on random inputs fed in random pieces, coreutils (and the
//! `openssl` CLI when installed) as external oracles, and real SHA-1 collision files.
//!
//! The providers are reached through the one generic visitor `for_each_provider`, so this file
//! tests whatever the feature set compiles: SHA-1 `dc` and `block` always, `openssl` with
//! `--features openssl-sha1`; MD5 `builtin` always, `openssl` with `--features openssl-md5`;
//! SHA-256 `builtin` always, `openssl` with `--features openssl-sha256`. The facility types (the
//! selected providers) are tested through the run-time [`Hasher`] over them, for every
//! [`Algorithm`].

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, Rng, hex};
use flagsplit::hash::sha1::block::Sha1Block;
use flagsplit::hash::sha1::dc::Sha1Dc;
use flagsplit::hash::{
    Algorithm, Collision, HashError, HashProvider, Hasher, Sha1, Sha1Unsafe, Visitor,
    for_each_provider, hash_reader,
};

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

// ---------------------------------------------------------------------------------------------
// Helpers

/// Cuts `len` bytes into pieces for `update`: empty pieces, single bytes, pieces that end just
/// before, on and after 64-byte block boundaries, and larger ones; the pieces cover `0..len`.
fn random_pieces(rng: &mut Rng, len: usize) -> Vec<usize> {
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

/// The digest `P` computes for `data` fed in `pieces`, in hexadecimal, or the collision it
/// detected.
fn digest_pieces<P: HashProvider>(data: &[u8], pieces: &[usize]) -> Result<String, Collision> {
    let mut h = P::new();
    feed(data, pieces, |d| h.update(d));
    h.finalize().map(|d| hex(d.as_ref())).map_err(Into::into)
}

/// The same through the facility of `algorithm` (the provider this build selected).
fn facility_pieces(
    algorithm: Algorithm,
    data: &[u8],
    pieces: &[usize],
) -> Result<String, Collision> {
    let mut h = Hasher::new(algorithm);
    feed(data, pieces, |d| h.update(d));
    h.finalize().map(|d| d.to_hex())
}

/// The algorithms, as `HashProvider::ALGORITHM` spells them, with the facilities computing each.
const ALGORITHMS: [(&str, &[Algorithm]); 3] = [
    ("SHA-1", &[Algorithm::Sha1, Algorithm::Sha1Unchecked]),
    ("MD5", &[Algorithm::Md5]),
    ("SHA-256", &[Algorithm::Sha256]),
];

/// The providers this feature set must compile, `(algorithm, provider)` in the visitor's order.
fn expected_providers() -> Vec<(&'static str, &'static str)> {
    let mut v = vec![("SHA-1", "dc"), ("SHA-1", "block")];
    if cfg!(feature = "openssl-sha1") {
        v.push(("SHA-1", "openssl"));
    }
    v.push(("MD5", "builtin"));
    if cfg!(feature = "openssl-md5") {
        v.push(("MD5", "openssl"));
    }
    v.push(("SHA-256", "builtin"));
    if cfg!(feature = "openssl-sha256") {
        v.push(("SHA-256", "openssl"));
    }
    v
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

/// SHA-256 examples of FIPS 180-2 Appendix B (the NIST examples with intermediate values for
/// FIPS 180-4 SHA-256): one-block "abc", the 448-bit two-block message, the 896-bit message, one
/// million 'a', and the empty message.
fn sha256_vectors() -> Vec<Vector> {
    vec![
        vector(
            "empty message",
            "",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        vector(
            "FIPS 180 B.1 \"abc\"",
            "abc",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        vector(
            "FIPS 180 B.2 448-bit message",
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
        vector(
            "FIPS 180 896-bit message",
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno\
             ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
        ),
        vector(
            "FIPS 180 B.3 one million 'a'",
            vec![b'a'; 1_000_000],
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
        ),
    ]
}

/// The known-answer vectors of `algorithm`.
fn vectors_of(algorithm: &str) -> Vec<Vector> {
    match algorithm {
        "SHA-1" => sha1_vectors(),
        "MD5" => md5_vectors(),
        "SHA-256" => sha256_vectors(),
        other => panic!("no vectors for {other}"),
    }
}

/// The ways each known-answer message is fed: whole, byte by byte (short messages only), in odd
/// chunks (7, 63, 65, 4097 bytes and a prime near 64 KiB), and in random pieces with empty updates.
fn feeding_plans(len: usize, rng: &mut Rng) -> Vec<(String, Vec<usize>)> {
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

/// Seed of the random feeding plans of the known-answer tests.
const KAT_SEED: u64 = 0x0005_4a1f_1805;

struct Kat {
    visited: Vec<(&'static str, &'static str)>,
}

impl Visitor for Kat {
    fn visit<P: HashProvider>(&mut self) {
        let mut rng = Rng(KAT_SEED);
        for v in vectors_of(P::ALGORITHM) {
            for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
                assert_eq!(
                    digest_pieces::<P>(&v.message, &pieces),
                    Ok(v.hex.to_owned()),
                    "{} provider {} on {} ({plan})",
                    P::ALGORITHM,
                    P::PROVIDER,
                    v.what
                );
            }
        }
        self.visited.push((P::ALGORITHM, P::PROVIDER));
    }
}

#[test]
fn known_answers_every_provider() {
    let mut kat = Kat {
        visited: Vec::new(),
    };
    for_each_provider(&mut kat);
    assert_eq!(kat.visited, expected_providers());
}

#[test]
fn known_answers_facility_types() {
    let mut rng = Rng(KAT_SEED);
    for (name, algorithms) in ALGORITHMS {
        for v in vectors_of(name) {
            for (plan, pieces) in feeding_plans(v.message.len(), &mut rng) {
                for &algorithm in algorithms {
                    assert_eq!(
                        facility_pieces(algorithm, &v.message, &pieces),
                        Ok(v.hex.to_owned()),
                        "{algorithm:?} ({}) on {} ({plan})",
                        algorithm.provider(),
                        v.what
                    );
                }
            }
            for &algorithm in algorithms {
                let got = hash_reader(algorithm, &v.message[..]).map(|d| d.to_hex());
                assert_eq!(
                    got.ok().as_deref(),
                    Some(v.hex),
                    "hash_reader({algorithm:?}) on {}",
                    v.what
                );
            }
        }
    }
    // The typed facilities name the same providers as the run-time ones.
    assert_eq!(Sha1::PROVIDER, Algorithm::Sha1.provider());
    assert_eq!(Sha1Unsafe::PROVIDER, Algorithm::Sha1Unchecked.provider());
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
    let mut rng = Rng(0xa9ee_0000_0000_0001);
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

/// What each provider computed for every case, per algorithm, in the visitor's order.
type Computed = BTreeMap<&'static str, Vec<(&'static str, Vec<Result<String, Collision>>)>>;

struct Agree<'a> {
    cases: &'a [Case],
    computed: Computed,
}

impl Visitor for Agree<'_> {
    fn visit<P: HashProvider>(&mut self) {
        let of_algorithm = self.computed.entry(P::ALGORITHM).or_default();
        let salt = of_algorithm.len() as u64 + 1;
        let digests = self
            .cases
            .iter()
            .map(|case| {
                let one = digest_pieces::<P>(&case.data, &[case.data.len()]);
                let mut rng = Rng(case.seed ^ salt.wrapping_mul(0x9e37_79b9));
                let pieces = random_pieces(&mut rng, case.data.len());
                let split = digest_pieces::<P>(&case.data, &pieces);
                assert_eq!(
                    one,
                    split,
                    "{} provider {}: one update vs pieces {pieces:?} of {} bytes",
                    P::ALGORITHM,
                    P::PROVIDER,
                    case.data.len()
                );
                one
            })
            .collect();
        of_algorithm.push((P::PROVIDER, digests));
    }
}

#[test]
fn providers_agree_on_random_inputs() {
    let cases = random_cases();
    let mut agree = Agree {
        cases: &cases,
        computed: BTreeMap::new(),
    };
    for_each_provider(&mut agree);
    let visited: Vec<(&str, &str)> = ALGORITHMS
        .iter()
        .flat_map(|(name, _)| agree.computed[name].iter().map(move |(p, _)| (*name, *p)))
        .collect();
    assert_eq!(visited, expected_providers());
    for (name, algorithms) in ALGORITHMS {
        let computed = &agree.computed[name];
        let (first, reference) = &computed[0];
        // Random data is no collision attack.
        assert!(reference.iter().all(Result::is_ok), "{name}");
        for (provider, digests) in &computed[1..] {
            for (i, case) in cases.iter().enumerate() {
                assert_eq!(
                    reference[i],
                    digests[i],
                    "{name}: providers {first} and {provider} disagree on {} random bytes (case {i})",
                    case.data.len()
                );
            }
        }
        // The facility types, fed in yet other pieces, agree too.
        for (i, case) in cases.iter().enumerate() {
            let mut rng = Rng(case.seed ^ 0xfac1);
            let pieces = random_pieces(&mut rng, case.data.len());
            for &algorithm in algorithms {
                assert_eq!(
                    facility_pieces(algorithm, &case.data, &pieces),
                    reference[i],
                    "{algorithm:?} on case {i}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// External oracles: coreutils sha1sum/md5sum/sha256sum, and the openssl CLI when it is installed

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

/// Random files (plus one million 'a'), their contents, in a temporary directory.
fn oracle_files(dir: &Path) -> (Vec<PathBuf>, Vec<Vec<u8>>) {
    let mut rng = Rng(0x0dac_1e00);
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

/// Each provider's digests of `contents`, fed in 8191-byte pieces.
struct Each<'a> {
    contents: &'a [Vec<u8>],
    computed: Computed,
}

impl Visitor for Each<'_> {
    fn visit<P: HashProvider>(&mut self) {
        let digests = self
            .contents
            .iter()
            .map(|d| digest_pieces::<P>(d, &fixed_pieces(d.len(), 8191)))
            .collect();
        self.computed
            .entry(P::ALGORITHM)
            .or_default()
            .push((P::PROVIDER, digests));
    }
}

#[test]
fn providers_match_external_oracles() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, contents) = oracle_files(dir.path());
    let openssl = support::runs("openssl", &["version"]);
    if !openssl {
        support::skip(
            "providers_match_external_oracles (openssl dgst)",
            "no `openssl` CLI; checked against coreutils only",
        );
    }
    let mut each = Each {
        contents: &contents,
        computed: BTreeMap::new(),
    };
    for_each_provider(&mut each);
    let oracles = [
        ("SHA-1", "sha1sum", "-sha1"),
        ("MD5", "md5sum", "-md5"),
        ("SHA-256", "sha256sum", "-sha256"),
    ];
    for ((name, algorithms), (_, coreutils, dgst)) in ALGORITHMS.iter().zip(oracles) {
        let mut expected = vec![(coreutils.to_owned(), oracle_digests(coreutils, &[], &files))];
        if openssl {
            expected.push((
                format!("openssl dgst {dgst}"),
                oracle_digests("openssl", &["dgst", dgst, "-r"], &files),
            ));
        }
        for (oracle, want) in &expected {
            for (provider, digests) in &each.computed[name] {
                for (i, file) in files.iter().enumerate() {
                    assert_eq!(
                        digests[i].as_ref(),
                        Ok(&want[i]),
                        "{name} provider {provider} vs {oracle} on {}",
                        file.display()
                    );
                }
            }
            for (i, file) in files.iter().enumerate() {
                for &algorithm in *algorithms {
                    let via_facade = fs::File::open(file)
                        .map_err(HashError::from)
                        .and_then(|f| hash_reader(algorithm, f))
                        .map(|d| d.to_hex());
                    assert_eq!(
                        via_facade.ok().as_ref(),
                        Some(&want[i]),
                        "{algorithm:?} vs {oracle}"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real SHA-1 collisions (../shared/data/collisions)

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn block_sha1(data: &[u8]) -> [u8; 20] {
    let mut h = Sha1Block::new();
    h.update(data);
    let Ok(digest) = h.finalize();
    digest
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
    let Some(dir) = support::collisions_dir("dc_detects_collision_attacks_with_the_block_digest")
    else {
        return;
    };
    for name in ATTACKS {
        let data = read(&dir, name);
        let block = block_sha1(&data);
        assert_eq!(
            digest_pieces::<Sha1Dc>(&data, &[data.len()]),
            Err(Collision { digest: block }),
            "{name}"
        );
        // However the content arrives.
        let mut rng = Rng(data.len() as u64);
        for _ in 0..4 {
            let pieces = random_pieces(&mut rng, data.len());
            assert_eq!(
                digest_pieces::<Sha1Dc>(&data, &pieces),
                Err(Collision { digest: block }),
                "{name} in pieces {pieces:?}"
            );
        }
    }
}

#[test]
fn collision_pairs_really_collide() {
    let Some(dir) = support::collisions_dir("collision_pairs_really_collide") else {
        return;
    };
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

/// Every compiled SHA-1 provider on one file: on an attack `dc` reports the collision and the
/// others the digest, on an ordinary file all give the digest; other algorithms are not visited.
struct OnAttack<'a> {
    data: &'a [u8],
    block: [u8; 20],
    pieces: usize,
    attack: bool,
    visited: usize,
}

impl Visitor for OnAttack<'_> {
    fn visit<P: HashProvider>(&mut self) {
        if P::ALGORITHM != "SHA-1" {
            return;
        }
        let got = digest_pieces::<P>(self.data, &fixed_pieces(self.data.len(), self.pieces));
        if P::DETECTS_COLLISIONS && self.attack {
            assert_eq!(
                got,
                Err(Collision { digest: self.block }),
                "{}",
                P::PROVIDER
            );
        } else {
            assert_eq!(got, Ok(hex(&self.block)), "{}", P::PROVIDER);
        }
        self.visited += 1;
    }
}

fn sha1_provider_count() -> usize {
    expected_providers()
        .iter()
        .filter(|(a, _)| *a == "SHA-1")
        .count()
}

#[test]
fn facilities_on_collision_attacks() {
    let Some(dir) = support::collisions_dir("facilities_on_collision_attacks") else {
        return;
    };
    for name in ATTACKS {
        let data = read(&dir, name);
        let block = block_sha1(&data);
        let mut visitor = OnAttack {
            data: &data,
            block,
            pieces: 4097,
            attack: true,
            visited: 0,
        };
        for_each_provider(&mut visitor);
        assert_eq!(visitor.visited, sha1_provider_count());

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
    let Some(dir) = support::collisions_dir("reduced_round_collision_is_an_ordinary_file") else {
        return;
    };
    let name = "sha1_reducedsha_coll.bin";
    let path = dir.join(name);
    let data = read(&dir, name);
    let expected = oracle_digests("sha1sum", &[], std::slice::from_ref(&path));
    let dc = digest_pieces::<Sha1Dc>(&data, &[data.len()]);
    assert_eq!(dc, Ok(expected[0].clone()), "dc on {name}");

    // No provider reports anything, so `dc` must give the plain digest as well.
    let block = block_sha1(&data);
    assert_eq!(hex(&block), expected[0]);
    let mut visitor = OnAttack {
        data: &data,
        block,
        pieces: 7,
        attack: false,
        visited: 0,
    };
    for_each_provider(&mut visitor);
    assert_eq!(visitor.visited, sha1_provider_count());
    assert_eq!(
        hash_reader(Algorithm::Sha1, &data[..])
            .ok()
            .map(|d| d.to_hex()),
        Some(expected[0].clone())
    );
}

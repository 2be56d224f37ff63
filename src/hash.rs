//! The hashing facilities over the providers this build selected: checked SHA-1 ([`Sha1`]), SHA-1
//! without collision detection ([`Sha1Unsafe`]), [`Md5`] and [`Sha256`], each a small streaming
//! type, plus
//! run-time dispatch ([`Algorithm`], [`Hasher`]) and stream hashing.
//!
//! The selection is `build.rs`'s: one `flagsplit_<facility> = "<provider>"` cfg per facility. This
//! module is the only place that names a provider for the `flagsplit` binary, so only the selected
//! ones are linked. Everything of `flagsplit-hash` (every compiled provider, the trait, [`Digest`])
//! is re-exported here for tests and benchmarks.

use std::io::{self, Read};

pub use flagsplit_hash::*;

#[cfg(flagsplit_sha1 = "dc")]
type SelectedSha1 = sha1::dc::Sha1Dc;
#[cfg(flagsplit_sha1 = "block")]
type SelectedSha1 = sha1::block::Sha1Block;
#[cfg(flagsplit_sha1 = "openssl")]
type SelectedSha1 = sha1::openssl::Sha1Openssl;

#[cfg(flagsplit_sha1_unsafe = "block")]
type SelectedSha1Unsafe = sha1::block::Sha1Block;
#[cfg(flagsplit_sha1_unsafe = "openssl")]
type SelectedSha1Unsafe = sha1::openssl::Sha1Openssl;

#[cfg(flagsplit_md5 = "builtin")]
type SelectedMd5 = md5::builtin::Md5Builtin;
#[cfg(flagsplit_md5 = "openssl")]
type SelectedMd5 = md5::openssl::Md5Openssl;

#[cfg(flagsplit_sha256 = "builtin")]
type SelectedSha256 = sha256::builtin::Sha256Builtin;
#[cfg(flagsplit_sha256 = "openssl")]
type SelectedSha256 = sha256::openssl::Sha256Openssl;

// With openssl-sys in the build (features openssl-tls, openssl-vendored), the OpenSSL hashing
// providers use the libcrypto it found or built, and build.rs links none: openssl-sys's own link
// directives reach a binary only through a crate that loads it, which this does wherever an OpenSSL
// hashing provider is selected.
#[cfg(all(
    any(feature = "openssl-tls", feature = "openssl-vendored"),
    any(
        flagsplit_sha1 = "openssl",
        flagsplit_sha1_unsafe = "openssl",
        flagsplit_md5 = "openssl",
        flagsplit_sha256 = "openssl"
    )
))]
extern crate openssl_sys as _;

/// The MD5 provider this build selected (the IMAP sender's CRAM-MD5 uses it too).
pub type Md5Selected = SelectedMd5;

/// The version text of the libcrypto this process runs with, when an OpenSSL hashing provider is
/// selected (so that calling this links nothing new), else `None`. `#[inline]`, so that only its
/// callers' object files mention libcrypto: `flagsplit-imap-send` links this library too.
#[inline]
pub fn openssl_version() -> Option<String> {
    #[cfg(any(openssl_sha1, openssl_md5, openssl_sha256))]
    {
        Some(flagsplit_hash::openssl_version())
    }
    #[cfg(not(any(openssl_sha1, openssl_md5, openssl_sha256)))]
    {
        None
    }
}

/// SHA-1 of untrusted content, with the provider of the `sha1` facility. With `dc` (the default)
/// a collision attack is an error.
#[derive(Clone)]
pub struct Sha1(SelectedSha1);

impl Sha1 {
    /// The provider this build selected.
    pub const PROVIDER: &'static str = SelectedSha1::PROVIDER;
    /// Whether it detects collision attacks.
    pub const DETECTS_COLLISIONS: bool = SelectedSha1::DETECTS_COLLISIONS;

    /// A fresh hasher.
    #[inline]
    pub fn new() -> Sha1 {
        Sha1(SelectedSha1::new())
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest, or the collision attack detected.
    #[inline]
    // The provider's error is `Collision` with `dc` (an identity conversion, which clippy flags)
    // and `Infallible` with `block` or `openssl`.
    #[allow(clippy::useless_conversion)]
    pub fn finalize(self) -> Result<[u8; 20], Collision> {
        self.0.finalize().map_err(Into::into)
    }
}

impl Default for Sha1 {
    fn default() -> Self {
        Sha1::new()
    }
}

/// A hasher over a provider that cannot refuse (its error type is `Infallible`): the digest comes
/// without a `Result`. [`Sha1Unsafe`], [`Md5`] and [`Sha256`] are this over the selected providers.
#[derive(Clone)]
pub struct Plain<P>(P);

impl<P: HashProvider<Error = std::convert::Infallible>> Plain<P> {
    /// The provider this build selected.
    pub const PROVIDER: &'static str = P::PROVIDER;

    /// A fresh hasher.
    #[inline]
    pub fn new() -> Plain<P> {
        Plain(P::new())
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest.
    #[inline]
    pub fn finalize(self) -> P::Output {
        let Ok(d) = self.0.finalize();
        d
    }
}

impl<P: HashProvider<Error = std::convert::Infallible>> Default for Plain<P> {
    fn default() -> Self {
        Plain::new()
    }
}

/// SHA-1 without collision detection, with the provider of the `sha1-unsafe` facility: for data
/// flagsplit wrote itself, and for `--no-collision-detection`.
pub type Sha1Unsafe = Plain<SelectedSha1Unsafe>;

/// MD5 with the provider of the `md5` facility.
pub type Md5 = Plain<SelectedMd5>;

/// SHA-256 with the provider of the `sha256` facility.
pub type Sha256 = Plain<SelectedSha256>;

/// Which hash a command computes, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// SHA-1 with the `sha1` facility's provider (collision detection when it is `dc`).
    Sha1,
    /// SHA-1 with the `sha1-unsafe` facility's provider (`--no-collision-detection`).
    Sha1Unchecked,
    /// MD5.
    Md5,
    /// SHA-256.
    Sha256,
}

impl Algorithm {
    /// The provider the build selected for this algorithm.
    pub fn provider(self) -> &'static str {
        match self {
            Algorithm::Sha1 => Sha1::PROVIDER,
            Algorithm::Sha1Unchecked => Sha1Unsafe::PROVIDER,
            Algorithm::Md5 => Md5::PROVIDER,
            Algorithm::Sha256 => Sha256::PROVIDER,
        }
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Sha1 | Algorithm::Sha1Unchecked => 20,
            Algorithm::Md5 => 16,
            Algorithm::Sha256 => 32,
        }
    }
}

/// A hasher for an [`Algorithm`] chosen at run time.
#[derive(Clone)]
pub enum Hasher {
    /// Checked SHA-1.
    Sha1(Sha1),
    /// Unchecked SHA-1.
    Sha1Unchecked(Sha1Unsafe),
    /// MD5.
    Md5(Md5),
    /// SHA-256.
    Sha256(Sha256),
}

impl Hasher {
    /// A fresh hasher.
    pub fn new(algorithm: Algorithm) -> Hasher {
        match algorithm {
            Algorithm::Sha1 => Hasher::Sha1(Sha1::new()),
            Algorithm::Sha1Unchecked => Hasher::Sha1Unchecked(Sha1Unsafe::new()),
            Algorithm::Md5 => Hasher::Md5(Md5::new()),
            Algorithm::Sha256 => Hasher::Sha256(Sha256::new()),
        }
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha1Unchecked(h) => h.update(data),
            Hasher::Md5(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
        }
    }

    /// The digest, or the collision the checked SHA-1 provider detected.
    pub fn finalize(self) -> Result<Digest, Collision> {
        match self {
            Hasher::Sha1(h) => h.finalize().map(|d| Digest::new(&d)),
            Hasher::Sha1Unchecked(h) => Ok(Digest::new(&h.finalize())),
            Hasher::Md5(h) => Ok(Digest::new(&h.finalize())),
            Hasher::Sha256(h) => Ok(Digest::new(&h.finalize())),
        }
    }
}

/// Why hashing a stream did not produce a digest.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The content is part of a SHA-1 collision attack.
    #[error(transparent)]
    Collision(#[from] Collision),
}

/// The read size for streams: large enough that per-call overhead vanishes, small enough to stay in
/// L2 cache.
pub const READ_SIZE: usize = 128 * 1024;

/// The first read goes to a buffer on the stack: most files are small, and zeroing a large heap
/// buffer costs more instructions (about 130 K) than the whole rest of `sha1sum /dev/null`.
pub const SMALL_READ: usize = 16 * 1024;

/// Hashes everything `reader` yields, in constant memory.
pub fn hash_reader(algorithm: Algorithm, reader: impl Read) -> Result<Digest, HashError> {
    hash_reader_with(algorithm, reader, &mut Vec::new())
}

/// [`hash_reader`] with a read buffer the caller keeps across streams (it grows to [`READ_SIZE`]
/// the first time a stream is larger than what fits on the stack).
pub fn hash_reader_with(
    algorithm: Algorithm,
    mut reader: impl Read,
    buf: &mut Vec<u8>,
) -> Result<Digest, HashError> {
    let mut hasher = Hasher::new(algorithm);
    if hash_head(&mut hasher, &mut reader)? {
        return Ok(hasher.finalize()?);
    }
    hash_rest(hasher, reader, buf)
}

/// Hashes the first [`SMALL_READ`] bytes of `reader` (read into a buffer on the stack); whether
/// that was the whole stream. Small inputs never touch the heap buffer.
pub fn hash_head(hasher: &mut Hasher, mut reader: impl Read) -> io::Result<bool> {
    let mut small = [0u8; SMALL_READ];
    let mut filled = 0;
    while filled < SMALL_READ {
        match read_retrying(&mut reader, &mut small[filled..])? {
            0 => {
                hasher.update(&small[..filled]);
                return Ok(true);
            }
            n => filled += n,
        }
    }
    hasher.update(&small);
    Ok(false)
}

/// Hashes the rest of `reader` after [`hash_head`] with [`READ_SIZE`] reads into `buf`.
pub fn hash_rest(
    mut hasher: Hasher,
    mut reader: impl Read,
    buf: &mut Vec<u8>,
) -> Result<Digest, HashError> {
    if buf.len() < READ_SIZE {
        buf.resize(READ_SIZE, 0);
    }
    loop {
        match read_retrying(&mut reader, buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hasher.finalize()?)
}

/// One `read`, repeated while it is interrupted (`EINTR`).
pub(crate) fn read_retrying(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Whether run-time collision detection is wanted: `FLAGSPLIT_SHA1DC=0` turns it off (like
/// `--no-collision-detection`); any other value, or none, leaves it on.
pub fn collision_detection_from_env() -> bool {
    std::env::var_os("FLAGSPLIT_SHA1DC").is_none_or(|v| v != "0")
}

/// The hash an object format names ([`flagsplit_git::HashAlgo`]), over this build's providers.
impl From<flagsplit_git::HashAlgo> for Algorithm {
    fn from(h: flagsplit_git::HashAlgo) -> Algorithm {
        match h {
            flagsplit_git::HashAlgo::Sha1 => Algorithm::Sha1,
            flagsplit_git::HashAlgo::Sha1Unchecked => Algorithm::Sha1Unchecked,
            flagsplit_git::HashAlgo::Sha256 => Algorithm::Sha256,
        }
    }
}

impl flagsplit_git::StreamHasher for Hasher {
    fn new(algo: flagsplit_git::HashAlgo) -> Hasher {
        Hasher::new(algo.into())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        Hasher::update(self, data);
    }

    fn finalize(self) -> Result<flagsplit_git::Digest, flagsplit_git::Collision> {
        match Hasher::finalize(self) {
            Ok(d) => Ok(flagsplit_git::Digest::new(d.as_bytes())),
            Err(c) => Err(flagsplit_git::Collision {
                digest: flagsplit_git::Digest::new(&c.digest),
            }),
        }
    }
}

/// This build's providers, as the engine's library asks for them ([`flagsplit_git::Providers`]):
/// the hashers of the `sha1`, `sha1-unsafe` and `sha256` facilities and the `zlib` facility's
/// inflater.
pub struct Selected;

impl flagsplit_git::Providers for Selected {
    type Hasher = Hasher;
    type Inflater = crate::zlib::Inflater;
}

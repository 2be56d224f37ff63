//! flagsplit's hashing facilities: checked SHA-1 ([`Sha1`]), SHA-1 without collision detection
//! ([`Sha1Unsafe`]) and [`Md5`], each a small streaming type over the provider the build selected.
//!
//! Every compiled provider is also public (`sha1::dc::Sha1Dc`, `md5::openssl::Md5Openssl`, ...) so
//! that tests and benchmarks can compare them; the shipped binaries use only the selected ones, so
//! only those decide what the binaries link. [`for_each_sha1_provider`] and
//! [`for_each_md5_provider`] are generic, so a provider is only instantiated where a caller asks.

pub mod md5;
mod md_buffer;
pub mod sha1;

use std::fmt;
use std::io::{self, Read};

use flagsplit_config::{BuildInfo, Provider};

pub use self::md5::{Md5, Md5Provider, for_each_md5_provider};
pub use self::sha1::{Collision, Sha1, Sha1Provider, Sha1Unsafe, for_each_sha1_provider};

/// What the build decided (providers, origins, features, the OpenSSL found): the table
/// `build.rs` generated, data only. `version --build-options` prints it.
pub const BUILD_INFO: BuildInfo = include!(concat!(env!("OUT_DIR"), "/build_info.rs"));

/// The version text of the libcrypto this process runs with (`OpenSSL 3.0.19 27 Jan 2026`), when an
/// OpenSSL hashing provider is selected, so that calling this links nothing new.
pub fn openssl_version() -> Option<String> {
    #[cfg(any(openssl_sha1, openssl_md5))]
    {
        Some(flagsplit_openssl_hash::version_text())
    }
    #[cfg(not(any(openssl_sha1, openssl_md5)))]
    {
        None
    }
}

/// A digest of up to 20 bytes (SHA-1 or MD5).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    bytes: [u8; 20],
    len: u8,
}

impl Digest {
    /// A digest from its bytes (at most 20).
    pub fn new(bytes: &[u8]) -> Digest {
        let mut d = Digest {
            bytes: [0; 20],
            len: 0,
        };
        let n = bytes.len().min(20);
        d.bytes[..n].copy_from_slice(&bytes[..n]);
        d.len = n as u8; // n <= 20
        d
    }

    /// The digest's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Lower-case hexadecimal, as `sha1sum` prints it.
    pub fn to_hex(&self) -> String {
        let mut s = String::with_capacity(40);
        for b in self.as_bytes() {
            s.push(char::from(HEX[usize::from(b >> 4)]));
            s.push(char::from(HEX[usize::from(b & 15)]));
        }
        s
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// Which hash a command computes, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// SHA-1 with the `sha1` facility's provider (collision detection when it is `dc`).
    Sha1,
    /// SHA-1 with the `sha1-unsafe` facility's provider (`--no-collision-detection`).
    Sha1Unchecked,
    /// MD5.
    Md5,
}

impl Algorithm {
    /// The provider the build selected for this algorithm.
    pub fn provider(self) -> Provider {
        match self {
            Algorithm::Sha1 => Sha1::PROVIDER,
            Algorithm::Sha1Unchecked => Sha1Unsafe::PROVIDER,
            Algorithm::Md5 => Md5::PROVIDER,
        }
    }

    /// Digest length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            Algorithm::Sha1 | Algorithm::Sha1Unchecked => 20,
            Algorithm::Md5 => 16,
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
}

impl Hasher {
    /// A fresh hasher.
    pub fn new(algorithm: Algorithm) -> Hasher {
        match algorithm {
            Algorithm::Sha1 => Hasher::Sha1(Sha1::new()),
            Algorithm::Sha1Unchecked => Hasher::Sha1Unchecked(Sha1Unsafe::new()),
            Algorithm::Md5 => Hasher::Md5(Md5::new()),
        }
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha1Unchecked(h) => h.update(data),
            Hasher::Md5(h) => h.update(data),
        }
    }

    /// The digest, or the collision the checked SHA-1 provider detected.
    pub fn finalize(self) -> Result<Digest, Collision> {
        match self {
            Hasher::Sha1(h) => h.finalize().map(|d| Digest::new(&d)),
            Hasher::Sha1Unchecked(h) => Ok(Digest::new(&h.finalize())),
            Hasher::Md5(h) => Ok(Digest::new(&h.finalize())),
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
const SMALL_READ: usize = 16 * 1024;

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
    // Small inputs never touch the heap buffer.
    let mut small = [0u8; SMALL_READ];
    let mut filled = 0;
    while filled < SMALL_READ {
        match read_retrying(&mut reader, &mut small[filled..])? {
            0 => {
                hasher.update(&small[..filled]);
                return Ok(hasher.finalize()?);
            }
            n => filled += n,
        }
    }
    hasher.update(&small);
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

fn read_retrying(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
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

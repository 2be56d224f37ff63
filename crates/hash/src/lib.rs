//! flagsplit's hashing providers: every SHA-1, MD5 and SHA-256 implementation this build compiles
//! (Cargo features `openssl-sha1`, `openssl-md5`, `openssl-sha256` add the libcrypto ones), each a
//! small streaming type behind the one interface [`HashProvider`].
//!
//! This crate never selects: the final package's build script decides which provider each
//! facility uses and the package's own source names only those, so only they decide what its
//! binaries link. [`for_each_provider`] is generic, so a provider is only instantiated where a
//! caller asks (tests and benchmarks compare them all, every algorithm through the same code).

pub mod md5;
mod md_buffer;
pub mod sha1;
pub mod sha256;

use std::convert::Infallible;
use std::fmt;

pub use self::sha1::Collision;

/// One hash implementation: a streaming hasher of one algorithm from one provider.
///
/// `finalize` is fallible for the one provider that can refuse (collision-detecting SHA-1, whose
/// [`Error`](HashProvider::Error) is [`Collision`]); every other provider says
/// `Error = Infallible`, so a caller that names such a bound (CRAM-MD5 takes
/// `HashProvider<Output = [u8; 16], Error = Infallible>`) gets its digest with `let Ok(d) = ...`.
pub trait HashProvider: Clone {
    /// The digest: `[u8; 20]`, `[u8; 16]`, `[u8; 32]`.
    type Output: Copy + AsRef<[u8]> + PartialEq + fmt::Debug;
    /// What `finalize` can refuse: [`Collision`] or [`Infallible`].
    type Error: Into<Collision> + fmt::Debug;
    /// The algorithm, as the facility labels spell it: `SHA-1`, `MD5`, `SHA-256`.
    const ALGORITHM: &'static str;
    /// Its provider name, as the facility table spells it (`dc`, `block`, `builtin`, `openssl`).
    const PROVIDER: &'static str;
    /// Whether it detects collision attacks.
    const DETECTS_COLLISIONS: bool = false;
    /// A fresh hasher.
    fn new() -> Self;
    /// Feeds `data`.
    fn update(&mut self, data: &[u8]);
    /// The digest, or what the provider detected.
    fn finalize(self) -> Result<Self::Output, Self::Error>;
}

impl From<Infallible> for Collision {
    fn from(never: Infallible) -> Collision {
        match never {}
    }
}

/// Calls `visitor` once per compiled provider.
pub trait Visitor {
    /// Visits provider `P`.
    fn visit<P: HashProvider>(&mut self);
}

/// Visits every provider this build compiles, every algorithm (for tests and benchmarks): SHA-1
/// `dc`, `block` (and `openssl`), MD5 `builtin` (and `openssl`), SHA-256 `builtin` (and
/// `openssl`).
pub fn for_each_provider(visitor: &mut impl Visitor) {
    visitor.visit::<sha1::dc::Sha1Dc>();
    visitor.visit::<sha1::block::Sha1Block>();
    #[cfg(feature = "openssl-sha1")]
    visitor.visit::<sha1::openssl::Sha1Openssl>();
    visitor.visit::<md5::builtin::Md5Builtin>();
    #[cfg(feature = "openssl-md5")]
    visitor.visit::<md5::openssl::Md5Openssl>();
    visitor.visit::<sha256::builtin::Sha256Builtin>();
    #[cfg(feature = "openssl-sha256")]
    visitor.visit::<sha256::openssl::Sha256Openssl>();
}

/// The version text of the libcrypto this process runs with (`OpenSSL 3.0.19 27 Jan 2026`).
/// Calling it links libcrypto: call it only where an OpenSSL provider is selected. `#[inline]`, so
/// that it is compiled into its callers only: a function of its own in this crate's object files
/// would make GNU ld, which decides NEEDED per object file it pulls in, link libcrypto into every
/// binary that uses anything else from the same object file.
#[cfg(any(
    feature = "openssl-sha1",
    feature = "openssl-md5",
    feature = "openssl-sha256"
))]
#[inline]
pub fn openssl_version() -> String {
    flagsplit_openssl_hash::version_text()
}

// This crate's unit tests hash with every compiled provider: libcrypto, which the final package's
// build script links into its own binaries, is linked here for the tests' executable, and for
// other crates' tests with feature `link-crypto`.
#[cfg(all(
    any(test, feature = "link-crypto"),
    any(
        feature = "openssl-sha1",
        feature = "openssl-md5",
        feature = "openssl-sha256"
    )
))]
#[link(name = "crypto")]
unsafe extern "C" {}

/// The longest digest a [`Digest`] holds (SHA-256).
pub const MAX_DIGEST: usize = 32;

/// A digest of up to 32 bytes (SHA-1, MD5 or SHA-256).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    bytes: [u8; MAX_DIGEST],
    len: u8,
}

impl Digest {
    /// A digest from its bytes (at most 32).
    pub fn new(bytes: &[u8]) -> Digest {
        let mut d = Digest {
            bytes: [0; MAX_DIGEST],
            len: 0,
        };
        let n = bytes.len().min(MAX_DIGEST);
        d.bytes[..n].copy_from_slice(&bytes[..n]);
        d.len = n as u8; // n <= 32
        d
    }

    /// The digest's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Writes the lower-case hexadecimal form into `out` and returns its length.
    pub fn write_hex(&self, out: &mut [u8; 2 * MAX_DIGEST]) -> usize {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for (pair, b) in out.chunks_exact_mut(2).zip(self.as_bytes()) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 15)];
        }
        2 * usize::from(self.len)
    }

    /// Lower-case hexadecimal, as `sha1sum` prints it.
    pub fn to_hex(&self) -> String {
        let mut buf = [0u8; 2 * MAX_DIGEST];
        let n = self.write_hex(&mut buf);
        buf[..n].iter().map(|&b| char::from(b)).collect()
    }
}

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

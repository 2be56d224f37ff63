//! flagsplit's hashing providers: every SHA-1 and MD5 implementation this build compiles (Cargo
//! features `openssl-sha1`, `openssl-md5` add the libcrypto ones), each a small streaming type
//! behind [`Sha1Provider`] or [`Md5Provider`].
//!
//! This crate never selects: the final package's build script decides which provider each
//! facility uses and the package's own source names only those, so only they decide what its
//! binaries link. [`for_each_sha1_provider`] and [`for_each_md5_provider`] are generic, so a
//! provider is only instantiated where a caller asks (tests and benchmarks compare them all).

pub mod md5;
mod md_buffer;
pub mod sha1;

use std::fmt;

pub use self::md5::{Md5Provider, Md5Visitor, for_each_md5_provider};
pub use self::sha1::{Collision, Sha1Provider, Sha1Visitor, for_each_sha1_provider};

/// The version text of the libcrypto this process runs with (`OpenSSL 3.0.19 27 Jan 2026`).
/// Calling it links libcrypto: call it only where an OpenSSL provider is selected. `#[inline]`, so
/// that it is compiled into its callers only: a function of its own in this crate's object files
/// would make GNU ld, which decides NEEDED per object file it pulls in, link libcrypto into every
/// binary that uses anything else from the same object file.
#[cfg(any(feature = "openssl-sha1", feature = "openssl-md5"))]
#[inline]
pub fn openssl_version() -> String {
    flagsplit_openssl_hash::version_text()
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

//! What the engine asks of the providers the application selected: a hasher for each of git's
//! hash functions ([`StreamHasher`]) and an inflater ([`flagsplit_zlib::Inflater`]), named
//! together by one type ([`Providers`]). The engine names the function it needs; it never names
//! or links a provider itself.

use crate::format::{HashAlgo, Hashes};

/// A digest of up to 32 bytes (SHA-1's 20, SHA-256's 32).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    bytes: [u8; 32],
    len: u8,
}

impl Digest {
    /// The digest whose bytes are `bytes` (at most 32; more are cut off).
    pub fn new(bytes: &[u8]) -> Digest {
        let len = bytes.len().min(32);
        let mut d = Digest {
            bytes: [0; 32],
            len: len as u8, // at most 32
        };
        d.bytes[..len].copy_from_slice(&bytes[..len]);
        d
    }

    /// Its bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Writes the lowercase hexadecimal form into `out` and returns its length.
    pub fn write_hex(&self, out: &mut [u8; 64]) -> usize {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let bytes = self.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            out[2 * i] = DIGITS[usize::from(b >> 4)];
            out[2 * i + 1] = DIGITS[usize::from(b & 15)];
        }
        2 * bytes.len()
    }

    /// Lowercase hexadecimal.
    pub fn to_hex(&self) -> String {
        crate::format::hex(self.as_bytes())
    }

    /// Its bytes, then zeros to 32.
    pub fn padded(&self) -> [u8; 32] {
        self.bytes
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::format::hex(self.as_bytes()))
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// SHA-1's collision detection refused the input: it is part of a collision attack. The digest
/// is the one computed with the attack's disturbance removed, as git prints it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SHA-1 appears to be part of a collision attack: {digest}")]
pub struct Collision {
    /// The digest git names in its message.
    pub digest: Digest,
}

/// One hash computation, streaming, with the provider the application selected for `algo`.
pub trait StreamHasher: Send + Sized {
    /// A fresh computation of `algo`.
    fn new(algo: HashAlgo) -> Self;
    /// Feeds `data`.
    fn update(&mut self, data: &[u8]);
    /// The digest, or the collision the checked SHA-1 detected.
    fn finalize(self) -> Result<Digest, Collision>;
}

/// The providers an application brings to the engine: its hashers and its inflater. Every
/// [`Providers`] is also [`Hashes`].
pub trait Providers: Send + Sync + 'static {
    /// Hashes with the selected SHA-1 (checked and unchecked) and SHA-256 providers.
    type Hasher: StreamHasher;
    /// Inflates with the selected zlib provider.
    type Inflater: flagsplit_zlib::Inflater;
}

impl<P: Providers> Hashes for P {
    fn digest(algo: HashAlgo, data: &[u8]) -> Option<Vec<u8>> {
        let mut h = P::Hasher::new(algo);
        h.update(data);
        h.finalize().ok().map(|d| d.as_bytes().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_keep_their_length() {
        let d = Digest::new(&[0xab; 20]);
        assert_eq!(d.as_bytes().len(), 20);
        assert_eq!(d.to_string(), "ab".repeat(20));
        let mut out = [0u8; 64];
        let n = d.write_hex(&mut out);
        assert_eq!(&out[..n], "ab".repeat(20).as_bytes());
        assert_eq!(d.padded()[20..], [0u8; 12]);
        let c = Collision { digest: d };
        assert!(c.to_string().ends_with(&"ab".repeat(20)));
    }
}

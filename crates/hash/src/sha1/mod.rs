//! SHA-1: the checked facility [`Sha1`] and the unchecked one [`Sha1Unsafe`].

pub mod block;
pub mod dc;
#[cfg(feature = "openssl-sha1")]
pub mod openssl;

use flagsplit_config::Provider;

/// A SHA-1 implementation.
pub trait Sha1Provider: Clone {
    /// Its provider name.
    const PROVIDER: Provider;
    /// Whether it detects collision attacks.
    const DETECTS_COLLISIONS: bool;
    /// A fresh hasher.
    fn new() -> Self;
    /// Feeds `data`.
    fn update(&mut self, data: &[u8]);
    /// The digest, or the detected collision (never for providers without detection).
    fn finalize(self) -> Result<[u8; 20], Collision>;
}

/// The content hashed is part of a SHA-1 collision attack (detected by the `dc` provider).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SHA-1 collision attack detected")]
pub struct Collision {
    /// The (attacker-chosen) SHA-1 digest of the content.
    pub digest: [u8; 20],
}

/// Calls `visitor` once per compiled SHA-1 provider.
pub trait Sha1Visitor {
    /// Visits provider `P`.
    fn visit<P: Sha1Provider>(&mut self);
}

/// Visits every SHA-1 provider this build compiles (for tests and benchmarks).
pub fn for_each_sha1_provider(visitor: &mut impl Sha1Visitor) {
    visitor.visit::<dc::Sha1Dc>();
    visitor.visit::<block::Sha1Block>();
    #[cfg(feature = "openssl-sha1")]
    visitor.visit::<openssl::Sha1Openssl>();
}

#[cfg(flagsplit_sha1 = "dc")]
type Selected = dc::Sha1Dc;
#[cfg(flagsplit_sha1 = "block")]
type Selected = block::Sha1Block;
#[cfg(flagsplit_sha1 = "openssl")]
type Selected = openssl::Sha1Openssl;

#[cfg(flagsplit_sha1_unsafe = "block")]
type SelectedUnsafe = block::Sha1Block;
#[cfg(flagsplit_sha1_unsafe = "openssl")]
type SelectedUnsafe = openssl::Sha1Openssl;

/// SHA-1 of untrusted content, with the provider of the `sha1` facility. With `dc` (the default)
/// a collision attack is an error.
#[derive(Clone)]
pub struct Sha1(Selected);

impl Sha1 {
    /// The provider this build selected.
    pub const PROVIDER: Provider = Selected::PROVIDER;
    /// Whether it detects collision attacks.
    pub const DETECTS_COLLISIONS: bool = Selected::DETECTS_COLLISIONS;

    /// A fresh hasher.
    #[inline]
    pub fn new() -> Sha1 {
        Sha1(Selected::new())
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest, or the collision attack detected.
    #[inline]
    pub fn finalize(self) -> Result<[u8; 20], Collision> {
        self.0.finalize()
    }
}

impl Default for Sha1 {
    fn default() -> Self {
        Sha1::new()
    }
}

/// SHA-1 without collision detection, with the provider of the `sha1-unsafe` facility: for data
/// flagsplit wrote itself, and for `--no-collision-detection`.
#[derive(Clone)]
pub struct Sha1Unsafe(SelectedUnsafe);

impl Sha1Unsafe {
    /// The provider this build selected.
    pub const PROVIDER: Provider = SelectedUnsafe::PROVIDER;

    /// A fresh hasher.
    #[inline]
    pub fn new() -> Sha1Unsafe {
        Sha1Unsafe(SelectedUnsafe::new())
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest.
    #[inline]
    pub fn finalize(self) -> [u8; 20] {
        match self.0.finalize() {
            Ok(d) => d,
            // The sha1-unsafe providers (block, openssl) never detect anything.
            Err(c) => c.digest,
        }
    }
}

impl Default for Sha1Unsafe {
    fn default() -> Self {
        Sha1Unsafe::new()
    }
}

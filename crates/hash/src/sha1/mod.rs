//! SHA-1 providers: `dc` (collision-detecting), `block`, and `openssl` (feature `openssl-sha1`).

pub mod block;
pub mod dc;
#[cfg(feature = "openssl-sha1")]
pub mod openssl;

/// A SHA-1 implementation.
pub trait Sha1Provider: Clone {
    /// Its provider name, as the facility table spells it (`dc`, `builtin`, `openssl`).
    const PROVIDER: &'static str;
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

//! SHA-1 providers: `dc` (collision-detecting), `block`, and `openssl` (feature `openssl-sha1`).

pub mod block;
pub mod dc;
#[cfg(feature = "openssl-sha1")]
pub mod openssl;

/// The content hashed is part of a SHA-1 collision attack (detected by the `dc` provider).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SHA-1 collision attack detected")]
pub struct Collision {
    /// The (attacker-chosen) SHA-1 digest of the content.
    pub digest: [u8; 20],
}

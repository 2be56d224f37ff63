//! SHA-256 providers: `builtin` (the `sha2` crate's block function) and `openssl` (feature
//! `openssl-sha256`).

pub mod builtin;
#[cfg(feature = "openssl-sha256")]
pub mod openssl;

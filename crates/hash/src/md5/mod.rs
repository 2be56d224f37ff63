//! MD5 providers: `builtin` (our own block function) and `openssl` (feature `openssl-md5`).

pub mod builtin;
mod compress;
#[cfg(feature = "openssl-md5")]
pub mod openssl;

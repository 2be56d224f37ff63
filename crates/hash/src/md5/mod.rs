//! MD5 providers: `builtin` (our own block function) and `openssl` (feature `openssl-md5`).

pub mod builtin;
mod compress;
#[cfg(feature = "openssl-md5")]
pub mod openssl;

/// An MD5 implementation.
pub trait Md5Provider: Clone {
    /// Its provider name, as the facility table spells it (`dc`, `builtin`, `openssl`).
    const PROVIDER: &'static str;
    /// A fresh hasher.
    fn new() -> Self;
    /// Feeds `data`.
    fn update(&mut self, data: &[u8]);
    /// The digest.
    fn finalize(self) -> [u8; 16];
}

/// Calls `visitor` once per compiled MD5 provider.
pub trait Md5Visitor {
    /// Visits provider `P`.
    fn visit<P: Md5Provider>(&mut self);
}

/// Visits every MD5 provider this build compiles (for tests and benchmarks).
pub fn for_each_md5_provider(visitor: &mut impl Md5Visitor) {
    visitor.visit::<builtin::Md5Builtin>();
    #[cfg(feature = "openssl-md5")]
    visitor.visit::<openssl::Md5Openssl>();
}

//! MD5: the facility [`Md5`] over the selected provider.

pub mod builtin;
mod compress;
#[cfg(feature = "openssl-md5")]
pub mod openssl;

use flagsplit_config::Provider;

/// An MD5 implementation.
pub trait Md5Provider: Clone {
    /// Its provider name.
    const PROVIDER: Provider;
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

#[cfg(flagsplit_md5 = "builtin")]
type Selected = builtin::Md5Builtin;
#[cfg(flagsplit_md5 = "openssl")]
type Selected = openssl::Md5Openssl;

/// MD5 with the provider of the `md5` facility.
#[derive(Clone)]
pub struct Md5(Selected);

impl Md5 {
    /// The provider this build selected.
    pub const PROVIDER: Provider = Selected::PROVIDER;

    /// A fresh hasher.
    #[inline]
    pub fn new() -> Md5 {
        Md5(Selected::new())
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest.
    #[inline]
    pub fn finalize(self) -> [u8; 16] {
        self.0.finalize()
    }
}

impl Default for Md5 {
    fn default() -> Self {
        Md5::new()
    }
}

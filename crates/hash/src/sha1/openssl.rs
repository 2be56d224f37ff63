//! `openssl`: libcrypto's low-level SHA-1, git's OPENSSL_SHA1. The FFI lives in the
//! `flagsplit-openssl-hash` crate so that it is linked only into a binary that calls it; the trait
//! methods here are `#[inline]` so this crate holds no code that references libcrypto.

use std::convert::Infallible;

use crate::HashProvider;

/// libcrypto SHA-1.
#[derive(Clone)]
pub struct Sha1Openssl(flagsplit_openssl_hash::Sha1);

impl HashProvider for Sha1Openssl {
    type Output = [u8; 20];
    type Error = Infallible;
    const ALGORITHM: &'static str = "SHA-1";
    const PROVIDER: &'static str = "openssl";

    #[inline]
    fn new() -> Self {
        Sha1Openssl(flagsplit_openssl_hash::Sha1::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 20], Infallible> {
        Ok(self.0.finalize())
    }
}

//! `openssl`: libcrypto's low-level SHA-256, git's OPENSSL_SHA256. The FFI lives in
//! `flagsplit-openssl-hash` (see `sha1::openssl` for why).

use std::convert::Infallible;

use crate::HashProvider;

/// libcrypto SHA-256.
#[derive(Clone)]
pub struct Sha256Openssl(flagsplit_openssl_hash::Sha256);

impl HashProvider for Sha256Openssl {
    type Output = [u8; 32];
    type Error = Infallible;
    const ALGORITHM: &'static str = "SHA-256";
    const PROVIDER: &'static str = "openssl";

    #[inline]
    fn new() -> Self {
        Sha256Openssl(flagsplit_openssl_hash::Sha256::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 32], Infallible> {
        Ok(self.0.finalize())
    }
}

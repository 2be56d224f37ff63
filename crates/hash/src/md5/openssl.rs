//! `openssl`: libcrypto's low-level MD5. The FFI lives in `flagsplit-openssl-hash` (see
//! `sha1::openssl` for why).

use std::convert::Infallible;

use crate::HashProvider;

/// libcrypto MD5.
#[derive(Clone)]
pub struct Md5Openssl(flagsplit_openssl_hash::Md5);

impl HashProvider for Md5Openssl {
    type Output = [u8; 16];
    type Error = Infallible;
    const ALGORITHM: &'static str = "MD5";
    const PROVIDER: &'static str = "openssl";

    #[inline]
    fn new() -> Self {
        Md5Openssl(flagsplit_openssl_hash::Md5::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 16], Infallible> {
        Ok(self.0.finalize())
    }
}

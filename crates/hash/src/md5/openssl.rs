//! `openssl`: libcrypto's low-level MD5. The FFI lives in `flagsplit-openssl-hash` (see
//! `sha1::openssl` for why).

use super::Md5Provider;

/// libcrypto MD5.
#[derive(Clone)]
pub struct Md5Openssl(flagsplit_openssl_hash::Md5);

impl Md5Provider for Md5Openssl {
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
    fn finalize(self) -> [u8; 16] {
        self.0.finalize()
    }
}

//! `builtin`: MD5 without OpenSSL (crate `md-5`).

use super::Md5Provider;
use flagsplit_config::Provider;
use md5::Digest as _;

/// Built-in MD5.
#[derive(Clone)]
pub struct Md5Builtin(md5::Md5);

impl Md5Provider for Md5Builtin {
    const PROVIDER: Provider = Provider::Builtin;

    #[inline]
    fn new() -> Self {
        Md5Builtin(md5::Md5::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> [u8; 16] {
        self.0.finalize().into()
    }
}

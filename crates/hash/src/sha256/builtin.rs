//! `builtin`: SHA-256 without OpenSSL, git's SHA256_BLK: the `sha2` crate's block function (SHA-NI
//! chosen at run time through its `cpufeatures` detection, else its portable code) under
//! flagsplit's own streaming buffer (the private module `md_buffer`), as the block SHA-1 provider
//! does.

use std::convert::Infallible;

use crate::HashProvider;
use crate::md_buffer::{LengthOrder, MdBuffer};

/// FIPS 180-4 §5.3.3.
const INIT: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// Built-in SHA-256.
#[derive(Clone)]
pub struct Sha256Builtin(MdBuffer<[u32; 8]>);

impl HashProvider for Sha256Builtin {
    type Output = [u8; 32];
    type Error = Infallible;
    const ALGORITHM: &'static str = "SHA-256";
    const PROVIDER: &'static str = "builtin";

    #[inline]
    fn new() -> Self {
        Sha256Builtin(MdBuffer::new(INIT))
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data, sha2::block_api::compress256);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 32], Infallible> {
        let state = self
            .0
            .finalize(LengthOrder::Big, sha2::block_api::compress256);
        let mut out = [0u8; 32];
        for (o, w) in out.chunks_exact_mut(4).zip(state) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        Ok(out)
    }
}

//! `block`: SHA-1 without collision detection (crate `sha1`, SHA-NI chosen at run time), git's
//! BLK_SHA1.

use super::{Collision, Sha1Provider};
use flagsplit_config::Provider;
use sha1::Digest as _;

/// Block SHA-1.
#[derive(Clone)]
pub struct Sha1Block(sha1::Sha1);

impl Sha1Provider for Sha1Block {
    const PROVIDER: Provider = Provider::Block;
    const DETECTS_COLLISIONS: bool = false;

    #[inline]
    fn new() -> Self {
        Sha1Block(sha1::Sha1::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 20], Collision> {
        Ok(self.0.finalize().into())
    }
}

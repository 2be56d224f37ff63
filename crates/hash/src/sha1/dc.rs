//! `dc`: collision-detecting SHA-1 (crate `sha1dc`, SHA-NI when the CPU has it), git's SHA1_DC.

use super::Collision;
use crate::HashProvider;

/// Collision-detecting SHA-1.
#[derive(Clone)]
pub struct Sha1Dc(sha1dc::Hasher);

impl HashProvider for Sha1Dc {
    type Output = [u8; 20];
    type Error = Collision;
    const ALGORITHM: &'static str = "SHA-1";
    const PROVIDER: &'static str = "dc";
    const DETECTS_COLLISIONS: bool = true;

    #[inline]
    fn new() -> Self {
        Sha1Dc(sha1dc::Hasher::new())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 20], Collision> {
        match self.0.finalize() {
            Ok(digest) => Ok(digest.to_bytes()),
            Err(attack) => Err(Collision {
                digest: attack.digest().to_bytes(),
            }),
        }
    }
}

//! The hashing the engine's tests bring, as a caller's build would: SHA-1 and SHA-256 from
//! `flagsplit-hash` (collision-detecting SHA-1 for object ids, block SHA-1 for file checksums).

use flagsplit_hash::HashProvider;

use crate::{HashAlgo, Hashes};

/// [`Hashes`] for the tests.
pub(crate) struct TestHashes;

fn digest<P: HashProvider>(data: &[u8]) -> Option<Vec<u8>> {
    let mut h = P::new();
    h.update(data);
    h.finalize().ok().map(|d| d.as_ref().to_vec())
}

impl Hashes for TestHashes {
    fn digest(algo: HashAlgo, data: &[u8]) -> Option<Vec<u8>> {
        match algo {
            HashAlgo::Sha1 => digest::<flagsplit_hash::sha1::dc::Sha1Dc>(data),
            HashAlgo::Sha1Unchecked => digest::<flagsplit_hash::sha1::block::Sha1Block>(data),
            HashAlgo::Sha256 => digest::<flagsplit_hash::sha256::builtin::Sha256Builtin>(data),
        }
    }
}

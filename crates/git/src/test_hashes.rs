//! The providers the engine's tests bring, as a caller's build would: SHA-1 and SHA-256 from
//! `flagsplit-hash` (collision-detecting SHA-1 for object ids, block SHA-1 for file checksums)
//! and the zlib-rs inflater.

use flagsplit_hash::HashProvider;

use crate::HashAlgo;
use crate::providers::{Collision, Digest, Providers, StreamHasher};

/// [`Providers`] for the tests.
pub(crate) struct TestHashes;

/// A hasher of `flagsplit-hash`'s.
pub(crate) enum TestHasher {
    Sha1(flagsplit_hash::sha1::dc::Sha1Dc),
    Sha1Unchecked(flagsplit_hash::sha1::block::Sha1Block),
    Sha256(flagsplit_hash::sha256::builtin::Sha256Builtin),
}

impl StreamHasher for TestHasher {
    fn new(algo: HashAlgo) -> Self {
        match algo {
            HashAlgo::Sha1 => TestHasher::Sha1(HashProvider::new()),
            HashAlgo::Sha1Unchecked => TestHasher::Sha1Unchecked(HashProvider::new()),
            HashAlgo::Sha256 => TestHasher::Sha256(HashProvider::new()),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            TestHasher::Sha1(h) => h.update(data),
            TestHasher::Sha1Unchecked(h) => h.update(data),
            TestHasher::Sha256(h) => h.update(data),
        }
    }

    fn finalize(self) -> Result<Digest, Collision> {
        match self {
            TestHasher::Sha1(h) => finish(h),
            TestHasher::Sha1Unchecked(h) => finish(h),
            TestHasher::Sha256(h) => finish(h),
        }
    }
}

fn finish<P: HashProvider>(h: P) -> Result<Digest, Collision> {
    h.finalize()
        .map(|d| Digest::new(d.as_ref()))
        .map_err(|e| Collision {
            digest: Digest::new(&e.into().digest),
        })
}

impl Providers for TestHashes {
    type Hasher = TestHasher;
    type Inflater = flagsplit_zlib::zlib_rs::ZlibRs;
}

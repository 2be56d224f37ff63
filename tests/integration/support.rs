//! What the root integration tests share: the workspace's test support (`flagsplit-test-support`:
//! the generator [`Rng`], [`hex`], [`skip`] and [`skip_optional`], [`runs`]), and what is
//! particular to this package's tests: the public SHA-1 collision files ([`collisions_dir`]).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub use flagsplit_test_support::{Rng, hex, runs, skip, skip_optional};

/// `../shared/data/collisions` (beside the checkout), or `None` after [`skip`] (a failure under
/// CI=true) when it is absent.
pub fn collisions_dir(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/collisions");
    if dir.is_dir() {
        return Some(dir);
    }
    skip(test, &format!("{} not found", dir.display()));
    None
}

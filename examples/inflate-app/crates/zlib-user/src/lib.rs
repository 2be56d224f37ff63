//! A crate that turns inflate-demo's `zlib` feature on. That compiles the zlib provider for the
//! whole build and selects nothing: without the application's `INFLATE_DEMO_INFLATE_PROVIDER`,
//! this crate too gets `miniz`, and inflate-demo's build script warns that zlib is compiled and
//! unused.

use std::io;

/// The provider of inflate-demo this crate's calls go through.
pub fn inflate_provider() -> &'static str {
    inflate_demo::provider()
}

/// The data a zlib stream holds.
pub fn decompress(mut zlib: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    inflate_demo::decompress(&mut zlib, &mut out)?;
    Ok(out)
}

//! A crate that uses inflate-demo with no feature: it gets whichever provider the application's
//! build selected, the same one every other user of inflate-demo gets.

use std::io;

/// The provider of inflate-demo this crate's calls go through.
pub fn inflate_provider() -> &'static str {
    inflate_demo::provider()
}

/// The length of the data a zlib stream holds.
pub fn decompressed_len(mut zlib: &[u8]) -> io::Result<u64> {
    inflate_demo::decompress(&mut zlib, &mut io::sink())
}

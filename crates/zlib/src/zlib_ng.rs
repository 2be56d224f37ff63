//! `zlib-ng`: zlib-ng's native API (`zng_inflateInit2`, `zng_inflate`, `zng_inflateReset`,
//! `zng_inflateEnd`, `zlibng_version`), as git links it, through libz-ng-sys (feature `zlib-ng`).
//! libz-ng-sys builds zlib-ng from source with cmake and links it statically: every symbol has
//! the `zng_` prefix, so it coexists with a system libz in the same binary, and it adds nothing
//! to NEEDED.

use std::os::raw::c_int;

use libz_ng_sys as z;

use crate::zstream::z_stream_provider;

/// `zng_inflateInit2(strm, 15)` (the native API has no version and size arguments).
///
/// # Safety
///
/// `strm` is a valid, not yet initialised `zng_stream` that stays at its address.
#[inline]
unsafe fn init(strm: *mut z::z_stream) -> c_int {
    // SAFETY: the caller's.
    unsafe { z::zng_inflateInit2(strm, 15) }
}

z_stream_provider! {
    /// zlib-ng's `zng_inflate()`.
    ZlibNg, "zlib-ng", z, init, z::zlibVersion
}

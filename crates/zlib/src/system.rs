//! `system`: the system libz (zlib, or a zlib-compatible build of zlib-ng) through libz-sys
//! (feature `zlib-system`), linked dynamically when pkg-config or the C compiler finds it.

use std::os::raw::c_int;

use libz_sys as z;

use crate::zstream::z_stream_provider;

/// `inflateInit2(strm, 15)`: the macro's arguments are the library's version string and the
/// struct size this code was compiled with, which the library checks.
///
/// # Safety
///
/// `strm` is a valid, not yet initialised `z_stream` that stays at its address.
#[inline]
unsafe fn init(strm: *mut z::z_stream) -> c_int {
    // SAFETY: the caller's; zlibVersion returns a static string.
    unsafe {
        z::inflateInit2_(
            strm,
            15,
            z::zlibVersion(),
            std::mem::size_of::<z::z_stream>() as c_int,
        )
    }
}

z_stream_provider! {
    /// The system libz's `inflate()`.
    System, "system", z, init, z::zlibVersion
}

//! flagsplit's OpenSSL hashing providers: libcrypto's low-level `SHA1_*`, `SHA256_*` and `MD5_*`
//! functions, declared here with their context structures (no `-sys` crate in between).
//!
//! This is its own crate so that a binary links libcrypto only when it calls one of these
//! functions: GNU ld decides `DT_NEEDED` per object file it pulls in, and a crate of its own is an
//! object file of its own (ARCHITECTURE.md, "Link dependencies"). The hashing methods are
//! `#[inline]`: they are then compiled only into the code that calls them (saving 8–12 ns of call
//! and context copies per 64-byte message), which keeps the same guarantee — no caller, no
//! reference to libcrypto. It never goes through the `openssl` crate, whose initialisation calls
//! `OPENSSL_init_ssl` and so pulls libssl into a hashing-only binary.
//!
//! It has no `#[link]` attribute and depends on no `-sys` crate: the root package's build script
//! finds libcrypto (pkg-config, or `OPENSSL_DIR`, `OPENSSL_LIB_DIR`, `OPENSSL_INCLUDE_DIR`,
//! `OPENSSL_LIBS`, `OPENSSL_STATIC`), checks its version, compiles and links `compat/probe-*.c`
//! against it, and links it; when `openssl-sys` is in the build (OpenSSL TLS, or OpenSSL built from
//! source), the libcrypto `openssl-sys` found or built is the one used and linked. Only this
//! crate's own unit tests, which no build script links, name `crypto` with `#[link]`.
//!
//! The low-level functions take no algorithm lookup at all: `EVP_*` with a per-call lookup costs
//! 3.5x on 64-byte inputs in OpenSSL 3. They are deprecated in OpenSSL 3 but present in every
//! build that keeps the 3.0 API; the probes check them and the sizes of the context structures
//! declared here.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::mem::MaybeUninit;

/// `SHA_LBLOCK`: a block of 64 bytes, in 32-bit words.
const SHA_LBLOCK: usize = 16;

/// libcrypto's `SHA_CTX` (`struct SHAstate_st` of `<openssl/sha.h>`, 96 bytes; the same in
/// OpenSSL 1.1.1 to 3.x and LibreSSL). `compat/probe-sha1.c` checks its size at build time.
#[derive(Clone, Copy)]
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct SHA_CTX {
    h0: c_uint,
    h1: c_uint,
    h2: c_uint,
    h3: c_uint,
    h4: c_uint,
    nl: c_uint,
    nh: c_uint,
    data: [c_uint; SHA_LBLOCK],
    num: c_uint,
}

/// libcrypto's `SHA256_CTX` (`struct SHA256state_st` of `<openssl/sha.h>`, 112 bytes).
/// `compat/probe-sha256.c` checks its size at build time.
#[derive(Clone, Copy)]
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct SHA256_CTX {
    h: [c_uint; 8],
    nl: c_uint,
    nh: c_uint,
    data: [c_uint; SHA_LBLOCK],
    num: c_uint,
    md_len: c_uint,
}

/// libcrypto's `MD5_CTX` (`struct MD5state_st` of `<openssl/md5.h>`, 92 bytes).
/// `compat/probe-md5.c` checks its size at build time.
#[derive(Clone, Copy)]
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct MD5_CTX {
    a: c_uint,
    b: c_uint,
    c: c_uint,
    d: c_uint,
    nl: c_uint,
    nh: c_uint,
    data: [c_uint; SHA_LBLOCK],
    num: c_uint,
}

/// `OPENSSL_VERSION` of `OpenSSL_version`: the version text.
const OPENSSL_VERSION: c_int = 0;

unsafe extern "C" {
    fn SHA1_Init(c: *mut SHA_CTX) -> c_int;
    fn SHA1_Update(c: *mut SHA_CTX, data: *const c_void, len: usize) -> c_int;
    fn SHA1_Final(md: *mut u8, c: *mut SHA_CTX) -> c_int;
    fn SHA256_Init(c: *mut SHA256_CTX) -> c_int;
    fn SHA256_Update(c: *mut SHA256_CTX, data: *const c_void, len: usize) -> c_int;
    fn SHA256_Final(md: *mut u8, c: *mut SHA256_CTX) -> c_int;
    fn MD5_Init(c: *mut MD5_CTX) -> c_int;
    fn MD5_Update(c: *mut MD5_CTX, data: *const c_void, len: usize) -> c_int;
    fn MD5_Final(md: *mut u8, c: *mut MD5_CTX) -> c_int;
    fn OpenSSL_version(t: c_int) -> *const c_char;
}

/// A hasher over one libcrypto low-level family (`<Algo>_Init`/`_Update`/`_Final`) with its
/// context structure.
macro_rules! low_level {
    ($(#[$doc:meta])* $name:ident($ctx:ty, $len:literal): $init:ident, $update:ident, $final:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            ctx: $ctx,
        }

        impl $name {
            /// A fresh hasher.
            #[inline]
            pub fn new() -> $name {
                let mut ctx = MaybeUninit::<$ctx>::uninit();
                // SAFETY: the context structure has libcrypto's layout (its size is checked by
                // the build's probe); the init function initialises every field of the context
                // it is given and cannot fail for the software implementation (it only returns 1).
                let ctx = unsafe {
                    $init(ctx.as_mut_ptr());
                    ctx.assume_init()
                };
                $name { ctx }
            }

            /// Feeds `data`.
            #[inline]
            pub fn update(&mut self, data: &[u8]) {
                // SAFETY: the context was initialised by the init function, and the
                // pointer/length pair describes a valid slice.
                unsafe {
                    $update(&mut self.ctx, data.as_ptr().cast::<c_void>(), data.len());
                }
            }

            /// The digest.
            #[inline]
            pub fn finalize(mut self) -> [u8; $len] {
                let mut out = [0u8; $len];
                // SAFETY: `out` has the bytes the final function writes; the context is
                // initialised.
                unsafe {
                    $final(out.as_mut_ptr(), &mut self.ctx);
                }
                out
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }
    };
}

low_level!(
    /// SHA-1 over libcrypto's `SHA1_Init`/`SHA1_Update`/`SHA1_Final`.
    Sha1(SHA_CTX, 20): SHA1_Init, SHA1_Update, SHA1_Final
);

low_level!(
    /// SHA-256 over libcrypto's `SHA256_Init`/`SHA256_Update`/`SHA256_Final`.
    Sha256(SHA256_CTX, 32): SHA256_Init, SHA256_Update, SHA256_Final
);

low_level!(
    /// MD5 over libcrypto's `MD5_Init`/`MD5_Update`/`MD5_Final`.
    Md5(MD5_CTX, 16): MD5_Init, MD5_Update, MD5_Final
);

/// The version text of the libcrypto this process runs with (`OpenSSL 3.0.19 27 Jan 2026`).
/// `#[inline]` like the hashers, and for one more reason: every reference to libcrypto is then in
/// the crates that call it, which GNU ld sees before the static libcrypto the final package's
/// library carries (a reference in this crate, linked after it, stayed undefined).
#[inline]
pub fn version_text() -> String {
    // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string for every
    // argument; OPENSSL_VERSION is always valid.
    let text = unsafe { CStr::from_ptr(OpenSSL_version(OPENSSL_VERSION)) };
    text.to_string_lossy().into_owned()
}

// The unit tests' executable: no build script links it.
#[cfg(test)]
#[link(name = "crypto")]
unsafe extern "C" {}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn abc() {
        let mut s = Sha1::new();
        s.update(b"abc");
        assert_eq!(
            hex(&s.finalize()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let mut m = Md5::new();
        m.update(b"abc");
        assert_eq!(hex(&m.finalize()), "900150983cd24fb0d6963f7d28e17f72");
        let mut s = Sha256::new();
        s.update(b"abc");
        assert_eq!(
            hex(&s.finalize()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(version_text().starts_with("OpenSSL "));
    }

    #[test]
    fn layouts() {
        // The sizes of OpenSSL 1.1.1 to 3.x, which the probes compare with the headers.
        assert_eq!(std::mem::size_of::<SHA_CTX>(), 96);
        assert_eq!(std::mem::size_of::<SHA256_CTX>(), 112);
        assert_eq!(std::mem::size_of::<MD5_CTX>(), 92);
    }
}

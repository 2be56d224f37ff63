//! flagsplit's OpenSSL hashing providers: libcrypto's low-level `SHA1_*`, `SHA256_*` and `MD5_*`
//! functions.
//!
//! This is its own crate so that a binary links libcrypto only when it calls one of these
//! functions: GNU ld decides `DT_NEEDED` per object file it pulls in, and a crate of its own is an
//! object file of its own (ARCHITECTURE.md, "Link dependencies"). The hashing methods are `#[inline]`: they are then compiled
//! only into the code that calls them (saving 8–12 ns of call and context copies per 64-byte
//! message), which keeps the same guarantee — no caller, no reference to libcrypto. It calls `openssl-sys` directly, never the `openssl` crate,
//! whose initialisation calls `OPENSSL_init_ssl` and so pulls libssl into a hashing-only binary.
//!
//! The low-level functions take no algorithm lookup at all: `EVP_*` with a per-call lookup costs
//! 3.5x on 64-byte inputs in OpenSSL 3. They are deprecated in OpenSSL 3 but present in every
//! build that keeps the 3.0 API; `build.rs` probes for them (`compat/probe-*.c`).

use std::ffi::{CStr, c_int, c_void};
use std::mem::MaybeUninit;

/// A hasher over one libcrypto low-level family (`<Algo>_Init`/`_Update`/`_Final`) whose context
/// type `openssl-sys` declares.
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
                // SAFETY: the init function initialises every field of the context it is given;
                // it cannot fail for the software implementation (it only returns 1).
                let ctx = unsafe {
                    openssl_sys::$init(ctx.as_mut_ptr());
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
                    openssl_sys::$update(&mut self.ctx, data.as_ptr().cast::<c_void>(), data.len());
                }
            }

            /// The digest.
            #[inline]
            pub fn finalize(mut self) -> [u8; $len] {
                let mut out = [0u8; $len];
                // SAFETY: `out` has the bytes the final function writes; the context is
                // initialised.
                unsafe {
                    openssl_sys::$final(out.as_mut_ptr(), &mut self.ctx);
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
    Sha1(openssl_sys::SHA_CTX, 20): SHA1_Init, SHA1_Update, SHA1_Final
);

low_level!(
    /// SHA-256 over libcrypto's `SHA256_Init`/`SHA256_Update`/`SHA256_Final`.
    Sha256(openssl_sys::SHA256_CTX, 32): SHA256_Init, SHA256_Update, SHA256_Final
);

/// Room for libcrypto's `MD5_CTX` (92 bytes in OpenSSL 1.1 and 3.x); `compat/probe-md5.c` checks
/// at build time that the real structure fits.
#[derive(Clone)]
#[repr(C, align(8))]
struct Md5Ctx([u8; 128]);

unsafe extern "C" {
    fn MD5_Init(c: *mut Md5Ctx) -> c_int;
    fn MD5_Update(c: *mut Md5Ctx, data: *const c_void, len: usize) -> c_int;
    fn MD5_Final(md: *mut u8, c: *mut Md5Ctx) -> c_int;
}

/// MD5 over libcrypto's `MD5_Init`/`MD5_Update`/`MD5_Final`.
#[derive(Clone)]
pub struct Md5 {
    ctx: Md5Ctx,
}

impl Md5 {
    /// A fresh hasher.
    #[inline]
    pub fn new() -> Md5 {
        let mut ctx = Md5Ctx([0; 128]);
        // SAFETY: the buffer is at least as large and as aligned as MD5_CTX (checked by the
        // build's probe); MD5_Init initialises it.
        unsafe {
            MD5_Init(&mut ctx);
        }
        Md5 { ctx }
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        // SAFETY: initialised context; valid slice.
        unsafe {
            MD5_Update(&mut self.ctx, data.as_ptr().cast::<c_void>(), data.len());
        }
    }

    /// The digest.
    #[inline]
    pub fn finalize(mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: `out` has the 16 bytes MD5_Final writes; initialised context.
        unsafe {
            MD5_Final(out.as_mut_ptr(), &mut self.ctx);
        }
        out
    }
}

impl Default for Md5 {
    fn default() -> Self {
        Md5::new()
    }
}

/// The version text of the libcrypto this process runs with (`OpenSSL 3.0.19 27 Jan 2026`).
pub fn version_text() -> String {
    // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string for every
    // argument; OPENSSL_VERSION is always valid.
    let text =
        unsafe { CStr::from_ptr(openssl_sys::OpenSSL_version(openssl_sys::OPENSSL_VERSION)) };
    text.to_string_lossy().into_owned()
}

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
}

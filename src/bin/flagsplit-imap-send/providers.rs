//! The providers this build selected for the sender (the `flagsplit_tls` and `flagsplit_md5` cfgs
//! of the root build script), handed to `flagsplit-imap`, which names none itself. Only the
//! selected ones are named here, so only they are linked: a SHA-1 provider never is (the sender
//! computes no SHA-1), and neither is an OpenSSL TLS provider that is compiled but not selected.

use flagsplit_tls::TlsProvider;

/// The TLS provider.
#[cfg(flagsplit_tls = "rustls")]
pub fn tls() -> Option<&'static dyn TlsProvider> {
    Some(&flagsplit_tls::rustls_provider::RustlsTls)
}

/// The TLS provider.
#[cfg(flagsplit_tls = "openssl")]
pub fn tls() -> Option<&'static dyn TlsProvider> {
    Some(&flagsplit_tls_openssl::OpensslTls)
}

/// The TLS provider: none in this build (plain connections and tunnels only).
#[cfg(flagsplit_tls = "none")]
pub fn tls() -> Option<&'static dyn TlsProvider> {
    None
}

/// The MD5 provider of CRAM-MD5: the `md5` facility's, as for `flagsplit md5sum`.
#[cfg(flagsplit_md5 = "builtin")]
pub type Md5 = flagsplit_hash::md5::builtin::Md5Builtin;

/// The MD5 provider of CRAM-MD5: the `md5` facility's, as for `flagsplit md5sum`.
#[cfg(flagsplit_md5 = "openssl")]
pub type Md5 = flagsplit_hash::md5::openssl::Md5Openssl;

// CRAM-MD5 with libcrypto while openssl-sys is in the build (features openssl-tls,
// openssl-vendored): openssl-sys links the libcrypto it found or built, and build.rs none (as in
// src/hash.rs), so it is loaded here.
#[cfg(all(
    any(feature = "openssl-tls", feature = "openssl-vendored"),
    flagsplit_md5 = "openssl"
))]
extern crate openssl_sys as _;

// CRAM-MD5 with the libcrypto build.rs found and links (no openssl-sys in the build): Cargo passes
// a build script's `rustc-link-lib` to the package's library target only, so the library is loaded
// for its link directives. Nothing of it is named, so none of its object files is linked (the
// sender keeps its distance from the library: ARCHITECTURE.md, "What each binary may link").
#[cfg(all(
    not(any(feature = "openssl-tls", feature = "openssl-vendored")),
    flagsplit_md5 = "openssl"
))]
extern crate flagsplit as _;

/// OpenSSL's version text when the sender links OpenSSL, that is when its TLS or its MD5 provider is
/// OpenSSL; else `None`.
pub fn openssl_version() -> Option<String> {
    #[cfg(flagsplit_tls = "openssl")]
    {
        Some(flagsplit_tls_openssl::version_text())
    }
    #[cfg(all(not(flagsplit_tls = "openssl"), flagsplit_md5 = "openssl"))]
    {
        Some(flagsplit_hash::openssl_version())
    }
    #[cfg(all(not(flagsplit_tls = "openssl"), not(flagsplit_md5 = "openssl")))]
    {
        None
    }
}

//! The TLS provider this build selected (`flagsplit_tls` cfg): the binary reaches TLS only
//! through [`selected`], so it links only that provider. (Tests name the compiled providers
//! themselves: a function here that named them all would put every provider into any object
//! file that also holds `selected`.)

use flagsplit_tls::TlsProvider;

/// The selected provider, or `None` in a `TLS: none` build.
pub fn selected() -> Option<&'static dyn TlsProvider> {
    #[cfg(flagsplit_tls = "rustls")]
    {
        Some(&flagsplit_tls::rustls_provider::RustlsTls)
    }
    #[cfg(flagsplit_tls = "openssl")]
    {
        Some(&flagsplit_tls_openssl::OpensslTls)
    }
    #[cfg(flagsplit_tls = "none")]
    {
        None
    }
}

/// OpenSSL's version text when this binary links OpenSSL (TLS or hashing), else `None`.
pub fn openssl_version() -> Option<String> {
    #[cfg(flagsplit_tls = "openssl")]
    {
        Some(flagsplit_tls_openssl::version_text())
    }
    #[cfg(not(flagsplit_tls = "openssl"))]
    {
        flagsplit_hash::openssl_version()
    }
}

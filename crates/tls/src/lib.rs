//! flagsplit's TLS facility: what a TLS provider does for the IMAP sender ([`TlsProvider`]), and
//! the `rustls` provider (`rustls_provider::RustlsTls`, compiled only with the feature
//! `rustls-tls`).
//!
//! Every provider verifies the server's certificate chain and its host name (or IP address)
//! unless told not to ([`TlsConfig::verify`]), negotiates TLS 1.2 at least, and sends SNI for
//! host names. Trust comes from the system store (honouring `SSL_CERT_FILE` and `SSL_CERT_DIR`),
//! or only from [`TlsConfig::ca_file`] when one is given (`imap.sslCAInfo`).
//!
//! The OpenSSL provider lives in its own crate (`flagsplit-tls-openssl`): a linker pulls whole
//! object files, and GNU ld records a library in `DT_NEEDED` as soon as a pulled object refers to
//! it, so libssl code must not share an object file with anything a rustls build uses.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

#[cfg(feature = "rustls-tls")]
pub mod rustls_provider;

/// What a connection needs from the user's configuration.
#[derive(Debug, Clone, Copy)]
pub struct TlsConfig<'a> {
    /// The name the certificate must carry (a DNS name, or an IP address), also sent as SNI.
    pub host: &'a str,
    /// Trust only the certificates in this PEM file (`imap.sslCAInfo`) instead of the system's.
    pub ca_file: Option<&'a Path>,
    /// Verify the chain and the name (`imap.sslverify`, default true).
    pub verify: bool,
}

/// An established TLS connection.
pub trait TlsStream: Read + Write + Send {
    /// The negotiated protocol version and cipher suite, for `-v`.
    fn describe(&self) -> String;
}

/// A TLS implementation.
pub trait TlsProvider: Sync {
    /// Its name (`rustls`, `openssl`).
    fn name(&self) -> &'static str;

    /// Its version text, for `version --build-options`.
    fn version(&self) -> String;

    /// Runs the client handshake over `tcp` (whose timeouts are already set) and verifies the
    /// server as `config` says.
    fn connect(
        &self,
        tcp: TcpStream,
        config: &TlsConfig<'_>,
    ) -> Result<Box<dyn TlsStream>, TlsError>;
}

/// Why a TLS connection could not be set up. The texts are meant for the user: they say what
/// was checked and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The CA file (`imap.sslCAInfo`) cannot be used.
    #[error("cannot use the CA file {path} (imap.sslCAInfo): {reason}")]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// No trusted certificate at all.
    #[error(
        "no trusted CA certificates found in the system store{detail}; set imap.sslCAInfo to a CA file, or SSL_CERT_FILE"
    )]
    NoTrustAnchors {
        /// What the loader said.
        detail: String,
    },
    /// The host is not a valid DNS name or IP address.
    #[error("'{0}' is not a valid host name for TLS")]
    InvalidName(String),
    /// The server's certificate was rejected.
    #[error(
        "the server's certificate was rejected: {0} (set imap.sslCAInfo to the CA that signed it; imap.sslverify=false turns verification off, insecurely)"
    )]
    Certificate(String),
    /// The handshake failed for another reason.
    #[error("TLS handshake failed: {0}")]
    Handshake(String),
    /// The provider could not be set up.
    #[error("TLS setup failed: {0}")]
    Setup(String),
}

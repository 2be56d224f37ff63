//! The `openssl` TLS provider: libssl through the `openssl` crate, as [`OpensslTls`], an
//! implementation of `flagsplit-tls`'s [`TlsProvider`]. flagsplit compiles it with the root
//! package's feature `openssl-tls`, and only `flagsplit-imap-send`'s own source names it, when the
//! build selects it for the `tls` facility.
//!
//! It is a crate of its own so that no object file a rustls build links refers to libssl: GNU ld
//! puts a shared library into `DT_NEEDED` as soon as any object it pulls refers to it.
//!
//! Trust: OpenSSL's default verify paths (which honour `SSL_CERT_FILE` and `SSL_CERT_DIR`), plus
//! the distribution's CA bundle when this OpenSSL's compiled-in locations do not exist (a vendored
//! OpenSSL, see [`trust`]), or only the certificates of `imap.sslCAInfo`. The host name (or IP
//! address) is verified and sent as SNI by `openssl::ssl::ConnectConfiguration`; TLS 1.2 is the
//! minimum.

use std::io::{self, Read, Write};
use std::net::TcpStream;

use flagsplit_tls::{TlsConfig, TlsError, TlsProvider, TlsStream};
use openssl::ssl::{HandshakeError, SslConnector, SslMethod, SslStream, SslVerifyMode, SslVersion};
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;

pub mod trust;

pub use trust::{Trust, TrustInputs};

/// TLS by OpenSSL's libssl.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpensslTls;

/// OpenSSL's own version text (`OpenSSL 3.0.19 27 Jan 2026`), of the library this process runs with.
pub fn version_text() -> String {
    openssl::version::version().to_string()
}

impl TlsProvider for OpensslTls {
    fn name(&self) -> &'static str {
        "openssl"
    }

    fn version(&self) -> String {
        version_text()
    }

    fn connect(
        &self,
        tcp: TcpStream,
        config: &TlsConfig<'_>,
    ) -> Result<Box<dyn TlsStream>, TlsError> {
        let trust = if config.ca_file.is_some() {
            Trust::Defaults // not used: imap.sslCAInfo replaces the store
        } else {
            Trust::for_this_process()
        };
        self.connect_with_trust(tcp, config, &trust)
    }
}

impl OpensslTls {
    /// [`TlsProvider::connect`] with the trust store decided by the caller (`connect` uses
    /// [`Trust::for_this_process`]); tests give a probed store under a scratch root.
    pub fn connect_with_trust(
        &self,
        tcp: TcpStream,
        config: &TlsConfig<'_>,
        trust: &Trust,
    ) -> Result<Box<dyn TlsStream>, TlsError> {
        let setup = |e: openssl::error::ErrorStack| TlsError::Setup(e.to_string());
        let mut builder = SslConnector::builder(SslMethod::tls_client()).map_err(setup)?;
        builder
            .set_min_proto_version(Some(SslVersion::TLS1_2))
            .map_err(setup)?;
        if let Some(path) = config.ca_file {
            let ca_error = |reason: String| TlsError::CaFile {
                path: path.to_path_buf(),
                reason,
            };
            let pem = std::fs::read(path).map_err(|e| ca_error(e.to_string()))?;
            let certs = X509::stack_from_pem(&pem).map_err(|e| ca_error(e.to_string()))?;
            if certs.is_empty() {
                return Err(ca_error("it holds no PEM certificate".into()));
            }
            let mut store = X509StoreBuilder::new().map_err(setup)?;
            for cert in certs {
                store.add_cert(cert).map_err(|e| ca_error(e.to_string()))?;
            }
            builder
                .set_verify_cert_store(store.build())
                .map_err(setup)?;
        } else {
            match trust {
                Trust::Defaults => {} // SslConnector::builder loaded them
                Trust::Probed { file, dirs } => {
                    // Paths that are not UTF-8 cannot be passed (openssl's API takes &str): skipped.
                    let utf8 = |p: &&std::path::PathBuf| p.to_str().is_some();
                    if let Some(file) = file.as_ref().filter(utf8) {
                        builder
                            .load_verify_locations(Some(file), None)
                            .map_err(setup)?;
                    }
                    for dir in dirs.iter().filter(utf8) {
                        builder
                            .load_verify_locations(None, Some(dir))
                            .map_err(setup)?;
                    }
                }
                Trust::Nothing { .. } if config.verify => {
                    return Err(TlsError::NoTrustAnchors {
                        detail: trust.nothing_detail().unwrap_or_default(),
                    });
                }
                Trust::Nothing { .. } => {}
            }
        }
        if !config.verify {
            builder.set_verify(SslVerifyMode::NONE);
        }
        let connector = builder.build();
        let mut cfg = connector.configure().map_err(setup)?;
        if !config.verify {
            cfg.set_verify_hostname(false);
        }
        match cfg.connect(config.host, tcp) {
            Ok(stream) => Ok(Box::new(Openssl(stream))),
            Err(HandshakeError::Failure(mid)) => {
                let verify = mid.ssl().verify_result();
                if config.verify && verify.as_raw() != 0 {
                    Err(TlsError::Certificate(verify.error_string().to_string()))
                } else {
                    Err(TlsError::Handshake(mid.error().to_string()))
                }
            }
            Err(HandshakeError::SetupFailure(e)) => Err(setup(e)),
            Err(HandshakeError::WouldBlock(mid)) => {
                Err(TlsError::Handshake(format!("timed out ({})", mid.error())))
            }
        }
    }
}

struct Openssl(SslStream<TcpStream>);

impl Read for Openssl {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Openssl {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TlsStream for Openssl {
    fn describe(&self) -> String {
        let ssl = self.0.ssl();
        let cipher = ssl.current_cipher().map_or("?", |c| c.name());
        format!("{} {cipher} (openssl)", ssl.version_str())
    }
}

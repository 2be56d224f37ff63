//! The `rustls` TLS provider (feature `rustls-tls`, the default).
//!
//! Crypto backend: `ring`. It builds with the C compiler alone; rustls' default backend,
//! aws-lc-rs, also needs cmake (and nasm on some targets) at build time, which is a heavy
//! requirement for a tool that uploads a few patches.
//!
//! Trust store: `rustls-native-certs` (the system's CA bundle, or `SSL_CERT_FILE`/`SSL_CERT_DIR`
//! when set) checked by rustls' own webpki verifier. It was preferred to `rustls-platform-verifier`
//! because on Linux both end up verifying against the same PEM bundle with webpki, and the
//! platform verifier brings more dependencies and no way to say "only this CA file", which
//! `imap.sslCAInfo` needs.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, StreamOwned};

use crate::{TlsConfig, TlsError, TlsProvider, TlsStream};

/// The rustls version this crate is built with (checked against `Cargo.lock` by a test).
pub const RUSTLS_VERSION: &str = "0.23.46";
/// The ring version this crate is built with (checked against `Cargo.lock` by a test).
pub const RING_VERSION: &str = "0.17.14";

/// TLS by rustls with the ring backend.
#[derive(Debug, Clone, Copy, Default)]
pub struct RustlsTls;

impl TlsProvider for RustlsTls {
    fn name(&self) -> &'static str {
        "rustls"
    }

    fn version(&self) -> String {
        format!("rustls {RUSTLS_VERSION}, ring {RING_VERSION}")
    }

    fn connect(
        &self,
        tcp: TcpStream,
        config: &TlsConfig<'_>,
    ) -> Result<Box<dyn TlsStream>, TlsError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // TLS 1.2 is the minimum; rustls implements nothing older.
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| TlsError::Setup(e.to_string()))?;
        let client = if config.verify {
            builder.with_root_certificates(roots(config)?)
        } else {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(NoVerification(
                    provider.signature_verification_algorithms,
                )))
        }
        .with_no_client_auth();
        // An IP address becomes ServerName::IpAddress: verified against the certificate's IP
        // SANs, and (per RFC 6066) not sent as SNI.
        let name = ServerName::try_from(config.host.to_string())
            .map_err(|_| TlsError::InvalidName(config.host.to_string()))?;
        let conn = ClientConnection::new(Arc::new(client), name)
            .map_err(|e| TlsError::Setup(e.to_string()))?;
        let mut stream = StreamOwned::new(conn, tcp);
        // Complete the handshake now, so that a rejected certificate is reported as such.
        while stream.conn.is_handshaking() {
            if let Err(e) = stream.conn.complete_io(&mut stream.sock) {
                return Err(handshake_error(e));
            }
        }
        Ok(Box::new(Rustls(stream)))
    }
}

fn roots(config: &TlsConfig<'_>) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    if let Some(path) = config.ca_file {
        let ca_error = |reason: String| TlsError::CaFile {
            path: path.to_path_buf(),
            reason,
        };
        let certs = CertificateDer::pem_file_iter(path).map_err(|e| ca_error(e.to_string()))?;
        for cert in certs {
            let cert = cert.map_err(|e| ca_error(e.to_string()))?;
            roots
                .add(cert)
                .map_err(|e| ca_error(format!("unusable certificate: {e}")))?;
        }
        if roots.is_empty() {
            return Err(ca_error("it holds no PEM certificate".into()));
        }
        return Ok(roots);
    }
    let native = rustls_native_certs::load_native_certs();
    let (added, _ignored) = roots.add_parsable_certificates(native.certs);
    if added == 0 {
        let detail = native
            .errors
            .iter()
            .map(|e| format!(" ({e})"))
            .collect::<String>();
        return Err(TlsError::NoTrustAnchors { detail });
    }
    Ok(roots)
}

fn handshake_error(e: io::Error) -> TlsError {
    if let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        return match tls {
            rustls::Error::InvalidCertificate(c) => TlsError::Certificate(describe(c)),
            other => TlsError::Handshake(other.to_string()),
        };
    }
    TlsError::Handshake(e.to_string())
}

fn describe(e: &rustls::CertificateError) -> String {
    use rustls::CertificateError as E;
    match e {
        E::UnknownIssuer
        | E::UnsupportedSignatureAlgorithmContext { .. }
        | E::UnsupportedSignatureAlgorithmForPublicKeyContext { .. }
        | E::BadSignature => "it is not signed by a trusted CA (unknown issuer)".into(),
        E::NotValidForName | E::NotValidForNameContext { .. } => {
            "it is not valid for this host name (name mismatch)".into()
        }
        E::Expired | E::ExpiredContext { .. } => "it has expired".into(),
        E::NotValidYet | E::NotValidYetContext { .. } => "it is not valid yet".into(),
        E::Revoked => "it is revoked".into(),
        other => format!("{other:?}"),
    }
}

struct Rustls(StreamOwned<ClientConnection, TcpStream>);

impl Read for Rustls {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Rustls {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TlsStream for Rustls {
    fn describe(&self) -> String {
        let version = self
            .0
            .conn
            .protocol_version()
            .map_or_else(|| "?".to_string(), |v| format!("{v:?}"));
        let suite = self
            .0
            .conn
            .negotiated_cipher_suite()
            .map_or_else(|| "?".to_string(), |s| format!("{:?}", s.suite()));
        format!("{version} {suite} (rustls)")
    }
}

/// `imap.sslverify=false`: any certificate is accepted, but the handshake signatures are still
/// checked with the provider's algorithms.
#[derive(Debug)]
struct NoVerification(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    /// The version constants match what Cargo resolved.
    #[test]
    fn versions_match_the_lock_file() {
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
                .expect("Cargo.lock at the workspace root");
        let locked = |name: &str| {
            let needle = format!("name = \"{name}\"\nversion = \"");
            let start = lock.find(&needle).map(|i| i + needle.len())?;
            lock[start..].split('"').next().map(str::to_string)
        };
        assert_eq!(locked("rustls").as_deref(), Some(super::RUSTLS_VERSION));
        assert_eq!(locked("ring").as_deref(), Some(super::RING_VERSION));
    }
}

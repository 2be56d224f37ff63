//! The OpenSSL TLS provider's trust store when nothing names a CA file: with OpenSSL's compiled-in
//! locations missing (as for a vendored OpenSSL, which knows only /usr/local/ssl), the
//! distribution's CA bundle is probed — checked with real handshakes to a real Dovecot whose CA is
//! placed where the probe looks, under a scratch root laid out like Fedora and like Debian.
//! `scripts/openssl-matrix.sh` runs this with `--features openssl-vendored` too.

mod support;

use std::fs;
use std::io::Read;
use std::net::TcpStream;
use std::path::Path;

use flagsplit_imap::{TlsConfig, TlsError};
use flagsplit_tls_openssl::{OpensslTls, Trust, TrustInputs};
use support::dovecot::Dovecot;

/// This process's inputs, under `root`, with OpenSSL's compiled-in locations replaced by missing
/// ones when they exist here (a distribution's OpenSSL); a vendored OpenSSL's are kept as they are.
fn inputs(root: &Path) -> TrustInputs {
    let mut i = TrustInputs::this_process();
    i.env_file = None;
    i.env_dir = None;
    if i.builtin_file.exists() || i.builtin_dir.exists() {
        i.builtin_file = root.join("missing/cert.pem");
        i.builtin_dir = root.join("missing/certs");
    }
    i.root = root.to_path_buf();
    i
}

fn place(root: &Path, path: &str, pem: &Path) {
    let to = root.join(path);
    fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
    fs::copy(pem, &to).expect("copy CA");
}

fn handshake(d: &Dovecot, trust: &Trust) -> Result<String, TlsError> {
    let tcp = TcpStream::connect(("127.0.0.1", d.tls_port)).expect("connect");
    let config = TlsConfig {
        host: "localhost",
        ca_file: None,
        verify: true,
    };
    let mut stream = OpensslTls.connect_with_trust(tcp, &config, trust)?;
    let mut greeting = [0u8; 4];
    stream.read_exact(&mut greeting).expect("greeting");
    Ok(String::from_utf8_lossy(&greeting).into_owned())
}

#[test]
fn probed_bundle_verifies_the_server() {
    let Some(d) = Dovecot::start("probed_bundle_verifies_the_server") else {
        return;
    };
    for layout in [
        "etc/pki/tls/certs/ca-bundle.crt",   // Fedora
        "etc/ssl/certs/ca-certificates.crt", // Debian
        "etc/ssl/ca-bundle.pem",             // openSUSE
    ] {
        let root = tempfile::tempdir().expect("tempdir");
        place(root.path(), layout, &d.ca());
        let trust = Trust::decide(&inputs(root.path()));
        match &trust {
            Trust::Probed { file, .. } => {
                assert_eq!(file.as_deref(), Some(root.path().join(layout).as_path()))
            }
            other => panic!("{layout}: {other:?}"),
        }
        let greeting = handshake(&d, &trust).unwrap_or_else(|e| panic!("{layout}: {e}"));
        assert_eq!(greeting, "* OK", "{layout}");
    }
}

#[test]
fn probed_bundle_without_the_servers_ca_is_refused() {
    let Some(d) = Dovecot::start("probed_bundle_without_the_servers_ca_is_refused") else {
        return;
    };
    // A bundle that holds another CA: found, loaded, and the server is rejected.
    let root = tempfile::tempdir().expect("tempdir");
    place(
        root.path(),
        "etc/ssl/certs/ca-certificates.crt",
        &d.other_ca(),
    );
    let trust = Trust::decide(&inputs(root.path()));
    assert!(matches!(trust, Trust::Probed { .. }), "{trust:?}");
    let e = handshake(&d, &trust).expect_err("another CA must not verify the server");
    assert!(matches!(e, TlsError::Certificate(_)), "{e}");
    // No bundle at all: refused before the handshake, saying where it looked.
    let empty = tempfile::tempdir().expect("tempdir");
    let trust = Trust::decide(&inputs(empty.path()));
    let e = handshake(&d, &trust).expect_err("no trust anchors");
    assert!(matches!(e, TlsError::NoTrustAnchors { .. }), "{e}");
    assert!(
        e.to_string().contains("/etc/ssl/certs/ca-certificates.crt"),
        "{e}"
    );
}

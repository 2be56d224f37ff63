//! Where the trusted CA certificates come from when `imap.sslCAInfo` names none.
//!
//! OpenSSL's default verify paths are `SSL_CERT_FILE`/`SSL_CERT_DIR` when set, else the `cert.pem`
//! and `certs/` of the directory it was *compiled* with (`OPENSSLDIR`). A distribution's OpenSSL
//! points that at the system store (Debian: `/usr/lib/ssl` → `/etc/ssl/certs`), but an OpenSSL
//! built from source (feature `openssl-vendored`: `/usr/local/ssl`) or built for another system
//! points at a directory that does not exist here, and every certificate would be rejected.
//!
//! So, when neither variable is set and neither compiled-in location exists, the usual CA bundles
//! and directories of the common distributions are probed, the way the `openssl-probe` crate does
//! (its Linux list, plus Arch's and the BSDs' own paths), and loaded in addition to the defaults.
//! An OpenSSL whose compiled-in locations exist is left alone: the distribution knows best.

use std::ffi::{CStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

/// CA bundles, first match wins (paths under the root, without the leading `/`).
pub const CA_BUNDLES: &[&str] = &[
    "etc/ssl/certs/ca-certificates.crt", // Debian, Ubuntu, Gentoo, Arch, Alpine (ca-certificates)
    "etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // Fedora, RHEL/CentOS 7+
    "etc/pki/tls/certs/ca-bundle.crt",   // Fedora, RHEL 6
    "etc/ssl/ca-bundle.pem",             // openSUSE, SLES
    "etc/ca-certificates/extracted/tls-ca-bundle.pem", // Arch (the file the Debian path links to)
    "etc/pki/tls/cacert.pem",            // OpenELEC
    "etc/ssl/cert.pem",                  // Alpine, OpenBSD, macOS
    "usr/local/etc/ssl/cert.pem",        // FreeBSD
];

/// CA directories (hashed `c_rehash` links), every existing one is used.
pub const CA_DIRS: &[&str] = &[
    "etc/ssl/certs",     // Debian, Ubuntu, Arch, Alpine, openSUSE
    "etc/pki/tls/certs", // Fedora, RHEL
];

/// What decides the trust store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustInputs {
    /// `SSL_CERT_FILE`.
    pub env_file: Option<OsString>,
    /// `SSL_CERT_DIR`.
    pub env_dir: Option<OsString>,
    /// OpenSSL's compiled-in CA file (`X509_get_default_cert_file`).
    pub builtin_file: PathBuf,
    /// OpenSSL's compiled-in CA directory (`X509_get_default_cert_dir`).
    pub builtin_dir: PathBuf,
    /// The file-system root the distribution paths are probed under (`/`; a scratch directory in
    /// tests).
    pub root: PathBuf,
}

impl TrustInputs {
    /// This process: its environment and the OpenSSL it runs with, probing under `/`.
    pub fn this_process() -> TrustInputs {
        TrustInputs {
            env_file: std::env::var_os("SSL_CERT_FILE"),
            env_dir: std::env::var_os("SSL_CERT_DIR"),
            builtin_file: builtin(Builtin::File),
            builtin_dir: builtin(Builtin::Dir),
            root: PathBuf::from("/"),
        }
    }
}

enum Builtin {
    File,
    Dir,
}

fn builtin(which: Builtin) -> PathBuf {
    // SAFETY: both functions take no arguments and return a pointer to a static NUL-terminated
    // string compiled into libcrypto (never NULL, never freed).
    let text = unsafe {
        let ptr = match which {
            Builtin::File => openssl_sys::X509_get_default_cert_file(),
            Builtin::Dir => openssl_sys::X509_get_default_cert_dir(),
        };
        CStr::from_ptr(ptr)
    };
    PathBuf::from(text.to_string_lossy().into_owned())
}

/// Where the CA certificates come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    /// OpenSSL's default verify paths: `SSL_CERT_FILE`/`SSL_CERT_DIR`, or its compiled-in
    /// locations, which exist.
    Defaults,
    /// The distribution's store, probed because OpenSSL's compiled-in locations do not exist.
    Probed {
        /// The first CA bundle found.
        file: Option<PathBuf>,
        /// The CA directories found.
        dirs: Vec<PathBuf>,
    },
    /// Nothing anywhere: the compiled-in locations and every usual one are missing.
    Nothing {
        /// OpenSSL's compiled-in locations.
        builtin: [PathBuf; 2],
    },
}

impl Trust {
    /// Decides for this process.
    pub fn for_this_process() -> Trust {
        Trust::decide(&TrustInputs::this_process())
    }

    /// Decides from `inputs` (see the module documentation).
    pub fn decide(inputs: &TrustInputs) -> Trust {
        let set = |v: &Option<OsString>| v.as_ref().is_some_and(|v| !v.is_empty());
        if set(&inputs.env_file) || set(&inputs.env_dir) {
            return Trust::Defaults;
        }
        let dir_has_entries = |d: &Path| fs::read_dir(d).is_ok_and(|mut e| e.next().is_some());
        if inputs.builtin_file.is_file() || dir_has_entries(&inputs.builtin_dir) {
            return Trust::Defaults;
        }
        let file = CA_BUNDLES
            .iter()
            .map(|p| inputs.root.join(p))
            .find(|p| p.is_file());
        let dirs: Vec<PathBuf> = CA_DIRS
            .iter()
            .map(|p| inputs.root.join(p))
            .filter(|p| dir_has_entries(p))
            .collect();
        if file.is_none() && dirs.is_empty() {
            return Trust::Nothing {
                builtin: [inputs.builtin_file.clone(), inputs.builtin_dir.clone()],
            };
        }
        Trust::Probed { file, dirs }
    }

    /// What [`Trust::Nothing`] tells the user.
    pub fn nothing_detail(&self) -> Option<String> {
        match self {
            Trust::Nothing { builtin } => Some(format!(
                ": this OpenSSL's compiled-in locations {} and {} do not exist, and none of the usual bundles ({}) does",
                builtin[0].display(),
                builtin[1].display(),
                CA_BUNDLES
                    .iter()
                    .map(|p| format!("/{p}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(root: &Path) -> TrustInputs {
        TrustInputs {
            env_file: None,
            env_dir: None,
            builtin_file: root.join("usr/local/ssl/cert.pem"),
            builtin_dir: root.join("usr/local/ssl/certs"),
            root: root.to_path_buf(),
        }
    }

    fn put(root: &Path, path: &str) {
        let p = root.join(path);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, "not parsed here").expect("write");
    }

    /// Each distribution's layout, in a scratch root, is found.
    #[test]
    fn probes_each_distribution_layout() {
        for (layout, expected) in [
            (
                &["etc/ssl/certs/ca-certificates.crt"][..],
                "etc/ssl/certs/ca-certificates.crt",
            ),
            (
                &[
                    "etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
                    "etc/pki/tls/certs/ca-bundle.crt",
                ][..],
                "etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
            ),
            (&["etc/ssl/ca-bundle.pem"][..], "etc/ssl/ca-bundle.pem"),
            (
                &["etc/ca-certificates/extracted/tls-ca-bundle.pem"][..],
                "etc/ca-certificates/extracted/tls-ca-bundle.pem",
            ),
            (&["etc/ssl/cert.pem"][..], "etc/ssl/cert.pem"),
        ] {
            let root = tempfile::tempdir().expect("tempdir");
            for f in layout {
                put(root.path(), f);
            }
            match Trust::decide(&inputs(root.path())) {
                Trust::Probed { file, .. } => {
                    assert_eq!(file, Some(root.path().join(expected)), "{layout:?}")
                }
                other => panic!("{layout:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn variables_and_existing_builtin_locations_win() {
        let root = tempfile::tempdir().expect("tempdir");
        put(root.path(), "etc/ssl/certs/ca-certificates.crt");
        let mut i = inputs(root.path());
        i.env_file = Some("/somewhere/ca.pem".into());
        assert_eq!(Trust::decide(&i), Trust::Defaults);
        let mut i = inputs(root.path());
        i.env_dir = Some("/somewhere".into());
        assert_eq!(Trust::decide(&i), Trust::Defaults);
        // An empty variable is unset, as for OpenSSL.
        let mut i = inputs(root.path());
        i.env_file = Some("".into());
        assert!(matches!(Trust::decide(&i), Trust::Probed { .. }));
        // A compiled-in location that exists: left to OpenSSL.
        put(root.path(), "usr/local/ssl/cert.pem");
        assert_eq!(Trust::decide(&inputs(root.path())), Trust::Defaults);
    }

    #[test]
    fn nothing_found_says_where_it_looked() {
        let root = tempfile::tempdir().expect("tempdir");
        let t = Trust::decide(&inputs(root.path()));
        let detail = t.nothing_detail().expect("Nothing");
        assert!(detail.contains("usr/local/ssl/cert.pem"), "{detail}");
        assert!(
            detail.contains("/etc/ssl/certs/ca-certificates.crt"),
            "{detail}"
        );
    }

    /// On this machine, with OpenSSL's compiled-in locations taken away (as for a vendored
    /// OpenSSL), the probe finds the system bundle: on Debian/Ubuntu that is
    /// /etc/ssl/certs/ca-certificates.crt.
    #[test]
    fn probing_this_machine_finds_the_system_bundle() {
        use std::io::Write;
        let debian = Path::new("/etc/ssl/certs/ca-certificates.crt");
        if !debian.is_file() {
            let message = "SKIPPED: probing_this_machine_finds_the_system_bundle: /etc/ssl/certs/ca-certificates.crt not found (install ca-certificates)";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{message} (CI=true)");
            }
            // Straight to fd 2: the harness captures `eprintln!`, which would hide the line
            // in a passing run.
            let _ = writeln!(std::io::stderr(), "{message}");
            return;
        }
        let i = TrustInputs {
            env_file: None,
            env_dir: None,
            builtin_file: "/nonexistent/ssl/cert.pem".into(),
            builtin_dir: "/nonexistent/ssl/certs".into(),
            root: "/".into(),
        };
        match Trust::decide(&i) {
            Trust::Probed { file, dirs } => {
                assert_eq!(file.as_deref(), Some(debian));
                assert!(dirs.contains(&PathBuf::from("/etc/ssl/certs")), "{dirs:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// The OpenSSL this test is linked with: a distribution's has existing compiled-in locations
    /// and keeps its defaults; a vendored one (/usr/local/ssl) probes, and finds the system bundle.
    #[test]
    fn this_process_decides_by_the_linked_openssl() {
        let mut i = TrustInputs::this_process();
        i.env_file = None;
        i.env_dir = None;
        let builtin_exists = i.builtin_file.is_file()
            || fs::read_dir(&i.builtin_dir).is_ok_and(|mut e| e.next().is_some());
        let decided = Trust::decide(&i);
        eprintln!(
            "OpenSSL {}: compiled-in {} / {} (exist: {builtin_exists}) -> {decided:?}",
            crate::version_text(),
            i.builtin_file.display(),
            i.builtin_dir.display()
        );
        if builtin_exists {
            assert_eq!(decided, Trust::Defaults);
        } else {
            assert!(matches!(decided, Trust::Probed { .. }), "{decided:?}");
        }
    }
}

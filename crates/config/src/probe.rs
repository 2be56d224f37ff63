//! The pure half of the OpenSSL probes: how to read the version `openssl-sys` reports, where the
//! libraries were looked for, and the message a failed probe stops the build with.

use std::fmt;

use crate::model::{Capability, Facility, Selection};

/// Where the OpenSSL that the probe (and `openssl-sys`) uses was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `OPENSSL_LIB_DIR` and `OPENSSL_INCLUDE_DIR`.
    LibAndIncludeDirs,
    /// `OPENSSL_DIR` (or its target-prefixed form).
    OpensslDir(String),
    /// pkg-config's `openssl` module.
    PkgConfig,
    /// Nothing said where; the compiler's default search paths.
    CompilerDefault,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::LibAndIncludeDirs => f.write_str("OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR"),
            Location::OpensslDir(dir) => write!(f, "OPENSSL_DIR={dir}"),
            Location::PkgConfig => f.write_str("pkg-config"),
            Location::CompilerDefault => f.write_str("the compiler's default paths"),
        }
    }
}

/// The directories a probe compiled and linked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchPaths {
    /// How they were found.
    pub location: Location,
    /// `-L` directories.
    pub lib_dirs: Vec<String>,
    /// `-I` directories.
    pub include_dirs: Vec<String>,
}

/// A probe that did not compile, link or pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeFailure {
    /// What was probed.
    pub capability: Capability,
    /// Where it looked.
    pub paths: SearchPaths,
    /// The compiler command line, for reproducing it by hand.
    pub command: String,
    /// The last lines of the compiler's output.
    pub output: String,
}

/// The message that stops the build when a probe fails: which symbol, which directories, who asked,
/// and how to fix it.
pub fn failure_message(failure: &ProbeFailure, selection: &Selection) -> String {
    let cap = failure.capability;
    let mut asked = Vec::new();
    for facility in cap.facilities() {
        let choice = selection.get(*facility);
        if choice.provider == crate::Provider::Openssl {
            asked.push(format!("{facility} = openssl ({})", choice.origin));
        }
    }
    let dirs = |d: &[String]| {
        if d.is_empty() {
            "(the compiler's default search path)".to_string()
        } else {
            d.join(", ")
        }
    };
    let mut m = String::new();
    m.push_str(&format!(
        "OpenSSL probe failed: {} (`{}`) could not be compiled and linked from {}\n",
        cap.describe(),
        cap.symbol(),
        cap.source()
    ));
    m.push_str(&format!("  asked for by: {}\n", asked.join("; ")));
    m.push_str(&format!(
        "  OpenSSL located by: {}; library directories tried: {}; include directories: {}\n",
        failure.paths.location,
        dirs(&failure.paths.lib_dirs),
        dirs(&failure.paths.include_dirs)
    ));
    m.push_str(&format!("  command: {}\n", failure.command));
    for line in failure.output.lines() {
        m.push_str(&format!("  | {line}\n"));
    }
    m.push_str("  fix: install OpenSSL's development files and pkg-config:\n");
    m.push_str("    Debian/Ubuntu: apt-get install libssl-dev pkg-config\n");
    m.push_str("    Fedora:        dnf install openssl-devel pkgconf-pkg-config\n");
    m.push_str("    Arch:          pacman -S openssl pkgconf\n");
    m.push_str("    Alpine:        apk add openssl-dev pkgconf\n");
    m.push_str(
        "  or point the build at an installation: OPENSSL_DIR=/path (containing include/openssl and lib/), or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR\n",
    );
    let others: Vec<String> = cap
        .facilities()
        .iter()
        .filter(|f| selection.provider(**f) == crate::Provider::Openssl)
        .map(|f| alternative(*f))
        .collect();
    m.push_str(&format!(
        "  or do without OpenSSL here: {}",
        others.join(", ")
    ));
    m
}

fn alternative(facility: Facility) -> String {
    let other = facility
        .providers()
        .iter()
        .find(|p| **p != crate::Provider::Openssl)
        .map_or("", |p| p.name());
    format!("{}={other}", facility.env_var())
}

/// An OpenSSL version as `openssl-sys` reports it in `DEP_OPENSSL_VERSION_NUMBER` (hexadecimal
/// `OPENSSL_VERSION_NUMBER`), turned into the usual text: `3.0.19`, `1.1.1w`.
pub fn openssl_version_text(hex: &str) -> Option<String> {
    let n = u64::from_str_radix(hex.trim().trim_start_matches("0x"), 16).ok()?;
    let major = n >> 28;
    if major >= 3 {
        // 0xMNN00PP0
        Some(format!("{major}.{}.{}", (n >> 20) & 0xff, (n >> 4) & 0xff))
    } else {
        // 0xMNNFFPPS
        let patch = (n >> 4) & 0xff;
        let letter = if patch == 0 {
            String::new()
        } else {
            char::from_u32(u32::try_from(u64::from(b'a') + patch - 1).ok()?)?.to_string()
        };
        Some(format!(
            "{major}.{}.{}{letter}",
            (n >> 20) & 0xff,
            (n >> 12) & 0xff
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Choice, Origin, Provider};

    #[test]
    fn versions() {
        assert_eq!(openssl_version_text("30000130").as_deref(), Some("3.0.19"));
        assert_eq!(openssl_version_text("30500010").as_deref(), Some("3.5.1"));
        assert_eq!(openssl_version_text("1010117f").as_deref(), Some("1.1.1w"));
        assert_eq!(openssl_version_text("1010100f").as_deref(), Some("1.1.1"));
        assert_eq!(openssl_version_text("zz"), None);
    }

    #[test]
    fn failure_names_symbol_directory_requester_and_fixes() {
        let selection = Selection {
            choices: [
                Choice {
                    provider: Provider::Openssl,
                    origin: Origin::Env("FLAGSPLIT_SHA1_PROVIDER"),
                },
                Choice::default_of(Provider::Block),
                Choice::default_of(Provider::Builtin),
                Choice::default_of(Provider::None),
            ],
        };
        let failure = ProbeFailure {
            capability: Capability::Sha1Digest,
            paths: SearchPaths {
                location: Location::OpensslDir("/opt/ossl".into()),
                lib_dirs: vec!["/opt/ossl/lib".into()],
                include_dirs: vec!["/opt/ossl/include".into()],
            },
            command: "cc probe-sha1.c -lcrypto".into(),
            output: "undefined reference to `SHA1_Init'".into(),
        };
        let m = failure_message(&failure, &selection);
        assert!(m.contains("`SHA1_Init`"), "{m}");
        assert!(m.contains("/opt/ossl/lib"), "{m}");
        assert!(
            m.contains("sha1 = openssl (FLAGSPLIT_SHA1_PROVIDER)"),
            "{m}"
        );
        assert!(m.contains("apt-get install libssl-dev"), "{m}");
        assert!(m.contains("dnf install openssl-devel"), "{m}");
        assert!(m.contains("pacman -S openssl"), "{m}");
        assert!(m.contains("apk add openssl-dev"), "{m}");
        assert!(m.contains("OPENSSL_DIR=/path"), "{m}");
        assert!(m.contains("FLAGSPLIT_SHA1_PROVIDER=dc"), "{m}");
        assert!(!m.contains("FLAGSPLIT_SHA1_UNSAFE_PROVIDER"), "{m}");
        assert!(m.contains("| undefined reference"), "{m}");
    }
}

//! Every variable flagsplit reads, in one table: the build script checks unknown `FLAGSPLIT_*`
//! names against it, and the documentation's knob table is generated from it.

/// When a variable is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// By `build.rs`, while compiling: changing it rebuilds.
    Build,
    /// By the binaries, each time they run.
    Run,
    /// By the test command (`scripts/test.sh`).
    Test,
}

impl When {
    /// A short label for tables.
    pub const fn label(self) -> &'static str {
        match self {
            When::Build => "build",
            When::Run => "run",
            When::Test => "test",
        }
    }
}

/// One environment variable.
#[derive(Clone, Copy, Debug)]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// When it is read.
    pub when: When,
    /// Accepted values.
    pub values: &'static str,
    /// What happens when it is unset.
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// The variable naming the config file.
pub const CONFIG_VAR: &str = "FLAGSPLIT_CONFIG";

/// Every `FLAGSPLIT_*` variable. A `FLAGSPLIT_*` name in the build environment that is not here is
/// a build error (a typo must not be silently ignored).
pub const FLAGSPLIT_VARIABLES: &[Variable] = &[
    Variable {
        name: CONFIG_VAR,
        when: When::Build,
        values: "path to a TOML file (relative paths resolve against the package root)",
        default: "no file",
        help: "build configuration file, format in config.example.toml; a named file that does not exist is an error",
    },
    Variable {
        name: "FLAGSPLIT_SHA1_PROVIDER",
        when: When::Build,
        values: "dc | block | openssl",
        default: "openssl with feature openssl-sha1, else dc",
        help: "provider of checked SHA-1 (sha1sum, hash-object); overrides the config file",
    },
    Variable {
        name: "FLAGSPLIT_SHA1_UNSAFE_PROVIDER",
        when: When::Build,
        values: "block | openssl",
        default: "openssl with feature openssl-sha1, else block",
        help: "provider of SHA-1 without collision detection; overrides the config file",
    },
    Variable {
        name: "FLAGSPLIT_MD5_PROVIDER",
        when: When::Build,
        values: "builtin | openssl",
        default: "openssl with feature openssl-md5, else builtin",
        help: "provider of MD5; overrides the config file",
    },
    Variable {
        name: "FLAGSPLIT_TLS_PROVIDER",
        when: When::Build,
        values: "rustls | openssl | none",
        default: "openssl with feature openssl-tls, else rustls with feature rustls-tls, else none",
        help: "TLS provider of flagsplit-imap-send; overrides the config file",
    },
    Variable {
        name: "FLAGSPLIT_SHA1DC",
        when: When::Run,
        values: "0 | 1",
        default: "1",
        help: "0 turns collision detection off for one command, like --no-collision-detection",
    },
    Variable {
        name: "FLAGSPLIT_EXEC_PATH",
        when: When::Run,
        values: "directory",
        default: "the directory of flagsplit, then PATH",
        help: "where `flagsplit imap-send` looks for flagsplit-imap-send",
    },
    Variable {
        name: "FLAGSPLIT_TEST_NO_INSTALL",
        when: When::Test,
        values: "1",
        default: "install missing packages with apt-get when root",
        help: "the test command installs nothing (offline or packaging builds)",
    },
    Variable {
        name: "FLAGSPLIT_BLESS",
        when: When::Test,
        values: "1",
        default: "tests compare",
        help: "tests rewrite their generated expectations (README knob table, config error corpus) instead of failing; review the diff",
    },
];

/// The build-time `FLAGSPLIT_*` variables.
pub fn build_variables() -> impl Iterator<Item = &'static Variable> {
    FLAGSPLIT_VARIABLES.iter().filter(|v| v.when == When::Build)
}

/// Looks a `FLAGSPLIT_*` variable up by name.
pub fn flagsplit_variable(name: &str) -> Option<&'static Variable> {
    FLAGSPLIT_VARIABLES.iter().find(|v| v.name == name)
}

/// The ecosystem's OpenSSL variables, read by `openssl-sys` and by flagsplit's probe alike (each also
/// in the target-prefixed form `<TARGET>_<NAME>`, for example `X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`).
pub const OPENSSL_VARIABLES: &[Variable] = &[
    Variable {
        name: "OPENSSL_DIR",
        when: When::Build,
        values: "directory with include/ and lib/ (or lib64/)",
        default: "found by pkg-config",
        help: "where OpenSSL is installed",
    },
    Variable {
        name: "OPENSSL_LIB_DIR",
        when: When::Build,
        values: "directory",
        default: "$OPENSSL_DIR/lib64 and $OPENSSL_DIR/lib, or pkg-config",
        help: "libcrypto/libssl directory (with OPENSSL_INCLUDE_DIR, OPENSSL_DIR is not needed)",
    },
    Variable {
        name: "OPENSSL_INCLUDE_DIR",
        when: When::Build,
        values: "directory",
        default: "$OPENSSL_DIR/include, or pkg-config",
        help: "directory containing openssl/*.h",
    },
    Variable {
        name: "OPENSSL_STATIC",
        when: When::Build,
        values: "1 (0: dynamic)",
        default: "dynamic, unless the library directory holds only libcrypto.a/libssl.a",
        help: "link libcrypto/libssl statically (openssl-sys): no OpenSSL in NEEDED, `OpenSSL: ... (static)`; needs OPENSSL_LIB_DIR + OPENSSL_INCLUDE_DIR (or OPENSSL_DIR) when pkg-config would find a system OpenSSL, which it links dynamically whatever this says (a build error names the fix)",
    },
    Variable {
        name: "OPENSSL_NO_VENDOR",
        when: When::Build,
        values: "1",
        default: "feature openssl-vendored builds OpenSSL from source",
        help: "use the system OpenSSL although feature openssl-vendored is on (openssl-sys)",
    },
    Variable {
        name: "OPENSSL_NO_PKG_CONFIG",
        when: When::Build,
        values: "1",
        default: "pkg-config is asked",
        help: "do not ask pkg-config for OpenSSL",
    },
    Variable {
        name: "PKG_CONFIG_PATH",
        when: When::Build,
        values: "directories",
        default: "pkg-config's own",
        help: "where pkg-config finds openssl.pc (also PKG_CONFIG_SYSROOT_DIR, PKG_CONFIG_LIBDIR)",
    },
    Variable {
        name: "SSL_CERT_FILE",
        when: When::Run,
        values: "PEM file of trusted CA certificates",
        default: "the system store (OpenSSL's compiled-in one when it exists, else the distribution's bundle, probed)",
        help: "trusted CAs of flagsplit-imap-send (both TLS providers; imap.sslCAInfo replaces them); also SSL_CERT_DIR",
    },
];

/// Cargo features that say where a dependency comes from rather than which provider is compiled
/// (not in [`crate::Feature`]: the resolver does not select with them).
pub const SOURCE_FEATURES: &[Variable] = &[Variable {
    name: "openssl-vendored",
    when: When::Build,
    values: "on, off",
    default: "off",
    help: "builds OpenSSL from source (openssl-sys's `vendored`, through openssl-src; needs perl and make) and links it statically; only with openssl-sha1, openssl-md5 or openssl-tls (on its own: a build error); TLS then probes the distribution's CA bundle",
}];

/// The target-prefixed form of an OpenSSL variable, as `openssl-sys` spells it.
pub fn target_prefixed(target: &str, name: &str) -> String {
    format!("{}_{name}", target.to_uppercase().replace('-', "_"))
}

/// The build-time variable closest to `name`, when it is close enough to be a likely typo.
pub fn suggest(name: &str) -> Option<&'static str> {
    FLAGSPLIT_VARIABLES
        .iter()
        .map(|v| (edit_distance(name, v.name), v.name))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Levenshtein distance over bytes (names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The knob table of the README (and later PACKAGING.md), generated from the same tables the
/// resolver uses so that it cannot drift: every feature, config key and variable, what it does, its
/// values, its default, and what each binary links because of it.
pub fn markdown_table() -> String {
    use crate::model::{Binary, Facility, Feature, Links, Provider};
    use std::fmt::Write as _;

    fn links(l: Links) -> &'static str {
        match (l.libssl, l.libcrypto) {
            (true, _) => "libssl + libcrypto",
            (false, true) => "libcrypto",
            (false, false) => "nothing",
        }
    }
    // What each binary links when `facility` uses `provider` and every other facility keeps a
    // provider that links nothing.
    let effect = |facility: Facility, provider: Provider| {
        let quiet = |f: Facility| {
            if f == facility {
                provider
            } else {
                *f.providers()
                    .iter()
                    .find(|p| **p != Provider::Openssl)
                    .unwrap_or(&Provider::None)
            }
        };
        (
            links(Links::of(Binary::Flagsplit, quiet)),
            links(Links::of(Binary::ImapSend, quiet)),
        )
    };
    let cell = |t: &str| t.replace('|', "\\|");

    let mut s = String::new();
    s.push_str("| knob | what it does | values | default | `flagsplit` links | `flagsplit-imap-send` links |\n");
    s.push_str("|---|---|---|---|---|---|\n");
    for feature in Feature::ALL {
        let facilities: &[Facility] = match feature {
            Feature::OpensslSha1 => &[Facility::Sha1, Facility::Sha1Unsafe],
            Feature::OpensslMd5 => &[Facility::Md5],
            Feature::OpensslTls | Feature::RustlsTls => &[Facility::Tls],
        };
        let provider = if feature == Feature::RustlsTls {
            Provider::Rustls
        } else {
            Provider::Openssl
        };
        let names: Vec<String> = facilities.iter().map(|f| format!("`{f}`")).collect();
        let (f, i) = effect(facilities[0], provider);
        let default = if feature == Feature::RustlsTls {
            "on"
        } else {
            "off"
        };
        let _ = writeln!(
            s,
            "| `--features {feature}` | compiles the `{provider}` provider of {} (selected by default when on) | on, off | {default} | {f} when selected | {i} when selected |",
            names.join(", ")
        );
    }
    for feature in SOURCE_FEATURES {
        let _ = writeln!(
            s,
            "| `--features {}` | {} | {} | {} | OpenSSL inside the binary, not in NEEDED | OpenSSL inside the binary, not in NEEDED |",
            feature.name,
            cell(feature.help),
            feature.values,
            feature.default
        );
    }
    for facility in Facility::ALL {
        let values: Vec<String> = facility
            .providers()
            .iter()
            .map(|p| format!("`{p}`"))
            .collect();
        let default = flagsplit_variable(facility.env_var()).map_or("", |v| v.default);
        let mut f_links = Vec::new();
        let mut i_links = Vec::new();
        for p in facility.providers() {
            let (f, i) = effect(facility, *p);
            f_links.push(format!("{p}: {f}"));
            i_links.push(format!("{p}: {i}"));
        }
        let _ = writeln!(
            s,
            "| `{}`, config `[{facility}] provider` | selects the provider of {} | {} | {default} | {} | {} |",
            facility.env_var(),
            cell(facility.purpose()),
            values.join(", "),
            f_links.join("; "),
            i_links.join("; ")
        );
    }
    for var in FLAGSPLIT_VARIABLES
        .iter()
        .filter(|v| v.name == CONFIG_VAR || v.when != When::Build)
        .chain(OPENSSL_VARIABLES)
    {
        let when = match var.when {
            When::Build => "build time",
            When::Run => "run time",
            When::Test => "test command",
        };
        let _ = writeln!(
            s,
            "| `{}` | ({when}) {} | {} | {} | — | — |",
            var.name,
            cell(var.help),
            cell(var.values),
            cell(var.default),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Facility;

    #[test]
    fn every_facility_variable_is_registered_for_build_time() {
        for facility in Facility::ALL {
            let var = flagsplit_variable(facility.env_var()).expect("registered");
            assert_eq!(var.when, When::Build);
        }
        assert_eq!(build_variables().count(), Facility::ALL.len() + 1);
    }

    #[test]
    fn suggestions_catch_typos_only() {
        assert_eq!(
            suggest("FLAGSPLIT_SHA_PROVIDER"),
            Some("FLAGSPLIT_SHA1_PROVIDER")
        );
        assert_eq!(
            suggest("FLAGSPLIT_TLS_PROVDER"),
            Some("FLAGSPLIT_TLS_PROVIDER")
        );
        assert_eq!(suggest("FLAGSPLIT_CONFG"), Some("FLAGSPLIT_CONFIG"));
        assert_eq!(suggest("FLAGSPLIT_SOMETHING_ELSE_ENTIRELY"), None);
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn target_prefix_matches_openssl_sys() {
        assert_eq!(
            target_prefixed("x86_64-unknown-linux-gnu", "OPENSSL_DIR"),
            "X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR"
        );
    }
}

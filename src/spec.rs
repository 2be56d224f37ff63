//! flagsplit's own facility table: the one place that says which facilities exist, which
//! providers each has, which Cargo feature compiles each, what a binary then links, and the
//! defaults. The root package's `build.rs` resolves it (it includes this file with `#[path]`, as
//! does `flagsplit-imap-send`, which does not link this library); `version --build-options`, the
//! knob table and the man pages read it. Only absolute `flagsplit_config::` paths are named here,
//! so that the file compiles in all three places.
//!
//! Adding a facility is one entry here, its provider code, its feature lines in `Cargo.toml`, and a
//! wiring line in each binary that uses it.

use flagsplit_config::probe::{Finder, Library, OPENSSL, Probe};
use flagsplit_config::{Facility, Provider, Role, Spec, Variable, When};

/// The `flagsplit` executable.
pub const FLAGSPLIT: &str = "flagsplit";
/// The `flagsplit-imap-send` executable.
pub const IMAP_SEND: &str = "flagsplit-imap-send";
/// The `flagsplit-fsck` executable (`flagsplit fsck`).
pub const FSCK: &str = "flagsplit-fsck";
/// The `flagsplit-report` executable (`flagsplit report`): no facility; it links none.
pub const REPORT: &str = "flagsplit-report";

/// Checked SHA-1 (object ids, `sha1sum`).
pub const SHA1: &str = "sha1";
/// SHA-1 without collision detection.
pub const SHA1_UNSAFE: &str = "sha1-unsafe";
/// MD5 (`md5sum`, CRAM-MD5).
pub const MD5: &str = "md5";
/// SHA-256 (`sha256sum`).
pub const SHA256: &str = "sha256";
/// TLS for the IMAP sender.
pub const TLS: &str = "tls";
/// zlib inflate (git objects).
pub const ZLIB: &str = "zlib";

const LIBCRYPTO: &[&str] = &["libcrypto"];

/// libcrypto's low-level SHA-1 (`compat/probe-sha1.c`).
pub static PROBE_SHA1: Probe =
    openssl_probe("probe-sha1.c", "SHA1_Init", "SHA-1 digest in libcrypto");
/// libcrypto's low-level SHA-256 (`compat/probe-sha256.c`).
pub static PROBE_SHA256: Probe = openssl_probe(
    "probe-sha256.c",
    "SHA256_Init",
    "SHA-256 digest in libcrypto",
);
/// libcrypto's low-level MD5 (`compat/probe-md5.c`).
pub static PROBE_MD5: Probe = openssl_probe("probe-md5.c", "MD5_Init", "MD5 digest in libcrypto");
/// A TLS client method in libssl (`compat/probe-tls.c`).
pub static PROBE_TLS: Probe = Probe {
    library: &OPENSSL,
    source: "probe-tls.c",
    symbol: "TLS_client_method",
    link: &["ssl", "crypto"],
    what: "TLS client method in libssl",
};

/// A probe of a libcrypto digest.
const fn openssl_probe(source: &'static str, symbol: &'static str, what: &'static str) -> Probe {
    Probe {
        library: &OPENSSL,
        source,
        symbol,
        link: &["crypto"],
        what,
    }
}
const LIBSSL: &[&str] = &["libssl", "libcrypto"];
const LIBZ_NAMES: &[&str] = &["libz"];

/// The system zlib, found by libz-sys (`links = "z"`: `DEP_Z_INCLUDE`, and `DEP_Z_ROOT` when it
/// built its bundled copy instead).
pub static LIBZ: Library = Library {
    name: "zlib",
    sys_crate: "libz-sys",
    links: "Z",
    finder: Finder::Generic,
    install: &[
        ("Debian/Ubuntu", "apt-get install zlib1g-dev pkg-config"),
        ("Fedora", "dnf install zlib-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S zlib pkgconf"),
        ("Alpine", "apk add zlib-dev pkgconf"),
    ],
    locate: &[
        "point pkg-config at an installation: PKG_CONFIG_PATH=/path/lib/pkgconfig (libz-sys asks pkg-config, then the compiler)",
    ],
    own_copy_asked_by: &["LIBZ_SYS_STATIC"],
};

/// zlib's inflater in the system libz (`compat/probe-zlib.c`).
pub static PROBE_ZLIB: Probe = Probe {
    library: &LIBZ,
    source: "probe-zlib.c",
    symbol: "inflateInit2_",
    link: &["z"],
    what: "inflate in libz",
};

/// flagsplit's facilities.
pub static SPEC: Spec = Spec {
    name: "flagsplit",
    prefix: "FLAGSPLIT",
    cfg_prefix: "flagsplit",
    binaries: &[FLAGSPLIT, FSCK, REPORT, IMAP_SEND],
    default_features: &["rustls-tls"],
    facilities: &[
        Facility {
            name: SHA1,
            label: "SHA-1",
            purpose: "SHA-1 of untrusted content: sha1sum, hash-object and fsck (object ids, pack trailers)",
            providers: &[
                Provider::new(
                    "dc",
                    "SHA1_DC",
                    "collision-detecting SHA-1 (crate sha1dc), git's SHA1_DC",
                ),
                Provider::new(
                    "block",
                    "SHA1_BLK (No collision detection)",
                    "block SHA-1 (crate sha1, SHA-NI chosen at run time), git's BLK_SHA1",
                ),
                Provider::new(
                    "openssl",
                    "SHA1_OPENSSL (No collision detection)",
                    "libcrypto's SHA-1, git's OPENSSL_SHA1",
                )
                .feature("openssl-sha1")
                .links(LIBCRYPTO)
                .probe(&PROBE_SHA1),
            ],
            default_order: &["openssl", "dc"],
            used_by: &[FLAGSPLIT, FSCK],
        },
        Facility {
            name: SHA1_UNSAFE,
            label: "non-collision-detecting-SHA-1",
            purpose: "SHA-1 without collision detection: checksums of flagsplit's own data and pack index trailers (as git 2.47), --no-collision-detection",
            providers: &[
                Provider::new(
                    "block",
                    "SHA1_BLK",
                    "block SHA-1 (crate sha1, SHA-NI chosen at run time)",
                ),
                Provider::new("openssl", "SHA1_OPENSSL", "libcrypto's SHA-1")
                    .feature("openssl-sha1")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_SHA1),
            ],
            default_order: &["openssl", "block"],
            used_by: &[FLAGSPLIT, FSCK],
        },
        Facility {
            name: MD5,
            label: "MD5",
            purpose: "MD5: md5sum, CRAM-MD5 in imap-send",
            providers: &[
                Provider::new(
                    "builtin",
                    "MD5_BUILTIN",
                    "flagsplit's own MD5 block function",
                ),
                Provider::new("openssl", "MD5_OPENSSL", "libcrypto's MD5")
                    .feature("openssl-md5")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_MD5),
            ],
            default_order: &["openssl", "builtin"],
            used_by: &[FLAGSPLIT, IMAP_SEND],
        },
        Facility {
            name: SHA256,
            label: "SHA-256",
            purpose: "SHA-256: sha256sum, SHA-256 repositories in fsck",
            providers: &[
                Provider::new(
                    "builtin",
                    "SHA256_BLK",
                    "block SHA-256 (crate sha2, SHA-NI chosen at run time), git's SHA256_BLK",
                ),
                Provider::new(
                    "openssl",
                    "SHA256_OPENSSL",
                    "libcrypto's SHA-256, git's OPENSSL_SHA256",
                )
                .feature("openssl-sha256")
                .links(LIBCRYPTO)
                .probe(&PROBE_SHA256),
            ],
            default_order: &["openssl", "builtin"],
            used_by: &[FLAGSPLIT, FSCK],
        },
        Facility {
            name: TLS,
            label: "TLS",
            purpose: "TLS for flagsplit-imap-send (imaps://, STARTTLS)",
            providers: &[
                Provider::new("rustls", "RUSTLS", "rustls on ring").feature("rustls-tls"),
                Provider::new("openssl", "OPENSSL", "libssl (the openssl crate)")
                    .feature("openssl-tls")
                    .links(LIBSSL)
                    .probe(&PROBE_TLS),
                Provider::new("none", "NONE", "no TLS (imap.tunnel still works)"),
            ],
            default_order: &["openssl", "rustls", "none"],
            used_by: &[IMAP_SEND],
        },
        Facility {
            name: ZLIB,
            label: "zlib-backend",
            purpose: "zlib inflate of git objects: fsck, measured by flagsplit bench",
            providers: &[
                Provider::new("zlib-rs", "ZLIB_RS", "zlib-rs, pure Rust"),
                Provider::new("miniz", "MINIZ_OXIDE", "miniz_oxide, pure Rust").feature("zlib-miniz"),
                Provider::new(
                    "system",
                    "ZLIB",
                    "the system libz (libz-sys; dynamic, its bundled copy is reported), git's default",
                )
                .feature("zlib-system")
                .links(LIBZ_NAMES)
                .probe(&PROBE_ZLIB),
                Provider::new(
                    "zlib-ng",
                    "ZLIB_NG",
                    "zlib-ng's native zng_ API (libz-ng-sys, built with cmake, static), git's ZLIB_NG",
                )
                .feature("zlib-ng"),
            ],
            default_order: &["zlib-ng", "system", "miniz", "zlib-rs"],
            used_by: &[FLAGSPLIT, FSCK],
        },
    ],
    variables: &[
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
            help: "where `flagsplit imap-send`, `flagsplit fsck` and `flagsplit report` look for flagsplit-imap-send, flagsplit-fsck and flagsplit-report",
        },
        Variable {
            name: "FLAGSPLIT_FSCK_TIMES",
            when: When::Run,
            values: "1",
            default: "no report",
            help: "`flagsplit fsck` reports on standard error the time of each stage (read, inflate, delta, hash, checks, connectivity) and the floor (inflate + delta + hash over the threads)",
        },
        Variable {
            name: "FLAGSPLIT_FSCK_CASES",
            when: When::Test,
            values: "substring",
            default: "every case",
            help: "the fsck corpus test runs only the cases whose names contain it",
        },
        Variable {
            name: "FLAGSPLIT_FSCK_SUBJECT",
            when: When::Test,
            values: "git | path of a flagsplit",
            default: "flagsplit",
            help: "the fsck corpus test compares git with itself (to check the harness), or with another flagsplit build (to see which cases a change fixed)",
        },
        Variable {
            name: "FLAGSPLIT_FSCK_KEEP",
            when: When::Test,
            values: "1",
            default: "removed",
            help: "the fsck corpus test keeps the repositories it built and says where",
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
            help: "tests rewrite their generated expectations (README knob table, config error corpus, git's recorded fsck results) instead of failing; review the diff",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_MIB",
            when: When::Bench,
            values: "MiB",
            default: "256",
            help: "the ratios bench's buffer size (cargo bench --bench ratios)",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_ROUNDS",
            when: When::Bench,
            values: "count",
            default: "7",
            help: "the ratios bench's throughput rounds",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_SMALL_ROUNDS",
            when: When::Bench,
            values: "count",
            default: "41",
            help: "the ratios bench's 64-byte rounds",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_ONLY",
            when: When::Bench,
            values: "rows, comma-separated (`block,sha1:openssl`, `zlib`, `zlib:<provider>`)",
            default: "every row",
            help: "the ratios bench runs only these rows (for profiling)",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_PROFILE",
            when: When::Bench,
            values: "N",
            default: "timed rounds",
            help: "the ratios bench only runs the 64-byte loop N times per row, untimed (for callgrind)",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_ZLIB_MIB",
            when: When::Bench,
            values: "MiB",
            default: "64",
            help: "the ratios bench's one large zlib stream",
        },
        Variable {
            name: "FLAGSPLIT_RATIOS_OBJECTS_MIB",
            when: When::Bench,
            values: "MiB",
            default: "16",
            help: "the ratios bench's git-object-shaped zlib input (inflated size)",
        },
    ],
    source_features: &[Variable {
        name: "openssl-vendored",
        when: When::Build,
        values: "on, off",
        default: "off",
        help: "builds OpenSSL from source (openssl-sys's `vendored`, through openssl-src; needs perl and make) and links it statically; only with openssl-sha1, openssl-md5, openssl-sha256 or openssl-tls (on its own: a build error); TLS then probes the distribution's CA bundle",
    }],
    foreign_variables: FOREIGN_VARIABLES,
    local_config: Some("config.toml"),
    example_config: Some("config.example.toml"),
    role: Role::Application,
};

/// The ecosystem's variables the build honours: OpenSSL's, read by `openssl-sys` (and, for the
/// library directory and link mode, by flagsplit's probe), each also in the target-prefixed form
/// `<TARGET>_<NAME>`, for example `X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`; then libz-sys's.
pub const FOREIGN_VARIABLES: &[Variable] = &[
    Variable {
        name: "OPENSSL_DIR",
        when: When::Build,
        values: "directory with include/ and lib/ (or lib64/)",
        default: "found by openssl-sys (pkg-config, then platform prefixes)",
        help: "where OpenSSL is installed",
    },
    Variable {
        name: "OPENSSL_LIB_DIR",
        when: When::Build,
        values: "directory",
        default: "$OPENSSL_DIR/lib64 and $OPENSSL_DIR/lib, or what openssl-sys found",
        help: "libcrypto/libssl directory (with OPENSSL_INCLUDE_DIR, OPENSSL_DIR is not needed)",
    },
    Variable {
        name: "OPENSSL_INCLUDE_DIR",
        when: When::Build,
        values: "directory",
        default: "$OPENSSL_DIR/include, or what openssl-sys found",
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
        help: "openssl-sys does not ask pkg-config for OpenSSL",
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
    Variable {
        name: "LIBZ_SYS_STATIC",
        when: When::Build,
        values: "1 (0: dynamic)",
        default: "dynamic when pkg-config or the C compiler finds the system zlib, else its bundled copy (reported with a warning)",
        help: "with zlib = system: libz-sys builds its bundled zlib and links it statically (no libz in NEEDED, `zlib-build: ... (static)`)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use flagsplit_config::FeatureSet;

    #[test]
    fn the_table_is_consistent() {
        SPEC.check().unwrap();
        assert_eq!(
            SPEC.features(),
            [
                "openssl-sha1",
                "openssl-md5",
                "openssl-sha256",
                "rustls-tls",
                "openssl-tls",
                "zlib-miniz",
                "zlib-system",
                "zlib-ng"
            ]
        );
    }

    #[test]
    fn what_each_binary_links() {
        let openssl = |f: &'static Facility| f.provider("openssl");
        assert_eq!(SPEC.links(FLAGSPLIT, openssl), ["libcrypto"]);
        assert_eq!(SPEC.links(IMAP_SEND, openssl), ["libcrypto", "libssl"]);
        // The sender never links anything for the SHA facilities, which it does not use.
        let only_sha = |f: &'static Facility| {
            if f.name.starts_with("sha") {
                f.provider("openssl")
            } else {
                f.providers.iter().find(|p| p.links.is_empty())
            }
        };
        assert_eq!(SPEC.links(FLAGSPLIT, only_sha), ["libcrypto"]);
        assert!(SPEC.links(IMAP_SEND, only_sha).is_empty());
        let set = FeatureSet::from_names(&SPEC, ["openssl-md5"]);
        assert!(set.contains("openssl-md5"));
    }
}

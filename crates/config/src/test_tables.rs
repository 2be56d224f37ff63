//! Facility tables for the unit tests: the crate's own decisions are tested on tables of its own,
//! not on any user's.
// LIBRARY and APPLICATION are used only by the resolver's tests.
#![cfg_attr(not(feature = "resolve"), allow(dead_code))]

use crate::clib::{Library, Probe};
use crate::model::{Facility, Provider, Role, Spec, Variable, When};
use crate::probe::openssl::{Flavor, OpensslSys, Verdict};

/// A version policy of the kind a crate declares for OpenSSL: 1.1.1 to 3.x supported, 4 and later
/// and LibreSSL 3.5 or newer with a warning, the rest refused.
pub(crate) fn demo_judge(flavor: Option<Flavor>, who: &str) -> Verdict {
    const RANGE: &str = "OpenSSL 1.1.1 to 3.x";
    match flavor {
        None => Verdict::Refuse("openssl-sys reported no OpenSSL version".into()),
        Some(f @ Flavor::Openssl(n)) if n < 0x1010_1000 => Verdict::Refuse(format!(
            "{} is too old: {who} needs OpenSSL 1.1.1 or newer (supported: {RANGE})",
            f.describe()
        )),
        Some(f @ Flavor::Openssl(n)) if n >= 0x4000_0000 => Verdict::Warn(format!(
            "{} is newer than the range {who} is tested with ({RANGE})",
            f.describe()
        )),
        Some(Flavor::Openssl(_)) => Verdict::Supported,
        Some(f @ Flavor::Libressl(n)) if n < 0x3050_0000 => Verdict::Refuse(format!(
            "{} is too old: {who} needs LibreSSL 3.5.0 or newer",
            f.describe()
        )),
        Some(f @ Flavor::Libressl(_)) => Verdict::Warn(format!(
            "{} is accepted but not tested by {who} (supported: {RANGE})",
            f.describe()
        )),
        Some(f) => Verdict::Refuse(format!(
            "{} is not supported: {who} is not tested with it",
            f.describe()
        )),
    }
}

static OPENSSL_SYS: OpensslSys = OpensslSys::new(demo_judge);

/// OpenSSL as a table declares it.
pub(crate) static OPENSSL: Library = Library::new("OpenSSL", &OPENSSL_SYS)
    .install(&[
        ("Debian/Ubuntu", "apt-get install libssl-dev pkg-config"),
        ("Fedora", "dnf install openssl-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S openssl pkgconf"),
        ("Alpine", "apk add openssl-dev pkgconf"),
    ])
    .locate(&[
        "point the build at an installation: OPENSSL_DIR=/path (containing include/openssl and lib/), or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR",
        "build OpenSSL from source and link it statically: --features openssl-vendored",
    ])
    .source_features(&["openssl-vendored"]);

/// One facility: `miniz` always compiled (the default), `zlib` and `zlib-ng` each behind a
/// feature.
const INFLATE: &[Facility] = &[Facility::new(
    "inflate",
    "INFLATE",
    "DEFLATE decompression",
    &[
        Provider::new("miniz", "MINIZ_OXIDE", "pure Rust").answers_to("pure-rust"),
        Provider::new("zlib", "ZLIB", "the system zlib")
            .feature("zlib")
            .links(&["libz"])
            .answers_to("system"),
        Provider::new("zlib-ng", "ZLIB_NG", "zlib-ng")
            .feature("zlib-ng")
            .answers_to("zlib-ng"),
    ],
)
.default_order(&["zlib-ng", "zlib", "miniz"])
.kind("zlib")];

/// A library with the one facility.
pub static LIBRARY: Spec =
    Spec::library("inflate-lib", "INFLATE_LIB", "inflate_lib").facilities(INFLATE);

/// The same table as an application's.
pub static APPLICATION: Spec =
    Spec::application("inflate-app", "INFLATE_APP", "inflate_app").facilities(INFLATE);

/// [`DEMO`]'s executable that uses `hash` and `hash-fast`.
pub const DEMO_CLI: &str = "demo";
/// [`DEMO`]'s executable that uses `hash` and `tls`.
pub const DEMO_SYNC: &str = "demo-sync";

const LIBCRYPTO: &[&str] = &["libcrypto"];
const LIBSSL: &[&str] = &["libssl", "libcrypto"];

/// The demo's libcrypto digest probe.
static PROBE_DIGEST: Probe = Probe {
    library: &OPENSSL,
    source: "probe-sha1.c",
    symbol: "SHA1_Init",
    link: &["crypto"],
    what: "SHA-1 digest in libcrypto",
};
/// The demo's libssl probe.
static PROBE_TLS: Probe = Probe {
    library: &OPENSSL,
    source: "probe-tls.c",
    symbol: "TLS_client_method",
    link: &["ssl", "crypto"],
    what: "TLS client method in libssl",
};

/// An application with three facilities and two binaries, for the resolver, the build script's
/// I/O, the knob table and the path remapping: one feature (`openssl-hash`) compiling a provider
/// of two facilities, providers that link, need a probe or need no feature, a facility only one
/// binary uses, run-time and test variables, a source feature and foreign variables.
pub static DEMO: Spec = Spec {
    name: "demo",
    prefix: "DEMO",
    cfg_prefix: "demo",
    binaries: &[DEMO_CLI, DEMO_SYNC],
    default_features: &["rustls"],
    facilities: &[
        Facility {
            name: "hash",
            label: "HASH",
            purpose: "hashing of untrusted input",
            providers: &[
                Provider::new("portable", "HASH_PORTABLE", "pure Rust, checked")
                    .answers_to("pure-rust"),
                Provider::new("block", "HASH_BLOCK (unchecked)", "a block function"),
                Provider::new("openssl", "HASH_OPENSSL (unchecked)", "libcrypto")
                    .feature("openssl-hash")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_DIGEST)
                    .answers_to("openssl"),
            ],
            default_order: &["openssl", "portable"],
            used_by: &[DEMO_CLI, DEMO_SYNC],
            kind: Some("sha256"),
        },
        Facility {
            name: "hash-fast",
            label: "HASH-FAST",
            purpose: "hashing of the demo's own data",
            providers: &[
                Provider::new("block", "HASH_BLOCK", "a block function"),
                Provider::new("openssl", "HASH_OPENSSL", "libcrypto")
                    .feature("openssl-hash")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_DIGEST),
            ],
            default_order: &["openssl", "block"],
            used_by: &[DEMO_CLI],
            kind: None,
        },
        Facility {
            name: "tls",
            label: "TLS",
            purpose: "TLS for demo-sync",
            providers: &[
                Provider::new("rustls", "RUSTLS", "rustls")
                    .feature("rustls")
                    .answers_to("rustls"),
                Provider::new("openssl", "OPENSSL", "libssl")
                    .feature("openssl-tls")
                    .links(LIBSSL)
                    .probe(&PROBE_TLS)
                    .answers_to("openssl"),
                Provider::new("none", "NONE", "no TLS").answers_to("none"),
            ],
            default_order: &["openssl", "rustls", "none"],
            used_by: &[DEMO_SYNC],
            kind: Some("tls"),
        },
    ],
    variables: &[
        Variable {
            name: "DEMO_TRACE",
            when: When::Run,
            values: "0 | 1",
            default: "0",
            help: "1 traces every call",
        },
        Variable {
            name: "DEMO_TEST_OFFLINE",
            when: When::Test,
            values: "1",
            default: "tests may use the network",
            help: "the tests use no network",
        },
    ],
    source_features: &[Variable {
        name: "openssl-vendored",
        when: When::Build,
        values: "on, off",
        default: "off",
        help: "builds OpenSSL from source and links it statically | only with an OpenSSL provider",
    }],
    foreign_variables: &[
        Variable {
            name: "OPENSSL_DIR",
            when: When::Build,
            values: "directory",
            default: "found by openssl-sys",
            help: "where OpenSSL is installed",
        },
        Variable {
            name: "SSL_CERT_FILE",
            when: When::Run,
            values: "PEM file",
            default: "the system store",
            help: "trusted CAs of demo-sync",
        },
    ],
    local_config: Some("config.toml"),
    example_config: Some("config.example.toml"),
    role: Role::Application,
};

#[test]
fn the_demo_table_is_consistent() {
    DEMO.check().unwrap();
    assert_eq!(DEMO.features(), ["openssl-hash", "rustls", "openssl-tls"]);
}

#[cfg(feature = "resolve")]
mod library_role {
    use std::collections::BTreeMap;

    use super::{APPLICATION, LIBRARY};
    use crate::model::{FeatureSet, Origin, Spec};
    use crate::resolve::{Inputs, resolve};

    fn run(
        spec: &'static Spec,
        features: &[&str],
        vars: &[(&str, &str)],
    ) -> Result<crate::Selection, crate::Errors> {
        let env: BTreeMap<String, Option<String>> = vars
            .iter()
            .map(|(k, v)| ((*k).to_string(), Some((*v).to_string())))
            .collect();
        resolve(&Inputs {
            spec,
            features: FeatureSet::from_names(spec, features.iter().copied()),
            env,
            file: None,
            ..Inputs::new(spec)
        })
    }

    #[test]
    fn a_library_feature_compiles_and_does_not_select() {
        for features in FeatureSet::all_combinations(&LIBRARY) {
            let names = features.in_order(&LIBRARY);
            let sel = run(&LIBRARY, &names, &[]).unwrap();
            assert_eq!(sel.provider("inflate"), "miniz", "features {names:?}");
            assert_eq!(sel.get("inflate").origin, Origin::Default);
        }
        // The same table as an application's: the feature makes its provider the default.
        let sel = run(&APPLICATION, &["zlib"], &[]).unwrap();
        assert_eq!(sel.provider("inflate"), "zlib");
        assert_eq!(sel.get("inflate").origin, Origin::FeatureDefault("zlib"));
        let sel = run(&APPLICATION, &["zlib", "zlib-ng"], &[]).unwrap();
        assert_eq!(sel.provider("inflate"), "zlib-ng");
    }

    #[test]
    fn the_application_selects_a_compiled_provider_with_the_variable() {
        let sel = run(
            &LIBRARY,
            &["zlib"],
            &[("INFLATE_LIB_INFLATE_PROVIDER", "zlib")],
        )
        .unwrap();
        assert_eq!(sel.provider("inflate"), "zlib");
        assert_eq!(
            sel.get("inflate").origin,
            Origin::Env("INFLATE_LIB_INFLATE_PROVIDER".into())
        );
        assert!(
            sel.unselected(&FeatureSet::from_names(&LIBRARY, ["zlib"]))
                .is_empty()
        );
    }

    #[test]
    fn a_compiled_provider_nobody_selects_is_reported() {
        let features = FeatureSet::from_names(&LIBRARY, ["zlib", "zlib-ng"]);
        let sel = run(&LIBRARY, &["zlib", "zlib-ng"], &[]).unwrap();
        let idle: Vec<&str> = sel
            .unselected(&features)
            .iter()
            .map(|(_, p)| p.name)
            .collect();
        assert_eq!(idle, ["zlib", "zlib-ng"]);
        let sel = run(&LIBRARY, &[], &[]).unwrap();
        assert!(sel.unselected(&FeatureSet::EMPTY).is_empty());
    }

    #[test]
    fn a_feature_off_names_where_the_application_turns_it_on() {
        let e = run(&LIBRARY, &[], &[("INFLATE_LIB_INFLATE_PROVIDER", "zlib")])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "INFLATE_LIB_INFLATE_PROVIDER=zlib selects the zlib inflate provider, which this build does not compile: Cargo feature `zlib` is off (features on: (none))\n  fix: turn the feature on where the application depends on inflate-lib: inflate-lib = { version = \"...\", features = [\"zlib\"] } (`--features zlib` when inflate-lib itself is built), or unset INFLATE_LIB_INFLATE_PROVIDER to select a compiled provider (miniz)"
        );
        let e = run(
            &APPLICATION,
            &[],
            &[("INFLATE_APP_INFLATE_PROVIDER", "zlib")],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("fix: build with `--features zlib`"), "{e}");
    }

    #[test]
    fn the_knob_table_default_of_a_library_is_one_provider() {
        let f = &LIBRARY.facilities[0];
        assert_eq!(f.default_text(LIBRARY.role), "miniz");
        assert_eq!(
            f.default_text(APPLICATION.role),
            "zlib-ng with feature zlib-ng, else zlib with feature zlib, else miniz"
        );
    }
}

#[cfg(feature = "build-script")]
mod library_script {
    use super::LIBRARY;
    use crate::env::Env;
    use crate::script::{Build, unselected_warnings};

    fn build(vars: &[(&str, &str)]) -> Build {
        let mut env: Vec<(String, String)> = vec![
            (
                "CARGO_MANIFEST_DIR".into(),
                "/nonexistent/inflate-lib".into(),
            ),
            ("OUT_DIR".into(), "/nonexistent/out".into()),
        ];
        env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Build::with_env(&LIBRARY, Env::fixed(env))
    }

    #[test]
    fn a_library_error_says_where_its_variables_come_from() {
        let e = build(&[("INFLATE_LIB_INFLATE_PROVIDER", "zlb")])
            .resolve()
            .unwrap_err();
        assert_eq!(
            e,
            "INFLATE_LIB_INFLATE_PROVIDER=zlb: `zlb` is not a provider of inflate\n  valid values: miniz, zlib, zlib-ng\n  did you mean zlib?\n  note: inflate-lib is a library; its INFLATE_LIB_* variables reach its build script from the environment of the whole build: the shell, or the [env] table of the application's .cargo/config.toml (Cargo does not say which)"
        );
    }

    #[test]
    fn a_dependent_s_feature_is_warned_about_not_obeyed() {
        let r = build(&[("CARGO_FEATURE_ZLIB", "1")]).resolve().unwrap();
        assert_eq!(r.selection.provider("inflate"), "miniz");
        assert_eq!(
            unselected_warnings(&r),
            [
                "feature `zlib` of inflate-lib compiles the zlib inflate provider, but nothing selects it: inflate stays miniz (the default; a dependent's feature does not select for the whole build). To use zlib, the application sets INFLATE_LIB_INFLATE_PROVIDER=zlib (its .cargo/config.toml [env])"
            ]
        );
        let r = build(&[
            ("CARGO_FEATURE_ZLIB", "1"),
            ("INFLATE_LIB_INFLATE_PROVIDER", "zlib"),
        ])
        .resolve()
        .unwrap();
        assert_eq!(r.selection.provider("inflate"), "zlib");
        assert!(unselected_warnings(&r).is_empty());
    }
}

mod library_knobs {
    use super::{APPLICATION, LIBRARY};
    use crate::knobs::markdown_table;

    #[test]
    fn a_library_s_feature_row_says_it_only_compiles() {
        let row = |t: &str, start: &str| -> String {
            t.lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_default()
                .to_string()
        };
        let t = markdown_table(&LIBRARY);
        let zlib = row(&t, "| feature `zlib` |");
        assert!(
            zlib.contains("compiles the `zlib` provider of `inflate` (selected only by `INFLATE_LIB_INFLATE_PROVIDER`)"),
            "{t}"
        );
        assert!(!t.contains("--features"), "{t}");
        let t = markdown_table(&APPLICATION);
        let zlib = row(&t, "| `--features zlib` |");
        assert!(zlib.contains("(selected by default when on)"), "{t}");
    }
}

use super::message::{compiler_message, failure_message};
use super::need::*;
use super::openssl::{
    Flavor, Location, OpensslInputs, OpensslSysReport, OpensslVars, SearchPaths, StaticProblem,
    Stop, Verdict, link_mode, plan, search_paths, static_message, static_system_libs,
    version_refusal,
};
use super::plan::*;
use super::*;
use crate::clib::*;
use crate::test_tables::{OPENSSL, demo_judge};

fn judge(flavor: Option<Flavor>) -> Verdict {
    demo_judge(flavor, "demo")
}

/// The environment of a build script, as plain data.
#[derive(Default)]
pub(super) struct FakeEnv {
    pub vars: Vec<(&'static str, String)>,
    pub dirs: Vec<(String, Vec<String>)>,
    pub target: TargetInfo,
    pub preprocessed: Option<String>,
    pub pkg_config: Option<PkgConfigFound>,
    /// Headers the preprocessor cannot include.
    pub missing_headers: Vec<&'static str>,
}

impl BuildEnv for FakeEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    }
    fn cargo_var(&self, name: &str) -> Option<String> {
        self.var(name)
    }
    fn target(&self) -> TargetInfo {
        self.target.clone()
    }
    fn list_dir(&self, dir: &str) -> Option<Vec<String>> {
        self.dirs
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, f)| f.clone())
    }
    fn preprocess(&self, source: &str, _include_dirs: &[String]) -> Option<String> {
        if self
            .missing_headers
            .iter()
            .any(|h| source.contains(&format!("<{h}>")))
        {
            return None;
        }
        // A program that only includes a header preprocesses to nothing of interest.
        if source.lines().count() == 1 {
            return Some(String::new());
        }
        self.preprocessed.clone()
    }
    fn compiler_file_name(&self, _name: &str) -> Option<String> {
        None
    }
    fn pkg_config(&self, module: &str) -> Result<PkgConfigFound, String> {
        self.pkg_config
            .clone()
            .ok_or_else(|| format!("Package {module} was not found in the pkg-config search path."))
    }
}

/// Probes of the shape a table declares them, for the tests.
pub(super) static SHA1: Probe = Probe {
    library: &OPENSSL,
    source: "probe-sha1.c",
    symbol: "SHA1_Init",
    link: &["crypto"],
    what: "SHA-1 digest in libcrypto",
};
pub(super) static SHA256: Probe = Probe {
    library: &OPENSSL,
    source: "probe-sha256.c",
    symbol: "SHA256_Init",
    link: &["crypto"],
    what: "SHA-256 digest in libcrypto",
};
pub(super) static MD5: Probe = Probe {
    library: &OPENSSL,
    source: "probe-md5.c",
    symbol: "MD5_Init",
    link: &["crypto"],
    what: "MD5 digest in libcrypto",
};
pub(super) static TLS: Probe = Probe {
    library: &OPENSSL,
    source: "probe-tls.c",
    symbol: "TLS_client_method",
    link: &["ssl", "crypto"],
    what: "TLS client method in libssl",
};

fn asker(what: &str, origin: &str, instead: &str) -> Asker {
    Asker {
        what: what.into(),
        origin: origin.into(),
        instead: instead.into(),
    }
}

pub(super) fn sha1_need() -> Need {
    Need {
        probe: &SHA1,
        askers: vec![asker(
            "sha1 = openssl",
            "DEMO_SHA1_PROVIDER",
            "DEMO_SHA1_PROVIDER=dc",
        )],
    }
}

pub(super) fn tls_need() -> Need {
    Need {
        probe: &TLS,
        askers: vec![asker(
            "tls = openssl",
            "DEMO_TLS_PROVIDER",
            "DEMO_TLS_PROVIDER=rustls",
        )],
    }
}

pub(super) fn target(triple: &str, host: &str) -> TargetInfo {
    let parts: Vec<&str> = triple.split('-').collect();
    let (os, env) = match parts.as_slice() {
        [_, _, os, env] => (*os, *env),
        [_, _, os] => (*os, ""),
        _ => ("", ""),
    };
    TargetInfo {
        triple: triple.into(),
        host: host.into(),
        arch: parts[0].into(),
        os: if os == "darwin" { "macos" } else { os }.into(),
        env: env.into(),
        vendor: parts.get(1).copied().unwrap_or("").into(),
        pointer_width: if parts[0].starts_with("i686") || parts[0].starts_with("arm") {
            32
        } else {
            64
        },
    }
}

/// A file system of the given directories and their entries.
pub(super) fn fs(dirs: &[(&str, &[&str])]) -> impl Fn(&str) -> Option<Vec<String>> {
    let dirs: Vec<(String, Vec<String>)> = dirs
        .iter()
        .map(|(d, f)| (d.to_string(), f.iter().map(|s| s.to_string()).collect()))
        .collect();
    move |dir: &str| dirs.iter().find(|(d, _)| d == dir).map(|(_, f)| f.clone())
}

#[test]
fn versions() {
    let text = |n| Flavor::Openssl(n).version_text();
    assert_eq!(text(0x3000_0130), "3.0.19");
    assert_eq!(text(0x3050_0010), "3.5.1");
    assert_eq!(text(0x3060_0030), "3.6.3");
    assert_eq!(text(0x1010_117f), "1.1.1w");
    assert_eq!(text(0x1010_100f), "1.1.1");
    assert_eq!(text(0x1010_00cf), "1.1.0l");
    assert_eq!(
        Flavor::Libressl(0x3090_200f).version_text(),
        "LibreSSL 3.9.2"
    );
    assert_eq!(Flavor::Openssl(0x1000_215f).describe(), "OpenSSL 1.0.2u");
    let garbage = OpensslSysReport {
        version_number: Some("zz".into()),
        ..OpensslSysReport::default()
    };
    assert_eq!(Flavor::from_report(&garbage), None);
}

#[test]
fn what_openssl_sys_reported() {
    let report = |v: Option<&str>, l: Option<&str>, b: bool, a: bool| OpensslSysReport {
        version_number: v.map(String::from),
        libressl_version_number: l.map(String::from),
        boringssl: b,
        awslc: a,
        ..OpensslSysReport::default()
    };
    assert_eq!(
        Flavor::from_report(&report(Some("30000130"), None, false, false)),
        Some(Flavor::Openssl(0x3000_0130))
    );
    assert_eq!(
        Flavor::from_report(&report(Some("20000000"), Some("3090200f"), false, false)),
        Some(Flavor::Libressl(0x3090_200f))
    );
    assert_eq!(
        Flavor::from_report(&report(None, None, true, false)),
        Some(Flavor::Boringssl)
    );
    assert_eq!(
        Flavor::from_report(&report(None, None, false, true)),
        Some(Flavor::AwsLc)
    );
    assert_eq!(Flavor::from_report(&report(None, None, false, false)), None);
}

/// The supported range, decided on version numbers alone.
#[test]
fn supported_range() {
    let refused = |f: Option<Flavor>| matches!(judge(f), Verdict::Refuse(_));
    let warned = |f: Option<Flavor>| matches!(judge(f), Verdict::Warn(_));
    let ok = |f: Option<Flavor>| judge(f) == Verdict::Supported;
    // OpenSSL: 1.1.1 to 3.x supported, older refused, 4.x and later warned about.
    assert!(refused(Some(Flavor::Openssl(0x1000_215f)))); // 1.0.2u
    assert!(refused(Some(Flavor::Openssl(0x1010_00cf)))); // 1.1.0l
    assert!(refused(Some(Flavor::Openssl(0x1010_0fff)))); // the last number before 1.1.1
    assert!(ok(Some(Flavor::Openssl(0x1010_1001)))); // 1.1.1-pre1
    assert!(ok(Some(Flavor::Openssl(0x1010_100f)))); // 1.1.1
    assert!(ok(Some(Flavor::Openssl(0x1010_117f)))); // 1.1.1w
    assert!(ok(Some(Flavor::Openssl(0x3000_0000)))); // 3.0.0
    assert!(ok(Some(Flavor::Openssl(0x3000_0130)))); // 3.0.19
    assert!(ok(Some(Flavor::Openssl(0x3060_0030)))); // 3.6.3
    assert!(ok(Some(Flavor::Openssl(0x3ff0_0ff0)))); // the last 3.x
    assert!(warned(Some(Flavor::Openssl(0x4000_0000)))); // 4.0.0
    // LibreSSL: 3.5 and later accepted with a warning, older refused.
    assert!(refused(Some(Flavor::Libressl(0x3040_300f))));
    assert!(warned(Some(Flavor::Libressl(0x3050_000f))));
    assert!(warned(Some(Flavor::Libressl(0x4000_000f))));
    // BoringSSL, AWS-LC and an unreported version: refused.
    assert!(refused(Some(Flavor::Boringssl)));
    assert!(refused(Some(Flavor::AwsLc)));
    assert!(refused(None));
    let reason = match judge(Some(Flavor::Openssl(0x1010_00cf))) {
        Verdict::Refuse(reason) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.contains("OpenSSL 1.1.0l is too old"), "{reason}");
    assert!(reason.contains("1.1.1 or newer"), "{reason}");
    let reason = match judge(Some(Flavor::Boringssl)) {
        Verdict::Refuse(reason) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.contains("BoringSSL is not supported"), "{reason}");
    let w = match judge(Some(Flavor::Libressl(0x3090_200f))) {
        Verdict::Warn(w) => w,
        other => panic!("{other:?}"),
    };
    assert!(
        w.contains("LibreSSL 3.9.2 is accepted but not tested"),
        "{w}"
    );
}

#[test]
fn message_renders_once_in_one_order() {
    let m = Message::new("headline")
        .tried("found: x")
        .output("line 1\nline 2")
        .asked_by(
            "OpenSSL",
            &[
                asker("sha1 = openssl", "DEMO_SHA1_PROVIDER", "A=dc"),
                asker("sha1 = openssl", "DEMO_SHA1_PROVIDER", "A=dc"),
                asker("tls = openssl", "default", "B=rustls"),
            ],
        )
        .fix("first\nsecond line")
        .fix("other")
        .render();
    assert_eq!(
        m,
        "headline\n  found: x\n  | line 1\n  | line 2\n  asked for by: sha1 = openssl (DEMO_SHA1_PROVIDER); tls = openssl (default)\n  fix: first\n    second line\n  or other\n  or do without OpenSSL here: A=dc, B=rustls"
    );
    assert_eq!(Message::new("only").render(), "only");
}

#[test]
fn version_refusal_says_what_where_minimum_and_fix() {
    let report = OpensslSysReport {
        version_number: Some("101000cf".into()),
        include: Some("/opt/old/include".into()),
        ..OpensslSysReport::default()
    };
    let inputs = OpensslInputs {
        target: target("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu"),
        vars: OpensslVars {
            lib_dir: Some("/opt/old/lib".into()),
            include_dir: Some("/opt/old/include".into()),
            ..OpensslVars::default()
        },
        report: report.clone(),
    };
    let needs = [sha1_need(), tls_need()];
    let reason = match plan(&inputs, demo_judge, "demo", &fs(&[])) {
        Err(Stop::Version(reason)) => reason,
        other => panic!("1.1.0l must be refused, got {other:?}"),
    };
    let paths = search_paths(&inputs, &fs(&[]));
    let m = version_refusal(&OPENSSL, &reason, &paths, &report)
        .asked_by("OpenSSL", askers(&needs))
        .render();
    for want in [
        "OpenSSL version check failed: OpenSSL 1.1.0l is too old: demo needs OpenSSL 1.1.1 or newer",
        "headers in /opt/old/include",
        "OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR",
        "library directories: /opt/old/lib",
        "sha1 = openssl (DEMO_SHA1_PROVIDER)",
        "tls = openssl (DEMO_TLS_PROVIDER)",
        "--features openssl-vendored",
        "DEMO_SHA1_PROVIDER=dc",
        "DEMO_TLS_PROVIDER=rustls",
    ] {
        assert!(m.contains(want), "{want:?} not in:\n{m}");
    }
    assert!(!m.contains("DEMO_MD5_PROVIDER"), "{m}");
}

#[test]
fn static_or_dynamic_as_openssl_sys_decides() {
    let dir = "/x/lib";
    let paths = SearchPaths {
        location: Location::LibAndIncludeDirs,
        lib_dirs: vec![dir.into()],
        include_dirs: vec!["/x/include".into()],
    };
    let inputs = |s: Option<&str>| OpensslInputs {
        vars: OpensslVars {
            static_: s.map(String::from),
            ..OpensslVars::default()
        },
        ..OpensslInputs::default()
    };
    let both = fs(&[(
        dir,
        &["libssl.a", "libcrypto.a", "libssl.so", "libcrypto.so"],
    )]);
    for (value, want) in [
        (Some("1"), LinkMode::Static),
        (Some("yes"), LinkMode::Static),
        (Some(""), LinkMode::Static),
        (Some("0"), LinkMode::Dynamic),
        (None, LinkMode::Dynamic),
    ] {
        assert_eq!(
            link_mode(&inputs(value), &paths, &both),
            Ok(want),
            "{value:?}"
        );
    }
    // Only archives (a vendored build, a static-only installation): static without asking.
    let archives = fs(&[(dir, &["libssl.a", "libcrypto.a", "pkgconfig"][..])]);
    assert_eq!(
        link_mode(&inputs(None), &paths, &archives),
        Ok(LinkMode::Static)
    );
    // pkg-config in the system's directories: dynamic whatever OPENSSL_STATIC says, so asking for
    // static there is an error.
    let pc = SearchPaths {
        location: Location::PkgConfig,
        lib_dirs: vec![],
        include_dirs: vec![],
    };
    assert_eq!(link_mode(&inputs(None), &pc, &both), Ok(LinkMode::Dynamic));
    assert!(matches!(
        link_mode(&inputs(Some("1")), &pc, &both),
        Err(StaticProblem::PkgConfigSystemDir { .. })
    ));
    let all_static = OpensslInputs {
        vars: OpensslVars {
            pkg_config_all_static: true,
            ..OpensslVars::default()
        },
        ..OpensslInputs::default()
    };
    assert!(link_mode(&all_static, &pc, &both).is_err());
    // Static with no library directory known.
    let nowhere = SearchPaths {
        location: Location::Search,
        lib_dirs: vec![],
        include_dirs: vec!["/odd/include".into()],
    };
    assert_eq!(
        link_mode(&inputs(Some("1")), &nowhere, &both),
        Err(StaticProblem::NoLibDir)
    );
}

#[test]
fn static_messages_name_the_fix() {
    let needs = [sha1_need()];
    let paths = SearchPaths {
        location: Location::PkgConfig,
        lib_dirs: vec![],
        include_dirs: vec![],
    };
    let m = static_message(
        &OPENSSL,
        &StaticProblem::PkgConfigSystemDir {
            libdir: Some("/usr/lib/x86_64-linux-gnu".into()),
            includedir: Some("/usr/include".into()),
        },
        &paths,
    )
    .asked_by("OpenSSL", askers(&needs))
    .render();
    for want in [
        "OpenSSL static linking was asked for",
        "OPENSSL_STATIC=1 OPENSSL_LIB_DIR=/usr/lib/x86_64-linux-gnu OPENSSL_INCLUDE_DIR=/usr/include",
        "libcrypto.so in NEEDED",
        "located by: pkg-config",
        "sha1 = openssl (DEMO_SHA1_PROVIDER)",
        "DEMO_SHA1_PROVIDER=dc",
    ] {
        assert!(m.contains(want), "{want:?} not in:\n{m}");
    }
    let m = static_message(&OPENSSL, &StaticProblem::NoLibDir, &paths).render();
    assert!(m.contains("--features openssl-vendored"), "{m}");
    assert!(m.contains("no library directory is known"), "{m}");
}

#[test]
fn probe_command_lines() {
    let mut found = Found::new("OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR");
    found.lib_dirs = vec!["/x/lib".into()];
    found.include_dirs = vec!["/x/include".into()];
    let all = fs(&[("/x/lib", &["libssl.a", "libcrypto.a"][..])]);
    assert_eq!(
        probe_args(&TLS, &found, &all).unwrap(),
        ["-I/x/include", "-L/x/lib", "-lssl", "-lcrypto"]
    );
    found.link_mode = LinkMode::Static;
    found.system_libs = vec!["-ldl".to_string(), "-pthread".to_string()];
    assert_eq!(
        probe_args(&TLS, &found, &all).unwrap(),
        [
            "-I/x/include",
            "/x/lib/libssl.a",
            "/x/lib/libcrypto.a",
            "-ldl",
            "-pthread"
        ]
    );
    assert_eq!(
        probe_args(&SHA256, &found, &all).unwrap(),
        ["-I/x/include", "/x/lib/libcrypto.a", "-ldl", "-pthread"]
    );
    let no_crypto = fs(&[("/x/lib", &["libssl.a"][..])]);
    let m = probe_args(&MD5, &found, &no_crypto).unwrap_err().render();
    assert!(
        m.starts_with("OpenSSL static linking was asked for, but libcrypto.a is not in the library directories: /x/lib"),
        "{m}"
    );
    assert!(m.contains("apt-get install libssl-dev"), "{m}");
}

/// A library found by a `-sys` crate other than openssl-sys, for the generic finder's tests.
static LIBZ_SYS: SysCrate = SysCrate::new("libz-sys", "Z");
static ZLIB: Library = Library::new("zlib", &LIBZ_SYS)
    .install(&[
        ("Debian/Ubuntu", "apt-get install zlib1g-dev pkg-config"),
        ("Fedora", "dnf install zlib-devel"),
    ])
    .own_copy_asked_by(&["LIBZ_SYS_STATIC"]);
static INFLATE: Probe = Probe::new(
    &ZLIB,
    "probe-zlib.c",
    "inflateInit2_",
    &["z"],
    "inflate in libz",
);

fn inflate_need() -> Need {
    Need {
        probe: &INFLATE,
        askers: vec![asker(
            "zlib = system",
            "DEMO_ZLIB_PROVIDER",
            "DEMO_ZLIB_PROVIDER=zlib-rs",
        )],
    }
}

fn dirs(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(d, f)| (d.to_string(), f.iter().map(|s| s.to_string()).collect()))
        .collect()
}

#[test]
fn a_sys_crate_library_is_probed_where_its_sys_crate_says() {
    let args = |env: &FakeEnv| {
        let found = locate(&ZLIB, &[inflate_need()], "demo", env).unwrap();
        let list = |d: &str| env.list_dir(d);
        (found.clone(), probe_args(&INFLATE, &found, &list).unwrap())
    };
    // The system library: nothing published but the headers, or nothing at all.
    let (found, a) = args(&FakeEnv::default());
    assert_eq!(
        (
            found.lib_dirs.is_empty(),
            found.link_mode,
            found.located_by.as_str(),
            found.own_copy
        ),
        (true, LinkMode::Dynamic, "libz-sys", false)
    );
    assert_eq!(a, ["-lz"]);
    // Built by the -sys crate itself: its root's lib/ holds only the archive.
    let mut env = FakeEnv {
        vars: vec![
            ("DEP_Z_INCLUDE", "/out/include".into()),
            ("DEP_Z_ROOT", "/out".into()),
        ],
        dirs: dirs(&[("/out/lib", &["libz.a", "pkgconfig"])]),
        ..FakeEnv::default()
    };
    let (found, a) = args(&env);
    assert_eq!(found.link_mode, LinkMode::Static);
    assert!(found.own_copy);
    assert_eq!(found.located_by, "libz-sys (built by it: DEP_Z_ROOT)");
    assert_eq!(
        found.recorded_lib_dirs,
        Some(vec!["libz-sys's OUT_DIR".to_string()])
    );
    assert_eq!(a, ["-I/out/include", "/out/lib/libz.a"]);
    // A shared library beside the archive: dynamic, from that directory.
    env.dirs = dirs(&[("/out/lib", &["libz.a", "libz.so", "libz.so.1"])]);
    let (found, a) = args(&env);
    assert_eq!(found.link_mode, LinkMode::Dynamic);
    assert_eq!(a, ["-I/out/include", "-L/out/lib", "-lz"]);
    // Several include directories, as zstd-sys publishes them.
    let env = FakeEnv {
        vars: vec![("DEP_Z_INCLUDE", "/a;/b".into())],
        ..FakeEnv::default()
    };
    assert_eq!(args(&env).1, ["-I/a", "-I/b", "-lz"]);
}

static LIBZSTD: PkgConfig = PkgConfig::new("libzstd");
static ZSTD: Library = Library::new("zstd", &LIBZSTD)
    .install(&[("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config")])
    .version(VersionCheck::minimum(ReadVersion::FOUND, "1.4.0").tested_up_to("1.5"));
static ZSTD_HEADERS: Library = Library::new("zstd", &LIBZSTD).version(VersionCheck::minimum(
    ReadVersion::macros(
        "zstd.h",
        &[
            "ZSTD_VERSION_MAJOR",
            "ZSTD_VERSION_MINOR",
            "ZSTD_VERSION_RELEASE",
        ],
    ),
    "1.4.0",
));
static COMPRESS: Probe = Probe::new(
    &ZSTD,
    "probe-zstd.c",
    "ZSTD_compress",
    &["zstd"],
    "compression in libzstd",
);

fn zstd_need(probe: &'static Probe) -> Vec<Need> {
    vec![Need {
        probe,
        askers: vec![asker(
            "compress = zstd",
            "DEMO_COMPRESS_PROVIDER",
            "DEMO_COMPRESS_PROVIDER=stored",
        )],
    }]
}

#[test]
fn a_library_found_by_pkg_config_with_its_version_checked() {
    let env = |version: &str| FakeEnv {
        pkg_config: Some(PkgConfigFound::new(
            vec![],
            vec!["/opt/zstd/lib".into()],
            version.into(),
        )),
        ..FakeEnv::default()
    };
    let found = locate(&ZSTD, &zstd_need(&COMPRESS), "demo", &env("1.5.4")).unwrap();
    assert_eq!(found.located_by, "pkg-config (libzstd)");
    assert_eq!(found.version.as_deref(), Some("1.5.4"));
    assert!(found.warnings.is_empty());
    let list = |_: &str| None;
    assert_eq!(
        probe_args(&COMPRESS, &found, &list).unwrap(),
        ["-L/opt/zstd/lib", "-lzstd"]
    );
    // Newer than the tested line: a warning; older than the minimum: the build error.
    let found = locate(&ZSTD, &zstd_need(&COMPRESS), "demo", &env("1.6.0")).unwrap();
    assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
    let e = locate(&ZSTD, &zstd_need(&COMPRESS), "demo", &env("1.3.8")).unwrap_err();
    for want in [
        "zstd version check failed: zstd 1.3.8 is too old: demo needs zstd 1.4.0 or newer",
        "located by pkg-config (libzstd); headers in (the compiler's default search path); library directories: /opt/zstd/lib",
        "asked for by: compress = zstd (DEMO_COMPRESS_PROVIDER)",
        "Debian/Ubuntu: apt-get install libzstd-dev pkg-config",
        "or do without zstd here: DEMO_COMPRESS_PROVIDER=stored",
    ] {
        assert!(e.contains(want), "{want:?} not in:\n{e}");
    }
    // No pkg-config module: the error says so, with pkg-config's words.
    let e = locate(&ZSTD, &zstd_need(&COMPRESS), "demo", &FakeEnv::default()).unwrap_err();
    assert!(
        e.starts_with("zstd could not be found: pkg-config knows no usable module libzstd"),
        "{e}"
    );
    assert!(e.contains("  | Package libzstd was not found"), "{e}");
    // The version from the headers, as the preprocessor expands the macros.
    static HEADERS_PROBE: Probe = Probe::new(
        &ZSTD_HEADERS,
        "probe-zstd.c",
        "ZSTD_compress",
        &["zstd"],
        "compression in libzstd",
    );
    let mut env = env("1.5.4");
    env.preprocessed = Some(
        "probed_version_component 1\nprobed_version_component 3\nprobed_version_component 8\n"
            .into(),
    );
    let e = locate(&ZSTD_HEADERS, &zstd_need(&HEADERS_PROBE), "demo", &env).unwrap_err();
    assert!(e.contains("zstd 1.3.8 is too old"), "{e}");
    env.preprocessed = None;
    let e = locate(&ZSTD_HEADERS, &zstd_need(&HEADERS_PROBE), "demo", &env).unwrap_err();
    assert!(
        e.contains("zstd's version could not be read (ZSTD_VERSION_MAJOR, ZSTD_VERSION_MINOR, ZSTD_VERSION_RELEASE in zstd.h)"),
        "{e}"
    );
    // The header missing is said as such, with the places searched and the install lines.
    env.missing_headers = vec!["zstd.h"];
    let e = locate(&ZSTD_HEADERS, &zstd_need(&HEADERS_PROBE), "demo", &env).unwrap_err();
    assert!(
        e.contains("zstd's header zstd.h was not found (searched the C compiler's default directories), so nothing of zstd can be compiled"),
        "{e}"
    );
    assert!(!e.contains("could not be read"), "{e}");
}

#[test]
fn a_generic_failure_has_the_same_form_with_the_library_s_own_fixes() {
    let need = inflate_need();
    let failure = ProbeFailure {
        probe: &INFLATE,
        located_by: "libz-sys".into(),
        lib_dirs: vec![],
        include_dirs: vec![],
        command: "cc probe-zlib.c -lz".into(),
        output: "cannot find -lz".into(),
    };
    assert_eq!(
        failure_message(&failure, &need),
        "zlib probe failed: inflate in libz (`inflateInit2_`) could not be compiled and linked from probe-zlib.c
  zlib located by: libz-sys; library directories tried: (the compiler's default search path); include directories: (the compiler's default search path)
  command: cc probe-zlib.c -lz
  | cannot find -lz
  asked for by: zlib = system (DEMO_ZLIB_PROVIDER)
  fix: install zlib's development files and pkg-config:
    Debian/Ubuntu: apt-get install zlib1g-dev pkg-config
    Fedora:        dnf install zlib-devel
  or do without zlib here: DEMO_ZLIB_PROVIDER=zlib-rs"
    );
}

/// The system libraries of a static OpenSSL depend on the target, not on the build machine.
#[test]
fn static_system_libraries_per_target() {
    let host = "x86_64-unknown-linux-gnu";
    assert_eq!(
        static_system_libs(&target("aarch64-unknown-linux-gnu", host)),
        ["-ldl", "-pthread"]
    );
    assert_eq!(
        static_system_libs(&target("armv7-unknown-linux-gnueabihf", host)),
        ["-ldl", "-pthread", "-latomic"]
    );
    assert_eq!(
        static_system_libs(&target("x86_64-pc-windows-gnu", host)),
        ["-lws2_32", "-lgdi32", "-ladvapi32", "-lcrypt32", "-luser32"]
    );
    assert!(static_system_libs(&target("aarch64-apple-darwin", host)).is_empty());
    assert_eq!(
        static_system_libs(&target("x86_64-unknown-freebsd", host)),
        ["-pthread"]
    );
}

#[test]
fn compiler_checks_for_foreign_targets() {
    let host = "x86_64-unknown-linux-gnu";
    let facts = |path: &str, named_by: Option<&str>| CompilerFacts {
        path: path.into(),
        msvc_like: path.ends_with("cl.exe"),
        clang_like: path.contains("clang"),
        named_by: named_by.map(String::from),
    };
    let native = target(host, host);
    let aarch64 = target("aarch64-unknown-linux-gnu", host);
    let msvc = target("x86_64-pc-windows-msvc", host);
    assert_eq!(check_compiler(&native, &facts("cc", None)), Ok(()));
    assert_eq!(
        check_compiler(&aarch64, &facts("aarch64-linux-gnu-gcc", None)),
        Ok(())
    );
    assert_eq!(check_compiler(&aarch64, &facts("clang", None)), Ok(()));
    // The host's cc for a foreign target is a guess: refused, unless the user named it.
    assert_eq!(
        check_compiler(&aarch64, &facts("cc", None)),
        Err(CompilerProblem::NoCrossCompiler { path: "cc".into() })
    );
    assert_eq!(
        check_compiler(
            &aarch64,
            &facts("/usr/bin/gcc", Some("CC_aarch64_unknown_linux_gnu"))
        ),
        Ok(())
    );
    // MSVC: refused whichever compiler cc picked.
    assert!(matches!(
        check_compiler(&msvc, &facts("cl.exe", None)),
        Err(CompilerProblem::Msvc { .. })
    ));
    assert!(matches!(
        check_compiler(&msvc, &facts("cc", None)),
        Err(CompilerProblem::Msvc { .. })
    ));
    assert_eq!(
        super::compiler::compiler_variables(&aarch64),
        [
            "CC_aarch64-unknown-linux-gnu",
            "CC_aarch64_unknown_linux_gnu",
            "TARGET_CC",
            "CC"
        ]
    );
    assert_eq!(super::compiler::compiler_variables(&native)[2], "HOST_CC");
}

#[test]
fn compiler_messages_say_why_and_how() {
    let aarch64 = target("aarch64-unknown-linux-gnu", "x86_64-unknown-linux-gnu");
    let m = compiler_message(
        &CompilerProblem::NotFound {
            path: "aarch64-linux-gnu-gcc".into(),
            reason: "No such file or directory (os error 2)".into(),
        },
        &aarch64,
        &sha1_need(),
    );
    for want in [
        "OpenSSL probe cannot run for target aarch64-unknown-linux-gnu (cross-compiling from x86_64-unknown-linux-gnu)",
        "`aarch64-linux-gnu-gcc`, could not be started",
        "apt-get install gcc-aarch64-linux-gnu",
        "CC_aarch64_unknown_linux_gnu=",
        "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR=/path",
        "never run the program",
        "sha1 = openssl (DEMO_SHA1_PROVIDER)",
        "DEMO_SHA1_PROVIDER=dc",
    ] {
        assert!(m.contains(want), "{want:?} not in:\n{m}");
    }
    let msvc = target("x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc");
    let m = compiler_message(
        &CompilerProblem::Msvc {
            path: "cl.exe".into(),
        },
        &msvc,
        &tls_need(),
    );
    assert!(m.contains("MSVC-style"), "{m}");
    assert!(m.contains("not run with it rather than guessed"), "{m}");
    assert!(m.contains("DEMO_TLS_PROVIDER=rustls"), "{m}");
    assert!(!m.contains("cross-compiling"), "{m}");
    let native = target("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu");
    let m = compiler_message(
        &CompilerProblem::NotFound {
            path: "cc".into(),
            reason: "No such file or directory (os error 2)".into(),
        },
        &native,
        &sha1_need(),
    );
    assert!(m.contains("apt-get install gcc"), "{m}");
}

#[test]
fn a_source_feature_alone_is_an_error_and_unused_a_warning() {
    let linking = ["openssl-hash", "openssl-tls"];
    let check = |on: &[&str], compiling: &[&str], selected| {
        source_feature_check(
            &OPENSSL,
            "openssl-vendored",
            on,
            compiling,
            &linking,
            selected,
        )
    };
    let err = check(&["rustls-tls"], &[], false).unwrap_err();
    assert!(err.contains("no OpenSSL provider is compiled"), "{err}");
    assert!(
        err.contains("(features on: rustls-tls openssl-vendored)"),
        "{err}"
    );
    assert!(
        err.contains("add the features you want it for (openssl-hash, openssl-tls), for example `--features openssl-vendored,openssl-hash`"),
        "{err}"
    );
    let err = check(&[], &[], false).unwrap_err();
    assert!(
        err.contains("(features on: (none) openssl-vendored)"),
        "{err}"
    );
    let warning = check(&["openssl-tls"], &["openssl-tls"], false)
        .unwrap()
        .unwrap();
    assert!(
        warning.contains("no selected provider uses OpenSSL (the openssl-tls providers"),
        "{warning}"
    );
    assert_eq!(check(&["openssl-tls"], &["openssl-tls"], true), Ok(None));
}

#[test]
fn failure_names_symbol_directory_requester_and_fixes() {
    let need = Need {
        probe: &SHA1,
        askers: vec![
            asker(
                "sha1 = openssl",
                "default with feature openssl-sha1",
                "DEMO_SHA1_PROVIDER=dc",
            ),
            asker(
                "sha1-unsafe = openssl",
                "default with feature openssl-sha1",
                "DEMO_SHA1_UNSAFE_PROVIDER=block",
            ),
        ],
    };
    let failure = ProbeFailure {
        probe: &SHA1,
        located_by: Location::OpensslDir("/opt/ossl".into()).to_string(),
        lib_dirs: vec!["/opt/ossl/lib".into()],
        include_dirs: vec!["/opt/ossl/include".into()],
        command: "cc probe-sha1.c -lcrypto".into(),
        output: "undefined reference to `SHA1_Init'".into(),
    };
    let m = failure_message(&failure, &need);
    for want in [
        "OpenSSL probe failed: SHA-1 digest in libcrypto (`SHA1_Init`)",
        "asked for by: sha1 = openssl (default with feature openssl-sha1); sha1-unsafe = openssl (default with feature openssl-sha1)",
        "library directories tried: /opt/ossl/lib",
        "apt-get install libssl-dev",
        "dnf install openssl-devel",
        "pacman -S openssl",
        "apk add openssl-dev",
        "OPENSSL_DIR=/path",
        "or do without OpenSSL here: DEMO_SHA1_PROVIDER=dc, DEMO_SHA1_UNSAFE_PROVIDER=block",
        "  | undefined reference",
    ] {
        assert!(m.contains(want), "{want:?} not in:\n{m}");
    }
}

// ---- a library found and linked by this crate (System) ------------------------------------

static SYSTEM_ZSTD_FINDER: System = System::new("libzstd", "ZSTD");
static SYSTEM_ZSTD: Library = Library::new("zstd", &SYSTEM_ZSTD_FINDER)
    .install(&[("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config")]);
static SYSTEM_COMPRESS: Probe = Probe::new(
    &SYSTEM_ZSTD,
    "probe-zstd.c",
    "ZSTD_compress",
    &["zstd"],
    "compression in libzstd",
);

fn system_env(triple: &str, host: &str, vars: &[(&'static str, &str)]) -> FakeEnv {
    FakeEnv {
        vars: vars.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        dirs: ["/a/lib", "/a/include", "/b/lib", "/b/include", "/s/lib"]
            .iter()
            .map(|d| {
                let files = if d.ends_with("lib") {
                    vec!["libzstd.so".to_string(), "libzstd.a".to_string()]
                } else {
                    vec!["zstd.h".to_string()]
                };
                (d.to_string(), files)
            })
            .collect(),
        target: target(triple, host),
        pkg_config: Some(PkgConfigFound::new(
            vec!["/pc/include".into()],
            vec!["/pc/lib".into()],
            "1.5.4".into(),
        )),
        ..FakeEnv::default()
    }
}

#[test]
fn a_system_library_is_found_by_pkg_config_and_linked_by_the_build_script() {
    let env = system_env("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", &[]);
    let found = locate(&SYSTEM_ZSTD, &zstd_need(&SYSTEM_COMPRESS), "demo", &env).unwrap();
    assert_eq!(found.located_by, "pkg-config (libzstd)");
    assert_eq!(found.version.as_deref(), Some("1.5.4"));
    assert_eq!(found.include_dirs, ["/pc/include"]);
    assert!(found.link_directives);
    assert_eq!(
        system::link_directives(&found, &["zstd"]),
        [
            "cargo:rustc-link-search=native=/pc/lib",
            "cargo:rustc-link-lib=zstd"
        ]
    );
    // The -sys crate finders leave linking to the -sys crate.
    let env = FakeEnv::default();
    let found = locate(&ZLIB, &[inflate_need()], "demo", &env).unwrap();
    assert!(!found.link_directives);
}

#[test]
fn a_system_library_s_variables_target_prefixed_first() {
    let vars: &[(&'static str, &str)] = &[
        ("AARCH64_UNKNOWN_LINUX_GNU_ZSTD_LIB_DIR", "/a/lib"),
        ("AARCH64_UNKNOWN_LINUX_GNU_ZSTD_INCLUDE_DIR", "/a/include"),
        ("ZSTD_LIB_DIR", "/b/lib"),
        ("ZSTD_INCLUDE_DIR", "/b/include"),
    ];
    let need = zstd_need(&SYSTEM_COMPRESS);
    // The target copy (TARGET aarch64, HOST x86_64) takes the aarch64 forms.
    let env = system_env(
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-gnu",
        vars,
    );
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.lib_dirs, ["/a/lib"]);
    assert_eq!(found.include_dirs, ["/a/include"]);
    assert_eq!(
        found.located_by,
        "AARCH64_UNKNOWN_LINUX_GNU_ZSTD_LIB_DIR=/a/lib AARCH64_UNKNOWN_LINUX_GNU_ZSTD_INCLUDE_DIR=/a/include"
    );
    // The host copy (a build-dependency: TARGET = HOST = x86_64) takes the plain forms.
    let env = system_env("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", vars);
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.lib_dirs, ["/b/lib"]);
    assert_eq!(found.version, None, "pkg-config was not asked");
    // A prefixed STATIC and LIBS apply to their target only.
    let vars: &[(&'static str, &str)] = &[
        ("AARCH64_UNKNOWN_LINUX_GNU_ZSTD_STATIC", "1"),
        ("AARCH64_UNKNOWN_LINUX_GNU_ZSTD_LIBS", "zstd:pthread"),
        ("ZSTD_LIB_DIR", "/s/lib"),
    ];
    let env = system_env(
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-gnu",
        vars,
    );
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.link_mode, LinkMode::Static);
    assert_eq!(
        found.libs.as_deref(),
        Some(&["zstd".to_string(), "pthread".to_string()][..])
    );
    let env = system_env("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", vars);
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.link_mode, LinkMode::Dynamic);
    assert_eq!(found.libs, None);
    assert_eq!(
        system::link_directives(&found, &["zstd"]),
        [
            "cargo:rustc-link-search=native=/s/lib",
            "cargo:rustc-link-lib=zstd"
        ]
    );
}

#[test]
fn a_system_library_without_pkg_config_static_and_with_its_own_libs() {
    let need = zstd_need(&SYSTEM_COMPRESS);
    let host = "x86_64-unknown-linux-gnu";
    // NO_PKG_CONFIG alone: the compiler's default directories.
    let env = system_env(host, host, &[("ZSTD_NO_PKG_CONFIG", "1")]);
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.located_by, "ZSTD_NO_PKG_CONFIG=1");
    assert!(found.lib_dirs.is_empty() && found.include_dirs.is_empty());
    // `0` says no.
    let env = system_env(
        host,
        host,
        &[("ZSTD_NO_PKG_CONFIG", "0"), ("ZSTD_STATIC", "0")],
    );
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(found.located_by, "pkg-config (libzstd)");
    assert_eq!(found.link_mode, LinkMode::Dynamic);
    // STATIC: the archive's path on the probe's command line, `static=` for rustc.
    let env = system_env(
        host,
        host,
        &[("ZSTD_LIB_DIR", "/s/lib"), ("ZSTD_STATIC", "1")],
    );
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    let list = |d: &str| env.list_dir(d);
    assert_eq!(
        probe_args(&SYSTEM_COMPRESS, &found, &list).unwrap(),
        ["/s/lib/libzstd.a"]
    );
    assert_eq!(
        system::link_directives(&found, &["zstd"]),
        [
            "cargo:rustc-link-search=native=/s/lib",
            "cargo:rustc-link-lib=static=zstd"
        ]
    );
    // LIBS replaces the probe's libraries.
    let env = system_env(
        host,
        host,
        &[("ZSTD_LIB_DIR", "/s/lib"), ("ZSTD_LIBS", "-lzstd, m")],
    );
    let found = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap();
    assert_eq!(
        probe_args(&SYSTEM_COMPRESS, &found, &list).unwrap(),
        ["-L/s/lib", "-lzstd", "-lm"]
    );
    assert_eq!(system::split_libs("ssl:crypto"), ["ssl", "crypto"]);
}

#[test]
fn a_system_library_not_found_says_how_to_name_it() {
    let need = zstd_need(&SYSTEM_COMPRESS);
    let host = "x86_64-unknown-linux-gnu";
    let mut env = system_env(host, host, &[]);
    env.pkg_config = None;
    let e = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap_err();
    for want in [
        "zstd could not be found: pkg-config knows no usable module libzstd",
        "  | Package libzstd was not found",
        "asked for by: compress = zstd (DEMO_COMPRESS_PROVIDER)",
        "Debian/Ubuntu: apt-get install libzstd-dev pkg-config",
        "or point pkg-config at an installation: PKG_CONFIG_PATH=/path/lib/pkgconfig",
        "or name the directories yourself: ZSTD_LIB_DIR=/path/lib ZSTD_INCLUDE_DIR=/path/include",
        "or do without zstd here: DEMO_COMPRESS_PROVIDER=stored",
    ] {
        assert!(e.contains(want), "{want:?} not in:\n{e}");
    }
    assert!(!e.contains("panicked"));
    assert!(!e.contains("or or "), "{e}");
    let env = system_env(host, host, &[("ZSTD_LIB_DIR", "/nowhere")]);
    let e = locate(&SYSTEM_ZSTD, &need, "demo", &env).unwrap_err();
    assert!(
        e.starts_with(
            "zstd could not be found: ZSTD_LIB_DIR=/nowhere is not a directory that can be read"
        ),
        "{e}"
    );
    assert_eq!(
        SYSTEM_ZSTD_FINDER.variables(),
        [
            "ZSTD_NO_PKG_CONFIG",
            "ZSTD_LIB_DIR",
            "ZSTD_INCLUDE_DIR",
            "ZSTD_LIBS",
            "ZSTD_STATIC"
        ]
    );
}

#[test]
fn the_graph_wide_link_policy_statics_a_system_library_and_stops_at_a_sys_crate() {
    use super::plan::locate_with;
    // probe::System: RUST_BACKEND_LINK=static asks pkg-config for a static answer and links the
    // archive; the library's own ZSTD_STATIC=0 wins.
    let mut env = system_env("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", &[]);
    let policy = Some(("static", "RUST_BACKEND_LINK=static"));
    let found = locate_with(
        &SYSTEM_ZSTD,
        &zstd_need(&SYSTEM_COMPRESS),
        "demo",
        &env,
        policy,
    )
    .unwrap();
    assert_eq!(found.link_mode, LinkMode::Static);
    env.vars.push(("ZSTD_STATIC", "0".into()));
    let found = locate_with(
        &SYSTEM_ZSTD,
        &zstd_need(&SYSTEM_COMPRESS),
        "demo",
        &env,
        policy,
    )
    .unwrap();
    assert_eq!(found.link_mode, LinkMode::Dynamic);
    // A -sys crate decides itself: a disagreement stops the build naming its switch.
    let e = locate_with(
        &ZLIB,
        &[inflate_need()],
        "demo",
        &FakeEnv::default(),
        policy,
    )
    .unwrap_err();
    assert!(
        e.starts_with("RUST_BACKEND_LINK=static asks for static linking, but libz-sys links zlib dynamically, and it decides"),
        "{e}"
    );
    assert!(
        e.contains("fix: set libz-sys's own switch for static linking: LIBZ_SYS_STATIC=1 (it then builds its bundled zlib and links it statically)\n  or scope the policy:"),
        "{e}"
    );
    assert!(
        !e.contains("or or") && !e.contains("LIBZ_SYS_STATIC=0"),
        "{e}"
    );
    // The other way round: a dynamic policy against libz-sys's bundled static copy names the
    // switch that makes it link the system's shared zlib.
    let bundled = FakeEnv {
        vars: vec![("DEP_Z_ROOT", "/out".into())],
        dirs: dirs(&[("/out/lib", &["libz.a"])]),
        ..FakeEnv::default()
    };
    let e = locate_with(
        &ZLIB,
        &[inflate_need()],
        "demo",
        &bundled,
        Some(("dynamic", "RUST_BACKEND_LINK=dynamic")),
    )
    .unwrap_err();
    assert!(
        e.contains("fix: set libz-sys's own switch for dynamic linking: unset LIBZ_SYS_STATIC or set it to 0"),
        "{e}"
    );
    let agree = Some(("dynamic", "RUST_BACKEND_LINK=dynamic"));
    assert!(locate_with(&ZLIB, &[inflate_need()], "demo", &FakeEnv::default(), agree).is_ok());
}

#[test]
#[cfg(feature = "build-script")]
fn a_bundled_copy_under_deny_names_the_sys_crate_s_switch() {
    let env = FakeEnv {
        vars: vec![("DEP_Z_ROOT", "/out".into())],
        dirs: dirs(&[("/out/lib", &["libz.a"])]),
        ..FakeEnv::default()
    };
    let found = locate(&ZLIB, &[inflate_need()], "demo", &env).unwrap();
    let (evidence, switch) = found.bundled.clone().unwrap();
    let denied = |origin| crate::PolicyChoice {
        value: "deny",
        origin,
    };
    let by_variable = denied(crate::Origin::Graph("RUST_BACKEND_BUNDLED".into()));
    let m = super::run::bundled_message(&ZLIB, &found, &evidence, &switch, &by_variable);
    assert_eq!(
        m,
        "libz-sys built its own copy of zlib (DEP_Z_ROOT is set), but RUST_BACKEND_BUNDLED=deny allows only the system's libraries
  fix: make libz-sys use the system's copy (its own switch: unset LIBZ_SYS_STATIC or set it to 0, and turn off its `static` feature), with zlib's development files installed (Debian/Ubuntu: apt-get install zlib1g-dev pkg-config; Fedora: dnf install zlib-devel)
  or allow bundled copies: unset RUST_BACKEND_BUNDLED (or set it to allow)"
    );
    // Unasked, in a crate from a registry: an error, with both ways out.
    let m = super::run::own_copy_message(&ZLIB, &found, "zlib-c", true);
    assert_eq!(
        m,
        "libz-sys built its own copy of zlib (it found no system zlib): the binaries link that copy statically, not the system's; zlib-c comes from a registry or git, whose build warnings Cargo shows to no one, so the substitution stops the build
  fix: install zlib's development files (Debian/Ubuntu: apt-get install zlib1g-dev pkg-config; Fedora: dnf install zlib-devel) and rebuild
  or, if the copy is wanted, say so: LIBZ_SYS_STATIC=1 (in the application's .cargo/config.toml [env], or the shell)"
    );
    assert!(
        !super::run::own_copy_message(&ZLIB, &found, "zlib-c", false).contains("stops the build")
    );
    let by_file = denied(crate::Origin::GraphFile {
        path: "/etc/b.toml".into(),
        line: 2,
        column: 11,
    });
    let m = super::run::bundled_message(&ZLIB, &found, &evidence, &switch, &by_file);
    assert!(
        m.ends_with(
            "or allow bundled copies: change /etc/b.toml:2:11 to bundled = \"allow\", or remove it"
        ),
        "{m}"
    );
}

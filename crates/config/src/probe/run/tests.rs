//! What `openssl-sys` publishes for each layout it searches, fed as `DEP_OPENSSL_*` through a fixed
//! environment, with directory listings that exist nowhere: the probes' `-I`, `-L`, link mode and
//! command arguments.

use std::process::Command;

use super::*;
use crate::clib::LinkMode;
use crate::probe::message::compiler_message;
use crate::probe::openssl::{Location, OpensslInputs, Plan, StaticProblem, Stop};
use crate::probe::tests::{fs, sha1_need, tls_need};
use crate::test_tables::demo_judge;

/// What openssl-sys published and the variables it reads, from `env`.
fn inputs(env: &Env) -> OpensslInputs {
    crate::probe::openssl::inputs(&ScriptEnv::new(env, &std::env::temp_dir()))
}

fn plan_of(
    inputs: &OpensslInputs,
    list: &impl Fn(&str) -> Option<Vec<String>>,
) -> Result<Plan, Stop> {
    crate::probe::openssl::plan(inputs, demo_judge, "demo", list)
}

/// The variables Cargo gives a build script for `triple` built on `host`, plus `extra`.
fn env(triple: &str, host: &str, extra: &[(&str, &str)]) -> Env {
    let parts: Vec<&str> = triple.split('-').collect();
    let os = match parts.get(2).copied().unwrap_or("") {
        "darwin" => "macos",
        other => other,
    };
    let target_env = parts.get(3).copied().unwrap_or("");
    let mut vars: Vec<(String, String)> = [
        ("TARGET", triple),
        ("HOST", host),
        ("CARGO_CFG_TARGET_ARCH", parts[0]),
        (
            "CARGO_CFG_TARGET_VENDOR",
            parts.get(1).copied().unwrap_or(""),
        ),
        ("CARGO_CFG_TARGET_OS", os),
        ("CARGO_CFG_TARGET_ENV", target_env),
        ("CARGO_CFG_TARGET_POINTER_WIDTH", "64"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Env::fixed(vars)
}

const LINUX: &str = "x86_64-unknown-linux-gnu";

/// What openssl-sys 0.9 publishes for an OpenSSL 3.3.2 whose headers are in `include`.
fn published(include: &str) -> Vec<(&'static str, String)> {
    vec![
        ("DEP_OPENSSL_INCLUDE", include.to_string()),
        ("DEP_OPENSSL_VERSION_NUMBER", "30300020".to_string()),
        ("DEP_OPENSSL_VERSION", "300".to_string()),
        (
            "DEP_OPENSSL_CONF",
            "OPENSSL_NO_IDEA,OPENSSL_NO_SSL3_METHOD".to_string(),
        ),
    ]
}

fn with<'a>(
    base: &'a [(&'static str, String)],
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut v: Vec<(&str, &str)> = base.iter().map(|(k, v)| (*k, v.as_str())).collect();
    v.extend_from_slice(extra);
    v
}

const BOTH: &[&str] = &[
    "libcrypto.a",
    "libcrypto.so",
    "libcrypto.so.3",
    "libssl.a",
    "libssl.so",
    "libssl.so.3",
    "pkgconfig",
];
const MAC: &[&str] = &[
    "libcrypto.3.dylib",
    "libcrypto.a",
    "libcrypto.dylib",
    "libssl.3.dylib",
    "libssl.a",
    "libssl.dylib",
    "pkgconfig",
];

fn needs() -> Vec<Need> {
    vec![sha1_need(), tls_need()]
}

/// A plan, with the probes' arguments and what the build options record.
struct Planned {
    plan: Plan,
    args: Vec<Vec<String>>,
    found: crate::clib::Found,
}

impl std::ops::Deref for Planned {
    type Target = Plan;
    fn deref(&self) -> &Plan {
        &self.plan
    }
}

/// What the build options record of a plan, as the old shape said it.
struct Recorded {
    located_by: String,
    lib_dirs: Vec<String>,
    static_link: bool,
    version: String,
}

impl Planned {
    fn found(&self) -> Recorded {
        let f = &self.found;
        Recorded {
            located_by: f.located_by.clone(),
            lib_dirs: f
                .recorded_lib_dirs
                .clone()
                .unwrap_or_else(|| f.lib_dirs.clone()),
            static_link: f.link_mode == LinkMode::Static,
            version: f.version.clone().unwrap_or_default(),
        }
    }
}

fn plan_for(env: &Env, list: &impl Fn(&str) -> Option<Vec<String>>) -> Planned {
    match plan_of(&inputs(env), list) {
        Ok(plan) => {
            let found = plan.found(&env.target());
            let args = needs()
                .iter()
                .map(|n| crate::probe::plan::probe_args(n.probe, &found, list).expect("arguments"))
                .collect();
            Planned { plan, args, found }
        }
        Err(stop) => panic!("no plan: {stop:?}"),
    }
}

/// The arguments of the SHA-1 and the TLS probe.
fn args(plan: &Planned) -> (Vec<String>, Vec<String>) {
    (plan.args[0].clone(), plan.args[1].clone())
}

/// A macOS prefix openssl-sys picked itself (Homebrew, MacPorts, pkgsrc): the headers it
/// published, the libraries beside them, dynamic unless OPENSSL_STATIC says otherwise.
fn check_macos_prefix(triple: &str, prefix: &str) {
    let include = format!("{prefix}/include");
    let lib = format!("{prefix}/lib");
    let base = published(&include);
    let list = fs(&[(&lib, MAC)]);
    let plan = plan_for(&env(triple, triple, &with(&base, &[])), &list);
    assert_eq!(plan.paths.location, Location::Search, "{prefix}");
    assert_eq!(plan.mode, LinkMode::Dynamic);
    let (sha1, tls) = args(&plan);
    assert_eq!(
        sha1,
        [
            format!("-I{include}"),
            format!("-L{lib}"),
            "-lcrypto".into()
        ]
    );
    assert_eq!(
        tls,
        [
            format!("-I{include}"),
            format!("-L{lib}"),
            "-lssl".into(),
            "-lcrypto".into()
        ]
    );
    assert_eq!(plan.found().located_by, "openssl-sys");
    assert_eq!(plan.found().lib_dirs, vec![lib.clone()]);
    // OPENSSL_STATIC=1: openssl-sys links the archives from there; macOS needs no extra libraries.
    let plan = plan_for(
        &env(triple, triple, &with(&base, &[("OPENSSL_STATIC", "1")])),
        &list,
    );
    assert_eq!(plan.mode, LinkMode::Static);
    let (sha1, tls) = args(&plan);
    assert_eq!(sha1, [format!("-I{include}"), format!("{lib}/libcrypto.a")]);
    assert_eq!(
        tls,
        [
            format!("-I{include}"),
            format!("{lib}/libssl.a"),
            format!("{lib}/libcrypto.a")
        ]
    );
}

#[test]
fn homebrew_on_intel() {
    check_macos_prefix("x86_64-apple-darwin", "/usr/local/opt/openssl@3");
}

#[test]
fn homebrew_on_apple_silicon() {
    check_macos_prefix("aarch64-apple-darwin", "/opt/homebrew/opt/openssl@3");
}

#[test]
fn macports() {
    check_macos_prefix("aarch64-apple-darwin", "/opt/local");
}

#[test]
fn pkgsrc() {
    check_macos_prefix("x86_64-apple-darwin", "/opt/pkg");
}

/// FreeBSD's base OpenSSL: openssl-sys takes /usr (no pkg-config file), and honours
/// OPENSSL_STATIC there.
#[test]
fn freebsd_base_system() {
    let triple = "x86_64-unknown-freebsd";
    let base = published("/usr/include");
    let list = fs(&[("/usr/lib", BOTH)]);
    let plan = plan_for(&env(triple, triple, &with(&base, &[])), &list);
    assert_eq!(plan.paths.location, Location::Search);
    assert_eq!(plan.mode, LinkMode::Dynamic);
    assert_eq!(args(&plan).0, ["-I/usr/include", "-L/usr/lib", "-lcrypto"]);
    let plan = plan_for(
        &env(triple, triple, &with(&base, &[("OPENSSL_STATIC", "1")])),
        &list,
    );
    assert_eq!(plan.mode, LinkMode::Static);
    assert_eq!(
        args(&plan).1,
        [
            "-I/usr/include",
            "/usr/lib/libssl.a",
            "/usr/lib/libcrypto.a",
            "-pthread"
        ]
    );
}

/// A `<TARGET>_OPENSSL_DIR` prefix for a cross build: its lib64/ and lib/ (both, as openssl-sys
/// takes them), the target's variables winning over the plain ones.
#[test]
fn target_prefixed_openssl_dir() {
    let triple = "aarch64-unknown-linux-gnu";
    let base = published("/cross/aarch64/include");
    let e = env(
        triple,
        LINUX,
        &with(
            &base,
            &[
                ("OPENSSL_DIR", "/usr"),
                ("AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR", "/cross/aarch64"),
                // Another target's variable is not this target's.
                ("X86_64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC", "1"),
            ],
        ),
    );
    let list = fs(&[
        ("/cross/aarch64/lib64", &["libcrypto.so", "libssl.so"][..]),
        ("/cross/aarch64/lib", &["engines-3"][..]),
        ("/usr/lib", BOTH),
    ]);
    let plan = plan_for(&e, &list);
    assert_eq!(
        plan.paths.location,
        Location::OpensslDir("/cross/aarch64".into())
    );
    assert_eq!(plan.mode, LinkMode::Dynamic);
    assert_eq!(
        args(&plan).0,
        [
            "-I/cross/aarch64/include",
            "-L/cross/aarch64/lib64",
            "-L/cross/aarch64/lib",
            "-lcrypto"
        ]
    );
    assert_eq!(plan.found().located_by, "OPENSSL_DIR=/cross/aarch64");
    // Both forms of each variable are recorded for rerun-if-env-changed; another target's not.
    let read = e.read_names();
    for name in [
        "OPENSSL_DIR",
        "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR",
        "OPENSSL_LIB_DIR",
        "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR",
        "OPENSSL_STATIC",
        "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC",
    ] {
        assert!(read.contains(name), "{name} not recorded: {read:?}");
    }
    assert!(!read.contains("X86_64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC"));
    // Cargo's own variables are not watched.
    assert!(!read.iter().any(|n| n.starts_with("DEP_")));
}

/// OPENSSL_LIB_DIR + OPENSSL_INCLUDE_DIR; the target-prefixed OPENSSL_LIB_DIR wins; a static
/// build takes the archives from there with the target's system libraries.
#[test]
fn lib_and_include_dirs() {
    let triple = "aarch64-unknown-linux-gnu";
    let base = published("/sys/include");
    let e = env(
        triple,
        LINUX,
        &with(
            &base,
            &[
                ("OPENSSL_LIB_DIR", "/host/lib"),
                (
                    "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR",
                    "/sys/lib/aarch64",
                ),
                ("OPENSSL_INCLUDE_DIR", "/sys/include"),
                ("AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC", "1"),
            ],
        ),
    );
    let list = fs(&[("/sys/lib/aarch64", BOTH)]);
    let plan = plan_for(&e, &list);
    assert_eq!(plan.paths.location, Location::LibAndIncludeDirs);
    assert_eq!(plan.mode, LinkMode::Static);
    assert_eq!(
        args(&plan).1,
        [
            "-I/sys/include",
            "/sys/lib/aarch64/libssl.a",
            "/sys/lib/aarch64/libcrypto.a",
            "-ldl",
            "-pthread"
        ]
    );
    assert_eq!(
        plan.found().located_by,
        "OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR"
    );
    assert!(plan.found().static_link);
}

/// Debian/Ubuntu: openssl-sys found OpenSSL through pkg-config in the system's directories. The
/// `pkg-config` crate it uses leaves out -L/usr/lib/<multiarch>; -I/usr/include it keeps (0.3.x
/// with `PKG_CONFIG_ALLOW_SYSTEM_CFLAGS`, as openssl-sys 0.9.118 publishes it) or leaves out too,
/// so DEP_OPENSSL_INCLUDE is /usr/include or absent: the compiler's default -L either way, and
/// no lib64/ or lib/ beside /usr/include.
#[test]
fn debian_pkg_config() {
    let list = fs(&[
        ("/usr/lib", &["x86_64-linux-gnu"][..]),
        ("/usr/lib64", &[][..]),
    ]);
    for include in [None, Some("/usr/include")] {
        let mut version = vec![("DEP_OPENSSL_VERSION_NUMBER", "30000130")];
        version.extend(include.map(|i| ("DEP_OPENSSL_INCLUDE", i)));
        let plan = plan_for(&env(LINUX, LINUX, &version), &list);
        assert_eq!(plan.paths.location, Location::PkgConfig, "{include:?}");
        assert!(plan.paths.lib_dirs.is_empty());
        assert_eq!(plan.mode, LinkMode::Dynamic);
        let i: Vec<String> = include.iter().map(|i| format!("-I{i}")).collect();
        let (sha1, tls) = args(&plan);
        assert_eq!(sha1, [i.clone(), vec!["-lcrypto".into()]].concat());
        assert_eq!(tls, [i, vec!["-lssl".into(), "-lcrypto".into()]].concat());
        let found = plan.found();
        assert_eq!(
            (found.version.as_str(), found.located_by.as_str()),
            ("3.0.19", "pkg-config")
        );
        assert!(found.lib_dirs.is_empty() && !found.static_link);
        // OPENSSL_STATIC there: the pkg-config crate would link dynamically anyway, an error.
        let mut asked = version.clone();
        asked.push(("OPENSSL_STATIC", "1"));
        let stop = plan_of(&inputs(&env(LINUX, LINUX, &asked)), &list);
        assert!(
            matches!(
                stop,
                Err(Stop::Static(StaticProblem::PkgConfigSystemDir { .. }))
            ),
            "{stop:?}"
        );
        // Likewise PKG_CONFIG_ALL_STATIC, unless OPENSSL_DYNAMIC.
        let mut all = version.clone();
        all.push(("PKG_CONFIG_ALL_STATIC", "1"));
        assert!(plan_of(&inputs(&env(LINUX, LINUX, &all)), &list).is_err());
        all.push(("OPENSSL_DYNAMIC", "1"));
        assert!(plan_of(&inputs(&env(LINUX, LINUX, &all)), &list).is_ok());
    }
    // A cross build's pkg-config below PKG_CONFIG_SYSROOT_DIR: the same.
    let triple = "aarch64-unknown-linux-gnu";
    let cross = [
        ("DEP_OPENSSL_VERSION_NUMBER", "30000130"),
        ("DEP_OPENSSL_INCLUDE", "/sysroot/aarch64/usr/include"),
        ("PKG_CONFIG_SYSROOT_DIR", "/sysroot/aarch64"),
    ];
    let plan = plan_for(&env(triple, LINUX, &cross), &list);
    assert_eq!(plan.paths.location, Location::PkgConfig);
    // With the directories named, openssl-sys honours OPENSSL_STATIC.
    let named = [
        ("DEP_OPENSSL_VERSION_NUMBER", "30000130"),
        ("DEP_OPENSSL_INCLUDE", "/usr/include"),
        ("OPENSSL_STATIC", "1"),
        ("OPENSSL_LIB_DIR", "/usr/lib/x86_64-linux-gnu"),
        ("OPENSSL_INCLUDE_DIR", "/usr/include"),
    ];
    let list = fs(&[("/usr/lib/x86_64-linux-gnu", BOTH)]);
    let plan = plan_for(&env(LINUX, LINUX, &named), &list);
    assert_eq!(plan.mode, LinkMode::Static);
    assert_eq!(
        args(&plan).0,
        [
            "-I/usr/include",
            "/usr/lib/x86_64-linux-gnu/libcrypto.a",
            "-ldl",
            "-pthread"
        ]
    );
}

/// openssl-sys's vendored build: it ignores OPENSSL_DIR and OPENSSL_LIB_DIR, and its lib/ holds
/// only archives, so it links statically without being asked.
#[test]
fn vendored() {
    let root = "/t/release/build/openssl-sys-0123/out/openssl-build/install";
    let include = format!("{root}/include");
    let mut base = published(&include);
    base.push(("DEP_OPENSSL_VENDORED", "1".into()));
    base.push(("DEP_OPENSSL_ROOT", root.into()));
    let e = env(
        LINUX,
        LINUX,
        &with(
            &base,
            &[
                ("OPENSSL_DIR", "/opt/ignored"),
                ("OPENSSL_LIB_DIR", "/ignored"),
            ],
        ),
    );
    let lib = format!("{root}/lib");
    let list = fs(&[(
        &lib,
        &["libcrypto.a", "libssl.a", "pkgconfig", "engines-3"][..],
    )]);
    let plan = plan_for(&e, &list);
    assert_eq!(plan.paths.location, Location::Vendored);
    assert_eq!(plan.mode, LinkMode::Static);
    assert_eq!(
        args(&plan).1,
        [
            format!("-I{include}"),
            format!("{lib}/libssl.a"),
            format!("{lib}/libcrypto.a"),
            "-ldl".into(),
            "-pthread".into()
        ]
    );
    let found = plan.found();
    assert_eq!(found.located_by, "vendored");
    assert_eq!(found.lib_dirs, ["openssl-sys's OUT_DIR"]);
    assert!(found.static_link);
}

/// Headers published in a place with no lib64/ or lib/ beside them: the compiler's default -L.
#[test]
fn no_library_directory_beside_the_headers() {
    let base = published("/usr/include/openssl11");
    let plan = plan_for(&env(LINUX, LINUX, &with(&base, &[])), &fs(&[]));
    assert_eq!(plan.paths.location, Location::Search);
    assert_eq!(args(&plan).0, ["-I/usr/include/openssl11", "-lcrypto"]);
}

/// The version is judged on what openssl-sys published, before anything is compiled.
#[test]
fn libressl_warns_and_boringssl_stops() {
    let libressl = [
        ("DEP_OPENSSL_INCLUDE", "/usr/local/include"),
        ("DEP_OPENSSL_VERSION_NUMBER", "20000000"),
        ("DEP_OPENSSL_LIBRESSL_VERSION_NUMBER", "3090200f"),
    ];
    let triple = "x86_64-unknown-openbsd";
    let plan = plan_for(
        &env(triple, triple, &libressl),
        &fs(&[("/usr/local/lib", BOTH)]),
    );
    assert!(
        plan.warning
            .as_deref()
            .unwrap_or_default()
            .contains("LibreSSL 3.9.2 is accepted but not tested")
    );
    assert_eq!(plan.found().version, "LibreSSL 3.9.2");
    let boring = [("DEP_OPENSSL_BORINGSSL", "true")];
    let stop = plan_of(&inputs(&env(LINUX, LINUX, &boring)), &fs(&[]));
    assert!(matches!(stop, Err(Stop::Version(r)) if r.contains("BoringSSL is not supported")));
}

#[test]
fn msvc_target_is_refused_before_anything_runs() {
    let e = env("x86_64-pc-windows-msvc", LINUX, &[]);
    match compiler(&e) {
        Err(CompilerProblem::Msvc { .. }) => {}
        other => panic!("expected an MSVC refusal, got {other:?}"),
    }
    assert!(e.read_names().contains("CC_x86_64_pc_windows_msvc"));
}

/// With no aarch64 cross compiler installed, the probe says which compiler it needed and how to
/// get one, instead of compiling with the host's compiler.
#[test]
fn missing_cross_compiler_is_named() {
    use std::io::Write;
    if Command::new("aarch64-linux-gnu-gcc")
        .arg("--version")
        .output()
        .is_ok()
    {
        // Straight to fd 2: the harness captures `eprintln!`, which would hide the line in a
        // passing run.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: missing_cross_compiler_is_named: aarch64-linux-gnu-gcc is installed here"
        );
        return;
    }
    let e = env("aarch64-unknown-linux-gnu", LINUX, &[]);
    let problem = match compiler(&e) {
        Ok(tool) => {
            // The cross compiler's name was chosen; running it fails.
            let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../compat/probe-sha1.c");
            match probe(&tool, &source, &std::env::temp_dir(), &["-lcrypto".into()]) {
                Err(ProbeError::Compiler(problem)) => problem,
                other => panic!("expected a compiler problem, got {other:?}"),
            }
        }
        Err(problem) => problem,
    };
    let m = compiler_message(&problem, &e.target(), &needs()[0]);
    assert!(
        m.contains("cannot run for target aarch64-unknown-linux-gnu"),
        "{m}"
    );
    assert!(m.contains("aarch64-linux-gnu-gcc"), "{m}");
    assert!(m.contains("apt-get install gcc-aarch64-linux-gnu"), "{m}");
}

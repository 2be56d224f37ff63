//! The pure half of the OpenSSL probes: which OpenSSL versions flagsplit accepts, where the
//! libraries are, whether `openssl-sys` links them statically, the compile-and-link command of a
//! probe for the target being built, and the message of every way this can fail.
//!
//! Nothing here reads the environment or runs anything: [`crate::script`] gathers the inputs
//! (through an injectable environment) and these functions decide, so every decision is
//! unit-tested with version numbers, foreign targets and directory listings as plain inputs.
//!
//! Supported OpenSSL (README, PACKAGING.md): **OpenSSL 1.1.1 to 3.x**. Older ones are refused
//! (1.1.0 and 1.0.2 are long out of support; `openssl-sys` itself refuses anything before 1.1.0).
//! OpenSSL 4 and later are accepted with a warning (not tested; the probes still check every
//! function flagsplit calls). **LibreSSL 3.5 or newer** (the oldest `openssl-sys` accepts) is
//! accepted with a warning: the probes pass on it, but flagsplit's tests do not run against it.
//! **BoringSSL and AWS-LC are refused**: they publish no version number to check a range
//! against and promise no stable API, and flagsplit is not tested with them.

use std::fmt;

use crate::model::{Capability, Facility, FeatureSet, Provider, Selection};

/// The target being built for, as Cargo describes it to build scripts (`TARGET`, `HOST` and
/// `CARGO_CFG_TARGET_*`), never the machine the build script runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetInfo {
    /// `TARGET`, for example `aarch64-unknown-linux-gnu`.
    pub triple: String,
    /// `HOST`: the triple of the machine running the build.
    pub host: String,
    /// `CARGO_CFG_TARGET_ARCH`.
    pub arch: String,
    /// `CARGO_CFG_TARGET_OS`.
    pub os: String,
    /// `CARGO_CFG_TARGET_ENV` (`gnu`, `musl`, `msvc`, or empty).
    pub env: String,
    /// `CARGO_CFG_TARGET_VENDOR`.
    pub vendor: String,
    /// `CARGO_CFG_TARGET_POINTER_WIDTH`.
    pub pointer_width: u32,
}

impl TargetInfo {
    /// Whether the build runs on another kind of machine than it builds for.
    pub fn is_cross(&self) -> bool {
        !self.host.is_empty() && self.triple != self.host
    }

    /// Whether the target's C toolchain is Microsoft's (`cl.exe`, `.lib` archives).
    pub fn is_msvc(&self) -> bool {
        self.env == "msvc"
    }
}

/// Where the OpenSSL that the probe (and `openssl-sys`) uses was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `OPENSSL_LIB_DIR` and `OPENSSL_INCLUDE_DIR`.
    LibAndIncludeDirs,
    /// `OPENSSL_DIR` (or its target-prefixed form).
    OpensslDir(String),
    /// pkg-config's `openssl` module.
    PkgConfig,
    /// Built from source by `openssl-sys`'s `vendored` feature (feature `openssl-vendored`).
    Vendored,
    /// Nothing said where; the compiler's default search paths.
    CompilerDefault,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::LibAndIncludeDirs => f.write_str("OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR"),
            Location::OpensslDir(dir) => write!(f, "OPENSSL_DIR={dir}"),
            Location::PkgConfig => f.write_str("pkg-config"),
            Location::Vendored => f.write_str("vendored"),
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

/// The OpenSSL variables as `openssl-sys` reads them: each is the target-prefixed form
/// (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`) when set, else the plain one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpensslVars {
    /// `OPENSSL_DIR`.
    pub dir: Option<String>,
    /// `OPENSSL_LIB_DIR`.
    pub lib_dir: Option<String>,
    /// `OPENSSL_INCLUDE_DIR`.
    pub include_dir: Option<String>,
    /// `OPENSSL_STATIC`, with `openssl-sys`'s meaning: `0` dynamic, any other value static.
    pub static_: Option<String>,
    /// `OPENSSL_NO_PKG_CONFIG` is set (read by the `pkg-config` crate).
    pub no_pkg_config: bool,
}

/// What `openssl-sys`'s build script published (`DEP_OPENSSL_*`): it ran first, and these say
/// what it actually found and built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpensslSysReport {
    /// `DEP_OPENSSL_VERSION_NUMBER`: OpenSSL's `OPENSSL_VERSION_NUMBER`, hexadecimal.
    pub version_number: Option<String>,
    /// `DEP_OPENSSL_LIBRESSL_VERSION_NUMBER`, hexadecimal.
    pub libressl_version_number: Option<String>,
    /// `DEP_OPENSSL_BORINGSSL` is set.
    pub boringssl: bool,
    /// `DEP_OPENSSL_AWSLC` is set.
    pub awslc: bool,
    /// `DEP_OPENSSL_VENDORED`: OpenSSL was built from source.
    pub vendored: bool,
    /// `DEP_OPENSSL_ROOT`: the vendored installation (its `lib/` and `include/`).
    pub root: Option<String>,
    /// `DEP_OPENSSL_INCLUDE`: the headers `openssl-sys` read the version from.
    pub include: Option<String>,
}

/// What pkg-config said about the `openssl` module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PkgConfigFound {
    /// `-L` directories (pkg-config leaves out the system's own).
    pub link_paths: Vec<String>,
    /// `-I` directories.
    pub include_paths: Vec<String>,
    /// The module's `libdir` variable, named in messages when `link_paths` is empty.
    pub libdir: Option<String>,
    /// The module's `includedir` variable.
    pub includedir: Option<String>,
}

/// Where OpenSSL is, decided the way `openssl-sys` decides it, in the same order: a vendored
/// build, then `OPENSSL_LIB_DIR` + `OPENSSL_INCLUDE_DIR`, then `OPENSSL_DIR` (with `lib64/` and
/// `lib/`), then pkg-config (unless `OPENSSL_NO_PKG_CONFIG`), then the compiler's defaults.
/// `pkg_config` is asked only when needed; `exists` tells whether a directory exists.
pub fn locate(
    vars: &OpensslVars,
    report: &OpensslSysReport,
    pkg_config: impl FnOnce() -> Option<PkgConfigFound>,
    exists: impl Fn(&str) -> bool,
) -> SearchPaths {
    if report.vendored
        && let Some(root) = &report.root
    {
        return SearchPaths {
            location: Location::Vendored,
            lib_dirs: vec![format!("{root}/lib")],
            include_dirs: vec![
                report
                    .include
                    .clone()
                    .unwrap_or_else(|| format!("{root}/include")),
            ],
        };
    }
    if let (Some(lib), Some(include)) = (&vars.lib_dir, &vars.include_dir) {
        return SearchPaths {
            location: Location::LibAndIncludeDirs,
            lib_dirs: vec![lib.clone()],
            include_dirs: vec![include.clone()],
        };
    }
    if let Some(dir) = &vars.dir {
        let lib_dirs = match &vars.lib_dir {
            Some(lib) => vec![lib.clone()],
            None => {
                let found: Vec<String> = ["lib64", "lib"]
                    .iter()
                    .map(|d| format!("{dir}/{d}"))
                    .filter(|d| exists(d))
                    .collect();
                if found.is_empty() {
                    vec![format!("{dir}/lib")] // named in the failure, as the directory tried
                } else {
                    found
                }
            }
        };
        return SearchPaths {
            location: Location::OpensslDir(dir.clone()),
            lib_dirs,
            include_dirs: vec![
                vars.include_dir
                    .clone()
                    .unwrap_or_else(|| format!("{dir}/include")),
            ],
        };
    }
    if !vars.no_pkg_config
        && let Some(found) = pkg_config()
    {
        let mut lib_dirs = found.link_paths.clone();
        if lib_dirs.is_empty() {
            // pkg-config leaves out -L for the system directory; name it anyway, so that a failure
            // says where the library was looked for.
            lib_dirs.extend(found.libdir.clone());
        }
        return SearchPaths {
            location: Location::PkgConfig,
            lib_dirs,
            include_dirs: found.include_paths,
        };
    }
    SearchPaths {
        location: Location::CompilerDefault,
        lib_dirs: Vec::new(),
        include_dirs: Vec::new(),
    }
}

// ---- versions -----------------------------------------------------------------------------

/// Which library `openssl-sys` found, with its version number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// OpenSSL, with `OPENSSL_VERSION_NUMBER`.
    Openssl(u64),
    /// LibreSSL, with `LIBRESSL_VERSION_NUMBER`.
    Libressl(u64),
    /// BoringSSL (no version number).
    Boringssl,
    /// AWS-LC (no version number).
    AwsLc,
}

impl Flavor {
    /// What `openssl-sys` reported, or `None` when it reported nothing usable.
    pub fn from_report(report: &OpensslSysReport) -> Option<Flavor> {
        let hex = |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
        if report.boringssl {
            Some(Flavor::Boringssl)
        } else if report.awslc {
            Some(Flavor::AwsLc)
        } else if let Some(n) = report.libressl_version_number.as_deref().and_then(hex) {
            Some(Flavor::Libressl(n))
        } else {
            report
                .version_number
                .as_deref()
                .and_then(hex)
                .map(Flavor::Openssl)
        }
    }

    /// The version as people write it: `3.0.19`, `1.1.1w`, `LibreSSL 3.9.2`, `BoringSSL`.
    pub fn version_text(self) -> String {
        match self {
            Flavor::Openssl(n) => openssl_number_text(n),
            Flavor::Libressl(n) => format!(
                "LibreSSL {}.{}.{}",
                n >> 28,
                (n >> 20) & 0xff,
                (n >> 12) & 0xff
            ),
            Flavor::Boringssl => "BoringSSL".into(),
            Flavor::AwsLc => "AWS-LC".into(),
        }
    }

    /// The library and version, for messages: `OpenSSL 1.1.0l`, `LibreSSL 3.9.2`.
    pub fn describe(self) -> String {
        match self {
            Flavor::Openssl(_) => format!("OpenSSL {}", self.version_text()),
            _ => self.version_text(),
        }
    }
}

/// The oldest OpenSSL flagsplit accepts: 1.1.1 (`OPENSSL_VERSION_NUMBER` 0x1010100f for the
/// release; its pre-releases count too). `TLS_client_method` needs 1.1.0; 1.1.0 has been out of
/// support since 2019 and no maintained distribution ships it.
pub const MIN_OPENSSL: u64 = 0x1010_1000;
/// The first OpenSSL version newer than the tested range (4.0.0).
pub const UNTESTED_OPENSSL: u64 = 0x4000_0000;
/// The oldest LibreSSL accepted: 3.5.0, the oldest `openssl-sys` accepts.
pub const MIN_LIBRESSL: u64 = 0x3050_0000;
/// The supported range, as the messages and the documentation say it.
pub const SUPPORTED_RANGE: &str = "OpenSSL 1.1.1 to 3.x (LibreSSL 3.5 or newer with a warning)";

/// What flagsplit makes of the OpenSSL `openssl-sys` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// In the supported range.
    Supported,
    /// Accepted, with a warning saying why it is not simply supported.
    Warn(String),
    /// Refused, with the reason (the headline of the build error).
    Refuse(String),
}

/// Judges a library and version against the supported range (see the module documentation).
pub fn judge(flavor: Option<Flavor>) -> Verdict {
    match flavor {
        None => Verdict::Refuse(
            "openssl-sys reported no OpenSSL version (DEP_OPENSSL_VERSION_NUMBER and DEP_OPENSSL_LIBRESSL_VERSION_NUMBER are unset), so the supported range cannot be checked".into(),
        ),
        Some(f @ Flavor::Openssl(n)) if n < MIN_OPENSSL => Verdict::Refuse(format!(
            "{} is too old: flagsplit needs OpenSSL 1.1.1 or newer (supported: {SUPPORTED_RANGE})",
            f.describe()
        )),
        Some(f @ Flavor::Openssl(n)) if n >= UNTESTED_OPENSSL => Verdict::Warn(format!(
            "{} is newer than the range flagsplit is tested with ({SUPPORTED_RANGE}); the probes checked every function flagsplit calls",
            f.describe()
        )),
        Some(Flavor::Openssl(_)) => Verdict::Supported,
        Some(f @ Flavor::Libressl(n)) if n < MIN_LIBRESSL => Verdict::Refuse(format!(
            "{} is too old: flagsplit needs LibreSSL 3.5.0 or newer (supported: {SUPPORTED_RANGE})",
            f.describe()
        )),
        Some(f @ Flavor::Libressl(_)) => Verdict::Warn(format!(
            "{} is accepted but not tested by flagsplit (supported: {SUPPORTED_RANGE}); the probes checked every function flagsplit calls",
            f.describe()
        )),
        Some(f @ (Flavor::Boringssl | Flavor::AwsLc)) => Verdict::Refuse(format!(
            "{} is not supported: it has no version number to check against the supported range ({SUPPORTED_RANGE}), promises no stable API, and flagsplit is not tested with it",
            f.describe()
        )),
    }
}

/// The build error for a refused OpenSSL: what was found, where, the minimum, who asked, the fix.
pub fn version_refusal(
    reason: &str,
    paths: &SearchPaths,
    report: &OpensslSysReport,
    selection: &Selection,
) -> String {
    let mut m = format!("OpenSSL version check failed: {reason}\n");
    m.push_str(&format!(
        "  found by openssl-sys: headers in {}; located by {}; library directories: {}\n",
        report
            .include
            .as_deref()
            .unwrap_or("(the compiler's default include path)"),
        paths.location,
        dirs(&paths.lib_dirs)
    ));
    m.push_str(&format!(
        "  asked for by: {}\n",
        asked_by(selection, &Facility::ALL)
    ));
    m.push_str("  fix: install OpenSSL 1.1.1 or newer (Debian 10+, Ubuntu 18.04+, RHEL 8+, current Fedora, Arch and Alpine ship 1.1.1 or 3.x) and point the build at it: OPENSSL_DIR=/path, or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR\n");
    m.push_str("  or build OpenSSL from source and link it statically: --features openssl-vendored (needs perl and make)\n");
    m.push_str(&format!(
        "  or do without OpenSSL here: {}",
        do_without(selection, &Facility::ALL)
    ));
    m
}

/// An OpenSSL version as `openssl-sys` reports it in `DEP_OPENSSL_VERSION_NUMBER` (hexadecimal
/// `OPENSSL_VERSION_NUMBER`), turned into the usual text: `3.0.19`, `1.1.1w`.
pub fn openssl_version_text(hex: &str) -> Option<String> {
    let n = u64::from_str_radix(hex.trim().trim_start_matches("0x"), 16).ok()?;
    Some(openssl_number_text(n))
}

fn openssl_number_text(n: u64) -> String {
    let major = n >> 28;
    if major >= 3 {
        // 0xMNN00PP0
        format!("{major}.{}.{}", (n >> 20) & 0xff, (n >> 4) & 0xff)
    } else {
        // 0xMNNFFPPS
        let patch = (n >> 4) & 0xff;
        let letter = match patch {
            0 => String::new(),
            1..=26 => char::from(b'a' + patch as u8 - 1).to_string(),
            _ => format!("-patch{patch}"),
        };
        format!("{major}.{}.{}{letter}", (n >> 20) & 0xff, (n >> 12) & 0xff)
    }
}

// ---- static or dynamic --------------------------------------------------------------------

/// How the OpenSSL libraries end up in the binaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkMode {
    /// `libcrypto.so`/`libssl.so`: listed in NEEDED.
    Dynamic,
    /// `libcrypto.a`/`libssl.a`: copied into the binary.
    Static,
}

/// The inputs of the link-mode decision besides the location.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkModeInputs {
    /// `OPENSSL_STATIC` as `openssl-sys` reads it (target-prefixed form first).
    pub openssl_static: Option<String>,
    /// The plain `OPENSSL_STATIC` is set (what the `pkg-config` crate reads).
    pub plain_openssl_static: bool,
    /// `OPENSSL_DYNAMIC` is set (`pkg-config` crate).
    pub openssl_dynamic: bool,
    /// `PKG_CONFIG_ALL_STATIC` is set (`pkg-config` crate).
    pub pkg_config_all_static: bool,
    /// The file names in the library directories.
    pub lib_files: Vec<String>,
    /// For pkg-config: `libssl.a` and `libcrypto.a` are in a `-L` directory outside the system
    /// root (`/usr`, or `PKG_CONFIG_SYSROOT_DIR`), the only place the `pkg-config` crate links
    /// a static library from.
    pub static_outside_system_root: bool,
}

/// Why the static build that was asked for would not be one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StaticProblem {
    /// pkg-config found OpenSSL in a system directory, where the `pkg-config` crate (which
    /// `openssl-sys` uses) links dynamically whatever `OPENSSL_STATIC` says.
    PkgConfigSystemDir {
        /// pkg-config's `libdir`.
        libdir: Option<String>,
        /// pkg-config's `includedir`.
        includedir: Option<String>,
    },
    /// A static library is not in the library directories.
    Missing {
        /// `libcrypto.a`, ...
        file: String,
        /// Where it was looked for.
        dirs: Vec<String>,
    },
    /// Static linking with no library directory to take the archives from.
    NoLibDir,
}

/// Whether `openssl-sys` links OpenSSL statically, decided as it decides: for explicit
/// directories and vendored builds `OPENSSL_STATIC` (`0` = dynamic, anything else = static), else
/// what the directory holds (only archives: static; otherwise dynamic); through pkg-config, what
/// the `pkg-config` crate does. A static build that was asked for but would silently come out
/// dynamic is an error.
pub fn link_mode(location: &Location, inputs: &LinkModeInputs) -> Result<LinkMode, StaticProblem> {
    let asked = inputs.openssl_static.as_deref().is_some_and(|v| v != "0");
    match location {
        Location::CompilerDefault if asked => Err(StaticProblem::NoLibDir),
        Location::CompilerDefault => Ok(LinkMode::Dynamic),
        Location::PkgConfig => {
            let crate_static = inputs.plain_openssl_static
                || (inputs.pkg_config_all_static && !inputs.openssl_dynamic);
            if crate_static && inputs.static_outside_system_root {
                Ok(LinkMode::Static)
            } else if asked || (inputs.pkg_config_all_static && !inputs.openssl_dynamic) {
                Err(StaticProblem::PkgConfigSystemDir {
                    libdir: None,
                    includedir: None,
                })
            } else {
                Ok(LinkMode::Dynamic)
            }
        }
        Location::LibAndIncludeDirs | Location::OpensslDir(_) | Location::Vendored => {
            match inputs.openssl_static.as_deref() {
                Some("0") => return Ok(LinkMode::Dynamic),
                Some(_) => return Ok(LinkMode::Static),
                None => {}
            }
            let has = |name: &str| inputs.lib_files.iter().any(|f| f == name);
            let libs = ["ssl", "crypto"];
            let can_static = libs
                .iter()
                .all(|l| has(&format!("lib{l}.a")) || has(&format!("{l}.lib")));
            let can_dylib = libs.iter().all(|l| {
                has(&format!("lib{l}.so"))
                    || has(&format!("{l}.dll"))
                    || has(&format!("lib{l}.dylib"))
            });
            Ok(if can_static && !can_dylib {
                LinkMode::Static
            } else {
                LinkMode::Dynamic
            })
        }
    }
}

/// The build error for a static build that cannot be one.
pub fn static_message(
    problem: &StaticProblem,
    paths: &SearchPaths,
    selection: &Selection,
) -> String {
    let mut m = String::new();
    match problem {
        StaticProblem::PkgConfigSystemDir { libdir, includedir } => {
            let lib = libdir.as_deref().unwrap_or("/usr/lib/<multiarch>");
            let include = includedir.as_deref().unwrap_or("/usr/include");
            m.push_str("OpenSSL static linking was asked for (OPENSSL_STATIC or PKG_CONFIG_ALL_STATIC), but it would not happen: pkg-config found OpenSSL in a system directory, and the pkg-config crate that openssl-sys uses links system libraries dynamically whatever OPENSSL_STATIC says; the binaries would list libcrypto.so in NEEDED\n");
            m.push_str(&format!(
                "  located by: {}; library directory: {lib}\n",
                paths.location
            ));
            m.push_str(&format!(
                "  fix: name the directories, so that openssl-sys honours OPENSSL_STATIC: OPENSSL_STATIC=1 OPENSSL_LIB_DIR={lib} OPENSSL_INCLUDE_DIR={include} (Debian/Ubuntu: libssl-dev has libcrypto.a and libssl.a)\n"
            ));
            m.push_str("  or build OpenSSL from source and link it statically: --features openssl-vendored\n");
            m.push_str(
                "  or unset OPENSSL_STATIC (and PKG_CONFIG_ALL_STATIC) for a dynamic build\n",
            );
        }
        StaticProblem::Missing { file, dirs: d } => {
            m.push_str(&format!(
                "OpenSSL static linking was asked for, but {file} is not in the library directories: {}\n",
                dirs(d)
            ));
            m.push_str(&format!("  located by: {}\n", paths.location));
            m.push_str("  fix: install OpenSSL's static libraries (Debian/Ubuntu: libssl-dev; Alpine: openssl-libs-static) and point OPENSSL_LIB_DIR at their directory\n");
            m.push_str("  or build OpenSSL from source and link it statically: --features openssl-vendored\n");
            m.push_str("  or unset OPENSSL_STATIC for a dynamic build\n");
        }
        StaticProblem::NoLibDir => {
            m.push_str("OpenSSL static linking was asked for, but no library directory is known to take libcrypto.a from\n");
            m.push_str(&format!("  located by: {}\n", paths.location));
            m.push_str("  fix: OPENSSL_STATIC=1 with OPENSSL_LIB_DIR and OPENSSL_INCLUDE_DIR (or OPENSSL_DIR), or --features openssl-vendored\n");
        }
    }
    m.push_str(&format!(
        "  asked for by: {}\n",
        asked_by(selection, &Facility::ALL)
    ));
    m.push_str(&format!(
        "  or do without OpenSSL here: {}",
        do_without(selection, &Facility::ALL)
    ));
    m
}

/// The system libraries a static libcrypto/libssl needs on `target` when nothing better is known
/// (pkg-config's `--static` output, see [`pkg_config_static_libs`], is preferred): threads and
/// `dlopen` on Linux, Windows' own libraries (as `openssl-sys` adds them), `libatomic` for
/// OpenSSL 3 on 32-bit Linux.
pub fn default_static_system_libs(target: &TargetInfo) -> Vec<String> {
    let mut libs: Vec<&str> = match target.os.as_str() {
        "linux" => vec!["-ldl", "-pthread"],
        "android" => vec!["-ldl"],
        "windows" => vec!["-lws2_32", "-lgdi32", "-ladvapi32", "-lcrypt32", "-luser32"],
        "macos" | "ios" | "tvos" | "watchos" | "visionos" => vec![],
        _ => vec!["-pthread"],
    };
    if matches!(target.os.as_str(), "linux" | "android") && target.pointer_width == 32 {
        libs.push("-latomic");
    }
    libs.into_iter().map(String::from).collect()
}

/// The extra libraries in `pkg-config --static --libs openssl` output: every `-l` other than
/// OpenSSL's own, and `-pthread`.
pub fn pkg_config_static_libs(output: &str) -> Vec<String> {
    let mut libs = Vec::new();
    for word in output.split_whitespace() {
        let keep = match word.strip_prefix("-l") {
            Some(lib) => !matches!(lib, "ssl" | "crypto"),
            None => word == "-pthread",
        };
        if keep && !libs.iter().any(|l| l == word) {
            libs.push(word.to_string());
        }
    }
    libs
}

/// What a probe passes to the compiler after the source: `-I` and `-L` directories, then the
/// libraries — `-lssl -lcrypto` for a dynamic build, the archives' paths and the system libraries
/// for a static one (the paths work with every Unix linker, where `-Bstatic` does not).
/// `exists` tells whether a file exists.
pub fn probe_args(
    capability: Capability,
    paths: &SearchPaths,
    mode: LinkMode,
    static_system_libs: &[String],
    exists: impl Fn(&str) -> bool,
) -> Result<Vec<String>, StaticProblem> {
    let mut args: Vec<String> = paths
        .include_dirs
        .iter()
        .map(|d| format!("-I{d}"))
        .collect();
    match mode {
        LinkMode::Dynamic => {
            args.extend(paths.lib_dirs.iter().map(|d| format!("-L{d}")));
            args.extend(capability.libraries().iter().map(|l| format!("-l{l}")));
        }
        LinkMode::Static => {
            if paths.lib_dirs.is_empty() {
                return Err(StaticProblem::NoLibDir);
            }
            for lib in capability.libraries() {
                let file = format!("lib{lib}.a");
                let found = paths
                    .lib_dirs
                    .iter()
                    .map(|d| format!("{d}/{file}"))
                    .find(|p| exists(p));
                match found {
                    Some(path) => args.push(path),
                    None => {
                        return Err(StaticProblem::Missing {
                            file,
                            dirs: paths.lib_dirs.clone(),
                        });
                    }
                }
            }
            args.extend(static_system_libs.iter().cloned());
        }
    }
    Ok(args)
}

// ---- the compiler -------------------------------------------------------------------------

/// The C compiler the `cc` crate picked for the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompilerFacts {
    /// Its path or name.
    pub path: String,
    /// It takes MSVC-style options (`cl.exe`, `clang-cl`).
    pub msvc_like: bool,
    /// It is Clang (which cross-compiles with `--target`, which `cc` passes).
    pub clang_like: bool,
    /// The variable that named it (`CC_aarch64_unknown_linux_gnu`, `TARGET_CC`, `CC`), if any.
    pub named_by: Option<String>,
}

/// Why a probe cannot run for this target, decided before running anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompilerProblem {
    /// An MSVC-style compiler: the probes use a GCC/Clang command line.
    Msvc {
        /// The compiler.
        path: String,
    },
    /// Cross-compiling, and `cc` knew no cross compiler for the target, so it fell back to the
    /// host's: the probe would compile for the wrong machine.
    NoCrossCompiler {
        /// The host compiler it fell back to.
        path: String,
    },
    /// The compiler could not be started (not installed).
    NotFound {
        /// The compiler.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// `cc` could not pick a compiler at all.
    NoCompiler {
        /// `cc`'s reason.
        reason: String,
    },
}

/// Checks, before running it, that `compiler` can compile and link a probe for `target`.
pub fn check_compiler(
    target: &TargetInfo,
    compiler: &CompilerFacts,
) -> Result<(), CompilerProblem> {
    if compiler.msvc_like || (target.is_msvc() && compiler.named_by.is_none()) {
        return Err(CompilerProblem::Msvc {
            path: compiler.path.clone(),
        });
    }
    if target.is_cross() && compiler.named_by.is_none() && !compiler.clang_like {
        let name = compiler
            .path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&compiler.path)
            .trim_end_matches(".exe");
        if matches!(name, "cc" | "gcc" | "c99") {
            return Err(CompilerProblem::NoCrossCompiler {
                path: compiler.path.clone(),
            });
        }
    }
    Ok(())
}

/// The variable names the `cc` crate reads for the target's C compiler, in its order.
pub fn compiler_variables(target: &TargetInfo) -> Vec<String> {
    vec![
        format!("CC_{}", target.triple),
        format!("CC_{}", target.triple.replace('-', "_")),
        if target.is_cross() {
            "TARGET_CC".to_string()
        } else {
            "HOST_CC".to_string()
        },
        "CC".to_string(),
    ]
}

/// The build error when the probe cannot run for this target: it says so instead of guessing.
pub fn compiler_message(
    problem: &CompilerProblem,
    target: &TargetInfo,
    capability: Capability,
    selection: &Selection,
) -> String {
    let cross = if target.is_cross() {
        format!(" (cross-compiling from {})", target.host)
    } else {
        String::new()
    };
    let underscored = target.triple.replace('-', "_");
    let prefix = crate::knobs::target_prefixed(&target.triple, "OPENSSL_DIR");
    let mut m = format!(
        "OpenSSL probe cannot run for target {}{cross}: {} (`{}`) must be compiled and linked from {} with the target's C compiler, and ",
        target.triple,
        capability.describe(),
        capability.symbol(),
        capability.source()
    );
    match problem {
        CompilerProblem::Msvc { path } => {
            m.push_str(&format!(
                "the compiler for this target, `{path}`, is MSVC-style (cl.exe options); flagsplit's probes are written for GCC/Clang-style compilers and are not run with it rather than guessed\n"
            ));
            m.push_str("  fix: build the OpenSSL providers with a GNU-style toolchain (the x86_64-pc-windows-gnu target with MinGW), or select providers that need no OpenSSL on this target\n");
        }
        CompilerProblem::NoCrossCompiler { path } => {
            m.push_str(&format!(
                "the cc crate knows no cross compiler for it and would fall back to the host's `{path}`, which builds for {}, not for {}\n",
                target.host, target.triple
            ));
            m.push_str(&cross_fix(target, &underscored, &prefix));
        }
        CompilerProblem::NotFound { path, reason } => {
            m.push_str(&format!(
                "the compiler the cc crate chose for it, `{path}`, could not be started: {reason}\n"
            ));
            m.push_str(&cross_fix(target, &underscored, &prefix));
        }
        CompilerProblem::NoCompiler { reason } => {
            m.push_str(&format!("the cc crate found no C compiler: {reason}\n"));
            m.push_str(&cross_fix(target, &underscored, &prefix));
        }
    }
    m.push_str("  (the probes only compile and link; they never run the program, so a cross toolchain is enough)\n");
    m.push_str(&format!(
        "  asked for by: {}\n",
        asked_by(selection, capability.facilities())
    ));
    m.push_str(&format!(
        "  or do without OpenSSL here: {}",
        do_without(selection, capability.facilities())
    ));
    m
}

fn cross_fix(target: &TargetInfo, underscored: &str, prefix: &str) -> String {
    let gnu_prefix = match (
        target.arch.as_str(),
        target.os.as_str(),
        target.env.as_str(),
    ) {
        (arch, "linux", "gnu") => Some(format!("{arch}-linux-gnu")),
        (arch, "linux", "musl") => Some(format!("{arch}-linux-musl")),
        (arch, "windows", "gnu") => Some(format!("{arch}-w64-mingw32")),
        _ => None,
    };
    let mut m = String::new();
    if target.is_cross() {
        match &gnu_prefix {
            Some(p) => m.push_str(&format!(
                "  fix: install a C cross compiler for {} (Debian/Ubuntu: apt-get install gcc-{}) or name one: CC_{underscored}=/path/to/{}-gcc\n",
                target.triple,
                p.replace('_', "-"),
                p
            )),
            None => m.push_str(&format!(
                "  fix: install a C cross compiler for {} and name it: CC_{underscored}=/path/to/compiler\n",
                target.triple
            )),
        }
        m.push_str(&format!(
            "  and an OpenSSL built for {}: {prefix}=/path (include/ and lib/), or PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files; or --features openssl-vendored\n",
            target.triple
        ));
    } else {
        m.push_str(&format!(
            "  fix: install a C compiler (Debian/Ubuntu: apt-get install gcc) or name one: CC=/path/to/cc (or CC_{underscored})\n"
        ));
    }
    m
}

// ---- openssl-vendored ---------------------------------------------------------------------

/// Feature `openssl-vendored` says where OpenSSL comes from, not what uses it. On its own (no
/// OpenSSL feature) it would compile nothing and silently change nothing: an error. With OpenSSL
/// features whose providers are all deselected, OpenSSL is built from source for nothing: a
/// warning.
pub fn vendored_check(
    features: FeatureSet,
    selection: &Selection,
) -> Result<Option<String>, String> {
    use crate::model::Feature;
    let openssl_features: Vec<Feature> = features
        .iter()
        .filter(|f| *f != Feature::RustlsTls)
        .collect();
    if openssl_features.is_empty() {
        return Err(format!(
            "feature `openssl-vendored` is on, but no OpenSSL provider is compiled (features on: {features} openssl-vendored)\n  openssl-vendored only says where OpenSSL comes from (built from source, linked statically); it selects nothing by itself\n  fix: add the OpenSSL features you want it for, for example `--features openssl-vendored,openssl-tls` (or openssl-sha1, openssl-md5), or drop openssl-vendored"
        ));
    }
    if selection.needed_capabilities().is_empty() {
        return Ok(Some(format!(
            "feature `openssl-vendored` builds OpenSSL from source, but no selected provider uses OpenSSL (the {} providers are compiled, not selected): the binaries link none of it",
            openssl_features
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(None)
}

// ---- a probe that compiled but did not link -----------------------------------------------

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

fn dirs(d: &[String]) -> String {
    if d.is_empty() {
        "(the compiler's default search path)".to_string()
    } else {
        d.join(", ")
    }
}

/// `sha1 = openssl (default with feature openssl-sha1); ...` for the facilities among `of` that
/// selected OpenSSL.
fn asked_by(selection: &Selection, of: &[Facility]) -> String {
    let mut asked = Vec::new();
    for facility in of {
        let choice = selection.get(*facility);
        if choice.provider == Provider::Openssl {
            asked.push(format!("{facility} = openssl ({})", choice.origin));
        }
    }
    asked.join("; ")
}

/// `FLAGSPLIT_SHA1_PROVIDER=dc, ...` for the facilities among `of` that selected OpenSSL.
fn do_without(selection: &Selection, of: &[Facility]) -> String {
    of.iter()
        .filter(|f| selection.provider(**f) == Provider::Openssl)
        .map(|f| alternative(*f))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The message that stops the build when a probe fails: which symbol, which directories, who asked,
/// and how to fix it.
pub fn failure_message(failure: &ProbeFailure, selection: &Selection) -> String {
    let cap = failure.capability;
    let mut m = String::new();
    m.push_str(&format!(
        "OpenSSL probe failed: {} (`{}`) could not be compiled and linked from {}\n",
        cap.describe(),
        cap.symbol(),
        cap.source()
    ));
    m.push_str(&format!(
        "  asked for by: {}\n",
        asked_by(selection, cap.facilities())
    ));
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
    m.push_str(&format!(
        "  or do without OpenSSL here: {}",
        do_without(selection, cap.facilities())
    ));
    m
}

fn alternative(facility: Facility) -> String {
    let other = facility
        .providers()
        .iter()
        .find(|p| **p != Provider::Openssl)
        .map_or("", |p| p.name());
    format!("{}={other}", facility.env_var())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Feature;
    use crate::{Choice, Origin};

    fn selection(sha1: Provider, md5: Provider, tls: Provider) -> Selection {
        let choice = |p: Provider, var: &'static str| Choice {
            provider: p,
            origin: if p == Provider::Openssl {
                Origin::Env(var)
            } else {
                Origin::Default
            },
        };
        Selection {
            choices: [
                choice(sha1, "FLAGSPLIT_SHA1_PROVIDER"),
                Choice::default_of(Provider::Block),
                choice(md5, "FLAGSPLIT_MD5_PROVIDER"),
                choice(tls, "FLAGSPLIT_TLS_PROVIDER"),
            ],
        }
    }

    fn target(triple: &str, host: &str) -> TargetInfo {
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

    #[test]
    fn versions() {
        assert_eq!(openssl_version_text("30000130").as_deref(), Some("3.0.19"));
        assert_eq!(openssl_version_text("30500010").as_deref(), Some("3.5.1"));
        assert_eq!(openssl_version_text("30600030").as_deref(), Some("3.6.3"));
        assert_eq!(openssl_version_text("1010117f").as_deref(), Some("1.1.1w"));
        assert_eq!(openssl_version_text("1010100f").as_deref(), Some("1.1.1"));
        assert_eq!(openssl_version_text("101000cf").as_deref(), Some("1.1.0l"));
        assert_eq!(openssl_version_text("zz"), None);
        assert_eq!(
            Flavor::Libressl(0x3090_200f).version_text(),
            "LibreSSL 3.9.2"
        );
        assert_eq!(Flavor::Openssl(0x1000_215f).describe(), "OpenSSL 1.0.2u");
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
            Flavor::from_report(&report(None, Some("3090200f"), false, false)),
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
        let Verdict::Refuse(reason) = judge(Some(Flavor::Openssl(0x1010_00cf))) else {
            unreachable!()
        };
        assert!(reason.contains("OpenSSL 1.1.0l is too old"), "{reason}");
        assert!(reason.contains("1.1.1 or newer"), "{reason}");
        let Verdict::Refuse(reason) = judge(Some(Flavor::Boringssl)) else {
            unreachable!()
        };
        assert!(reason.contains("BoringSSL is not supported"), "{reason}");
        let Verdict::Warn(w) = judge(Some(Flavor::Libressl(0x3090_200f))) else {
            unreachable!()
        };
        assert!(
            w.contains("LibreSSL 3.9.2 is accepted but not tested"),
            "{w}"
        );
    }

    #[test]
    fn version_refusal_says_what_where_minimum_and_fix() {
        let sel = selection(Provider::Openssl, Provider::Builtin, Provider::Openssl);
        let paths = SearchPaths {
            location: Location::LibAndIncludeDirs,
            lib_dirs: vec!["/opt/old/lib".into()],
            include_dirs: vec!["/opt/old/include".into()],
        };
        let report = OpensslSysReport {
            version_number: Some("101000cf".into()),
            include: Some("/opt/old/include".into()),
            ..OpensslSysReport::default()
        };
        let Verdict::Refuse(reason) = judge(Flavor::from_report(&report)) else {
            unreachable!()
        };
        let m = version_refusal(&reason, &paths, &report, &sel);
        for want in [
            "OpenSSL 1.1.0l is too old",
            "headers in /opt/old/include",
            "OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR",
            "/opt/old/lib",
            "needs OpenSSL 1.1.1 or newer",
            "sha1 = openssl (FLAGSPLIT_SHA1_PROVIDER)",
            "tls = openssl (FLAGSPLIT_TLS_PROVIDER)",
            "--features openssl-vendored",
            "FLAGSPLIT_SHA1_PROVIDER=dc",
            "FLAGSPLIT_TLS_PROVIDER=rustls",
        ] {
            assert!(m.contains(want), "{want:?} not in:\n{m}");
        }
        assert!(!m.contains("FLAGSPLIT_MD5_PROVIDER"), "{m}");
    }

    #[test]
    fn locate_follows_openssl_sys_order() {
        let none = || -> Option<PkgConfigFound> { panic!("pkg-config must not be asked") };
        let report = OpensslSysReport::default();
        // Vendored wins over everything.
        let vendored = OpensslSysReport {
            vendored: true,
            root: Some("/t/out/install".into()),
            include: Some("/t/out/install/include".into()),
            ..OpensslSysReport::default()
        };
        let vars = OpensslVars {
            dir: Some("/opt/ssl".into()),
            ..OpensslVars::default()
        };
        let p = locate(&vars, &vendored, none, |_| true);
        assert_eq!(p.location, Location::Vendored);
        assert_eq!(p.lib_dirs, ["/t/out/install/lib"]);
        assert_eq!(p.include_dirs, ["/t/out/install/include"]);
        // OPENSSL_LIB_DIR + OPENSSL_INCLUDE_DIR, then OPENSSL_DIR (lib64 before lib).
        let both = OpensslVars {
            dir: Some("/opt/ssl".into()),
            lib_dir: Some("/l".into()),
            include_dir: Some("/i".into()),
            ..OpensslVars::default()
        };
        let p = locate(&both, &report, none, |_| true);
        assert_eq!(
            (p.location, p.lib_dirs, p.include_dirs),
            (
                Location::LibAndIncludeDirs,
                vec!["/l".to_string()],
                vec!["/i".to_string()]
            )
        );
        let p = locate(&vars, &report, none, |d| d.ends_with("lib64"));
        assert_eq!(p.location, Location::OpensslDir("/opt/ssl".into()));
        assert_eq!(p.lib_dirs, ["/opt/ssl/lib64"]);
        assert_eq!(p.include_dirs, ["/opt/ssl/include"]);
        // pkg-config, naming its libdir when it gives no -L; OPENSSL_NO_PKG_CONFIG skips it.
        let found = PkgConfigFound {
            libdir: Some("/usr/lib/x86_64-linux-gnu".into()),
            ..PkgConfigFound::default()
        };
        let p = locate(
            &OpensslVars::default(),
            &report,
            || Some(found.clone()),
            |_| true,
        );
        assert_eq!(p.location, Location::PkgConfig);
        assert_eq!(p.lib_dirs, ["/usr/lib/x86_64-linux-gnu"]);
        let no_pc = OpensslVars {
            no_pkg_config: true,
            ..OpensslVars::default()
        };
        assert_eq!(
            locate(&no_pc, &report, none, |_| true).location,
            Location::CompilerDefault
        );
    }

    #[test]
    fn static_or_dynamic_as_openssl_sys_decides() {
        let files = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let dirs = Location::LibAndIncludeDirs;
        let inputs = |s: Option<&str>, f: &[&str]| LinkModeInputs {
            openssl_static: s.map(String::from),
            plain_openssl_static: s.is_some(),
            lib_files: files(f),
            ..LinkModeInputs::default()
        };
        let both = ["libssl.a", "libcrypto.a", "libssl.so", "libcrypto.so"];
        assert_eq!(
            link_mode(&dirs, &inputs(Some("1"), &both)),
            Ok(LinkMode::Static)
        );
        assert_eq!(
            link_mode(&dirs, &inputs(Some("yes"), &both)),
            Ok(LinkMode::Static)
        );
        assert_eq!(
            link_mode(&dirs, &inputs(Some(""), &both)),
            Ok(LinkMode::Static)
        );
        assert_eq!(
            link_mode(&dirs, &inputs(Some("0"), &both)),
            Ok(LinkMode::Dynamic)
        );
        assert_eq!(
            link_mode(&dirs, &inputs(None, &both)),
            Ok(LinkMode::Dynamic)
        );
        // Only archives (a vendored build, a static-only installation): static without asking.
        let archives = ["libssl.a", "libcrypto.a", "pkgconfig"];
        assert_eq!(
            link_mode(&Location::Vendored, &inputs(None, &archives)),
            Ok(LinkMode::Static)
        );
        assert_eq!(
            link_mode(&Location::OpensslDir("/o".into()), &inputs(None, &archives)),
            Ok(LinkMode::Static)
        );
        // pkg-config in a system directory: OPENSSL_STATIC would be silently ignored, so it is an
        // error; outside the system root the pkg-config crate links statically.
        let pc = Location::PkgConfig;
        assert_eq!(link_mode(&pc, &inputs(None, &[])), Ok(LinkMode::Dynamic));
        assert!(matches!(
            link_mode(&pc, &inputs(Some("1"), &[])),
            Err(StaticProblem::PkgConfigSystemDir { .. })
        ));
        let mut outside = inputs(Some("1"), &[]);
        outside.static_outside_system_root = true;
        assert_eq!(link_mode(&pc, &outside), Ok(LinkMode::Static));
        // Only the target-prefixed form set: openssl-sys asks for static, the pkg-config crate
        // does not see it.
        let prefixed_only = LinkModeInputs {
            openssl_static: Some("1".into()),
            static_outside_system_root: true,
            ..LinkModeInputs::default()
        };
        assert!(link_mode(&pc, &prefixed_only).is_err());
        assert_eq!(
            link_mode(&Location::CompilerDefault, &inputs(Some("1"), &[])),
            Err(StaticProblem::NoLibDir)
        );
    }

    #[test]
    fn static_messages_name_the_fix() {
        let sel = selection(Provider::Openssl, Provider::Builtin, Provider::Rustls);
        let paths = SearchPaths {
            location: Location::PkgConfig,
            lib_dirs: vec!["/usr/lib/x86_64-linux-gnu".into()],
            include_dirs: vec![],
        };
        let m = static_message(
            &StaticProblem::PkgConfigSystemDir {
                libdir: Some("/usr/lib/x86_64-linux-gnu".into()),
                includedir: Some("/usr/include".into()),
            },
            &paths,
            &sel,
        );
        assert!(
            m.contains("OPENSSL_STATIC=1 OPENSSL_LIB_DIR=/usr/lib/x86_64-linux-gnu OPENSSL_INCLUDE_DIR=/usr/include"),
            "{m}"
        );
        assert!(m.contains("libcrypto.so in NEEDED"), "{m}");
        assert!(m.contains("FLAGSPLIT_SHA1_PROVIDER=dc"), "{m}");
        let m = static_message(
            &StaticProblem::Missing {
                file: "libcrypto.a".into(),
                dirs: vec!["/opt/x/lib".into()],
            },
            &paths,
            &sel,
        );
        assert!(
            m.contains("libcrypto.a is not in the library directories: /opt/x/lib"),
            "{m}"
        );
    }

    #[test]
    fn probe_command_lines() {
        let paths = SearchPaths {
            location: Location::LibAndIncludeDirs,
            lib_dirs: vec!["/x/lib".into()],
            include_dirs: vec!["/x/include".into()],
        };
        let all = |_: &str| true;
        assert_eq!(
            probe_args(Capability::TlsClient, &paths, LinkMode::Dynamic, &[], all).unwrap(),
            ["-I/x/include", "-L/x/lib", "-lssl", "-lcrypto"]
        );
        let libs = vec!["-ldl".to_string(), "-pthread".to_string()];
        assert_eq!(
            probe_args(Capability::TlsClient, &paths, LinkMode::Static, &libs, all).unwrap(),
            [
                "-I/x/include",
                "/x/lib/libssl.a",
                "/x/lib/libcrypto.a",
                "-ldl",
                "-pthread"
            ]
        );
        assert_eq!(
            probe_args(Capability::Sha1Digest, &paths, LinkMode::Static, &libs, all).unwrap(),
            ["-I/x/include", "/x/lib/libcrypto.a", "-ldl", "-pthread"]
        );
        assert_eq!(
            probe_args(
                Capability::Md5Digest,
                &paths,
                LinkMode::Static,
                &[],
                |f: &str| !f.ends_with("libcrypto.a")
            ),
            Err(StaticProblem::Missing {
                file: "libcrypto.a".into(),
                dirs: vec!["/x/lib".into()]
            })
        );
        assert_eq!(
            pkg_config_static_libs("-lssl -ldl -pthread -lcrypto -ldl -pthread -lz \n"),
            ["-ldl", "-pthread", "-lz"]
        );
    }

    /// The system libraries of a static OpenSSL depend on the target, not on the build machine.
    #[test]
    fn static_system_libraries_per_target() {
        let host = "x86_64-unknown-linux-gnu";
        assert_eq!(
            default_static_system_libs(&target("aarch64-unknown-linux-gnu", host)),
            ["-ldl", "-pthread"]
        );
        assert_eq!(
            default_static_system_libs(&target("armv7-unknown-linux-gnueabihf", host)),
            ["-ldl", "-pthread", "-latomic"]
        );
        assert_eq!(
            default_static_system_libs(&target("x86_64-pc-windows-gnu", host)),
            ["-lws2_32", "-lgdi32", "-ladvapi32", "-lcrypt32", "-luser32"]
        );
        assert!(default_static_system_libs(&target("aarch64-apple-darwin", host)).is_empty());
        assert_eq!(
            default_static_system_libs(&target("x86_64-unknown-freebsd", host)),
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
            compiler_variables(&aarch64),
            [
                "CC_aarch64-unknown-linux-gnu",
                "CC_aarch64_unknown_linux_gnu",
                "TARGET_CC",
                "CC"
            ]
        );
        assert_eq!(compiler_variables(&native)[2], "HOST_CC");
    }

    #[test]
    fn compiler_messages_say_why_and_how() {
        let sel = selection(Provider::Openssl, Provider::Builtin, Provider::Rustls);
        let aarch64 = target("aarch64-unknown-linux-gnu", "x86_64-unknown-linux-gnu");
        let m = compiler_message(
            &CompilerProblem::NotFound {
                path: "aarch64-linux-gnu-gcc".into(),
                reason: "No such file or directory (os error 2)".into(),
            },
            &aarch64,
            Capability::Sha1Digest,
            &sel,
        );
        for want in [
            "OpenSSL probe cannot run for target aarch64-unknown-linux-gnu (cross-compiling from x86_64-unknown-linux-gnu)",
            "`aarch64-linux-gnu-gcc`, could not be started",
            "apt-get install gcc-aarch64-linux-gnu",
            "CC_aarch64_unknown_linux_gnu=",
            "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR=/path",
            "never run the program",
            "sha1 = openssl (FLAGSPLIT_SHA1_PROVIDER)",
            "FLAGSPLIT_SHA1_PROVIDER=dc",
        ] {
            assert!(m.contains(want), "{want:?} not in:\n{m}");
        }
        let msvc = target("x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc");
        let m = compiler_message(
            &CompilerProblem::Msvc {
                path: "cl.exe".into(),
            },
            &msvc,
            Capability::TlsClient,
            &selection(Provider::Dc, Provider::Builtin, Provider::Openssl),
        );
        assert!(m.contains("MSVC-style"), "{m}");
        assert!(m.contains("not run with it rather than guessed"), "{m}");
        assert!(m.contains("FLAGSPLIT_TLS_PROVIDER=rustls"), "{m}");
        assert!(!m.contains("cross-compiling"), "{m}");
    }

    #[test]
    fn vendored_alone_is_an_error_and_unused_a_warning() {
        let none = selection(Provider::Dc, Provider::Builtin, Provider::Rustls);
        let err = vendored_check(FeatureSet::DEFAULT, &none).unwrap_err();
        assert!(err.contains("no OpenSSL provider is compiled"), "{err}");
        assert!(
            err.contains("--features openssl-vendored,openssl-tls"),
            "{err}"
        );
        assert!(vendored_check(FeatureSet::EMPTY, &none).is_err());
        let tls = FeatureSet::EMPTY.with(Feature::OpensslTls);
        let warning = vendored_check(tls, &none).unwrap().unwrap();
        assert!(
            warning.contains("no selected provider uses OpenSSL"),
            "{warning}"
        );
        let used = selection(Provider::Dc, Provider::Builtin, Provider::Openssl);
        assert_eq!(vendored_check(tls, &used), Ok(None));
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

//! OpenSSL as `openssl-sys` found it, and what flagsplit checks on top: the supported version
//! range, a compile-and-link probe per capability the build needs, and whether a static build
//! really is one.
//!
//! `openssl-sys` runs first and publishes what it found (`DEP_OPENSSL_INCLUDE`,
//! `DEP_OPENSSL_VERSION_NUMBER`, `DEP_OPENSSL_VENDORED`, `DEP_OPENSSL_ROOT`, ...). Its search
//! (Homebrew, MacPorts and pkgsrc on macOS, pkg-config, vcpkg, `/usr` on the BSDs) is not repeated
//! here: the headers are the ones it published, and the libraries are taken from the variables it
//! reads and from beside those headers. It publishes no library directory and no link mode, so
//! those are derived the way it derives them (see [`search_paths`] and [`link_mode`]).
//!
//! This module decides, with the environment and the file system as plain inputs (a directory
//! listing function); `run` (feature `build-script`) reads them and runs the compiler.
//!
//! Supported OpenSSL (README, PACKAGING.md): **OpenSSL 1.1.1 to 3.x**. Older ones are refused
//! (1.1.0 and 1.0.2 are long out of support; `openssl-sys` itself refuses anything before 1.1.0).
//! OpenSSL 4 and later are accepted with a warning (not tested; the probes still check every
//! function flagsplit calls). **LibreSSL 3.5 or newer** (the oldest `openssl-sys` accepts) is
//! accepted with a warning: the probes pass on it, but flagsplit's tests do not run against it.
//! **BoringSSL and AWS-LC are refused**: they publish no version number to check a range
//! against and promise no stable API, and flagsplit is not tested with them.

use std::fmt;

pub mod library;
pub mod message;
#[cfg(feature = "build-script")]
pub mod run;

pub use library::{Finder, Library, OPENSSL, Probe};
pub use message::Message;
#[cfg(feature = "build-script")]
pub use run::setup;

// ---- what is asked for --------------------------------------------------------------------

/// Who asked for a probed library, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asker {
    /// What was selected: `sha1 = openssl`.
    pub what: String,
    /// Where the selection came from: `FLAGSPLIT_SHA1_PROVIDER`, `default with feature
    /// openssl-sha1`, `config.toml:3:12`.
    pub origin: String,
    /// The change that avoids the library: `FLAGSPLIT_SHA1_PROVIDER=dc`.
    pub instead: String,
}

/// A probe the build needs, and who asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// What to probe.
    pub probe: &'static Probe,
    /// Who asked (one line each in messages).
    pub askers: Vec<Asker>,
}

/// A [`Finder::Generic`] library the build probed, as recorded in the build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LibraryFound {
    /// The library's name (`zlib`).
    pub library: &'static str,
    /// How it was located: the `-sys` crate, and whether it built the library itself.
    pub located_by: String,
    /// Library directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Linked statically (only archives where the `-sys` crate built it).
    pub static_link: bool,
}

/// The OpenSSL the build found, as recorded in the build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpensslFound {
    /// Version text.
    pub version: String,
    /// How it was located.
    pub located_by: String,
    /// Library directories.
    pub lib_dirs: Vec<String>,
    /// Static linking.
    pub static_link: bool,
}

// ---- the target ---------------------------------------------------------------------------

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

// ---- what openssl-sys found ---------------------------------------------------------------

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
    /// `PKG_CONFIG_ALL_STATIC` is set and `OPENSSL_DYNAMIC` is not: the `pkg-config` crate's own
    /// way of asking for a static OpenSSL.
    pub pkg_config_all_static: bool,
    /// `PKG_CONFIG_SYSROOT_DIR` (or `SYSROOT`) as the `pkg-config` crate reads it: the root of
    /// the system directories it treats as the system's own.
    pub pkg_config_sysroot: Option<String>,
}

impl OpensslVars {
    /// Whether a static OpenSSL is asked for through `OPENSSL_STATIC`.
    pub fn static_asked(&self) -> bool {
        self.static_.as_deref().is_some_and(|v| v != "0")
    }
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
    /// `DEP_OPENSSL_INCLUDE`: the headers `openssl-sys` read the version from. Absent when it
    /// found OpenSSL through pkg-config in the system's directories (pkg-config leaves out
    /// `-I/usr/include`).
    pub include: Option<String>,
    /// `DEP_OPENSSL_CONF`: the `OPENSSL_NO_*` options of the headers, comma-separated.
    pub conf: Option<String>,
}

/// Everything the OpenSSL decisions read: the target, the variables, what `openssl-sys` published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpensslInputs {
    /// The target.
    pub target: TargetInfo,
    /// The variables `openssl-sys` (and the `pkg-config` crate) read.
    pub vars: OpensslVars,
    /// What `openssl-sys` published.
    pub report: OpensslSysReport,
}

/// How `openssl-sys` found OpenSSL, told from what it published and the variables it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Built from source by `openssl-sys`'s `vendored` feature (feature `openssl-vendored`).
    Vendored,
    /// `OPENSSL_LIB_DIR` and `OPENSSL_INCLUDE_DIR`.
    LibAndIncludeDirs,
    /// `OPENSSL_DIR` (or its target-prefixed form).
    OpensslDir(String),
    /// pkg-config, in the system's directories: `openssl-sys` published `/usr/include` (below
    /// the pkg-config sysroot, if any), or no include directory at all (older `pkg-config` crates
    /// leave the system's `-I` out). The libraries are then in the compiler's default path.
    PkgConfig,
    /// `openssl-sys`'s own search, which published the headers' directory: Homebrew, MacPorts or
    /// pkgsrc on macOS, pkg-config outside the system's directories, `/usr` on FreeBSD/OpenBSD.
    Search,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Vendored => f.write_str("vendored"),
            Location::LibAndIncludeDirs => f.write_str("OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR"),
            Location::OpensslDir(dir) => write!(f, "OPENSSL_DIR={dir}"),
            Location::PkgConfig => f.write_str("pkg-config"),
            Location::Search => f.write_str("openssl-sys"),
        }
    }
}

impl Location {
    /// How `openssl-sys` found OpenSSL. Vendored wins (it ignores the variables then); then the
    /// variables in its order; then which include directory it published.
    pub fn of(inputs: &OpensslInputs) -> Location {
        let (vars, report) = (&inputs.vars, &inputs.report);
        if report.vendored {
            Location::Vendored
        } else if vars.lib_dir.is_some() && vars.include_dir.is_some() {
            Location::LibAndIncludeDirs
        } else if let Some(dir) = &vars.dir {
            Location::OpensslDir(dir.clone())
        } else if system_include(inputs) {
            Location::PkgConfig
        } else {
            Location::Search
        }
    }
}

/// Whether the published include directory is the system's (`<sysroot>/usr/include`, or none),
/// where only pkg-config leads `openssl-sys`: it takes `/usr` without pkg-config only for native
/// FreeBSD, OpenBSD and AIX builds.
fn system_include(inputs: &OpensslInputs) -> bool {
    let Some(include) = &inputs.report.include else {
        return true;
    };
    let target = &inputs.target;
    let usr_without_pkg_config =
        !target.is_cross() && matches!(target.os.as_str(), "freebsd" | "openbsd" | "aix");
    let sysroot = inputs.vars.pkg_config_sysroot.as_deref().unwrap_or("");
    let system = format!("{}/usr/include", sysroot.trim_end_matches('/'));
    include.trim_end_matches('/') == system && !usr_without_pkg_config
}

/// The directories a probe compiles and links against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchPaths {
    /// How they were found.
    pub location: Location,
    /// `-L` directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// `-I` directories; none: the compiler's default.
    pub include_dirs: Vec<String>,
}

/// Lists a directory: the names of its entries, or `None` when it does not exist. Injected, so
/// that the decisions are tested with layouts that exist nowhere.
pub trait ListDir: Fn(&str) -> Option<Vec<String>> {}
impl<F: Fn(&str) -> Option<Vec<String>>> ListDir for F {}

fn parent(dir: &str) -> Option<&str> {
    let dir = dir.trim_end_matches('/');
    dir.rfind('/').map(|i| if i == 0 { "/" } else { &dir[..i] })
}

pub(crate) fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// `lib64/` and `lib/` of `prefix` that exist, both when both do (as `openssl-sys` takes them).
pub(crate) fn lib_dirs_of(prefix: &str, list: &impl ListDir) -> Vec<String> {
    ["lib64", "lib"]
        .iter()
        .map(|d| join(prefix, d))
        .filter(|d| list(d).is_some())
        .collect()
}

/// Where the probes look. `-I`: the directory `openssl-sys` published (`DEP_OPENSSL_INCLUDE`),
/// else the compiler's default. `-L`: for a vendored build `DEP_OPENSSL_ROOT/lib` (`openssl-sys`
/// ignores the variables then); else `OPENSSL_LIB_DIR`; else `OPENSSL_DIR`'s `lib64/` and `lib/`;
/// else, unless pkg-config found OpenSSL in the system's directories (see [`Location::PkgConfig`]),
/// `lib64/` and `lib/` beside the published include directory; else the compiler's default.
pub fn search_paths(inputs: &OpensslInputs, list: &impl ListDir) -> SearchPaths {
    let (vars, report) = (&inputs.vars, &inputs.report);
    let location = Location::of(inputs);
    let include_dirs: Vec<String> = report.include.iter().cloned().collect();
    let lib_dirs = if let (Location::Vendored, Some(root)) = (&location, &report.root) {
        vec![join(root, "lib")]
    } else if let Some(lib) = &vars.lib_dir {
        vec![lib.clone()]
    } else if let Some(dir) = &vars.dir {
        lib_dirs_of(dir, list)
    } else if let (Location::Search, Some(prefix)) =
        (&location, report.include.as_deref().and_then(parent))
    {
        lib_dirs_of(prefix, list)
    } else {
        Vec::new()
    };
    SearchPaths {
        location,
        lib_dirs,
        include_dirs,
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

/// Why the static build that was asked for would not be one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StaticProblem {
    /// pkg-config found OpenSSL in the system's directories, where the `pkg-config` crate (which
    /// `openssl-sys` uses) links dynamically whatever `OPENSSL_STATIC` says.
    PkgConfigSystemDir {
        /// The directory holding the libraries (asked from the compiler), for the fix.
        libdir: Option<String>,
        /// The directory holding `openssl/` (asked from the compiler), for the fix.
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

/// Whether `openssl-sys` links OpenSSL statically, decided as it decides: through pkg-config in
/// the system's directories always dynamically (so a static build asked for there is an error);
/// otherwise `OPENSSL_STATIC` (`0` = dynamic, anything else = static), else what the library
/// directories hold (only archives: static; otherwise dynamic).
pub fn link_mode(
    inputs: &OpensslInputs,
    paths: &SearchPaths,
    list: &impl ListDir,
) -> Result<LinkMode, StaticProblem> {
    let vars = &inputs.vars;
    if paths.location == Location::PkgConfig {
        return if vars.static_asked() || vars.pkg_config_all_static {
            Err(StaticProblem::PkgConfigSystemDir {
                libdir: None,
                includedir: None,
            })
        } else {
            Ok(LinkMode::Dynamic)
        };
    }
    match vars.static_.as_deref() {
        Some("0") => return Ok(LinkMode::Dynamic),
        Some(_) if paths.lib_dirs.is_empty() => return Err(StaticProblem::NoLibDir),
        Some(_) => return Ok(LinkMode::Static),
        None => {}
    }
    let files: Vec<String> = paths
        .lib_dirs
        .iter()
        .filter_map(|d| list(d))
        .flatten()
        .collect();
    let has = |name: String| files.contains(&name);
    let libs = ["ssl", "crypto"];
    let can_static = libs
        .iter()
        .all(|l| has(format!("lib{l}.a")) || has(format!("{l}.lib")));
    let can_dylib = libs.iter().all(|l| {
        has(format!("lib{l}.so")) || has(format!("{l}.dll")) || has(format!("lib{l}.dylib"))
    });
    Ok(if can_static && !can_dylib {
        LinkMode::Static
    } else {
        LinkMode::Dynamic
    })
}

/// The system libraries a static libcrypto/libssl needs on `target`: threads and `dlopen` on
/// Linux, Windows' own libraries (as `openssl-sys` adds them), `libatomic` for OpenSSL 3 on
/// 32-bit Linux.
pub fn static_system_libs(target: &TargetInfo) -> Vec<String> {
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

/// What a probe passes to the compiler after the source: `-I` and `-L` directories, then the
/// libraries — `-lssl -lcrypto` for a dynamic build, the archives' paths and the system libraries
/// for a static one (the paths work with every Unix linker, where `-Bstatic` does not).
pub fn probe_args(
    probe: &Probe,
    paths: &SearchPaths,
    mode: LinkMode,
    static_system_libs: &[String],
    list: &impl ListDir,
) -> Result<Vec<String>, StaticProblem> {
    let mut args: Vec<String> = paths
        .include_dirs
        .iter()
        .map(|d| format!("-I{d}"))
        .collect();
    match mode {
        LinkMode::Dynamic => {
            args.extend(paths.lib_dirs.iter().map(|d| format!("-L{d}")));
            args.extend(probe.link.iter().map(|l| format!("-l{l}")));
        }
        LinkMode::Static => {
            if paths.lib_dirs.is_empty() {
                return Err(StaticProblem::NoLibDir);
            }
            for lib in probe.link {
                let file = format!("lib{lib}.a");
                let dir = paths
                    .lib_dirs
                    .iter()
                    .find(|d| list(d).is_some_and(|names| names.contains(&file)));
                match dir {
                    Some(dir) => args.push(join(dir, &file)),
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

/// Why the OpenSSL checks stop before any probe runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The version is refused: the reason.
    Version(String),
    /// The static build asked for would not be one.
    Static(StaticProblem),
}

/// Everything decided before the compiler runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Where the probes look.
    pub paths: SearchPaths,
    /// What `openssl-sys` found.
    pub flavor: Option<Flavor>,
    /// A warning about the version, when accepted with one.
    pub warning: Option<String>,
    /// Static or dynamic.
    pub mode: LinkMode,
    /// The compiler arguments after the source, per probe, in the order needed.
    pub probes: Vec<(&'static Probe, Vec<String>)>,
}

/// The decisions in order: where, which version, static or dynamic, each probe's arguments.
pub fn plan(inputs: &OpensslInputs, needs: &[Need], list: &impl ListDir) -> Result<Plan, Stop> {
    let paths = search_paths(inputs, list);
    let flavor = Flavor::from_report(&inputs.report);
    let warning = match judge(flavor) {
        Verdict::Supported => None,
        Verdict::Warn(w) => Some(w),
        Verdict::Refuse(reason) => return Err(Stop::Version(reason)),
    };
    let mode = link_mode(inputs, &paths, list).map_err(Stop::Static)?;
    let system_libs = match mode {
        LinkMode::Static => static_system_libs(&inputs.target),
        LinkMode::Dynamic => Vec::new(),
    };
    let mut probes = Vec::new();
    for need in needs {
        let args =
            probe_args(need.probe, &paths, mode, &system_libs, list).map_err(Stop::Static)?;
        probes.push((need.probe, args));
    }
    Ok(Plan {
        paths,
        flavor,
        warning,
        mode,
        probes,
    })
}

impl Plan {
    /// What the build options record. A vendored build's directory is inside the target
    /// directory, and would make the binary depend on where it was built: it is not recorded.
    pub fn found(&self) -> OpensslFound {
        OpensslFound {
            version: self
                .flavor
                .map_or_else(|| "unknown".to_string(), Flavor::version_text),
            located_by: self.paths.location.to_string(),
            lib_dirs: match self.paths.location {
                Location::Vendored => vec!["openssl-sys's OUT_DIR".to_string()],
                _ => self.paths.lib_dirs.clone(),
            },
            static_link: self.mode == LinkMode::Static,
        }
    }
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

/// A probe that did not compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeFailure {
    /// What was probed.
    pub probe: &'static Probe,
    /// How the library was located (OpenSSL's [`Location`], or the `-sys` crate).
    pub located_by: String,
    /// `-L` directories tried; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// `-I` directories tried; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// The compiler command line, for reproducing it by hand.
    pub command: String,
    /// The last lines of the compiler's output.
    pub output: String,
}

// ---- openssl-vendored ---------------------------------------------------------------------

/// Feature `openssl-vendored` says where OpenSSL comes from, not what uses it. On its own (no
/// feature compiles an OpenSSL provider) it would compile nothing and silently change nothing:
/// an error. With OpenSSL providers compiled but none selected, OpenSSL is built from source for
/// nothing: a warning. `features_on` names every feature on besides `openssl-vendored`;
/// `openssl_features_on` those among them that compile an OpenSSL provider.
pub fn vendored_check(
    features_on: &[&str],
    openssl_features_on: &[&str],
    openssl_selected: bool,
) -> Result<Option<String>, String> {
    if openssl_features_on.is_empty() {
        let on = crate::model::names_or_none(features_on);
        return Err(Message::new(format!(
            "feature `openssl-vendored` is on, but no OpenSSL provider is compiled (features on: {on} openssl-vendored)"
        ))
        .tried("openssl-vendored only says where OpenSSL comes from (built from source, linked statically); it selects nothing by itself")
        .fix("add the OpenSSL features you want it for, for example `--features openssl-vendored,openssl-tls` (or openssl-sha1, openssl-md5, openssl-sha256), or drop openssl-vendored")
        .render());
    }
    if !openssl_selected {
        return Ok(Some(format!(
            "feature `openssl-vendored` builds OpenSSL from source, but no selected provider uses OpenSSL (the {} providers are compiled, not selected): the binaries link none of it",
            openssl_features_on.join(", ")
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests;

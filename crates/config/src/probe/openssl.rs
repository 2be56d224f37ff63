//! OpenSSL as `openssl-sys` found it ([`OpensslSys`]): its search is not repeated, what it
//! published is checked: the version (against the declaring crate's own policy, its judge), the
//! static build it was asked for, and the directories the probes compile and link against.
//!
//! `openssl-sys` runs first and publishes what it found (`DEP_OPENSSL_INCLUDE`,
//! `DEP_OPENSSL_VERSION_NUMBER`, `DEP_OPENSSL_VENDORED`, `DEP_OPENSSL_ROOT`, ...). Its search
//! (Homebrew, MacPorts and pkgsrc on macOS, pkg-config, vcpkg, `/usr` on the BSDs) is not repeated
//! here: the headers are the ones it published, and the libraries are taken from the variables it
//! reads and from beside those headers. It publishes no library directory and no link mode, so
//! those are derived the way it derives them.
//!
//! The crate that declares the library says which versions it accepts, in its own words:
//!
//! ```
//! use flagsplit_config::probe::openssl::{Flavor, OpensslSys, Verdict};
//! use flagsplit_config::clib::Library;
//!
//! fn judge(found: Option<Flavor>, who: &str) -> Verdict {
//!     match found {
//!         Some(f @ Flavor::Openssl(n)) if n < 0x1010_1000 => {
//!             Verdict::Refuse(format!("{} is too old: {who} needs OpenSSL 1.1.1 or newer", f.describe()))
//!         }
//!         Some(Flavor::Openssl(_)) => Verdict::Supported,
//!         Some(f) => Verdict::Refuse(format!("{} is not supported by {who}", f.describe())),
//!         None => Verdict::Refuse("openssl-sys reported no version".into()),
//!     }
//! }
//!
//! static OPENSSL_SYS: OpensslSys = OpensslSys::new(judge);
//! static OPENSSL: Library = Library::new("OpenSSL", &OPENSSL_SYS)
//!     .install(&[("Debian/Ubuntu", "apt-get install libssl-dev pkg-config")]);
//! ```
//!
//! The package whose build script probes must depend on `openssl-sys` directly: Cargo gives a
//! crate's `DEP_OPENSSL_*` metadata only to its direct dependents.

// `#[inline]` on the finders' functions: a build script compiles them only when its table names
// the finder (one declared in `[package.metadata]` never does), not in every copy of this crate.

use std::fmt;

use super::message::{dirs, install_fixes};
use super::need::{ListDir, join, lib_dirs_of};
use crate::clib::{BuildEnv, FindContext, Finder, Found, Library, LinkMode, Message, TargetInfo};

/// The declaring crate's decision on the OpenSSL found: the flavor and version `openssl-sys`
/// reported (`None` when it reported none) and the crate's name, for messages.
pub type Judge = fn(Option<Flavor>, &str) -> Verdict;

/// The finder of OpenSSL through `openssl-sys` (see the module documentation), with the
/// declaring crate's version policy.
#[derive(Clone, Copy)]
pub struct OpensslSys {
    judge: Judge,
}

impl fmt::Debug for OpensslSys {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OpensslSys")
    }
}

impl OpensslSys {
    /// The finder, with the declaring crate's `judge` of the version found.
    pub const fn new(judge: Judge) -> OpensslSys {
        OpensslSys { judge }
    }
}

impl Finder for OpensslSys {
    #[inline]
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message> {
        let env = cx.env;
        let inputs = inputs(env);
        let list = |dir: &str| env.list_dir(dir);
        match plan(&inputs, self.judge, cx.declared_by, &list) {
            Ok(plan) => {
                let found = plan.found(&inputs.target);
                super::finders::link_policy_check(
                    &found,
                    cx,
                    library,
                    "openssl-sys",
                    (
                        "OPENSSL_STATIC=1 (with OPENSSL_DIR or OPENSSL_LIB_DIR where its archives are)",
                        "unset OPENSSL_STATIC or set it to 0",
                    ),
                )?;
                Ok(found)
            }
            Err(stop) => {
                let paths = search_paths(&inputs, &list);
                Err(match stop {
                    Stop::Version(reason) => {
                        version_refusal(library, &reason, &paths, &inputs.report)
                    }
                    Stop::Static(StaticProblem::PkgConfigSystemDir { .. }) => {
                        let libdir = env.compiler_file_name("libcrypto.so").and_then(|p| {
                            std::path::Path::new(&p)
                                .parent()
                                .map(|d| d.display().to_string())
                        });
                        let includedir = inputs.report.include.clone().or_else(|| {
                            env.preprocess("#include <openssl/opensslv.h>\n", &[])
                                .and_then(|text| {
                                    text.lines().find_map(|line| {
                                        let path = line.strip_prefix("# ")?.split('"').nth(1)?;
                                        path.strip_suffix("/openssl/opensslv.h").map(String::from)
                                    })
                                })
                        });
                        let problem = StaticProblem::PkgConfigSystemDir { libdir, includedir };
                        static_message(library, &problem, &paths)
                    }
                    Stop::Static(problem) => static_message(library, &problem, &paths),
                })
            }
        }
    }

    #[inline]
    fn cross_fix(&self, _library: &Library, target: &TargetInfo) -> Option<String> {
        let prefix = crate::clib::target_prefixed(&target.triple, "OPENSSL_DIR");
        Some(format!(
            "and an OpenSSL built for {}: {prefix}=/path (include/ and lib/), or PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files",
            target.triple
        ))
    }
}

#[inline]
fn parent(dir: &str) -> Option<&str> {
    let dir = dir.trim_end_matches('/');
    dir.rfind('/').map(|i| if i == 0 { "/" } else { &dir[..i] })
}

/// What `openssl-sys` published (`DEP_OPENSSL_*`), the variables it reads (target-prefixed forms
/// first), and the target.
#[inline]
pub(crate) fn inputs(env: &dyn BuildEnv) -> OpensslInputs {
    OpensslInputs {
        target: env.target(),
        vars: OpensslVars {
            dir: env.target_var("OPENSSL_DIR"),
            lib_dir: env.target_var("OPENSSL_LIB_DIR"),
            include_dir: env.target_var("OPENSSL_INCLUDE_DIR"),
            static_: env.target_var("OPENSSL_STATIC"),
            pkg_config_all_static: env.var("PKG_CONFIG_ALL_STATIC").is_some()
                && env.var("OPENSSL_DYNAMIC").is_none(),
            pkg_config_sysroot: pkg_config_var(env, "PKG_CONFIG_SYSROOT_DIR")
                .or_else(|| env.var("SYSROOT")),
        },
        report: OpensslSysReport {
            version_number: env.cargo_var("DEP_OPENSSL_VERSION_NUMBER"),
            libressl_version_number: env.cargo_var("DEP_OPENSSL_LIBRESSL_VERSION_NUMBER"),
            boringssl: env.cargo_var("DEP_OPENSSL_BORINGSSL").is_some(),
            awslc: env.cargo_var("DEP_OPENSSL_AWSLC").is_some(),
            vendored: env.cargo_var("DEP_OPENSSL_VENDORED").is_some(),
            root: env.cargo_var("DEP_OPENSSL_ROOT"),
            include: env.cargo_var("DEP_OPENSSL_INCLUDE"),
            conf: env.cargo_var("DEP_OPENSSL_CONF"),
        },
    }
}

/// A variable as the `pkg-config` crate reads it: `<NAME>_<target>`, `<NAME>_<target_with_underscores>`,
/// `TARGET_<NAME>` (cross) or `HOST_<NAME>`, then `<NAME>`.
#[inline]
fn pkg_config_var(env: &dyn BuildEnv, name: &str) -> Option<String> {
    let target = env.target();
    let kind = if target.is_cross() { "TARGET" } else { "HOST" };
    [
        format!("{name}_{}", target.triple),
        format!("{name}_{}", target.triple.replace('-', "_")),
        format!("{kind}_{name}"),
        name.to_string(),
    ]
    .iter()
    .find_map(|n| env.var(n))
}

/// The OpenSSL variables as `openssl-sys` reads them: each is the target-prefixed form
/// (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`) when set, else the plain one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct OpensslVars {
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
    #[inline]
    pub fn static_asked(&self) -> bool {
        self.static_.as_deref().map_or(false, |v| v != "0")
    }
}

/// What `openssl-sys`'s build script published (`DEP_OPENSSL_*`): it ran first, and these say
/// what it actually found and built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct OpensslSysReport {
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
pub(crate) struct OpensslInputs {
    /// The target.
    pub target: TargetInfo,
    /// The variables `openssl-sys` (and the `pkg-config` crate) read.
    pub vars: OpensslVars,
    /// What `openssl-sys` published.
    pub report: OpensslSysReport,
}

/// How `openssl-sys` found OpenSSL, told from what it published and the variables it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Location {
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
    #[inline]
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
    #[inline]
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
#[inline]
fn system_include(inputs: &OpensslInputs) -> bool {
    let include = match &inputs.report.include {
        Some(include) => include,
        None => {
            return true;
        }
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
pub(crate) struct SearchPaths {
    /// How they were found.
    pub location: Location,
    /// `-L` directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// `-I` directories; none: the compiler's default.
    pub include_dirs: Vec<String>,
}

/// Where the probes look. `-I`: the directory `openssl-sys` published (`DEP_OPENSSL_INCLUDE`),
/// else the compiler's default. `-L`: for a vendored build `DEP_OPENSSL_ROOT/lib` (`openssl-sys`
/// ignores the variables then); else `OPENSSL_LIB_DIR`; else `OPENSSL_DIR`'s `lib64/` and `lib/`;
/// else, unless pkg-config found OpenSSL in the system's directories (see [`Location::PkgConfig`]),
/// `lib64/` and `lib/` beside the published include directory; else the compiler's default.
pub(crate) fn search_paths(inputs: &OpensslInputs, list: &impl ListDir) -> SearchPaths {
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
#[non_exhaustive]
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
    #[inline]
    pub(crate) fn from_report(report: &OpensslSysReport) -> Option<Flavor> {
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
    #[inline]
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

/// What the declaring crate makes of the OpenSSL `openssl-sys` found: its judge (see
/// [`OpensslSys::new`]) says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// In the supported range.
    Supported,
    /// Accepted, with a warning saying why it is not simply supported.
    Warn(String),
    /// Refused, with the reason (the headline of the build error).
    Refuse(String),
}

#[inline]
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

/// Why the static build that was asked for would not be one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StaticProblem {
    /// pkg-config found OpenSSL in the system's directories, where the `pkg-config` crate (which
    /// `openssl-sys` uses) links dynamically whatever `OPENSSL_STATIC` says.
    PkgConfigSystemDir {
        /// The directory holding the libraries (asked from the compiler), for the fix.
        libdir: Option<String>,
        /// The directory holding `openssl/` (asked from the compiler), for the fix.
        includedir: Option<String>,
    },
    /// Static linking with no library directory to take the archives from.
    NoLibDir,
}

/// Whether `openssl-sys` links OpenSSL statically, decided as it decides: through pkg-config in
/// the system's directories always dynamically (so a static build asked for there is an error);
/// otherwise `OPENSSL_STATIC` (`0` = dynamic, anything else = static), else what the library
/// directories hold (only archives: static; otherwise dynamic).
pub(crate) fn link_mode(
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
#[inline]
pub(crate) fn static_system_libs(target: &TargetInfo) -> Vec<String> {
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

/// Why the OpenSSL checks stop before any probe runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The version is refused: the reason.
    Version(String),
    /// The static build asked for would not be one.
    Static(StaticProblem),
}

/// Everything decided before the compiler runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Where the probes look.
    pub paths: SearchPaths,
    /// What `openssl-sys` found.
    pub flavor: Option<Flavor>,
    /// A warning about the version, when accepted with one.
    pub warning: Option<String>,
    /// Static or dynamic.
    pub mode: LinkMode,
}

/// The decisions in order: where, which version (judged by `judge` for the crate `who`), static
/// or dynamic.
pub(crate) fn plan(
    inputs: &OpensslInputs,
    judge: Judge,
    who: &str,
    list: &impl ListDir,
) -> Result<Plan, Stop> {
    let paths = search_paths(inputs, list);
    let flavor = Flavor::from_report(&inputs.report);
    let warning = match judge(flavor, who) {
        Verdict::Supported => None,
        Verdict::Warn(w) => Some(w),
        Verdict::Refuse(reason) => return Err(Stop::Version(reason)),
    };
    let mode = link_mode(inputs, &paths, list).map_err(Stop::Static)?;
    if mode == LinkMode::Static && paths.lib_dirs.is_empty() {
        return Err(Stop::Static(StaticProblem::NoLibDir));
    }
    Ok(Plan {
        paths,
        flavor,
        warning,
        mode,
    })
}

impl Plan {
    /// What the probes use and the build options record. A vendored build's directory is inside
    /// the target directory, and would make the binary depend on where it was built: it is not
    /// recorded.
    #[inline]
    pub(crate) fn found(&self, target: &TargetInfo) -> Found {
        let mut found = Found::new(self.paths.location.to_string());
        found.include_dirs = self.paths.include_dirs.clone();
        found.lib_dirs = self.paths.lib_dirs.clone();
        found.link_mode = self.mode;
        if self.mode == LinkMode::Static {
            found.system_libs = static_system_libs(target);
        }
        found.version = Some(
            self.flavor
                .map_or_else(|| "unknown".to_string(), Flavor::version_text),
        );
        found.warnings.extend(self.warning.clone());
        if self.paths.location == Location::Vendored {
            found.recorded_lib_dirs = Some(vec!["openssl-sys's OUT_DIR".to_string()]);
            found.bundled = Some((
                "DEP_OPENSSL_VENDORED".to_string(),
                "make openssl-sys use the system's OpenSSL: OPENSSL_NO_VENDOR=1 (or turn off the feature that asks for the vendored build)".to_string(),
            ));
        }
        found
    }
}

/// The build error for an OpenSSL refused by the declaring crate's judge: what was found, where,
/// the fixes.
#[inline]
pub(crate) fn version_refusal(
    library: &Library,
    reason: &str,
    paths: &SearchPaths,
    report: &OpensslSysReport,
) -> Message {
    let m =
        Message::new(format!("{} version check failed: {reason}", library.name)).tried(format!(
            "found by openssl-sys: headers in {}; located by {}; library directories: {}",
            report
                .include
                .as_deref()
                .unwrap_or("(the compiler's default include path)"),
            paths.location,
            dirs(&paths.lib_dirs)
        ));
    install_fixes(m, library)
}

/// The build error for a static OpenSSL build that cannot be one.
#[inline]
pub(crate) fn static_message(
    library: &Library,
    problem: &StaticProblem,
    paths: &SearchPaths,
) -> Message {
    let name = library.name;
    let mut m = match problem {
        StaticProblem::PkgConfigSystemDir { libdir, includedir } => {
            let lib = libdir.as_deref().unwrap_or("/usr/lib/<multiarch>");
            let include = includedir.as_deref().unwrap_or("/usr/include");
            Message::new(format!("{name} static linking was asked for (OPENSSL_STATIC or PKG_CONFIG_ALL_STATIC), but it would not happen: openssl-sys found OpenSSL through pkg-config in the system's directories, and the pkg-config crate it uses links system libraries dynamically whatever OPENSSL_STATIC says; the binaries would list libcrypto.so in NEEDED"))
                .tried(format!("located by: {}; library directory: {lib}", paths.location))
                .fix(format!("name the directories, so that openssl-sys honours OPENSSL_STATIC: OPENSSL_STATIC=1 OPENSSL_LIB_DIR={lib} OPENSSL_INCLUDE_DIR={include} (Debian/Ubuntu: libssl-dev has libcrypto.a and libssl.a)"))
                .fix("unset OPENSSL_STATIC (and PKG_CONFIG_ALL_STATIC) for a dynamic build")
        }
        StaticProblem::NoLibDir => Message::new(format!(
            "{name} static linking was asked for, but no library directory is known to take libcrypto.a from"
        ))
        .tried(format!("located by: {}; headers: {}", paths.location, dirs(&paths.include_dirs)))
        .fix("OPENSSL_STATIC=1 with OPENSSL_LIB_DIR and OPENSSL_INCLUDE_DIR (or OPENSSL_DIR)"),
    };
    for fix in library.locate {
        m = m.fix(*fix);
    }
    m
}

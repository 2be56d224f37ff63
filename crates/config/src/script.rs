//! The I/O half of a flagsplit build script (feature `build-script`): read the environment through
//! one injectable [`Env`] that records `rerun-if-env-changed`, read the config file, call
//! [`crate::resolve()`], probe OpenSSL, and emit the directives. Every package whose code depends on
//! the selection calls [`run`] (or [`follow`]) from its `build.rs`, so they all decide alike.
//!
//! Cross builds: the target is read from `TARGET` and `CARGO_CFG_TARGET_*` (never `cfg!`, which
//! describes the machine running the build script), OpenSSL variables in their target-prefixed
//! form win (as in `openssl-sys`), the probe uses the C compiler the `cc` crate picks for the
//! target, and the probes only compile and link, never run, so a cross toolchain is enough. A probe
//! that cannot work for the target (no cross compiler, an MSVC-style compiler) stops the build
//! saying so instead of guessing.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs, io};

use crate::codegen::{self, OpensslFound};
use crate::knobs;
use crate::model::{Capability, Choice, Facility, Feature, FeatureSet, Provider, Selection};
use crate::probe::{
    self, CompilerFacts, CompilerProblem, Flavor, LinkMode, LinkModeInputs, Location,
    OpensslSysReport, OpensslVars, PkgConfigFound, ProbeFailure, SearchPaths, StaticProblem,
    TargetInfo, Verdict,
};
use crate::remap::PathRemap;
use crate::resolve::{self, ConfigFileInput, Inputs, PREFIX};

/// The build environment. [`Env::process`] reads the real one and prints
/// `cargo::rerun-if-env-changed` for every variable the build's outcome depends on, so Cargo reruns
/// the build script exactly when one changes; [`Env::fixed`] is a given set of variables, for
/// tests that feed a foreign target.
pub struct Env {
    fixed: Option<BTreeMap<String, OsString>>,
    read: RefCell<BTreeSet<String>>,
}

impl Env {
    /// The process environment of a build script.
    pub fn process() -> Env {
        Env {
            fixed: None,
            read: RefCell::default(),
        }
    }

    /// Same as [`Env::process`].
    pub fn new() -> Env {
        Env::process()
    }

    /// A fixed set of variables (nothing is printed).
    pub fn fixed<K: Into<String>, V: Into<OsString>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        Env {
            fixed: Some(
                vars.into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            read: RefCell::default(),
        }
    }

    fn get(&self, name: &str) -> Option<OsString> {
        match &self.fixed {
            Some(vars) => vars.get(name).cloned(),
            None => env::var_os(name),
        }
    }

    /// A variable the user sets, recorded with `rerun-if-env-changed`.
    pub fn var(&self, name: &str) -> Option<OsString> {
        if self.read.borrow_mut().insert(name.to_string()) && self.fixed.is_none() {
            println!("cargo::rerun-if-env-changed={name}");
        }
        self.get(name)
    }

    /// A variable as UTF-8 text (a non-UTF-8 value counts as unset).
    pub fn var_string(&self, name: &str) -> Option<String> {
        self.var(name).and_then(|v| v.into_string().ok())
    }

    /// A variable Cargo itself sets for build scripts (`TARGET`, `CARGO_CFG_*`, `CARGO_FEATURE_*`,
    /// `DEP_*`, `OUT_DIR`): not recorded (Cargo reruns the script when they change, and a
    /// `rerun-if-env-changed` on them would compare against Cargo's own environment).
    pub fn cargo_var(&self, name: &str) -> Option<String> {
        self.get(name).and_then(|v| v.into_string().ok())
    }

    /// The target triple (`TARGET`).
    pub fn target_triple(&self) -> String {
        self.cargo_var("TARGET").unwrap_or_default()
    }

    /// The target being built for, from `TARGET`, `HOST` and `CARGO_CFG_TARGET_*`.
    pub fn target(&self) -> TargetInfo {
        let cfg = |name: &str| {
            self.cargo_var(&format!("CARGO_CFG_TARGET_{name}"))
                .unwrap_or_default()
        };
        TargetInfo {
            triple: self.target_triple(),
            host: self.cargo_var("HOST").unwrap_or_default(),
            arch: cfg("ARCH"),
            os: cfg("OS"),
            env: cfg("ENV"),
            vendor: cfg("VENDOR"),
            pointer_width: cfg("POINTER_WIDTH").parse().unwrap_or(0),
        }
    }

    /// A variable that also has a target-prefixed form (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`),
    /// which wins, as in `openssl-sys`. Both forms are recorded.
    pub fn target_var(&self, name: &str) -> Option<OsString> {
        let prefixed = self.var(&knobs::target_prefixed(&self.target_triple(), name));
        let plain = self.var(name);
        prefixed.or(plain)
    }

    /// [`Env::target_var`] as UTF-8 text.
    pub fn target_var_string(&self, name: &str) -> Option<String> {
        self.target_var(name).and_then(|v| v.into_string().ok())
    }

    /// The names read so far (recorded for `rerun-if-env-changed`).
    pub fn read_names(&self) -> BTreeSet<String> {
        self.read.borrow().clone()
    }

    /// Every `FLAGSPLIT_*` variable present, plus a record of every known build-time one, so that
    /// setting one later reruns the build script. (A misspelt name set after a successful build is
    /// caught the next time the script runs: Cargo cannot watch names it is not told.)
    pub fn flagsplit_vars(&self) -> BTreeMap<String, Option<String>> {
        for var in knobs::build_variables() {
            self.var(var.name);
        }
        let present: Vec<(String, OsString)> = match &self.fixed {
            Some(vars) => vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            None => env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
        };
        let mut found = BTreeMap::new();
        for (name, value) in present {
            if name.starts_with(PREFIX) {
                self.var(&name);
                found.insert(name, value.into_string().ok());
            }
        }
        found
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::process()
    }
}

/// What a successful run decided.
pub struct Outcome {
    /// The selection.
    pub selection: Selection,
    /// The OpenSSL found, when one is used.
    pub openssl: Option<OpensslFound>,
}

/// Runs the whole build-script job for the current package: resolve, emit `cfg`s, check and probe
/// OpenSSL, write `OUT_DIR/build_info.rs`. On any error it prints `cargo::error=` lines (which fail
/// the build) and returns `None`.
pub fn run() -> Option<Outcome> {
    let env = Env::process();
    let manifest_dir = PathBuf::from(env.cargo_var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(env.cargo_var("OUT_DIR").unwrap_or_default());

    let features: FeatureSet = Feature::ALL
        .into_iter()
        .filter(|f| env.cargo_var(f.cargo_env()).is_some())
        .collect();
    let vars = env.flagsplit_vars();
    let file = resolve::config_file_name(&vars).map(|named| {
        let path = manifest_dir.join(named);
        println!("cargo::rerun-if-changed={}", path.display());
        ConfigFileInput {
            named: named.to_string(),
            resolved: path.display().to_string(),
            contents: fs::read_to_string(&path).map_err(|e| e.to_string()),
        }
    });
    let inputs = Inputs {
        features,
        env: vars,
        file,
    };
    let selection = match resolve::resolve(&inputs) {
        Ok(selection) => selection,
        Err(errors) => {
            error(&errors.to_string());
            return None;
        }
    };

    emit_cfgs(&selection);
    for facility in Facility::ALL {
        // Read by the packages above as DEP_FLAGSPLIT_<FACILITY> (see `follow`).
        println!(
            "cargo::metadata={}={}",
            metadata_key(facility),
            selection.provider(facility)
        );
    }

    if env.cargo_var(VENDORED_FEATURE).is_some() {
        match probe::vendored_check(features, &selection) {
            Ok(None) => {}
            Ok(Some(w)) => warning(&w),
            Err(e) => {
                error(&e);
                return None;
            }
        }
    }

    let mut openssl = None;
    if !selection.needed_capabilities().is_empty() {
        println!(
            "cargo::rerun-if-changed={}",
            manifest_dir.join("compat").display()
        );
        match openssl_setup(&env, &selection, &manifest_dir, &out_dir) {
            Ok(found) => openssl = Some(found),
            Err(message) => {
                error(&message);
                return None;
            }
        }
    }

    // The table's paths follow the `--remap-path-prefix` flags, as the paths rustc embeds do
    // (reproducible builds in different directories).
    let remap = PathRemap::from_encoded_rustflags(
        &env.cargo_var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default(),
    );
    let source_features: Vec<&str> = crate::knobs::SOURCE_FEATURES
        .iter()
        .filter(|f| {
            let var = format!("CARGO_FEATURE_{}", f.name.to_uppercase().replace('-', "_"));
            env.cargo_var(&var).is_some()
        })
        .map(|f| f.name)
        .collect();
    let literal = codegen::build_info_literal(
        &remap.selection(&selection),
        features,
        &source_features,
        openssl.as_ref().map(|o| remap.openssl(o)).as_ref(),
        &env.target_triple(),
    );
    if let Err(e) = write_if_changed(&out_dir.join("build_info.rs"), &literal) {
        error(&format!("cannot write {}: {e}", out_dir.display()));
        return None;
    }
    Some(Outcome { selection, openssl })
}

/// The variable Cargo sets when `flagsplit-hash`'s feature `openssl-vendored` is on.
pub const VENDORED_FEATURE: &str = "CARGO_FEATURE_OPENSSL_VENDORED";

/// The OpenSSL part of [`run`]: what `openssl-sys` found, whether flagsplit accepts its version
/// (a warning is printed for an accepted but untested one), where it is, static or dynamic, and a
/// compile-and-link probe per capability the selection needs. `Err` is the build error's text.
pub fn openssl_setup(
    env: &Env,
    selection: &Selection,
    manifest_dir: &Path,
    out_dir: &Path,
) -> Result<OpensslFound, String> {
    let target = env.target();
    let vars = openssl_vars(env);
    let report = openssl_sys_report(env);
    let mut pkg_config_found = None;
    let paths = probe::locate(
        &vars,
        &report,
        || {
            pkg_config_found = pkg_config_openssl(env);
            pkg_config_found.clone()
        },
        |d| Path::new(d).is_dir(),
    );

    let flavor = Flavor::from_report(&report);
    match probe::judge(flavor) {
        Verdict::Supported => {}
        Verdict::Warn(w) => warning(&w),
        Verdict::Refuse(reason) => {
            return Err(probe::version_refusal(&reason, &paths, &report, selection));
        }
    }

    let mode_inputs = link_mode_inputs(env, &paths, pkg_config_found.as_ref());
    let mode = probe::link_mode(&paths.location, &mode_inputs).map_err(|problem| {
        let problem = match problem {
            StaticProblem::PkgConfigSystemDir { .. } => StaticProblem::PkgConfigSystemDir {
                libdir: pkg_config_found.as_ref().and_then(|p| p.libdir.clone()),
                includedir: pkg_config_found.as_ref().and_then(|p| p.includedir.clone()),
            },
            other => other,
        };
        probe::static_message(&problem, &paths, selection)
    })?;
    let system_libs = match mode {
        LinkMode::Static => static_system_libs(env, &target, &paths),
        LinkMode::Dynamic => Vec::new(),
    };

    for capability in selection.needed_capabilities() {
        let args = probe::probe_args(capability, &paths, mode, &system_libs, |f| {
            Path::new(f).is_file()
        })
        .map_err(|problem| probe::static_message(&problem, &paths, selection))?;
        match probe_capability(env, manifest_dir, out_dir, &paths, &args, capability) {
            Ok(()) => {}
            Err(ProbeError::Compiler(problem)) => {
                return Err(probe::compiler_message(
                    &problem, &target, capability, selection,
                ));
            }
            Err(ProbeError::Link(failure)) => {
                return Err(probe::failure_message(&failure, selection));
            }
        }
    }

    let lib_dirs = match paths.location {
        // Inside the target directory: a path there would make the binary depend on where it was
        // built (reproducible builds).
        Location::Vendored => vec!["openssl-sys's OUT_DIR".to_string()],
        _ => paths.lib_dirs.clone(),
    };
    Ok(OpensslFound {
        version: flavor.map_or_else(|| "unknown".to_string(), Flavor::version_text),
        located_by: paths.location.to_string(),
        lib_dirs,
        static_link: mode == LinkMode::Static,
    })
}

/// The OpenSSL variables, each in its target-prefixed form when set, as `openssl-sys` reads them
/// (`OPENSSL_NO_PKG_CONFIG` is read by the `pkg-config` crate, plain only).
pub fn openssl_vars(env: &Env) -> OpensslVars {
    OpensslVars {
        dir: env.target_var_string("OPENSSL_DIR"),
        lib_dir: env.target_var_string("OPENSSL_LIB_DIR"),
        include_dir: env.target_var_string("OPENSSL_INCLUDE_DIR"),
        static_: env.target_var_string("OPENSSL_STATIC"),
        no_pkg_config: env.var("OPENSSL_NO_PKG_CONFIG").is_some(),
    }
}

/// What `openssl-sys` published (`DEP_OPENSSL_*`).
pub fn openssl_sys_report(env: &Env) -> OpensslSysReport {
    OpensslSysReport {
        version_number: env.cargo_var("DEP_OPENSSL_VERSION_NUMBER"),
        libressl_version_number: env.cargo_var("DEP_OPENSSL_LIBRESSL_VERSION_NUMBER"),
        boringssl: env.cargo_var("DEP_OPENSSL_BORINGSSL").is_some(),
        awslc: env.cargo_var("DEP_OPENSSL_AWSLC").is_some(),
        vendored: env.cargo_var("DEP_OPENSSL_VENDORED").is_some(),
        root: env.cargo_var("DEP_OPENSSL_ROOT"),
        include: env.cargo_var("DEP_OPENSSL_INCLUDE"),
    }
}

/// pkg-config's answer for `openssl`, asked the way `openssl-sys` asks it (the `pkg-config` crate
/// honours `PKG_CONFIG`, `PKG_CONFIG_PATH`, `PKG_CONFIG_LIBDIR`, `PKG_CONFIG_SYSROOT_DIR` and
/// their target-prefixed forms, which are recorded here so that changing them reruns the probe).
fn pkg_config_openssl(env: &Env) -> Option<PkgConfigFound> {
    for name in [
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
        "PKG_CONFIG_ALLOW_CROSS",
    ] {
        env.target_var(name);
    }
    let lib = pkg_config::Config::new()
        .cargo_metadata(false)
        .env_metadata(false)
        .print_system_libs(false)
        .probe("openssl")
        .ok()?;
    let strings = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect();
    Some(PkgConfigFound {
        link_paths: strings(&lib.link_paths),
        include_paths: strings(&lib.include_paths),
        libdir: pkg_config::get_variable("openssl", "libdir").ok(),
        includedir: pkg_config::get_variable("openssl", "includedir").ok(),
    })
}

/// The inputs of [`probe::link_mode`]: the variables, and what the library directories hold.
fn link_mode_inputs(
    env: &Env,
    paths: &SearchPaths,
    pkg_config: Option<&PkgConfigFound>,
) -> LinkModeInputs {
    let mut lib_files = Vec::new();
    for dir in &paths.lib_dirs {
        if let Ok(entries) = fs::read_dir(dir) {
            lib_files.extend(
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().into_string().ok()),
            );
        }
    }
    let system_root = env
        .var_string("PKG_CONFIG_SYSROOT_DIR")
        .or_else(|| env.var_string("SYSROOT"))
        .unwrap_or_else(|| "/usr".to_string());
    let static_outside_system_root = pkg_config.is_some_and(|p| {
        ["ssl", "crypto"].iter().all(|lib| {
            p.link_paths.iter().any(|d| {
                Path::new(d).join(format!("lib{lib}.a")).is_file()
                    && !Path::new(d).starts_with(&system_root)
            })
        })
    });
    LinkModeInputs {
        openssl_static: env.target_var_string("OPENSSL_STATIC"),
        plain_openssl_static: env.var("OPENSSL_STATIC").is_some(),
        openssl_dynamic: env.var("OPENSSL_DYNAMIC").is_some(),
        pkg_config_all_static: env.var("PKG_CONFIG_ALL_STATIC").is_some(),
        lib_files,
        static_outside_system_root,
    }
}

/// The system libraries a static OpenSSL needs: from `pkg-config --static --libs` on the
/// installation's own `openssl.pc` (`<libdir>/pkgconfig/openssl.pc`, which system packages and
/// vendored builds both have), else the usual ones for the target.
fn static_system_libs(env: &Env, target: &TargetInfo, paths: &SearchPaths) -> Vec<String> {
    let pkg_config = env
        .target_var("PKG_CONFIG")
        .unwrap_or_else(|| OsString::from("pkg-config"));
    for dir in &paths.lib_dirs {
        let pc = Path::new(dir).join("pkgconfig").join("openssl.pc");
        if !pc.is_file() {
            continue;
        }
        if let Ok(out) = Command::new(&pkg_config)
            .args(["--static", "--libs"])
            .arg(&pc)
            .output()
            && out.status.success()
        {
            return probe::pkg_config_static_libs(&String::from_utf8_lossy(&out.stdout));
        }
    }
    probe::default_static_system_libs(target)
}

/// Why a probe did not pass.
#[derive(Debug)]
pub enum ProbeError {
    /// It cannot run for this target (no usable compiler).
    Compiler(CompilerProblem),
    /// It ran, and did not compile or link.
    Link(Box<ProbeFailure>),
}

/// The C compiler the `cc` crate picks for the target, checked (see [`probe::check_compiler`])
/// before it is used.
pub fn compiler(env: &Env) -> Result<cc::Tool, CompilerProblem> {
    let target = env.target();
    let named_by = probe::compiler_variables(&target)
        .into_iter()
        .find(|name| env.var(name).is_some_and(|v| !v.is_empty()));
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .cargo_warnings(false)
        .opt_level(0)
        .debug(false);
    if !target.triple.is_empty() {
        build.target(&target.triple);
    }
    if !target.host.is_empty() {
        build.host(&target.host);
    }
    let tool = build
        .try_get_compiler()
        .map_err(|e| CompilerProblem::NoCompiler {
            reason: e.to_string(),
        })?;
    let facts = CompilerFacts {
        path: tool.path().display().to_string(),
        msvc_like: tool.is_like_msvc(),
        clang_like: tool.is_like_clang(),
        named_by,
    };
    probe::check_compiler(&target, &facts)?;
    Ok(tool)
}

/// Compiles and links `compat/probe-*.c` (never runs it) with `args` (from
/// [`probe::probe_args`]), the way autoconf's `AC_CHECK_LIB` does, with the C compiler the `cc`
/// crate picks for the target.
pub fn probe_capability(
    env: &Env,
    manifest_dir: &Path,
    out_dir: &Path,
    paths: &SearchPaths,
    args: &[String],
    capability: Capability,
) -> Result<(), ProbeError> {
    let tool = compiler(env).map_err(ProbeError::Compiler)?;
    let source = manifest_dir.join(capability.source());
    let exe = out_dir.join(
        source
            .file_stem()
            .map_or_else(|| OsString::from("probe"), |s| s.to_os_string()),
    );
    let mut cmd = tool.to_command();
    cmd.arg(&source).arg("-o").arg(&exe).args(args);
    let shown = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let fail = |output: String| {
        ProbeError::Link(Box::new(ProbeFailure {
            capability,
            paths: paths.clone(),
            command: shown.clone(),
            output,
        }))
    };
    match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stdout));
            let tail: Vec<&str> = text.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(fail(tail.join("\n")))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(ProbeError::Compiler(CompilerProblem::NotFound {
                path: tool.path().display().to_string(),
                reason: e.to_string(),
            }))
        }
        Err(e) => Err(fail(format!("could not run the compiler: {e}"))),
    }
}

/// The `links` metadata key for a facility (`sha1_unsafe` → `DEP_FLAGSPLIT_SHA1_UNSAFE`).
fn metadata_key(facility: Facility) -> &'static str {
    facility.cfg_name().trim_start_matches("flagsplit_")
}

/// For a package that depends on `flagsplit-hash`: emits the `cfg`s of the selection that
/// `flagsplit-hash`'s build script resolved (read from `DEP_FLAGSPLIT_*`), so that every package
/// of the build sees the same decision without deciding again.
pub fn follow() -> Option<Selection> {
    let mut choices = Facility::ALL.map(|f| Choice::default_of(f.providers()[0]));
    for facility in Facility::ALL {
        let var = format!("DEP_FLAGSPLIT_{}", metadata_key(facility).to_uppercase());
        let provider = env::var(&var)
            .ok()
            .and_then(|v| Provider::from_name(&v))
            .filter(|p| facility.providers().contains(p));
        let Some(provider) = provider else {
            error(&format!(
                "{var} is missing: this package must depend on flagsplit-hash, which resolves the build configuration"
            ));
            return None;
        };
        choices[facility as usize].provider = provider;
    }
    let selection = Selection { choices };
    emit_cfgs(&selection);
    Some(selection)
}

/// Prints a multi-line message as `cargo::error` lines.
pub fn error(message: &str) {
    for line in message.lines() {
        println!("cargo::error={line}");
    }
}

/// Prints a multi-line message as `cargo::warning` lines.
pub fn warning(message: &str) {
    for line in message.lines() {
        println!("cargo::warning={line}");
    }
}

/// The split itself (`openssl_sha1`, `openssl_md5`, `openssl_tls`) and one value cfg per facility,
/// each declared with `rustc-check-cfg`.
pub fn emit_cfgs(selection: &Selection) {
    for (name, on) in [
        ("openssl_sha1", selection.openssl_sha1()),
        ("openssl_md5", selection.openssl_md5()),
        ("openssl_tls", selection.openssl_tls()),
    ] {
        println!("cargo::rustc-check-cfg=cfg({name})");
        if on {
            println!("cargo::rustc-cfg={name}");
        }
    }
    for facility in Facility::ALL {
        let values: Vec<String> = facility
            .providers()
            .iter()
            .map(|p| format!("\"{p}\""))
            .collect();
        println!(
            "cargo::rustc-check-cfg=cfg({}, values({}))",
            facility.cfg_name(),
            values.join(", ")
        );
        println!(
            "cargo::rustc-cfg={}=\"{}\"",
            facility.cfg_name(),
            selection.provider(facility)
        );
    }
}

/// Writes `contents` unless the file already holds exactly that (keeps mtimes stable).
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    fs::write(path, contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variables Cargo gives a build script for `triple`, built on `host`.
    fn cargo_env(triple: &str, host: &str) -> Vec<(String, String)> {
        let (arch, vendor, os, env, width) = match triple {
            "aarch64-unknown-linux-gnu" => ("aarch64", "unknown", "linux", "gnu", "64"),
            "x86_64-unknown-linux-gnu" => ("x86_64", "unknown", "linux", "gnu", "64"),
            "x86_64-pc-windows-msvc" => ("x86_64", "pc", "windows", "msvc", "64"),
            "x86_64-pc-windows-gnu" => ("x86_64", "pc", "windows", "gnu", "64"),
            other => panic!("no test description for {other}"),
        };
        [
            ("TARGET", triple),
            ("HOST", host),
            ("CARGO_CFG_TARGET_ARCH", arch),
            ("CARGO_CFG_TARGET_VENDOR", vendor),
            ("CARGO_CFG_TARGET_OS", os),
            ("CARGO_CFG_TARGET_ENV", env),
            ("CARGO_CFG_TARGET_POINTER_WIDTH", width),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    fn env_with(triple: &str, extra: &[(&str, &str)]) -> Env {
        let mut vars = cargo_env(triple, "x86_64-unknown-linux-gnu");
        vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Env::fixed(vars)
    }

    const HOST: &str = "x86_64-unknown-linux-gnu";

    #[test]
    fn the_target_comes_from_cargo_not_from_the_build_machine() {
        let env = env_with("aarch64-unknown-linux-gnu", &[]);
        let t = env.target();
        assert_eq!(t.triple, "aarch64-unknown-linux-gnu");
        assert_eq!(
            (t.arch.as_str(), t.os.as_str(), t.env.as_str()),
            ("aarch64", "linux", "gnu")
        );
        assert_eq!(t.pointer_width, 64);
        assert!(t.is_cross());
        let t = env_with("x86_64-pc-windows-msvc", &[]).target();
        assert!(t.is_msvc() && t.is_cross());
        assert!(!env_with(HOST, &[]).target().is_cross());
    }

    #[test]
    fn target_prefixed_openssl_variables_win() {
        let env = env_with(
            "aarch64-unknown-linux-gnu",
            &[
                ("OPENSSL_DIR", "/usr"),
                ("AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR", "/cross/aarch64"),
                // Another target's variable is not this target's.
                ("X86_64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC", "1"),
                ("OPENSSL_INCLUDE_DIR", "/plain/include"),
            ],
        );
        let vars = openssl_vars(&env);
        assert_eq!(vars.dir.as_deref(), Some("/cross/aarch64"));
        assert_eq!(vars.include_dir.as_deref(), Some("/plain/include"));
        assert_eq!(vars.static_, None);
        // Both forms of each are recorded for rerun-if-env-changed.
        let read = env.read_names();
        for name in [
            "OPENSSL_DIR",
            "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR",
            "OPENSSL_STATIC",
            "AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC",
            "OPENSSL_NO_PKG_CONFIG",
        ] {
            assert!(read.contains(name), "{name} not recorded: {read:?}");
        }
        assert!(!read.contains("X86_64_UNKNOWN_LINUX_GNU_OPENSSL_STATIC"));
        // The located directories are the target's.
        let paths = probe::locate(
            &vars,
            &openssl_sys_report(&env),
            || panic!("pkg-config must not be asked when OPENSSL_DIR is set"),
            |d| d == "/cross/aarch64/lib",
        );
        assert_eq!(
            paths.location,
            Location::OpensslDir("/cross/aarch64".into())
        );
        assert_eq!(paths.lib_dirs, ["/cross/aarch64/lib"]);
        assert_eq!(paths.include_dirs, ["/plain/include"]);
        // For the native target, the same plain variable applies.
        let native = env_with(HOST, &[("OPENSSL_DIR", "/usr")]);
        assert_eq!(openssl_vars(&native).dir.as_deref(), Some("/usr"));
    }

    #[test]
    fn openssl_sys_report_is_read_from_dep_variables() {
        let env = env_with(
            HOST,
            &[
                ("DEP_OPENSSL_VERSION_NUMBER", "30600030"),
                ("DEP_OPENSSL_VENDORED", "1"),
                ("DEP_OPENSSL_ROOT", "/t/install"),
                ("DEP_OPENSSL_INCLUDE", "/t/install/include"),
            ],
        );
        let report = openssl_sys_report(&env);
        assert_eq!(
            Flavor::from_report(&report),
            Some(Flavor::Openssl(0x3060_0030))
        );
        let paths = probe::locate(&openssl_vars(&env), &report, || None, |_| false);
        assert_eq!(paths.location, Location::Vendored);
        assert_eq!(paths.lib_dirs, ["/t/install/lib"]);
        // Cargo's own variables are not watched with rerun-if-env-changed.
        assert!(!env.read_names().iter().any(|n| n.starts_with("DEP_")));
    }

    /// The static probe plan for a foreign target: the archives from the target's directory and
    /// the target's system libraries.
    #[test]
    fn static_probe_plan_for_a_foreign_target() {
        let dir = std::env::temp_dir().join(format!("flagsplit-probe-plan-{}", std::process::id()));
        let lib = dir.join("lib");
        fs::create_dir_all(&lib).unwrap();
        for f in ["libssl.a", "libcrypto.a"] {
            fs::write(lib.join(f), b"!<arch>\n").unwrap();
        }
        let env = env_with(
            "x86_64-pc-windows-gnu",
            &[("X86_64_PC_WINDOWS_GNU_OPENSSL_DIR", dir.to_str().unwrap())],
        );
        let vars = openssl_vars(&env);
        let paths = probe::locate(
            &vars,
            &openssl_sys_report(&env),
            || None,
            |d| Path::new(d).is_dir(),
        );
        let inputs = link_mode_inputs(&env, &paths, None);
        // Only archives in the directory: openssl-sys links statically without being asked.
        assert_eq!(
            probe::link_mode(&paths.location, &inputs),
            Ok(LinkMode::Static)
        );
        let libs = static_system_libs(&env, &env.target(), &paths);
        assert_eq!(libs, probe::default_static_system_libs(&env.target()));
        assert!(libs.contains(&"-lws2_32".to_string()), "{libs:?}");
        let args = probe::probe_args(
            Capability::TlsClient,
            &paths,
            LinkMode::Static,
            &libs,
            |f| Path::new(f).is_file(),
        )
        .unwrap();
        let lib = lib.display().to_string();
        assert_eq!(args[1], format!("{lib}/libssl.a"));
        assert_eq!(args[2], format!("{lib}/libcrypto.a"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn msvc_target_is_refused_before_anything_runs() {
        let env = env_with("x86_64-pc-windows-msvc", &[]);
        match compiler(&env) {
            Err(CompilerProblem::Msvc { .. }) => {}
            other => panic!("expected an MSVC refusal, got {other:?}"),
        }
        assert!(env.read_names().contains("CC_x86_64_pc_windows_msvc"));
    }

    /// With no aarch64 cross compiler installed, the probe says which compiler it needed and how to
    /// get one, instead of compiling with the host's compiler.
    #[test]
    fn missing_cross_compiler_is_named() {
        let triple = "aarch64-unknown-linux-gnu";
        if Command::new("aarch64-linux-gnu-gcc")
            .arg("--version")
            .output()
            .is_ok()
        {
            eprintln!(
                "SKIPPED: missing_cross_compiler_is_named: aarch64-linux-gnu-gcc is installed here"
            );
            return;
        }
        let env = env_with(triple, &[]);
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hash");
        let out = std::env::temp_dir();
        let paths = SearchPaths {
            location: Location::OpensslDir("/cross".into()),
            lib_dirs: vec!["/cross/lib".into()],
            include_dirs: vec!["/cross/include".into()],
        };
        let args = ["-lcrypto".to_string()];
        let err = probe_capability(&env, &manifest, &out, &paths, &args, Capability::Sha1Digest)
            .expect_err("no cross compiler here");
        let ProbeError::Compiler(problem) = err else {
            panic!("expected a compiler problem, got {err:?}")
        };
        let selection = Selection {
            choices: [
                Choice {
                    provider: Provider::Openssl,
                    origin: crate::Origin::FeatureDefault(Feature::OpensslSha1),
                },
                Choice::default_of(Provider::Block),
                Choice::default_of(Provider::Builtin),
                Choice::default_of(Provider::None),
            ],
        };
        let m =
            probe::compiler_message(&problem, &env.target(), Capability::Sha1Digest, &selection);
        assert!(
            m.contains("cannot run for target aarch64-unknown-linux-gnu"),
            "{m}"
        );
        assert!(m.contains("aarch64-linux-gnu-gcc"), "{m}");
        assert!(m.contains("apt-get install gcc-aarch64-linux-gnu"), "{m}");
    }

    #[test]
    fn flagsplit_variables_from_a_fixed_environment() {
        let env = env_with(
            HOST,
            &[("FLAGSPLIT_TLS_PROVIDER", "none"), ("PATH", "/bin")],
        );
        let vars = env.flagsplit_vars();
        assert_eq!(vars.len(), 1);
        assert_eq!(vars["FLAGSPLIT_TLS_PROVIDER"].as_deref(), Some("none"));
        assert!(env.read_names().contains("FLAGSPLIT_CONFIG"));
    }
}

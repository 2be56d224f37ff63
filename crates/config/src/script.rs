//! The I/O half of a flagsplit build script (feature `build-script`): read the environment through
//! one helper that records `rerun-if-env-changed`, read the config file, call [`crate::resolve()`],
//! probe OpenSSL, and emit the directives. Every package whose code depends on the selection calls
//! [`run`] from its `build.rs`, so they all decide alike.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::{env, fs};

use crate::codegen::{self, OpensslFound};
use crate::knobs;
use crate::model::{Capability, Choice, Facility, Feature, FeatureSet, Provider, Selection};
use crate::probe::{self, Location, ProbeFailure, SearchPaths};
use crate::resolve::{self, ConfigFileInput, Inputs, PREFIX};

/// Reads the build environment, recording every variable it reads so that Cargo reruns the build
/// script exactly when one of them changes.
pub struct Env {
    target: String,
}

impl Env {
    /// For the target Cargo is building for.
    pub fn new() -> Env {
        Env {
            target: env::var("TARGET").unwrap_or_default(),
        }
    }

    /// A variable, recorded with `rerun-if-env-changed`.
    pub fn var(&self, name: &str) -> Option<OsString> {
        println!("cargo::rerun-if-env-changed={name}");
        env::var_os(name)
    }

    /// A variable that also has a target-prefixed form (`X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`), which
    /// wins, as in `openssl-sys`.
    pub fn target_var(&self, name: &str) -> Option<OsString> {
        self.var(&knobs::target_prefixed(&self.target, name))
            .or_else(|| self.var(name))
    }

    /// Whether a flag variable is set to something other than `0` or empty.
    pub fn target_flag(&self, name: &str) -> bool {
        self.target_var(name)
            .is_some_and(|v| !v.is_empty() && v != "0")
    }

    /// Every `FLAGSPLIT_*` variable present, plus a record of every known build-time one, so that
    /// setting one later reruns the build script. (A misspelt name set after a successful build is
    /// caught the next time the script runs: Cargo cannot watch names it is not told.)
    pub fn flagsplit_vars(&self) -> BTreeMap<String, Option<String>> {
        for var in knobs::build_variables() {
            println!("cargo::rerun-if-env-changed={}", var.name);
        }
        let mut found = BTreeMap::new();
        for (name, value) in env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if name.starts_with(PREFIX) {
                println!("cargo::rerun-if-env-changed={name}");
                found.insert(name.to_string(), value.into_string().ok());
            }
        }
        found
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

/// What a successful run decided.
pub struct Outcome {
    /// The selection.
    pub selection: Selection,
    /// The OpenSSL found, when one is used.
    pub openssl: Option<OpensslFound>,
}

/// Runs the whole build-script job for the current package: resolve, emit `cfg`s, probe, write
/// `OUT_DIR/build_info.rs`. On any error it prints `cargo::error=` lines (which fail the build) and
/// returns `None`.
pub fn run() -> Option<Outcome> {
    let env = Env::new();
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());

    let features: FeatureSet = Feature::ALL
        .into_iter()
        .filter(|f| env::var_os(f.cargo_env()).is_some())
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

    let mut openssl = None;
    let needed = selection.needed_capabilities();
    if !needed.is_empty() {
        println!(
            "cargo::rerun-if-changed={}",
            manifest_dir.join("compat").display()
        );
        let paths = locate_openssl(&env);
        for capability in needed {
            if let Err(failure) = probe_capability(&manifest_dir, &out_dir, &paths, capability) {
                error(&probe::failure_message(&failure, &selection));
                return None;
            }
        }
        let version = env::var("DEP_OPENSSL_VERSION_NUMBER")
            .ok()
            .and_then(|v| probe::openssl_version_text(&v))
            .unwrap_or_else(|| "unknown".to_string());
        openssl = Some(OpensslFound {
            version,
            located_by: paths.location.to_string(),
            lib_dirs: paths.lib_dirs.clone(),
            static_link: env.target_flag("OPENSSL_STATIC"),
        });
    }

    let literal = codegen::build_info_literal(
        &selection,
        features,
        openssl.as_ref(),
        &env::var("TARGET").unwrap_or_default(),
    );
    if let Err(e) = write_if_changed(&out_dir.join("build_info.rs"), &literal) {
        error(&format!("cannot write {}: {e}", out_dir.display()));
        return None;
    }
    Some(Outcome { selection, openssl })
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

/// Where OpenSSL is, read from the same variables `openssl-sys` reads, in the same order:
/// `OPENSSL_LIB_DIR` + `OPENSSL_INCLUDE_DIR`, then `OPENSSL_DIR`, then pkg-config (unless
/// `OPENSSL_NO_PKG_CONFIG`), then the compiler's defaults.
pub fn locate_openssl(env: &Env) -> SearchPaths {
    let lib_dir = env.target_var("OPENSSL_LIB_DIR").map(PathBuf::from);
    let include_dir = env.target_var("OPENSSL_INCLUDE_DIR").map(PathBuf::from);
    let as_strings = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect();
    if let (Some(lib), Some(include)) = (&lib_dir, &include_dir) {
        return SearchPaths {
            location: Location::LibAndIncludeDirs,
            lib_dirs: as_strings(std::slice::from_ref(lib)),
            include_dirs: as_strings(std::slice::from_ref(include)),
        };
    }
    if let Some(dir) = env.target_var("OPENSSL_DIR").map(PathBuf::from) {
        let lib_dirs = match lib_dir {
            Some(lib) => vec![lib],
            None => {
                let found: Vec<PathBuf> = ["lib64", "lib"]
                    .iter()
                    .map(|d| dir.join(d))
                    .filter(|d| d.exists())
                    .collect();
                if found.is_empty() {
                    vec![dir.join("lib")] // named in the failure, as the directory tried
                } else {
                    found
                }
            }
        };
        return SearchPaths {
            location: Location::OpensslDir(dir.display().to_string()),
            lib_dirs: as_strings(&lib_dirs),
            include_dirs: as_strings(&[include_dir.unwrap_or_else(|| dir.join("include"))]),
        };
    }
    for name in [
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        env.target_var(name);
    }
    if !env.target_flag("OPENSSL_NO_PKG_CONFIG")
        && let Ok(lib) = pkg_config::Config::new()
            .cargo_metadata(false)
            .env_metadata(false)
            .print_system_libs(false)
            .probe("openssl")
    {
        let mut lib_dirs = as_strings(&lib.link_paths);
        if lib_dirs.is_empty() {
            // pkg-config leaves out -L for the system directory; name it anyway, so that a failure
            // says where the library was looked for.
            lib_dirs.extend(pkg_config::get_variable("openssl", "libdir").ok());
        }
        return SearchPaths {
            location: Location::PkgConfig,
            lib_dirs,
            include_dirs: as_strings(&lib.include_paths),
        };
    }
    SearchPaths {
        location: Location::CompilerDefault,
        lib_dirs: Vec::new(),
        include_dirs: Vec::new(),
    }
}

/// Compiles and links `compat/probe-*.c` against the libraries, the way autoconf's `AC_CHECK_LIB`
/// does, with the C compiler the `cc` crate picks for the target.
pub fn probe_capability(
    manifest_dir: &Path,
    out_dir: &Path,
    paths: &SearchPaths,
    capability: Capability,
) -> Result<(), Box<ProbeFailure>> {
    let source = manifest_dir.join(capability.source());
    let exe = out_dir.join(
        source
            .file_stem()
            .map_or_else(|| OsString::from("probe"), |s| s.to_os_string()),
    );
    let fail = |command: String, output: String| {
        Box::new(ProbeFailure {
            capability,
            paths: paths.clone(),
            command,
            output,
        })
    };
    let compiler = match cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_get_compiler()
    {
        Ok(c) => c,
        Err(e) => return Err(fail("(no C compiler)".into(), e.to_string())),
    };
    let mut cmd = compiler.to_command();
    cmd.arg(&source).arg("-o").arg(&exe);
    for dir in &paths.include_dirs {
        cmd.arg(format!("-I{dir}"));
    }
    for dir in &paths.lib_dirs {
        cmd.arg(format!("-L{dir}"));
    }
    for lib in capability.libraries() {
        cmd.arg(format!("-l{lib}"));
    }
    let shown = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stdout));
            let tail: Vec<&str> = text.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(fail(shown, tail.join("\n")))
        }
        Err(e) => Err(fail(shown, format!("could not run the compiler: {e}"))),
    }
}

/// Writes `contents` unless the file already holds exactly that (keeps mtimes stable).
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    fs::write(path, contents)
}

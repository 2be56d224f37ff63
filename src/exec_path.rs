//! Finding and running a helper program (`flagsplit imap-send` runs `flagsplit-imap-send`), as git
//! runs `git-imap-send`: from `FLAGSPLIT_EXEC_PATH` when set, else from the directory of the
//! running executable, else from `PATH`. Keeping the sender a separate executable is what keeps
//! TLS (and libssl) out of `flagsplit` itself.
//!
//! Self-contained (std only) so that the `flagsplit` binary can include it without pulling in any
//! IMAP code.
//!
//! Under `cargo run` a helper may not be built yet: `cargo run` builds only the binary it runs, so
//! `cargo run --release -- fsck` on a fresh checkout starts a `flagsplit` with no `flagsplit-fsck`
//! beside it. When a helper is found nowhere and this process was started by `cargo run` of this
//! package (Cargo sets `CARGO`, `CARGO_MANIFEST_PATH` and `CARGO_PKG_NAME` for it), [`find`] asks the same Cargo to
//! build the helper into the same target directory, with the same profile, target and features
//! ([`CargoRun`]), and uses what it built. The selection variables and `config.toml` reach that
//! build as they reached the first one (the environment is inherited, the file is read again);
//! what `cargo run` itself added to the environment (the package's `CARGO_PKG_*`, `CARGO_MANIFEST_*`,
//! `OUT_DIR`, the build script's `rustc-env` values: [`CARGO_RUN_VARS`]) is taken out, so that
//! the second build sees the environment the first one saw — a build script that watches one of
//! them (`ring`'s watches `CARGO_PKG_NAME`) would otherwise be rerun, and this package's own
//! refuses `FLAGSPLIT_*` names it does not know.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the directory helpers are looked up in first.
pub const EXEC_PATH_VAR: &str = "FLAGSPLIT_EXEC_PATH";

/// Where a helper was looked for, when it was not found.
#[derive(Debug)]
pub struct NotFound {
    /// The helper's file name.
    pub name: String,
    /// Every place tried, in order.
    pub tried: Vec<String>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' was not found (looked in {}); install it beside flagsplit ('cargo install --path .' installs both) or set {EXEC_PATH_VAR}",
            self.name,
            self.tried.join(", ")
        )
    }
}

impl std::error::Error for NotFound {}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Finds helper `name` with explicit inputs (for tests): `exec_path` (`FLAGSPLIT_EXEC_PATH`),
/// `own_dir` (the running executable's directory), `path` (`PATH`).
pub fn find_in(
    name: &str,
    exec_path: Option<&OsStr>,
    own_dir: Option<&Path>,
    path: Option<&OsStr>,
) -> Result<PathBuf, NotFound> {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let mut tried = Vec::new();
    if let Some(dir) = exec_path.filter(|d| !d.is_empty()) {
        let candidate = Path::new(dir).join(&file);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        tried.push(format!("{EXEC_PATH_VAR}={}", Path::new(dir).display()));
    }
    if let Some(dir) = own_dir {
        let candidate = dir.join(&file);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
        tried.push(dir.display().to_string());
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(path) {
            let dir = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            };
            let candidate = dir.join(&file);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
        tried.push("PATH".to_string());
    }
    Err(NotFound { name: file, tried })
}

/// Finds helper `name` from the real environment; under `cargo run` of this package, builds it
/// when it is found nowhere (see the module's documentation).
pub fn find(name: &str) -> Result<PathBuf, NotFound> {
    let exec_path = std::env::var_os(EXEC_PATH_VAR);
    let exe = std::env::current_exe()
        .ok()
        .map(|exe| exe.canonicalize().unwrap_or(exe));
    let own_dir = exe.as_deref().and_then(Path::parent);
    let path = std::env::var_os("PATH");
    let not_found = match find_in(name, exec_path.as_deref(), own_dir, path.as_deref()) {
        Ok(found) => return Ok(found),
        Err(e) => e,
    };
    let cargo = std::env::var_os("CARGO");
    let manifest = std::env::var_os("CARGO_MANIFEST_PATH");
    let package = std::env::var_os("CARGO_PKG_NAME");
    let Some(run) = exe.as_deref().and_then(|exe| {
        CargoRun::detect(
            exe,
            cargo.as_deref()?,
            manifest.as_deref()?,
            package.as_deref()?,
        )
    }) else {
        return Err(not_found);
    };
    run.build(name, not_found)
}

/// What `cargo run` adds to the environment of the program it runs, beyond what the user had:
/// every name here, and every name starting with `CARGO_PKG_`. `FLAGSPLIT_RUSTC` is this
/// package's build script's `rustc-env`.
pub const CARGO_RUN_VARS: &[&str] = &[
    "CARGO",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "OUT_DIR",
    "FLAGSPLIT_RUSTC",
];

/// Whether `cargo run` put variable `name` in the environment (see [`CARGO_RUN_VARS`]).
pub fn set_by_cargo_run(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.starts_with("CARGO_PKG_") || CARGO_RUN_VARS.contains(&n))
}

/// The Cargo features of this package that are on in this build, as `cargo build --features`
/// takes them (`default` aside: the list is complete, so it goes with `--no-default-features`).
pub const FEATURES: &[(&str, bool)] = &[
    ("openssl-sha1", cfg!(feature = "openssl-sha1")),
    ("openssl-md5", cfg!(feature = "openssl-md5")),
    ("openssl-sha256", cfg!(feature = "openssl-sha256")),
    ("openssl-tls", cfg!(feature = "openssl-tls")),
    ("rustls-tls", cfg!(feature = "rustls-tls")),
    ("openssl-vendored", cfg!(feature = "openssl-vendored")),
    ("zlib-miniz", cfg!(feature = "zlib-miniz")),
    ("zlib-system", cfg!(feature = "zlib-system")),
    ("zlib-ng", cfg!(feature = "zlib-ng")),
];

/// A `flagsplit` started by `cargo run` of this package: where Cargo put it, and how to ask the same
/// Cargo for a sibling binary built the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CargoRun {
    /// The `cargo` that ran this process (`CARGO`).
    pub cargo: PathBuf,
    /// The package's manifest (`CARGO_MANIFEST_PATH`).
    pub manifest: PathBuf,
    /// The target directory (the one holding Cargo's `CACHEDIR.TAG`).
    pub target_dir: PathBuf,
    /// `--target`, when the binary is under `TARGET_DIR/TRIPLE/PROFILE/`.
    pub triple: Option<String>,
    /// The Cargo profile (`dev` for the `debug` directory).
    pub profile: String,
    /// Where the sibling binaries go.
    pub out_dir: PathBuf,
}

impl CargoRun {
    /// Recognises `exe` as a binary Cargo built for the package whose manifest is `manifest` and
    /// started with `cargo` (`None` for anything else: an installed binary, another package's
    /// `cargo run`, a binary outside a target directory). `package` is the name `cargo run` gave
    /// (`CARGO_PKG_NAME`), which must be this package's. Nothing of the directory this package was
    /// compiled in is kept in the binary: a packaged build would name its build directory.
    pub fn detect(
        exe: &Path,
        cargo: &OsStr,
        manifest: &OsStr,
        package: &OsStr,
    ) -> Option<CargoRun> {
        let manifest = PathBuf::from(manifest);
        if cargo.is_empty() || package != env!("CARGO_PKG_NAME") || !manifest.is_file() {
            return None;
        }
        let out_dir = exe.parent()?;
        let profile_dir = out_dir.file_name()?.to_str()?;
        let above = out_dir.parent()?;
        let (target_dir, triple) = if above.join("CACHEDIR.TAG").is_file() {
            (above.to_path_buf(), None)
        } else {
            let top = above.parent()?;
            if !top.join("CACHEDIR.TAG").is_file() {
                return None;
            }
            (
                top.to_path_buf(),
                Some(above.file_name()?.to_str()?.to_string()),
            )
        };
        let profile = match profile_dir {
            "debug" => "dev",
            other => other,
        };
        Some(CargoRun {
            cargo: PathBuf::from(cargo),
            manifest,
            target_dir,
            triple,
            profile: profile.to_string(),
            out_dir: out_dir.to_path_buf(),
        })
    }

    /// The arguments of `cargo` that build binary `name` as this one was built.
    pub fn args(&self, name: &str, features: &[(&str, bool)]) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["build".into(), "--manifest-path".into()];
        args.push(self.manifest.clone().into_os_string());
        args.extend(["--bin".into(), name.into(), "--profile".into()]);
        args.push(self.profile.clone().into());
        args.push("--target-dir".into());
        args.push(self.target_dir.clone().into_os_string());
        if let Some(triple) = &self.triple {
            args.extend(["--target".into(), triple.into()]);
        }
        args.push("--no-default-features".into());
        let on: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
        if !on.is_empty() {
            args.extend(["--features".into(), on.join(",").into()]);
        }
        args
    }

    /// Builds helper `name` with Cargo, its progress on standard error, and returns its path;
    /// `not_found` (with the failed build added) when that fails.
    fn build(&self, name: &str, mut not_found: NotFound) -> Result<PathBuf, NotFound> {
        let mut cmd = Command::new(&self.cargo);
        cmd.args(self.args(name, FEATURES));
        for (var, _) in std::env::vars_os() {
            if set_by_cargo_run(&var) {
                cmd.env_remove(var);
            }
        }
        // Cargo writes nothing meant for standard output here; keep the helper's stdout its own.
        cmd.stdout(std::process::Stdio::null());
        let built = self
            .out_dir
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        match cmd.status() {
            Ok(status) if status.success() && is_executable(&built) => Ok(built),
            Ok(status) => {
                not_found.tried.push(format!(
                    "`cargo build --bin {name}` for this cargo run, which failed ({status})"
                ));
                Err(not_found)
            }
            Err(e) => {
                not_found.tried.push(format!(
                    "`cargo build --bin {name}` for this cargo run, which could not start ({e})"
                ));
                Err(not_found)
            }
        }
    }
}

/// Why a helper could not be run.
#[derive(Debug)]
pub enum RunError {
    /// Not found.
    NotFound(NotFound),
    /// Found but could not be started.
    Spawn(PathBuf, io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::NotFound(n) => n.fmt(f),
            RunError::Spawn(path, e) => write!(f, "cannot run {}: {e}", path.display()),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs helper `name` with `args`, replacing this process on Unix (so signals, the exit status
/// and the terminal all belong to the helper); elsewhere, runs it and exits with its status.
/// Returns only on failure.
pub fn exec(name: &str, args: impl IntoIterator<Item = OsString>) -> RunError {
    let path = match find(name) {
        Ok(p) => p,
        Err(e) => return RunError::NotFound(e),
    };
    let mut cmd = Command::new(&path);
    cmd.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = cmd.exec();
        RunError::Spawn(path, e)
    }
    #[cfg(not(unix))]
    {
        match cmd.status() {
            Ok(status) => std::process::exit(status.code().unwrap_or(1)),
            Err(e) => RunError::Spawn(path, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target directory as Cargo lays it out, with `flagsplit` in `rel`.
    fn layout(rel: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target");
        std::fs::create_dir_all(target.join(rel).parent().expect("parent")).expect("mkdir");
        std::fs::write(
            target.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .expect("tag");
        let exe = target.join(rel);
        std::fs::write(&exe, "").expect("exe");
        (dir, exe)
    }

    fn own() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    fn ours() -> &'static OsStr {
        OsStr::new(env!("CARGO_PKG_NAME"))
    }

    fn manifest() -> OsString {
        own().join("Cargo.toml").into_os_string()
    }

    #[test]
    fn a_cargo_run_binary_is_recognised_with_its_profile_and_target() {
        let (dir, exe) = layout("release/flagsplit");
        let run = CargoRun::detect(&exe, OsStr::new("/c/cargo"), &manifest(), ours()).expect("run");
        assert_eq!(run.profile, "release");
        assert_eq!(run.triple, None);
        assert_eq!(run.target_dir, dir.path().join("target"));
        assert_eq!(run.out_dir, dir.path().join("target/release"));

        let (_dir, exe) = layout("debug/flagsplit");
        let run = CargoRun::detect(&exe, OsStr::new("cargo"), &manifest(), ours()).expect("run");
        assert_eq!(run.profile, "dev", "the debug directory is the dev profile");

        let (dir, exe) = layout("x86_64-unknown-linux-gnu/bench-fast/flagsplit");
        let run = CargoRun::detect(&exe, OsStr::new("cargo"), &manifest(), ours()).expect("run");
        assert_eq!(run.profile, "bench-fast");
        assert_eq!(run.triple.as_deref(), Some("x86_64-unknown-linux-gnu"));
        assert_eq!(run.target_dir, dir.path().join("target"));
    }

    #[test]
    fn other_binaries_and_other_packages_are_not_built_for() {
        let (_dir, exe) = layout("release/flagsplit");
        // Another package's `cargo run` (its name is not ours).
        let other = tempfile::tempdir().expect("tempdir");
        std::fs::write(other.path().join("Cargo.toml"), "").expect("manifest");
        let theirs = other.path().join("Cargo.toml").into_os_string();
        assert_eq!(
            CargoRun::detect(&exe, OsStr::new("cargo"), &theirs, OsStr::new("their-app")),
            None
        );
        // A manifest that is not there.
        let gone = other.path().join("gone/Cargo.toml").into_os_string();
        assert_eq!(
            CargoRun::detect(&exe, OsStr::new("cargo"), &gone, ours()),
            None
        );
        // No cargo.
        assert_eq!(
            CargoRun::detect(&exe, OsStr::new(""), &manifest(), ours()),
            None
        );
        // An installed binary: no CACHEDIR.TAG above it.
        let bin = tempfile::tempdir().expect("tempdir");
        let installed = bin.path().join("bin/flagsplit");
        std::fs::create_dir_all(installed.parent().expect("parent")).expect("mkdir");
        assert_eq!(
            CargoRun::detect(&installed, OsStr::new("cargo"), &manifest(), ours()),
            None
        );
    }

    #[test]
    fn the_sibling_is_built_with_the_same_profile_target_and_features() {
        let run = CargoRun {
            cargo: "cargo".into(),
            manifest: "/src/Cargo.toml".into(),
            target_dir: "/t".into(),
            triple: Some("aarch64-unknown-linux-gnu".into()),
            profile: "release".into(),
            out_dir: "/t/aarch64-unknown-linux-gnu/release".into(),
        };
        let args = run.args(
            "flagsplit-fsck",
            &[
                ("zlib-ng", true),
                ("rustls-tls", false),
                ("openssl-tls", true),
            ],
        );
        assert_eq!(
            args,
            [
                "build",
                "--manifest-path",
                "/src/Cargo.toml",
                "--bin",
                "flagsplit-fsck",
                "--profile",
                "release",
                "--target-dir",
                "/t",
                "--target",
                "aarch64-unknown-linux-gnu",
                "--no-default-features",
                "--features",
                "zlib-ng,openssl-tls",
            ]
            .map(OsString::from)
        );
        let none = CargoRun {
            triple: None,
            ..run
        };
        let args = none.args("flagsplit-fsck", &[("rustls-tls", false)]);
        assert_eq!(
            args.last().map(OsString::as_os_str),
            Some(OsStr::new("--no-default-features"))
        );
    }

    #[test]
    fn what_cargo_run_adds_is_taken_out_and_the_build_scripts_values_are_known() {
        for name in [
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_PRE",
            "OUT_DIR",
            "CARGO",
        ] {
            assert!(set_by_cargo_run(OsStr::new(name)), "{name}");
        }
        for name in [
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "FLAGSPLIT_SHA1_PROVIDER",
            "PATH",
        ] {
            assert!(!set_by_cargo_run(OsStr::new(name)), "{name}");
        }
        // Every `rustc-env` of the build script is something `cargo run` sets.
        let build = std::fs::read_to_string(own().join("build.rs")).expect("build.rs");
        for rest in build.split("rustc-env=").skip(1) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(
                set_by_cargo_run(OsStr::new(&name)),
                "build.rs sets {name} with rustc-env: add it to CARGO_RUN_VARS"
            );
        }
    }

    #[test]
    fn every_feature_of_the_manifest_is_passed_on() {
        let manifest = std::fs::read_to_string(own().join("Cargo.toml")).expect("Cargo.toml");
        let section = manifest
            .split("\n[features]\n")
            .nth(1)
            .and_then(|rest| rest.split("\n[").next())
            .expect("a [features] table");
        let declared: Vec<&str> = section
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim()))
            .filter(|k| !k.starts_with('#') && *k != "default")
            .collect();
        let known: Vec<&str> = FEATURES.iter().map(|f| f.0).collect();
        assert_eq!(
            declared, known,
            "exec_path::FEATURES must list Cargo.toml's features in order"
        );
    }
}

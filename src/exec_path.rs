//! Finding and running a helper program (`flagsplit imap-send` runs `flagsplit-imap-send`), as git
//! runs `git-imap-send`: from `FLAGSPLIT_EXEC_PATH` when set, else from the directory of the
//! running executable, else from `PATH`. Keeping the sender a separate executable is what keeps
//! TLS (and libssl) out of `flagsplit` itself.
//!
//! Self-contained (std only) so that the `flagsplit` binary can include it without pulling in any
//! IMAP code.

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

/// Finds helper `name` from the real environment.
pub fn find(name: &str) -> Result<PathBuf, NotFound> {
    let exec_path = std::env::var_os(EXEC_PATH_VAR);
    let own_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.canonicalize().ok().or(Some(exe)))
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    let path = std::env::var_os("PATH");
    find_in(
        name,
        exec_path.as_deref(),
        own_dir.as_deref(),
        path.as_deref(),
    )
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

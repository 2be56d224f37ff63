//! Which object format applies where a command runs: that of the repository git would find
//! (`GIT_DIR`, else the nearest directory upwards with a `.git` directory or `.git` file, or that is
//! itself a bare repository, stopping at `GIT_CEILING_DIRECTORIES`), read from its configuration
//! (`extensions.objectFormat`); SHA-1 outside any repository. And the repository itself as a
//! command finds it ([`locate`]): named as git names it, with the directory git works from.

use std::fs;
use std::path::{Path, PathBuf};

use super::ObjectFormat;

/// The object format for a command run in the current directory.
pub fn current_format() -> Result<ObjectFormat, String> {
    match find_git_dir()? {
        Some(git_dir) => format_of(&git_dir),
        None => Ok(ObjectFormat::Sha1),
    }
}

/// The repository's git directory, as git's discovery finds it.
pub fn find_git_dir() -> Result<Option<PathBuf>, String> {
    Ok(discover()?.map(|(dir, _)| dir))
}

/// How a git directory was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// `GIT_DIR` names it.
    Env,
    /// A `.git` directory or file in a directory at or above the current one (a worktree).
    WorkTree,
    /// The current directory, or one above it, is itself the git directory (a bare repository,
    /// or inside a `.git` directory).
    GitDir,
}

/// [`find_git_dir`], and how it was found.
pub fn discover() -> Result<Option<(PathBuf, Found)>, String> {
    if let Some(dir) = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty()) {
        return Ok(Some((PathBuf::from(dir), Found::Env)));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| format!("unable to get current working directory: {e}"))?;
    let ceiling = ceiling_len(&cwd);
    let mut dir: &Path = &cwd;
    loop {
        let dot_git = dir.join(".git");
        if let Ok(meta) = fs::metadata(&dot_git) {
            if meta.is_file() {
                return read_git_file(&dot_git, dir).map(|d| Some((d, Found::WorkTree)));
            }
            if meta.is_dir() && is_git_directory(&dot_git) {
                return Ok(Some((dot_git, Found::WorkTree)));
            }
        }
        if is_git_directory(dir) {
            return Ok(Some((dir.to_path_buf(), Found::GitDir)));
        }
        match dir.parent() {
            Some(parent) if parent.as_os_str().len() > ceiling => dir = parent,
            Some(parent) if ceiling == 0 => dir = parent,
            _ => return Ok(None),
        }
    }
}

/// The length of the longest `GIT_CEILING_DIRECTORIES` entry that is a proper ancestor of `cwd`
/// (0 when there is none): discovery does not go up into it.
fn ceiling_len(cwd: &Path) -> usize {
    let Some(list) = std::env::var_os("GIT_CEILING_DIRECTORIES") else {
        return 0;
    };
    std::env::split_paths(&list)
        .filter(|c| c.is_absolute())
        .map(|c| fs::canonicalize(&c).unwrap_or(c))
        .filter(|c| cwd.starts_with(c) && cwd != c)
        .map(|c| c.as_os_str().len())
        .max()
        .unwrap_or(0)
}

/// A `.git` file: `gitdir: <path>`, relative to the directory holding it.
fn read_git_file(file: &Path, dir: &Path) -> Result<PathBuf, String> {
    let text =
        fs::read_to_string(file).map_err(|e| format!("error reading {}: {e}", file.display()))?;
    let target = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gitdir: "))
        .map(str::trim_end)
        .ok_or_else(|| format!("invalid gitfile format: {}", file.display()))?;
    Ok(dir.join(target))
}

/// What git requires of a git directory: `HEAD`, and `objects` (or a `commondir` file, in a
/// linked worktree's directory).
fn is_git_directory(dir: &Path) -> bool {
    if !valid_head(&dir.join("HEAD")) {
        return false;
    }
    let common = match fs::read_to_string(dir.join("commondir")) {
        Ok(text) => dir.join(text.trim_end()),
        Err(_) => dir.to_path_buf(),
    };
    let objects = match std::env::var_os("GIT_OBJECT_DIRECTORY") {
        Some(o) => PathBuf::from(o),
        None => common.join("objects"),
    };
    objects.is_dir() && common.join("refs").is_dir()
}

/// git's `validate_headref`: HEAD is a symbolic link into `refs/`, a `ref: refs/...` file, or
/// a detached id (hex of either length).
fn valid_head(path: &Path) -> bool {
    // readlink(2) succeeds only on a symbolic link. (Asked instead of lstat(2): flagsplit imports
    // readlink already, and each C function it imports costs every process's start-up a lookup.)
    if let Ok(target) = fs::read_link(path) {
        return target.starts_with("refs/");
    }
    let Ok(bytes) = fs::read(path) else {
        return false;
    };
    let bytes = &bytes[..bytes.len().min(255)];
    if let Some(rest) = bytes.strip_prefix(b"ref:") {
        let rest = rest.trim_ascii_start();
        if rest.starts_with(b"refs/") {
            return true;
        }
    }
    let hex = bytes.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    (hex == 40 || hex == 64) && bytes.get(hex).is_none_or(|c| c.is_ascii_whitespace())
}

/// The object format a git directory's configuration declares.
pub fn format_of(git_dir: &Path) -> Result<ObjectFormat, String> {
    let common = match fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim_end()),
        Err(_) => git_dir.to_path_buf(),
    };
    let config = match fs::read(common.join("config")) {
        Ok(bytes) => bytes,
        Err(_) => return Ok(ObjectFormat::Sha1),
    };
    match config_value(&config, "extensions", "objectformat") {
        None => Ok(ObjectFormat::Sha1),
        Some(v) => ObjectFormat::from_name(&v)
            .ok_or_else(|| format!("invalid value for 'extensions.objectformat': '{v}'")),
    }
}

/// The last value of `section.key` (both ASCII case-insensitive, no subsection) in a git
/// configuration file.
fn config_value(config: &[u8], section: &str, key: &str) -> Option<String> {
    let text = String::from_utf8_lossy(config);
    let mut in_section = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let name = header.split(']').next().unwrap_or("").trim();
            in_section = name.eq_ignore_ascii_case(section);
            // `[section] key = value` on one line
            let after = header.split_once(']').map_or("", |(_, rest)| rest.trim());
            if in_section
                && !after.is_empty()
                && let Some(v) = key_value(after, key)
            {
                found = Some(v);
            }
            continue;
        }
        if in_section && let Some(v) = key_value(line, key) {
            found = Some(v);
        }
    }
    found
}

/// The value of `key = value` when the line sets `key`, without comments or quotes.
fn key_value(line: &str, key: &str) -> Option<String> {
    let (k, v) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), v),
        None => (line.trim(), "true"),
    };
    if !k.eq_ignore_ascii_case(key) {
        return None;
    }
    let mut out = String::new();
    let mut quoted = false;
    for c in v.chars() {
        match c {
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    Some(out.trim().to_string())
}

/// The repository as found: its git directory (as git names it in messages), its common
/// directory and its object format.
#[derive(Clone, Debug)]
pub struct Repo {
    /// The git directory of the worktree the command runs in.
    pub git_dir: PathBuf,
    /// The common directory (`commondir`), where objects and shared refs live.
    pub common_dir: PathBuf,
    /// The object format.
    pub format: ObjectFormat,
}

/// The repository as git finds it, and where git would work from.
#[derive(Clone, Debug)]
pub struct Located {
    /// The repository, its paths named as git names them from [`Located::work_dir`].
    pub repo: Repo,
    /// The directory git changes to before it runs (the top of the worktree, or a bare
    /// repository; `None` when git stays where it is): the paths in `repo` are relative to it.
    /// The engine never changes the working directory; the program that runs it does, as git
    /// does ([`Located::enter`]), or names the repository by absolute paths instead.
    pub work_dir: Option<PathBuf>,
}

impl Located {
    /// Changes the process's working directory to [`Located::work_dir`], as git does, and gives
    /// the repository, named from there; git's message when it cannot.
    pub fn enter(self) -> Result<Repo, String> {
        if let Some(dir) = &self.work_dir {
            std::env::set_current_dir(dir).map_err(|e| {
                format!(
                    "cannot chdir to '{}': {}",
                    dir.display(),
                    crate::os_error::strerror(&e)
                )
            })?;
        }
        Ok(self.repo)
    }
}

/// Finds the repository as git does (`GIT_DIR`, else upwards from the current directory) and
/// names its git directory as git prints it, from the directory git works from (git's message
/// when there is none).
pub fn locate() -> Result<Located, String> {
    let found = discover()?;
    let Some((git_dir, how)) = found else {
        return Err("not a git repository (or any of the parent directories): .git".to_string());
    };
    let (display, work_dir) = match how {
        Found::Env => explicit_git_dir(&git_dir),
        Found::WorkTree => display_git_dir(&git_dir),
        // git's `setup_bare_git_dir`: `.` in the git directory itself, its real path from a
        // directory inside it (which stays the current one).
        Found::GitDir => {
            let here = std::env::current_dir().ok();
            if here.as_deref() == Some(git_dir.as_path()) {
                (PathBuf::from("."), None)
            } else {
                (git_dir.clone(), None)
            }
        }
    };
    let from_here = |p: &Path| {
        work_dir
            .as_ref()
            .map_or_else(|| p.to_path_buf(), |w| w.join(p))
    };
    let common_dir = match std::fs::read_to_string(from_here(&display).join("commondir")) {
        Ok(text) => {
            let c = Path::new(text.trim_end());
            if c.is_absolute() {
                c.to_path_buf()
            } else {
                display.join(c)
            }
        }
        Err(_) => display.clone(),
    };
    let format = format_of(&git_dir)?;
    Ok(Located {
        repo: Repo {
            git_dir: display,
            common_dir,
            format,
        },
        work_dir,
    })
}

/// git's `setup_explicit_git_dir` for `GIT_DIR` (`git_dir`): run from inside its worktree but
/// not at its top (`GIT_WORK_TREE`, else `core.worktree`, unless `core.bare`), git works from the
/// top and names the git directory by its real path; otherwise as `GIT_DIR` gives it. Returns
/// the name and the directory to work from, when it is not the current one.
fn explicit_git_dir(git_dir: &Path) -> (PathBuf, Option<PathBuf>) {
    let unchanged = (git_dir.to_path_buf(), None);
    let Ok(cwd) = std::env::current_dir() else {
        return unchanged;
    };
    let work_tree = match std::env::var_os("GIT_WORK_TREE").filter(|w| !w.is_empty()) {
        Some(w) => Some(PathBuf::from(w)),
        None => {
            let config = crate::gitconfig::Config::load_for_repo(git_dir, git_dir).ok();
            let get = |k: &str| {
                config
                    .as_ref()
                    .and_then(|c| c.get(k))
                    .and_then(|e| e.value_str())
            };
            let bare = config
                .as_ref()
                .and_then(|c| c.get_bool("core.bare").ok().flatten())
                .unwrap_or(false);
            match get("core.worktree") {
                _ if bare => None,
                Some(w) => {
                    use std::os::unix::ffi::OsStrExt;
                    Some(git_dir.join(std::ffi::OsStr::from_bytes(w)))
                }
                None => None,
            }
        }
    };
    let Some(top) = work_tree.and_then(|w| std::fs::canonicalize(w).ok()) else {
        return unchanged;
    };
    if cwd != top && cwd.starts_with(&top) {
        let real = std::fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.to_path_buf());
        return (real, Some(top));
    }
    unchanged
}

/// git works from the top of the worktree (or inside a bare repository), so it names a
/// discovered `.git` directory `.git`, and a bare repository `.`: the name, and the directory to
/// work from.
fn display_git_dir(git_dir: &Path) -> (PathBuf, Option<PathBuf>) {
    if git_dir.file_name().is_some_and(|n| n == ".git") && git_dir.is_dir() {
        if let Some(top) = git_dir.parent() {
            return (PathBuf::from(".git"), Some(top.to_path_buf()));
        }
    } else if git_dir.is_dir() {
        return (PathBuf::from("."), Some(git_dir.to_path_buf()));
    }
    (git_dir.to_path_buf(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_extension() {
        let config =
            b"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256 # c\n";
        assert_eq!(
            config_value(config, "extensions", "objectformat").as_deref(),
            Some("sha256")
        );
        assert_eq!(
            config_value(
                b"[Extensions] objectformat = \"SHA1\"\n",
                "extensions",
                "objectformat"
            )
            .as_deref(),
            Some("SHA1")
        );
        assert_eq!(
            config_value(b"[core]\n", "extensions", "objectformat"),
            None
        );
    }
}

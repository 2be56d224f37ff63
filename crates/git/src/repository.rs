//! Which object format applies where a command runs: that of the repository git would find
//! (`GIT_DIR`, else the nearest directory upwards with a `.git` directory or `.git` file, or that is
//! itself a bare repository, stopping at `GIT_CEILING_DIRECTORIES`), read from its configuration
//! (`extensions.objectFormat`); SHA-1 outside any repository.

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

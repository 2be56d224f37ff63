//! A reader of git's configuration syntax (git's `config.c`), and of a repository's
//! configuration in the order git reads it.
//!
//! The syntax, as git parses it byte by byte:
//! - `[section]` (section names are ASCII letters, digits, `-` and `.`, lowercased),
//!   `[section "subsection"]` (the subsection keeps its case; `\` escapes the next character) and
//!   the legacy `[section.subsection]` (all lowercased);
//! - `name = value` lines, where the name (letters, digits, `-`, starting with a letter) is
//!   lowercased, a name without `=` means true (no value), values may be quoted (`"..."`),
//!   escape `\n \t \b \" \\`, continue on the next line after `\`, and end at a `#` or `;` outside
//!   quotes; unquoted whitespace at the ends is dropped and inner runs kept;
//! - `\r\n` reads as `\n`, a UTF-8 byte order mark at the start is skipped.
//!
//! Anything else is `bad config line N in file PATH`, which git dies with (exit 128) when it reads
//! a configuration file, and which `.gitmodules` blobs report silently.
//!
//! [`Config::load_for_repo`] reads the system, global, repository, worktree and command-line
//! (environment) configuration in git's order, following `include.path` and `includeIf.<cond>.path`
//! (`gitdir:`, `gitdir/i:`, `onbranch:`, `hasconfig:remote.*.url:`; other conditions are false).

use std::fs;
use std::path::{Path, PathBuf};

/// How deep `include.path` may nest before git gives up (its `MAX_INCLUDE_DEPTH`).
const MAX_INCLUDE_DEPTH: usize = 10;

/// Where a configuration value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `/etc/gitconfig` or `GIT_CONFIG_SYSTEM`.
    System,
    /// `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` or `GIT_CONFIG_GLOBAL`.
    Global,
    /// The repository's `config`.
    Local,
    /// The worktree's `config.worktree`.
    Worktree,
    /// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` or `GIT_CONFIG_PARAMETERS`
    /// (what `git -c` passes on).
    Command,
    /// Bytes given to [`Config::parse`] (a file, or a blob such as `.gitmodules`).
    Unknown,
}

/// One `name = value` as git's callbacks see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// `section.name` or `section.subsection.name` in git's canonical case (section and name
    /// lowercased, the subsection as written), cut at a NUL byte as git's C strings are; bytes
    /// that are not UTF-8 are replaced (see [`Entry::key_bytes`]).
    pub key: String,
    /// The key's bytes, exactly as git's callbacks receive them.
    pub key_bytes: Vec<u8>,
    /// The value; `None` for a name without `=` (which git's boolean rules read as true).
    pub value: Option<Vec<u8>>,
    /// The file the entry is in (empty for the command line and for blobs).
    pub origin: PathBuf,
    /// Its line, from 1 (0 for the command line).
    pub line: usize,
    /// Which configuration it belongs to.
    pub scope: Scope,
}

impl Entry {
    /// The value up to its first NUL byte (what git's C callbacks see), if there is one.
    pub fn value_str(&self) -> Option<&[u8]> {
        self.value
            .as_deref()
            .map(|v| v.split(|&b| b == 0).next().unwrap_or(v))
    }

    /// Where git says the value is, in its numeric errors: ` in file PATH`, ` in command line `
    /// or ` in blob NAME`.
    fn where_(&self) -> String {
        match self.scope {
            Scope::Command => " in command line ".to_string(),
            _ if self.origin.as_os_str().is_empty() => String::new(),
            _ => format!(" in file {}", self.origin.display()),
        }
    }
}

/// What made git stop reading configuration: its messages, ready to print on stderr (each line
/// carries git's `error: ` or `fatal: ` prefix); git exits with status 128 after them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .lines.join("\n"))]
pub struct ConfigError {
    /// The stderr lines, in order; the last one is the `fatal:` line.
    pub lines: Vec<String>,
}

impl ConfigError {
    fn fatal(text: impl Into<String>) -> ConfigError {
        ConfigError {
            lines: vec![format!("fatal: {}", text.into())],
        }
    }

    fn with_error(error: impl Into<String>, fatal: impl Into<String>) -> ConfigError {
        ConfigError {
            lines: vec![
                format!("error: {}", error.into()),
                format!("fatal: {}", fatal.into()),
            ],
        }
    }

    /// The exit status git uses after these messages.
    pub fn exit_code(&self) -> i32 {
        128
    }
}

/// A configuration: every entry in the order git's callbacks see them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The entries, in reading order (later ones override earlier ones for single values).
    pub entries: Vec<Entry>,
}

/// The result of parsing one source: the entries before a syntax error, and the error.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The entries read (all of them when `bad_line` is `None`).
    pub entries: Vec<Entry>,
    /// The line of git's `bad config line N`, if parsing stopped there.
    pub bad_line: Option<usize>,
}

/// Canonical form of a key given by a caller: section and name lowercased, subsection kept.
fn canonical_key(key: &str) -> String {
    match (key.find('.'), key.rfind('.')) {
        (Some(first), Some(last)) if first != last => format!(
            "{}{}{}",
            key[..first].to_ascii_lowercase(),
            &key[first..last],
            key[last..].to_ascii_lowercase()
        ),
        _ => key.to_ascii_lowercase(),
    }
}

impl Config {
    /// Parses configuration bytes (a file's content) as git does; `origin` names the file in the
    /// entries and in the error (`bad config line N in file ORIGIN`). Includes are not followed
    /// (see [`Config::load_for_repo`]).
    pub fn parse(bytes: &[u8], origin: &Path) -> Result<Vec<Entry>, ConfigError> {
        let parsed = Config::parse_partial(bytes, origin, Scope::Unknown);
        match parsed.bad_line {
            None => Ok(parsed.entries),
            Some(line) => Err(ConfigError::fatal(format!(
                "bad config line {line} in file {}",
                origin.display()
            ))),
        }
    }

    /// Parses like [`Config::parse`] but keeps the entries before a syntax error: git hands
    /// them to its callbacks before it meets the bad line (a `.gitmodules` blob's earlier
    /// entries are checked, and then the blob fails to parse).
    pub fn parse_partial(bytes: &[u8], origin: &Path, scope: Scope) -> Parsed {
        let mut p = Parser {
            buf: bytes,
            pos: 0,
            linenr: 1,
            eof: false,
            memory: false,
        };
        let mut out = Parsed::default();
        p.run(origin, scope, &mut out);
        out
    }

    /// Parses configuration held in memory, as git's `git_config_from_mem` does for blobs such
    /// as `.gitmodules`. git reads such a buffer through `char`, which is signed: a byte 0xff
    /// reads as the end of the input (the parser then stops at the next line end, and what
    /// follows it on that line is still read), and a UTF-8 byte order mark is not recognised.
    pub fn parse_blob(bytes: &[u8]) -> Parsed {
        let mut p = Parser {
            buf: bytes,
            pos: 0,
            linenr: 1,
            eof: false,
            memory: true,
        };
        let mut out = Parsed::default();
        p.run(Path::new(""), Scope::Unknown, &mut out);
        out
    }

    /// The last entry for `key` (`section.name` or `section.subsection.name`, section and name
    /// in any case).
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.get_all(key).last()
    }

    /// Every entry for `key`, in order.
    pub fn get_all<'a>(&'a self, key: &str) -> impl Iterator<Item = &'a Entry> {
        let key = canonical_key(key);
        self.entries.iter().filter(move |e| e.key == key)
    }

    /// The last value of `key` as a boolean, by git's rules (`true`/`yes`/`on`, `false`/`no`/
    /// `off`, any case; the empty value is false; no value is true; else an integer with an
    /// optional `k`/`m`/`g` unit, true when not zero). An invalid value is git's `fatal: bad
    /// boolean config value 'V' for 'KEY'`.
    pub fn get_bool(&self, key: &str) -> Result<Option<bool>, ConfigError> {
        let Some(e) = self.get(key) else {
            return Ok(None);
        };
        let v = e.value_str();
        parse_maybe_bool(v).map(Some).ok_or_else(|| {
            ConfigError::fatal(format!(
                "bad boolean config value '{}' for '{}'",
                String::from_utf8_lossy(v.unwrap_or(b"")),
                e.key
            ))
        })
    }

    /// The last value of `key` as an unsigned long (decimal, `0x` hex or `0` octal, with an
    /// optional `k`/`m`/`g` unit). An invalid value is git's `fatal: bad numeric config value
    /// 'V' for 'KEY' in file PATH: invalid unit` (or `out of range`).
    pub fn get_ulong(&self, key: &str) -> Result<Option<u64>, ConfigError> {
        let Some(e) = self.get(key) else {
            return Ok(None);
        };
        let v = e.value_str().unwrap_or(b"");
        parse_unsigned(v, u64::MAX).map(Some).map_err(|why| {
            ConfigError::fatal(format!(
                "bad numeric config value '{}' for '{}'{}: {}",
                String::from_utf8_lossy(v),
                e.key,
                e.where_(),
                why
            ))
        })
    }

    /// The configuration git reads for the repository at `git_dir` (whose common directory is
    /// `common_dir`): system, global, the repository's `config`, `config.worktree` when
    /// `extensions.worktreeConfig` is on, then the command line (`GIT_CONFIG_COUNT`... and
    /// `GIT_CONFIG_PARAMETERS`). Includes are followed. Stops at the first error, as git does.
    pub fn load_for_repo(git_dir: &Path, common_dir: &Path) -> Result<Config, ConfigError> {
        let (config, err) = Config::load_for_repo_partial(git_dir, common_dir);
        match err {
            None => Ok(config),
            Some(e) => Err(e),
        }
    }

    /// Like [`Config::load_for_repo`], but also gives the entries read before the error: git
    /// applies each entry as it reads it, so a caller that dies on a bad value should look at
    /// those first (git's message is then the one about the value, not the later bad line).
    pub fn load_for_repo_partial(
        git_dir: &Path,
        common_dir: &Path,
    ) -> (Config, Option<ConfigError>) {
        Config::load_for_repo_with_env(git_dir, common_dir, &|name| std::env::var_os(name))
    }

    /// [`Config::load_for_repo_partial`] with the environment given by `env` (a variable's
    /// value by name) instead of the process's: `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM`,
    /// `GIT_CONFIG_GLOBAL`, `XDG_CONFIG_HOME`, `HOME`, `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`,
    /// `GIT_CONFIG_VALUE_<n>`, `GIT_CONFIG_PARAMETERS`.
    pub fn load_for_repo_with_env(
        git_dir: &Path,
        common_dir: &Path,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Config, Option<ConfigError>) {
        let mut loader = Loader {
            env,
            git_dir,
            config: Config::default(),
            depth: 0,
            unconditional: false,
            forbid_remote_url: false,
            remote_urls: None,
            common_dir: common_dir.to_path_buf(),
        };
        let err = loader.load_all(common_dir).err();
        (loader.config, err)
    }
}

mod load;
mod parser;
#[cfg(test)]
mod tests;
mod values;
mod wildmatch;

pub use load::*;
use parser::*;
pub use values::*;
pub use wildmatch::wildmatch;

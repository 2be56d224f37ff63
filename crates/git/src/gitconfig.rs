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

/// git's `git_parse_maybe_bool`.
pub fn parse_maybe_bool(v: Option<&[u8]>) -> Option<bool> {
    let Some(v) = v else {
        return Some(true);
    };
    if v.is_empty() {
        return Some(false);
    }
    let lower = v.to_ascii_lowercase();
    match &lower[..] {
        b"true" | b"yes" | b"on" => Some(true),
        b"false" | b"no" | b"off" => Some(false),
        _ => parse_signed(v, i64::from(i32::MAX)).ok().map(|n| n != 0),
    }
}

fn unit_factor(end: &[u8]) -> Option<u64> {
    match &end.to_ascii_lowercase()[..] {
        b"" => Some(1),
        b"k" => Some(1024),
        b"m" => Some(1024 * 1024),
        b"g" => Some(1024 * 1024 * 1024),
        _ => None,
    }
}

/// `strtoumax(s, &end, 0)` on the digits after optional whitespace and sign: (value, saturated,
/// offset of the end). `None` when no digit was read.
fn strtou(s: &[u8]) -> Option<(u64, bool, usize, bool)> {
    let mut i = 0;
    // The C library's isspace, which strtoumax uses: also vertical tab and form feed.
    while s
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = s.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let (radix, start) = if s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        (16, i + 2)
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(j).and_then(|&c| (c as char).to_digit(radix)) {
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        j += 1;
    }
    if j == start {
        return None;
    }
    Some((value, overflow, j, negative))
}

/// git's `git_parse_unsigned`: the error is git's reason (`invalid unit` or `out of range`).
pub fn parse_unsigned(v: &[u8], max: u64) -> Result<u64, &'static str> {
    if v.is_empty() || v.contains(&b'-') {
        return Err("invalid unit");
    }
    let Some((val, overflow, end, _)) = strtou(v) else {
        return Err("invalid unit");
    };
    if overflow {
        return Err("out of range");
    }
    let factor = unit_factor(&v[end..]).ok_or("invalid unit")?;
    match val.checked_mul(factor) {
        Some(n) if n <= max => Ok(n),
        _ => Err("out of range"),
    }
}

/// git's `git_parse_signed` with a positive `max`.
pub fn parse_signed(v: &[u8], max: i64) -> Result<i64, &'static str> {
    if v.is_empty() {
        return Err("invalid unit");
    }
    let Some((val, overflow, end, negative)) = strtou(v) else {
        return Err("invalid unit");
    };
    if overflow || val > i64::MAX as u64 + u64::from(negative) {
        return Err("out of range");
    }
    let factor = unit_factor(&v[end..]).ok_or("invalid unit")? as i64;
    let val: i64 = if negative {
        (val as i128).wrapping_neg() as i64
    } else {
        val as i64
    };
    if (val < 0 && -max / factor > val) || (val > 0 && max / factor < val) {
        return Err("out of range");
    }
    Ok(val * factor)
}

/// git's byte-wise configuration parser.
struct Parser<'a> {
    buf: &'a [u8],
    pos: usize,
    linenr: usize,
    eof: bool,
    /// Read as git reads a memory buffer (signed `char`: 0xff is EOF, no byte order mark).
    memory: bool,
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// git's own `isspace` (its `sane_ctype`): space, tab, newline and carriage return only.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Parser<'_> {
    /// git's `get_next_char`: `\r\n` is `\n`, and the end reads as a (counted) `\n`.
    fn next(&mut self) -> u8 {
        let Some(&c) = self.buf.get(self.pos) else {
            self.eof = true;
            self.linenr += 1;
            return b'\n';
        };
        self.pos += 1;
        if self.memory && c == 0xff {
            self.eof = true;
            self.linenr += 1;
            return b'\n';
        }
        if self.memory && c == b'\r' && self.buf.get(self.pos) == Some(&0xff) {
            // git reads the 0xff after a carriage return as EOF and does not put it back.
            self.pos += 1;
            return c;
        }
        let c = if c == b'\r' && self.buf.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
            b'\n'
        } else {
            c
        };
        if c == b'\n' {
            self.linenr += 1;
        }
        c
    }

    fn run(&mut self, origin: &Path, scope: Scope, out: &mut Parsed) {
        const BOM: &[u8] = b"\xef\xbb\xbf";
        let mut bom = 0usize;
        let mut comment = false;
        let mut var: Vec<u8> = Vec::new();
        let mut baselen = 0usize;
        loop {
            let c = self.next();
            if bom < BOM.len() && !self.memory {
                if !self.eof && c == BOM[bom] {
                    bom += 1;
                    continue;
                }
                if bom != 0 {
                    break;
                }
                bom = BOM.len();
            }
            if c == b'\n' {
                if self.eof {
                    return;
                }
                comment = false;
                continue;
            }
            if comment {
                continue;
            }
            if is_space(c) {
                continue;
            }
            if c == b'#' || c == b';' {
                comment = true;
                continue;
            }
            if c == b'[' {
                var.clear();
                if self.base_var(&mut var).is_err() || var.is_empty() {
                    break;
                }
                var.push(b'.');
                baselen = var.len();
                continue;
            }
            if !c.is_ascii_alphabetic() {
                break;
            }
            var.truncate(baselen);
            var.push(c.to_ascii_lowercase());
            match self.value(&mut var) {
                Some(value) => {
                    // git's callbacks get C strings: a NUL in a subsection ends the name.
                    let key_bytes = var.split(|&b| b == 0).next().unwrap_or(&var).to_vec();
                    out.entries.push(Entry {
                        key: String::from_utf8_lossy(&key_bytes).into_owned(),
                        key_bytes,
                        value,
                        origin: origin.to_path_buf(),
                        line: self.linenr.saturating_sub(1),
                        scope,
                    });
                }
                None => break,
            }
        }
        out.bad_line = Some(self.linenr);
    }

    /// The name's rest and the value (`Some(None)` for no `=`); `None` for a syntax error.
    #[allow(clippy::option_option)]
    fn value(&mut self, name: &mut Vec<u8>) -> Option<Option<Vec<u8>>> {
        let mut c;
        loop {
            c = self.next();
            if self.eof || !is_key_char(c) {
                break;
            }
            name.push(c.to_ascii_lowercase());
        }
        while c == b' ' || c == b'\t' {
            c = self.next();
        }
        if c == b'\n' {
            return Some(None);
        }
        if c != b'=' {
            return None;
        }
        self.parse_value().map(Some)
    }

    /// git's `parse_value`, from after `=` to the end of the (continued) line.
    fn parse_value(&mut self) -> Option<Vec<u8>> {
        let mut quote = false;
        let mut comment = false;
        let mut trim_len = 0usize;
        let mut value = Vec::new();
        loop {
            let mut c = self.next();
            if c == b'\n' {
                if quote {
                    self.linenr = self.linenr.saturating_sub(1);
                    return None;
                }
                if trim_len != 0 {
                    value.truncate(trim_len);
                }
                return Some(value);
            }
            if comment {
                continue;
            }
            if is_space(c) && !quote {
                if trim_len == 0 {
                    trim_len = value.len();
                }
                if !value.is_empty() {
                    value.push(c);
                }
                continue;
            }
            if !quote && (c == b';' || c == b'#') {
                comment = true;
                continue;
            }
            trim_len = 0;
            if c == b'\\' {
                c = self.next();
                c = match c {
                    b'\n' => continue,
                    b't' => b'\t',
                    b'b' => b'\x08',
                    b'n' => b'\n',
                    b'\\' | b'"' => c,
                    _ => return None,
                };
                value.push(c);
                continue;
            }
            if c == b'"' {
                quote = !quote;
                continue;
            }
            value.push(c);
        }
    }

    /// git's `get_base_var`: the section header after `[`.
    fn base_var(&mut self, name: &mut Vec<u8>) -> Result<(), ()> {
        loop {
            let c = self.next();
            if self.eof {
                return Err(());
            }
            if c == b']' {
                return Ok(());
            }
            if is_space(c) {
                return self.extended_base_var(name, c);
            }
            if !is_key_char(c) && c != b'.' {
                return Err(());
            }
            name.push(c.to_ascii_lowercase());
        }
    }

    /// git's `get_extended_base_var`: `[section "subsection"]`.
    fn extended_base_var(&mut self, name: &mut Vec<u8>, mut c: u8) -> Result<(), ()> {
        loop {
            if c == b'\n' {
                self.linenr = self.linenr.saturating_sub(1);
                return Err(());
            }
            c = self.next();
            if !is_space(c) {
                break;
            }
        }
        if c != b'"' {
            return Err(());
        }
        name.push(b'.');
        loop {
            let mut c = self.next();
            if c == b'\n' {
                self.linenr = self.linenr.saturating_sub(1);
                return Err(());
            }
            if c == b'"' {
                break;
            }
            if c == b'\\' {
                c = self.next();
                if c == b'\n' {
                    self.linenr = self.linenr.saturating_sub(1);
                    return Err(());
                }
            }
            name.push(c);
        }
        if self.next() != b']' {
            return Err(());
        }
        Ok(())
    }
}

/// git's `interpolate_path`: `~/` (from `HOME`) and `~user/` expanded; `None` when that is
/// impossible.
pub fn interpolate_path(path: &[u8]) -> Option<Vec<u8>> {
    interpolate_path_env(path, &|name| std::env::var_os(name))
}

fn interpolate_path_env(
    path: &[u8],
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<Vec<u8>> {
    let Some(rest) = path.strip_prefix(b"~") else {
        return Some(path.to_vec());
    };
    let slash = rest.iter().position(|&c| c == b'/').unwrap_or(rest.len());
    let (user, tail) = rest.split_at(slash);
    let home: Vec<u8> = if user.is_empty() {
        use std::os::unix::ffi::OsStrExt;
        env("HOME")?.as_bytes().to_vec()
    } else {
        home_of(user)?
    };
    let mut out = home;
    out.extend_from_slice(tail);
    Some(out)
}

/// The home directory of `user` from the password database.
fn home_of(user: &[u8]) -> Option<Vec<u8>> {
    let name = std::ffi::CString::new(user).ok()?;
    // SAFETY: getpwnam takes a NUL-terminated string and returns NULL or a pointer to static
    // storage that stays valid until the next getpw* call; pw_dir is NUL-terminated.
    unsafe {
        let pw = libc::getpwnam(name.as_ptr());
        if pw.is_null() || (*pw).pw_dir.is_null() {
            return None;
        }
        Some(std::ffi::CStr::from_ptr((*pw).pw_dir).to_bytes().to_vec())
    }
}

fn bytes_to_path(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

fn path_bytes(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

/// Whether the entry is `remote.<name>.url`.
fn is_remote_url(e: &Entry) -> bool {
    e.key_bytes
        .strip_prefix(b"remote.")
        .and_then(|r| r.strip_suffix(b".url"))
        .is_some()
}

/// Reads a repository's configuration, following includes.
struct Loader<'a> {
    env: &'a dyn Fn(&str) -> Option<std::ffi::OsString>,
    git_dir: &'a Path,
    config: Config,
    depth: usize,
    /// Collecting `remote.<name>.url` for `hasconfig:` conditions, which then all hold (git's
    /// `unconditional_remote_url`).
    unconditional: bool,
    /// Inside a file included through `hasconfig:` while collecting: its entries are not
    /// recorded, and a remote URL among them is fatal.
    forbid_remote_url: bool,
    /// The remote URLs, once collected.
    remote_urls: Option<Vec<Vec<u8>>>,
    common_dir: PathBuf,
}

fn env_bool(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    name: &str,
    default: bool,
) -> Result<bool, ConfigError> {
    use std::os::unix::ffi::OsStrExt;
    let Some(v) = env(name) else {
        return Ok(default);
    };
    parse_maybe_bool(Some(v.as_bytes())).ok_or_else(|| {
        ConfigError::fatal(format!(
            "bad boolean environment value '{}' for '{name}'",
            v.to_string_lossy()
        ))
    })
}

impl Loader<'_> {
    fn load_all(&mut self, common_dir: &Path) -> Result<(), ConfigError> {
        if !env_bool(self.env, "GIT_CONFIG_NOSYSTEM", false)? {
            let system = (self.env)("GIT_CONFIG_SYSTEM")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/etc/gitconfig"));
            self.file(&system, Scope::System)?;
        }
        if let Some(global) = (self.env)("GIT_CONFIG_GLOBAL") {
            self.file(Path::new(&global), Scope::Global)?;
        } else {
            let xdg = match (self.env)("XDG_CONFIG_HOME") {
                Some(x) if !x.is_empty() => Some(PathBuf::from(x).join("git/config")),
                _ => (self.env)("HOME").map(|h| PathBuf::from(h).join(".config/git/config")),
            };
            if let Some(xdg) = xdg {
                self.file(&xdg, Scope::Global)?;
            }
            if let Some(home) = (self.env)("HOME") {
                self.file(&PathBuf::from(home).join(".gitconfig"), Scope::Global)?;
            }
        }
        let local_start = self.config.entries.len();
        self.file(&common_dir.join("config"), Scope::Local)?;
        let worktree_config = self
            .config
            .entries
            .get(local_start..)
            .unwrap_or_default()
            .iter()
            .rev()
            .find(|e| e.scope == Scope::Local && e.key == "extensions.worktreeconfig")
            .map(|e| parse_maybe_bool(e.value_str()).unwrap_or(false))
            .unwrap_or(false);
        if worktree_config {
            self.file(&self.git_dir.join("config.worktree"), Scope::Worktree)?;
        }
        self.parameters()
    }

    /// Reads one file if it exists (git skips a file it cannot open for ENOENT).
    fn file(&mut self, path: &Path, scope: Scope) -> Result<(), ConfigError> {
        let Ok(bytes) = fs::read(path) else {
            return Ok(());
        };
        let parsed = Config::parse_partial(&bytes, path, scope);
        for e in parsed.entries {
            self.add(e)?;
        }
        if let Some(line) = parsed.bad_line {
            return Err(ConfigError::fatal(format!(
                "bad config line {line} in file {}",
                path.display()
            )));
        }
        Ok(())
    }

    /// Records an entry, then follows it when it is an include (git passes the include entry
    /// itself on first).
    fn add(&mut self, e: Entry) -> Result<(), ConfigError> {
        if self.forbid_remote_url {
            if is_remote_url(&e) {
                return Err(ConfigError::fatal(
                    "remote URLs cannot be configured in file directly or indirectly included by includeIf.hasconfig:remote.*.url",
                ));
            }
        } else {
            self.config.entries.push(e.clone());
        }
        if e.key == "include.path" {
            self.include(&e)?;
        }
        if let Some(rest) = e.key_bytes.strip_prefix(b"includeif.")
            && let Some(cond) = rest.strip_suffix(b".path")
            && self.condition(cond, &e)?
        {
            let by_remote = cond.starts_with(b"hasconfig:remote.*.url:");
            let outer = self.forbid_remote_url;
            if self.unconditional && by_remote {
                self.forbid_remote_url = true;
            }
            let r = self.include(&e);
            self.forbid_remote_url = outer;
            r?;
        }
        Ok(())
    }

    /// The `remote.<name>.url` values of the whole configuration, read with every `hasconfig:`
    /// condition taken as true (git's `populate_remote_urls`).
    fn remote_urls(&mut self) -> Result<&[Vec<u8>], ConfigError> {
        if self.remote_urls.is_none() {
            let mut collect = Loader {
                env: self.env,
                git_dir: self.git_dir,
                config: Config::default(),
                depth: 0,
                unconditional: true,
                forbid_remote_url: false,
                remote_urls: None,
                common_dir: self.common_dir.clone(),
            };
            let common_dir = self.common_dir.clone();
            collect.load_all(&common_dir)?;
            let urls = collect
                .config
                .entries
                .iter()
                .filter(|e| is_remote_url(e))
                .filter_map(|e| e.value_str().map(<[u8]>::to_vec))
                .collect();
            self.remote_urls = Some(urls);
        }
        Ok(self.remote_urls.as_deref().unwrap_or_default())
    }

    fn include(&mut self, e: &Entry) -> Result<(), ConfigError> {
        let Some(value) = e.value_str() else {
            return Err(ConfigError::with_error(
                "missing value for 'include.path'",
                self.bad_line_text(e),
            ));
        };
        let Some(expanded) = interpolate_path_env(value, self.env) else {
            return Err(ConfigError::with_error(
                format!(
                    "could not expand include path '{}'",
                    String::from_utf8_lossy(value)
                ),
                self.bad_line_text(e),
            ));
        };
        let mut path = bytes_to_path(&expanded);
        if !path.is_absolute() {
            if e.origin.as_os_str().is_empty() {
                return Err(ConfigError::with_error(
                    "relative config includes must come from files",
                    self.bad_line_text(e),
                ));
            }
            path = match e.origin.parent() {
                Some(dir) => dir.join(&path),
                None => path,
            };
        }
        if !path.exists() {
            return Ok(());
        }
        self.depth += 1;
        if self.depth > MAX_INCLUDE_DEPTH {
            return Err(ConfigError::fatal(format!(
                "exceeded maximum include depth ({MAX_INCLUDE_DEPTH}) while including\n\t{}\nfrom\n\t{}\nThis might be due to circular includes.",
                path.display(),
                if e.scope == Scope::Command {
                    "the command line".to_string()
                } else {
                    e.origin.display().to_string()
                }
            )));
        }
        let r = self.file(&path, e.scope);
        self.depth -= 1;
        r
    }

    /// git's message after an include that fails.
    fn bad_line_text(&self, e: &Entry) -> String {
        if e.scope == Scope::Command {
            "unable to parse command-line config".to_string()
        } else {
            format!("bad config line {} in file {}", e.line, e.origin.display())
        }
    }

    /// Whether an `includeIf` condition holds.
    fn condition(&mut self, cond: &[u8], e: &Entry) -> Result<bool, ConfigError> {
        Ok(if let Some(p) = cond.strip_prefix(b"gitdir:") {
            self.by_gitdir(p, e, false)
        } else if let Some(p) = cond.strip_prefix(b"gitdir/i:") {
            self.by_gitdir(p, e, true)
        } else if let Some(p) = cond.strip_prefix(b"onbranch:") {
            self.by_branch(p)
        } else if let Some(p) = cond.strip_prefix(b"hasconfig:remote.*.url:") {
            if self.unconditional {
                true
            } else {
                self.remote_urls()?
                    .iter()
                    .any(|url| wildmatch(p, url, true, false))
            }
        } else {
            // Unknown conditions are false.
            false
        })
    }

    fn by_gitdir(&self, cond: &[u8], e: &Entry, icase: bool) -> bool {
        let mut pattern = interpolate_path_env(cond, self.env).unwrap_or_else(|| cond.to_vec());
        let mut prefix = 0;
        if pattern.first() == Some(&b'.') && pattern.get(1) == Some(&b'/') {
            if e.origin.as_os_str().is_empty() {
                return false;
            }
            let Ok(real) = fs::canonicalize(&e.origin) else {
                return false;
            };
            let real = path_bytes(&real);
            let Some(slash) = real.iter().rposition(|&c| c == b'/') else {
                return false;
            };
            let mut p = real[..slash].to_vec();
            p.extend_from_slice(&pattern[1..]);
            pattern = p;
            prefix = slash + 1;
        } else if pattern.first() != Some(&b'/') {
            let mut p = b"**/".to_vec();
            p.extend_from_slice(&pattern);
            pattern = p;
        }
        if pattern.last() == Some(&b'/') {
            pattern.extend_from_slice(b"**");
        }
        let real = fs::canonicalize(self.git_dir).ok();
        let absolute = if self.git_dir.is_absolute() {
            Some(self.git_dir.to_path_buf())
        } else {
            std::env::current_dir().ok().map(|d| d.join(self.git_dir))
        };
        [real, absolute].into_iter().flatten().any(|text| {
            let text = path_bytes(&text);
            if text.len() < prefix {
                return false;
            }
            let (pp, tp) = (&pattern[..prefix], &text[..prefix]);
            let same = if icase {
                pp.eq_ignore_ascii_case(tp)
            } else {
                pp == tp
            };
            same && wildmatch(&pattern[prefix..], &text[prefix..], true, icase)
        })
    }

    fn by_branch(&self, cond: &[u8]) -> bool {
        let Ok(head) = fs::read(self.git_dir.join("HEAD")) else {
            return false;
        };
        let Some(target) = head.strip_prefix(b"ref: refs/heads/") else {
            return false;
        };
        let branch = target.strip_suffix(b"\n").unwrap_or(target);
        let mut pattern = cond.to_vec();
        if pattern.last() == Some(&b'/') {
            pattern.extend_from_slice(b"**");
        }
        wildmatch(&pattern, branch, true, false)
    }

    /// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, then
    /// `GIT_CONFIG_PARAMETERS`.
    fn parameters(&mut self) -> Result<(), ConfigError> {
        use std::os::unix::ffi::OsStrExt;
        let fail =
            |msg: String| ConfigError::with_error(msg, "unable to parse command-line config");
        if let Some(count) = (self.env)("GIT_CONFIG_COUNT") {
            let c = count.as_bytes();
            let digits = c.iter().take_while(|b| b.is_ascii_digit()).count();
            let n: u64 = if c.is_empty() {
                0
            } else if digits != c.len() {
                return Err(fail("bogus count in GIT_CONFIG_COUNT".into()));
            } else {
                std::str::from_utf8(c)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(u64::MAX)
            };
            if n > i32::MAX as u64 {
                return Err(fail("too many entries in GIT_CONFIG_COUNT".into()));
            }
            for i in 0..n {
                let key = (self.env)(&format!("GIT_CONFIG_KEY_{i}"))
                    .ok_or_else(|| fail(format!("missing config key GIT_CONFIG_KEY_{i}")))?;
                let value = (self.env)(&format!("GIT_CONFIG_VALUE_{i}"))
                    .ok_or_else(|| fail(format!("missing config value GIT_CONFIG_VALUE_{i}")))?;
                self.pair(key.as_bytes(), Some(value.as_bytes()))?;
            }
        }
        if let Some(params) = (self.env)("GIT_CONFIG_PARAMETERS") {
            self.parameter_list(params.as_bytes())?;
        }
        Ok(())
    }

    fn parameter_list(&mut self, env: &[u8]) -> Result<(), ConfigError> {
        let bogus = || {
            ConfigError::with_error(
                "bogus format in GIT_CONFIG_PARAMETERS",
                "unable to parse command-line config",
            )
        };
        let mut cur = 0usize;
        while cur < env.len() {
            let (key, next) = sq_dequote_step(env, cur).ok_or_else(bogus)?;
            match next {
                None => {
                    self.parameter(&key)?;
                    break;
                }
                Some(n) if env.get(n).is_some_and(|&c| is_space(c)) => {
                    self.parameter(&key)?;
                    cur = n;
                }
                Some(n) if env.get(n) == Some(&b'=') => {
                    let n = n + 1;
                    if env.get(n) == Some(&b'\'') {
                        let (value, after) = sq_dequote_step(env, n).ok_or_else(bogus)?;
                        if let Some(a) = after
                            && !env.get(a).is_some_and(|&c| is_space(c))
                        {
                            return Err(bogus());
                        }
                        self.pair(&key, Some(&value))?;
                        cur = after.unwrap_or(env.len());
                    } else if env.get(n).is_none_or(|&c| is_space(c)) {
                        self.pair(&key, None)?;
                        cur = n;
                    } else {
                        return Err(bogus());
                    }
                }
                Some(_) => return Err(bogus()),
            }
            while env.get(cur).is_some_and(|&c| is_space(c)) {
                cur += 1;
            }
        }
        Ok(())
    }

    /// An old-style `key=value` parameter.
    fn parameter(&mut self, text: &[u8]) -> Result<(), ConfigError> {
        let bogus = || {
            ConfigError::with_error(
                format!("bogus config parameter: {}", String::from_utf8_lossy(text)),
                "unable to parse command-line config",
            )
        };
        let (key, value) = match text.iter().position(|&c| c == b'=') {
            Some(eq) => (&text[..eq], Some(&text[eq + 1..])),
            None => (text, None),
        };
        let key = trim(key);
        if key.is_empty() {
            return Err(bogus());
        }
        self.pair(key, value)
    }

    /// git's `config_parse_pair`: a key checked and canonicalised, with its value.
    fn pair(&mut self, key: &[u8], value: Option<&[u8]>) -> Result<(), ConfigError> {
        let fail =
            |msg: String| ConfigError::with_error(msg, "unable to parse command-line config");
        if key.is_empty() {
            return Err(fail("empty config key".into()));
        }
        let canonical = parse_key(key).map_err(|e| fail(e.to_string()))?;
        self.add(Entry {
            key: String::from_utf8_lossy(&canonical).into_owned(),
            key_bytes: canonical,
            value: value.map(<[u8]>::to_vec),
            origin: PathBuf::new(),
            line: 0,
            scope: Scope::Command,
        })
    }
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_space(c)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&c| !is_space(c))
        .map_or(start, |e| e + 1);
    s.get(start..end).unwrap_or(b"")
}

/// git's `sq_dequote_step` from `at`: the dequoted word and where parsing continues (`None` at
/// the end of the input); `None` for a bad quoting.
fn sq_dequote_step(s: &[u8], at: usize) -> Option<(Vec<u8>, Option<usize>)> {
    if s.get(at) != Some(&b'\'') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = at + 1;
    loop {
        let c = *s.get(i)?;
        i += 1;
        if c != b'\'' {
            out.push(c);
            continue;
        }
        match s.get(i) {
            None => return Some((out, None)),
            Some(b'\\') => {
                let c = *s.get(i + 1)?;
                if (c == b'\'' || c == b'!') && s.get(i + 2) == Some(&b'\'') {
                    out.push(c);
                    i += 3;
                    continue;
                }
                return None;
            }
            Some(_) => return Some((out, Some(i))),
        }
    }
}

/// git's `git_config_parse_key`: section and name lowercased, the subsection kept; git's
/// messages for a key without a section, without a name, or with a bad character.
pub fn parse_key(key: &[u8]) -> Result<Vec<u8>, String> {
    let show = || String::from_utf8_lossy(key).into_owned();
    let Some(last_dot) = key.iter().rposition(|&c| c == b'.') else {
        return Err(format!("key does not contain a section: {}", show()));
    };
    if last_dot == 0 {
        return Err(format!("key does not contain a section: {}", show()));
    }
    if last_dot + 1 == key.len() {
        return Err(format!("key does not contain variable name: {}", show()));
    }
    let mut out = Vec::with_capacity(key.len());
    let mut dot = false;
    for (i, &c) in key.iter().enumerate() {
        if c == b'.' {
            dot = true;
        }
        if !dot || i > last_dot {
            if !is_key_char(c) || (i == last_dot + 1 && !c.is_ascii_alphabetic()) {
                return Err(format!("invalid key: {}", show()));
            }
            out.push(c.to_ascii_lowercase());
        } else if c == b'\n' {
            return Err(format!("invalid key (newline): {}", show()));
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// git's `wildmatch` (`*`, `?`, `[...]` with ranges, `!`/`^` and `[:class:]`; with `pathname`,
/// `*` and `?` stop at `/` and `**/` spans directories).
pub fn wildmatch(pattern: &[u8], text: &[u8], pathname: bool, icase: bool) -> bool {
    matches!(dowild(pattern, text, pathname, icase), Match::Yes)
}

#[derive(PartialEq, Eq)]
enum Match {
    Yes,
    No,
    AbortAll,
    AbortToStarStar,
}

fn fold(c: u8, icase: bool) -> u8 {
    if icase { c.to_ascii_lowercase() } else { c }
}

fn dowild(p: &[u8], text: &[u8], pathname: bool, icase: bool) -> Match {
    let mut pi = 0;
    let mut ti = 0;
    while let Some(&pc) = p.get(pi) {
        let t = text.get(ti).copied();
        if t.is_none() && pc != b'*' {
            return Match::AbortAll;
        }
        let tc = t.unwrap_or(0);
        match pc {
            b'\\' => {
                pi += 1;
                let Some(&lit) = p.get(pi) else {
                    return Match::No;
                };
                if fold(tc, icase) != fold(lit, icase) {
                    return Match::No;
                }
            }
            b'?' => {
                if pathname && tc == b'/' {
                    return Match::No;
                }
            }
            b'*' => {
                let mut match_slash = false;
                pi += 1;
                if p.get(pi) == Some(&b'*') {
                    let prev_ok = pi < 2 || p.get(pi - 2) == Some(&b'/');
                    while p.get(pi) == Some(&b'*') {
                        pi += 1;
                    }
                    if !pathname {
                        match_slash = true;
                    } else if prev_ok && (p.get(pi).is_none() || p.get(pi) == Some(&b'/')) {
                        if p.get(pi) == Some(&b'/')
                            && dowild(&p[pi + 1..], &text[ti..], pathname, icase) == Match::Yes
                        {
                            return Match::Yes;
                        }
                        match_slash = true;
                    }
                } else {
                    match_slash = !pathname;
                }
                if pi >= p.len() {
                    if !match_slash && text[ti..].contains(&b'/') {
                        return Match::No;
                    }
                    return Match::Yes;
                } else if !match_slash && p.get(pi) == Some(&b'/') {
                    match text[ti..].iter().position(|&c| c == b'/') {
                        Some(k) => ti += k,
                        None => return Match::AbortAll,
                    }
                    continue;
                }
                loop {
                    if ti > text.len() {
                        return Match::AbortAll;
                    }
                    let r = dowild(&p[pi..], &text[ti..], pathname, icase);
                    if r != Match::No && (!match_slash || r != Match::AbortToStarStar) {
                        return r;
                    }
                    match text.get(ti) {
                        None => return Match::AbortAll,
                        Some(&b'/') if !match_slash => return Match::AbortToStarStar,
                        Some(_) => ti += 1,
                    }
                }
            }
            b'[' => {
                pi += 1;
                let negate = matches!(p.get(pi), Some(b'!' | b'^'));
                if negate {
                    pi += 1;
                }
                let mut matched = false;
                let mut prev: u8 = 0;
                let mut first = true;
                loop {
                    let Some(&c) = p.get(pi) else {
                        return Match::AbortAll;
                    };
                    if c == b']' && !first {
                        break;
                    }
                    first = false;
                    if c == b'\\' {
                        pi += 1;
                        let Some(&c) = p.get(pi) else {
                            return Match::AbortAll;
                        };
                        if fold(tc, icase) == fold(c, icase) {
                            matched = true;
                        }
                        prev = c;
                    } else if c == b'-' && prev != 0 && p.get(pi + 1).is_some_and(|&n| n != b']') {
                        pi += 1;
                        let mut hi = p[pi];
                        if hi == b'\\' {
                            pi += 1;
                            match p.get(pi) {
                                Some(&h) => hi = h,
                                None => return Match::AbortAll,
                            }
                        }
                        if (prev..=hi).contains(&tc)
                            || (icase && (prev..=hi).contains(&tc.to_ascii_lowercase()))
                            || (icase && (prev..=hi).contains(&tc.to_ascii_uppercase()))
                        {
                            matched = true;
                        }
                        prev = 0;
                    } else if c == b'['
                        && p.get(pi + 1) == Some(&b':')
                        && let Some(end) = p[pi + 2..].windows(2).position(|w| w == b":]")
                    {
                        let class = &p[pi + 2..pi + 2 + end];
                        let ok = match class {
                            b"alnum" => tc.is_ascii_alphanumeric(),
                            b"alpha" => tc.is_ascii_alphabetic(),
                            b"blank" => tc == b' ' || tc == b'\t',
                            b"cntrl" => tc.is_ascii_control(),
                            b"digit" => tc.is_ascii_digit(),
                            b"graph" => tc.is_ascii_graphic(),
                            b"lower" => {
                                tc.is_ascii_lowercase() || (icase && tc.is_ascii_uppercase())
                            }
                            b"print" => tc.is_ascii_graphic() || tc == b' ',
                            b"punct" => tc.is_ascii_punctuation(),
                            b"space" => is_space(tc),
                            b"upper" => {
                                tc.is_ascii_uppercase() || (icase && tc.is_ascii_lowercase())
                            }
                            b"xdigit" => tc.is_ascii_hexdigit(),
                            _ => return Match::AbortAll,
                        };
                        matched |= ok;
                        pi += 2 + end + 1;
                        prev = 0;
                    } else {
                        if fold(tc, icase) == fold(c, icase) {
                            matched = true;
                        }
                        prev = c;
                    }
                    pi += 1;
                }
                if matched == negate || (pathname && tc == b'/') {
                    return Match::No;
                }
            }
            _ => {
                if fold(tc, icase) != fold(pc, icase) {
                    return Match::No;
                }
            }
        }
        pi += 1;
        ti += 1;
    }
    if ti >= text.len() {
        Match::Yes
    } else {
        Match::No
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<(String, Option<String>)>, ConfigError> {
        Config::parse(s.as_bytes(), Path::new("f")).map(|v| {
            v.into_iter()
                .map(|e| {
                    (
                        e.key,
                        e.value.map(|v| String::from_utf8_lossy(&v).into_owned()),
                    )
                })
                .collect()
        })
    }

    fn kv(k: &str, v: Option<&str>) -> (String, Option<String>) {
        (k.to_string(), v.map(str::to_string))
    }

    #[test]
    fn syntax() {
        assert_eq!(
            parse("[Core]\n\tBare = true ; c\n  x\n[Sub \"CaSe\"] K = \" a  b \" # x\n[a.B]c=1\n")
                .unwrap(),
            [
                kv("core.bare", Some("true")),
                kv("core.x", None),
                kv("sub.CaSe.k", Some(" a  b ")),
                kv("a.b.c", Some("1")),
            ]
        );
        assert_eq!(
            parse("[s]\nv = a\\\n b\\t\\\"\\\\\\n\n").unwrap(),
            [kv("s.v", Some("a b\t\"\\\n"))]
        );
        assert_eq!(
            parse("[s]\nv = a   b  \n").unwrap(),
            [kv("s.v", Some("a   b"))]
        );
    }

    #[test]
    fn bad_lines() {
        let line =
            |s: &str| Config::parse_partial(s.as_bytes(), Path::new("f"), Scope::Unknown).bad_line;
        assert_eq!(line("[s]\nv = \"open\n"), Some(2));
        assert_eq!(line("[s]\nv = \\q\n"), Some(2));
        assert_eq!(line("[s\n"), Some(1));
        assert_eq!(line("[s]\n1 = x\n"), Some(2));
        assert_eq!(line("[s]\nv x\n"), Some(2));
        assert_eq!(line("v = x\n"), None);
        assert_eq!(line("[s \"x\n"), Some(1));
    }

    #[test]
    fn numbers_and_bools() {
        assert_eq!(parse_maybe_bool(Some(b"YeS")), Some(true));
        assert_eq!(parse_maybe_bool(Some(b"")), Some(false));
        assert_eq!(parse_maybe_bool(None), Some(true));
        assert_eq!(parse_maybe_bool(Some(b"2k")), Some(true));
        assert_eq!(parse_maybe_bool(Some(b"maybe")), None);
        assert_eq!(parse_unsigned(b"1k", u64::MAX), Ok(1024));
        assert_eq!(parse_unsigned(b"0x10", u64::MAX), Ok(16));
        assert_eq!(parse_unsigned(b"1x", u64::MAX), Err("invalid unit"));
        assert_eq!(parse_unsigned(b"-1", u64::MAX), Err("invalid unit"));
    }

    #[test]
    fn wildmatch_basics() {
        assert!(wildmatch(b"**/foo/**", b"/a/b/foo/.git", true, false));
        assert!(wildmatch(b"/a/*/c", b"/a/b/c", true, false));
        assert!(!wildmatch(b"/a/*/c", b"/a/b/x/c", true, false));
        assert!(wildmatch(b"**/FOO/**", b"/x/foo/y", true, true));
        assert!(wildmatch(b"ma[s-t]ter", b"master", true, false));
    }

    #[test]
    fn keys() {
        assert_eq!(parse_key(b"A.B.C").unwrap(), b"a.B.c");
        assert!(parse_key(b"nodot").is_err());
        assert!(parse_key(b"a.").is_err());
        assert!(parse_key(b"a.1b").is_err());
    }
}

//! Reading a repository's configuration in git's order: the files, `include.path` and
//! `includeIf`, the command line's `GIT_CONFIG_PARAMETERS`, and the paths they name.

use super::*;

/// git's `interpolate_path`: `~/` (from `HOME`) and `~user/` expanded; `None` when that is
/// impossible.
pub fn interpolate_path(path: &[u8]) -> Option<Vec<u8>> {
    interpolate_path_env(path, &|name| std::env::var_os(name))
}

pub(super) fn interpolate_path_env(
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
pub(super) fn home_of(user: &[u8]) -> Option<Vec<u8>> {
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

pub(super) fn bytes_to_path(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

pub(super) fn path_bytes(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

/// Whether the entry is `remote.<name>.url`.
pub(super) fn is_remote_url(e: &Entry) -> bool {
    e.key_bytes
        .strip_prefix(b"remote.")
        .and_then(|r| r.strip_suffix(b".url"))
        .is_some()
}

/// Reads a repository's configuration, following includes.
pub(super) struct Loader<'a> {
    pub(super) env: &'a dyn Fn(&str) -> Option<std::ffi::OsString>,
    pub(super) git_dir: &'a Path,
    pub(super) config: Config,
    pub(super) depth: usize,
    /// Collecting `remote.<name>.url` for `hasconfig:` conditions, which then all hold (git's
    /// `unconditional_remote_url`).
    pub(super) unconditional: bool,
    /// Inside a file included through `hasconfig:` while collecting: its entries are not
    /// recorded, and a remote URL among them is fatal.
    pub(super) forbid_remote_url: bool,
    /// The remote URLs, once collected.
    pub(super) remote_urls: Option<Vec<Vec<u8>>>,
    pub(super) common_dir: PathBuf,
}

pub(super) fn env_bool(
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
    pub(super) fn load_all(&mut self, common_dir: &Path) -> Result<(), ConfigError> {
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

pub(super) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_space(c)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&c| !is_space(c))
        .map_or(start, |e| e + 1);
    s.get(start..end).unwrap_or(b"")
}

/// git's `sq_dequote_step` from `at`: the dequoted word and where parsing continues (`None` at
/// the end of the input); `None` for a bad quoting.
pub(super) fn sq_dequote_step(s: &[u8], at: usize) -> Option<(Vec<u8>, Option<usize>)> {
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

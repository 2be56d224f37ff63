//! The settings of git fsck's object checks: `--strict`, `fsck.<msg-id>` and `fsck.skipList`,
//! read from the configuration as git reads them.

use super::*;

/// git's default `max_tree_entry_len`.
pub(super) const DEFAULT_MAX_TREE_ENTRY_LEN: i64 = 4096;

/// The settings of `git fsck`'s object checks: `--strict`, `fsck.<msg-id>` and `fsck.skipList`.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--strict`.
    pub(super) strict: bool,
    /// git's `msg_type` array: `None` until configuration sets a type (then every id's
    /// severity is fixed, `--strict` included, at the time of the first setting).
    pub(super) types: Option<Vec<Severity>>,
    /// `fsck.skipList`: the ids whose findings are not reported.
    pub(super) skip: HashSet<Vec<u8>>,
    /// The longest tree entry name git accepts without `largePathname`.
    pub(super) max_tree_entry_len: i64,
    /// Lines git prints on stderr while reading the configuration and goes on (e.g.
    /// `error: missing value for 'fsck.skiplist'`), with their prefix.
    pub warnings: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options::new(false)
    }
}

impl Options {
    /// No configuration; `strict` as `--strict`.
    pub fn new(strict: bool) -> Options {
        Options {
            strict,
            types: None,
            skip: HashSet::new(),
            max_tree_entry_len: DEFAULT_MAX_TREE_ENTRY_LEN,
            warnings: Vec::new(),
        }
    }

    /// The options `git fsck [--strict]` ends up with after reading `cfg` (git's
    /// `git_fsck_config`, in order): `fsck.skipList` (a file of ids, see
    /// [`Options::add_skip_list`]) and `fsck.<msg-id> = error|warn|ignore`. The error is what git
    /// prints before dying with status 128: its lines, each with its `error: `/`fatal: `
    /// prefix, joined by newlines.
    pub fn from_config(
        cfg: &gitconfig::Config,
        strict: bool,
        format: ObjectFormat,
    ) -> Result<Options, String> {
        let mut o = Options::new(strict);
        for e in &cfg.entries {
            let fatal_lines = |o: &Options, lines: Vec<String>| {
                let mut all = o.warnings.clone();
                all.extend(lines);
                all.join("\n")
            };
            if e.key == "fsck.skiplist" {
                let Some(v) = e.value_str() else {
                    o.warnings
                        .push("error: missing value for 'fsck.skiplist'".to_string());
                    continue;
                };
                let Some(path) = gitconfig::interpolate_path(v) else {
                    return Err(fatal_lines(
                        &o,
                        vec![format!(
                            "fatal: failed to expand user dir in: '{}'",
                            String::from_utf8_lossy(v)
                        )],
                    ));
                };
                let mut values = b"skiplist=".to_vec();
                values.extend_from_slice(&path);
                if let Err(e) = o.set_msg_types(&values, format) {
                    return Err(fatal_lines(&o, vec![format!("fatal: {e}")]));
                }
                continue;
            }
            let Some(id) = e.key_bytes.strip_prefix(b"fsck.") else {
                continue;
            };
            let Some(v) = e.value_str() else {
                // git reads the configuration into a set first, then hands each entry to its
                // callback: one that fails dies with where the entry came from.
                let bad = if e.scope == gitconfig::Scope::Command {
                    format!(
                        "fatal: unable to parse '{}' from command-line config",
                        e.key
                    )
                } else {
                    format!(
                        "fatal: bad config variable '{}' in file '{}' at line {}",
                        e.key,
                        e.origin.display(),
                        e.line
                    )
                };
                return Err(fatal_lines(
                    &o,
                    vec![format!("error: missing value for '{}'", e.key), bad],
                ));
            };
            if let Err(e) = o.set_msg_type(id, v) {
                return Err(fatal_lines(&o, vec![format!("fatal: {e}")]));
            }
        }
        Ok(o)
    }

    /// git's `fsck_set_msg_type`: `Err` is git's `die()` text (without `fatal: `).
    pub fn set_msg_type(&mut self, id: &[u8], value: &[u8]) -> Result<(), String> {
        let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let msg = std::str::from_utf8(id)
            .ok()
            .and_then(|s| {
                TABLE
                    .iter()
                    .find(|t| t.1.to_ascii_lowercase() == s)
                    .map(|t| t.0)
            })
            .ok_or_else(|| format!("Unhandled message id: {}", show(id)))?;
        let mut value = value;
        if msg == MsgId::LargePathname
            && let Some(colon) = value.iter().position(|&c| c == b':')
        {
            let len = &value[colon + 1..];
            self.max_tree_entry_len = gitconfig::parse_signed(len, i64::MAX)
                .map_err(|_| format!("unable to parse max tree entry len: {}", show(len)))?;
            value = &value[..colon];
        }
        let severity = match value {
            b"error" => Severity::Error,
            b"warn" => Severity::Warn,
            b"ignore" => Severity::Ignore,
            _ => return Err(format!("Unknown fsck message type: '{}'", show(value))),
        };
        if severity != Severity::Error && msg.default() == Severity::Fatal {
            return Err(format!("Cannot demote {} to {}", show(id), show(value)));
        }
        self.set(msg, severity);
        Ok(())
    }

    /// Sets one id's severity (git's `fsck_set_msg_type_from_ids`).
    pub fn set(&mut self, id: MsgId, severity: Severity) {
        let types = match &mut self.types {
            Some(t) => t,
            None => {
                let snapshot: Vec<Severity> = MsgId::all().map(|m| self.severity(m)).collect();
                self.types.insert(snapshot)
            }
        };
        if let Some(slot) = types.get_mut(id as usize) {
            *slot = severity;
        }
    }

    /// git's `fsck_set_msg_types`: `<id>=<type>` and `skiplist=<path>` items separated by
    /// spaces, commas or `|` (what `fsck.skipList` turns into, so that a path holding one of
    /// them is cut there, as in git). `Err` is git's `die()` text.
    pub fn set_msg_types(&mut self, values: &[u8], format: ObjectFormat) -> Result<(), String> {
        for token in values.split(|c| b" ,|".contains(c)) {
            if token.is_empty() {
                continue;
            }
            let eq = token
                .iter()
                .position(|&c| c == b'=' || c == b':')
                .unwrap_or(token.len());
            let name = token[..eq].to_ascii_lowercase();
            if name == b"skiplist" {
                if eq == token.len() {
                    return Err("skiplist requires a path".to_string());
                }
                self.add_skip_list(std::path::Path::new(&bytes_to_os(&token[eq + 1..])), format)?;
                continue;
            }
            if eq == token.len() {
                return Err(format!("Missing '=': '{}'", String::from_utf8_lossy(&name)));
            }
            self.set_msg_type(&name, &token[eq + 1..])?;
        }
        Ok(())
    }

    /// git's `oidset_parse_file`: one id per line, `#` comments, blank lines and surrounding
    /// whitespace allowed. `Err` is git's `die()` text (`could not open object name list: P`,
    /// `invalid object name: L`).
    pub fn add_skip_list(
        &mut self,
        path: &std::path::Path,
        format: ObjectFormat,
    ) -> Result<(), String> {
        let data = std::fs::read(path)
            .map_err(|_| format!("could not open object name list: {}", path.display()))?;
        let mut lines: Vec<&[u8]> = data.split(|&c| c == b'\n').collect();
        if data.last() == Some(&b'\n') {
            lines.pop();
        }
        for line in lines {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = match line.iter().position(|&c| c == b'#') {
                Some(k) => &line[..k],
                None => line,
            };
            // git's strbuf_trim: its isspace is space, tab, newline and carriage return.
            let sp = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
            let start = line.iter().position(|c| !sp(c)).unwrap_or(line.len());
            let end = line.iter().rposition(|c| !sp(c)).map_or(start, |e| e + 1);
            let line = line.get(start..end).unwrap_or_default();
            if line.is_empty() {
                continue;
            }
            match parse_hex_id(line, 0, format) {
                Some(end) if end == line.len() => {
                    self.skip.insert(hex_to_raw(line));
                }
                _ => {
                    return Err(format!(
                        "invalid object name: {}",
                        String::from_utf8_lossy(line)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The severity git uses for `id` now (its `fsck_msg_type`): the configured one, else the
    /// default with warnings made errors under `--strict`.
    pub fn severity(&self, id: MsgId) -> Severity {
        if let Some(t) = &self.types {
            return t.get(id as usize).copied().unwrap_or(Severity::Error);
        }
        match id.default() {
            Severity::Warn if self.strict => Severity::Error,
            s => s,
        }
    }

    /// Whether `--strict` is on.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Whether the object (raw id) is on the skip list.
    pub fn skipped(&self, oid: &[u8]) -> bool {
        self.skip.contains(oid)
    }
}

pub(super) fn bytes_to_os(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

/// Raw bytes of a hexadecimal id (already checked to be one).
pub(super) fn hex_to_raw(hex: &[u8]) -> Vec<u8> {
    crate::format::parse_hex(hex, hex.len() / 2).unwrap_or_default()
}

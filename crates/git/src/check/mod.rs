//! git's fsck checks of single objects (git 2.47's `fsck.c`), as two commands run them:
//!
//! - `git fsck` ([`check_object`], [`finish`]): every message has a severity ([`MsgId::default`],
//!   changed by `--strict` and by `fsck.<msg-id>` configuration, [`Options`]); errors and warnings
//!   are printed as `error in <type> <id>: <msgId>: <text>` / `warning in ...`, ignored and
//!   skip-listed ones are not. Trees name the blobs that must be valid `.gitmodules` and
//!   `.gitattributes` files ([`SpecialBlobs`]); they are checked when seen, and the rest at the
//!   end ([`finish`]).
//! - `git hash-object` ([`tree`], [`commit`], [`tag`]): strict mode, where every finding that is
//!   not ignored refuses the object: `error: object fails fsck: <msgId>: <text>`.
//!
//! The behaviour follows git closely, quirks included, because the point is to accept and
//! refuse exactly what git does: a tree's parse error is printed before the fsck message for it,
//! a tree reports every kind of problem it has (in a fixed order) while commits and tags stop at
//! the first error (but not at a warning), and a tag whose bad `tagger` line is followed by an
//! extra header line is reported but still passes, because the (ignored) extra-header message
//! decides the tag's verdict.

mod checks;
#[cfg(any(test, fuzzing))]
pub mod delta_oracle;
mod gitmodules;
mod names;

use std::collections::HashSet;

pub(crate) use checks::{decode_tree_entry, parse_hex_id};

use super::{Kind, ObjectFormat};
use crate::gitconfig;

/// git's fsck message ids (`FOREACH_FSCK_MSG_ID` in git 2.47's `fsck.h`), in git's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MsgId {
    /// `nulInHeader` (default: fatal).
    NulInHeader,
    /// `unterminatedHeader` (default: fatal).
    UnterminatedHeader,
    /// `badDate` (default: error).
    BadDate,
    /// `badDateOverflow` (default: error).
    BadDateOverflow,
    /// `badEmail` (default: error).
    BadEmail,
    /// `badName` (default: error).
    BadName,
    /// `badObjectSha1` (default: error).
    BadObjectSha1,
    /// `badParentSha1` (default: error).
    BadParentSha1,
    /// `badRefFiletype` (default: error).
    BadRefFiletype,
    /// `badRefName` (default: error).
    BadRefName,
    /// `badTimezone` (default: error).
    BadTimezone,
    /// `badTree` (default: error).
    BadTree,
    /// `badTreeSha1` (default: error).
    BadTreeSha1,
    /// `badType` (default: error).
    BadType,
    /// `duplicateEntries` (default: error).
    DuplicateEntries,
    /// `missingAuthor` (default: error).
    MissingAuthor,
    /// `missingCommitter` (default: error).
    MissingCommitter,
    /// `missingEmail` (default: error).
    MissingEmail,
    /// `missingNameBeforeEmail` (default: error).
    MissingNameBeforeEmail,
    /// `missingObject` (default: error).
    MissingObject,
    /// `missingSpaceBeforeDate` (default: error).
    MissingSpaceBeforeDate,
    /// `missingSpaceBeforeEmail` (default: error).
    MissingSpaceBeforeEmail,
    /// `missingTag` (default: error).
    MissingTag,
    /// `missingTagEntry` (default: error).
    MissingTagEntry,
    /// `missingTree` (default: error).
    MissingTree,
    /// `missingType` (default: error).
    MissingType,
    /// `missingTypeEntry` (default: error).
    MissingTypeEntry,
    /// `multipleAuthors` (default: error).
    MultipleAuthors,
    /// `treeNotSorted` (default: error).
    TreeNotSorted,
    /// `unknownType` (default: error).
    UnknownType,
    /// `zeroPaddedDate` (default: error).
    ZeroPaddedDate,
    /// `gitmodulesMissing` (default: error).
    GitmodulesMissing,
    /// `gitmodulesBlob` (default: error).
    GitmodulesBlob,
    /// `gitmodulesLarge` (default: error).
    GitmodulesLarge,
    /// `gitmodulesName` (default: error).
    GitmodulesName,
    /// `gitmodulesSymlink` (default: error).
    GitmodulesSymlink,
    /// `gitmodulesUrl` (default: error).
    GitmodulesUrl,
    /// `gitmodulesPath` (default: error).
    GitmodulesPath,
    /// `gitmodulesUpdate` (default: error).
    GitmodulesUpdate,
    /// `gitattributesMissing` (default: error).
    GitattributesMissing,
    /// `gitattributesLarge` (default: error).
    GitattributesLarge,
    /// `gitattributesLineLength` (default: error).
    GitattributesLineLength,
    /// `gitattributesBlob` (default: error).
    GitattributesBlob,
    /// `emptyName` (default: warn).
    EmptyName,
    /// `fullPathname` (default: warn).
    FullPathname,
    /// `hasDot` (default: warn).
    HasDot,
    /// `hasDotdot` (default: warn).
    HasDotdot,
    /// `hasDotgit` (default: warn).
    HasDotgit,
    /// `nullSha1` (default: warn).
    NullSha1,
    /// `zeroPaddedFilemode` (default: warn).
    ZeroPaddedFilemode,
    /// `nulInCommit` (default: warn).
    NulInCommit,
    /// `largePathname` (default: warn).
    LargePathname,
    /// `badFilemode` (default: info).
    BadFilemode,
    /// `gitmodulesParse` (default: info).
    GitmodulesParse,
    /// `gitignoreSymlink` (default: info).
    GitignoreSymlink,
    /// `gitattributesSymlink` (default: info).
    GitattributesSymlink,
    /// `mailmapSymlink` (default: info).
    MailmapSymlink,
    /// `badTagName` (default: info).
    BadTagName,
    /// `missingTaggerEntry` (default: info).
    MissingTaggerEntry,
    /// `extraHeaderEntry` (default: ignore).
    ExtraHeaderEntry,
}

/// Every id with its camelCase name and default severity, in git's order.
const TABLE: [(MsgId, &str, Severity); 60] = [
    (MsgId::NulInHeader, "nulInHeader", Severity::Fatal),
    (
        MsgId::UnterminatedHeader,
        "unterminatedHeader",
        Severity::Fatal,
    ),
    (MsgId::BadDate, "badDate", Severity::Error),
    (MsgId::BadDateOverflow, "badDateOverflow", Severity::Error),
    (MsgId::BadEmail, "badEmail", Severity::Error),
    (MsgId::BadName, "badName", Severity::Error),
    (MsgId::BadObjectSha1, "badObjectSha1", Severity::Error),
    (MsgId::BadParentSha1, "badParentSha1", Severity::Error),
    (MsgId::BadRefFiletype, "badRefFiletype", Severity::Error),
    (MsgId::BadRefName, "badRefName", Severity::Error),
    (MsgId::BadTimezone, "badTimezone", Severity::Error),
    (MsgId::BadTree, "badTree", Severity::Error),
    (MsgId::BadTreeSha1, "badTreeSha1", Severity::Error),
    (MsgId::BadType, "badType", Severity::Error),
    (MsgId::DuplicateEntries, "duplicateEntries", Severity::Error),
    (MsgId::MissingAuthor, "missingAuthor", Severity::Error),
    (MsgId::MissingCommitter, "missingCommitter", Severity::Error),
    (MsgId::MissingEmail, "missingEmail", Severity::Error),
    (
        MsgId::MissingNameBeforeEmail,
        "missingNameBeforeEmail",
        Severity::Error,
    ),
    (MsgId::MissingObject, "missingObject", Severity::Error),
    (
        MsgId::MissingSpaceBeforeDate,
        "missingSpaceBeforeDate",
        Severity::Error,
    ),
    (
        MsgId::MissingSpaceBeforeEmail,
        "missingSpaceBeforeEmail",
        Severity::Error,
    ),
    (MsgId::MissingTag, "missingTag", Severity::Error),
    (MsgId::MissingTagEntry, "missingTagEntry", Severity::Error),
    (MsgId::MissingTree, "missingTree", Severity::Error),
    (MsgId::MissingType, "missingType", Severity::Error),
    (MsgId::MissingTypeEntry, "missingTypeEntry", Severity::Error),
    (MsgId::MultipleAuthors, "multipleAuthors", Severity::Error),
    (MsgId::TreeNotSorted, "treeNotSorted", Severity::Error),
    (MsgId::UnknownType, "unknownType", Severity::Error),
    (MsgId::ZeroPaddedDate, "zeroPaddedDate", Severity::Error),
    (
        MsgId::GitmodulesMissing,
        "gitmodulesMissing",
        Severity::Error,
    ),
    (MsgId::GitmodulesBlob, "gitmodulesBlob", Severity::Error),
    (MsgId::GitmodulesLarge, "gitmodulesLarge", Severity::Error),
    (MsgId::GitmodulesName, "gitmodulesName", Severity::Error),
    (
        MsgId::GitmodulesSymlink,
        "gitmodulesSymlink",
        Severity::Error,
    ),
    (MsgId::GitmodulesUrl, "gitmodulesUrl", Severity::Error),
    (MsgId::GitmodulesPath, "gitmodulesPath", Severity::Error),
    (MsgId::GitmodulesUpdate, "gitmodulesUpdate", Severity::Error),
    (
        MsgId::GitattributesMissing,
        "gitattributesMissing",
        Severity::Error,
    ),
    (
        MsgId::GitattributesLarge,
        "gitattributesLarge",
        Severity::Error,
    ),
    (
        MsgId::GitattributesLineLength,
        "gitattributesLineLength",
        Severity::Error,
    ),
    (
        MsgId::GitattributesBlob,
        "gitattributesBlob",
        Severity::Error,
    ),
    (MsgId::EmptyName, "emptyName", Severity::Warn),
    (MsgId::FullPathname, "fullPathname", Severity::Warn),
    (MsgId::HasDot, "hasDot", Severity::Warn),
    (MsgId::HasDotdot, "hasDotdot", Severity::Warn),
    (MsgId::HasDotgit, "hasDotgit", Severity::Warn),
    (MsgId::NullSha1, "nullSha1", Severity::Warn),
    (
        MsgId::ZeroPaddedFilemode,
        "zeroPaddedFilemode",
        Severity::Warn,
    ),
    (MsgId::NulInCommit, "nulInCommit", Severity::Warn),
    (MsgId::LargePathname, "largePathname", Severity::Warn),
    (MsgId::BadFilemode, "badFilemode", Severity::Info),
    (MsgId::GitmodulesParse, "gitmodulesParse", Severity::Info),
    (MsgId::GitignoreSymlink, "gitignoreSymlink", Severity::Info),
    (
        MsgId::GitattributesSymlink,
        "gitattributesSymlink",
        Severity::Info,
    ),
    (MsgId::MailmapSymlink, "mailmapSymlink", Severity::Info),
    (MsgId::BadTagName, "badTagName", Severity::Info),
    (
        MsgId::MissingTaggerEntry,
        "missingTaggerEntry",
        Severity::Info,
    ),
    (
        MsgId::ExtraHeaderEntry,
        "extraHeaderEntry",
        Severity::Ignore,
    ),
];

impl MsgId {
    /// Every id, in git's order.
    pub fn all() -> impl Iterator<Item = MsgId> {
        TABLE.iter().map(|t| t.0)
    }

    fn entry(self) -> &'static (MsgId, &'static str, Severity) {
        // TABLE is in declaration order, so the discriminant is the index.
        &TABLE[self as usize]
    }

    /// git's camelCase spelling, as printed (`missingTaggerEntry`).
    pub fn camel(self) -> &'static str {
        self.entry().1
    }

    /// The severity git gives the id without `--strict` or configuration.
    pub fn default(self) -> Severity {
        self.entry().2
    }

    /// The id a configuration key names (`fsck.<id>`), in any case, as git's `parse_msg_id`
    /// (which compares with the lowercased camelCase spelling).
    pub fn from_config_key(name: &str) -> Option<MsgId> {
        TABLE
            .iter()
            .find(|t| t.1.eq_ignore_ascii_case(name))
            .map(|t| t.0)
    }
}

/// How git treats a message (its `enum fsck_msg_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// `nulInHeader` and `unterminatedHeader`: printed as errors; configuration may not demote
    /// them (`Cannot demote ...`).
    Fatal,
    /// `FSCK_ERROR`: printed as `error in ...`; the object fails.
    Error,
    /// `FSCK_WARN`: printed as `warning in ...`.
    Warn,
    /// `FSCK_INFO`: printed as a warning.
    Info,
    /// `FSCK_IGNORE`: not printed.
    Ignore,
}

impl Severity {
    /// What git prints the message as: `Error` (for `Fatal` and `Error`), `Warn` (for `Warn`
    /// and `Info`), or `None` for `Ignore`.
    pub fn printed(self) -> Option<Severity> {
        match self {
            Severity::Fatal | Severity::Error => Some(Severity::Error),
            Severity::Warn | Severity::Info => Some(Severity::Warn),
            Severity::Ignore => None,
        }
    }
}

/// What checking found: one line git prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// [`Severity::Error`] (`error in <type> <id>: <message>`) or [`Severity::Warn`]
    /// (`warning in <type> <id>: <message>`). For a `plain` line, always `Error`.
    pub severity: Severity,
    /// `<msgId>: <text>`, or for a `plain` line git's parser message (bytes that are not UTF-8,
    /// from names and values in the object, replaced; see `raw`).
    pub message: String,
    /// `message` exactly as git prints it.
    pub raw: Vec<u8>,
    /// A plain `error: <message>` line of git's tree parser (e.g. `too-short tree object`),
    /// printed just before the `badTree` finding; not tied to the object in the output.
    pub plain: bool,
}

impl Finding {
    /// The line `git fsck` prints on stderr for this finding about the object of `kind` whose
    /// id is `hex` (without the newline): `error in <kind> <hex>: <message>`, `warning in ...`,
    /// or `error: <message>` for a `plain` line.
    pub fn line(&self, kind: Kind, hex: &str) -> Vec<u8> {
        let mut l = if self.plain {
            b"error: ".to_vec()
        } else if self.severity == Severity::Error {
            format!("error in {kind} {hex}: ").into_bytes()
        } else {
            format!("warning in {kind} {hex}: ").into_bytes()
        };
        l.extend_from_slice(&self.raw);
        l
    }
}

/// git's default `max_tree_entry_len`.
const DEFAULT_MAX_TREE_ENTRY_LEN: i64 = 4096;

/// The settings of `git fsck`'s object checks: `--strict`, `fsck.<msg-id>` and `fsck.skipList`.
#[derive(Clone, Debug)]
pub struct Options {
    strict: bool,
    /// git's `msg_type` array: `None` until configuration sets a type (then every id's
    /// severity is fixed, `--strict` included, at the time of the first setting).
    types: Option<Vec<Severity>>,
    skip: HashSet<Vec<u8>>,
    max_tree_entry_len: i64,
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

fn bytes_to_os(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

/// Raw bytes of a hexadecimal id (already checked).
fn hex_to_raw(hex: &[u8]) -> Vec<u8> {
    hex.chunks(2)
        .map(|p| {
            let d = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            (d(at(p, 0)) << 4) | d(at(p, 1))
        })
        .collect()
}

use names::at;

/// One set of special blobs in insertion order (git keeps them in a hash set; its iteration
/// order is its own, and only the set of lines printed is meant to match).
#[derive(Clone, Debug, Default)]
struct OidSet {
    order: Vec<Vec<u8>>,
    seen: HashSet<Vec<u8>>,
}

impl OidSet {
    fn insert(&mut self, id: &[u8]) {
        if self.seen.insert(id.to_vec()) {
            self.order.push(id.to_vec());
        }
    }

    fn contains(&self, id: &[u8]) -> bool {
        self.seen.contains(id)
    }

    fn clear(&mut self) {
        self.order.clear();
        self.seen.clear();
    }
}

/// The blobs trees name `.gitmodules` or `.gitattributes` (git's `gitmodules_found`/`_done` and
/// `gitattributes_found`/`_done`).
#[derive(Clone, Debug, Default)]
pub struct SpecialBlobs {
    gitmodules_found: OidSet,
    gitmodules_done: OidSet,
    gitattributes_found: OidSet,
    gitattributes_done: OidSet,
}

impl SpecialBlobs {
    /// Whether `oid` was named `.gitmodules` by a tree checked so far.
    pub fn is_gitmodules(&self, oid: &[u8]) -> bool {
        self.gitmodules_found.contains(oid)
    }

    /// How many blobs trees have named `.gitmodules` and `.gitattributes` so far: the ids
    /// [`SpecialBlobs::found_since`] gives from these counts on were named after.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.gitmodules_found.order.len(),
            self.gitattributes_found.order.len(),
        )
    }

    /// The blobs named `.gitmodules` and `.gitattributes` since `counts` said `since`, in order.
    pub fn found_since(&self, since: (usize, usize)) -> (&[Vec<u8>], &[Vec<u8>]) {
        (
            self.gitmodules_found.order.get(since.0..).unwrap_or(&[]),
            self.gitattributes_found.order.get(since.1..).unwrap_or(&[]),
        )
    }

    /// Records that a tree named `oid` `.gitmodules`, as checking the tree would (for a caller
    /// that checked trees with sets of its own and replays them in git's order).
    pub fn add_gitmodules(&mut self, oid: &[u8]) {
        self.gitmodules_found.insert(oid);
    }

    /// Records that a tree named `oid` `.gitattributes` (see [`SpecialBlobs::add_gitmodules`]).
    pub fn add_gitattributes(&mut self, oid: &[u8]) {
        self.gitattributes_found.insert(oid);
    }

    /// Whether `oid` was named `.gitattributes` by a tree checked so far.
    pub fn is_gitattributes(&self, oid: &[u8]) -> bool {
        self.gitattributes_found.contains(oid)
    }
}

/// What reading a special blob in [`finish`] gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not in the repository (`gitmodulesMissing`/`gitattributesMissing`).
    Missing,
    /// Missing, but a promisor object (skipped, as in a partial clone).
    Promisor,
    /// An object of another type (`gitmodulesBlob`/`gitattributesBlob`, reported on that
    /// object with its type).
    NotBlob(Kind),
    /// The blob's content (git reads it whole here, whatever its size).
    Blob(Vec<u8>),
}

/// A finding of [`finish`]: on the object `oid` of type `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobFinding {
    /// The object's raw id.
    pub oid: Vec<u8>,
    /// Its type as git prints it (`blob`, or the other type of a `NotBlob`).
    pub kind: Kind,
    /// The finding.
    pub finding: Finding,
}

/// The sink of `git fsck`: severities, the skip list, the special blobs.
struct FsckSink<'a> {
    opts: &'a Options,
    skipped: bool,
    special: &'a mut SpecialBlobs,
    out: &'a mut Vec<Finding>,
}

impl checks::Sink for FsckSink<'_> {
    fn report_bytes(&mut self, id: MsgId, text: &[u8]) -> bool {
        if self.skipped {
            return false;
        }
        let Some(severity) = self.opts.severity(id).printed() else {
            return false;
        };
        let mut raw = format!("{}: ", id.camel()).into_bytes();
        raw.extend_from_slice(text);
        self.out.push(Finding {
            severity,
            message: String::from_utf8_lossy(&raw).into_owned(),
            raw,
            plain: false,
        });
        severity == Severity::Error
    }

    fn parse_error(&mut self, text: &str) {
        self.out.push(Finding {
            severity: Severity::Error,
            message: text.to_string(),
            raw: text.as_bytes().to_vec(),
            plain: true,
        });
    }

    fn strict(&self) -> bool {
        self.opts.strict
    }

    fn max_tree_entry_len(&self) -> i64 {
        self.opts.max_tree_entry_len
    }

    fn gitmodules(&mut self, id: &[u8]) {
        self.special.gitmodules_found.insert(id);
    }

    fn gitattributes(&mut self, id: &[u8]) {
        self.special.gitattributes_found.insert(id);
    }
}

/// git's `fsck_object()` on an object of `kind` with raw id `oid` and content `buf`, as
/// `git fsck` calls it: what it prints goes to `out` (errors and warnings; ignored messages,
/// and every message of a skip-listed object, are left out). Trees record their `.gitmodules`
/// and `.gitattributes` blobs in `special`; a blob recorded there is checked now and marked
/// done. Returns whether git's `fsck_object` returned non-zero (which makes `git fsck`'s exit
/// status non-zero); an `error` line may be printed without it (the tag quirk above).
pub fn check_object(
    kind: Kind,
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    if kind == Kind::Blob {
        return check_blob(oid, Some(buf), opts, special, out);
    }
    let mut sink = FsckSink {
        opts,
        skipped: opts.skipped(oid),
        special,
        out,
    };
    match kind {
        Kind::Tree => checks::tree(buf, format, &mut sink),
        Kind::Commit => checks::commit(buf, format, &mut sink),
        Kind::Tag => checks::tag(buf, format, &mut sink),
        Kind::Blob => false,
    }
}

/// Where one entry of a tree is, and the type a link to it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeEntryAt {
    /// The type a link to it names.
    pub kind: Kind,
    /// The offset of its name in the tree (the name ends with the NUL before the id).
    pub name: u32,
    /// The offset of its id.
    pub id: u32,
    /// See [`BaseEntry::plain`].
    pub plain: bool,
    /// See [`BaseEntry::after_candidate`].
    pub after_candidate: bool,
}

/// An entry of a well-formed tree as its check saw it, which a check of a tree that is a delta
/// of it reads to skip the entries the delta copied.
pub trait BaseEntry {
    /// The type a link to it names (a tree's or a blob's mode; never a gitlink).
    fn kind(&self) -> Kind;
    /// The offset of its name.
    fn name(&self) -> u32;
    /// The offset of its id.
    fn id(&self) -> u32;
    /// Whether its name is one git's name checks pass without a second look (no `.`-name,
    /// no HFS+ or NTFS alias, no `/` or `\\`): nothing but its order is checked.
    fn plain(&self) -> bool;
    /// Whether git's order check, between it and the entry before it, kept the one before as
    /// a candidate for a duplicate (a file `foo` before `foo.c`).
    fn after_candidate(&self) -> bool;
    /// Where it starts and ends in its tree (its mode is one of those git writes: `40000` or six
    /// digits).
    fn span(&self, raw: usize) -> (usize, usize) {
        let mode = if self.kind() == Kind::Tree { 6 } else { 7 };
        (
            (self.name() as usize).saturating_sub(mode),
            self.id() as usize + raw,
        )
    }
}

impl BaseEntry for TreeEntryAt {
    fn kind(&self) -> Kind {
        self.kind
    }
    fn name(&self) -> u32 {
        self.name
    }
    fn id(&self) -> u32 {
        self.id
    }
    fn plain(&self) -> bool {
        self.plain
    }
    fn after_candidate(&self) -> bool {
        self.after_candidate
    }
}

/// What the check of a tree that is a delta knows of its base: the base's entries (every one
/// but gitlinks, in order) when the base is well-formed and its check found nothing, and the
/// copies the delta made from it.
#[derive(Clone, Copy)]
pub struct DeltaOf<'a, B> {
    /// The base's entries.
    pub entries: &'a [B],
    /// The delta's copies, in the order of the result.
    pub copies: &'a [crate::delta::Copy],
}

/// Entries of a delta tree that are byte for byte a run of its base's entries, copied by one
/// copy of the delta: git's checks of them and of their order give what they gave in the base
/// (nothing), so they are not made again. The run's links are the base's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// How many of the tree's collected entries come before it.
    pub at: u32,
    /// The base's entries it is, `first..=last`.
    pub first: u32,
    /// See `first`.
    pub last: u32,
    /// Where in this tree the base's entry `first` starts.
    pub to: u32,
}

/// [`check_object`] for a tree, which also collects its links as a walk of a well-formed tree
/// visits them: every entry but gitlinks, into `links` (cleared first). Returns whether the
/// check failed, whether the tree is well-formed (every entry parsed and has one of the five
/// modes git writes, spelled as git spells it), without which `links` means nothing, and
/// whether it is clean (none of git's tree findings applies to it, skip lists aside).
pub fn check_tree_links(
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
    links: &mut Vec<TreeEntryAt>,
) -> TreeChecked {
    let mut runs = Vec::new();
    check_delta_tree_links::<TreeEntryAt>(
        oid, buf, format, opts, special, out, links, &mut runs, None,
    )
}

/// [`check_tree_links`] for a tree that is a delta (`delta`: its clean base's entries and the
/// copies it made): entries copied whole from the base are not checked again; they are in
/// `runs` (cleared first), not `links`.
#[allow(clippy::too_many_arguments)]
pub fn check_delta_tree_links<B: BaseEntry>(
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
    links: &mut Vec<TreeEntryAt>,
    runs: &mut Vec<Run>,
    delta: Option<DeltaOf<'_, B>>,
) -> TreeChecked {
    let mut sink = FsckSink {
        opts,
        skipped: opts.skipped(oid),
        special,
        out,
    };
    let mut collect = checks::TreeLinks {
        out: links,
        runs,
        simple: true,
        clean: false,
    };
    let failed = checks::tree_with(buf, format, &mut sink, Some(&mut collect), delta);
    TreeChecked {
        failed,
        simple: collect.simple,
        clean: collect.clean,
    }
}

/// What [`check_tree_links`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeChecked {
    /// Whether git's check failed.
    pub failed: bool,
    /// Whether the tree is well-formed (its links were collected).
    pub simple: bool,
    /// Whether none of git's tree findings applies (whether or not it would be reported).
    pub clean: bool,
}

/// [`check_object`] for a blob whose content git does not load (larger than
/// `core.bigFileThreshold`): a special blob is then reported as too large to parse.
pub fn check_unloaded_blob(
    oid: &[u8],
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    check_blob(oid, None, opts, special, out)
}

/// git's `fsck_blob`.
fn check_blob(
    oid: &[u8],
    buf: Option<&[u8]>,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    if opts.skipped(oid) {
        return false;
    }
    let modules = special.gitmodules_found.contains(oid);
    let attributes = special.gitattributes_found.contains(oid);
    let mut sink = FsckSink {
        opts,
        skipped: false,
        special,
        out,
    };
    let mut failed = false;
    if modules {
        sink.special.gitmodules_done.insert(oid);
        let Some(buf) = buf else {
            return checks::Sink::report(
                &mut sink,
                MsgId::GitmodulesLarge,
                ".gitmodules too large to parse",
            );
        };
        failed |= checks::gitmodules(buf, &mut sink);
    }
    if attributes {
        sink.special.gitattributes_done.insert(oid);
        let Some(buf) = buf else {
            return checks::Sink::report(
                &mut sink,
                MsgId::GitattributesLarge,
                ".gitattributes too large to parse",
            );
        };
        failed |= checks::gitattributes(buf, &mut sink);
    }
    failed
}

/// git's `fsck_finish()`: the `.gitmodules` blobs not seen yet, then the `.gitattributes` ones,
/// each read through `read` (raw id) and checked; a missing one is `gitmodulesMissing` /
/// `gitattributesMissing` (unless a promisor object), another type `gitmodulesBlob` /
/// `gitattributesBlob`. Findings go to `out` with the object they are about. Both sets are
/// emptied. Returns whether git's `fsck_finish` returned non-zero.
pub fn finish(
    special: &mut SpecialBlobs,
    read: &mut dyn FnMut(&[u8]) -> Lookup,
    opts: &Options,
    out: &mut Vec<BlobFinding>,
) -> bool {
    let mut failed = false;
    for modules in [true, false] {
        let pending: Vec<Vec<u8>> = {
            let (found, done) = if modules {
                (&special.gitmodules_found, &special.gitmodules_done)
            } else {
                (&special.gitattributes_found, &special.gitattributes_done)
            };
            found
                .order
                .iter()
                .filter(|id| !done.contains(id))
                .cloned()
                .collect()
        };
        let (name, missing, not_blob) = if modules {
            (
                ".gitmodules",
                MsgId::GitmodulesMissing,
                MsgId::GitmodulesBlob,
            )
        } else {
            (
                ".gitattributes",
                MsgId::GitattributesMissing,
                MsgId::GitattributesBlob,
            )
        };
        for oid in pending {
            let mut findings = Vec::new();
            let mut kind = Kind::Blob;
            let lookup = read(&oid);
            {
                let mut sink = FsckSink {
                    opts,
                    skipped: opts.skipped(&oid),
                    special,
                    out: &mut findings,
                };
                let report = |s: &mut FsckSink<'_>, id: MsgId, text: String| {
                    checks::Sink::report(s, id, &text)
                };
                match lookup {
                    Lookup::Promisor => {}
                    Lookup::Missing => {
                        failed |= report(&mut sink, missing, format!("unable to read {name} blob"));
                    }
                    Lookup::NotBlob(k) => {
                        kind = k;
                        failed |= report(&mut sink, not_blob, format!("non-blob found at {name}"));
                    }
                    Lookup::Blob(_) => {}
                }
            }
            if let Lookup::Blob(ref data) = lookup {
                failed |= check_blob(&oid, Some(data), opts, special, &mut findings);
            }
            out.extend(findings.into_iter().map(|finding| BlobFinding {
                oid: oid.clone(),
                kind,
                finding,
            }));
        }
        if modules {
            special.gitmodules_found.clear();
            special.gitmodules_done.clear();
        } else {
            special.gitattributes_found.clear();
            special.gitattributes_done.clear();
        }
    }
    failed
}

/// The result of checking one object for `git hash-object`.
#[derive(Debug, Default)]
pub struct Report {
    /// git's `error:` lines, without `error: `, in the order git prints them.
    pub errors: Vec<String>,
    /// Whether git refuses the object (`fatal: refusing to create malformed object`).
    pub refused: bool,
}

/// The sink of `git hash-object`: strict mode with git's default severities, every message
/// that is not ignored printed as `object fails fsck: ...` and counted as an error.
struct StrictSink<'a>(&'a mut Report);

impl checks::Sink for StrictSink<'_> {
    fn report_bytes(&mut self, id: MsgId, text: &[u8]) -> bool {
        if id.default() == Severity::Ignore {
            return false;
        }
        self.0.errors.push(format!(
            "object fails fsck: {}: {}",
            id.camel(),
            String::from_utf8_lossy(text)
        ));
        true
    }

    fn parse_error(&mut self, text: &str) {
        self.0.errors.push(text.to_string());
    }

    fn strict(&self) -> bool {
        true
    }

    fn max_tree_entry_len(&self) -> i64 {
        DEFAULT_MAX_TREE_ENTRY_LEN
    }
}

fn strict(run: impl FnOnce(&mut StrictSink<'_>) -> bool) -> Report {
    let mut r = Report::default();
    let refused = run(&mut StrictSink(&mut r));
    r.refused = refused;
    r
}

/// Checks a tree as `git hash-object` does.
pub fn tree(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::tree(buf, format, s))
}

/// Checks a commit as `git hash-object` does.
pub fn commit(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::commit(buf, format, s))
}

/// Checks a tag as `git hash-object` does.
pub fn tag(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::tag(buf, format, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_parse_errors_come_first() {
        let r = tree(b"abc\n", ObjectFormat::Sha1);
        assert_eq!(
            r.errors,
            [
                "too-short tree object",
                "object fails fsck: badTree: cannot be parsed as a tree"
            ]
        );
        assert!(r.refused);
    }

    #[test]
    fn table_is_in_declaration_order() {
        for (i, t) in TABLE.iter().enumerate() {
            assert_eq!(t.0 as usize, i, "{}", t.1);
        }
    }

    #[test]
    fn ids_and_severities() {
        assert_eq!(MsgId::all().count(), 60);
        assert_eq!(MsgId::MissingTaggerEntry.camel(), "missingTaggerEntry");
        assert_eq!(MsgId::BadObjectSha1.camel(), "badObjectSha1");
        assert_eq!(MsgId::HasDotgit.camel(), "hasDotgit");
        assert_eq!(
            MsgId::from_config_key("MISSINGTAGGERENTRY"),
            Some(MsgId::MissingTaggerEntry)
        );
        assert_eq!(MsgId::NulInHeader.default(), Severity::Fatal);
        assert_eq!(MsgId::ExtraHeaderEntry.default(), Severity::Ignore);
        let strict = Options::new(true);
        assert_eq!(strict.severity(MsgId::NullSha1), Severity::Error);
        assert_eq!(strict.severity(MsgId::BadFilemode), Severity::Info);
        let mut o = Options::new(false);
        assert_eq!(
            o.set_msg_type(b"nulinheader", b"warn"),
            Err("Cannot demote nulinheader to warn".to_string())
        );
        assert_eq!(
            o.set_msg_type(b"nope", b"warn"),
            Err("Unhandled message id: nope".to_string())
        );
        assert_eq!(
            o.set_msg_type(b"nullsha1", b"Warn"),
            Err("Unknown fsck message type: 'Warn'".to_string())
        );
        o.set_msg_type(b"largepathname", b"error:10").unwrap();
        assert_eq!(o.max_tree_entry_len, 10);
        assert_eq!(o.severity(MsgId::LargePathname), Severity::Error);
    }

    /// Truncated and bit-flipped objects and `.gitmodules` blobs: the checks, the walk's links
    /// and the config parser report, never panic.
    #[test]
    fn hostile_input_does_not_panic() {
        let h = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let mut t = b"100644 .gitmodules\0".to_vec();
        t.extend_from_slice(&[0x11; 20]);
        t.extend_from_slice(b"40000 d\\.gitattributes\0");
        t.extend_from_slice(&[0x22; 20]);
        let seeds: [(Kind, Vec<u8>); 4] = [
            (Kind::Tree, t),
            (
                Kind::Commit,
                format!(
                    "tree {h}\nparent {h}\nauthor A <a> 1 +0000\ncommitter C <c> 1 +0000\n\nm\n"
                )
                .into_bytes(),
            ),
            (
                Kind::Tag,
                format!("object {h}\ntype tree\ntag v1\ntagger T <t> 1 +0000\n\nm\n").into_bytes(),
            ),
            (
                Kind::Blob,
                b"[submodule \"a\"]\n\turl = \"http://h:80/%0a\" ; c\n\tpath = \\\n-p\n".to_vec(),
            ),
        ];
        let opts = Options::new(true);
        for (kind, seed) in seeds {
            let mut variants: Vec<Vec<u8>> = (0..=seed.len()).map(|n| seed[..n].to_vec()).collect();
            for i in 0..seed.len() {
                for bit in [0x01u8, 0x20, 0x80] {
                    let mut v = seed.clone();
                    v[i] ^= bit;
                    variants.push(v);
                }
            }
            for v in variants {
                let mut special = SpecialBlobs::default();
                special.gitmodules_found.insert(&[0x33; 20]);
                special.gitattributes_found.insert(&[0x33; 20]);
                let mut out = Vec::new();
                check_object(
                    kind,
                    &[0x33; 20],
                    &v,
                    ObjectFormat::Sha1,
                    &opts,
                    &mut special,
                    &mut out,
                );
                let _ = crate::links::links_for(kind, &[0x33; 20], &v, ObjectFormat::Sha1);
                let _ = tree(&v, ObjectFormat::Sha256);
                let _ = commit(&v, ObjectFormat::Sha256);
                let _ = tag(&v, ObjectFormat::Sha1);
                let _ = gitconfig::Config::parse_blob(&v);
                let _ = gitconfig::Config::parse(&v, std::path::Path::new("f"));
                let mut fin = Vec::new();
                finish(
                    &mut special,
                    &mut |_| Lookup::Blob(v.clone()),
                    &opts,
                    &mut fin,
                );
            }
        }
    }
}

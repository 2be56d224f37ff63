//! What the ref backends give and the rules they share, apart from either backend: a ref and a
//! listing of refs, a ref read without following it (`parse_loose_ref_contents`), a reflog and
//! its entries, and git's rules for ref names (`check_refname_format`, `refname_is_safe`, the
//! per-worktree names). The files backend ([`super::refs`], [`super::reflog`]) and the reftable
//! one ([`super::reftable::store`]) both build on it.

use crate::ObjectFormat;

/// One ref as `refs_for_each_rawref` visits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    /// The full name (`refs/heads/main`; a `packed-refs` line may give any name, even `HEAD`).
    pub name: Vec<u8>,
    /// The id it resolves to: the null id (all zeros) when broken.
    pub id: Vec<u8>,
    /// `REF_ISBROKEN`: unreadable content, a dangling symbolic ref, the null id, or a bad name.
    pub broken: bool,
    /// `REF_BAD_NAME`: the name fails `check_refname_format`.
    pub bad_name: bool,
    /// The target of a loose symbolic ref (`ref: <target>`).
    pub symref_target: Option<Vec<u8>>,
    /// It came from `packed-refs` (no loose ref of that name).
    pub packed: bool,
}

impl Ref {
    /// The name for messages (invalid UTF-8 replaced).
    pub fn name_lossy(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// Every ref of a store in git's order, and the fatal message when git dies part-way (a bad
/// `packed-refs` line, a dangerous name): the refs before it were already visited by git.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RefListing {
    /// The refs git visits before stopping (all of them when `fatal` is `None`).
    pub refs: Vec<Ref>,
    /// git's `fatal:` line without the prefix (exit status 128).
    pub fatal: Option<String>,
}

/// How git classifies a ref name's worktree (`parse_worktree_ref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorktreeRefType {
    /// Shared by all worktrees (`refs/heads/…`, `refs/tags/…`).
    Shared,
    /// The current worktree's own (`HEAD`, `refs/bisect/…`).
    Current,
    /// `main-worktree/<ref>`.
    Main,
    /// `worktrees/<id>/<ref>`.
    Other,
}

/// `parse_worktree_ref`: the type, and for `Main`/`Other` the worktree id and the bare name.
pub fn parse_worktree_ref(name: &[u8]) -> (WorktreeRefType, &[u8], &[u8]) {
    if let Some(rest) = name.strip_prefix(b"worktrees/") {
        return match rest.iter().position(|&b| b == b'/') {
            None => (WorktreeRefType::Other, rest, b""),
            Some(slash) => {
                let id = rest.get(..slash).unwrap_or_default();
                let bare = rest.get(slash + 1..).unwrap_or_default();
                if is_current_worktree_ref(bare) {
                    (WorktreeRefType::Other, id, bare)
                } else {
                    (WorktreeRefType::Shared, b"", name)
                }
            }
        };
    }
    if let Some(bare) = name.strip_prefix(b"main-worktree/")
        && is_current_worktree_ref(bare)
    {
        return (WorktreeRefType::Main, b"", bare);
    }
    if is_current_worktree_ref(name) {
        (WorktreeRefType::Current, b"", name)
    } else {
        (WorktreeRefType::Shared, b"", name)
    }
}

/// `is_per_worktree_ref`.
pub fn is_per_worktree_ref(name: &[u8]) -> bool {
    name.starts_with(b"refs/worktree/")
        || name.starts_with(b"refs/bisect/")
        || name.starts_with(b"refs/rewritten/")
}

/// `is_root_ref_syntax`: only uppercase letters, `-` and `_` (an empty name too).
fn is_root_ref_syntax(name: &[u8]) -> bool {
    name.iter()
        .all(|&c| c.is_ascii_uppercase() || c == b'-' || c == b'_')
}

fn is_current_worktree_ref(name: &[u8]) -> bool {
    is_root_ref_syntax(name) || is_per_worktree_ref(name)
}

/// git's `is_branch`: the name is under `refs/heads/` (fsck requires those to point at commits).
pub fn is_branch(name: &str) -> bool {
    name.starts_with("refs/heads/")
}

/// What `check_refname_format` makes of each byte.
fn disposition(c: u8) -> u8 {
    match c {
        0 | b'/' => 1,
        b'.' => 2,
        b'{' => 3,
        1..=0x1f | 0x7f | b' ' | b':' | b'?' | b'[' | b'\\' | b'^' | b'~' => 4,
        b'*' => 5,
        _ => 0,
    }
}

/// `check_refname_format(name, REFNAME_ALLOW_ONELEVEL or 0)`: whether the name is valid (a name
/// with a NUL byte is checked up to it, as C sees it).
pub fn check_refname_format(name: &[u8], allow_onelevel: bool) -> bool {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let name = name.get(..end).unwrap_or_default();
    if name == b"@" {
        return false;
    }
    let mut components = 0;
    let mut rest = name;
    loop {
        // one component
        let mut last = 0u8;
        let mut len = 0;
        for &c in rest {
            match disposition(c) {
                1 => break,
                2 if last == b'.' => return false,
                3 if last == b'@' => return false,
                4 | 5 => return false,
                _ => {}
            }
            last = c;
            len += 1;
        }
        let component = rest.get(..len).unwrap_or_default();
        if len == 0 || component.first() == Some(&b'.') || component.ends_with(b".lock") {
            return false;
        }
        components += 1;
        match rest.get(len) {
            None => break,
            Some(_) => rest = rest.get(len + 1..).unwrap_or_default(),
        }
    }
    if name.last() == Some(&b'.') {
        return false;
    }
    allow_onelevel || components >= 2
}

/// `refname_is_safe`: under `refs/` without escaping it, or all uppercase and `_`.
pub fn refname_is_safe(name: &[u8]) -> bool {
    if let Some(rest) = name.strip_prefix(b"refs/") {
        if rest.is_empty() || rest.first() == Some(&b'/') || rest.last() == Some(&b'/') {
            return false;
        }
        return normalize_path(rest).is_some_and(|n| n == rest);
    }
    !name.is_empty() && name.iter().all(|&c| c.is_ascii_uppercase() || c == b'_')
}

/// git's `normalize_path_copy` on a relative path: `None` when `..` climbs out.
fn normalize_path(path: &[u8]) -> Option<Vec<u8>> {
    let mut out: Vec<&[u8]> = Vec::new();
    let mut trailing = false;
    for comp in path.split(|&b| b == b'/') {
        trailing = false;
        match comp {
            b"" | b"." => trailing = true,
            b".." => {
                out.pop()?;
                trailing = true;
            }
            c => out.push(c),
        }
    }
    let mut s = out.join(&b'/');
    if trailing && !s.is_empty() {
        s.push(b'/');
    }
    Some(s)
}

/// A ref read without following it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawRef {
    /// An id.
    Id(Vec<u8>),
    /// `ref: <target>` (or a symbolic link to `refs/…`).
    Symbolic(Vec<u8>),
}

/// Why a ref could not be read (git's `failure_errno`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawRefError {
    /// git dies reading `packed-refs`: its fatal message.
    Fatal(String),
    /// `ENOENT`: neither loose nor packed.
    NotFound,
    /// `EISDIR`: a directory where the ref should be (and no packed ref).
    IsDir,
    /// `ENOTDIR`: a leading path component is a file.
    NotDir,
    /// `EINVAL`: the content is neither an id nor `ref: <name>`.
    Invalid,
    /// Another read error.
    Other,
}

/// `parse_loose_ref_contents` after git's `strbuf_rtrim`.
pub fn parse_loose_content(content: &[u8], format: ObjectFormat) -> Result<RawRef, RawRefError> {
    // strbuf_read keeps NULs, but the parsing below is C-string based
    let end = content
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(content.len());
    let mut text = content.get(..end).unwrap_or_default();
    if end == content.len() {
        while let Some((&last, rest)) = text.split_last() {
            if is_space(last) {
                text = rest;
            } else {
                break;
            }
        }
    }
    if let Some(rest) = text.strip_prefix(b"ref:") {
        let start = rest
            .iter()
            .position(|&c| !is_space(c))
            .unwrap_or(rest.len());
        return Ok(RawRef::Symbolic(
            rest.get(start..).unwrap_or_default().to_vec(),
        ));
    }
    let hexsz = format.hex_len();
    let id = text
        .get(..hexsz)
        .and_then(|h| super::parse_hex(h, format.raw_len()))
        .ok_or(RawRefError::Invalid)?;
    match text.get(hexsz) {
        None => Ok(RawRef::Id(id)),
        Some(&c) if is_space(c) => Ok(RawRef::Id(id)),
        Some(_) => Err(RawRefError::Invalid),
    }
}

/// git's `isspace` (its own ctype table: space, `\t`, `\n`, `\r`).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// One reflog entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReflogEntry {
    /// The old id (null for a creation).
    pub old: Vec<u8>,
    /// The new id.
    pub new: Vec<u8>,
    /// The timestamp (seconds; never 0 in a reflog file: such a line is skipped).
    pub timestamp: u64,
    /// The timezone as `strtol` reads `+hhmm` (e.g. `100` for `+0100`).
    pub tz: i64,
}

/// One reflog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reflog {
    /// The name git prints (`HEAD`, `refs/heads/x`, `worktrees/<id>/HEAD`).
    pub name: String,
    /// Its entries, oldest first.
    pub entries: Vec<ReflogEntry>,
}

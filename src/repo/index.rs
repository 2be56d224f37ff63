//! The index (`$GIT_DIR/index`) as `git fsck` reads it: `read_index_from` with the checksum and
//! the entry order verified (`verify_index_checksum`, `verify_ce_order`).
//!
//! - Versions 2 and 3 (entries padded to 8 bytes) and 4 (paths prefix-compressed against the
//!   previous entry's).
//! - Extensions: `TREE` (the cache tree), `REUC` (resolve-undo), `link` (split index: the entries
//!   of `sharedindex.<hex>` merged under this file's), `sdir` (sparse index: directory entries,
//!   expanded by reading trees as git's `ensure_full_index` does). `UNTR`, `FSMN`, `EOIE` and
//!   `IEOT` are read by git for other purposes and skipped here; any other extension whose name
//!   starts with an uppercase letter is optional (`ignoring XXXX extension` on stderr), any other
//!   one makes git die.
//!
//! Every way git refuses an index ends in `fatal: ...` (exit status 128), sometimes after an
//! `error: ...` line: [`IndexError`] carries both. A missing index is no error (`Ok(None)`).
//!
//! [`parse_index`] is pure (bytes in, entries out) and never allocates from a count in the file
//! before checking it against the file's length. One deliberate difference from git: version 4
//! paths whose total length exceeds 64 times the file's size (at least 64 MiB) make the file
//! corrupt, where git would allocate them.

use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

use super::hex;
use crate::hash::Hasher;
use crate::object::ObjectFormat;
use flagsplit_git::bytes::{be16, be32};

/// `CE_STAGEMASK` in the on-disk flags.
const STAGE_MASK: u16 = 0x3000;
/// `CE_EXTENDED`: a second 16-bit flags word follows.
const EXTENDED: u16 = 0x4000;
/// `CE_NAMEMASK`: the name length (0xfff: 4095 or more, NUL-terminated).
const NAME_MASK: u16 = 0x0fff;
/// The extended flags git understands, as they sit in the upper half of `ce_flags`
/// (`CE_INTENT_TO_ADD | CE_SKIP_WORKTREE`).
const EXTENDED_KNOWN: u32 = (1 << 29) | (1 << 30);
/// `CE_SKIP_WORKTREE`.
const SKIP_WORKTREE: u32 = 1 << 30;
/// `CE_INTENT_TO_ADD`.
const INTENT_TO_ADD: u32 = 1 << 29;

/// The file mode bits of a gitlink (submodule commit), `S_IFGITLINK`.
pub const MODE_GITLINK: u32 = 0o160000;
/// The file mode of a sparse directory entry, `S_IFDIR`.
pub const MODE_DIR: u32 = 0o040000;
const MODE_TYPE: u32 = 0o170000;

/// One index entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// The mode (`100644`, `100755`, `120000`, `160000`; `040000` for a sparse directory).
    pub mode: u32,
    /// The object id (raw bytes, the repository's length).
    pub id: Vec<u8>,
    /// The path (a sparse directory's ends with `/`).
    pub path: Vec<u8>,
    /// The stage: 0 merged, 1 base, 2 ours, 3 theirs.
    pub stage: u8,
    /// `CE_SKIP_WORKTREE`.
    pub skip_worktree: bool,
    /// `CE_INTENT_TO_ADD` (`git add -N`).
    pub intent_to_add: bool,
    /// git's in-core `ce_flags` as read: the on-disk flags without the name length, with the
    /// extended flags in the upper half.
    pub flags: u32,
}

impl IndexEntry {
    /// A gitlink (fsck skips those).
    pub fn is_gitlink(&self) -> bool {
        self.mode & MODE_TYPE == MODE_GITLINK
    }

    /// A sparse directory entry (`S_ISSPARSEDIR`).
    pub fn is_sparse_dir(&self) -> bool {
        self.mode & MODE_TYPE == MODE_DIR
    }
}

/// A cache-tree node (`TREE` extension).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CacheTree {
    /// The path component (empty for the root).
    pub name: Vec<u8>,
    /// Entries covered; negative when the node is invalidated (then it has no id).
    pub entry_count: i32,
    /// The tree's id when `entry_count >= 0`.
    pub id: Option<Vec<u8>>,
    /// Sub-directories, in git's order (shorter names first, then bytewise).
    pub subtrees: Vec<CacheTree>,
}

impl CacheTree {
    /// Every node, depth-first, parents before children (the order of git's `fsck_cache_tree`).
    pub fn walk(&self) -> Vec<&CacheTree> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            out.push(node);
            stack.extend(node.subtrees.iter().rev());
        }
        out
    }
}

/// One resolve-undo record (`REUC`): a path's three stages before the conflict was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveUndo {
    /// The path.
    pub path: Vec<u8>,
    /// Modes of stages 1, 2, 3 (0: absent).
    pub modes: [u32; 3],
    /// Ids of the stages whose mode is not 0.
    pub ids: [Option<Vec<u8>>; 3],
}

/// An index as git holds it after `read_index_from` (and, for a sparse index, `ensure_full_index`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Index {
    /// The file's version (2, 3 or 4).
    pub version: u32,
    /// The entries, in the file's order (for a split index: the shared index's merged with this
    /// file's; for a sparse index: expanded).
    pub entries: Vec<IndexEntry>,
    /// The cache tree, when the `TREE` extension is present and readable (git drops an unreadable
    /// one silently). `None` for a sparse index: git's `ensure_full_index` discards the stored
    /// cache tree and recomputes it from the expanded entries (see [`Index::sparse`]).
    pub cache_tree: Option<CacheTree>,
    /// The resolve-undo records, sorted by path (git's string list), when `REUC` is present and
    /// valid.
    pub resolve_undo: Option<Vec<ResolveUndo>>,
    /// The file had the `sdir` extension (a sparse index): its directory entries were expanded
    /// (unless the tree reader could not read them), and git recomputes the cache tree from the
    /// entries (writing any tree objects that are missing), which this reader does not do.
    pub sparse: bool,
    /// The split index's base (`link` extension): the shared index's checksum, when not null.
    pub shared_index: Option<Vec<u8>>,
    /// The trailing checksum.
    pub checksum: Vec<u8>,
    /// Lines git prints on stderr while reading without dying (`ignoring XXXX extension`,
    /// `error: Index records invalid resolve-undo information`, `error: Could not read <id>`),
    /// in order.
    pub messages: Vec<String>,
}

/// Why git refuses an index: it dies (exit status 128).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexError {
    /// The `error: ...` lines printed before dying (often none).
    pub errors: Vec<String>,
    /// The fatal message, without `fatal: `.
    pub fatal: String,
}

impl IndexError {
    fn fatal(message: impl Into<String>) -> IndexError {
        IndexError {
            errors: Vec::new(),
            fatal: message.into(),
        }
    }

    /// `error: <message>` then `fatal: index file corrupt`.
    fn corrupt_after(error: impl Into<String>) -> IndexError {
        IndexError {
            errors: vec![format!("error: {}", error.into())],
            fatal: "index file corrupt".to_string(),
        }
    }

    fn corrupt() -> IndexError {
        IndexError::fatal("index file corrupt")
    }

    /// Every line git prints on stderr, with their prefixes, the `fatal:` one last.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.errors.clone();
        lines.push(format!("fatal: {}", self.fatal));
        lines
    }
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fatal)
    }
}

impl std::error::Error for IndexError {}

/// What reading a sparse index needs from the object database: `ensure_full_index` reads the
/// trees of its directory entries and recomputes the cache tree (`cache_tree_update`), which
/// checks that the entries' objects exist. Unused for an index that is not sparse.
pub trait Objects {
    /// A tree object's content by id (`None`: it cannot be read).
    fn read_tree(&mut self, id: &[u8]) -> Option<Vec<u8>>;
    /// Whether an object exists (git counts the empty tree and the empty blob as existing
    /// even when they are not stored).
    fn has_object(&mut self, id: &[u8]) -> bool;
}

/// [`Objects`] for an index that is known not to be sparse, or when the objects are not at hand:
/// no tree can be read, no object exists.
pub struct NoObjects;

impl Objects for NoObjects {
    fn read_tree(&mut self, _id: &[u8]) -> Option<Vec<u8>> {
        None
    }
    fn has_object(&mut self, _id: &[u8]) -> bool {
        false
    }
}

/// Reads the index at `path` as `git fsck` does: `Ok(None)` when it does not exist. `git_dir` is
/// the worktree's git directory, where a split index's `sharedindex.<hex>` is looked for first
/// (then beside `path`). `objects` serves a sparse index's expansion.
pub fn read_index(
    path: &Path,
    git_dir: &Path,
    format: ObjectFormat,
    objects: &mut dyn Objects,
) -> Result<Option<Index>, IndexError> {
    let display = path.display().to_string();
    let Some(data) = read_file(path, &display, false, format)? else {
        return Ok(None);
    };
    let mut index = parse_index(&data, format, &display)?;
    if let Some(base_id) = index.link.take().filter(|l| l.base.iter().any(|&b| b != 0)) {
        let hex_id = hex(&base_id.base);
        let first = git_dir.join(format!("sharedindex.{hex_id}"));
        let base_path = if first.exists() {
            first.clone()
        } else {
            path.parent()
                .unwrap_or_else(|| Path::new("."))
                .join(format!("sharedindex.{hex_id}"))
        };
        let base_display = base_path.display().to_string();
        let base_data = read_file(&base_path, &base_display, true, format)?.unwrap_or_default();
        let base = parse_index(&base_data, format, &base_display)?;
        if base.index.checksum != base_id.base {
            return Err(IndexError::fatal(format!(
                "broken index, expect {hex_id} in {}, got {}",
                first.display(),
                hex(&base.index.checksum)
            )));
        }
        // this file's lines were printed first, then the shared index's
        let mut base_messages = base.index.messages;
        index.index.messages.append(&mut base_messages);
        index.index.entries = merge_split(base.index.entries, index.index.entries, &base_id)?;
        index.index.shared_index = Some(base_id.base);
    }
    let mut index = index.index;
    if index.sparse {
        expand_sparse(&mut index, format, objects);
    }
    check_order(&index.entries)?;
    Ok(Some(index))
}

/// An index file's bytes as `do_read_index` gets them (`open`, `fstat`, `mmap`), with git's
/// fatal messages; `None` when it does not exist and need not.
fn read_file(
    path: &Path,
    display: &str,
    must_exist: bool,
    format: ObjectFormat,
) -> Result<Option<Vec<u8>>, IndexError> {
    let open_failed = |e: &io::Error| {
        IndexError::fatal(format!(
            "{display}: index file open failed: {}",
            crate::os_error::strerror(e)
        ))
    };
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound && !must_exist => return Ok(None),
        Err(e) => return Err(open_failed(&e)),
    };
    if meta.is_dir() {
        // open(2) succeeds on a directory; mmap(2) then fails
        if meta.len() < (12 + format.raw_len()) as u64 {
            return Err(IndexError::fatal(format!(
                "{display}: index file smaller than expected"
            )));
        }
        return Err(IndexError::fatal(format!(
            "{display}: unable to map index file: No such device"
        )));
    }
    fs::read(path).map(Some).map_err(|e| open_failed(&e))
}

/// The `link` extension: the shared index's checksum and the two EWAH bitmaps (their words;
/// [`ewah_positions`] lists the set bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The shared index's checksum (null: not split).
    pub base: Vec<u8>,
    /// The words of the bitmap of positions in the shared index this file deletes.
    pub delete: Vec<u64>,
    /// The words of the bitmap of positions in the shared index this file's first entries
    /// replace.
    pub replace: Vec<u64>,
}

/// One index file's content, before a split index is merged with its shared index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedIndex {
    /// The entries and extensions of this file.
    pub index: Index,
    /// The `link` extension, when present.
    pub link: Option<Link>,
}

/// Parses one index file's bytes (`path` only names it in messages): header, checksum, entries
/// and extensions, as `do_read_index` does. Entry order is not checked here (git checks it after
/// merging a split index): see [`check_order`].
pub fn parse_index(
    data: &[u8],
    format: ObjectFormat,
    path: &str,
) -> Result<ParsedIndex, IndexError> {
    let rawsz = format.raw_len();
    if data.len() < 12 + rawsz {
        return Err(IndexError::fatal(format!(
            "{path}: index file smaller than expected"
        )));
    }
    let signature = be32(data, 0).ok_or_else(IndexError::corrupt)?;
    if signature != 0x4449_5243 {
        // git prints the signature as read in host order
        return Err(IndexError::corrupt_after(format!(
            "bad signature 0x{:08x}",
            u32::from_le_bytes(signature.to_be_bytes())
        )));
    }
    let version = be32(data, 4).ok_or_else(IndexError::corrupt)?;
    if !(2..=4).contains(&version) {
        return Err(IndexError::corrupt_after(format!(
            "bad index version {}",
            version as i32
        )));
    }
    let body_len = data.len() - rawsz;
    let checksum = data
        .get(body_len..)
        .ok_or_else(IndexError::corrupt)?
        .to_vec();
    if checksum.iter().any(|&b| b != 0) {
        let mut h = Hasher::new(format.object_hash(true).into());
        h.update(data.get(..body_len).ok_or_else(IndexError::corrupt)?);
        match h.finalize() {
            Ok(d) if d.as_bytes() == checksum.as_slice() => {}
            Ok(_) => return Err(IndexError::corrupt_after("bad index file sha1 signature")),
            Err(c) => {
                return Err(IndexError::fatal(format!(
                    "SHA-1 appears to be part of a collision attack: {}",
                    crate::hash::Digest::new(&c.digest)
                )));
            }
        }
    }
    let count = be32(data, 8).ok_or_else(IndexError::corrupt)?;
    let mut entries: Vec<IndexEntry> = Vec::new();
    let mut offset = 12usize;
    // Version 4 paths repeat the previous one's prefix, so their total can grow quadratically
    // with the file's size; past this bound the file is refused as corrupt (git would try to
    // allocate it all).
    let path_budget = data.len().saturating_mul(64).max(1 << 26);
    let mut path_bytes = 0usize;
    for _ in 0..count {
        let previous = entries.last().map(|e| e.path.as_slice());
        let (entry, size) = parse_entry(data, offset, version, rawsz, previous)?;
        path_bytes = path_bytes.saturating_add(entry.path.len());
        if path_bytes > path_budget {
            return Err(IndexError::corrupt());
        }
        entries.push(entry);
        offset = offset.checked_add(size).ok_or_else(IndexError::corrupt)?;
        if offset > data.len() {
            return Err(IndexError::corrupt());
        }
    }
    let mut index = Index {
        version,
        entries,
        checksum,
        ..Index::default()
    };
    let mut link = None;
    // extensions: 4-byte name, 4-byte length, while 8 bytes and the checksum remain
    while offset
        .checked_add(8 + rawsz)
        .is_some_and(|end| end <= data.len())
    {
        let name = data
            .get(offset..offset + 4)
            .ok_or_else(IndexError::corrupt)?;
        let size = be32(data, offset + 4).ok_or_else(IndexError::corrupt)? as usize;
        let start = offset + 8;
        let ext = start
            .checked_add(size)
            .and_then(|end| data.get(start..end))
            .ok_or_else(IndexError::corrupt)?;
        match name {
            b"TREE" => index.cache_tree = parse_cache_tree(ext, rawsz)?,
            b"REUC" => match parse_resolve_undo(ext, rawsz) {
                Some(r) => index.resolve_undo = Some(r),
                None => {
                    index.resolve_undo = None;
                    index
                        .messages
                        .push("error: Index records invalid resolve-undo information".into());
                }
            },
            b"link" => {
                if index.sparse {
                    return Err(IndexError::fatal(
                        "cannot use split index with a sparse index",
                    ));
                }
                link = Some(parse_link(ext, rawsz)?);
            }
            b"FSMN" => {
                if let Err(mut lines) = check_fsmonitor(ext) {
                    index.messages.append(&mut lines);
                }
            }
            b"UNTR" | b"EOIE" | b"IEOT" => {}
            b"sdir" => index.sparse = true,
            _ => {
                let shown = ext_name(name);
                if name.first().is_some_and(u8::is_ascii_uppercase) {
                    index.messages.push(format!("ignoring {shown} extension"));
                } else {
                    return Err(IndexError::corrupt_after(format!(
                        "index uses {shown} extension, which we do not understand"
                    )));
                }
            }
        }
        offset = start + size;
    }
    Ok(ParsedIndex { index, link })
}

/// `read_fsmonitor_extension`'s checks: git prints its error and goes on without the
/// extension. (git's check that the bitmap is no larger than the index, a `BUG`, is not made.)
fn check_fsmonitor(data: &[u8]) -> Result<(), Vec<String>> {
    if data.len() < 9 {
        return Err(vec![
            "error: corrupt fsmonitor extension (too short)".into(),
        ]);
    }
    let version = be32(data, 0).unwrap_or(0);
    let mut at = 4;
    match version {
        1 => at += 8,
        2 => {
            let rest = data.get(at..).unwrap_or_default();
            at += rest.iter().position(|&b| b == 0).unwrap_or(rest.len()) + 1;
        }
        v => return Err(vec![format!("error: bad fsmonitor version {}", v as i32)]),
    }
    let failed = "error: failed to parse ewah bitmap reading fsmonitor index extension";
    let Some(size) = be32(data, at) else {
        return Err(vec![failed.into()]);
    };
    at += 4;
    let size = size as usize;
    let bitmap = data
        .get(at..)
        .map(|rest| rest.get(..size).unwrap_or(rest))
        .unwrap_or_default();
    match read_ewah(bitmap) {
        Ok((_, used)) if used == size => Ok(()),
        Ok(_) => Err(vec![failed.into()]),
        Err(e) => Err(vec![format!("error: {e}"), failed.into()]),
    }
}

/// An extension's name as `%.4s` prints it (up to a NUL).
fn ext_name(name: &[u8]) -> String {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    String::from_utf8_lossy(name.get(..end).unwrap_or_default()).into_owned()
}

/// git's `decode_varint` (index v4 strip lengths): `None` on overflow or end of data.
fn decode_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut c = *data.get(*at)?;
    *at += 1;
    let mut val = u64::from(c & 127);
    while c & 128 != 0 {
        c = *data.get(*at)?;
        *at += 1;
        val = val.checked_add(1)?;
        if val >> 57 != 0 {
            return None;
        }
        val = (val << 7) + u64::from(c & 127);
    }
    Some(val)
}

/// One entry at `offset`: the entry and the bytes it takes (`create_from_disk`).
fn parse_entry(
    data: &[u8],
    offset: usize,
    version: u32,
    rawsz: usize,
    previous: Option<&[u8]>,
) -> Result<(IndexEntry, usize), IndexError> {
    let corrupt = IndexError::corrupt;
    let mode = be32(data, offset + 24).ok_or_else(corrupt)?;
    let id_at = offset + 40;
    let id = data.get(id_at..id_at + rawsz).ok_or_else(corrupt)?.to_vec();
    let flags_at = id_at + rawsz;
    let flags = be16(data, flags_at).ok_or_else(corrupt)?;
    let mut ce_flags = u32::from(flags & !NAME_MASK);
    let mut name_at = flags_at + 2;
    if flags & EXTENDED != 0 {
        let extended = u32::from(be16(data, flags_at + 2).ok_or_else(corrupt)?) << 16;
        if extended & !EXTENDED_KNOWN != 0 {
            return Err(IndexError::fatal(format!(
                "unknown index entry format 0x{extended:08x}"
            )));
        }
        ce_flags |= extended;
        name_at += 2;
    }
    let mut len = usize::from(flags & NAME_MASK);
    let (path, size) = if version == 4 {
        let mut at = name_at;
        let strip = decode_varint(data, &mut at).ok_or_else(corrupt)?;
        let mut copy_len = 0usize;
        if let Some(prev) = previous {
            let strip = usize::try_from(strip).unwrap_or(usize::MAX);
            if prev.len() < strip {
                return Err(IndexError::fatal(format!(
                    "malformed name field in the index, near path '{}'",
                    String::from_utf8_lossy(prev)
                )));
            }
            copy_len = prev.len() - strip;
        }
        let rest = data.get(at..).ok_or_else(corrupt)?;
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        if len == usize::from(NAME_MASK) {
            len = nul + copy_len;
        }
        let suffix_len = len.checked_sub(copy_len).ok_or_else(corrupt)?;
        let suffix = rest.get(..suffix_len).ok_or_else(corrupt)?;
        let mut path = previous
            .and_then(|p| p.get(..copy_len))
            .unwrap_or_default()
            .to_vec();
        path.extend_from_slice(suffix);
        (path, at - offset + suffix_len + 1)
    } else {
        let rest = data.get(name_at..).ok_or_else(corrupt)?;
        if len == usize::from(NAME_MASK) {
            len = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        }
        let path = rest.get(..len).ok_or_else(corrupt)?.to_vec();
        let flag_bytes = if flags & EXTENDED != 0 { 4 } else { 2 };
        let size = (40 + rawsz + flag_bytes + len + 8) & !7;
        (path, size)
    };
    Ok((
        IndexEntry {
            mode,
            id,
            path,
            stage: ((flags & STAGE_MASK) >> 12) as u8,
            skip_worktree: ce_flags & SKIP_WORKTREE != 0,
            intent_to_add: ce_flags & INTENT_TO_ADD != 0,
            flags: ce_flags,
        },
        size,
    ))
}

/// C's `strtol` base 10 at the start of `data`: the value (saturated, then truncated to `int` as
/// git's assignment does) and the bytes consumed (0: no number).
fn strtol_int(data: &[u8]) -> (i32, usize) {
    let mut i = 0;
    while data
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = data.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut value: i64 = 0;
    while let Some(&c) = data.get(i).filter(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        value = if negative {
            value.saturating_mul(10).saturating_sub(d)
        } else {
            value.saturating_mul(10).saturating_add(d)
        };
        i += 1;
    }
    if i == digits_start {
        return (0, 0);
    }
    (value as i32, i)
}

/// Nesting beyond this drops a `TREE` extension as unreadable: no real path is that deep, and the
/// nested value's (recursive) drop stays within a small stack. git recurses without a bound.
const MAX_CACHE_TREE_DEPTH: usize = 2048;

/// The `TREE` extension (`cache_tree_read`): `None` when git drops it, an error when git dies.
/// Iterative: a hostile extension cannot exhaust the stack.
fn parse_cache_tree(data: &[u8], rawsz: usize) -> Result<Option<CacheTree>, IndexError> {
    if data.first().is_none_or(|&b| b != 0) {
        return Ok(None);
    }
    // (node, subtrees still to read)
    let mut stack: Vec<(CacheTree, i32)> = Vec::new();
    let mut at = 0usize;
    loop {
        // read one node header at `at`
        let rest = data.get(at..).unwrap_or_default();
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return Ok(None);
        };
        let name = rest.get(..nul).unwrap_or_default().to_vec();
        let buf = rest.get(nul + 1..).unwrap_or_default();
        if buf.is_empty() {
            return Ok(None);
        }
        let (entry_count, n1) = strtol_int(buf);
        if n1 == 0 {
            return Ok(None);
        }
        let (subtree_nr, n2) = strtol_int(buf.get(n1..).unwrap_or_default());
        if n2 == 0 {
            return Ok(None);
        }
        let Some(nl) = buf.iter().position(|&b| b == 0 || b == b'\n') else {
            return Ok(None);
        };
        let mut next = at + nul + 1 + nl + 1;
        let mut id = None;
        if entry_count >= 0 {
            let Some(raw) = data.get(next..next + rawsz) else {
                return Ok(None);
            };
            id = Some(raw.to_vec());
            next += rawsz;
        }
        at = next;
        let node = CacheTree {
            name,
            entry_count,
            id,
            subtrees: Vec::new(),
        };
        if stack.len() >= MAX_CACHE_TREE_DEPTH {
            return Ok(None);
        }
        stack.push((node, subtree_nr));
        // close every finished node
        while let Some((_, remaining)) = stack.last() {
            if *remaining > 0 {
                break;
            }
            let Some((done, _)) = stack.pop() else { break };
            match stack.last_mut() {
                None => return Ok(Some(done)),
                Some((parent, remaining)) => {
                    let pos = parent.subtrees.binary_search_by(|s| {
                        s.name
                            .len()
                            .cmp(&done.name.len())
                            .then_with(|| s.name.cmp(&done.name))
                    });
                    match pos {
                        Ok(_) => return Err(IndexError::fatal("cache-tree: internal error")),
                        Err(p) => parent.subtrees.insert(p, done),
                    }
                    *remaining -= 1;
                }
            }
        }
    }
}

/// The `REUC` extension (`resolve_undo_read`): `None` when invalid.
fn parse_resolve_undo(data: &[u8], rawsz: usize) -> Option<Vec<ResolveUndo>> {
    let mut out: Vec<ResolveUndo> = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let nul = rest.iter().position(|&b| b == 0)?;
        if rest.len() <= nul + 1 {
            return None;
        }
        let path = rest.get(..nul)?.to_vec();
        rest = rest.get(nul + 1..)?;
        let mut modes = [0u32; 3];
        for mode in &mut modes {
            // strtoul base 8 up to a NUL that must follow the digits
            let end = rest.iter().position(|&b| b == 0)?;
            let text = rest.get(..end)?;
            *mode = strtoul_octal(text)?;
            if rest.len() <= end + 1 {
                return None;
            }
            rest = rest.get(end + 1..)?;
        }
        let mut ids: [Option<Vec<u8>>; 3] = [None, None, None];
        for (id, &mode) in ids.iter_mut().zip(&modes) {
            if mode == 0 {
                continue;
            }
            *id = Some(rest.get(..rawsz)?.to_vec());
            rest = rest.get(rawsz..)?;
        }
        let record = ResolveUndo { path, modes, ids };
        // string_list_insert: sorted, a repeated path keeps its first record's slot but takes
        // the later values
        match out.binary_search_by(|r| r.path.cmp(&record.path)) {
            Ok(p) => {
                if let Some(slot) = out.get_mut(p) {
                    *slot = record;
                }
            }
            Err(p) => out.insert(p, record),
        }
    }
    Some(out)
}

/// `strtoul(text, &end, 8)` that must consume all of `text` (non-empty), as
/// `resolve_undo_read` requires; values wrap to 32 bits like git's `unsigned int` mode.
fn strtoul_octal(text: &[u8]) -> Option<u32> {
    let mut i = 0;
    while text
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = text.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let start = i;
    let mut value: u64 = 0;
    while let Some(&c) = text.get(i).filter(|c| (b'0'..=b'7').contains(c)) {
        value = value.saturating_mul(8).saturating_add(u64::from(c - b'0'));
        i += 1;
    }
    if i == start || i != text.len() {
        return None;
    }
    let value = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some(value as u32)
}

/// The `link` extension (`read_link_extension`).
fn parse_link(data: &[u8], rawsz: usize) -> Result<Link, IndexError> {
    let base = data
        .get(..rawsz)
        .ok_or_else(|| IndexError::corrupt_after("corrupt link extension (too short)"))?
        .to_vec();
    let rest = data.get(rawsz..).unwrap_or_default();
    if rest.is_empty() {
        return Ok(Link {
            base,
            delete: Vec::new(),
            replace: Vec::new(),
        });
    }
    let (delete_words, used) = read_ewah(rest).map_err(|e| IndexError {
        errors: vec![
            format!("error: {e}"),
            "error: corrupt delete bitmap in link extension".into(),
        ],
        fatal: "index file corrupt".into(),
    })?;
    let rest = rest.get(used..).unwrap_or_default();
    let (replace_words, used) = read_ewah(rest).map_err(|e| IndexError {
        errors: vec![
            format!("error: {e}"),
            "error: corrupt replace bitmap in link extension".into(),
        ],
        fatal: "index file corrupt".into(),
    })?;
    if used != rest.len() {
        return Err(IndexError::corrupt_after(
            "garbage at the end of link extension",
        ));
    }
    Ok(Link {
        base,
        delete: delete_words,
        replace: replace_words,
    })
}

/// An EWAH bitmap (`ewah_read_mmap`): its words and the bytes it took, or git's error text.
fn read_ewah(data: &[u8]) -> Result<(Vec<u64>, usize), String> {
    be32(data, 0).ok_or("corrupt ewah bitmap: eof before bit size")?;
    let words = be32(data, 4).ok_or("corrupt ewah bitmap: eof before length")? as usize;
    let left = data.len() - 8;
    let data_len = words.saturating_mul(8);
    if left < data_len {
        return Err(format!(
            "corrupt ewah bitmap: eof in data ({} bytes short)",
            data_len - left
        ));
    }
    let buffer: Vec<u64> = data
        .get(8..8 + data_len)
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    if left - data_len < 4 {
        return Err("corrupt ewah bitmap: eof before rlw".into());
    }
    Ok((buffer, 8 + data_len + 4))
}

/// The set bits of an EWAH bitmap, in order (`ewah_each_bit`), as long as they are below
/// `limit`: `Err(position)` for the first one that is not (git dies there).
pub fn ewah_positions(words: &[u64], limit: usize) -> Result<Vec<usize>, usize> {
    match ewah_scan(words, limit) {
        (out, None) => Ok(out),
        (_, Some(bad)) => Err(bad),
    }
}

/// The set bits below `limit` up to the first one that is not, and that one.
fn ewah_scan(words: &[u64], limit: usize) -> (Vec<usize>, Option<usize>) {
    let mut out = Vec::new();
    let mut pos: usize = 0;
    let mut i = 0;
    while let Some(&word) = words.get(i) {
        let running = ((word >> 1) & 0xffff_ffff) as usize * 64;
        let literals = (word >> 33) as usize;
        if word & 1 != 0 && running > 0 {
            if pos.saturating_add(running) > limit {
                out.extend(pos..limit.max(pos));
                return (out, Some(pos.max(limit)));
            }
            out.extend(pos..pos + running);
        }
        pos = pos.saturating_add(running);
        i += 1;
        for _ in 0..literals {
            let Some(&lit) = words.get(i) else {
                return (out, None);
            };
            for c in 0..64 {
                if lit & (1u64 << c) != 0 {
                    let p = pos.saturating_add(c);
                    if p >= limit {
                        return (out, Some(p));
                    }
                    out.push(p);
                }
            }
            pos = pos.saturating_add(64);
            i += 1;
        }
    }
    (out, None)
}

/// `merge_base_index`: the shared index's entries with this file's replacements, deletions and
/// additions.
fn merge_split(
    base: Vec<IndexEntry>,
    saved: Vec<IndexEntry>,
    link: &Link,
) -> Result<Vec<IndexEntry>, IndexError> {
    let mut cache: Vec<Option<IndexEntry>> = base.into_iter().map(Some).collect();
    let mut deleted = vec![false; cache.len()];
    let mut replacements = 0usize;
    let base_len = cache.len();
    // git applies replacements one by one: an error on an earlier one comes first
    let (replace, replace_err) = ewah_scan(&link.replace, base_len);
    let replace_err = replace_err.map(|pos| {
        IndexError::fatal(format!(
            "position for replacement {pos} exceeds base index size {base_len}"
        ))
    });
    for &pos in &replace {
        let Some(slot) = cache.get_mut(pos) else {
            return Err(IndexError::fatal(format!(
                "position for replacement {pos} exceeds base index size {base_len}"
            )));
        };
        let Some(src) = saved.get(replacements) else {
            return Err(IndexError::fatal(format!(
                "too many replacements ({replacements} vs {})",
                saved.len()
            )));
        };
        if !src.path.is_empty() {
            return Err(IndexError::fatal(format!(
                "corrupt link extension, entry {pos} should have zero length name"
            )));
        }
        if let Some(dst) = slot.as_mut() {
            let path = std::mem::take(&mut dst.path);
            *dst = IndexEntry {
                path,
                ..src.clone()
            };
        }
        replacements += 1;
    }
    if let Some(e) = replace_err {
        return Err(e);
    }
    let delete = ewah_positions(&link.delete, base_len).map_err(|pos| {
        IndexError::fatal(format!(
            "position for delete {pos} exceeds base index size {base_len}"
        ))
    })?;
    for &pos in &delete {
        match deleted.get_mut(pos) {
            Some(d) => *d = true,
            None => {
                return Err(IndexError::fatal(format!(
                    "position for delete {pos} exceeds base index size {}",
                    cache.len()
                )));
            }
        }
    }
    let mut entries: Vec<IndexEntry> = cache
        .into_iter()
        .zip(deleted)
        .filter_map(|(e, d)| if d { None } else { e })
        .collect();
    for (i, ce) in saved.into_iter().enumerate().skip(replacements) {
        if ce.path.is_empty() {
            return Err(IndexError::fatal(format!(
                "corrupt link extension, entry {i} should have non-zero length name"
            )));
        }
        add_entry(&mut entries, ce);
    }
    Ok(entries)
}

/// `add_index_entry` with `ADD_CACHE_OK_TO_ADD | ADD_CACHE_SKIP_DFCHECK`: replaces the entry of
/// the same path and stage, and a stage-0 entry replaces the path's conflict stages.
fn add_entry(entries: &mut Vec<IndexEntry>, ce: IndexEntry) {
    let key = |e: &IndexEntry| (name_key(&e.path).to_vec(), e.stage);
    let target = (name_key(&ce.path).to_vec(), ce.stage);
    match entries.binary_search_by(|e| key(e).cmp(&target)) {
        Ok(p) => {
            if let Some(slot) = entries.get_mut(p) {
                *slot = ce;
            }
        }
        Err(mut p) => {
            if ce.stage == 0 {
                while entries
                    .get(p)
                    .is_some_and(|e| name_key(&e.path) == name_key(&ce.path))
                {
                    entries.remove(p);
                }
            }
            p = p.min(entries.len());
            entries.insert(p, ce);
        }
    }
}

/// A path as C's `strcmp` sees it: up to the first NUL.
fn name_key(path: &[u8]) -> &[u8] {
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    path.get(..end).unwrap_or_default()
}

/// `check_ce_order` (`verify_ce_order`): names ascending, and a path's stages ascending with no
/// stage 0 among them.
pub fn check_order(entries: &[IndexEntry]) -> Result<(), IndexError> {
    for pair in entries.windows(2) {
        let [a, b] = pair else { continue };
        match name_key(&a.path).cmp(name_key(&b.path)) {
            std::cmp::Ordering::Greater => {
                return Err(IndexError::fatal("unordered stage entries in index"));
            }
            std::cmp::Ordering::Equal => {
                let name = String::from_utf8_lossy(name_key(&a.path));
                if a.stage == 0 {
                    return Err(IndexError::fatal(format!(
                        "multiple stage entries for merged file '{name}'"
                    )));
                }
                if a.stage > b.stage {
                    return Err(IndexError::fatal(format!(
                        "unordered stage entries for '{name}'"
                    )));
                }
            }
            std::cmp::Ordering::Less => {}
        }
    }
    Ok(())
}

/// `ensure_full_index`: every sparse directory entry replaced by the files of its tree, read
/// recursively (`read_tree_at`), marked skip-worktree. A tree that cannot be read adds nothing
/// (git: `error: Could not read <id>`). The stored cache tree is dropped (git recomputes it).
fn expand_sparse(index: &mut Index, format: ObjectFormat, objects: &mut dyn Objects) {
    let rawsz = format.raw_len();
    // cache_tree_update on the sparse entries first (its messages only: the result is replaced)
    let (_, mut messages) = compute_cache_tree(&index.entries, format, objects);
    index.messages.append(&mut messages);
    let old = std::mem::take(&mut index.entries);
    let mut out = Vec::with_capacity(old.len());
    for ce in old {
        if !ce.is_sparse_dir() {
            out.push(ce);
            continue;
        }
        if !ce.skip_worktree {
            index.messages.push(format!(
                "warning: index entry is a directory, but not sparse ({:08x})",
                ce.flags
            ));
        }
        // read_tree_at: each tree's entries in order, a subdirectory's files read in place
        let mut stack: Vec<(Vec<TreeChild>, usize)> = Vec::new();
        let mut pending = Some((ce.id.clone(), ce.path.clone()));
        loop {
            if let Some((id, base)) = pending.take() {
                match objects.read_tree(&id) {
                    Some(content) => {
                        let children = tree_entries(&content, rawsz)
                            .into_iter()
                            .map(|(mode, name, child)| {
                                let mut path = base.clone();
                                path.extend_from_slice(name);
                                (mode, path, child.to_vec())
                            })
                            .collect();
                        stack.push((children, 0));
                    }
                    None => index
                        .messages
                        .push(format!("error: Could not read {}", hex(&id))),
                }
            }
            let Some((children, next)) = stack.last_mut() else {
                break;
            };
            let Some((mode, path, child)) = children.get(*next).cloned() else {
                stack.pop();
                continue;
            };
            *next += 1;
            if mode & MODE_TYPE == MODE_DIR {
                let mut dir = path;
                dir.push(b'/');
                pending = Some((child, dir));
            } else {
                out.push(IndexEntry {
                    mode: ce_mode(mode),
                    id: child,
                    path,
                    stage: 0,
                    skip_worktree: true,
                    intent_to_add: false,
                    // CE_SKIP_WORKTREE | CE_EXTENDED
                    flags: SKIP_WORKTREE | u32::from(EXTENDED),
                });
            }
        }
    }
    index.entries = out;
    let (tree, mut messages) = compute_cache_tree(&index.entries, format, objects);
    index.messages.append(&mut messages);
    index.cache_tree = tree;
}

/// `cache_tree_update(istate, 0)` on `entries`: the cache tree git computes, with the lines it
/// prints (`<path>: unmerged (<id>)`, `You have both <a> and <b>`, `error: invalid object …`).
/// `None` when the entries are not merged or have a path and a path below it (git leaves no
/// cache tree). The tree ids are those of the objects git would write for them; on a missing
/// object git stops, keeping the subtrees computed before it (the node that failed and its
/// ancestors have no id). One difference: a path more than 256 directories deep stops the
/// computation here as a missing object would (without a message), where git recurses on.
pub fn compute_cache_tree(
    entries: &[IndexEntry],
    format: ObjectFormat,
    objects: &mut dyn Objects,
) -> (Option<CacheTree>, Vec<String>) {
    let mut messages = Vec::new();
    // verify_cache: merged, and no path/file conflicts
    let mut funny = 0;
    for e in entries.iter().filter(|e| e.stage != 0) {
        funny += 1;
        if funny > 10 {
            messages.push("...".to_string());
            break;
        }
        messages.push(format!(
            "{}: unmerged ({})",
            String::from_utf8_lossy(name_key(&e.path)),
            hex(&e.id)
        ));
    }
    if funny > 0 {
        return (None, messages);
    }
    for pair in entries.windows(2) {
        let [a, b] = pair else { continue };
        let (a, b) = (name_key(&a.path), name_key(&b.path));
        if a.len() < b.len() && b.get(a.len()) == Some(&b'/') && b.starts_with(a) {
            funny += 1;
            if funny > 10 {
                messages.push("...".to_string());
                break;
            }
            messages.push(format!(
                "You have both {} and {}",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            ));
        }
    }
    if funny > 0 {
        return (None, messages);
    }
    let mut state = TreeBuild {
        format,
        objects,
        written: std::collections::HashSet::new(),
        messages: &mut messages,
    };
    let mut root = CacheTree {
        entry_count: -1,
        ..CacheTree::default()
    };
    let _ = update_one(&mut state, &mut root, entries, b"", 0);
    // an invalidated node has an id in git too, but fsck skips it: as read from a file, it has
    // none here
    let mut stack = vec![&mut root];
    while let Some(node) = stack.pop() {
        if node.entry_count < 0 {
            node.id = None;
        }
        stack.extend(node.subtrees.iter_mut());
    }
    (Some(root), messages)
}

struct TreeBuild<'a> {
    format: ObjectFormat,
    objects: &'a mut dyn Objects,
    /// Trees computed so far (git has written them, so they exist).
    written: std::collections::HashSet<Vec<u8>>,
    messages: &'a mut Vec<String>,
}

/// Deeper than this, a path fails the computation as a missing object would (git recurses
/// without a bound; this keeps the stack bounded, within a 2 MiB thread stack).
const MAX_TREE_DEPTH: usize = 256;

/// `update_one`: fills `it` for the entries under `base`; the number of entries it covers and
/// how many it skipped, or `Err` after git's error.
fn update_one(
    st: &mut TreeBuild<'_>,
    it: &mut CacheTree,
    entries: &[IndexEntry],
    base: &[u8],
    depth: usize,
) -> Result<(usize, usize), ()> {
    if depth > MAX_TREE_DEPTH {
        return Err(());
    }
    if let Some(first) = entries.first()
        && first.is_sparse_dir()
        && name_key(&first.path) == base
    {
        it.entry_count = 1;
        it.id = Some(first.id.clone());
        return Ok((1, 0));
    }
    let in_level = |e: &IndexEntry| {
        let p = name_key(&e.path);
        p.len() > base.len() && p.starts_with(base)
    };
    // the subtrees, with how many entries each covers
    let mut subs: Vec<(CacheTree, usize)> = Vec::new();
    let mut skip = 0usize;
    let mut i = 0;
    let mut failed = false;
    while let Some(ce) = entries.get(i) {
        if !in_level(ce) {
            break;
        }
        let path = name_key(&ce.path);
        let rest = path.get(base.len()..).unwrap_or_default();
        let Some(slash) = rest.iter().position(|&b| b == b'/') else {
            i += 1;
            continue;
        };
        let mut sub = CacheTree {
            name: rest.get(..slash).unwrap_or_default().to_vec(),
            entry_count: -1,
            ..CacheTree::default()
        };
        let sub_base = path.get(..base.len() + slash + 1).unwrap_or_default();
        let result = update_one(
            st,
            &mut sub,
            entries.get(i..).unwrap_or_default(),
            sub_base,
            depth + 1,
        );
        match result {
            Ok((count, sub_skip)) => {
                subs.push((sub, count.max(1)));
                i += count.max(1);
                skip += sub_skip;
            }
            Err(()) => {
                subs.push((sub, 0));
                failed = true;
                break;
            }
        }
    }
    let attach = |it: &mut CacheTree, subs: &[(CacheTree, usize)]| {
        let mut nodes: Vec<CacheTree> = subs.iter().map(|(t, _)| t.clone()).collect();
        nodes.sort_by(|a, b| {
            a.name
                .len()
                .cmp(&b.name.len())
                .then_with(|| a.name.cmp(&b.name))
        });
        it.subtrees = nodes;
    };
    if failed {
        attach(it, &subs);
        return Err(());
    }
    // the tree object of this level
    let rawsz = st.format.raw_len();
    let empty_tree = tree_id(st.format, b"");
    let mut buffer = Vec::new();
    let mut to_invalidate = false;
    let mut sub_iter = subs.iter();
    i = 0;
    while let Some(ce) = entries.get(i) {
        if !in_level(ce) {
            break;
        }
        let path = name_key(&ce.path);
        let rest = path.get(base.len()..).unwrap_or_default();
        let (id, mode, name, is_sub, contains_ita) = match rest.iter().position(|&b| b == b'/') {
            Some(slash) => {
                let Some((sub, count)) = sub_iter.next() else {
                    break;
                };
                i += count;
                let contains_ita = sub.entry_count < 0;
                if contains_ita {
                    to_invalidate = true;
                }
                let id = sub.id.clone().unwrap_or_else(|| vec![0; rawsz]);
                (
                    id,
                    MODE_DIR,
                    rest.get(..slash).unwrap_or_default(),
                    true,
                    contains_ita,
                )
            }
            None => {
                i += 1;
                (ce.id.clone(), ce.mode, rest, false, false)
            }
        };
        let exists = mode == MODE_GITLINK
            || (is_sub && st.written.contains(&id))
            || st.objects.has_object(&id);
        if id.iter().all(|&b| b == 0) || !exists {
            if !contains_ita {
                st.messages.push(format!(
                    "error: invalid object {mode:06o} {} for '{}'",
                    hex(&id),
                    String::from_utf8_lossy(
                        path.get(..base.len() + name.len()).unwrap_or_default()
                    )
                ));
            }
            attach(it, &subs);
            return Err(());
        }
        if !is_sub && ce.intent_to_add {
            to_invalidate = true;
            continue;
        }
        if contains_ita && id == empty_tree {
            continue;
        }
        buffer.extend_from_slice(format!("{mode:o} ").as_bytes());
        buffer.extend_from_slice(name);
        buffer.push(0);
        buffer.extend_from_slice(&id);
    }
    let id = tree_id(st.format, &buffer);
    st.written.insert(id.clone());
    it.id = Some(id);
    attach(it, &subs);
    it.entry_count = if to_invalidate {
        -1
    } else {
        i32::try_from(i - skip).unwrap_or(i32::MAX)
    };
    Ok((i, skip))
}

/// The id of a tree object with this content.
fn tree_id(format: ObjectFormat, content: &[u8]) -> Vec<u8> {
    let mut h = crate::object::ObjectHasher::new(
        format,
        crate::object::Kind::Tree,
        content.len() as u64,
        true,
    );
    h.update(content);
    h.finalize()
        .map(|id| id.as_bytes().to_vec())
        .unwrap_or_else(|_| vec![0; format.raw_len()])
}

/// A tree entry being expanded: mode, full path, id.
type TreeChild = (u32, Vec<u8>, Vec<u8>);

/// `create_ce_mode`: the mode git records for a tree entry's mode.
fn ce_mode(mode: u32) -> u32 {
    match mode & MODE_TYPE {
        0o120000 => 0o120000,
        MODE_DIR | MODE_GITLINK => MODE_GITLINK,
        _ if mode & 0o100 != 0 => 0o100755,
        _ => 0o100644,
    }
}

/// A tree object's entries (mode, name, id), stopping at the first malformed one.
fn tree_entries(content: &[u8], rawsz: usize) -> Vec<(u32, &[u8], &[u8])> {
    let mut out = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        let Some(sp) = rest.iter().position(|&b| b == b' ') else {
            break;
        };
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            break;
        };
        if nul < sp {
            break;
        }
        let mut mode = 0u32;
        for &c in rest.get(..sp).unwrap_or_default() {
            if !(b'0'..=b'7').contains(&c) {
                return out;
            }
            mode = mode.wrapping_mul(8).wrapping_add(u32::from(c - b'0'));
        }
        let name = rest.get(sp + 1..nul).unwrap_or_default();
        let Some(id) = rest.get(nul + 1..nul + 1 + rawsz) else {
            break;
        };
        out.push((mode, name, id));
        rest = rest.get(nul + 1 + rawsz..).unwrap_or_default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::Algorithm;

    fn sha1(data: &[u8]) -> Vec<u8> {
        let mut h = Hasher::new(Algorithm::Sha1);
        h.update(data);
        h.finalize()
            .map(|d| d.as_bytes().to_vec())
            .unwrap_or_default()
    }

    fn entry_v2(path: &[u8], stage: u16, id: u8) -> Vec<u8> {
        let mut e = vec![0u8; 24];
        e.extend_from_slice(&0o100644u32.to_be_bytes());
        e.extend_from_slice(&[0u8; 12]);
        e.extend_from_slice(&[id; 20]);
        e.extend_from_slice(&((stage << 12) | path.len() as u16).to_be_bytes());
        e.extend_from_slice(path);
        let size = (40 + 20 + 2 + path.len() + 8) & !7;
        e.resize(size, 0);
        e
    }

    fn file(version: u32, entries: &[Vec<u8>], ext: &[u8]) -> Vec<u8> {
        let mut d = b"DIRC".to_vec();
        d.extend_from_slice(&version.to_be_bytes());
        d.extend_from_slice(&(entries.len() as u32).to_be_bytes());
        for e in entries {
            d.extend_from_slice(e);
        }
        d.extend_from_slice(ext);
        let sum = sha1(&d);
        d.extend_from_slice(&sum);
        d
    }

    #[test]
    fn parses_entries_and_checks_order() {
        let d = file(2, &[entry_v2(b"a", 0, 1), entry_v2(b"b/c", 0, 2)], b"");
        let p = parse_index(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
        let Ok(idx) = p else { panic!("{p:?}") };
        assert_eq!(idx.entries.len(), 2);
        assert_eq!(idx.entries[1].path, b"b/c");
        assert_eq!(idx.entries[1].id, vec![2; 20]);
        assert!(check_order(&idx.entries).is_ok());
        let d = file(2, &[entry_v2(b"b", 0, 1), entry_v2(b"a", 0, 2)], b"");
        let idx = parse_index(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
        let e = idx
            .and_then(|i| check_order(&i.entries))
            .map_err(|e| e.lines());
        assert_eq!(
            e,
            Err(vec!["fatal: unordered stage entries in index".into()])
        );
        let d = file(2, &[entry_v2(b"a", 0, 1), entry_v2(b"a", 2, 2)], b"");
        let idx = parse_index(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
        let e = idx
            .and_then(|i| check_order(&i.entries))
            .map_err(|e| e.fatal);
        assert_eq!(e, Err("multiple stage entries for merged file 'a'".into()));
    }

    #[test]
    fn header_errors() {
        let e = parse_index(b"DIRC", ObjectFormat::Sha1, "x/index").map_err(|e| e.lines());
        assert_eq!(
            e,
            Err(vec![
                "fatal: x/index: index file smaller than expected".into()
            ])
        );
        let mut d = file(2, &[], b"");
        d[7] = 5;
        let e = parse_index(&d, ObjectFormat::Sha1, "i").map_err(|e| e.lines());
        assert_eq!(
            e,
            Err(vec![
                "error: bad index version 5".into(),
                "fatal: index file corrupt".into()
            ])
        );
        let mut d = file(2, &[], b"");
        d[0] = b'X';
        let e = parse_index(&d, ObjectFormat::Sha1, "i").map_err(|e| e.lines());
        assert_eq!(
            e,
            Err(vec![
                "error: bad signature 0x43524958".into(),
                "fatal: index file corrupt".into()
            ])
        );
        let mut d = file(2, &[], b"");
        let last = d.len() - 1;
        d[last] ^= 1;
        let e = parse_index(&d, ObjectFormat::Sha1, "i").map_err(|e| e.errors);
        assert_eq!(e, Err(vec!["error: bad index file sha1 signature".into()]));
    }

    #[test]
    fn extensions() {
        let mut ext = b"ABCD".to_vec();
        ext.extend_from_slice(&0u32.to_be_bytes());
        let d = file(2, &[], &ext);
        let p = parse_index(&d, ObjectFormat::Sha1, "i").map(|p| p.index.messages);
        assert_eq!(p, Ok(vec!["ignoring ABCD extension".to_string()]));
        let mut ext = b"abcd".to_vec();
        ext.extend_from_slice(&0u32.to_be_bytes());
        let d = file(2, &[], &ext);
        let p = parse_index(&d, ObjectFormat::Sha1, "i").map_err(|e| e.errors);
        assert_eq!(
            p,
            Err(vec![
                "error: index uses abcd extension, which we do not understand".into()
            ])
        );
    }

    #[test]
    fn cache_tree_nested() {
        let mut t = b"\x001 1\n".to_vec();
        t.extend_from_slice(&[7; 20]);
        t.extend_from_slice(b"sub\0-1 0\n");
        let ct = parse_cache_tree(&t, 20);
        let Ok(Some(ct)) = ct else { panic!("{ct:?}") };
        assert_eq!(ct.entry_count, 1);
        assert_eq!(ct.id, Some(vec![7; 20]));
        assert_eq!(ct.subtrees.len(), 1);
        assert_eq!(ct.subtrees[0].name, b"sub");
        assert_eq!(ct.subtrees[0].id, None);
        // truncated: dropped
        assert_eq!(parse_cache_tree(&t[..10], 20), Ok(None));
        // deep nesting does not recurse, and is bounded
        let mut deep = Vec::new();
        for _ in 0..100_000 {
            deep.extend_from_slice(b"\0-1 1\n");
        }
        assert_eq!(parse_cache_tree(&deep, 20), Ok(None));
        let nested = |n: usize| {
            let mut d = b"\0-1 1\n".to_vec();
            for _ in 1..n {
                d.extend_from_slice(b"x\0-1 1\n");
            }
            d.extend_from_slice(b"x\0-1 0\n");
            d
        };
        assert_eq!(parse_cache_tree(&nested(100_000), 20), Ok(None));
        let t = parse_cache_tree(&nested(MAX_CACHE_TREE_DEPTH - 1), 20);
        assert_eq!(
            t.map(|t| t.map(|t| t.walk().len())),
            Ok(Some(MAX_CACHE_TREE_DEPTH))
        );
    }

    #[test]
    fn resolve_undo() {
        let mut r = b"f\x00100644\x000\x00100644\x00".to_vec();
        r.extend_from_slice(&[1; 20]);
        r.extend_from_slice(&[3; 20]);
        let ru = parse_resolve_undo(&r, 20);
        let Some(ru) = ru else { panic!() };
        assert_eq!(ru[0].modes, [0o100644, 0, 0o100644]);
        assert_eq!(ru[0].ids[2], Some(vec![3; 20]));
        assert_eq!(parse_resolve_undo(&r[..r.len() - 1], 20), None);
    }

    struct AllExist;

    impl Objects for AllExist {
        fn read_tree(&mut self, _id: &[u8]) -> Option<Vec<u8>> {
            None
        }
        fn has_object(&mut self, _id: &[u8]) -> bool {
            true
        }
    }

    #[test]
    fn deep_paths_keep_the_stack_bounded() {
        let entry = |path: Vec<u8>| IndexEntry {
            mode: 0o100644,
            id: vec![1; 20],
            path,
            stage: 0,
            skip_worktree: false,
            intent_to_add: false,
            flags: 0,
        };
        let deep = |n: usize| {
            let mut p = b"a/".repeat(n);
            p.push(b'f');
            p
        };
        let (t, _) = compute_cache_tree(&[entry(deep(255))], ObjectFormat::Sha1, &mut AllExist);
        assert!(t.is_some_and(|t| t.id.is_some()));
        let (t, _) = compute_cache_tree(&[entry(deep(100_000))], ObjectFormat::Sha1, &mut AllExist);
        assert!(t.is_some_and(|t| t.id.is_none()));
    }

    #[test]
    fn varint_and_ewah() {
        let mut at = 0;
        assert_eq!(decode_varint(&[0x80, 0x00], &mut at), Some(128));
        // one RLW: no run, one literal word with bits 0 and 2
        let words = [1u64 << 33, 0b101];
        assert_eq!(ewah_positions(&words, 3), Ok(vec![0, 2]));
        assert_eq!(ewah_positions(&words, 2), Err(2));
        // a run of ones far past any index: refused without expanding it
        assert_eq!(ewah_positions(&[1 | (0xffff_ffffu64 << 1)], 10), Err(10));
    }
}

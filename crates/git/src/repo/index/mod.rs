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
//!
//! The checksum and the tree ids of a computed cache tree are hashed with the caller's
//! [`Providers`] (the type parameter of [`read_index`], [`parse_index`] and
//! [`compute_cache_tree`]).

use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

use super::hex;
use crate::{ObjectFormat, Providers};

mod cache_tree;
mod entries;
mod extensions;
mod sparse;
mod split;
#[cfg(test)]
mod tests;

pub use cache_tree::compute_cache_tree;
pub use entries::{check_order, parse_index};
pub use extensions::ewah_positions;

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
pub fn read_index<P: Providers>(
    path: &Path,
    git_dir: &Path,
    format: ObjectFormat,
    objects: &mut dyn Objects,
) -> Result<Option<Index>, IndexError> {
    let display = path.display().to_string();
    let Some(data) = read_file(path, &display, false, format)? else {
        return Ok(None);
    };
    let mut index = parse_index::<P>(&data, format, &display)?;
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
        let base = parse_index::<P>(&base_data, format, &base_display)?;
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
        index.index.entries =
            split::merge_split(base.index.entries, index.index.entries, &base_id)?;
        index.index.shared_index = Some(base_id.base);
    }
    let mut index = index.index;
    if index.sparse {
        sparse::expand_sparse::<P>(&mut index, format, objects);
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

/// A path as C's `strcmp` sees it: up to the first NUL (the order of an index's names).
fn name_key(path: &[u8]) -> &[u8] {
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    path.get(..end).unwrap_or_default()
}

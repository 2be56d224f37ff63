//! Refs as git's files backend gives them to `git fsck`: every ref of a ref store
//! (`refs_for_each_rawref`, broken ones included) and the resolution of one name
//! (`refs_resolve_ref_unsafe`), with git's messages when it dies on a bad `packed-refs` file.
//! A repository with `extensions.refStorage = reftable` is read through git's reftable backend
//! instead ([`super::reftable`]), behind the same calls.
//!
//! A ref store is a worktree's git directory and the repository's common directory: the
//! per-worktree refs (`refs/bisect/`, `refs/worktree/`, `refs/rewritten/`, `HEAD` and other
//! all-uppercase names) live in the former, the rest in the latter; `worktrees/<id>/<ref>` and
//! `main-worktree/<ref>` name another worktree's per-worktree refs.
//!
//! What git does with broken refs (checked against git 2.47): a loose ref whose content is not
//! an id or `ref: <name>`, a symbolic ref whose target does not resolve, a ref holding the null
//! id, and a ref whose name fails `check_refname_format` are all visited with the null id
//! (`fsck` then says `error: <name>: invalid sha1 pointer 0000…`). A name that is not even safe
//! (`refname_is_safe`) makes git die. Files and directories starting with `.` or ending in
//! `.lock` are not refs.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use std::rc::Rc;

pub use super::model::{
    RawRef, RawRefError, Ref, RefListing, WorktreeRefType, check_refname_format, is_branch,
    is_per_worktree_ref, parse_loose_content, parse_worktree_ref, refname_is_safe,
};
use super::packed::{PackedEntry, Snapshot};
use super::reftable::store::{Report, Store};
use super::worktrees::Worktree;
use crate::{ObjectFormat, Providers};

/// `SYMREF_MAXDEPTH`: symbolic refs followed at most this many times.
const SYMREF_MAXDEPTH: usize = 5;

/// Why a ref store cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RefsError {
    /// `extensions.refStorage` names a format git does not know.
    #[error("invalid value for 'extensions.refstorage': '{0}'")]
    UnknownFormat(String),
    /// git dies opening the store (a reftable stack names a directory as a table): its message.
    #[error("{0}")]
    Fatal(String),
}

/// A repository's ref store for one worktree: git's files backend, or its reftable backend
/// ([`super::reftable`]).
#[derive(Clone, Debug)]
pub struct RefStore {
    git_dir: PathBuf,
    common_dir: PathBuf,
    format: ObjectFormat,
    backend: Backend,
}

#[derive(Clone, Debug)]
enum Backend {
    /// The files backend: loose refs over the `packed-refs` file (or git's fatal message on it).
    Files(Result<Snapshot, String>),
    /// The reftable backend.
    Reftable(Rc<Store>),
}

impl RefStore {
    /// Opens the store of the worktree whose git directory is `git_dir` (the common directory
    /// for the main worktree). With the files backend the `packed-refs` file is read now; if git
    /// would die on it, every later call behaves as git does (listing: the fatal message, before
    /// any ref). With the reftable backend the main stack and the worktree's are opened now, and
    /// a stack that fails to open makes the store fail as git's does; a reftable's log blocks are
    /// inflated with `P`'s inflater.
    pub fn open<P: Providers>(
        git_dir: &Path,
        common_dir: &Path,
        format: ObjectFormat,
    ) -> Result<RefStore, RefsError> {
        if let Ok(config) = fs::read(common_dir.join("config"))
            && let Some(v) = extension_value(&config, "refstorage")
        {
            if v.eq_ignore_ascii_case("reftable") {
                let store =
                    Store::open::<P>(git_dir, common_dir, format).map_err(RefsError::Fatal)?;
                return Ok(RefStore {
                    git_dir: git_dir.to_path_buf(),
                    common_dir: common_dir.to_path_buf(),
                    format,
                    backend: Backend::Reftable(Rc::new(store)),
                });
            }
            if !v.eq_ignore_ascii_case("files") {
                return Err(RefsError::UnknownFormat(v));
            }
        }
        let packed_path = common_dir.join("packed-refs");
        let packed = match fs::read(&packed_path) {
            Ok(data) => Snapshot::load(&data, format, &packed_path.display().to_string()),
            Err(_) => Ok(Snapshot::default()),
        };
        Ok(RefStore {
            git_dir: git_dir.to_path_buf(),
            common_dir: common_dir.to_path_buf(),
            format,
            backend: Backend::Files(packed),
        })
    }

    /// The reftable store, for a repository that uses the reftable backend.
    pub(crate) fn reftable(&self) -> Option<&Store> {
        match &self.backend {
            Backend::Reftable(s) => Some(s),
            Backend::Files(_) => None,
        }
    }

    /// What reading a reftable repository found that git does not say (`notice: not checked:`
    /// lines for tables git stops reading, `error:` lines where git would crash), each once;
    /// nothing with the files backend.
    pub fn take_reports(&self) -> Vec<Report> {
        self.reftable().map(Store::take_reports).unwrap_or_default()
    }

    /// Opens the ref stores of the worktrees other than the current one, as git's
    /// `get_worktrees` does (nothing to do with the files backend); `Err` with git's fatal
    /// message when git dies there.
    pub fn open_worktrees(&self, worktrees: &[Worktree]) -> Result<(), String> {
        if let Some(s) = self.reftable() {
            for wt in worktrees {
                s.worktree_store(wt)?;
            }
        }
        Ok(())
    }

    /// The object format ids are read in.
    pub fn format(&self) -> ObjectFormat {
        self.format
    }

    fn null(&self) -> Vec<u8> {
        vec![0; self.format.raw_len()]
    }

    /// Where a loose ref lives (`files_ref_path`).
    pub fn ref_path(&self, name: &[u8]) -> PathBuf {
        let (kind, id, bare) = parse_worktree_ref(name);
        match kind {
            WorktreeRefType::Current => self.git_dir.join(bytes_path(name)),
            WorktreeRefType::Other => self
                .common_dir
                .join("worktrees")
                .join(bytes_path(id))
                .join(bytes_path(bare)),
            WorktreeRefType::Shared | WorktreeRefType::Main => {
                self.common_dir.join(bytes_path(bare))
            }
        }
    }

    /// Where a reflog lives (`files_reflog_path`).
    pub fn reflog_path(&self, name: &[u8]) -> PathBuf {
        let (kind, id, bare) = parse_worktree_ref(name);
        match kind {
            WorktreeRefType::Current => self.git_dir.join("logs").join(bytes_path(name)),
            WorktreeRefType::Other => self
                .common_dir
                .join("worktrees")
                .join(bytes_path(id))
                .join("logs")
                .join(bytes_path(bare)),
            WorktreeRefType::Shared | WorktreeRefType::Main => {
                self.common_dir.join("logs").join(bytes_path(bare))
            }
        }
    }

    /// Every ref as `refs_for_each_rawref` visits it: the loose refs under `refs/` overlaid on
    /// the `packed-refs` records (a loose ref hides the packed one of the same name), merged in
    /// name order as git merges them (a `packed-refs` file that claims `sorted` but is not gives
    /// git's order, duplicates included).
    pub fn for_each_rawref(&self) -> RefListing {
        let packed = match &self.backend {
            Backend::Reftable(s) => {
                return s.for_each_rawref(&|name| Ok(self.resolve(name, true)?.map(|(_, id)| id)));
            }
            Backend::Files(Ok(p)) => p,
            Backend::Files(Err(fatal)) => {
                return RefListing {
                    refs: Vec::new(),
                    fatal: Some(fatal.clone()),
                };
            }
        };
        let mut listing = RefListing::default();
        let loose = match self.loose_refs() {
            Ok(l) => l,
            Err(fatal) => {
                listing.fatal = Some(fatal);
                return listing;
            }
        };
        let mut loose = loose.into_iter().peekable();
        let mut pos = 0usize;
        let mut next_packed = || -> Result<Option<Ref>, String> {
            match packed.next_record(&mut pos)? {
                None => Ok(None),
                Some(entry) => self.packed_ref(entry).map(Some),
            }
        };
        let mut current_packed = match next_packed() {
            Ok(p) => p,
            Err(fatal) => {
                listing.fatal = Some(fatal);
                return listing;
            }
        };
        loop {
            let take_loose = match (loose.peek(), &current_packed) {
                (None, None) => break,
                (Some(_), None) => Some(false),
                (None, Some(_)) => None,
                (Some(l), Some(p)) => match l.name.cmp(&p.name) {
                    std::cmp::Ordering::Less => Some(false),
                    std::cmp::Ordering::Equal => Some(true),
                    std::cmp::Ordering::Greater => None,
                },
            };
            let advance_packed = match take_loose {
                Some(skip_packed) => {
                    if let Some(l) = loose.next() {
                        listing.refs.push(l);
                    }
                    skip_packed
                }
                None => {
                    if let Some(p) = current_packed.take() {
                        listing.refs.push(p);
                    }
                    true
                }
            };
            if advance_packed {
                match next_packed() {
                    Ok(p) => current_packed = p,
                    Err(fatal) => {
                        listing.fatal = Some(fatal);
                        return listing;
                    }
                }
            }
        }
        listing
    }

    /// A `packed-refs` record as the packed iterator yields it (`next_record`): a bad name
    /// gives the null id, a dangerous one git's fatal message.
    fn packed_ref(&self, entry: PackedEntry) -> Result<Ref, String> {
        let mut r = Ref {
            name: entry.name,
            id: entry.id,
            broken: false,
            bad_name: false,
            symref_target: None,
            packed: true,
        };
        if !check_refname_format(&r.name, true) {
            if !refname_is_safe(&r.name) {
                return Err(format!(
                    "packed refname is dangerous: {}",
                    cstr_lossy(&r.name)
                ));
            }
            r.id = self.null();
            r.bad_name = true;
            r.broken = true;
        }
        Ok(r)
    }

    /// The loose refs under `refs/`, sorted by name (`loose_fill_ref_dir`, recursively), each
    /// resolved as git does.
    fn loose_refs(&self) -> Result<Vec<Ref>, String> {
        let mut names = Vec::new();
        let mut dirs: Vec<Vec<u8>> = vec![b"refs/".to_vec()];
        while let Some(dir) = dirs.pop() {
            // `refs/bisect/` and the other per-worktree directories map to the git directory
            let path = self.ref_path(&dir);
            if let Ok(read) = fs::read_dir(&path) {
                for entry in read.flatten() {
                    let file_name = os_bytes(&entry.file_name());
                    if file_name.first() == Some(&b'.') || file_name.ends_with(b".lock") {
                        continue;
                    }
                    let mut name = dir.clone();
                    name.extend_from_slice(&file_name);
                    // get_dtype follows symbolic links
                    match fs::metadata(entry.path()) {
                        Ok(m) if m.is_dir() => {
                            name.push(b'/');
                            if dir == b"refs/" && is_per_worktree_dir(&name) {
                                continue;
                            }
                            dirs.push(name);
                        }
                        Ok(m) if m.is_file() => names.push(name),
                        _ => {}
                    }
                }
            }
            if dir == b"refs/" {
                for p in [&b"refs/bisect/"[..], b"refs/worktree/", b"refs/rewritten/"] {
                    dirs.push(p.to_vec());
                }
            }
        }
        names.sort();
        names.dedup();
        let mut refs = Vec::with_capacity(names.len());
        for name in names {
            refs.push(self.loose_ref(name)?);
        }
        Ok(refs)
    }

    /// `loose_fill_ref_dir_regular_file`.
    fn loose_ref(&self, name: Vec<u8>) -> Result<Ref, String> {
        let mut broken = false;
        let mut bad_name = false;
        let mut symref_target = None;
        let mut id = match self.resolve_inner(&name, true)? {
            None => {
                broken = true;
                self.null()
            }
            Some(r) => {
                if r.id.iter().all(|&b| b == 0) {
                    broken = true;
                }
                symref_target = r.first_target;
                r.id
            }
        };
        if !check_refname_format(&name, true) {
            if !refname_is_safe(&name) {
                return Err(format!("loose refname is dangerous: {}", cstr_lossy(&name)));
            }
            id = self.null();
            bad_name = true;
            broken = true;
        }
        Ok(Ref {
            name,
            id,
            broken,
            bad_name,
            symref_target,
            packed: false,
        })
    }

    /// Reads one ref without following symbolic refs (`files_read_raw_ref`, or the reftable
    /// backend's).
    pub fn read_raw(&self, name: &[u8]) -> Result<RawRef, RawRefError> {
        if let Backend::Reftable(s) = &self.backend {
            return s.read_raw(name);
        }
        let path = self.ref_path(name);
        let meta = match fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                if e.kind() == io::ErrorKind::NotFound {
                    return match self.packed_lookup(name)? {
                        Some(id) => Ok(RawRef::Id(id)),
                        None => Err(RawRefError::NotFound),
                    };
                }
                return Err(if e.raw_os_error() == Some(libc::ENOTDIR) {
                    RawRefError::NotDir
                } else {
                    RawRefError::Other
                });
            }
        };
        if meta.file_type().is_symlink()
            && let Ok(target) = fs::read_link(&path)
        {
            let target = os_bytes(target.as_os_str());
            if target.starts_with(b"refs/") && check_refname_format(&target, false) {
                return Ok(RawRef::Symbolic(target));
            }
        }
        let is_dir = fs::metadata(&path).map(|m| m.is_dir()).unwrap_or(false);
        if is_dir {
            return match self.packed_lookup(name)? {
                Some(id) => Ok(RawRef::Id(id)),
                None => Err(RawRefError::IsDir),
            };
        }
        let content = match fs::read(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(RawRefError::NotFound),
            Err(_) => return Err(RawRefError::Other),
        };
        parse_loose_content(&content, self.format)
    }

    /// A `packed-refs` record's id by name, as git's binary search finds it.
    fn packed_lookup(&self, name: &[u8]) -> Result<Option<Vec<u8>>, RawRefError> {
        match &self.backend {
            Backend::Files(Ok(p)) => p.lookup(name).map_err(RawRefError::Fatal),
            Backend::Files(Err(fatal)) => Err(RawRefError::Fatal(fatal.clone())),
            Backend::Reftable(_) => Ok(None),
        }
    }

    fn resolve_inner(&self, name: &[u8], reading: bool) -> Result<Option<Resolved>, String> {
        if !check_refname_format(name, true) {
            return Ok(None);
        }
        let mut name = name.to_vec();
        let mut first_target = None;
        for _ in 0..SYMREF_MAXDEPTH {
            match self.read_raw(&name) {
                Err(RawRefError::Fatal(fatal)) => return Err(fatal),
                Err(e) => {
                    if reading || e == RawRefError::Other || e == RawRefError::Invalid {
                        return Ok(None);
                    }
                    return Ok(Some(Resolved {
                        name,
                        id: self.null(),
                        first_target,
                    }));
                }
                Ok(RawRef::Id(id)) => {
                    return Ok(Some(Resolved {
                        name,
                        id,
                        first_target,
                    }));
                }
                Ok(RawRef::Symbolic(target)) => {
                    if first_target.is_none() {
                        first_target = Some(target.clone());
                    }
                    if !check_refname_format(&target, true) {
                        return Ok(None);
                    }
                    name = target;
                }
            }
        }
        Ok(None)
    }

    /// `refs_resolve_ref_unsafe(name, reading ? RESOLVE_REF_READING : 0)`: the name it ends at
    /// and its id, following symbolic refs (at most 5). Without `reading`, a name that does
    /// not exist resolves to itself with the null id (an unborn branch); `Ok(None)` when git's
    /// function returns NULL, `Err` with git's fatal message when reading `packed-refs` dies.
    pub fn resolve(&self, name: &[u8], reading: bool) -> Result<Option<Resolution>, String> {
        Ok(self.resolve_inner(name, reading)?.map(|r| (r.name, r.id)))
    }

    /// `fsck_head_link` for the `HEAD` named `head_ref_name` in this (the main) store: `HEAD`,
    /// `worktrees/<id>/HEAD` or `main-worktree/HEAD`; `Err` with git's fatal message when
    /// reading `packed-refs` dies.
    pub fn head_link(&self, head_ref_name: &str) -> Result<HeadLink, String> {
        let resolved = self.resolve(head_ref_name.as_bytes(), false)?;
        let null = self.null();
        let name = head_ref_name.to_string();
        let Some((points_at, id)) = resolved else {
            return Ok(HeadLink {
                name,
                points_at: None,
                id: null,
                state: HeadState::Invalid,
            });
        };
        let is_null = id.iter().all(|&b| b == 0);
        let state = if points_at == head_ref_name.as_bytes() {
            if is_null {
                HeadState::DetachedNull
            } else {
                HeadState::Detached
            }
        } else if !points_at.starts_with(b"refs/heads/") {
            HeadState::Strange
        } else if is_null {
            HeadState::Unborn
        } else {
            HeadState::Branch
        };
        Ok(HeadLink {
            name,
            points_at: Some(points_at),
            id,
            state,
        })
    }
}

/// What a name resolves to: the ref name it ends at and the id.
pub type Resolution = (Vec<u8>, Vec<u8>);

struct Resolved {
    name: Vec<u8>,
    id: Vec<u8>,
    first_target: Option<Vec<u8>>,
}

/// How `fsck_head_link` classifies a worktree's `HEAD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadState {
    /// Unreadable: `error: invalid HEAD`.
    Invalid,
    /// Detached at an id.
    Detached,
    /// Detached at the null id: `error: HEAD: detached HEAD points at nothing`.
    DetachedNull,
    /// A symbolic ref to something outside `refs/heads/`:
    /// `error: HEAD points to something strange (<target>)`.
    Strange,
    /// A branch that does not exist: `notice: HEAD points to an unborn branch (<branch>)`.
    Unborn,
    /// A branch with an id.
    Branch,
}

/// A worktree's `HEAD` as `fsck_head_link` sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadLink {
    /// The name git prints (`HEAD`, `worktrees/<id>/HEAD`, `main-worktree/HEAD`).
    pub name: String,
    /// What it resolves to (`head_points_at`): the ref name it ends at, `None` when invalid.
    pub points_at: Option<Vec<u8>>,
    /// The id (null when none).
    pub id: Vec<u8>,
    /// The classification.
    pub state: HeadState,
}

impl HeadLink {
    /// The line `fsck_head_link` prints on stderr, if any (with its `error:`/`notice:` prefix).
    pub fn message(&self) -> Option<String> {
        let target = self
            .points_at
            .as_deref()
            .map(cstr_lossy)
            .unwrap_or_default();
        match self.state {
            HeadState::Invalid => Some(format!("error: invalid {}", self.name)),
            HeadState::DetachedNull => Some(format!(
                "error: {}: detached HEAD points at nothing",
                self.name
            )),
            HeadState::Strange => Some(format!(
                "error: {} points to something strange ({target})",
                self.name
            )),
            HeadState::Unborn => Some(format!(
                "notice: {} points to an unborn branch ({})",
                self.name,
                target.strip_prefix("refs/heads/").unwrap_or(&target)
            )),
            HeadState::Detached | HeadState::Branch => None,
        }
    }

    /// Whether `fsck_head_link` reports an error (`errors_found |= ERROR_REFS`).
    pub fn is_error(&self) -> bool {
        matches!(
            self.state,
            HeadState::Invalid | HeadState::DetachedNull | HeadState::Strange
        )
    }

    /// Whether fsck then treats it as a ref (`fsck_handle_ref`): it resolved, to a non-null id.
    pub fn handled_as_ref(&self) -> bool {
        self.points_at.is_some() && self.id.iter().any(|&b| b != 0)
    }
}

fn is_per_worktree_dir(name: &[u8]) -> bool {
    name == b"refs/bisect/" || name == b"refs/worktree/" || name == b"refs/rewritten/"
}

/// A byte string as C's `%s` prints it: up to a NUL.
fn cstr_lossy(s: &[u8]) -> String {
    let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    String::from_utf8_lossy(s.get(..end).unwrap_or_default()).into_owned()
}

/// The value of `extensions.<key>` in a configuration file (last one wins).
fn extension_value(config: &[u8], key: &str) -> Option<String> {
    let text = String::from_utf8_lossy(config);
    let mut in_section = false;
    let mut found = None;
    for line in text.lines() {
        let mut line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let (name, rest) = header.split_once(']').unwrap_or((header, ""));
            in_section = name.trim().eq_ignore_ascii_case("extensions");
            line = rest.trim();
        }
        if !in_section || line.is_empty() {
            continue;
        }
        let (k, v) = line.split_once('=').unwrap_or((line, "true"));
        if k.trim().eq_ignore_ascii_case(key) {
            let v = v.split(['#', ';']).next().unwrap_or("");
            found = Some(v.trim().trim_matches('"').to_string());
        }
    }
    found
}

#[cfg(unix)]
fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    s.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn bytes_path(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

#[cfg(not(unix))]
fn bytes_path(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refname_format() {
        assert!(check_refname_format(b"refs/heads/main", false));
        assert!(check_refname_format(b"HEAD", true));
        assert!(!check_refname_format(b"HEAD", false));
        assert!(!check_refname_format(b"refs/heads/a..b", true));
        assert!(!check_refname_format(b"refs/heads/a.lock", true));
        assert!(!check_refname_format(b"refs/heads/.a", true));
        assert!(!check_refname_format(b"refs/heads/a.", true));
        assert!(!check_refname_format(b"refs/heads/a@{b", true));
        assert!(!check_refname_format(b"refs/heads//a", true));
        assert!(!check_refname_format(b"refs/heads/a b", true));
        assert!(!check_refname_format(b"@", true));
        assert!(check_refname_format("refs/heads/café".as_bytes(), true));
        assert!(refname_is_safe(b"refs/heads/a..b"));
        assert!(!refname_is_safe(b"refs/foo/../bar"));
        assert!(!refname_is_safe(b"refs/foo/../../bar"));
        assert!(!refname_is_safe(b" refs/heads/x"));
        assert!(refname_is_safe(b"FOO_BAR"));
    }

    #[test]
    fn loose_content() {
        let f = ObjectFormat::Sha1;
        let id = "9dbbace5f52438716f05d6c4e25b0f70b43989bd";
        assert!(matches!(
            parse_loose_content(format!("{id}\n").as_bytes(), f),
            Ok(RawRef::Id(_))
        ));
        assert!(matches!(
            parse_loose_content(format!("{id} extra").as_bytes(), f),
            Ok(RawRef::Id(_))
        ));
        assert_eq!(
            parse_loose_content(format!("{id}x").as_bytes(), f),
            Err(RawRefError::Invalid)
        );
        assert_eq!(
            parse_loose_content(b"ref:  refs/heads/x \n", f),
            Ok(RawRef::Symbolic(b"refs/heads/x".to_vec()))
        );
        assert_eq!(
            parse_loose_content(b"garbage", f),
            Err(RawRefError::Invalid)
        );
    }

    #[test]
    fn worktree_refs() {
        assert_eq!(parse_worktree_ref(b"HEAD").0, WorktreeRefType::Current);
        assert_eq!(
            parse_worktree_ref(b"refs/bisect/bad").0,
            WorktreeRefType::Current
        );
        assert_eq!(
            parse_worktree_ref(b"refs/heads/x").0,
            WorktreeRefType::Shared
        );
        let (t, id, bare) = parse_worktree_ref(b"worktrees/w1/HEAD");
        assert_eq!(
            (t, id, bare),
            (WorktreeRefType::Other, &b"w1"[..], &b"HEAD"[..])
        );
        assert_eq!(
            parse_worktree_ref(b"main-worktree/HEAD").0,
            WorktreeRefType::Main
        );
    }
}

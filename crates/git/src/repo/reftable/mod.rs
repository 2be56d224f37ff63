//! The reftable ref format (`extensions.refStorage = reftable`) read as git 2.47.3 reads it, for
//! [`super::refs::RefStore`].
//!
//! A repository's refs and reflogs are in stacks of tables: `$GIT_COMMON_DIR/reftable` for the
//! shared refs and the main worktree's own, `$GIT_COMMON_DIR/worktrees/<id>/reftable` for a linked
//! worktree's own (`HEAD`, `refs/bisect/…`). `tables.list` names a stack's tables, oldest first;
//! a newer table's record hides an older one of the same key, and a tombstone hides it without
//! replacing it.
//!
//! - [`table`]: one file — the header and footer (version 1 with SHA-1 ids, version 2 with a hash
//!   id), ref, object, log (deflated) and index blocks, restart points, prefix-compressed keys,
//!   multi-level indexes; [`record`] the records, `iter` a block read record by record, [`block`]
//!   their bytes.
//! - [`merged`]: a stack's tables read as one.
//! - [`store`]: the ref store git's reftable backend makes of the stacks.
//!
//! The reader follows git's own step by step, damaged input included, so that a table git reads
//! part of is read to the same point: git stops reading at a record or block that does not decode
//! and goes on with what it has (refs past the damage are not visited), and does not open a stack
//! any of whose tables is missing or has a bad header or footer (then no ref of it exists, and
//! `HEAD` is invalid). Where git 2.47.3 itself would read memory it does not own (a block length
//! that points past the mapped file), abort (a ref value type of 4 to 7, a failed assertion), or
//! loop forever (an index that points back at itself), the reader stops with [`Kind::Crash`]
//! instead, having allocated nothing a file's bytes could not back.

pub mod block;
mod iter;
pub mod merged;
pub mod record;
pub mod store;
pub mod table;
#[cfg(test)]
mod tests;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::Providers;
use table::Table;

/// How a read failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `REFTABLE_NOT_EXIST_ERROR`: a table `tables.list` names is missing.
    NotExist,
    /// A negative result git handles: a format, zlib or I/O error. git stops that read.
    Error,
    /// `REFTABLE_API_ERROR`: git's iterator was asked for another record type than its block's.
    Api,
    /// git 2.47.3 dies with this `fatal:` message.
    Fatal,
    /// git 2.47.3 crashes, reads memory it does not own, or never ends.
    Crash,
}

/// A failed read: what, and in which file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fail {
    /// How it failed.
    pub kind: Kind,
    /// The file it failed in, when known.
    pub path: Option<PathBuf>,
    /// What failed.
    pub what: String,
}

impl Fail {
    fn new(kind: Kind, what: impl Into<String>) -> Fail {
        Fail {
            kind,
            path: None,
            what: what.into(),
        }
    }

    /// A failure git handles.
    pub fn error(what: impl Into<String>) -> Fail {
        Fail::new(Kind::Error, what)
    }

    /// A failure where git crashes.
    pub fn crash(what: impl Into<String>) -> Fail {
        Fail::new(Kind::Crash, what)
    }

    /// git's API error.
    pub fn api(what: impl Into<String>) -> Fail {
        Fail::new(Kind::Api, what)
    }

    /// With `ctx` before what it says.
    pub fn context(mut self, ctx: &str) -> Fail {
        self.what = format!("{ctx}: {}", self.what);
        self
    }

    /// In the file at `path` (unless it already names one).
    pub fn at(mut self, path: &Path) -> Fail {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.what),
            None => f.write_str(&self.what),
        }
    }
}

/// One stack, opened (`reftable_new_stack`).
#[derive(Debug)]
pub struct Stack {
    /// Its directory.
    pub dir: PathBuf,
    /// Its tables, oldest first.
    pub tables: Vec<Arc<Table>>,
}

/// `tables.list`'s names (`read_lines`, `parse_names`): lines that are not empty, each up to a
/// NUL byte; a NUL also ends the list, as git's `strchr` stops at it.
pub fn parse_names(buf: &[u8]) -> Vec<Vec<u8>> {
    let mut names = Vec::new();
    let mut p = 0;
    while p < buf.len() {
        let rest = buf.get(p..).unwrap_or_default();
        let next = match rest.iter().position(|&b| b == b'\n' || b == 0) {
            Some(i) if rest[i] == b'\n' => p + i,
            _ => buf.len(),
        };
        if p < next {
            names.push(record::cstr(buf.get(p..next).unwrap_or_default()).to_vec());
        }
        p = next + 1;
    }
    names
}

fn read_names(list: &Path) -> Result<Vec<Vec<u8>>, Fail> {
    match fs::read(list) {
        Ok(buf) => Ok(parse_names(&buf)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(Fail::error(format!("cannot be read: {e}")).at(list)),
    }
}

#[cfg(unix)]
fn name_path(dir: &Path, name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    // git joins with a slash, whatever the name holds
    let mut joined = dir.as_os_str().as_bytes().to_vec();
    joined.push(b'/');
    joined.extend_from_slice(name);
    PathBuf::from(std::ffi::OsStr::from_bytes(&joined))
}

#[cfg(not(unix))]
fn name_path(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(String::from_utf8_lossy(name).into_owned())
}

/// A table's bytes as `reftable_block_source_from_file` gets them (a directory is what git
/// cannot map: it dies).
fn read_table(path: &Path) -> Result<Arc<[u8]>, Fail> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Fail::new(Kind::NotExist, "is missing").at(path));
        }
        Err(e) => return Err(Fail::error(format!("cannot be read: {e}")).at(path)),
    };
    if meta.is_dir() {
        return Err(Fail::new(Kind::Fatal, "mmap failed: No such device").at(path));
    }
    if !meta.is_file() {
        return Err(Fail::crash(
            "is not a regular file, which git 2.47.3 opens and maps (a pipe blocks it)",
        )
        .at(path));
    }
    fs::read(path)
        .map(Arc::from)
        .map_err(|e| Fail::error(format!("cannot be read: {e}")).at(path))
}

/// The tables opened so far, by path, so that the stores of several worktrees share the main
/// stack's tables rather than each reading them again.
pub type Tables = std::rc::Rc<std::cell::RefCell<std::collections::HashMap<PathBuf, Arc<Table>>>>;

impl Stack {
    /// Opens the stack in `dir` (`reftable_new_stack`): every table `tables.list` names (none
    /// when it does not exist), each with the hash id `hash_id` (`sha1` or `s256`); a table
    /// already in `opened` is taken from there. A table opened now inflates its log blocks with
    /// `P`'s inflater.
    pub fn open<P: Providers>(dir: &Path, hash_id: u32, opened: &Tables) -> Result<Stack, Fail> {
        let list = dir.join("tables.list");
        let names = read_names(&list)?;
        let mut tables = Vec::with_capacity(names.len());
        for name in &names {
            let path = name_path(dir, name);
            if let Some(t) = opened.borrow().get(&path) {
                tables.push(t.clone());
                continue;
            }
            let data = read_table(&path)?;
            let shown = String::from_utf8_lossy(name).into_owned();
            let table = Arc::new(Table::open::<P>(&shown, &path, data)?);
            opened.borrow_mut().insert(path, table.clone());
            tables.push(table);
        }
        // reftable_merged_table_new, once every table is open
        if let Some(t) = tables.iter().find(|t| t.hash_id != hash_id) {
            let name = |id: u32| String::from_utf8_lossy(&id.to_be_bytes()).into_owned();
            return Err(Fail::error(format!(
                "its hash id is {}, not the repository's {}",
                name(t.hash_id),
                name(hash_id)
            ))
            .at(&t.path));
        }
        Ok(Stack {
            dir: dir.to_path_buf(),
            tables,
        })
    }
}

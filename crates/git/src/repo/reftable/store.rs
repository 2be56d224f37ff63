//! The ref store git 2.47's reftable backend (`refs/reftable-backend.c`) makes of a
//! repository's stacks, as `git fsck` uses it.
//!
//! A store is opened for a git directory: the main stack (`$GIT_COMMON_DIR/reftable`), and when
//! the git directory is a linked worktree's, that worktree's stack too; other worktrees' stacks
//! are opened when a `worktrees/<id>/…` name is first read. Iterating refs or reflog names in a
//! linked worktree merges its stack with the main one (the main one's per-worktree names left
//! out, the worktree's shadowing the main one's of the same name).
//!
//! git keeps one error per store: opening a stack that fails sets it, and every later read of the
//! store fails (a ref is not found, `HEAD` is invalid, nothing is listed) — until a lazily opened
//! worktree stack opens without error, which clears it. That is modelled here too.
//!
//! What git does not say is kept as reports: a `notice: not checked:` line for each table or
//! stack git stops reading (it prints nothing), an `error:` line where git would crash.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use super::merged::MergedIter;
use super::record::{self, LogRecord, Record, RefRecord, RefValue, cstr};
use super::table::{SHA1_ID, SHA256_ID};
use super::{Fail, Kind, Stack, Tables};
use crate::repo::model::{
    RawRef, RawRefError, Ref, RefListing, WorktreeRefType, check_refname_format,
    parse_loose_content, parse_worktree_ref, refname_is_safe,
};
use crate::repo::model::{Reflog, ReflogEntry};
use crate::repo::worktrees::Worktree;
use crate::{ObjectFormat, Providers};

/// A line the caller prints: `error:` lines set the refs bit of fsck's exit status.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Report {
    /// `notice: not checked: PATH (WHAT)`.
    Notice(String),
    /// `error: …`.
    Error(String),
}

impl Report {
    /// The line as printed.
    pub fn line(&self) -> &str {
        match self {
            Report::Notice(l) | Report::Error(l) => l,
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// `refs->err`.
    err: Option<Fail>,
    /// `worktree_stacks`: other worktrees' stacks by id (`None`: it failed to open).
    others: HashMap<Vec<u8>, Option<Arc<Stack>>>,
    /// The stores of the other worktrees (`get_worktree_ref_store`), by git directory.
    worktree_stores: HashMap<PathBuf, Rc<Store>>,
    reports: BTreeSet<Report>,
}

/// A reftable ref store.
#[derive(Debug)]
pub struct Store {
    git_dir: PathBuf,
    common_dir: PathBuf,
    format: ObjectFormat,
    main: Option<Arc<Stack>>,
    worktree: Option<Arc<Stack>>,
    tables: Tables,
    /// [`Stack::open`] with the providers the store was opened with (a worktree's stack is
    /// opened later, the first time it is asked for).
    open_stack: OpenStack,
    state: RefCell<State>,
}

/// How a store opens a stack: [`Stack::open`] with one caller's providers.
type OpenStack = fn(&Path, u32, &Tables) -> Result<Stack, Fail>;

/// How a listing resolves a symbolic ref (`refs_resolve_ref_unsafe` with
/// `RESOLVE_REF_READING`): the id, `None` when it does not resolve, `Err` when git dies.
pub type Resolve<'a> = &'a dyn Fn(&[u8]) -> Result<Option<Vec<u8>>, String>;

/// Why an iteration stopped early.
enum Stop {
    /// `ITER_ERROR`: git stops without a word.
    Error,
    /// git dies with this message.
    Fatal(String),
}

/// What an operation failed in, for the report.
#[derive(Clone, Copy)]
enum During {
    Open,
    Read,
}

fn hash_id(format: ObjectFormat) -> u32 {
    match format {
        ObjectFormat::Sha1 => SHA1_ID,
        ObjectFormat::Sha256 => SHA256_ID,
    }
}

/// `is_pseudo_ref`: the two refs git reads from files whatever the backend.
fn is_pseudo_ref(name: &[u8]) -> bool {
    name == b"FETCH_HEAD" || name == b"MERGE_HEAD"
}

impl Store {
    /// `reftable_be_init` for `git_dir` (`Err`: git dies, with this message); its tables inflate
    /// their log blocks with `P`'s inflater.
    pub fn open<P: Providers>(
        git_dir: &Path,
        common_dir: &Path,
        format: ObjectFormat,
    ) -> Result<Store, String> {
        Store::open_sharing(
            git_dir,
            common_dir,
            format,
            Tables::default(),
            Stack::open::<P>,
        )
    }

    /// [`Store::open`], with the tables already opened by another store.
    fn open_sharing(
        git_dir: &Path,
        common_dir: &Path,
        format: ObjectFormat,
        tables: Tables,
        open_stack: OpenStack,
    ) -> Result<Store, String> {
        let mut store = Store {
            git_dir: git_dir.to_path_buf(),
            common_dir: common_dir.to_path_buf(),
            format,
            main: None,
            worktree: None,
            tables,
            open_stack,
            state: RefCell::new(State::default()),
        };
        let id = hash_id(format);
        match open_stack(&common_dir.join("reftable"), id, &store.tables) {
            Ok(s) => store.main = Some(Arc::new(s)),
            Err(f) => {
                store.failed(f, During::Open)?;
                return Ok(store);
            }
        }
        // a linked worktree's git directory has a `commondir` file
        if std::fs::symlink_metadata(git_dir.join("commondir")).is_ok() {
            match open_stack(&git_dir.join("reftable"), id, &store.tables) {
                Ok(s) => store.worktree = Some(Arc::new(s)),
                Err(f) => store.failed(f, During::Open)?,
            }
        }
        Ok(store)
    }

    /// Records a failure as git's store does (setting its error when opening) and as a report;
    /// `Err` with git's message when git dies.
    fn failed(&self, f: Fail, during: During) -> Result<(), String> {
        if f.kind == Kind::Fatal {
            return Err(f.what);
        }
        self.report(&f, during);
        if let During::Open = during {
            self.state.borrow_mut().err = Some(f);
        }
        Ok(())
    }

    fn report(&self, f: &Fail, during: During) {
        let path = f
            .path
            .as_ref()
            .map_or_else(|| self.common_dir.join("reftable"), Clone::clone);
        let report = if f.kind == Kind::Crash {
            Report::Error(format!(
                "reftable {}: {} (flagsplit stops reading there)",
                path.display(),
                f.what
            ))
        } else {
            Report::Notice(format!(
                "notice: not checked: {} ({}; {})",
                path.display(),
                f.what,
                match during {
                    During::Open =>
                        "git 2.47.3 does not open its stack, and reads no ref or reflog of it",
                    During::Read => "git 2.47.3 stops reading there without a word",
                }
            ))
        };
        self.state.borrow_mut().reports.insert(report);
    }

    /// The lines to print, once each.
    pub fn take_reports(&self) -> Vec<Report> {
        let mut st = self.state.borrow_mut();
        let mut all = std::mem::take(&mut st.reports);
        for s in st.worktree_stores.values() {
            all.extend(s.take_reports());
        }
        all.into_iter().collect()
    }

    /// `stack_for`: the stack `name` lives in and its name there; a worktree's stack is opened
    /// the first time (`Err`: git dies).
    fn stack_for(&self, name: &[u8]) -> Result<(Option<Arc<Stack>>, Vec<u8>), String> {
        let (kind, id, bare) = parse_worktree_ref(name);
        match kind {
            WorktreeRefType::Other => {
                if let Some(Some(s)) = self.state.borrow().others.get(id) {
                    return Ok((Some(s.clone()), bare.to_vec()));
                }
                let dir = super::name_path(&self.common_dir.join("worktrees"), id).join("reftable");
                let opened = (self.open_stack)(&dir, hash_id(self.format), &self.tables);
                let stack = match opened {
                    Ok(s) => {
                        self.state.borrow_mut().err = None;
                        Some(Arc::new(s))
                    }
                    Err(f) => {
                        self.failed(f, During::Open)?;
                        None
                    }
                };
                self.state
                    .borrow_mut()
                    .others
                    .insert(id.to_vec(), stack.clone());
                Ok((stack, bare.to_vec()))
            }
            WorktreeRefType::Current => Ok((
                self.worktree.clone().or_else(|| self.main.clone()),
                name.to_vec(),
            )),
            WorktreeRefType::Main | WorktreeRefType::Shared => {
                Ok((self.main.clone(), bare.to_vec()))
            }
        }
    }

    fn has_err(&self) -> bool {
        self.state.borrow().err.is_some()
    }

    /// A stack git would read through a null pointer: the main one failed to open, and a
    /// worktree's opening since cleared the store's error.
    fn null_stack(&self) {
        self.report(
            &Fail::crash(
                "the main stack did not open, and git 2.47.3 reads it through a null pointer \
                 once another stack opened",
            ),
            During::Read,
        );
    }

    /// `reftable_be_read_raw_ref`.
    pub fn read_raw(&self, name: &[u8]) -> Result<RawRef, RawRefError> {
        if is_pseudo_ref(name) {
            let path = super::name_path(&self.git_dir, name);
            return match std::fs::read(&path) {
                Ok(content) => parse_loose_content(&content, self.format),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(RawRefError::NotFound),
                Err(_) => Err(RawRefError::Other),
            };
        }
        let (stack, bare) = self.stack_for(name).map_err(RawRefError::Fatal)?;
        if self.has_err() {
            return Err(RawRefError::Other);
        }
        let Some(stack) = stack else {
            self.null_stack();
            return Err(RawRefError::Other);
        };
        match read_ref(&stack, &bare) {
            Err(mut f) => {
                // git asserts that reading a ref gives no API error
                if f.kind == Kind::Api {
                    f.kind = Kind::Crash;
                    f.what = format!("{} (git 2.47.3 fails an assertion)", f.what);
                }
                self.report(&f, During::Read);
                Err(RawRefError::Other)
            }
            Ok(None) => Err(RawRefError::NotFound),
            Ok(Some(RefValue::Symref(t))) => Ok(RawRef::Symbolic(t)),
            Ok(Some(RefValue::Val1(id) | RefValue::Val2(id, _))) => Ok(RawRef::Id(id)),
            Ok(Some(RefValue::Deletion)) => Err(RawRefError::NotFound),
        }
    }

    /// A stack's records of one type from `want` on (`reftable_stack_init_*_iterator` and a
    /// seek), or the error git's iterator starts with.
    fn iter(&self, stack: Option<&Arc<Stack>>, want: &Record) -> Option<MergedIter> {
        if self.has_err() {
            return None;
        }
        let Some(stack) = stack else {
            self.null_stack();
            return None;
        };
        let mut it = MergedIter::new(&stack.tables, want.typ(), true);
        match it.seek(want) {
            Ok(()) => Some(it),
            Err(f) => {
                self.report(&f, During::Read);
                None
            }
        }
    }

    fn next(&self, it: &mut MergedIter) -> Result<Option<Record>, Stop> {
        it.next_record().map_err(|f| {
            self.report(&f, During::Read);
            Stop::Error
        })
    }

    /// `refs_for_each_rawref` on this store: every ref under `refs/` of its stacks, a symbolic
    /// ref given the id `resolve` gives its name (`None`: the null id), a bad name the null id;
    /// git dies on a dangerous name, and stops without a word on a table it cannot read.
    pub fn for_each_rawref(&self, resolve: Resolve<'_>) -> RefListing {
        let null = vec![0u8; self.format.raw_len()];
        let null = null.as_slice();
        let sub = |stack: Option<&Arc<Stack>>| {
            let mut it = self.iter(stack, &ref_seek(b""));
            move || -> Result<Option<Ref>, Stop> {
                let Some(it) = it.as_mut() else {
                    return Err(Stop::Error);
                };
                loop {
                    let Some(Record::Ref(r)) = self.next(it)? else {
                        return Ok(None);
                    };
                    if r.name.starts_with(b"refs/") {
                        return self.listed_ref(r, null, resolve).map(Some);
                    }
                }
            }
        };
        let mut listing = RefListing::default();
        let main = sub(self.main.as_ref());
        let result = match &self.worktree {
            None => drain(main, |r| listing.refs.push(r)),
            Some(w) => merge(
                sub(Some(w)),
                main,
                |r: &Ref| &r.name,
                |r| listing.refs.push(r),
            ),
        };
        if let Err(Stop::Fatal(m)) = result {
            listing.fatal = Some(m);
        }
        listing
    }

    /// One ref as `reftable_ref_iterator_advance` gives it.
    fn listed_ref(&self, r: RefRecord, null: &[u8], resolve: Resolve<'_>) -> Result<Ref, Stop> {
        let (mut id, symref_target) = match r.value {
            RefValue::Val1(id) | RefValue::Val2(id, _) => (id, None),
            RefValue::Symref(t) => {
                let id = resolve(&r.name).map_err(Stop::Fatal)?;
                (id.unwrap_or_else(|| null.to_vec()), Some(t))
            }
            RefValue::Deletion => (null.to_vec(), None),
        };
        let mut broken = id.iter().all(|&b| b == 0);
        let mut bad_name = false;
        if !check_refname_format(&r.name, true) {
            if !refname_is_safe(&r.name) {
                return Err(Stop::Fatal(format!(
                    "refname is dangerous: {}",
                    String::from_utf8_lossy(&r.name)
                )));
            }
            id = null.to_vec();
            bad_name = true;
            broken = true;
        }
        Ok(Ref {
            name: r.name,
            id,
            broken,
            bad_name,
            symref_target,
            packed: false,
        })
    }

    /// `refs_for_each_reflog` on this store: the names of its reflogs, in order (a stack that
    /// cannot be read ends the list where it stops).
    fn reflog_names(&self) -> Vec<Vec<u8>> {
        let sub = |stack: Option<&Arc<Stack>>| {
            let mut it = self.iter(stack, &log_seek(b""));
            let mut last: Vec<u8> = Vec::new();
            move || -> Result<Option<Vec<u8>>, Stop> {
                let Some(it) = it.as_mut() else {
                    return Err(Stop::Error);
                };
                loop {
                    let Some(Record::Log(l)) = self.next(it)? else {
                        return Ok(None);
                    };
                    if l.name == last || !check_refname_format(&l.name, true) {
                        continue;
                    }
                    last.clone_from(&l.name);
                    return Ok(Some(l.name));
                }
            }
        };
        let mut names = Vec::new();
        let main = sub(self.main.as_ref());
        let _ = match &self.worktree {
            None => drain(main, |n| names.push(n)),
            Some(w) => merge(sub(Some(w)), main, |n: &Vec<u8>| n, |n| names.push(n)),
        };
        names
    }

    /// `reftable_be_for_each_reflog_ent`: the entries of `name`'s reflog read through this
    /// store, oldest first, without git's marker that a reflog exists (both ids null); none when
    /// a table cannot be read part-way (`Err`: git dies opening a worktree's stack).
    pub fn reflog_entries(&self, name: &[u8]) -> Result<Vec<ReflogEntry>, String> {
        let (stack, bare) = self.stack_for(name)?;
        let Some(mut it) = self.iter(stack.as_ref(), &log_seek(&bare)) else {
            return Ok(Vec::new());
        };
        let mut logs: Vec<LogRecord> = Vec::new();
        loop {
            match self.next(&mut it) {
                Err(_) => return Ok(Vec::new()),
                Ok(Some(Record::Log(l))) if cstr(&l.name) == cstr(&bare) => logs.push(l),
                Ok(_) => break,
            }
        }
        Ok(logs
            .into_iter()
            .rev()
            .filter_map(|l| {
                let u = l.update?;
                let null = |id: &[u8]| id.iter().all(|&b| b == 0);
                if null(&u.old) && null(&u.new) {
                    return None;
                }
                Some(ReflogEntry {
                    old: u.old,
                    new: u.new,
                    timestamp: u.time,
                    tz: i64::from(u.tz_offset),
                })
            })
            .collect())
    }

    /// `get_worktree_ref_store(wt)` for a worktree other than the current one, opened once
    /// (git opens them when it lists the worktrees; `Err`: it dies).
    pub fn worktree_store(&self, wt: &Worktree) -> Result<Option<Rc<Store>>, String> {
        if wt.is_current {
            return Ok(None);
        }
        if let Some(s) = self.state.borrow().worktree_stores.get(&wt.git_dir) {
            return Ok(Some(s.clone()));
        }
        let store = Rc::new(Store::open_sharing(
            &wt.git_dir,
            &self.common_dir,
            self.format,
            self.tables.clone(),
            self.open_stack,
        )?);
        self.state
            .borrow_mut()
            .worktree_stores
            .insert(wt.git_dir.clone(), store.clone());
        Ok(Some(store))
    }

    /// The reflogs `git fsck` checks for `wt`: the names its store lists, each read through
    /// this (the current worktree's) store under the name this store gives it.
    pub fn worktree_reflogs(&self, wt: &Worktree) -> Vec<Reflog> {
        let names = match self.worktree_store(wt) {
            Ok(None) => self.reflog_names(),
            Ok(Some(s)) => s.reflog_names(),
            Err(_) => Vec::new(),
        };
        names
            .into_iter()
            .map(|n| {
                let full = wt.ref_name_bytes(&n);
                Reflog {
                    name: String::from_utf8_lossy(&full).into_owned(),
                    entries: self.reflog_entries(&full).unwrap_or_default(),
                }
            })
            .collect()
    }
}

/// A ref record to seek to (its key is the name).
fn ref_seek(name: &[u8]) -> Record {
    Record::Ref(RefRecord {
        name: name.to_vec(),
        update_index: 0,
        value: RefValue::Deletion,
    })
}

/// A log record to seek to: the newest entry of `name` (`reftable_iterator_seek_log`).
fn log_seek(name: &[u8]) -> Record {
    Record::Log(LogRecord {
        name: name.to_vec(),
        update_index: u64::MAX,
        update: None,
    })
}

/// `reftable_stack_read_ref`: the value of `name` in `stack`, `None` when it has none.
fn read_ref(stack: &Stack, name: &[u8]) -> Result<Option<RefValue>, Fail> {
    let mut it = MergedIter::new(&stack.tables, record::BLOCK_REF, true);
    it.seek(&ref_seek(name))?;
    match it.next_record()? {
        Some(Record::Ref(r)) if cstr(&r.name) == cstr(name) => Ok(Some(r.value)),
        _ => Ok(None),
    }
}

/// Every item of one iterator.
fn drain<T>(
    mut it: impl FnMut() -> Result<Option<T>, Stop>,
    mut out: impl FnMut(T),
) -> Result<(), Stop> {
    while let Some(x) = it()? {
        out(x);
    }
    Ok(())
}

/// `merge_ref_iterator` with `ref_iterator_select`: a worktree's items and the common ones by
/// name; a worktree's item hides a common one of the same name, and the common per-worktree
/// names (the main worktree's own) are left out. An error of either ends it.
fn merge<T>(
    mut wt: impl FnMut() -> Result<Option<T>, Stop>,
    mut common: impl FnMut() -> Result<Option<T>, Stop>,
    name: impl Fn(&T) -> &[u8],
    mut out: impl FnMut(T),
) -> Result<(), Stop> {
    let mut cur0 = wt()?;
    let mut cur1 = common()?;
    loop {
        // (yield 0?, yield 1?, skip the other?)
        let take_wt = match (&cur0, &cur1) {
            (None, None) => return Ok(()),
            (Some(_), None) => Some(false),
            (w, Some(c)) => {
                let order = w.as_ref().map(|w| cstr(name(w)).cmp(cstr(name(c))));
                match order {
                    Some(std::cmp::Ordering::Less) => Some(false),
                    Some(std::cmp::Ordering::Equal) => Some(true),
                    _ if parse_worktree_ref(name(c)).0 == WorktreeRefType::Shared => None,
                    _ => {
                        // ITER_SKIP_1
                        cur1 = common()?;
                        continue;
                    }
                }
            }
        };
        match take_wt {
            Some(skip_common) => {
                if skip_common {
                    cur1 = common()?;
                }
                if let Some(x) = cur0.take() {
                    out(x);
                }
                cur0 = wt()?;
            }
            None => {
                if let Some(x) = cur1.take() {
                    out(x);
                }
                cur1 = common()?;
            }
        }
    }
}

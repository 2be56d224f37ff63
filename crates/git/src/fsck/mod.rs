//! `flagsplit fsck`: git's `git fsck --full` verdict (its exit bits and its set of output lines),
//! read-only but for `--lost-found`.
//!
//! The order of work is git's (`builtin/fsck.c` in git 2.47): loose objects of every object
//! directory, then every pack (trailers, CRCs, each object inflated, its deltas applied, hashed
//! and checked), then the heads (refs, each worktree's HEAD and reflogs, the indexes), the
//! reverse indexes, and the connectivity walk from the heads, which names what is missing,
//! broken, dangling or unreachable.
//!
//! - [`driver`]: the order of a run (git's `cmd_fsck`) and the stage report.
//! - [`finding`]: what a run found, as values, and where they go (git's lines, or `--json`).
//! - [`odb`]: object directories, alternates, loose files, packs.
//! - [`table`]: the objects known, their types, flags and links.
//! - [`scan`]: checking each stored object (loose and packed; packs through a delta tree, each
//!   base and delta decoded once), with git's per-object checks as each worker runs them
//!   ([`scan::check`]) and the reads of an object by its id as git's object store does
//!   ([`scan::store`]).
//! - [`walk`]: what an object links to, and git's per-object checks at their configured
//!   severities; and the configuration they read.
//! - [`parse`]: git's `parse_object` for the heads and the walk; hex ids read from files.
//! - [`promisor`]: a partial clone's promisor objects.
//! - [`grafts`]: the deprecated grafts and shallow commits, which replace commits' parents.
//! - [`heads`]: the heads of the walk (refs, reflogs, worktrees' HEADs and indexes) and the
//!   checks of the structures around it (commit-graphs, multi-pack-indexes).
//! - [`connect`]: the connectivity walk.
//! - [`lost_found`]: `--lost-found`'s files, the one write fsck makes (when asked for).

pub mod connect;
pub mod driver;
pub mod finding;
pub mod grafts;
pub mod heads;
pub mod lost_found;
pub mod odb;
pub mod parse;
pub mod promisor;
pub mod scan;
pub mod table;
pub mod walk;

use crate::Providers;
use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};

pub use crate::repository::{Located, Repo};
pub use finding::Finding;

use crate::repository;
use std::path::{Path, PathBuf};

use crate::progress::Progress;
use crate::{Kind, ObjectFormat};
use scan::{check, store};
use table::{Oid, Table, USED};

/// git's exit bits.
pub mod bits {
    /// An object is corrupt or fails its checks.
    pub const OBJECT: u8 = 0o1;
    /// Something reachable is missing.
    pub const REACHABLE: u8 = 0o2;
    /// A pack is damaged.
    pub const PACK: u8 = 0o4;
    /// A ref, HEAD or index entry is bad.
    pub const REFS: u8 = 0o10;
    /// The commit-graph fails verification.
    pub const COMMIT_GRAPH: u8 = 0o20;
    /// The multi-pack-index fails verification.
    pub const MULTI_PACK_INDEX: u8 = 0o40;
    /// A reverse index is bad.
    pub const PACK_REV_INDEX: u8 = 0o100;
    /// A bitmap is bad.
    pub const BITMAP: u8 = 0o200;
}

/// git fsck's status when it dies.
pub const FATAL: u8 = 128;

/// The options, as `git fsck` takes them.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--[no-]full`: check packs too (default on).
    pub full: bool,
    /// `--connectivity-only`.
    pub connectivity_only: bool,
    /// `--strict`.
    pub strict: bool,
    /// `--unreachable`.
    pub unreachable: bool,
    /// `--[no-]dangling` (default on).
    pub dangling: bool,
    /// `--root`.
    pub root: bool,
    /// `--tags`.
    pub tags: bool,
    /// `--cache`.
    pub cache: bool,
    /// `--[no-]reflogs` (default on).
    pub reflogs: bool,
    /// `--name-objects`.
    pub name_objects: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--[no-]progress`; `None`: when standard error is a terminal.
    pub progress: Option<bool>,
    /// The heads given as arguments.
    pub heads: Vec<OsString>,
    /// How many threads check packs (`--threads`; 0: one per core).
    pub threads: usize,
    /// Report the time of each stage on standard error (`FLAGSPLIT_FSCK_TIMES=1`).
    pub timing: bool,
    /// `--low-memory`: check packs without building their delta trees.
    pub low_memory: bool,
    /// `--lost-found`: each dangling object written under the common directory's `lost-found/`
    /// (`commit/ID`, else `other/ID`), as git does; it implies `full` and no `reflogs` (the run
    /// sets them). The only write fsck makes.
    pub lost_found: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            full: true,
            connectivity_only: false,
            strict: false,
            unreachable: false,
            dangling: true,
            root: false,
            tags: false,
            cache: false,
            reflogs: true,
            name_objects: false,
            verbose: false,
            progress: None,
            heads: Vec::new(),
            threads: 0,
            timing: false,
            low_memory: false,
            lost_found: false,
        }
    }
}

/// How fsck stops early: the lines git prints then (the last is its `fatal:` line).
#[derive(Debug)]
pub struct Fatal(pub String);

impl Fatal {
    /// `fatal: MESSAGE`.
    pub fn msg(message: impl std::fmt::Display) -> Fatal {
        Fatal(format!("fatal: {message}"))
    }
}

/// Where findings go ([`finding::Sink`]: git's lines, or `--json`), and the exit bits so far.
pub struct Output {
    sink: Box<dyn finding::Sink>,
    context: finding::Context,
    /// The exit bits so far.
    pub bits: u8,
    progress: Progress,
}

impl Output {
    /// git's lines on the given sinks.
    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> Output {
        Output::with_sink(Box::new(finding::TextSink::new(out, err)), Progress::OFF)
    }

    /// Findings to `sink`.
    pub fn with_sink(sink: Box<dyn finding::Sink>, progress: Progress) -> Output {
        Output {
            sink,
            context: finding::Context::default(),
            bits: 0,
            progress,
        }
    }

    /// A finding (what it does not say of its object, path and pack taken from the context).
    pub fn emit(&mut self, mut f: Finding) {
        self.context.fill(&mut f);
        self.sink.finding(f);
    }

    /// Sets what the findings to come are about (a loose object and its file, a pack), and
    /// returns what it was.
    pub fn set_context(&mut self, context: finding::Context) -> finding::Context {
        std::mem::replace(&mut self.context, context)
    }

    /// A line on standard error, as it is.
    pub fn err(&mut self, line: &str) {
        self.emit(Finding::line(finding::Stream::Err, line));
    }

    /// A line of bytes on standard error (git prints names from objects as they are).
    pub fn err_bytes(&mut self, line: &[u8]) {
        self.emit(Finding::line(finding::Stream::Err, line));
    }

    /// `error: MESSAGE` on standard error.
    pub fn error(&mut self, message: &str) {
        self.emit(Finding::error(message));
    }

    /// `error: MESSAGE`, and the exit bit.
    pub fn error_bit(&mut self, message: &str, bit: u8) {
        self.emit(Finding::error(message).with_bit(bit));
        self.bits |= bit;
    }

    /// The lines of a `Fatal` (the last is git's `fatal:` line), one finding each.
    pub fn fatal(&mut self, fatal: &Fatal) {
        for line in fatal.0.split('\n') {
            self.err(line);
        }
    }

    /// The run ended with `status`: the sink's last word, and everything flushed.
    pub fn finish(&mut self, status: u8) {
        self.sink.finish(status);
        self.sink.flush();
    }

    /// Writes what the sink holds.
    pub fn flush(&mut self) {
        self.sink.flush();
    }

    /// Whether git's progress meters are shown (`--progress`, or standard error is a terminal).
    pub fn progress(&self) -> Progress {
        self.progress
    }
}

/// Hashes one object: its id, or git's message when the collision-detecting hash refuses it.
pub type HashFn = fn(ObjectFormat, Kind, &[u8]) -> Result<Oid, String>;

/// The object id with the caller's SHA-1 (collision detection on) or SHA-256 provider.
pub fn object_id<P: Providers>(
    format: ObjectFormat,
    kind: Kind,
    data: &[u8],
) -> Result<Oid, String> {
    match crate::object_id::object_id::<P::Hasher>(format, kind, data, true) {
        Ok(id) => Ok(id.padded()),
        Err(e) => Err(e.to_string()),
    }
}

/// One run's state: what it was given and what it keeps throughout, then one value per phase
/// that fills it (the settings read before the scan, the store as the scan opens it, the heads
/// and what the walk starts from, the time each stage took).
pub struct Fsck<'o, P: Providers> {
    /// The providers the run hashes and inflates with.
    pub providers: std::marker::PhantomData<fn() -> P>,
    /// The options.
    pub opts: &'o Options,
    /// The repository.
    pub repo: Repo,
    /// The objects known.
    pub table: Table,
    /// Lines and exit bits.
    pub out: Output,
    /// The workers that check packs (`--threads`: one per core, or as many as asked, one too).
    pub pool: rayon::ThreadPool,
    /// The sequential scan's worker state, reused from object to object.
    pub seq: Option<check::Local>,
    /// What the configuration and the object format set before the scan.
    pub settings: Settings,
    /// The object store as the scan opened it.
    pub stored: Stored,
    /// The heads and what the walk starts from.
    pub heads: Heads,
    /// Time per stage.
    pub stats: Stats,
}

/// What the configuration and the object format set before the scan.
pub struct Settings {
    /// How objects are hashed.
    pub hash: HashFn,
    /// git's per-object checks, configured.
    pub checks: walk::Checks,
    /// Blobs at least this large are streamed (`core.bigFileThreshold`).
    pub big_file_threshold: u64,
    /// The empty tree's id, which git reads whether or not it is stored (a cached object).
    pub empty_tree: Oid,
    /// `core.sharedRepository`, for the directories `--lost-found` makes
    /// ([`lost_found::shared_repository`]: git's fatal message for a bad value, given when the
    /// first directory is made; 0 without `--lost-found`).
    pub shared_repository: Result<i32, String>,
}

/// The object store as the scan opened it: the packs, the loose objects, and what reading them
/// found while it was shared.
#[derive(Default)]
pub struct Stored {
    /// The packs, once scanned (their maps, for reading objects again).
    pub packs: Vec<scan::PackState>,
    /// The loose objects, by id.
    pub loose: std::collections::HashMap<Oid, PathBuf>,
    /// The loose objects' ids in the order of the scan (of each object directory in turn).
    pub loose_order: Vec<Oid>,
    /// The objects a multi-pack-index puts in a pack whose `.idx` is gone, and that pack (its
    /// place in `packs`).
    pub lost: std::collections::HashMap<Oid, usize>,
    /// Lines the store printed while it was shared (flushed to standard error).
    pub notes: std::sync::Mutex<Vec<String>>,
    /// What git prints each time it reads the alternates again (`reprepare_packed_git`, after
    /// an object was found neither in a pack nor loose): see [`odb::object_dirs`].
    pub reprepare_lines: Vec<String>,
    /// Whether a pack cannot be opened, so that git's searches for objects print its lines
    /// ([`scan::PackState::lookup_lines`]).
    pub noisy_packs: bool,
    /// The delta bases the walk's reads keep from read to read (git's delta base cache).
    pub walk_cache: Option<scan::BaseCache>,
    /// A reason git would die that a read of the store found (`read_object_with` takes the
    /// state shared; its callers turn this into a `Fatal`).
    pub pending_fatal: std::cell::RefCell<Option<String>>,
    /// A checked object's walk of its links failed (a tree that cannot be parsed, a link to an
    /// object of another type): git's connectivity walk walks it again and prints those lines
    /// again, so the walk reads objects as git's does (see `connect::check_connectivity`).
    pub broken_walk: bool,
}

/// The heads and what the walk starts from and stops at.
#[derive(Default)]
pub struct Heads {
    /// Objects of promisor packs and what they link to (git's `is_promisor_object`), when the
    /// repository has a promisor remote.
    pub promisor: std::collections::HashSet<Oid, table::IdHash>,
    /// Names for `--name-objects`.
    pub names: std::collections::HashMap<Oid, String>,
    /// The commits of a shallow repository's boundary (`shallow`), whose parents git does not
    /// follow.
    pub shallow: std::collections::HashSet<Oid>,
    /// The grafts (`info/grafts`), whose parents git gives the commits they name.
    pub grafts: grafts::Grafts,
    /// The bitmaps of the multi-pack-indexes that loaded.
    pub midx_bitmaps: Vec<PathBuf>,
    /// With `--connectivity-only`: the commits the commit-graph lists, which git's walk takes
    /// from the graph.
    pub graph_commits:
        Option<std::collections::HashMap<Vec<u8>, crate::verify::commit_graph::GraphCommit>>,
    /// The refs and HEADs that count as default references.
    pub default_refs: usize,
    /// No default reference was found: `--unreachable` is then ignored, as git does.
    pub no_default_refs: bool,
}

/// Time per stage.
#[derive(Default)]
pub struct Stats {
    /// Time per stage of the packs' checks, summed over the workers.
    pub times: check::Times,
    /// Reading the packs' indexes, CRCs and entry headers (one thread).
    pub stage_read: std::time::Duration,
}

impl<'o, P: Providers> Fsck<'o, P> {
    /// The hex of an id.
    pub fn hex(&self, id: &Oid) -> String {
        hex(&id[..self.repo.format.raw_len()])
    }

    /// How git describes an object (`describe_object`): its hex, and with `--name-objects` the
    /// name it was reached by.
    pub fn describe(&self, id: &Oid) -> String {
        let h = self.hex(id);
        match self.heads.names.get(id) {
            Some(n) if self.opts.name_objects => format!("{h} ({n})"),
            _ => h,
        }
    }

    /// git's `printable_type`: the type the object has, or what the store says, or `unknown`.
    pub fn printable_type(&self, i: u32) -> &'static str {
        let o = self.table.obj(i);
        match o.kind {
            Some(k) => k.name(),
            None => match scan::stored_kind(self, &o.id) {
                Some(k) => k.name(),
                None => "unknown",
            },
        }
    }

    /// git's `fsck_obj_buffer` and `fsck_obj` for an object of the sequential scan (loose
    /// objects): see [`check::Core::object_checked`].
    pub fn object_checked(
        &mut self,
        id: &Oid,
        kind: Kind,
        data: Option<&[u8]>,
        loose: Option<&Path>,
    ) -> bool {
        let mut l = self.seq.take().unwrap_or_default();
        l.special = std::mem::take(&mut self.settings.checks.special);
        let err = self
            .core()
            .object_checked(&mut l, id, kind, data, check::Source::Loose(loose));
        self.settings.checks.special = std::mem::take(&mut l.special);
        self.apply(&mut l);
        self.seq = Some(l);
        err
    }

    /// The object store, as git reads objects from it.
    pub fn store(&self) -> store::Store<'_, P> {
        self.store_with(&self.stored.packs)
    }

    /// The object store with `packs` (the run's, while it has lent them out).
    pub fn store_with<'a>(&'a self, packs: &'a [scan::PackState]) -> store::Store<'a, P> {
        store::Store {
            providers: std::marker::PhantomData,
            packs,
            loose: &self.stored.loose,
            table: &self.table,
            format: self.repo.format,
            empty_tree: self.settings.empty_tree,
            fresh: false,
            lost: &self.stored.lost,
            notes: &self.stored.notes,
            reprepare: &self.stored.reprepare_lines,
            noisy: self.stored.noisy_packs,
            quiet: false,
        }
    }

    /// What a check needs of the run.
    pub fn core(&self) -> check::Core<'_, P> {
        self.core_with(&self.stored.packs)
    }

    /// What a check needs of the run, with `packs` (the run's, while it has lent them out).
    pub fn core_with<'a>(&'a self, packs: &'a [scan::PackState]) -> check::Core<'a, P> {
        check::Core {
            table: &self.table,
            format: self.repo.format,
            opts: self.opts,
            checks: &self.settings.checks.opts,
            shallow: &self.heads.shallow,
            grafts: &self.heads.grafts,
            store: self.store_with(packs),
            promisor: false,
            edgeless: false,
        }
    }

    /// Creates the objects `l`'s links named that the table did not have when they were checked,
    /// as the types the links name (in the order first linked), and puts them in their places in
    /// `l.edges`. A link to an object made just before as another type is git's `object X is a
    /// T, not a U`, kept for [`Fsck::apply`]. Returns the number of those.
    pub fn resolve(&mut self, l: &mut check::Local) -> usize {
        if l.missing.is_empty() {
            return 0;
        }
        // A promised object (linked to without an edge) that is made as another type: git's
        // line would go with each of those links, which were not kept, so the pack is checked
        // again in git's order, with edges (see `scan::settle::settle`).
        let mut conflicts = 0;
        let made: Vec<Result<u32, String>> = l
            .missing
            .take()
            .into_iter()
            .map(|m| match self.table.lookup(&m.id, m.kind) {
                Ok(ti) => {
                    self.table.or_flags(ti, USED);
                    if m.promised {
                        self.heads.promisor.insert(m.id);
                    }
                    Ok(ti)
                }
                Err(c) => {
                    conflicts += usize::from(m.promised);
                    Err(format!(
                        "object {} is a {}, not a {}",
                        self.hex(&m.id),
                        c.is.name(),
                        m.kind.name()
                    ))
                }
            })
            .collect();
        for (at, e) in l.edges.iter_mut().enumerate() {
            let Some(n) = table::edge_target(*e).and_then(|t| t.checked_sub(table::MISSING_BASE))
            else {
                continue;
            };
            let kind = table::edge_kind(*e);
            *e = match made.get(n as usize) {
                Some(Ok(ti)) => table::edge(Some(*ti), kind),
                Some(Err(line)) => {
                    conflicts += 1;
                    l.unresolved.push((at, line.clone()));
                    table::edge(None, kind)
                }
                None => table::edge(None, kind),
            };
        }
        conflicts
    }

    /// Folds what a check produced into the run: its lines, bits and links (creating the objects
    /// it linked to that the table did not have, [`Fsck::resolve`]). Leaves `l` empty for reuse.
    pub fn apply(&mut self, l: &mut check::Local) {
        self.resolve(l);
        if let Some(m) = l.fatal.take() {
            let mut pending = self.stored.pending_fatal.borrow_mut();
            if pending.is_none() {
                *pending = Some(m);
            }
        }
        for finding in l.lines.drain(..) {
            self.out.emit(finding);
        }
        self.out.bits |= std::mem::take(&mut l.bits);
        self.stored.broken_walk |= std::mem::take(&mut l.broken_walk);
        if let Some(counts) = l.counts.as_mut() {
            for (i, c) in counts.iter_mut().enumerate() {
                if *c > 0 {
                    self.table.add_refs(i as u32, u32::from(std::mem::take(c)));
                }
            }
        }
        for i in l.spilled.drain(..) {
            self.table.add_refs(i, u32::from(u8::MAX));
        }
        for i in l.promisor_blobs.drain(..) {
            self.heads.promisor.insert(self.table.obj(i).id);
            if let Some(w) = l.promisor_noted.get_mut((i / 64) as usize) {
                *w &= !(1u64 << (i % 64));
            }
        }
        l.conflicts = 0;
        let mut broken_owners = Vec::new();
        for (at, line) in l.unresolved.drain(..) {
            self.out.error(&line);
            broken_owners.push(at);
        }
        // A worker's links (many) are taken whole; a few are copied.
        let adopted = (l.edges.len() >= 1 << 16).then(|| {
            let mut edges = std::mem::take(&mut l.edges);
            edges.shrink_to_fit();
            self.table.adopt_edges(edges)
        });
        for (i, start, n) in l.owners.drain(..) {
            let (from, to) = (start as usize, (start + n) as usize);
            if broken_owners.iter().any(|&at| at >= from && at < to) {
                let o = self.table.obj(i);
                let k = o.kind.map_or("unknown", Kind::name);
                let hex = self.hex(&o.id);
                let line = format!("error in {k} {hex}: broken links");
                self.stored.broken_walk = true;
                self.out.emit(
                    Finding::line(finding::Stream::Err, line)
                        .about(&hex, o.kind)
                        .with_bit(bits::OBJECT),
                );
                self.out.bits |= bits::OBJECT;
            }
            match adopted {
                Some(base) => self.table.set_edge_range(i, base + start, n),
                None => {
                    if let Some(edges) = l.edges.get(from..to) {
                        self.table.set_edges(i, edges);
                    }
                }
            }
        }
        l.edges.clear();
        l.lists.clear();
    }
}

impl<P: Providers> Fsck<'_, P> {
    /// Prints the lines the store noted while it was shared ([`Stored::notes`]).
    pub fn flush_notes(&mut self) {
        let notes = self
            .stored
            .notes
            .get_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for n in notes {
            self.out.error(&n);
        }
    }

    /// The `Fatal` a read of the store ran into, if any.
    pub fn take_fatal(&self) -> Result<(), Fatal> {
        match self.stored.pending_fatal.borrow_mut().take() {
            Some(m) => Err(Fatal::msg(m)),
            None => Ok(()),
        }
    }
}

/// Why an index (`.idx`, named `shown` in messages) does not load, in git's words; `None` when
/// it does.
pub fn idx_error(bytes: &[u8], format: ObjectFormat, shown: &str) -> Option<String> {
    crate::idx::Index::parse(bytes, format.raw_len(), shown)
        .err()
        .map(|e| e.to_string())
}

/// The id of the empty tree in `format` (git's `EMPTY_TREE_SHA1_BIN_LITERAL` and its SHA-256 twin).
pub fn empty_tree_id<P: Providers>(format: ObjectFormat) -> Oid {
    crate::object_id::object_id::<P::Hasher>(format, Kind::Tree, b"", false)
        .map_or([0; 32], |id| id.padded())
}

pub use crate::hex;

/// Finds the repository as git does (`GIT_DIR`, else upwards from the current directory) and
/// names it as git does from the directory git works from ([`repository::locate`]).
pub fn find_repo() -> Result<Located, Fatal> {
    repository::locate().map_err(Fatal::msg)
}

/// Runs fsck on `repo` (found by [`find_repo`], from its [`Located::work_dir`]; or why it could not
/// be found, which is reported as git reports it), giving its findings to `sink` (git's lines:
/// [`finding::TextSink::stdio`]), and returns its exit status (git's bits, or 128 when it dies),
/// which the sink is also given last.
pub fn run<P: Providers>(
    opts: &Options,
    repo: Result<Repo, Fatal>,
    sink: Box<dyn finding::Sink>,
) -> u8 {
    let progress = opts.progress.unwrap_or_else(|| io::stderr().is_terminal()) && !opts.verbose;
    let mut out = Output::with_sink(sink, Progress::new(progress));
    let status = match repo {
        Ok(repo) => {
            let (o, result) = run_with::<P>(opts, repo, out, object_id::<P>);
            out = o;
            match result {
                Ok(bits) => bits,
                Err(fatal) => {
                    out.fatal(&fatal);
                    FATAL
                }
            }
        }
        Err(fatal) => {
            out.fatal(&fatal);
            FATAL
        }
    };
    out.finish(status);
    status
}

/// Runs fsck on `repo`, writing to `out`, hashing with `hash`: the output, and the exit bits or
/// why it died (its lines not yet written: see [`Output::fatal`]).
pub fn run_with<P: Providers>(
    opts: &Options,
    repo: Repo,
    out: Output,
    hash: HashFn,
) -> (Output, Result<u8, Fatal>) {
    // git's `--lost-found` turns `--full` on and the reflogs off, whatever else was asked.
    let implied;
    let opts = if opts.lost_found {
        implied = Options {
            full: true,
            reflogs: false,
            ..opts.clone()
        };
        &implied
    } else {
        opts
    };
    let config = match walk::load_config(&repo) {
        Ok(c) => c,
        Err(e) => return (out, Err(e)),
    };
    let checks = match walk::Checks::new(&config, opts.strict, repo.format) {
        Ok(c) => c,
        Err(e) => return (out, Err(e)),
    };
    // `--threads 0` (the default): one per core, as rayon counts them.
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
    {
        Ok(p) => p,
        Err(e) => return (out, Err(Fatal::msg(format!("cannot start threads: {e}")))),
    };
    let big_file_threshold = walk::big_file_threshold(&config);
    let empty_tree = empty_tree_id::<P>(repo.format);
    // Only `--lost-found`'s directories depend on core.sharedRepository; git reads it when it
    // first makes one, and dies there on a bad value.
    let shared_repository = if opts.lost_found {
        let value = config.get("core.sharedrepository").map(|e| e.value_str());
        lost_found::shared_repository(value)
    } else {
        Ok(0)
    };
    let mut f = Fsck::<P> {
        providers: std::marker::PhantomData,
        opts,
        repo,
        table: Table::default(),
        out,
        pool,
        seq: None,
        settings: Settings {
            hash,
            checks,
            big_file_threshold,
            empty_tree,
            shared_repository,
        },
        stored: Stored::default(),
        heads: Heads::default(),
        stats: Stats::default(),
    };
    for w in f.settings.checks.config_warnings().to_vec() {
        f.out.err(&w);
    }
    let result = driver::fsck(&mut f, &config);
    f.flush_notes();
    // git reads the graft file (and prints what it says about it) once it parses a commit.
    let parsed_commit = f.heads.grafts.read
        && f.table.iter().any(|o| {
            o.kind == Some(Kind::Commit) && o.flags & (table::HAS_OBJ | table::PARSED) != 0
        });
    if parsed_commit {
        for l in std::mem::take(&mut f.heads.grafts.lines) {
            f.out.err(&l);
        }
    }
    let result = result.map(|()| f.out.bits);
    f.out.flush();
    (f.out, result)
}

//! Checking one object that was read and hashed correctly (git's `fsck_obj_buffer` and
//! `fsck_obj`), shared by the sequential loose scan and the workers that check a pack: the
//! table is taken shared (its flags and types are atomics), everything the check produces goes
//! to the caller's [`Local`], and [`crate::fsck::Fsck::apply`] folds a `Local` into the run.

use crate::Providers;
use std::collections::HashSet;
use std::path::Path;

use crate::check::{self as checks, SpecialBlobs};
use crate::fsck::finding::{Finding, Stream, What};
use crate::fsck::table::{self, BAD, HAS_OBJ, Oid, PRESENT, SEEN, Table, USED};
use crate::fsck::{Options, bits, hex, walk};
use crate::{Kind, ObjectFormat};

/// What a check needs of the run, shared.
pub struct Core<'a, P: Providers> {
    /// The objects.
    pub table: &'a Table,
    /// The object format.
    pub format: ObjectFormat,
    /// The options.
    pub opts: &'a Options,
    /// git's checks, configured.
    pub checks: &'a checks::Options,
    /// The shallow boundary.
    pub shallow: &'a HashSet<Oid>,
    /// The grafts.
    pub grafts: &'a crate::fsck::grafts::Grafts,
    /// The object store, for a delta base a pack could not give (git then reads it by its id).
    pub store: super::store::Store<'a, P>,
    /// Whether the objects checked are a promisor pack's: their links to stored blobs, which are
    /// only counted, are then noted in [`Local::promisor_blobs`] for git's promisor set.
    pub promisor: bool,
    /// With `promisor`: a tree's links to blobs that are not stored are noted there too instead
    /// of kept as edges. Such a blob is a promisor object, where git's walk stops, so the edge
    /// would only be followed to stop; a blobless clone's trees make tens of millions of them.
    pub edgeless: bool,
}

/// A link to an id the table did not have when the object was checked (created when the
/// `Local` is applied): where it is in [`Local::edges`], the id and the type the link names.
#[derive(Clone, Copy, Debug)]
pub struct Missing {
    /// The id.
    pub id: Oid,
    /// The type the link names.
    pub kind: Kind,
    /// A promisor pack's tree links to it without an edge (see [`Core::edgeless`]).
    pub promised: bool,
}

/// The objects a check linked to that the table did not have, each (id, type) once, in the order
/// first linked: a link to one is an edge to [`table::MISSING_BASE`] + its number until the
/// check is folded in ([`crate::fsck::Fsck::resolve`]). A blobless clone's trees name hundreds of
/// thousands of blobs the table never holds, most of them from many trees: each such link costs
/// its edge alone.
#[derive(Default)]
pub struct MissingIds {
    /// The objects, numbered by their place.
    pub list: Vec<Missing>,
    /// Each object's number, by its id and type.
    map: hashbrown::HashTable<u32>,
    /// The hasher of `map`.
    hasher: table::IdHash,
}

/// The hash of `id` as `kind` in [`MissingIds`].
fn missing_hash(hasher: &table::IdHash, id: &Oid, kind: Kind) -> u64 {
    use std::hash::BuildHasher as _;
    hasher.hash_one(id).wrapping_add(kind as u64)
}

impl MissingIds {
    /// The number of `id` as `kind`, given it now if it has none.
    pub fn number(&mut self, id: &Oid, kind: Kind) -> u32 {
        let h = missing_hash(&self.hasher, id, kind);
        let list = &self.list;
        if let Some(&n) = self.map.find(h, |&n| {
            list[n as usize].id == *id && list[n as usize].kind == kind
        }) {
            return n;
        }
        let n = self.list.len() as u32;
        self.list.push(Missing {
            id: *id,
            kind,
            promised: false,
        });
        let (list, hasher) = (&self.list, &self.hasher);
        self.map.insert_unique(h, n, |&m| {
            let o = &list[m as usize];
            missing_hash(hasher, &o.id, o.kind)
        });
        n
    }

    /// Notes `id` as `kind`, linked to by a promisor pack's tree without an edge.
    pub fn promise(&mut self, id: &Oid, kind: Kind) {
        let n = self.number(id, kind) as usize;
        if let Some(m) = self.list.get_mut(n) {
            m.promised = true;
        }
    }

    /// Takes the objects out, leaving it empty.
    pub fn take(&mut self) -> Vec<Missing> {
        self.map.clear();
        std::mem::take(&mut self.list)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// How one entry of a well-formed tree was linked, so that a tree that is a delta of it (which
/// names mostly the same objects) reuses the link instead of looking the id up again.
#[derive(Clone, Copy, Debug)]
pub struct TreeLink {
    /// Where the entry's name is in the tree.
    pub name: u32,
    /// Where the entry's id is in the tree.
    pub off: u32,
    /// The link ([`table::edge`]): its target and the type the entry names.
    pub edge: u32,
    /// Whether it was counted (a stored blob) rather than kept.
    pub counted: bool,
    /// See [`checks::BaseEntry::plain`].
    pub plain: bool,
    /// See [`checks::BaseEntry::after_candidate`].
    pub after_candidate: bool,
}

impl checks::BaseEntry for TreeLink {
    fn kind(&self) -> Kind {
        table::edge_kind(self.edge)
    }
    fn name(&self) -> u32 {
        self.name
    }
    fn id(&self) -> u32 {
        self.off
    }
    fn plain(&self) -> bool {
        self.plain
    }
    fn after_candidate(&self) -> bool {
        self.after_candidate
    }
}

/// The object a packed delta was made from, as [`Core::object_checked`] reads it.
#[derive(Clone, Copy)]
pub struct Base<'a> {
    /// Its content.
    pub data: &'a [u8],
    /// For a tree: its links ([`Local::tree_links`] as its check left them).
    pub links: &'a [TreeLink],
    /// Whether that tree was clean (see [`checks::TreeChecked::clean`]).
    pub clean: bool,
    /// The copies the delta made from it (recorded for a tree whose base is clean).
    pub copies: &'a [crate::delta::Copy],
}

/// Where an object handed to [`Core::object_checked`] was read.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// By the sequential scan of loose objects (the file, for git's messages), which checks the
    /// special blobs it meets at once.
    Loose(Option<&'a Path>),
    /// By a pack's worker, at offset `at` (the order in which the special blobs it meets are
    /// replayed); `packed`, its place in the table and its base ([`Packed`]), for an entry
    /// decoded whole, not streamed, whose place the table holds.
    Pack {
        /// The entry's offset.
        at: u64,
        /// Its place in the table and the object it is a delta of.
        packed: Option<Packed<'a>>,
    },
}

/// What a pack's reader knows of an object it hands to [`Core::object_checked`].
#[derive(Clone, Copy)]
pub struct Packed<'a> {
    /// Its place in the table.
    pub index: u32,
    /// The object it is a delta of.
    pub base: Option<Base<'a>>,
    /// Whether a tree's links are wanted in [`Local::tree_links`] after its check (it is the
    /// base of a delta): else they are not gathered.
    pub keep_links: bool,
}

/// Whether two ids are the same; a SHA-1 id is compared as a fixed-size array (in registers, not
/// through `memcmp`): this runs for nearly every tree entry.
#[inline]
fn same_id(a: &[u8], b: &[u8]) -> bool {
    match (<&[u8; 20]>::try_from(a), <&[u8; 20]>::try_from(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// An id shown in hexadecimal when it is formatted.
struct LazyHex<'a>(&'a [u8]);

impl std::fmt::Display for LazyHex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// What one worker (or the sequential scan) produced.
pub struct Local {
    /// Findings, in the order produced.
    pub lines: Vec<Finding>,
    /// Exit bits.
    pub bits: u8,
    /// The kept links of the checked objects, back to back, as [`table::edge`] makes them.
    pub edges: Vec<u32>,
    /// Whose links are where in `edges`: (object, start, count).
    pub owners: Vec<(u32, u32, u32)>,
    /// The trees' lists of links already in `edges`, as places in `owners`, so that a tree
    /// whose links are those of another (most trees of a history: only their blobs changed)
    /// takes its range instead of a copy ([`Local::own_links`]).
    pub lists: Lists,
    /// The objects the links in `edges` named that the table did not have (see [`MissingIds`]).
    pub missing: MissingIds,
    /// The special blobs trees named (a worker's own; the sequential scan's is the run's).
    pub special: SpecialBlobs,
    /// For a worker: each blob a tree named `.gitmodules` (`true`) or `.gitattributes`, with the
    /// tree's pack offset, to be replayed in git's order.
    pub special_events: Vec<(u64, Vec<u8>, bool)>,
    /// The cache of recent lookups.
    pub recent: Vec<u32>,
    /// An error the pack's verification reports (its exit bit).
    pub err: bool,
    /// An object's walk of its links failed (`error in TYPE ID: broken links`): the connectivity
    /// walk then reads objects as git's does, which prints that walk's lines again.
    pub broken_walk: bool,
    /// Time spent per stage, when timed.
    pub times: Times,
    /// A tree's links, reused from tree to tree.
    pub scratch: Vec<checks::TreeEntryAt>,
    /// The runs of a delta tree's entries copied from its base (reused from tree to tree).
    pub runs: Vec<checks::Run>,
    /// Whether the last tree checked was clean (see [`checks::TreeChecked::clean`]).
    pub tree_clean: bool,
    /// The copies of the last delta applied, when its check can use them.
    pub copies: Vec<crate::delta::Copy>,
    /// The links of the last tree checked, when it was well-formed and every link resolved to
    /// an object (else empty).
    pub tree_links: Vec<TreeLink>,
    /// For a worker: its own counts of tree links to stored blobs (`Table::refs`), by object,
    /// added to the table's when the `Local` is applied; `None`: counted in the table. A byte
    /// each, so that the counts of a large repository stay in a core's cache (a count that
    /// reaches 255 is noted in `spilled`).
    pub counts: Option<Vec<u8>>,
    /// The objects whose count in `counts` reached 255, once each time: 255 more for each when
    /// the `Local` is applied (a worker does not write counts to the table, so that what a pack's
    /// check did can be taken back, see `scan::verify_pack`).
    pub spilled: Vec<u32>,
    /// The type conflicts met (git's `object X is a T, not a U`): which of the two git reports
    /// depends on the order in which it reads the objects.
    pub conflicts: usize,
    /// The entries (by their place in pack order) that could not be unpacked (git's `cannot
    /// unpack`): git prints the lines of a damaged entry again from each delta whose chain
    /// reaches it, as its delta base cache lets it, so those chains are checked again in git's
    /// order (`settle::settle`, `verify::verify_one`).
    pub damaged: Vec<u32>,
    /// Links to objects made as another type when the missing ones were created
    /// ([`crate::fsck::Fsck::resolve`]): the link's place in `edges` and git's line.
    pub unresolved: Vec<(usize, String)>,
    /// The blobs that trees of a promisor pack link to (see [`Core::promisor`]), each once.
    pub promisor_blobs: Vec<u32>,
    /// Which objects are in `promisor_blobs`, a bit each, by their place in the table.
    pub promisor_noted: Vec<u64>,
    /// A read that stood in for a delta base a pack could not give died (git's message).
    pub fatal: Option<String>,
    /// Whether the links of the object being checked are counted (`false` for a copy of an
    /// object checked before).
    pub counting: bool,
}

/// [`Local::lists`]: places in `owners`, by the hash of the links they name (keyed per process,
/// so that trees made to collide cannot make the search long).
#[derive(Default)]
pub struct Lists {
    table: hashbrown::HashTable<u32>,
    hasher: std::hash::RandomState,
}

impl Lists {
    /// Forgets every list (the links they were in are gone).
    pub fn clear(&mut self) {
        self.table.clear();
    }
}

/// Time spent in each stage of checking packed objects, summed over what one worker did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    /// Inflating entries (objects and deltas).
    pub inflate: std::time::Duration,
    /// Applying deltas.
    pub delta: std::time::Duration,
    /// Hashing objects.
    pub hash: std::time::Duration,
    /// git's per-object checks and the links they record.
    pub checks: std::time::Duration,
    /// Of `checks`: marking what the objects link to (git's `mark_used`: lookups, types, flags,
    /// counts), the connectivity work done while the object is in hand.
    pub links: std::time::Duration,
}

impl Times {
    /// Adds `other`.
    pub fn add(&mut self, other: &Times) {
        self.inflate += other.inflate;
        self.delta += other.delta;
        self.hash += other.hash;
        self.checks += other.checks;
        self.links += other.links;
    }
}

/// Runs `f`, adding the time it took to `slot` when `on`.
#[inline]
pub fn timed<T>(on: bool, slot: &mut std::time::Duration, f: impl FnOnce() -> T) -> T {
    if !on {
        return f();
    }
    let start = std::time::Instant::now();
    let r = f();
    *slot += start.elapsed();
    r
}

impl Default for Local {
    fn default() -> Local {
        Local::new(SpecialBlobs::default())
    }
}

impl Local {
    /// Records `edges[start..]` as the links of `i`: a tree whose list is one already recorded
    /// takes that list's range, and its copy is dropped. A list with a link the table did not
    /// have, or could not give (a placeholder or [`table::BROKEN`]), is its own: those are
    /// rewritten or reported link by link when the `Local` is applied.
    pub fn own_links(&mut self, i: u32, start: usize, tree: bool) {
        use std::hash::BuildHasher as _;
        let n = self.edges.len() - start;
        if n == 0 {
            return;
        }
        let list = &self.edges[start..];
        let shareable = tree
            && list
                .iter()
                .all(|&e| table::edge_target(e).is_some_and(|t| t < table::MISSING_BASE));
        if shareable {
            let Lists { table, hasher } = &mut self.lists;
            let (edges, owners) = (&self.edges, &self.owners);
            let h = hasher.hash_one(list);
            let same = |&o: &u32| {
                owners
                    .get(o as usize)
                    .is_some_and(|&(_, s, c)| edges.get(s as usize..(s + c) as usize) == Some(list))
            };
            if let Some(&o) = table.find(h, same) {
                let (_, s, c) = self.owners[o as usize];
                self.edges.truncate(start);
                self.owners.push((i, s, c));
                return;
            }
            let at = self.owners.len() as u32;
            let owners = &self.owners;
            let edges = &self.edges;
            table.insert_unique(h, at, |&o| {
                let (_, s, c) = owners[o as usize];
                hasher.hash_one(&edges[s as usize..(s + c) as usize])
            });
        }
        self.owners.push((i, start as u32, n as u32));
    }

    /// An empty one, with `special` as its set of special blobs.
    pub fn new(special: SpecialBlobs) -> Local {
        Local {
            lines: Vec::new(),
            bits: 0,
            edges: Vec::new(),
            owners: Vec::new(),
            lists: Lists::default(),
            missing: MissingIds::default(),
            special,
            special_events: Vec::new(),
            recent: vec![u32::MAX; table::RECENT_SLOTS],
            err: false,
            broken_walk: false,
            times: Times::default(),
            scratch: Vec::new(),
            runs: Vec::new(),
            tree_clean: false,
            copies: Vec::new(),
            tree_links: Vec::new(),
            counts: None,
            spilled: Vec::new(),
            conflicts: 0,
            damaged: Vec::new(),
            unresolved: Vec::new(),
            promisor_blobs: Vec::new(),
            promisor_noted: Vec::new(),
            fatal: None,
            counting: true,
        }
    }

    /// Counts one more checked tree linking to the stored blob `i`: in this worker's own counts
    /// when it keeps them (a plain increment, no shared cache line), else in the table.
    #[inline]
    pub fn count(&mut self, table: &Table, i: u32) {
        if !self.counting {
            return;
        }
        match &mut self.counts {
            Some(c) => match c.get_mut(i as usize) {
                Some(v) if *v < u8::MAX => *v += 1,
                _ => self.count_rarely(table, i as usize),
            },
            None => table.add_ref(i),
        }
    }

    /// [`Local::count`] when the counts do not reach `i` yet or its count is full.
    #[cold]
    fn count_rarely(&mut self, table: &Table, i: usize) {
        let Some(c) = &mut self.counts else { return };
        if c.len() <= i {
            c.resize(table.len().max(i + 1), 0);
        }
        if c[i] == u8::MAX {
            self.spilled.push(i as u32);
            c[i] = 0;
        }
        c[i] += 1;
    }

    /// Notes the object at `t` (of a table of `len`) for the promisor set, once.
    pub fn note_promised(&mut self, len: usize, t: u32) {
        let (w, bit) = ((t / 64) as usize, 1u64 << (t % 64));
        if self.promisor_noted.len() <= w {
            self.promisor_noted.resize(len.div_ceil(64).max(w + 1), 0);
        }
        if let Some(word) = self.promisor_noted.get_mut(w)
            && *word & bit == 0
        {
            *word |= bit;
            self.promisor_blobs.push(t);
        }
    }

    /// `error: MESSAGE`.
    pub fn error(&mut self, message: &str) {
        self.lines.push(Finding::error(message));
    }

    /// A worker's inflater, or, when it could not be started, `None` with the entry's error
    /// recorded.
    pub fn inflater<'z, Z>(&mut self, z: &'z mut Option<Z>) -> Option<&'z mut Z> {
        if z.is_none() {
            self.error("cannot start an inflater");
            self.err = true;
        }
        z.as_mut()
    }

    /// `error: MESSAGE` about the pack `pack` (as git names it), at the entry at `offset` when
    /// known, about the object whose id is `id` when known.
    pub fn pack_error(
        &mut self,
        message: &str,
        pack: &str,
        offset: Option<u64>,
        id: Option<&[u8]>,
    ) {
        let mut f = Finding::pack_error(message, pack, offset);
        f.object = id.map(hex);
        self.lines.push(f);
    }

    /// A line on standard error, as it is.
    pub fn err(&mut self, line: &str) {
        self.lines.push(Finding::line(Stream::Err, line));
    }
}

impl<P: Providers> Core<'_, P> {
    /// One link of a checked object (git's `mark_used`). Returns whether git's walk fails on it,
    /// and the link made when it resolved to an object in the table (or, for a promisor pack's
    /// tree's link to a blob that is not stored, the [`table::PROMISED`] link a delta of the tree
    /// takes as it is).
    fn link(
        &self,
        l: &mut Local,
        from: Kind,
        tid: &Oid,
        tkind: Kind,
    ) -> (bool, Option<(u32, bool)>) {
        match self.table.lookup_known(tid, tkind, &mut l.recent) {
            Ok(Some(ti)) => {
                let flags = self.table.or_flags(ti, USED);
                let e = table::edge(Some(ti), tkind);
                let counted =
                    from == Kind::Tree && tkind == Kind::Blob && flags & (PRESENT | BAD) == PRESENT;
                if counted {
                    l.count(self.table, ti);
                    if self.promisor {
                        l.note_promised(self.table.len(), ti);
                    }
                } else if self.edgeless && from == Kind::Tree && tkind == Kind::Blob {
                    l.note_promised(self.table.len(), ti);
                } else {
                    l.edges.push(e);
                }
                (false, Some((e, counted)))
            }
            Ok(None) if self.edgeless && from == Kind::Tree && tkind == Kind::Blob => {
                l.missing.promise(tid, tkind);
                (
                    false,
                    Some((table::edge(Some(table::PROMISED), tkind), false)),
                )
            }
            Ok(None) => {
                let n = l.missing.number(tid, tkind);
                l.edges
                    .push(table::edge(Some(table::MISSING_BASE + n), tkind));
                (false, None)
            }
            Err(c) => {
                l.conflicts += 1;
                l.error(&format!(
                    "object {} is a {}, not a {}",
                    hex(&tid[..self.format.raw_len()]),
                    c.is.name(),
                    tkind.name()
                ));
                l.edges.push(table::edge(None, tkind));
                (true, None)
            }
        }
    }

    /// The links of a well-formed tree `d` (its entries in `l.scratch`, and the runs its
    /// check found copied from `base` in `l.runs`), into `l.tree_links` when all resolve. A run
    /// takes the base's links. An entry whose type and id are those of an entry of `base` (the
    /// tree this one is a delta of) takes that entry's link: the target already has its type
    /// and `USED`, so only a counted link is counted again. The base's entries are walked
    /// alongside, in step while they agree and by name where entries were added, removed or
    /// changed.
    fn tree_links(&self, l: &mut Local, d: &[u8], base: Option<Base<'_>>, want: bool) -> bool {
        let raw = self.format.raw_len();
        let entries = std::mem::take(&mut l.scratch);
        let runs = std::mem::take(&mut l.runs);
        let mut links = std::mem::take(&mut l.tree_links);
        links.clear();
        let mut all = true;
        let mut broken = false;
        let mut next = 0usize;
        let mut run_at = 0usize;
        let reuse = |l: &mut Local, b: &TreeLink| {
            if table::edge_target(b.edge) == Some(table::PROMISED) {
                // A blob that is not stored, already noted for the promisor set by the check of
                // the tree this link comes from.
            } else if b.counted {
                if let Some(t) = table::edge_target(b.edge) {
                    l.count(self.table, t);
                    if self.promisor {
                        l.note_promised(self.table.len(), t);
                    }
                }
            } else if let Some(t) = table::edge_target(b.edge)
                && self.edgeless
                && table::edge_kind(b.edge) == Kind::Blob
            {
                l.note_promised(self.table.len(), t);
            } else {
                l.edges.push(b.edge);
            }
        };
        for k in 0..=entries.len() {
            while let Some(r) = runs.get(run_at).filter(|r| r.at as usize == k) {
                run_at += 1;
                let Some(bl) = base.map(|b| b.links) else {
                    all = false;
                    continue;
                };
                let Some(span) = bl.get(r.first as usize..=r.last as usize) else {
                    all = false;
                    continue;
                };
                let shift = i64::from(r.to) - checks::BaseEntry::span(&span[0], raw).0 as i64;
                for b in span {
                    reuse(l, b);
                }
                if want {
                    links.extend(span.iter().map(|b| TreeLink {
                        name: (i64::from(b.name) + shift) as u32,
                        off: (i64::from(b.off) + shift) as u32,
                        after_candidate: false,
                        ..*b
                    }));
                }
                next = r.last as usize + 1;
            }
            let Some(e) = entries.get(k) else { break };
            let at = e.id as usize;
            let Some(tid) = d.get(at..at + raw) else {
                continue;
            };
            let mut reused = None;
            if let Some(Base {
                data: bd,
                links: bl,
                ..
            }) = base
            {
                let same = |b: &TreeLink| {
                    table::edge_kind(b.edge) == e.kind
                        && bd
                            .get(b.off as usize..b.off as usize + raw)
                            .is_some_and(|bid| same_id(bid, tid))
                };
                if let Some(b) = bl.get(next).filter(|b| same(b)) {
                    reused = Some(*b);
                    next += 1;
                } else {
                    // Out of step: skip the base's entries named before this one.
                    let name = d
                        .get(e.name as usize..at.saturating_sub(1))
                        .unwrap_or_default();
                    let name_of = |b: &TreeLink| {
                        bd.get(b.name as usize..(b.off as usize).saturating_sub(1))
                            .unwrap_or_default()
                    };
                    while bl.get(next).is_some_and(|b| name_of(b) < name) {
                        next += 1;
                    }
                    match bl.get(next) {
                        Some(b) if same(b) => {
                            reused = Some(*b);
                            next += 1;
                        }
                        // The same name with another id: the entry changed.
                        Some(b) if name_of(b) == name => next += 1,
                        _ => {}
                    }
                }
            }
            let made = match reused {
                Some(b) => {
                    reuse(l, &b);
                    Some((b.edge, b.counted))
                }
                None => {
                    let (b, made) = self.link(l, Kind::Tree, &table::oid(tid), e.kind);
                    broken |= b;
                    made
                }
            };
            match made {
                Some(_) if !want => {}
                Some((edge, counted)) => links.push(TreeLink {
                    name: e.name,
                    off: e.id,
                    edge,
                    counted,
                    plain: e.plain,
                    after_candidate: e.after_candidate,
                }),
                None => all = false,
            }
        }
        if !all {
            links.clear();
        }
        l.scratch = entries;
        l.runs = runs;
        l.tree_links = links;
        broken
    }

    /// git's `fsck_obj_buffer` and `fsck_obj` for object `id` of `kind`, read and hashed
    /// correctly from `source`: `data` is `None` for a blob that was streamed. An object read
    /// through a pack's delta tree reuses what it has in common with the object it is a delta of
    /// (its content and, for a tree, [`Local::tree_links`] as its check left them); after a tree,
    /// `l.tree_links` holds its own. Returns whether git's callback reports an error.
    pub fn object_checked(
        &self,
        l: &mut Local,
        id: &Oid,
        kind: Kind,
        data: Option<&[u8]>,
        source: Source<'_>,
    ) -> bool {
        let (loose, at, blobs_now, packed) = match source {
            Source::Loose(loose) => (loose, 0, true, None),
            Source::Pack { at, packed } => (None, at, false, packed),
        };
        l.tree_links.clear();
        l.tree_clean = false;
        let base = packed.and_then(|p| p.base);
        let format = self.format;
        // Written out only for a line that names the object.
        let h = LazyHex(&id[..format.raw_len()]);
        // A tree is checked first, in the pass that collects the links of a well-formed one (nearly
        // all), which are then walked without building `Links`. git checks a tree after its walk:
        // what the check finds (its lines, the special blobs it names) is held until then.
        let mut tree_check: Option<(bool, Vec<checks::Finding>, SpecialBlobs)> = None;
        let simple_tree = match data {
            Some(d) if kind == Kind::Tree => {
                let mut special = SpecialBlobs::default();
                let mut findings = Vec::new();
                let delta = base
                    .filter(|b| b.clean && !b.links.is_empty() && !b.copies.is_empty())
                    .map(|b| checks::DeltaOf {
                        entries: b.links,
                        copies: b.copies,
                    });
                let checked = checks::check_delta_tree_links(
                    &id[..format.raw_len()],
                    d,
                    format,
                    self.checks,
                    &mut special,
                    &mut findings,
                    &mut l.scratch,
                    &mut l.runs,
                    delta,
                );
                l.tree_clean = checked.clean;
                tree_check = Some((checked.failed, findings, special));
                checked.simple.then_some(d)
            }
            _ => None,
        };
        let mut links = match data {
            Some(d) if kind != Kind::Blob && simple_tree.is_none() => {
                walk::links(kind, id, d, format)
            }
            _ => walk::Links::default(),
        };
        if kind == Kind::Commit {
            // A shallow or grafted commit's own parents are not followed.
            crate::fsck::grafts::apply(&mut links, self.grafts.of(id, self.shallow), format);
        }
        let unparsed = |l: &mut Local| {
            let (line, path) = match loose {
                Some(p) => (
                    format!("{h}: object could not be parsed: {}", p.display()),
                    Some(p.display().to_string()),
                ),
                None => (format!("{h}: object corrupt or missing"), None),
            };
            let mut f = Finding::error(&line)
                .about(&h.to_string(), Some(kind))
                .with_bit(bits::OBJECT);
            f.path = path;
            l.lines.push(f);
            l.bits |= bits::OBJECT;
        };
        let Some(i) = packed.map(|p| p.index).or_else(|| self.table.get(id)) else {
            // Every stored object is in the table before the scan.
            unparsed(l);
            return true;
        };
        if let Err(c) = self.table.set_kind(i, kind) {
            l.conflicts += 1;
            l.error(&format!(
                "object {h} is a {}, not a {}",
                c.is.name(),
                kind.name()
            ));
            unparsed(l);
            return true;
        }
        // git's parser looks up what a commit or tag names (an id the table does not have yet is
        // created when the results are folded in: one named twice in this object as two types
        // is a conflict here, as git's lookup would make it).
        let mut absent: Vec<(Oid, Kind)> = Vec::new();
        let recent = &mut l.recent;
        let parsed = links.parse_lookups(kind, &id[..format.raw_len()], |tid, tk| {
            let tid = table::oid(tid);
            match self.table.lookup_known(&tid, tk, recent) {
                Ok(Some(_)) => Ok(()),
                Ok(None) => match absent.iter().find(|(a, _)| *a == tid) {
                    Some(&(_, is)) if is != tk => Err(is),
                    Some(_) => Ok(()),
                    None => {
                        absent.push((tid, tk));
                        Ok(())
                    }
                },
                Err(c) => Err(c.is),
            }
        });
        if let Err(lines) = parsed {
            l.conflicts += 1;
            for m in &lines {
                l.error(m);
            }
            unparsed(l);
            return true;
        }
        for e in &links.errors {
            l.error(e);
        }
        if links.parse_failed {
            unparsed(l);
            return true;
        }
        // git clears SEEN just before it tests it: an object stored twice is checked twice.
        // (A tree's links to stored blobs are counted once: the walk uncounts each tree it did
        // not reach once.)
        let again = self.table.or_flags(i, HAS_OBJ | SEEN) & HAS_OBJ != 0;
        l.counting = !again;
        if self.opts.verbose {
            l.err(&format!("Checking {} {h}", kind.name()));
        }
        // The walk with `mark_used`: every target becomes known with the type the link names.
        // A tree's links to stored blobs are only counted (see `connect`); the others are kept
        // for the connectivity walk.
        let start = l.edges.len();
        let mut broken = links.walk_failed;
        let started = self.opts.timing.then(std::time::Instant::now);
        if let Some(d) = simple_tree {
            broken |= self.tree_links(l, d, base, packed.is_some_and(|p| p.keep_links));
        }
        for t in &links.targets {
            broken |= self.link(l, kind, &table::oid(&t.id), t.kind).0;
        }
        l.counting = true;
        if let Some(s) = started {
            l.times.links += s.elapsed();
        }
        l.own_links(i, start, kind == Kind::Tree);
        if broken {
            l.lines.push(
                Finding::line(
                    Stream::Err,
                    format!("error in {} {h}: broken links", kind.name()),
                )
                .about(&h.to_string(), Some(kind))
                .with_bit(bits::OBJECT),
            );
            l.bits |= bits::OBJECT;
            l.broken_walk = true;
        }
        if kind == Kind::Blob && !blobs_now {
            // Special blobs are checked when the pack's order is replayed.
            return false;
        }
        let before = l.special.counts();
        let raw = &id[..format.raw_len()];
        let mut findings = Vec::new();
        let failed = match (tree_check, data) {
            (Some((failed, found, special)), _) => {
                let (modules, attributes) = special.found_since((0, 0));
                for b in modules {
                    l.special.add_gitmodules(b);
                }
                for b in attributes {
                    l.special.add_gitattributes(b);
                }
                findings = found;
                failed
            }
            (None, Some(d)) => checks::check_object(
                kind,
                raw,
                d,
                format,
                self.checks,
                &mut l.special,
                &mut findings,
            ),
            (None, None) => {
                checks::check_unloaded_blob(raw, self.checks, &mut l.special, &mut findings)
            }
        };
        if !blobs_now && kind == Kind::Tree && l.special.counts() != before {
            let (modules, attributes) = l.special.found_since(before);
            let events: Vec<_> = modules
                .iter()
                .map(|b| (at, b.clone(), true))
                .chain(attributes.iter().map(|b| (at, b.clone(), false)))
                .collect();
            l.special_events.extend(events);
        }
        if !findings.is_empty() {
            let hex = h.to_string();
            for finding in findings {
                l.lines.push(Finding::check(&finding, kind, &hex));
            }
        }
        if failed {
            return true;
        }
        if kind == Kind::Commit && self.opts.root && walk::parents(&links) == 0 {
            let hex = h.to_string();
            let line = format!("root {hex}");
            l.lines
                .push(Finding::report(What::Root, kind.name(), &hex, line));
        }
        if kind == Kind::Tag
            && self.opts.tags
            && let Some(t) = links.targets.first()
        {
            let target = hex(&t.id);
            let line = format!(
                "tagged {} {target} ({}) in {h}",
                t.kind.name(),
                String::from_utf8_lossy(links.tag_name.as_deref().unwrap_or(b"")),
            );
            l.lines
                .push(Finding::report(What::Tagged, t.kind.name(), &target, line));
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker's byte-sized counts spill at 255 (noted for when it is applied): nothing is lost.
    #[test]
    fn counts_spill_to_the_table() {
        let mut t = Table::default();
        let i = t.unknown(&table::oid(&[7; 20]));
        let mut l = Local {
            counts: Some(Vec::new()),
            ..Local::default()
        };
        for _ in 0..600 {
            l.count(&t, i);
        }
        let kept = l.counts.as_ref().map_or(0, |c| u32::from(c[i as usize]));
        // Noted, not written: the table has none until the Local is applied.
        assert_eq!(t.obj(i).refs, 0);
        assert_eq!(l.spilled.len() as u32 * 255 + kept, 600);
        for s in std::mem::take(&mut l.spilled) {
            t.add_refs(s, 255);
        }
        assert_eq!(t.obj(i).refs, 2 * 255);
        // Without counts of its own, a Local counts in the table.
        let mut shared = Local::default();
        shared.count(&t, i);
        assert_eq!(t.obj(i).refs, 2 * 255 + 1);
    }
}

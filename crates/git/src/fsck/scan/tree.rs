//! The delta tree of a pack resolved on the pool: from each root depth-first, so that each base
//! and each delta is inflated once and a base is kept only while its children are applied; large
//! subtrees are handed to idle threads ([`Split`]).

use crate::Providers;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};

use crate::{delta, idx, pack};
use flagsplit_zlib::Inflater;

use crate::Kind;
use crate::fsck::hex;
use crate::fsck::table::oid;
use crate::progress::Shared;

use super::check::{Base, Core, Local, Packed, Source, TreeLink, timed};
use super::entries::{Children, Ent, Rare};
use super::packs::Slots;
use super::store::Budgeted;
use super::{MAX_OBJECT, bad_base, inflate_exact, zlib_line};

/// What the workers resolving one pack share.
pub(super) struct PackCtx<'a> {
    /// Its place in the run's packs.
    pub(super) pack_nr: usize,
    pub(super) bytes: &'a [u8],
    pub(super) sig_ofs: usize,
    pub(super) name: &'a str,
    pub(super) index: &'a idx::Index<'a>,
    pub(super) ents: &'a [Ent],
    /// Each object's place in the table, by its position in the index.
    pub(super) table_index: &'a Slots,
    pub(super) rare: &'a Rare,
    pub(super) children: &'a Children,
    /// Which entries were reached, a bit each (the others are in a REF_DELTA cycle).
    pub(super) done: &'a [AtomicU64],
    pub(super) counter: &'a AtomicU64,
    /// `Checking objects`, and the objects of the packs checked before this one.
    pub(super) meter: &'a Shared,
    pub(super) base_count: u64,
    pub(super) hash: crate::fsck::HashFn,
    pub(super) big: u64,
    /// Whether stages are timed.
    pub(super) timing: bool,
}

impl PackCtx<'_> {
    /// The size entry `e`'s header declares.
    pub(super) fn size(&self, e: &Ent) -> u64 {
        let raw = self.bytes.len() - self.sig_ofs;
        pack::entry(&self.bytes[..self.sig_ofs], e.off(), raw).map_or(u64::MAX, |h| h.size)
    }
}

/// One worker's state: what it produced, its inflater and buffers.
pub(super) struct Worker<Z: Inflater> {
    pub(super) l: Local,
    pub(super) z: Option<Z>,
    pub(super) delta: Vec<u8>,
    /// `--low-memory`: where the lines of bases made again go (their own turn prints them).
    pub(super) quiet: Local,
    /// `--low-memory`: the bases this thread made.
    pub(super) cache: NodeCache,
}

impl<Z: Inflater> Worker<Z> {
    pub(super) fn new() -> Worker<Z> {
        Worker {
            l: Local::default(),
            z: Z::new().ok(),
            delta: Vec::new(),
            quiet: Local::default(),
            cache: NodeCache::new(),
        }
    }
}

/// Roots given to one job at a time; a job's worker resolves their trees one after another.
pub(super) const ROOTS_PER_JOB: usize = 64;

/// A subtree at least this large (entries) may be handed to another thread.
const SPLIT_AT: u32 = 32;

thread_local! {
    /// The worker of this thread of the pool, reused by every job the thread runs: a C
    /// inflater's state is not `Send`, so it stays here and only what it produced is taken. It
    /// is a [`Worker`] of the run's inflater type, held as `Any` because a thread-local cannot
    /// be generic.
    pub(super) static WORKER: std::cell::RefCell<Option<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's worker. `f` must not wait for other jobs (a job run meanwhile on
/// this thread would find the worker taken); spawning is fine.
pub(super) fn on_worker<Z: Inflater + 'static, R>(f: impl FnOnce(&mut Worker<Z>) -> R) -> R {
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if !slot.as_ref().is_some_and(|w| w.is::<Worker<Z>>()) {
            *slot = Some(Box::new(Worker::<Z>::new()));
        }
        let Some(w) = slot.as_mut().and_then(|w| w.downcast_mut::<Worker<Z>>()) else {
            unreachable!("the slot was just given a Worker<Z>")
        };
        if w.l.counts.is_none() {
            w.l.counts = Some(Vec::new());
        }
        f(w)
    })
}

/// Runs `f` with this thread's worker of inflater type `Z`, if it has one (what it produced is
/// taken this way after a pack's jobs).
pub(super) fn with_existing_worker<Z: Inflater + 'static, R>(
    f: impl FnOnce(&mut Worker<Z>) -> R,
) -> Option<R> {
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        slot.as_mut()
            .and_then(|w| w.downcast_mut::<Worker<Z>>())
            .map(f)
    })
}

/// How the threads share a pack's delta trees: a thread walking a tree hands a large subtree
/// (its root's base, shared, and the entry) to an idle thread, as long as few hand-offs wait, so
/// memory stays one delta chain per thread plus `limit` bases.
pub(super) struct Split {
    /// Whether at least [`SPLIT_AT`] entries are under an entry (itself included), a bit each.
    pub(super) big: Vec<u64>,
    /// Hand-offs not yet started.
    pub(super) pending: AtomicUsize,
    /// The most hand-offs that may wait.
    pub(super) limit: usize,
}

pub(super) type Spawn<'a, 's> = Option<(&'a rayon::Scope<'s>, &'s Split)>;

/// An object of a delta tree while its children are applied: its content and, for a tree, its
/// links (which a child tree reuses where the two name the same objects).
pub(super) struct Node {
    pub(super) data: Vec<u8>,
    pub(super) links: Vec<TreeLink>,
    /// Whether the tree's check found nothing (its children's copies of it are not checked
    /// again).
    pub(super) clean: bool,
}

impl Node {
    pub(super) fn new(data: Vec<u8>, (links, clean): (Vec<TreeLink>, bool)) -> Arc<Node> {
        Arc::new(Node { data, links, clean })
    }

    /// Whether a delta of it records its copies (for its check to skip them).
    pub(super) fn wants_copies(&self) -> bool {
        self.clean && !self.links.is_empty()
    }
}

/// A node on a thread's way down a delta tree: the entry, its node (`Err`: it could not be
/// read), its type (the root's, or the type of the object read in its place) and the next child
/// to apply.
struct Frame {
    pub(super) e: usize,
    pub(super) node: Result<Arc<Node>, ()>,
    pub(super) kind: Option<Kind>,
    pub(super) next: usize,
}

/// Which entries have at least [`SPLIT_AT`] entries under them (themselves included), a bit
/// each, for [`Split`].
pub(super) fn big_subtrees(ents: &[Ent], children: &Children, roots: &[u32]) -> Vec<u64> {
    let mut sizes = vec![1u32; ents.len()];
    let mut order: Vec<u32> = Vec::with_capacity(ents.len());
    let mut stack: Vec<u32> = Vec::new();
    for &r in roots {
        stack.push(r);
        while let Some(e) = stack.pop() {
            order.push(e);
            stack.extend_from_slice(children.of(e as usize));
        }
    }
    for &e in order.iter().rev() {
        if let Some(b) = ents[e as usize].base() {
            sizes[b] = sizes[b].saturating_add(sizes[e as usize]);
        }
    }
    drop(order);
    let mut big = vec![0u64; ents.len().div_ceil(64)];
    for (e, _) in sizes.iter().enumerate().filter(|&(_, &n)| n >= SPLIT_AT) {
        big[e / 64] |= 1 << (e % 64);
    }
    big
}

/// Resolves the delta tree under `root`.
pub(super) fn resolve<'s, P: Providers>(
    core: &'s Core<'s, P>,
    p: &'s PackCtx<'s>,
    w: &mut Worker<P::Inflater>,
    root: usize,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = l.inflater(z) else {
        return;
    };
    let ents = p.ents;
    let children = p.children;
    let mut kind = ents[root].kind();
    if kind == Some(Kind::Blob)
        && p.size(&ents[root]) >= p.big
        && children.of(root).is_empty()
        && !p.rare.header_err.contains_key(&root)
    {
        stream_root(core, p, l, z, root, &ents[root]);
        return;
    }
    let data = match p.rare.phantom.get(&root).copied() {
        Some(base_off) => match phantom_base(core, p, l, z, base_off) {
            Some((k, base)) => {
                kind = Some(k);
                let base = Node {
                    data: base,
                    links: Vec::new(),
                    clean: false,
                };
                apply_child(p, l, z, &ents[root], &base, delta)
            }
            None => {
                // git cannot name the base: no entry starts there.
                l.error("bad offset for revindex");
                Err(())
            }
        },
        None => unpack_root(p, l, z, root, &ents[root]),
    };
    let keep = !children.of(root).is_empty();
    let links = visit(core, p, l, (root, &ents[root]), kind, &data, None, keep);
    let node = data.map(|data| Node::new(data, links));
    descend(core, p, w, root, node, kind, spawn);
}

/// Resolves a subtree handed over by another thread: entry `c`, a delta of `base`.
fn resolve_handed<'s, P: Providers>(
    core: &'s Core<'s, P>,
    p: &'s PackCtx<'s>,
    w: &mut Worker<P::Inflater>,
    base: &Node,
    c: usize,
    kind: Option<Kind>,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = l.inflater(z) else {
        return;
    };
    let data = apply_child(p, l, z, &p.ents[c], base, delta);
    let keep = !p.children.of(c).is_empty();
    let links = visit(core, p, l, (c, &p.ents[c]), kind, &data, Some(base), keep);
    let node = data.map(|data| Node::new(data, links));
    descend(core, p, w, c, node, kind, spawn);
}

/// Applies the deltas under entry `top` (already visited, its content `data`), depth-first with
/// an explicit stack: a base is kept only while its children are applied. With `spawn`, a large
/// subtree goes to another thread when few hand-offs wait.
#[allow(clippy::too_many_arguments)]
fn descend<'s, P: Providers>(
    core: &'s Core<'s, P>,
    p: &'s PackCtx<'s>,
    w: &mut Worker<P::Inflater>,
    top: usize,
    node: Result<Arc<Node>, ()>,
    kind: Option<Kind>,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = z.as_mut() else {
        return;
    };
    let ents = p.ents;
    let children = p.children;
    if children.of(top).is_empty() {
        return;
    }
    let mut stack = vec![Frame {
        e: top,
        node,
        kind,
        next: 0,
    }];
    while let Some(frame) = stack.last_mut() {
        let e = frame.e;
        if frame.next >= children.of(e).len() {
            stack.pop();
            continue;
        }
        let c = children.of(e)[frame.next] as usize;
        frame.next += 1;
        if frame.node.is_err() && frame.next == 1 {
            // git's `unpack_entry`: a base its pack cannot give is marked bad there and read by
            // its id from the rest of the store (another pack, a loose copy).
            let id = p.index.id(ents[e].n);
            let off = ents[e].off();
            l.pack_error(
                &format!(
                    "failed to read delta base object {} at offset {off} from {}",
                    hex(id),
                    p.name
                ),
                p.name,
                Some(off),
                Some(id),
            );
            let mut detours = Detours::default();
            if let Some((k, data)) = recover(core, p, &ents[e], &mut detours) {
                frame.node = Ok(Node::new(data, (Vec::new(), false)));
                frame.kind = Some(k);
            }
            for line in detours.lines {
                match line.strip_prefix(FATAL_MARK) {
                    Some(m) => l.fatal = l.fatal.take().or(Some(m.to_string())),
                    None => l.error(&line),
                }
            }
        }
        let kind = frame.kind;
        if let (Some((scope, split)), Ok(base)) = (spawn, &frame.node)
            && split.big[c / 64] & (1 << (c % 64)) != 0
            && split.pending.load(Relaxed) < split.limit
        {
            split.pending.fetch_add(1, Relaxed);
            let base = Arc::clone(base);
            scope.spawn(move |s| {
                split.pending.fetch_sub(1, Relaxed);
                on_worker(|w| resolve_handed(core, p, w, &base, c, kind, Some((s, split))));
            });
            continue;
        }
        // The last child takes its base from the stack: the base is freed as soon as the child
        // is made, so that a long chain holds one object at a time, not all of its links.
        let node = if frame.next == children.of(e).len() {
            stack.pop().map_or(Err(()), |f| f.node)
        } else {
            frame.node.clone()
        };
        let (cdata, links) = match &node {
            Ok(base) => {
                let cdata = apply_child(p, l, z, &ents[c], base, delta);
                let keep = !children.of(c).is_empty();
                let links = visit(core, p, l, (c, &ents[c]), kind, &cdata, Some(base), keep);
                (cdata, links)
            }
            Err(()) => {
                let cdata = Err(());
                let links = visit(core, p, l, (c, &ents[c]), kind, &cdata, None, false);
                (cdata, links)
            }
        };
        if !children.of(c).is_empty() {
            stack.push(Frame {
                e: c,
                node: cdata.map(|data| Node::new(data, links)),
                kind,
                next: 0,
            });
        }
    }
}

/// Marks entry `e` reached, for the cycle check and the progress count (the meter is updated
/// where git's is, at every 1024th object, with the count before this one; on several threads
/// each sampled count is shown in order, see `Shared::display_sampled`).
pub(super) fn reached(p: &PackCtx<'_>, e: usize) {
    if let Some(d) = p.done.get(e / 64) {
        d.fetch_or(1 << (e % 64), Relaxed);
    }
    let n = p.base_count + p.counter.fetch_add(1, Relaxed);
    if n & 1023 == 0 {
        p.meter.display_sampled(n, 1024);
    }
}

/// A blob at least `core.bigFileThreshold` large that no delta uses: hashed as it is inflated,
/// as git streams it (to the end of its zlib stream, whatever its header says), and checked
/// without its content.
pub(super) fn stream_root<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut impl Inflater,
    e: usize,
    ent: &Ent,
) {
    reached(p, e);
    let id_raw = p.index.id(ent.n);
    let id = oid(id_raw);
    let input = p.bytes.get(ent.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let size = p.size(ent);
    let mut h =
        crate::object_id::ObjectHasher::<P::Hasher>::new(core.format, Kind::Blob, size, true);
    let mut buf = vec![0u8; 1 << 20];
    let mut used = 0;
    let mut total = 0u64;
    z.reset();
    let ok = loop {
        match z.inflate(&input[used..], &mut buf) {
            Ok(step) => {
                used += step.consumed;
                total += step.written as u64;
                h.update(&buf[..step.written]);
                if step.end {
                    break total == size;
                }
                if step.consumed == 0 && step.written == 0 {
                    break false;
                }
            }
            Err(_) => {
                if let Some(m) = zlib_line(input, usize::MAX) {
                    l.error(&m);
                }
                break false;
            }
        }
    };
    let corrupt = format!("packed {} from {} is corrupt", hex(id_raw), p.name);
    let corrupt = |l: &mut Local| l.pack_error(&corrupt, p.name, Some(ent.off()), Some(id_raw));
    if !ok {
        corrupt(l);
        l.err = true;
        return;
    }
    match h.finalize() {
        Ok(real) if real.padded() == id => {
            if core.object_checked(
                l,
                &id,
                Kind::Blob,
                None,
                Source::Pack {
                    at: ent.off(),
                    packed: None,
                },
            ) {
                l.err = true;
            }
        }
        Ok(_) => {
            corrupt(l);
            l.err = true;
        }
        Err(c) => {
            l.error(&c.to_string());
            corrupt(l);
            l.err = true;
        }
    }
}

/// What git's `unpack_entry` makes of bytes at `off` that no index entry starts at (the base
/// of a damaged OFS_DELTA): an object when they happen to hold one, else git's lines.
pub(super) fn phantom_base<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut impl Inflater,
    off: u64,
) -> Option<(Kind, Vec<u8>)> {
    let raw = core.format.raw_len();
    match pack::entry(&p.bytes[..p.sig_ofs], off, raw) {
        Ok(e) => match e.kind {
            pack::EntryKind::Object(k) => {
                let input = p.bytes.get(e.data as usize..p.sig_ofs).unwrap_or(&[]);
                let mut out = Vec::new();
                match inflate_exact(z, input, e.size, &mut out) {
                    Ok(_) => Some((k, out)),
                    Err(line) => {
                        if let Some(m) = line {
                            l.error(&m);
                        }
                        None
                    }
                }
            }
            // A REF_DELTA whose base is not in the pack: git's `get_delta_base` fails (its
            // position then is past the base's id).
            pack::EntryKind::RefDelta(id) if p.index.lookup(id).is_none() => {
                l.error(&bad_base(e.data, p.name));
                None
            }
            _ => None,
        },
        Err(err) => {
            for line in err.git_lines(off, p.name) {
                l.pack_error(&line, p.name, Some(off), None);
            }
            None
        }
    }
}

pub(super) fn unpack_root(
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut impl Inflater,
    i: usize,
    e: &Ent,
) -> Result<Vec<u8>, ()> {
    if let Some(lines) = p.rare.header_err.get(&i) {
        for m in lines {
            l.pack_error(m, p.name, Some(e.off()), None);
        }
        return Err(());
    }
    let input = p.bytes.get(e.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let mut out = Vec::new();
    let inflated = timed(p.timing, &mut l.times.inflate, || {
        inflate_exact(z, input, p.size(e), &mut out)
    });
    match inflated {
        Ok(_) => Ok(out),
        Err(line) => {
            if let Some(m) = line {
                l.error(&m);
            }
            if p.size(e) > MAX_OBJECT {
                l.error(&format!(
                    "the entry at offset {} in {} claims {} bytes, more than the {} bytes fsck holds in memory",
                    e.off(), p.name, p.size(e), MAX_OBJECT
                ));
            }
            Err(())
        }
    }
}

/// Applies entry `e`, a delta of `base`; of a tree whose check will skip what it copied from a
/// clean base, the copies are recorded in `l.copies` (else that is emptied).
pub(super) fn apply_child(
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut impl Inflater,
    e: &Ent,
    base_node: &Node,
    delta_buf: &mut Vec<u8>,
) -> Result<Vec<u8>, ()> {
    let base = base_node.data.as_slice();
    l.copies.clear();
    let input = p.bytes.get(e.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let inflated = timed(p.timing, &mut l.times.inflate, || {
        inflate_exact(z, input, p.size(e), delta_buf)
    });
    if let Err(line) = inflated {
        if let Some(m) = line {
            l.error(&m);
        }
        l.pack_error(
            &format!(
                "failed to unpack compressed delta at offset {} from {}",
                e.data(),
                p.name
            ),
            p.name,
            Some(e.off()),
            None,
        );
        return Err(());
    }
    let mut out = Vec::new();
    let copies = &mut l.copies;
    let applied = timed(p.timing, &mut l.times.delta, || {
        if base_node.wants_copies() {
            delta::apply_with(base, delta_buf, &mut out, MAX_OBJECT, |c| copies.push(c))
        } else {
            delta::apply(base, delta_buf, &mut out, MAX_OBJECT)
        }
    });
    match applied {
        Ok(()) => Ok(out),
        Err(d) => {
            match d {
                delta::DeltaError::Opcode0 | delta::DeltaError::Wild => l.error(&d.to_string()),
                delta::DeltaError::TooLarge { size, limit } => l.error(&format!(
                    "the delta at offset {} in {} declares a result of {size} bytes, more than the {limit} bytes fsck holds in memory",
                    e.off(), p.name
                )),
                _ => {}
            }
            l.error("failed to apply delta");
            Err(())
        }
    }
}

/// The object at entry `e` is unpacked (or not): hash it, check it, or say why not. A delta's
/// check reuses its base's links; a tree's own links are returned when `keep` (for deltas of
/// it).
#[allow(clippy::too_many_arguments)]
pub(super) fn visit<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    l: &mut Local,
    (e, ent): (usize, &Ent),
    kind: Option<Kind>,
    data: &Result<Vec<u8>, ()>,
    base: Option<&Node>,
    keep: bool,
) -> (Vec<TreeLink>, bool) {
    reached(p, e);
    let id_raw = p.index.id(ent.n);
    let id = oid(id_raw);
    let name = p.name;
    let mut links = Vec::new();
    let mut clean = false;
    match (data, kind) {
        (Ok(d), Some(k)) => {
            match timed(p.timing, &mut l.times.hash, || (p.hash)(core.format, k, d)) {
                Ok(real) if real == id => {
                    let stream = k == Kind::Blob && d.len() as u64 >= p.big;
                    let content = if stream { None } else { Some(d.as_slice()) };
                    let start = p.timing.then(std::time::Instant::now);
                    let packed = p.table_index.get(ent.n);
                    let copies = std::mem::take(&mut l.copies);
                    let packed = packed.map(|index| Packed {
                        index,
                        keep_links: keep,
                        base: base.map(|b| Base {
                            data: b.data.as_slice(),
                            links: b.links.as_slice(),
                            clean: b.clean,
                            copies: &copies,
                        }),
                    });
                    if core.object_checked(
                        l,
                        &id,
                        k,
                        content,
                        Source::Pack {
                            at: ent.off(),
                            packed,
                        },
                    ) {
                        l.err = true;
                    }
                    clean = l.tree_clean;
                    l.copies = copies;
                    if let Some(s) = start {
                        l.times.checks += s.elapsed();
                    }
                    // Kept only for the children (else the buffer is reused).
                    if k == Kind::Tree && keep {
                        links = std::mem::take(&mut l.tree_links);
                    }
                }
                Ok(_) => {
                    let m = format!("packed {} from {name} is corrupt", hex(id_raw));
                    l.pack_error(&m, name, Some(ent.off()), Some(id_raw));
                    l.err = true;
                }
                Err(collision) => {
                    l.error(&collision);
                    let m = format!("packed {} from {name} is corrupt", hex(id_raw));
                    l.pack_error(&m, name, Some(ent.off()), Some(id_raw));
                    l.err = true;
                }
            }
        }
        _ => {
            l.damaged.push(e as u32);
            l.pack_error(
                &format!(
                    "cannot unpack {} from {name} at offset {}",
                    hex(id_raw),
                    ent.off()
                ),
                name,
                Some(ent.off()),
                Some(id_raw),
            );
            l.err = true;
        }
    }
    (links, clean)
}

/// Bases a thread decoded in `--low-memory`, by entry, up to a byte budget (the oldest dropped
/// first). A pack's entries are a thread's keys only while it checks that pack.
pub(super) struct NodeCache {
    pub(super) pack: usize,
    pub(super) nodes: Budgeted<u32, (Option<Kind>, Arc<Node>)>,
}

impl NodeCache {
    pub(super) fn new() -> NodeCache {
        NodeCache {
            pack: 0,
            nodes: Budgeted::new(0),
        }
    }

    /// Empties it unless it holds pack `pack`'s entries; `limit` bytes from now on.
    pub(super) fn for_pack(&mut self, pack: usize, limit: usize) {
        if self.pack != pack {
            self.nodes.clear();
            self.pack = pack;
        }
        self.nodes.limit = limit;
    }

    pub(super) fn get(&self, e: usize) -> Option<(Option<Kind>, Arc<Node>)> {
        self.nodes.get(e as u32)
    }

    pub(super) fn put(&mut self, e: usize, kind: Option<Kind>, node: &Arc<Node>) {
        let size = node.data.len() + node.links.len() * std::mem::size_of::<TreeLink>();
        self.nodes.put(e as u32, (kind, Arc::clone(node)), size);
    }
}

/// How a base could not be made in `--low-memory`.
pub(super) enum Unmade {
    /// Neither its pack nor the rest of the store could give it.
    Broken,
    /// Its chain of REF_DELTA bases never reaches an object.
    Cycle,
}

/// What making a base ran into on the way, for the entry whose base it is to report: the
/// entries that could not be read as bases (git's `failed to read delta base object`, each then
/// read by its id from the rest of the store), and the lines those reads printed.
#[derive(Default)]
pub(super) struct Detours {
    pub(super) failed: Vec<usize>,
    pub(super) lines: Vec<String>,
}

/// git's `unpack_entry` when the base at entry `e` could not be made from its pack: the object
/// is marked bad in the pack and read by its id from the rest of the store (another pack, or a
/// loose copy), which gives the deltas based on it their base.
pub(super) fn recover<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    e: &Ent,
    detours: &mut Detours,
) -> Option<(Kind, Vec<u8>)> {
    let id = oid(p.index.id(e.n));
    core.store.mark_bad(p.pack_nr, &id);
    let read = core.store.read(&id, &mut detours.lines, None);
    if let Some(m) = read.fatal {
        detours.lines.push(format!("{FATAL_MARK}{m}"));
    }
    read.object
}

/// Marks a line of [`Detours::lines`] as git's death (`fatal:`), not an `error:`.
pub(super) const FATAL_MARK: &str = "\0fatal: ";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kind;

    /// The cache of bases keeps to its budget, drops the oldest first and forgets another pack.
    #[test]
    fn the_cache_of_bases_is_bounded() {
        let mut c = NodeCache::new();
        c.for_pack(1, 4000);
        let node = |n: usize| Node::new(vec![0; n], (Vec::new(), false));
        for e in 0..10 {
            c.put(e, Some(Kind::Blob), &node(900));
        }
        assert!(c.nodes.bytes <= 4000);
        assert!(c.get(0).is_none() && c.get(9).is_some());
        // Larger than a quarter of the budget: not kept.
        c.put(20, Some(Kind::Blob), &node(1001));
        assert!(c.get(20).is_none());
        c.for_pack(2, 4000);
        assert!(c.get(9).is_none() && c.nodes.bytes == 0);
    }
}

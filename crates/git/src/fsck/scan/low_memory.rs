//! A pack checked without its delta tree (`--low-memory`, or a tree too big for the memory):
//! entries in chunks by offset, bases decoded again through a bounded cache.

use crate::Providers;
use crate::fsck::finding::Finding;
use flagsplit_zlib::Inflater;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::{idx, pack};

use crate::Kind;
use crate::fsck::{Fatal, Fsck, hex};
use crate::progress::Shared;

use super::check::{Core, Local};
use super::digest;
use super::entries::{Children, Ent, NO_BASE, Rare, by_offset, describe, link_base};
use super::packs::PackState;
use super::settle::{SpecialEvents, settle, trailer_lines};
use super::tree::{
    Detours, FATAL_MARK, Node, NodeCache, PackCtx, Unmade, Worker, apply_child, on_worker,
    phantom_base, recover, stream_root, unpack_root, visit, with_existing_worker,
};

/// What the delta tree of a pack costs per entry at most (the entry, 16 bytes; its place among
/// its base's children and its base's start, 8; the order and sizes while the subtrees are
/// counted, 8; a few bits; the headers read at a time are bounded apart): an estimate for
/// [`low_memory`]. On a pack of 2,000,000 small blobs the tree measured 15 bytes an entry above
/// the peak without it.
const TREE_BYTES_PER_ENTRY: usize = 40;

/// Whether a pack of `count` entries is checked without its delta tree: `--low-memory`
/// (`Some(None)`), or a tree that would take more than half the memory the kernel says is
/// available (`Some(Some(why))`, said on standard error).
pub(super) fn low_memory<P: Providers>(f: &Fsck<'_, P>, count: usize) -> Option<Option<String>> {
    if f.opts.low_memory {
        return Some(None);
    }
    tree_too_big(count, mem_available()?)
}

/// [`low_memory`]'s rule, for `count` entries and `available` bytes.
fn tree_too_big(count: usize, available: usize) -> Option<Option<String>> {
    let need = count.saturating_mul(TREE_BYTES_PER_ENTRY);
    (need > available / 2).then(|| {
        Some(format!(
            "checked without its delta tree (--low-memory): the tree would take {} MiB of the {} MiB available",
            need >> 20,
            available >> 20
        ))
    })
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The bytes of bases all threads together keep in `--low-memory` (git's default
/// `core.deltaBaseCacheLimit`).
const LOW_MEMORY_CACHE: usize = 32 << 20;

/// Entries given to a job at a time in `--low-memory`, in pack order.
const LOW_MEMORY_CHUNK: usize = 512;

/// Prints what making a base ran into ([`Detours`]): each base that could not be read once
/// (`named`), and the lines of the reads that stood in for them.
fn report_detours(p: &PackCtx<'_>, flat: &Flat<'_>, l: &mut Local, detours: Detours) {
    for f in detours.failed {
        let first = flat.faithful || flat.named.lock().is_ok_and(|mut n| n.insert(f));
        if first {
            let fe = flat.ent(p, f);
            let id = p.index.id(fe.n);
            l.pack_error(
                &format!(
                    "failed to read delta base object {} at offset {} from {}",
                    hex(id),
                    fe.off(),
                    p.name
                ),
                p.name,
                Some(fe.off()),
                Some(id),
            );
        }
    }
    for line in detours.lines {
        match line.strip_prefix(FATAL_MARK) {
            Some(m) => l.fatal = l.fatal.take().or(Some(m.to_string())),
            None => l.error(&line),
        }
    }
}

/// A base made in `--low-memory`: its type (when known) and its node.
type Made = (Option<Kind>, Arc<Node>);

/// Makes entry `b` as a base, in `--low-memory`: from this thread's cache, else by walking its
/// chain down to an object or a cached base and applying the deltas back up (their lines, which
/// their own turn prints, go to `quiet`). A link of the chain that cannot be made is read by its
/// id from the rest of the store, as git does ([`recover`], noted in `detours`).
#[allow(clippy::too_many_arguments)]
fn make_base<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    flat: &Flat<'_>,
    quiet: &mut Local,
    z: &mut impl Inflater,
    delta: &mut Vec<u8>,
    cache: &mut NodeCache,
    b: usize,
    detours: &mut Detours,
) -> Result<Made, Unmade> {
    let mut chain: Vec<(usize, Ent)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cur = b;
    // The innermost link: a cached base, a phantom's, or an object.
    let (mut at, mut made): (usize, Result<Made, ()>) = loop {
        if let Some(hit) = cache.get(cur) {
            break (cur, Ok(hit));
        }
        // An OFS_DELTA's base comes before it: only REF_DELTA bases can make a cycle.
        if !seen.insert(cur) {
            return Err(Unmade::Cycle);
        }
        let ent = flat.ent(p, cur);
        if let Some(&base_off) = p.rare.phantom.get(&cur) {
            let made = phantom_base(core, p, quiet, z, base_off).and_then(|(k, data)| {
                let base = Node {
                    data,
                    links: Vec::new(),
                    clean: false,
                };
                let d = apply_child(p, quiet, z, &ent, &base, delta).ok()?;
                Some((Some(k), Node::new(d, (Vec::new(), false))))
            });
            match &made {
                Some(m) => cache.put(cur, m.0, &m.1),
                // git cannot name what is at that offset.
                None => quiet.error("bad offset for revindex"),
            }
            break (cur, made.ok_or(()));
        }
        if ent.is_delta()
            && let Some(next) = ent.base()
        {
            chain.push((cur, ent));
            cur = next;
            continue;
        }
        let made = unpack_root(p, quiet, z, cur, &ent).map(|data| {
            let m = (ent.kind(), Node::new(data, (Vec::new(), false)));
            cache.put(cur, m.0, &m.1);
            m
        });
        break (cur, made);
    };
    // Up the chain: a link that could not be made is read from the rest of the store.
    let stand_in = |at: usize, detours: &mut Detours| {
        detours.failed.push(at);
        let ent = flat.ent(p, at);
        recover(core, p, &ent, detours)
            .map(|(k, data)| (Some(k), Node::new(data, (Vec::new(), false))))
            .ok_or(())
    };
    while let Some((e, ent)) = chain.pop() {
        if made.is_err() {
            made = stand_in(at, detours);
        }
        made = match made {
            Ok((kind, node)) => apply_child(p, quiet, z, &ent, &node, delta).map(|data| {
                let node = Node::new(data, (Vec::new(), false));
                cache.put(e, kind, &node);
                (kind, node)
            }),
            Err(()) => Err(()),
        };
        at = e;
    }
    if made.is_err() {
        made = stand_in(at, detours);
    }
    made.map_err(|()| Unmade::Broken)
}

/// What `--low-memory` knows of a pack: its entries' offsets and index positions in pack
/// order, which entries are bases, and what is rare.
struct Flat<'a> {
    pub(super) offs: &'a [u64],
    pub(super) ns: &'a [u32],
    pub(super) is_base: &'a [u64],
    pub(super) index: &'a idx::Index<'a>,
    pub(super) raw: usize,
    /// The bases already named as unreadable (each once, as the tree names them).
    pub(super) named: &'a std::sync::Mutex<std::collections::HashSet<usize>>,
    /// git's counts: a base's lines, and the base it could not read, printed again from each
    /// delta whose chain reaches it, and an entry kept as a base when it is checked itself only
    /// when that changes no count (git's `unpack_entry` caches a base only when it applies a
    /// delta to it, and never one read from elsewhere). For the one-thread check in git's
    /// order.
    pub(super) faithful: bool,
}

impl Flat<'_> {
    pub(super) fn is_base(&self, e: usize) -> bool {
        self.is_base[e / 64] & (1 << (e % 64)) != 0
    }

    /// Entry `e`, its header read again, and its base found.
    pub(super) fn ent(&self, p: &PackCtx<'_>, e: usize) -> Ent {
        let off = self.offs[e];
        let head = pack::entry(&p.bytes[..p.sig_ofs], off, self.raw);
        let (mut ent, base) = describe(e, off, self.ns[e], &head, self.index, p.name, None);
        if let Some((target, _)) = base {
            ent.base = self
                .offs
                .binary_search(&target)
                .map_or(NO_BASE, |b| b as u32);
        }
        ent
    }
}

/// Checks entry `e` in `--low-memory`: as the tree would, with its base made by
/// [`make_base`].
fn check_flat<P: Providers>(
    core: &Core<'_, P>,
    p: &PackCtx<'_>,
    flat: &Flat<'_>,
    w: &mut Worker<P::Inflater>,
    e: usize,
) {
    let Worker {
        l,
        z,
        delta,
        quiet,
        cache,
    } = w;
    let Some(z) = l.inflater(z) else {
        return;
    };
    let ent = flat.ent(p, e);
    // git's check reads each entry's header before it unpacks the entry, and says so once more
    // when the header cannot be read.
    if flat.faithful
        && let Err(bad @ pack::EntryError::BadHeader) =
            pack::entry(&p.bytes[..p.sig_ofs], flat.offs[e], flat.raw)
    {
        l.pack_error(&bad.git_line(p.name), p.name, Some(ent.off()), None);
    }
    let keep = flat.is_base(e);
    let mut kind = ent.kind();
    let mut base_node = None;
    // Whether the entry was made without a base that its pack could not give: then keeping it
    // as a base changes no count (git drills down to its base, which git's cache holds, and
    // prints nothing on the way); one made from a base read elsewhere is not kept, since git
    // does not cache such a base and prints its lines again from each delta.
    let mut clean = true;
    let data = if let Some(&base_off) = p.rare.phantom.get(&e) {
        clean = false;
        match phantom_base(core, p, l, z, base_off) {
            Some((k, data)) => {
                kind = Some(k);
                let base = Node {
                    data,
                    links: Vec::new(),
                    clean: false,
                };
                apply_child(p, l, z, &ent, &base, delta)
            }
            None => {
                l.error("bad offset for revindex");
                Err(())
            }
        }
    } else if ent.is_delta()
        && let Some(b) = ent.base()
    {
        quiet.lines.clear();
        let mut detours = Detours::default();
        let made = make_base(core, p, flat, quiet, z, delta, cache, b, &mut detours);
        clean = detours.failed.is_empty() && quiet.lines.is_empty();
        if flat.faithful {
            l.lines.append(&mut quiet.lines);
        }
        report_detours(p, flat, l, detours);
        match made {
            Ok((k, node)) => {
                kind = k;
                let data = apply_child(p, l, z, &ent, &node, delta);
                base_node = Some(node);
                data
            }
            Err(Unmade::Broken) => {
                // git cannot read the base, so not the type either.
                kind = None;
                Err(())
            }
            Err(Unmade::Cycle) => {
                let raw = p.index.id(ent.n);
                let id = hex(raw);
                l.pack_error(
                    &format!(
                        "delta base cycle: the delta at offset {} in {} never reaches a base object",
                        ent.off(),
                        p.name
                    ),
                    p.name,
                    Some(ent.off()),
                    Some(raw),
                );
                l.pack_error(
                    &format!("cannot unpack {id} from {} at offset {}", p.name, ent.off()),
                    p.name,
                    Some(ent.off()),
                    Some(raw),
                );
                l.err = true;
                return;
            }
        }
    } else {
        if kind == Some(Kind::Blob)
            && p.size(&ent) >= p.big
            && !keep
            && !p.rare.header_err.contains_key(&e)
        {
            stream_root(core, p, l, z, e, &ent);
            return;
        }
        unpack_root(p, l, z, e, &ent)
    };
    let links = visit(
        core,
        p,
        l,
        (e, &ent),
        kind,
        &data,
        base_node.as_deref(),
        keep,
    );
    if keep
        && (!flat.faithful || clean)
        && let Ok(data) = data
    {
        cache.put(e, kind, &Node::new(data, links));
    }
}

/// git's `verify_pack` of one pack without its delta tree (`--low-memory`): the entries' CRCs
/// and headers are read in pack order, then each entry is checked in turn (in chunks on the
/// pool), a delta's base made from its chain through a bounded cache of bases per thread, as
/// git's `unpack_entry` does. Memory: 13 bytes an entry and the cache.
#[allow(clippy::too_many_arguments)]
pub(super) fn verify_low_memory<P: Providers>(
    f: &mut Fsck<'_, P>,
    (packs, pi): (&[PackState], usize),
    index: &idx::Index<'_>,
    bytes: &[u8],
    raw: usize,
    mut err: bool,
    base_count: u64,
    meter: &Shared,
    saved: &crate::fsck::table::Saved,
) -> Result<(bool, SpecialEvents), Fatal> {
    let p = &packs[pi];
    let name = p.name.clone();
    let format = f.repo.format;
    let sig_ofs = bytes.len() - raw;
    let read_started = std::time::Instant::now();
    let order = by_offset(index, &name)?;
    let offs: Vec<u64> = order.iter().map(|&(o, _)| o).collect();
    let ns: Vec<u32> = order.iter().map(|&(_, n)| n).collect();
    drop(order);
    let count = offs.len();
    let limited = &bytes[..sig_ofs];
    let trailer = || digest::<P>(format.object_hash(true), &bytes[..sig_ofs]);
    let mut rare = Rare::default();
    let mut is_base = vec![0u64; count.div_ceil(64)];
    let crcs_wanted = index.version() > 1;
    for i in 0..count {
        let off = offs[i];
        if off > sig_ofs as u64 {
            let sum = trailer();
            trailer_lines(f, &name, Some(&sum), bytes, index.pack_checksum());
            return Err(Fatal::msg(
                "offset beyond end of packfile (truncated pack?)",
            ));
        }
        let n = ns[i];
        if crcs_wanted {
            let end = offs
                .get(i + 1)
                .map_or(sig_ofs, |&o| (o as usize).min(sig_ofs));
            let crc = crc32fast::hash(&bytes[off as usize..end.max(off as usize)]);
            if Some(crc) != index.crc32(n) {
                let m = format!(
                    "index CRC mismatch for object {} from {name} at offset {off}",
                    hex(index.id(n))
                );
                f.out
                    .emit(Finding::pack_error(&m, &name, Some(off)).about(&hex(index.id(n)), None));
                err = true;
            }
        }
        let head = pack::entry(limited, off, raw);
        let (ent, base) = describe(i, off, n, &head, index, &name, Some(&mut rare));
        if let Some(target) = base {
            let found = offs.binary_search(&target.0).ok();
            let b = link_base(i, &ent, target, found, &name, Some(&mut rare));
            if b != NO_BASE {
                is_base[b as usize / 64] |= 1 << (b % 64);
            }
        }
    }
    f.stats.stage_read += read_started.elapsed();
    let counter = AtomicU64::new(0);
    let children = Children::none();
    let pctx = PackCtx {
        pack_nr: pi,
        bytes,
        sig_ofs,
        name: &name,
        index,
        ents: &[],
        table_index: &p.table_index,
        rare: &rare,
        children: &children,
        done: &[],
        counter: &counter,
        meter,
        base_count,
        hash: f.settings.hash,
        big: f.settings.big_file_threshold,
        timing: f.opts.timing,
    };
    let named = std::sync::Mutex::new(std::collections::HashSet::new());
    let flat = Flat {
        offs: &offs,
        ns: &ns,
        is_base: &is_base,
        index,
        raw,
        named: &named,
        faithful: false,
    };
    let pack_id = bytes.as_ptr() as usize;
    let sum: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let locals: Vec<Local> = {
        let mut core = f.core_with(packs);
        core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
        core.edgeless = core.promisor;
        let pool = &f.pool;
        let limit = LOW_MEMORY_CACHE / pool.current_num_threads();
        pool.install(|| {
            rayon::scope(|s| {
                s.spawn(|_| {
                    let _ = sum.set(trailer());
                });
                use rayon::prelude::*;
                (0..count.div_ceil(LOW_MEMORY_CHUNK))
                    .into_par_iter()
                    .for_each(|c| {
                        on_worker(|w| {
                            w.cache.for_pack(pack_id, limit);
                            let end = ((c + 1) * LOW_MEMORY_CHUNK).min(count);
                            for e in c * LOW_MEMORY_CHUNK..end {
                                check_flat(&core, &pctx, &flat, w, e);
                            }
                        });
                    });
            });
        });
        pool.broadcast(|_| {
            with_existing_worker::<P::Inflater, _>(|w| {
                w.cache.for_pack(0, 0);
                std::mem::take(&mut w.l)
            })
        })
        .into_iter()
        .flatten()
        .collect()
    };
    err |= trailer_lines(f, &name, sum.get(), bytes, index.pack_checksum());
    let (failed, events) = match settle(f, locals) {
        Some(settled) => settled,
        None => {
            let flat = (offs.as_slice(), ns.as_slice(), is_base.as_slice());
            again_in_git_order(
                f,
                (packs, pi),
                index,
                bytes,
                raw,
                flat,
                &rare,
                Redo::Pack(saved),
            )
        }
    };
    err |= failed;
    meter.display_now(base_count + count as u64);
    Ok((err, events))
}

/// What [`again_in_git_order`] checks again.
pub(super) enum Redo<'a> {
    /// The whole pack, its types and flags first put back as they were before it.
    Pack(&'a crate::fsck::table::Saved),
    /// These entries (places in pack order, ascending), the rest of the pack having been
    /// folded in: every chain through a damaged entry (see `verify::verify_one`).
    Entries(&'a [usize]),
}

/// A pack's entries (offsets, index positions and which are bases, in pack order: `flat`)
/// checked again one after another, each folded into the run as soon as it is checked: git's
/// order, which decides which side of a type conflict git reports. With [`Redo::Pack`], the
/// types and flags are first put back as they were before the pack. Only a pack whose check met a
/// conflict or a damaged entry ([`settle`]) is checked so, with a delta's base made through a
/// cache as in `--low-memory`, but with git's counts ([`Flat::faithful`]) and git's cache size.
#[allow(clippy::too_many_arguments)]
pub(super) fn again_in_git_order<P: Providers>(
    f: &mut Fsck<'_, P>,
    (packs, pi): (&[PackState], usize),
    index: &idx::Index<'_>,
    bytes: &[u8],
    raw: usize,
    (offs, ns, is_base): (&[u64], &[u32], &[u64]),
    rare: &Rare,
    redo: Redo<'_>,
) -> (bool, SpecialEvents) {
    let p = &packs[pi];
    let all: Vec<usize>;
    let entries = match redo {
        Redo::Pack(saved) => {
            f.table.restore(saved);
            all = (0..offs.len()).collect();
            &all
        }
        Redo::Entries(only) => only,
    };
    let counter = AtomicU64::new(0);
    let children = Children::none();
    // The first check showed the meter's updates for these entries.
    let meter = Shared::new(crate::progress::Meter::off());
    let pctx = PackCtx {
        pack_nr: pi,
        bytes,
        sig_ofs: bytes.len() - raw,
        name: &p.name,
        index,
        ents: &[],
        table_index: &p.table_index,
        rare,
        children: &children,
        done: &[],
        counter: &counter,
        meter: &meter,
        base_count: 0,
        hash: f.settings.hash,
        big: f.settings.big_file_threshold,
        timing: f.opts.timing,
    };
    let named = std::sync::Mutex::new(std::collections::HashSet::new());
    let flat = Flat {
        offs,
        ns,
        is_base,
        index,
        raw,
        named: &named,
        faithful: true,
    };
    // Counted in the table as it goes (no counts of its own): each entry is folded in at once.
    let mut w = Worker::new();
    w.cache
        .for_pack(bytes.as_ptr() as usize, super::store::GIT_DELTA_BASE_CACHE);
    let (mut err, mut events) = (false, Vec::new());
    for &e in entries {
        {
            let mut core = f.core_with(packs);
            core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
            check_flat(&core, &pctx, &flat, &mut w, e);
        }
        err |= std::mem::take(&mut w.l.err);
        w.l.damaged.clear();
        events.append(&mut w.l.special_events);
        let times = std::mem::take(&mut w.l.times);
        f.stats.times.add(&times);
        f.apply(&mut w.l);
    }
    (err, events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree is given up when it would take more than half of what is available, and the
    /// line says how much of how much.
    #[test]
    fn a_tree_too_big_for_the_memory_is_not_built() {
        let entries = 10_000_000;
        let need = entries * TREE_BYTES_PER_ENTRY;
        assert_eq!(tree_too_big(entries, 2 * need), None);
        let why = tree_too_big(entries, 2 * need - 2).flatten();
        let why = why.expect("a reason");
        assert!(why.contains(&format!("{} MiB of the", need >> 20)), "{why}");
        assert!(why.contains("--low-memory"), "{why}");
    }
}

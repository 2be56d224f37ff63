//! The connectivity walk (git's `check_connectivity`, `mark_object`, `traverse_reachable`): from
//! the heads, what is reachable, missing, broken, dangling or unreachable.

use crate::Kind;
use crate::Providers;

use super::finding::{Finding, Stream, What};
use super::lost_found::{Content, Failed, LostFound};
use super::table::{self, HAS_OBJ, Oid, PARSED, REACHABLE, USED, oid};
use super::{Fatal, Fsck, bits, hex, scan};

/// git's `mark_object` with a parent (`None` for a head): marks `target` reachable and queues it
/// when it is present, and prints git's broken-link lines.
pub fn mark<P: Providers>(
    f: &mut Fsck<'_, P>,
    target: Option<u32>,
    kind: Option<Kind>,
    parent: Option<u32>,
    pending: &mut Vec<u32>,
) {
    let Some(t) = target else {
        if let Some(p) = parent {
            let pt = f.printable_type(p);
            let pid = f.describe(&f.table.obj(p).id);
            let ph = f.hex(&f.table.obj(p).id);
            let line = format!("broken link from {pt:>7} {pid}");
            f.out
                .emit(Finding::report(What::BrokenLink, pt, &ph, line).with_bit(bits::REACHABLE));
            let k = kind.map_or("unknown", Kind::name);
            let line = format!("broken link from {k:>7} unknown");
            f.out
                .emit(Finding::report(What::BrokenLink, pt, &ph, line).with_bit(bits::REACHABLE));
        }
        f.out.bits |= bits::REACHABLE;
        return;
    };
    // Read once: marking it reachable below changes no other flag.
    let o = f.table.obj(t);
    if let (Some(k), Some(p)) = (kind, parent) {
        let tk = o.kind;
        if tk.is_some() && tk != Some(k) {
            let pt = f.printable_type(p);
            let pid = f.describe(&f.table.obj(p).id);
            let ph = f.hex(&f.table.obj(p).id);
            let line = format!("error in {pt} {pid}: wrong object type in link");
            let mut e = Finding::line(Stream::Err, line).with_bit(bits::OBJECT);
            e.object = Some(ph);
            e.object_type = (pt != "unknown").then_some(pt);
            f.out.emit(e);
            f.out.bits |= bits::OBJECT;
        }
    }
    if o.flags & REACHABLE != 0 {
        return;
    }
    f.table.or_flags(t, REACHABLE);
    let id = o.id;
    if f.heads.promisor.contains(&id) {
        return;
    }
    if o.flags & HAS_OBJ == 0 {
        if let Some(p) = parent
            && !scan::has_object(f, &id)
        {
            let pt = f.printable_type(p);
            let pid = f.describe(&f.table.obj(p).id);
            let ph = f.hex(&f.table.obj(p).id);
            let tt = f.printable_type(t);
            let tid = f.describe(&id);
            let line = format!("broken link from {pt:>7} {pid}");
            f.out
                .emit(Finding::report(What::BrokenLink, pt, &ph, line).with_bit(bits::REACHABLE));
            let line = format!("              to {tt:>7} {tid}");
            f.out.emit(
                Finding::report(What::BrokenLink, tt, &f.hex(&id), line).with_bit(bits::REACHABLE),
            );
            f.out.bits |= bits::REACHABLE;
        }
        return;
    }
    pending.push(t);
}

/// A head: git's `mark_object_reachable` after `obj->flags |= USED`.
pub fn mark_head<P: Providers>(
    f: &mut Fsck<'_, P>,
    i: u32,
    name: Option<String>,
    pending: &mut Vec<u32>,
) {
    f.table.or_flags(i, USED);
    if let Some(n) = name {
        let id = f.table.obj(i).id;
        f.heads.names.entry(id).or_insert(n);
    }
    mark(f, Some(i), None, None, pending);
}

/// git's `traverse_reachable` and the final pass over every object.
///
/// The walk follows the links kept by the object checks: a commit's and a tag's, and a tree's
/// links to trees and to blobs that are not stored. Links from trees to stored blobs are only
/// counted (`Table::refs`): such a blob is reachable when a reachable tree links to it, so once the
/// walk is done the trees it did not reach (few, usually none) are read again and their links
/// uncounted. The order in which trees are walked is git's, so a missing object is reported from
/// the parent git names. With `--connectivity-only` nothing was read before the walk, and with
/// `--name-objects` the walk needs every entry's name: the walk then reads each object, as git
/// does.
pub(super) fn check_connectivity<P: Providers>(
    f: &mut Fsck<'_, P>,
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    // A stored object that did not check out (corrupt, or unreadable) makes the counted links
    // unreliable: git's walk then reports the trees that name it, so walk as git does.
    // So does a checked object whose walk of its links failed: git's walk walks it again, and
    // prints what its check's walk printed (`empty filename in tree entry`, `object X is a blob,
    // not a tree`) once more.
    let damaged = (!f.opts.connectivity_only
        && f.opts.full
        && f.table
            .iter()
            .any(|o| o.flags & (super::table::PRESENT | HAS_OBJ) == super::table::PRESENT))
        || f.stored.broken_walk;
    let read_walk = f.opts.connectivity_only || f.opts.name_objects || damaged;
    let mut nr = 0u64;
    let mut meter = f.out.progress().start_delayed("Checking connectivity", 0);
    // One buffer for the links of each object walked.
    let mut edges = Vec::new();
    while let Some(i) = pending.pop() {
        if read_walk {
            traverse_read(f, i, pending)?;
        } else {
            traverse_one(f, i, pending, &mut edges)?;
        }
        nr += 1;
        meter.display(nr);
    }
    if !read_walk {
        uncount_unreachable_trees(f);
    }
    if meter.is_on() {
        // git's count is every object its walk took from the queue: each reachable stored object
        // that is not a promisor's. Links to stored blobs were only counted here, so the blobs
        // are counted now, as the walk's final figure.
        let walked = (0..f.table.len() as u32)
            .filter(|&i| {
                let o = f.table.obj(i);
                (o.flags & REACHABLE != 0 || (!read_walk && o.refs > 0))
                    && o.flags & HAS_OBJ != 0
                    && !f.heads.promisor.contains(&o.id)
            })
            .count();
        meter.display(walked as u64);
    }
    meter.stop();
    if f.opts.connectivity_only && (f.opts.dangling || f.opts.lost_found) {
        // git marks what unreachable objects point to, reading them now: the loose objects,
        // then each pack's in its index's order (which decides which read marks a broken
        // packed copy bad first).
        let mut order = f.stored.loose_order.clone();
        order.extend(scan::packed_ids(f));
        for id in order {
            let Some(i) = f.table.get(&id) else {
                continue;
            };
            let o = f.table.obj(i);
            if o.flags & HAS_OBJ == 0 || o.flags & REACHABLE != 0 {
                continue;
            }
            let id = o.id;
            let mut known = o.kind;
            // git asks an object of no type for its type first (`oid_object_info`, from its
            // headers alone); then its walk parses it, unless it is a blob.
            if known.is_none() {
                let mut lines = Vec::new();
                let found = f.store().object_type(&id, &mut lines);
                for l in &lines {
                    f.out.error(l);
                }
                if let Some(k) = found.map_err(Fatal::msg)? {
                    let _ = f.table.lookup(&id, k);
                    known = Some(k);
                }
            }
            if known.is_none() {
                // git's `fsck_walk` parses an object of no type (`parse_object`).
                known = match super::parse::parse_object(f, &id)? {
                    Some(i) => f.table.obj(i).kind,
                    None => None,
                };
                if known.is_none() {
                    let d = f.describe(&id);
                    f.out.error(&format!("Unknown object type for {d}"));
                    continue;
                }
            }
            if known == Some(Kind::Blob) {
                continue;
            }
            let parsed = f
                .table
                .get(&id)
                .is_some_and(|i| f.table.obj(i).flags & PARSED != 0);
            let read = read_for_walk(f, &id, parsed)?;
            if read.is_none() {
                // git's `parse_commit`, `parse_tree`, `parse_tag`.
                f.out.error(&format!("Could not read {}", f.hex(&id)));
            }
            if let Some((k, data)) = read {
                if !read_as(f, &id, known, k) {
                    continue;
                }
                let mut links = super::walk::links(k, &id, &data, f.repo.format);
                if !parse_links(f, &id, k, &mut links) {
                    continue;
                }
                for t in links.targets {
                    match f.table.lookup(&oid(&t.id), t.kind) {
                        Ok(ti) => {
                            f.table.or_flags(ti, USED);
                        }
                        Err(c) => f.out.error(&format!(
                            "object {} is a {}, not a {}",
                            hex(&t.id),
                            c.is.name(),
                            t.kind.name()
                        )),
                    }
                }
            }
        }
    }
    let max = f.table.len();
    let mut lost_found = f.opts.lost_found.then(|| {
        let lf = LostFound::new(&f.repo.common_dir, f.settings.shared_repository.clone());
        lf.remove_leftovers();
        lf
    });
    if f.opts.verbose {
        f.out.err(&format!("Checking connectivity ({max} objects)"));
    }
    for i in 0..max as u32 {
        let o = f.table.obj(i);
        if f.opts.verbose {
            f.out.err(&format!("Checking {}", f.describe(&o.id)));
        }
        let reachable = o.flags & REACHABLE != 0 || (!read_walk && o.refs > 0);
        if reachable {
            if o.flags & HAS_OBJ == 0 {
                if f.heads.promisor.contains(&o.id) || scan::has_object_pack(f, &o.id) {
                    continue;
                }
                let t = f.printable_type(i);
                let d = f.describe(&o.id);
                let line = format!("missing {t} {d}");
                let r = Finding::report(What::Missing, t, &f.hex(&o.id), line);
                f.out.emit(r.with_bit(bits::REACHABLE));
                f.out.bits |= bits::REACHABLE;
            }
            continue;
        }
        if o.flags & HAS_OBJ == 0 {
            continue;
        }
        if f.unreachable_shown() {
            let t = f.printable_type(i);
            let d = f.describe(&o.id);
            let line = format!("unreachable {t} {d}");
            let r = Finding::report(What::Unreachable, t, &f.hex(&o.id), line);
            f.out.emit(r);
            continue;
        }
        if o.flags & USED == 0 {
            if f.opts.dangling {
                let t = f.printable_type(i);
                let d = f.describe(&o.id);
                let line = format!("dangling {t} {d}");
                let r = Finding::report(What::Dangling, t, &f.hex(&o.id), line);
                f.out.emit(r);
            }
            if let Some(lf) = lost_found.as_mut() {
                write_lost_found(f, lf, i)?;
            }
        }
    }
    Ok(())
}

/// git's `--lost-found` for the dangling object `i`: its file under `lost-found/`, or git's
/// `error:` line when the directory cannot be made, or git's death.
fn write_lost_found<P: Providers>(
    f: &mut Fsck<'_, P>,
    lf: &mut LostFound,
    i: u32,
) -> Result<(), Fatal> {
    let o = f.table.obj(i);
    let (id, kind) = (o.id, o.kind);
    let described = f.describe(&id);
    let path = lf.path(kind, &described);
    let mut lines = Vec::new();
    let written = lf.write(&path, || {
        if kind == Some(Kind::Blob) {
            // git streams the blob from the store (`stream_blob_to_fd`): a loose copy's stream
            // says only what zlib says, not that the object is corrupt.
            let read = f.store().read(&id, &mut lines, None).object;
            let corrupt = format!(" loose object '{}'", f.hex(&id));
            lines.retain(|l| !l.ends_with(&corrupt));
            match read {
                Some((Kind::Blob, data)) => Some(Content::Blob(data)),
                _ => None,
            }
        } else {
            Some(Content::Line(described.clone()))
        }
    });
    for l in &lines {
        f.out.error(l);
    }
    match written {
        Ok(()) => Ok(()),
        Err(Failed::Directory) => {
            f.out.error("could not create lost-found");
            Ok(())
        }
        Err(Failed::Fatal(m)) => Err(Fatal::msg(m)),
    }
}

/// git's `parse_object` in the walk: the object, or `None` when it cannot be read (a packed
/// copy is then marked bad); reading a packed copy already marked bad is fatal, as in git.
///
/// An object git holds parsed already (`parsed`) is not read by git's walk: it is read here
/// without a word.
fn read_for_walk<P: Providers>(
    f: &mut Fsck<'_, P>,
    id: &Oid,
    parsed: bool,
) -> Result<Option<(Kind, Vec<u8>)>, Fatal> {
    let mut lines = Vec::new();
    // git's delta base cache, kept from read to read as git keeps it.
    let mut cache = f
        .stored
        .walk_cache
        .take()
        .unwrap_or_else(|| scan::BaseCache::new(scan::store::GIT_DELTA_BASE_CACHE));
    let read = if parsed {
        f.store().quiet().read(id, &mut lines, Some(&mut cache))
    } else {
        f.store()
            .read_or_die_cached(id, &mut lines, Some(&mut cache))
    };
    f.stored.walk_cache = Some(cache);
    if parsed {
        return Ok(read.object);
    }
    for l in &lines {
        f.out.error(l);
    }
    match read.fatal {
        Some(m) => Err(Fatal::msg(m)),
        None => Ok(read.object),
    }
}

/// Leaves in each stored blob's count only the checked trees the walk reached (a blob is
/// reachable when one links to it). The smaller side is read again: the trees the walk did not
/// reach are uncounted, or, when they are the more (heads that reach a small part of the
/// store), the counts are made again from the trees it reached.
fn uncount_unreachable_trees<P: Providers>(f: &mut Fsck<'_, P>) {
    use super::table::{BAD, PRESENT};
    let format = f.repo.format;
    let n = f.table.len() as u32;
    // The checked trees the walk reached (`Some(true)`) or not; only the smaller side's ids are
    // gathered.
    let side = |f: &Fsck<'_, P>, i: u32| {
        let o = f.table.obj(i);
        (o.kind == Some(Kind::Tree) && o.flags & HAS_OBJ != 0).then_some(o.flags & REACHABLE != 0)
    };
    let (reached_count, unreached_count) =
        (0..n).fold((0usize, 0usize), |(r, u), i| match side(f, i) {
            Some(true) => (r + 1, u),
            Some(false) => (r, u + 1),
            None => (r, u),
        });
    let recount = reached_count < unreached_count;
    let gather = |f: &Fsck<'_, P>, want: bool| -> Vec<Oid> {
        (0..n)
            .filter(|&i| side(f, i) == Some(want))
            .map(|i| f.table.obj(i).id)
            .collect()
    };
    let blob = |f: &Fsck<'_, P>, ti: u32| {
        let o = f.table.obj(ti);
        o.kind == Some(Kind::Blob) && o.flags & (PRESENT | BAD) == PRESENT
    };
    let trees = if recount {
        for i in 0..n {
            if blob(f, i) {
                f.table.clear_refs(i);
            }
        }
        gather(f, true)
    } else {
        gather(f, false)
    };
    // In pack order, through a cache of bases: each tree costs one delta, not its chain.
    let mut trees: Vec<(Option<(usize, u64)>, Oid)> = trees
        .into_iter()
        .map(|id| (scan::packed_place(f, &id), id))
        .collect();
    trees.sort_unstable();
    let mut cache = scan::BaseCache::new(96 << 20);
    for (_, id) in trees {
        let Some((Kind::Tree, data)) = scan::read_object_cached(f, &id, &mut cache) else {
            continue;
        };
        let links = super::walk::links(Kind::Tree, &id, &data, format);
        for t in links.targets.iter().filter(|t| t.kind == Kind::Blob) {
            if let Some(ti) = f.table.get(&oid(&t.id))
                && blob(f, ti)
            {
                if recount {
                    f.table.add_ref(ti);
                } else {
                    f.table.sub_ref(ti);
                }
            }
        }
    }
}

/// git's `traverse_one_object` over the kept links.
fn traverse_one<P: Providers>(
    f: &mut Fsck<'_, P>,
    i: u32,
    pending: &mut Vec<u32>,
    edges: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let from_tag = f.table.obj(i).kind == Some(Kind::Tag);
    // git's walk reads again a tree its check forgot (`parse_tree`): where that read prints
    // something (a pack it searches cannot be opened), it is made.
    if f.stored.noisy_packs
        && f.table.obj(i).kind == Some(Kind::Tree)
        && f.table.obj(i).flags & PARSED == 0
    {
        let id = f.table.obj(i).id;
        read_for_walk(f, &id, false)?;
    }
    edges.clear();
    edges.extend_from_slice(f.table.edges_of(i));
    for &e in edges.iter() {
        let kind = (!from_tag).then(|| table::edge_kind(e));
        mark(f, table::edge_target(e), kind, Some(i), pending);
    }
    Ok(())
}

/// git's `traverse_one_object`, reading the object (for `--connectivity-only` and
/// `--name-objects`), with git's names for what it links to.
fn traverse_read<P: Providers>(
    f: &mut Fsck<'_, P>,
    i: u32,
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let id = f.table.obj(i).id;
    let kind = f.table.obj(i).kind;
    if kind == Some(Kind::Blob) {
        return Ok(());
    }
    // A commit the commit-graph lists is parsed from the graph (git's `parse_commit_in_graph`):
    // its object is not read. (An object of no known type yet is read, as git's `parse_object`
    // reads it, and so is a commit the heads' `parse_object` parsed already: its links are its
    // object's.)
    let raw = f.repo.format.raw_len();
    let parsed = f.table.obj(i).flags & PARSED != 0;
    let from_graph = (kind == Some(Kind::Commit) && !parsed)
        .then(|| f.heads.graph_commits.as_ref()?.get(&id[..raw]))
        .flatten()
        .map(|c| {
            let link = |id: &[u8], kind| super::walk::Target {
                kind,
                id: id.to_vec(),
                mode: 0,
                name: Vec::new(),
            };
            let mut links = super::walk::Links::default();
            links.targets.push(link(&c.tree, Kind::Tree));
            links
                .targets
                .extend(c.parents.iter().map(|p| link(p, Kind::Commit)));
            links
        });
    if let Some(links) = from_graph {
        return walk_links(f, i, &id, Kind::Commit, links, pending);
    }
    // git's walk parses an object of no known type (`parse_object`, which checks its hash):
    // one it cannot is `Unknown object type`; a commit, tree or tag it cannot read is `Could not
    // read`. The walk goes on, and no exit bit is set.
    let read = match kind {
        None => super::parse::parse_stored(f, &id)?.map(|(_, k, data)| (k, data)),
        Some(k) => {
            // What git's walk holds parsed: what `parse_object` parsed, and a commit or tag
            // the check of the packs parsed (it forgets a tree's content).
            let checked = f.table.obj(i).flags & HAS_OBJ != 0 && !f.opts.connectivity_only;
            let held = parsed || (checked && matches!(k, Kind::Commit | Kind::Tag));
            read_for_walk(f, &id, held)?
        }
    };
    let Some((k, data)) = read else {
        let d = f.describe(&id);
        match kind {
            None => f.out.error(&format!("Unknown object type for {d}")),
            Some(_) => f.out.error(&format!("Could not read {}", f.hex(&id))),
        }
        return Ok(());
    };
    if !read_as(f, &id, kind, k) {
        return Ok(());
    }
    if k == Kind::Blob {
        return Ok(());
    }
    let links = super::walk::links(k, &id, &data, f.repo.format);
    walk_links(f, i, &id, k, links, pending)
}

/// The object `id`, known as `known` (`None`: of no type yet), read as `k`: git's walk takes an
/// object of no type as what it reads, and its `parse_commit`, `parse_tree` and `parse_tag`
/// refuse an object known as another type than it reads as (`Object X not a commit`). Whether
/// the walk goes on.
fn read_as<P: Providers>(f: &mut Fsck<'_, P>, id: &Oid, known: Option<Kind>, k: Kind) -> bool {
    match known {
        None => {
            let _ = f.table.lookup(id, k);
            true
        }
        // A blob is not read by the walk.
        Some(Kind::Blob) => false,
        Some(known) if known != k => {
            let what = match known {
                Kind::Commit => "commit",
                Kind::Tag => "tag",
                Kind::Tree | Kind::Blob => "tree",
            };
            f.out.error(&format!("Object {} not a {what}", f.hex(id)));
            false
        }
        Some(_) => true,
    }
}

/// git's parse of object `id` of type `k` as the walk reads it: a shallow or grafted commit's
/// parents replaced, what a commit or tag names looked up (when that fails, nothing is walked),
/// and the parser's lines printed. Returns whether its links are to be followed.
fn parse_links<P: Providers>(
    f: &mut Fsck<'_, P>,
    id: &Oid,
    k: Kind,
    links: &mut super::walk::Links,
) -> bool {
    if k == Kind::Commit {
        super::grafts::apply(
            links,
            f.heads.grafts.of(id, &f.heads.shallow),
            f.repo.format,
        );
    }
    let table = &mut f.table;
    let parsed = links.parse_lookups(k, &id[..f.repo.format.raw_len()], |tid, tk| {
        table.lookup(&oid(tid), tk).map(|_| ()).map_err(|c| c.is)
    });
    if let Err(lines) = parsed {
        for l in &lines {
            f.out.error(l);
        }
        return false;
    }
    for e in &links.errors {
        f.out.error(e);
    }
    !links.parse_failed
}

/// The walk's step from object `i` (`id`, of type `k`) to what it links to.
fn walk_links<P: Providers>(
    f: &mut Fsck<'_, P>,
    i: u32,
    id: &Oid,
    k: Kind,
    mut links: super::walk::Links,
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let id = *id;
    if !parse_links(f, &id, k, &mut links) {
        return Ok(());
    }
    let name = f.heads.names.get(&id).cloned();
    let parents: Vec<usize> = links
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| k == Kind::Commit && t.kind == Kind::Commit)
        .map(|(n, _)| n)
        .collect();
    for (n, t) in links.targets.iter().enumerate() {
        let tid = oid(&t.id);
        let target = match f.table.lookup(&tid, t.kind) {
            Ok(ti) => Some(ti),
            Err(c) => {
                f.out.error(&format!(
                    "object {} is a {}, not a {}",
                    f.hex(&tid),
                    c.is.name(),
                    t.kind.name()
                ));
                None
            }
        };
        if let (Some(name), Some(_)) = (&name, target)
            && f.opts.name_objects
        {
            let child = match k {
                Kind::Tree if t.kind == Kind::Tree => {
                    format!("{name}{}/", String::from_utf8_lossy(&t.name))
                }
                Kind::Tree => format!("{name}{}", String::from_utf8_lossy(&t.name)),
                Kind::Commit if t.kind == Kind::Tree => format!("{name}:"),
                Kind::Commit => {
                    let nth = parents.iter().position(|&p| p == n).unwrap_or(0);
                    parent_name(name, nth)
                }
                _ => name.clone(),
            };
            f.heads.names.entry(tid).or_insert(child);
        }
        let kind = (k != Kind::Tag).then_some(t.kind);
        mark(f, target, kind, Some(i), pending);
    }
    Ok(())
}

/// git's name for the `nth` parent (from 0) of a commit named `name` (`fsck_walk_commit`).
fn parent_name(name: &str, nth: usize) -> String {
    let b = name.as_bytes();
    let (generation, prefix_len) = if b.last() == Some(&b'^') {
        (1, b.len() - 1)
    } else {
        let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
        let len = b.len() - digits;
        if digits > 0 && len > 0 && b[len - 1] == b'~' {
            (name[len..].parse::<u64>().unwrap_or(0), len - 1)
        } else {
            (0, b.len())
        }
    };
    if nth > 0 {
        format!("{name}^{}", nth + 1)
    } else if generation > 0 {
        format!("{}~{}", &name[..prefix_len], generation + 1)
    } else {
        format!("{name}^")
    }
}

impl<P: Providers> Fsck<'_, P> {
    /// `--unreachable`, unless no default references were found (git then clears it).
    pub fn unreachable_shown(&self) -> bool {
        self.opts.unreachable && !self.heads.no_default_refs
    }
}

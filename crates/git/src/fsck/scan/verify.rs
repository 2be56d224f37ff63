//! A pack's check, as git's `verify_pack`: its index and trailer checksums, its entries read by
//! offset (headers and CRCs, on the pool), the delta tree built, then resolved ([`super::tree`])
//! or, without the memory for it, read entry by entry ([`super::low_memory`]).

use crate::Providers;
use crate::fsck::finding::Finding;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};

use crate::{idx, pack};

use crate::ObjectFormat;
use crate::fsck::{Fatal, Fsck, hex};
use crate::progress::Shared;

use super::check::Local;
use super::digest;
use super::entries::{Children, Ent, Rare, by_offset, describe, link_base};
use super::low_memory::{Redo, again_in_git_order, low_memory, verify_low_memory};
use super::packs::{PackState, READ_CHUNK, pack_open_errors};
use super::settle::{SpecialEvents, replay_special, settle, trailer_lines};
use super::tree::{
    PackCtx, ROOTS_PER_JOB, Split, big_subtrees, on_worker, resolve, with_existing_worker,
};

/// git's `verify_pack` for pack `pi`. Returns whether it found an error.
///
/// `meter` is git's `Checking objects` meter over every pack, `base_count` the objects of the
/// packs before this one: it is updated as git's `verify_packfile` updates it, at every 1024th
/// object of the count and at the end of the pack.
pub fn verify_pack<P: Providers>(
    f: &mut Fsck<'_, P>,
    pi: usize,
    base_count: u64,
    meter: &Shared,
) -> Result<bool, Fatal> {
    let format = f.repo.format;
    let raw = format.raw_len();
    let packs = std::mem::take(&mut f.stored.packs);
    let result = verify_one(f, (&packs, pi), format, raw, base_count, meter);
    f.stored.packs = packs;
    let (mut err, events) = result?;
    err |= replay_special(f, pi, events);
    f.stored.packs[pi].damaged = err;
    Ok(err)
}

fn verify_one<P: Providers>(
    f: &mut Fsck<'_, P>,
    (packs, pi): (&[PackState], usize),
    format: ObjectFormat,
    raw: usize,
    base_count: u64,
    meter: &Shared,
) -> Result<(bool, SpecialEvents), Fatal> {
    let p = &packs[pi];
    let name = p.name.clone();
    let Some((index, bytes, mut err)) = verify_pack_index(f, p, format, raw) else {
        return Ok((true, Vec::new()));
    };
    let sig_ofs = bytes.len() - raw;
    // The types and flags before the pack, to put back should its check meet a type conflict.
    let saved = f.table.save();
    if let Some(why) = low_memory(f, index.len() as usize) {
        if let Some(line) = why {
            f.out.err(&format!("notice: {name}: {line}"));
        }
        return verify_low_memory(
            f,
            (packs, pi),
            &index,
            bytes,
            raw,
            err,
            base_count,
            meter,
            &saved,
        );
    }
    let trailer = || digest::<P>(format.object_hash(true), &bytes[..sig_ofs]);
    let sum: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let read_started = std::time::Instant::now();
    let (ents, rare, crc_err) = read_entries(f, &index, bytes, raw, &name, (&sum, &trailer))?;
    err |= crc_err;
    let count = ents.len();
    let children = Children::new(&ents);
    f.stats.stage_read += read_started.elapsed();
    let roots: Vec<u32> = (0..count as u32)
        .filter(|&i| !(ents[i as usize].is_delta() && ents[i as usize].base().is_some()))
        .collect();
    let done: Vec<AtomicU64> = (0..count.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    let counter = AtomicU64::new(0);
    let pctx = PackCtx {
        pack_nr: pi,
        bytes,
        sig_ofs,
        name: &name,
        index: &index,
        ents: &ents,
        table_index: &p.table_index,
        rare: &rare,
        children: &children,
        done: &done,
        counter: &counter,
        meter,
        base_count,
        hash: f.settings.hash,
        big: f.settings.big_file_threshold,
        timing: f.opts.timing,
    };
    let mut locals = resolve_tree(f, (packs, pi), &pctx, &roots, (&sum, &trailer));
    err |= trailer_lines(f, &name, sum.get(), bytes, index.pack_checksum());
    // The pack in the form the check in git's order takes, made only when it is needed.
    let flat_of = || {
        let offs: Vec<u64> = ents.iter().map(|e| e.off()).collect();
        let ns: Vec<u32> = ents.iter().map(|e| e.n).collect();
        let mut is_base = vec![0u64; count.div_ceil(64)];
        for e in (0..count).filter(|&e| !children.of(e).is_empty()) {
            is_base[e / 64] |= 1 << (e % 64);
        }
        (offs, ns, is_base)
    };
    // An entry that could not be unpacked, and no type conflict: the subtrees of the roots whose
    // chains reach a damaged entry are checked again in git's order (each chain of a delta stays
    // in its root's subtree, so git's lines for them come from there), after the rest of the
    // pack is resolved again without them.
    let damaged: Vec<u32> = locals
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.damaged))
        .collect();
    if !damaged.is_empty() && locals.iter().all(|l| l.conflicts == 0) {
        drop(locals);
        let affected = damaged_subtrees(&ents, &children, &damaged);
        let rest: Vec<u32> = roots
            .iter()
            .copied()
            .filter(|&r| !affected[r as usize])
            .collect();
        let quiet = Shared::new(crate::progress::Meter::off());
        let (done2, counter2) = (
            (0..count.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect::<Vec<_>>(),
            AtomicU64::new(0),
        );
        let again = PackCtx {
            done: &done2,
            counter: &counter2,
            meter: &quiet,
            ..pctx
        };
        f.table.restore(&saved);
        let locals = resolve_tree(f, (packs, pi), &again, &rest, (&sum, &trailer));
        let (offs, ns, is_base) = flat_of();
        let flat = (offs.as_slice(), ns.as_slice(), is_base.as_slice());
        let (failed, events) = match settle(f, locals) {
            Some((failed, mut events)) => {
                let only: Vec<usize> = (0..count).filter(|&e| affected[e]).collect();
                let redo = Redo::Entries(&only);
                let (f2, mut e2) =
                    again_in_git_order(f, (packs, pi), &index, bytes, raw, flat, &rare, redo);
                events.append(&mut e2);
                (
                    failed | f2 | report_cycles(f, &ents, &done, &index, &name),
                    events,
                )
            }
            None => {
                let redo = Redo::Pack(&saved);
                again_in_git_order(f, (packs, pi), &index, bytes, raw, flat, &rare, redo)
            }
        };
        meter.display_now(base_count + count as u64);
        return Ok((err | failed, events));
    }
    let Some((failed, events)) = settle(f, locals) else {
        let (offs, ns, is_base) = flat_of();
        let flat = (offs.as_slice(), ns.as_slice(), is_base.as_slice());
        let (failed, events) = again_in_git_order(
            f,
            (packs, pi),
            &index,
            bytes,
            raw,
            flat,
            &rare,
            Redo::Pack(&saved),
        );
        meter.display_now(base_count + count as u64);
        return Ok((err | failed, events));
    };
    err |= failed;
    err |= report_cycles(f, &ents, &done, &index, &name);
    meter.display_now(base_count + count as u64);
    Ok((err, events))
}

/// The entries (a flag each, in pack order) of the delta subtrees whose roots' chains reach one
/// of `damaged`: each damaged entry's root (its chain of bases followed to an object), and every
/// entry below such a root.
fn damaged_subtrees(ents: &[Ent], children: &Children, damaged: &[u32]) -> Vec<bool> {
    let mut affected = vec![false; ents.len()];
    let mut stack: Vec<usize> = Vec::new();
    for &d in damaged {
        let mut e = d as usize;
        // A chain is shorter than the pack (a cycle has no root, and is not checked).
        for _ in 0..ents.len() {
            match ents[e].base() {
                Some(b) if ents[e].is_delta() => e = b,
                _ => break,
            }
        }
        if !affected[e] {
            affected[e] = true;
            stack.push(e);
        }
    }
    while let Some(e) = stack.pop() {
        for &c in children.of(e) {
            let c = c as usize;
            if !affected[c] {
                affected[c] = true;
                stack.push(c);
            }
        }
    }
    affected
}

/// git's `verify_pack_index`: the pack's index parsed and its checksum checked, and the pack
/// mapped. `None` where git gives up on the pack (what it prints is printed): the pack then
/// fails its check.
fn verify_pack_index<'p, P: Providers>(
    f: &mut Fsck<'_, P>,
    p: &'p PackState,
    format: ObjectFormat,
    raw: usize,
) -> Option<(idx::Index<'p>, &'p [u8], bool)> {
    let name = &p.name;
    let Some(idx_map) = &p.idx else {
        f.out.emit(Finding::pack_error(
            &format!("packfile {name} index not opened"),
            name,
            None,
        ));
        return None;
    };
    let index = match idx::Index::parse(idx_map.bytes(), raw, &p.files.idx.display().to_string()) {
        Ok(i) => i,
        Err(e) => {
            f.out.emit(Finding::pack_error(&e.to_string(), name, None));
            f.out.emit(Finding::pack_error(
                &format!("packfile {name} index not opened"),
                name,
                None,
            ));
            return None;
        }
    };
    let mut err = false;
    let (covered, sum) = index.checksummed();
    if digest::<P>(format.file_hash(), covered) != sum {
        f.out.emit(Finding::pack_error(
            &format!("Packfile index for {name} hash mismatch"),
            name,
            None,
        ));
        err = true;
    }
    if let Some(lines) = pack_open_errors(p, &index, format, &p.name) {
        for l in lines {
            f.out.emit(Finding::pack_error(&l, name, None));
        }
        f.out.emit(Finding::pack_error(
            &format!("packfile {name} cannot be accessed"),
            name,
            None,
        ));
        return None;
    }
    Some((index, p.bytes()?, err))
}

/// Each entry of a pack, by offset: its CRC checked against the index's, its header read and
/// its base found among the entries, on the pool a chunk at a time. Returns the entries, what
/// is rare about them, and whether a CRC did not match; git dies (`Err`) at an entry past the
/// end of the pack, after the trailer's lines (the trailer is then hashed into `sum` here; else one
/// of the jobs that resolve the delta tree hashes it).
fn read_entries<P: Providers>(
    f: &mut Fsck<'_, P>,
    index: &idx::Index<'_>,
    bytes: &[u8],
    raw: usize,
    name: &str,
    (sum, trailer): (&std::sync::OnceLock<Vec<u8>>, &(dyn Fn() -> Vec<u8> + Sync)),
) -> Result<(Vec<Ent>, Rare, bool), Fatal> {
    let sig_ofs = bytes.len() - raw;
    let mut err = false;
    let order = by_offset(index, name)?;
    let mut ents: Vec<Ent> = order.into_iter().map(|(off, n)| Ent::at(off, n)).collect();
    let mut rare = Rare::default();
    let count = ents.len();
    let crc_of = |ents: &[Ent], i: usize| {
        let off = (ents[i].off() as usize).min(sig_ofs);
        let end = ents
            .get(i + 1)
            .map_or(sig_ofs, |e| (e.off() as usize).min(sig_ofs));
        crc32fast::hash(&bytes[off..end.max(off)])
    };
    let crcs_wanted = index.version() > 1;
    let limited = &bytes[..sig_ofs];
    // Each entry's CRC and header, read on the pool a chunk at a time (an entry past the end is
    // refused below before its header is used), with the entry as its header describes it and its
    // base's place among the entries; what is rare about an entry (a damaged header, a base that
    // is not an entry) is described again below, in order, into the pack's record of such
    // entries.
    let read = |ents: &[Ent], i: usize| {
        let crc = crcs_wanted.then(|| crc_of(ents, i));
        let head = pack::entry(limited, ents[i].off(), raw);
        let (ent, base) = describe(i, ents[i].off(), ents[i].n, &head, index, name, None);
        let found =
            base.and_then(|(target, _)| ents.binary_search_by_key(&target, |e| e.off()).ok());
        let usual = head.is_ok()
            && (base.is_some() == ent.is_delta())
            && (base.is_none() || found.is_some());
        (crc, head, usual.then_some((ent, found)))
    };
    // CRCs, headers, bases: the headers read a chunk at a time, so that what they hold before
    // they are described takes a few MB, not some 50 bytes an entry.
    for chunk in (0..count).step_by(READ_CHUNK) {
        let span = chunk..(chunk + READ_CHUNK).min(count);
        let heads: Vec<_> = f.pool.install(|| {
            use rayon::prelude::*;
            let ents = ents.as_slice();
            span.clone()
                .into_par_iter()
                .map(|i| read(ents, i))
                .collect()
        });
        for (i, (crc, head, usual)) in span.zip(&heads) {
            let off = ents[i].off();
            if off > sig_ofs as u64 {
                let _ = sum.set(trailer());
                trailer_lines(f, name, sum.get(), bytes, index.pack_checksum());
                return Err(Fatal::msg(
                    "offset beyond end of packfile (truncated pack?)",
                ));
            }
            let n = ents[i].n;
            if let Some(crc) = *crc
                && Some(crc) != index.crc32(n)
            {
                let m = format!(
                    "index CRC mismatch for object {} from {name} at offset {off}",
                    hex(index.id(n))
                );
                f.out
                    .emit(Finding::pack_error(&m, name, Some(off)).about(&hex(index.id(n)), None));
                err = true;
            }
            if let Some((ent, found)) = *usual {
                ents[i] = ent;
                if let Some(b) = found {
                    ents[i].base = b as u32;
                }
                continue;
            }
            let (ent, base) = describe(i, off, n, head, index, name, Some(&mut rare));
            ents[i] = ent;
            if let Some(target) = base {
                let found = ents.binary_search_by_key(&target.0, |e| e.off()).ok();
                ents[i].base = link_base(i, &ents[i], target, found, name, Some(&mut rare));
            }
        }
    }
    Ok((ents, rare, err))
}

/// The delta tree of a pack resolved from its roots, on the pool (one of its jobs hashes the
/// trailer into `sum`, unless it is there already): what each worker found.
fn resolve_tree<P: Providers>(
    f: &Fsck<'_, P>,
    (packs, pi): (&[PackState], usize),
    pctx: &PackCtx<'_>,
    roots: &[u32],
    (sum, trailer): (&std::sync::OnceLock<Vec<u8>>, &(dyn Fn() -> Vec<u8> + Sync)),
) -> Vec<Local> {
    let mut core = f.core_with(packs);
    core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
    core.edgeless = core.promisor;
    let pool = &f.pool;
    let split = Split {
        big: big_subtrees(pctx.ents, pctx.children, roots),
        pending: AtomicUsize::new(0),
        limit: pool.current_num_threads() * 2,
    };
    pool.install(|| {
        rayon::scope(|s| {
            if sum.get().is_none() {
                s.spawn(|_| {
                    let _ = sum.set(trailer());
                });
            }
            for group in roots.chunks(ROOTS_PER_JOB) {
                let (core, split) = (&core, &split);
                s.spawn(move |s| {
                    on_worker(|w| {
                        for &root in group {
                            resolve(core, pctx, w, root as usize, Some((s, split)));
                        }
                    });
                });
            }
        });
    });
    // What each thread's worker produced; its inflater stays on its thread.
    pool.broadcast(|_| with_existing_worker::<P::Inflater, _>(|w| std::mem::take(&mut w.l)))
        .into_iter()
        .flatten()
        .collect()
}

/// What no root of the delta tree reached (`done` has no bit for it): a cycle of REF_DELTA bases,
/// which git follows until memory runs out, reported instead. Returns whether there was one.
fn report_cycles<P: Providers>(
    f: &mut Fsck<'_, P>,
    ents: &[Ent],
    done: &[AtomicU64],
    index: &idx::Index<'_>,
    name: &str,
) -> bool {
    let mut err = false;
    for (i, e) in ents.iter().enumerate() {
        if done[i / 64].load(Relaxed) & (1 << (i % 64)) != 0 {
            continue;
        }
        let id = hex(index.id(e.n));
        let m = format!(
            "delta base cycle: the delta at offset {} in {name} never reaches a base object",
            e.off()
        );
        f.out
            .emit(Finding::pack_error(&m, name, Some(e.off())).about(&id, None));
        let m = format!("cannot unpack {id} from {name} at offset {}", e.off());
        f.out
            .emit(Finding::pack_error(&m, name, Some(e.off())).about(&id, None));
        err = true;
    }
    err
}

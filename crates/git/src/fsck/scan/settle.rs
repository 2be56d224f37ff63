//! A pack's results folded into the run: the workers' findings and links ([`fold`]), the special
//! blobs' events replayed in git's order, a pack checked again in git's order when the workers met a
//! type conflict ([`settle`]), and the lines of its trailer's checksums.

use crate::Kind;
use crate::Providers;
use crate::fsck::finding::Finding;
use crate::fsck::table::oid;
use crate::fsck::{Fsck, hex};

use super::check::Local;
use super::read::read_object;

/// The workers' results folded into the run, in order: whether one found an error, and the special
/// blobs their trees named (to be replayed in pack order).
pub(super) fn fold<P: Providers>(f: &mut Fsck<'_, P>, locals: Vec<Local>) -> (bool, SpecialEvents) {
    let mut err = false;
    let mut events = Vec::new();
    for mut l in locals {
        f.stats.times.add(&l.times);
        err |= l.err;
        events.append(&mut l.special_events);
        f.apply(&mut l);
    }
    (err, events)
}

/// The blobs trees named `.gitmodules` or `.gitattributes`, in git's order: the workers checked
/// trees with sets of their own and no such blob; here the pack's entries are taken in offset
/// order, as git takes them, so that a blob is checked now when a tree named it first (its
/// findings then count for the pack, as in git) and left to `fsck_finish` otherwise.
pub(super) fn replay_special<P: Providers>(
    f: &mut Fsck<'_, P>,
    pi: usize,
    mut events: Vec<(u64, Vec<u8>, bool)>,
) -> bool {
    let format = f.repo.format;
    let raw = format.raw_len();
    let Some(index) = f.stored.packs[pi].index(format) else {
        return false;
    };
    let mut candidates: Vec<Vec<u8>> = events.iter().map(|(_, id, _)| id.clone()).collect();
    let (modules, attributes) = f.settings.checks.special.found_since((0, 0));
    candidates.extend(modules.iter().chain(attributes).cloned());
    candidates.sort();
    candidates.dedup();
    // A blob event sorts after a tree event at the same offset, which cannot happen.
    let mut blobs: Vec<(u64, Vec<u8>)> = candidates
        .into_iter()
        .filter_map(|id| {
            let n = index.lookup(&id[..raw.min(id.len())])?;
            Some((index.offset(n).ok()?, id))
        })
        .collect();
    if events.is_empty() && blobs.is_empty() {
        return false;
    }
    events.sort_by_key(|e| e.0);
    blobs.sort();
    let mut err = false;
    let mut ev = events.into_iter().peekable();
    for (off, id) in blobs {
        while let Some((_, name, modules)) = ev.next_if(|e| e.0 < off) {
            if modules {
                f.settings.checks.special.add_gitmodules(&name);
            } else {
                f.settings.checks.special.add_gitattributes(&name);
            }
        }
        let special = f.settings.checks.special.is_gitmodules(&id)
            || f.settings.checks.special.is_gitattributes(&id);
        let o = f.table.get(&oid(&id)).map(|i| f.table.obj(i));
        let checked = o.is_some_and(|o| {
            o.kind == Some(Kind::Blob) && o.flags & crate::fsck::table::HAS_OBJ != 0
        });
        if !special || !checked {
            continue;
        }
        let mut findings = Vec::new();
        let data = read_object(f, &oid(&id)).map(|(_, d)| d);
        let failed = match data {
            Some(d) if (d.len() as u64) < f.settings.big_file_threshold => {
                crate::check::check_object(
                    Kind::Blob,
                    &id,
                    &d,
                    format,
                    &f.settings.checks.opts,
                    &mut f.settings.checks.special,
                    &mut findings,
                )
            }
            _ => crate::check::check_unloaded_blob(
                &id,
                &f.settings.checks.opts,
                &mut f.settings.checks.special,
                &mut findings,
            ),
        };
        for finding in findings {
            let line = finding.line(Kind::Blob, &hex(&id));
            f.out.err_bytes(&line);
        }
        err |= failed;
    }
    for (_, name, modules) in ev {
        if modules {
            f.settings.checks.special.add_gitmodules(&name);
        } else {
            f.settings.checks.special.add_gitattributes(&name);
        }
    }
    err
}

/// The special-blob events of a pack: (tree offset, blob id, `.gitmodules`?).
pub(super) type SpecialEvents = Vec<(u64, Vec<u8>, bool)>;

/// The workers' results folded into the run ([`fold`]), unless they met a type conflict or a
/// damaged entry: then `None`, nothing is folded in, and the pack is checked again in git's
/// order. A type conflict is an object that a link names as another type than the object has,
/// or two links that name it as two types (git's `object X is a T, not a U`): which of the two
/// git reports (the link, or the object as corrupt) depends on which it reads first, and the
/// workers did not read the pack in git's order. A damaged entry (one that could not be
/// unpacked) has its lines printed by git again from each delta whose chain reaches it, as far
/// as git's delta base cache, which holds what git's order put there, lets the chain go.
pub(super) fn settle<P: Providers>(
    f: &mut Fsck<'_, P>,
    mut locals: Vec<Local>,
) -> Option<(bool, SpecialEvents)> {
    if locals.iter().any(|l| !l.damaged.is_empty()) {
        return None;
    }
    let mut conflicts: usize = locals.iter().map(|l| l.conflicts).sum();
    for l in &mut locals {
        conflicts += f.resolve(l);
    }
    (conflicts == 0).then(|| fold(f, locals))
}

/// git's lines for a pack whose trailer is not the hash of the rest (`sum`) or not the checksum
/// its index names; whether there was one.
pub(super) fn trailer_lines<P: Providers>(
    f: &mut Fsck<'_, P>,
    name: &str,
    sum: Option<&Vec<u8>>,
    bytes: &[u8],
    in_idx: &[u8],
) -> bool {
    let trailer = &bytes[bytes.len() - in_idx.len()..];
    let mut err = false;
    if sum.is_none_or(|s| s.as_slice() != trailer) {
        let m = format!("{name} pack checksum mismatch");
        f.out.emit(Finding::pack_error(&m, name, None));
        err = true;
    }
    if trailer != in_idx {
        let m = format!("{name} pack checksum does not match its index");
        f.out.emit(Finding::pack_error(&m, name, None));
        err = true;
    }
    err
}

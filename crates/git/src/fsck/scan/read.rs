//! Reading one object again by its id, through the store ([`super::store`]): for the walk, the
//! heads and the promisor set; and the types, places and ids of packed objects that they ask for.

use crate::Kind;
use crate::Providers;
use crate::fsck::Fsck;
use crate::fsck::table::{Oid, oid};

use super::store::BaseCache;

/// Reads object `id` from the store (packs first, then loose), as git's `read_object` would for
/// a valid object: `None` when it is missing or cannot be read.
pub fn read_object<P: Providers>(f: &Fsck<'_, P>, id: &Oid) -> Option<(Kind, Vec<u8>)> {
    read_object_with(f, id, &mut Vec::new())
}

/// [`read_object`] through a [`BaseCache`], for a pass over many objects.
pub fn read_object_cached<P: Providers>(
    f: &Fsck<'_, P>,
    id: &Oid,
    cache: &mut BaseCache,
) -> Option<(Kind, Vec<u8>)> {
    read_object_in(f, id, &mut Vec::new(), Some(cache))
}

/// Where `id` is first stored in a usable pack: (pack, offset), the order of a pass that reads
/// many objects through a [`BaseCache`].
pub fn packed_place<P: Providers>(f: &Fsck<'_, P>, id: &Oid) -> Option<(usize, u64)> {
    let raw = f.repo.format.raw_len();
    f.stored.packs.iter().enumerate().find_map(|(pi, p)| {
        let index = p.index(f.repo.format).filter(|_| p.usable)?;
        let n = index.lookup(&id[..raw])?;
        index.offset(n).ok().map(|o| (pi, o))
    })
}

/// [`read_object`], collecting in `lines` the `error:` lines (without the prefix) git prints when
/// a packed copy cannot be read.
pub fn read_object_with<P: Providers>(
    f: &Fsck<'_, P>,
    id: &Oid,
    lines: &mut Vec<String>,
) -> Option<(Kind, Vec<u8>)> {
    read_object_in(f, id, lines, None)
}

fn read_object_in<P: Providers>(
    f: &Fsck<'_, P>,
    id: &Oid,
    lines: &mut Vec<String>,
    cache: Option<&mut BaseCache>,
) -> Option<(Kind, Vec<u8>)> {
    let read = f.store().read(id, lines, cache);
    if let Some(m) = read.fatal {
        *f.stored.pending_fatal.borrow_mut() = Some(m);
        return None;
    }
    read.object
}

/// The type git's `oid_object_info` gives `id`, from headers alone
/// ([`super::store::Store::object_type`]); its lines are kept in [`Stored::notes`](crate::fsck::Stored::notes), its death in
/// [`Stored::pending_fatal`](crate::fsck::Stored::pending_fatal).
pub fn stored_kind<P: Providers>(f: &Fsck<'_, P>, id: &Oid) -> Option<Kind> {
    let mut lines = Vec::new();
    let found = f.store().object_type(id, &mut lines);
    if let Ok(mut notes) = f.stored.notes.lock() {
        notes.extend(lines);
    }
    match found {
        Ok(k) => k,
        Err(m) => {
            f.stored.pending_fatal.borrow_mut().get_or_insert(m);
            None
        }
    }
}

/// The ids in every usable pack (for `--connectivity-only`), as git's `for_each_packed_object`
/// lists them: a pack whose index does not load says so (its error, into the notes).
pub fn packed_ids<P: Providers>(f: &Fsck<'_, P>) -> Vec<Oid> {
    let format = f.repo.format;
    let mut out = Vec::new();
    let unloaded = f.stored.packs.iter().filter(|p| p.lookup_any());
    let mut lines: Vec<String> = unloaded.flat_map(|p| p.lookup_lines.clone()).collect();
    // A multi-pack-index's pack whose index is there but does not load (not one that is gone):
    // the index's error, without the pack's (see `packs::unopened_packs`).
    for p in f.stored.packs.iter().filter(|p| p.open_lines.len() > 1) {
        lines.extend(p.open_lines[..p.open_lines.len() - 1].iter().cloned());
    }
    if !lines.is_empty()
        && let Ok(mut notes) = f.stored.notes.lock()
    {
        notes.extend(lines);
    }
    for p in &f.stored.packs {
        if let Some(index) = p.index(format) {
            out.extend((0..index.len()).map(|n| oid(index.id(n))));
        }
    }
    out
}

/// Every id in the packs git would check (for the progress total).
pub fn total_objects<P: Providers>(f: &Fsck<'_, P>) -> u64 {
    let format = f.repo.format;
    f.stored
        .packs
        .iter()
        .filter_map(|p| p.index(format))
        .map(|i| u64::from(i.len()))
        .sum()
}

/// git's `has_object` ([`super::store::Store::has_object`]).
pub fn has_object<P: Providers>(f: &Fsck<'_, P>, id: &Oid) -> bool {
    f.store().has_object(id)
}

/// git's `has_object_pack`.
pub fn has_object_pack<P: Providers>(f: &Fsck<'_, P>, id: &Oid) -> bool {
    f.store().has_object_pack(id)
}

//! git's promisor objects (`is_promisor_object`): in a partial clone, what the promisor packs
//! hold and every object they link to may be missing without being an error.

use crate::Kind;
use crate::Providers;
use crate::gitconfig::Config;

use super::table::{self, Oid, oid};
use super::{Fsck, scan};

/// git's `is_promisor_object` set: the objects of promisor packs and every object they link to.
///
/// git reads each of them (`add_promisor_object`: a tree's buffer is freed once checked, so every
/// tree is parsed again). They are read here in pack order through one [`scan::BaseCache`], so a
/// delta finds its base decoded instead of decoding its whole chain again, and whole blobs, which
/// link to nothing, are not read at all: their entry headers say so. A tree gives every entry,
/// gitlinks included, as git's does.
pub(super) fn promisor_referents<P: Providers>(f: &mut Fsck<'_, P>) {
    let format = f.repo.format;
    let raw = format.raw_len();
    // Each id of a promisor pack once, at its first place, whether it is a whole blob there.
    let mut places: Vec<((usize, u64), Oid, bool)> = Vec::with_capacity(f.heads.promisor.len());
    let mut placed = std::collections::HashSet::with_capacity_and_hasher(
        f.heads.promisor.len(),
        table::IdHash::default(),
    );
    for (pi, p) in f.stored.packs.iter().enumerate() {
        let (Some(index), Some(bytes)) = (p.index(format).filter(|_| p.usable), p.bytes()) else {
            continue;
        };
        for n in 0..index.len() {
            let id = oid(index.id(n));
            if !f.heads.promisor.contains(&id) || !placed.insert(id) {
                continue;
            }
            let Ok(off) = index.offset(n) else { continue };
            let blob = bytes.len().checked_sub(raw).is_some_and(|end| {
                matches!(
                    crate::pack::entry(&bytes[..end], off, raw),
                    Ok(e) if matches!(e.kind, crate::pack::EntryKind::Object(k) if k == Kind::Blob)
                )
            });
            places.push(((pi, off), id, blob));
        }
    }
    places.sort_unstable_by_key(|p| p.0);
    let mut cache = scan::BaseCache::new(96 << 20);
    for (_, id, blob) in places {
        if blob {
            continue;
        }
        if let Some((k, data)) = scan::read_object_cached(f, &id, &mut cache) {
            if k == Kind::Tree {
                let promisor = &mut f.heads.promisor;
                crate::links::tree_entry_ids(&data, format, |t| {
                    promisor.insert(oid(t));
                });
                continue;
            }
            let mut links = super::walk::links(k, &id, &data, format);
            if k == Kind::Commit {
                super::grafts::apply(&mut links, f.heads.grafts.of(&id, &f.heads.shallow), format);
            }
            for t in links.targets {
                f.heads.promisor.insert(oid(&t.id));
            }
        }
    }
}

/// [`promisor_referents`] from the links the packs' checks kept, reading nothing: a checked
/// object's links in the table (a commit's with its grafts applied, a tree's to trees and to
/// blobs that are not stored), and the stored blobs a promisor pack's trees link to, which the
/// checks noted as they counted them.
pub(super) fn promisor_links<P: Providers>(f: &mut Fsck<'_, P>) {
    let mut seen = vec![false; f.table.len()];
    let mut found = Vec::new();
    // A pack whose index does not load has no table indexes.
    for p in f
        .stored
        .packs
        .iter()
        .filter(|p| p.usable && p.files.promisor)
    {
        for i in p.table_index.iter() {
            for &e in f.table.edges_of(i) {
                if let Some(t) = table::edge_target(e)
                    && let Some(s) = seen.get_mut(t as usize)
                    && !*s
                {
                    *s = true;
                    found.push(t);
                }
            }
        }
    }
    for t in found {
        f.heads.promisor.insert(f.table.obj(t).id);
    }
}

pub(super) fn has_promisor_remote(config: &Config) -> bool {
    if config.get("extensions.partialclone").is_some() {
        return true;
    }
    // git's promisor_remote_config: `remote.<name>.promisor` true, or a partial clone filter.
    config.entries.iter().any(|e| {
        e.key.starts_with("remote.")
            && ((e.key.ends_with(".promisor")
                && crate::gitconfig::parse_maybe_bool(e.value.as_deref()) == Some(true))
                || e.key.ends_with(".partialclonefilter"))
    })
}

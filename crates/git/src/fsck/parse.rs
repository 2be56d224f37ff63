//! git's `parse_object` as the heads and the connectivity walk use it: an object that was
//! checked is taken as it is, any other is read from the store, hashed and parsed (a commit's or
//! tag's links looked up with the types they name), and hex ids read from files.

use crate::Kind;
use crate::Providers;

use super::table::{HAS_OBJ, Oid, PARSED, oid};
use super::{Fatal, Fsck};

/// git's `parse_object`: the object when it was checked and found valid, or when it can be read
/// from the store and hashes to its id (`error: hash mismatch` otherwise). git dies when the
/// object's stored copy cannot be read at all.
pub fn parse_object<P: Providers>(f: &mut Fsck<'_, P>, id: &Oid) -> Result<Option<u32>, Fatal> {
    if let Some(i) = f.table.get(id)
        && f.table.obj(i).flags & HAS_OBJ != 0
        && f.table.obj(i).kind.is_some()
        && (!f.opts.connectivity_only || f.table.obj(i).flags & PARSED != 0)
        && !(f.table.obj(i).kind == Some(Kind::Tree) && f.store_has_side_effects(id))
    {
        return Ok(Some(i));
    }
    Ok(parse_stored(f, id)?.map(|(i, _, _)| i))
}

/// [`parse_object`] of an object not parsed yet: read from the store and parsed, with its type
/// and content.
pub fn parse_stored<P: Providers>(
    f: &mut Fsck<'_, P>,
    id: &Oid,
) -> Result<Option<(u32, Kind, Vec<u8>)>, Fatal> {
    // git's `parse_object` asks an object it does not have yet (or has as a blob) for its type
    // first (`oid_object_info`): from the headers of a packed copy's delta chain, marking bad what
    // cannot be followed, so that the read below dies as git's does. It has an object once it
    // was given a type, and with --connectivity-only every stored object from the start.
    let known = f.table.get(id).map(|i| f.table.obj(i));
    let has = known
        .is_some_and(|o| o.kind.is_some() || (f.opts.connectivity_only && o.flags & HAS_OBJ != 0));
    if !has || known.is_some_and(|o| o.kind == Some(Kind::Blob)) {
        let mut lines = Vec::new();
        let found = f.store().object_type(id, &mut lines);
        for l in &lines {
            f.out.error(l);
        }
        found.map_err(Fatal::msg)?;
    }
    // git's `repo_read_object_file`: packs first, a copy that cannot be read marked bad and the
    // next read; git dies when none could be read and one is corrupt.
    let mut lines = Vec::new();
    let read = f.store().read_or_die(id, &mut lines);
    for l in &lines {
        f.out.error(l);
    }
    if let Some(m) = read.fatal {
        return Err(Fatal::msg(m));
    }
    let Some((k, data)) = read.object else {
        return Ok(None);
    };
    match (f.settings.hash)(f.repo.format, k, &data) {
        Ok(real) if real == *id => {}
        _ => {
            f.out.error(&format!("hash mismatch {}", f.hex(id)));
            return Ok(None);
        }
    }
    // git's `parse_object_buffer`: the object looked up as its type, then (a commit or a tag)
    // parsed, which looks up what it names with the types it names them as.
    let i = match f.table.lookup(id, k) {
        Ok(i) => i,
        Err(c) => {
            f.out.error(&format!(
                "object {} is a {}, not a {}",
                f.hex(id),
                c.is.name(),
                k.name()
            ));
            return Ok(None);
        }
    };
    // (Parsing a tree does not read its entries.)
    if matches!(k, Kind::Commit | Kind::Tag) {
        let mut links = super::walk::links(k, id, &data, f.repo.format);
        if k == Kind::Commit {
            super::grafts::apply(
                &mut links,
                f.heads.grafts.of(id, &f.heads.shallow),
                f.repo.format,
            );
        }
        let table = &mut f.table;
        let raw = &id[..f.repo.format.raw_len()];
        let parsed = links.parse_lookups(k, raw, |tid, tk| {
            table.lookup(&oid(tid), tk).map(|_| ()).map_err(|c| c.is)
        });
        if let Err(lines) = parsed {
            for l in &lines {
                f.out.error(l);
            }
            return Ok(None);
        }
        for e in &links.errors {
            f.out.error(e);
        }
        if links.parse_failed {
            return Ok(None);
        }
    }
    // (The empty tree is read from git's cached objects, not from a store.)
    if f.table.obj(i).flags & HAS_OBJ == 0
        && f.opts.connectivity_only
        && *id != f.settings.empty_tree
    {
        f.table.or_flags(i, HAS_OBJ);
    }
    // git keeps what `parse_object` parsed: a commit, a tag, and a tree until the walk has
    // walked it (with --connectivity-only, every object).
    if f.opts.connectivity_only || k == Kind::Tree {
        f.table.or_flags(i, PARSED);
    }
    Ok(Some((i, k, data)))
}

impl<P: Providers> Fsck<'_, P> {
    /// Whether reading `id` again from the store could print something or mark a copy bad: a
    /// multi-pack-index sends it to a pack whose index does not load, or a pack holding it was
    /// found damaged. git's check of a tree forgets its content (`free_tree_buffer`), so each
    /// `parse_object` of a tree reads it again; flagsplit does so only then.
    fn store_has_side_effects(&self, id: &Oid) -> bool {
        if self.stored.lost.contains_key(id) {
            return true;
        }
        let raw = self.repo.format.raw_len();
        self.stored.packs.iter().any(|p| {
            p.damaged
                && p.index(self.repo.format)
                    .is_some_and(|x| x.lookup(&id[..raw]).is_some())
        })
    }
}

/// Parses a hex id of the repository's length.
pub fn parse_oid<P: Providers>(f: &Fsck<'_, P>, text: &[u8]) -> Option<Oid> {
    crate::format::parse_hex(text, f.repo.format.raw_len()).map(|raw| super::table::oid(&raw))
}

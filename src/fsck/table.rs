//! The objects fsck knows of, as git's object hash holds them: each with the type it was first
//! looked up or parsed as, git's flags, and (once it has been checked) the objects it links to.
//!
//! Links are kept as one `u32` each, the target's index with its expected type in the top two
//! bits, so that the connectivity walk never reads an object a second time.

use std::collections::HashMap;

use crate::object::Kind;

/// An object id, zero-padded to 32 bytes (SHA-1 ids use the first 20).
pub type Oid = [u8; 32];

/// Makes an [`Oid`] of `raw` (20 or 32 bytes; longer input is cut, shorter padded).
pub fn oid(raw: &[u8]) -> Oid {
    let mut o = [0u8; 32];
    let n = raw.len().min(32);
    o[..n].copy_from_slice(&raw[..n]);
    o
}

/// git's `REACHABLE`.
pub const REACHABLE: u8 = 1;
/// git's `SEEN`: checked once already.
pub const SEEN: u8 = 2;
/// git's `HAS_OBJ`: present and valid.
pub const HAS_OBJ: u8 = 4;
/// git's `USED`: something points to it.
pub const USED: u8 = 8;
/// Stored in some object directory or pack (git's `has_object`, before packed copies are marked
/// bad).
pub const PRESENT: u8 = 16;
/// Stored in a pack (git's `has_object_pack`).
pub const IN_PACK: u8 = 32;
/// Its packed copy could not be read as a delta base (git's `mark_bad_packed_object`): only a
/// loose copy still counts.
pub const BAD: u8 = 64;

/// An edge whose target could not be looked up as the type the link names (git's walk gets
/// `NULL` for it).
pub const BROKEN: u32 = 0x3fff_ffff;

/// One object.
#[derive(Clone, Debug)]
pub struct Obj {
    /// Its id.
    pub id: Oid,
    /// The type it was looked up or parsed as (`None`: git's `OBJ_NONE`).
    pub kind: Option<Kind>,
    /// git's flags.
    pub flags: u8,
    /// Its links, as a range of [`Table::edges`]: a commit's and a tag's, and a tree's links to
    /// trees and to blobs that are not stored (the others are only counted in `refs`).
    pub edges: (u32, u32),
    /// For a stored blob: how many checked trees link to it.
    pub refs: u32,
}

/// A fast hash of object ids. Stored objects' ids are uniformly distributed, but a tree can name
/// any id, so the whole id is mixed with a per-process random key: an attacker who writes ids into
/// a tree cannot aim them at one bucket.
#[derive(Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        let h = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

/// Builds [`IdHasher`]s with this process's key.
#[derive(Clone, Copy)]
pub struct IdHash(u64);

impl Default for IdHash {
    fn default() -> IdHash {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5eed);
        IdHash(h.finish() | 1)
    }
}

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(self.0)
    }
}

/// An [`Oid`] as a map key: its four words go to the hasher.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key(Oid);

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for w in self.0.chunks_exact(8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            state.write_u64(u64::from_le_bytes(b));
        }
    }
}

type IdMap = HashMap<Key, u32, IdHash>;

/// The table.
pub struct Table {
    map: IdMap,
    /// The index last found for ids of each hash slot (`u32::MAX`: none). Trees next to each other
    /// in a delta chain name mostly the same objects, so most lookups end here, in a quarter of a
    /// megabyte, instead of in the map.
    recent: Vec<u32>,
    /// The objects, in the order they became known.
    pub objs: Vec<Obj>,
    /// All links (see the module's documentation).
    pub edges: Vec<u32>,
}

/// A type conflict: git's "object X is a T, not a U".
#[derive(Debug)]
pub struct Conflict {
    /// The type it already has.
    pub is: Kind,
}

fn kind_bits(k: Kind) -> u32 {
    match k {
        Kind::Commit => 0,
        Kind::Tree => 1,
        Kind::Blob => 2,
        Kind::Tag => 3,
    }
}

/// The type an edge names.
pub fn edge_kind(e: u32) -> Kind {
    match e >> 30 {
        0 => Kind::Commit,
        1 => Kind::Tree,
        2 => Kind::Blob,
        _ => Kind::Tag,
    }
}

/// The target an edge names, or `None` for [`BROKEN`].
pub fn edge_target(e: u32) -> Option<u32> {
    let t = e & 0x3fff_ffff;
    (t != BROKEN).then_some(t)
}

/// Makes an edge.
pub fn edge(target: Option<u32>, kind: Kind) -> u32 {
    (kind_bits(kind) << 30) | target.unwrap_or(BROKEN)
}

/// The number of [`Table::recent`] slots.
const RECENT: usize = 1 << 16;

impl Default for Table {
    fn default() -> Table {
        Table {
            map: IdMap::default(),
            recent: vec![u32::MAX; RECENT],
            objs: Vec::new(),
            edges: Vec::new(),
        }
    }
}

impl Table {
    /// The index of `id`, if known.
    pub fn get(&self, id: &Oid) -> Option<u32> {
        self.map.get(&Key(*id)).copied()
    }

    /// git's `lookup_unknown_object`: the object, created without a type if new.
    pub fn unknown(&mut self, id: &Oid) -> u32 {
        if let Some(&i) = self.map.get(&Key(*id)) {
            return i;
        }
        let i = self.objs.len() as u32;
        self.objs.push(Obj {
            id: *id,
            kind: None,
            flags: 0,
            edges: (0, 0),
            refs: 0,
        });
        self.map.insert(Key(*id), i);
        i
    }

    /// git's `lookup_<type>`: the object as `kind`, created if new; a conflict when it already
    /// has another type.
    pub fn lookup(&mut self, id: &Oid, kind: Kind) -> Result<u32, Conflict> {
        let slot = (u64::from_le_bytes([id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7]])
            ^ u64::from(id[8]) << 3) as usize
            & (RECENT - 1);
        let cached = self.recent[slot];
        let i = match self.objs.get(cached as usize) {
            Some(o) if o.id == *id => cached,
            _ => {
                let i = self.unknown(id);
                self.recent[slot] = i;
                i
            }
        };
        let o = &mut self.objs[i as usize];
        match o.kind {
            None => {
                o.kind = Some(kind);
                Ok(i)
            }
            Some(k) if k == kind => Ok(i),
            Some(k) => Err(Conflict { is: k }),
        }
    }

    /// The object at `i`.
    pub fn obj(&self, i: u32) -> &Obj {
        &self.objs[i as usize]
    }

    /// The object at `i`, to change.
    pub fn obj_mut(&mut self, i: u32) -> &mut Obj {
        &mut self.objs[i as usize]
    }

    /// Records `edges` as the links of `i`.
    pub fn set_edges(&mut self, i: u32, edges: &[u32]) {
        let start = self.edges.len() as u32;
        self.edges.extend_from_slice(edges);
        self.objs[i as usize].edges = (start, edges.len() as u32);
    }

    /// The links of `i`.
    pub fn edges_of(&self, i: u32) -> &[u32] {
        let (s, n) = self.objs[i as usize].edges;
        &self.edges[s as usize..(s + n) as usize]
    }

    /// The number of objects.
    pub fn len(&self) -> usize {
        self.objs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.objs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_keep_the_first_type() {
        let mut t = Table::default();
        let a = oid(&[1; 20]);
        let i = t.unknown(&a);
        assert_eq!(t.lookup(&a, Kind::Tree).unwrap(), i);
        assert!(matches!(
            t.lookup(&a, Kind::Blob),
            Err(Conflict { is: Kind::Tree })
        ));
        let e = edge(Some(i), Kind::Blob);
        assert_eq!((edge_target(e), edge_kind(e)), (Some(i), Kind::Blob));
        let e = edge(None, Kind::Tag);
        assert_eq!((edge_target(e), edge_kind(e)), (None, Kind::Tag));
    }
}

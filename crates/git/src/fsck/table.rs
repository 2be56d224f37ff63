//! The objects fsck knows of, as git's object hash holds them: each with the type it was first
//! looked up or parsed as, git's flags, and (once it has been checked) the objects it links to.
//!
//! Links are kept as one `u32` each, the target's index with its expected type in the top two
//! bits, so that the connectivity walk never reads an object a second time.

use std::hash::BuildHasher as _;
use std::sync::atomic::{AtomicU8, AtomicU16, Ordering::Relaxed};

use crate::Kind;

/// An object id, zero-padded to 32 bytes (SHA-1 ids use the first 20).
pub type Oid = [u8; 32];

/// Makes an [`Oid`] of `raw` (20 or 32 bytes; longer input is cut, shorter padded).
pub fn oid(raw: &[u8]) -> Oid {
    let mut o = [0u8; 32];
    // A SHA-1 id, the usual length, is moved as a 16-byte and a 4-byte word: a copy of a length
    // known only at run time is a call to memcpy (1.3% of a whole check of git.git). Written as
    // words, not as a 20-byte slice copy, which the compiler folds back into the call below.
    if let (Some(a), Some(b)) = (raw.first_chunk::<16>(), raw.get(16..20))
        && raw.len() == 20
    {
        o[..16].copy_from_slice(&u128::from_ne_bytes(*a).to_ne_bytes());
        let b: [u8; 4] = [b[0], b[1], b[2], b[3]];
        o[16..20].copy_from_slice(&u32::from_ne_bytes(b).to_ne_bytes());
        return o;
    }
    let n = raw.len().min(32);
    o[..n].copy_from_slice(&raw[..n]);
    o
}

/// [`Obj::refs`] of a count kept in [`Table::spilled`].
const SPILLED: u16 = u16::MAX;

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

/// git's `parsed`, where it is not the same as having a type: with `--connectivity-only`, what
/// the heads' `parse_object` parsed (the objects a parsed commit or tag names get their type, not
/// this).
pub const PARSED: u8 = 128;

/// An edge whose target could not be looked up as the type the link names (git's walk gets
/// `NULL` for it).
pub const BROKEN: u32 = 0x3fff_ffff;

/// The target of a promisor pack's tree's link to a blob that is not stored. No edge is kept
/// for it (`check::Core::edgeless`): the link only says that a tree which is a delta of this one
/// and names the same blob takes it as it is, the blob already noted for the promisor set.
pub const PROMISED: u32 = BROKEN - 1;

/// The most objects a table numbers (2^29): an edge's target at or above this, until the links
/// of a check are folded into the table, stands for the `n`-th object that check linked to and
/// the table did not have ([`MISSING_BASE`] + `n`).
pub const MAX_OBJECTS: u32 = 1 << 29;

/// See [`MAX_OBJECTS`]; the numbers stay below [`PROMISED`].
pub const MISSING_BASE: u32 = MAX_OBJECTS;

/// One object, as stored: its type, flags and count are atomics, so that the workers checking
/// a pack update them through a shared table. It holds the first 20 bytes of its id, all of a
/// SHA-1 id, beside its type and flags, so that a lookup finds both in one cache line; the other
/// 12 bytes of a SHA-256 id are kept apart ([`Table`]'s `tails`). 32 bytes in all.
#[derive(Debug)]
pub struct Obj {
    /// The first 20 bytes of its id.
    head: [u8; 20],
    /// The type it was looked up or parsed as: 0 for none (git's `OBJ_NONE`), else
    /// `kind_bits + 1`.
    kind: AtomicU8,
    /// git's flags.
    flags: AtomicU8,
    /// For a stored blob: how many checked trees link to it ([`SPILLED`]: the count is in
    /// [`Table::spilled`]). In what would be the record's padding: a tree's entries that it
    /// shares with its base are only counted.
    refs: AtomicU16,
    /// Its links, as a range of `Table::edges`: a commit's and a tag's, and a tree's links to
    /// trees and to blobs that are not stored (the others are only counted in `refs`).
    pub edges: (u32, u32),
}

/// Every object's type and flags at one time ([`Table::save`]): a type code and git's flags
/// each, or, when most objects share one state, that state and the others.
pub enum Saved {
    /// By object.
    Dense(Vec<u16>),
    /// The first `len` objects had `usual`, but `others`: (object, state).
    Sparse {
        /// How many objects there were.
        len: u32,
        /// The state most of them had.
        usual: u16,
        /// The others: (object, state).
        others: Vec<(u32, u16)>,
    },
}

/// A snapshot of one object.
#[derive(Clone, Copy, Debug)]
pub struct ObjView {
    /// Its id.
    pub id: Oid,
    /// Its type (`None`: git's `OBJ_NONE`).
    pub kind: Option<Kind>,
    /// git's flags.
    pub flags: u8,
    /// See [`Obj`].
    pub edges: (u32, u32),
    /// See [`Obj`].
    pub refs: u32,
}

fn kind_from(v: u8) -> Option<Kind> {
    match v {
        1 => Some(Kind::Commit),
        2 => Some(Kind::Tree),
        3 => Some(Kind::Blob),
        4 => Some(Kind::Tag),
        _ => None,
    }
}

fn kind_code(k: Kind) -> u8 {
    kind_bits(k) as u8 + 1
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

/// The table.
pub struct Table {
    /// The index of each object, by its id (which the table compares in `objs`).
    map: hashbrown::HashTable<u32>,
    /// The hasher of `map`.
    hasher: IdHash,
    /// The index last found for ids of each hash slot (`u32::MAX`: none). Trees next to each other
    /// in a delta chain name mostly the same objects, so most lookups end here, in a quarter of a
    /// megabyte, instead of in the map.
    recent: Vec<u32>,
    /// The objects, in the order they became known.
    objs: Vec<Obj>,
    /// The other 12 bytes of each object's id, kept only from the first id that has any (a
    /// SHA-256 id): empty while every id is a SHA-1 id.
    tails: Vec<[u8; 12]>,
    /// The counts of the blobs more than 65,534 checked trees link to (see [`Obj::refs`]).
    spilled: std::sync::Mutex<std::collections::HashMap<u32, u32>>,
    /// All links (see the module's documentation), in chunks: a worker's links are adopted whole
    /// when its results are folded in ([`Table::adopt_edges`]), not copied; smaller sets are
    /// appended to the last chunk while it is open.
    chunks: Vec<Vec<u32>>,
    /// Where each chunk starts in the numbering of all links.
    chunk_base: Vec<u32>,
    /// Whether the last chunk takes appends (it was not adopted).
    open: bool,
}

/// What [`Table::memory`] counts, in bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memory {
    /// Each object's id, type, flags and link range ([`Obj`]).
    pub objects: usize,
    /// The index by id, and the cache of recent lookups.
    pub map: usize,
    /// The counts of trees linking to a blob past 65,534 (the others are in the object records).
    pub refs: usize,
    /// The kept links (one `u32` each).
    pub links: usize,
    /// How many links are kept.
    pub link_count: usize,
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

/// The number of `Table::recent` slots, and of a worker's own cache of recent lookups.
pub const RECENT_SLOTS: usize = 1 << 16;
const RECENT: usize = RECENT_SLOTS;

fn slot_of(id: &Oid) -> usize {
    (u64::from_le_bytes([id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7]])
        ^ u64::from(id[8]) << 3) as usize
        & (RECENT - 1)
}

impl Default for Table {
    fn default() -> Table {
        Table {
            map: hashbrown::HashTable::new(),
            hasher: IdHash::default(),
            recent: vec![u32::MAX; RECENT],
            objs: Vec::new(),
            tails: Vec::new(),
            spilled: std::sync::Mutex::new(std::collections::HashMap::new()),
            chunks: Vec::new(),
            chunk_base: Vec::new(),
            open: false,
        }
    }
}

/// The id of object `i` of a table's `objs` and `tails`.
fn id_at(objs: &[Obj], tails: &[[u8; 12]], i: u32) -> Oid {
    let mut o = [0u8; 32];
    if let Some(h) = objs.get(i as usize) {
        o[..20].copy_from_slice(&h.head);
    }
    if let Some(t) = tails.get(i as usize) {
        o[20..].copy_from_slice(t);
    }
    o
}

/// Whether object `i` of a table's `objs` and `tails` has the id `id`.
fn id_is(objs: &[Obj], tails: &[[u8; 12]], i: u32, id: &Oid) -> bool {
    objs.get(i as usize).is_some_and(|h| h.head[..] == id[..20])
        && match tails.get(i as usize) {
            Some(t) => t[..] == id[20..],
            None => id[20..] == [0u8; 12],
        }
}

impl Table {
    fn find(&self, id: &Oid) -> Option<u32> {
        self.find_hashed(id, self.hash_of(id))
    }

    /// Whether object `i` has the id `id`.
    fn is(&self, i: u32, id: &Oid) -> bool {
        id_is(&self.objs, &self.tails, i, id)
    }

    /// Makes room for `n` more objects, and no more: as each pack is opened the table grows to
    /// hold its objects exactly (a doubling `Vec` could hold up to twice the objects' bytes).
    pub fn reserve(&mut self, n: usize) {
        self.objs.reserve_exact(n);
        let (objs, tails, hasher) = (&self.objs, &self.tails, &self.hasher);
        self.map
            .reserve(n, |&j| hasher.hash_one(Key(id_at(objs, tails, j))));
    }

    /// The index of `id`, if known.
    pub fn get(&self, id: &Oid) -> Option<u32> {
        self.find(id)
    }

    /// The hash the index by id files `id` under, for [`Table::find_hashed`] and
    /// [`Table::insert_new`]: computed apart, so that a pack's ids can be hashed and looked up on
    /// the pool and only the new ones added on one thread.
    pub fn hash_of(&self, id: &Oid) -> u64 {
        self.hasher.hash_one(Key(*id))
    }

    /// [`Table::get`] with the id's [`Table::hash_of`].
    pub fn find_hashed(&self, id: &Oid, hash: u64) -> Option<u32> {
        let (objs, tails) = (&self.objs, &self.tails);
        self.map.find(hash, |&i| id_is(objs, tails, i, id)).copied()
    }

    /// git's `lookup_unknown_object`: the object, created without a type if new.
    pub fn unknown(&mut self, id: &Oid) -> u32 {
        if let Some(i) = self.find(id) {
            return i;
        }
        self.insert_new(id, self.hash_of(id))
    }

    /// Adds `id`, which the table does not have ([`Table::find_hashed`] said so, or the caller
    /// knows it), with no type and no flags; `hash` is its [`Table::hash_of`].
    pub fn insert_new(&mut self, id: &Oid, hash: u64) -> u32 {
        debug_assert!(self.find_hashed(id, hash).is_none());
        let i = self.objs.len() as u32;
        let (mut head, mut tail) = ([0u8; 20], [0u8; 12]);
        head.copy_from_slice(&id[..20]);
        tail.copy_from_slice(&id[20..]);
        self.objs.push(Obj {
            head,
            kind: AtomicU8::new(0),
            flags: AtomicU8::new(0),
            refs: AtomicU16::new(0),
            edges: (0, 0),
        });
        if tail != [0u8; 12] || !self.tails.is_empty() {
            // From the first id with a tail on, every id has one.
            self.tails.resize(self.objs.len() - 1, [0u8; 12]);
            self.tails.push(tail);
        }
        let (objs, tails, hasher) = (&self.objs, &self.tails, &self.hasher);
        self.map
            .insert_unique(hash, i, |&j| hasher.hash_one(Key(id_at(objs, tails, j))));
        i
    }

    /// git's `lookup_<type>`: the object as `kind`, created if new; a conflict when it already
    /// has another type.
    pub fn lookup(&mut self, id: &Oid, kind: Kind) -> Result<u32, Conflict> {
        let slot = slot_of(id);
        let cached = self.recent[slot];
        let i = if self.is(cached, id) {
            cached
        } else {
            let i = self.unknown(id);
            self.recent[slot] = i;
            i
        };
        self.set_kind(i, kind).map(|()| i)
    }

    /// Gives `i` the type `kind` unless it has one: a conflict when it is another.
    pub fn set_kind(&self, i: u32, kind: Kind) -> Result<(), Conflict> {
        let cell = &self.objs[i as usize].kind;
        // Read first: nearly every object already has its type, and a read leaves the cache line
        // shared between the threads where a compare-and-swap would take it.
        let code = kind_code(kind);
        match cell.load(Relaxed) {
            v if v == code => return Ok(()),
            0 => {}
            v => {
                return Err(Conflict {
                    is: kind_from(v).unwrap_or(kind),
                });
            }
        }
        match cell.compare_exchange(0, code, Relaxed, Relaxed) {
            Ok(_) => Ok(()),
            Err(v) if v == kind_code(kind) => Ok(()),
            Err(v) => Err(Conflict {
                is: kind_from(v).unwrap_or(kind),
            }),
        }
    }

    /// git's `lookup_<type>` for an object already in the table, through the caller's cache of
    /// recent lookups (`recent`, [`RECENT_SLOTS`] entries): `Ok(None)` when the table does not
    /// have it. Takes the table shared: workers checking a pack look up at the same time.
    pub fn lookup_known(
        &self,
        id: &Oid,
        kind: Kind,
        recent: &mut [u32],
    ) -> Result<Option<u32>, Conflict> {
        let slot = slot_of(id);
        let cached = recent.get(slot).copied().unwrap_or(u32::MAX);
        let i = if self.is(cached, id) {
            cached
        } else {
            match self.find(id) {
                Some(i) => {
                    if let Some(r) = recent.get_mut(slot) {
                        *r = i;
                    }
                    i
                }
                None => return Ok(None),
            }
        };
        self.set_kind(i, kind).map(|()| Some(i))
    }

    /// The object at `i`.
    pub fn obj(&self, i: u32) -> ObjView {
        let o = &self.objs[i as usize];
        ObjView {
            id: id_at(&self.objs, &self.tails, i),
            kind: kind_from(o.kind.load(Relaxed)),
            flags: o.flags.load(Relaxed),
            edges: o.edges,
            refs: self.refs(i),
        }
    }

    /// Every object's type and flags, for [`Table::restore`].
    pub fn save(&self) -> Saved {
        let value =
            |o: &Obj| u16::from(o.kind.load(Relaxed)) << 8 | u16::from(o.flags.load(Relaxed));
        // Before a repository's first pack nearly every object has the state the pack's index
        // gave it; then only the others are kept, when that is smaller.
        let usual = self.objs.first().map_or(0, value);
        let others = self.objs.iter().filter(|o| value(o) != usual).count();
        if others * 6 < self.objs.len() * 2 {
            Saved::Sparse {
                len: self.objs.len() as u32,
                usual,
                others: self
                    .objs
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| value(o) != usual)
                    .map(|(i, o)| (i as u32, value(o)))
                    .collect(),
            }
        } else {
            Saved::Dense(self.objs.iter().map(value).collect())
        }
    }

    /// Puts back the types and flags [`Table::save`] took; an object made since has none.
    pub fn restore(&self, saved: &Saved) {
        for (i, o) in self.objs.iter().enumerate() {
            let v = match saved {
                Saved::Dense(d) => d.get(i).copied().unwrap_or(0),
                Saved::Sparse { len, usual, .. } => {
                    if (i as u32) < *len {
                        *usual
                    } else {
                        0
                    }
                }
            };
            o.kind.store((v >> 8) as u8, Relaxed);
            o.flags.store(v as u8, Relaxed);
        }
        if let Saved::Sparse { others, .. } = saved {
            for &(i, v) in others {
                if let Some(o) = self.objs.get(i as usize) {
                    o.kind.store((v >> 8) as u8, Relaxed);
                    o.flags.store(v as u8, Relaxed);
                }
            }
        }
    }

    /// Sets `flags` on `i`; returns the flags it had.
    pub fn or_flags(&self, i: u32, flags: u8) -> u8 {
        let cell = &self.objs[i as usize].flags;
        // As in `set_kind`: no write when the flags are set already.
        let had = cell.load(Relaxed);
        if had & flags == flags {
            return had;
        }
        cell.fetch_or(flags, Relaxed)
    }

    /// How many checked trees link to the blob `i`.
    fn refs(&self, i: u32) -> u32 {
        match self.objs.get(i as usize).map(|o| o.refs.load(Relaxed)) {
            Some(SPILLED) => self.with_spilled(|m| m.get(&i).copied().unwrap_or(0)),
            Some(v) => u32::from(v),
            None => 0,
        }
    }

    fn with_spilled<R>(&self, f: impl FnOnce(&mut std::collections::HashMap<u32, u32>) -> R) -> R {
        match self.spilled.lock() {
            Ok(mut m) => f(&mut m),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Sets the count of the blob `i` to `change(count)` (no change for `None`). A count that
    /// does not fit beside the object moves to [`Table::spilled`], under its lock; the common
    /// case is one compare-and-swap.
    fn change_refs(&self, i: u32, change: impl Fn(u32) -> Option<u32>) {
        let Some(cell) = self.objs.get(i as usize).map(|o| &o.refs) else {
            return;
        };
        let fits = cell.fetch_update(Relaxed, Relaxed, |v| {
            if v == SPILLED {
                return None;
            }
            change(u32::from(v)).and_then(|n| u16::try_from(n).ok().filter(|&n| n != SPILLED))
        });
        if fits.is_ok() {
            return;
        }
        // Under the lock; a count beside its object can still change without it, so the
        // change is a compare-and-swap here too (a spilled one changes only under the lock).
        self.with_spilled(|m| {
            loop {
                let v = cell.load(Relaxed);
                let now = if v == SPILLED {
                    m.get(&i).copied().unwrap_or(0)
                } else {
                    u32::from(v)
                };
                let Some(n) = change(now) else {
                    return;
                };
                let small = u16::try_from(n).ok().filter(|&n| n != SPILLED);
                if cell
                    .compare_exchange(v, small.unwrap_or(SPILLED), Relaxed, Relaxed)
                    .is_ok()
                {
                    match small {
                        Some(_) => m.remove(&i),
                        None => m.insert(i, n),
                    };
                    return;
                }
            }
        });
    }

    /// Counts one more checked tree linking to the blob `i`.
    pub fn add_ref(&self, i: u32) {
        self.change_refs(i, |v| v.checked_add(1));
    }

    /// Counts `n` more checked trees linking to the blob `i`.
    pub fn add_refs(&self, i: u32, n: u32) {
        self.change_refs(i, |v| Some(v.saturating_add(n)));
    }

    /// Counts no checked tree linking to the blob `i`.
    pub fn clear_refs(&self, i: u32) {
        self.change_refs(i, |_| Some(0));
    }

    /// Counts one checked tree less.
    pub fn sub_ref(&self, i: u32) {
        self.change_refs(i, |v| v.checked_sub(1));
    }

    /// Every object, as snapshots.
    pub fn iter(&self) -> impl Iterator<Item = ObjView> + '_ {
        (0..self.objs.len() as u32).map(|i| self.obj(i))
    }

    /// The number of links recorded.
    fn edges_len(&self) -> u32 {
        match (self.chunk_base.last(), self.chunks.last()) {
            (Some(&b), Some(c)) => b + c.len() as u32,
            _ => 0,
        }
    }

    /// Records `edges` as the links of `i`.
    pub fn set_edges(&mut self, i: u32, edges: &[u32]) {
        if !self.open {
            self.chunk_base.push(self.edges_len());
            self.chunks.push(Vec::new());
            self.open = true;
        }
        let start = self.edges_len();
        if let Some(c) = self.chunks.last_mut() {
            c.extend_from_slice(edges);
        }
        self.objs[i as usize].edges = (start, edges.len() as u32);
    }

    /// Takes `edges` whole as a chunk of links and returns the number of its first link, for
    /// [`Table::set_edge_range`].
    pub fn adopt_edges(&mut self, edges: Vec<u32>) -> u32 {
        let base = self.edges_len();
        self.chunk_base.push(base);
        self.chunks.push(edges);
        self.open = false;
        base
    }

    /// Records the `n` links from number `start` (in an adopted chunk) as the links of `i`.
    pub fn set_edge_range(&mut self, i: u32, start: u32, n: u32) {
        self.objs[i as usize].edges = (start, n);
    }

    /// The links of `i`.
    pub fn edges_of(&self, i: u32) -> &[u32] {
        let (s, n) = self.objs[i as usize].edges;
        if n == 0 {
            return &[];
        }
        let c = self
            .chunk_base
            .partition_point(|&b| b <= s)
            .saturating_sub(1);
        let (Some(&base), Some(chunk)) = (self.chunk_base.get(c), self.chunks.get(c)) else {
            return &[];
        };
        let from = (s - base) as usize;
        chunk.get(from..from + n as usize).unwrap_or(&[])
    }

    /// The bytes the table uses, by what they are for (a `Vec`'s spare capacity is not counted:
    /// pages never written take no memory).
    pub fn memory(&self) -> Memory {
        Memory {
            objects: self.objs.len() * std::mem::size_of::<Obj>() + self.tails.len() * 12,
            map: self.map.allocation_size() + self.recent.len() * 4,
            refs: self.with_spilled(|m| m.capacity() * 16),
            links: self.chunks.iter().map(|c| c.len() * 4).sum(),
            link_count: self.edges_len() as usize,
        }
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

    /// Ids are kept as 20 bytes while every id's last 12 are zero; the first id with a tail
    /// gives every id one, and each is found and given back whole.
    #[test]
    fn ids_with_and_without_tails() {
        let mut t = Table::default();
        let short: Vec<Oid> = (1..=5u8).map(|n| oid(&[n; 20])).collect();
        let long: Vec<Oid> = (1..=5u8).map(|n| oid(&[n; 32])).collect();
        let a: Vec<u32> = short.iter().map(|id| t.unknown(id)).collect();
        assert!(t.tails.is_empty());
        let b: Vec<u32> = long.iter().map(|id| t.unknown(id)).collect();
        assert_eq!(t.tails.len(), t.objs.len());
        for (ids, ns) in [(&short, &a), (&long, &b)] {
            for (id, &n) in ids.iter().zip(ns) {
                assert_eq!(t.get(id), Some(n));
                assert_eq!(t.obj(n).id, *id);
            }
        }
        // Same first 20 bytes, other tails: not the same object.
        let mut other = long[0];
        other[31] ^= 1;
        assert_eq!(t.get(&other), None);
        assert_ne!(a[0], b[0]);
        assert_eq!(std::mem::size_of::<Obj>(), 32);
        assert_eq!(t.memory().objects, 10 * 32 + 10 * 12);
    }

    /// Ids hashed apart (as a pack's are, on the pool) are found as by id, and added without a
    /// second lookup.
    #[test]
    fn hashed_apart_found_as_by_id() {
        let mut t = Table::default();
        let ids: Vec<Oid> = (1..=300u16)
            .map(|n| {
                let mut raw = [0u8; 20];
                raw[..2].copy_from_slice(&n.to_be_bytes());
                oid(&raw)
            })
            .collect();
        // Hashed first, as for a pack's index on the pool, then added.
        let hashes: Vec<u64> = ids.iter().map(|id| t.hash_of(id)).collect();
        for (id, &h) in ids.iter().zip(&hashes) {
            assert_eq!(t.find_hashed(id, h), None);
            let i = t.insert_new(id, h);
            assert_eq!(t.obj(i).id, *id);
        }
        for (n, (id, &h)) in ids.iter().zip(&hashes).enumerate() {
            assert_eq!(t.find_hashed(id, h), Some(n as u32));
            assert_eq!(t.get(id), Some(n as u32));
            assert_eq!(t.unknown(id), n as u32);
        }
        assert_eq!(t.len(), ids.len());
        // A SHA-256 id is kept whole beside the SHA-1 ones.
        let long = oid(&[9; 32]);
        let i = t.insert_new(&long, t.hash_of(&long));
        assert_eq!(t.get(&long), Some(i));
        assert_eq!(t.obj(i).id, long);
    }

    /// A blob's count lives beside the object up to 65,534 and beyond that in the spill map,
    /// through every change, and comes back when it is small again.
    #[test]
    fn counts_spill_and_return() {
        let mut t = Table::default();
        let i = t.unknown(&oid(&[7; 20]));
        let j = t.unknown(&oid(&[8; 20]));
        t.add_refs(i, 65_533);
        t.add_ref(i);
        assert_eq!(t.obj(i).refs, 65_534);
        assert!(t.with_spilled(|m| m.is_empty()));
        t.add_ref(i);
        assert_eq!(t.obj(i).refs, 65_535);
        assert_eq!(t.with_spilled(|m| m.get(&i).copied()), Some(65_535));
        t.add_refs(i, 100_000);
        assert_eq!(t.obj(i).refs, 165_535);
        t.add_refs(i, u32::MAX);
        assert_eq!(t.obj(i).refs, u32::MAX);
        // As before: a count that cannot grow stays; one at 0 does not go below.
        t.add_ref(i);
        assert_eq!(t.obj(i).refs, u32::MAX);
        t.clear_refs(i);
        assert_eq!(t.obj(i).refs, 0);
        assert!(t.with_spilled(|m| m.is_empty()));
        t.sub_ref(i);
        assert_eq!(t.obj(i).refs, 0);
        t.add_refs(j, 65_536);
        for _ in 0..2 {
            t.sub_ref(j);
        }
        assert_eq!(t.obj(j).refs, 65_534);
        assert!(t.with_spilled(|m| m.is_empty()));
        assert_eq!(t.obj(i).refs, 0);
    }

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

    /// Links appended and links adopted whole read back alike, whatever the chunk.
    #[test]
    fn links_in_chunks() {
        let mut t = Table::default();
        let ids: Vec<u32> = (0..5u8).map(|b| t.unknown(&oid(&[b; 20]))).collect();
        t.set_edges(ids[0], &[1, 2]);
        t.set_edges(ids[1], &[3]);
        let base = t.adopt_edges(vec![10, 11, 12, 13]);
        assert_eq!(base, 3);
        t.set_edge_range(ids[2], base + 1, 2);
        t.set_edges(ids[3], &[20, 21, 22]);
        assert_eq!(t.edges_of(ids[0]), [1, 2]);
        assert_eq!(t.edges_of(ids[1]), [3]);
        assert_eq!(t.edges_of(ids[2]), [11, 12]);
        assert_eq!(t.edges_of(ids[3]), [20, 21, 22]);
        assert!(t.edges_of(ids[4]).is_empty());
    }
}

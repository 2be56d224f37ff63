//! The object store as git reads an object from it (`oid_object_info_extended` in git 2.47's
//! `object-file.c`): its cached objects (the empty tree) first, then the packs that open, then
//! the loose objects. A packed copy that cannot be read is marked bad in its pack (git's
//! `mark_bad_packed_object`): it is no longer found there, and the next copy (another pack's, or
//! the loose one) is read instead. The reads of fsck's walk, of the heads' `parse_object`, of the
//! commit-graph check, and of a delta base that its pack could not give (git's `unpack_entry`
//! then reads the base by its id) all go through here. A packed object is read by `Reader`, at
//! random in its pack, as git's `unpack_entry` does (with its messages), through a cache of
//! decoded bases ([`BaseCache`]).

use crate::Providers;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::{delta, idx, pack};
use flagsplit_zlib::Inflater;

use crate::fsck::hex;
use crate::fsck::table::{BAD, IN_PACK, Oid, Table, oid};
use crate::{Kind, ObjectFormat};

use super::loose_files::{LooseBy, LooseRead, read_loose, read_loose_header};
use super::packs::PackState;
use super::{MAX_OBJECT, bad_base, inflate_exact};

/// What git's reads see of the repository's objects.
pub struct Store<'a, P: Providers> {
    /// The providers a read inflates with.
    pub providers: std::marker::PhantomData<fn() -> P>,
    /// The packs, in the order they are searched.
    pub packs: &'a [PackState],
    /// The loose objects, by id.
    pub loose: &'a HashMap<Oid, PathBuf>,
    /// The objects (`IN_PACK`, and `BAD` when a pack has marked its copy bad).
    pub table: &'a Table,
    /// The object format.
    pub format: ObjectFormat,
    /// The empty tree's id.
    pub empty_tree: Oid,
    /// As a new git process sees the store (a `git commit-graph verify` that fsck runs): the
    /// packed copies marked bad so far count, and none is marked.
    pub fresh: bool,
    /// The objects a multi-pack-index puts in a pack whose `.idx` is gone, and that pack.
    pub lost: &'a HashMap<Oid, usize>,
    /// Where lines printed by a search go (`error: packfile … index unavailable`).
    pub notes: &'a std::sync::Mutex<Vec<String>>,
    /// What git prints each time it reads the alternates again (`reprepare_packed_git`).
    pub reprepare: &'a [String],
    /// A pack cannot be opened: git's searches print its lines (`Store::find_pack_entry`).
    pub noisy: bool,
    /// Its searches print nothing ([`Store::quiet`]).
    pub quiet: bool,
}

impl<P: Providers> Store<'_, P> {
    /// The store read for an object git would not read (it holds the object parsed already):
    /// its searches print nothing, and do not count as git's.
    pub fn quiet(self) -> Self {
        Store {
            quiet: true,
            noisy: false,
            ..self
        }
    }
}

/// The count of git's searches that found an object in a pack: each pack's latest
/// ([`PackState::last_hit`]) orders git's list of packs most recently used.
static SEARCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl<P: Providers> Clone for Store<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: Providers> Copy for Store<'_, P> {}

/// What a read found.
pub struct Read {
    /// The object, when a copy could be read.
    pub object: Option<(Kind, Vec<u8>)>,
    /// git dies here (an entry past the end of a pack, a loose object of an unknown type): its
    /// message.
    pub fatal: Option<String>,
}

impl<P: Providers> Store<'_, P> {
    /// git's cached objects (`find_cached_object`): the empty tree, there whether or not it is
    /// stored (and read from there even when a stored copy is corrupt).
    pub fn cached(&self, id: &Oid) -> Option<(Kind, Vec<u8>)> {
        (*id == self.empty_tree).then(|| (Kind::Tree, Vec::new()))
    }

    /// The packs that hold `id` and have not marked it bad, in search order: (pack, offset).
    fn packed(&self, id: &Oid) -> impl Iterator<Item = (usize, u64)> + '_ {
        let flags = self.table.get(id).map_or(0, |i| self.table.obj(i).flags);
        let raw = self.format.raw_len();
        let id = *id;
        self.packs
            .iter()
            .enumerate()
            .filter(move |_| flags & IN_PACK != 0)
            .filter(|(_, p)| p.usable)
            .filter_map(move |(n, p)| {
                let index = p.index(self.format)?;
                let off = index
                    .lookup(&id[..raw])
                    .and_then(|k| index.offset(k).ok())?;
                (self.fresh || flags & BAD == 0 || !p.is_bad(&id)).then_some((n, off))
            })
    }

    /// git's `find_pack_entry`: the pack (and offset) that gives `id`, packs in `tried` left
    /// out. git searches its packs most recently used first; each pack it tries on the way that
    /// cannot be opened prints its lines again ([`PackState::lookup_lines`]: for any object
    /// when its index does not load, else for an object its index lists), into the notes.
    fn find_pack_entry(&self, id: &Oid, tried: &[usize]) -> Option<(usize, u64)> {
        use std::sync::atomic::Ordering::Relaxed;
        // git looks an object up in the multi-pack-index first; a pack of it that cannot be
        // opened says so, each time.
        if !self.quiet
            && let Some(p) = self.lost.get(id).and_then(|&n| self.packs.get(n))
            && let Ok(mut notes) = self.notes.lock()
        {
            notes.extend(p.open_lines.iter().cloned());
        }
        if !self.noisy {
            return self.packed(id).find(|(n, _)| !tried.contains(n));
        }
        // The pack git's list of most recently used packs gives first.
        let first = self
            .packed(id)
            .filter(|(n, _)| !tried.contains(n))
            .min_by_key(|&(n, _)| {
                let p = &self.packs[n];
                (std::cmp::Reverse(p.last_hit.load(Relaxed)), p.rank)
            });
        let raw = self.format.raw_len();
        // A pack that cannot be opened never finds anything, so it stays behind every pack that
        // did, and among those that never did, in git's order.
        let ahead = |q: &PackState| match first {
            None => true,
            Some((h, _)) => {
                let h = &self.packs[h];
                h.last_hit.load(Relaxed) == 0 && q.rank < h.rank
            }
        };
        let mut noise = Vec::new();
        for q in self.packs.iter().filter(|q| !q.lookup_lines.is_empty()) {
            let holds = q.lookup_any()
                || q.index(self.format)
                    .is_some_and(|x| x.lookup(&id[..raw]).is_some());
            if holds && ahead(q) {
                noise.extend(q.lookup_lines.iter().cloned());
            }
        }
        if !noise.is_empty()
            && let Ok(mut notes) = self.notes.lock()
        {
            notes.append(&mut noise);
        }
        if let Some((h, _)) = first {
            self.packs[h]
                .last_hit
                .store(SEARCHES.fetch_add(1, Relaxed), Relaxed);
        }
        first
    }

    /// git's `reprepare_packed_git` and its search again, after an object was found neither in
    /// a pack nor loose: the alternates read again (their errors printed again), and the packs
    /// searched again, which finds nothing new.
    fn search_again(&self, id: &Oid, tried: &[usize]) {
        if !self.reprepare.is_empty()
            && !self.quiet
            && let Ok(mut notes) = self.notes.lock()
        {
            notes.extend(self.reprepare.iter().cloned());
        }
        if self.noisy {
            let _ = self.find_pack_entry(id, tried);
        }
    }

    /// git's `has_object_pack`: a pack that opens holds it, and has not marked it bad (one
    /// search, `Store::find_pack_entry`).
    pub fn has_object_pack(&self, id: &Oid) -> bool {
        self.find_pack_entry(id, &[]).is_some()
    }

    /// git's `has_object` (asked to look at the packs again): cached, in a pack
    /// ([`Store::has_object_pack`]) or loose, else searched again (`Store::search_again`).
    pub fn has_object(&self, id: &Oid) -> bool {
        let found =
            self.cached(id).is_some() || self.has_object_pack(id) || self.loose.contains_key(id);
        if !found {
            self.search_again(id, &[]);
        }
        found
    }

    /// Marks `id` bad in pack `pack` (git's `mark_bad_packed_object`).
    pub fn mark_bad(&self, pack: usize, id: &Oid) {
        if self.fresh {
            return;
        }
        if let Some(p) = self.packs.get(pack) {
            p.mark_bad(id);
        }
        if let Some(i) = self.table.get(id) {
            self.table.or_flags(i, BAD);
        }
    }

    /// The first pack that marked `id` bad (git's `has_packed_and_bad`).
    pub fn bad_in(&self, id: &Oid) -> Option<&PackState> {
        let flags = self.table.get(id).map_or(0, |i| self.table.obj(i).flags);
        if flags & BAD == 0 {
            return None;
        }
        self.packs.iter().find(|p| p.is_bad(id))
    }

    /// git's `oid_object_info` for the type of `id`: a cached object's, else a packed copy's
    /// from the headers of its delta chain alone (`packed_to_object_type`: a link of the chain
    /// that cannot be followed is marked bad and its type asked elsewhere, git's
    /// `retry_bad_packed_offset`), a copy that gives none marked bad and the next asked, else
    /// the loose copy's header. `Err` is git's death (an entry past the end of a pack, a loose
    /// object of an unknown type).
    pub fn object_type(&self, id: &Oid, lines: &mut Vec<String>) -> Result<Option<Kind>, String> {
        self.object_type_at(id, lines, 0)
    }

    fn object_type_at(
        &self,
        id: &Oid,
        lines: &mut Vec<String>,
        depth: usize,
    ) -> Result<Option<Kind>, String> {
        if let Some((k, _)) = self.cached(id) {
            return Ok(Some(k));
        }
        // Each retry marks a copy bad first, so this ends; the bound keeps the stack small on
        // hostile packs.
        if depth > 1000 {
            return Ok(None);
        }
        let mut tried = Vec::new();
        while let Some((n, off)) = self.find_pack_entry(id, &tried) {
            tried.push(n);
            if let Some(k) = self.packed_to_type(n, off, lines, depth)? {
                return Ok(Some(k));
            }
            self.mark_bad(n, id);
        }
        let Some(path) = self.loose.get(id) else {
            self.search_again(id, &tried);
            return Ok(None);
        };
        let Ok(mut z) = P::Inflater::new() else {
            return Ok(None);
        };
        match read_loose_header::<P>(&mut z, path, &self.hex(id)) {
            Ok(name) => match Kind::from_name(&name) {
                Some(k) => Ok(Some(k)),
                None => Err("invalid object type".to_string()),
            },
            Err(bad) => {
                lines.extend(bad);
                self.search_again(id, &tried);
                Ok(None)
            }
        }
    }

    /// git's `packed_to_object_type` for the entry at `off` in pack `n`.
    fn packed_to_type(
        &self,
        n: usize,
        off: u64,
        lines: &mut Vec<String>,
        depth: usize,
    ) -> Result<Option<Kind>, String> {
        let p = &self.packs[n];
        let raw = self.format.raw_len();
        let (Some(index), Some(bytes)) = (p.index(self.format), p.bytes()) else {
            return Ok(None);
        };
        let Some(end) = bytes.len().checked_sub(raw) else {
            return Ok(None);
        };
        let header = |at: u64| -> Result<Result<pack::Entry<'_>, pack::EntryError>, String> {
            if at > end as u64 {
                return Err("offset beyond end of packfile (truncated pack?)".to_string());
            }
            Ok(pack::entry(&bytes[..end], at, raw))
        };
        let unknown = |code: u8, at: u64| pack::unknown_type_line(i32::from(code), at, &p.name);
        // `retry_bad_packed_offset`: the entry at `at` marked bad, its type asked elsewhere.
        let retry = |at: u64, lines: &mut Vec<String>| -> Result<Option<Kind>, String> {
            let Some(k) = p.entry_at(&index, at) else {
                lines.push("bad offset for revindex".to_string());
                return Ok(None);
            };
            let other = oid(index.id(k));
            self.mark_bad(n, &other);
            self.object_type_at(&other, lines, depth + 1)
        };
        let mut e = match header(off)? {
            Ok(e) => e,
            Err(pack::EntryError::BadHeader) => {
                lines.push(pack::EntryError::BadHeader.to_string());
                return Ok(None);
            }
            Err(pack::EntryError::UnknownType { type_code, .. }) => {
                lines.push(unknown(type_code, off));
                return Ok(None);
            }
            // A delta whose base cannot be followed: the object is left behind and retried.
            Err(pack::EntryError::BadBase { .. }) => return retry(off, lines),
        };
        let mut left = vec![off];
        let unwound = loop {
            let base = match e.kind {
                pack::EntryKind::Object(k) => return Ok(Some(k)),
                pack::EntryKind::OfsDelta(b) => Some(b),
                pack::EntryKind::RefDelta(b) => index.lookup(b).and_then(|k| index.offset(k).ok()),
            };
            let Some(base) = base else {
                break true;
            };
            e = match header(base)? {
                Ok(next) => next,
                Err(pack::EntryError::BadBase { .. }) => {
                    left.push(base);
                    break true;
                }
                // A base whose header gives no type: retried, else the chain is unwound.
                Err(pack::EntryError::BadHeader) => {
                    lines.push(pack::EntryError::BadHeader.to_string());
                    match retry(base, lines)? {
                        Some(k) => return Ok(Some(k)),
                        None => break true,
                    }
                }
                Err(pack::EntryError::UnknownType { type_code: 0, .. }) => {
                    match retry(base, lines)? {
                        Some(k) => return Ok(Some(k)),
                        None => break true,
                    }
                }
                // A type git does not know (not a delta): the chain ends there, unknown.
                Err(pack::EntryError::UnknownType { type_code, .. }) => {
                    lines.push(unknown(type_code, base));
                    break false;
                }
            };
            left.push(base);
            // Deeper than any chain git writes: a cycle.
            if left.len() > 10_000 {
                break true;
            }
        };
        if unwound {
            // (The last pushed is a base whose own header was read; the entries left behind
            // are the deltas before it.)
            while let Some(at) = left.pop() {
                if let Some(k) = retry(at, lines)? {
                    return Ok(Some(k));
                }
            }
        }
        Ok(None)
    }

    /// The store as a new git process sees it ([`Store::fresh`]).
    pub fn fresh(self) -> Self {
        Store {
            fresh: true,
            ..self
        }
    }

    /// Reads `id` as git's `repo_read_object_file` does: as [`Store::read`], and git dies when
    /// no copy could be read and one is corrupt (`loose object X (stored in PATH) is corrupt`,
    /// `packed object X (stored in PACK) is corrupt`).
    pub fn read_or_die(&self, id: &Oid, lines: &mut Vec<String>) -> Read {
        self.read_or_die_cached(id, lines, None)
    }

    /// [`Store::read_or_die`] through a cache of delta bases (git's delta base cache, which
    /// lives as long as the process).
    pub fn read_or_die_cached(
        &self,
        id: &Oid,
        lines: &mut Vec<String>,
        cache: Option<&mut BaseCache>,
    ) -> Read {
        // git retries without dying once it marked a packed copy bad (the flag is not passed on).
        let marked = self.packed(id).next().is_none();
        let mut read = self.read_with(id, lines, cache, true);
        if read.object.is_none()
            && read.fatal.is_none()
            && marked
            && let Some(p) = self.bad_in(id)
        {
            read.fatal = Some(format!(
                "packed object {} (stored in {}) is corrupt",
                self.hex(id),
                p.name
            ));
        }
        read
    }

    fn hex(&self, id: &Oid) -> String {
        crate::fsck::hex(&id[..self.format.raw_len()])
    }

    /// Reads `id` as git's `read_object` does, with the `error:` lines git prints on the way
    /// (without the prefix) in `lines`: a packed copy that cannot be read is marked bad and the
    /// next is tried. `cache` keeps delta bases for a pass that reads many objects in pack
    /// order.
    pub fn read(&self, id: &Oid, lines: &mut Vec<String>, cache: Option<&mut BaseCache>) -> Read {
        self.read_with(id, lines, cache, false)
    }

    fn read_with(
        &self,
        id: &Oid,
        lines: &mut Vec<String>,
        mut cache: Option<&mut BaseCache>,
        mut die: bool,
    ) -> Read {
        let none = |fatal| Read {
            object: None,
            fatal,
        };
        if let Some(cached) = self.cached(id) {
            return Read {
                object: Some(cached),
                fatal: None,
            };
        }
        let Ok(mut z) = P::Inflater::new() else {
            return none(None);
        };
        // Each pack that holds it, until one gives it (a failed one marks it bad).
        let mut tried = Vec::new();
        while let Some((n, off)) = self.find_pack_entry(id, &tried) {
            tried.push(n);
            let p = &self.packs[n];
            let (Some(index), Some(bytes)) = (p.index(self.format), p.bytes()) else {
                break;
            };
            let mut reader = Reader {
                z: &mut z,
                bytes,
                pack: p,
                pack_nr: n,
                cache: cache.as_deref_mut(),
                index: &index,
                format: self.format,
                name: &p.name,
                lines,
                fatal: None,
                store: Some(self),
            };
            let got = reader.unpack_at(off, 0);
            if let Some(m) = reader.fatal {
                return none(Some(m));
            }
            if got.is_some() {
                return Read {
                    object: got,
                    fatal: None,
                };
            }
            self.mark_bad(n, id);
            // git reads the next copy with flags of 0: it no longer dies.
            die = false;
        }
        let Some(path) = self.loose.get(id) else {
            self.search_again(id, &tried);
            return none(None);
        };
        let hex = self.hex(id);
        match read_loose::<P>(&mut z, path, &hex, None, LooseBy::Store) {
            LooseRead::Ok { type_name, data } => match Kind::from_name(&type_name) {
                Some(k) => Read {
                    object: Some((k, data)),
                    fatal: None,
                },
                // git's reader dies on a type it does not know.
                None => none(Some("invalid object type".to_string())),
            },
            LooseRead::Bad(bad) => {
                lines.extend(bad);
                self.search_again(id, &tried);
                none(die.then(|| {
                    format!(
                        "loose object {hex} (stored in {}) is corrupt",
                        path.display()
                    )
                }))
            }
            // A file that could not be opened or is empty: not found, without dying.
            LooseRead::Unmapped(bad) => {
                lines.extend(bad);
                self.search_again(id, &tried);
                none(None)
            }
            LooseRead::Streamed { .. } | LooseRead::Short { .. } | LooseRead::Header { .. } => {
                none(None)
            }
        }
    }
}

/// A base in a [`BaseCache`]: its type and content.
type CachedBase = (Kind, std::sync::Arc<[u8]>);

/// git's default `core.deltaBaseCacheLimit`: what its delta base cache holds, and so the budget
/// of the caches that stand for it (the walk's reads, a pack checked again in git's order).
pub const GIT_DELTA_BASE_CACHE: usize = 96 << 20;

/// Delta bases decoded by reads of many objects one after another, by (pack, offset), kept up to
/// a byte budget (git's `delta_base_cache_limit`, [`GIT_DELTA_BASE_CACHE`]): read in pack order, a delta finds its
/// base here instead of decoding the base's whole chain again.
pub type BaseCache = Budgeted<(usize, u64), CachedBase>;

/// Values kept up to a byte budget, the oldest dropped first; a value larger than a quarter of
/// the budget is not kept.
pub struct Budgeted<K, V> {
    pub(super) map: std::collections::HashMap<K, (V, usize)>,
    pub(super) order: std::collections::VecDeque<K>,
    pub(super) bytes: usize,
    pub(super) limit: usize,
}

impl<K: std::hash::Hash + Eq + Copy, V: Clone> Budgeted<K, V> {
    /// An empty one holding at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Budgeted {
            map: std::collections::HashMap::new(),
            order: std::collections::VecDeque::new(),
            bytes: 0,
            limit,
        }
    }

    pub(super) fn get(&self, key: K) -> Option<V> {
        self.map.get(&key).map(|(v, _)| v.clone())
    }

    /// Keeps `value`, which takes `size` bytes.
    pub(super) fn put(&mut self, key: K, value: V, size: usize) {
        if size > self.limit / 4 || self.map.contains_key(&key) {
            return;
        }
        while self.bytes + size > self.limit {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some((_, n)) = self.map.remove(&old) {
                self.bytes -= n;
            }
        }
        self.bytes += size;
        self.order.push_back(key);
        self.map.insert(key, (value, size));
    }

    /// Empties it.
    pub(super) fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
        self.bytes = 0;
    }
}

/// Reads one object of a pack at random, as git's `unpack_entry` does, with its messages.
struct Reader<'a, P: Providers> {
    z: &'a mut P::Inflater,
    bytes: &'a [u8],
    pack: &'a PackState,
    /// Its place in `Stored::packs` (the cache's key).
    pack_nr: usize,
    cache: Option<&'a mut BaseCache>,
    index: &'a idx::Index<'a>,
    format: ObjectFormat,
    name: &'a str,
    lines: &'a mut Vec<String>,
    /// git dies here (an offset past the end of the pack).
    fatal: Option<String>,
    /// The store, which stands in for a base the pack cannot give.
    store: Option<&'a Store<'a, P>>,
}

impl<P: Providers> Reader<'_, P> {
    /// The id the index gives the entry at `off`.
    pub(super) fn id_at(&self, off: u64) -> Option<String> {
        self.pack
            .entry_at(self.index, off)
            .map(|n| hex(self.index.id(n)))
    }

    /// The bytes at `off` read as a whole object's entry (not followed if a delta).
    pub(super) fn unpack_plain_at(&mut self, off: u64) -> Option<(Kind, Vec<u8>)> {
        let raw = self.format.raw_len();
        let end = self.bytes.len().checked_sub(raw)?;
        match pack::entry(&self.bytes[..end], off, raw) {
            Ok(pack::Entry {
                kind: pack::EntryKind::Object(k),
                size,
                data,
            }) => {
                let input = self.bytes.get(data as usize..end)?;
                let mut out = Vec::new();
                match inflate_exact(self.z, input, size, &mut out) {
                    Ok(_) => Some((k, out)),
                    Err(line) => {
                        self.lines.extend(line);
                        None
                    }
                }
            }
            // A REF_DELTA whose base is not in the pack (see `phantom_base`).
            Ok(pack::Entry {
                kind: pack::EntryKind::RefDelta(id),
                data,
                ..
            }) if self.index.lookup(id).is_none() => {
                self.lines.push(bad_base(data, self.name));
                None
            }
            Ok(_) => None,
            Err(err) => {
                self.lines.extend(err.git_lines(off, self.name));
                None
            }
        }
    }

    pub(in crate::fsck) fn unpack_at(&mut self, off: u64, depth: usize) -> Option<(Kind, Vec<u8>)> {
        // Deeper than any chain git writes (its limit is 4095): a cycle, or hostile.
        if depth > 10_000 {
            return None;
        }
        let raw = self.format.raw_len();
        let end = self.bytes.len().checked_sub(raw)?;
        if off > end as u64 {
            self.fatal = Some("offset beyond end of packfile (truncated pack?)".to_string());
            return None;
        }
        let e = match pack::entry(&self.bytes[..end], off, raw) {
            Ok(e) => e,
            Err(err) => {
                self.lines.extend(err.git_lines(off, self.name));
                return None;
            }
        };
        let input = self.bytes.get(e.data as usize..end)?;
        let mut data = Vec::new();
        let inflated = inflate_exact(self.z, input, e.size, &mut data);
        let base_off = match e.kind {
            pack::EntryKind::Object(k) => {
                return match inflated {
                    Ok(_) => Some((k, data)),
                    Err(line) => {
                        self.lines.extend(line);
                        None
                    }
                };
            }
            pack::EntryKind::OfsDelta(b) if self.id_at(b).is_none() => {
                // No entry starts there: git reads the bytes as one, then cannot name them.
                let base = self.unpack_plain_at(b);
                if base.is_none() {
                    self.lines.push("bad offset for revindex".to_string());
                }
                let (k, base) = base?;
                if let Err(line) = inflated {
                    self.lines.extend(line);
                    return None;
                }
                let mut out = Vec::new();
                return delta::apply(&base, &data, &mut out, MAX_OBJECT)
                    .ok()
                    .map(|()| (k, out));
            }
            pack::EntryKind::OfsDelta(b) => b,
            pack::EntryKind::RefDelta(id) => {
                match self
                    .index
                    .lookup(id)
                    .and_then(|n| self.index.offset(n).ok())
                {
                    Some(o) => o,
                    None => {
                        self.lines.push(bad_base(e.data, self.name));
                        return None;
                    }
                }
            }
        };
        let cached = self
            .cache
            .as_ref()
            .and_then(|c| c.get((self.pack_nr, base_off)));
        let base = match cached {
            Some((k, d)) => Some((k, d.to_vec())),
            None => {
                let b = self.unpack_at(base_off, depth + 1);
                if let (Some(c), Some((k, d))) = (self.cache.as_deref_mut(), &b) {
                    c.put((self.pack_nr, base_off), (*k, d.as_slice().into()), d.len());
                }
                b
            }
        };
        // A base the pack cannot give is marked bad and read by its id from the rest of the
        // store (git's `unpack_entry`).
        let base = base.or_else(|| {
            let n = self.pack.entry_at(self.index, base_off)?;
            let id = oid(self.index.id(n));
            self.lines.push(format!(
                "failed to read delta base object {} at offset {base_off} from {}",
                hex(self.index.id(n)),
                self.name
            ));
            let store = self.store?;
            store.mark_bad(self.pack_nr, &id);
            let read = store.read(&id, self.lines, None);
            if let Some(m) = read.fatal {
                self.fatal.get_or_insert(m);
            }
            read.object
        });
        let (k, base) = base?;
        if let Err(line) = inflated {
            self.lines.extend(line);
            self.lines.push(format!(
                "failed to unpack compressed delta at offset {} from {}",
                e.data, self.name
            ));
            return None;
        }
        let mut out = Vec::new();
        match delta::apply(&base, &data, &mut out, MAX_OBJECT) {
            Ok(()) => Some((k, out)),
            Err(d) => {
                if matches!(d, delta::DeltaError::Opcode0 | delta::DeltaError::Wild) {
                    self.lines.push(d.to_string());
                }
                self.lines.push("failed to apply delta".to_string());
                None
            }
        }
    }
}

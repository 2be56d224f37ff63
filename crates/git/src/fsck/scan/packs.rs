//! Opening the packs of every object directory: their indexes loaded, each object given its place
//! in the table, and what git prints when a pack or its index cannot be used.

use crate::Providers;
use crate::{idx, pack};

use crate::ObjectFormat;
use crate::fsck::odb::{Mapped, PackFiles};
use crate::fsck::table::{Oid, oid};
use crate::fsck::{Fsck, odb};

/// Each object of a pack's index: its place in the table. A pack whose objects were new to the
/// table when it was opened holds them in a run, in its index's order, and needs no list: the few
/// it shares with another pack (or a loose copy) are kept beside, by position.
#[derive(Debug)]
pub enum Slots {
    /// Position `n` is the table's object `first + n`, less the positions before it in `known`,
    /// which list (position, place) the objects that were in the table before (`u32::MAX`: not
    /// taken, a duplicate entry of a damaged index).
    Run {
        /// The table's object at position 0.
        first: u32,
        /// How many positions there are.
        len: u32,
        /// The positions whose objects were in the table before: (position, place).
        known: Vec<(u32, u32)>,
    },
    /// By position (`u32::MAX`: not taken).
    List(Vec<u32>),
}

impl Default for Slots {
    fn default() -> Slots {
        Slots::List(Vec::new())
    }
}

impl Slots {
    /// A run from the table's object `first`, for an index of `len` objects.
    pub(super) fn run(first: u32, len: u32) -> Slots {
        Slots::Run {
            first,
            len,
            known: Vec::new(),
        }
    }

    /// Gives position `n` (of `len`, set in order) the place `i`: a run stays a run while `i` is
    /// the next new object or one the table had before, and no more than one object in 16 is such.
    pub(super) fn set(&mut self, n: u32, i: u32, len: u32) {
        if let Slots::Run { first, known, .. } = self {
            let next = u64::from(*first) + u64::from(n) - known.len() as u64;
            if u64::from(i) == next {
                return;
            }
            if (i < *first || i == u32::MAX) && known.len() < (len as usize / 16).max(64) {
                known.push((n, i));
                return;
            }
            let mut list: Vec<u32> = (0..n).map(|k| self.get(k).unwrap_or(u32::MAX)).collect();
            list.resize(len as usize, u32::MAX);
            *self = Slots::List(list);
        }
        if let Slots::List(v) = self
            && let Some(slot) = v.get_mut(n as usize)
        {
            *slot = i;
        }
    }

    /// The place of position `n`, if it has one.
    pub fn get(&self, n: u32) -> Option<u32> {
        match self {
            Slots::Run { first, len, known } => {
                if n >= *len {
                    return None;
                }
                let before = known.partition_point(|&(k, _)| k < n);
                match known.get(before) {
                    Some(&(k, i)) if k == n => (i != u32::MAX).then_some(i),
                    _ => Some(first + n - before as u32),
                }
            }
            Slots::List(v) => v.get(n as usize).copied().filter(|&i| i != u32::MAX),
        }
    }

    /// Every place taken, in the index's order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let len = match self {
            Slots::Run { len, .. } => *len,
            Slots::List(v) => v.len() as u32,
        };
        (0..len).filter_map(|n| self.get(n))
    }

    /// The bytes it takes.
    pub fn memory(&self) -> usize {
        match self {
            Slots::Run { known, .. } => known.len() * 8,
            Slots::List(v) => v.len() * 4,
        }
    }
}

/// A pack, once opened.
pub struct PackState {
    /// Its files.
    pub files: PackFiles,
    /// The `.pack` path as git prints it.
    pub name: String,
    /// The `.idx`, mapped.
    pub idx: Option<Mapped>,
    /// The `.pack`, mapped, when it opened as git opens it.
    pub pack: Option<Mapped>,
    /// Whether its index parsed.
    pub idx_ok: bool,
    /// Whether it opens as git opens a pack (its header and trailer agree with its index).
    pub usable: bool,
    /// Each object's place in the table, by its position in the index.
    pub table_index: Slots,
    /// The index's entries sorted by offset (offset, position in the index), made the first
    /// time a random read asks which entry starts at an offset.
    pub(super) by_offset: std::sync::OnceLock<Vec<(u64, u32)>>,
    /// The objects whose copy here could not be read (git's `bad_object_oids`): no longer
    /// found in this pack.
    pub(super) bad: std::sync::Mutex<Vec<Oid>>,
    /// What git prints each time a multi-pack-index sends it to this pack and its index does
    /// not load (see `unopened_packs`).
    pub open_lines: Vec<String>,
    /// Its check found something wrong: a read of one of its objects may not be what the check
    /// of the object found.
    pub damaged: bool,
    /// What git prints each time its search for an object tries this pack and cannot open it
    /// (git's `find_pack_entry`, see [`super::store::Store`]): the index's error when the index
    /// does not load (for any object: git cannot tell what the pack holds), else, for an
    /// object its index lists, why the pack does not open (`packfile … does not match index`).
    pub lookup_lines: Vec<String>,
    /// Its place in git's `get_all_packs` order, the order of git's list of packs most recently
    /// used before any object was found.
    pub rank: usize,
    /// When git's search last found an object here (0: never), which puts it first in git's
    /// list of packs most recently used.
    pub(super) last_hit: std::sync::atomic::AtomicU64,
}

impl PackState {
    /// A pack named `name` (as git names it), with its index mapped when it could be, not yet
    /// checked.
    fn new(name: String, idx: Option<Mapped>, files: PackFiles) -> PackState {
        PackState {
            name,
            idx,
            pack: None,
            idx_ok: false,
            usable: false,
            table_index: Slots::default(),
            by_offset: std::sync::OnceLock::new(),
            bad: std::sync::Mutex::new(Vec::new()),
            open_lines: Vec::new(),
            damaged: false,
            lookup_lines: Vec::new(),
            rank: 0,
            last_hit: std::sync::atomic::AtomicU64::new(0),
            files,
        }
    }

    /// Its index.
    pub fn index(&self, format: ObjectFormat) -> Option<idx::Index<'_>> {
        if !self.idx_ok {
            return None;
        }
        idx::Index::parse(self.idx.as_ref()?.bytes(), format.raw_len(), &self.name).ok()
    }

    /// Its bytes, when usable.
    pub fn bytes(&self) -> Option<&[u8]> {
        self.pack.as_ref().map(Mapped::bytes)
    }

    /// Its index does not load, and it prints [`PackState::lookup_lines`] for every search
    /// that reaches it (git cannot tell what it holds).
    pub fn lookup_any(&self) -> bool {
        !self.idx_ok && !self.lookup_lines.is_empty()
    }

    /// Whether its copy of `id` was marked bad.
    pub fn is_bad(&self, id: &Oid) -> bool {
        self.bad.lock().is_ok_and(|b| b.contains(id))
    }

    /// Marks its copy of `id` bad (git's `mark_bad_packed_object`).
    pub fn mark_bad(&self, id: &Oid) {
        if let Ok(mut b) = self.bad.lock()
            && !b.contains(id)
        {
            b.push(*id);
        }
    }

    /// The position in `index` (this pack's) of the entry that starts at `off`, if one does.
    pub(in crate::fsck) fn entry_at(&self, index: &idx::Index<'_>, off: u64) -> Option<u32> {
        let sorted = self.by_offset.get_or_init(|| {
            let mut v: Vec<(u64, u32)> = (0..index.len())
                .filter_map(|n| index.offset(n).ok().map(|o| (o, n)))
                .collect();
            v.sort_unstable();
            v
        });
        let at = sorted.partition_point(|&(o, _)| o < off);
        sorted.get(at).filter(|&&(o, _)| o == off).map(|&(_, n)| n)
    }
}

// Packs

/// Opens every pack of every object directory and records what each holds; git prints an
/// index's load error each time it tries to use it. Without a promisor remote no pack is a
/// promisor pack, whatever `.promisor` files there are (git's `is_promisor_object`), so their
/// objects are not collected for the promisor set.
pub fn open_packs<P: Providers>(
    f: &mut Fsck<'_, P>,
    dirs: &[odb::ObjectDir],
    midx: bool,
    promisor_remote: bool,
) {
    let format = f.repo.format;
    for dir in dirs {
        let first = f.stored.packs.len();
        for mut files in odb::packs(&dir.path) {
            files.promisor &= promisor_remote;
            let name = files.pack.display().to_string();
            let idx_map = Mapped::open(&files.idx).ok();
            let mut st = PackState::new(name, idx_map, files);
            // git prints why a pack cannot be used each time it tries to use it; every mode
            // of fsck looks objects up in every pack.
            if let Some(m) = &st.idx {
                match idx::Index::parse(
                    m.bytes(),
                    format.raw_len(),
                    &st.files.idx.display().to_string(),
                ) {
                    Ok(_) => st.idx_ok = true,
                    Err(e) => {
                        let line = e.to_string();
                        f.out.error(&line);
                        st.lookup_lines = vec![line];
                    }
                }
            }
            st.pack = Mapped::open(&st.files.pack).ok();
            // git finds an object in a pack by a binary search of its index, and only in a pack
            // that opens (its header and trailer agree with the index).
            st.usable = match st.index(format) {
                Some(index) => match pack_open_errors(&st, &index, format, &st.name) {
                    None => true,
                    // Printed by each search for an object it holds, and by its check.
                    Some(lines) => {
                        st.lookup_lines = lines;
                        false
                    }
                },
                None => false,
            };
            if let Some(index) = st.index(format).filter(|_| st.usable) {
                let sorted = (1..index.len()).all(|n| index.id(n - 1) < index.id(n));
                f.table.reserve(index.len() as usize);
                let first = f.table.len() as u32;
                let mut table_index = Slots::run(first, index.len());
                let len = index.len();
                // The ids hashed, and looked up among the objects of the packs before, on the
                // pool a chunk at a time; the new ones added here, without a second lookup when
                // the index is sorted (its ids are then distinct).
                for chunk in (0..len).step_by(READ_CHUNK) {
                    let span = chunk..(chunk + READ_CHUNK as u32).min(len);
                    let table = &f.table;
                    let look = |n: u32| {
                        let id = oid(index.id(n));
                        let hash = table.hash_of(&id);
                        let known = if table.is_empty() {
                            None
                        } else {
                            table.find_hashed(&id, hash)
                        };
                        (id, hash, known)
                    };
                    // A small pack's few ids are not worth waking the pool for.
                    let looked: Vec<(Oid, u64, Option<u32>)> = if span.len() >= 4096 {
                        f.pool.install(|| {
                            use rayon::prelude::*;
                            span.clone().into_par_iter().map(look).collect()
                        })
                    } else {
                        span.clone().map(look).collect()
                    };
                    for (n, (id, hash, known)) in span.zip(looked) {
                        if !sorted && index.lookup(index.id(n)) != Some(n) {
                            table_index.set(n, u32::MAX, len);
                            continue;
                        }
                        let i = match known {
                            Some(i) => i,
                            None if sorted => f.table.insert_new(&id, hash),
                            None => f.table.unknown(&id),
                        };
                        table_index.set(n, i, len);
                        f.table
                            .or_flags(i, crate::fsck::table::PRESENT | crate::fsck::table::IN_PACK);
                        if st.files.promisor {
                            f.heads.promisor.insert(id);
                        }
                    }
                }
                st.table_index = table_index;
            }
            f.stored.packs.push(st);
        }
        if midx {
            unopened_packs(f, dir, first, promisor_remote);
        }
    }
    f.stored.noisy_packs =
        !f.stored.lost.is_empty() || f.stored.packs.iter().any(|p| !p.lookup_lines.is_empty());
}

/// The packs the multi-pack-index of `dir` lists whose index does not load (their `.pack` still
/// there): the `.idx` is gone or damaged. git has them among its packs through the
/// multi-pack-index (`packfile … index not opened` when it checks them), finds none of their
/// objects, and each time it looks for an object the multi-pack-index puts there it tries to
/// open the index again (its error, then `packfile … index unavailable`). `first` is where this
/// directory's packs start in `f.packs`.
fn unopened_packs<P: Providers>(
    f: &mut Fsck<'_, P>,
    dir: &odb::ObjectDir,
    first: usize,
    promisor_remote: bool,
) {
    let pack_dir = dir.path.join("pack");
    let stem_of = |name: &[u8]| -> Option<String> {
        std::str::from_utf8(name)
            .ok()
            .and_then(|n| n.strip_suffix(".idx"))
            .map(str::to_string)
    };
    let known = |packs: &[PackState], stem: &str| -> Option<usize> {
        (first..packs.len()).find(|&n| packs[n].files.idx.file_stem() == Some(stem.as_ref()))
    };
    let unopened = |name: &[u8]| -> bool {
        let Some(stem) = stem_of(name) else {
            return false;
        };
        match known(&f.stored.packs, &stem) {
            Some(n) => !f.stored.packs[n].idx_ok,
            None => {
                !pack_dir.join(format!("{stem}.idx")).exists()
                    && pack_dir.join(format!("{stem}.pack")).is_file()
            }
        }
    };
    let found = crate::verify::midx::objects_of_packs(&dir.path, f.repo.format, &unopened);
    for (name, ids) in found {
        let Some(stem) = stem_of(&name) else {
            continue;
        };
        let n = match known(&f.stored.packs, &stem) {
            Some(n) => n,
            None => {
                let files = PackFiles {
                    pack: pack_dir.join(format!("{stem}.pack")),
                    idx: pack_dir.join(format!("{stem}.idx")),
                    promisor: promisor_remote && pack_dir.join(format!("{stem}.promisor")).exists(),
                };
                let name = files.pack.display().to_string();
                f.stored.packs.push(PackState::new(name, None, files));
                f.stored.packs.len() - 1
            }
        };
        let p = &mut f.stored.packs[n];
        // git finds this pack's objects through the multi-pack-index, and leaves the pack out
        // of its search of the other packs.
        p.lookup_lines.clear();
        let idx_name = p.files.idx.display().to_string();
        let mut lines: Vec<String> = p
            .idx
            .as_ref()
            .and_then(|m| idx::Index::parse(m.bytes(), f.repo.format.raw_len(), &idx_name).err())
            .map(|e| e.to_string())
            .into_iter()
            .collect();
        lines.push(format!("packfile {} index unavailable", p.name));
        p.open_lines = lines;
        for id in ids {
            f.stored.lost.insert(oid(&id), n);
        }
    }
}

/// git's `is_pack_valid`: the pack's header and trailer against its index. `None` when valid,
/// else git's lines.
pub(crate) fn pack_open_errors(
    p: &PackState,
    index: &idx::Index<'_>,
    format: ObjectFormat,
    name: &str,
) -> Option<Vec<String>> {
    let Some(bytes) = p.bytes() else {
        return Some(vec![]);
    };
    let count = match pack::header(bytes, name) {
        Ok(c) => c,
        Err(e) => return Some(vec![e.to_string()]),
    };
    if count != index.len() {
        return Some(vec![format!(
            "packfile {name} claims to have {count} objects while index indicates {} objects",
            index.len()
        )]);
    }
    let raw = format.raw_len();
    if bytes.len() < raw {
        return Some(vec![format!("packfile {name} signature is unavailable")]);
    }
    if bytes[bytes.len() - raw..] != *index.pack_checksum() {
        return Some(vec![format!("packfile {name} does not match index")]);
    }
    None
}

/// The entries whose headers are read at a time (on the pool) before they are described.
pub(super) const READ_CHUNK: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    /// A pack's places stay a run with the objects the table had before beside it, and become a
    /// list when too many are such or an object comes out of turn.
    #[test]
    fn places_in_a_run_and_in_a_list() {
        let mut s = Slots::run(100, 6);
        for (n, i) in [
            (0, 100),
            (1, 7),
            (2, 101),
            (3, u32::MAX),
            (4, 102),
            (5, 103),
        ] {
            s.set(n, i, 6);
        }
        assert!(matches!(&s, Slots::Run { known, .. } if known.len() == 2));
        let got: Vec<Option<u32>> = (0..7).map(|n| s.get(n)).collect();
        assert_eq!(
            got,
            [
                Some(100),
                Some(7),
                Some(101),
                None,
                Some(102),
                Some(103),
                None
            ]
        );
        assert_eq!(s.iter().collect::<Vec<_>>(), [100, 7, 101, 102, 103]);
        assert_eq!(s.memory(), 16);
        // An object out of turn: the places so far are kept in a list.
        let mut s = Slots::run(100, 4);
        for (n, i) in [(0, 100), (1, 5), (2, 150), (3, 151)] {
            s.set(n, i, 4);
        }
        assert!(matches!(&s, Slots::List(_)));
        assert_eq!(s.iter().collect::<Vec<_>>(), [100, 5, 150, 151]);
        assert_eq!(s.memory(), 16);
    }
}

//! The object store as git reads an object from it (`oid_object_info_extended` in git 2.47's
//! `object-file.c`): its cached objects (the empty tree) first, then the packs that open, then
//! the loose objects. A packed copy that cannot be read is marked bad in its pack (git's
//! `mark_bad_packed_object`): it is no longer found there, and the next copy (another pack's, or
//! the loose one) is read instead. The reads of fsck's walk, of the heads' `parse_object`, of the
//! commit-graph check, and of a delta base that its pack could not give (git's `unpack_entry`
//! then reads the base by its id) all go through here.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::object::{Kind, ObjectFormat};
use crate::zlib::Inflater;
use flagsplit_zlib::Inflater as _;

use super::scan::{BaseCache, LooseBy, LooseRead, PackState, Reader, read_loose};
use super::table::{BAD, IN_PACK, Oid, Table};

/// What git's reads see of the repository's objects.
#[derive(Clone, Copy)]
pub struct Store<'a> {
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
}

/// What a read found.
pub struct Read {
    /// The object, when a copy could be read.
    pub object: Option<(Kind, Vec<u8>)>,
    /// git dies here (an entry past the end of a pack, a loose object of an unknown type): its
    /// message.
    pub fatal: Option<String>,
}

impl Store<'_> {
    /// git's cached objects (`find_cached_object`): the empty tree, there whether or not it is
    /// stored (and read from there even when a stored copy is corrupt).
    pub fn cached(&self, id: &Oid) -> Option<(Kind, Vec<u8>)> {
        (*id == self.empty_tree).then(|| (Kind::Tree, Vec::new()))
    }

    /// The packs that hold `id` and have not marked it bad, in search order: (pack, offset).
    fn packed(&self, id: &Oid) -> impl Iterator<Item = (usize, u64)> + '_ {
        // git looks an object up in the multi-pack-index first; a pack of it that cannot be
        // opened says so, each time.
        if let Some(p) = self.lost.get(id).and_then(|&n| self.packs.get(n))
            && let Ok(mut notes) = self.notes.lock()
        {
            notes.extend(p.open_lines.iter().cloned());
        }
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

    /// git's `has_object_pack`: a pack that opens holds it, and has not marked it bad.
    pub fn has_object_pack(&self, id: &Oid) -> bool {
        self.packed(id).next().is_some()
    }

    /// git's `has_object`: cached, in a pack ([`Store::has_object_pack`]) or loose.
    pub fn has_object(&self, id: &Oid) -> bool {
        self.cached(id).is_some() || self.has_object_pack(id) || self.loose.contains_key(id)
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
        // git retries without dying once it marked a packed copy bad (the flag is not passed on).
        let marked = !self.has_object_pack(id);
        let mut read = self.read_with(id, lines, None, true);
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
        id[..self.format.raw_len()]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
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
        let Ok(mut z) = Inflater::new() else {
            return none(None);
        };
        // Each pack that holds it, until one gives it (a failed one marks it bad).
        let mut tried = Vec::new();
        while let Some((n, off)) = self.packed(id).find(|(n, _)| !tried.contains(n)) {
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
            return none(None);
        };
        let hex = self.hex(id);
        match read_loose(&mut z, path, &hex, None, LooseBy::Store) {
            LooseRead::Ok { type_name, data } => match Kind::from_bytes(&type_name) {
                Some(k) => Read {
                    object: Some((k, data)),
                    fatal: None,
                },
                // git's reader dies on a type it does not know.
                None => none(Some("invalid object type".to_string())),
            },
            LooseRead::Bad(bad) => {
                lines.extend(bad);
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
                none(None)
            }
            LooseRead::Streamed { .. } | LooseRead::Short { .. } => none(None),
        }
    }
}

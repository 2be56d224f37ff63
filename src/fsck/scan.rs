//! Checking every stored object, as `git fsck --full` does: loose objects (git's `fsck_loose`)
//! and packs (git's `verify_pack`), with git's messages.
//!
//! A pack is read through its delta tree: entries sorted by offset, each delta a child of its base
//! (OFS_DELTA by offset, REF_DELTA by the base's id in the same pack), resolved from the roots
//! depth-first so that each base and each delta is inflated once and a base is kept only while
//! its children are applied; on a pool, large subtrees are handed to idle threads ([`Split`]). git reaches the same verdict one entry at a time through a
//! delta-base cache; the messages it prints for a broken chain (the base it could not read, each
//! entry it could not unpack) are derived from the tree. Entries no root reaches (a cycle of
//! REF_DELTA bases, which makes git loop until memory runs out) are reported instead of followed.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use flagsplit_object::{delta, idx, loose, pack};
use flagsplit_zlib::Inflater as _;

use super::check::{Base, Core, Local, Packed, TreeLink, timed};
use super::odb::{self, Mapped, PackFiles};
use super::table::{Oid, oid};
use super::{Fatal, Fsck, bits, hex};
use crate::hash::{Algorithm, Hasher};
use crate::object::{Kind, ObjectFormat};
use crate::progress::Shared;
use crate::zlib::Inflater;

/// The largest object fsck holds in memory: a delta that declares a larger result is refused
/// before anything is allocated (git's malloc would fail or exhaust memory), and so is an entry
/// whose header claims more.
pub const MAX_OBJECT: u64 = 4 << 30;

/// Each object of a pack's index: its place in the table. A pack whose objects were new to the
/// table when it was opened holds them in a run, in its index's order, and needs no list: the few
/// it shares with another pack (or a loose copy) are kept beside, by position.
#[derive(Debug)]
pub enum Slots {
    /// Position `n` is the table's object `first + n`, less the positions before it in `known`,
    /// which list (position, place) the objects that were in the table before (`u32::MAX`: not
    /// taken, a duplicate entry of a damaged index).
    Run {
        first: u32,
        len: u32,
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
    fn run(first: u32, len: u32) -> Slots {
        Slots::Run {
            first,
            len,
            known: Vec::new(),
        }
    }

    /// Gives position `n` (of `len`, set in order) the place `i`: a run stays a run while `i` is
    /// the next new object or one the table had before, and no more than one object in 16 is such.
    fn set(&mut self, n: u32, i: u32, len: u32) {
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
    by_offset: std::sync::OnceLock<Vec<(u64, u32)>>,
    /// The objects whose copy here could not be read (git's `bad_object_oids`): no longer
    /// found in this pack.
    bad: std::sync::Mutex<Vec<Oid>>,
    /// What git prints each time a multi-pack-index sends it to this pack and its index does
    /// not load (see `unopened_packs`).
    pub open_lines: Vec<String>,
    /// Its check found something wrong: a read of one of its objects may not be what the check
    /// of the object found.
    pub damaged: bool,
}

impl PackState {
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
    pub(super) fn entry_at(&self, index: &idx::Index<'_>, off: u64) -> Option<u32> {
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

pub(super) fn kind_of(k: flagsplit_object::Kind) -> Kind {
    match k {
        flagsplit_object::Kind::Commit => Kind::Commit,
        flagsplit_object::Kind::Tree => Kind::Tree,
        flagsplit_object::Kind::Blob => Kind::Blob,
        flagsplit_object::Kind::Tag => Kind::Tag,
    }
}

fn digest(algorithm: Algorithm, data: &[u8]) -> Vec<u8> {
    let mut h = Hasher::new(algorithm);
    h.update(data);
    match h.finalize() {
        Ok(d) => d.as_bytes().to_vec(),
        Err(_) => Vec::new(),
    }
}

/// git's `git_inflate` line for the zlib stream at the start of `input` inflated with room for
/// `room` bytes of output (`inflate: data stream error (MSG)`), when zlib's `inflate()` fails
/// there: zlib's own words, whichever provider inflated the stream
/// ([`flagsplit_zlib::failure::inflate_failure`]).
fn zlib_line(input: &[u8], room: usize) -> Option<String> {
    flagsplit_zlib::failure::inflate_failure(input, &[room]).map(|f| f.git_line())
}

/// git's line for a delta at `at` in the pack named `name` whose base it cannot find.
fn bad_base(at: u64, name: &str) -> String {
    pack::EntryError::BadBase { at }.git_line(name)
}

/// Inflates exactly `size` bytes from `input` (a pack entry's data); on failure, the line git
/// prints (its buffer holds `size` bytes and one more, and zlib goes on while it needs no room:
/// an error there is printed too).
fn inflate_exact(
    z: &mut Inflater,
    input: &[u8],
    size: u64,
    out: &mut Vec<u8>,
) -> Result<usize, Option<String>> {
    if size > MAX_OBJECT {
        return Err(None);
    }
    z.inflate_to_vec(input, size as usize, out)
        .map_err(|_| zlib_line(input, size as usize + 1))
}

// ---------------------------------------------------------------------------------------------
// Loose objects

/// git's `fsck_object_dir` for every object directory (with `check` off, as for
/// `--connectivity-only`, the objects are only recorded as present).
pub fn loose_objects(f: &mut Fsck<'_>, dirs: &[odb::ObjectDir], check: bool) -> Result<(), Fatal> {
    let format = f.repo.format;
    let mut z = Inflater::new().map_err(Fatal::msg)?;
    for dir in dirs {
        if check && f.opts.verbose {
            f.out.err("Checking object directory");
        }
        let files = odb::loose_files(&dir.path, format.hex_len());
        if check {
            for c in &files.cruft {
                f.out.err(&format!("bad sha1 file: {}", c.display()));
            }
        }
        for (hexid, path) in &files.objects {
            let Some(raw) = crate::repo::parse_hex(hexid.as_bytes(), format.raw_len()) else {
                continue;
            };
            let id = oid(&raw);
            let i = f.table.unknown(&id);
            f.table.or_flags(i, super::table::PRESENT);
            f.loose.entry(id).or_insert_with(|| path.clone());
            f.loose_order.push(id);
            if check {
                check_loose(f, &mut z, &id, path);
            } else {
                let i = f.table.unknown(&id);
                f.table.or_flags(i, super::table::HAS_OBJ);
            }
        }
        if check {
            // git's meter is never updated per directory (its callback is handed the meter before
            // the meter exists): it shows 100% once the directory is done.
            let mut meter = f.out.progress().start("Checking object directories", 256);
            meter.display(256);
            meter.stop();
        }
    }
    Ok(())
}

/// What reading a loose object found.
pub enum LooseRead {
    /// The header named this type and the content inflated in full.
    Ok {
        /// The type's name as written.
        type_name: Vec<u8>,
        /// The content.
        data: Vec<u8>,
    },
    /// A blob larger than the threshold, hashed as it was inflated (git streams these).
    Streamed {
        /// Its id, or the collision-detecting hash's message.
        id: Result<Oid, String>,
    },
    /// The stream ended before the size its header gives: what git computes as its id.
    Short {
        /// The id of the content padded to its size, or the hash's refusal.
        id: Result<Oid, String>,
    },
    /// git's `error:` lines (without the prefix).
    Bad(Vec<String>),
    /// The file could not be opened, or is empty: git's lines.
    Unmapped(Vec<String>),
    /// For [`LooseBy::StoreType`]: the type's name as the header writes it.
    Header {
        /// The type's name.
        type_name: Vec<u8>,
    },
}

/// The type's name in the header of a loose object file, as git's `oid_object_info` reads it
/// (`Err`: git's lines).
pub fn read_loose_header(
    z: &mut Inflater,
    path: &Path,
    hexid: &str,
) -> Result<Vec<u8>, Vec<String>> {
    match read_loose(z, path, hexid, None, LooseBy::StoreType) {
        LooseRead::Header { type_name } | LooseRead::Ok { type_name, .. } => Ok(type_name),
        LooseRead::Bad(lines) | LooseRead::Unmapped(lines) => Err(lines),
        LooseRead::Streamed { .. } | LooseRead::Short { .. } => Err(Vec::new()),
    }
}

/// How a loose object is read, which decides git's messages: by fsck's scan of the files
/// (`read_loose_object`, which names the file) or through the object store
/// (`loose_object_info`, which names the object; a stream shorter than its header says is then
/// read as its content padded with zeros, whose hash does not match).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum LooseBy {
    /// fsck's scan.
    Scan,
    /// The object store.
    Store,
    /// The object store, for the type alone (git's `oid_object_info`): only the header is
    /// inflated ([`LooseRead::Header`]).
    StoreType,
}

/// Reads a loose object file as git's `read_loose_object` (or `loose_object_info`) does.
/// With `stream` (the big-file threshold and the object format), a blob larger than the
/// threshold is hashed as it is inflated instead of being held.
pub fn read_loose(
    z: &mut Inflater,
    path: &Path,
    hexid: &str,
    stream: Option<(u64, ObjectFormat)>,
    by: LooseBy,
) -> LooseRead {
    let map = match Mapped::open(path) {
        Ok(m) => m,
        Err(e) if by != LooseBy::Scan => {
            let gone = e.kind() == std::io::ErrorKind::NotFound;
            return LooseRead::Unmapped(if gone {
                Vec::new()
            } else {
                vec![format!(
                    "unable to open loose object {hexid}: {}",
                    crate::os_error::strerror(&e)
                )]
            });
        }
        Err(e) => {
            return LooseRead::Unmapped(vec![format!(
                "unable to mmap {}: {}",
                path.display(),
                crate::os_error::strerror(&e)
            )]);
        }
    };
    let input = map.bytes();
    let mut lines = Vec::new();
    if input.is_empty() {
        // git's map_fd refuses an empty file; fsck's scan then reports the mapping with a stale
        // errno.
        lines.push(format!("object file {} is empty", path.display()));
        if by == LooseBy::Scan {
            lines.push(format!(
                "unable to mmap {}: No such file or directory",
                path.display()
            ));
        }
        return LooseRead::Unmapped(lines);
    }
    let unpack_header = match by {
        LooseBy::Scan => format!("unable to unpack header of {}", path.display()),
        LooseBy::Store | LooseBy::StoreType => format!("unable to unpack {hexid} header"),
    };
    // git inflates at most 32 bytes to find the header.
    z.reset();
    let mut hdr = [0u8; loose::MAX_HEADER_LEN];
    let mut got = 0;
    let mut used = 0;
    let mut ended = false;
    while got < hdr.len() && !ended {
        match z.inflate(&input[used..], &mut hdr[got..]) {
            Ok(step) => {
                used += step.consumed;
                got += step.written;
                ended = step.end;
                if step.consumed == 0 && step.written == 0 {
                    break;
                }
            }
            Err(_) => {
                lines.extend(zlib_line(input, usize::MAX));
                lines.push(unpack_header);
                return LooseRead::Bad(lines);
            }
        }
    }
    let header = match loose::parse_header(&hdr[..got]) {
        Ok(h) => h,
        Err(loose::HeaderError::NoNul) => {
            lines.push(match by {
                LooseBy::Scan => unpack_header,
                LooseBy::Store | LooseBy::StoreType => format!(
                    "header for {hexid} too long, exceeds {} bytes",
                    loose::MAX_HEADER_LEN
                ),
            });
            return LooseRead::Bad(lines);
        }
        Err(loose::HeaderError::Malformed) => {
            lines.push(match by {
                LooseBy::Scan => format!("unable to parse header of {}", path.display()),
                LooseBy::Store | LooseBy::StoreType => format!("unable to parse {hexid} header"),
            });
            return LooseRead::Bad(lines);
        }
    };
    if by == LooseBy::StoreType {
        return LooseRead::Header {
            type_name: header.type_name.to_vec(),
        };
    }
    let size = header.size;
    let type_name = header.type_name.to_vec();
    let streaming =
        matches!(stream, Some((threshold, _)) if type_name == b"blob" && size > threshold);
    // git's streaming check (`check_stream_oid`) says only what is wrong with the stream.
    let corrupt = |lines: &mut Vec<String>, what: &str| {
        lines.push(format!("{what} loose object '{hexid}'"));
        if !streaming && by == LooseBy::Scan {
            lines.push(format!("unable to unpack contents of {}", path.display()));
        }
    };
    if size > MAX_OBJECT {
        corrupt(&mut lines, "corrupt");
        return LooseRead::Bad(lines);
    }
    let mut already = &hdr[header.len..got];
    if already.len() as u64 > size {
        // A stream that already ended holds more than its header says: git keeps the declared
        // size (the object then does not match its name). One that goes on cannot fit.
        if !ended {
            corrupt(&mut lines, "corrupt");
            return LooseRead::Bad(lines);
        }
        already = &already[..size as usize];
    }
    let mut hasher = match stream {
        Some((_, format)) if streaming => Some(crate::object::ObjectHasher::new(
            format,
            Kind::Blob,
            size,
            true,
        )),
        _ => None,
    };
    let mut data = if hasher.is_some() {
        Vec::new()
    } else {
        Vec::with_capacity((size as usize).min(input.len().saturating_mul(1032) + 64))
    };
    let mut total = already.len();
    match hasher.as_mut() {
        Some(h) => h.update(already),
        None => data.extend_from_slice(already),
    }
    let mut buf = vec![0u8; 64 * 1024];
    while !ended {
        match z.inflate(&input[used..], &mut buf) {
            Ok(step) => {
                used += step.consumed;
                if total + step.written > size as usize {
                    corrupt(&mut lines, "corrupt");
                    return LooseRead::Bad(lines);
                }
                total += step.written;
                match hasher.as_mut() {
                    Some(h) => h.update(&buf[..step.written]),
                    None => data.extend_from_slice(&buf[..step.written]),
                }
                ended = step.end;
                if step.consumed == 0 && step.written == 0 && !ended {
                    corrupt(&mut lines, "corrupt");
                    return LooseRead::Bad(lines);
                }
            }
            Err(_) => {
                lines.extend(zlib_line(input, usize::MAX));
                corrupt(&mut lines, "corrupt");
                return LooseRead::Bad(lines);
            }
        }
    }
    if used < input.len() {
        corrupt(&mut lines, "garbage at end of");
        return LooseRead::Bad(lines);
    }
    match hasher {
        Some(h) => LooseRead::Streamed {
            id: h
                .finalize()
                .map(|i| oid(i.as_bytes()))
                .map_err(|e| e.to_string()),
        },
        // Through the store, the content (git pads it with zeros; its hash does not match
        // either way, and what follows the real bytes parses as nothing).
        None if (total as u64) < size && by != LooseBy::Scan => LooseRead::Ok { type_name, data },
        None if (total as u64) < size => {
            // A stream shorter than its header says: git hashes its buffer of the declared size
            // (the rest zero), so the object does not match its name. The zeros are hashed, not
            // allocated.
            let format = stream.map_or(ObjectFormat::Sha1, |(_, f)| f);
            let mut h = crate::object::ObjectHasher::with_type_name(format, &type_name, size, true);
            h.update(&data);
            let zeros = [0u8; 8192];
            let mut left = size - total as u64;
            while left > 0 {
                let n = left.min(zeros.len() as u64) as usize;
                h.update(&zeros[..n]);
                left -= n as u64;
            }
            LooseRead::Short {
                id: h
                    .finalize()
                    .map(|i| oid(i.as_bytes()))
                    .map_err(|e| e.to_string()),
            }
        }
        None => LooseRead::Ok { type_name, data },
    }
}

fn check_loose(f: &mut Fsck<'_>, z: &mut Inflater, id: &Oid, path: &Path) {
    let format = f.repo.format;
    let hexid = f.hex(id);
    let stream = Some((f.big_file_threshold, format));
    let (type_name, data) = match read_loose(z, path, &hexid, stream, LooseBy::Scan) {
        LooseRead::Ok { type_name, data } => (type_name, data),
        LooseRead::Short { id: real } => {
            match real {
                Ok(real) => {
                    let rh = f.hex(&real);
                    f.out.error(&format!(
                        "{rh}: hash-path mismatch, found at: {}",
                        path.display()
                    ));
                }
                Err(collision) => f.out.error(&collision),
            }
            f.out.bits |= bits::OBJECT;
            return;
        }
        LooseRead::Streamed { id: real } => {
            match real {
                Ok(real) if real == *id => {
                    if f.object_checked(id, Kind::Blob, None, Some(path)) {
                        f.out.bits |= bits::OBJECT;
                    }
                }
                Ok(_) => {
                    f.out.error(&format!(
                        "hash mismatch for {} (expected {hexid})",
                        path.display()
                    ));
                    f.out.error_bit(
                        &format!("{hexid}: object corrupt or missing: {}", path.display()),
                        bits::OBJECT,
                    );
                }
                Err(collision) => {
                    f.out.error(&collision);
                    f.out.error_bit(
                        &format!("{hexid}: object corrupt or missing: {}", path.display()),
                        bits::OBJECT,
                    );
                }
            }
            return;
        }
        // (Not asked for.)
        LooseRead::Header { .. } => return,
        LooseRead::Bad(lines) | LooseRead::Unmapped(lines) => {
            for l in lines {
                f.out.error(&l);
            }
            f.out.error_bit(
                &format!("{hexid}: object corrupt or missing: {}", path.display()),
                bits::OBJECT,
            );
            return;
        }
    };
    let kind = Kind::from_bytes(&type_name);
    let real = match kind {
        Some(k) => (f.hash)(format, k, &data),
        None => {
            let mut h = crate::object::ObjectHasher::with_type_name(
                format,
                &type_name,
                data.len() as u64,
                true,
            );
            h.update(&data);
            h.finalize()
                .map(|i| oid(i.as_bytes()))
                .map_err(|e| e.to_string())
        }
    };
    let mut failed = false;
    match &real {
        Err(collision) => {
            f.out.error(collision);
            f.out.error(&format!(
                "{hexid}: object corrupt or missing: {}",
                path.display()
            ));
            failed = true;
        }
        Ok(real) if real != id => {
            let rh = f.hex(real);
            f.out.error(&format!(
                "{rh}: hash-path mismatch, found at: {}",
                path.display()
            ));
            failed = true;
        }
        Ok(_) => {}
    }
    if kind.is_none() {
        // git names the object by the id it computed when that is not the path's.
        let rh = match &real {
            Ok(r) if failed => f.hex(r),
            _ => hexid.clone(),
        };
        f.out.error(&format!(
            "{rh}: object is of unknown type '{}': {}",
            String::from_utf8_lossy(&type_name),
            path.display()
        ));
        failed = true;
    }
    if failed {
        f.out.bits |= bits::OBJECT;
        return;
    }
    let Some(kind) = kind else { return };
    let stream = kind == Kind::Blob && data.len() as u64 > f.big_file_threshold;
    let err = f.object_checked(
        id,
        kind,
        if stream { None } else { Some(&data) },
        Some(path),
    );
    if err {
        f.out.bits |= bits::OBJECT;
    }
}

// ---------------------------------------------------------------------------------------------
// Packs

/// Opens every pack of every object directory and records what each holds; git prints an
/// index's load error each time it tries to use it. Without a promisor remote no pack is a
/// promisor pack, whatever `.promisor` files there are (git's `is_promisor_object`), so their
/// objects are not collected for the promisor set.
pub fn open_packs(f: &mut Fsck<'_>, dirs: &[odb::ObjectDir], midx: bool, promisor_remote: bool) {
    let format = f.repo.format;
    for dir in dirs {
        let first = f.packs.len();
        for mut files in odb::packs(&dir.path) {
            files.promisor &= promisor_remote;
            let name = files.pack.display().to_string();
            let idx_map = Mapped::open(&files.idx).ok();
            let mut st = PackState {
                name,
                idx: idx_map,
                pack: None,
                idx_ok: false,
                usable: false,
                table_index: Slots::default(),
                by_offset: std::sync::OnceLock::new(),
                bad: std::sync::Mutex::new(Vec::new()),
                open_lines: Vec::new(),
                damaged: false,
                files,
            };
            // git prints why a pack cannot be used each time it tries to use it; every mode
            // of fsck looks objects up in every pack.
            if let Some(m) = &st.idx {
                match idx::Index::parse(
                    m.bytes(),
                    format.raw_len(),
                    &st.files.idx.display().to_string(),
                ) {
                    Ok(_) => st.idx_ok = true,
                    Err(e) => f.out.error(&e.to_string()),
                }
            }
            st.pack = Mapped::open(&st.files.pack).ok();
            // git finds an object in a pack by a binary search of its index, and only in a pack
            // that opens (its header and trailer agree with the index).
            st.usable = match st.index(format) {
                Some(index) => match pack_open_errors(&st, &index, format, &st.name) {
                    None => true,
                    Some(lines) => {
                        for l in lines {
                            f.out.error(&l);
                        }
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
                    let pool = f.pool.as_ref().filter(|_| span.len() >= 4096);
                    let looked: Vec<(Oid, u64, Option<u32>)> = match pool {
                        Some(pool) => pool.install(|| {
                            use rayon::prelude::*;
                            span.clone().into_par_iter().map(look).collect()
                        }),
                        None => span.clone().map(look).collect(),
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
                            .or_flags(i, super::table::PRESENT | super::table::IN_PACK);
                        if st.files.promisor {
                            f.promisor.insert(id);
                        }
                    }
                }
                st.table_index = table_index;
            }
            f.packs.push(st);
        }
        if midx {
            unopened_packs(f, dir, first, promisor_remote);
        }
    }
}

/// The packs the multi-pack-index of `dir` lists whose index does not load (their `.pack` still
/// there): the `.idx` is gone or damaged. git has them among its packs through the
/// multi-pack-index (`packfile … index not opened` when it checks them), finds none of their
/// objects, and each time it looks for an object the multi-pack-index puts there it tries to
/// open the index again (its error, then `packfile … index unavailable`). `first` is where this
/// directory's packs start in `f.packs`.
fn unopened_packs(f: &mut Fsck<'_>, dir: &odb::ObjectDir, first: usize, promisor_remote: bool) {
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
        match known(&f.packs, &stem) {
            Some(n) => !f.packs[n].idx_ok,
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
        let n = match known(&f.packs, &stem) {
            Some(n) => n,
            None => {
                let files = PackFiles {
                    pack: pack_dir.join(format!("{stem}.pack")),
                    idx: pack_dir.join(format!("{stem}.idx")),
                    promisor: promisor_remote && pack_dir.join(format!("{stem}.promisor")).exists(),
                };
                f.packs.push(PackState {
                    name: files.pack.display().to_string(),
                    idx: None,
                    pack: None,
                    idx_ok: false,
                    usable: false,
                    table_index: Slots::default(),
                    by_offset: std::sync::OnceLock::new(),
                    bad: std::sync::Mutex::new(Vec::new()),
                    open_lines: Vec::new(),
                    damaged: false,
                    files,
                });
                f.packs.len() - 1
            }
        };
        let p = &mut f.packs[n];
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
            f.lost.insert(oid(&id), n);
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

/// One entry of a pack being verified: 16 bytes, as there is one per object. Its offset, the
/// length of its header, the root's type and whether it is a delta share one word; the size its
/// header declares is read from the header again when it is needed ([`PackCtx::size`]). What is
/// rare, a damaged header or a base offset where no entry starts, is kept beside, in [`Rare`].
#[derive(Clone, Copy)]
struct Ent {
    /// Bits 0–47 the offset, 48–55 the header's length, 56–58 the root's type once known (0:
    /// not known), 59 whether it is a delta.
    word: u64,
    n: u32,
    /// The base entry, for a resolved delta ([`NO_BASE`]: none).
    base: u32,
}

/// The entries whose headers are read at a time (on the pool) before they are described.
const READ_CHUNK: usize = 1 << 16;

/// [`Ent::base`] of an entry with no base in the pack.
const NO_BASE: u32 = u32::MAX;

/// The offsets an [`Ent`] holds: below 2^48 (256 TiB).
const MAX_PACK: u64 = 1 << 48;

const OFF_MASK: u64 = MAX_PACK - 1;
const HDR_SHIFT: u32 = 48;
const KIND_SHIFT: u32 = 56;
const DELTA_BIT: u64 = 1 << 59;

impl Ent {
    /// The entry at `off`, `n` in the index, before its header is read. An offset of
    /// [`MAX_PACK`] or more (a damaged index) is kept as the largest: past the end of any pack.
    fn at(off: u64, n: u32) -> Ent {
        Ent {
            word: off.min(OFF_MASK),
            n,
            base: NO_BASE,
        }
    }

    fn off(&self) -> u64 {
        self.word & OFF_MASK
    }

    /// The length of its header: its data starts at `off + hdr`.
    fn hdr(&self) -> u64 {
        (self.word >> HDR_SHIFT) & 0xff
    }

    fn set_hdr(&mut self, hdr: u64) {
        self.word = (self.word & !(0xff << HDR_SHIFT)) | (hdr.min(0xff) << HDR_SHIFT);
    }

    /// The root's type, once known.
    fn kind(&self) -> Option<Kind> {
        match (self.word >> KIND_SHIFT) & 7 {
            1 => Some(Kind::Commit),
            2 => Some(Kind::Tree),
            3 => Some(Kind::Blob),
            4 => Some(Kind::Tag),
            _ => None,
        }
    }

    fn set_kind(&mut self, k: Kind) {
        let code: u64 = match k {
            Kind::Commit => 1,
            Kind::Tree => 2,
            Kind::Blob => 3,
            Kind::Tag => 4,
        };
        self.word = (self.word & !(7 << KIND_SHIFT)) | (code << KIND_SHIFT);
    }

    fn is_delta(&self) -> bool {
        self.word & DELTA_BIT != 0
    }

    fn set_delta(&mut self) {
        self.word |= DELTA_BIT;
    }

    fn base(&self) -> Option<usize> {
        (self.base != NO_BASE).then_some(self.base as usize)
    }

    fn data(&self) -> u64 {
        self.off() + self.hdr()
    }
}

/// What is rare about a pack's entries, by entry.
#[derive(Default)]
struct Rare {
    /// What is wrong with an entry's header, git's lines; then the entry cannot be unpacked.
    header_err: std::collections::HashMap<usize, Vec<String>>,
    /// An OFS_DELTA base offset where no entry starts.
    phantom: std::collections::HashMap<usize, u64>,
}

impl Rare {
    fn header_err(&mut self, i: usize, line: String) {
        self.header_err.entry(i).or_default().push(line);
    }
}

/// The entries based on each entry, in offset order, back to back. Only the entries that are
/// bases have a place in `start`, found by their rank among the bases (a bit each in `has`, and
/// the count before each word in `rank`): 4 bytes a base rather than an entry.
struct Children {
    has: Vec<u64>,
    rank: Vec<u32>,
    /// Where each base's children start in `list` (one more than there are bases), by rank.
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    fn new(ents: &[Ent]) -> Children {
        let mut has = vec![0u64; ents.len().div_ceil(64)];
        for b in ents.iter().filter_map(Ent::base) {
            has[b / 64] |= 1 << (b % 64);
        }
        let mut rank = Vec::with_capacity(has.len());
        let mut bases = 0u32;
        for w in &has {
            rank.push(bases);
            bases += w.count_ones();
        }
        let mut c = Children {
            has,
            rank,
            start: vec![0u32; bases as usize + 1],
            list: Vec::new(),
        };
        for b in ents.iter().filter_map(Ent::base) {
            if let Some(r) = c.rank_of(b) {
                c.start[r + 1] += 1;
            }
        }
        for r in 0..bases as usize {
            c.start[r + 1] += c.start[r];
        }
        let mut fill = c.start.clone();
        c.list = vec![0u32; c.start[bases as usize] as usize];
        for (i, e) in ents.iter().enumerate() {
            if let Some(r) = e.base().and_then(|b| c.rank_of(b)) {
                c.list[fill[r] as usize] = i as u32;
                fill[r] += 1;
            }
        }
        c
    }

    /// No entry has children (a pack checked without its delta tree).
    fn none() -> Children {
        Children {
            has: Vec::new(),
            rank: Vec::new(),
            start: Vec::new(),
            list: Vec::new(),
        }
    }

    /// The place of base `e` among the bases, if it is one.
    fn rank_of(&self, e: usize) -> Option<usize> {
        let word = *self.has.get(e / 64)?;
        let bit = 1u64 << (e % 64);
        (word & bit != 0)
            .then(|| self.rank[e / 64] as usize + (word & (bit - 1)).count_ones() as usize)
    }

    fn of(&self, e: usize) -> &[u32] {
        match self.rank_of(e) {
            Some(r) => &self.list[self.start[r] as usize..self.start[r + 1] as usize],
            None => &[],
        }
    }
}

/// Entry `i` of a pack (at `off`, `n` in its index) as its header `head` says, its base not
/// yet found: the base's offset, and whether an OFS_DELTA names it (no entry need start
/// there). What is rare about it goes to `rare`, when given.
fn describe(
    i: usize,
    off: u64,
    n: u32,
    head: &Result<pack::Entry<'_>, pack::EntryError>,
    index: &idx::Index<'_>,
    name: &str,
    mut rare: Option<&mut Rare>,
) -> (Ent, Option<(u64, bool)>) {
    let mut ent = Ent::at(off, n);
    let mut base = None;
    match head {
        Ok(e) => {
            // A header is a few bytes (its size, a base offset or id).
            ent.set_hdr(e.data - off);
            match e.kind {
                pack::EntryKind::Object(k) => ent.set_kind(kind_of(k)),
                pack::EntryKind::OfsDelta(b) => {
                    ent.set_delta();
                    base = Some((b, true));
                }
                pack::EntryKind::RefDelta(id) => {
                    ent.set_delta();
                    match index.lookup(id).and_then(|bn| index.offset(bn).ok()) {
                        Some(bo) => base = Some((bo, false)),
                        None => {
                            if let Some(r) = rare.as_deref_mut() {
                                r.header_err(i, bad_base(e.data, name));
                            }
                        }
                    }
                }
            }
        }
        Err(err) => {
            if matches!(err, pack::EntryError::BadBase { .. }) {
                ent.set_delta();
            }
            if let Some(r) = rare {
                for line in err.git_lines(off, name) {
                    r.header_err(i, line);
                }
            }
        }
    }
    (ent, base)
}

/// The base of entry `i` (`ent`), whose header names `target`: `found`, the entry at that
/// offset, if any. An OFS_DELTA base where no entry starts is a phantom (git reads whatever is
/// there); a REF_DELTA's must be an entry.
fn link_base(
    i: usize,
    ent: &Ent,
    (target, ofs): (u64, bool),
    found: Option<usize>,
    name: &str,
    rare: Option<&mut Rare>,
) -> u32 {
    match (found, rare) {
        (Some(b), _) => b as u32,
        (None, Some(r)) if ofs => {
            r.phantom.insert(i, target);
            NO_BASE
        }
        (None, Some(r)) => {
            r.header_err(i, bad_base(ent.data(), name));
            NO_BASE
        }
        (None, None) => NO_BASE,
    }
}

/// The index's entries by pack offset: (offset, position in the index), sorted as pairs (faster
/// than sorting the entries); git dies on an offset the index cannot give.
fn by_offset(index: &idx::Index<'_>, name: &str) -> Result<Vec<(u64, u32)>, Fatal> {
    let mut order: Vec<(u64, u32)> = Vec::with_capacity(index.len() as usize);
    for n in 0..index.len() {
        let off = index.offset(n).map_err(|_| {
            Fatal::msg(format!(
                "offset beyond end of pack index for {name} (truncated index?)"
            ))
        })?;
        order.push((off, n));
    }
    order.sort_unstable();
    Ok(order)
}

/// The workers' results folded into the run, in order: whether one found an error, and the special
/// blobs their trees named (to be replayed in pack order).
fn fold(f: &mut Fsck<'_>, locals: Vec<Local>) -> (bool, SpecialEvents) {
    let mut err = false;
    let mut events = Vec::new();
    for mut l in locals {
        f.times.add(&l.times);
        err |= l.err;
        events.append(&mut l.special_events);
        f.apply(&mut l);
    }
    (err, events)
}

/// git's `verify_pack` for pack `pi`. Returns whether it found an error.
///
/// `meter` is git's `Checking objects` meter over every pack, `base_count` the objects of the
/// packs before this one: it is updated as git's `verify_packfile` updates it, at every 1024th
/// object of the count and at the end of the pack.
pub fn verify_pack(
    f: &mut Fsck<'_>,
    pi: usize,
    base_count: u64,
    meter: &Shared,
) -> Result<bool, Fatal> {
    let format = f.repo.format;
    let raw = format.raw_len();
    let packs = std::mem::take(&mut f.packs);
    let result = verify_one(f, (&packs, pi), format, raw, base_count, meter);
    f.packs = packs;
    let (mut err, events) = result?;
    err |= replay_special(f, pi, events);
    f.packs[pi].damaged = err;
    Ok(err)
}

/// The blobs trees named `.gitmodules` or `.gitattributes`, in git's order: the workers checked
/// trees with sets of their own and no such blob; here the pack's entries are taken in offset
/// order, as git takes them, so that a blob is checked now when a tree named it first (its
/// findings then count for the pack, as in git) and left to `fsck_finish` otherwise.
fn replay_special(f: &mut Fsck<'_>, pi: usize, mut events: Vec<(u64, Vec<u8>, bool)>) -> bool {
    let format = f.repo.format;
    let raw = format.raw_len();
    let Some(index) = f.packs[pi].index(format) else {
        return false;
    };
    let mut candidates: Vec<Vec<u8>> = events.iter().map(|(_, id, _)| id.clone()).collect();
    let (modules, attributes) = f.checks.special.found_since((0, 0));
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
                f.checks.special.add_gitmodules(&name);
            } else {
                f.checks.special.add_gitattributes(&name);
            }
        }
        let special = f.checks.special.is_gitmodules(&id) || f.checks.special.is_gitattributes(&id);
        let o = f.table.get(&oid(&id)).map(|i| f.table.obj(i));
        let checked =
            o.is_some_and(|o| o.kind == Some(Kind::Blob) && o.flags & super::table::HAS_OBJ != 0);
        if !special || !checked {
            continue;
        }
        let mut findings = Vec::new();
        let data = read_object(f, &oid(&id)).map(|(_, d)| d);
        let failed = match data {
            Some(d) if (d.len() as u64) < f.big_file_threshold => {
                crate::object::fsck::check_object(
                    Kind::Blob,
                    &id,
                    &d,
                    format,
                    &f.checks.opts,
                    &mut f.checks.special,
                    &mut findings,
                )
            }
            _ => crate::object::fsck::check_unloaded_blob(
                &id,
                &f.checks.opts,
                &mut f.checks.special,
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
            f.checks.special.add_gitmodules(&name);
        } else {
            f.checks.special.add_gitattributes(&name);
        }
    }
    err
}

/// The special-blob events of a pack: (tree offset, blob id, `.gitmodules`?).
type SpecialEvents = Vec<(u64, Vec<u8>, bool)>;

fn verify_one(
    f: &mut Fsck<'_>,
    (packs, pi): (&[PackState], usize),
    format: ObjectFormat,
    raw: usize,
    base_count: u64,
    meter: &Shared,
) -> Result<(bool, SpecialEvents), Fatal> {
    let p = &packs[pi];
    let name = p.name.clone();
    // verify_pack_index
    let Some(idx_map) = &p.idx else {
        f.out.error(&format!("packfile {name} index not opened"));
        return Ok((true, Vec::new()));
    };
    let index = match idx::Index::parse(idx_map.bytes(), raw, &p.files.idx.display().to_string()) {
        Ok(i) => i,
        Err(e) => {
            f.out.error(&e.to_string());
            f.out.error(&format!("packfile {name} index not opened"));
            return Ok((true, Vec::new()));
        }
    };
    let mut err = false;
    let (covered, sum) = index.checksummed();
    if digest(format.file_hash(), covered) != sum {
        f.out
            .error(&format!("Packfile index for {name} hash mismatch"));
        err = true;
    }
    if let Some(lines) = pack_open_errors(p, &index, format, &p.name) {
        for l in lines {
            f.out.error(&l);
        }
        f.out.error(&format!("packfile {name} cannot be accessed"));
        return Ok((true, Vec::new()));
    }
    let Some(bytes) = p.bytes() else {
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
    // Entries by offset.
    let read_started = std::time::Instant::now();
    let order = by_offset(&index, &name)?;
    let mut ents: Vec<Ent> = order.into_iter().map(|(off, n)| Ent::at(off, n)).collect();
    let mut rare = Rare::default();
    let count = ents.len();
    let trailer = || digest(format.object_hash(true), &bytes[..sig_ofs]);
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
    // entries. The trailer is hashed by one of the jobs that resolve the delta trees.
    let read = |ents: &[Ent], i: usize| {
        let crc = crcs_wanted.then(|| crc_of(ents, i));
        let head = pack::entry(limited, ents[i].off(), raw);
        let (ent, base) = describe(i, ents[i].off(), ents[i].n, &head, &index, &name, None);
        let found =
            base.and_then(|(target, _)| ents.binary_search_by_key(&target, |e| e.off()).ok());
        let usual = head.is_ok()
            && (base.is_some() == ent.is_delta())
            && (base.is_none() || found.is_some());
        (crc, head, usual.then_some((ent, found)))
    };
    let sum: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    if f.pool.is_none() {
        let _ = sum.set(trailer());
    }
    // CRCs, headers, bases: the headers read a chunk at a time, so that what they hold before
    // they are described takes a few MB, not some 50 bytes an entry.
    for chunk in (0..count).step_by(READ_CHUNK) {
        let span = chunk..(chunk + READ_CHUNK).min(count);
        let heads: Vec<_> = match &f.pool {
            Some(pool) => pool.install(|| {
                use rayon::prelude::*;
                let ents = ents.as_slice();
                span.clone()
                    .into_par_iter()
                    .map(|i| read(ents, i))
                    .collect()
            }),
            None => span.clone().map(|i| read(&ents, i)).collect(),
        };
        for (i, (crc, head, usual)) in span.zip(&heads) {
            let off = ents[i].off();
            if off > sig_ofs as u64 {
                if f.pool.is_some() {
                    let _ = sum.set(trailer());
                }
                trailer_lines(f, &name, sum.get(), bytes, index.pack_checksum());
                return Err(Fatal::msg(
                    "offset beyond end of packfile (truncated pack?)",
                ));
            }
            let n = ents[i].n;
            if let Some(crc) = *crc
                && Some(crc) != index.crc32(n)
            {
                f.out.error(&format!(
                    "index CRC mismatch for object {} from {name} at offset {off}",
                    hex(index.id(n))
                ));
                err = true;
            }
            if let Some((ent, found)) = *usual {
                ents[i] = ent;
                if let Some(b) = found {
                    ents[i].base = b as u32;
                }
                continue;
            }
            let (ent, base) = describe(i, off, n, head, &index, &name, Some(&mut rare));
            ents[i] = ent;
            if let Some(target) = base {
                let found = ents.binary_search_by_key(&target.0, |e| e.off()).ok();
                ents[i].base = link_base(i, &ents[i], target, found, &name, Some(&mut rare));
            }
        }
    }
    let children = Children::new(&ents);
    f.stage_read += read_started.elapsed();
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
        hash: f.hash,
        big: f.big_file_threshold,
        timing: f.opts.timing,
    };
    let locals: Vec<Local> = {
        let mut core = f.core_with(packs);
        core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
        core.edgeless = core.promisor;
        match &f.pool {
            Some(pool) => {
                let threads = pool.current_num_threads();
                let split = Split {
                    big: big_subtrees(&ents, &children, &roots),
                    pending: AtomicUsize::new(0),
                    limit: threads * 2,
                };
                pool.install(|| {
                    rayon::scope(|s| {
                        s.spawn(|_| {
                            let _ = sum.set(trailer());
                        });
                        for group in roots.chunks(ROOTS_PER_JOB) {
                            let (core, pctx, split) = (&core, &pctx, &split);
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
                pool.broadcast(|_| {
                    WORKER.with(|cell| cell.borrow_mut().as_mut().map(|w| std::mem::take(&mut w.l)))
                })
                .into_iter()
                .flatten()
                .collect()
            }
            None => {
                let mut w = Worker::new();
                w.l.counts = Some(Vec::new());
                for &root in &roots {
                    resolve(&core, &pctx, &mut w, root as usize, None);
                }
                vec![w.l]
            }
        }
    };
    err |= trailer_lines(f, &name, sum.get(), bytes, index.pack_checksum());
    let Some((failed, events)) = settle(f, locals) else {
        let offs: Vec<u64> = ents.iter().map(|e| e.off()).collect();
        let ns: Vec<u32> = ents.iter().map(|e| e.n).collect();
        let mut is_base = vec![0u64; count.div_ceil(64)];
        for e in (0..count).filter(|&e| !children.of(e).is_empty()) {
            is_base[e / 64] |= 1 << (e % 64);
        }
        let flat = (offs.as_slice(), ns.as_slice(), is_base.as_slice());
        let (failed, events) =
            again_in_git_order(f, (packs, pi), &index, bytes, raw, flat, &rare, &saved);
        meter.display_now(base_count + count as u64);
        return Ok((err | failed, events));
    };
    err |= failed;
    // What no root reached: a cycle of REF_DELTA bases.
    for (i, e) in ents.iter().enumerate() {
        if done[i / 64].load(Relaxed) & (1 << (i % 64)) != 0 {
            continue;
        }
        let id = hex(index.id(e.n));
        f.out.error(&format!(
            "delta base cycle: the delta at offset {} in {name} never reaches a base object",
            e.off()
        ));
        f.out.error(&format!(
            "cannot unpack {id} from {name} at offset {}",
            e.off()
        ));
        err = true;
    }
    meter.display_now(base_count + count as u64);
    Ok((err, events))
}

/// What the delta tree of a pack costs per entry at most (the entry, 16 bytes; its place among
/// its base's children and its base's start, 8; the order and sizes while the subtrees are
/// counted, 8; a few bits; the headers read at a time are bounded apart): an estimate for
/// [`low_memory`]. On a pack of 2,000,000 small blobs the tree measured 15 bytes an entry above
/// the peak without it.
const TREE_BYTES_PER_ENTRY: usize = 40;

/// Whether a pack of `count` entries is checked without its delta tree: `--low-memory`
/// (`Some(None)`), or a tree that would take more than half the memory the kernel says is
/// available (`Some(Some(why))`, said on standard error).
fn low_memory(f: &Fsck<'_>, count: usize) -> Option<Option<String>> {
    if f.opts.low_memory {
        return Some(None);
    }
    tree_too_big(count, mem_available()?)
}

/// [`low_memory`]'s rule, for `count` entries and `available` bytes.
fn tree_too_big(count: usize, available: usize) -> Option<Option<String>> {
    let need = count.saturating_mul(TREE_BYTES_PER_ENTRY);
    (need > available / 2).then(|| {
        Some(format!(
            "checked without its delta tree (--low-memory): the tree would take {} MiB of the {} MiB available",
            need >> 20,
            available >> 20
        ))
    })
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The bytes of bases all threads together keep in `--low-memory` (git's default
/// `core.deltaBaseCacheLimit`).
const LOW_MEMORY_CACHE: usize = 32 << 20;

/// Entries given to a job at a time in `--low-memory`, in pack order.
const LOW_MEMORY_CHUNK: usize = 512;

/// Bases a thread decoded in `--low-memory`, by entry, up to a byte budget (the oldest dropped
/// first). A pack's entries are a thread's keys only while it checks that pack.
struct NodeCache {
    pack: usize,
    nodes: Budgeted<u32, (Option<Kind>, Arc<Node>)>,
}

impl NodeCache {
    fn new() -> NodeCache {
        NodeCache {
            pack: 0,
            nodes: Budgeted::new(0),
        }
    }

    /// Empties it unless it holds pack `pack`'s entries; `limit` bytes from now on.
    fn for_pack(&mut self, pack: usize, limit: usize) {
        if self.pack != pack {
            self.nodes.clear();
            self.pack = pack;
        }
        self.nodes.limit = limit;
    }

    fn get(&self, e: usize) -> Option<(Option<Kind>, Arc<Node>)> {
        self.nodes.get(e as u32)
    }

    fn put(&mut self, e: usize, kind: Option<Kind>, node: &Arc<Node>) {
        let size = node.data.len() + node.links.len() * std::mem::size_of::<TreeLink>();
        self.nodes.put(e as u32, (kind, Arc::clone(node)), size);
    }
}

/// How a base could not be made in `--low-memory`.
enum Unmade {
    /// Neither its pack nor the rest of the store could give it.
    Broken,
    /// Its chain of REF_DELTA bases never reaches an object.
    Cycle,
}

/// What making a base ran into on the way, for the entry whose base it is to report: the
/// entries that could not be read as bases (git's `failed to read delta base object`, each then
/// read by its id from the rest of the store), and the lines those reads printed.
#[derive(Default)]
struct Detours {
    failed: Vec<usize>,
    lines: Vec<String>,
}

/// git's `unpack_entry` when the base at entry `e` could not be made from its pack: the object
/// is marked bad in the pack and read by its id from the rest of the store (another pack, or a
/// loose copy), which gives the deltas based on it their base.
fn recover(
    core: &Core<'_>,
    p: &PackCtx<'_>,
    e: &Ent,
    detours: &mut Detours,
) -> Option<(Kind, Vec<u8>)> {
    let id = oid(p.index.id(e.n));
    core.store.mark_bad(p.pack_nr, &id);
    let read = core.store.read(&id, &mut detours.lines, None);
    if let Some(m) = read.fatal {
        detours.lines.push(format!("{FATAL_MARK}{m}"));
    }
    read.object
}

/// Marks a line of [`Detours::lines`] as git's death (`fatal:`), not an `error:`.
const FATAL_MARK: &str = "\0fatal: ";

/// Prints what making a base ran into ([`Detours`]): each base that could not be read once
/// (`named`), and the lines of the reads that stood in for them.
fn report_detours(p: &PackCtx<'_>, flat: &Flat<'_>, l: &mut Local, detours: Detours) {
    for f in detours.failed {
        let first = flat.named.lock().is_ok_and(|mut n| n.insert(f));
        if first {
            let fe = flat.ent(p, f);
            l.error(&format!(
                "failed to read delta base object {} at offset {} from {}",
                hex(p.index.id(fe.n)),
                fe.off(),
                p.name
            ));
        }
    }
    for line in detours.lines {
        match line.strip_prefix(FATAL_MARK) {
            Some(m) => l.fatal = l.fatal.take().or(Some(m.to_string())),
            None => l.error(&line),
        }
    }
}

/// A base made in `--low-memory`: its type (when known) and its node.
type Made = (Option<Kind>, Arc<Node>);

/// Makes entry `b` as a base, in `--low-memory`: from this thread's cache, else by walking its
/// chain down to an object or a cached base and applying the deltas back up (their lines, which
/// their own turn prints, go to `quiet`). A link of the chain that cannot be made is read by its
/// id from the rest of the store, as git does ([`recover`], noted in `detours`).
#[allow(clippy::too_many_arguments)]
fn make_base(
    core: &Core<'_>,
    p: &PackCtx<'_>,
    flat: &Flat<'_>,
    quiet: &mut Local,
    z: &mut Inflater,
    delta: &mut Vec<u8>,
    cache: &mut NodeCache,
    b: usize,
    detours: &mut Detours,
) -> Result<Made, Unmade> {
    let mut chain: Vec<(usize, Ent)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cur = b;
    // The innermost link: a cached base, a phantom's, or an object.
    let (mut at, mut made): (usize, Result<Made, ()>) = loop {
        if let Some(hit) = cache.get(cur) {
            break (cur, Ok(hit));
        }
        // An OFS_DELTA's base comes before it: only REF_DELTA bases can make a cycle.
        if !seen.insert(cur) {
            return Err(Unmade::Cycle);
        }
        let ent = flat.ent(p, cur);
        if let Some(&base_off) = p.rare.phantom.get(&cur) {
            let made = phantom_base(core, p, quiet, z, base_off).and_then(|(k, data)| {
                let base = Node {
                    data,
                    links: Vec::new(),
                    clean: false,
                };
                let d = apply_child(p, quiet, z, &ent, &base, delta).ok()?;
                Some((Some(k), Node::new(d, (Vec::new(), false))))
            });
            if let Some(m) = &made {
                cache.put(cur, m.0, &m.1);
            }
            break (cur, made.ok_or(()));
        }
        if ent.is_delta()
            && let Some(next) = ent.base()
        {
            chain.push((cur, ent));
            cur = next;
            continue;
        }
        let made = unpack_root(p, quiet, z, cur, &ent).map(|data| {
            let m = (ent.kind(), Node::new(data, (Vec::new(), false)));
            cache.put(cur, m.0, &m.1);
            m
        });
        break (cur, made);
    };
    // Up the chain: a link that could not be made is read from the rest of the store.
    let stand_in = |at: usize, detours: &mut Detours| {
        detours.failed.push(at);
        let ent = flat.ent(p, at);
        recover(core, p, &ent, detours)
            .map(|(k, data)| (Some(k), Node::new(data, (Vec::new(), false))))
            .ok_or(())
    };
    while let Some((e, ent)) = chain.pop() {
        if made.is_err() {
            made = stand_in(at, detours);
        }
        made = match made {
            Ok((kind, node)) => apply_child(p, quiet, z, &ent, &node, delta).map(|data| {
                let node = Node::new(data, (Vec::new(), false));
                cache.put(e, kind, &node);
                (kind, node)
            }),
            Err(()) => Err(()),
        };
        at = e;
    }
    if made.is_err() {
        made = stand_in(at, detours);
    }
    made.map_err(|()| Unmade::Broken)
}

/// What `--low-memory` knows of a pack: its entries' offsets and index positions in pack
/// order, which entries are bases, and what is rare.
struct Flat<'a> {
    offs: &'a [u64],
    ns: &'a [u32],
    is_base: &'a [u64],
    index: &'a idx::Index<'a>,
    raw: usize,
    /// The bases already named as unreadable (each once, as the tree names them).
    named: &'a std::sync::Mutex<std::collections::HashSet<usize>>,
}

impl Flat<'_> {
    fn is_base(&self, e: usize) -> bool {
        self.is_base[e / 64] & (1 << (e % 64)) != 0
    }

    /// Entry `e`, its header read again, and its base found.
    fn ent(&self, p: &PackCtx<'_>, e: usize) -> Ent {
        let off = self.offs[e];
        let head = pack::entry(&p.bytes[..p.sig_ofs], off, self.raw);
        let (mut ent, base) = describe(e, off, self.ns[e], &head, self.index, p.name, None);
        if let Some((target, _)) = base {
            ent.base = self
                .offs
                .binary_search(&target)
                .map_or(NO_BASE, |b| b as u32);
        }
        ent
    }
}

/// Checks entry `e` in `--low-memory`: as the tree would, with its base made by
/// [`make_base`].
fn check_flat(core: &Core<'_>, p: &PackCtx<'_>, flat: &Flat<'_>, w: &mut Worker, e: usize) {
    let Worker {
        l,
        z,
        delta,
        quiet,
        cache,
    } = w;
    let Some(z) = z.as_mut() else {
        l.error("cannot start an inflater");
        l.err = true;
        return;
    };
    let ent = flat.ent(p, e);
    let keep = flat.is_base(e);
    let mut kind = ent.kind();
    let mut base_node = None;
    let data = if let Some(&base_off) = p.rare.phantom.get(&e) {
        match phantom_base(core, p, l, z, base_off) {
            Some((k, data)) => {
                kind = Some(k);
                let base = Node {
                    data,
                    links: Vec::new(),
                    clean: false,
                };
                apply_child(p, l, z, &ent, &base, delta)
            }
            None => {
                l.error("bad offset for revindex");
                Err(())
            }
        }
    } else if ent.is_delta()
        && let Some(b) = ent.base()
    {
        quiet.lines.clear();
        let mut detours = Detours::default();
        let made = make_base(core, p, flat, quiet, z, delta, cache, b, &mut detours);
        report_detours(p, flat, l, detours);
        match made {
            Ok((k, node)) => {
                kind = k;
                let data = apply_child(p, l, z, &ent, &node, delta);
                base_node = Some(node);
                data
            }
            Err(Unmade::Broken) => {
                // git cannot read the base, so not the type either.
                kind = None;
                Err(())
            }
            Err(Unmade::Cycle) => {
                let id = hex(p.index.id(ent.n));
                l.error(&format!(
                    "delta base cycle: the delta at offset {} in {} never reaches a base object",
                    ent.off(),
                    p.name
                ));
                l.error(&format!(
                    "cannot unpack {id} from {} at offset {}",
                    p.name,
                    ent.off()
                ));
                l.err = true;
                return;
            }
        }
    } else {
        if kind == Some(Kind::Blob)
            && p.size(&ent) >= p.big
            && !keep
            && !p.rare.header_err.contains_key(&e)
        {
            stream_root(core, p, l, z, e, &ent);
            return;
        }
        unpack_root(p, l, z, e, &ent)
    };
    let links = visit(
        core,
        p,
        l,
        (e, &ent),
        kind,
        &data,
        base_node.as_deref(),
        keep,
    );
    if keep && let Ok(data) = data {
        cache.put(e, kind, &Node::new(data, links));
    }
}

/// git's `verify_pack` of one pack without its delta tree (`--low-memory`): the entries' CRCs
/// and headers are read in pack order, then each entry is checked in turn (in chunks on the
/// pool), a delta's base made from its chain through a bounded cache of bases per thread, as
/// git's `unpack_entry` does. Memory: 13 bytes an entry and the cache.
#[allow(clippy::too_many_arguments)]
fn verify_low_memory(
    f: &mut Fsck<'_>,
    (packs, pi): (&[PackState], usize),
    index: &idx::Index<'_>,
    bytes: &[u8],
    raw: usize,
    mut err: bool,
    base_count: u64,
    meter: &Shared,
    saved: &super::table::Saved,
) -> Result<(bool, SpecialEvents), Fatal> {
    let p = &packs[pi];
    let name = p.name.clone();
    let format = f.repo.format;
    let sig_ofs = bytes.len() - raw;
    let read_started = std::time::Instant::now();
    let order = by_offset(index, &name)?;
    let offs: Vec<u64> = order.iter().map(|&(o, _)| o).collect();
    let ns: Vec<u32> = order.iter().map(|&(_, n)| n).collect();
    drop(order);
    let count = offs.len();
    let limited = &bytes[..sig_ofs];
    let trailer = || digest(format.object_hash(true), &bytes[..sig_ofs]);
    let mut rare = Rare::default();
    let mut is_base = vec![0u64; count.div_ceil(64)];
    let crcs_wanted = index.version() > 1;
    for i in 0..count {
        let off = offs[i];
        if off > sig_ofs as u64 {
            let sum = trailer();
            trailer_lines(f, &name, Some(&sum), bytes, index.pack_checksum());
            return Err(Fatal::msg(
                "offset beyond end of packfile (truncated pack?)",
            ));
        }
        let n = ns[i];
        if crcs_wanted {
            let end = offs
                .get(i + 1)
                .map_or(sig_ofs, |&o| (o as usize).min(sig_ofs));
            let crc = crc32fast::hash(&bytes[off as usize..end.max(off as usize)]);
            if Some(crc) != index.crc32(n) {
                f.out.error(&format!(
                    "index CRC mismatch for object {} from {name} at offset {off}",
                    hex(index.id(n))
                ));
                err = true;
            }
        }
        let head = pack::entry(limited, off, raw);
        let (ent, base) = describe(i, off, n, &head, index, &name, Some(&mut rare));
        if let Some(target) = base {
            let found = offs.binary_search(&target.0).ok();
            let b = link_base(i, &ent, target, found, &name, Some(&mut rare));
            if b != NO_BASE {
                is_base[b as usize / 64] |= 1 << (b % 64);
            }
        }
    }
    f.stage_read += read_started.elapsed();
    let counter = AtomicU64::new(0);
    let children = Children::none();
    let pctx = PackCtx {
        pack_nr: pi,
        bytes,
        sig_ofs,
        name: &name,
        index,
        ents: &[],
        table_index: &p.table_index,
        rare: &rare,
        children: &children,
        done: &[],
        counter: &counter,
        meter,
        base_count,
        hash: f.hash,
        big: f.big_file_threshold,
        timing: f.opts.timing,
    };
    let named = std::sync::Mutex::new(std::collections::HashSet::new());
    let flat = Flat {
        offs: &offs,
        ns: &ns,
        is_base: &is_base,
        index,
        raw,
        named: &named,
    };
    let pack_id = bytes.as_ptr() as usize;
    let sum: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let locals: Vec<Local> = {
        let mut core = f.core_with(packs);
        core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
        core.edgeless = core.promisor;
        match &f.pool {
            Some(pool) => {
                let limit = LOW_MEMORY_CACHE / pool.current_num_threads().max(1);
                pool.install(|| {
                    rayon::scope(|s| {
                        s.spawn(|_| {
                            let _ = sum.set(trailer());
                        });
                        use rayon::prelude::*;
                        (0..count.div_ceil(LOW_MEMORY_CHUNK))
                            .into_par_iter()
                            .for_each(|c| {
                                on_worker(|w| {
                                    w.cache.for_pack(pack_id, limit);
                                    let end = ((c + 1) * LOW_MEMORY_CHUNK).min(count);
                                    for e in c * LOW_MEMORY_CHUNK..end {
                                        check_flat(&core, &pctx, &flat, w, e);
                                    }
                                });
                            });
                    });
                });
                pool.broadcast(|_| {
                    WORKER.with(|cell| {
                        cell.borrow_mut().as_mut().map(|w| {
                            w.cache.for_pack(0, 0);
                            std::mem::take(&mut w.l)
                        })
                    })
                })
                .into_iter()
                .flatten()
                .collect()
            }
            None => {
                let _ = sum.set(trailer());
                let mut w = Worker::new();
                w.l.counts = Some(Vec::new());
                w.cache.for_pack(pack_id, LOW_MEMORY_CACHE);
                for e in 0..count {
                    check_flat(&core, &pctx, &flat, &mut w, e);
                }
                vec![w.l]
            }
        }
    };
    err |= trailer_lines(f, &name, sum.get(), bytes, index.pack_checksum());
    let (failed, events) = match settle(f, locals) {
        Some(settled) => settled,
        None => {
            let flat = (offs.as_slice(), ns.as_slice(), is_base.as_slice());
            again_in_git_order(f, (packs, pi), index, bytes, raw, flat, &rare, saved)
        }
    };
    err |= failed;
    meter.display_now(base_count + count as u64);
    Ok((err, events))
}

/// The workers' results folded into the run ([`fold`]), unless they met a type conflict: an
/// object that a link names as another type than the object has, or two links that name it as
/// two types (git's `object X is a T, not a U`). Which of the two git reports (the link, or the
/// object as corrupt) depends on which it reads first, and the workers did not read the pack in
/// git's order: then `None`, and nothing is folded in.
fn settle(f: &mut Fsck<'_>, mut locals: Vec<Local>) -> Option<(bool, SpecialEvents)> {
    let mut conflicts: usize = locals.iter().map(|l| l.conflicts).sum();
    for l in &mut locals {
        conflicts += f.resolve(l);
    }
    (conflicts == 0).then(|| fold(f, locals))
}

/// A pack's entries (offsets, index positions and which are bases, in pack order: `flat`)
/// checked again one after another, each folded into the run as soon as it is checked: git's
/// order, which decides which side of a type conflict git reports. The types and flags are first
/// put back as they were before the pack (`saved`). Only a pack whose check met a conflict
/// ([`settle`]) is checked so, with a delta's base made through a cache as in `--low-memory`.
#[allow(clippy::too_many_arguments)]
fn again_in_git_order(
    f: &mut Fsck<'_>,
    (packs, pi): (&[PackState], usize),
    index: &idx::Index<'_>,
    bytes: &[u8],
    raw: usize,
    (offs, ns, is_base): (&[u64], &[u32], &[u64]),
    rare: &Rare,
    saved: &super::table::Saved,
) -> (bool, SpecialEvents) {
    let p = &packs[pi];
    f.table.restore(saved);
    let counter = AtomicU64::new(0);
    let children = Children::none();
    // The first check showed the meter's updates for these entries.
    let meter = Shared::new(crate::progress::Meter::off());
    let pctx = PackCtx {
        pack_nr: pi,
        bytes,
        sig_ofs: bytes.len() - raw,
        name: &p.name,
        index,
        ents: &[],
        table_index: &p.table_index,
        rare,
        children: &children,
        done: &[],
        counter: &counter,
        meter: &meter,
        base_count: 0,
        hash: f.hash,
        big: f.big_file_threshold,
        timing: f.opts.timing,
    };
    let named = std::sync::Mutex::new(std::collections::HashSet::new());
    let flat = Flat {
        offs,
        ns,
        is_base,
        index,
        raw,
        named: &named,
    };
    // Counted in the table as it goes (no counts of its own): each entry is folded in at once.
    let mut w = Worker::new();
    w.cache.for_pack(bytes.as_ptr() as usize, LOW_MEMORY_CACHE);
    let (mut err, mut events) = (false, Vec::new());
    for e in 0..offs.len() {
        {
            let mut core = f.core_with(packs);
            core.promisor = packs.get(pi).is_some_and(|p| p.files.promisor);
            check_flat(&core, &pctx, &flat, &mut w, e);
        }
        err |= std::mem::take(&mut w.l.err);
        events.append(&mut w.l.special_events);
        let times = std::mem::take(&mut w.l.times);
        f.times.add(&times);
        f.apply(&mut w.l);
    }
    (err, events)
}

/// git's lines for a pack whose trailer is not the hash of the rest (`sum`) or not the checksum
/// its index names; whether there was one.
fn trailer_lines(
    f: &mut Fsck<'_>,
    name: &str,
    sum: Option<&Vec<u8>>,
    bytes: &[u8],
    in_idx: &[u8],
) -> bool {
    let trailer = &bytes[bytes.len() - in_idx.len()..];
    let mut err = false;
    if sum.is_none_or(|s| s.as_slice() != trailer) {
        f.out.error(&format!("{name} pack checksum mismatch"));
        err = true;
    }
    if trailer != in_idx {
        f.out
            .error(&format!("{name} pack checksum does not match its index"));
        err = true;
    }
    err
}

/// What the workers resolving one pack share.
struct PackCtx<'a> {
    /// Its place in the run's packs.
    pack_nr: usize,
    bytes: &'a [u8],
    sig_ofs: usize,
    name: &'a str,
    index: &'a idx::Index<'a>,
    ents: &'a [Ent],
    /// Each object's place in the table, by its position in the index.
    table_index: &'a Slots,
    rare: &'a Rare,
    children: &'a Children,
    /// Which entries were reached, a bit each (the others are in a REF_DELTA cycle).
    done: &'a [AtomicU64],
    counter: &'a AtomicU64,
    /// `Checking objects`, and the objects of the packs checked before this one.
    meter: &'a Shared,
    base_count: u64,
    hash: super::HashFn,
    big: u64,
    /// Whether stages are timed.
    timing: bool,
}

impl PackCtx<'_> {
    /// The size entry `e`'s header declares.
    fn size(&self, e: &Ent) -> u64 {
        let raw = self.bytes.len() - self.sig_ofs;
        pack::entry(&self.bytes[..self.sig_ofs], e.off(), raw).map_or(u64::MAX, |h| h.size)
    }
}

/// One worker's state: what it produced, its inflater and buffers.
struct Worker {
    l: Local,
    z: Option<Inflater>,
    delta: Vec<u8>,
    /// `--low-memory`: where the lines of bases made again go (their own turn prints them).
    quiet: Local,
    /// `--low-memory`: the bases this thread made.
    cache: NodeCache,
}

impl Worker {
    fn new() -> Worker {
        Worker {
            l: Local::default(),
            z: Inflater::new().ok(),
            delta: Vec::new(),
            quiet: Local::default(),
            cache: NodeCache::new(),
        }
    }
}

/// Roots given to one job at a time; a job's worker resolves their trees one after another.
const ROOTS_PER_JOB: usize = 64;

/// A subtree at least this large (entries) may be handed to another thread.
const SPLIT_AT: u32 = 32;

thread_local! {
    /// The worker of this thread of the pool, reused by every job the thread runs: a C
    /// inflater's state is not `Send`, so it stays here and only what it produced is taken.
    static WORKER: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's worker. `f` must not wait for other jobs (a job run meanwhile on
/// this thread would find the worker taken); spawning is fine.
fn on_worker<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let w = slot.get_or_insert_with(Worker::new);
        if w.l.counts.is_none() {
            w.l.counts = Some(Vec::new());
        }
        f(w)
    })
}

/// How the threads share a pack's delta trees: a thread walking a tree hands a large subtree
/// (its root's base, shared, and the entry) to an idle thread, as long as few hand-offs wait, so
/// memory stays one delta chain per thread plus `limit` bases.
struct Split {
    /// Whether at least [`SPLIT_AT`] entries are under an entry (itself included), a bit each.
    big: Vec<u64>,
    /// Hand-offs not yet started.
    pending: AtomicUsize,
    /// The most hand-offs that may wait.
    limit: usize,
}

type Spawn<'a, 's> = Option<(&'a rayon::Scope<'s>, &'s Split)>;

/// An object of a delta tree while its children are applied: its content and, for a tree, its
/// links (which a child tree reuses where the two name the same objects).
struct Node {
    data: Vec<u8>,
    links: Vec<TreeLink>,
    /// Whether the tree's check found nothing (its children's copies of it are not checked
    /// again).
    clean: bool,
}

impl Node {
    fn new(data: Vec<u8>, (links, clean): (Vec<TreeLink>, bool)) -> Arc<Node> {
        Arc::new(Node { data, links, clean })
    }

    /// Whether a delta of it records its copies (for its check to skip them).
    fn wants_copies(&self) -> bool {
        self.clean && !self.links.is_empty()
    }
}

/// A node on a thread's way down a delta tree: the entry, its node (`Err`: it could not be
/// read), its type (the root's, or the type of the object read in its place) and the next child
/// to apply.
struct Frame {
    e: usize,
    node: Result<Arc<Node>, ()>,
    kind: Option<Kind>,
    next: usize,
}

/// Which entries have at least [`SPLIT_AT`] entries under them (themselves included), a bit
/// each, for [`Split`].
fn big_subtrees(ents: &[Ent], children: &Children, roots: &[u32]) -> Vec<u64> {
    let mut sizes = vec![1u32; ents.len()];
    let mut order: Vec<u32> = Vec::with_capacity(ents.len());
    let mut stack: Vec<u32> = Vec::new();
    for &r in roots {
        stack.push(r);
        while let Some(e) = stack.pop() {
            order.push(e);
            stack.extend_from_slice(children.of(e as usize));
        }
    }
    for &e in order.iter().rev() {
        if let Some(b) = ents[e as usize].base() {
            sizes[b] = sizes[b].saturating_add(sizes[e as usize]);
        }
    }
    drop(order);
    let mut big = vec![0u64; ents.len().div_ceil(64)];
    for (e, _) in sizes.iter().enumerate().filter(|&(_, &n)| n >= SPLIT_AT) {
        big[e / 64] |= 1 << (e % 64);
    }
    big
}

/// Resolves the delta tree under `root`.
fn resolve<'s>(
    core: &'s Core<'s>,
    p: &'s PackCtx<'s>,
    w: &mut Worker,
    root: usize,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = z.as_mut() else {
        l.error("cannot start an inflater");
        l.err = true;
        return;
    };
    let ents = p.ents;
    let children = p.children;
    let mut kind = ents[root].kind();
    if kind == Some(Kind::Blob)
        && p.size(&ents[root]) >= p.big
        && children.of(root).is_empty()
        && !p.rare.header_err.contains_key(&root)
    {
        stream_root(core, p, l, z, root, &ents[root]);
        return;
    }
    let data = match p.rare.phantom.get(&root).copied() {
        Some(base_off) => match phantom_base(core, p, l, z, base_off) {
            Some((k, base)) => {
                kind = Some(k);
                let base = Node {
                    data: base,
                    links: Vec::new(),
                    clean: false,
                };
                apply_child(p, l, z, &ents[root], &base, delta)
            }
            None => {
                // git cannot name the base: no entry starts there.
                l.error("bad offset for revindex");
                Err(())
            }
        },
        None => unpack_root(p, l, z, root, &ents[root]),
    };
    let keep = !children.of(root).is_empty();
    let links = visit(core, p, l, (root, &ents[root]), kind, &data, None, keep);
    let node = data.map(|data| Node::new(data, links));
    descend(core, p, w, root, node, kind, spawn);
}

/// Resolves a subtree handed over by another thread: entry `c`, a delta of `base`.
fn resolve_handed<'s>(
    core: &'s Core<'s>,
    p: &'s PackCtx<'s>,
    w: &mut Worker,
    base: &Node,
    c: usize,
    kind: Option<Kind>,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = z.as_mut() else {
        l.error("cannot start an inflater");
        l.err = true;
        return;
    };
    let data = apply_child(p, l, z, &p.ents[c], base, delta);
    let keep = !p.children.of(c).is_empty();
    let links = visit(core, p, l, (c, &p.ents[c]), kind, &data, Some(base), keep);
    let node = data.map(|data| Node::new(data, links));
    descend(core, p, w, c, node, kind, spawn);
}

/// Applies the deltas under entry `top` (already visited, its content `data`), depth-first with
/// an explicit stack: a base is kept only while its children are applied. With `spawn`, a large
/// subtree goes to another thread when few hand-offs wait.
#[allow(clippy::too_many_arguments)]
fn descend<'s>(
    core: &'s Core<'s>,
    p: &'s PackCtx<'s>,
    w: &mut Worker,
    top: usize,
    node: Result<Arc<Node>, ()>,
    kind: Option<Kind>,
    spawn: Spawn<'_, 's>,
) {
    let Worker { l, z, delta, .. } = w;
    let Some(z) = z.as_mut() else {
        return;
    };
    let ents = p.ents;
    let children = p.children;
    if children.of(top).is_empty() {
        return;
    }
    let mut stack = vec![Frame {
        e: top,
        node,
        kind,
        next: 0,
    }];
    while let Some(frame) = stack.last_mut() {
        let e = frame.e;
        if frame.next >= children.of(e).len() {
            stack.pop();
            continue;
        }
        let c = children.of(e)[frame.next] as usize;
        frame.next += 1;
        if frame.node.is_err() && frame.next == 1 {
            // git's `unpack_entry`: a base its pack cannot give is marked bad there and read by
            // its id from the rest of the store (another pack, a loose copy).
            l.error(&format!(
                "failed to read delta base object {} at offset {} from {}",
                hex(p.index.id(ents[e].n)),
                ents[e].off(),
                p.name
            ));
            let mut detours = Detours::default();
            if let Some((k, data)) = recover(core, p, &ents[e], &mut detours) {
                frame.node = Ok(Node::new(data, (Vec::new(), false)));
                frame.kind = Some(k);
            }
            for line in detours.lines {
                match line.strip_prefix(FATAL_MARK) {
                    Some(m) => l.fatal = l.fatal.take().or(Some(m.to_string())),
                    None => l.error(&line),
                }
            }
        }
        let kind = frame.kind;
        if let (Some((scope, split)), Ok(base)) = (spawn, &frame.node)
            && split.big[c / 64] & (1 << (c % 64)) != 0
            && split.pending.load(Relaxed) < split.limit
        {
            split.pending.fetch_add(1, Relaxed);
            let base = Arc::clone(base);
            scope.spawn(move |s| {
                split.pending.fetch_sub(1, Relaxed);
                on_worker(|w| resolve_handed(core, p, w, &base, c, kind, Some((s, split))));
            });
            continue;
        }
        // The last child takes its base from the stack: the base is freed as soon as the child
        // is made, so that a long chain holds one object at a time, not all of its links.
        let node = if frame.next == children.of(e).len() {
            stack.pop().map_or(Err(()), |f| f.node)
        } else {
            frame.node.clone()
        };
        let (cdata, links) = match &node {
            Ok(base) => {
                let cdata = apply_child(p, l, z, &ents[c], base, delta);
                let keep = !children.of(c).is_empty();
                let links = visit(core, p, l, (c, &ents[c]), kind, &cdata, Some(base), keep);
                (cdata, links)
            }
            Err(()) => {
                let cdata = Err(());
                let links = visit(core, p, l, (c, &ents[c]), kind, &cdata, None, false);
                (cdata, links)
            }
        };
        if !children.of(c).is_empty() {
            stack.push(Frame {
                e: c,
                node: cdata.map(|data| Node::new(data, links)),
                kind,
                next: 0,
            });
        }
    }
}

/// Marks entry `e` reached, for the cycle check and the progress count (the meter is updated
/// where git's is, at every 1024th object, with the count before this one).
fn reached(p: &PackCtx<'_>, e: usize) {
    if let Some(d) = p.done.get(e / 64) {
        d.fetch_or(1 << (e % 64), Relaxed);
    }
    let n = p.base_count + p.counter.fetch_add(1, Relaxed);
    if n & 1023 == 0 {
        p.meter.display(n);
    }
}

/// A blob at least `core.bigFileThreshold` large that no delta uses: hashed as it is inflated,
/// as git streams it (to the end of its zlib stream, whatever its header says), and checked
/// without its content.
fn stream_root(
    core: &Core<'_>,
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut Inflater,
    e: usize,
    ent: &Ent,
) {
    reached(p, e);
    let id_raw = p.index.id(ent.n);
    let id = oid(id_raw);
    let input = p.bytes.get(ent.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let size = p.size(ent);
    let mut h = crate::object::ObjectHasher::new(core.format, Kind::Blob, size, true);
    let mut buf = vec![0u8; 1 << 20];
    let mut used = 0;
    let mut total = 0u64;
    z.reset();
    let ok = loop {
        match z.inflate(&input[used..], &mut buf) {
            Ok(step) => {
                used += step.consumed;
                total += step.written as u64;
                h.update(&buf[..step.written]);
                if step.end {
                    break total == size;
                }
                if step.consumed == 0 && step.written == 0 {
                    break false;
                }
            }
            Err(_) => {
                if let Some(m) = zlib_line(input, usize::MAX) {
                    l.error(&m);
                }
                break false;
            }
        }
    };
    let corrupt = format!("packed {} from {} is corrupt", hex(id_raw), p.name);
    if !ok {
        l.error(&corrupt);
        l.err = true;
        return;
    }
    match h.finalize() {
        Ok(real) if oid(real.as_bytes()) == id => {
            if core.object_checked(l, &id, Kind::Blob, None, None, ent.off(), false) {
                l.err = true;
            }
        }
        Ok(_) => {
            l.error(&corrupt);
            l.err = true;
        }
        Err(c) => {
            l.error(&c.to_string());
            l.error(&corrupt);
            l.err = true;
        }
    }
}

/// What git's `unpack_entry` makes of bytes at `off` that no index entry starts at (the base
/// of a damaged OFS_DELTA): an object when they happen to hold one, else git's lines.
fn phantom_base(
    core: &Core<'_>,
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut Inflater,
    off: u64,
) -> Option<(Kind, Vec<u8>)> {
    let raw = core.format.raw_len();
    match pack::entry(&p.bytes[..p.sig_ofs], off, raw) {
        Ok(e) => match e.kind {
            pack::EntryKind::Object(k) => {
                let input = p.bytes.get(e.data as usize..p.sig_ofs).unwrap_or(&[]);
                let mut out = Vec::new();
                match inflate_exact(z, input, e.size, &mut out) {
                    Ok(_) => Some((kind_of(k), out)),
                    Err(line) => {
                        if let Some(m) = line {
                            l.error(&m);
                        }
                        None
                    }
                }
            }
            // A REF_DELTA whose base is not in the pack: git's `get_delta_base` fails (its
            // position then is past the base's id).
            pack::EntryKind::RefDelta(id) if p.index.lookup(id).is_none() => {
                l.error(&bad_base(e.data, p.name));
                None
            }
            _ => None,
        },
        Err(err) => {
            for line in err.git_lines(off, p.name) {
                l.error(&line);
            }
            None
        }
    }
}

fn unpack_root(
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut Inflater,
    i: usize,
    e: &Ent,
) -> Result<Vec<u8>, ()> {
    if let Some(lines) = p.rare.header_err.get(&i) {
        for m in lines {
            l.error(m);
        }
        return Err(());
    }
    let input = p.bytes.get(e.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let mut out = Vec::new();
    let inflated = timed(p.timing, &mut l.times.inflate, || {
        inflate_exact(z, input, p.size(e), &mut out)
    });
    match inflated {
        Ok(_) => Ok(out),
        Err(line) => {
            if let Some(m) = line {
                l.error(&m);
            }
            if p.size(e) > MAX_OBJECT {
                l.error(&format!(
                    "the entry at offset {} in {} claims {} bytes, more than the {} bytes fsck holds in memory",
                    e.off(), p.name, p.size(e), MAX_OBJECT
                ));
            }
            Err(())
        }
    }
}

/// Applies entry `e`, a delta of `base`; of a tree whose check will skip what it copied from a
/// clean base, the copies are recorded in `l.copies` (else that is emptied).
fn apply_child(
    p: &PackCtx<'_>,
    l: &mut Local,
    z: &mut Inflater,
    e: &Ent,
    base_node: &Node,
    delta_buf: &mut Vec<u8>,
) -> Result<Vec<u8>, ()> {
    let base = base_node.data.as_slice();
    l.copies.clear();
    let input = p.bytes.get(e.data() as usize..p.sig_ofs).unwrap_or(&[]);
    let inflated = timed(p.timing, &mut l.times.inflate, || {
        inflate_exact(z, input, p.size(e), delta_buf)
    });
    if let Err(line) = inflated {
        if let Some(m) = line {
            l.error(&m);
        }
        l.error(&format!(
            "failed to unpack compressed delta at offset {} from {}",
            e.data(),
            p.name
        ));
        return Err(());
    }
    let mut out = Vec::new();
    let copies = &mut l.copies;
    let applied = timed(p.timing, &mut l.times.delta, || {
        if base_node.wants_copies() {
            delta::apply_with(base, delta_buf, &mut out, MAX_OBJECT, |c| copies.push(c))
        } else {
            delta::apply(base, delta_buf, &mut out, MAX_OBJECT)
        }
    });
    match applied {
        Ok(()) => Ok(out),
        Err(d) => {
            match d {
                delta::DeltaError::Opcode0 | delta::DeltaError::Wild => l.error(&d.to_string()),
                delta::DeltaError::TooLarge { size, limit } => l.error(&format!(
                    "the delta at offset {} in {} declares a result of {size} bytes, more than the {limit} bytes fsck holds in memory",
                    e.off(), p.name
                )),
                _ => {}
            }
            l.error("failed to apply delta");
            Err(())
        }
    }
}

/// The object at entry `e` is unpacked (or not): hash it, check it, or say why not. A delta's
/// check reuses its base's links; a tree's own links are returned when `keep` (for deltas of
/// it).
#[allow(clippy::too_many_arguments)]
fn visit(
    core: &Core<'_>,
    p: &PackCtx<'_>,
    l: &mut Local,
    (e, ent): (usize, &Ent),
    kind: Option<Kind>,
    data: &Result<Vec<u8>, ()>,
    base: Option<&Node>,
    keep: bool,
) -> (Vec<TreeLink>, bool) {
    reached(p, e);
    let id_raw = p.index.id(ent.n);
    let id = oid(id_raw);
    let name = p.name;
    let mut links = Vec::new();
    let mut clean = false;
    match (data, kind) {
        (Ok(d), Some(k)) => {
            match timed(p.timing, &mut l.times.hash, || (p.hash)(core.format, k, d)) {
                Ok(real) if real == id => {
                    let stream = k == Kind::Blob && d.len() as u64 >= p.big;
                    let content = if stream { None } else { Some(d.as_slice()) };
                    let start = p.timing.then(std::time::Instant::now);
                    let packed = p.table_index.get(ent.n);
                    let copies = std::mem::take(&mut l.copies);
                    let packed = packed.map(|index| Packed {
                        index,
                        keep_links: keep,
                        base: base.map(|b| Base {
                            data: b.data.as_slice(),
                            links: b.links.as_slice(),
                            clean: b.clean,
                            copies: &copies,
                        }),
                    });
                    if core.delta_checked(l, &id, k, content, None, ent.off(), false, packed) {
                        l.err = true;
                    }
                    clean = l.tree_clean;
                    l.copies = copies;
                    if let Some(s) = start {
                        l.times.checks += s.elapsed();
                    }
                    // Kept only for the children (else the buffer is reused).
                    if k == Kind::Tree && keep {
                        links = std::mem::take(&mut l.tree_links);
                    }
                }
                Ok(_) => {
                    l.error(&format!("packed {} from {name} is corrupt", hex(id_raw)));
                    l.err = true;
                }
                Err(collision) => {
                    l.error(&collision);
                    l.error(&format!("packed {} from {name} is corrupt", hex(id_raw)));
                    l.err = true;
                }
            }
        }
        _ => {
            l.error(&format!(
                "cannot unpack {} from {name} at offset {}",
                hex(id_raw),
                ent.off()
            ));
            l.err = true;
        }
    }
    (links, clean)
}

// ---------------------------------------------------------------------------------------------
// Reading one object again

/// Reads object `id` from the store (loose first, then packs), as git's `read_object` would for
/// a valid object: `None` when it is missing or cannot be read.
pub fn read_object(f: &Fsck<'_>, id: &Oid) -> Option<(Kind, Vec<u8>)> {
    read_object_with(f, id, &mut Vec::new())
}

/// A base in a [`BaseCache`]: its type and content.
type CachedBase = (Kind, std::sync::Arc<[u8]>);

/// Delta bases decoded by reads of many objects one after another, by (pack, offset), kept up to
/// a byte budget (git's `delta_base_cache_limit`, 96 MiB): read in pack order, a delta finds its
/// base here instead of decoding the base's whole chain again.
pub type BaseCache = Budgeted<(usize, u64), CachedBase>;

/// Values kept up to a byte budget, the oldest dropped first; a value larger than a quarter of
/// the budget is not kept.
pub struct Budgeted<K, V> {
    map: std::collections::HashMap<K, (V, usize)>,
    order: std::collections::VecDeque<K>,
    bytes: usize,
    limit: usize,
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

    fn get(&self, key: K) -> Option<V> {
        self.map.get(&key).map(|(v, _)| v.clone())
    }

    /// Keeps `value`, which takes `size` bytes.
    fn put(&mut self, key: K, value: V, size: usize) {
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
    fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
        self.bytes = 0;
    }
}

/// [`read_object`] through a [`BaseCache`], for a pass over many objects.
pub fn read_object_cached(
    f: &Fsck<'_>,
    id: &Oid,
    cache: &mut BaseCache,
) -> Option<(Kind, Vec<u8>)> {
    read_object_in(f, id, &mut Vec::new(), Some(cache))
}

/// Where `id` is first stored in a usable pack: (pack, offset), the order of a pass that reads
/// many objects through a [`BaseCache`].
pub fn packed_place(f: &Fsck<'_>, id: &Oid) -> Option<(usize, u64)> {
    let raw = f.repo.format.raw_len();
    f.packs.iter().enumerate().find_map(|(pi, p)| {
        let index = p.index(f.repo.format).filter(|_| p.usable)?;
        let n = index.lookup(&id[..raw])?;
        index.offset(n).ok().map(|o| (pi, o))
    })
}

/// [`read_object`], collecting in `lines` the `error:` lines (without the prefix) git prints when
/// a packed copy cannot be read.
pub fn read_object_with(
    f: &Fsck<'_>,
    id: &Oid,
    lines: &mut Vec<String>,
) -> Option<(Kind, Vec<u8>)> {
    read_object_in(f, id, lines, None)
}

fn read_object_in(
    f: &Fsck<'_>,
    id: &Oid,
    lines: &mut Vec<String>,
    cache: Option<&mut BaseCache>,
) -> Option<(Kind, Vec<u8>)> {
    let read = f.store().read(id, lines, cache);
    if let Some(m) = read.fatal {
        *f.pending_fatal.borrow_mut() = Some(m);
        return None;
    }
    read.object
}

/// What git's `oid_object_info` finds of a packed object, which `parse_object` asks before it
/// reads one it does not know yet: the type, from the headers of its delta chain alone
/// (`packed_to_object_type`).
pub enum PackedType {
    /// Not in a pack that opens.
    NotPacked,
    /// The type.
    Kind(Kind),
    /// git dies (an entry past the end of the pack): its message.
    Dies(String),
    /// The chain cannot be followed (a bad header, an unknown type, a base git cannot find):
    /// git marks these entries bad in the pack (its number), and a read of the object that
    /// follows dies. With the lines git prints on the way (none for a missing base).
    Bad(usize, Vec<Oid>, Vec<String>),
}

/// [`PackedType`] of `id`, from the first pack that opens and has it.
pub fn packed_type(f: &Fsck<'_>, id: &Oid) -> PackedType {
    let format = f.repo.format;
    let raw = format.raw_len();
    for (pack_nr, p) in f.packs.iter().enumerate().filter(|(_, p)| p.usable) {
        let (Some(index), Some(bytes)) = (p.index(format), p.bytes()) else {
            continue;
        };
        let Some(off) = index.lookup(&id[..raw]).and_then(|n| index.offset(n).ok()) else {
            continue;
        };
        let Some(end) = bytes.len().checked_sub(raw) else {
            continue;
        };
        // The ids of the entries marked bad, by their offsets.
        let ids_at = |offsets: &[u64]| -> Vec<Oid> {
            offsets
                .iter()
                .filter_map(|&o| p.entry_at(&index, o).map(|n| oid(index.id(n))))
                .collect()
        };
        let mut lines = Vec::new();
        // The offsets of the entries left behind on the way to the base (git's `poi_stack`).
        let mut left: Vec<u64> = Vec::new();
        let mut at = off;
        loop {
            if at > end as u64 {
                return PackedType::Dies("offset beyond end of packfile (truncated pack?)".into());
            }
            let e = match pack::entry(&bytes[..end], at, raw) {
                Ok(e) => e,
                Err(err @ pack::EntryError::UnknownType { .. }) => {
                    // Not a delta: git names the type it cannot use, and marks the object.
                    lines.push(err.git_line(&p.name));
                    return PackedType::Bad(pack_nr, vec![*id], lines);
                }
                Err(pack::EntryError::BadHeader) if at == off => {
                    lines.push(pack::EntryError::BadHeader.to_string());
                    return PackedType::Bad(pack_nr, vec![*id], lines);
                }
                Err(pack::EntryError::BadHeader) => {
                    // A base whose header cannot be read: git marks it and unwinds.
                    lines.push(pack::EntryError::BadHeader.to_string());
                    left.push(at);
                    return PackedType::Bad(pack_nr, ids_at(&left), lines);
                }
                Err(pack::EntryError::BadBase { .. }) => {
                    left.push(at);
                    return PackedType::Bad(pack_nr, ids_at(&left), lines);
                }
            };
            match e.kind {
                pack::EntryKind::Object(k) => return PackedType::Kind(kind_of(k)),
                pack::EntryKind::OfsDelta(base) => {
                    left.push(at);
                    at = base;
                }
                pack::EntryKind::RefDelta(base) => {
                    left.push(at);
                    match index.lookup(base).and_then(|n| index.offset(n).ok()) {
                        Some(b) => at = b,
                        // The base must be in the same pack: git unwinds, silently.
                        None => return PackedType::Bad(pack_nr, ids_at(&left), lines),
                    }
                }
            }
            // Deeper than any chain git writes: a cycle.
            if left.len() > 10_000 {
                return PackedType::Bad(pack_nr, ids_at(&left), lines);
            }
        }
    }
    PackedType::NotPacked
}

/// The type git's `oid_object_info` gives `id`, from headers alone
/// ([`super::store::Store::object_type`]); its lines are kept in [`Fsck::notes`], its death in
/// [`Fsck::pending_fatal`].
pub fn stored_kind(f: &Fsck<'_>, id: &Oid) -> Option<Kind> {
    let mut lines = Vec::new();
    let found = f.store().object_type(id, &mut lines);
    if let Ok(mut notes) = f.notes.lock() {
        notes.extend(lines);
    }
    match found {
        Ok(k) => k,
        Err(m) => {
            f.pending_fatal.borrow_mut().get_or_insert(m);
            None
        }
    }
}

/// Reads one object of a pack at random, as git's `unpack_entry` does, with its messages.
pub(super) struct Reader<'a> {
    pub(super) z: &'a mut Inflater,
    pub(super) bytes: &'a [u8],
    pub(super) pack: &'a PackState,
    /// Its place in `Fsck::packs` (the cache's key).
    pub(super) pack_nr: usize,
    pub(super) cache: Option<&'a mut BaseCache>,
    pub(super) index: &'a idx::Index<'a>,
    pub(super) format: ObjectFormat,
    pub(super) name: &'a str,
    pub(super) lines: &'a mut Vec<String>,
    /// git dies here (an offset past the end of the pack).
    pub(super) fatal: Option<String>,
    /// The store, which stands in for a base the pack cannot give.
    pub(super) store: Option<&'a super::store::Store<'a>>,
}

impl Reader<'_> {
    /// The id the index gives the entry at `off`.
    fn id_at(&self, off: u64) -> Option<String> {
        self.pack
            .entry_at(self.index, off)
            .map(|n| hex(self.index.id(n)))
    }

    /// The bytes at `off` read as a whole object's entry (not followed if a delta).
    fn unpack_plain_at(&mut self, off: u64) -> Option<(Kind, Vec<u8>)> {
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
                    Ok(_) => Some((kind_of(k), out)),
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

    pub(super) fn unpack_at(&mut self, off: u64, depth: usize) -> Option<(Kind, Vec<u8>)> {
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
                    Ok(_) => Some((kind_of(k), data)),
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

/// The ids in every usable pack (for `--connectivity-only`).
pub fn packed_ids(f: &Fsck<'_>) -> Vec<Oid> {
    let format = f.repo.format;
    let mut out = Vec::new();
    for p in &f.packs {
        if let Some(index) = p.index(format) {
            out.extend((0..index.len()).map(|n| oid(index.id(n))));
        }
    }
    out
}

/// Every id in the packs git would check (for the progress total).
pub fn total_objects(f: &Fsck<'_>) -> u64 {
    let format = f.repo.format;
    f.packs
        .iter()
        .filter_map(|p| p.index(format))
        .map(|i| u64::from(i.len()))
        .sum()
}

/// git's `has_object` ([`super::store::Store::has_object`]).
pub fn has_object(f: &Fsck<'_>, id: &Oid) -> bool {
    f.store().has_object(id)
}

/// git's `has_object_pack`.
pub fn has_object_pack(f: &Fsck<'_>, id: &Oid) -> bool {
    f.store().has_object_pack(id)
}

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

    /// The tree is given up when it would take more than half of what is available, and the
    /// line says how much of how much.
    #[test]
    fn a_tree_too_big_for_the_memory_is_not_built() {
        let entries = 10_000_000;
        let need = entries * TREE_BYTES_PER_ENTRY;
        assert_eq!(tree_too_big(entries, 2 * need), None);
        let why = tree_too_big(entries, 2 * need - 2).flatten();
        let why = why.expect("a reason");
        assert!(why.contains(&format!("{} MiB of the", need >> 20)), "{why}");
        assert!(why.contains("--low-memory"), "{why}");
    }

    /// The cache of bases keeps to its budget, drops the oldest first and forgets another pack.
    #[test]
    fn the_cache_of_bases_is_bounded() {
        let mut c = NodeCache::new();
        c.for_pack(1, 4000);
        let node = |n: usize| Node::new(vec![0; n], (Vec::new(), false));
        for e in 0..10 {
            c.put(e, Some(Kind::Blob), &node(900));
        }
        assert!(c.nodes.bytes <= 4000);
        assert!(c.get(0).is_none() && c.get(9).is_some());
        // Larger than a quarter of the budget: not kept.
        c.put(20, Some(Kind::Blob), &node(1001));
        assert!(c.get(20).is_none());
        c.for_pack(2, 4000);
        assert!(c.get(9).is_none() && c.nodes.bytes == 0);
    }
}

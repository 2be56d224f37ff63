//! The multi-pack-index (`pack/multi-pack-index`), checked as `git multi-pack-index verify
//! --object-dir <odb> --no-progress` does (git's midx.c `load_multi_pack_index` and
//! `verify_midx_file`), which `git fsck` runs as a child process for each object directory when
//! `core.multiPackIndex` is true (the default); a failure sets `git fsck`'s 040 bit.
//!
//! What is checked: the file's header, chunk table and required chunks (with git's errors, and
//! its `fatal:` lines where git dies), the trailing checksum, that every listed pack exists, the
//! object ids' order, and every object's offset against its pack's `.idx`. git's verify does not
//! look at the reverse index (the `RIDX` chunk or the `.rev` file) nor at the `BTMP` chunk, and
//! neither does this. An incremental chain (`pack/multi-pack-index.d/`, read when the single file
//! is absent or refused) is loaded and verified as git does: only the tip layer's checksum and
//! object order, every layer's packs and offsets.

use crate::Hashes;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{
    Outcome, be32, be64, checksum_valid, find_chunk, hex, oid_version, parse_hex_id, read_toc,
};
use crate::ObjectFormat;
use crate::progress::{Meter, Progress};

const SIGNATURE: u32 = 0x4d49_4458;
const HEADER: usize = 12;
const PNAM: u32 = 0x504e_414d;
const OIDF: u32 = 0x4f49_4446;
const OIDL: u32 = 0x4f49_444c;
const OOFF: u32 = 0x4f4f_4646;
const LOFF: u32 = 0x4c4f_4646;

/// What the caller found for one object in one pack of the multi-pack-index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackEntry {
    /// The object's offset according to the pack's `.idx`.
    Offset(u64),
    /// The pack's `.idx` does not list the object (git compares with offset 0).
    NotInIndex,
    /// The pack cannot be used: its `.idx` or `.pack` cannot be opened or read, or they disagree
    /// (git's `is_pack_valid` fails: `failed to load pack entry for oid[…]`). The lines are what
    /// git prints trying to open it, with their prefix, for example `error: index file <idx> is
    /// too small`, `error: packfile <pack> index unavailable`, `error: packfile <pack> claims to
    /// have 9 objects while index indicates 3 objects` (git prints them again for each object).
    Unusable(Vec<String>),
}

/// A loaded multi-pack-index: the parts `verify` reads.
pub(crate) struct Midx<'a> {
    data: &'a [u8],
    hash_len: usize,
    pub(crate) pack_names: Vec<&'a [u8]>,
    fanout: &'a [u8],
    lookup: &'a [u8],
    offsets: &'a [u8],
    large_offsets: Option<&'a [u8]>,
    pub(crate) num_objects: u32,
}

/// Why [`load`] returned no index.
pub(crate) enum LoadFailure {
    /// git prints errors and goes on without the index.
    Refused,
    /// git dies (the last line is `fatal: …`).
    Died,
}

/// `load_multi_pack_index_one`: parses `data` (the file at `name`, as git prints it), adding
/// git's messages to `out`.
pub(crate) fn load<'a>(
    data: &'a [u8],
    name: &str,
    format: ObjectFormat,
    out: &mut Outcome,
) -> Result<Midx<'a>, LoadFailure> {
    let hash_len = format.raw_len();
    if data.len() < HEADER + hash_len {
        out.error(format!("multi-pack-index file {name} is too small"));
        return Err(LoadFailure::Refused);
    }
    let signature = be32(data, 0).unwrap_or(0);
    if signature != SIGNATURE {
        out.fatal(format!(
            "multi-pack-index signature 0x{signature:08x} does not match signature 0x{SIGNATURE:08x}"
        ));
        return Err(LoadFailure::Died);
    }
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    if byte(4) != 1 {
        out.fatal(format!(
            "multi-pack-index version {} not recognized",
            byte(4)
        ));
        return Err(LoadFailure::Died);
    }
    if byte(5) != oid_version(format) {
        out.error(format!(
            "multi-pack-index hash version {} does not match version {}",
            byte(5),
            oid_version(format)
        ));
        return Err(LoadFailure::Refused);
    }
    let num_chunks = usize::from(byte(6));
    let num_packs = be32(data, 8).unwrap_or(0);
    let chunks =
        read_toc(data, HEADER, num_chunks, 4, format, out).map_err(|()| LoadFailure::Refused)?;
    let Some(names) = find_chunk(data, &chunks, PNAM) else {
        out.fatal("multi-pack-index required pack-name chunk missing or corrupted");
        return Err(LoadFailure::Died);
    };
    let Some(fanout) = find_chunk(data, &chunks, OIDF) else {
        out.fatal("multi-pack-index required OID fanout chunk missing or corrupted");
        return Err(LoadFailure::Died);
    };
    if fanout.len() != 4 * 256 {
        out.error("multi-pack-index OID fanout is of the wrong size");
        out.fatal("multi-pack-index required OID fanout chunk missing or corrupted");
        return Err(LoadFailure::Died);
    }
    for i in 0..255 {
        let a = be32(fanout, 4 * i).unwrap_or(0);
        let b = be32(fanout, 4 * i + 4).unwrap_or(0);
        if a > b {
            out.error(format!(
                "oid fanout out of order: fanout[{i}] = {a:x} > {b:x} = fanout[{}]",
                i + 1
            ));
            out.fatal("multi-pack-index required OID fanout chunk missing or corrupted");
            return Err(LoadFailure::Died);
        }
    }
    let num_objects = be32(fanout, 4 * 255).unwrap_or(0);
    let n = num_objects as usize;
    let Some(lookup) = find_chunk(data, &chunks, OIDL) else {
        out.fatal("multi-pack-index required OID lookup chunk missing or corrupted");
        return Err(LoadFailure::Died);
    };
    if Some(lookup.len()) != n.checked_mul(hash_len) {
        out.error("multi-pack-index OID lookup chunk is the wrong size");
        out.fatal("multi-pack-index required OID lookup chunk missing or corrupted");
        return Err(LoadFailure::Died);
    }
    let Some(offsets) = find_chunk(data, &chunks, OOFF) else {
        out.fatal("multi-pack-index required object offsets chunk missing or corrupted");
        return Err(LoadFailure::Died);
    };
    if Some(offsets.len()) != n.checked_mul(8) {
        out.error("multi-pack-index object offset chunk is the wrong size");
        out.fatal("multi-pack-index required object offsets chunk missing or corrupted");
        return Err(LoadFailure::Died);
    }
    let large_offsets = find_chunk(data, &chunks, LOFF);
    let mut pack_names: Vec<&[u8]> = Vec::new();
    let mut rest = names;
    for _ in 0..num_packs {
        let Some(end) = rest.iter().position(|&b| b == 0) else {
            out.fatal("multi-pack-index pack-name chunk is too short");
            return Err(LoadFailure::Died);
        };
        let (name, after) = rest.split_at(end);
        rest = after.get(1..).unwrap_or(&[]);
        if let Some(&prev) = pack_names.last()
            && name <= prev
        {
            out.fatal(format!(
                "multi-pack-index pack names out of order: '{}' before '{}'",
                String::from_utf8_lossy(prev),
                String::from_utf8_lossy(name)
            ));
            return Err(LoadFailure::Died);
        }
        pack_names.push(name);
    }
    Ok(Midx {
        data,
        hash_len,
        pack_names,
        fanout,
        lookup,
        offsets,
        large_offsets,
        num_objects,
    })
}

impl Midx<'_> {
    fn oid(&self, i: u32) -> &[u8] {
        let start = (i as usize).saturating_mul(self.hash_len);
        self.lookup
            .get(start..start.saturating_add(self.hash_len))
            .unwrap_or(&[])
    }

    fn pack_int_id(&self, i: u32) -> u32 {
        be32(self.offsets, (i as usize).saturating_mul(8)).unwrap_or(0)
    }

    /// `nth_midxed_offset`: `Err` is git's `die` message.
    fn offset(&self, i: u32) -> Result<u64, &'static str> {
        let off32 = be32(
            self.offsets,
            (i as usize).saturating_mul(8).saturating_add(4),
        )
        .unwrap_or(0);
        if let Some(large) = self.large_offsets
            && off32 & 0x8000_0000 != 0
        {
            let idx = (off32 ^ 0x8000_0000) as usize;
            if idx >= large.len() / 8 {
                return Err("multi-pack-index large offset out of bounds");
            }
            return Ok(be64(large, idx * 8).unwrap_or(0));
        }
        Ok(u64::from(off32))
    }

    /// `bsearch_hash` over the fanout and the lookup table.
    fn find(&self, id: &[u8]) -> Option<u32> {
        crate::fanout::bsearch_hash(self.fanout, u32::MAX, id, |n| self.oid(n))
    }
}

/// The path git gives the multi-pack-index of `objects_dir`.
pub fn midx_path(objects_dir: &Path) -> PathBuf {
    objects_dir.join("pack").join("multi-pack-index")
}

/// The path of the incremental multi-pack-index chain of `objects_dir`.
pub fn chain_path(objects_dir: &Path) -> PathBuf {
    objects_dir
        .join("pack")
        .join("multi-pack-index.d")
        .join("multi-pack-index-chain")
}

/// The bitmap path of a multi-pack-index (`pack/multi-pack-index-<checksum>.bitmap`, for a
/// chain too, named after its tip), from the index's content; `None` when it is too short to
/// have a checksum.
pub fn bitmap_path(objects_dir: &Path, midx: &[u8], format: ObjectFormat) -> Option<PathBuf> {
    let split = midx.len().checked_sub(format.raw_len())?;
    Some(
        objects_dir
            .join("pack")
            .join(format!("multi-pack-index-{}.bitmap", hex(&midx[split..]))),
    )
}

/// One layer of a loaded multi-pack-index (a single file is a chain of one).
struct Layer<'a> {
    m: Midx<'a>,
    objects_in_base: u32,
    packs_in_base: u32,
}

/// A loaded multi-pack-index: its layers, base first.
struct Chain<'a> {
    layers: Vec<Layer<'a>>,
}

/// A layer named by a chain file: its path as messages show it, and its bytes when it could
/// be read.
type ChainEntry = (PathBuf, Option<Vec<u8>>);

/// git died while loading.
struct Died;

/// `load_multi_pack_index`: the single file, or when it is absent or refused, the incremental
/// chain; `f` gets what loaded (`None`: nothing did). Messages go to `out`.
fn with_loaded<R>(
    objects_dir: &Path,
    shown: &Path,
    format: ObjectFormat,
    out: &mut Outcome,
    f: impl FnOnce(Option<&Chain<'_>>, &mut Outcome) -> R,
) -> Result<R, Died> {
    let path = midx_path(objects_dir);
    if let Ok(data) = std::fs::read(&path) {
        match load(&data, &midx_path(shown).display().to_string(), format, out) {
            Ok(m) => {
                let chain = Chain {
                    layers: vec![Layer {
                        m,
                        objects_in_base: 0,
                        packs_in_base: 0,
                    }],
                };
                return Ok(f(Some(&chain), out));
            }
            Err(LoadFailure::Died) => return Err(Died),
            Err(LoadFailure::Refused) => {}
        }
    }
    // `open_multi_pack_index_chain` and `load_midx_chain_fd_st`.
    let Ok(text) = std::fs::read(chain_path(objects_dir)) else {
        return Ok(f(None, out));
    };
    if text.len() < format.hex_len() {
        if !text.is_empty() {
            out.warning("multi-pack-index chain file too small");
        }
        return Ok(f(None, out));
    }
    let count = text.len() / (format.hex_len() + 1);
    let dir = objects_dir.join("pack").join("multi-pack-index.d");
    let shown_dir = shown.join("pack").join("multi-pack-index.d");
    // Read every named layer first (the parsed layers borrow the bytes), then parse in order.
    let mut entries: Vec<Result<ChainEntry, String>> = Vec::new();
    for line in text.split(|&b| b == b'\n').take(count) {
        match parse_hex_id(line, format) {
            Some(id) => {
                let file = format!("multi-pack-index-{}.midx", hex(&id));
                let bytes = std::fs::read(dir.join(&file)).ok();
                entries.push(Ok((shown_dir.join(file), bytes)));
            }
            None => {
                entries.push(Err(String::from_utf8_lossy(line).into_owned()));
                break;
            }
        }
    }
    let mut layers: Vec<Layer<'_>> = Vec::new();
    for entry in &entries {
        let (p, bytes) = match entry {
            Ok(e) => e,
            Err(line) => {
                out.warning(format!(
                    "invalid multi-pack-index chain: line '{line}' not a hash"
                ));
                break;
            }
        };
        let loaded = match bytes {
            Some(b) => match load(b, &p.display().to_string(), format, out) {
                Ok(m) => Some(m),
                Err(LoadFailure::Died) => return Err(Died),
                Err(LoadFailure::Refused) => None,
            },
            None => None,
        };
        let mut added = false;
        if let Some(m) = loaded {
            let (objects_in_base, packs_in_base) = match layers.last() {
                None => Some((0, 0)),
                Some(top) => {
                    let packs = (top.m.pack_names.len() as u32).checked_add(top.packs_in_base);
                    let objects = top.m.num_objects.checked_add(top.objects_in_base);
                    match (packs, objects) {
                        (None, _) => {
                            out.warning(format!(
                                "pack count in base MIDX too high: {}",
                                top.packs_in_base
                            ));
                            None
                        }
                        (_, None) => {
                            out.warning(format!(
                                "object count in base MIDX too high: {}",
                                top.objects_in_base
                            ));
                            None
                        }
                        (Some(p), Some(o)) => Some((o, p)),
                    }
                }
            }
            .unzip();
            if let (Some(objects_in_base), Some(packs_in_base)) = (objects_in_base, packs_in_base) {
                layers.push(Layer {
                    m,
                    objects_in_base,
                    packs_in_base,
                });
                added = true;
            }
        }
        if !added {
            out.warning("unable to find all multi-pack index files");
            break;
        }
    }
    if layers.is_empty() {
        return Ok(f(None, out));
    }
    let chain = Chain { layers };
    Ok(f(Some(&chain), out))
}

impl Chain<'_> {
    /// The tip layer (`with_loaded` never builds an empty chain).
    fn tip(&self) -> Option<&Layer<'_>> {
        self.layers.last()
    }

    fn total_objects(&self) -> u32 {
        self.tip()
            .map_or(0, |t| t.m.num_objects.saturating_add(t.objects_in_base))
    }

    fn total_packs(&self) -> u32 {
        self.tip().map_or(0, |t| {
            (t.m.pack_names.len() as u32).saturating_add(t.packs_in_base)
        })
    }

    /// `midx_for_object`: the layer holding global position `pos` and the local position.
    fn for_object(&self, pos: u32) -> Option<(&Layer<'_>, u32)> {
        let l = self
            .layers
            .iter()
            .rev()
            .find(|l| pos >= l.objects_in_base)?;
        let local = pos - l.objects_in_base;
        (local < l.m.num_objects).then_some((l, local))
    }

    /// `midx_for_pack` from the tip: the layer listing global pack `id` and its name there.
    fn pack_name(&self, id: u32) -> Option<&[u8]> {
        let l = self.layers.iter().rev().find(|l| id >= l.packs_in_base)?;
        l.m.pack_names.get((id - l.packs_in_base) as usize).copied()
    }

    /// `bsearch_midx`: from the tip down.
    fn find(&self, id: &[u8]) -> Option<u32> {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.m.find(id).map(|lex| lex + l.objects_in_base))
    }
}

/// What `git fsck` itself prints when it loads the multi-pack-index of an object directory
/// (when `core.multiPackIndex` is true, before any check), and the bitmap `git fsck` then checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The loading's errors and warnings; a `fatal:` line where git dies (then `git fsck` stops
    /// there with status 128, and [`Outcome::failed`] is set). Otherwise these lines do not make
    /// `git fsck` fail (git 2.47.3 printed them twice, which does not change the set of lines).
    pub outcome: Outcome,
    /// When an index loaded, the file name of its bitmap in the `pack` directory
    /// (`multi-pack-index-<checksum>.bitmap`, after the index's or the chain tip's checksum);
    /// `git fsck` checks it with [`super::bitmap::verify`] if it exists.
    pub bitmap: Option<String>,
}

/// Loads the multi-pack-index of `objects_dir` as `git fsck` does in its own process. The
/// files are read in `objects_dir`; messages name them under `shown`, the objects path as
/// `git fsck` has it (`.git/objects`, relative to where it runs, unresolved).
pub fn load_lines(objects_dir: &Path, shown: &Path, format: ObjectFormat) -> Loaded {
    let mut out = Outcome::default();
    let bitmap = with_loaded(objects_dir, shown, format, &mut out, |chain, _| {
        let tip = chain?.tip()?;
        let split = tip.m.data.len().checked_sub(format.raw_len())?;
        Some(format!(
            "multi-pack-index-{}.bitmap",
            hex(&tip.m.data[split..])
        ))
    });
    match bitmap {
        Ok(bitmap) => Loaded {
            outcome: out,
            bitmap,
        },
        Err(Died) => Loaded {
            outcome: out,
            bitmap: None,
        },
    }
}

/// The packs the multi-pack-index of `objects_dir` lists, as it names them (`pack-….idx`), in
/// the order of their ids (a chain's base layers first); none when it does not load.
pub fn pack_names(objects_dir: &Path, format: ObjectFormat) -> Vec<Vec<u8>> {
    let mut quiet = Outcome::default();
    let found = with_loaded(objects_dir, objects_dir, format, &mut quiet, |chain, _| {
        let Some(c) = chain else {
            return Vec::new();
        };
        (0..c.total_packs())
            .filter_map(|id| c.pack_name(id).map(<[u8]>::to_vec))
            .collect()
    });
    found.unwrap_or_default()
}

/// The packs the multi-pack-index of `objects_dir` lists (as it names them, `pack-….idx`) that
/// `wanted` picks, each with the objects the index puts in it (raw ids). git reaches a pack it
/// lists through the index, also when the pack's own `.idx` is gone. Nothing is printed: the
/// loading's messages are [`load_lines`]'.
pub fn objects_of_packs(
    objects_dir: &Path,
    format: ObjectFormat,
    wanted: &dyn Fn(&[u8]) -> bool,
) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
    let mut quiet = Outcome::default();
    let found = with_loaded(objects_dir, objects_dir, format, &mut quiet, |chain, _| {
        let Some(c) = chain else {
            return Vec::new();
        };
        let mut packs: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
        for id in 0..c.total_packs() {
            if let Some(name) = c.pack_name(id).filter(|n| wanted(n)) {
                packs.push((name.to_vec(), Vec::new()));
            }
        }
        if packs.is_empty() {
            return packs;
        }
        for l in &c.layers {
            for i in 0..l.m.num_objects {
                let global = l.m.pack_int_id(i).saturating_add(l.packs_in_base);
                let Some(name) = c.pack_name(global) else {
                    continue;
                };
                if let Some((_, ids)) = packs.iter_mut().find(|(n, _)| n == name) {
                    ids.push(l.m.oid(i).to_vec());
                }
            }
        }
        packs
    });
    found.unwrap_or_default()
}

/// `git multi-pack-index verify --object-dir <objects_dir> --no-progress`. git resolves the
/// directory to its real path (`real_pathdup`), which is what its messages show; so does this.
/// `pack_entry` is asked, for a pack (the path of its `.idx`, `<real objects_dir>/pack/<name as
/// the index lists it>`, which is also how git names the pack in its messages, with `.pack`)
/// and an object id, where the pack's `.idx` puts the object. A listed pack whose name does not
/// end in `.idx` or whose `.pack` is not a regular file is reported without asking.
pub fn verify<H: Hashes>(
    objects_dir: &Path,
    format: ObjectFormat,
    pack_entry: &mut dyn FnMut(&Path, &[u8]) -> PackEntry,
) -> Outcome {
    verify_progress::<H>(objects_dir, format, pack_entry, Progress::OFF)
}

/// [`verify`] with `--progress` when `progress` is on: git's meters `Looking for referenced
/// packfiles` (delayed), then `Verifying OID order in multi-pack-index`, `Sorting objects by
/// packfile` and `Verifying object offsets`, updated every 4096 objects as git's are.
pub fn verify_progress<H: Hashes>(
    objects_dir: &Path,
    format: ObjectFormat,
    pack_entry: &mut dyn FnMut(&Path, &[u8]) -> PackEntry,
    progress: Progress,
) -> Outcome {
    let real = std::fs::canonicalize(objects_dir).unwrap_or_else(|_| objects_dir.to_path_buf());
    let objects_dir = real.as_path();
    let mut out = Outcome::default();
    let done = with_loaded(
        objects_dir,
        objects_dir,
        format,
        &mut out,
        |chain, out| match chain {
            Some(c) => verify_loaded::<H>(c, objects_dir, format, pack_entry, out, progress),
            None => {
                if std::fs::metadata(midx_path(objects_dir)).is_ok() {
                    out.error("multi-pack-index file exists, but failed to parse");
                    out.failed = true;
                }
            }
        },
    );
    if done.is_err() {
        out.failed = true;
    }
    out
}

/// git's `SPARSE_PROGRESS_INTERVAL`: a midx meter is updated at multiples of it.
const SPARSE_PROGRESS_INTERVAL: u64 = 1 << 12;

fn sparse_display(meter: &mut Meter, n: u64) {
    if n & (SPARSE_PROGRESS_INTERVAL - 1) == 0 {
        meter.display(n);
    }
}

fn verify_loaded<H: Hashes>(
    c: &Chain<'_>,
    objects_dir: &Path,
    format: ObjectFormat,
    pack_entry: &mut dyn FnMut(&Path, &[u8]) -> PackEntry,
    out: &mut Outcome,
    progress: Progress,
) {
    let report = |out: &mut Outcome, line: String| {
        out.plain(line);
        out.failed = true;
    };
    let Some(tip) = c.tip() else {
        return;
    };
    if !checksum_valid::<H>(tip.m.data, format) {
        report(out, "incorrect checksum".to_string());
    }
    let pack_dir = objects_dir.join("pack");
    // `prepare_midx_pack`: the name must end in `.idx` and its `.pack` must be a regular file.
    let present: Vec<bool> = (0..c.total_packs())
        .map(|i| {
            c.pack_name(i)
                .and_then(|n| n.strip_suffix(b".idx"))
                .is_some_and(|stem| {
                    let mut file = stem.to_vec();
                    file.extend_from_slice(b".pack");
                    std::fs::metadata(pack_dir.join(OsStr::from_bytes(&file)))
                        .is_ok_and(|md| md.is_file())
                })
        })
        .collect();
    let mut meter =
        progress.start_delayed("Looking for referenced packfiles", present.len() as u64);
    for (i, ok) in present.iter().enumerate() {
        if !ok {
            report(out, format!("failed to load pack in position {i}"));
        }
        meter.display(i as u64 + 1);
    }
    meter.stop();
    if tip.m.num_objects == 0 {
        report(out, "the midx contains no oid".to_string());
        return;
    }
    let num_objects = u64::from(tip.m.num_objects);
    let mut meter =
        progress.start_sparse("Verifying OID order in multi-pack-index", num_objects - 1);
    // git compares the tip's ids once per layer; the lines are the same each time.
    for i in 0..tip.m.num_objects - 1 {
        let (a, b) = (tip.m.oid(i), tip.m.oid(i + 1));
        if a >= b {
            report(
                out,
                format!(
                    "oid lookup out of order: oid[{i}] = {} >= {} = oid[{}]",
                    hex(a),
                    hex(b),
                    i + 1
                ),
            );
        }
        sparse_display(&mut meter, u64::from(i) + 1);
    }
    meter.stop();
    // git visits the objects grouped by pack (in decreasing pack order; the order within a pack
    // is qsort's, which does not matter for the set of lines).
    let global_pack = |pos: u32| {
        c.for_object(pos)
            .map(|(l, local)| l.m.pack_int_id(local).wrapping_add(l.packs_in_base))
            .unwrap_or(0)
    };
    let mut order: Vec<(u32, u32)> = (0..c.total_objects())
        .map(|i| (global_pack(i), i))
        .collect();
    let mut meter = progress.start_sparse("Sorting objects by packfile", num_objects);
    meter.display(0);
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    meter.stop();
    let mut meter = progress.start_sparse("Verifying object offsets", num_objects);
    for (i, (_, pos)) in order.into_iter().enumerate() {
        let Some((layer, local)) = c.for_object(pos) else {
            continue;
        };
        let id = layer.m.oid(local);
        // `fill_midx_entry`: the id is looked up again.
        let Some(found) = c.find(id) else {
            report(
                out,
                format!("failed to load pack entry for oid[{pos}] = {}", hex(id)),
            );
            continue;
        };
        let Some((flayer, flocal)) = c.for_object(found) else {
            continue;
        };
        let pack = flayer
            .m
            .pack_int_id(flocal)
            .wrapping_add(flayer.packs_in_base);
        let layer_total = (flayer.m.pack_names.len() as u32).wrapping_add(flayer.packs_in_base);
        if pack >= layer_total {
            out.fatal(format!(
                "bad pack-int-id: {pack} ({layer_total} total packs)"
            ));
            return;
        }
        let entry = match (present.get(pack as usize), c.pack_name(pack)) {
            (Some(true), Some(name)) => pack_entry(&pack_dir.join(OsStr::from_bytes(name)), id),
            _ => PackEntry::Unusable(Vec::new()),
        };
        let p_offset = match entry {
            PackEntry::Unusable(lines) => {
                out.lines.extend(lines);
                report(
                    out,
                    format!("failed to load pack entry for oid[{pos}] = {}", hex(id)),
                );
                continue;
            }
            PackEntry::NotInIndex => 0,
            PackEntry::Offset(o) => o,
        };
        let m_offset = match flayer.m.offset(flocal) {
            Ok(o) => o,
            Err(msg) => {
                out.fatal(msg);
                return;
            }
        };
        if m_offset != p_offset {
            report(
                out,
                format!(
                    "incorrect object offset for oid[{pos}] = {}: {m_offset:x} != {p_offset:x}",
                    hex(id)
                ),
            );
        }
        sparse_display(&mut meter, i as u64 + 1);
    }
    meter.stop();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_small_and_bad_signature() {
        let mut out = Outcome::default();
        assert!(load(&[0; 10], "m", ObjectFormat::Sha1, &mut out).is_err());
        assert_eq!(out.lines, ["error: multi-pack-index file m is too small"]);
        let mut out = Outcome::default();
        assert!(load(&[0; 40], "m", ObjectFormat::Sha1, &mut out).is_err());
        assert_eq!(
            out.lines,
            ["fatal: multi-pack-index signature 0x00000000 does not match signature 0x4d494458"]
        );
        assert!(out.failed);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 99u32;
        for len in 0..400usize {
            let mut data: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (seed >> 16) as u8
                })
                .collect();
            if len >= 8 {
                data[..4].copy_from_slice(b"MIDX");
                data[4] = 1;
                data[5] = 1;
                data[6] %= 8;
            }
            let mut out = Outcome::default();
            if let Ok(m) = load(&data, "m", ObjectFormat::Sha1, &mut out) {
                let chain = Chain {
                    layers: vec![Layer {
                        m,
                        objects_in_base: 0,
                        packs_in_base: 0,
                    }],
                };
                verify_loaded::<crate::test_hashes::TestHashes>(
                    &chain,
                    Path::new("/nonexistent"),
                    ObjectFormat::Sha1,
                    &mut |_, _| PackEntry::NotInIndex,
                    &mut out,
                    Progress::OFF,
                );
            }
        }
    }
}

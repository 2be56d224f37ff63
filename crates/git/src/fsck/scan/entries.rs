//! A pack's entries as its check reads them: each one's offset, header and base in one word
//! ([`Ent`]), what is rare kept beside ([`Rare`]), and the delta tree's shape ([`Children`]).

use crate::{idx, pack};

use crate::Kind;
use crate::fsck::Fatal;

use super::bad_base;

/// One entry of a pack being verified: 16 bytes, as there is one per object. Its offset, the
/// length of its header, the root's type and whether it is a delta share one word; the size its
/// header declares is read from the header again when it is needed ([`super::tree::PackCtx::size`]). What is
/// rare, a damaged header or a base offset where no entry starts, is kept beside, in [`Rare`].
#[derive(Clone, Copy)]
pub(super) struct Ent {
    /// Bits 0–47 the offset, 48–55 the header's length, 56–58 the root's type once known (0:
    /// not known), 59 whether it is a delta.
    pub(super) word: u64,
    pub(super) n: u32,
    /// The base entry, for a resolved delta ([`NO_BASE`]: none).
    pub(super) base: u32,
}

/// [`Ent::base`] of an entry with no base in the pack.
pub(super) const NO_BASE: u32 = u32::MAX;

/// The offsets an [`Ent`] holds: below 2^48 (256 TiB).
const MAX_PACK: u64 = 1 << 48;

const OFF_MASK: u64 = MAX_PACK - 1;

const HDR_SHIFT: u32 = 48;

const KIND_SHIFT: u32 = 56;

const DELTA_BIT: u64 = 1 << 59;

impl Ent {
    /// The entry at `off`, `n` in the index, before its header is read. An offset of
    /// [`MAX_PACK`] or more (a damaged index) is kept as the largest: past the end of any pack.
    pub(super) fn at(off: u64, n: u32) -> Ent {
        Ent {
            word: off.min(OFF_MASK),
            n,
            base: NO_BASE,
        }
    }

    pub(super) fn off(&self) -> u64 {
        self.word & OFF_MASK
    }

    /// The length of its header: its data starts at `off + hdr`.
    pub(super) fn hdr(&self) -> u64 {
        (self.word >> HDR_SHIFT) & 0xff
    }

    pub(super) fn set_hdr(&mut self, hdr: u64) {
        self.word = (self.word & !(0xff << HDR_SHIFT)) | (hdr.min(0xff) << HDR_SHIFT);
    }

    /// The root's type, once known.
    pub(super) fn kind(&self) -> Option<Kind> {
        match (self.word >> KIND_SHIFT) & 7 {
            1 => Some(Kind::Commit),
            2 => Some(Kind::Tree),
            3 => Some(Kind::Blob),
            4 => Some(Kind::Tag),
            _ => None,
        }
    }

    pub(super) fn set_kind(&mut self, k: Kind) {
        let code: u64 = match k {
            Kind::Commit => 1,
            Kind::Tree => 2,
            Kind::Blob => 3,
            Kind::Tag => 4,
        };
        self.word = (self.word & !(7 << KIND_SHIFT)) | (code << KIND_SHIFT);
    }

    pub(super) fn is_delta(&self) -> bool {
        self.word & DELTA_BIT != 0
    }

    pub(super) fn set_delta(&mut self) {
        self.word |= DELTA_BIT;
    }

    pub(super) fn base(&self) -> Option<usize> {
        (self.base != NO_BASE).then_some(self.base as usize)
    }

    pub(super) fn data(&self) -> u64 {
        self.off() + self.hdr()
    }
}

/// What is rare about a pack's entries, by entry.
#[derive(Default)]
pub(super) struct Rare {
    /// What is wrong with an entry's header, git's lines; then the entry cannot be unpacked.
    pub(super) header_err: std::collections::HashMap<usize, Vec<String>>,
    /// An OFS_DELTA base offset where no entry starts.
    pub(super) phantom: std::collections::HashMap<usize, u64>,
}

impl Rare {
    pub(super) fn header_err(&mut self, i: usize, line: String) {
        self.header_err.entry(i).or_default().push(line);
    }
}

/// The entries based on each entry, in offset order, back to back. Only the entries that are
/// bases have a place in `start`, found by their rank among the bases (a bit each in `has`, and
/// the count before each word in `rank`): 4 bytes a base rather than an entry.
pub(super) struct Children {
    pub(super) has: Vec<u64>,
    pub(super) rank: Vec<u32>,
    /// Where each base's children start in `list` (one more than there are bases), by rank.
    pub(super) start: Vec<u32>,
    pub(super) list: Vec<u32>,
}

impl Children {
    pub(super) fn new(ents: &[Ent]) -> Children {
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
    pub(super) fn none() -> Children {
        Children {
            has: Vec::new(),
            rank: Vec::new(),
            start: Vec::new(),
            list: Vec::new(),
        }
    }

    /// The place of base `e` among the bases, if it is one.
    pub(super) fn rank_of(&self, e: usize) -> Option<usize> {
        let word = *self.has.get(e / 64)?;
        let bit = 1u64 << (e % 64);
        (word & bit != 0)
            .then(|| self.rank[e / 64] as usize + (word & (bit - 1)).count_ones() as usize)
    }

    pub(super) fn of(&self, e: usize) -> &[u32] {
        match self.rank_of(e) {
            Some(r) => &self.list[self.start[r] as usize..self.start[r + 1] as usize],
            None => &[],
        }
    }
}

/// Entry `i` of a pack (at `off`, `n` in its index) as its header `head` says, its base not
/// yet found: the base's offset, and whether an OFS_DELTA names it (no entry need start
/// there). What is rare about it goes to `rare`, when given.
pub(super) fn describe(
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
                pack::EntryKind::Object(k) => ent.set_kind(k),
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
pub(super) fn link_base(
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
pub(super) fn by_offset(index: &idx::Index<'_>, name: &str) -> Result<Vec<(u64, u32)>, Fatal> {
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

//! Pack reverse indexes (`pack-*.rev`), checked as `git fsck` does in `check_pack_rev_indexes`
//! (git's pack-revindex.c: `load_pack_revindex_from_disk`, then `verify_pack_revindex`).
//!
//! A pack without a `.rev` file is fine, whatever `pack.readReverseIndex` says: `git fsck` loads
//! the file directly, and a missing file is not an error. The loaded file is checked for its
//! size, signature, version and hash id (any of git's ids, 1 or 2, whatever the repository's
//! format), then its trailing checksum and every position against the order of the pack's
//! objects by offset. The pack checksum the file carries is not compared with the pack's.

use super::{Outcome, be32, checksum_valid};
use crate::Hashes;
use crate::ObjectFormat;

/// `RIDX`.
const SIGNATURE: u32 = 0x5249_4458;
const HEADER: usize = 12;

/// The line `git fsck` prints when it cannot load a pack's index at all (`open_pack_index`
/// failed), before looking at the `.rev` file; it counts as a reverse-index failure (0100).
pub fn unable_to_load(pack_name: &str) -> String {
    format!("error: unable to load rev-index for pack '{pack_name}'")
}

/// The `.rev` path git names in its messages: `pack_name` with `.pack` replaced by `.rev`.
pub fn rev_path(pack_name: &str) -> String {
    let stem = pack_name.strip_suffix(".pack").unwrap_or(pack_name);
    format!("{stem}.rev")
}

/// Checks one pack's reverse index.
///
/// - `pack_name`: the pack's path as git prints it (`.git/objects/pack/pack-….pack`, as the
///   caller's git would name it); the `.rev` path in messages is derived from it.
/// - `rev`: the `.rev` file's content, `None` when there is no such file (silent, no failure).
/// - `num`: the pack's object count; `offset(n)`: the offset in the pack of the object at
///   position `n` of the `.idx` (by object id).
/// - `pack_size`: the `.pack` file's length (git's in-memory reverse index ends with the offset of
///   the pack's trailing checksum, which orders after every object of a sound index).
pub fn verify<H: Hashes>(
    pack_name: &str,
    rev: Option<&[u8]>,
    format: ObjectFormat,
    num: usize,
    offset: impl Fn(usize) -> u64,
    pack_size: u64,
) -> Outcome {
    let mut out = Outcome::default();
    let Some(data) = rev else {
        return out;
    };
    let rev_name = rev_path(pack_name);
    if let Err(msg) = load(data, &rev_name, num, format) {
        out.error(msg);
        out.lines.push(unable_to_load(pack_name));
        out.failed = true;
        return out;
    }
    let mut bad = false;
    if !checksum_valid::<H>(data, format) {
        out.error("invalid checksum");
        bad = true;
    }
    let expected = ByOffset::new(num, offset, pack_size);
    for (i, nr) in (0..num).map(|i| (i, expected.nr(i))) {
        let Some(on_disk) = be32(data, HEADER + 4 * i) else {
            break;
        };
        if nr != on_disk {
            out.error(format!(
                "invalid rev-index position at {i}: {nr} != {on_disk}"
            ));
            bad = true;
        }
    }
    if bad {
        out.error(format!("invalid rev-index for pack '{pack_name}'"));
        out.failed = true;
    }
    out
}

/// git's `load_revindex_from_disk` checks, with its messages (without the prefix).
pub(crate) fn load(
    data: &[u8],
    rev_name: &str,
    num_objects: usize,
    format: ObjectFormat,
) -> Result<(), String> {
    let min = HEADER + 2 * format.raw_len();
    if data.len() < min {
        return Err(format!("reverse-index file {rev_name} is too small"));
    }
    if Some(data.len() - min) != num_objects.checked_mul(4) {
        return Err(format!("reverse-index file {rev_name} is corrupt"));
    }
    if be32(data, 0) != Some(SIGNATURE) {
        return Err(format!(
            "reverse-index file {rev_name} has unknown signature"
        ));
    }
    let version = be32(data, 4).unwrap_or(0);
    if version != 1 {
        return Err(format!(
            "reverse-index file {rev_name} has unsupported version {version}"
        ));
    }
    let hash_id = be32(data, 8).unwrap_or(0);
    if hash_id != 1 && hash_id != 2 {
        return Err(format!(
            "reverse-index file {rev_name} has unsupported hash id {hash_id}"
        ));
    }
    Ok(())
}

/// The objects' positions in the `.idx`, in the order of their offsets, as git computes them in
/// memory (`create_pack_revindex`): the offsets sorted stably by a radix sort on 16-bit digits
/// that stops after the digits of `pack_size` (so bits of an offset above the pack's size do not
/// take part in the order); the pack's trailer (position `u32::MAX`) is left out of the sort.
/// Held as compactly as the pack allows: one `u64` each (offset and position) when every offset
/// fits in 32 bits, else a pair.
enum ByOffset {
    Packed(Vec<u64>),
    Wide(Vec<(u64, u32)>),
}

impl ByOffset {
    fn new(num: usize, offset: impl Fn(usize) -> u64, pack_size: u64) -> ByOffset {
        let mut digits = 0u32;
        while digits < 4 && (pack_size >> (16 * digits)) != 0 {
            digits += 1;
        }
        let mask = if digits >= 4 {
            u64::MAX
        } else {
            (1u64 << (16 * digits)) - 1
        };
        // git sorts the objects only: the trailer's entry stays last, even when a broken index
        // gives an object an offset past it. Its sort is stable: equal offsets keep the
        // `.idx` order, as the position in the low bits keeps it here.
        let key = |n: usize| offset(n) & mask;
        // Each offset read once: as a packed key while they fit, as pairs from the first that
        // does not.
        let mut keys: Vec<u64> = Vec::with_capacity(num);
        for n in 0..num {
            let k = key(n);
            if k > u64::from(u32::MAX) {
                let mut pairs: Vec<(u64, u32)> = keys
                    .iter()
                    .map(|&p| (p >> 32, p as u32))
                    .chain((n..num).map(|m| (key(m), m as u32)))
                    .collect();
                drop(keys);
                pairs.sort_unstable();
                return ByOffset::Wide(pairs);
            }
            keys.push(k << 32 | n as u64);
        }
        keys.sort_unstable();
        ByOffset::Packed(keys)
    }

    /// The `.idx` position of the `i`-th object by offset.
    fn nr(&self, i: usize) -> u32 {
        match self {
            ByOffset::Packed(k) => k.get(i).map_or(u32::MAX, |&k| k as u32),
            ByOffset::Wide(p) => p.get(i).map_or(u32::MAX, |&(_, n)| n),
        }
    }
}

/// [`ByOffset`] as a list, with the trailer's entry last.
#[cfg(test)]
fn in_memory_order(offsets: &[u64], pack_size: u64) -> Vec<u32> {
    let order = ByOffset::new(offsets.len(), |n| offsets[n], pack_size);
    (0..offsets.len())
        .map(|i| order.nr(i))
        .chain(std::iter::once(u32::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_by_offset_with_trailer_last() {
        assert_eq!(in_memory_order(&[30, 12, 50], 100), [1, 0, 2, u32::MAX]);
        // The trailer is left out of the sort: an offset past it still sorts before it, as in
        // git 2.47.3 (`sort_revindex` over `num_objects` entries).
        assert_eq!(in_memory_order(&[90, 12], 100), [1, 0, u32::MAX]);
    }

    #[test]
    fn order_by_offset_past_4_gib() {
        // An offset past 32 bits turns the keys read so far into pairs.
        assert_eq!(
            in_memory_order(&[12, 1 << 33, 50, 7], 1 << 34),
            [3, 0, 2, 1, u32::MAX]
        );
        assert_eq!(in_memory_order(&[1 << 33, 12], 1 << 34), [1, 0, u32::MAX]);
    }

    #[test]
    fn missing_file_is_fine() {
        let o = verify::<crate::test_hashes::TestHashes>(
            "p.pack",
            None,
            ObjectFormat::Sha1,
            2,
            |n| n as u64 + 1,
            100,
        );
        assert_eq!(o, Outcome::default());
    }

    #[test]
    fn too_small_and_corrupt() {
        let o = verify::<crate::test_hashes::TestHashes>(
            "x/p.pack",
            Some(&[0; 10]),
            ObjectFormat::Sha1,
            0,
            |_| 0,
            32,
        );
        assert_eq!(
            o.lines,
            [
                "error: reverse-index file x/p.rev is too small",
                "error: unable to load rev-index for pack 'x/p.pack'"
            ]
        );
        assert!(o.failed);
        let o = verify::<crate::test_hashes::TestHashes>(
            "p.pack",
            Some(&[0; 56]),
            ObjectFormat::Sha1,
            0,
            |_| 0,
            32,
        );
        assert_eq!(o.lines[0], "error: reverse-index file p.rev is corrupt");
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 7u32;
        for len in 0..200usize {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (seed >> 16) as u8
                })
                .collect();
            let offs: Vec<u64> = (0..(len / 4) as u64).collect();
            let _ = verify::<crate::test_hashes::TestHashes>(
                "p.pack",
                Some(&data),
                ObjectFormat::Sha256,
                offs.len(),
                |n| offs[n],
                len as u64,
            );
        }
    }
}

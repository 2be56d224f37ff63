//! git's `bsearch_hash`: the position of an object id in a sorted table of ids, narrowed first by
//! a 256-entry fan-out (entry `b` counts the ids whose first byte is at most `b`). Pack indexes,
//! commit-graphs and multi-pack-indexes share this layout.

use std::cmp::Ordering;

use crate::bytes::be32;

/// The position of `id` among the sorted ids `id_at(0..)`, searched between the fan-out's bounds
/// for `id`'s first byte, the upper bound clamped to `limit`. `fanout` holds the 256 big-endian
/// counts; a fan-out cut short, or an empty `id`, finds nothing. `id_at` is asked only for
/// positions below the clamped upper bound, and may return an empty slice for one it does not
/// hold (which sorts first, as git's reads of a zeroed page do).
pub fn bsearch_hash<'a>(
    fanout: &[u8],
    limit: u32,
    id: &[u8],
    id_at: impl Fn(u32) -> &'a [u8],
) -> Option<u32> {
    let first = usize::from(*id.first()?);
    let mut lo = match first {
        0 => 0,
        _ => be32(fanout, 4 * (first - 1))?,
    };
    let mut hi = be32(fanout, 4 * first)?.min(limit);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match id_at(mid).cmp(id) {
            Ordering::Equal => return Some(mid),
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(ids: &[[u8; 2]]) -> Vec<u8> {
        (0..256usize)
            .flat_map(|b| {
                let n = ids.iter().filter(|id| usize::from(id[0]) <= b).count() as u32;
                n.to_be_bytes()
            })
            .collect()
    }

    #[test]
    fn finds_each_id_and_nothing_else() {
        let ids = [[0, 1], [0, 9], [7, 7], [7, 8], [255, 0]];
        let fanout = table(&ids);
        let at = |n: u32| ids.get(n as usize).map_or(&[][..], |id| &id[..]);
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(bsearch_hash(&fanout, u32::MAX, id, at), Some(n as u32));
        }
        for missing in [[0, 0], [7, 9], [8, 0], [255, 1]] {
            assert_eq!(bsearch_hash(&fanout, u32::MAX, &missing, at), None);
        }
        // Clamped below an id's position, and a fan-out cut short.
        assert_eq!(bsearch_hash(&fanout, 3, &[7, 8], at), None);
        assert_eq!(bsearch_hash(&fanout[..4 * 7], u32::MAX, &[7, 7], at), None);
        assert_eq!(bsearch_hash(&fanout, u32::MAX, &[], at), None);
    }
}

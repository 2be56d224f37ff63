//! Big-endian integers in git's binary files (pack indexes, the index, commit-graphs,
//! multi-pack-indexes, reverse indexes), read from untrusted bytes: `None` where the field would
//! run past the end of the slice.

/// Big-endian `u16` at `at`, or `None` past the end.
#[inline]
pub fn be16(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

/// Big-endian `u32` at `at`, or `None` past the end.
#[inline]
pub fn be32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Big-endian `u64` at `at`, or `None` past the end.
#[inline]
pub fn be64(data: &[u8], at: usize) -> Option<u64> {
    let b = data.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_be_bytes(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_bounds_and_refuses_past_the_end() {
        let data = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(be16(&data, 7), Some(0x0809));
        assert_eq!(be16(&data, 8), None);
        assert_eq!(be32(&data, 5), Some(0x0607_0809));
        assert_eq!(be32(&data, 6), None);
        assert_eq!(be64(&data, 1), Some(0x0203_0405_0607_0809));
        assert_eq!(be64(&data, 2), None);
        assert_eq!(be32(&data, usize::MAX - 1), None);
    }
}

//! git's delta format: the base's size and the result's size (little-endian base-128), then
//! instructions: copy a range of the base (`0x80` with up to 4 offset and 3 size bytes; size 0
//! means 0x10000) or insert the next 1 to 127 bytes of the delta. Opcode 0 is reserved.
//!
//! [`apply`] follows git's `patch_delta`: the base size must match, every instruction must stay
//! inside the base, the delta and the declared result, and the result must come out exactly as
//! long as declared. It never allocates more than the caller's limit, whatever the header says.

/// The smallest delta git applies (two one-byte sizes and two one-byte instructions).
pub const MIN_LEN: usize = 4;

/// Why a delta cannot be applied. `Display` gives git's message where git prints one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    /// Shorter than [`MIN_LEN`] (git prints nothing of its own).
    #[error("delta too short")]
    TooShort,
    /// The delta is for a base of another size (git prints nothing of its own).
    #[error("delta base size mismatch: the delta expects {expected} bytes, the base has {actual}")]
    BaseSize {
        /// The size the delta names.
        expected: u64,
        /// The base's size.
        actual: u64,
    },
    /// The declared result is larger than the caller allows: refused before any allocation.
    #[error("delta result of {size} bytes is more than the limit of {limit}")]
    TooLarge {
        /// The size the delta declares.
        size: u64,
        /// The caller's limit.
        limit: u64,
    },
    /// Opcode 0.
    #[error("unexpected delta opcode 0")]
    Opcode0,
    /// An instruction reaches outside the base, the delta or the declared result, or the result
    /// is not as long as declared.
    #[error("delta replay has gone wild")]
    Wild,
}

/// Reads one size varint at `*at` as git's `get_delta_hdr_size` does (stopping at the end of the
/// data); `None` when it does not fit in 64 bits.
fn varint(delta: &[u8], at: &mut usize) -> Option<u64> {
    let mut size = 0u64;
    let mut shift = 0u32;
    loop {
        let c = *delta.get(*at)?;
        *at += 1;
        let part = u64::from(c & 0x7f);
        if shift >= 64 || (shift > 57 && part >> (64 - shift) != 0) {
            return None;
        }
        size |= part << shift;
        shift += 7;
        if c & 0x80 == 0 || *at >= delta.len() {
            return Some(size);
        }
    }
}

/// The base size, the result size and the header's length.
pub fn sizes(delta: &[u8]) -> Result<(u64, u64, usize), DeltaError> {
    if delta.len() < MIN_LEN {
        return Err(DeltaError::TooShort);
    }
    let mut at = 0;
    let base = varint(delta, &mut at).ok_or(DeltaError::Wild)?;
    let result = varint(delta, &mut at).ok_or(DeltaError::Wild)?;
    Ok((base, result, at))
}

/// Applies `delta` to `base` into `out` (cleared first, allocation kept). A declared result larger
/// than `limit` is refused before anything is allocated.
pub fn apply(base: &[u8], delta: &[u8], out: &mut Vec<u8>, limit: u64) -> Result<(), DeltaError> {
    apply_with(base, delta, out, limit, |_| {})
}

/// A copy a delta made: `len` bytes of the base from `from` to the result at `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    /// Where in the result.
    pub to: usize,
    /// Where in the base.
    pub from: usize,
    /// How many bytes.
    pub len: usize,
}

/// [`apply`], telling `on_copy` of each copy from the base as it is made (in the result's
/// order): a reader of the result learns which of its bytes are the base's.
pub fn apply_with(
    base: &[u8],
    delta: &[u8],
    out: &mut Vec<u8>,
    limit: u64,
    mut on_copy: impl FnMut(Copy),
) -> Result<(), DeltaError> {
    out.clear();
    let (base_size, size, mut at) = sizes(delta)?;
    if base_size != base.len() as u64 {
        return Err(DeltaError::BaseSize {
            expected: base_size,
            actual: base.len() as u64,
        });
    }
    if size > limit {
        return Err(DeltaError::TooLarge { size, limit });
    }
    // The result can be no longer than the copies and inserts produce: reserve what the
    // declaration says only when the delta could plausibly produce it.
    let size = size as usize;
    let plausible = base.len().saturating_add(delta.len()).saturating_mul(2);
    out.reserve_exact(size.min(plausible));
    let mut left = size;
    while at < delta.len() {
        let cmd = delta[at];
        at += 1;
        if cmd & 0x80 != 0 {
            let mut off = 0usize;
            let mut len = 0usize;
            for (bit, shift) in [(0x01, 0), (0x02, 8), (0x04, 16), (0x08, 24)] {
                if cmd & bit != 0 {
                    let b = *delta.get(at).ok_or(DeltaError::Wild)?;
                    at += 1;
                    off |= usize::from(b) << shift;
                }
            }
            for (bit, shift) in [(0x10, 0), (0x20, 8), (0x40, 16)] {
                if cmd & bit != 0 {
                    let b = *delta.get(at).ok_or(DeltaError::Wild)?;
                    at += 1;
                    len |= usize::from(b) << shift;
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            let end = off.checked_add(len).ok_or(DeltaError::Wild)?;
            if end > base.len() || len > left {
                return Err(DeltaError::Wild);
            }
            on_copy(Copy {
                to: out.len(),
                from: off,
                len,
            });
            out.extend_from_slice(&base[off..end]);
            left -= len;
        } else if cmd != 0 {
            let len = usize::from(cmd);
            if len > left || len > delta.len() - at {
                return Err(DeltaError::Wild);
            }
            out.extend_from_slice(&delta[at..at + len]);
            at += len;
            left -= len;
        } else {
            return Err(DeltaError::Opcode0);
        }
    }
    if left != 0 {
        return Err(DeltaError::Wild);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(base: u64, result: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for mut v in [base, result] {
            loop {
                let b = (v & 0x7f) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        out
    }

    #[test]
    fn copies_and_inserts() {
        let base = b"hello, world";
        let mut d = header(12, 11);
        d.extend([0x90, 5]); // copy 5 bytes from 0
        d.extend([0x01 | 0x10 | 0x80, 7, 5]); // copy 5 from 7
        d.extend([1, b'!']);
        let mut out = Vec::new();
        apply(base, &d, &mut out, 1 << 20).unwrap();
        assert_eq!(out, b"helloworld!");
    }

    #[test]
    fn refuses_what_git_refuses() {
        let base = b"abcd";
        let mut out = Vec::new();
        let mut d = header(5, 1);
        d.extend([1, b'x']);
        assert!(matches!(
            apply(base, &d, &mut out, 100),
            Err(DeltaError::BaseSize { .. })
        ));
        let mut d = header(4, 2);
        d.extend([1, b'x']);
        assert_eq!(apply(base, &d, &mut out, 100), Err(DeltaError::Wild));
        let mut d = header(4, 2);
        d.extend([0, 1, b'x']);
        assert_eq!(apply(base, &d, &mut out, 100), Err(DeltaError::Opcode0));
        let mut d = header(4, 4);
        d.extend([0x91, 2, 4]); // copy 4 bytes from offset 2: past the base
        assert_eq!(apply(base, &d, &mut out, 100), Err(DeltaError::Wild));
        assert_eq!(
            apply(base, &[4, 1], &mut out, 100),
            Err(DeltaError::TooShort)
        );
    }

    #[test]
    fn a_huge_declared_result_is_refused_without_allocating() {
        let mut d = header(4, 1 << 62);
        d.extend([0x90, 4]);
        let mut out = Vec::new();
        assert_eq!(
            apply(b"abcd", &d, &mut out, 1 << 32),
            Err(DeltaError::TooLarge {
                size: 1 << 62,
                limit: 1 << 32
            })
        );
        assert_eq!(out.capacity(), 0);
        // Under the limit but not produced by the instructions: wild, with a small buffer.
        let mut d = header(4, 1 << 30);
        d.extend([0x90, 4]);
        assert_eq!(apply(b"abcd", &d, &mut out, 1 << 32), Err(DeltaError::Wild));
        assert!(out.capacity() < 1 << 20);
    }

    #[test]
    fn no_input_panics() {
        let base: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let mut out = Vec::new();
        for seed in 0..3000u32 {
            let d: Vec<u8> = (0..(seed % 40))
                .map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i * 97) >> 7) as u8)
                .collect();
            let _ = apply(&base, &d, &mut out, 1 << 20);
        }
    }
}

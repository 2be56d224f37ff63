//! Blocks as git 2.47's reftable reader reaches their bytes: through a pointer into the mapped
//! table file (or into the buffer a log block was inflated into) and a length that git computes
//! with 32-bit arithmetic from what the file says, so that a damaged block makes it read past the
//! block — into the rest of the file, the zeros after its end up to the page boundary, or memory
//! it does not own. A `View` gives each byte git would read, or a crash ([`super::Kind::Crash`])
//! for a read git makes outside what it mapped or allocated.
//!
//! Also here: the varint and key decoding shared by every record type (`get_var_int`,
//! `reftable_decode_keylen`, `reftable_decode_key`). The block iterator is `super::iter`.

use std::borrow::Cow;
use std::sync::Arc;

use super::Fail;

/// The page size git's `mmap` of a table rounds up to: the bytes after the file's end up to the
/// next multiple read as zeros.
pub(super) const PAGE: u64 = 4096;

/// The memory a block's bytes are in.
#[derive(Debug)]
pub(super) enum Mem {
    /// The table file as mapped: its bytes, then zeros up to the end of the last page.
    File(Arc<[u8]>),
    /// A log block inflated into its own buffer (`block_len` bytes: the 4-byte block header, or
    /// the file header and the block header for the first block, then the inflated records).
    Inflated(Vec<u8>),
}

/// A block's start in its memory: offsets relative to it may be negative (git computes
/// `data + sz - 2` with a `sz` of 0 or 1) or past the block.
#[derive(Clone, Debug)]
pub(super) struct View {
    pub mem: Arc<Mem>,
    pub base: u64,
}

impl View {
    fn range(&self, rel: i64, n: u64) -> Result<(usize, usize, usize), Fail> {
        let start = i128::from(self.base) + i128::from(rel);
        let end = start + i128::from(n);
        let (len, addressable) = match &*self.mem {
            Mem::File(d) => (d.len(), mapped_len(d.len())),
            Mem::Inflated(d) => (d.len(), d.len() as u64),
        };
        if start < 0 || end > i128::from(addressable) {
            return Err(Fail::crash(match &*self.mem {
                Mem::File(_) => format!(
                    "git 2.47.3 reads {n} bytes at offset {start}, outside the mapped table \
                     ({len} bytes)"
                ),
                Mem::Inflated(_) => format!(
                    "git 2.47.3 reads {n} bytes at offset {start} of a log block inflated to \
                     {len} bytes, outside its buffer"
                ),
            }));
        }
        // `start` and `end` are within `addressable`, which came from a usize
        let (s, e) = (start as usize, end as usize);
        Ok((s, e, len))
    }

    /// The byte at `rel`.
    pub fn byte(&self, rel: i64) -> Result<u8, Fail> {
        let (s, _, len) = self.range(rel, 1)?;
        Ok(self.data().get(s).copied().filter(|_| s < len).unwrap_or(0))
    }

    /// `n` bytes at `rel` (allocated only when they run into the zeros after the file).
    pub fn slice(&self, rel: i64, n: u64) -> Result<Cow<'_, [u8]>, Fail> {
        let (s, e, len) = self.range(rel, n)?;
        let data = self.data();
        if e <= len {
            return Ok(Cow::Borrowed(data.get(s..e).unwrap_or_default()));
        }
        let mut v = data.get(s.min(len)..len).unwrap_or_default().to_vec();
        v.resize(e - s, 0);
        Ok(Cow::Owned(v))
    }

    /// How many bytes can be read from `rel` on (0 outside what is mapped).
    pub fn available(&self, rel: i64) -> u64 {
        let addressable = match &*self.mem {
            Mem::File(d) => mapped_len(d.len()),
            Mem::Inflated(d) => d.len() as u64,
        };
        let start = i128::from(self.base) + i128::from(rel);
        if start < 0 {
            return 0;
        }
        u64::try_from(i128::from(addressable) - start).unwrap_or(0)
    }

    /// Fails as [`View::slice`] would, without copying.
    pub fn check(&self, rel: i64, n: u64) -> Result<(), Fail> {
        self.range(rel, n).map(|_| ())
    }

    pub fn be16(&self, rel: i64) -> Result<u16, Fail> {
        let b = self.slice(rel, 2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn be24(&self, rel: i64) -> Result<u32, Fail> {
        let b = self.slice(rel, 3)?;
        Ok(u32::from_be_bytes([0, b[0], b[1], b[2]]))
    }

    fn data(&self) -> &[u8] {
        match &*self.mem {
            Mem::File(d) => d,
            Mem::Inflated(d) => d,
        }
    }
}

/// What a file of `len` bytes maps to: whole pages (nothing for an empty file).
pub(super) fn mapped_len(len: usize) -> u64 {
    (len as u64).div_ceil(PAGE) * PAGE
}

/// git's `string_view`: a position and a length that wraps as a `size_t` does when more is
/// consumed than it holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sv {
    pub pos: i64,
    pub len: u64,
}

impl Sv {
    pub fn consume(&mut self, n: u64) {
        self.pos = self.pos.wrapping_add(n as i64);
        self.len = self.len.wrapping_sub(n);
    }
}

/// `get_var_int`: the value and the bytes it took, or `None` (git's -1). Like git it may read
/// the byte just after the view.
pub(super) fn var_int(v: &View, input: Sv) -> Result<Option<(u64, u64)>, Fail> {
    if input.len == 0 {
        return Ok(None);
    }
    let mut ptr: u64 = 0;
    let mut b = v.byte(input.pos)?;
    let mut val = u64::from(b & 0x7f);
    while b & 0x80 != 0 {
        ptr += 1;
        if ptr > input.len {
            return Ok(None);
        }
        b = v.byte(input.pos.wrapping_add(ptr as i64))?;
        val = (val.wrapping_add(1) << 7) | u64::from(b & 0x7f);
    }
    Ok(Some((val, ptr + 1)))
}

/// `reftable_decode_keylen`: prefix length, suffix length, the 3 extra bits, bytes taken.
pub(super) fn decode_keylen(v: &View, mut input: Sv) -> Result<Option<(u64, u64, u8, u64)>, Fail> {
    let start = input.len;
    let Some((prefix, n)) = var_int(v, input)? else {
        return Ok(None);
    };
    input.consume(n);
    let Some((suffix, n)) = var_int(v, input)? else {
        return Ok(None);
    };
    input.consume(n);
    Ok(Some((
        prefix,
        suffix >> 3,
        (suffix & 7) as u8,
        start.wrapping_sub(input.len),
    )))
}

/// `reftable_decode_key`: `last_key` becomes its first `prefix` bytes and the suffix; the extra
/// bits and the bytes taken, or `None` (git's -1).
pub(super) fn decode_key(
    v: &View,
    last_key: &mut Vec<u8>,
    mut input: Sv,
) -> Result<Option<(u8, u64)>, Fail> {
    let start = input.len;
    let Some((prefix, suffix, extra, n)) = decode_keylen(v, input)? else {
        return Ok(None);
    };
    input.consume(n);
    if input.len < suffix || prefix > last_key.len() as u64 {
        return Ok(None);
    }
    let bytes = v.slice(input.pos, suffix)?;
    last_key.truncate(prefix as usize);
    last_key.extend_from_slice(&bytes);
    input.consume(suffix);
    Ok(Some((extra, start.wrapping_sub(input.len))))
}

/// A view of `bytes` as a mapped file, for tests.
#[cfg(test)]
pub(super) fn view(bytes: &[u8]) -> View {
    View {
        mem: Arc::new(Mem::File(Arc::from(bytes))),
        base: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::super::iter::binsearch;
    use super::*;

    #[test]
    fn varints() {
        let v = view(&[0x05, 0x80, 0x00, 0xff, 0x7f]);
        let all = |pos: i64, len: u64| var_int(&v, Sv { pos, len });
        assert_eq!(all(0, 5).ok().flatten(), Some((5, 1)));
        // 0x80 0x00: (0 + 1) << 7 | 0 = 128, as in the ofs-delta encoding
        assert_eq!(all(1, 4).ok().flatten(), Some((128, 2)));
        assert_eq!(
            all(3, 2).ok().flatten(),
            Some((((0x7f + 1) << 7) | 0x7f, 2))
        );
        assert_eq!(all(0, 0).ok().flatten(), None);
        // git reads one byte past the view's end
        assert_eq!(all(1, 1).ok().flatten(), Some((128, 2)));
        // past the mapped page: a crash in git
        let v = view(&[0x80]);
        assert!(matches!(
            var_int(&v, Sv { pos: 0, len: 1 }),
            Ok(Some((128, 2)))
        ));
        let mut page = vec![0x80u8; PAGE as usize];
        page[0] = 0x80;
        let v = view(&page);
        assert!(matches!(
            var_int(&v, Sv { pos: 0, len: u64::MAX }),
            Err(f) if f.kind == Kind::Crash
        ));
    }

    #[test]
    fn keys() {
        // "abc", then 2 bytes of it and "x"
        let v = view(&[0, 3 << 3 | 1, b'a', b'b', b'c', 2, 1 << 3 | 2, b'x']);
        let mut key = Vec::new();
        let r = decode_key(&v, &mut key, Sv { pos: 0, len: 8 });
        assert_eq!(r.ok().flatten(), Some((1, 5)));
        assert_eq!(key, b"abc");
        let r = decode_key(&v, &mut key, Sv { pos: 5, len: 3 });
        assert_eq!(r.ok().flatten(), Some((2, 3)));
        assert_eq!(key, b"abx");
        // a prefix longer than the last key
        let mut short = b"a".to_vec();
        assert_eq!(
            decode_key(&v, &mut short, Sv { pos: 5, len: 3 })
                .ok()
                .flatten(),
            None
        );
    }

    #[test]
    fn search() {
        let xs = [1, 3, 5, 7];
        let first_over = |x: i32| binsearch(xs.len(), |i| Ok(i32::from(x < xs[i]))).ok();
        assert_eq!(first_over(0), Some(0));
        assert_eq!(first_over(1), Some(1));
        assert_eq!(first_over(4), Some(2));
        assert_eq!(first_over(9), Some(4));
        assert_eq!(binsearch(0, |_| Ok(1)).ok(), Some(0));
        assert_eq!(binsearch(0, |_| Ok(0)).ok(), Some(1));
    }
}

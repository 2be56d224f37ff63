//! Blocks as git 2.47's reftable reader reaches their bytes: through a pointer into the mapped
//! table file (or into the buffer a log block was inflated into) and a length that git computes
//! with 32-bit arithmetic from what the file says, so that a damaged block makes it read past the
//! block — into the rest of the file, the zeros after its end up to the page boundary, or memory
//! it does not own. A `View` gives each byte git would read, or a crash ([`super::Kind::Crash`])
//! for a read git makes outside what it mapped or allocated.
//!
//! Also here: the varint and key decoding shared by every record type (`get_var_int`,
//! `reftable_decode_keylen`, `reftable_decode_key`), the block iterator (`block_iter_next`) and
//! the search within a block through its restart points (`block_iter_seek_key`).

use std::borrow::Cow;
use std::sync::Arc;

use super::Fail;
use super::record::{self, Record};

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

/// A block as `block_reader_init` leaves it.
#[derive(Clone, Debug)]
pub(super) struct BlockReader {
    /// The block's offset in its file, for messages.
    pub at: u64,
    pub view: View,
    /// The file header's size in the first block, else 0.
    pub header_off: u32,
    /// Where the restart table starts (`sz - 2 - 3 * restart_count`, wrapping).
    pub block_len: u32,
    /// The distance to the next block.
    pub full_block_size: u32,
    pub restart_count: u16,
    pub hash_size: usize,
}

impl BlockReader {
    /// The block's type byte (`block_reader_type`).
    pub fn typ(&self) -> Result<u8, Fail> {
        self.view.byte(i64::from(self.header_off))
    }

    fn restart_offset(&self, idx: usize) -> Result<u32, Fail> {
        self.view.be24(i64::from(self.block_len) + 3 * idx as i64)
    }

    /// `block_reader_first_key`.
    pub fn first_key(&self) -> Result<Vec<u8>, Fail> {
        let off = self.header_off.wrapping_add(4);
        let input = Sv {
            pos: i64::from(off),
            len: u64::from(self.block_len.wrapping_sub(off)),
        };
        let mut key = Vec::new();
        if decode_key(&self.view, &mut key, input)?.is_none() {
            return Err(Fail::error("the first key of a block does not decode"));
        }
        if key.is_empty() {
            return Err(Fail::error("the first key of a block is empty"));
        }
        Ok(key)
    }
}

/// A position in a block (`struct block_iter`): the key of the last record read, for the
/// prefix compression of the next.
#[derive(Clone, Debug, Default)]
pub(super) struct BlockIter {
    /// The block's offset in its file, for messages.
    pub at: u64,
    pub block: Option<View>,
    pub block_len: u32,
    pub next_off: u32,
    pub hash_size: usize,
    pub last_key: Vec<u8>,
}

impl BlockIter {
    /// `block_iter_seek_start`.
    pub fn seek_start(&mut self, br: &BlockReader) {
        self.at = br.at;
        self.block = Some(br.view.clone());
        self.block_len = br.block_len;
        self.hash_size = br.hash_size;
        self.last_key.clear();
        self.next_off = br.header_off.wrapping_add(4);
    }

    /// `block_iter_next`: the next record, decoded as `typ`, or `None` at the block's end.
    pub fn next(&mut self, typ: u8) -> Result<Option<Record>, Fail> {
        if self.next_off >= self.block_len {
            return Ok(None);
        }
        let Some(view) = self.block.clone() else {
            // git's iterator has no block only with a length of 0, handled above
            return Ok(None);
        };
        let mut input = Sv {
            pos: i64::from(self.next_off),
            len: u64::from(self.block_len - self.next_off),
        };
        let start = input.len;
        let Some((extra, n)) = decode_key(&view, &mut self.last_key, input)? else {
            return Err(Fail::error(format!(
                "the key of the record {} bytes into the block at offset {} does not decode",
                self.next_off, self.at
            )));
        };
        if self.last_key.is_empty() {
            return Err(Fail::error(format!(
                "the record {} bytes into the block at offset {} has an empty key",
                self.next_off, self.at
            )));
        }
        input.consume(n);
        let (rec, n) = record::decode(typ, &self.last_key, extra, &view, input, self.hash_size)
            .map_err(|e| {
                e.context(&format!(
                    "the record {} bytes into the block at offset {}",
                    self.next_off, self.at
                ))
            })?;
        input.consume(n);
        self.next_off = self
            .next_off
            .wrapping_add(start.wrapping_sub(input.len) as u32);
        Ok(Some(rec))
    }

    /// `block_iter_seek_key`: positioned so that the next record read is the first whose key is
    /// at least `want` (or at the block's end).
    pub fn seek_key(&mut self, br: Option<&BlockReader>, want: &[u8]) -> Result<(), Fail> {
        let Some(br) = br else {
            return Err(Fail::crash(
                "git 2.47.3 searches a block it never loaded (its restart table is a null \
                 pointer)",
            ));
        };
        let mut error = false;
        let i = binsearch(usize::from(br.restart_count), |idx| {
            restart_needle_less(br, idx, want, &mut error)
        })?;
        if error {
            // git then releases a record it has not initialized yet; what it finds on its
            // stack there is most often a record it released before (it aborts when not)
            return Err(Fail::error(format!(
                "a restart point of the block at offset {} does not hold a full key",
                br.at
            )));
        }
        self.next_off = if i > 0 {
            br.restart_offset(i - 1)?
        } else {
            br.header_off.wrapping_add(4)
        };
        self.at = br.at;
        self.block = Some(br.view.clone());
        self.block_len = br.block_len;
        self.hash_size = br.hash_size;
        let typ = br.typ()?;
        loop {
            let prev = self.next_off;
            match self.next(typ)? {
                None => {
                    self.next_off = prev;
                    return Ok(());
                }
                Some(rec) => {
                    self.last_key = rec.key();
                    if self.last_key.as_slice() >= want {
                        self.next_off = prev;
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// `restart_needle_less`: whether `want` sorts before the key at restart point `idx` (`Err` for
/// a crash; `Ok(-1)` with `error` set for a restart point that is not a full key).
fn restart_needle_less(
    br: &BlockReader,
    idx: usize,
    want: &[u8],
    error: &mut bool,
) -> Result<i32, Fail> {
    let off = br.restart_offset(idx)?;
    let mut input = Sv {
        pos: i64::from(off),
        len: u64::from(br.block_len.wrapping_sub(off)),
    };
    let Some((prefix, suffix, _, n)) = decode_keylen(&br.view, input)? else {
        *error = true;
        return Ok(-1);
    };
    if prefix != 0 {
        *error = true;
        return Ok(-1);
    }
    input.consume(n);
    if suffix > input.len {
        *error = true;
        return Ok(-1);
    }
    let k = want.len().min(suffix as usize) as u64;
    let key = br.view.slice(input.pos, k)?;
    Ok(match want.get(..k as usize).unwrap_or_default().cmp(&key) {
        std::cmp::Ordering::Less => 1,
        std::cmp::Ordering::Greater => 0,
        std::cmp::Ordering::Equal => i32::from((want.len() as u64) < suffix),
    })
}

/// git's `binsearch`: the first index in `0..sz` for which `f` is true, assuming it is false
/// then true; `sz` when `f` fails part-way. Like git's, it asks `f(0)` even when `sz` is 0.
pub(super) fn binsearch(
    sz: usize,
    mut f: impl FnMut(usize) -> Result<i32, Fail>,
) -> Result<usize, Fail> {
    let (mut lo, mut hi) = (0usize, sz);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let ret = f(mid)?;
        if ret < 0 {
            return Ok(sz);
        }
        if ret > 0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    if lo != 0 {
        return Ok(hi);
    }
    Ok(if f(0)? != 0 { 0 } else { 1 })
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

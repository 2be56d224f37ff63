//! A block read record by record (git's `block_reader_init`, `block_iter_next`) and searched
//! through its restart points (`block_iter_seek_key`), over the bytes [`super::block`] gives.

use super::Fail;
use super::block::{Sv, View, decode_key, decode_keylen};
use super::record::{self, Record};

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

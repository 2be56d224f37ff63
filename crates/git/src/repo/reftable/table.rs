//! One reftable file as git 2.47's `reader.c` opens and walks it: the header and footer checks
//! (`reftable_reader_new`), loading a block (`reader_init_block_reader`, `block_reader_init`:
//! log blocks inflated with the inflater of the caller's [`Providers`]), and the table iterator
//! with its linear and indexed seeks (`table_iter_seek_linear`, `table_iter_seek_indexed`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use flagsplit_zlib::Inflater;

use super::Fail;
use super::block::{Mem, View};
use super::iter::{BlockIter, BlockReader};
use super::record::{self, BLOCK_INDEX, BLOCK_LOG, BLOCK_OBJ, BLOCK_REF, Record};
use crate::Providers;

/// `GIT_SHA1_FORMAT_ID` (`sha1`).
pub const SHA1_ID: u32 = 0x7368_6131;
/// `GIT_SHA256_FORMAT_ID` (`s256`).
pub const SHA256_ID: u32 = 0x7332_3536;

/// `DEFAULT_BLOCK_SIZE`: what git reads first of a block when the header says 0.
const DEFAULT_BLOCK_SIZE: u32 = 4096;

/// The header's size for a version.
pub fn header_size(version: u8) -> u64 {
    if version == 1 { 24 } else { 28 }
}

/// The footer's size for a version.
pub fn footer_size(version: u8) -> u64 {
    if version == 1 { 68 } else { 72 }
}

/// Where one section of a table is (`struct reftable_reader_offsets`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offsets {
    /// The table has records of the section's type.
    pub is_present: bool,
    /// Where its first block is.
    pub offset: u64,
    /// Where its index is (0: it has none).
    pub index_offset: u64,
}

/// An opened table (`struct reftable_reader`).
#[derive(Debug)]
pub struct Table {
    /// Its name in `tables.list`.
    pub name: String,
    /// Its path, for messages.
    pub path: PathBuf,
    data: Arc<[u8]>,
    /// The format's version (1: SHA-1 ids only; 2: with a hash id).
    pub version: u8,
    /// The block size the header gives (0: the blocks are unaligned).
    pub block_size: u32,
    /// The smallest update index of its records (ref records hold theirs as a delta from it).
    pub min_update_index: u64,
    /// The largest update index of its records.
    pub max_update_index: u64,
    /// The hash of its ids ([`SHA1_ID`] or [`SHA256_ID`]).
    pub hash_id: u32,
    /// The file's size without the footer.
    pub size: u64,
    /// Its ref section.
    pub refs: Offsets,
    /// Its object section.
    pub objs: Offsets,
    /// Its log section.
    pub logs: Offsets,
    /// How its log blocks are inflated: [`inflate_log_block`] with the inflater of the providers
    /// it was opened with.
    inflate: InflateLog,
}

/// [`inflate_log_block`] with one inflater: a table keeps the one its opener's providers name, so
/// that the table, and whatever reads it, has no type parameter.
type InflateLog = fn(&View, u64, u32, u32) -> Result<(Vec<u8>, u32), Fail>;

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

fn format(what: &str) -> Fail {
    Fail::error(what.to_string())
}

impl Table {
    /// `reftable_reader_new` on the bytes of the file at `path`, named `name` in its stack; its
    /// log blocks are inflated with `P`'s inflater.
    pub fn open<P: Providers>(name: &str, path: &Path, data: Arc<[u8]>) -> Result<Table, Fail> {
        Table::parse(name, path, data, inflate_log_block::<P::Inflater>).map_err(|e| e.at(path))
    }

    fn parse(name: &str, path: &Path, data: Arc<[u8]>, inflate: InflateLog) -> Result<Table, Fail> {
        let file_size = data.len() as u64;
        let read_size = header_size(2) + 1;
        if read_size > file_size {
            return Err(format(&format!(
                "the file has {file_size} bytes, fewer than a header"
            )));
        }
        let header = data.get(..read_size as usize).unwrap_or_default();
        if header.get(..4) != Some(b"REFT") {
            return Err(format("the file does not start with REFT"));
        }
        let version = header[4];
        if version != 1 && version != 2 {
            return Err(format(&format!("version {version} is not 1 or 2")));
        }
        let fsize = footer_size(version);
        let Some(size) = file_size.checked_sub(fsize) else {
            return Err(Fail::crash(format!(
                "the file has {file_size} bytes, fewer than a footer, which git 2.47.3 reads \
                 past the file's end (an assertion fails)"
            )));
        };
        let footer = data
            .get(size as usize..(size + fsize) as usize)
            .unwrap_or_default();
        let hsize = header_size(version) as usize;
        if footer.get(..4) != Some(b"REFT") {
            return Err(format("the footer does not start with REFT"));
        }
        if footer.get(..hsize) != header.get(..hsize) {
            return Err(format("the footer does not repeat the header"));
        }
        let block_size = be(&footer[5..8]) as u32;
        let min_update_index = be(&footer[8..16]);
        let max_update_index = be(&footer[16..24]);
        let mut f = 24;
        let hash_id = if version == 1 {
            SHA1_ID
        } else {
            let id = be(&footer[24..28]) as u32;
            if id != SHA1_ID && id != SHA256_ID {
                return Err(format(&format!(
                    "hash id {:?} is not sha1 or s256",
                    String::from_utf8_lossy(&id.to_be_bytes())
                )));
            }
            f += 4;
            id
        };
        let word = |i: usize| be(&footer[f + 8 * i..f + 8 * i + 8]);
        let ref_index = word(0);
        let obj_word = word(1);
        let obj_index = word(2);
        let log_offset = word(3);
        let log_index = word(4);
        let crc_end = f + 40;
        let computed = crc32fast::hash(&footer[..crc_end]);
        if be(&footer[crc_end..crc_end + 4]) as u32 != computed {
            return Err(format("the footer's CRC-32 does not match"));
        }
        let first = header[hsize];
        let object_id_len = obj_word & 31;
        let objs = Offsets {
            is_present: obj_word >> 5 > 0,
            offset: obj_word >> 5,
            index_offset: obj_index,
        };
        if objs.is_present && object_id_len == 0 {
            return Err(format("object blocks with an id length of 0"));
        }
        Ok(Table {
            name: name.to_string(),
            path: path.to_path_buf(),
            data,
            version,
            block_size,
            min_update_index,
            max_update_index,
            hash_id,
            size,
            refs: Offsets {
                is_present: first == BLOCK_REF,
                offset: 0,
                index_offset: ref_index,
            },
            objs,
            logs: Offsets {
                is_present: first == BLOCK_LOG || log_offset > 0,
                offset: log_offset,
                index_offset: log_index,
            },
            inflate,
        })
    }

    /// The hash size of its ids.
    pub fn hash_size(&self) -> usize {
        if self.hash_id == SHA256_ID { 32 } else { 20 }
    }

    fn offsets(&self, typ: u8) -> Offsets {
        match typ {
            BLOCK_REF => self.refs,
            BLOCK_LOG => self.logs,
            _ => self.objs,
        }
    }

    /// The block at `off` (`reader_init_block_reader`): `Ok(None)` past the last block or when
    /// it is not of type `want` (0: any).
    fn block(&self, off: u64, want: u8) -> Result<Option<BlockReader>, Fail> {
        if off >= self.size {
            return Ok(None);
        }
        let guess = if self.block_size != 0 {
            self.block_size
        } else {
            DEFAULT_BLOCK_SIZE
        };
        let header_off: u32 = if off == 0 {
            header_size(self.version) as u32
        } else {
            0
        };
        let view = View {
            mem: Arc::new(Mem::File(self.data.clone())),
            base: off,
        };
        let clip = |sz: u32| u64::from(sz).min(self.size - off);
        let typ = view.byte(i64::from(header_off))?;
        let sz = if record::is_block_type(typ) {
            view.be24(i64::from(header_off) + 1)?
        } else {
            0
        };
        if want != 0 && typ != want {
            return Ok(None);
        }
        let len = if sz > guess { clip(sz) } else { clip(guess) };
        self.block_reader_init(view, len, header_off).map(Some)
    }

    /// `block_reader_init` on `len` bytes of the file at the view's base.
    fn block_reader_init(
        &self,
        view: View,
        len: u64,
        header_off: u32,
    ) -> Result<BlockReader, Fail> {
        let at = view.base;
        let mut full = self.block_size;
        let typ = view.byte(i64::from(header_off))?;
        let sz = view.be24(i64::from(header_off) + 1)?;
        if !record::is_block_type(typ) {
            return Err(format(&format!(
                "the block at offset {} has type {typ:#04x}",
                view.base
            )));
        }
        let mut view = view;
        if typ == BLOCK_LOG {
            let (buf, consumed) = (self.inflate)(&view, len, header_off, sz)?;
            full = consumed;
            view = View {
                mem: Arc::new(Mem::Inflated(buf)),
                base: 0,
            };
        } else if full == 0 || (sz < full && u64::from(sz) < len && view.byte(i64::from(sz))? != 0)
        {
            // unaligned, or padded: the next block starts where this one ends
            full = sz;
        }
        let restart_count = view.be16(i64::from(sz) - 2)?;
        let restart_start = sz
            .wrapping_sub(2)
            .wrapping_sub(3 * u32::from(restart_count));
        Ok(BlockReader {
            at,
            view,
            header_off,
            block_len: restart_start,
            full_block_size: full,
            restart_count,
            hash_size: self.hash_size(),
        })
    }
}

/// Inflates the log block at the view's base (`block_reader_init`): the buffer git inflates it
/// into (the `skip` header bytes, then `sz - skip` inflated bytes) and the distance to the next
/// block (the compressed bytes taken, and the header). git gives zlib `len - skip` bytes of
/// input (as a 32-bit `uInt`), which may reach past the block into the rest of the file.
fn inflate_log_block<Z: Inflater>(
    view: &View,
    len: u64,
    header_off: u32,
    sz: u32,
) -> Result<(Vec<u8>, u32), Fail> {
    let skip = 4 + header_off;
    let src_len = u64::from(len.wrapping_sub(u64::from(skip)) as u32);
    let take = src_len.min(view.available(i64::from(skip)));
    let input = view.slice(i64::from(skip), take)?;
    let mut z = Z::new().map_err(|e| Fail::error(e.to_string()))?;
    let mut out = Vec::new();
    let at = view.base;
    let failed = |e: flagsplit_zlib::Error| -> Fail {
        if matches!(e, flagsplit_zlib::Error::Truncated { .. }) && take < src_len {
            Fail::crash(format!(
                "the log block at offset {at} runs past the mapped table, where git 2.47.3 \
                 goes on inflating"
            ))
        } else {
            Fail::error(format!(
                "the log block at offset {at} does not inflate: {e}"
            ))
        }
    };
    if sz < skip {
        // git's buffer holds max(24, sz) bytes; the header it copies there, and any inflated
        // byte past that, overflow it. Otherwise the size does not match: a format error.
        let room = 24u32.checked_sub(skip).ok_or_else(|| {
            Fail::crash(format!(
                "the log block at offset {at} says it holds {sz} bytes, fewer than its header, \
                 which git 2.47.3 copies past its buffer"
            ))
        })?;
        return match z.inflate_to_vec_limited(&input, room as usize, &mut out) {
            Err(flagsplit_zlib::Error::LimitExceeded { .. }) => Err(Fail::crash(format!(
                "the log block at offset {at} says it holds {sz} bytes, fewer than its \
                 header, and git 2.47.3 inflates it past its buffer"
            ))),
            Err(e) => Err(failed(e)),
            Ok(_) => Err(Fail::error(format!(
                "the log block at offset {at} says it holds {sz} bytes, fewer than its header"
            ))),
        };
    }
    let dst_len = (sz - skip) as usize;
    let consumed = z
        .inflate_to_vec(&input, dst_len, &mut out)
        .map_err(failed)?;
    let mut buf = view.slice(0, u64::from(skip))?.into_owned();
    buf.extend_from_slice(&out);
    Ok((buf, (consumed as u32).wrapping_add(skip)))
}

/// A position in one table (`struct table_iter`).
#[derive(Clone, Debug)]
pub struct TableIter {
    table: Arc<Table>,
    typ: u8,
    block_off: u64,
    br: Option<BlockReader>,
    bi: BlockIter,
    finished: bool,
    /// The index blocks a seek went through (git loops forever on a cycle).
    visited: Vec<u64>,
}

impl TableIter {
    /// A fresh iterator (`table_iter_init`), positioned nowhere.
    pub fn new(table: Arc<Table>) -> TableIter {
        TableIter {
            table,
            typ: 0,
            block_off: 0,
            br: None,
            bi: BlockIter::default(),
            finished: false,
            visited: Vec::new(),
        }
    }

    fn context(&self, e: Fail) -> Fail {
        e.at(&self.table.path)
    }

    /// `table_iter_next_block`: `Ok(false)` at the end.
    fn next_block(&mut self) -> Result<bool, Fail> {
        let full = self.br.as_ref().map_or(0, |b| b.full_block_size);
        let next = self.block_off.wrapping_add(u64::from(full));
        match self.table.block(next, self.typ) {
            Ok(None) => {
                self.finished = true;
                Ok(false)
            }
            Err(e) => {
                self.br = None;
                Err(e)
            }
            Ok(Some(br)) => {
                self.block_off = next;
                self.finished = false;
                self.bi.seek_start(&br);
                self.br = Some(br);
                Ok(true)
            }
        }
    }

    /// `table_iter_next`: the next record of type `typ`.
    pub fn next(&mut self, typ: u8) -> Result<Option<Record>, Fail> {
        self.next_inner(typ).map_err(|e| self.context(e))
    }

    fn next_inner(&mut self, typ: u8) -> Result<Option<Record>, Fail> {
        if typ != self.typ {
            return Err(Fail::api(format!(
                "a {} record was asked of a {} block",
                typ as char,
                if self.typ == 0 { '?' } else { self.typ as char }
            )));
        }
        loop {
            if self.finished {
                return Ok(None);
            }
            if let Some(mut rec) = self.bi.next(typ)? {
                if let Record::Ref(r) = &mut rec {
                    r.update_index = r.update_index.wrapping_add(self.table.min_update_index);
                }
                return Ok(Some(rec));
            }
            match self.next_block() {
                Ok(true) => {}
                Ok(false) => return Ok(None),
                Err(e) => {
                    self.finished = true;
                    return Err(e);
                }
            }
        }
    }

    /// `table_iter_seek_to`: `Ok(false)` when there is no block of type `typ` there.
    fn seek_to(&mut self, off: u64, typ: u8) -> Result<bool, Fail> {
        let Some(br) = self.table.block(off, typ)? else {
            return Ok(false);
        };
        self.typ = br.typ()?;
        self.block_off = off;
        self.bi.seek_start(&br);
        self.br = Some(br);
        self.finished = false;
        Ok(true)
    }

    /// `table_iter_seek_linear`.
    fn seek_linear(&mut self, want: &[u8]) -> Result<(), Fail> {
        loop {
            let mut next = self.clone();
            if !next.next_block()? {
                break;
            }
            if next.block_off == self.block_off && self.br.is_some() {
                // an unaligned block that says it is 0 bytes long: the next block is itself
                return Err(Fail::crash(format!(
                    "the block at offset {} says it is 0 bytes long, and git 2.47.3 seeks \
                     through it forever",
                    self.block_off
                )));
            }
            let got = match &next.br {
                Some(br) => br.first_key()?,
                None => break,
            };
            if got.as_slice() > want {
                break;
            }
            *self = next;
        }
        self.bi.seek_key(self.br.as_ref(), want)
    }

    /// `table_iter_seek_indexed`: `Ok(false)` when the key is past the index's last.
    fn seek_indexed(&mut self, want: &Record) -> Result<bool, Fail> {
        let key = want.key();
        self.seek_linear(&key)?;
        loop {
            let Some(Record::Index { offset, .. }) = self.next_inner(BLOCK_INDEX)? else {
                return Ok(false);
            };
            if self.visited.contains(&offset) {
                return Err(Fail::crash(format!(
                    "the index points back to the block at offset {offset}, and git 2.47.3 \
                     goes round this loop forever"
                )));
            }
            self.visited.push(offset);
            if !self.seek_to(offset, 0)? {
                return Ok(false);
            }
            self.bi.seek_key(self.br.as_ref(), &key)?;
            if self.typ == want.typ() {
                return Ok(true);
            }
            if self.typ != BLOCK_INDEX {
                return Err(format(&format!(
                    "the index points to a block of type {}",
                    self.typ as char
                )));
            }
        }
    }

    /// `table_iter_seek`: positions the iterator before the first record whose key is at least
    /// `want`'s; `Ok(false)` when git's seek returns 1 (nothing to read).
    pub fn seek(&mut self, want: &Record) -> Result<bool, Fail> {
        self.visited.clear();
        self.seek_inner(want).map_err(|e| self.context(e))
    }

    fn seek_inner(&mut self, want: &Record) -> Result<bool, Fail> {
        let typ = want.typ();
        let offs = self.table.offsets(typ);
        // table_iter_seek_start; a positive result is not acted on
        if offs.index_offset != 0 {
            self.seek_to(offs.index_offset, BLOCK_INDEX)?;
            self.seek_indexed(want)
        } else {
            self.seek_to(offs.offset, typ)?;
            self.seek_linear(&want.key())?;
            Ok(true)
        }
    }
}

/// Whether a table has records of type `typ` (`reader_init_iter` makes an empty iterator
/// otherwise).
pub fn has_section(table: &Table, typ: u8) -> bool {
    match typ {
        BLOCK_REF => table.refs.is_present,
        BLOCK_LOG => table.logs.is_present,
        BLOCK_OBJ => table.objs.is_present,
        _ => false,
    }
}

//! The four record types of a reftable block and their decoding, as git 2.47's `record.c` reads
//! them: refs (`r`), reflog entries (`g`), index entries (`i`) and object-to-block entries (`o`,
//! read only to be skipped). Names are C strings to git: a ref's name, a symbolic ref's target and
//! a reflog's name end at their first NUL byte, wherever the key's bytes go on.

use super::Fail;
use super::block::{Sv, View, var_int};

/// A ref's value (`value_type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefValue {
    /// 0: a tombstone, hiding the name in older tables.
    Deletion,
    /// 1: an object id.
    Val1(Vec<u8>),
    /// 2: an object id and what it peels to.
    Val2(Vec<u8>, Vec<u8>),
    /// 3: a symbolic ref's target.
    Symref(Vec<u8>),
}

/// A ref record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefRecord {
    /// The ref's name (the record's key).
    pub name: Vec<u8>,
    /// The table's `min_update_index` plus the record's delta (wrapping), once read through a
    /// table.
    pub update_index: u64,
    /// Its value.
    pub value: RefValue,
}

/// A reflog entry's data (`log_type` 1; git reads types 2 to 7 the same way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogUpdate {
    /// The id before the update.
    pub old: Vec<u8>,
    /// The id after it.
    pub new: Vec<u8>,
    /// Seconds since the epoch.
    pub time: u64,
    /// Minutes east of UTC.
    pub tz_offset: i16,
}

/// A log record: `None` for a deletion (`log_type` 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// The ref whose reflog the entry is in.
    pub name: Vec<u8>,
    /// The entry's update index (the key holds it reversed, newest first).
    pub update_index: u64,
    /// What the entry records.
    pub update: Option<LogUpdate>,
}

/// A record of any block type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// From a ref block.
    Ref(RefRecord),
    /// From a log block.
    Log(LogRecord),
    /// An index record: the last key of the block it points to, and that block's offset.
    Index {
        /// The last key of the block.
        key: Vec<u8>,
        /// The block's offset in the file.
        offset: u64,
    },
    /// An object record: an abbreviated id (the offsets are read and dropped).
    Obj {
        /// The abbreviated id.
        prefix: Vec<u8>,
    },
}

/// The type byte of a ref block (`BLOCK_TYPE_REF`).
pub const BLOCK_REF: u8 = b'r';
/// The type byte of a log block (`BLOCK_TYPE_LOG`).
pub const BLOCK_LOG: u8 = b'g';
/// The type byte of an index block (`BLOCK_TYPE_INDEX`).
pub const BLOCK_INDEX: u8 = b'i';
/// The type byte of an object block (`BLOCK_TYPE_OBJ`).
pub const BLOCK_OBJ: u8 = b'o';

/// `reftable_is_block_type`.
pub fn is_block_type(t: u8) -> bool {
    matches!(t, BLOCK_REF | BLOCK_LOG | BLOCK_INDEX | BLOCK_OBJ)
}

/// The bytes up to the first NUL (C's view of a string).
pub fn cstr(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    b.get(..end).unwrap_or_default()
}

impl Record {
    /// The record's type byte.
    pub fn typ(&self) -> u8 {
        match self {
            Record::Ref(_) => BLOCK_REF,
            Record::Log(_) => BLOCK_LOG,
            Record::Index { .. } => BLOCK_INDEX,
            Record::Obj { .. } => BLOCK_OBJ,
        }
    }

    /// Its key (`reftable_record_key`): a ref's name, a reflog's name with a NUL and the
    /// big-endian `~update_index` (so the newest entry sorts first), an index record's key, an
    /// abbreviated id.
    pub fn key(&self) -> Vec<u8> {
        match self {
            Record::Ref(r) => cstr(&r.name).to_vec(),
            Record::Log(l) => log_key(&l.name, l.update_index),
            Record::Index { key, .. } => key.clone(),
            Record::Obj { prefix } => prefix.clone(),
        }
    }

    /// Whether it is a tombstone (`reftable_record_is_deletion`).
    pub fn is_deletion(&self) -> bool {
        match self {
            Record::Ref(r) => r.value == RefValue::Deletion,
            Record::Log(l) => l.update.is_none(),
            Record::Index { .. } | Record::Obj { .. } => false,
        }
    }
}

/// The key a reflog entry of `name` at `update_index` has.
pub fn log_key(name: &[u8], update_index: u64) -> Vec<u8> {
    let name = cstr(name);
    let mut k = Vec::with_capacity(name.len() + 9);
    k.extend_from_slice(name);
    k.push(0);
    k.extend_from_slice(&(!update_index).to_be_bytes());
    k
}

/// `reftable_record_cmp` for the records a merged table compares (refs and reflog entries; git
/// truncates the difference of two update indexes to an `int`).
pub fn cmp(a: &Record, b: &Record) -> i32 {
    let strcmp = |x: &[u8], y: &[u8]| match cstr(x).cmp(cstr(y)) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    };
    match (a, b) {
        (Record::Ref(x), Record::Ref(y)) => strcmp(&x.name, &y.name),
        (Record::Log(x), Record::Log(y)) => match strcmp(&x.name, &y.name) {
            0 => y.update_index.wrapping_sub(x.update_index) as u32 as i32,
            c => c,
        },
        _ => match a.key().cmp(&b.key()) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        },
    }
}

/// `decode_string`: skips a varint length and that many bytes; the bytes taken.
fn skip_string(v: &View, mut input: Sv) -> Result<Option<u64>, Fail> {
    let start = input.len;
    let Some((size, n)) = var_int(v, input)? else {
        return Ok(None);
    };
    input.consume(n);
    if input.len < size {
        return Ok(None);
    }
    // git copies them (into a buffer it grows to `size` first)
    v.check(input.pos, size)?;
    input.consume(size);
    Ok(Some(start.wrapping_sub(input.len)))
}

/// `decode_string` keeping the bytes.
fn read_string(v: &View, mut input: Sv) -> Result<Option<(Vec<u8>, u64)>, Fail> {
    let start = input.len;
    let Some((size, n)) = var_int(v, input)? else {
        return Ok(None);
    };
    input.consume(n);
    if input.len < size {
        return Ok(None);
    }
    let bytes = v.slice(input.pos, size)?.into_owned();
    input.consume(size);
    Ok(Some((bytes, start.wrapping_sub(input.len))))
}

fn bad(what: &str) -> Fail {
    Fail::error(what.to_string())
}

/// Decodes the value of a record of type `typ` whose key is `key` (`reftable_record_decode`):
/// the record and the bytes taken.
pub(super) fn decode(
    typ: u8,
    key: &[u8],
    extra: u8,
    v: &View,
    mut input: Sv,
    hash_size: usize,
) -> Result<(Record, u64), Fail> {
    let start = input.len;
    let hash = hash_size as u64;
    let taken = |input: &Sv| start.wrapping_sub(input.len);
    match typ {
        BLOCK_REF => {
            let (update_index, n) =
                var_int(v, input)?.ok_or_else(|| bad("a ref's update index does not decode"))?;
            input.consume(n);
            let value = match extra {
                0 => RefValue::Deletion,
                1 => {
                    if input.len < hash {
                        return Err(bad("a ref's object id is cut short"));
                    }
                    let id = v.slice(input.pos, hash)?.into_owned();
                    input.consume(hash);
                    RefValue::Val1(id)
                }
                2 => {
                    if input.len < 2 * hash {
                        return Err(bad("a ref's object ids are cut short"));
                    }
                    let id = v.slice(input.pos, hash)?.into_owned();
                    let peeled = v
                        .slice(input.pos.wrapping_add(hash as i64), hash)?
                        .into_owned();
                    input.consume(2 * hash);
                    RefValue::Val2(id, peeled)
                }
                3 => {
                    let (target, n) = read_string(v, input)?
                        .ok_or_else(|| bad("a symbolic ref's target does not decode"))?;
                    input.consume(n);
                    RefValue::Symref(cstr(&target).to_vec())
                }
                t => {
                    return Err(Fail::crash(format!(
                        "a ref has value type {t}, which git 2.47.3 aborts on"
                    )));
                }
            };
            let rec = RefRecord {
                name: cstr(key).to_vec(),
                update_index,
                value,
            };
            Ok((Record::Ref(rec), taken(&input)))
        }
        BLOCK_LOG => {
            let len = key.len();
            if len <= 9 || key.get(len - 9) != Some(&0) {
                return Err(bad(
                    "a reflog entry's key is not a name and an update index",
                ));
            }
            let name = cstr(key.get(..len - 8).unwrap_or_default()).to_vec();
            let mut ts = [0u8; 8];
            ts.copy_from_slice(key.get(len - 8..).unwrap_or(&[0; 8]));
            let update_index = !u64::from_be_bytes(ts);
            if extra == 0 {
                let rec = LogRecord {
                    name,
                    update_index,
                    update: None,
                };
                return Ok((Record::Log(rec), 0));
            }
            if input.len < 2 * hash {
                return Err(bad("a reflog entry's object ids are cut short"));
            }
            let old = v.slice(input.pos, hash)?.into_owned();
            let new = v
                .slice(input.pos.wrapping_add(hash as i64), hash)?
                .into_owned();
            input.consume(2 * hash);
            for what in ["name", "email"] {
                let n = skip_string(v, input)?
                    .ok_or_else(|| bad(&format!("a reflog entry's {what} does not decode")))?;
                input.consume(n);
            }
            let (time, n) =
                var_int(v, input)?.ok_or_else(|| bad("a reflog entry's time does not decode"))?;
            input.consume(n);
            if input.len < 2 {
                return Err(bad("a reflog entry's time zone is cut short"));
            }
            let tz_offset = v.be16(input.pos)? as i16;
            input.consume(2);
            let n = skip_string(v, input)?
                .ok_or_else(|| bad("a reflog entry's message does not decode"))?;
            input.consume(n);
            let rec = LogRecord {
                name,
                update_index,
                update: Some(LogUpdate {
                    old,
                    new,
                    time,
                    tz_offset,
                }),
            };
            Ok((Record::Log(rec), taken(&input)))
        }
        BLOCK_INDEX => {
            let (offset, n) = var_int(v, input)?
                .ok_or_else(|| bad("an index record's block position does not decode"))?;
            input.consume(n);
            let rec = Record::Index {
                key: key.to_vec(),
                offset,
            };
            Ok((rec, taken(&input)))
        }
        BLOCK_OBJ => {
            let mut count = u64::from(extra);
            if extra == 0 {
                let (c, n) = var_int(v, input)?
                    .ok_or_else(|| bad("an object record's count does not decode"))?;
                input.consume(n);
                count = c;
            }
            if count > 0 {
                // git allocates the positions first, and dies when their size overflows
                if count.checked_mul(8).is_none_or(|b| b > isize::MAX as u64) {
                    return Err(Fail::crash(format!(
                        "an object record claims {count} block positions, which git 2.47.3 \
                         cannot allocate"
                    )));
                }
                for _ in 0..count {
                    let (_, n) = var_int(v, input)?
                        .ok_or_else(|| bad("an object record's positions do not decode"))?;
                    input.consume(n);
                }
            }
            let rec = Record::Obj {
                prefix: key.to_vec(),
            };
            Ok((rec, taken(&input)))
        }
        t => Err(Fail::crash(format!(
            "a record of block type {t:#04x}, which git 2.47.3 aborts on"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::super::block::view;
    use super::*;

    fn all(bytes: &[u8]) -> Sv {
        Sv {
            pos: 0,
            len: bytes.len() as u64,
        }
    }

    #[test]
    fn refs() {
        let mut b = vec![7u8];
        b.extend_from_slice(&[0xab; 20]);
        let v = view(&b);
        let r = decode(BLOCK_REF, b"refs/heads/x", 1, &v, all(&b), 20);
        let Ok((Record::Ref(r), n)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(n, 21);
        assert_eq!(r.update_index, 7);
        assert_eq!(r.value, RefValue::Val1(vec![0xab; 20]));
        // cut short
        assert!(matches!(
            decode(BLOCK_REF, b"x", 2, &v, all(&b), 20),
            Err(f) if f.kind == Kind::Error
        ));
        // a symbolic ref whose target has a NUL
        let b = [0u8, 3, b'a', 0, b'b'];
        let v = view(&b);
        let r = decode(BLOCK_REF, b"HEAD", 3, &v, all(&b), 20);
        let Ok((Record::Ref(r), 5)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(r.value, RefValue::Symref(b"a".to_vec()));
        // value types 4 to 7 make git abort
        assert!(matches!(
            decode(BLOCK_REF, b"x", 5, &v, all(&b), 20),
            Err(f) if f.kind == Kind::Crash
        ));
    }

    #[test]
    fn logs() {
        let key = log_key(b"HEAD", 3);
        assert_eq!(key.len(), 4 + 9);
        let mut b = vec![1u8; 20];
        b.extend_from_slice(&[2u8; 20]);
        b.extend_from_slice(&[1, b'n', 1, b'e', 0x80, 0x00, 0xff, 0xc4, 2, b'h', b'i']);
        let v = view(&b);
        let r = decode(BLOCK_LOG, &key, 1, &v, all(&b), 20);
        let Ok((Record::Log(l), n)) = r else {
            panic!("{r:?}")
        };
        assert_eq!(n as usize, b.len());
        assert_eq!((l.name.as_slice(), l.update_index), (&b"HEAD"[..], 3));
        let u = l.update.unwrap_or_else(|| panic!());
        assert_eq!((u.time, u.tz_offset), (128, -60));
        // a deletion takes nothing
        let r = decode(BLOCK_LOG, &key, 0, &v, all(&b), 20);
        assert!(matches!(
            r,
            Ok((Record::Log(LogRecord { update: None, .. }), 0))
        ));
        // a key without the update index
        assert!(decode(BLOCK_LOG, b"HEAD", 1, &v, all(&b), 20).is_err());
        // newer entries sort first
        let a = Record::Log(LogRecord {
            name: b"HEAD".to_vec(),
            update_index: 5,
            update: None,
        });
        let older = Record::Log(LogRecord {
            name: b"HEAD".to_vec(),
            update_index: 4,
            update: None,
        });
        assert!(cmp(&a, &older) < 0);
        assert!(a.key() < older.key());
    }

    #[test]
    fn objs() {
        let b = [0u8, 2, 5, 1, 1];
        let v = view(&b);
        let r = decode(BLOCK_OBJ, b"ab", 0, &v, all(&b), 20);
        assert!(matches!(r, Ok((Record::Obj { .. }, 1))));
        let r = decode(BLOCK_OBJ, b"ab", 3, &v, all(&b), 20);
        assert!(matches!(r, Ok((Record::Obj { .. }, 3))));
    }
}

//! Tables written byte by byte (unaligned, one ref block, optionally a log block): what reads
//! back, stacks with tombstones, and the damage git handles and the damage it crashes on.

use std::path::Path;
use std::sync::Arc;

use super::merged::MergedIter;
use super::record::{BLOCK_LOG, BLOCK_REF, LogRecord, Record, RefRecord, RefValue};
use super::table::Table;
use super::{Kind, parse_names};
use crate::test_hashes::TestHashes;

/// git's `put_var_int`.
fn varint(mut v: u64) -> Vec<u8> {
    let mut out = vec![(v & 0x7f) as u8];
    while v >> 7 != 0 {
        v = (v >> 7) - 1;
        out.insert(0, 0x80 | (v & 0x7f) as u8);
    }
    out
}

fn string(s: &[u8]) -> Vec<u8> {
    let mut v = varint(s.len() as u64);
    v.extend_from_slice(s);
    v
}

/// A ref: name, value type, value bytes (update index delta 0).
type Ref<'a> = (&'a str, u8, Vec<u8>);

fn header(min: u64, max: u64) -> Vec<u8> {
    let mut h = b"REFT\x01\0\0\0".to_vec();
    h.extend_from_slice(&min.to_be_bytes());
    h.extend_from_slice(&max.to_be_bytes());
    h
}

/// The records of a block, every one a restart point, and the restart table.
fn records(start: usize, entries: &[(Vec<u8>, u8, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut restarts = Vec::new();
    for (key, typ, value) in entries {
        restarts.push(start + body.len());
        body.extend(varint(0));
        body.extend(varint((key.len() as u64) << 3 | u64::from(*typ)));
        body.extend_from_slice(key);
        body.extend_from_slice(value);
    }
    for r in &restarts {
        body.extend_from_slice(&(*r as u32).to_be_bytes()[1..]);
    }
    body.extend_from_slice(&(restarts.len() as u16).to_be_bytes());
    body
}

/// An unaligned SHA-1 table: one ref block and optionally one log block of
/// `(name, update_index, old, new)`.
fn table(min: u64, refs: &[Ref<'_>], logs: &[(&str, u64, u8, u8)]) -> Vec<u8> {
    let head = header(min, min + 10);
    let mut t = head.clone();
    if !refs.is_empty() {
        let entries: Vec<_> = refs
            .iter()
            .map(|(n, typ, v)| {
                let mut value = varint(0);
                value.extend_from_slice(v);
                (n.as_bytes().to_vec(), *typ, value)
            })
            .collect();
        let body = records(28, &entries);
        t.push(b'r');
        t.extend_from_slice(&((28 + body.len()) as u32).to_be_bytes()[1..]);
        t.extend(body);
    }
    let mut log_position = 0;
    if !logs.is_empty() {
        log_position = t.len() as u64;
        let entries: Vec<_> = logs
            .iter()
            .map(|(n, ui, old, new)| {
                let mut key = n.as_bytes().to_vec();
                key.push(0);
                key.extend_from_slice(&(!ui).to_be_bytes());
                let mut value = vec![*old; 20];
                value.extend_from_slice(&[*new; 20]);
                value.extend(string(b"C O Mitter"));
                value.extend(string(b"c@example.com"));
                value.extend(varint(1_700_000_000));
                value.extend_from_slice(&100i16.to_be_bytes());
                value.extend(string(b"msg"));
                (key, 1, value)
            })
            .collect();
        let body = records(4, &entries);
        let zipped = flagsplit_zlib::zlib_rs::compress(&body, 6).unwrap_or_default();
        t.push(b'g');
        t.extend_from_slice(&((4 + body.len()) as u32).to_be_bytes()[1..]);
        t.extend(zipped);
    }
    let mut footer = head;
    for word in [0, 0, 0, log_position, 0] {
        footer.extend_from_slice(&u64::to_be_bytes(word));
    }
    let crc = crc32fast::hash(&footer);
    footer.extend_from_slice(&crc.to_be_bytes());
    t.extend(footer);
    t
}

fn open(bytes: &[u8]) -> Result<Arc<Table>, super::Fail> {
    Table::open::<TestHashes>("t", Path::new("t"), Arc::from(bytes)).map(Arc::new)
}

fn all(tables: &[Arc<Table>], typ: u8) -> Result<Vec<Record>, super::Fail> {
    let want = if typ == BLOCK_REF {
        Record::Ref(RefRecord {
            name: Vec::new(),
            update_index: 0,
            value: RefValue::Deletion,
        })
    } else {
        Record::Log(LogRecord {
            name: Vec::new(),
            update_index: u64::MAX,
            update: None,
        })
    };
    let mut it = MergedIter::new(tables, typ, true);
    it.seek(&want)?;
    let mut out = Vec::new();
    while let Some(r) = it.next_record()? {
        out.push(r);
    }
    Ok(out)
}

fn names(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| match r {
            Record::Ref(r) => format!("{} {}", String::from_utf8_lossy(&r.name), r.update_index),
            Record::Log(l) => format!("{} {}", String::from_utf8_lossy(&l.name), l.update_index),
            _ => String::new(),
        })
        .collect()
}

#[test]
fn refs_and_logs_read_back() {
    let t = table(
        5,
        &[
            ("HEAD", 3, string(b"refs/heads/main")),
            ("refs/heads/main", 1, vec![0xaa; 20]),
            ("refs/tags/v1", 2, [[0xbb; 20], [0xaa; 20]].concat()),
        ],
        &[
            ("HEAD", 7, 0, 0xaa),
            ("HEAD", 6, 0, 0),
            ("refs/heads/main", 6, 0, 0xaa),
        ],
    );
    let t = open(&t).unwrap_or_else(|e| panic!("{e}"));
    let refs = all(std::slice::from_ref(&t), BLOCK_REF).unwrap_or_else(|e| panic!("{e}"));
    // the update index is the table's minimum plus the record's delta
    assert_eq!(
        names(&refs),
        ["HEAD 5", "refs/heads/main 5", "refs/tags/v1 5"]
    );
    let Record::Ref(head) = &refs[0] else {
        panic!()
    };
    assert_eq!(head.value, RefValue::Symref(b"refs/heads/main".to_vec()));
    let logs = all(&[t], BLOCK_LOG).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(&logs), ["HEAD 7", "HEAD 6", "refs/heads/main 6"]);
}

#[test]
fn newer_tables_shadow_older_ones() {
    let old = table(
        1,
        &[
            ("refs/heads/a", 1, vec![1; 20]),
            ("refs/heads/b", 1, vec![2; 20]),
            ("refs/heads/c", 1, vec![3; 20]),
        ],
        &[],
    );
    // b replaced, c deleted (a tombstone), d added
    let new = table(
        2,
        &[
            ("refs/heads/b", 1, vec![9; 20]),
            ("refs/heads/c", 0, Vec::new()),
            ("refs/heads/d", 1, vec![4; 20]),
        ],
        &[],
    );
    let (old, new) = (open(&old).unwrap(), open(&new).unwrap());
    let refs = all(&[old.clone(), new.clone()], BLOCK_REF).unwrap();
    assert_eq!(
        names(&refs),
        ["refs/heads/a 1", "refs/heads/b 2", "refs/heads/d 2"]
    );
    // in the other order, the older table's records win
    let refs = all(&[new, old], BLOCK_REF).unwrap();
    assert_eq!(
        names(&refs),
        [
            "refs/heads/a 1",
            "refs/heads/b 1",
            "refs/heads/c 1",
            "refs/heads/d 2"
        ]
    );
}

#[test]
fn damage_git_handles_is_an_error() {
    let good = table(1, &[("refs/heads/a", 1, vec![1; 20])], &[("HEAD", 1, 0, 1)]);
    let kind = |bytes: &[u8]| open(bytes).err().map(|e| e.kind);
    assert_eq!(kind(&good), None);
    // the footer's CRC, its magic, the version, a file shorter than a header
    let mut b = good.clone();
    *b.last_mut().unwrap() ^= 1;
    assert_eq!(kind(&b), Some(Kind::Error));
    let mut b = good.clone();
    b[0] = b'X';
    assert_eq!(kind(&b), Some(Kind::Error));
    let mut b = good.clone();
    b[4] = 3;
    assert_eq!(kind(&b), Some(Kind::Error));
    assert_eq!(kind(&good[..28]), Some(Kind::Error));
    // a record whose prefix is longer than the key before it stops the read
    let t = table(
        1,
        &[
            ("refs/heads/a", 1, vec![1; 20]),
            ("refs/heads/b", 1, vec![2; 20]),
        ],
        &[],
    );
    let second = 28 + 1 + 1 + 12 + 1 + 20;
    assert_eq!(&t[second + 2..second + 14], b"refs/heads/b");
    let mut b = t.clone();
    b[second] = 0x7f;
    let e = all(&[open(&b).unwrap()], BLOCK_REF).unwrap_err();
    assert_eq!(e.kind, Kind::Error);
    // a log block whose zlib stream fails its checksum
    let mut b = good.clone();
    let n = b.len() - 68 - 1;
    b[n] ^= 1;
    let e = all(&[open(&b).unwrap()], BLOCK_LOG).unwrap_err();
    assert_eq!(e.kind, Kind::Error);
    assert!(e.what.contains("inflate"), "{e}");
}

#[test]
fn damage_git_crashes_on_is_reported_as_such() {
    let good = table(1, &[("refs/heads/a", 1, vec![1; 20])], &[]);
    // shorter than a footer: git reads before the start of its mapping
    let e = open(&good[..40]).unwrap_err();
    assert_eq!(e.kind, Kind::Crash);
    // ref value type 5: git aborts
    let mut b = good.clone();
    b[28 + 1] = (12 << 3) | 5;
    let e = all(&[open(&b).unwrap()], BLOCK_REF).unwrap_err();
    assert_eq!(e.kind, Kind::Crash);
    // a restart offset past the mapped page: git reads memory it does not own
    let mut b = good.clone();
    let restart = 28 + 1 + 1 + 12 + 1 + 20;
    b[restart] = 0x7f;
    let e = all(&[open(&b).unwrap()], BLOCK_REF).unwrap_err();
    assert_eq!(e.kind, Kind::Crash);
}

/// `t` with an index block before its footer whose one record points at `target` (`None`: at
/// the index block itself), the footer's ref index pointing at it.
fn with_index(t: &[u8], target: Option<u64>) -> Vec<u8> {
    let mut out = t[..t.len() - 68].to_vec();
    let at = out.len() as u64;
    let entries = [(b"refs/heads/zz".to_vec(), 0, varint(target.unwrap_or(at)))];
    let body = records(4, &entries);
    out.push(b'i');
    out.extend_from_slice(&((4 + body.len()) as u32).to_be_bytes()[1..]);
    out.extend(body);
    let mut footer = t[t.len() - 68..t.len() - 68 + 24].to_vec();
    for word in [at, 0, 0, 0, 0] {
        footer.extend_from_slice(&word.to_be_bytes());
    }
    let crc = crc32fast::hash(&footer);
    footer.extend_from_slice(&crc.to_be_bytes());
    out.extend(footer);
    out
}

#[test]
fn indexed_seeks() {
    let t = table(
        1,
        &[
            ("refs/heads/a", 1, vec![1; 20]),
            ("refs/heads/b", 1, vec![2; 20]),
        ],
        &[],
    );
    // an index to the ref block: the refs read through it
    let indexed = open(&with_index(&t, Some(0))).unwrap();
    assert_ne!(indexed.refs.index_offset, 0);
    let refs = all(&[indexed], BLOCK_REF).unwrap();
    assert_eq!(names(&refs), ["refs/heads/a 1", "refs/heads/b 1"]);
    // an index that points at itself: git goes round forever, the reader stops
    let looping = open(&with_index(&t, None)).unwrap();
    let e = all(&[looping], BLOCK_REF).unwrap_err();
    assert_eq!(e.kind, Kind::Crash);
    assert!(e.what.contains("forever"), "{e}");
}

#[test]
fn list_names() {
    let n = |s: &[u8]| parse_names(s);
    assert_eq!(
        n(b"a\nb\n\nc"),
        [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
    );
    // a NUL ends the name and the list
    assert_eq!(n(b"a\0x\nb\n"), [b"a".to_vec()]);
    assert_eq!(n(b"\0x\nb\n"), [Vec::<u8>::new()]);
    assert_eq!(n(b"a\r\n"), [b"a\r".to_vec()]);
    assert!(n(b"").is_empty());
}

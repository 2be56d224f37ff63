//! The reftable reader on arbitrary bytes taken as a table file: opening it (the header and
//! footer checks), and, as is and with the footer made to pass them (the header repeated, the
//! CRC-32 recomputed, so that the fuzzer reaches the blocks), every ref and reflog record read
//! through one table and through a stack of two, and seeks to a few names. Never panics; what it
//! reads has ids of the table's hash size; it ends (git's own endless loops are reported as
//! crashes, not followed).
#![no_main]

use std::path::Path;
use std::sync::Arc;

use flagsplit::hash::Selected;
use flagsplit::repo::reftable::merged::MergedIter;
use flagsplit::repo::reftable::record::{
    BLOCK_LOG, BLOCK_REF, LogRecord, Record, RefRecord, RefValue,
};
use flagsplit::repo::reftable::table::{Table, footer_size, header_size};
use libfuzzer_sys::fuzz_target;

fn seek_key(typ: u8, name: &[u8]) -> Record {
    if typ == BLOCK_REF {
        Record::Ref(RefRecord {
            name: name.to_vec(),
            update_index: 0,
            value: RefValue::Deletion,
        })
    } else {
        Record::Log(LogRecord {
            name: name.to_vec(),
            update_index: u64::MAX,
            update: None,
        })
    }
}

fn read(tables: &[Arc<Table>], hash: usize, budget: usize) {
    for typ in [BLOCK_REF, BLOCK_LOG] {
        for name in [&b""[..], b"HEAD", b"refs/heads/main", b"refs/tags/z"] {
            let mut it = MergedIter::new(tables, typ, true);
            if it.seek(&seek_key(typ, name)).is_err() {
                continue;
            }
            let mut n = 0;
            while let Ok(Some(rec)) = it.next_record() {
                n += 1;
                assert!(n <= budget, "more records than the bytes can hold");
                match rec {
                    Record::Ref(r) => match r.value {
                        RefValue::Val1(a) => assert_eq!(a.len(), hash),
                        RefValue::Val2(a, b) => assert_eq!((a.len(), b.len()), (hash, hash)),
                        RefValue::Symref(_) | RefValue::Deletion => {}
                    },
                    Record::Log(l) => {
                        if let Some(u) = l.update {
                            assert_eq!((u.old.len(), u.new.len()), (hash, hash));
                        }
                    }
                    Record::Index { .. } | Record::Obj { .. } => panic!("not asked for"),
                }
                if name.is_empty() && n > 2000 {
                    break;
                }
            }
        }
    }
}

fn check(data: &[u8]) {
    let Ok(table) = Table::open::<Selected>("t.ref", Path::new("t.ref"), Arc::from(data)) else {
        return;
    };
    let hash = table.hash_size();
    let table = Arc::new(table);
    // each record takes two bytes at least, and a block may be read again by every block
    // before it: a generous bound that an endless loop still breaks
    let budget = 4 * data.len() * data.len() + 1000;
    read(std::slice::from_ref(&table), hash, budget);
    read(&[table.clone(), table], hash, 2 * budget);
}

/// The bytes with a footer that passes the checks, when they are long enough for one.
fn fixed_footer(data: &[u8]) -> Option<Vec<u8>> {
    let version = *data.get(4)?;
    if version != 1 && version != 2 {
        return None;
    }
    let (h, f) = (header_size(version) as usize, footer_size(version) as usize);
    if data.len() < h + f + 1 {
        return None;
    }
    let mut d = data.to_vec();
    d[..4].copy_from_slice(b"REFT");
    let at = d.len() - f;
    let header: Vec<u8> = d[..h].to_vec();
    d[at..at + h].copy_from_slice(&header);
    let crc = crc32(&d[at..at + f - 4]);
    d[at + f - 4..].copy_from_slice(&crc.to_be_bytes());
    Some(d)
}

/// CRC-32 (IEEE), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(fixed) = fixed_footer(data) {
        check(&fixed);
    }
});

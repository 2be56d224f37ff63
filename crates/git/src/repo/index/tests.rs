//! The index parser's tests: entries and their order, header errors, extensions, the cache tree
//! read and computed, resolve-undo, varints and EWAH bitmaps.

use super::cache_tree::{MAX_CACHE_TREE_DEPTH, parse_cache_tree};
use super::entries::decode_varint;
use super::extensions::parse_resolve_undo;
use super::*;
use crate::test_hashes::TestHashes;
use crate::{HashAlgo, StreamHasher};

fn sha1(data: &[u8]) -> Vec<u8> {
    let mut h = <TestHashes as Providers>::Hasher::new(HashAlgo::Sha1);
    h.update(data);
    h.finalize()
        .map(|d| d.as_bytes().to_vec())
        .unwrap_or_default()
}

fn entry_v2(path: &[u8], stage: u16, id: u8) -> Vec<u8> {
    let mut e = vec![0u8; 24];
    e.extend_from_slice(&0o100644u32.to_be_bytes());
    e.extend_from_slice(&[0u8; 12]);
    e.extend_from_slice(&[id; 20]);
    e.extend_from_slice(&((stage << 12) | path.len() as u16).to_be_bytes());
    e.extend_from_slice(path);
    let size = (40 + 20 + 2 + path.len() + 8) & !7;
    e.resize(size, 0);
    e
}

fn file(version: u32, entries: &[Vec<u8>], ext: &[u8]) -> Vec<u8> {
    let mut d = b"DIRC".to_vec();
    d.extend_from_slice(&version.to_be_bytes());
    d.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for e in entries {
        d.extend_from_slice(e);
    }
    d.extend_from_slice(ext);
    let sum = sha1(&d);
    d.extend_from_slice(&sum);
    d
}

#[test]
fn parses_entries_and_checks_order() {
    let d = file(2, &[entry_v2(b"a", 0, 1), entry_v2(b"b/c", 0, 2)], b"");
    let p = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
    let Ok(idx) = p else { panic!("{p:?}") };
    assert_eq!(idx.entries.len(), 2);
    assert_eq!(idx.entries[1].path, b"b/c");
    assert_eq!(idx.entries[1].id, vec![2; 20]);
    assert!(check_order(&idx.entries).is_ok());
    let d = file(2, &[entry_v2(b"b", 0, 1), entry_v2(b"a", 0, 2)], b"");
    let idx = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
    let e = idx
        .and_then(|i| check_order(&i.entries))
        .map_err(|e| e.lines());
    assert_eq!(
        e,
        Err(vec!["fatal: unordered stage entries in index".into()])
    );
    let d = file(2, &[entry_v2(b"a", 0, 1), entry_v2(b"a", 2, 2)], b"");
    let idx = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "index").map(|p| p.index);
    let e = idx
        .and_then(|i| check_order(&i.entries))
        .map_err(|e| e.fatal);
    assert_eq!(e, Err("multiple stage entries for merged file 'a'".into()));
}

#[test]
fn header_errors() {
    let e =
        parse_index::<TestHashes>(b"DIRC", ObjectFormat::Sha1, "x/index").map_err(|e| e.lines());
    assert_eq!(
        e,
        Err(vec![
            "fatal: x/index: index file smaller than expected".into()
        ])
    );
    let mut d = file(2, &[], b"");
    d[7] = 5;
    let e = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "i").map_err(|e| e.lines());
    assert_eq!(
        e,
        Err(vec![
            "error: bad index version 5".into(),
            "fatal: index file corrupt".into()
        ])
    );
    let mut d = file(2, &[], b"");
    d[0] = b'X';
    let e = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "i").map_err(|e| e.lines());
    assert_eq!(
        e,
        Err(vec![
            "error: bad signature 0x43524958".into(),
            "fatal: index file corrupt".into()
        ])
    );
    let mut d = file(2, &[], b"");
    let last = d.len() - 1;
    d[last] ^= 1;
    let e = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "i").map_err(|e| e.errors);
    assert_eq!(e, Err(vec!["error: bad index file sha1 signature".into()]));
}

#[test]
fn extensions() {
    let mut ext = b"ABCD".to_vec();
    ext.extend_from_slice(&0u32.to_be_bytes());
    let d = file(2, &[], &ext);
    let p = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "i").map(|p| p.index.messages);
    assert_eq!(p, Ok(vec!["ignoring ABCD extension".to_string()]));
    let mut ext = b"abcd".to_vec();
    ext.extend_from_slice(&0u32.to_be_bytes());
    let d = file(2, &[], &ext);
    let p = parse_index::<TestHashes>(&d, ObjectFormat::Sha1, "i").map_err(|e| e.errors);
    assert_eq!(
        p,
        Err(vec![
            "error: index uses abcd extension, which we do not understand".into()
        ])
    );
}

#[test]
fn cache_tree_nested() {
    let mut t = b"\x001 1\n".to_vec();
    t.extend_from_slice(&[7; 20]);
    t.extend_from_slice(b"sub\0-1 0\n");
    let ct = parse_cache_tree(&t, 20);
    let Ok(Some(ct)) = ct else { panic!("{ct:?}") };
    assert_eq!(ct.entry_count, 1);
    assert_eq!(ct.id, Some(vec![7; 20]));
    assert_eq!(ct.subtrees.len(), 1);
    assert_eq!(ct.subtrees[0].name, b"sub");
    assert_eq!(ct.subtrees[0].id, None);
    // truncated: dropped
    assert_eq!(parse_cache_tree(&t[..10], 20), Ok(None));
    // deep nesting does not recurse, and is bounded
    let mut deep = Vec::new();
    for _ in 0..100_000 {
        deep.extend_from_slice(b"\0-1 1\n");
    }
    assert_eq!(parse_cache_tree(&deep, 20), Ok(None));
    let nested = |n: usize| {
        let mut d = b"\0-1 1\n".to_vec();
        for _ in 1..n {
            d.extend_from_slice(b"x\0-1 1\n");
        }
        d.extend_from_slice(b"x\0-1 0\n");
        d
    };
    assert_eq!(parse_cache_tree(&nested(100_000), 20), Ok(None));
    let t = parse_cache_tree(&nested(MAX_CACHE_TREE_DEPTH - 1), 20);
    assert_eq!(
        t.map(|t| t.map(|t| t.walk().len())),
        Ok(Some(MAX_CACHE_TREE_DEPTH))
    );
}

#[test]
fn resolve_undo() {
    let mut r = b"f\x00100644\x000\x00100644\x00".to_vec();
    r.extend_from_slice(&[1; 20]);
    r.extend_from_slice(&[3; 20]);
    let ru = parse_resolve_undo(&r, 20);
    let Some(ru) = ru else { panic!() };
    assert_eq!(ru[0].modes, [0o100644, 0, 0o100644]);
    assert_eq!(ru[0].ids[2], Some(vec![3; 20]));
    assert_eq!(parse_resolve_undo(&r[..r.len() - 1], 20), None);
}

struct AllExist;

impl Objects for AllExist {
    fn read_tree(&mut self, _id: &[u8]) -> Option<Vec<u8>> {
        None
    }
    fn has_object(&mut self, _id: &[u8]) -> bool {
        true
    }
}

#[test]
fn deep_paths_keep_the_stack_bounded() {
    let entry = |path: Vec<u8>| IndexEntry {
        mode: 0o100644,
        id: vec![1; 20],
        path,
        stage: 0,
        skip_worktree: false,
        intent_to_add: false,
        flags: 0,
    };
    let deep = |n: usize| {
        let mut p = b"a/".repeat(n);
        p.push(b'f');
        p
    };
    let (t, _) =
        compute_cache_tree::<TestHashes>(&[entry(deep(255))], ObjectFormat::Sha1, &mut AllExist);
    assert!(t.is_some_and(|t| t.id.is_some()));
    let (t, _) = compute_cache_tree::<TestHashes>(
        &[entry(deep(100_000))],
        ObjectFormat::Sha1,
        &mut AllExist,
    );
    assert!(t.is_some_and(|t| t.id.is_none()));
}

#[test]
fn varint_and_ewah() {
    let mut at = 0;
    assert_eq!(decode_varint(&[0x80, 0x00], &mut at), Some(128));
    // one RLW: no run, one literal word with bits 0 and 2
    let words = [1u64 << 33, 0b101];
    assert_eq!(ewah_positions(&words, 3), Ok(vec![0, 2]));
    assert_eq!(ewah_positions(&words, 2), Err(2));
    // a run of ones far past any index: refused without expanding it
    assert_eq!(ewah_positions(&[1 | (0xffff_ffffu64 << 1)], 10), Err(10));
}

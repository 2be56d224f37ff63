//! The index parser on arbitrary bytes, as given and with a null checksum appended (git skips
//! the checksum check then, so the fuzzer gets past it): never panic, and what it accepts is
//! consistent — every id has the format's length, every stage is 0 to 3, the cache tree's
//! nodes have an id exactly when their entry count is not negative; the order check runs on
//! whatever was accepted, and the cache-tree computation on what passes it.
#![no_main]

use flagsplit::hash::Selected;
use flagsplit::object::ObjectFormat;
use flagsplit::repo::index::{Objects, check_order, compute_cache_tree, parse_index};

/// Every object exists; no tree can be read.
struct AllExist;

impl Objects for AllExist {
    fn read_tree(&mut self, _id: &[u8]) -> Option<Vec<u8>> {
        None
    }
    fn has_object(&mut self, _id: &[u8]) -> bool {
        true
    }
}
use libfuzzer_sys::fuzz_target;

fn check(data: &[u8], format: ObjectFormat) {
    let Ok(parsed) = parse_index::<Selected>(data, format, "index") else {
        return;
    };
    let index = &parsed.index;
    assert!(index.entries.len() <= data.len() / 16);
    for e in &index.entries {
        assert_eq!(e.id.len(), format.raw_len());
        assert!(e.stage <= 3);
    }
    if let Some(tree) = &index.cache_tree {
        for node in tree.walk() {
            assert_eq!(node.id.is_some(), node.entry_count >= 0);
        }
    }
    if let Some(link) = &parsed.link {
        assert_eq!(link.base.len(), format.raw_len());
    }
    if check_order(&index.entries).is_ok() {
        let (tree, _) = compute_cache_tree::<Selected>(&index.entries, format, &mut AllExist);
        if let Some(tree) = tree {
            for node in tree.walk() {
                assert_eq!(node.id.is_some(), node.entry_count >= 0);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        check(data, format);
        let mut nulled = data.to_vec();
        nulled.extend(std::iter::repeat_n(0u8, format.raw_len()));
        check(&nulled, format);
    }
});

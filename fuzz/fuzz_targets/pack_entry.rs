//! The pack entry header parser on arbitrary bytes at every offset: never panics; an accepted
//! entry's data starts inside the input, after the offset, and an OFS_DELTA's base lies before
//! the entry.
#![no_main]

use flagsplit_git::pack::{self, EntryKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = pack::header(data, "fuzz.pack");
    for off in 0..data.len().min(256) as u64 + 1 {
        for hash_len in [20, 32] {
            if let Ok(e) = pack::entry(data, off, hash_len) {
                assert!(e.data > off && e.data <= data.len() as u64);
                if let EntryKind::OfsDelta(base) = e.kind {
                    assert!(base < off);
                }
                if let EntryKind::RefDelta(id) = e.kind {
                    assert_eq!(id.len(), hash_len);
                }
            }
        }
    }
});

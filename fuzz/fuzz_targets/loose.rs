//! The loose object header parser on arbitrary bytes: never panics; an accepted header ends at
//! its NUL inside the input, and its size is the canonical decimal it spells.
#![no_main]

use flagsplit_git::loose;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = loose::parse_header(data) {
        assert!(h.len <= data.len());
        assert_eq!(data[h.len - 1], 0);
        let digits = &data[h.type_name.len() + 1..h.len - 1];
        assert_eq!(digits, h.size.to_string().as_bytes());
    }
});

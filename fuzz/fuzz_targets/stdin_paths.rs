//! git's reading of a `--stdin-paths` line (`flagsplit_git::hash_object::path_of_line`, over
//! `quote::unquote_c_style`) on arbitrary bytes: never panics; a path holds no NUL and no more
//! bytes than the line; an unquoted name is the line itself up to its first NUL (less the line
//! end); and a quoted one's unquoting used no more than the line.
#![no_main]

use flagsplit_git::{hash_object, quote};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((unquoted, used)) = quote::unquote_c_style(data) {
        assert!(used <= data.len() && unquoted.len() < used);
        assert_eq!(data[used - 1], b'"');
    }
    if let Some(path) = hash_object::path_of_line(data.to_vec()) {
        let path = path.into_encoded_bytes();
        assert!(!path.contains(&0));
        assert!(path.len() <= data.len());
        if data.first() != Some(&b'"') {
            assert!(data.starts_with(&path));
        }
    }
});

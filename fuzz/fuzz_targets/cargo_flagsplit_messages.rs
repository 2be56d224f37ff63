//! `cargo flagsplit`'s reader of a build's saved messages, on arbitrary bytes: never panics; a
//! stream it takes ends in one successful `build-finished`; a refusal renders.
#![no_main]

use cargo_flagsplit::cargo::parse_messages;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match parse_messages(data, "m.json") {
        Ok(build) => {
            assert_eq!(build.finished, [true]);
            assert_eq!(build.after_finish, 0);
        }
        Err(d) => assert!(!d.render(false).is_empty()),
    }
});

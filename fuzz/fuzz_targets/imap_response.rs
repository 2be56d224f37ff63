//! The IMAP response reader and parser on arbitrary bytes: whole responses are read off a byte
//! stream (lines, literals) and parsed; nothing may panic, and every parse must terminate.
#![no_main]

use std::io::BufReader;

use flagsplit_imap::response::{self, ResponseReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = response::parse(data);
    let mut reader = ResponseReader::new(BufReader::with_capacity(64, data));
    while let Ok(raw) = reader.read() {
        let _ = response::parse(&raw);
    }
});

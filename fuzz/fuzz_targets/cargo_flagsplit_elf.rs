//! `cargo flagsplit`'s ELF reading (an executable's NEEDED entries and symbols, through object's
//! parser), and its reader of Cargo's config files (`[env]`, `[build] target`), on arbitrary
//! bytes: never panics; every `[env]` entry it takes is placed inside the text.
#![no_main]

use cargo_flagsplit::{cargo_config, elf};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = elf::headers_in(data);
    let _ = elf::defined_symbols_in(data);
    let text = String::from_utf8_lossy(data);
    let config = cargo_config::parse("config.toml", &text);
    for e in &config.env {
        assert!(e.at.range.end <= text.len());
        assert!(text[e.at.range.clone()].contains(e.name.as_str()) || e.name.is_empty() || text[e.at.range.clone()].starts_with(['"', '\'']));
    }
});

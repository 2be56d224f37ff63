//! `cargo flagsplit`'s ELF reading (an executable's NEEDED entries, symbols and build records,
//! through object's parser; the record notes themselves with flagsplit-info's decoder, in both
//! byte orders), and its reader of Cargo's config files (`[env]`, `[build] target`), on
//! arbitrary bytes: never panics; a record decoded lies inside the input, within the size limit;
//! every `[env]` entry it takes is placed inside the text.
#![no_main]

use cargo_flagsplit::{cargo_config, elf};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = elf::headers_in(data);
    let _ = elf::defined_symbols_in(data);
    if let Ok((records, _)) = elf::records_in(data) {
        assert!(records.iter().all(|r| r.len() <= flagsplit_info::note::MAX_RECORD));
    }
    for big in [false, true] {
        if let Ok(records) = flagsplit_info::note::decode(data, big) {
            assert!(records.iter().map(|r| r.len()).sum::<usize>() <= data.len());
        }
    }
    let text = String::from_utf8_lossy(data);
    let config = cargo_config::parse("config.toml", &text);
    for e in &config.env {
        assert!(e.at.range.end <= text.len());
        assert!(text[e.at.range.clone()].contains(e.name.as_str()) || e.name.is_empty() || text[e.at.range.clone()].starts_with(['"', '\'']));
    }
});

//! Delta application on arbitrary bytes: the first byte picks a base length, the rest is the
//! delta. Never panics, never returns more than the declared size or the limit, and an applied
//! delta's result is exactly as long as its header says.
#![no_main]

use flagsplit_git::delta;
use libfuzzer_sys::fuzz_target;

const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&n, d)) = data.split_first() else {
        return;
    };
    let base: Vec<u8> = (0..usize::from(n) * 4).map(|i| i as u8).collect();
    let mut out = Vec::new();
    let result = delta::apply(&base, d, &mut out, LIMIT);
    assert!(out.len() as u64 <= LIMIT);
    if result.is_ok() {
        let (_, size, _) = delta::sizes(d).expect("an applied delta has sizes");
        assert_eq!(out.len() as u64, size);
    }
});

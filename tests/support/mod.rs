//! What the root integration tests share: one deterministic generator ([`Rng`]), one [`hex`], and
//! one way to skip a test whose tool or data is missing ([`skip`]). Each test binary includes it
//! with `mod support;` and uses what it needs.

#![allow(dead_code)]

use std::io::Write;

/// splitmix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so that every run tests
/// the same inputs and a failure reproduces.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is irrelevant for tests).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Whether this run must not skip (`CI=true`).
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Says that `test` is skipped because of `why` — or fails it when `CI=true`, so that CI cannot
/// pass without what the test needs. The line is written to fd 2 directly: the test harness
/// captures only `print!`/`eprint!`, so a passing test's `eprintln!` would hide it, while this
/// shows in every run's output.
pub fn skip(test: &str, why: &str) {
    let message = format!("SKIPPED: {test}: {why}");
    if ci() {
        panic!("{message} (CI=true: failing instead of skipping)");
    }
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Whether `program args` runs and succeeds (to test for an oracle).
pub fn runs(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

//! What flagsplit's tests share: one deterministic generator ([`Rng`]), one [`hex`], and one way
//! to skip a test whose tool or data is missing ([`skip`], or [`skip_optional`] for what even CI
//! may lack). The root package, `flagsplit-imap` and `flagsplit-docgen` take it as a path-only
//! dev-dependency.

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
/// pass without what the test needs. The caller then returns without testing.
///
/// The `SKIPPED: {test}: {why}` line is written with [`std::io::stderr`], which the test harness
/// does not capture (it captures `print!` and `eprint!` only, and shows them only for a failing
/// test), so it shows in the output of a passing run too.
pub fn skip(test: &str, why: &str) {
    let message = format!("SKIPPED: {test}: {why}");
    if ci() {
        panic!("{message} (CI=true: failing instead of skipping)");
    }
    say(&message);
}

/// Like [`skip`], for what a test may lack even under `CI=true` (an optional tool): the line is
/// written the same way and the test never fails for it.
pub fn skip_optional(test: &str, why: &str) {
    say(&format!("SKIPPED: {test}: {why}"));
}

fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Whether `program args` runs and succeeds (to test for an oracle).
pub fn runs(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64's published first outputs from seed 0.
    #[test]
    fn rng_is_splitmix64() {
        let mut r = Rng(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let bytes = Rng(0).bytes(11);
        assert_eq!(bytes[..8], 0xe220_a839_7b1d_cdafu64.to_le_bytes());
        assert_eq!(bytes[8..], 0x6e78_9e6a_a1b9_65f4u64.to_le_bytes()[..3]);
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(b""), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
    }
}

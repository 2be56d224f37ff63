//! The MD5 block function (RFC 1321 §3.4), written for the length of its dependency chain, with
//! run-time selection of an instance compiled for BMI1/BMI2 on x86-64.
//!
//! MD5 is one serial chain of 64 steps, `a = b + ((a + f(b, c, d) + k + m) <<< s)`: throughput is
//! set by how many operations of each step wait for `b`, the value the previous step just
//! produced. Everything else (`a + k + m`, and whatever part of `f` needs only `c` and `d`) is
//! computed while the chain waits. Per round, the operations after `b` is known:
//!
//! - F = `(b & c) | (!b & d)`, written `d ^ (b & (c ^ d))`: `and`, `xor`, then `add`, `rol`, `add`.
//! - G = `(b & d) | (c & !d)`: the two terms never share a bit, so `|` is `+`, and each term is
//!   added on its own: `a + k + m + (c & !d)` does not wait for `b`, leaving `and`, `add`, `rol`,
//!   `add`. The usual `c ^ (d & (b ^ c))` puts three operations after `b`: with it this function
//!   measured 6% slower (0.94× OpenSSL portable, 0.97× with BMI).
//! - H = `b ^ c ^ d`, written `b ^ (c ^ d)`: `xor`, `add`, `rol`, `add`.
//! - I = `c ^ (b | !d)`: `or`, `xor`, `add`, `rol`, `add`.
//!
//! That is 16 × (5 + 4 + 4 + 5) = 288 dependent operations per block, as in OpenSSL's
//! hand-written x86-64 assembly (`md5-x86_64.pl`), whose round 2 uses the same split form.
//!
//! LLVM's reassociation moves the addition of a constant to the end of a sum, after `f`, which
//! puts one more operation on the chain (`md-5` 0.11 pays that, and its F needs `andn` to be
//! short). So the constants are read from memory through an opaque reference
//! ([`core::hint::black_box`]): a load that is not a constant stays where it is written. With the
//! constants inlined this function ran at 0.86× OpenSSL; with them loaded, 1.03×.
//!
//! The one body is compiled twice on x86-64: portable (the target's baseline) and with BMI1+BMI2,
//! where `c & !d` is one `andn` and rotations are `rorx` (non-destructive, no copy first). The
//! choice is made per call from std's CPU detection, which caches its answer in an atomic.
//!
//! Measured on an AMD EPYC (Zen, AVX2/BMI2) under Linux, Rust 1.95, OpenSSL 3.0.19, best of
//! interleaved rounds: portable 790 MB/s (1.03× libcrypto's `MD5_Update`), BMI 799 MB/s (1.04×),
//! `md-5` 0.11 643 MB/s (0.84×); a whole 64-byte message 172 ns against OpenSSL's 185 ns.

/// The round constants `k[i] = floor(abs(sin(i + 1)) * 2^32)` (RFC 1321 §3.4), four per row.
#[rustfmt::skip]
static K: [u32; 64] = [
    0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee,
    0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
    0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be,
    0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
    0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa,
    0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
    0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed,
    0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
    0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c,
    0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
    0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05,
    0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
    0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039,
    0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
    0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1,
    0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
];

/// The MD5 initial state (RFC 1321 §3.3).
pub(super) const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// One step: `a = b + ((a + k + m + f) <<< s)`, with the terms that do not depend on `b` added
/// first. `early` is the part of `f` that needs only `c` and `d` (zero when there is none) and
/// `late` the part that needs `b`.
macro_rules! step {
    ($a:ident, $b:ident, $k:expr, $m:expr, $early:expr, $late:expr, $s:expr) => {
        $a = $a
            .wrapping_add($k)
            .wrapping_add($m)
            .wrapping_add($early)
            .wrapping_add($late)
            .rotate_left($s)
            .wrapping_add($b);
    };
}

macro_rules! f {
    ($k:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $i:expr, $s:expr) => {
        step!($a, $b, $k[$i], $m, 0u32, $d ^ ($b & ($c ^ $d)), $s)
    };
}

macro_rules! g {
    ($k:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $i:expr, $s:expr) => {
        step!($a, $b, $k[$i], $m, $c & !$d, $b & $d, $s)
    };
}

macro_rules! h {
    ($k:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $i:expr, $s:expr) => {
        step!($a, $b, $k[$i], $m, 0u32, $b ^ ($c ^ $d), $s)
    };
}

macro_rules! i {
    ($k:ident, $a:ident, $b:ident, $c:ident, $d:ident, $m:expr, $i:expr, $s:expr) => {
        step!($a, $b, $k[$i], $m, 0u32, $c ^ ($b | !$d), $s)
    };
}

/// The block function over `blocks`, inlined into each instance below.
#[inline(always)]
fn compress_body(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    let [mut sa, mut sb, mut sc, mut sd] = *state;
    for block in blocks {
        let (words, _) = block.as_chunks::<4>();
        let m = |i: usize| u32::from_le_bytes(words[i]);
        // Read the constants through an opaque reference: LLVM's reassociation moves additions
        // of constants to the end of a sum, which would put `+ k` after `f` on the chain.
        let k: &[u32; 64] = core::hint::black_box(&K);
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);

        f!(k, a, b, c, d, m(0), 0, 7);
        f!(k, d, a, b, c, m(1), 1, 12);
        f!(k, c, d, a, b, m(2), 2, 17);
        f!(k, b, c, d, a, m(3), 3, 22);
        f!(k, a, b, c, d, m(4), 4, 7);
        f!(k, d, a, b, c, m(5), 5, 12);
        f!(k, c, d, a, b, m(6), 6, 17);
        f!(k, b, c, d, a, m(7), 7, 22);
        f!(k, a, b, c, d, m(8), 8, 7);
        f!(k, d, a, b, c, m(9), 9, 12);
        f!(k, c, d, a, b, m(10), 10, 17);
        f!(k, b, c, d, a, m(11), 11, 22);
        f!(k, a, b, c, d, m(12), 12, 7);
        f!(k, d, a, b, c, m(13), 13, 12);
        f!(k, c, d, a, b, m(14), 14, 17);
        f!(k, b, c, d, a, m(15), 15, 22);

        g!(k, a, b, c, d, m(1), 16, 5);
        g!(k, d, a, b, c, m(6), 17, 9);
        g!(k, c, d, a, b, m(11), 18, 14);
        g!(k, b, c, d, a, m(0), 19, 20);
        g!(k, a, b, c, d, m(5), 20, 5);
        g!(k, d, a, b, c, m(10), 21, 9);
        g!(k, c, d, a, b, m(15), 22, 14);
        g!(k, b, c, d, a, m(4), 23, 20);
        g!(k, a, b, c, d, m(9), 24, 5);
        g!(k, d, a, b, c, m(14), 25, 9);
        g!(k, c, d, a, b, m(3), 26, 14);
        g!(k, b, c, d, a, m(8), 27, 20);
        g!(k, a, b, c, d, m(13), 28, 5);
        g!(k, d, a, b, c, m(2), 29, 9);
        g!(k, c, d, a, b, m(7), 30, 14);
        g!(k, b, c, d, a, m(12), 31, 20);

        h!(k, a, b, c, d, m(5), 32, 4);
        h!(k, d, a, b, c, m(8), 33, 11);
        h!(k, c, d, a, b, m(11), 34, 16);
        h!(k, b, c, d, a, m(14), 35, 23);
        h!(k, a, b, c, d, m(1), 36, 4);
        h!(k, d, a, b, c, m(4), 37, 11);
        h!(k, c, d, a, b, m(7), 38, 16);
        h!(k, b, c, d, a, m(10), 39, 23);
        h!(k, a, b, c, d, m(13), 40, 4);
        h!(k, d, a, b, c, m(0), 41, 11);
        h!(k, c, d, a, b, m(3), 42, 16);
        h!(k, b, c, d, a, m(6), 43, 23);
        h!(k, a, b, c, d, m(9), 44, 4);
        h!(k, d, a, b, c, m(12), 45, 11);
        h!(k, c, d, a, b, m(15), 46, 16);
        h!(k, b, c, d, a, m(2), 47, 23);

        i!(k, a, b, c, d, m(0), 48, 6);
        i!(k, d, a, b, c, m(7), 49, 10);
        i!(k, c, d, a, b, m(14), 50, 15);
        i!(k, b, c, d, a, m(5), 51, 21);
        i!(k, a, b, c, d, m(12), 52, 6);
        i!(k, d, a, b, c, m(3), 53, 10);
        i!(k, c, d, a, b, m(10), 54, 15);
        i!(k, b, c, d, a, m(1), 55, 21);
        i!(k, a, b, c, d, m(8), 56, 6);
        i!(k, d, a, b, c, m(15), 57, 10);
        i!(k, c, d, a, b, m(6), 58, 15);
        i!(k, b, c, d, a, m(13), 59, 21);
        i!(k, a, b, c, d, m(4), 60, 6);
        i!(k, d, a, b, c, m(11), 61, 10);
        i!(k, c, d, a, b, m(2), 62, 15);
        i!(k, b, c, d, a, m(9), 63, 21);

        sa = sa.wrapping_add(a);
        sb = sb.wrapping_add(b);
        sc = sc.wrapping_add(c);
        sd = sd.wrapping_add(d);
    }
    *state = [sa, sb, sc, sd];
}

/// The portable instance: the target's baseline instruction set.
pub(super) fn compress_portable(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress_body(state, blocks);
}

/// The instance for CPUs with BMI1 (`andn`) and BMI2 (`rorx`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
pub(super) fn compress_bmi(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    compress_body(state, blocks);
}

/// Whether this CPU runs [`compress_bmi`] (std caches the detection in an atomic).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_bmi() -> bool {
    std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("bmi2")
}

/// The block function over `blocks`, through the best instance for this CPU.
#[inline]
pub(super) fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    #[cfg(target_arch = "x86_64")]
    if has_bmi() {
        // SAFETY: `compress_bmi` needs BMI1 and BMI2, which `has_bmi` has just detected.
        unsafe { compress_bmi(state, blocks) };
        return;
    }
    compress_portable(state, blocks);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is RFC 1321's definition, `floor(abs(sin(i + 1)) * 2^32)`.
    #[test]
    fn constants_are_the_sines() {
        for (i, &k) in K.iter().enumerate() {
            let want = ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0).floor() as u32;
            assert_eq!(k, want, "k[{i}]");
        }
    }

    /// Every instance folds the same blocks into the same state, one call for many blocks or one
    /// call per block, from arbitrary states.
    #[test]
    fn instances_agree_on_random_blocks() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let count = if cfg!(miri) { 3 } else { 200 };
        let blocks: Vec<[u8; 64]> = (0..count)
            .map(|_| std::array::from_fn(|_| next() as u8))
            .collect();
        let start: [u32; 4] = std::array::from_fn(|_| next() as u32);

        let mut one_call = start;
        compress_portable(&mut one_call, &blocks);
        let mut per_block = start;
        for b in &blocks {
            compress_portable(&mut per_block, std::slice::from_ref(b));
        }
        assert_eq!(one_call, per_block);
        assert_ne!(one_call, start);

        let mut dispatched = start;
        compress(&mut dispatched, &blocks);
        assert_eq!(dispatched, one_call, "dispatched instance");

        #[cfg(target_arch = "x86_64")]
        if has_bmi() {
            let mut bmi = start;
            // SAFETY: `has_bmi` detected BMI1 and BMI2 on this CPU.
            unsafe { compress_bmi(&mut bmi, &blocks) };
            assert_eq!(bmi, one_call, "BMI instance");
        } else {
            eprintln!("NOTE: this CPU lacks BMI1/BMI2; the BMI instance is not tested");
        }

        let mut none = start;
        compress(&mut none, &[]);
        assert_eq!(none, start, "no blocks, no change");
    }
}

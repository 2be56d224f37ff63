//! `builtin`: MD5 without OpenSSL, over our own block function (the private module
//! `md5::compress`), which is faster than the crate `md-5` on x86-64 without `-C target-cpu`
//! (measured figures in `compress`'s documentation).

use std::convert::Infallible;

use super::compress::{INIT, compress};
use crate::HashProvider;
use crate::md_buffer::{LengthOrder, MdBuffer};

/// A block function: the chaining state and the blocks to fold into it.
type Compress = fn(&mut [u32; 4], &[[u8; 64]]);

/// Built-in MD5: the chaining state with the bytes of an incomplete block and the length so far.
#[derive(Clone)]
pub struct Md5Builtin(MdBuffer<[u32; 4]>);

impl Md5Builtin {
    /// [`HashProvider::update`] with the block function `compress` (the tests pass each instance).
    #[inline(always)]
    fn update_with(&mut self, data: &[u8], compress: Compress) {
        self.0.update(data, compress);
    }

    /// [`HashProvider::finalize`] with the block function `compress`: RFC 1321 §3.1–3.2 padding (the
    /// bit length little-endian), then the state little-endian (§3.5).
    #[inline(always)]
    fn finalize_with(self, compress: Compress) -> [u8; 16] {
        let state = self.0.finalize(LengthOrder::Little, compress);
        let mut out = [0u8; 16];
        for (o, w) in out.chunks_exact_mut(4).zip(state) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

impl HashProvider for Md5Builtin {
    type Output = [u8; 16];
    type Error = Infallible;
    const ALGORITHM: &'static str = "MD5";
    const PROVIDER: &'static str = "builtin";

    #[inline]
    fn new() -> Self {
        Md5Builtin(MdBuffer::new(INIT))
    }

    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.update_with(data, compress);
    }

    #[inline]
    fn finalize(self) -> Result<[u8; 16], Infallible> {
        Ok(self.finalize_with(compress))
    }
}

#[cfg(test)]
mod tests {
    use super::super::compress::compress_portable;
    use super::*;
    use md5::Digest as _;

    /// splitmix64: a tiny deterministic PRNG, so every run tests the same inputs.
    struct SplitMix(u64);

    impl SplitMix {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }

        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next_u64() as u8).collect()
        }
    }

    /// Every instance of the block function this machine can run, by name: the portable one, the
    /// dispatched one, and on x86-64 with BMI1+BMI2 the BMI instance called directly.
    fn instances() -> Vec<(&'static str, Compress)> {
        let mut v: Vec<(&'static str, Compress)> =
            vec![("portable", compress_portable), ("dispatched", compress)];
        #[cfg(target_arch = "x86_64")]
        if super::super::compress::has_bmi() {
            v.push(("bmi", |state, blocks| {
                // SAFETY: `has_bmi` detected BMI1 and BMI2 on this CPU.
                unsafe { super::super::compress::compress_bmi(state, blocks) }
            }));
        } else {
            eprintln!("NOTE: this CPU lacks BMI1/BMI2; the BMI instance is not tested");
        }
        v
    }

    /// MD5 of `data` fed in the pieces `cuts` (increasing offsets), through `compress`.
    fn digest_split(data: &[u8], cuts: &[usize], compress: Compress) -> [u8; 16] {
        let mut h = Md5Builtin::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([data.len()].iter()) {
            h.update_with(&data[at..cut], compress);
            at = cut;
        }
        h.finalize_with(compress)
    }

    /// `count` random cut points in `0..=len`, sorted (repeats give empty updates).
    fn random_cuts(rng: &mut SplitMix, len: usize, count: usize) -> Vec<usize> {
        let mut cuts: Vec<usize> = (0..count).map(|_| rng.below(len + 1)).collect();
        cuts.sort_unstable();
        cuts
    }

    fn reference(data: &[u8]) -> [u8; 16] {
        md5::Md5::digest(data).into()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 1321 appendix A.5.
    #[test]
    fn rfc1321_test_suite() {
        let suite: [(&str, &str); 7] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (name, compress) in instances() {
            for (input, want) in suite {
                let got = digest_split(input.as_bytes(), &[], compress);
                assert_eq!(hex(&got), want, "{name}: MD5({input:?})");
            }
        }
        for (input, want) in suite {
            let mut h = Md5Builtin::new();
            h.update(input.as_bytes());
            assert_eq!(
                hex(&h.finalize().unwrap()),
                want,
                "provider: MD5({input:?})"
            );
        }
    }

    /// Every length from 0 to 1024 (all padding cases, 0..=16 blocks), whole and in random
    /// pieces, through every instance, against `md-5`.
    #[test]
    fn every_length_to_1024_matches_md5_crate() {
        let max = if cfg!(miri) { 130 } else { 1024 };
        let mut rng = SplitMix(1);
        let instances = instances();
        for len in 0..=max {
            let data = rng.bytes(len);
            let want = reference(&data);
            for &(name, compress) in &instances {
                assert_eq!(
                    digest_split(&data, &[], compress),
                    want,
                    "{name}: len {len}"
                );
                let count = rng.below(6);
                let cuts = random_cuts(&mut rng, len, count);
                assert_eq!(
                    digest_split(&data, &cuts, compress),
                    want,
                    "{name}: len {len}, cuts {cuts:?}"
                );
            }
        }
    }

    /// Random sizes up to 4 MiB in random pieces (many small ones mixed with large ones).
    #[test]
    fn large_random_inputs_match_md5_crate() {
        let mut rng = SplitMix(2);
        let rounds = if cfg!(miri) { 1 } else { 6 };
        let limit = if cfg!(miri) { 5000 } else { 4 << 20 };
        let instances = instances();
        for round in 0..rounds {
            let len = rng.below(limit + 1);
            let data = rng.bytes(len);
            let want = reference(&data);
            for &(name, compress) in &instances {
                let count = if round % 2 == 0 { 3 } else { 200 };
                let cuts = random_cuts(&mut rng, len, count);
                assert_eq!(
                    digest_split(&data, &cuts, compress),
                    want,
                    "{name}: len {len}"
                );
            }
        }
    }

    /// One byte at a time: every buffered state is crossed, each update of length one.
    #[test]
    fn byte_at_a_time_matches_md5_crate() {
        let mut rng = SplitMix(3);
        let data = rng.bytes(if cfg!(miri) { 70 } else { 300 });
        let cuts: Vec<usize> = (1..data.len()).collect();
        for (name, compress) in instances() {
            assert_eq!(
                digest_split(&data, &cuts, compress),
                reference(&data),
                "{name}"
            );
        }
    }

    /// A hasher cloned mid-stream goes on independently of the original.
    #[test]
    fn clone_mid_stream() {
        let mut rng = SplitMix(4);
        let data = rng.bytes(200);
        let mut h = Md5Builtin::new();
        h.update(&data[..77]);
        let mut h2 = h.clone();
        h.update(&data[77..]);
        h2.update(&data[77..150]);
        assert_eq!(h.finalize().unwrap(), reference(&data));
        assert_eq!(h2.finalize().unwrap(), reference(&data[..150]));
    }

    /// Against libcrypto's MD5, when this build compiles the OpenSSL provider.
    #[cfg(all(feature = "openssl-md5", not(miri)))]
    #[test]
    fn matches_openssl_on_random_inputs() {
        use super::super::openssl::Md5Openssl;
        let mut rng = SplitMix(5);
        let mut lens: Vec<usize> = (0..=1024).collect();
        lens.extend((0..6).map(|_| rng.below((3 << 20) + 1)));
        for len in lens {
            let data = rng.bytes(len);
            let mut o = Md5Openssl::new();
            o.update(&data);
            let want = o.finalize().unwrap();
            let count = rng.below(8);
            let cuts = random_cuts(&mut rng, len, count);
            let mut h = Md5Builtin::new();
            let mut at = 0;
            for &cut in cuts.iter().chain([len].iter()) {
                h.update(&data[at..cut]);
                at = cut;
            }
            assert_eq!(h.finalize().unwrap(), want, "len {len}, cuts {cuts:?}");
        }
    }
}

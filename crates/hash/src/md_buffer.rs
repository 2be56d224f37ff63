//! Merkle–Damgård streaming over a 64-byte block function, shared by the built-in MD5, the block
//! SHA-1 and the built-in SHA-256 providers: the bytes of an incomplete block, the length so far,
//! and the standard padding (`0x80`, zeros up to 56 mod 64, the length in bits). The three
//! algorithms pad alike and differ only in the byte order of the length, so one buffer serves all.
//!
//! Why not the `digest`/`block-buffer` layers the `sha1` and `md-5` crates use: on one 64-byte
//! message they cost about a third of the time on top of the block function (padding through a
//! memset and output copies measured with perf), which is the difference between 1.33× and 1.14× of
//! libcrypto's low-level call on that message (book/src/benchmarks.md).

/// Byte order of the length in the final block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LengthOrder {
    /// MD5 (RFC 1321 §3.2).
    Little,
    /// SHA-1 and SHA-256 (FIPS 180-4 §5.1.1).
    Big,
}

/// The streaming state around a chaining value `S`.
#[derive(Clone)]
pub(crate) struct MdBuffer<S> {
    /// The chaining value.
    pub(crate) state: S,
    /// Bytes fed so far. All three algorithms append the length in bits modulo 2^64, so wrapping is the
    /// standard.
    len: u64,
    /// `buf[..len % 64]` holds the bytes of the current incomplete block.
    buf: [u8; 64],
}

impl<S> MdBuffer<S> {
    /// A buffer starting from `state`.
    #[inline]
    pub(crate) const fn new(state: S) -> Self {
        MdBuffer {
            state,
            len: 0,
            buf: [0; 64],
        }
    }

    /// How many bytes of `buf` are in use.
    #[inline]
    fn buffered(&self) -> usize {
        (self.len % 64) as usize // < 64
    }

    /// Feeds `data`, calling `compress` on every complete block (whole runs of blocks at once).
    #[inline(always)]
    pub(crate) fn update(&mut self, mut data: &[u8], compress: impl Fn(&mut S, &[[u8; 64]])) {
        let used = self.buffered();
        self.len = self.len.wrapping_add(data.len() as u64);
        if used > 0 {
            let take = (64 - used).min(data.len());
            let (head, rest) = data.split_at(take);
            self.buf[used..used + take].copy_from_slice(head);
            if used + take < 64 {
                return;
            }
            compress(&mut self.state, std::slice::from_ref(&self.buf));
            data = rest;
        }
        let (blocks, tail) = data.as_chunks::<64>();
        if !blocks.is_empty() {
            compress(&mut self.state, blocks);
        }
        self.buf[..tail.len()].copy_from_slice(tail);
    }

    /// Pads and returns the final chaining value.
    #[inline(always)]
    pub(crate) fn finalize(
        mut self,
        order: LengthOrder,
        compress: impl Fn(&mut S, &[[u8; 64]]),
    ) -> S {
        let used = self.buffered();
        let bits = self.len.wrapping_mul(8);
        self.buf[used] = 0x80;
        self.buf[used + 1..].fill(0);
        if used >= 56 {
            compress(&mut self.state, std::slice::from_ref(&self.buf));
            self.buf.fill(0);
        }
        self.buf[56..].copy_from_slice(&match order {
            LengthOrder::Little => bits.to_le_bytes(),
            LengthOrder::Big => bits.to_be_bytes(),
        });
        compress(&mut self.state, std::slice::from_ref(&self.buf));
        self.state
    }
}

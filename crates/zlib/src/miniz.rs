//! `miniz`: miniz_oxide's decompressor (pure Rust; feature `zlib-miniz`), driven through its core
//! function `inflate::core::decompress`.
//!
//! Not through miniz_oxide's streaming API (`inflate::stream`): that one decodes into its 32 KiB
//! window buffer in wrapping mode from the first byte, where a distance reaching back before the
//! stream's start is not checked and copies the buffer's zeros, so a corrupt stream whose Adler-32
//! happens to match would be accepted where zlib refuses it ("invalid distance too far back").
//! Here the window is used without wrapping until the stream has filled it once, where
//! miniz_oxide checks every distance against the output so far; after that no distance (at most
//! 32 KiB in deflate) can reach before the start. [`Inflater::inflate_to_vec`] decodes straight
//! into the caller's vector, which also checks every distance and saves the copy out of the
//! window.

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::inflate_flags::{
    TINFL_FLAG_COMPUTE_ADLER32, TINFL_FLAG_HAS_MORE_INPUT, TINFL_FLAG_PARSE_ZLIB_HEADER,
    TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
};
use miniz_oxide::inflate::core::{DecompressorOxide, decompress};

use crate::{ActualSize, Error, Inflater, Step, grow, max_inflated_len};

/// The miniz_oxide version this crate is built against (the crate has no version constant;
/// `tests/inflate.rs` checks this one against `Cargo.lock`).
pub const CRATE_VERSION: &str = "0.9.1";

/// The deflate window, miniz_oxide's `TINFL_LZ_DICT_SIZE`.
const WINDOW: usize = 32 * 1024;

/// miniz_oxide's inflater, zlib format.
pub struct Miniz(Box<State>);

struct State {
    decomp: DecompressorOxide,
    window: [u8; WINDOW],
    /// Where the bytes not yet handed out start (and where the next decode writes once they are
    /// all out).
    ofs: usize,
    /// Decoded bytes at `window[ofs..]` not yet handed out.
    avail: usize,
    /// The stream has filled the window once: from now on it wraps.
    wrapped: bool,
    /// What the last decode said.
    status: TINFLStatus,
    /// Something was fed since the last reset.
    used: bool,
}

impl Inflater for Miniz {
    const PROVIDER: &'static str = "miniz";

    fn version() -> String {
        CRATE_VERSION.to_owned()
    }

    fn new() -> Result<Self, Error> {
        Ok(Miniz(Box::new(State {
            decomp: DecompressorOxide::new(),
            window: [0; WINDOW],
            ofs: 0,
            avail: 0,
            wrapped: false,
            status: TINFLStatus::NeedsMoreInput,
            used: false,
        })))
    }

    fn reset(&mut self) {
        let s = &mut *self.0;
        if s.used {
            // Only the state machine's start: tables and window are overwritten before use, and
            // no window byte is read before it was written (distances are checked until the
            // window wraps).
            s.decomp.init();
            s.ofs = 0;
            s.avail = 0;
            s.wrapped = false;
            s.status = TINFLStatus::NeedsMoreInput;
            s.used = false;
        }
    }

    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Error> {
        let s = &mut *self.0;
        s.used = true;
        let (mut consumed, mut written) = (0, 0);
        loop {
            if s.avail > 0 {
                let n = s.avail.min(output.len() - written);
                output[written..written + n].copy_from_slice(&s.window[s.ofs..s.ofs + n]);
                written += n;
                s.avail -= n;
                s.ofs += n;
                if s.ofs == WINDOW {
                    s.ofs = 0;
                    s.wrapped = true;
                }
                if s.avail > 0 {
                    // The output is full.
                    return Ok(Step {
                        consumed,
                        written,
                        end: false,
                    });
                }
            }
            match s.status {
                TINFLStatus::Done => {
                    return Ok(Step {
                        consumed,
                        written,
                        end: true,
                    });
                }
                TINFLStatus::NeedsMoreInput | TINFLStatus::HasMoreOutput => {}
                // Output decoded before the error first, as the other providers do.
                _ if written > 0 => {
                    return Ok(Step {
                        consumed,
                        written,
                        end: false,
                    });
                }
                failed => return Err(corrupt(failed)),
            }
            if s.status == TINFLStatus::NeedsMoreInput && consumed == input.len() && consumed > 0 {
                return Ok(Step {
                    consumed,
                    written,
                    end: false,
                });
            }
            let mut flags = TINFL_FLAG_PARSE_ZLIB_HEADER
                | TINFL_FLAG_COMPUTE_ADLER32
                | TINFL_FLAG_HAS_MORE_INPUT;
            if !s.wrapped {
                flags |= TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
            }
            let (status, in_bytes, out_bytes) = decompress(
                &mut s.decomp,
                &input[consumed..],
                &mut s.window,
                s.ofs,
                flags,
            );
            consumed += in_bytes;
            s.avail = out_bytes;
            s.status = status;
            if status == TINFLStatus::NeedsMoreInput && in_bytes == 0 && out_bytes == 0 {
                return Ok(Step {
                    consumed,
                    written,
                    end: false,
                });
            }
        }
    }

    fn inflate_to_vec(
        &mut self,
        input: &[u8],
        expected: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Error> {
        self.reset();
        let s = &mut *self.0;
        s.used = true;
        out.clear();
        grow(out, expected.min(max_inflated_len(input.len())));
        // All the input is here: no TINFL_FLAG_HAS_MORE_INPUT, so running out of it is
        // FailedCannotMakeProgress. The output is the whole stream: every distance is checked.
        let flags = TINFL_FLAG_PARSE_ZLIB_HEADER
            | TINFL_FLAG_COMPUTE_ADLER32
            | TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (mut consumed, mut written) = (0, 0);
        loop {
            let (status, in_bytes, out_bytes) =
                decompress(&mut s.decomp, &input[consumed..], out, written, flags);
            consumed += in_bytes;
            written += out_bytes;
            match status {
                TINFLStatus::Done => {
                    out.truncate(written);
                    if written != expected {
                        return Err(Error::SizeMismatch {
                            expected: expected as u64,
                            actual: ActualSize::Exactly(written as u64),
                        });
                    }
                    return Ok(consumed);
                }
                // Only reported when a byte is to be written and the output is full.
                TINFLStatus::HasMoreOutput if out.len() < expected => {
                    grow(out, out.len().saturating_mul(2).min(expected));
                }
                TINFLStatus::HasMoreOutput => {
                    out.truncate(written);
                    return Err(Error::SizeMismatch {
                        expected: expected as u64,
                        actual: ActualSize::MoreThan(expected as u64),
                    });
                }
                TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                    out.truncate(written);
                    return Err(Error::Truncated {
                        inflated: written as u64,
                    });
                }
                failed => {
                    out.truncate(written);
                    return Err(crate::in_zlib_words(corrupt(failed), input));
                }
            }
        }
    }
}

fn corrupt(status: TINFLStatus) -> Error {
    Error::Corrupt {
        provider: Miniz::PROVIDER,
        detail: match status {
            TINFLStatus::Adler32Mismatch => "incorrect data check".to_owned(),
            other => format!("{other:?}"),
        },
    }
}

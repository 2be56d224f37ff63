//! flagsplit's zlib inflate providers: every zlib decompressor this build compiles, each a small
//! type behind the one interface [`Inflater`]. `zlib-rs` (pure Rust) is always compiled; Cargo
//! features add `miniz` (`zlib-miniz`, miniz_oxide), `system` (`zlib-system`, the system libz
//! through libz-sys) and `zlib-ng` (`zlib-ng`, zlib-ng's native `zng_` API, built from source and
//! linked statically).
//!
//! This crate never selects: the final package's build script decides which provider the facility
//! uses and the package's own source names only that one, so only it decides what a binary links.
//! [`for_each_provider`] is generic, so a provider is only instantiated where a caller asks (tests
//! and benchmarks compare them all through the same code).
//!
//! The interface is shaped by git's object store: a pack entry's zlib stream is followed by the
//! next entry, so [`Inflater::inflate`] says how many input bytes it consumed and whether the
//! stream ended; git knows each object's size, so [`Inflater::inflate_to_vec`] takes it, sizes
//! the output by it and refuses any other size; and one decompressor serves many streams
//! ([`Inflater::reset`]), since millions of small objects make an allocation per stream count.
//! No input panics, and no output ends past the expected size (while it is inflated it has a fixed
//! [`EXPECTED_SLACK`] of room past it, for the providers' fast loops) or grows past the caller's
//! limit.

#![deny(missing_docs)]

pub mod failure;
#[cfg(feature = "zlib-miniz")]
pub mod miniz;
#[cfg(feature = "zlib-system")]
pub mod system;
#[cfg(feature = "zlib-ng")]
pub mod zlib_ng;
pub mod zlib_rs;
#[cfg(any(feature = "zlib-system", feature = "zlib-ng"))]
mod zstream;

use std::fmt;

/// What a zlib stream or its inflater can refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not a valid zlib stream: a bad header, a bad block, a distance too far back, a wrong
    /// Adler-32, or a preset dictionary (which git never uses). From `inflate_to_vec` and
    /// `inflate_to_vec_limited`, `detail` is zlib's own message for the stream
    /// ([`failure::inflate_failure`]), the same from every provider; from the streaming
    /// [`Inflater::inflate`], which does not hold the stream, it is the provider's.
    #[error("corrupt zlib stream ({provider}: {detail})")]
    Corrupt {
        /// The provider that refused ([`Inflater::PROVIDER`]).
        provider: &'static str,
        /// What it said.
        detail: String,
    },
    /// The input ended before the stream did.
    #[error("truncated zlib stream: the input ended after {inflated} inflated bytes")]
    Truncated {
        /// The bytes inflated before the input ran out.
        inflated: u64,
    },
    /// The stream inflates to another size than the caller expected.
    #[error("zlib stream inflates to {actual} bytes, expected {expected}")]
    SizeMismatch {
        /// The size the caller expected.
        expected: u64,
        /// What the stream holds.
        actual: ActualSize,
    },
    /// The stream inflates to more than the caller's limit.
    #[error("zlib stream inflates to more than {limit} bytes")]
    LimitExceeded {
        /// The caller's limit.
        limit: u64,
    },
    /// The library failed for another reason than the data (it could not allocate its state).
    #[error("{provider}: {detail}")]
    Library {
        /// The provider ([`Inflater::PROVIDER`]).
        provider: &'static str,
        /// What it said.
        detail: String,
    },
}

/// The size a mismatching stream inflates to: exact when it is shorter than expected; when it is
/// longer, inflation stops at the first byte past the expected size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActualSize {
    /// The stream ended after this many bytes.
    Exactly(u64),
    /// The stream holds more than this many bytes.
    MoreThan(u64),
}

impl fmt::Display for ActualSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActualSize::Exactly(n) => write!(f, "{n}"),
            ActualSize::MoreThan(n) => write!(f, "more than {n}"),
        }
    }
}

/// What one [`Inflater::inflate`] call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Input bytes consumed from the start of `input`. When `end` is set, the stream's last byte
    /// (its Adler-32) is `input[consumed - 1]`: what follows belongs to the caller.
    pub consumed: usize,
    /// Output bytes written from the start of `output`.
    pub written: usize,
    /// The stream ended, and its Adler-32 matched.
    pub end: bool,
}

/// One zlib decompressor (RFC 1950 header, RFC 1951 deflate data, Adler-32 trailer; no preset
/// dictionary, no gzip), reused from stream to stream.
///
/// The streaming core is [`inflate`](Inflater::inflate): feed input chunks and output buffers in
/// any sizes until it reports the end. The provided [`inflate_to_vec`](Inflater::inflate_to_vec)
/// and [`inflate_to_vec_limited`](Inflater::inflate_to_vec_limited) inflate one whole stream
/// held in memory; providers may replace them with something faster that means the same.
pub trait Inflater: Sized {
    /// Its provider name, as the facility table spells it: `zlib-rs`, `miniz`, `system`,
    /// `zlib-ng`.
    const PROVIDER: &'static str;

    /// The library's version, as the `zlib:` build-options line prints it: the linked library's
    /// own (`1.2.13`, `2.3.3`) for the C providers, the crate's for the Rust ones.
    fn version() -> String;

    /// A decompressor, ready for a stream. It allocates the provider's state once.
    fn new() -> Result<Self, Error>;

    /// Makes it ready for the next stream, keeping its allocations. Cheap when nothing was fed
    /// since the last reset. Needed after a stream ended or failed, before the next one.
    fn reset(&mut self);

    /// Inflates from `input` into `output` as far as both allow and reports what it did.
    ///
    /// A step that consumed and wrote nothing without reaching the end needs more input (or, with
    /// an empty `output`, room): if the caller has no more, the stream is truncated. Output
    /// decoded before an error is handed out first: a call that wrote something succeeds, and the
    /// next one reports the error. Once it reported the end, or an error, call
    /// [`reset`](Inflater::reset) before the next stream.
    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Error>;

    /// Inflates the stream at the start of `input` into `out` (cleared first; its allocation is
    /// reused), which must come to exactly `expected` bytes; returns the input bytes the stream
    /// took. Resets first, so the inflater needs no reset between calls. After an error, `out`
    /// holds what was inflated before it.
    ///
    /// `out` ends with no more than `expected` bytes, and is allocated up front only as far as
    /// the input can possibly inflate to (deflate expands at most 1032:1), so a wrong size claimed
    /// by corrupt metadata costs no more memory than the stream itself can produce. While it
    /// inflates, `out` has [`EXPECTED_SLACK`] bytes of room past `expected`, so that the
    /// providers' fast loops, which stop that far from the end of their output, decode a small
    /// object whole (a stream that holds more than `expected` bytes is still
    /// [`Error::SizeMismatch`]).
    fn inflate_to_vec(
        &mut self,
        input: &[u8],
        expected: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Error> {
        drive(self, input, out, Bound::Expected(expected))
    }

    /// Like [`inflate_to_vec`](Inflater::inflate_to_vec) for a stream of unknown size: `out`
    /// grows as needed, but never past `limit` bytes ([`Error::LimitExceeded`]).
    fn inflate_to_vec_limited(
        &mut self,
        input: &[u8],
        limit: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Error> {
        drive(self, input, out, Bound::Limit(limit))
    }
}

/// The most a deflate stream of `input_len` bytes can inflate to: 1032 bytes per input byte (a
/// 258-byte match coded in two 1-bit codes), plus slack for the header. The `inflate_to_vec*`
/// methods allocate no more than this up front, and grow the output past it should a stream
/// ever need that.
pub fn max_inflated_len(input_len: usize) -> usize {
    input_len.saturating_mul(1032).saturating_add(1024)
}

/// The room past an expected size that [`Inflater::inflate_to_vec`] gives the provider: zlib's
/// and zlib-ng's fast loop needs 258 bytes of output room left, zlib-rs's 260; below that they
/// decode a symbol at a time. Without it the last 260 bytes of every object, and all of a small
/// one, went through the slow loop.
pub const EXPECTED_SLACK: usize = 320;

/// How far [`drive`] may fill its output.
#[derive(Clone, Copy)]
enum Bound {
    /// Exactly this size, or [`Error::SizeMismatch`].
    Expected(usize),
    /// At most this size, or [`Error::LimitExceeded`].
    Limit(usize),
}

/// The first allocation of a stream of unknown size.
const FIRST_GUESS: usize = 16 * 1024;

/// The one-stream loop behind the provided `inflate_to_vec*` methods, over [`Inflater::inflate`].
/// `out` ends with the bytes inflated, also after an error.
fn drive<I: Inflater>(
    inflater: &mut I,
    input: &[u8],
    out: &mut Vec<u8>,
    bound: Bound,
) -> Result<usize, Error> {
    inflater.reset();
    let (cap, first) = match bound {
        Bound::Expected(n) => {
            let room = n.saturating_add(EXPECTED_SLACK);
            (room, room.min(max_inflated_len(input.len())))
        }
        Bound::Limit(n) => (n, n.min(FIRST_GUESS).min(max_inflated_len(input.len()))),
    };
    out.clear();
    grow(out, first);
    let mut written = 0;
    let result = fill(inflater, input, out, cap, &mut written);
    if let Bound::Expected(n) = bound
        && written > n
    {
        // Decoded into the slack: the stream holds more than it should, whatever follows.
        out.truncate(n);
        return Err(Error::SizeMismatch {
            expected: n as u64,
            actual: ActualSize::MoreThan(n as u64),
        });
    }
    out.truncate(written);
    let consumed = result.map_err(|e| match (e, bound) {
        (Filled::Error(e), _) => in_zlib_words(e, input),
        (Filled::Over, Bound::Expected(n)) => Error::SizeMismatch {
            expected: n as u64,
            actual: ActualSize::MoreThan(n as u64),
        },
        (Filled::Over, Bound::Limit(n)) => Error::LimitExceeded { limit: n as u64 },
    })?;
    if let Bound::Expected(n) = bound
        && written != n
    {
        return Err(Error::SizeMismatch {
            expected: n as u64,
            actual: ActualSize::Exactly(written as u64),
        });
    }
    Ok(consumed)
}

/// `e` with zlib's own message for the stream at the start of `input` when it is
/// [`Error::Corrupt`] (a provider's message may be another's, or lost: see [`failure`]).
pub(crate) fn in_zlib_words(e: Error, input: &[u8]) -> Error {
    match e {
        Error::Corrupt { provider, detail } => {
            let zlib = failure::inflate_failure(input, &[usize::MAX]).and_then(|f| f.message);
            Error::Corrupt {
                provider,
                detail: zlib.unwrap_or(detail),
            }
        }
        other => other,
    }
}

/// Why [`fill`] stopped short of the stream's end.
enum Filled {
    Error(Error),
    /// The stream holds more than the bound.
    Over,
}

impl From<Error> for Filled {
    fn from(e: Error) -> Filled {
        Filled::Error(e)
    }
}

/// Inflates the stream at the start of `input` into `out` (zero-filled room), growing it up to
/// `cap` bytes; counts the bytes inflated in `written`; returns the input bytes the stream took.
fn fill<I: Inflater>(
    inflater: &mut I,
    input: &[u8],
    out: &mut Vec<u8>,
    cap: usize,
    written: &mut usize,
) -> Result<usize, Filled> {
    let mut pos = 0;
    loop {
        if *written == out.len() && out.len() < cap {
            grow(out, out.len().saturating_mul(2).max(FIRST_GUESS).min(cap));
        }
        let step = if *written < out.len() {
            inflater.inflate(&input[pos..], &mut out[*written..])?
        } else {
            // The output is full at its bound: only the stream's end (the rest of the last block
            // and the Adler-32) may follow. One byte of room tells whether more data does.
            let mut probe = [0u8; 1];
            let step = inflater.inflate(&input[pos..], &mut probe)?;
            if step.written > 0 {
                return Err(Filled::Over);
            }
            step
        };
        pos += step.consumed;
        *written += step.written;
        if step.end {
            return Ok(pos);
        }
        if step.consumed == 0 && step.written == 0 {
            return Err(Filled::Error(if pos < input.len() {
                // Every provider consumes or writes something when it has both input and room.
                Error::Library {
                    provider: I::PROVIDER,
                    detail: "no progress".to_owned(),
                }
            } else {
                Error::Truncated {
                    inflated: *written as u64,
                }
            }));
        }
    }
}

/// The C libraries (and zlib-rs) write the output they decoded before the error in the same call
/// that reports it; miniz_oxide stops at the first byte that does not fit. So that every provider
/// reports the same thing at the same point (for a stream that is corrupt past the expected size,
/// [`Error::SizeMismatch`] rather than [`Error::Corrupt`] for all of them), a step that wrote output
/// is reported as such and its error kept for the next call.
pub(crate) fn deliver_then_fail(
    step: Step,
    error: Error,
    pending: &mut Option<Error>,
) -> Result<Step, Error> {
    if step.written > 0 {
        *pending = Some(error);
        Ok(Step { end: false, ..step })
    } else {
        Err(error)
    }
}

/// Zero-fills `out` to `len` bytes, allocating no more than that (a plain `resize` may round
/// up).
pub(crate) fn grow(out: &mut Vec<u8>, len: usize) {
    out.reserve_exact(len.saturating_sub(out.len()));
    out.resize(len, 0);
}

/// Calls `visitor` once per compiled provider.
pub trait Visitor {
    /// Visits provider `I`.
    fn visit<I: Inflater>(&mut self);
}

/// Visits every provider this build compiles (for tests and benchmarks), in the facility table's
/// order: `zlib-rs`, then `miniz`, `system`, `zlib-ng` when their features are on.
pub fn for_each_provider(visitor: &mut impl Visitor) {
    visitor.visit::<zlib_rs::ZlibRs>();
    #[cfg(feature = "zlib-miniz")]
    visitor.visit::<miniz::Miniz>();
    #[cfg(feature = "zlib-system")]
    visitor.visit::<system::System>();
    #[cfg(feature = "zlib-ng")]
    visitor.visit::<zlib_ng::ZlibNg>();
}

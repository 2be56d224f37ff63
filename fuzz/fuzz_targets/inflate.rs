//! The zlib inflaters on arbitrary bytes: every pure-Rust provider (`zlib-rs`, `miniz`) must give
//! the same verdict — refused, or accepted with the same input consumed and the same output —
//! whole with a limit, whole with an expected size, and in chunks; never panic; never hold more
//! output than the limit or the expected size allows. Which error refuses a stream may differ
//! (the decoders validate at different points), so it is not compared.
//!
//! Under `cargo fuzz` (`--cfg fuzzing`) miniz_oxide skips its Adler-32 check, to let the fuzzer
//! past it; zlib-rs does not. So an accepted stream whose Adler-32 trailer does not match its
//! output counts as refused here, for every provider; the checks themselves are tested by
//! `crates/zlib/tests/inflate.rs` in normal builds.
//!
//! zlib's own verdict ([`flagsplit_zlib::failure::inflate_failure`], the words git prints for a
//! corrupt stream) agrees with zlib-rs's: a stream zlib-rs refuses as corrupt has a failure there,
//! with the message every provider's `inflate_to_vec*` gives; one it accepts has none.
//!
//! Input: limit (u16 LE), expected size (u16 LE), n (one byte, taken mod 8), n chunk sizes, then
//! the stream.
#![no_main]

use flagsplit_zlib::{Error, Inflater, Visitor, failure, for_each_provider};
use libfuzzer_sys::fuzz_target;

/// What an inflater made of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// Accepted: the stream took `consumed` input bytes.
    Ok { consumed: usize, output: Vec<u8> },
    /// Refused, for whatever reason.
    Refused,
}

/// Adler-32 (RFC 1950).
fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// The outcome of a stream at the start of `stream` that inflated to `out`, or was refused.
fn outcome(r: Result<usize, Error>, stream: &[u8], out: &[u8]) -> Outcome {
    match r {
        Ok(consumed) => checked(consumed, stream, out.to_vec()),
        Err(_) => Outcome::Refused,
    }
}

/// Accepted if the trailer before `consumed` is the Adler-32 of `output`.
fn checked(consumed: usize, stream: &[u8], output: Vec<u8>) -> Outcome {
    let trailer = consumed
        .checked_sub(4)
        .map(|at| &stream[at..consumed])
        .expect("an accepted stream has a trailer");
    if trailer == adler32(&output).to_be_bytes() {
        Outcome::Ok { consumed, output }
    } else {
        Outcome::Refused
    }
}

struct Run<'a> {
    stream: &'a [u8],
    limit: usize,
    expected: usize,
    chunks: &'a [u8],
    /// Per provider: limited, exact, chunked.
    outcomes: Vec<(&'static str, [Outcome; 3])>,
    /// zlib-rs's error from `inflate_to_vec_limited`, if any.
    reference_error: Option<Error>,
}

impl Run<'_> {
    /// Only `inflate`, with input and output in the chunk sizes given (cycled), refused past the
    /// limit.
    fn chunked<I: Inflater>(&self, inf: &mut I) -> Outcome {
        inf.reset();
        let (mut pos, mut out) = (0, Vec::new());
        let mut buf = [0u8; 256];
        let mut sizes = self.chunks.iter().cycle().map(|&b| 1 + usize::from(b));
        loop {
            let n_in = sizes.next().unwrap_or(256).min(self.stream.len() - pos);
            let n_out = sizes.next().unwrap_or(256);
            let step = match inf.inflate(&self.stream[pos..pos + n_in], &mut buf[..n_out]) {
                Ok(step) => step,
                Err(_) => return Outcome::Refused,
            };
            assert!(step.consumed <= n_in && step.written <= n_out);
            out.extend_from_slice(&buf[..step.written]);
            pos += step.consumed;
            if out.len() > self.limit {
                return Outcome::Refused;
            }
            if step.end {
                return checked(pos, self.stream, out);
            }
            if step.consumed == 0 && step.written == 0 {
                assert_eq!(n_in, 0, "{}: no progress with input and room", I::PROVIDER);
                return Outcome::Refused;
            }
        }
    }
}

impl Visitor for Run<'_> {
    fn visit<I: Inflater>(&mut self) {
        let mut inf = I::new().expect("new");
        let mut out = Vec::new();
        let r = inf.inflate_to_vec_limited(self.stream, self.limit, &mut out);
        if let (Err(e), true) = (&r, self.outcomes.is_empty()) {
            self.reference_error = Some(e.clone());
        }
        let limited = outcome(r, self.stream, &out);
        assert!(out.len() <= self.limit);
        let exact = outcome(
            inf.inflate_to_vec(self.stream, self.expected, &mut out),
            self.stream,
            &out,
        );
        assert!(out.len() <= self.expected);
        let chunked = self.chunked(&mut inf);
        // One provider's three ways agree with each other.
        match &limited {
            Outcome::Ok { output, .. } if output.len() == self.expected => {
                assert_eq!(exact, limited)
            }
            Outcome::Ok { output, .. } if output.len() < self.expected => {
                assert_eq!(exact, Outcome::Refused)
            }
            _ => {}
        }
        assert_eq!(chunked, limited, "{}: chunked and whole", I::PROVIDER);
        // A reused inflater gives what a fresh one did.
        let again = outcome(
            inf.inflate_to_vec_limited(self.stream, self.limit, &mut out),
            self.stream,
            &out,
        );
        assert_eq!(again, limited, "{}: reused", I::PROVIDER);
        self.outcomes.push((I::PROVIDER, [limited, exact, chunked]));
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let limit = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let expected = usize::from(u16::from_le_bytes([data[2], data[3]]));
    let n = usize::from(data[4] % 8).min(data.len() - 5);
    let (chunks, stream) = data[5..].split_at(n);
    let mut run = Run {
        stream,
        limit,
        expected,
        chunks,
        outcomes: Vec::new(),
        reference_error: None,
    };
    for_each_provider(&mut run);
    let (first, reference) = &run.outcomes[0];
    for (name, o) in &run.outcomes[1..] {
        assert_eq!(o, reference, "{name} and {first} disagree");
    }
    // zlib's words: what zlib-rs (the first provider) refused as corrupt fails with zlib's
    // message; a stream it accepted does not fail.
    let failure = failure::inflate_failure(stream, &[usize::MAX]);
    match (&run.reference_error, &reference[0]) {
        (Some(Error::Corrupt { detail, .. }), _) => {
            let f = failure.expect("zlib-rs refused the stream as corrupt: zlib fails too");
            if let Some(m) = &f.message {
                assert_eq!(m, detail, "zlib's message is the one reported");
            }
        }
        (None, Outcome::Ok { .. }) => {
            assert_eq!(failure, None, "zlib-rs accepted the stream: zlib does too")
        }
        _ => {}
    }
});

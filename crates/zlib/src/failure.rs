//! What zlib's own `inflate()` reports for a stream that fails: its status and its message
//! (`invalid distance too far back`, `incorrect data check`...), the same whichever provider
//! inflated the stream. git prints them (`error: inflate: data stream error (MSG)`), so a
//! program that speaks git's words needs zlib's, not its provider's.
//!
//! The reference is zlib-rs (always compiled; a port of zlib's `inflate.c`, with the same states,
//! checks and messages) run without its fast loop: in zlib-rs 0.6.8 an error found by the fast
//! loop (`inflate_fast`) has its message replaced by `repeated call with bad state` before the
//! call returns, while zlib's keeps it. Output is taken 256 bytes at a time, under the 260 bytes
//! the fast loop needs, so every error is found by the loop that keeps its message. Splitting the
//! output does not change what zlib finds, nor where: it is built to give the same result
//! whatever the buffers' sizes.

use zlib_rs::{Inflate, InflateError, InflateFlush, Status};

/// zlib's status of a failed `inflate()` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZStatus {
    /// `Z_DATA_ERROR`: not a valid zlib stream.
    DataError,
    /// `Z_NEED_DICT`: the stream asks for a preset dictionary.
    NeedDict,
    /// `Z_STREAM_ERROR`.
    StreamError,
    /// `Z_MEM_ERROR`.
    MemError,
}

/// What zlib's `inflate()` returned and said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The status.
    pub status: ZStatus,
    /// zlib's message (`strm->msg`), when it set one (it sets none for a preset dictionary).
    pub message: Option<String>,
}

impl Failure {
    /// git's `git_inflate` line, without `error: `: `inflate: data stream error (MSG)`,
    /// `inflate: needs dictionary (no message)`.
    pub fn git_line(&self) -> String {
        let what = match self.status {
            ZStatus::DataError => "data stream error",
            ZStatus::NeedDict => "needs dictionary",
            ZStatus::StreamError => "stream consistency error",
            ZStatus::MemError => "out of memory",
        };
        format!(
            "inflate: {what} ({})",
            self.message.as_deref().unwrap_or("no message")
        )
    }
}

/// Output taken at a time: under zlib-rs's `INFLATE_FAST_MIN_LEFT` (260), so its fast loop
/// never runs.
const STEP: usize = 256;

/// What zlib's `inflate()` reports for the zlib stream at the start of `input` inflated in
/// calls with room for `rooms[0]` bytes of output, then `rooms[1]` more (the same stream going
/// on), and so on, as git calls it (one call for an object in a pack with room for its size and
/// one byte more; a loose object's header in 32 bytes, then its content). Each call goes on
/// without room as far as zlib needs none (the end of a block, the next block's header, the
/// Adler-32). `None` when no call fails: the stream ends, or the input or the room runs out
/// first.
pub fn inflate_failure(input: &[u8], rooms: &[usize]) -> Option<Failure> {
    let mut inflater = Inflate::new(true, 15);
    let mut scratch = [0u8; STEP];
    let mut used = 0usize;
    for &room in rooms {
        let mut left = room;
        loop {
            let n = left.min(STEP);
            let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
            let rest = input.get(used..).unwrap_or(&[]);
            let r = inflater.decompress(rest, &mut scratch[..n], InflateFlush::NoFlush);
            let consumed = (inflater.total_in() - in_before) as usize;
            let wrote = (inflater.total_out() - out_before) as usize;
            used += consumed;
            left -= wrote.min(left);
            match r {
                Ok(Status::StreamEnd) => return None,
                Ok(_) => {}
                Err(e) => {
                    let message = inflater.error_message().map(str::to_owned);
                    let status = match e {
                        InflateError::DataError => ZStatus::DataError,
                        InflateError::NeedDict { .. } => ZStatus::NeedDict,
                        InflateError::StreamError => ZStatus::StreamError,
                        InflateError::MemError => ZStatus::MemError,
                    };
                    let message = match status {
                        // zlib sets no message asking for a dictionary.
                        ZStatus::NeedDict => None,
                        _ => message,
                    };
                    return Some(Failure { status, message });
                }
            }
            if n == 0 {
                // The call went as far as it could without room: the next one (if any) goes on.
                break;
            }
            if consumed == 0 && wrote == 0 {
                // No more input.
                return None;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(data: &[u8]) -> Vec<u8> {
        crate::zlib_rs::compress(data, 6).expect("compress")
    }

    /// An Adler-32 that does not match is found after the room is full (git's buffer holds the
    /// size and one byte more), but not an error past it.
    #[test]
    fn found_within_the_room() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut bad = stream(&data);
        let n = bad.len();
        bad[n - 1] ^= 1;
        let f = inflate_failure(&bad, &[data.len() + 1]).expect("a failure");
        assert_eq!(f.status, ZStatus::DataError);
        assert_eq!(f.message.as_deref(), Some("incorrect data check"));
        assert_eq!(
            f.git_line(),
            "inflate: data stream error (incorrect data check)"
        );
        // With room for less than the content, zlib stops before the check.
        assert_eq!(inflate_failure(&bad, &[100]), None);
        // The same in two calls (a loose object's header, then its content).
        assert!(inflate_failure(&bad, &[32, data.len()]).is_some());
        assert_eq!(inflate_failure(&stream(&data), &[data.len() + 1]), None);
        // Cut short: no failure, the input ran out.
        assert_eq!(
            inflate_failure(&stream(&data)[..40], &[data.len() + 1]),
            None
        );
    }

    #[test]
    fn headers() {
        let f = inflate_failure(&[0x78, 0x9d, 1, 2, 3], &[10]).expect("check bits");
        assert_eq!(f.message.as_deref(), Some("incorrect header check"));
        // FDICT set, with a valid check: zlib asks for the dictionary, with no message.
        let f = inflate_failure(&[0x78, 0xbb, 0, 0, 0, 1, 1, 2], &[10]).expect("dictionary");
        assert_eq!(f.status, ZStatus::NeedDict);
        assert_eq!(f.git_line(), "inflate: needs dictionary (no message)");
    }
}

//! `zlib-rs`: the zlib-rs crate (a Rust port of zlib and zlib-ng's inflate, pure Rust, always
//! compiled) through its safe API, `zlib_rs::Inflate`; and [`compress`], its compressor, which
//! every build has for making zlib input.

use zlib_rs::{DeflateConfig, Inflate, InflateError, InflateFlush, ReturnCode, Status};

use crate::{Error, Inflater, Step, deliver_then_fail};

/// The zlib-rs version this crate is built against (the crate has no version constant;
/// `tests/inflate.rs` checks this one against `Cargo.lock`).
pub const CRATE_VERSION: &str = "0.6.8";

/// zlib-rs's inflater, zlib format, 32 KiB window.
pub struct ZlibRs {
    inner: Inflate,
    /// Something was fed since the last reset.
    used: bool,
    /// An error found by a call that also wrote output, for the next call.
    pending: Option<Error>,
}

impl Inflater for ZlibRs {
    const PROVIDER: &'static str = "zlib-rs";

    fn version() -> String {
        CRATE_VERSION.to_owned()
    }

    fn new() -> Result<Self, Error> {
        Ok(ZlibRs {
            // zlib header expected, window bits 15: both in the range `Inflate::new` accepts.
            inner: Inflate::new(true, 15),
            used: false,
            pending: None,
        })
    }

    fn reset(&mut self) {
        if self.used {
            self.inner.reset(true);
            self.used = false;
            self.pending = None;
        }
    }

    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Error> {
        self.used = true;
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let (in_before, out_before) = (self.inner.total_in(), self.inner.total_out());
        let result = self.inner.decompress(input, output, InflateFlush::NoFlush);
        let step = Step {
            // At most input.len() and output.len().
            consumed: (self.inner.total_in() - in_before) as usize,
            written: (self.inner.total_out() - out_before) as usize,
            end: result == Ok(Status::StreamEnd),
        };
        match result {
            Ok(_) => Ok(step),
            Err(e) => deliver_then_fail(step, self.error(e), &mut self.pending),
        }
    }
}

impl ZlibRs {
    fn error(&self, e: InflateError) -> Error {
        let detail = self.inner.error_message().unwrap_or(e.as_str());
        match e {
            InflateError::NeedDict { .. } | InflateError::DataError => Error::Corrupt {
                provider: Self::PROVIDER,
                detail: detail.to_owned(),
            },
            InflateError::StreamError | InflateError::MemError => Error::Library {
                provider: Self::PROVIDER,
                detail: detail.to_owned(),
            },
        }
    }
}

/// `input` compressed as one zlib stream (32 KiB window, default strategy) at `level`, 0 (stored)
/// to 9, by zlib-rs's compressor, as zlib's `compress2` would. zlib-rs is compiled in every
/// build, so this is how a binary makes zlib input (for `flagsplit bench`) whatever inflate
/// provider it selected.
pub fn compress(input: &[u8], level: i32) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; zlib_rs::compress_bound(input.len())];
    let (compressed, rc) = zlib_rs::compress_slice(&mut out, input, DeflateConfig::new(level));
    let len = compressed.len();
    if rc != ReturnCode::Ok {
        return Err(Error::Library {
            provider: ZlibRs::PROVIDER,
            detail: format!("compress2 at level {level}: {rc:?}"),
        });
    }
    out.truncate(len);
    Ok(out)
}

//! `sha1sum`, `md5sum` and `sha256sum`, compatible with GNU coreutils 9.1: the same output lines (text,
//! `*binary`, `--tag`, `-z`, file-name escaping), the same `--check` parsing and reporting, the
//! same messages (with `flagsplit sha1sum:` as the program name), option checks and exit status.
//!
//! - [`line`](mod@line): formatting, escaping and parsing checksum lines (pure).
//! - [`quote`]: file names in messages, quoted as coreutils quotes them (pure).
//! - [`command`]: the commands themselves over given streams, so they run in tests too.
//!
//! Beyond coreutils: with the collision-detecting SHA-1 provider (`dc`, the default), a file
//! that is part of a SHA-1 collision attack gets no line; `flagsplit sha1sum: NAME: SHA-1
//! collision attack detected` goes to stderr and the exit status is 1, the other files are still
//! hashed. `--check` reports such a file like one that cannot be read: the same stderr message,
//! `NAME: FAILED open or read` on stdout, and it counts in `WARNING: N listed file(s) could not be
//! read`. `--no-collision-detection` or `FLAGSPLIT_SHA1DC=0` hash with the `sha1-unsafe` provider
//! instead.
//!
//! Known differences: messages are not translated (coreutils follows `LC_MESSAGES`); the
//! character set used to quote names in messages is read from `LC_ALL`/`LC_CTYPE`/`LANG` rather
//! than from the C library (see [`quote::Charset::from_env`]); when stdout is a closed pipe the
//! command stops quietly with status 141 where coreutils dies of `SIGPIPE` (which a shell
//! reports as 141).

pub mod command;
pub mod file;
pub mod line;
#[rustfmt::skip]
mod printable;
pub mod quote;

use crate::hash::Algorithm;

pub use self::command::{Io, Options, UsageError, main, run};

/// Which checksum command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sum {
    /// `sha1sum`.
    Sha1,
    /// `md5sum`.
    Md5,
    /// `sha256sum`.
    Sha256,
}

impl Sum {
    /// The command name: `sha1sum`, `md5sum`, `sha256sum`.
    pub const fn command(self) -> &'static str {
        match self {
            Sum::Sha1 => "sha1sum",
            Sum::Md5 => "md5sum",
            Sum::Sha256 => "sha256sum",
        }
    }

    /// The tag of BSD-style lines and messages: `SHA1`, `MD5`, `SHA256`.
    pub const fn tag(self) -> &'static str {
        match self {
            Sum::Sha1 => "SHA1",
            Sum::Md5 => "MD5",
            Sum::Sha256 => "SHA256",
        }
    }

    /// Length of the hexadecimal digest.
    pub const fn hex_len(self) -> usize {
        match self {
            Sum::Sha1 => 40,
            Sum::Md5 => 32,
            Sum::Sha256 => 64,
        }
    }

    /// The hash computing it: for SHA-1, the `sha1` facility's provider when
    /// `collision_detection`, else the `sha1-unsafe` one.
    pub const fn algorithm(self, collision_detection: bool) -> Algorithm {
        match self {
            Sum::Sha1 if collision_detection => Algorithm::Sha1,
            Sum::Sha1 => Algorithm::Sha1Unchecked,
            Sum::Md5 => Algorithm::Md5,
            Sum::Sha256 => Algorithm::Sha256,
        }
    }
}

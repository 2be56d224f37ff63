//! `flagsplit sha1sum`, `md5sum` and `sha256sum`, compatible with coreutils: a thin wrapper over
//! `flagsplit::sum`, which has the whole command.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use flagsplit::cli::Matches;
use flagsplit::sum::{self, Io, Sum};

/// Which command.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// sha1sum
    Sha1,
    /// md5sum
    Md5,
    /// sha256sum
    Sha256,
}

/// Runs the command.
pub fn main(kind: Kind, m: &Matches) -> ExitCode {
    let sum = match kind {
        Kind::Sha1 => Sum::Sha1,
        Kind::Md5 => Sum::Md5,
        Kind::Sha256 => Sum::Sha256,
    };
    let stdout = io::stdout();
    let line_buffered = stdout.is_terminal();
    let status = sum::main(
        sum,
        m,
        Io {
            stdin: &mut io::stdin().lock(),
            stdout: &mut stdout.lock(),
            stderr: &mut io::stderr().lock(),
            line_buffered,
            inherited: flagsplit::inherited::inherited(),
        },
    );
    ExitCode::from(status)
}

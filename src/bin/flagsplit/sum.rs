//! `flagsplit sha1sum`, `md5sum` and `sha256sum`, compatible with coreutils: a thin wrapper over
//! `flagsplit::sum`, which has the whole command.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use flagsplit::cli::Matches;
use flagsplit::sum::{self, Io, Sum};

/// Runs the command `sum`.
pub fn main(sum: Sum, m: &Matches) -> ExitCode {
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

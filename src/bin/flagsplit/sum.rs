//! `flagsplit sha1sum` and `flagsplit md5sum`, compatible with coreutils. (Placeholder: hashing
//! only; the coreutils-compatible implementation replaces this.)

use std::process::ExitCode;

use flagsplit::cli::Matches;
use flagsplit::hash::{self, Algorithm};

/// Which command.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// sha1sum
    Sha1,
    /// md5sum
    Md5,
}

/// Runs the command.
pub fn main(kind: Kind, m: &Matches) -> ExitCode {
    let algorithm = match kind {
        Kind::Sha1 if m.flag("no-collision-detection") || !hash::collision_detection_from_env() => {
            Algorithm::Sha1Unchecked
        }
        Kind::Sha1 => Algorithm::Sha1,
        Kind::Md5 => Algorithm::Md5,
    };
    let mut status = 0;
    for name in &m.operands {
        match std::fs::File::open(name)
            .map_err(hash::HashError::from)
            .and_then(|f| hash::hash_reader(algorithm, f))
        {
            Ok(d) => println!("{d}  {}", name.to_string_lossy()),
            Err(e) => {
                eprintln!("flagsplit: {}: {e}", name.to_string_lossy());
                status = 1;
            }
        }
    }
    ExitCode::from(status)
}

//! `flagsplit-example-verify-repo`: verifies the git repository it runs in as
//! `git fsck --full` does, through flagsplit's engine library (`flagsplit_git::fsck`), with
//! providers this application chose itself instead of flagsplit's: RustCrypto's
//! collision-detecting SHA-1 (`sha1-checked`) for object ids, its plain SHA-1 (`sha1`) for the
//! checksums of git's own files, its SHA-256 (`sha2`), and flate2 (miniz_oxide) for zlib.
//!
//! It prints each finding as the engine gives it (its level, git's message id, the object and
//! git's line), then a count per level, and exits with git's status.

use std::process::ExitCode;

use flagsplit_git::fsck::finding::{Counts, Finding, Sink};
use flagsplit_git::fsck::{self, Options};
use flagsplit_git::{Collision, Digest, HashAlgo, Providers, StreamHasher};
use flagsplit_zlib::{Error, Step};

/// This application's providers.
struct Mine;

impl Providers for Mine {
    type Hasher = Hasher;
    type Inflater = Flate;
}

/// A hash computation with RustCrypto's hashers.
enum Hasher {
    Checked(Box<sha1_checked::Sha1>),
    Plain(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl StreamHasher for Hasher {
    fn new(algo: HashAlgo) -> Hasher {
        use sha1::Digest as _;
        match algo {
            // As git: the collision is only detected, never replaced by a "safe" digest.
            HashAlgo::Sha1 => Hasher::Checked(Box::new(
                sha1_checked::Builder::default().safe_hash(false).build(),
            )),
            HashAlgo::Sha1Unchecked => Hasher::Plain(sha1::Sha1::new()),
            HashAlgo::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Checked(h) => sha1_checked::Digest::update(h.as_mut(), data),
            Hasher::Plain(h) => sha1::Digest::update(h, data),
            Hasher::Sha256(h) => sha2::Digest::update(h, data),
        }
    }

    fn finalize(self) -> Result<Digest, Collision> {
        match self {
            Hasher::Checked(h) => match h.try_finalize() {
                sha1_checked::CollisionResult::Ok(d) => Ok(Digest::new(&d)),
                sha1_checked::CollisionResult::Mitigated(d)
                | sha1_checked::CollisionResult::Collision(d) => Err(Collision {
                    digest: Digest::new(&d),
                }),
            },
            Hasher::Plain(h) => Ok(Digest::new(&sha1::Digest::finalize(h))),
            Hasher::Sha256(h) => Ok(Digest::new(&sha2::Digest::finalize(h))),
        }
    }
}

/// flate2's zlib decompressor.
struct Flate(flate2::Decompress);

impl flagsplit_zlib::Inflater for Flate {
    const PROVIDER: &'static str = "flate2";

    fn version() -> String {
        "1".into()
    }

    fn new() -> Result<Flate, Error> {
        Ok(Flate(flate2::Decompress::new(true)))
    }

    fn reset(&mut self) {
        self.0.reset(true);
    }

    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Error> {
        let (before_in, before_out) = (self.0.total_in(), self.0.total_out());
        let status = self
            .0
            .decompress(input, output, flate2::FlushDecompress::None)
            .map_err(|e| Error::Corrupt {
                provider: Self::PROVIDER,
                detail: e.to_string(),
            })?;
        Ok(Step {
            // Both are bounded by the slices' lengths.
            consumed: (self.0.total_in() - before_in) as usize,
            written: (self.0.total_out() - before_out) as usize,
            end: status == flate2::Status::StreamEnd,
        })
    }
}

/// Prints each finding, and a count per level at the end.
#[derive(Default)]
struct Report {
    counts: Counts,
}

impl Sink for Report {
    fn finding(&mut self, f: Finding) {
        self.counts.add(&f);
        println!(
            "{:7} {:20} {:40} {}",
            f.level.name(),
            f.msg_id.as_deref().unwrap_or(f.what.name()),
            f.object.as_deref().unwrap_or("-"),
            String::from_utf8_lossy(&f.line)
        );
    }

    fn finish(&mut self, status: u8) {
        let Counts {
            fatal,
            errors,
            warnings,
            info,
        } = self.counts;
        println!(
            "{fatal} fatal, {errors} errors, {warnings} warnings, {info} other; exit status {status}"
        );
    }

    fn flush(&mut self) {}
}

fn main() -> ExitCode {
    // git works from the top of the worktree and names paths from there; the engine leaves the
    // working directory to the program, which changes to it as git does.
    let repo = fsck::find_repo().and_then(|found| found.enter().map_err(fsck::Fatal::msg));
    let status = fsck::run::<Mine>(&Options::default(), repo, Box::new(Report::default()));
    ExitCode::from(status)
}

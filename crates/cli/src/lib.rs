//! flagsplit's command lines and what its executables say about themselves, for every one of
//! them: `flagsplit-imap-send` takes these from here without linking the `flagsplit` library
//! (which re-exports each module under the same name), and crates/docgen turns the tables into
//! man pages and completions.
//!
//! - [`cli`]: one static table per program, the parsers (GNU `getopt_long`, git's
//!   parse-options), `--help` and the error messages.
//! - [`build_options`]: `version --build-options` (text and JSON), from the build-options table
//!   the caller's build script generated.
//! - [`cpu`]: the CPU facts those reports print.
//! - [`json`]: the JSON literals of the reports.

pub mod build_options;
pub mod cli;
pub mod cpu;
pub mod json;

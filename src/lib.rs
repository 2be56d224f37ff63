//! flagsplit: SHA-1, MD5, SHA-256 and TLS providers chosen per facility at build time, with per-binary link
//! dependencies.
//!
//! - [`hash`]: the hashing facilities over the providers `build.rs` selected (the `flagsplit-hash`
//!   crate compiles them all; this module names only the selected ones).
//! - [`bench`](mod@bench): the `bench` command's measurements and reports.
//! - [`spec`]: flagsplit's facility table (facilities, providers, features, variables), which
//!   `build.rs` resolves (the `flagsplit-spec` crate).
//! - [`build_options`]: what the build decided, as `version --build-options` prints it.
//! - [`exec_path`]: how `flagsplit imap-send` finds and runs `flagsplit-imap-send`.
//! - [`object`]: git object ids (`hash-object`), streaming; git's fsck checks of single objects
//!   and the links its walk follows.
//! - [`gitconfig`]: git's configuration syntax and a repository's configuration in git's order
//!   (with [`progress`] and [`os_error`], from the `flagsplit-git` crate).
//! - [`cli`]: the command-line definitions shared by the binaries, their help, man pages and
//!   completions (with [`cpu`] and [`json`], the `flagsplit-cli` crate, which
//!   `flagsplit-imap-send` uses without linking this library).
//! - [`sum`]: `sha1sum`, `md5sum` and `sha256sum`, compatible with GNU coreutils (output,
//!   `--check`, messages).
//! - [`verify`]: the checks `git fsck` runs on reverse indexes, bitmaps, the commit-graph and
//!   the multi-pack-index.
//! - [`repo`]: a repository's refs, reflogs, worktrees and index files, as `git fsck` reads them
//!   (from the `flagsplit-git` crate; callers pass this build's providers, [`hash::Selected`]).
//! - [`inherited`]: the standard descriptors and `SIGPIPE` disposition the process was started
//!   with, as seen before Rust's runtime changes them.
//!
//! The build configuration itself (features, `FLAGSPLIT_*` variables, the config file) is resolved
//! by this package's `build.rs` with the `flagsplit-config` crate; this library never names a TLS
//! provider (only `flagsplit-imap-send`'s own source does). See ARCHITECTURE.md.

pub mod bench;
pub mod build_options;
pub mod exec_path;
pub mod hash;
pub mod inherited;
pub mod object;
pub mod sum;
pub mod zlib;

pub use flagsplit_cli::{cli, cpu, json};
pub use flagsplit_config as config;
pub use flagsplit_git::{fsck, gitconfig, os_error, progress, repo, verify};
pub use flagsplit_spec as spec;

//! The zlib facility over the provider this build selected: [`Inflater`], one zlib decompressor
//! reused from stream to stream.
//!
//! The selection is `build.rs`'s (`flagsplit_zlib = "<provider>"`). This module is the only place
//! that names a zlib provider for the `flagsplit` binary, so only the selected one is linked: the
//! system libz appears in NEEDED only with `system` selected. Everything of `flagsplit-zlib` (every
//! compiled provider, the trait) is re-exported for tests and benchmarks.

pub use flagsplit_zlib::*;

#[cfg(flagsplit_zlib = "zlib-rs")]
type Selected = zlib_rs::ZlibRs;
#[cfg(flagsplit_zlib = "miniz")]
type Selected = miniz::Miniz;
#[cfg(flagsplit_zlib = "system")]
type Selected = system::System;
#[cfg(flagsplit_zlib = "zlib-ng")]
type Selected = zlib_ng::ZlibNg;

/// The zlib decompressor of the `zlib` facility's selected provider.
pub type Inflater = Selected;

/// git's `version --build-options` line for the linked library: (`zlib`, `1.2.13`), or
/// (`zlib-ng`, `2.2.4`) for zlib-ng, as git 2.49 prints it; the pure-Rust providers name their
/// crate.
pub fn version_line() -> (&'static str, String) {
    let key = match <Inflater as flagsplit_zlib::Inflater>::PROVIDER {
        "zlib-ng" => "zlib-ng",
        "system" => "zlib",
        other => other,
    };
    (key, <Inflater as flagsplit_zlib::Inflater>::version())
}

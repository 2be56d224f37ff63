#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`model`]: the table types ([`Spec`], [`Facility`], [`Provider`], [`Role`]) and the vocabulary
//!   of a resolution ([`FeatureSet`], [`Origin`], [`Choice`], [`Selection`]).
//! - [`resolve()`] (feature `resolve`): features + variables + config file → one provider per
//!   facility with its origin, or every error with its fix ([`error`]).
//! - `script` (feature `build-script`): the build script's I/O: environment, config file,
//!   directives, probes, the build-options table.
//! - [`probe`]: the C libraries providers link ([`Library`], [`Probe`]); OpenSSL as `openssl-sys`
//!   found it (the version check, the static check) and any other library as its `-sys` crate
//!   published it; the compile-and-link probes and their messages (their I/O, `probe::run`,
//!   with feature `build-script`).
//! - `env` (feature `build-script`): the injectable build environment.
//! - [`knobs`]: the knob table, generated from a [`Spec`].
//! - [`codegen`] and [`BuildInfo`]: the build-options data a build script writes and a binary
//!   prints; [`remap`]: rustc's `--remap-path-prefix` applied to the paths in it.
//!
//! The pure parts do no I/O, so every decision is unit-tested with plain `cargo test`.

#![deny(missing_docs)]

pub mod codegen;
#[cfg(feature = "build-script")]
pub mod env;
pub mod error;
#[cfg(feature = "resolve")]
pub mod file;
pub mod info;
pub mod knobs;
pub mod model;
pub mod probe;
pub mod remap;
#[cfg(feature = "resolve")]
pub mod resolve;
#[cfg(feature = "build-script")]
pub mod script;
#[cfg(test)]
mod test_tables;

#[cfg(feature = "build-script")]
pub use env::Env;
pub use error::{ConfigError, Errors, FilePos, Requester};
pub use info::{BuildInfo, ChoiceInfo, LibraryBuildInfo, OpensslBuildInfo};
pub use model::{
    Choice, Facility, FeatureSet, Origin, Provider, Role, Selection, Spec, Variable, When,
};
pub use probe::{Asker, Finder, Library, LibraryFound, Need, OpensslFound, Probe};
#[cfg(feature = "resolve")]
pub use resolve::{ConfigFileInput, Inputs, check_every_request, resolve};

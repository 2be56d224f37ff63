#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! - [`guide`]: the guide for a library author (ten minutes): declaring a facility, the
//!   application's `[env]`, probing a C library, migrating from a feature priority or a
//!   `RUSTFLAGS` cfg, the limits.
//! - [`model`]: the table types ([`Spec`], [`Facility`], [`Provider`], [`Role`], [`Variable`]) and
//!   the vocabulary of a resolution ([`FeatureSet`], [`Origin`], [`Choice`], [`Selection`]).
//! - [`resolve()`] (feature `resolve`): features + variables + config file → one provider per
//!   facility with its origin, or every error with its fix ([`error`]).
//! - `script` (feature `build-script`): the build script's I/O: environment, config file,
//!   directives, probes, the build-options table.
//! - [`probe`]: the C libraries providers link ([`probe::Library`], [`probe::Probe`]), how each
//!   is found ([`probe::Finder`]: a `-sys` crate's metadata, pkg-config, `openssl-sys`, or your
//!   own), which versions are accepted ([`probe::VersionCheck`]).
//! - `env` (feature `build-script`): the injectable build environment.
//! - [`knobs`]: the knob table, generated from a [`Spec`].
//! - [`BuildInfo`]: the build-options data a build script writes and a binary prints.
//!
//! The pure parts do no I/O, so every decision is unit-tested with plain `cargo test`.
//!
//! Features: `resolve` and `config-file` (default): the resolver and the TOML reader of config
//! files; `build-script`: the I/O half (the `cc` and `pkg-config` crates). A binary that only
//! prints its build options depends on this crate with `default-features = false`.

#![deny(missing_docs)]
// Older toolchains (scripts/msrv.sh builds with Rust 1.63) do not know every lint newer clippy
// versions apply; the code is written for the oldest.
#![allow(unknown_lints)]

#[cfg(feature = "build-script")]
mod codegen;
#[cfg(feature = "build-script")]
pub mod env;
pub mod error;
#[cfg(feature = "config-file")]
mod file;
pub mod guide;
pub mod info;
pub mod knobs;
pub mod model;
pub mod probe;
#[cfg(feature = "build-script")]
mod remap;
#[cfg(feature = "resolve")]
pub mod resolve;
#[cfg(feature = "build-script")]
pub mod script;
#[cfg(test)]
mod test_tables;

#[cfg(feature = "build-script")]
pub use env::Env;
pub use error::{ConfigError, Errors, FilePos, Requester};
pub use info::{BuildInfo, ChoiceInfo, Described, LibraryBuildInfo};
pub use model::{
    Choice, Facility, FeatureSet, Origin, Provider, Role, Selection, Spec, Variable, When,
};
#[cfg(feature = "resolve")]
pub use resolve::{
    ConfigFileInput, Inputs, check_environment, check_every_request, resolve, unknown_variables,
};

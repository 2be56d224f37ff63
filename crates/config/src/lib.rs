//! Build configuration by facility: a crate declares, in one [`Spec`] table, the things it needs
//! ("facilities": SHA-1, TLS, ...) and the implementations of each ("providers", each compiled by
//! a Cargo feature); its final package's build script resolves one provider per facility from the
//! enabled features, `<PREFIX>_<FACILITY>_PROVIDER` variables and a TOML config file, emits one
//! `cfg` per facility, and fails with a message naming who asked and the fix when a request cannot
//! be met. flagsplit's own table is `flagsplit::spec::SPEC`, in the `flagsplit` package.
//!
//! - [`model`]: the table types ([`Spec`], [`Facility`], [`Provider`]) and the vocabulary of a
//!   resolution ([`FeatureSet`], [`Origin`], [`Choice`], [`Selection`]).
//! - [`resolve()`] (feature `resolve`): features + variables + config file → one provider per
//!   facility with its origin, or every error with its fix ([`error`]).
//! - [`script`] (feature `build-script`): the build script's I/O: environment, config file,
//!   directives, the build-options table.
//! - [`probe`]: OpenSSL as `openssl-sys` found it: the version check, the compile-and-link
//!   probes, the static check and their messages (their I/O, [`probe::setup`], with feature
//!   `build-script`).
//! - [`env`] (feature `build-script`): the injectable build environment.
//! - [`knobs`]: the knob table, generated from a [`Spec`].
//! - [`codegen`] and [`BuildInfo`]: the build-options data a build script writes and a binary
//!   prints; [`remap`]: rustc's `--remap-path-prefix` applied to the paths in it.
//!
//! The pure parts do no I/O, so every decision is unit-tested with plain `cargo test`.

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
pub use info::{BuildInfo, ChoiceInfo, OpensslBuildInfo};
pub use model::{
    Choice, Facility, FeatureSet, Origin, Provider, Role, Selection, Spec, Variable, When,
};
pub use probe::{Asker, Capability, Need, OpensslFound};
#[cfg(feature = "resolve")]
pub use resolve::{ConfigFileInput, Inputs, resolve};

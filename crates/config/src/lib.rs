//! flagsplit's build configuration, shared by `build.rs` (which resolves it) and the library (which
//! reports it).
//!
//! - [`model`]: facilities, providers, features, origins, selections: the vocabulary.
//! - [`knobs`]: every variable flagsplit reads.
//! - [`resolve()`] (feature `resolve`): features + `FLAGSPLIT_*` variables + the `FLAGSPLIT_CONFIG`
//!   file → one provider per facility with its origin, or every error with its fix.
//! - [`probe`]: OpenSSL as `openssl-sys` found it: the version check, the compile-and-link
//!   probes, the static check and their messages (their I/O, [`probe::setup`], with feature
//!   `build-script`).
//! - [`codegen`]: the build-options literal `build.rs` writes; [`BuildInfo`] is its type.
//! - [`remap`]: rustc's `--remap-path-prefix` applied to the paths in that literal.
//!
//! Outside feature `build-script` (`env`, `script`, `probe::run`) nothing does I/O: the build script
//! gathers the inputs and emits the directives, so all of the decisions are unit-tested with plain
//! `cargo test`.

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

#[cfg(feature = "build-script")]
pub use env::Env;
pub use error::{ConfigError, Errors, FilePos, Requester};
pub use info::{BuildInfo, ChoiceInfo, OpensslBuildInfo};
pub use model::{
    Binary, Choice, Facility, Feature, FeatureSet, Links, Origin, Provider, Selection,
};
pub use probe::{Asker, Capability, Need, OpensslFound};
#[cfg(feature = "resolve")]
pub use resolve::{ConfigFileInput, Inputs, resolve};

#![doc = include_str!("../README.md")]
//!
//! ## Modules, in layers
//!
//! Each module names only modules of its own layer or of a lower one, and no two modules name
//! each other, even through others (`scripts/module-graph.py` checks both in the test command):
//!
//! 1. **The table**: `model` (the table types, public at the crate's root: [`Spec`],
//!    [`Facility`], [`Provider`], [`Role`], [`Variable`], and the vocabulary of a resolution:
//!    [`FeatureSet`], [`Origin`], [`Choice`], [`Selection`]), [`clib`] (the C libraries a table
//!    declares and the finders' interface: [`clib::Library`], [`clib::Probe`],
//!    [`clib::VersionCheck`], [`clib::Finder`]), [`graph`] (the graph-wide settings' names and
//!    vocabulary: [`graph::KINDS`], [`graph::SHARED_PROVIDERS`]), `cfgexpr` (`cfg(...)`
//!    expressions evaluated for the target), [`knobs`] (the knob table generated from a [`Spec`]),
//!    `error` ([`ConfigError`], [`Errors`]) and `toml` (feature `config-file`: the TOML reader,
//!    with each key's and value's span).
//! 2. **Resolution** (feature `resolve`): `resolve` (`resolve()`: features + the crate's
//!    variables and config file + the graph-wide variables and file, each in its target-scoped
//!    form first → one provider per facility with its origin, or every error with its fix) and
//!    the config files' reader (`file`, feature `config-file`).
//! 3. **Finding and linking**: [`probe`] (the finders that come with the crate: `-sys` crates'
//!    metadata, pkg-config, the `<LIB>_*` variables, `openssl-sys`; the decisions; and, with
//!    feature `build-script`, the probes compiled and linked), `env` (`Env`, the injectable
//!    build environment), `directive` (`cargo:` error and warning lines), `remap` (paths under
//!    `--remap-path-prefix`), `manifest` (a table declared in `Cargo.toml`).
//! 4. **Glue**: `script` (feature `build-script`: one build script's job, from the environment to
//!    the directives and the build-options file) and `codegen` (that file's literal: a
//!    `flagsplit_info::BuildInfo`, the build-options data a binary prints, from the crate
//!    flagsplit-info, which is all a library needs at run time).
//!
//! Each item has one public path: the table types, the errors, the resolver and `Env` at the
//! root; the rest in its public module.
//!
//! [`guide`] is the guide for a library author (ten minutes): declaring a facility, the
//! application's `[env]`, probing and linking a C library, migrating from a feature priority or a
//! `RUSTFLAGS` cfg, one choice for the whole graph (kinds, graph-wide settings, targets), the
//! limits.
//!
//! The pure parts do no I/O, so every decision is unit-tested with plain `cargo test`.
//!
//! Features: `resolve` and `config-file` (default): the resolver and the TOML reader of config
//! files; `build-script`: the I/O half (the target's C compiler, chosen as the `cc` crate would,
//! and the `pkg-config` crate). A library needs none
//! of them at run time: it depends on this crate as a build-dependency only, and on flagsplit-info
//! for the build options its build script generates.

#![deny(missing_docs)]
// Older toolchains (scripts/msrv.sh builds with Rust 1.63) do not know every lint newer clippy
// versions apply; the code is written for the oldest.
#![allow(unknown_lints)]

#[cfg(feature = "resolve")]
mod cfgexpr;
pub mod clib;
#[cfg(feature = "build-script")]
mod codegen;
#[cfg(feature = "build-script")]
mod directive;
#[cfg(feature = "build-script")]
mod env;
mod error;
#[cfg(feature = "config-file")]
mod file;
pub mod graph;
pub mod guide;
pub mod knobs;
#[cfg(all(feature = "config-file", feature = "build-script"))]
mod manifest;
mod model;
pub mod probe;
#[cfg(feature = "build-script")]
mod remap;
#[cfg(feature = "resolve")]
mod resolve;
#[cfg(feature = "build-script")]
pub mod script;
#[cfg(test)]
mod test_tables;
#[cfg(feature = "config-file")]
mod toml;
#[cfg(all(fuzzing, feature = "config-file"))]
#[doc(hidden)]
pub use toml::canonical as fuzz_toml_canonical;

#[cfg(feature = "build-script")]
pub use env::Env;
pub use error::{ConfigError, Errors, Requester};
#[cfg(feature = "resolve")]
pub use model::GraphEntry;
pub use model::{
    Choice, Facility, FeatureSet, FilePos, LineIndex, Origin, PolicyChoice, Provider, Role,
    Selection, Spec, Variable, When, closest, nearest_variable,
};
#[cfg(feature = "config-file")]
pub use resolve::read_graph_file;
#[cfg(feature = "resolve")]
pub use resolve::{
    ConfigFileInput, Inputs, TargetCfg, check_environment, check_every_request, resolve, suggest,
    unknown_variables,
};

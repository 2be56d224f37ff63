//! The parts of `cargo flagsplit` (the binary, `main.rs`, joins them), a library so that their
//! parsers are fuzzed (`fuzz/fuzz_targets/cargo_flagsplit_*.rs`) and unit-tested without Cargo.
//!
//! Layers, each module naming only modules of its own layer or lower ones:
//! 1. formats: `source` (files and positions), `diag` (diagnostics), `model` (the report and
//!    `flagsplit-config.json`);
//! 2. readers: `args`, `cargo` (Cargo's messages), `metadata` (the package graph), `elf`,
//!    `cargo_config` (Cargo's `[env]`), `policy::parse`;
//! 3. analysis: `libraries`, `environment`, `collect`, `binaries` (installed executables'
//!    records), `plan` (the runs of `each`), `policy::eval`, `policy::render`;
//! 4. output: `render` (the text report), `inspect` (the records of executables), `each` (runs
//!    a Cargo command once per planned selection, and proves each), and the binary's `main.rs`.

pub mod args;
pub mod binaries;
pub mod cargo;
pub mod cargo_config;
pub mod collect;
pub mod diag;
pub mod each;
pub mod elf;
pub mod environment;
pub mod inspect;
pub mod libraries;
pub mod metadata;
pub mod model;
pub mod plan;
pub mod policy;
pub mod render;
pub mod source;

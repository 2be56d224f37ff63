//! The root package's integration tests, in one binary: each module tests one part of flagsplit
//! through its binaries or its library, and they share [`support`]. Run one module with
//! `cargo test --test integration MODULE::` (for example `hash_object::`).

mod support;

mod bench;
mod build_options;
mod collisions;
mod config_corpus;
mod coreutils;
mod docs;
mod fsck;
mod fsck_checks;
mod fsck_engine;
mod fsck_json;
mod hash_object;
mod imap_exec_path;
mod imap_send;
mod network_store;
mod providers;
mod repo_refs;
mod report;
mod spec;
mod verify_files;

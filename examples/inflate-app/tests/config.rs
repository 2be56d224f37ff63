//! The variables this application's build sets for its libraries (the shell and
//! `.cargo/config.toml` `[env]`, which `cargo test` sees as the build scripts of `cargo build` do),
//! checked against the names each library's build reads (its `BUILD_INFO`): a misspelt
//! `INFLATE_DEMO_*`, `CHECKSUM_DEMO_*` or `ZSTD_DEMO_*` name fails here, even when an incremental
//! build did not rerun the library's build script (Cargo reruns it only for the variables it
//! named).

#[test]
fn no_misspelt_library_variable() {
    if let Err(errors) = flagsplit_config::check_environment(&[
        &inflate_demo::BUILD_INFO,
        &checksum_demo::BUILD_INFO,
        &zstd_demo::BUILD_INFO,
    ]) {
        panic!("{errors}");
    }
}

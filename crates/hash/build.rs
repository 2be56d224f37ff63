//! The build script that decides: it gathers the inputs (features, `FLAGSPLIT_*` variables, the
//! `FLAGSPLIT_CONFIG` file), calls the pure resolver in `flagsplit-config`, probes OpenSSL when an
//! OpenSSL provider is selected, emits the `cfg`s, writes the build-options table, and publishes
//! the selection to the packages above (`DEP_FLAGSPLIT_*`). See DESIGN.md §2.

fn main() {
    flagsplit_config::script::run();
}

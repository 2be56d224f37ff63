//! Emits the same `cfg`s as `flagsplit-hash`, which resolved the build configuration (this
//! package reads its decision from `DEP_FLAGSPLIT_*` rather than deciding again).

fn main() {
    flagsplit_config::script::follow();
}

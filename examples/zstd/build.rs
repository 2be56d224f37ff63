//! zstd-demo's build script: resolve the `compress` facility from the enabled features and the
//! `ZSTD_DEMO_*` variables, emit `cfg(zstd_demo_compress = "...")`, probe libzstd when the `zstd`
//! provider is selected (its version from zstd.h, then compat/probe-zstd.c compiled and linked),
//! and write the build-options table.

#[path = "src/spec.rs"]
mod spec;

use flagsplit_config::script::{self, Build};

fn main() {
    let build = Build::new(&spec::SPEC);
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    match build.probe(&resolved, &build.manifest_dir.join("compat")) {
        Ok(probed) => {
            build.write_build_info(&resolved, &probed);
        }
        Err(message) => script::error(&message),
    }
}

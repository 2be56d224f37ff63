//! Resolve `inflate` (the crate's ZLIB_C_* variables, then the graph-wide RUST_BACKEND_* settings,
//! then the default), emit `cfg(zlib_c_inflate = "...")`, and when `system` is selected probe the
//! zlib libz-sys found or built (compat/probe-zlib.c); then write the build-options table.

#[path = "src/spec.rs"]
mod spec;

use flagsplit_config::script::{self, Build};

fn main() {
    let build = Build::new(&spec::SPEC);
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    let probed = match build.probe(&resolved, &build.manifest_dir.join("compat")) {
        Ok(probed) => probed,
        Err(message) => {
            script::error(&message);
            return;
        }
    };
    build.write_build_info(&resolved, &probed);
}

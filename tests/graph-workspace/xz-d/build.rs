//! Resolve `decompress` (the crate's XZ_D_* variables, then the graph-wide RUST_BACKEND_XZ and
//! RUST_BACKEND_CONFIG's `xz`, then the default), emit `cfg(xz_d_decompress = "...")`, and when
//! `liblzma` is selected find, probe (compat/probe-lzma.c) and link liblzma; then write the
//! build-options table.

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

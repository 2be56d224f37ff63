//! zstd-demo's build script: resolve the `compress` facility from the enabled features and the
//! `ZSTD_DEMO_*` variables, emit `cfg(zstd_demo_compress = "...")`, and, when the `zstd` provider
//! is selected, find libzstd (pkg-config, or the `ZSTD_*` variables), check it (its version from
//! zstd.h, then compat/probe-zstd.c compiled and linked) and link it: flagsplit-config emits the
//! `rustc-link-lib` and `rustc-link-search` directives, so the library's `extern` block needs no
//! -sys crate and no `#[link]`. Then compat/zstd-shim.c is compiled with the `cc` crate against
//! the include directories the probe used, and the build-options table is written.

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
    // Only when libzstd was probed, which is when the `zstd` provider is selected (and this is no
    // documentation build): the shim includes zstd.h.
    if probed.library(spec::ZSTD.name).is_some() {
        let shim = build.manifest_dir.join("compat/zstd-shim.c");
        println!("cargo:rerun-if-changed={}", shim.display());
        cc::Build::new()
            .file(&shim)
            .includes(probed.include_dirs())
            .compile("zstd_demo_shim");
    }
    build.write_build_info(&resolved, &probed);
}

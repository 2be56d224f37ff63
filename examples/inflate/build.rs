//! inflate-demo's whole build-script side: resolve the `inflate` facility from the enabled
//! features, the `INFLATE_DEMO_*` variables and the config file (`INFLATE_DEMO_CONFIG`, else
//! `config.toml` here), emit `cfg(inflate_demo_inflate = "...")`, and write the build-options
//! table that `inflate-demo --build-options` prints.

#[path = "src/spec.rs"]
mod spec;

use flagsplit_config::script::{self, Build};

fn main() {
    let build = Build::new(&spec::SPEC);
    // On a configuration error this prints it (who asked, the fix) as cargo::error lines.
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    if !build.write_build_info(&resolved, None) {
        return;
    }

    // libz-sys links the system zlib when pkg-config or the C compiler finds it; otherwise (or
    // with LIBZ_SYS_STATIC=1 or its `static` feature) it compiles its bundled copy, links that
    // statically, and says so only by setting its `root` metadata (DEP_Z_ROOT, given to direct
    // dependents). Tell the binary, and warn when nobody asked for it.
    if resolved.selection.provider("inflate") == "zlib" {
        let bundled = build.env.cargo_var("DEP_Z_ROOT").is_some();
        let asked = build.env.var_string("LIBZ_SYS_STATIC").as_deref() == Some("1");
        if bundled && !asked {
            script::warning(
                "libz-sys compiled its bundled zlib: inflate-demo links it statically, not the system libz.so.1\n  fix: install zlib's development files (apt-get install zlib1g-dev pkg-config) and rebuild",
            );
        }
        let linkage = if bundled {
            "bundled by libz-sys, static"
        } else {
            "system, dynamic"
        };
        println!("cargo::rustc-env=ZLIB_LINKAGE={linkage}");
    }
}

//! inflate-demo's whole build-script side: resolve the `inflate` facility from the enabled
//! features and the `INFLATE_DEMO_*` variables (set by the application, in the shell or in its
//! `.cargo/config.toml` `[env]`; `INFLATE_DEMO_CONFIG` may name a file), emit
//! `cfg(inflate_demo_inflate = "...")`, and write the build-options table that
//! `inflate_demo::build_options()` prints. A library: a feature compiles its provider and the
//! default stays `miniz`; a compiled provider nobody selects gets a warning (an error when the
//! library comes from a registry or git).

#[path = "src/spec.rs"]
mod spec;

use flagsplit_config::script::{self, Build};

fn main() {
    let build = Build::new(&spec::SPEC);
    // On a configuration error this prints it (who asked, the fix, where the variables come
    // from) as cargo::error lines.
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    if !build.write_build_info(&resolved, &Default::default()) {
        return;
    }

    // libz-sys links the system zlib when pkg-config or the C compiler finds it; otherwise (or
    // with LIBZ_SYS_STATIC=1 or its `static` feature) it compiles its bundled copy, links that
    // statically, and says so only by setting its `root` metadata (DEP_Z_ROOT, given to direct
    // dependents). Tell the library, and warn when nobody asked for it.
    if resolved.selection.provider("inflate") == "zlib" {
        let bundled = build.env.cargo_var("DEP_Z_ROOT").is_some();
        let asked = build.env.var_string("LIBZ_SYS_STATIC").as_deref() == Some("1");
        if bundled && !asked {
            script::warning(
                "libz-sys compiled its bundled zlib: executables using inflate-demo link it statically, not the system libz.so.1\n  fix: install zlib's development files (apt-get install zlib1g-dev pkg-config) and rebuild",
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

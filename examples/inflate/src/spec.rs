//! The facility table of inflate-demo: one facility, `inflate`, with two providers. build.rs
//! resolves it (`#[path]`-included there) and the library's build options read it.

use flagsplit_config::{Facility, Provider, Spec, Variable, When};

/// inflate-demo's facilities: variables `INFLATE_DEMO_*`, cfgs `inflate_demo_*`.
///
/// A library: feature `zlib` compiles the zlib provider and never selects it; the default is
/// `miniz` whatever features the crates that depend on inflate-demo turn on, and the application
/// selects with `INFLATE_DEMO_INFLATE_PROVIDER` (in its `.cargo/config.toml` `[env]`). No local
/// config file: a library's package root is Cargo's unpacked copy when it comes from a registry.
pub static SPEC: Spec = Spec::library("inflate-demo", "INFLATE_DEMO", "inflate_demo")
    .facilities(&[Facility::new(
        "inflate",
        "INFLATE",
        "zlib (DEFLATE) decompression",
        &[
            Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (crate miniz_oxide)")
                .answers_to("pure-rust"),
            Provider::new("zlib", "ZLIB", "the system zlib (crate libz-sys)")
                .feature("zlib")
                .links(&["libz"])
                .answers_to("system"),
        ],
    )
    // RUST_BACKEND_ZLIB=system (or pure-rust) selects for it, with every other zlib facility.
    .kind("zlib")])
    .foreign_variables(&[Variable::new(
        "LIBZ_SYS_STATIC",
        When::Build,
        "compile libz-sys's bundled zlib and link it statically (libz-sys): no libz in NEEDED",
    )
    .values("1 (0: dynamic)")
    .default_value(
        "dynamic when pkg-config or the C compiler finds the system zlib, else static",
    )]);

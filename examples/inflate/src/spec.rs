//! The facility table of inflate-demo: one facility, `inflate`, with two providers. build.rs
//! resolves it (`#[path]`-included there) and `--build-options` reads it.

use flagsplit_config::{Facility, Provider, Role, Spec, Variable, When};

/// The one executable.
pub const INFLATE_DEMO: &str = "inflate-demo";

/// inflate-demo's facilities: variables `INFLATE_DEMO_*`, cfgs `inflate_demo_*`.
pub static SPEC: Spec = Spec {
    name: "inflate-demo",
    prefix: "INFLATE_DEMO",
    cfg_prefix: "inflate_demo",
    binaries: &[INFLATE_DEMO],
    default_features: &[],
    facilities: &[Facility {
        name: "inflate",
        label: "INFLATE",
        purpose: "zlib (DEFLATE) decompression of stdin",
        providers: &[
            Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (crate miniz_oxide)"),
            Provider::new("zlib", "ZLIB", "the system zlib (crate libz-sys)")
                .feature("zlib")
                .links(&["libz"]),
        ],
        default_order: &["zlib", "miniz"],
        used_by: &[INFLATE_DEMO],
    }],
    variables: &[],
    source_features: &[],
    foreign_variables: &[Variable {
        name: "LIBZ_SYS_STATIC",
        when: When::Build,
        values: "1 (0: dynamic)",
        default: "dynamic when pkg-config or the C compiler finds the system zlib, else static",
        help: "compile libz-sys's bundled zlib and link it statically (libz-sys): no libz in NEEDED",
    }],
    local_config: Some("config.toml"),
    example_config: Some("config.example.toml"),
    role: Role::Application,
};

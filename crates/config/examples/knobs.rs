//! Prints the knob table of a small facility table (`cargo run -p flagsplit-config --example
//! knobs`): the Markdown a crate puts in its README, generated from the same table its build script
//! resolves. (flagsplit's own is `flagsplit version --all-knobs`.)

use flagsplit_config::{Facility, Provider, Role, Spec, Variable, When};

static SPEC: Spec = Spec {
    name: "inflate-demo",
    prefix: "DEMO",
    cfg_prefix: "demo",
    binaries: &["demo"],
    default_features: &[],
    facilities: &[Facility {
        name: "inflate",
        label: "INFLATE",
        purpose: "DEFLATE decompression",
        providers: &[
            Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (miniz_oxide)"),
            Provider::new("zlib", "ZLIB", "the system zlib (libz-sys)")
                .feature("zlib")
                .links(&["libz"]),
        ],
        default_order: &["zlib", "miniz"],
        used_by: &["demo"],
    }],
    variables: &[Variable {
        name: "DEMO_LEVEL",
        when: When::Run,
        values: "0 to 9",
        default: "6",
        help: "compression level of `demo --compress`",
    }],
    source_features: &[],
    foreign_variables: &[],
    local_config: Some("config.toml"),
    example_config: Some("config.example.toml"),
    role: Role::Application,
};

fn main() {
    print!("{}", flagsplit_config::knobs::markdown_table(&SPEC));
}

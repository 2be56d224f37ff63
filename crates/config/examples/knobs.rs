//! Prints the knob table of a small facility table (`cargo run -p flagsplit-config --example
//! knobs`): the Markdown a crate puts in its README, generated from the same table its build script
//! resolves. (flagsplit's own is `flagsplit version --all-knobs`.)

use flagsplit_config::{Facility, Provider, Spec, Variable, When};

static SPEC: Spec = Spec::application("inflate-demo", "DEMO", "demo")
    .binaries(&["demo"])
    .facilities(&[Facility::new(
        "inflate",
        "INFLATE",
        "DEFLATE decompression",
        &[
            Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (miniz_oxide)"),
            Provider::new("zlib", "ZLIB", "the system zlib (libz-sys)")
                .feature("zlib")
                .links(&["libz"]),
        ],
    )
    .default_order(&["zlib", "miniz"])
    .used_by(&["demo"])])
    .variables(&[Variable::new(
        "DEMO_LEVEL",
        When::Run,
        "compression level of `demo --compress`",
    )
    .values("0 to 9")
    .default_value("6")])
    .local_config("config.toml")
    .example_config("config.example.toml");

fn main() {
    print!("{}", flagsplit_config::knobs::markdown_table(&SPEC));
}

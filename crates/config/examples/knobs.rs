//! Prints the knob table (`cargo run -p flagsplit-config --example knobs`).
fn main() {
    print!(
        "{}",
        flagsplit_config::knobs::markdown_table(&flagsplit_config::flagsplit::SPEC)
    );
}

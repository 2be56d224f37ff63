//! Placeholder: replaced by the provider comparison benches.
fn main() {}

//! Writes what the host copy of tls-a (this build script's build-dependency) decided, and what
//! its provider does when called here, into OUT_DIR/tls-a-host.txt for the binary to print.

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let used = match tls_a::exercise() {
        Ok(what) => format!("use: {what}"),
        Err(why) => format!("use: FAILED: {why}"),
    };
    let text = format!(
        "{}\ncompiled: {}\n{used}\n",
        tls_a::BUILD_INFO,
        tls_a::compiled_provider()
    );
    fs::write(out_dir.join("tls-a-host.txt"), text).expect("write tls-a-host.txt");
    println!("cargo:rerun-if-changed=build.rs");
}

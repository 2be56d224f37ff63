//! Emits the same `cfg`s as `flagsplit-hash`, which resolved the build configuration (this
//! package reads its decision from `DEP_FLAGSPLIT_*` rather than deciding again), and records the
//! compiler's version for `flagsplit bench --json`.

fn main() {
    flagsplit_config::script::follow();
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo::rustc-env=FLAGSPLIT_RUSTC={version}");
}

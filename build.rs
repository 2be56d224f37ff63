//! The build script that decides, for the whole build: it resolves flagsplit's facility table
//! (`crates/spec`, the library's `flagsplit::spec`) from the enabled features, the `FLAGSPLIT_*`
//! variables and the config file (`FLAGSPLIT_CONFIG`, else `config.toml`), finds and probes the C
//! libraries the selected providers link with the C programs in `compat/` (OpenSSL as `openssl-sys`
//! found it when it is in the build, else libcrypto found and linked here; zlib as libz-sys found it), emits
//! one `cfg` per facility, and writes the build-options table. The crates under `crates/` only
//! compile providers; this package's `src/` names the selected ones.

use flagsplit_config::script::{self, Build};

fn main() {
    let build = Build::new(&flagsplit_spec::SPEC);
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    let compat = build.manifest_dir.join("compat");
    let probed = match build.probe(&resolved, &compat) {
        Ok(found) => found,
        Err(message) => {
            script::error(&message);
            return;
        }
    };
    if !build.write_build_info(&resolved, &probed) {
        return;
    }

    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo::rustc-env=FLAGSPLIT_RUSTC={version}");
    // Name libc before libgcc_s on the link line. The dynamic loader searches the NEEDED libraries
    // in order for every symbol, and almost all of ours are in libc: with libgcc_s first, each of
    // the ~120 lookups at start-up also misses in libgcc_s (+10 K instructions, 2.7%). Whether
    // `-lc` came first depended on which features the `libc` crate happened to be built with
    // (an openssl-sys dependency turned its `std` feature on), so say it explicitly.
    // Not for a static build (`-C target-feature=+crt-static`), which has no NEEDED at all and
    // must not be given a dynamic libc.
    let crt_static = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
        && !crt_static
    {
        println!("cargo::rustc-link-lib=dylib=c");
    }
}

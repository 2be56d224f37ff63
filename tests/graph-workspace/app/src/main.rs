//! Prints each library's build options in a section of its own (`[tls-a]`, `[tls-b]`, `[zlib-c]`,
//! `[tls-a (build script's copy)]`), each followed by the provider compiled in (`compiled:`) and
//! what it did when used once (`use:`); exits 1 when a provider failed.

use std::fmt::Display;
use std::process::ExitCode;

/// What app's build script wrote about the host copy of tls-a.
const TLS_A_HOST: &str = include_str!(concat!(env!("OUT_DIR"), "/tls-a-host.txt"));

/// `hello, graph\n` as Python's `zlib.compress(b"hello, graph\n")` writes it.
const HELLO: &[u8] = &[
    0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x48, 0x2f, 0x4a, 0x2c, 0xc8, 0xe0, 0x02,
    0x00, 0x21, 0x66, 0x04, 0x7d,
];

/// One library's section. `info` is its `flagsplit_config::BuildInfo`, taken by its `Display`:
/// a library from a registry may be built with another copy of flagsplit-config than the others.
fn section(
    heading: &str,
    info: &dyn Display,
    compiled: &str,
    used: Result<String, String>,
) -> bool {
    println!("[{heading}]");
    println!("{info}");
    println!("compiled: {compiled}");
    match used {
        Ok(what) => {
            println!("use: {what}");
            true
        }
        Err(why) => {
            println!("use: FAILED: {why}");
            false
        }
    }
}

fn main() -> ExitCode {
    let mut ok = true;
    ok &= section(
        "tls-a",
        &tls_a::BUILD_INFO,
        tls_a::compiled_provider(),
        tls_a::exercise(),
    );
    ok &= section(
        "tls-b",
        &tls_b::BUILD_INFO,
        tls_b::compiled_provider(),
        tls_b::exercise(),
    );
    let inflated = zlib_c::inflate(HELLO).and_then(|out| {
        String::from_utf8(out)
            .map(|s| format!("inflated {:?} with {}", s, zlib_c::library()))
            .map_err(|e| e.to_string())
    });
    ok &= section(
        "zlib-c",
        &zlib_c::BUILD_INFO,
        zlib_c::compiled_provider(),
        inflated,
    );
    println!("[tls-a (build script's copy)]");
    print!("{TLS_A_HOST}");
    ok &= !TLS_A_HOST.contains("use: FAILED");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

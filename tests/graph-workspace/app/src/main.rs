//! Prints each library's build options in a section of its own (`[tls-a]`, `[tls-b]`, `[zlib-c]`,
//! `[xz-d]`, `[tls-a (build script's copy)]`), each followed by the provider compiled in (`compiled:`) and
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

/// `hello, xz\n` as Python's `lzma.compress(b"hello, xz\n", check=lzma.CHECK_CRC32)` writes it.
const HELLO_XZ: &[u8] = &[
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x01, 0x69, 0x22, 0xde, 0x36, 0x02, 0x00, 0x21, 0x01,
    0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3, 0x01, 0x00, 0x09, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
    0x2c, 0x20, 0x78, 0x7a, 0x0a, 0x00, 0x00, 0x00, 0x42, 0xea, 0x5a, 0xce, 0x00, 0x01, 0x1e, 0x0a,
    0xea, 0x63, 0x12, 0x14, 0x90, 0x42, 0x99, 0x0d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x59, 0x5a,
];

/// One library's section. `info` is its `flagsplit_info::BuildInfo`, taken by its `Display`:
/// a library from a registry may be built with another copy of flagsplit-info than the others.
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
    // No decoder is no failure: `none` says so.
    let decompressed = match xz_d::decompress(HELLO_XZ) {
        Err(why) if xz_d::compiled_provider() == "none" => Ok(why),
        other => other.and_then(|out| {
            String::from_utf8(out)
                .map(|s| format!("decompressed {:?} with {}", s, xz_d::library()))
                .map_err(|e| e.to_string())
        }),
    };
    ok &= section("xz-d", &xz_d::BUILD_INFO, xz_d::compiled_provider(), decompressed);
    println!("[tls-a (build script's copy)]");
    print!("{TLS_A_HOST}");
    ok &= !TLS_A_HOST.contains("use: FAILED");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

//! `inflate-app`: decompresses zlib-format data from stdin to stdout with inflate-demo, whose
//! provider this application selects in its `.cargo/config.toml` `[env]`
//! (`INFLATE_DEMO_INFLATE_PROVIDER`), as it selects checksum-demo's (`CHECKSUM_DEMO_SHA1_PROVIDER`).
//!
//! - `inflate-app < data.zlib > data`
//! - `inflate-app --sha1 < data.zlib`: the SHA-1 of the decompressed data (through zlib-user and
//!   checksum-demo)
//! - `inflate-app --len < data.zlib`: its length (through plain-user)
//! - `inflate-app --zstd < data > data.zst`: the data as one zstd frame, with zstd-demo's
//!   provider (`ZSTD_DEMO_COMPRESS_PROVIDER`)
//! - `inflate-app --build-options`: what the build decided, for each library, and the provider
//!   each crate using inflate-demo gets

use std::io::{self, Read, Write};
use std::process::ExitCode;

const NAME: &str = env!("CARGO_PKG_NAME");

/// `--build-options`: the application's line, then each library's block.
fn write_build_options(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{NAME} version {}", env!("CARGO_PKG_VERSION"))?;
    write!(out, "{}", inflate_demo::build_options())?;
    write!(out, "{}", checksum_demo::build_options())?;
    write!(out, "{}", zstd_demo::build_options())?;
    writeln!(out, "[users of inflate-demo]")?;
    writeln!(out, "inflate-app: {}", inflate_demo::provider())?;
    writeln!(out, "plain-user: {}", plain_user::inflate_provider())?;
    writeln!(out, "zlib-user: {}", zlib_user::inflate_provider())
}

fn read_stdin() -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    io::stdin().lock().read_to_end(&mut data)?;
    Ok(data)
}

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let mut stdout = io::stdout().lock();
    let result = match args.as_slice() {
        [] => inflate_demo::decompress(&mut io::stdin().lock(), &mut stdout).map(|_| ()),
        [arg] if arg == "--build-options" => write_build_options(&mut stdout),
        [arg] if arg == "--sha1" => read_stdin()
            .and_then(|zlib| zlib_user::decompress(&zlib))
            .and_then(|data| checksum_demo::sha1_hex(&mut &data[..]))
            .and_then(|hex| writeln!(stdout, "{hex}")),
        [arg] if arg == "--len" => read_stdin()
            .and_then(|zlib| plain_user::decompressed_len(&zlib))
            .and_then(|n| writeln!(stdout, "{n}")),
        [arg] if arg == "--zstd" => read_stdin()
            .and_then(|data| zstd_demo::compress(&data))
            .and_then(|frame| stdout.write_all(&frame)),
        _ => {
            eprintln!(
                "usage: {NAME} < data.zlib > data\n       {NAME} --sha1 < data.zlib\n       {NAME} --len < data.zlib\n       {NAME} --zstd < data > data.zst\n       {NAME} --build-options"
            );
            return ExitCode::from(2);
        }
    };
    match result.and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{NAME}: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hello\n` as Python's `zlib.compress(b"hello\n")` writes it.
    const HELLO: &[u8] = &[
        0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x08, 0x4b, 0x02, 0x1f,
    ];

    #[test]
    fn every_user_of_inflate_demo_gets_the_one_provider() {
        let p = inflate_demo::provider();
        assert_eq!(plain_user::inflate_provider(), p);
        assert_eq!(zlib_user::inflate_provider(), p);
    }

    #[test]
    fn both_users_decompress() {
        assert_eq!(zlib_user::decompress(HELLO).expect("valid"), b"hello\n");
        assert_eq!(plain_user::decompressed_len(HELLO).expect("valid"), 6);
    }

    #[test]
    fn build_options_hold_both_libraries() {
        let mut out = Vec::new();
        write_build_options(&mut out).expect("writing to a Vec");
        let text = String::from_utf8(out).expect("ASCII");
        assert!(text.contains("\n[inflate-demo 0.1.0]\n"), "{text}");
        assert!(text.contains("\n[checksum-demo 0.1.0]\n"), "{text}");
        assert!(text.contains("\n[zstd-demo 0.1.0]\n"), "{text}");
        assert!(text.contains("\ninflate-provider: "), "{text}");
        assert!(text.contains("\nsha1-provider: "), "{text}");
    }
}

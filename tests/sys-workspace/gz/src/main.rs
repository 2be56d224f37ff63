//! Decompresses gzip from standard input to standard output, with the system zlib.
use std::io::{Read, Write};

fn main() {
    let mut out = Vec::new();
    let mut input = flate2::read::GzDecoder::new(std::io::stdin().lock());
    if let Err(e) = input.read_to_end(&mut out) {
        eprintln!("gz: {e}");
        std::process::exit(1);
    }
    let _ = std::io::stdout().write_all(&out);
}

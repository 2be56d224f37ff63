//! `flagsplit-imap-send` (placeholder; see issue "flagsplit-imap-send").

fn main() -> std::process::ExitCode {
    eprintln!("flagsplit-imap-send: not implemented yet");
    std::process::ExitCode::from(1)
}

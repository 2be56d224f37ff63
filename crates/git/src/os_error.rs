//! Operating-system errors in the words of the C library, as coreutils and git print them.

use std::io;

/// The C library's text for an error (`No such file or directory`), without Rust's
/// ` (os error 2)`.
pub fn strerror(e: &io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => {
            let suffix = format!(" (os error {code})");
            text.strip_suffix(&suffix)
                .map(str::to_owned)
                .unwrap_or(text)
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_is_libc_text() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(strerror(&e), "No such file or directory");
        let custom = io::Error::other("custom (os error 2)");
        assert_eq!(strerror(&custom), "custom (os error 2)");
    }
}

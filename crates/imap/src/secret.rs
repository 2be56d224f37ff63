//! A password or token: never printed (`Debug` and `Display` say `<redacted>`), cleared from memory
//! when dropped ([`zeroize`]: volatile writes the compiler cannot remove).

use std::fmt;

use zeroize::Zeroizing;

/// A secret string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps a secret.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(Zeroizing::new(s.into()))
    }

    /// From bytes known to be ASCII (base64 output).
    pub(crate) fn from_bytes(s: String) -> Secret {
        Secret(Zeroizing::new(s))
    }

    /// The secret itself: only for putting it on the wire or into `git credential`.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn never_formatted() {
        let s = super::Secret::new("hunter2");
        assert_eq!(format!("{s} {s:?}"), "<redacted> <redacted>");
        assert_eq!(s.expose(), "hunter2");
    }
}

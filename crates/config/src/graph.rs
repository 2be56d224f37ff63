//! The graph-wide settings: one choice for every crate in a build that uses this crate, read by
//! each of their build scripts.
//!
//! | Variable | Config-file key | Values | Does |
//! |---|---|---|---|
//! | `RUST_BACKEND_<KIND>` (`RUST_BACKEND_TLS`) | `tls = "openssl"` | a shared provider name ([`SHARED_PROVIDERS`]) | selects, in every facility of that kind ([`KINDS`]), the provider that answers to it |
//! | `RUST_BACKEND_LINK` | `link = "static"` | `static`, `dynamic` | how the C libraries found through this crate's finders link (a library's own `<LIB>_STATIC` wins) |
//! | `RUST_BACKEND_BUNDLED` | `bundled = "deny"` | `deny`, `allow` | `deny`: a `-sys` crate that built its own copy of a C library fails the build |
//! | `RUST_BACKEND_CONFIG` | | an absolute path | the graph-wide config file |
//!
//! Each variable but `RUST_BACKEND_CONFIG` has a target-scoped form,
//! `<TARGET>_RUST_BACKEND_<...>` (`X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`), which wins over the
//! plain one for a build script whose `TARGET` is that triple; in the file, a
//! `[target.<triple>]` or `[target.'cfg(...)']` table holds the same keys.
//!
//! The names share no prefix with any crate's own variables ([`crate::Spec::check`] rejects a
//! prefix that would), so a crate's own unknown-variable check never rejects them.

use crate::clib::target_prefixed;

/// The kinds a facility may declare ([`crate::Facility::kind`]): one graph-wide setting per kind
/// (`RUST_BACKEND_<KIND>`). New kinds are added in minor versions; a kind outside
/// this list fails [`crate::Spec::check`], so every build script that reads the table rejects it.
pub const KINDS: &[&str] = &[
    "tls",
    "sha1",
    "sha1-unsafe",
    "sha256",
    "md5",
    "zlib",
    "zstd",
];

/// The shared provider names a provider may answer to ([`crate::Provider::answers_to`]), the values of
/// the graph-wide settings: `openssl` (OpenSSL's libraries), `rustls`, `system` (the system's
/// own C library of that kind: zlib, libzstd), `pure-rust` (a Rust implementation, no C library),
/// `zlib-ng`, `none` (the facility is left out).
pub const SHARED_PROVIDERS: &[&str] = &[
    "openssl",
    "rustls",
    "system",
    "pure-rust",
    "zlib-ng",
    "none",
];

/// The prefix of every graph-wide variable, without the trailing underscore.
pub const PREFIX: &str = "RUST_BACKEND";

/// The variable naming the graph-wide config file.
pub const CONFIG: &str = "RUST_BACKEND_CONFIG";

/// One graph-wide setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Setting {
    /// The shared provider of a kind (`RUST_BACKEND_TLS`).
    Kind(&'static str),
    /// How C libraries link (`RUST_BACKEND_LINK`).
    Link,
    /// Whether a `-sys` crate may build its own copy (`RUST_BACKEND_BUNDLED`).
    Bundled,
}

/// The values of [`Setting::Link`].
pub const LINK_VALUES: &[&str] = &["static", "dynamic"];
/// The values of [`Setting::Bundled`].
pub const BUNDLED_VALUES: &[&str] = &["deny", "allow"];

impl Setting {
    /// Every setting: one per kind, then link and bundled.
    pub fn all() -> Vec<Setting> {
        KINDS
            .iter()
            .copied()
            .map(Setting::Kind)
            .chain([Setting::Link, Setting::Bundled])
            .collect()
    }

    /// Its key in the graph-wide file (`tls`, `sha1-unsafe`, `link`, `bundled`).
    pub fn key(self) -> &'static str {
        match self {
            Setting::Kind(kind) => kind,
            Setting::Link => "link",
            Setting::Bundled => "bundled",
        }
    }

    /// The setting of file key `key`.
    pub fn from_key(key: &str) -> Option<Setting> {
        Setting::all().into_iter().find(|s| s.key() == key)
    }

    /// Its variable (`RUST_BACKEND_SHA1_UNSAFE`).
    pub fn variable(self) -> String {
        format!("{PREFIX}_{}", self.key().to_uppercase().replace('-', "_"))
    }

    /// Its target-scoped variable for `triple` (`X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`).
    pub fn target_variable(self, triple: &str) -> String {
        target_prefixed(triple, &self.variable())
    }

    /// The values it takes.
    pub fn values(self) -> &'static [&'static str] {
        match self {
            Setting::Kind(_) => SHARED_PROVIDERS,
            Setting::Link => LINK_VALUES,
            Setting::Bundled => BUNDLED_VALUES,
        }
    }
}

/// Every graph-wide variable name: the plain ones and [`CONFIG`].
pub fn variable_names() -> Vec<String> {
    Setting::all()
        .into_iter()
        .map(Setting::variable)
        .chain(std::iter::once(CONFIG.to_string()))
        .collect()
}

/// What a variable name that looks graph-wide is: `Ok(Some((setting, scoped)))`, `Ok(None)` for
/// [`CONFIG`] or a name that is not graph-wide, `Err(())` for a name with the prefix that means
/// nothing (a misspelt kind). A scoped name is recognised for `triples` only (the build's target
/// and host): any other text before `_RUST_BACKEND_` may be another program's variable.
#[allow(clippy::result_unit_err)]
pub fn classify(name: &str, triples: &[&str]) -> Result<Option<(Setting, bool)>, ()> {
    let plain = format!("{PREFIX}_");
    let (rest, scoped) = if let Some(rest) = name.strip_prefix(&plain) {
        (rest, false)
    } else {
        let scoped = triples.iter().find_map(|t| {
            name.strip_prefix(&target_prefixed(t, &plain))
                .filter(|_| !t.is_empty())
        });
        match scoped {
            Some(rest) => (rest, true),
            None => return Ok(None),
        }
    };
    if !scoped && rest == "CONFIG" {
        return Ok(None);
    }
    Setting::all()
        .into_iter()
        .find(|s| s.variable()[plain.len()..] == *rest)
        .map(|s| Some((s, scoped)))
        .ok_or(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Setting::Kind("tls").variable(), "RUST_BACKEND_TLS");
        assert_eq!(
            Setting::Kind("sha1-unsafe").variable(),
            "RUST_BACKEND_SHA1_UNSAFE"
        );
        assert_eq!(
            Setting::Link.target_variable("x86_64-unknown-linux-gnu"),
            "X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_LINK"
        );
        assert_eq!(Setting::from_key("bundled"), Some(Setting::Bundled));
        assert_eq!(Setting::from_key("tsl"), None);
        assert!(variable_names().contains(&"RUST_BACKEND_CONFIG".to_string()));
    }

    #[test]
    fn classify_names() {
        let t = ["aarch64-unknown-linux-gnu", "x86_64-unknown-linux-gnu"];
        assert_eq!(
            classify("RUST_BACKEND_TLS", &t),
            Ok(Some((Setting::Kind("tls"), false)))
        );
        assert_eq!(
            classify("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_SHA1_UNSAFE", &t),
            Ok(Some((Setting::Kind("sha1-unsafe"), true)))
        );
        assert_eq!(classify("RUST_BACKEND_CONFIG", &t), Ok(None));
        assert_eq!(classify("RUST_BACKEND_TSL", &t), Err(()));
        assert_eq!(
            classify("AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_CONFIG", &t),
            Err(())
        );
        // Another triple's scoped name, or another program's variable: not ours to judge.
        assert_eq!(
            classify("MIPS_UNKNOWN_LINUX_GNU_RUST_BACKEND_TSL", &t),
            Ok(None)
        );
        assert_eq!(classify("MY_BACKEND_URL", &t), Ok(None));
        assert_eq!(classify("RUST_LOG", &t), Ok(None));
    }
}

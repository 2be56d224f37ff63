//! The graph-wide settings: one choice for every crate in a build that uses this crate, read by
//! each of their build scripts.
//!
//! | Variable | Config-file key | Values | Does |
//! |---|---|---|---|
//! | `RUST_BACKEND_<KIND>` (`RUST_BACKEND_TLS`, `RUST_BACKEND_XZ`) | `tls = "openssl"` | a shared provider name | selects, in every facility of that kind, the provider that answers to it |
//! | `RUST_BACKEND_LINK` | `link = "static"` | `static`, `dynamic` | how the C libraries found through this crate's finders link (a library's own `<LIB>_STATIC` wins) |
//! | `RUST_BACKEND_BUNDLED` | `bundled = "deny"` | `deny`, `allow` | `deny`: a `-sys` crate that built its own copy of a C library fails the build |
//! | `RUST_BACKEND_CONFIG` | | an absolute path | the graph-wide config file |
//!
//! **Kinds are open.** A facility may declare any kind whose name follows [`name_problem`]'s rule
//! (lowercase letters and digits in words joined by `-`, not `link`, `bundled`, `config` or
//! `target`): the name maps one-to-one to its variable (`sha1-unsafe` is
//! `RUST_BACKEND_SHA1_UNSAFE`) and its file key. [`KINDS`] are the well-known ones, whose
//! providers answer to the well-known [`SHARED_PROVIDERS`]; a crate's own kind has shared names of
//! its own choosing, under the same rule. A build script reads only the kinds its facilities
//! declare: another `RUST_BACKEND_*` name, a kind of some other crate or of none, is never an
//! error there (a name close to one it reads is a warning); `cargo flagsplit` and
//! `check_environment` look at the whole graph.
//!
//! Each variable but `RUST_BACKEND_CONFIG` has a target-scoped form,
//! `<TARGET>_RUST_BACKEND_<...>` (`X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`), which wins over the
//! plain one for a build script whose `TARGET` is that triple; in the file, a
//! `[target.<triple>]` or `[target.'cfg(...)']` table holds the same keys.
//!
//! The names share no prefix with any crate's own variables ([`crate::Spec::check`] rejects a
//! prefix that would), so a crate's own unknown-variable check never rejects them.

use crate::clib::target_prefixed;

/// The well-known kinds: their providers answer to the well-known [`SHARED_PROVIDERS`], and a
/// name near one of them gets a did-you-mean. Any other kind that follows [`name_problem`]'s rule
/// is a crate's own ([`crate::Facility::kind`]).
pub const KINDS: &[&str] = &[
    "tls",
    "sha1",
    "sha1-unsafe",
    "sha256",
    "md5",
    "zlib",
    "zstd",
];

/// The well-known shared provider names, those a provider of a well-known kind answers to
/// ([`crate::Provider::answers_to`]), the values of their graph-wide settings: `openssl`
/// (OpenSSL's libraries), `rustls`, `system` (the system's own C library of that kind: zlib,
/// libzstd), `pure-rust` (a Rust implementation, no C library), `zlib-ng`, `none` (the facility is
/// left out). A provider of a crate's own kind answers to any name that follows
/// [`name_problem`]'s rule.
pub const SHARED_PROVIDERS: &[&str] = &[
    "openssl",
    "rustls",
    "system",
    "pure-rust",
    "zlib-ng",
    "none",
];

/// The names no kind may take: the other settings' keys, and `target`, the file's scope table.
pub const RESERVED: &[&str] = &["link", "bundled", "config", "target"];

/// The prefix of every graph-wide variable, without the trailing underscore.
pub const PREFIX: &str = "RUST_BACKEND";

/// The variable naming the graph-wide config file.
pub const CONFIG: &str = "RUST_BACKEND_CONFIG";

/// Why `name` cannot be a kind or a shared provider name, or `None` when it can: one or more words
/// of lowercase ASCII letters and digits, joined by single `-`, starting with a letter, at most 32
/// characters (`sha1-unsafe`, `xz`, `pure-rust`). So a name and its variable's part
/// (`SHA1_UNSAFE`) map one to one: no `_`, no capital, no `-` at either end or twice.
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > 32 {
        return Some("it is longer than 32 characters");
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("it must start with a lowercase letter");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("only lowercase ASCII letters, digits and `-` may be in it");
    }
    if name.ends_with('-') || name.contains("--") {
        return Some("a `-` must stand between two words");
    }
    None
}

/// The key (`sha1-unsafe`) a variable's part after `RUST_BACKEND_` (`SHA1_UNSAFE`) stands for, when
/// it follows the rule.
pub fn key_of(part: &str) -> Option<String> {
    let mut key = String::with_capacity(part.len());
    for c in part.chars() {
        key.push(match c {
            '_' => '-',
            c => c.to_ascii_lowercase(),
        });
    }
    let upper_only = part
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    (upper_only && name_problem(&key).is_none()).then_some(key)
}

/// The variable of the setting with file key `key` (`RUST_BACKEND_SHA1_UNSAFE`).
pub fn variable_of(key: &str) -> String {
    format!("{PREFIX}_{}", key.to_uppercase().replace('-', "_"))
}

/// One graph-wide setting a crate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Setting {
    /// The shared provider of a kind (`RUST_BACKEND_TLS`): a well-known kind or a crate's own.
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
    /// The well-known settings: one per well-known kind, then link and bundled.
    pub fn all() -> Vec<Setting> {
        let mut all = Vec::with_capacity(KINDS.len() + 2);
        for &kind in KINDS {
            all.push(Setting::Kind(kind));
        }
        all.push(Setting::Link);
        all.push(Setting::Bundled);
        all
    }

    /// Its key in the graph-wide file (`tls`, `sha1-unsafe`, `link`, `bundled`).
    pub fn key(self) -> &'static str {
        match self {
            Setting::Kind(kind) => kind,
            Setting::Link => "link",
            Setting::Bundled => "bundled",
        }
    }

    /// The well-known setting of file key `key` (a crate's own kind is its table's).
    pub fn from_key(key: &str) -> Option<Setting> {
        Setting::all().into_iter().find(|s| s.key() == key)
    }

    /// Its variable (`RUST_BACKEND_SHA1_UNSAFE`).
    pub fn variable(self) -> String {
        variable_of(self.key())
    }

    /// Its target-scoped variable for `triple` (`X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`).
    pub fn target_variable(self, triple: &str) -> String {
        target_prefixed(triple, &self.variable())
    }

    /// The values it takes, when they are a fixed set: link's and bundled's; a well-known kind's
    /// [`SHARED_PROVIDERS`]; a crate's own kind has none here (its providers say).
    pub fn values(self) -> &'static [&'static str] {
        match self {
            Setting::Kind(kind) if KINDS.contains(&kind) => SHARED_PROVIDERS,
            Setting::Kind(_) => &[],
            Setting::Link => LINK_VALUES,
            Setting::Bundled => BUNDLED_VALUES,
        }
    }
}

/// The well-known graph-wide variable names: the plain ones and [`CONFIG`].
pub fn variable_names() -> Vec<String> {
    let mut names = Vec::new();
    for setting in Setting::all() {
        names.push(setting.variable());
    }
    names.push(CONFIG.to_string());
    names
}

/// What a graph-wide variable name is ([`classify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Name {
    /// [`CONFIG`].
    Config,
    /// A setting's variable: its file key (`tls`, `xz`, `link`), and whether it is the
    /// target-scoped form.
    Setting {
        /// The file key.
        key: String,
        /// `<TARGET>_RUST_BACKEND_...`.
        scoped: bool,
    },
    /// The prefix followed by no setting's name (`RUST_BACKEND_`, `RUST_BACKEND_tls`, a scoped
    /// `RUST_BACKEND_CONFIG`).
    Malformed,
}

/// What a variable name is to the graph-wide settings; `None` for a name that is not graph-wide.
/// A scoped name is recognised for `triples` only (the build's target and host): any other text
/// before `_RUST_BACKEND_` may be another program's variable.
pub fn classify(name: &str, triples: &[&str]) -> Option<Name> {
    let plain = format!("{PREFIX}_");
    let (rest, scoped) = if let Some(rest) = name.strip_prefix(&plain) {
        (rest, false)
    } else {
        let rest = triples.iter().find_map(|t| {
            name.strip_prefix(&target_prefixed(t, &plain))
                .filter(|_| !t.is_empty())
        })?;
        (rest, true)
    };
    if rest == "CONFIG" {
        return Some(if scoped {
            Name::Malformed
        } else {
            Name::Config
        });
    }
    Some(match key_of(rest) {
        Some(key) if !RESERVED.contains(&key.as_str()) || key == "link" || key == "bundled" => {
            Name::Setting { key, scoped }
        }
        _ => Name::Malformed,
    })
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
        assert_eq!(Setting::Kind("xz").values(), &[] as &[&str]);
        assert_eq!(Setting::Kind("zlib").values(), SHARED_PROVIDERS);
    }

    #[test]
    fn the_name_rule() {
        for good in ["xz", "sha1-unsafe", "blake3", "pure-rust", "a1-b2-c3"] {
            assert_eq!(name_problem(good), None, "{good}");
            assert_eq!(
                key_of(&good.to_uppercase().replace('-', "_")).as_deref(),
                Some(good)
            );
        }
        for bad in [
            "",
            "Xz",
            "x_z",
            "1x",
            "x-",
            "x--z",
            "-x",
            "x.z",
            &"x".repeat(33),
        ] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(key_of("SHA1__UNSAFE"), None);
        assert_eq!(key_of("tls"), None);
        assert_eq!(variable_of("sha1-unsafe"), "RUST_BACKEND_SHA1_UNSAFE");
    }

    #[test]
    fn classify_names() {
        let t = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];
        let setting = |key: &str, scoped| {
            Some(Name::Setting {
                key: key.into(),
                scoped,
            })
        };
        assert_eq!(classify("RUST_BACKEND_TLS", &t), setting("tls", false));
        assert_eq!(
            classify("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_SHA1_UNSAFE", &t),
            setting("sha1-unsafe", true)
        );
        // Open kinds: any well-formed name, a kind of some crate or of none.
        assert_eq!(classify("RUST_BACKEND_XZ", &t), setting("xz", false));
        assert_eq!(
            classify("RUST_BACKEND_NOSUCHKIND", &t),
            setting("nosuchkind", false)
        );
        assert_eq!(classify("RUST_BACKEND_LINK", &t), setting("link", false));
        assert_eq!(classify("RUST_BACKEND_CONFIG", &t), Some(Name::Config));
        assert_eq!(
            classify("AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_CONFIG", &t),
            Some(Name::Malformed)
        );
        assert_eq!(classify("RUST_BACKEND_TARGET", &t), Some(Name::Malformed));
        assert_eq!(classify("RUST_BACKEND_tls", &t), Some(Name::Malformed));
        assert_eq!(classify("RUST_BACKEND_", &t), Some(Name::Malformed));
        assert_eq!(classify("RUST_BACKEND_A__B", &t), Some(Name::Malformed));
        assert_eq!(
            classify("MIPS_UNKNOWN_LINUX_GNU_RUST_BACKEND_TSL", &t),
            None
        );
        assert_eq!(classify("MY_BACKEND_URL", &t), None);
        assert_eq!(classify("RUST_LOG", &t), None);
    }
}

//! What a flagsplit-config build decided, as a library's executables print it.
//!
//! A library's build script (flagsplit-config's `script::Build::write_build_info`) writes one
//! [`BuildInfo`] expression into `OUT_DIR/build_info.rs`: constants only, no code that can panic,
//! with every label and link of the selected providers, so that the library needs nothing of
//! flagsplit-config at run time. The library `include!`s it:
//!
//! ```ignore
//! /// What the build decided: `BUILD_INFO.describe()` prints it.
//! pub const BUILD_INFO: flagsplit_info::BuildInfo =
//!     include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
//! ```
//!
//! It also carries the names the build reads (the crate's variables, the graph-wide settings),
//! for an application's test to check its environment against (flagsplit-config's
//! `check_environment`).
//!
//! This crate has no dependencies and builds with Rust 1.63. flagsplit-config depends on it at the
//! same minor version, and Cargo resolves one version of it for a build script and its library,
//! so the constructors a generated file calls exist in the version the library compiles against.

#![deny(missing_docs)]
#![allow(unknown_lints)]

use std::fmt;

pub mod note;
pub mod record;

pub mod json {
    //! JSON literals, as the build options' JSON twin (flagsplit-config's `flagsplit-config.json`)
    //! and flagsplit's `--json` reports write them: one escaper for every writer.

    use std::fmt::Write as _;

    /// A JSON string literal: `"`, `\` and control characters escaped.
    ///
    /// ```
    /// assert_eq!(flagsplit_info::json::string("a\"b\n"), r#""a\"b\n""#);
    /// ```
    pub fn string(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// A JSON string, or `null`.
    pub fn opt_string(s: Option<&str>) -> String {
        s.map_or_else(|| "null".to_string(), string)
    }

    /// A JSON array of strings, on one line (`["a", "b"]`).
    pub fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
        let items: Vec<String> = items.into_iter().map(string).collect();
        format!("[{}]", items.join(", "))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn escapes() {
            assert_eq!(
                string("a\"b\\c\n\r\t\u{1}\u{e9}"),
                "\"a\\\"b\\\\c\\n\\r\\t\\u0001\u{e9}\""
            );
            assert_eq!(opt_string(None), "null");
            assert_eq!(opt_string(Some("x")), "\"x\"");
            assert_eq!(strings(["a", "b"]), "[\"a\", \"b\"]");
            assert_eq!(strings([]), "[]");
        }
    }
}

/// What the build decided, embedded in the binaries.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BuildInfo {
    /// The package's name (`inflate-demo`).
    pub crate_name: &'static str,
    /// The prefix of its variables (`INFLATE_DEMO`).
    pub prefix: &'static str,
    /// One entry per facility, in the table's order.
    pub choices: &'static [ChoiceInfo],
    /// The enabled Cargo features that compile providers.
    pub features: &'static [&'static str],
    /// The enabled features that only say where a provider's library comes from
    /// (`openssl-vendored`).
    pub source_features: &'static [&'static str],
    /// The config file that was read (`config.toml`, `myconf.toml (FLAGSPLIT_CONFIG; config.toml
    /// not read)`), or `(none)`.
    pub config_file: &'static str,
    /// The C libraries the build probed (one per library that a selected provider links), in
    /// table order.
    pub libraries: &'static [LibraryBuildInfo],
    /// The target triple.
    pub target: &'static str,
    /// The variables the build script reads, by their plain names (`INFLATE_DEMO_CONFIG`,
    /// `INFLATE_DEMO_INFLATE_PROVIDER`; each is read in its `<TARGET>_` form first).
    pub variables: &'static [&'static str],
    /// The other variables the crate's table declares (read by its executables, or by a
    /// dependency's build script).
    pub other_variables: &'static [&'static str],
    /// The graph-wide settings the build script reads (`RUST_BACKEND_<KEY>`).
    pub graph: &'static [GraphRead],
}

/// One facility's selection.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ChoiceInfo {
    /// The facility's name.
    pub facility: &'static str,
    /// The provider selected.
    pub provider: &'static str,
    /// Why: `default`, `FLAGSPLIT_SHA1_PROVIDER`, `FILE:LINE:COL`, `graph-wide
    /// RUST_BACKEND_TLS`, ...
    pub origin: &'static str,
    /// The facility's kind, if it declares one.
    pub kind: Option<&'static str>,
    /// The facility's label (`INFLATE`).
    pub label: &'static str,
    /// The selected provider's label (`ZLIB`).
    pub provider_label: &'static str,
    /// The libraries the selected provider links (`libz`).
    pub links: &'static [&'static str],
}

/// `sha1-provider: dc (from default)`, as `--build-options` prints a selection.
impl fmt::Display for ChoiceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-provider: {} (from {})",
            self.facility, self.provider, self.origin
        )
    }
}

/// A C library the build probed.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct LibraryBuildInfo {
    /// Its name (`zlib`).
    pub library: &'static str,
    /// Its version, when the build read it (`3.0.19`, `1.5.4`).
    pub version: Option<&'static str>,
    /// How it was located (`libz-sys`, or `libz-sys (built by it: DEP_Z_ROOT)`).
    pub located_by: &'static str,
    /// The library directories; none: the compiler's default.
    pub lib_dirs: &'static [&'static str],
    /// Linked statically.
    pub static_link: bool,
}

/// A graph-wide setting a build script reads: `RUST_BACKEND_<KEY>` (`-` in the key is `_` in the
/// name), and its key in the `RUST_BACKEND_CONFIG` file.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct GraphRead {
    /// The key (`tls`, `link`, a crate's own kind).
    pub key: &'static str,
    /// The values this crate takes for it.
    pub values: &'static [&'static str],
    /// Whether another value may be right for another crate (a kind of a crate's own: any shared
    /// name its providers may answer to), rather than a mistake.
    pub open: bool,
}

// The constructors the generated `build_info.rs` calls. Hidden: the file is written by
// flagsplit-config's build-script half, which depends on this crate at the same minor version,
// and their parameters change whenever a field is added (a new constructor then, the old kept),
// which would otherwise be a breaking change of the public API.
impl BuildInfo {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __generated(
        crate_name: &'static str,
        prefix: &'static str,
        choices: &'static [ChoiceInfo],
        features: &'static [&'static str],
        source_features: &'static [&'static str],
        config_file: &'static str,
        libraries: &'static [LibraryBuildInfo],
        target: &'static str,
        variables: &'static [&'static str],
        other_variables: &'static [&'static str],
        graph: &'static [GraphRead],
    ) -> BuildInfo {
        BuildInfo {
            crate_name,
            prefix,
            choices,
            features,
            source_features,
            config_file,
            libraries,
            target,
            variables,
            other_variables,
            graph,
        }
    }
}

impl ChoiceInfo {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __generated(
        facility: &'static str,
        provider: &'static str,
        origin: &'static str,
        kind: Option<&'static str>,
        label: &'static str,
        provider_label: &'static str,
        links: &'static [&'static str],
    ) -> ChoiceInfo {
        ChoiceInfo {
            facility,
            provider,
            origin,
            kind,
            label,
            provider_label,
            links,
        }
    }
}

impl LibraryBuildInfo {
    #[doc(hidden)]
    pub const fn __generated(
        library: &'static str,
        version: Option<&'static str>,
        located_by: &'static str,
        lib_dirs: &'static [&'static str],
        static_link: bool,
    ) -> LibraryBuildInfo {
        LibraryBuildInfo {
            library,
            version,
            located_by,
            lib_dirs,
            static_link,
        }
    }
}

impl GraphRead {
    #[doc(hidden)]
    pub const fn __generated(
        key: &'static str,
        values: &'static [&'static str],
        open: bool,
    ) -> GraphRead {
        GraphRead { key, values, open }
    }
}

/// The build options one fact per line:
///
/// ```text
/// features: zlib
/// config-file: (none)
/// inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)
/// zlib-build: 1.2.13 located by libz-sys in the compiler's default paths (dynamic)
/// target: x86_64-unknown-linux-gnu
/// ```
///
/// [`BuildInfo::describe`] adds each facility's label and its provider's (`INFLATE: ZLIB`) first,
/// and the `links:` line.
impl fmt::Display for BuildInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_lines(f, None)
    }
}

/// [`BuildInfo::describe`]'s result.
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    info: &'a BuildInfo,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info;
        for choice in info.choices {
            writeln!(f, "{}: {}", choice.label, choice.provider_label)?;
        }
        info.write_lines(f, Some(&info.links()))
    }
}

impl BuildInfo {
    /// The lines of [`fmt::Display`], with a `links:` line when `links` is given.
    fn write_lines(&self, f: &mut fmt::Formatter<'_>, links: Option<&[&str]>) -> fmt::Result {
        writeln!(f, "features: {}", self.describe_features())?;
        writeln!(f, "config-file: {}", self.config_file)?;
        for choice in self.choices {
            writeln!(f, "{choice}")?;
        }
        if let Some(links) = links {
            let statically: Vec<&str> = self
                .libraries
                .iter()
                .filter(|l| l.static_link)
                .map(|l| l.library)
                .collect();
            if links.is_empty() {
                writeln!(f, "links: (none)")?;
            } else if statically.is_empty() {
                writeln!(f, "links: {}", links.join(" "))?;
            } else {
                writeln!(
                    f,
                    "links: {} ({} linked statically)",
                    links.join(" "),
                    statically.join(", ")
                )?;
            }
        }
        for l in self.libraries {
            let dirs = if l.lib_dirs.is_empty() {
                "the compiler's default paths".to_string()
            } else {
                l.lib_dirs.join(", ")
            };
            writeln!(
                f,
                "{}-build: {}located by {} in {dirs} ({})",
                l.library,
                l.version.map_or(String::new(), |v| format!("{v} ")),
                l.located_by,
                if l.static_link { "static" } else { "dynamic" }
            )?;
        }
        write!(f, "target: {}", self.target)
    }

    /// The build options with the table's labels: `<facility label>: <provider label>` for each
    /// facility, then [`fmt::Display`]'s lines with `links:` (the libraries the selected
    /// providers link) before the `*-build:` lines.
    ///
    /// ```
    /// use flagsplit_info::{BuildInfo, ChoiceInfo};
    /// # const BUILD_INFO: BuildInfo = BuildInfo::__generated("inflate-demo", "INFLATE_DEMO",
    /// #     &[ChoiceInfo::__generated("inflate", "miniz", "default", None, "INFLATE", "MINIZ_OXIDE", &[])],
    /// #     &[], &[], "(none)", &[], "x86_64-unknown-linux-gnu", &[], &[], &[]);
    /// // BUILD_INFO: include!(concat!(env!("OUT_DIR"), "/build_info.rs")), as build.rs wrote it.
    /// assert_eq!(
    ///     BUILD_INFO.describe().to_string(),
    ///     "INFLATE: MINIZ_OXIDE
    /// features: (none)
    /// config-file: (none)
    /// inflate-provider: miniz (from default)
    /// links: (none)
    /// target: x86_64-unknown-linux-gnu"
    /// );
    /// ```
    pub fn describe(&self) -> Described<'_> {
        Described { info: self }
    }

    /// The libraries the selected providers link, each once, in table order.
    pub fn links(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for l in self.choices.iter().flat_map(|c| c.links.iter()) {
            if !out.contains(l) {
                out.push(l);
            }
        }
        out
    }

    /// The probed library named `name`, if the build probed it.
    pub fn library(&self, name: &str) -> Option<&LibraryBuildInfo> {
        self.libraries.iter().find(|l| l.library == name)
    }

    /// Every enabled feature's name: provider features, then source features.
    pub fn feature_names(&self) -> Vec<&'static str> {
        self.features
            .iter()
            .chain(self.source_features)
            .copied()
            .collect()
    }

    /// [`BuildInfo::feature_names`] space-separated, or `(none)`, as the `features:` line of
    /// `--build-options` says them.
    pub fn describe_features(&self) -> String {
        let names = self.feature_names();
        if names.is_empty() {
            "(none)".to_string()
        } else {
            names.join(" ")
        }
    }

    /// The selection of the facility named `facility`, if the table has one.
    pub fn choice(&self, facility: &str) -> Option<&ChoiceInfo> {
        self.choices.iter().find(|c| c.facility == facility)
    }

    /// The name of the provider selected for the facility named `facility` (empty when the table
    /// has no such facility).
    pub fn provider(&self, facility: &str) -> &'static str {
        self.choice(facility).map_or("", |c| c.provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZLIB: BuildInfo = BuildInfo::__generated(
        "inflate-demo",
        "INFLATE_DEMO",
        &[
            ChoiceInfo::__generated(
                "inflate",
                "zlib",
                "INFLATE_DEMO_INFLATE_PROVIDER",
                Some("zlib"),
                "INFLATE",
                "ZLIB",
                &["libz"],
            ),
            ChoiceInfo::__generated(
                "deflate",
                "zlib",
                "default",
                None,
                "DEFLATE",
                "ZLIB",
                &["libz"],
            ),
        ],
        &["zlib"],
        &["static"],
        "(none)",
        &[LibraryBuildInfo::__generated(
            "zlib",
            Some("1.3.1"),
            "pkg-config",
            &["/opt/z/lib"],
            true,
        )],
        "x86_64-unknown-linux-gnu",
        &["INFLATE_DEMO_CONFIG", "INFLATE_DEMO_INFLATE_PROVIDER"],
        &[],
        &[GraphRead::__generated(
            "zlib",
            &["system", "pure-rust"],
            false,
        )],
    );

    #[test]
    fn describe_has_labels_links_once_and_the_static_library() {
        assert_eq!(
            ZLIB.describe().to_string(),
            "INFLATE: ZLIB
DEFLATE: ZLIB
features: zlib static
config-file: (none)
inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)
deflate-provider: zlib (from default)
links: libz (zlib linked statically)
zlib-build: 1.3.1 located by pkg-config in /opt/z/lib (static)
target: x86_64-unknown-linux-gnu"
        );
    }

    #[test]
    fn display_has_neither_labels_nor_links() {
        let text = ZLIB.to_string();
        assert!(text.starts_with("features: zlib static\n"), "{text}");
        assert!(
            !text.contains("links:") && !text.contains("INFLATE:"),
            "{text}"
        );
    }

    #[test]
    fn lookups() {
        assert_eq!(ZLIB.provider("inflate"), "zlib");
        assert_eq!(ZLIB.provider("nonesuch"), "");
        assert_eq!(ZLIB.choice("deflate").map(|c| c.origin), Some("default"));
        assert_eq!(ZLIB.library("zlib").and_then(|l| l.version), Some("1.3.1"));
        assert!(ZLIB.library("zstd").is_none());
        assert_eq!(ZLIB.links(), ["libz"]);
    }
}

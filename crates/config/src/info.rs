//! The build-options table as the binaries see it. The build script writes one [`BuildInfo`]
//! expression (data only: constants, no code that can panic) into `OUT_DIR/build_info.rs`, and
//! the package `include!`s it:
//!
//! ```ignore
//! pub const BUILD_INFO: flagsplit_config::BuildInfo =
//!     include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
//! ```

use std::fmt;

use crate::model::{Facility, Provider, Spec, names_or_none};

/// What the build decided, embedded in the binaries.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BuildInfo {
    /// One entry per facility, in the table's order.
    pub choices: &'static [ChoiceInfo],
    /// The enabled Cargo features that compile providers.
    pub features: &'static [&'static str],
    /// The enabled features that only say where a provider's library comes from
    /// (`openssl-vendored`; see [`Spec::source_features`]).
    pub source_features: &'static [&'static str],
    /// The config file that was read (`config.toml`, `myconf.toml (FLAGSPLIT_CONFIG; config.toml
    /// not read)`), or `(none)`.
    pub config_file: &'static str,
    /// The C libraries the build probed (one per [`crate::probe::Library`] that a selected
    /// provider links), in table order.
    pub libraries: &'static [LibraryBuildInfo],
    /// The target triple.
    pub target: &'static str,
}

/// One facility's selection.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ChoiceInfo {
    /// The facility's name.
    pub facility: &'static str,
    /// The provider selected.
    pub provider: &'static str,
    /// Why (the [`crate::Origin`] text: `default`, `FLAGSPLIT_SHA1_PROVIDER`, `FILE:LINE:COL`,
    /// `graph-wide RUST_BACKEND_TLS`, ...).
    pub origin: &'static str,
    /// The facility's kind ([`crate::Facility::kind`]), if it declares one.
    pub kind: Option<&'static str>,
}

/// `sha1-provider: dc (from default)`, as `version --build-options` prints a selection.
impl std::fmt::Display for ChoiceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

// The constructors the generated `build_info.rs` calls. Hidden: the file is written by this
// crate's own build-script half for the same version, and their parameters change whenever a
// field is added, which would otherwise be a breaking change of the public API.
impl BuildInfo {
    #[doc(hidden)]
    pub const fn __generated(
        choices: &'static [ChoiceInfo],
        features: &'static [&'static str],
        source_features: &'static [&'static str],
        config_file: &'static str,
        libraries: &'static [LibraryBuildInfo],
        target: &'static str,
    ) -> BuildInfo {
        BuildInfo {
            choices,
            features,
            source_features,
            config_file,
            libraries,
            target,
        }
    }
}

impl ChoiceInfo {
    #[doc(hidden)]
    pub const fn __generated(
        facility: &'static str,
        provider: &'static str,
        origin: &'static str,
        kind: Option<&'static str>,
    ) -> ChoiceInfo {
        ChoiceInfo {
            facility,
            provider,
            origin,
            kind,
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

/// The build options in the shape a binary's `--build-options` prints them, one fact per line:
///
/// ```text
/// features: zlib
/// config-file: (none)
/// inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)
/// zlib-build: 1.2.13 located by libz-sys in the compiler's default paths (dynamic)
/// target: x86_64-unknown-linux-gnu
/// ```
///
/// [`BuildInfo::describe`] adds what needs the table: each facility's label and its provider's
/// (`INFLATE: ZLIB`) first, and the `links:` line.
impl fmt::Display for BuildInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_lines(f, None)
    }
}

/// [`BuildInfo::describe`]'s result.
#[derive(Clone, Copy, Debug)]
pub struct Described<'a> {
    info: &'a BuildInfo,
    spec: &'static Spec,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (info, spec) = (self.info, self.spec);
        let mut links: Vec<&'static str> = Vec::new();
        for facility in spec.facilities {
            let provider = info.provider_of(spec, facility);
            writeln!(
                f,
                "{}: {}",
                facility.label,
                provider.map_or("?", |p| p.label)
            )?;
            for l in provider.into_iter().flat_map(|p| p.links.iter()) {
                if !links.contains(l) {
                    links.push(l);
                }
            }
        }
        info.write_lines(f, Some(&links))
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

    /// The build options with the table's labels, in the shape of flagsplit's
    /// `version --build-options`: `<facility label>: <provider label>` for each facility, then
    /// [`fmt::Display`]'s lines with `links:` (the libraries the selected providers link, every
    /// binary together) before the `*-build:` lines.
    ///
    /// ```
    /// # use flagsplit_config::{BuildInfo, Facility, Provider, Spec};
    /// # static SPEC: Spec = Spec::library("inflate-demo", "INFLATE_DEMO", "inflate_demo").facilities(&[
    /// #     Facility::new("inflate", "INFLATE", "DEFLATE decompression", &[
    /// #         Provider::new("miniz", "MINIZ_OXIDE", "pure Rust"),
    /// #         Provider::new("zlib", "ZLIB", "the system zlib").feature("zlib").links(&["libz"]),
    /// #     ]),
    /// # ]);
    /// # const BUILD_INFO: BuildInfo = BuildInfo::__generated(
    /// #     &[flagsplit_config::ChoiceInfo::__generated("inflate", "miniz", "default", None)],
    /// #     &[], &[], "(none)", &[], "x86_64-unknown-linux-gnu");
    /// // BUILD_INFO: include!(concat!(env!("OUT_DIR"), "/build_info.rs")), as build.rs wrote it.
    /// assert_eq!(
    ///     BUILD_INFO.describe(&SPEC).to_string(),
    ///     "INFLATE: MINIZ_OXIDE
    /// features: (none)
    /// config-file: (none)
    /// inflate-provider: miniz (from default)
    /// links: (none)
    /// target: x86_64-unknown-linux-gnu"
    /// );
    /// ```
    pub fn describe(&self, spec: &'static Spec) -> Described<'_> {
        Described { info: self, spec }
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
        names_or_none(&self.feature_names())
    }

    /// The name of the provider selected for the facility named `facility` (empty when the table
    /// has no such facility).
    pub fn provider(&self, facility: &str) -> &'static str {
        self.choices
            .iter()
            .find(|c| c.facility == facility)
            .map_or("", |c| c.provider)
    }

    /// The selected provider's entry in `spec`.
    pub fn provider_of(
        &self,
        spec: &'static Spec,
        facility: &Facility,
    ) -> Option<&'static Provider> {
        let facility = spec.facility(facility.name)?;
        facility.provider(self.provider(facility.name))
    }

    /// What `binary` links because of this build.
    pub fn links(&self, spec: &'static Spec, binary: &str) -> Vec<&'static str> {
        spec.links(binary, |f| self.provider_of(spec, f))
    }
}

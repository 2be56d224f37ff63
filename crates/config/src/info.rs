//! The build-options table as the binaries see it. The build script writes one [`BuildInfo`]
//! literal (data only: constants, no code that can panic) with [`crate::codegen`], and the
//! package `include!`s it.

use crate::model::{Facility, Provider, Spec, names_or_none};

/// What the build decided, embedded in the binaries.
#[derive(Clone, Copy, Debug)]
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
    /// The OpenSSL the build found, when an OpenSSL provider is selected.
    pub openssl: Option<OpensslBuildInfo>,
    /// The other C libraries the build probed (one per [`crate::probe::Library`] with
    /// [`crate::probe::Finder::Generic`] that a selected provider links), in table order.
    pub libraries: &'static [LibraryBuildInfo],
    /// The target triple.
    pub target: &'static str,
}

/// One facility's selection.
#[derive(Clone, Copy, Debug)]
pub struct ChoiceInfo {
    /// The facility's name.
    pub facility: &'static str,
    /// The provider selected.
    pub provider: &'static str,
    /// Why (the [`crate::Origin`] text: `default`, `FLAGSPLIT_SHA1_PROVIDER`, `FILE:LINE:COL`, ...).
    pub origin: &'static str,
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

/// The OpenSSL found at build time.
#[derive(Clone, Copy, Debug)]
pub struct OpensslBuildInfo {
    /// Version text (`3.0.19`), from `DEP_OPENSSL_VERSION_NUMBER`.
    pub version: &'static str,
    /// How it was located (`openssl-sys`, `OPENSSL_DIR=...`).
    pub located_by: &'static str,
    /// The library directories.
    pub lib_dirs: &'static [&'static str],
    /// Whether it is linked statically (`OPENSSL_STATIC`, vendored).
    pub static_link: bool,
}

/// A C library other than OpenSSL that the build probed.
#[derive(Clone, Copy, Debug)]
pub struct LibraryBuildInfo {
    /// Its name (`zlib`).
    pub library: &'static str,
    /// How it was located (`libz-sys`, or `libz-sys (built by it: DEP_Z_ROOT)`).
    pub located_by: &'static str,
    /// The library directories; none: the compiler's default.
    pub lib_dirs: &'static [&'static str],
    /// Linked statically.
    pub static_link: bool,
}

impl BuildInfo {
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

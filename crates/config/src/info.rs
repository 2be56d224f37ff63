//! The build-options table as the binaries see it. `build.rs` writes one [`BuildInfo`] literal
//! (data only: constants, no code that can panic) with [`crate::codegen`], and the library
//! `include!`s it.

use crate::model::{Binary, Facility, Feature, Links, Provider};

/// What the build decided, embedded in the binaries.
#[derive(Clone, Copy, Debug)]
pub struct BuildInfo {
    /// One entry per facility, in [`Facility::ALL`] order.
    pub choices: [ChoiceInfo; 4],
    /// The enabled Cargo features that compile providers.
    pub features: &'static [Feature],
    /// The enabled features that only say where a provider's library comes from
    /// (`openssl-vendored`; see [`crate::knobs::SOURCE_FEATURES`]).
    pub source_features: &'static [&'static str],
    /// The OpenSSL the build found, when an OpenSSL provider is selected.
    pub openssl: Option<OpensslBuildInfo>,
    /// The target triple.
    pub target: &'static str,
}

/// One facility's selection.
#[derive(Clone, Copy, Debug)]
pub struct ChoiceInfo {
    /// The facility.
    pub facility: Facility,
    /// The provider selected.
    pub provider: Provider,
    /// Why (the [`crate::Origin`] text: `default`, `FLAGSPLIT_SHA1_PROVIDER`, `FILE:LINE:COL`, ...).
    pub origin: &'static str,
}

/// The OpenSSL found at build time.
#[derive(Clone, Copy, Debug)]
pub struct OpensslBuildInfo {
    /// Version text (`3.0.19`), from `DEP_OPENSSL_VERSION_NUMBER`.
    pub version: &'static str,
    /// How it was located (`pkg-config`, `OPENSSL_DIR=...`).
    pub located_by: &'static str,
    /// The library directories.
    pub lib_dirs: &'static [&'static str],
    /// Whether it is linked statically (`OPENSSL_STATIC`).
    pub static_link: bool,
}

impl BuildInfo {
    /// Every enabled feature's name: provider features, then source features.
    pub fn feature_names(&self) -> Vec<&'static str> {
        self.features
            .iter()
            .map(|f| f.name())
            .chain(self.source_features.iter().copied())
            .collect()
    }

    /// The selection for `facility`.
    pub fn choice(&self, facility: Facility) -> &ChoiceInfo {
        &self.choices[facility as usize]
    }

    /// The provider for `facility`.
    pub fn provider(&self, facility: Facility) -> Provider {
        self.choice(facility).provider
    }

    /// What `binary` links because of this build (see [`Links::of`]).
    pub fn links(&self, binary: Binary) -> Links {
        Links::of(binary, |f| self.provider(f))
    }
}

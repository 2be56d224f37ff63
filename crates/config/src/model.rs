//! The vocabulary shared by `build.rs`, the library and the binaries: facilities, providers, Cargo
//! features, where a choice came from, and every variable flagsplit reads.
//!
//! Everything here is plain data with no dependencies, so the shipped binaries can use it to print
//! `--build-options` without pulling in the TOML reader.

use std::fmt;

pub use crate::probe::Capability;

/// One thing the library needs, for which several implementations ("providers") exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Facility {
    /// SHA-1 over untrusted content (object ids, `sha1sum`): collision detection matters.
    Sha1,
    /// SHA-1 over data flagsplit wrote itself (checksums): no collision detection needed.
    Sha1Unsafe,
    /// MD5 (`md5sum`, CRAM-MD5).
    Md5,
    /// TLS for `flagsplit-imap-send`.
    Tls,
}

impl Facility {
    /// Every facility, in the order they are reported.
    pub const ALL: [Facility; 4] = [
        Facility::Sha1,
        Facility::Sha1Unsafe,
        Facility::Md5,
        Facility::Tls,
    ];

    /// The name used in the config file (`[sha1-unsafe]`) and in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Facility::Sha1 => "sha1",
            Facility::Sha1Unsafe => "sha1-unsafe",
            Facility::Md5 => "md5",
            Facility::Tls => "tls",
        }
    }

    /// The build-time variable that selects this facility's provider.
    pub const fn env_var(self) -> &'static str {
        match self {
            Facility::Sha1 => "FLAGSPLIT_SHA1_PROVIDER",
            Facility::Sha1Unsafe => "FLAGSPLIT_SHA1_UNSAFE_PROVIDER",
            Facility::Md5 => "FLAGSPLIT_MD5_PROVIDER",
            Facility::Tls => "FLAGSPLIT_TLS_PROVIDER",
        }
    }

    /// The name of the value `cfg` the build script emits (`flagsplit_sha1 = "dc"`).
    pub const fn cfg_name(self) -> &'static str {
        match self {
            Facility::Sha1 => "flagsplit_sha1",
            Facility::Sha1Unsafe => "flagsplit_sha1_unsafe",
            Facility::Md5 => "flagsplit_md5",
            Facility::Tls => "flagsplit_tls",
        }
    }

    /// What the facility is used for, one line.
    pub const fn purpose(self) -> &'static str {
        match self {
            Facility::Sha1 => "SHA-1 of untrusted content: sha1sum, hash-object (object ids)",
            Facility::Sha1Unsafe => {
                "SHA-1 without collision detection: checksums of flagsplit's own data, --no-collision-detection"
            }
            Facility::Md5 => "MD5: md5sum, CRAM-MD5 in imap-send",
            Facility::Tls => "TLS for flagsplit-imap-send (imaps://, STARTTLS)",
        }
    }

    /// The providers that can be selected for this facility, in documentation order.
    pub const fn providers(self) -> &'static [Provider] {
        match self {
            Facility::Sha1 => &[Provider::Dc, Provider::Block, Provider::Openssl],
            Facility::Sha1Unsafe => &[Provider::Block, Provider::Openssl],
            Facility::Md5 => &[Provider::Builtin, Provider::Openssl],
            Facility::Tls => &[Provider::Rustls, Provider::Openssl, Provider::None],
        }
    }

    /// The provider chosen when nothing selects one, given the enabled features (DESIGN §1).
    ///
    /// A build script cannot tell a default feature from an explicit one, so the order is fixed:
    /// an OpenSSL feature wins over the built-in provider, and `openssl-tls` over `rustls-tls`.
    pub fn default_choice(self, features: FeatureSet) -> Choice {
        let by_feature = |feature: Feature, provider: Provider| Choice {
            provider,
            origin: Origin::FeatureDefault(feature),
        };
        match self {
            Facility::Sha1 | Facility::Sha1Unsafe if features.contains(Feature::OpensslSha1) => {
                by_feature(Feature::OpensslSha1, Provider::Openssl)
            }
            Facility::Sha1 => Choice::default_of(Provider::Dc),
            Facility::Sha1Unsafe => Choice::default_of(Provider::Block),
            Facility::Md5 if features.contains(Feature::OpensslMd5) => {
                by_feature(Feature::OpensslMd5, Provider::Openssl)
            }
            Facility::Md5 => Choice::default_of(Provider::Builtin),
            Facility::Tls if features.contains(Feature::OpensslTls) => {
                by_feature(Feature::OpensslTls, Provider::Openssl)
            }
            Facility::Tls if features.contains(Feature::RustlsTls) => {
                by_feature(Feature::RustlsTls, Provider::Rustls)
            }
            Facility::Tls => Choice::default_of(Provider::None),
        }
    }

    /// The Cargo feature that compiles `provider` for this facility, if it needs one.
    pub const fn required_feature(self, provider: Provider) -> Option<Feature> {
        match (self, provider) {
            (Facility::Sha1 | Facility::Sha1Unsafe, Provider::Openssl) => {
                Some(Feature::OpensslSha1)
            }
            (Facility::Md5, Provider::Openssl) => Some(Feature::OpensslMd5),
            (Facility::Tls, Provider::Openssl) => Some(Feature::OpensslTls),
            (Facility::Tls, Provider::Rustls) => Some(Feature::RustlsTls),
            _ => None,
        }
    }

    /// Whether `provider` is compiled in with these features.
    pub fn is_available(self, provider: Provider, features: FeatureSet) -> bool {
        self.required_feature(provider)
            .is_none_or(|feature| features.contains(feature))
    }

    /// Looks a facility up by its config-file name.
    pub fn from_name(name: &str) -> Option<Facility> {
        Facility::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Facility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One implementation of a facility.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    /// Collision-detecting SHA-1 (crate `sha1dc`), git's SHA1_DC.
    Dc,
    /// Block SHA-1 without detection (crate `sha1`, SHA-NI chosen at run time), git's BLK_SHA1.
    Block,
    /// libcrypto for hashing, libssl for TLS.
    Openssl,
    /// Built-in MD5.
    Builtin,
    /// rustls for TLS.
    Rustls,
    /// No TLS at all (`imap.tunnel` still works).
    None,
}

impl Provider {
    /// Every provider name.
    pub const ALL: [Provider; 6] = [
        Provider::Dc,
        Provider::Block,
        Provider::Openssl,
        Provider::Builtin,
        Provider::Rustls,
        Provider::None,
    ];

    /// The name used in variables, the config file and `cfg` values.
    pub const fn name(self) -> &'static str {
        match self {
            Provider::Dc => "dc",
            Provider::Block => "block",
            Provider::Openssl => "openssl",
            Provider::Builtin => "builtin",
            Provider::Rustls => "rustls",
            Provider::None => "none",
        }
    }

    /// Looks a provider up by name (exact, lower case).
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Cargo feature that compiles a provider in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// `openssl-sha1`
    OpensslSha1,
    /// `openssl-md5`
    OpensslMd5,
    /// `openssl-tls`
    OpensslTls,
    /// `rustls-tls` (in `default`)
    RustlsTls,
}

impl Feature {
    /// Every feature, in documentation order.
    pub const ALL: [Feature; 4] = [
        Feature::OpensslSha1,
        Feature::OpensslMd5,
        Feature::OpensslTls,
        Feature::RustlsTls,
    ];

    /// The feature's name in `Cargo.toml`.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::OpensslSha1 => "openssl-sha1",
            Feature::OpensslMd5 => "openssl-md5",
            Feature::OpensslTls => "openssl-tls",
            Feature::RustlsTls => "rustls-tls",
        }
    }

    /// The variable Cargo sets for build scripts when the feature is on.
    pub const fn cargo_env(self) -> &'static str {
        match self {
            Feature::OpensslSha1 => "CARGO_FEATURE_OPENSSL_SHA1",
            Feature::OpensslMd5 => "CARGO_FEATURE_OPENSSL_MD5",
            Feature::OpensslTls => "CARGO_FEATURE_OPENSSL_TLS",
            Feature::RustlsTls => "CARGO_FEATURE_RUSTLS_TLS",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Feature::OpensslSha1 => 1,
            Feature::OpensslMd5 => 2,
            Feature::OpensslTls => 4,
            Feature::RustlsTls => 8,
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of enabled features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeatureSet(u8);

impl FeatureSet {
    /// No features at all (`--no-default-features`).
    pub const EMPTY: FeatureSet = FeatureSet(0);

    /// Cargo's `default` set.
    pub const DEFAULT: FeatureSet = FeatureSet(Feature::RustlsTls.bit());

    /// The set with `feature` added.
    #[must_use]
    pub const fn with(self, feature: Feature) -> FeatureSet {
        FeatureSet(self.0 | feature.bit())
    }

    /// Whether `feature` is on.
    pub const fn contains(self, feature: Feature) -> bool {
        self.0 & feature.bit() != 0
    }

    /// The enabled features, in documentation order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |f| self.contains(*f))
    }

    /// Every one of the 16 possible sets, for exhaustive tests.
    pub fn all_combinations() -> impl Iterator<Item = FeatureSet> {
        (0u8..16).map(FeatureSet)
    }
}

impl FromIterator<Feature> for FeatureSet {
    fn from_iter<I: IntoIterator<Item = Feature>>(iter: I) -> Self {
        iter.into_iter().fold(FeatureSet::EMPTY, FeatureSet::with)
    }
}

impl fmt::Display for FeatureSet {
    /// Space-separated feature names, or `(none)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for feature in self.iter() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            f.write_str(feature.name())?;
        }
        if first {
            f.write_str("(none)")?;
        }
        Ok(())
    }
}

/// Where a selection came from: every choice is explained, nothing is automagic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Nothing asked; the built-in default.
    Default,
    /// Nothing asked, and the default follows from this enabled feature.
    FeatureDefault(Feature),
    /// A `FLAGSPLIT_*_PROVIDER` variable (from the shell or `.cargo/config.toml` `[env]`).
    Env(&'static str),
    /// The config file named by `FLAGSPLIT_CONFIG`, with the 1-based position of the value.
    File {
        /// The path as `FLAGSPLIT_CONFIG` gave it (not made absolute, so builds stay reproducible).
        path: String,
        /// Line of the value.
        line: u32,
        /// Column of the value, in characters.
        column: u32,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::FeatureDefault(feature) => write!(f, "default with feature {feature}"),
            Origin::Env(var) => f.write_str(var),
            Origin::File { path, line, column } => write!(f, "{path}:{line}:{column}"),
        }
    }
}

/// The provider selected for one facility, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The selected provider.
    pub provider: Provider,
    /// Who asked for it.
    pub origin: Origin,
}

impl Choice {
    /// A choice nobody asked for.
    pub const fn default_of(provider: Provider) -> Choice {
        Choice {
            provider,
            origin: Origin::Default,
        }
    }
}

/// One selected provider per facility.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Indexed in [`Facility::ALL`] order.
    pub choices: [Choice; 4],
}

impl Selection {
    /// The choice for `facility`.
    pub fn get(&self, facility: Facility) -> &Choice {
        &self.choices[facility as usize]
    }

    /// The provider for `facility`.
    pub fn provider(&self, facility: Facility) -> Provider {
        self.get(facility).provider
    }

    /// OpenSSL computes SHA-1 (checked or unchecked): git's `OPENSSL_SHA1`, cfg `openssl_sha1`.
    pub fn openssl_sha1(&self) -> bool {
        self.provider(Facility::Sha1) == Provider::Openssl
            || self.provider(Facility::Sha1Unsafe) == Provider::Openssl
    }

    /// OpenSSL computes MD5: cfg `openssl_md5`.
    pub fn openssl_md5(&self) -> bool {
        self.provider(Facility::Md5) == Provider::Openssl
    }

    /// OpenSSL speaks TLS: git's `OPENSSL_TLS`, cfg `openssl_tls`.
    pub fn openssl_tls(&self) -> bool {
        self.provider(Facility::Tls) == Provider::Openssl
    }

    /// The libraries each binary links because of this selection.
    pub fn links(&self, binary: Binary) -> Links {
        Links::of(binary, |f| self.provider(f))
    }

    /// The OpenSSL capabilities the build must probe for.
    pub fn needed_capabilities(&self) -> Vec<Capability> {
        let mut needed = Vec::new();
        if self.openssl_sha1() {
            needed.push(Capability::Sha1Digest);
        }
        if self.openssl_md5() {
            needed.push(Capability::Md5Digest);
        }
        if self.openssl_tls() {
            needed.push(Capability::TlsClient);
        }
        needed
    }
}

/// The two shipped executables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `flagsplit`: hashing, `version`, `bench`.
    Flagsplit,
    /// `flagsplit-imap-send`: the IMAP sender.
    ImapSend,
}

impl Binary {
    /// The executable's name.
    pub const fn name(self) -> &'static str {
        match self {
            Binary::Flagsplit => "flagsplit",
            Binary::ImapSend => "flagsplit-imap-send",
        }
    }
}

/// Which OpenSSL libraries a binary links (NEEDED entries, for a dynamic build).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Links {
    /// libcrypto.
    pub libcrypto: bool,
    /// libssl.
    pub libssl: bool,
}

impl Links {
    /// What `binary` links when `provider` gives each facility's selection: `flagsplit` links
    /// libcrypto only for an OpenSSL hashing provider and never libssl; the sender also links
    /// libssl (and libcrypto) for OpenSSL TLS.
    pub fn of(binary: Binary, provider: impl Fn(Facility) -> Provider) -> Links {
        let openssl = |f: Facility| provider(f) == Provider::Openssl;
        let hashing =
            openssl(Facility::Sha1) || openssl(Facility::Sha1Unsafe) || openssl(Facility::Md5);
        match binary {
            Binary::Flagsplit => Links {
                libcrypto: hashing,
                libssl: false,
            },
            Binary::ImapSend => Links {
                libcrypto: hashing || openssl(Facility::Tls),
                libssl: openssl(Facility::Tls),
            },
        }
    }
}

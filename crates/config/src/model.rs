//! The declarative facility model: one [`Spec`] table describes every facility of a crate — its
//! name, purpose, providers (the Cargo feature that compiles each and what each makes a binary
//! link) and default order. Everything else is derived from that table: the variable names
//! (`<PREFIX>_<FACILITY>_PROVIDER`), the config-file schema (`[facility] provider = "..."`), the
//! `cfg` names, the resolver's defaults, the error texts, the knob table and the build-options data.
//!
//! Everything here is plain data with no dependencies, so the shipped binaries can use it to print
//! `--build-options` without pulling in the TOML reader.
//!
//! A crate declares its own facilities with a `static` table built by `const fn`s, and resolves
//! them from its build script (feature `build-script`, `script::Build`):
//!
//! ```
//! use flagsplit_config::{Facility, FeatureSet, Provider, Role, Spec};
//!
//! static SPEC: Spec = Spec::application("inflate-demo", "DEMO", "demo")
//!     .binaries(&["demo"])
//!     .facilities(&[Facility::new(
//!         "inflate",
//!         "INFLATE",
//!         "DEFLATE decompression",
//!         &[
//!             Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (miniz_oxide)"),
//!             Provider::new("zlib", "ZLIB", "the system zlib (libz-sys)")
//!                 .feature("zlib")
//!                 .links(&["libz"]),
//!         ],
//!     )
//!     .default_order(&["zlib", "miniz"])
//!     .used_by(&["demo"])])
//!     .local_config("config.toml")
//!     .example_config("config.example.toml");
//!
//! let inflate = SPEC.facility("inflate").unwrap();
//! assert_eq!(SPEC.env_var(inflate), "DEMO_INFLATE_PROVIDER");
//! assert_eq!(SPEC.cfg_name(inflate), "demo_inflate");
//! // In an application, the first provider of the default order whose feature is on.
//! let app = Role::Application;
//! assert_eq!(inflate.default_choice(app, &FeatureSet::EMPTY).provider.name, "miniz");
//! let zlib = FeatureSet::from_names(&SPEC, ["zlib"]);
//! assert_eq!(inflate.default_choice(app, &zlib).provider.name, "zlib");
//! // In a library, features only compile: the default stays.
//! assert_eq!(inflate.default_choice(Role::Library, &zlib).provider.name, "miniz");
//! ```
//!
//! The types are `#[non_exhaustive]`: a table is built with the constructors and the builder
//! methods, never with a struct literal, so that a field added in a later version breaks no table.
//! The fields stay public for reading.

use std::fmt;

use crate::clib::Probe;
use crate::graph::{KINDS, SHARED_PROVIDERS};

/// A crate's facilities and the names derived from them. Built with [`Spec::library`] or
/// [`Spec::application`] and the builder methods (all `const fn`, for a `static`).
#[derive(Debug)]
#[non_exhaustive]
pub struct Spec {
    /// The crate, for messages.
    pub name: &'static str,
    /// Prefix of every variable, without the trailing underscore: `FLAGSPLIT` gives
    /// `FLAGSPLIT_SHA1_PROVIDER` and `FLAGSPLIT_CONFIG`.
    pub prefix: &'static str,
    /// Prefix of the value `cfg`s: `flagsplit` gives `flagsplit_sha1 = "dc"`.
    pub cfg_prefix: &'static str,
    /// The executables of the package, in documentation order.
    pub binaries: &'static [&'static str],
    /// The facilities, in the order they are reported.
    pub facilities: &'static [Facility],
    /// The provider features in Cargo's `default` set (as the crate's `Cargo.toml` says; a build
    /// script cannot tell a default feature from an explicit one, so this is documentation).
    pub default_features: &'static [&'static str],
    /// The other `<PREFIX>_*` variables (read at run time or by tests): known names, so not typos,
    /// and rows of the knob table.
    pub variables: &'static [Variable],
    /// Cargo features that say where a provider's library comes from rather than which provider is
    /// compiled (for example a vendored build); reported, never selected with.
    pub source_features: &'static [Variable],
    /// Variables of other crates that the build honours (documented in the knob table only).
    pub foreign_variables: &'static [Variable],
    /// The user's own config file at the package root (`config.toml`), read when the
    /// `<PREFIX>_CONFIG` variable names no other file; `None` for none.
    pub local_config: Option<&'static str>,
    /// The committed, documented example of the config file (`config.example.toml`) that error
    /// messages point at; `None` when the crate has none.
    pub example_config: Option<&'static str>,
    /// Whether the crate builds the application or is a library somewhere in its dependency
    /// graph: it decides what enabled features mean for the defaults.
    pub role: Role,
}

/// What a crate's enabled provider features mean for its defaults.
///
/// Cargo unifies a crate's features over every package in the build that depends on it. For the
/// package that builds the executables that is harmless: its features are the application's own
/// choice. For a library, one dependent turning a feature on would switch the provider for every
/// other dependent, so there features only compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// The package that builds the executables. A facility's default is the first provider of
    /// its [`Facility::default_order`] whose feature is on.
    Application,
    /// A library used by others. A facility's default is fixed: the first provider of its
    /// [`Facility::default_order`] that needs no feature, whatever features are on. The
    /// application selects any other compiled provider with the `<PREFIX>_<FACILITY>_PROVIDER`
    /// variable (in its `.cargo/config.toml` `[env]`); a provider compiled by a feature and
    /// selected by nobody is reported with a build-script warning.
    Library,
}

impl Spec {
    const fn empty(
        name: &'static str,
        prefix: &'static str,
        cfg_prefix: &'static str,
        role: Role,
    ) -> Spec {
        Spec {
            name,
            prefix,
            cfg_prefix,
            binaries: &[],
            facilities: &[],
            default_features: &[],
            variables: &[],
            source_features: &[],
            foreign_variables: &[],
            local_config: None,
            example_config: None,
            role,
        }
    }

    /// The table of a library ([`Role::Library`]): `name` for messages, `prefix` for its
    /// variables (`INFLATE_DEMO` gives `INFLATE_DEMO_INFLATE_PROVIDER`), `cfg_prefix` for its
    /// `cfg`s (`inflate_demo` gives `cfg(inflate_demo_inflate = "zlib")`). No facility, no
    /// variable, no config file until the builder methods add them.
    pub const fn library(
        name: &'static str,
        prefix: &'static str,
        cfg_prefix: &'static str,
    ) -> Spec {
        Spec::empty(name, prefix, cfg_prefix, Role::Library)
    }

    /// The table of the package that builds the executables ([`Role::Application`]); otherwise as
    /// [`Spec::library`].
    pub const fn application(
        name: &'static str,
        prefix: &'static str,
        cfg_prefix: &'static str,
    ) -> Spec {
        Spec::empty(name, prefix, cfg_prefix, Role::Application)
    }

    /// The same, with these facilities ([`Spec::facilities`]).
    pub const fn facilities(self, facilities: &'static [Facility]) -> Spec {
        Spec { facilities, ..self }
    }

    /// The same, with these executables ([`Spec::binaries`]).
    pub const fn binaries(self, binaries: &'static [&'static str]) -> Spec {
        Spec { binaries, ..self }
    }

    /// The same, with these provider features in Cargo's `default` set ([`Spec::default_features`]).
    pub const fn default_features(self, default_features: &'static [&'static str]) -> Spec {
        Spec {
            default_features,
            ..self
        }
    }

    /// The same, with these other `<PREFIX>_*` variables ([`Spec::variables`]).
    pub const fn variables(self, variables: &'static [Variable]) -> Spec {
        Spec { variables, ..self }
    }

    /// The same, with these source features ([`Spec::source_features`]).
    pub const fn source_features(self, source_features: &'static [Variable]) -> Spec {
        Spec {
            source_features,
            ..self
        }
    }

    /// The same, with these variables of other crates ([`Spec::foreign_variables`]).
    pub const fn foreign_variables(self, foreign_variables: &'static [Variable]) -> Spec {
        Spec {
            foreign_variables,
            ..self
        }
    }

    /// The same, reading the user's config file `file` at the package root when `<PREFIX>_CONFIG`
    /// names none ([`Spec::local_config`]; for an application: a library's package root is
    /// Cargo's unpacked copy when it comes from a registry).
    pub const fn local_config(self, file: &'static str) -> Spec {
        Spec {
            local_config: Some(file),
            ..self
        }
    }

    /// The same, pointing messages at the committed example config file `file`
    /// ([`Spec::example_config`]).
    pub const fn example_config(self, file: &'static str) -> Spec {
        Spec {
            example_config: Some(file),
            ..self
        }
    }

    /// Where the config-file format is documented, for messages: `config.example.toml documents
    /// the format` or nothing.
    pub fn format_hint(&self) -> String {
        match self.example_config {
            Some(example) => format!("{example} documents the format"),
            None => format!(
                "one [facility] table with a provider key each; facilities: {}",
                joined(self.facilities, ", ", &|f| f.name.to_string())
            ),
        }
    }
}

/// One thing a crate needs, for which several implementations ("providers") exist. Built with
/// [`Facility::new`] and the builder methods.
#[derive(Debug)]
#[non_exhaustive]
pub struct Facility {
    /// The name used in the config file (`[sha1-unsafe]`), in messages and, upper-cased with `_`
    /// for `-`, in the variable and `cfg` names.
    pub name: &'static str,
    /// The key of its `version --build-options` line (`SHA-1`).
    pub label: &'static str,
    /// What it is used for, one line.
    pub purpose: &'static str,
    /// Every provider, in documentation order.
    pub providers: &'static [Provider],
    /// The default: the first of these providers that the enabled features compile (a library:
    /// the first that needs no feature). One of them must need no feature, so that there always is
    /// a default. Empty: the providers in their declared order.
    pub default_order: &'static [&'static str],
    /// The binaries that use this facility: only those link what its provider links.
    pub used_by: &'static [&'static str],
    /// Its kind, from the shared vocabulary [`KINDS`] (`tls`, `zlib`, ...): a graph-wide setting
    /// (`RUST_BACKEND_TLS=openssl`) selects for every facility of that kind in the build. `None`: only
    /// the crate's own settings select.
    pub kind: Option<&'static str>,
}

/// One implementation of a facility. Built with [`Provider::new`] and the builder methods.
#[derive(Debug)]
#[non_exhaustive]
pub struct Provider {
    /// The name used in variables, the config file and `cfg` values.
    pub name: &'static str,
    /// Its token on the facility's `version --build-options` line (`SHA1_DC`).
    pub label: &'static str,
    /// What it is, one line.
    pub summary: &'static str,
    /// The Cargo feature that compiles it; `None` when it is always compiled.
    pub feature: Option<&'static str>,
    /// The shared libraries a binary that uses it links (`libcrypto`), for the knob table and
    /// `version --build-options`; checked against `readelf -d` by the build matrix.
    pub links: &'static [&'static str],
    /// The C library it links and the program that proves the build can link it, probed by the
    /// build script before the provider is used; `None` for nothing.
    pub probe: Option<&'static Probe>,
    /// The shared provider name ([`SHARED_PROVIDERS`]) it answers to when a graph-wide setting
    /// selects for its facility's kind; `None`: graph-wide settings never select it.
    pub answers_to: Option<&'static str>,
    /// What it guarantees that a policy may require rather than name one crate's provider
    /// (`collision-detection` for a SHA-1 that detects collision attacks), each under the name
    /// rule of kinds ([`crate::graph::name_problem`]); carried in the build options
    /// (`flagsplit-config.json`).
    pub properties: &'static [&'static str],
}

impl Provider {
    /// A provider that is always compiled, links nothing and needs no probe: `name` is what a
    /// user selects (`zlib` in `INFLATE_DEMO_INFLATE_PROVIDER=zlib`, the config file's
    /// `provider = "zlib"`, the value of the `cfg`); `label` is the token the build options print
    /// for it after its facility's label (`INFLATE: ZLIB` in [`BuildInfo::describe`], git-style
    /// `SHA1_DC` in flagsplit's `--build-options`); `summary` is one line for the documentation
    /// and the knob table. [`Provider::feature`], [`Provider::links`] and [`Provider::probe`]
    /// add the rest.
    ///
    /// [`BuildInfo::describe`]: flagsplit_info::BuildInfo::describe
    pub const fn new(name: &'static str, label: &'static str, summary: &'static str) -> Provider {
        Provider {
            name,
            label,
            summary,
            feature: None,
            links: &[],
            probe: None,
            answers_to: None,
            properties: &[],
        }
    }

    /// The same, answering to the shared provider name `shared` ([`SHARED_PROVIDERS`]) when a
    /// graph-wide setting selects for its facility's kind ([`Facility::kind`]).
    pub const fn answers_to(self, shared: &'static str) -> Provider {
        Provider {
            answers_to: Some(shared),
            ..self
        }
    }

    /// The same, compiled only with Cargo feature `feature`.
    pub const fn feature(self, feature: &'static str) -> Provider {
        Provider {
            feature: Some(feature),
            ..self
        }
    }

    /// The same, making a binary that uses it link `libraries`.
    pub const fn links(self, libraries: &'static [&'static str]) -> Provider {
        Provider {
            links: libraries,
            ..self
        }
    }

    /// The same, with the properties `properties` (`&["collision-detection"]`; see
    /// [`Provider::properties`]).
    pub const fn properties(self, properties: &'static [&'static str]) -> Provider {
        Provider { properties, ..self }
    }

    /// The same, needing the build script's probe `probe`.
    pub const fn probe(self, probe: &'static Probe) -> Provider {
        Provider {
            probe: Some(probe),
            ..self
        }
    }

    /// Whether the enabled `features` compile it.
    pub fn is_available(&self, features: &FeatureSet) -> bool {
        self.feature.map_or(true, |f| features.contains(f))
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Facility {
    /// A facility: `name` (config file, messages, variable and `cfg` names), `label` (its key in
    /// the build options a binary prints: `INFLATE` in `INFLATE: ZLIB`, see
    /// [`BuildInfo::describe`](flagsplit_info::BuildInfo::describe)), `purpose` (one line for the
    /// documentation and the knob table), and its providers in documentation order. The default order is the declared one until
    /// [`Facility::default_order`] says otherwise; it is used by every binary until
    /// [`Facility::used_by`] names some.
    pub const fn new(
        name: &'static str,
        label: &'static str,
        purpose: &'static str,
        providers: &'static [Provider],
    ) -> Facility {
        Facility {
            name,
            label,
            purpose,
            providers,
            default_order: &[],
            used_by: &[],
            kind: None,
        }
    }

    /// The same, of kind `kind` ([`KINDS`]; see [`Facility::kind`]).
    pub const fn kind(self, kind: &'static str) -> Facility {
        Facility {
            kind: Some(kind),
            ..self
        }
    }

    /// The provider that answers to the shared name `shared` ([`Provider::answers_to`]).
    pub fn answering(&self, shared: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.answers_to == Some(shared))
    }

    /// The same, with this default order ([`Facility::default_order`]).
    pub const fn default_order(self, default_order: &'static [&'static str]) -> Facility {
        Facility {
            default_order,
            ..self
        }
    }

    /// The same, used only by these executables of the package ([`Facility::used_by`]).
    pub const fn used_by(self, used_by: &'static [&'static str]) -> Facility {
        Facility { used_by, ..self }
    }

    /// The providers in default order: [`Facility::default_order`]'s, or the declared order.
    fn ordered(&self) -> Vec<&Provider> {
        let mut ordered = Vec::new();
        if self.default_order.is_empty() {
            for p in self.providers {
                ordered.push(p);
            }
        } else {
            for name in self.default_order {
                if let Some(p) = self.provider(name) {
                    ordered.push(p);
                }
            }
        }
        ordered
    }

    /// Looks a provider up by name (exact, lower case).
    pub fn provider(&self, name: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// The provider chosen when nothing selects one. As an [`Role::Application`]: the first of
    /// [`Facility::default_order`] that `features` compile, with an origin naming the feature
    /// that made it the default, if any. As a [`Role::Library`]: the first of it that needs no
    /// feature, whatever `features` are on.
    pub fn default_choice(&'static self, role: Role, features: &FeatureSet) -> Choice {
        let ordered = self.ordered();
        let provider = match role {
            Role::Application => ordered.into_iter().find(|p| p.is_available(features)),
            Role::Library => ordered.into_iter().find(|p| p.feature.is_none()),
        }
        .or_else(|| self.providers.iter().find(|p| p.feature.is_none()))
        .unwrap_or(&self.providers[0]);
        let origin = match provider.feature {
            Some(feature) => Origin::FeatureDefault(feature),
            None => Origin::Default,
        };
        Choice { provider, origin }
    }

    /// The default in words, for the knob table: `openssl with feature openssl-sha1, else dc`
    /// (a [`Role::Library`]'s is the one provider: `miniz`).
    pub fn default_text(&self, role: Role) -> String {
        let mut parts = Vec::new();
        for p in self.ordered() {
            let name = p.name;
            match p.feature {
                Some(feature) if role == Role::Application => {
                    parts.push(format!("{name} with feature {feature}"));
                }
                Some(_) => {}
                None => {
                    parts.push(name.to_string());
                    break;
                }
            }
        }
        parts.join(", else ")
    }

    /// The names of the providers, joined (quoted for the config file).
    pub fn provider_list(&self, quoted: bool) -> String {
        names(self.providers.iter(), quoted)
    }
}

/// A problem with a name outside a vocabulary: the valid names, and the nearest one.
/// Who sets the cfg `name` when it is one that rustc, Cargo or docs.rs set: rustc's well-known
/// names (`--check-cfg`'s list, and every `target_*`), Cargo's `feature`, and docs.rs's `docsrs`.
fn reserved_cfg(name: &str) -> Option<&'static str> {
    const RUSTC: &[&str] = &[
        "clippy",
        "contract_checks",
        "debug_assertions",
        "doc",
        "doctest",
        "emscripten_wasm_eh",
        "fmt_debug",
        "miri",
        "overflow_checks",
        "panic",
        "proc_macro",
        "relocation_model",
        "rustfmt",
        "sanitize",
        "sanitizer_cfi_generalize_pointers",
        "sanitizer_cfi_normalize_integers",
        "test",
        "ub_checks",
        "unix",
        "windows",
    ];
    if RUSTC.contains(&name) || name.starts_with("target_") {
        Some("rustc")
    } else if name == "feature" {
        Some("Cargo")
    } else if name == "docsrs" {
        Some("docs.rs")
    } else {
        None
    }
}

fn vocabulary_problem(headline: &str, name: &str, vocabulary: &[&str]) -> String {
    let mut text = format!("{headline} (valid: {})", vocabulary.join(", "));
    if let Some(near) = closest(name, vocabulary.iter().copied()) {
        text.push_str(&format!("; did you mean {near}?"));
    }
    text
}

/// The name among `candidates` that `name` most likely misspells: the same letters in another
/// case (`System` for `system`), else the nearest within 2 edits that does not replace the whole
/// name (`sytem` for `system`; `dc` is not suggested for `de`'s neighbour `xy`). The
/// did-you-mean of provider values and names; `cargo flagsplit` uses it for a policy's names.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_in(name, candidates.into_iter().collect())
}

// The body of `closest`, compiled once (not once per kind of iterator a caller passes), in plain
// loops (less code to compile in every build script than iterator chains).
fn closest_in<'a>(name: &str, candidates: Vec<&'a str>) -> Option<&'a str> {
    for c in &candidates {
        if c.eq_ignore_ascii_case(name) && *c != name {
            return Some(c);
        }
    }
    let lower = name.to_ascii_lowercase();
    // The first of the nearest.
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&lower, c);
        if d > 0 && d <= 2 && d < c.len().min(lower.len()) && nearer(d, best.map(|(b, _)| b)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Whether distance `d` is below the best one so far (or there is none yet).
fn nearer(d: usize, best: Option<usize>) -> bool {
    match best {
        Some(b) => d < b,
        None => true,
    }
}

/// The variable name among `names` within 3 edits of `name`, the nearest: the did-you-mean of a
/// misspelt variable (`TLS_A_TLS_PROVIDR` for `TLS_A_TLS_PROVIDER`), for a build script and for
/// `cargo flagsplit`.
pub fn nearest_variable(name: &str, names: impl IntoIterator<Item = String>) -> Option<String> {
    nearest_variable_in(name, names.into_iter().collect())
}

// The body of `nearest_variable`, compiled once.
fn nearest_variable_in(name: &str, names: Vec<String>) -> Option<String> {
    // The first of the nearest.
    let mut best: Option<(usize, String)> = None;
    for v in names {
        let d = edit_distance(name, &v);
        if d <= 3 && nearer(d, best.as_ref().map(|(b, _)| *b)) {
            best = Some((d, v));
        }
    }
    best.map(|(_, n)| n)
}

/// Levenshtein distance over bytes (names are ASCII).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut prev: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for j in 0..=b.len() {
        prev.push(j);
    }
    let mut cur = prev.clone();
    for (i, ca) in a.bytes().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Each of `items` as `each` writes it, separated by `sep` (one loop for every caller, where an
/// iterator chain would be compiled once per caller).
pub(crate) fn joined<T>(items: &[T], sep: &str, each: &dyn Fn(&T) -> String) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(&each(item));
    }
    out
}

/// Space-separated names, or `(none)` when there are none.
pub(crate) fn names_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(" ")
    }
}

/// `a, b, c` or `"a", "b", "c"`.
pub(crate) fn names<'a>(providers: impl Iterator<Item = &'a Provider>, quoted: bool) -> String {
    let mut names: Vec<String> = Vec::new();
    for p in providers {
        names.push(if quoted {
            format!("\"{}\"", p.name)
        } else {
            p.name.to_string()
        });
    }
    names.join(", ")
}

impl fmt::Display for Facility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Spec {
    /// Looks a facility up by its config-file name.
    pub fn facility(&self, name: &str) -> Option<&Facility> {
        self.facilities.iter().find(|f| f.name == name)
    }

    fn upper(name: &str) -> String {
        name.to_uppercase().replace('-', "_")
    }

    /// The build-time variable that selects `facility`'s provider.
    pub fn env_var(&self, facility: &Facility) -> String {
        format!("{}_{}_PROVIDER", self.prefix, Spec::upper(facility.name))
    }

    /// The variable naming the config file (`FLAGSPLIT_CONFIG`).
    pub fn config_var(&self) -> String {
        format!("{}_CONFIG", self.prefix)
    }

    /// The prefix every variable of this crate starts with (`FLAGSPLIT_`).
    pub fn var_prefix(&self) -> String {
        format!("{}_", self.prefix)
    }

    /// The name of `facility`'s value `cfg` (`flagsplit_sha1_unsafe`).
    pub fn cfg_name(&self, facility: &Facility) -> String {
        format!(
            "{}_{}",
            self.cfg_prefix,
            facility.name.replace('-', "_").to_lowercase()
        )
    }

    /// Every Cargo feature that compiles a provider, in documentation order, without repeats.
    pub fn features(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for facility in self.facilities {
            for p in facility.providers {
                match p.feature {
                    Some(f) if !out.contains(&f) => out.push(f),
                    _ => {}
                }
            }
        }
        out
    }

    /// The variable Cargo sets for build scripts when `feature` is on (`CARGO_FEATURE_OPENSSL_SHA1`).
    pub fn cargo_feature_env(feature: &str) -> String {
        format!("CARGO_FEATURE_{}", Spec::upper(feature))
    }

    /// The facilities and providers a Cargo feature compiles.
    pub fn compiled_by(&self, feature: &str) -> Vec<(&Facility, &Provider)> {
        let mut found = Vec::new();
        for f in self.facilities {
            for p in f.providers {
                if p.feature == Some(feature) {
                    found.push((f, p));
                }
            }
        }
        found
    }

    /// Every build-time variable name: the config file's and one per facility.
    pub fn build_variable_names(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(1 + self.facilities.len());
        names.push(self.config_var());
        for f in self.facilities {
            names.push(self.env_var(f));
        }
        names
    }

    /// Whether `name` is one of this crate's variables (build time or not).
    pub fn knows_variable(&self, name: &str) -> bool {
        self.build_variable_names().iter().any(|n| n == name)
            || self.variables.iter().any(|v| v.name == name)
    }

    /// What `binary` links when each facility it uses has the provider `provider` gives.
    pub fn links<'s>(
        &'s self,
        binary: &str,
        provider: impl Fn(&'s Facility) -> Option<&'s Provider>,
    ) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for facility in self.facilities {
            if !facility.used_by.contains(&binary) {
                continue;
            }
            if let Some(p) = provider(facility) {
                for lib in p.links {
                    if !out.contains(lib) {
                        out.push(lib);
                    }
                }
            }
        }
        out
    }

    /// The table's own consistency: unique names, defaults that exist and end in a provider that
    /// needs no feature, binaries that exist. A crate's tests call this on its table.
    pub fn check(&self) -> Result<(), String> {
        let mut problems = Vec::new();
        for (i, f) in self.facilities.iter().enumerate() {
            if self.facilities[..i].iter().any(|g| g.name == f.name) {
                problems.push(format!("facility {} is declared twice", f.name));
            }
            if f.providers.is_empty() {
                problems.push(format!("facility {} has no provider", f.name));
            }
            for (j, p) in f.providers.iter().enumerate() {
                if f.providers[..j].iter().any(|q| q.name == p.name) {
                    problems.push(format!("{}: provider {} is declared twice", f.name, p.name));
                }
            }
            for name in f.default_order {
                if f.provider(name).is_none() {
                    problems.push(format!(
                        "{}: default_order names {name}, which is not a provider",
                        f.name
                    ));
                }
            }
            if !f.ordered().iter().any(|p| p.feature.is_none()) {
                problems.push(format!(
                    "{}: default_order must name a provider that needs no feature",
                    f.name
                ));
            }
            for b in f.used_by {
                if !self.binaries.contains(b) {
                    problems.push(format!("{}: used_by names unknown binary {b}", f.name));
                }
            }
            if f.name == "target" {
                problems.push(
                    "a facility may not be named `target`: config files use [target.<triple or cfg>] for target-scoped choices"
                        .to_string(),
                );
            }
            let well_known = f.kind.map_or(false, |k| KINDS.contains(&k));
            if let Some(kind) = f.kind {
                if let Some(why) = crate::graph::name_problem(kind) {
                    problems.push(format!(
                        "{}: kind `{kind}` is not a kind's name: {why} (lowercase letters and digits, words joined by `-`: `xz`, `sha1-unsafe`)",
                        f.name
                    ));
                } else if crate::graph::RESERVED.contains(&kind) {
                    problems.push(format!(
                        "{}: kind `{kind}` is reserved ({} are the graph-wide file's other keys)",
                        f.name,
                        crate::graph::RESERVED.join(", ")
                    ));
                }
            }
            for p in f.providers {
                for property in p.properties {
                    if let Some(why) = crate::graph::name_problem(property) {
                        problems.push(format!(
                            "{}: provider {} has property `{property}`, not a property's name: {why}",
                            f.name, p.name
                        ));
                    }
                }
            }
            for (j, p) in f.providers.iter().enumerate() {
                let shared = match p.answers_to {
                    Some(shared) => shared,
                    None => continue,
                };
                if well_known && !SHARED_PROVIDERS.contains(&shared) {
                    // A well-known kind's providers answer to the well-known names, so that one
                    // setting means the same for every crate of that kind.
                    problems.push(vocabulary_problem(
                        &format!(
                            "{}: provider {} answers to `{shared}`, not a shared provider name of the well-known kind {}",
                            f.name,
                            p.name,
                            f.kind.unwrap_or_default()
                        ),
                        shared,
                        SHARED_PROVIDERS,
                    ));
                } else if let Some(why) = crate::graph::name_problem(shared) {
                    problems.push(format!(
                        "{}: provider {} answers to `{shared}`, not a shared provider name: {why}",
                        f.name, p.name
                    ));
                }
                if f.kind.is_none() {
                    problems.push(format!(
                        "{}: provider {} answers to `{shared}`, but the facility declares no kind (Facility::kind)",
                        f.name, p.name
                    ));
                }
                if let Some(q) = f.providers[..j]
                    .iter()
                    .find(|q| q.answers_to == Some(shared))
                {
                    problems.push(format!(
                        "{}: providers {} and {} both answer to `{shared}`",
                        f.name, q.name, p.name
                    ));
                }
            }
        }
        // The cfgs the build script sets: one per provider feature, one per facility.
        let cfgs = self
            .features()
            .into_iter()
            .map(|f| (format!("feature `{f}`"), f.replace('-', "_")))
            .chain(
                self.facilities
                    .iter()
                    .map(|f| (format!("facility {}", f.name), self.cfg_name(f))),
            );
        for (what, cfg) in cfgs {
            if let Some(owner) = reserved_cfg(&cfg) {
                problems.push(format!(
                    "{what}: its cfg `{cfg}` is {owner}'s: a build that sets it changes code that tests it (`#[cfg({cfg})]`); rename it"
                ));
            }
        }
        let graph = format!("{}_", crate::graph::PREFIX);
        let mine = self.var_prefix();
        if graph.starts_with(&mine) || mine.starts_with(&graph) {
            problems.push(format!(
                "prefix {} shares a prefix with the graph-wide settings' {graph}: choose another",
                self.prefix
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }
}

/// A position in a config file, 1-based, the column counted in characters.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FilePos {
    /// The path as given (`config.toml`, or the config variable's value).
    pub path: String,
    /// Line number.
    pub line: u32,
    /// Column number.
    pub column: u32,
}

impl FilePos {
    /// Line `line`, column `column` of `path`.
    pub fn new(path: impl Into<String>, line: u32, column: u32) -> FilePos {
        FilePos {
            path: path.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for FilePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

/// Where each line of a text starts, for positions in messages (`FILE:LINE:COL`, the column
/// counted in characters) and back: one binary search per position, whatever the file's size.
/// The config files' reader and `cargo flagsplit`'s diagnostics both count positions with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            starts: {
                let mut starts = vec![0];
                for (i, _) in text.match_indices('\n') {
                    starts.push(i + 1);
                }
                starts
            },
        }
    }

    /// The line (from 0) holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The byte offset where line `line` (from 0) starts, if the text has it.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The line and column (both from 1; the column counts characters) of byte `offset` of
    /// `text` (the text indexed), cut to the text and moved back to a character's start.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.starts[line].min(offset);
        (line + 1, text[start..offset].chars().count() + 1)
    }

    /// The position of byte `offset` of `text`, in the file named `path`.
    pub fn pos(&self, path: &str, text: &str, offset: usize) -> FilePos {
        let (line, column) = self.line_col(text, offset);
        FilePos::new(
            path,
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }

    /// The byte offset of line `line`, column `column` (both from 1, the column in characters)
    /// of `text`: the inverse of [`LineIndex::line_col`], cut to the line's end.
    pub fn offset(&self, text: &str, line: usize, column: usize) -> usize {
        let start = match line.checked_sub(1).and_then(|l| self.line_start(l)) {
            Some(start) => start,
            None => return text.len(),
        };
        let rest = &text[start..];
        let end = rest.find('\n').unwrap_or(rest.len());
        start
            + rest[..end]
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(end, |(i, _)| i)
    }
}

/// One `provider = "..."` entry of a config file that names a valid provider.
#[cfg(feature = "resolve")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileChoice {
    /// The facility (table).
    pub(crate) facility: &'static Facility,
    /// The provider named.
    pub(crate) provider: &'static Provider,
    /// Where the value is.
    pub(crate) at: FilePos,
    /// The targets it applies to (a top-level table, or one under `[target.<...>]`).
    pub(crate) scope: crate::cfgexpr::Scope,
}

/// One `key = value` entry of the graph-wide config file (`RUST_BACKEND_CONFIG`), as written:
/// what `read_graph_file` gives (feature `config-file`), for the resolver and for tools that check a whole
/// graph's settings.
#[cfg(feature = "resolve")]
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GraphEntry {
    /// The key (`tls`, `xz`, `link`, or a misspelling).
    pub key: String,
    /// Where the key is.
    pub key_at: FilePos,
    /// The key's bytes in the file.
    pub key_span: std::ops::Range<usize>,
    /// Its value, or the TOML type of a value that is no string.
    pub value: Result<String, &'static str>,
    /// Where the value is.
    pub at: FilePos,
    /// The `[target.<triple or cfg(...)>]` table it is in, as written; `None` at the top level.
    pub target: Option<String>,
    /// The targets it applies to.
    pub(crate) scope: crate::cfgexpr::Scope,
}

impl Origin {
    /// The origin of a config-file value at `at`.
    pub fn file(at: &FilePos) -> Origin {
        Origin::File {
            path: at.path.clone(),
            line: at.line,
            column: at.column,
        }
    }
}

/// One environment variable, for the knob table and the typo check. Built with
/// [`Variable::new`] and the builder methods.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// When it is read.
    pub when: When,
    /// Accepted values.
    pub values: &'static str,
    /// What happens when it is unset.
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
}

impl Variable {
    /// A variable read `when`, doing `help`; its values and default are empty until
    /// [`Variable::values`] and [`Variable::default_value`] say them.
    pub const fn new(name: &'static str, when: When, help: &'static str) -> Variable {
        Variable {
            name,
            when,
            values: "",
            default: "",
            help,
        }
    }

    /// The same, with its accepted values in words ([`Variable::values`]).
    pub const fn values(self, values: &'static str) -> Variable {
        Variable { values, ..self }
    }

    /// The same, saying what happens when it is unset ([`Variable::default`]).
    pub const fn default_value(self, default: &'static str) -> Variable {
        Variable { default, ..self }
    }
}

/// When a variable is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum When {
    /// By `build.rs`, while compiling: changing it rebuilds.
    Build,
    /// By the binaries, each time they run.
    Run,
    /// By the test command.
    Test,
    /// By the benchmarks (`cargo bench`).
    Bench,
}

impl When {
    /// How the knob table says it.
    pub const fn label(self) -> &'static str {
        match self {
            When::Build => "build time",
            When::Run => "run time",
            When::Test => "test command",
            When::Bench => "benchmarks",
        }
    }
}

/// A set of enabled Cargo features (the names, in no particular order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeatureSet(Vec<&'static str>);

impl FeatureSet {
    /// No features at all (`--no-default-features`).
    pub const EMPTY: FeatureSet = FeatureSet(Vec::new());

    /// The set of the named features that `spec` knows (unknown names are left out).
    pub fn from_names<'a>(spec: &Spec, names: impl IntoIterator<Item = &'a str>) -> FeatureSet {
        let known = spec.features();
        let mut set = FeatureSet::EMPTY;
        for name in names {
            if let Some(f) = known.iter().find(|k| **k == name) {
                set = set.with(f);
            }
        }
        set
    }

    /// The set with `feature` added.
    #[must_use]
    pub fn with(mut self, feature: &'static str) -> FeatureSet {
        if !self.0.contains(&feature) {
            self.0.push(feature);
        }
        self
    }

    /// Whether `feature` is on.
    pub fn contains(&self, feature: &str) -> bool {
        self.0.contains(&feature)
    }

    /// The enabled features, in the order of `spec`.
    pub fn in_order(&self, spec: &Spec) -> Vec<&'static str> {
        let mut on = Vec::new();
        for f in spec.features() {
            if self.contains(f) {
                on.push(f);
            }
        }
        on
    }

    /// Every possible set of `spec`'s features, for exhaustive tests.
    // Inline: compiled only in the crates that call it (tests), not in every build script.
    #[inline]
    pub fn all_combinations(spec: &Spec) -> Vec<FeatureSet> {
        let all = spec.features();
        (0u32..1 << all.len())
            .map(|bits| {
                FeatureSet(
                    all.iter()
                        .enumerate()
                        .filter(|(i, _)| bits & (1 << i) != 0)
                        .map(|(_, f)| *f)
                        .collect(),
                )
            })
            .collect()
    }

    /// Space-separated names in `spec`'s order, or `(none)`.
    pub fn describe(&self, spec: &Spec) -> String {
        names_or_none(&self.in_order(spec))
    }
}

/// Where a selection came from: every choice is explained, nothing is automagic.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// Nothing asked; the built-in default.
    Default,
    /// Nothing asked, and the default follows from this enabled feature.
    FeatureDefault(&'static str),
    /// A `<PREFIX>_*_PROVIDER` variable (from the shell or `.cargo/config.toml` `[env]`).
    Env(String),
    /// A graph-wide variable (`RUST_BACKEND_TLS`, or its target-scoped form), selecting for
    /// every facility of its kind.
    Graph(String),
    /// An entry of the graph-wide config file (`RUST_BACKEND_CONFIG`), with the 1-based position
    /// of the value.
    GraphFile {
        /// The path as the variable gives it.
        path: String,
        /// Line of the value.
        line: u32,
        /// Column of the value, in characters.
        column: u32,
    },
    /// A config file, with the 1-based position of the value.
    File {
        /// The path as given (`config.toml`, or `<PREFIX>_CONFIG`'s value; not made absolute, so
        /// builds stay reproducible).
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
            Origin::Graph(var) => write!(f, "graph-wide {var}"),
            Origin::GraphFile { path, line, column } => {
                write!(f, "graph-wide {path}:{line}:{column}")
            }
        }
    }
}

/// The provider selected for one facility, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Choice {
    /// The selected provider.
    pub provider: &'static Provider,
    /// Who asked for it.
    pub origin: Origin,
}

impl PartialEq for Facility {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Facility {}

impl PartialEq for Provider {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Provider {}

/// One selected provider per facility of a [`Spec`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Selection {
    /// The table the selection is for.
    pub spec: &'static Spec,
    /// In the order of [`Spec::facilities`].
    pub choices: Vec<Choice>,
    /// The graph-wide link policy (`RUST_BACKEND_LINK`), when one is set: `static` or `dynamic`.
    pub link: Option<PolicyChoice>,
    /// The graph-wide policy on bundled copies (`RUST_BACKEND_BUNDLED`): `deny` or `allow`.
    pub bundled: Option<PolicyChoice>,
    /// What the resolver noticed that is no error: a graph-wide name close to one this crate reads
    /// (`RUST_BACKEND_TSL` beside a tls facility). A build script prints each as a warning.
    pub warnings: Vec<String>,
}

/// The value of a graph-wide policy setting, and who set it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyChoice {
    /// The value (`static`, `deny`, ...).
    pub value: &'static str,
    /// Who set it.
    pub origin: Origin,
}

impl PolicyChoice {
    /// Who set it, as a message names it, for the setting of file key `key`: the variable and its
    /// value (`RUST_BACKEND_BUNDLED=deny`), or the file entry
    /// (`/path/backends.toml:3:11: bundled = "deny"`).
    pub fn source(&self, key: &str) -> String {
        match &self.origin {
            Origin::Graph(var) => format!("{var}={}", self.value),
            Origin::GraphFile { path, line, column } => {
                format!("{path}:{line}:{column}: {key} = \"{}\"", self.value)
            }
            other => other.to_string(),
        }
    }

    /// How to set it to `other` instead: `unset VAR (or set it to OTHER)`, or change the file.
    pub fn undo(&self, key: &str, other: &str) -> String {
        match &self.origin {
            Origin::Graph(var) => format!("unset {var} (or set it to {other})"),
            Origin::GraphFile { path, line, column } => {
                format!("change {path}:{line}:{column} to {key} = \"{other}\", or remove it")
            }
            other_origin => format!("change {other_origin}"),
        }
    }
}

impl PartialEq for Spec {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Spec {}

impl Selection {
    /// The selection `choices` (in the order of `spec`'s facilities), with no graph-wide policy.
    pub fn new(spec: &'static Spec, choices: Vec<Choice>) -> Selection {
        Selection {
            spec,
            choices,
            link: None,
            bundled: None,
            warnings: Vec::new(),
        }
    }

    /// Every facility with its choice.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Facility, &Choice)> {
        self.spec.facilities.iter().zip(&self.choices)
    }

    /// The choice for the facility named `facility`.
    ///
    /// # Panics
    /// When the table has no such facility (a programming error in the caller).
    pub fn get(&self, facility: &str) -> &Choice {
        self.iter()
            .find(|(f, _)| f.name == facility)
            .map(|(_, c)| c)
            .unwrap_or_else(|| panic!("{} has no facility {facility}", self.spec.name))
    }

    /// The name of the provider selected for the facility named `facility`.
    pub fn provider(&self, facility: &str) -> &'static str {
        self.get(facility).provider.name
    }

    /// The features whose providers are selected: each becomes a `cfg` of the same name with `_`
    /// for `-` (`openssl_sha1`: git's `OPENSSL_SHA1`), so that code can ask "does this build use
    /// what feature F compiles" independently of which facility uses it.
    pub fn used_features(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for feature in self.spec.features() {
            if self
                .choices
                .iter()
                .any(|c| c.provider.feature == Some(feature))
            {
                out.push(feature);
            }
        }
        out
    }

    /// What `binary` links because of this selection.
    pub fn links(&self, binary: &str) -> Vec<&'static str> {
        self.spec.links(binary, |f| {
            self.iter()
                .find(|(g, _)| std::ptr::eq(*g, f))
                .map(|(_, c)| c.provider)
        })
    }

    /// The providers that `features` compile but nothing selected: each with its facility, for a
    /// facility left at its default. A [`Role::Library`]'s build script warns about them, since
    /// the feature of one dependent does not select for the whole build.
    pub fn unselected(&self, features: &FeatureSet) -> Vec<(&'static Facility, &'static Provider)> {
        let mut out = Vec::new();
        for (facility, choice) in self.iter() {
            if !matches!(choice.origin, Origin::Default | Origin::FeatureDefault(_)) {
                continue;
            }
            for p in facility.providers {
                if p.feature.is_some() && p.is_available(features) && p != choice.provider {
                    out.push((facility, p));
                }
            }
        }
        out
    }

    /// The probes the selected providers need, each with the facilities that asked for it.
    pub fn probes(&self) -> Vec<(&'static Probe, Vec<(&'static Facility, &Choice)>)> {
        let mut out: Vec<(&'static Probe, Vec<(&'static Facility, &Choice)>)> = Vec::new();
        for (facility, choice) in self.iter() {
            if let Some(probe) = choice.provider.probe {
                match out.iter_mut().find(|(p, _)| *p == probe) {
                    Some((_, askers)) => askers.push((facility, choice)),
                    None => out.push((probe, vec![(facility, choice)])),
                }
            }
        }
        out
    }
}

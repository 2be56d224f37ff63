//! The data of one build: what each flagsplit-config crate wrote to `OUT_DIR/flagsplit-config.json`
//! (schema 1), the executables with their `NEEDED` entries, and the graph-wide settings seen.

use serde::{Deserialize, Serialize};

/// The schema of the report this tool prints with `--json`.
pub const SCHEMA: u32 = 1;

/// The schema of `flagsplit-config.json` this tool reads.
pub const OPTIONS_SCHEMA: u32 = 1;

/// One provider of a facility, as the build script described it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provider {
    pub name: String,
    #[serde(default)]
    pub feature: Option<String>,
    #[serde(default)]
    pub compiled: bool,
    #[serde(default)]
    pub answers_to: Option<String>,
    #[serde(default)]
    pub links: Vec<String>,
}

/// One facility and the provider selected for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facility {
    pub name: String,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub variable: String,
    #[serde(default)]
    pub used_by: Vec<String>,
    #[serde(default)]
    pub providers: Vec<Provider>,
    pub selected: String,
    #[serde(default)]
    pub origin: String,
    #[serde(default)]
    pub origin_kind: String,
}

impl Facility {
    /// The selected provider's entry, when the file lists it.
    pub fn selected_provider(&self) -> Option<&Provider> {
        self.providers.iter().find(|p| p.name == self.selected)
    }

    /// The shared name the selected provider answers to.
    pub fn selected_shared(&self) -> Option<&str> {
        self.selected_provider()
            .and_then(|p| p.answers_to.as_deref())
    }
}

/// A graph-wide link or bundled policy as one build script read it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    pub value: String,
    #[serde(default)]
    pub origin: String,
}

/// The graph-wide link and bundled policies a build script read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphPolicies {
    #[serde(default)]
    pub link: Option<Policy>,
    #[serde(default)]
    pub bundled: Option<Policy>,
}

/// A C library a build script found for the selected providers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Library {
    pub library: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub located_by: String,
    #[serde(default, rename = "static")]
    pub static_link: bool,
}

/// `OUT_DIR/flagsplit-config.json`, schema 1.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub schema: u32,
    #[serde(rename = "crate")]
    pub crate_name: String,
    #[serde(default)]
    pub prefix: String,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub target: String,
    #[serde(default)]
    pub features: Vec<String>,
    #[serde(default)]
    pub source_features: Vec<String>,
    #[serde(default)]
    pub config_file: String,
    #[serde(default)]
    pub facilities: Vec<Facility>,
    /// The graph-wide settings the build script reads (file keys: `tls`, `link`, `bundled`,
    /// `config` for `RUST_BACKEND_CONFIG`).
    #[serde(default)]
    pub graph_reads: Vec<String>,
    #[serde(default)]
    pub graph: GraphPolicies,
    #[serde(default)]
    pub libraries: Vec<Library>,
}

/// Which copy of a crate a build produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Copy {
    /// Built for the target (every build without `--target`).
    Target,
    /// Built for the host, for a build script or procedural macro, under `--target`.
    Host,
}

/// One crate of the build that uses flagsplit-config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateReport {
    /// The package name (from Cargo's package id).
    pub name: String,
    pub version: String,
    pub package_id: String,
    pub build: Copy,
    pub out_dir: String,
    pub options: Options,
}

/// One executable the build produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executable {
    pub name: String,
    pub package: String,
    pub path: String,
    /// `DT_NEEDED` entries in file order; empty for a static executable.
    pub needed: Vec<String>,
}

/// Where a graph-wide setting was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingSource {
    Environment,
    File,
}

/// One graph-wide setting present in the environment or in the `RUST_BACKEND_CONFIG` file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphSetting {
    /// The variable (`RUST_BACKEND_TLS`, `X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`) or the file
    /// key (`tls`, `target.<scope>.tls`).
    pub name: String,
    pub value: String,
    pub source: SettingSource,
    /// `FILE:LINE:COL` of a file entry.
    pub at: Option<String>,
    /// The setting's key (`tls`, `link`, `bundled`); `None` for a name that is no setting.
    pub key: Option<String>,
    /// Whether any crate of the build reads it (has a facility of its kind; link and bundled are
    /// read by every crate).
    pub read: bool,
}

/// The whole report (`--json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub schema: u32,
    /// The `--target` given, if any.
    pub target: Option<String>,
    pub crates: Vec<CrateReport>,
    pub executables: Vec<Executable>,
    pub graph_settings: Vec<GraphSetting>,
    pub warnings: Vec<String>,
}

impl Report {
    /// Every facility of every crate, with its crate.
    pub fn facilities(&self) -> impl Iterator<Item = (&CrateReport, &Facility)> {
        self.crates
            .iter()
            .flat_map(|c| c.options.facilities.iter().map(move |f| (c, f)))
    }
}

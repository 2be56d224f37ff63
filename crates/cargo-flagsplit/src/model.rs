//! The data of one build: what each flagsplit-config crate wrote to `OUT_DIR/flagsplit-config.json`
//! (schema 1 or 2), the executables with the C libraries each carries, and the settings seen.

use serde::{Deserialize, Serialize};

/// The schema of the document this tool prints with `--json`.
pub const SCHEMA: u32 = 2;

/// `OUT_DIR/flagsplit-config.json` and its parts: flagsplit-info's record types, the one
/// definition of the format, which flagsplit-config's build scripts write. A file of an older
/// schema is read too ([`Options::upgrade`] after reading).
pub use flagsplit_info::record::{
    BuildRecord as Options, FacilityRecord as Facility, GraphPolicies, LibraryRecord as Library,
    PolicyRecord as Policy, ProviderRecord as Provider, SCHEMA as OPTIONS_SCHEMA,
    VariableRecord as Variable,
};

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

/// How a C library is in an executable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkMode {
    /// A shared library, in the executable's `NEEDED`.
    Dynamic,
    /// An archive, copied into the executable.
    Static,
}

impl LinkMode {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkMode::Dynamic => "dynamic",
            LinkMode::Static => "static",
        }
    }
}

/// Whether an executable holds a library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Held {
    /// Seen: in `NEEDED`, or the archive's symbols in the symbol table.
    Yes,
    /// Cannot be seen (a stripped executable, an archive that is gone): counted as held.
    Unknown,
}

/// The crate whose build script linked a library, and the directive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkedBy {
    pub package: String,
    pub version: String,
    /// As the build script printed it after `rustc-link-lib=` (`static=crypto`).
    pub directive: String,
}

/// A flagsplit-config crate that found a library: what its build options record of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundBy {
    pub package: String,
    pub version: String,
    /// The library's name in its table (`OpenSSL`).
    pub library: String,
    pub library_version: Option<String>,
    pub located_by: String,
}

impl FoundBy {
    /// What crate `c`'s record says of library `l`.
    pub fn new(c: &CrateReport, l: &Library) -> FoundBy {
        FoundBy {
            package: c.name.clone(),
            version: c.version.clone(),
            library: l.library.clone(),
            library_version: l.version.clone(),
            located_by: l.located_by.clone(),
        }
    }
}

/// A facility whose selected provider links a library, for an executable that uses it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectedBy {
    pub package: String,
    pub version: String,
    pub facility: String,
    pub provider: String,
    pub origin: String,
    pub origin_kind: String,
    /// The crate's variable that selects the facility's provider.
    pub variable: String,
}

/// A C library an executable carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarriedLibrary {
    /// Its name as `-l` takes it (`crypto`).
    pub name: String,
    /// The file: the soname in `NEEDED` (`libcrypto.so.3`) or the archive (`libcrypto.a`).
    pub file: String,
    pub link: LinkMode,
    /// A copy built by the build (an archive in a build script's `OUT_DIR`).
    pub bundled: bool,
    pub held: Held,
    /// How it was seen: `NEEDED`, the symbols, or why it cannot be.
    pub evidence: String,
    /// The archive's path, for a static library found.
    pub archive: Option<String>,
    /// The build scripts that linked it; empty for a `NEEDED` entry no build script named (the
    /// toolchain's libc, libgcc_s).
    pub linked_by: Vec<LinkedBy>,
    pub found_by: Vec<FoundBy>,
    pub selected_by: Vec<SelectedBy>,
}

impl CarriedLibrary {
    /// Whether a policy's `library = "libssl"` names it: the file starts with the name and goes
    /// on with `.` or `-`, or ends there (`libz` is `libz.so.1` and `libz.a`, not `libzstd.so.1`).
    pub fn is(&self, library: &str) -> bool {
        soname_matches(&self.file, library)
    }
}

/// The name `-l` takes for a shared library's file name (`libcrypto.so.3` is `crypto`).
pub fn link_name_of(soname: &str) -> String {
    let name = soname.strip_prefix("lib").unwrap_or(soname);
    name.split(".so").next().unwrap_or(name).to_string()
}

/// Whether the file name `soname` (`libssl.so.3`, `libssl.a`) is library `library` (`libssl`,
/// `libssl.so`): a prefix that ends where the name does or before a `.` or `-`.
pub fn soname_matches(soname: &str, library: &str) -> bool {
    match soname.strip_prefix(library) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('-'),
        None => false,
    }
}

/// A library a crate of the executable linked that the executable does not hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotCarried {
    pub name: String,
    pub linked_by: Vec<LinkedBy>,
    pub why: String,
}

/// One executable the build produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executable {
    pub name: String,
    pub package: String,
    pub path: String,
    /// `DT_NEEDED` entries in file order; empty for a static executable.
    pub needed: Vec<String>,
    /// It has a dynamic section (false: a static executable).
    pub dynamic: bool,
    /// It has a symbol table (false: stripped).
    pub symbols: bool,
    /// Every C library it carries: each `NEEDED` entry, and each static or bundled archive whose
    /// symbols it holds, with the crate that linked it.
    pub libraries: Vec<CarriedLibrary>,
    /// What a crate it holds linked and it does not carry.
    pub not_carried: Vec<NotCarried>,
}

/// Where a setting was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SettingSource {
    /// This process's environment (the build's).
    Environment,
    /// An `[env]` table of a Cargo config file or of `--config`.
    CargoEnv,
    /// The `RUST_BACKEND_CONFIG` file.
    File,
}

/// One setting present: a graph-wide one, a crate's variable, or a name that is neither.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    /// The variable (`RUST_BACKEND_TLS`, `X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS`,
    /// `TLS_B_TLS_PROVIDER`) or the file key (`tls`, `target.<scope>.tls`).
    pub name: String,
    pub value: String,
    pub source: SettingSource,
    /// `FILE:LINE:COL` of an `[env]` or file entry.
    pub at: Option<String>,
    /// The graph-wide setting's key (`tls`, `link`, `bundled`, `config`); null for a crate's
    /// variable or an unknown name.
    pub key: Option<String>,
    /// The crates that read it (package names); for a graph-wide setting, those that read its
    /// key.
    pub read_by: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The `--target` given, if any.
    pub target: Option<String>,
    pub crates: Vec<CrateReport>,
    pub executables: Vec<Executable>,
    pub settings: Vec<Setting>,
}

impl Report {
    /// Every facility of every crate, with its crate.
    pub fn facilities(&self) -> impl Iterator<Item = (&CrateReport, &Facility)> {
        self.crates
            .iter()
            .flat_map(|c| c.options.facilities.iter().map(move |f| (c, f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What flagsplit-config 0.4 wrote (schema 1), byte for byte.
    const SCHEMA_1: &str = r#"{
  "schema": 1,
  "crate": "inflate-lib",
  "prefix": "INFLATE_LIB",
  "role": "library",
  "target": "x86_64-unknown-linux-gnu",
  "features": ["zlib"],
  "source_features": [],
  "config_file": "a \"quoted\"\\path\n",
  "facilities": [
    {"name": "inflate", "kind": "zlib", "variable": "INFLATE_LIB_INFLATE_PROVIDER", "used_by": [], "providers": [{"name": "miniz", "feature": null, "compiled": true, "answers_to": "pure-rust", "links": []}, {"name": "zlib", "feature": "zlib", "compiled": true, "answers_to": "system", "links": ["libz"]}], "selected": "zlib", "origin": "graph-wide /cfg/backends.toml:3:8", "origin_kind": "graph-file"}
  ],
  "graph_reads": ["zlib", "config"],
  "graph": {"link": null, "bundled": null},
  "libraries": [
  ]
}
"#;

    #[test]
    fn schema_1_is_read_and_upgraded() {
        let mut o: Options = serde_json::from_str(SCHEMA_1).expect("schema 1 parses");
        o.upgrade();
        let f = &o.facilities[0];
        assert_eq!(f.origin_at.as_deref(), Some("/cfg/backends.toml:3:8"));
        assert_eq!(f.origin_name, None);
        assert_eq!(f.selected_shared(), Some("system"));
        let names: Vec<&str> = o.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            ["INFLATE_LIB_CONFIG", "INFLATE_LIB_INFLATE_PROVIDER"]
        );
    }

    /// flagsplit-info's writer and this reader are one format: what the one writes, the other
    /// reads back equal.
    #[test]
    fn the_writer_and_the_reader_agree() {
        let mut o: Options = serde_json::from_str(SCHEMA_1).expect("schema 1 parses");
        o.upgrade();
        o.schema = OPTIONS_SCHEMA;
        o.libraries.push(Library {
            library: "zlib".into(),
            version: Some("1.3.1".into()),
            located_by: "pkg-config".into(),
            static_link: true,
            links: vec!["z".into()],
            bundled: false,
        });
        o.graph.link = Some(Policy {
            value: "static".into(),
            origin: "graph-wide RUST_BACKEND_LINK".into(),
        });
        let back: Options = serde_json::from_str(&o.to_json()).expect("its own JSON parses");
        assert_eq!(back, o);
    }
}

//! `OUT_DIR/flagsplit-config.json`: what one build script decided, for tools that read a whole
//! build (`cargo flagsplit`). One definition of the format: flagsplit-config's build scripts write
//! it with [`BuildRecord::to_json`], and a reader deserializes the same types (feature `serde`).
//!
//! Schema 2 adds to schema 1 each origin's parts (`origin_name`, `origin_at`), so that no reader
//! takes the worded origin apart. A reader of schema 2 reads schema 1 too: deserialize, then
//! [`BuildRecord::upgrade`] fills what the older file did not say. Fields are only ever added, with
//! the schema raised; build a record with `Default` and set its fields.

use std::fmt::Write as _;

use crate::json::{opt_string, string, strings};

/// The schema [`BuildRecord::to_json`] writes.
pub const SCHEMA: u32 = 2;

/// One build script's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BuildRecord {
    /// The schema the file was written with.
    pub schema: u32,
    /// The package's name.
    #[cfg_attr(feature = "serde", serde(rename = "crate"))]
    pub crate_name: String,
    /// The crate's version (`CARGO_PKG_VERSION`); empty, and not written, when not known.
    #[cfg_attr(feature = "serde", serde(default))]
    pub version: String,
    /// Its variables' prefix (`INFLATE_DEMO`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub prefix: String,
    /// `application` or `library`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub role: String,
    /// The target triple.
    #[cfg_attr(feature = "serde", serde(default))]
    pub target: String,
    /// The enabled features that compile providers, in the table's order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub features: Vec<String>,
    /// The enabled features that say where a provider's library comes from.
    #[cfg_attr(feature = "serde", serde(default))]
    pub source_features: Vec<String>,
    /// The config file read, as the build options describe it, or `(none)`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub config_file: String,
    /// Every variable the crate knows: those its build script reads (`build`), then the table's
    /// declared ones. Empty in a file written before flagsplit-config listed them.
    #[cfg_attr(feature = "serde", serde(default))]
    pub variables: Vec<VariableRecord>,
    /// Each facility, in the table's order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub facilities: Vec<FacilityRecord>,
    /// The graph-wide settings the build script reads (file keys: `tls`, `link`, `bundled`, and
    /// `config` for `RUST_BACKEND_CONFIG`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub graph_reads: Vec<String>,
    /// The graph-wide link and bundled policies the build script read.
    #[cfg_attr(feature = "serde", serde(default))]
    pub graph: GraphPolicies,
    /// The C libraries found for the selected providers.
    #[cfg_attr(feature = "serde", serde(default))]
    pub libraries: Vec<LibraryRecord>,
}

/// A variable a crate knows, and when it is read (`build`: by its build script; `run`, `test`,
/// `bench`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VariableRecord {
    /// The name.
    pub name: String,
    /// When it is read.
    #[cfg_attr(feature = "serde", serde(default))]
    pub when: String,
}

/// One facility and the provider selected for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FacilityRecord {
    /// The facility's name.
    pub name: String,
    /// Its kind, if it declares one.
    #[cfg_attr(feature = "serde", serde(default))]
    pub kind: Option<String>,
    /// The crate's own selecting variable.
    #[cfg_attr(feature = "serde", serde(default))]
    pub variable: String,
    /// The binaries that use it (an application's table).
    #[cfg_attr(feature = "serde", serde(default))]
    pub used_by: Vec<String>,
    /// Every provider of the table.
    #[cfg_attr(feature = "serde", serde(default))]
    pub providers: Vec<ProviderRecord>,
    /// The selected provider's name.
    pub selected: String,
    /// Who chose it, worded (`default`, `default with feature F`, a variable, `FILE:LINE:COL`,
    /// `graph-wide RUST_BACKEND_TLS`, `graph-wide FILE:LINE:COL`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub origin: String,
    /// The kind of origin: `default`, `feature`, `variable`, `file`, `graph-variable`,
    /// `graph-file`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub origin_kind: String,
    /// The feature (`feature`) or the variable (`variable`, `graph-variable`) that chose it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub origin_name: Option<String>,
    /// Where in a file (`file`, `graph-file`): `FILE:LINE:COL`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub origin_at: Option<String>,
}

impl FacilityRecord {
    /// The origin worded from its parts, as flagsplit-config words it: `default`, `default with
    /// feature F`, the variable's name, `FILE:LINE:COL`, `graph-wide NAME` or `graph-wide
    /// FILE:LINE:COL`.
    pub fn worded_origin(&self) -> String {
        let name = self.origin_name.as_deref().unwrap_or_default();
        let at = self.origin_at.as_deref().unwrap_or_default();
        match self.origin_kind.as_str() {
            "feature" => format!("default with feature {name}"),
            "variable" => name.to_string(),
            "file" => at.to_string(),
            "graph-variable" => format!("graph-wide {name}"),
            "graph-file" => format!("graph-wide {at}"),
            other => other.to_string(),
        }
    }

    /// The selected provider's entry, when the record lists it.
    pub fn selected_provider(&self) -> Option<&ProviderRecord> {
        self.providers.iter().find(|p| p.name == self.selected)
    }

    /// The shared name the selected provider answers to.
    pub fn selected_shared(&self) -> Option<&str> {
        self.selected_provider()
            .and_then(|p| p.answers_to.as_deref())
    }
}

/// One provider of a facility.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProviderRecord {
    /// Its name.
    pub name: String,
    /// The feature that compiles it, if any.
    #[cfg_attr(feature = "serde", serde(default))]
    pub feature: Option<String>,
    /// Whether this build compiles it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub compiled: bool,
    /// The shared name it answers to.
    #[cfg_attr(feature = "serde", serde(default))]
    pub answers_to: Option<String>,
    /// The libraries it links (`libz`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub links: Vec<String>,
    /// What it guarantees (`collision-detection`); empty in a file written before
    /// flagsplit-config listed them.
    #[cfg_attr(feature = "serde", serde(default))]
    pub properties: Vec<String>,
}

/// A graph-wide policy as one build script read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PolicyRecord {
    /// The value (`static`, `deny`).
    pub value: String,
    /// Who set it, worded.
    #[cfg_attr(feature = "serde", serde(default))]
    pub origin: String,
}

/// The graph-wide link and bundled policies a build script read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GraphPolicies {
    /// `RUST_BACKEND_LINK`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub link: Option<PolicyRecord>,
    /// `RUST_BACKEND_BUNDLED`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub bundled: Option<PolicyRecord>,
}

/// A C library the build script found for the selected providers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LibraryRecord {
    /// Its name (`zlib`).
    pub library: String,
    /// Its version, when the build read it.
    #[cfg_attr(feature = "serde", serde(default))]
    pub version: Option<String>,
    /// How it was located.
    #[cfg_attr(feature = "serde", serde(default))]
    pub located_by: String,
    /// Linked statically.
    #[cfg_attr(feature = "serde", serde(default, rename = "static"))]
    pub static_link: bool,
    /// The libraries linked, as `-l` takes them (`crypto`); empty in a file written before
    /// flagsplit-config listed them.
    #[cfg_attr(feature = "serde", serde(default))]
    pub links: Vec<String>,
    /// Its `-sys` crate built its own copy.
    #[cfg_attr(feature = "serde", serde(default))]
    pub bundled: bool,
}

/// A JSON object written field by field, each field left out when it holds its default.
struct Obj(String);

impl Obj {
    fn new() -> Obj {
        Obj(String::from("{"))
    }

    fn raw(&mut self, key: &str, value: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push_str(&string(key));
        self.0.push(':');
        self.0.push_str(value);
    }

    fn num(&mut self, key: &str, n: u32) {
        self.raw(key, &n.to_string());
    }

    fn str(&mut self, key: &str, value: &str) {
        if !value.is_empty() {
            self.raw(key, &string(value));
        }
    }

    fn opt(&mut self, key: &str, value: &Option<String>) {
        if let Some(v) = value {
            self.raw(key, &string(v));
        }
    }

    fn flag(&mut self, key: &str, value: bool) {
        if value {
            self.raw(key, "true");
        }
    }

    fn list(&mut self, key: &str, items: &[String]) {
        if !items.is_empty() {
            let items: Vec<String> = items.iter().map(|i| string(i)).collect();
            self.raw(key, &format!("[{}]", items.join(",")));
        }
    }

    fn raw_list(&mut self, key: &str, items: impl Iterator<Item = String>) {
        let items: Vec<String> = items.collect();
        if !items.is_empty() {
            self.raw(key, &format!("[{}]", items.join(",")));
        }
    }

    fn end(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

impl BuildRecord {
    /// The record as JSON, one facility and one library a line.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{{\n  \"schema\": {},", self.schema);
        let _ = writeln!(s, "  \"crate\": {},", string(&self.crate_name));
        if !self.version.is_empty() {
            let _ = writeln!(s, "  \"version\": {},", string(&self.version));
        }
        let _ = writeln!(s, "  \"prefix\": {},", string(&self.prefix));
        let _ = writeln!(s, "  \"role\": {},", string(&self.role));
        let _ = writeln!(s, "  \"target\": {},", string(&self.target));
        let _ = writeln!(s, "  \"features\": {},", list(&self.features));
        let _ = writeln!(s, "  \"source_features\": {},", list(&self.source_features));
        let _ = writeln!(s, "  \"config_file\": {},", string(&self.config_file));
        let variables: Vec<String> = self
            .variables
            .iter()
            .map(|v| {
                format!(
                    "{{\"name\": {}, \"when\": {}}}",
                    string(&v.name),
                    string(&v.when)
                )
            })
            .collect();
        let _ = writeln!(s, "  \"variables\": [{}],", variables.join(", "));
        s.push_str("  \"facilities\": [");
        for (i, f) in self.facilities.iter().enumerate() {
            let providers: Vec<String> = f
                .providers
                .iter()
                .map(|p| {
                    format!(
                        "{{\"name\": {}, \"feature\": {}, \"compiled\": {}, \"answers_to\": {}, \"links\": {}, \"properties\": {}}}",
                        string(&p.name),
                        opt_string(p.feature.as_deref()),
                        p.compiled,
                        opt_string(p.answers_to.as_deref()),
                        list(&p.links),
                        list(&p.properties)
                    )
                })
                .collect();
            let _ = write!(
                s,
                "{}\n    {{\"name\": {}, \"kind\": {}, \"variable\": {}, \"used_by\": {}, \"providers\": [{}], \"selected\": {}, \"origin\": {}, \"origin_kind\": {}, \"origin_name\": {}, \"origin_at\": {}}}",
                if i == 0 { "" } else { "," },
                string(&f.name),
                opt_string(f.kind.as_deref()),
                string(&f.variable),
                list(&f.used_by),
                providers.join(", "),
                string(&f.selected),
                string(&f.origin),
                string(&f.origin_kind),
                opt_string(f.origin_name.as_deref()),
                opt_string(f.origin_at.as_deref())
            );
        }
        s.push_str("\n  ],\n");
        let policy = |p: &Option<PolicyRecord>| match p {
            Some(p) => format!(
                "{{\"value\": {}, \"origin\": {}}}",
                string(&p.value),
                string(&p.origin)
            ),
            None => "null".to_string(),
        };
        let _ = writeln!(s, "  \"graph_reads\": {},", list(&self.graph_reads));
        let _ = writeln!(
            s,
            "  \"graph\": {{\"link\": {}, \"bundled\": {}}},",
            policy(&self.graph.link),
            policy(&self.graph.bundled)
        );
        s.push_str("  \"libraries\": [");
        for (i, l) in self.libraries.iter().enumerate() {
            let _ = write!(
                s,
                "{}\n    {{\"library\": {}, \"version\": {}, \"located_by\": {}, \"static\": {}, \"links\": {}, \"bundled\": {}}}",
                if i == 0 { "" } else { "," },
                string(&l.library),
                opt_string(l.version.as_deref()),
                string(&l.located_by),
                l.static_link,
                list(&l.links),
                l.bundled
            );
        }
        s.push_str("\n  ]\n}\n");
        s
    }

    /// What an executable carries of this record (`flagsplit_info::note`): the crate, its
    /// version, prefix, role and target, each facility's kind, variable, providers (their names,
    /// links and properties, which a policy's rules name, and the selected one's shared name),
    /// selection and origin (in its parts: [`BuildRecord::upgrade`] words it again), the graph-wide policies
    /// and the C libraries found; not the variables, features, config file, graph-wide reads or
    /// the executables using each facility, which describe the build rather than what it
    /// produced.
    pub fn for_binary(&self) -> BuildRecord {
        BuildRecord {
            schema: self.schema,
            crate_name: self.crate_name.clone(),
            version: self.version.clone(),
            prefix: self.prefix.clone(),
            role: self.role.clone(),
            target: self.target.clone(),
            facilities: self
                .facilities
                .iter()
                .map(|f| FacilityRecord {
                    used_by: Vec::new(),
                    // Worded again from its parts by the reader (`upgrade`).
                    origin: String::new(),
                    // Every provider's name, links and properties, which a policy's rules name;
                    // the shared name only of the selected one (the well-known shared names are
                    // a policy's vocabulary anyway). Not the features, nor what was compiled.
                    providers: f
                        .providers
                        .iter()
                        .map(|p| ProviderRecord {
                            name: p.name.clone(),
                            answers_to: p.answers_to.clone().filter(|_| p.name == f.selected),
                            links: p.links.clone(),
                            properties: p.properties.clone(),
                            ..ProviderRecord::default()
                        })
                        .collect(),
                    ..f.clone()
                })
                .collect(),
            graph: self.graph.clone(),
            libraries: self.libraries.clone(),
            ..BuildRecord::default()
        }
    }

    /// The record as one line of JSON without the fields that hold their default (empty, `null`,
    /// `false`), which a reader takes as the default: the form an executable carries.
    pub fn to_compact_json(&self) -> String {
        let mut o = Obj::new();
        o.num("schema", self.schema);
        o.str("crate", &self.crate_name);
        o.str("version", &self.version);
        o.str("prefix", &self.prefix);
        o.str("role", &self.role);
        o.str("target", &self.target);
        o.list("features", &self.features);
        o.list("source_features", &self.source_features);
        o.str("config_file", &self.config_file);
        o.raw_list(
            "variables",
            self.variables.iter().map(|v| {
                let mut e = Obj::new();
                e.str("name", &v.name);
                e.str("when", &v.when);
                e.end()
            }),
        );
        o.raw_list(
            "facilities",
            self.facilities.iter().map(|f| {
                let mut e = Obj::new();
                e.str("name", &f.name);
                e.opt("kind", &f.kind);
                e.str("variable", &f.variable);
                e.list("used_by", &f.used_by);
                e.raw_list(
                    "providers",
                    f.providers.iter().map(|p| {
                        let mut e = Obj::new();
                        e.str("name", &p.name);
                        e.opt("feature", &p.feature);
                        e.flag("compiled", p.compiled);
                        e.opt("answers_to", &p.answers_to);
                        e.list("links", &p.links);
                        e.list("properties", &p.properties);
                        e.end()
                    }),
                );
                e.str("selected", &f.selected);
                e.str("origin", &f.origin);
                e.str("origin_kind", &f.origin_kind);
                e.opt("origin_name", &f.origin_name);
                e.opt("origin_at", &f.origin_at);
                e.end()
            }),
        );
        o.list("graph_reads", &self.graph_reads);
        let policy = |p: &PolicyRecord| {
            let mut e = Obj::new();
            e.str("value", &p.value);
            e.str("origin", &p.origin);
            e.end()
        };
        if self.graph != GraphPolicies::default() {
            let mut g = Obj::new();
            if let Some(p) = &self.graph.link {
                g.raw("link", &policy(p));
            }
            if let Some(p) = &self.graph.bundled {
                g.raw("bundled", &policy(p));
            }
            o.raw("graph", &g.end());
        }
        o.raw_list(
            "libraries",
            self.libraries.iter().map(|l| {
                let mut e = Obj::new();
                e.str("library", &l.library);
                e.opt("version", &l.version);
                e.str("located_by", &l.located_by);
                e.flag("static", l.static_link);
                e.list("links", &l.links);
                e.flag("bundled", l.bundled);
                e.end()
            }),
        );
        o.end()
    }

    /// Fills in, for a record of an older schema, what the current one says on its own: each
    /// origin's parts (schema 1 worded them only) and the variables the crate knows (a record
    /// without them: its config variable and each facility's). A record of the current schema is
    /// left as it is.
    pub fn upgrade(&mut self) {
        // A record from an executable leaves the worded origin out: it is its parts' wording.
        for f in &mut self.facilities {
            if f.origin.is_empty() {
                f.origin = f.worded_origin();
            }
        }
        if self.schema >= 2 {
            return;
        }
        for f in &mut self.facilities {
            if f.origin_name.is_some() || f.origin_at.is_some() {
                continue;
            }
            let graph = f.origin.strip_prefix("graph-wide ");
            match f.origin_kind.as_str() {
                "feature" => {
                    f.origin_name = f
                        .origin
                        .strip_prefix("default with feature ")
                        .map(str::to_string)
                }
                "variable" => f.origin_name = Some(f.origin.clone()),
                "graph-variable" => f.origin_name = graph.map(str::to_string),
                "file" => f.origin_at = Some(f.origin.clone()),
                "graph-file" => f.origin_at = graph.map(str::to_string),
                _ => {}
            }
        }
        if self.variables.is_empty() {
            let config = format!("{}_CONFIG", self.prefix);
            self.variables = std::iter::once(config)
                .chain(self.facilities.iter().map(|f| f.variable.clone()))
                .map(|name| VariableRecord {
                    name,
                    when: "build".to_string(),
                })
                .collect();
        }
    }
}

fn list(items: &[String]) -> String {
    strings(items.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_form_leaves_out_defaults_only() {
        let r = sample();
        let compact = r.to_compact_json();
        assert!(!compact.contains('\n'), "{compact}");
        assert!(!compact.contains("null"), "{compact}");
        assert!(
            compact.starts_with("{\"schema\":2,\"crate\":\"tls-lib\""),
            "{compact}"
        );
        let binary = r.for_binary();
        assert!(binary.variables.is_empty() && binary.features.is_empty());
        assert_eq!(binary.facilities.len(), r.facilities.len());
        let p = &binary.facilities[0].providers[0];
        assert_eq!(
            (p.answers_to.as_deref(), p.feature.as_deref()),
            (Some("openssl"), None)
        );
        assert_eq!(p.links, r.facilities[0].providers[0].links);
        assert_eq!(binary.libraries, r.libraries);
        assert!(binary.to_compact_json().len() < compact.len());
        // The origin is worded again from its parts.
        assert_eq!(binary.facilities[0].origin, "");
        let mut back = binary.clone();
        back.upgrade();
        assert_eq!(back.facilities[0].origin, r.facilities[0].origin);
    }

    fn sample() -> BuildRecord {
        BuildRecord {
            schema: SCHEMA,
            crate_name: "tls-lib".into(),
            prefix: "TLS_LIB".into(),
            role: "library".into(),
            target: "x86_64-unknown-linux-gnu".into(),
            features: vec!["openssl".into()],
            config_file: "a \"quoted\"\\path\n".into(),
            variables: vec![VariableRecord {
                name: "TLS_LIB_TLS_PROVIDER".into(),
                when: "build".into(),
            }],
            facilities: vec![FacilityRecord {
                name: "tls".into(),
                kind: Some("tls".into()),
                variable: "TLS_LIB_TLS_PROVIDER".into(),
                providers: vec![ProviderRecord {
                    name: "openssl".into(),
                    feature: Some("openssl".into()),
                    compiled: true,
                    answers_to: Some("openssl".into()),
                    links: vec!["libssl".into()],
                    properties: vec![],
                }],
                selected: "openssl".into(),
                origin: "graph-wide RUST_BACKEND_TLS".into(),
                origin_kind: "graph-variable".into(),
                origin_name: Some("RUST_BACKEND_TLS".into()),
                ..Default::default()
            }],
            graph_reads: vec!["tls".into(), "config".into()],
            graph: GraphPolicies {
                link: Some(PolicyRecord {
                    value: "static".into(),
                    origin: "graph-wide RUST_BACKEND_LINK".into(),
                }),
                bundled: None,
            },
            libraries: vec![LibraryRecord {
                library: "openssl".into(),
                version: Some("3.0.19".into()),
                located_by: "pkg-config".into(),
                static_link: true,
                links: vec!["ssl".into(), "crypto".into()],
                bundled: false,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn json_lines() {
        let json = sample().to_json();
        assert!(
            json.starts_with("{\n  \"schema\": 2,\n  \"crate\": \"tls-lib\",\n"),
            "{json}"
        );
        assert!(
            json.contains("\"config_file\": \"a \\\"quoted\\\"\\\\path\\n\","),
            "{json}"
        );
        assert!(json.contains("\"origin_kind\": \"graph-variable\", \"origin_name\": \"RUST_BACKEND_TLS\", \"origin_at\": null}"), "{json}");
        assert!(json.contains("\"graph\": {\"link\": {\"value\": \"static\", \"origin\": \"graph-wide RUST_BACKEND_LINK\"}, \"bundled\": null},"), "{json}");
        assert!(
            json.contains(
                "\"static\": true, \"links\": [\"ssl\", \"crypto\"], \"bundled\": false}"
            ),
            "{json}"
        );
        assert!(json.ends_with("\n  ]\n}\n"), "{json}");
    }

    #[test]
    fn schema_1_upgraded() {
        let mut r = sample();
        r.schema = 1;
        r.variables.clear();
        let mut facility = r.facilities[0].clone();
        facility.origin_name = None;
        let cases = [
            (
                "default with feature openssl",
                "feature",
                Some("openssl"),
                None,
            ),
            (
                "TLS_LIB_TLS_PROVIDER",
                "variable",
                Some("TLS_LIB_TLS_PROVIDER"),
                None,
            ),
            (
                "graph-wide RUST_BACKEND_TLS",
                "graph-variable",
                Some("RUST_BACKEND_TLS"),
                None,
            ),
            ("config.toml:2:12", "file", None, Some("config.toml:2:12")),
            (
                "graph-wide /b.toml:1:7",
                "graph-file",
                None,
                Some("/b.toml:1:7"),
            ),
            ("default", "default", None, None),
        ];
        for (origin, kind, name, at) in cases {
            facility.origin = origin.into();
            facility.origin_kind = kind.into();
            r.facilities = vec![facility.clone()];
            let mut up = r.clone();
            up.upgrade();
            assert_eq!(up.facilities[0].origin_name.as_deref(), name, "{origin}");
            assert_eq!(up.facilities[0].origin_at.as_deref(), at, "{origin}");
            assert_eq!(
                up.variables
                    .iter()
                    .map(|v| v.name.as_str())
                    .collect::<Vec<_>>(),
                ["TLS_LIB_CONFIG", "TLS_LIB_TLS_PROVIDER"]
            );
        }
        let mut current = sample();
        current.facilities[0].origin_name = None;
        let before = current.clone();
        current.upgrade();
        assert_eq!(current, before, "schema 2 is left as it is");
    }
}

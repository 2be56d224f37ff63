//! Writes the `flagsplit_info::BuildInfo` expression that a build script puts in `OUT_DIR`, and
//! the same as JSON for tools.
//!
//! Data only: a panic location inside `include!`d code would embed the absolute `OUT_DIR` path in
//! the binary and break reproducible builds, so the generated text is a single constant
//! expression of literals and `const fn` calls.

use std::fmt::Write as _;

use flagsplit_info::record::{
    BuildRecord, FacilityRecord, GraphPolicies, LibraryRecord, PolicyRecord, ProviderRecord,
    SCHEMA, VariableRecord,
};

use crate::clib::LibraryFound;
use crate::model::{FeatureSet, Origin, Role, Selection, When};

/// The name of the machine-readable build-options file in `OUT_DIR` ([`build_options_json`]).
pub(crate) const JSON_FILE: &str = "flagsplit-config.json";
/// The executables' record (`flagsplit_info::note`), beside it; `flagsplit_info::record!`, which
/// build_info.rs invokes, reads this name.
pub(crate) const NOTE_FILE: &str = "flagsplit-record.note";

/// When a declared variable is read, as one word in the JSON build options.
fn when_key(when: When) -> &'static str {
    match when {
        When::Build => "build",
        When::Run => "run",
        When::Test => "test",
        When::Bench => "bench",
    }
}

/// Who made a choice, as one word: `default`, `feature`, `variable`, `file`, `graph-variable`,
/// `graph-file`.
pub(crate) fn origin_kind(origin: &Origin) -> &'static str {
    match origin {
        Origin::Default => "default",
        Origin::FeatureDefault(_) => "feature",
        Origin::Env(_) => "variable",
        Origin::File { .. } => "file",
        Origin::Graph(_) => "graph-variable",
        Origin::GraphFile { .. } => "graph-file",
    }
}

/// The build options as a `flagsplit_info::record::BuildRecord`, for tools that read a whole
/// build: the crate, its role, target, features, config file, every variable it knows, each
/// facility (kind, every provider with its feature, whether this build compiles it, the shared
/// name it answers to, what it links and guarantees; the selection and its origin, worded and in
/// parts), the graph-wide settings it reads (their file keys, and `config` for
/// `RUST_BACKEND_CONFIG`), the graph-wide policies and the probed libraries.
pub(crate) fn build_record(
    selection: &Selection,
    features: &FeatureSet,
    source_features: &[&str],
    config_file: &str,
    libraries: &[LibraryFound],
    target: &str,
    graph_reads: &[&str],
) -> BuildRecord {
    let spec = selection.spec;
    // Plain loops: less code to compile in every build script than iterator chains.
    // Every variable the crate knows: the build-time ones its build script reads, then the
    // table's declared ones (read by the binaries, the tests or the benchmarks).
    let mut variables: Vec<VariableRecord> = Vec::new();
    for name in spec.build_variable_names() {
        variables.push(VariableRecord {
            name,
            when: "build".to_string(),
        });
    }
    for v in spec.variables {
        if !variables.iter().any(|r| r.name == v.name) {
            variables.push(VariableRecord {
                name: v.name.to_string(),
                when: when_key(v.when).to_string(),
            });
        }
    }
    let mut facilities = Vec::new();
    for (facility, choice) in selection.iter() {
        facilities.push({
            let (origin_name, origin_at) = match &choice.origin {
                Origin::Default => (None, None),
                Origin::FeatureDefault(feature) => (Some(feature.to_string()), None),
                Origin::Env(var) | Origin::Graph(var) => (Some(var.clone()), None),
                Origin::File { path, line, column } | Origin::GraphFile { path, line, column } => {
                    (None, Some(format!("{path}:{line}:{column}")))
                }
            };
            FacilityRecord {
                name: facility.name.to_string(),
                kind: facility.kind.map(str::to_string),
                variable: spec.env_var(facility),
                used_by: owned(facility.used_by),
                providers: {
                    let mut providers = Vec::new();
                    for p in facility.providers {
                        providers.push(ProviderRecord {
                            name: p.name.to_string(),
                            feature: p.feature.map(str::to_string),
                            compiled: p.is_available(features),
                            answers_to: p.answers_to.map(str::to_string),
                            links: owned(p.links),
                            properties: owned(p.properties),
                        });
                    }
                    providers
                },
                selected: choice.provider.name.to_string(),
                origin: choice.origin.to_string(),
                origin_kind: origin_kind(&choice.origin).to_string(),
                origin_name,
                origin_at,
            }
        });
    }
    let policy = |p: &Option<crate::PolicyChoice>| {
        p.as_ref().map(|p| PolicyRecord {
            value: p.value.to_string(),
            origin: p.origin.to_string(),
        })
    };
    BuildRecord {
        schema: SCHEMA,
        crate_name: spec.name.to_string(),
        version: String::new(),
        prefix: spec.prefix.to_string(),
        role: match spec.role {
            Role::Application => "application",
            Role::Library => "library",
        }
        .to_string(),
        target: target.to_string(),
        features: owned(&features.in_order(spec)),
        source_features: owned(source_features),
        config_file: config_file.to_string(),
        variables,
        facilities,
        graph_reads: owned(graph_reads),
        graph: GraphPolicies {
            link: policy(&selection.link),
            bundled: policy(&selection.bundled),
        },
        libraries: {
            let mut records = Vec::new();
            for l in libraries {
                records.push(LibraryRecord {
                    library: l.library.to_string(),
                    version: l.version.clone(),
                    located_by: l.located_by.clone(),
                    static_link: l.static_link,
                    links: l.links.clone(),
                    bundled: l.bundled,
                });
            }
            records
        },
    }
}

/// Each as a `String`.
fn owned(items: &[&str]) -> Vec<String> {
    let mut owned = Vec::with_capacity(items.len());
    for item in items {
        owned.push(item.to_string());
    }
    owned
}

/// A graph-wide setting the build reads, for the build options: its key, the values it takes,
/// and whether another value may be another crate's (a kind of a crate's own).
pub(crate) struct GraphReadOut<'a> {
    pub(crate) key: &'a str,
    pub(crate) values: Vec<&'a str>,
    pub(crate) open: bool,
}

/// The Rust expression of type `flagsplit_info::BuildInfo` for this build.
pub(crate) fn build_info_literal(
    selection: &Selection,
    features: &[&str],
    source_features: &[&str],
    config_file: &str,
    libraries: &[LibraryFound],
    target: &str,
    graph: &[GraphReadOut<'_>],
) -> String {
    let spec = selection.spec;
    let mut s = format!(
        "// @generated by the build script of {}: data only.\n",
        spec.name
    );
    // The block first places the build record in the executables (`flagsplit_info::record!`,
    // whose attributes are the macro's own, so any edition and `forbid(unsafe_code)` accept it).
    let _ = write!(
        s,
        "{{\n::flagsplit_info::record!();\n::flagsplit_info::BuildInfo::__generated(\n    {:?},\n    {:?},\n    &[\n",
        spec.name, spec.prefix
    );
    for (facility, choice) in selection.iter() {
        let _ = writeln!(
            s,
            "        ::flagsplit_info::ChoiceInfo::__generated({:?}, {:?}, {:?}, {:?}, {:?}, {:?}, &{:?}),",
            facility.name,
            choice.provider.name,
            choice.origin.to_string(),
            facility.kind,
            facility.label,
            choice.provider.label,
            choice.provider.links
        );
    }
    let _ = write!(
        s,
        "    ],\n    &{features:?},\n    &{source_features:?},\n    {config_file:?},\n    &["
    );
    for l in libraries {
        let _ = write!(
            s,
            "::flagsplit_info::LibraryBuildInfo::__generated({:?}, {:?}, {:?}, &{:?}, {}), ",
            l.library, l.version, l.located_by, l.lib_dirs, l.static_link
        );
    }
    let known: Vec<&str> = spec.variables.iter().map(|v| v.name).collect();
    let _ = write!(
        s,
        "],\n    {target:?},\n    &{:?},\n    &{known:?},\n    &[",
        spec.build_variable_names()
    );
    for g in graph {
        let _ = write!(
            s,
            "::flagsplit_info::GraphRead::__generated({:?}, &{:?}, {}), ",
            g.key, g.values, g.open
        );
    }
    s.push_str("],\n)\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Choice;
    use crate::test_tables::LIBRARY;

    #[test]
    fn the_json_build_options_name_every_provider_and_the_origin() {
        let inflate = &LIBRARY.facilities[0];
        let choice = Choice {
            provider: inflate.provider("zlib").unwrap(),
            origin: Origin::Graph("RUST_BACKEND_ZLIB".into()),
        };
        let selection = Selection::new(&LIBRARY, vec![choice]);
        let features = FeatureSet::from_names(&LIBRARY, ["zlib"]);
        let json = build_record(
            &selection,
            &features,
            &[],
            "a \"quoted\"\\path\n",
            &[],
            "x86_64-unknown-linux-gnu",
            &["zlib", "config"],
        )
        .to_json();
        assert_eq!(
            json,
            r#"{
  "schema": 2,
  "crate": "inflate-lib",
  "prefix": "INFLATE_LIB",
  "role": "library",
  "target": "x86_64-unknown-linux-gnu",
  "features": ["zlib"],
  "source_features": [],
  "config_file": "a \"quoted\"\\path\n",
  "variables": [{"name": "INFLATE_LIB_CONFIG", "when": "build"}, {"name": "INFLATE_LIB_INFLATE_PROVIDER", "when": "build"}],
  "facilities": [
    {"name": "inflate", "kind": "zlib", "variable": "INFLATE_LIB_INFLATE_PROVIDER", "used_by": [], "providers": [{"name": "miniz", "feature": null, "compiled": true, "answers_to": "pure-rust", "links": [], "properties": []}, {"name": "zlib", "feature": "zlib", "compiled": true, "answers_to": "system", "links": ["libz"], "properties": []}, {"name": "zlib-ng", "feature": "zlib-ng", "compiled": false, "answers_to": "zlib-ng", "links": [], "properties": []}], "selected": "zlib", "origin": "graph-wide RUST_BACKEND_ZLIB", "origin_kind": "graph-variable", "origin_name": "RUST_BACKEND_ZLIB", "origin_at": null}
  ],
  "graph_reads": ["zlib", "config"],
  "graph": {"link": null, "bundled": null},
  "libraries": [
  ]
}
"#
        );
    }
}

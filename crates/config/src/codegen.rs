//! Writes the `flagsplit_info::BuildInfo` expression that a build script puts in `OUT_DIR`, and
//! the same as JSON for tools.
//!
//! Data only: a panic location inside `include!`d code would embed the absolute `OUT_DIR` path in
//! the binary and break reproducible builds, so the generated text is a single constant
//! expression of literals and `const fn` calls.

use std::fmt::Write as _;

use flagsplit_info::json::{opt_string as json_opt, string as json_str, strings as json_list};

use crate::clib::LibraryFound;
use crate::model::{FeatureSet, Origin, Role, Selection, When};

/// The name of the machine-readable build-options file in `OUT_DIR` ([`build_options_json`]).
pub(crate) const JSON_FILE: &str = "flagsplit-config.json";

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

/// The build options as JSON, for tools that read a whole build (schema 1): the crate, its role,
/// target, features, config file, each facility (kind, every provider with its feature, whether
/// this build compiles it, the shared name it answers to and what it links; the selection and its
/// origin), the graph-wide settings it reads (their file keys, and `config` for
/// `RUST_BACKEND_CONFIG`), the graph-wide policies and the probed libraries.
pub(crate) fn build_options_json(
    selection: &Selection,
    features: &FeatureSet,
    source_features: &[&str],
    config_file: &str,
    libraries: &[LibraryFound],
    target: &str,
    graph_reads: &[&str],
) -> String {
    let spec = selection.spec;
    let mut s = String::from("{\n  \"schema\": 1,\n");
    let role = match spec.role {
        Role::Application => "application",
        Role::Library => "library",
    };
    let _ = writeln!(s, "  \"crate\": {},", json_str(spec.name));
    let _ = writeln!(s, "  \"prefix\": {},", json_str(spec.prefix));
    let _ = writeln!(s, "  \"role\": {},", json_str(role));
    let _ = writeln!(s, "  \"target\": {},", json_str(target));
    let _ = writeln!(s, "  \"features\": {},", json_list(features.in_order(spec)));
    let _ = writeln!(
        s,
        "  \"source_features\": {},",
        json_list(source_features.iter().copied())
    );
    let _ = writeln!(s, "  \"config_file\": {},", json_str(config_file));
    // Every variable the crate knows: the build-time ones its build script reads, then the
    // table's declared ones (read by the binaries, the tests or the benchmarks).
    let mut variables: Vec<(String, &str)> = spec
        .build_variable_names()
        .into_iter()
        .map(|n| (n, "build"))
        .collect();
    for v in spec.variables {
        if !variables.iter().any(|(n, _)| n == v.name) {
            variables.push((v.name.to_string(), when_key(v.when)));
        }
    }
    let variables: Vec<String> = variables
        .iter()
        .map(|(n, w)| format!("{{\"name\": {}, \"when\": {}}}", json_str(n), json_str(w)))
        .collect();
    let _ = writeln!(s, "  \"variables\": [{}],", variables.join(", "));
    s.push_str("  \"facilities\": [");
    for (i, (facility, choice)) in selection.iter().enumerate() {
        let providers: Vec<String> = facility
            .providers
            .iter()
            .map(|p| {
                format!(
                    "{{\"name\": {}, \"feature\": {}, \"compiled\": {}, \"answers_to\": {}, \"links\": {}, \"properties\": {}}}",
                    json_str(p.name),
                    json_opt(p.feature),
                    p.is_available(features),
                    json_opt(p.answers_to),
                    json_list(p.links.iter().copied()),
                    json_list(p.properties.iter().copied())
                )
            })
            .collect();
        let _ = write!(
            s,
            "{}\n    {{\"name\": {}, \"kind\": {}, \"variable\": {}, \"used_by\": {}, \"providers\": [{}], \"selected\": {}, \"origin\": {}, \"origin_kind\": {}}}",
            if i == 0 { "" } else { "," },
            json_str(facility.name),
            json_opt(facility.kind),
            json_str(&spec.env_var(facility)),
            json_list(facility.used_by.iter().copied()),
            providers.join(", "),
            json_str(choice.provider.name),
            json_str(&choice.origin.to_string()),
            json_str(origin_kind(&choice.origin))
        );
    }
    s.push_str("\n  ],\n");
    let policy = |p: &Option<crate::PolicyChoice>| match p {
        Some(p) => format!(
            "{{\"value\": {}, \"origin\": {}}}",
            json_str(p.value),
            json_str(&p.origin.to_string())
        ),
        None => "null".to_string(),
    };
    let _ = writeln!(
        s,
        "  \"graph_reads\": {},",
        json_list(graph_reads.iter().copied())
    );
    let _ = writeln!(
        s,
        "  \"graph\": {{\"link\": {}, \"bundled\": {}}},",
        policy(&selection.link),
        policy(&selection.bundled)
    );
    s.push_str("  \"libraries\": [");
    for (i, l) in libraries.iter().enumerate() {
        let _ = write!(
            s,
            "{}\n    {{\"library\": {}, \"version\": {}, \"located_by\": {}, \"static\": {}, \"links\": {}, \"bundled\": {}}}",
            if i == 0 { "" } else { "," },
            json_str(l.library),
            json_opt(l.version.as_deref()),
            json_str(&l.located_by),
            l.static_link,
            json_list(l.links.iter().map(String::as_str)),
            l.bundled
        );
    }
    s.push_str("\n  ]\n}\n");
    s
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
    let _ = write!(
        s,
        "::flagsplit_info::BuildInfo::__generated(\n    {:?},\n    {:?},\n    &[\n",
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
    s.push_str("],\n)\n");
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
        let json = build_options_json(
            &selection,
            &features,
            &[],
            "a \"quoted\"\\path\n",
            &[],
            "x86_64-unknown-linux-gnu",
            &["zlib", "config"],
        );
        assert_eq!(
            json,
            r#"{
  "schema": 1,
  "crate": "inflate-lib",
  "prefix": "INFLATE_LIB",
  "role": "library",
  "target": "x86_64-unknown-linux-gnu",
  "features": ["zlib"],
  "source_features": [],
  "config_file": "a \"quoted\"\\path\n",
  "variables": [{"name": "INFLATE_LIB_CONFIG", "when": "build"}, {"name": "INFLATE_LIB_INFLATE_PROVIDER", "when": "build"}],
  "facilities": [
    {"name": "inflate", "kind": "zlib", "variable": "INFLATE_LIB_INFLATE_PROVIDER", "used_by": [], "providers": [{"name": "miniz", "feature": null, "compiled": true, "answers_to": "pure-rust", "links": [], "properties": []}, {"name": "zlib", "feature": "zlib", "compiled": true, "answers_to": "system", "links": ["libz"], "properties": []}, {"name": "zlib-ng", "feature": "zlib-ng", "compiled": false, "answers_to": "zlib-ng", "links": [], "properties": []}], "selected": "zlib", "origin": "graph-wide RUST_BACKEND_ZLIB", "origin_kind": "graph-variable"}
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

//! The resolver: a [`Spec`] + enabled features + `<PREFIX>_*` variables + a config file → one
//! provider per facility, with its origin. Pure: the caller does all reading.
//!
//! Precedence: variable > config file > default. Every input is validated even when a
//! higher-precedence one overrides it, except the feature check, which applies to the choice that
//! takes effect: an overridden request is not a request that cannot be met.

use std::collections::BTreeMap;

use flagsplit_info::BuildInfo;

use crate::cfgexpr::Scope;
pub use crate::cfgexpr::TargetCfg;
use crate::clib::target_prefixed;
use crate::error::{ConfigError, Errors, Requester};
use crate::graph::Setting;
use crate::model::FilePos;
use crate::model::{
    Choice, FeatureSet, FileChoice, GraphEntry, Origin, PolicyChoice, Selection, Spec, When,
    nearest_variable,
};

/// The file's valid choices and every error in it.
#[cfg(feature = "config-file")]
fn parse_file(
    spec: &'static Spec,
    input: &ConfigFileInput,
    text: &str,
) -> (Vec<FileChoice>, Vec<ConfigError>) {
    crate::file::parse(spec, &input.named, text)
}

/// The graph-wide file's valid entries and every error in it.
#[cfg(feature = "config-file")]
fn parse_graph_file(input: &ConfigFileInput, text: &str) -> (Vec<GraphEntry>, Vec<ConfigError>) {
    crate::file::parse_graph(&input.named, text)
}

/// Without a TOML reader, a graph-wide file is an error.
#[cfg(not(feature = "config-file"))]
fn parse_graph_file(input: &ConfigFileInput, _text: &str) -> (Vec<GraphEntry>, Vec<ConfigError>) {
    let error = ConfigError::NoFileReader {
        named: input.named_by.clone(),
        crate_name: "flagsplit-config",
        prefix: crate::graph::PREFIX,
    };
    (Vec::new(), vec![error])
}

/// Without a TOML reader, a config file is an error.
#[cfg(not(feature = "config-file"))]
fn parse_file(
    spec: &'static Spec,
    input: &ConfigFileInput,
    _text: &str,
) -> (Vec<FileChoice>, Vec<ConfigError>) {
    let error = ConfigError::NoFileReader {
        named: input.named_by.clone(),
        crate_name: spec.name,
        prefix: spec.prefix,
    };
    (Vec::new(), vec![error])
}

/// The config file that applies (the one `<PREFIX>_CONFIG` names, else the local `config.toml`),
/// as read by the caller.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConfigFileInput {
    /// The path as given (the variable's value, or `config.toml`), used in origins.
    pub named: String,
    /// Who named it, for the "cannot be read" message (`FLAGSPLIT_CONFIG=myconf.toml`).
    pub named_by: String,
    /// The path actually read, for the "cannot be read" message.
    pub resolved: String,
    /// The contents, or the operating system's reason it could not be read.
    pub contents: Result<String, String>,
    /// What to do when it cannot be read.
    pub fix: String,
}

/// Everything the resolver decides from: [`Inputs::new`], then the fields.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Inputs {
    /// The facility table.
    pub spec: &'static Spec,
    /// The enabled Cargo features.
    pub features: FeatureSet,
    /// Every variable in the build environment whose name starts with the spec's prefix; `None`
    /// when its value is not UTF-8.
    pub env: BTreeMap<String, Option<String>>,
    /// The config file that applies, if any.
    pub file: Option<ConfigFileInput>,
    /// The target triple (`TARGET`), for the target-scoped variables and `[target.<triple>]`.
    pub target: String,
    /// The host triple (`HOST`): its target-scoped graph-wide names are checked too.
    pub host: String,
    /// The target's `cfg` values, for `[target.'cfg(...)']` tables.
    pub cfg: TargetCfg,
    /// Every graph-wide variable in the build environment ([`crate::graph`]: `RUST_BACKEND_*`, and
    /// the target and host triples' scoped forms); `None` when its value is not UTF-8.
    pub graph_env: BTreeMap<String, Option<String>>,
    /// The graph-wide config file (`RUST_BACKEND_CONFIG`), if one is named.
    pub graph_file: Option<ConfigFileInput>,
    /// The graph-wide settings this crate reads (a build script records exactly these with
    /// `rerun-if-env-changed`): only they select, set a policy or have their values checked.
    /// `None`: every setting (tests, tools).
    pub graph_reads: Option<Vec<Setting>>,
}

impl ConfigFileInput {
    /// The file `named` (as its origins will say it), named by `named_by`
    /// (`DEMO_CONFIG=demo.toml`), read from `resolved`: its `contents`, or the operating
    /// system's reason it could not be read; `fix`: what to do when it cannot be read.
    pub fn new(
        named: impl Into<String>,
        named_by: impl Into<String>,
        resolved: impl Into<String>,
        contents: Result<String, String>,
        fix: impl Into<String>,
    ) -> ConfigFileInput {
        ConfigFileInput {
            named: named.into(),
            named_by: named_by.into(),
            resolved: resolved.into(),
            contents,
            fix: fix.into(),
        }
    }
}

impl Inputs {
    /// No features, variables or file.
    pub fn new(spec: &'static Spec) -> Inputs {
        Inputs {
            spec,
            features: FeatureSet::EMPTY,
            env: BTreeMap::new(),
            file: None,
            target: String::new(),
            host: String::new(),
            cfg: TargetCfg::default(),
            graph_env: BTreeMap::new(),
            graph_file: None,
            graph_reads: None,
        }
    }
}

/// The config file the `<PREFIX>_CONFIG` variable names, if it is set to something non-empty.
#[cfg(feature = "build-script")]
pub(crate) fn config_file_name<'a>(
    spec: &Spec,
    env: &'a BTreeMap<String, Option<String>>,
) -> Option<&'a str> {
    match env.get(&spec.config_var()) {
        Some(Some(name)) if !name.is_empty() => Some(name),
        _ => None,
    }
}

/// The build-time variable closest to `name`, when it is close enough to be a likely typo.
pub fn suggest(spec: &Spec, name: &str) -> Option<String> {
    let mut names = spec.build_variable_names();
    for v in spec.variables {
        names.push(v.name.to_string());
    }
    nearest_variable(name, names)
}

/// Resolves the selection, or returns every error found.
///
/// Precedence, highest first: the crate's variable, the crate's config file, the graph-wide
/// variable, the graph-wide file, the features (an application's), the default. At each level a
/// target-scoped form wins over an unscoped one (`<TARGET>_<NAME>` over `<NAME>`; in a file
/// `[target.<triple>]` over `[target.'cfg(...)']` over a top-level entry).
pub fn resolve(inputs: &Inputs) -> Result<Selection, Errors> {
    let spec = inputs.spec;
    let mut errors = Vec::new();
    let n = spec.facilities.len();

    // 1. The crate's variables themselves.
    let mut from_env: Vec<Option<(String, &'static crate::Provider)>> = vec![None; n];
    let mut from_scoped: Vec<Option<(String, &'static crate::Provider)>> = vec![None; n];
    let config_var = spec.config_var();
    for (name, value) in &inputs.env {
        let facility = spec
            .facilities
            .iter()
            .position(|f| spec.env_var(f) == *name);
        let scoped = spec.facilities.iter().position(|f| {
            !inputs.target.is_empty() && target_prefixed(&inputs.target, &spec.env_var(f)) == *name
        });
        // A target-scoped name (`<TRIPLE>_...`) that is not one of this crate's own belongs to
        // another crate or to the graph-wide settings, even when this crate's prefix is the start
        // of a triple (`ARM` and `ARM_UNKNOWN_LINUX_GNUEABIHF_...`).
        if facility.is_none() && scoped.is_none() {
            let other_scoped = [&inputs.target, &inputs.host]
                .iter()
                .filter(|t| !t.is_empty())
                .any(|t| name.starts_with(&target_prefixed(t, "")));
            if other_scoped {
                continue;
            }
            if *name != config_var {
                match spec.variables.iter().find(|v| v.name == name) {
                    Some(v) if v.when != When::Build => continue, // read by the binaries or tests
                    Some(_) => {}
                    None => {
                        errors.push(ConfigError::UnknownVariable {
                            name: name.clone(),
                            valid: spec.build_variable_names(),
                            suggestion: suggest(spec, name),
                        });
                        continue;
                    }
                }
            }
        }
        let value = match value {
            Some(value) => value,
            None => {
                errors.push(ConfigError::NotUnicode { name: name.clone() });
                continue;
            }
        };
        if value.is_empty() {
            errors.push(ConfigError::EmptyVariable {
                name: name.clone(),
                facility: facility.or(scoped).map(|i| &spec.facilities[i]),
            });
            continue;
        }
        let (i, slot) = match (facility, scoped) {
            (Some(i), _) => (i, &mut from_env),
            (None, Some(i)) => (i, &mut from_scoped),
            (None, None) => {
                continue; // the config variable: the caller read the file it names
            }
        };
        let facility = &spec.facilities[i];
        match facility.provider(value) {
            Some(provider) => slot[i] = Some((name.clone(), provider)),
            None => errors.push(ConfigError::UnknownProvider {
                by: Requester::Env(name.clone()),
                facility,
                value: value.clone(),
            }),
        }
    }

    // 2. The crate's file.
    let mut from_file: Vec<Vec<FileChoice>> = vec![Vec::new(); n];
    if let Some(input) = &inputs.file {
        match &input.contents {
            Err(reason) => errors.push(ConfigError::FileUnreadable {
                named: input.named_by.clone(),
                resolved: input.resolved.clone(),
                reason: reason.clone(),
                fix: input.fix.clone(),
            }),
            Ok(text) => {
                let (choices, file_errors) = parse_file(spec, input, text);
                errors.extend(file_errors);
                for choice in choices {
                    if let Some(i) = spec
                        .facilities
                        .iter()
                        .position(|f| std::ptr::eq(f, choice.facility))
                    {
                        from_file[i].push(choice);
                    }
                }
            }
        }
    }

    // 3. The graph-wide variables and file, every one checked.
    let mut warnings = Vec::new();
    let graph = graph_settings(inputs, &mut errors, &mut warnings);

    // 4. Precedence, then the feature check on what takes effect.
    let mut choices: Vec<Choice> = default_choices(spec, &inputs.features);
    for (i, facility) in spec.facilities.iter().enumerate() {
        let file_choice = most_specific(
            &from_file[i],
            |c| (&c.scope, &c.at, c.provider.name),
            inputs,
            facility.name,
            &mut errors,
        );
        let requested =
            if let Some((var, provider)) = from_scoped[i].as_ref().or(from_env[i].as_ref()) {
                Some((
                    Requester::Env(var.clone()),
                    *provider,
                    Origin::Env(var.clone()),
                ))
            } else if let Some(c) = file_choice {
                Some((
                    Requester::File(c.at.clone()),
                    c.provider,
                    Origin::file(&c.at),
                ))
            } else if let Some((shared, by, origin)) = facility
                .kind
                .and_then(|kind| graph.get(&Setting::Kind(kind)))
                .cloned()
            {
                match facility.answering(&shared) {
                    Some(provider) => Some((by, provider, origin)),
                    None => {
                        errors.push(ConfigError::GraphUnmet {
                            by,
                            facility,
                            shared: shared.to_string(),
                            crate_name: spec.name,
                            variable: spec.env_var(facility),
                        });
                        continue;
                    }
                }
            } else {
                None
            };
        let (by, provider, origin) = match requested {
            Some((by, provider, origin)) => (by, provider, origin),
            None => {
                continue;
            }
        };
        if !provider.is_available(&inputs.features) {
            errors.push(ConfigError::feature_off(
                spec,
                by,
                facility,
                provider,
                &inputs.features,
            ));
            continue;
        }
        choices[i] = Choice { provider, origin };
    }

    if errors.is_empty() {
        // Link's and bundled's values were checked against their fixed sets.
        let policy = |setting: Setting| {
            let (value, _, origin) = graph.get(&setting)?;
            let value = setting.values().iter().find(|v| **v == value.as_str())?;
            Some(PolicyChoice {
                value,
                origin: origin.clone(),
            })
        };
        let mut selection = Selection::new(spec, choices);
        selection.link = policy(Setting::Link);
        selection.bundled = policy(Setting::Bundled);
        for w in &warnings {
            selection.warnings.push(w.warning());
        }
        Ok(selection)
    } else {
        Err(Errors(errors))
    }
}

/// Every facility's default for `features` (in table order).
pub(crate) fn default_choices(spec: &Spec, features: &FeatureSet) -> Vec<Choice> {
    let mut choices = Vec::with_capacity(spec.facilities.len());
    for f in spec.facilities {
        choices.push(f.default_choice(spec.role, features));
    }
    choices
}

/// Of the file entries that apply to this target, the most specific (`[target.<triple>]`, then
/// `[target.'cfg(...)']`, then top-level); two `cfg` tables that both apply and disagree are an
/// error.
fn most_specific<'a, T>(
    entries: &'a [T],
    key: impl Fn(&'a T) -> (&'a Scope, &'a FilePos, &'a str),
    inputs: &Inputs,
    what: &str,
    errors: &mut Vec<ConfigError>,
) -> Option<&'a T> {
    let mut keys = Vec::with_capacity(entries.len());
    for e in entries {
        keys.push(key(e));
    }
    most_specific_key(&keys, inputs, what, errors).map(|i| &entries[i])
}

/// `most_specific` of the entries' keys (scope, place, value): the index of the one chosen.
// Not generic: compiled once, not once per type of entry.
fn most_specific_key(
    keys: &[(&Scope, &FilePos, &str)],
    inputs: &Inputs,
    what: &str,
    errors: &mut Vec<ConfigError>,
) -> Option<usize> {
    let mut ranks: Vec<Option<u8>> = Vec::with_capacity(keys.len());
    let mut top: Option<u8> = None;
    for k in keys {
        let rank = k.0.rank(&inputs.target, &inputs.cfg);
        if rank > top {
            top = rank;
        }
        ranks.push(rank);
    }
    let top = top?;
    let key = |i: usize| keys[i];
    let mut best: Option<usize> = None;
    for (entry, rank) in ranks.into_iter().enumerate() {
        if rank != Some(top) {
            continue;
        }
        match best {
            // Only `cfg(...)` tables can apply twice (the same table twice is a TOML error); when
            // the target's own table applies, they do not matter.
            Some(b) if top == 1 && key(b).2 != key(entry).2 => {
                let (_, b_at, b_value) = key(b);
                let (_, at, value) = key(entry);
                errors.push(ConfigError::ScopeConflict {
                    what: what.to_string(),
                    first: (b_value.to_string(), b_at.clone()),
                    second: (value.to_string(), at.clone()),
                    target: inputs.target.clone(),
                });
            }
            Some(_) => {}
            None => best = Some(entry),
        }
    }
    best
}

type GraphValue = (String, Requester, Origin);

/// Graph-wide settings, each once with its value (a vector rather than a map: a handful of
/// settings, and less code to compile in every build script).
#[derive(Default)]
struct GraphSettings(Vec<(Setting, GraphValue)>);

impl GraphSettings {
    fn position(&self, setting: Setting) -> Option<usize> {
        self.0.iter().position(|(s, _)| *s == setting)
    }

    fn get(&self, setting: &Setting) -> Option<&GraphValue> {
        self.position(*setting).map(|i| &self.0[i].1)
    }

    /// Sets `setting` (a later value replaces an earlier one).
    fn insert(&mut self, setting: Setting, value: GraphValue) {
        match self.position(setting) {
            Some(i) => self.0[i].1 = value,
            None => self.0.push((setting, value)),
        }
    }

    /// Sets `setting` unless it is set.
    fn or_insert(&mut self, setting: Setting, value: GraphValue) {
        if self.position(setting).is_none() {
            self.0.push((setting, value));
        }
    }
}

/// The graph-wide settings the crate reads ([`Inputs::graph_reads`]; by default, its own kinds,
/// the well-known kinds, link and bundled).
fn read_settings(inputs: &Inputs) -> Vec<Setting> {
    match &inputs.graph_reads {
        Some(reads) => reads.clone(),
        None => {
            let mut all = Setting::all();
            for kind in inputs.spec.facilities.iter().filter_map(|f| f.kind) {
                if !all.contains(&Setting::Kind(kind)) {
                    all.push(Setting::Kind(kind));
                }
            }
            all
        }
    }
}

/// The values a setting the crate reads takes here: link's and bundled's; for a kind, the shared
/// names its providers answer to, and a well-known kind's well-known names.
pub(crate) fn setting_values(spec: &Spec, setting: Setting) -> Vec<&'static str> {
    let mut values: Vec<&'static str> = setting.values().to_vec();
    if let Setting::Kind(kind) = setting {
        for f in spec.facilities.iter().filter(|f| f.kind == Some(kind)) {
            for shared in f.providers.iter().filter_map(|p| p.answers_to) {
                if !values.contains(&shared) {
                    values.push(shared);
                }
            }
        }
    }
    values
}

/// A value of a setting the crate reads: one it knows, or, for a kind, any name a provider of
/// another crate could answer to (none of this crate's facilities does: the resolver says so);
/// a name near a value it knows is taken for a misspelling.
fn checked_value(
    spec: &Spec,
    setting: Setting,
    name: &str,
    value: &str,
    by: &Requester,
    errors: &mut Vec<ConfigError>,
) -> Option<String> {
    let valid = setting_values(spec, setting);
    if value_taken(&valid, setting_is_open(setting), value) {
        return Some(value.to_string());
    }
    errors.push(ConfigError::BadGraphValue {
        by: by.clone(),
        name: name.to_string(),
        value: value.to_string(),
        valid,
    });
    None
}

/// Whether a setting takes values beyond those its crate lists: a crate's own kind takes any
/// shared name (another crate of the kind may answer to it); a well-known kind, link and bundled
/// take their fixed sets.
pub(crate) fn setting_is_open(setting: Setting) -> bool {
    matches!(setting, Setting::Kind(k) if !crate::graph::KINDS.contains(&k))
}

/// Whether `value` is a value of a setting whose values are `valid` (`open`: or any well-formed
/// name not within a few edits of one of them, which would be a misspelling).
fn value_taken(valid: &[&str], open: bool, value: &str) -> bool {
    valid.contains(&value)
        || (open
            && crate::model::closest(value, valid.iter().copied()).is_none()
            && crate::graph::name_problem(value).is_none())
}

/// A graph-wide name this crate does not read that is close to one it does: `name` (a variable,
/// or `FILE:LINE:COL: key` of the graph-wide file), and the variable `meant`.
struct NearMiss {
    name: String,
    meant: String,
}

impl NearMiss {
    /// For a setting's key (`tsl`) the crate does not read: the nearest of the keys it reads.
    fn of_key<'k>(
        name: &str,
        key: &str,
        reads: impl IntoIterator<Item = &'k str>,
    ) -> Option<NearMiss> {
        let near = crate::model::closest(key, reads)?;
        Some(NearMiss {
            name: name.to_string(),
            meant: crate::graph::variable_of(near),
        })
    }

    /// The build script's warning.
    fn warning(&self) -> String {
        format!(
            "{} is no graph-wide setting this crate reads: did you mean {}? (a kind no crate of the build has is ignored; `cargo flagsplit` checks every name of the build)",
            self.name, self.meant
        )
    }
}

/// Every graph-wide setting that applies to this build, with who set it. A setting the crate reads
/// with a bad value is an error; a name it does not read is no error here (another crate's kind,
/// or none's), only a warning in `warnings` when it is close to one it reads.
fn graph_settings(
    inputs: &Inputs,
    errors: &mut Vec<ConfigError>,
    warnings: &mut Vec<NearMiss>,
) -> GraphSettings {
    let spec = inputs.spec;
    let triples = [inputs.target.as_str(), inputs.host.as_str()];
    let reads = read_settings(inputs);
    let mut read_keys: Vec<&str> = Vec::with_capacity(reads.len());
    for s in &reads {
        read_keys.push(s.key());
    }
    let mut plain = GraphSettings::default();
    let mut scoped = GraphSettings::default();
    for (name, value) in &inputs.graph_env {
        let (key, is_scoped) = match crate::graph::classify(name, &triples) {
            Some(crate::graph::Name::Setting { key, scoped }) => (key, scoped),
            Some(crate::graph::Name::Malformed) => {
                let mut names: Vec<String> = Vec::with_capacity(reads.len());
                for s in &reads {
                    names.push(s.variable());
                }
                if let Some(meant) = nearest_variable(name, names) {
                    warnings.push(NearMiss {
                        name: name.clone(),
                        meant,
                    });
                }
                continue;
            }
            _ => continue,
        };
        let setting = match reads.iter().copied().find(|s| s.key() == key) {
            Some(setting) => setting,
            None => {
                warnings.extend(NearMiss::of_key(name, &key, read_keys.iter().copied()));
                continue;
            }
        };
        let value = match value {
            Some(v) => v,
            None => {
                errors.push(ConfigError::NotUnicode { name: name.clone() });
                continue;
            }
        };
        let by = Requester::Graph(name.clone());
        let valid = match checked_value(spec, setting, name, value, &by, errors) {
            Some(valid) => valid,
            None => continue,
        };
        // Only this target's scoped names select (the host's are checked, not applied).
        if is_scoped && *name != setting.target_variable(&inputs.target) {
            continue;
        }
        let slot = if is_scoped { &mut scoped } else { &mut plain };
        slot.insert(setting, (valid, by, Origin::Graph(name.clone())));
    }
    let mut from_file = GraphSettings::default();
    if let Some(input) = &inputs.graph_file {
        match &input.contents {
            Err(reason) => errors.push(ConfigError::FileUnreadable {
                named: input.named_by.clone(),
                resolved: input.resolved.clone(),
                reason: reason.clone(),
                fix: input.fix.clone(),
            }),
            Ok(text) => {
                let (entries, file_errors) = parse_graph_file(input, text);
                errors.extend(file_errors);
                for e in &entries {
                    if !read_keys.contains(&e.key.as_str()) {
                        let at = format!("{}: `{}`", e.key_at, e.key);
                        warnings.extend(NearMiss::of_key(&at, &e.key, read_keys.iter().copied()));
                    }
                }
                for &setting in &reads {
                    let mut mine: Vec<(String, &GraphEntry)> = Vec::new();
                    for e in entries.iter().filter(|e| e.key == setting.key()) {
                        let by = Requester::GraphFile(e.at.clone());
                        let text = match &e.value {
                            Ok(text) => text.clone(),
                            Err(type_name) => format!("({type_name})"),
                        };
                        let value = match &e.value {
                            Ok(_) => checked_value(spec, setting, &e.key, &text, &by, errors),
                            Err(_) => {
                                errors.push(ConfigError::BadGraphValue {
                                    by,
                                    name: e.key.clone(),
                                    value: text,
                                    valid: setting_values(spec, setting),
                                });
                                None
                            }
                        };
                        if let Some(v) = value {
                            mine.push((v, e));
                        }
                    }
                    if let Some((value, e)) = most_specific(
                        &mine,
                        |(v, e)| (&e.scope, &e.at, v.as_str()),
                        inputs,
                        setting.key(),
                        errors,
                    ) {
                        let origin = Origin::GraphFile {
                            path: e.at.path.clone(),
                            line: e.at.line,
                            column: e.at.column,
                        };
                        from_file.insert(
                            setting,
                            (value.clone(), Requester::GraphFile(e.at.clone()), origin),
                        );
                    }
                }
            }
        }
    }
    for (setting, value) in plain.0.into_iter().chain(from_file.0) {
        scoped.or_insert(setting, value);
    }
    scoped
}

/// The variables among `names` that carry `spec`'s prefix (`INFLATE_DEMO_`) but that `spec` does
/// not know: a misspelt name, each as the build error a build script gives for it (the valid
/// names, and the nearest one when it is a likely typo). See [`check_environment`].
// Inline: compiled only in the crates that call it, not in every build script (ARCHITECTURE.md).
#[inline]
pub fn unknown_variables<'a>(
    spec: &Spec,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<ConfigError> {
    let prefix = spec.var_prefix();
    let mut unknown: Vec<&str> = names
        .into_iter()
        .filter(|name| name.starts_with(&prefix) && !spec.knows_variable(name))
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    unknown
        .into_iter()
        .map(|name| ConfigError::UnknownVariable {
            name: name.to_string(),
            valid: spec.build_variable_names(),
            suggestion: suggest(spec, name),
        })
        .collect()
}

/// Reads the graph-wide file (`RUST_BACKEND_CONFIG`; `path` names it in messages): every entry
/// with its place, and the file's own errors (its syntax, a bad `[target.<...>]` table). Which
/// entries a crate reads, and their values, are the resolver's to judge; a tool that checks a
/// whole graph's settings (`cargo flagsplit`) reads the file with this too.
#[cfg(feature = "config-file")]
pub fn read_graph_file(path: &str, text: &str) -> (Vec<GraphEntry>, Vec<ConfigError>) {
    crate::file::parse_graph(path, text)
}

/// Checks this process's environment against what each library's build reads (the crate's
/// variables: [`unknown_variables`]'s rule; the graph-wide settings: a `RUST_BACKEND_*` name close
/// to one a crate reads, or a value none of them takes), for an application's own test: `cargo
/// test` runs it with the same shell variables and `.cargo/config.toml` `[env]` as the build
/// scripts of `cargo build`. A build script cannot do this itself on every build: Cargo reruns it
/// only when a variable it named with `rerun-if-env-changed` changes, so a misspelt name added
/// later (a new variable) does not rerun it, and an incremental build goes on with the old
/// selection. Each library's `BUILD_INFO` (its generated `build_info.rs`) lists the names.
///
/// ```
/// # mod inflate_demo {
/// # use flagsplit_info::BuildInfo;
/// # pub const BUILD_INFO: BuildInfo = BuildInfo::__generated("inflate-demo", "INFLATE_DEMO", &[], &[],
/// #     &[], "(none)", &[], "x86_64-unknown-linux-gnu", &["INFLATE_DEMO_INFLATE_PROVIDER"], &[], &[]);
/// # }
/// // The body of a test of the application (tests/config.rs: `#[test] fn no_misspelt_variable()`),
/// // with flagsplit-config a dev-dependency (feature `resolve`, a default one).
/// flagsplit_config::check_environment(&[&inflate_demo::BUILD_INFO]).unwrap();
/// ```
// Inline: compiled only in the crates that call it, not in every build script (ARCHITECTURE.md).
#[inline]
pub fn check_environment(crates: &[&BuildInfo]) -> Result<(), Errors> {
    let vars: Vec<(String, Option<String>)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok())))
        .collect();
    let mut errors: Vec<ConfigError> = Vec::new();
    for info in crates {
        let prefix = format!("{}_", info.prefix);
        let known =
            |name: &str| info.variables.contains(&name) || info.other_variables.contains(&name);
        let mut unknown: Vec<&str> = vars
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|name| name.starts_with(&prefix) && !known(name))
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        for name in unknown {
            errors.push(ConfigError::UnknownVariable {
                name: name.to_string(),
                valid: info.variables.iter().map(|v| v.to_string()).collect(),
                suggestion: nearest_variable(
                    name,
                    info.variables
                        .iter()
                        .chain(info.other_variables)
                        .map(|v| v.to_string()),
                ),
            });
        }
    }
    // The graph-wide names and values, in their plain forms (a test knows no target triple).
    let reads: Vec<&flagsplit_info::GraphRead> =
        crates.iter().flat_map(|info| info.graph.iter()).collect();
    let read_keys = || reads.iter().map(|g| g.key);
    let mut misses: Vec<NearMiss> = Vec::new();
    for (name, value) in &vars {
        match crate::graph::classify(name, &[]) {
            Some(crate::graph::Name::Setting { key, .. }) => {
                let mine: Vec<&&flagsplit_info::GraphRead> =
                    reads.iter().filter(|g| g.key == key).collect();
                if mine.is_empty() {
                    misses.extend(NearMiss::of_key(name, &key, read_keys()));
                    continue;
                }
                let value = match value {
                    Some(v) => v,
                    None => {
                        errors.push(ConfigError::NotUnicode { name: name.clone() });
                        continue;
                    }
                };
                let mut valid: Vec<&'static str> = Vec::new();
                for v in mine.iter().flat_map(|g| g.values.iter()) {
                    if !valid.contains(v) {
                        valid.push(v);
                    }
                }
                if !value_taken(&valid, mine.iter().any(|g| g.open), value) {
                    errors.push(ConfigError::BadGraphValue {
                        by: Requester::Graph(name.clone()),
                        name: name.clone(),
                        value: value.clone(),
                        valid,
                    });
                }
            }
            Some(crate::graph::Name::Malformed) => {
                let names = read_keys().map(crate::graph::variable_of);
                if let Some(meant) = nearest_variable(name, names) {
                    misses.push(NearMiss {
                        name: name.clone(),
                        meant,
                    });
                }
            }
            _ => {}
        }
    }
    misses.sort_by(|a, b| (&a.name, &a.meant).cmp(&(&b.name, &b.meant)));
    misses.dedup_by(|a, b| a.name == b.name);
    for m in misses {
        errors.push(ConfigError::UnknownGraphVariable {
            name: m.name,
            valid: crate::graph::variable_names(),
            suggestion: Some(m.meant),
        });
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Errors(errors))
    }
}

/// Resolves every request a user can make of `spec` and checks each outcome, for a crate's tests
/// (as [`Spec::check`] checks the table itself): each facility × each provider name of the table ×
/// every feature set, asked for by its variable and by a config file. A request takes effect with
/// the right origin and leaves the other facilities at their defaults, or fails with exactly the
/// error that names it (an unknown provider; a feature that is off, whose fix names the feature);
/// and with no request at all every feature set resolves to defaults its features compile. Returns
/// how many resolutions were checked, or the first one that went wrong.
// Inline: compiled only in the crates that call it, not in every build script (ARCHITECTURE.md).
#[inline]
pub fn check_every_request(spec: &'static Spec) -> Result<usize, String> {
    let mut names: Vec<&str> = spec
        .facilities
        .iter()
        .flat_map(|f| f.providers.iter().map(|p| p.name))
        .collect();
    names.sort_unstable();
    names.dedup();
    let at = FilePos {
        path: "check.toml".into(),
        line: 2,
        column: 12,
    };
    let mut checked = 0;
    for features in FeatureSet::all_combinations(spec) {
        let run = |env: BTreeMap<String, Option<String>>, text: Option<String>| {
            resolve(&Inputs {
                spec,
                features: features.clone(),
                env,
                file: text.map(|t| ConfigFileInput {
                    named: at.path.clone(),
                    named_by: format!("{}={}", spec.config_var(), at.path),
                    resolved: at.path.clone(),
                    contents: Ok(t),
                    fix: String::new(),
                }),
                ..Inputs::new(spec)
            })
        };
        let defaults = run(BTreeMap::new(), None)
            .map_err(|e| format!("features {features:?}: no request, yet: {e}"))?;
        checked += 1;
        for (facility, choice) in defaults.iter() {
            let expected = facility.default_choice(spec.role, &features);
            if *choice != expected || !choice.provider.is_available(&features) {
                return Err(format!(
                    "features {features:?}: {facility} defaults to {} ({}), expected {} ({})",
                    choice.provider, choice.origin, expected.provider, expected.origin
                ));
            }
        }
        for facility in spec.facilities {
            let var = spec.env_var(facility);
            for name in &names {
                let by_env = run(
                    BTreeMap::from([(var.clone(), Some(name.to_string()))]),
                    None,
                );
                let by_file = run(
                    BTreeMap::new(),
                    Some(format!("[{facility}]\nprovider = \"{name}\"\n")),
                );
                let requests = [
                    (
                        by_env,
                        Requester::Env(var.clone()),
                        Origin::Env(var.clone()),
                    ),
                    (
                        by_file,
                        Requester::File(at.clone()),
                        Origin::File {
                            path: at.path.clone(),
                            line: at.line,
                            column: at.column,
                        },
                    ),
                ];
                // Without a TOML reader a file is no way to ask.
                let asked = if cfg!(feature = "config-file") { 2 } else { 1 };
                for (result, by, origin) in requests.into_iter().take(asked) {
                    checked += 1;
                    let what = format!("features {features:?}, {facility} = {name} by {origin}");
                    let expected_error = match facility.provider(name) {
                        None => Some(ConfigError::UnknownProvider {
                            by,
                            facility,
                            value: name.to_string(),
                        }),
                        Some(p) if !p.is_available(&features) => {
                            Some(ConfigError::feature_off(spec, by, facility, p, &features))
                        }
                        Some(_) => None,
                    };
                    match (result, expected_error) {
                        (Err(errors), Some(expected)) => {
                            if errors.0 != [expected.clone()] {
                                return Err(format!("{what}: {errors}, expected {expected}"));
                            }
                            if let ConfigError::FeatureOff { feature, .. } = &expected {
                                if !errors.to_string().contains(&format!("`{feature}`")) {
                                    return Err(format!(
                                        "{what}: the fix does not name `{feature}`"
                                    ));
                                }
                            }
                        }
                        (Ok(sel), None) => {
                            let choice = sel.get(facility.name);
                            if choice.provider.name != *name || choice.origin != origin {
                                return Err(format!(
                                    "{what}: got {} from {}",
                                    choice.provider, choice.origin
                                ));
                            }
                            for (other, choice) in sel.iter() {
                                if other.name != facility.name
                                    && *choice != other.default_choice(spec.role, &features)
                                {
                                    return Err(format!("{what}: {other} left its default"));
                                }
                            }
                        }
                        (Ok(_), Some(expected)) => {
                            return Err(format!("{what}: resolved, expected {expected}"));
                        }
                        (Err(errors), None) => return Err(format!("{what}: {errors}")),
                    }
                }
            }
        }
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tables::{DEMO, DEMO_CLI, DEMO_SYNC};

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, Option<String>> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), Some((*v).to_string())))
            .collect()
    }

    fn file(text: &str) -> Option<ConfigFileInput> {
        Some(ConfigFileInput {
            named: "demo.toml".into(),
            named_by: "DEMO_CONFIG=demo.toml".into(),
            resolved: "/pkg/demo.toml".into(),
            contents: Ok(text.into()),
            fix: "create it".into(),
        })
    }

    fn features(names: &[&str]) -> FeatureSet {
        FeatureSet::from_names(&DEMO, names.iter().copied())
    }

    fn run(
        features: FeatureSet,
        vars: &[(&str, &str)],
        text: Option<&str>,
    ) -> Result<Selection, Errors> {
        resolve(&Inputs {
            spec: &DEMO,
            features,
            env: env(vars),
            file: text.and_then(file),
            ..Inputs::new(&DEMO)
        })
    }

    fn providers(sel: &Selection) -> Vec<&'static str> {
        sel.choices.iter().map(|c| c.provider.name).collect()
    }

    /// The defaults, written out per feature set rather than recomputed.
    #[test]
    fn defaults_for_every_feature_set() {
        let cases: &[(&[&str], [&str; 3])] = &[
            (&[], ["portable", "block", "none"]),
            (&["rustls"], ["portable", "block", "rustls"]),
            (&["openssl-hash"], ["openssl", "openssl", "none"]),
            (&["openssl-tls"], ["portable", "block", "openssl"]),
            (&["openssl-tls", "rustls"], ["portable", "block", "openssl"]),
            (
                &["openssl-hash", "rustls"],
                ["openssl", "openssl", "rustls"],
            ),
            (
                &["openssl-hash", "openssl-tls"],
                ["openssl", "openssl", "openssl"],
            ),
            (
                &["openssl-hash", "openssl-tls", "rustls"],
                ["openssl", "openssl", "openssl"],
            ),
        ];
        for (names, expected) in cases {
            let set = features(names);
            let sel = run(set.clone(), &[], None).expect("defaults always resolve");
            assert_eq!(providers(&sel), expected, "features {names:?}");
        }
        // Every one of the 8 sets resolves with no input, and each default is available.
        let all = FeatureSet::all_combinations(&DEMO);
        assert_eq!(all.len(), 8);
        for set in all {
            let sel = run(set.clone(), &[], None).expect("defaults always resolve");
            for (_, choice) in sel.iter() {
                assert!(choice.provider.is_available(&set));
                match choice.provider.feature {
                    Some(feature) => assert_eq!(choice.origin, Origin::FeatureDefault(feature)),
                    None => assert_eq!(choice.origin, Origin::Default),
                }
            }
        }
    }

    /// Every facility × every provider name × every feature set, asked for by a variable and by
    /// the file, on an application's table and on a library's.
    #[test]
    fn every_facility_provider_feature_set() {
        // 8 feature sets × (the defaults + 3 facilities × 5 provider names × variable and file).
        let ways = if cfg!(feature = "config-file") { 2 } else { 1 };
        assert_eq!(check_every_request(&DEMO), Ok(8 * (1 + 3 * 5 * ways)));
        // 4 feature sets × (the defaults + 1 facility × 3 names × 2).
        assert_eq!(
            check_every_request(&crate::test_tables::LIBRARY),
            Ok(4 * (1 + 3 * ways))
        );
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn variable_beats_file_beats_default() {
        let text = "[hash]\nprovider = \"block\"\n[hash-fast]\nprovider = \"block\"\n";
        let sel = run(
            features(&["rustls", "openssl-hash"]),
            &[("DEMO_HASH_PROVIDER", "portable")],
            Some(text),
        )
        .unwrap();
        assert_eq!(
            sel.get("hash").origin,
            Origin::Env("DEMO_HASH_PROVIDER".into())
        );
        assert_eq!(sel.provider("hash"), "portable");
        assert_eq!(sel.provider("hash-fast"), "block");
        assert_eq!(sel.get("hash-fast").origin.to_string(), "demo.toml:4:12");
        assert_eq!(sel.get("tls").origin, Origin::FeatureDefault("rustls"));
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn overridden_file_entry_needs_no_feature_but_must_be_valid() {
        // The file asks for OpenSSL TLS without the feature, but the variable overrides it.
        let text = "[tls]\nprovider = \"openssl\"\n";
        let sel = run(
            FeatureSet::EMPTY,
            &[("DEMO_TLS_PROVIDER", "none")],
            Some(text),
        )
        .unwrap();
        assert_eq!(sel.provider("tls"), "none");
        // A misspelt value is reported even when overridden.
        let text = "[tls]\nprovider = \"opensssl\"\n";
        assert!(
            run(
                FeatureSet::EMPTY,
                &[("DEMO_TLS_PROVIDER", "none")],
                Some(text)
            )
            .is_err()
        );
    }

    #[test]
    fn run_time_variables_are_not_typos() {
        let sel = run(
            features(&["rustls"]),
            &[("DEMO_TRACE", "0"), ("DEMO_TEST_OFFLINE", "1")],
            None,
        );
        assert!(sel.is_ok());
    }

    #[test]
    fn all_errors_are_reported_at_once() {
        let errors = run(
            FeatureSet::EMPTY,
            &[
                ("DEMO_HAS_PROVIDER", "portable"),
                ("DEMO_TLS_PROVIDER", "openssl"),
            ],
            Some("[hashes]\n"),
        )
        .unwrap_err();
        assert_eq!(errors.0.len(), 3, "{errors}");
    }

    #[test]
    fn suggestions_catch_typos_only() {
        let s = |n: &str| suggest(&DEMO, n);
        assert_eq!(
            s("DEMO_HAS_PROVIDER").as_deref(),
            Some("DEMO_HASH_PROVIDER")
        );
        assert_eq!(s("DEMO_TLS_PROVDER").as_deref(), Some("DEMO_TLS_PROVIDER"));
        assert_eq!(s("DEMO_CONFG").as_deref(), Some("DEMO_CONFIG"));
        assert_eq!(s("DEMO_TRAC").as_deref(), Some("DEMO_TRACE"));
        assert_eq!(s("DEMO_SOMETHING_ELSE_ENTIRELY"), None);
        assert_eq!(crate::model::edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn unknown_variables_with_the_prefix_only() {
        let errors = unknown_variables(
            &DEMO,
            [
                "DEMO_HASH_PROVDER",
                "DEMO_HASH_PROVIDER",
                "DEMO_CONFIG",
                "OTHER_HASH_PROVDER",
                "DEMO_HASH_PROVDER",
            ],
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        let text = errors[0].to_string();
        assert!(
            text.starts_with("unknown variable DEMO_HASH_PROVDER in the build environment"),
            "{text}"
        );
        assert!(text.contains("did you mean DEMO_HASH_PROVIDER?"), "{text}");
    }

    /// The only test that sets variables of this process: names no other test reads.
    #[test]
    fn check_environment_reads_the_names_a_build_info_lists() {
        use flagsplit_info::GraphRead;
        const INFO: BuildInfo = BuildInfo::__generated(
            "ce-test",
            "CETEST",
            &[],
            &[],
            &[],
            "(none)",
            &[],
            "x86_64-unknown-linux-gnu",
            &["CETEST_CONFIG", "CETEST_HASH_PROVIDER"],
            &["CETEST_TRACE"],
            &[
                GraphRead::__generated("cetest-closed", &["system", "pure-rust"], false),
                GraphRead::__generated("cetest-open", &["system"], true),
            ],
        );
        let set = [
            ("CETEST_HASH_PROVDER", "dc"),
            ("CETEST_TRACE", "1"),
            ("CETEST_HASH_PROVIDER", "dc"),
            ("RUST_BACKEND_CETEST_CLOSED", "systen"),
            ("RUST_BACKEND_CETEST_OPEN", "vendored"),
            ("RUST_BACKEND_CETEST_OPNE", "system"),
        ];
        for (k, v) in set {
            std::env::set_var(k, v);
        }
        let result = check_environment(&[&INFO]);
        for (k, _) in set {
            std::env::remove_var(k);
        }
        let text = result.expect_err("three mistakes").to_string();
        assert!(
            text.contains("unknown variable CETEST_HASH_PROVDER"),
            "{text}"
        );
        assert!(
            text.contains("did you mean CETEST_HASH_PROVIDER?"),
            "{text}"
        );
        assert!(!text.contains("CETEST_TRACE"), "{text}");
        assert!(text.contains("RUST_BACKEND_CETEST_CLOSED=systen"), "{text}");
        assert!(
            text.contains("did you mean RUST_BACKEND_CETEST_OPEN?"),
            "{text}"
        );
        assert!(
            !text.contains("vendored"),
            "an open kind takes another name: {text}"
        );
        assert_eq!(
            text.lines().filter(|l| !l.starts_with(' ')).count(),
            3,
            "{text}"
        );
        assert!(check_environment(&[&INFO]).is_ok());
    }

    #[test]
    fn misspelt_values_get_did_you_mean() {
        use crate::model::closest;
        let names = ["system", "pure", "zlib-ng", "dc"];
        assert_eq!(closest("System", names), Some("system"));
        assert_eq!(closest("sytem", names), Some("system"));
        assert_eq!(closest("SYSTM", names), Some("system"));
        assert_eq!(closest("zlibng", names), Some("zlib-ng"));
        assert_eq!(closest("openssl", names), None);
        assert_eq!(
            closest("xy", names),
            None,
            "a two-letter name is never a whole replacement"
        );
        assert_eq!(
            closest("system", names),
            None,
            "a valid value needs no suggestion"
        );
        // In the messages: the variable's and the config file's.
        let e = run(
            FeatureSet::EMPTY,
            &[("DEMO_HASH_PROVIDER", "Portable")],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("\n  did you mean portable?"), "{e}");
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn a_misspelt_value_in_the_config_file_gets_did_you_mean() {
        let e = run(
            FeatureSet::EMPTY,
            &[],
            Some("[hash]\nprovider = \"portabel\"\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("\n  did you mean \"portable\"?"), "{e}");
    }

    /// A resolution with graph-wide variables and file, for `target` (the host is x86_64).
    fn graph_run(
        features: &[&str],
        vars: &[(&str, &str)],
        graph: &[(&str, &str)],
        graph_file: Option<&str>,
        target: &str,
    ) -> Result<Selection, Errors> {
        let cfg = match target {
            "aarch64-unknown-linux-gnu" => {
                [("CARGO_CFG_TARGET_ARCH", "aarch64"), ("CARGO_CFG_UNIX", "")]
            }
            _ => [("CARGO_CFG_TARGET_ARCH", "x86_64"), ("CARGO_CFG_UNIX", "")],
        };
        resolve(&Inputs {
            spec: &DEMO,
            features: self::features(features),
            env: env(vars),
            target: target.to_string(),
            host: X86.to_string(),
            cfg: TargetCfg::from_cargo_vars(cfg),
            graph_env: env(graph),
            graph_file: graph_file.map(|text| ConfigFileInput {
                named: "/etc/backends.toml".into(),
                named_by: "RUST_BACKEND_CONFIG=/etc/backends.toml".into(),
                resolved: "/etc/backends.toml".into(),
                contents: Ok(text.into()),
                fix: "create it".into(),
            }),
            ..Inputs::new(&DEMO)
        })
    }

    const X86: &str = "x86_64-unknown-linux-gnu";
    const ARM: &str = "aarch64-unknown-linux-gnu";

    #[test]
    fn a_graph_wide_variable_selects_by_kind_and_records_its_origin() {
        let sel = graph_run(
            &["openssl-tls", "rustls"],
            &[],
            &[("RUST_BACKEND_TLS", "rustls")],
            None,
            X86,
        )
        .unwrap();
        assert_eq!(sel.provider("tls"), "rustls");
        assert_eq!(
            sel.get("tls").origin.to_string(),
            "graph-wide RUST_BACKEND_TLS"
        );
        // A facility of another kind, or of none, keeps its default.
        assert_eq!(sel.get("hash").origin, Origin::Default);
        assert_eq!(sel.get("hash-fast").origin, Origin::Default);
        let sel = graph_run(&[], &[], &[("RUST_BACKEND_SHA256", "pure-rust")], None, X86).unwrap();
        assert_eq!(sel.provider("hash"), "portable");
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn precedence_crate_variable_crate_file_graph_variable_graph_file() {
        let f = features(&["openssl-tls", "rustls"]);
        let graph_file = "tls = \"none\"\n";
        let graph = [("RUST_BACKEND_TLS", "openssl")];
        let run = |vars: &[(&str, &str)], crate_file: Option<&str>, graph: &[(&str, &str)]| {
            let mut inputs = Inputs {
                spec: &DEMO,
                features: f.clone(),
                env: env(vars),
                file: crate_file.and_then(file),
                target: X86.into(),
                host: X86.into(),
                graph_env: env(graph),
                graph_file: Some(ConfigFileInput::new(
                    "/b.toml",
                    "RUST_BACKEND_CONFIG=/b.toml",
                    "/b.toml",
                    Ok(graph_file.into()),
                    "",
                )),
                ..Inputs::new(&DEMO)
            };
            inputs.cfg = TargetCfg::default();
            let sel = resolve(&inputs).unwrap();
            (sel.provider("tls"), sel.get("tls").origin.to_string())
        };
        assert_eq!(
            run(&[], None, &[]),
            ("none", "graph-wide /b.toml:1:7".into())
        );
        assert_eq!(
            run(&[], None, &graph),
            ("openssl", "graph-wide RUST_BACKEND_TLS".into())
        );
        let crate_file = "[tls]\nprovider = \"rustls\"\n";
        assert_eq!(
            run(&[], Some(crate_file), &graph),
            ("rustls", "demo.toml:2:12".into())
        );
        assert_eq!(
            run(&[("DEMO_TLS_PROVIDER", "none")], Some(crate_file), &graph),
            ("none", "DEMO_TLS_PROVIDER".into())
        );
        // At each level the target-scoped form wins.
        let scoped = [
            ("RUST_BACKEND_TLS", "openssl"),
            ("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS", "rustls"),
        ];
        assert_eq!(
            run(&[], None, &scoped),
            (
                "rustls",
                "graph-wide X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS".into()
            )
        );
        let vars = [
            ("DEMO_TLS_PROVIDER", "none"),
            ("X86_64_UNKNOWN_LINUX_GNU_DEMO_TLS_PROVIDER", "openssl"),
        ];
        assert_eq!(
            run(&vars, None, &[]),
            (
                "openssl",
                "X86_64_UNKNOWN_LINUX_GNU_DEMO_TLS_PROVIDER".into()
            )
        );
        let crate_file = "[tls]\nprovider = \"rustls\"\n[target.x86_64-unknown-linux-gnu.tls]\nprovider = \"none\"\n[target.'cfg(windows)'.tls]\nprovider = \"openssl\"\n";
        assert_eq!(
            run(&[], Some(crate_file), &[]),
            ("none", "demo.toml:4:12".into())
        );
    }

    #[test]
    fn the_target_copy_and_the_host_copy_read_their_own_scope() {
        let f = ["openssl-tls", "rustls"];
        // A host-scoped setting: the build-dependency copy (TARGET = host) applies it, the copy for
        // aarch64 does not.
        let host_scoped = [("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS", "rustls")];
        assert_eq!(
            graph_run(&f, &[], &host_scoped, None, X86)
                .unwrap()
                .provider("tls"),
            "rustls"
        );
        assert_eq!(
            graph_run(&f, &[], &host_scoped, None, ARM)
                .unwrap()
                .provider("tls"),
            "openssl"
        );
        let arm_scoped = [("AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS", "rustls")];
        assert_eq!(
            graph_run(&f, &[], &arm_scoped, None, ARM)
                .unwrap()
                .provider("tls"),
            "rustls"
        );
        assert_eq!(
            graph_run(&f, &[], &arm_scoped, None, X86)
                .unwrap()
                .provider("tls"),
            "openssl"
        );
        #[cfg(feature = "config-file")]
        {
            let file = "[target.'cfg(target_arch = \"aarch64\")']\ntls = \"rustls\"\n";
            assert_eq!(
                graph_run(&f, &[], &[], Some(file), ARM)
                    .unwrap()
                    .get("tls")
                    .origin
                    .to_string(),
                "graph-wide /etc/backends.toml:2:7"
            );
            assert_eq!(
                graph_run(&f, &[], &[], Some(file), X86)
                    .unwrap()
                    .get("tls")
                    .origin,
                Origin::FeatureDefault("openssl-tls")
            );
        }
    }

    #[test]
    fn a_graph_wide_choice_a_crate_cannot_meet_names_the_setting_the_variable_and_the_feature() {
        let e = graph_run(&[], &[], &[("RUST_BACKEND_TLS", "openssl")], None, X86)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("RUST_BACKEND_TLS=openssl selects the openssl tls provider, which this build does not compile"), "{e}");
        assert!(e.contains("Cargo feature `openssl-tls` is off"), "{e}");
        assert!(
            e.contains("set DEMO_TLS_PROVIDER=<one of: none> for demo alone"),
            "{e}"
        );
        let e = graph_run(&[], &[], &[("RUST_BACKEND_SHA256", "rustls")], None, X86)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("RUST_BACKEND_SHA256=rustls selects rustls for every sha256 facility in the build, but demo's hash has no provider that answers to rustls"), "{e}");
        assert!(
            e.contains("its providers: portable (pure-rust), block, openssl"),
            "{e}"
        );
        assert!(e.contains("DEMO_HASH_PROVIDER=<provider>"), "{e}");
        // The crate's own variable wins, so it is the way out.
        let sel = graph_run(
            &[],
            &[("DEMO_HASH_PROVIDER", "block")],
            &[("RUST_BACKEND_SHA256", "rustls")],
            None,
            X86,
        )
        .unwrap();
        assert_eq!(sel.provider("hash"), "block");
    }

    #[test]
    fn misspelt_graph_wide_names_warn_and_values_list_the_valid_ones() {
        // A name the crate does not read is no error (another crate's kind, or none's); close to
        // one it reads, a warning.
        let sel = graph_run(&[], &[], &[("RUST_BACKEND_TSL", "openssl")], None, X86).unwrap();
        assert_eq!(
            sel.warnings,
            [
                "RUST_BACKEND_TSL is no graph-wide setting this crate reads: did you mean RUST_BACKEND_TLS? (a kind no crate of the build has is ignored; `cargo flagsplit` checks every name of the build)"
            ]
        );
        let sel = graph_run(
            &[],
            &[],
            &[
                ("RUST_BACKEND_NOSUCHKIND", "system"),
                ("RUST_BACKEND_BLAKE3", "portable"),
            ],
            None,
            X86,
        )
        .unwrap();
        assert!(sel.warnings.is_empty(), "{:?}", sel.warnings);
        let e = graph_run(&[], &[], &[("RUST_BACKEND_TLS", "opensll")], None, X86)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("RUST_BACKEND_TLS=opensll: `opensll` is not a value of RUST_BACKEND_TLS"),
            "{e}"
        );
        assert!(
            e.contains("valid values: openssl, rustls, system, pure-rust, zlib-ng, none"),
            "{e}"
        );
        assert!(e.contains("did you mean openssl?"), "{e}");
        let e = graph_run(&[], &[], &[("RUST_BACKEND_LINK", "shared")], None, X86)
            .unwrap_err()
            .to_string();
        assert!(e.contains("valid values: static, dynamic"), "{e}");
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn the_graph_wide_file_policies_scopes_and_errors() {
        let file = "link = \"static\"\nbundled = \"deny\"\n[target.x86_64-unknown-linux-gnu]\nlink = \"dynamic\"\n";
        let sel = graph_run(&[], &[], &[], Some(file), X86).unwrap();
        let link = sel.link.unwrap();
        assert_eq!(
            (link.value, link.origin.to_string().as_str()),
            ("dynamic", "graph-wide /etc/backends.toml:4:8")
        );
        assert_eq!(sel.bundled.unwrap().value, "deny");
        let sel = graph_run(
            &[],
            &[],
            &[("RUST_BACKEND_LINK", "static")],
            Some(file),
            X86,
        )
        .unwrap();
        assert_eq!(
            sel.link.unwrap().origin,
            Origin::Graph("RUST_BACKEND_LINK".into())
        );
        // `tsl`, close to a kind the crate reads, is a warning; `xz`, a kind of none of its
        // facilities, nothing.
        let sel = graph_run(
            &[],
            &[],
            &[],
            Some("tsl = \"openssl\"\nxz = \"system\"\n"),
            X86,
        )
        .unwrap();
        assert_eq!(
            sel.warnings,
            [
                "/etc/backends.toml:1:1: `tsl` is no graph-wide setting this crate reads: did you mean RUST_BACKEND_TLS? (a kind no crate of the build has is ignored; `cargo flagsplit` checks every name of the build)"
            ]
        );
        let bad = "tsl = \"openssl\"\ntls = 1\n[target.linux]\ntls = \"none\"\n[target.'cfg(unix)']\nzlib = \"system\"\n[target.'cfg(target_arch = \"x86_64\")']\nzlib = \"pure-rust\"\n";
        let e = graph_run(&[], &[], &[], Some(bad), X86).unwrap_err();
        let text = e.to_string();
        assert_eq!(e.0.len(), 3, "{text}");
        assert!(
            text.contains("/etc/backends.toml:2:7: tls = \"(integer)\""),
            "{text}"
        );
        assert!(
            text.contains("/etc/backends.toml:3:9: [target.'linux'] names no target"),
            "{text}"
        );
        assert!(text.contains("/etc/backends.toml:6:8: zlib = \"system\" and /etc/backends.toml:8:8: zlib = \"pure-rust\" both apply to x86_64-unknown-linux-gnu"), "{text}");
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn the_triple_table_wins_over_disagreeing_cfg_tables_wherever_it_stands() {
        let tables = [
            "[target.'cfg(unix)'.tls]\nprovider = \"rustls\"\n",
            "[target.'cfg(target_arch = \"x86_64\")'.tls]\nprovider = \"openssl\"\n",
            "[target.x86_64-unknown-linux-gnu.tls]\nprovider = \"none\"\n",
        ];
        for order in [[0, 1, 2], [2, 0, 1], [0, 2, 1]] {
            let text: String = order.iter().map(|i| tables[*i]).collect();
            let mut inputs = Inputs {
                spec: &DEMO,
                features: features(&["openssl-tls", "rustls"]),
                file: file(&text),
                target: X86.into(),
                host: X86.into(),
                ..Inputs::new(&DEMO)
            };
            inputs.cfg = TargetCfg::from_cargo_vars([
                ("CARGO_CFG_UNIX", ""),
                ("CARGO_CFG_TARGET_ARCH", "x86_64"),
            ]);
            let sel = resolve(&inputs).unwrap_or_else(|e| panic!("{order:?}: {e}"));
            assert_eq!(sel.provider("tls"), "none", "{order:?}");
            // Without the triple's table the two cfg tables disagree, in any order.
            inputs.file = file(&format!(
                "{}{}",
                tables[order[0].min(1)],
                tables[1 - order[0].min(1)]
            ));
            assert!(resolve(&inputs).is_err());
        }
    }

    #[test]
    fn only_the_settings_a_crate_reads_select_set_policies_or_are_checked() {
        let mut inputs = Inputs::new(&DEMO);
        inputs.target = X86.into();
        inputs.graph_env = env(&[
            ("RUST_BACKEND_LINK", "static"),
            ("RUST_BACKEND_ZSTD", "libzstd"),
            ("RUST_BACKEND_TLS", "none"),
        ]);
        inputs.graph_reads = Some(vec![Setting::Kind("tls")]);
        let sel = resolve(&inputs).unwrap();
        assert_eq!(sel.link, None, "RUST_BACKEND_LINK is not read: no policy");
        assert_eq!(
            sel.get("tls").origin.to_string(),
            "graph-wide RUST_BACKEND_TLS"
        );
        // Read, the bad value is an error; a misspelt name is a warning where it is close to a
        // name the crate reads.
        inputs.graph_reads = None;
        assert!(
            resolve(&inputs)
                .unwrap_err()
                .to_string()
                .contains("RUST_BACKEND_ZSTD=libzstd")
        );
        inputs.graph_reads = Some(vec![Setting::Kind("tls")]);
        inputs
            .graph_env
            .insert("RUST_BACKEND_TSL".into(), Some("none".into()));
        let sel = resolve(&inputs).unwrap();
        assert!(sel.warnings[0].starts_with("RUST_BACKEND_TSL is no graph-wide setting this crate reads: did you mean RUST_BACKEND_TLS?"));
    }

    #[test]
    fn a_prefix_that_starts_a_triple_does_not_claim_scoped_names() {
        use crate::{Facility, Provider};
        static ARM: Spec = Spec::library("arm-lib", "ARM", "arm").facilities(&[Facility::new(
            "x",
            "X",
            "x",
            &[Provider::new("a", "A", "a"), Provider::new("b", "B", "b")],
        )]);
        let mut inputs = Inputs::new(&ARM);
        inputs.target = "arm-unknown-linux-gnueabihf".into();
        inputs.host = X86.into();
        inputs.env = env(&[
            ("ARM_UNKNOWN_LINUX_GNUEABIHF_RUST_BACKEND_TLS", "rustls"),
            ("ARM_UNKNOWN_LINUX_GNUEABIHF_TLS_LIB_TLS_PROVIDER", "rustls"),
            ("ARM_UNKNOWN_LINUX_GNUEABIHF_ARM_X_PROVIDER", "b"),
        ]);
        let sel = resolve(&inputs).unwrap();
        assert_eq!(sel.provider("x"), "b");
        inputs.env.insert("ARM_Y_PROVIDER".into(), Some("b".into()));
        assert!(
            resolve(&inputs)
                .unwrap_err()
                .to_string()
                .starts_with("unknown variable ARM_Y_PROVIDER")
        );
    }

    #[test]
    fn selection_cfgs_links_and_probes() {
        let sel = run(
            features(&["openssl-hash", "openssl-tls"]),
            &[("DEMO_HASH_PROVIDER", "portable")],
            None,
        )
        .unwrap();
        // hash-fast still uses OpenSSL, so the openssl-hash cfg holds.
        assert_eq!(sel.used_features(), ["openssl-hash", "openssl-tls"]);
        assert_eq!(sel.links(DEMO_CLI), ["libcrypto"]);
        assert_eq!(sel.links(DEMO_SYNC), ["libssl", "libcrypto"]);
        let probes: Vec<&str> = sel.probes().iter().map(|(p, _)| p.source).collect();
        assert_eq!(probes, ["probe-sha1.c", "probe-tls.c"]);
        let askers: Vec<&str> = sel.probes()[0].1.iter().map(|(f, _)| f.name).collect();
        assert_eq!(askers, ["hash-fast"]);
        // OpenSSL hashing for hash-fast only, which demo-sync does not use: it links nothing.
        let sel = run(
            features(&["openssl-hash"]),
            &[("DEMO_HASH_PROVIDER", "portable")],
            None,
        )
        .unwrap();
        assert!(sel.links(DEMO_SYNC).is_empty());
        // For both facilities: each binary links libcrypto once.
        let sel = run(features(&["openssl-hash"]), &[], None).unwrap();
        assert_eq!(sel.links(DEMO_SYNC), ["libcrypto"]);
        assert_eq!(sel.links(DEMO_CLI), ["libcrypto"]);
    }
}

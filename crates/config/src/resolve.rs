//! The resolver: a [`Spec`] + enabled features + `<PREFIX>_*` variables + a config file → one
//! provider per facility, with its origin. Pure: the caller does all reading.
//!
//! Precedence: variable > config file > default. Every input is validated even when a
//! higher-precedence one overrides it, except the feature check, which applies to the choice that
//! takes effect: an overridden request is not a request that cannot be met.

use std::collections::BTreeMap;

use crate::error::{ConfigError, Errors, FilePos, Requester};
use crate::model::{Choice, FeatureSet, FileChoice, Origin, Selection, Spec, When};

/// The file's valid choices and every error in it.
#[cfg(feature = "config-file")]
fn parse_file(
    spec: &'static Spec,
    input: &ConfigFileInput,
    text: &str,
) -> (Vec<FileChoice>, Vec<ConfigError>) {
    crate::file::parse(spec, &input.named, text)
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
    spec.build_variable_names()
        .into_iter()
        .chain(spec.variables.iter().map(|v| v.name.to_string()))
        .map(|v| (crate::model::edit_distance(name, &v), v))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Resolves the selection, or returns every error found.
pub fn resolve(inputs: &Inputs) -> Result<Selection, Errors> {
    let spec = inputs.spec;
    let mut errors = Vec::new();
    let n = spec.facilities.len();

    // 1. The variables themselves.
    let mut from_env: Vec<Option<(String, &'static crate::Provider)>> = vec![None; n];
    let config_var = spec.config_var();
    for (name, value) in &inputs.env {
        let facility = spec
            .facilities
            .iter()
            .position(|f| spec.env_var(f) == *name);
        if facility.is_none() && *name != config_var {
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
                facility: facility.map(|i| &spec.facilities[i]),
            });
            continue;
        }
        let i = match facility {
            Some(i) => i,
            None => {
                continue; // the config variable: the caller read the file it names
            }
        };
        let facility = &spec.facilities[i];
        match facility.provider(value) {
            Some(provider) => from_env[i] = Some((name.clone(), provider)),
            None => errors.push(ConfigError::UnknownProvider {
                by: Requester::Env(name.clone()),
                facility,
                value: value.clone(),
            }),
        }
    }

    // 2. The file.
    let mut from_file: Vec<Option<FileChoice>> = vec![None; n];
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
                        from_file[i] = Some(choice);
                    }
                }
            }
        }
    }

    // 3. Precedence, then the feature check on what takes effect.
    let mut choices: Vec<Choice> = spec
        .facilities
        .iter()
        .map(|f| f.default_choice(spec.role, &inputs.features))
        .collect();
    for (i, facility) in spec.facilities.iter().enumerate() {
        let requested = if let Some((var, provider)) = &from_env[i] {
            Some((
                Requester::Env(var.clone()),
                *provider,
                Origin::Env(var.clone()),
            ))
        } else {
            from_file[i].as_ref().map(|c| {
                let origin = Origin::File {
                    path: c.at.path.clone(),
                    line: c.at.line,
                    column: c.at.column,
                };
                (Requester::File(c.at.clone()), c.provider, origin)
            })
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
        Ok(Selection { spec, choices })
    } else {
        Err(Errors(errors))
    }
}

/// The variables among `names` that carry `spec`'s prefix (`INFLATE_DEMO_`) but that `spec` does
/// not know: a misspelt name, each as the build error a build script gives for it (the valid
/// names, and the nearest one when it is a likely typo). See [`check_environment`].
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

/// Checks this process's environment against the tables of `specs` ([`unknown_variables`]), for
/// an application's own test: `cargo test` runs it with the same shell variables and
/// `.cargo/config.toml` `[env]` as the build scripts of `cargo build`. A build script cannot do
/// this itself on every build: Cargo reruns it only when a variable it named with
/// `rerun-if-env-changed` changes, so a misspelt name added later (a new variable) does not rerun
/// it, and an incremental build goes on with the old selection.
///
/// ```
/// # use flagsplit_config::{Facility, Provider, Spec};
/// # static SPEC: Spec = Spec::library("inflate-demo", "INFLATE_DEMO", "inflate_demo");
/// // The body of a test of the application (tests/config.rs: `#[test] fn no_misspelt_variable()`),
/// // with flagsplit-config a dev-dependency (feature `resolve`, a default one).
/// flagsplit_config::check_environment(&[&SPEC]).unwrap();
/// ```
pub fn check_environment(specs: &[&Spec]) -> Result<(), Errors> {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .collect();
    let errors: Vec<ConfigError> = specs
        .iter()
        .flat_map(|spec| unknown_variables(spec, names.iter().map(String::as_str)))
        .collect();
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
        assert!(
            check_environment(&[&DEMO]).is_ok()
                || std::env::vars().any(|(k, _)| k.starts_with("DEMO_"))
        );
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

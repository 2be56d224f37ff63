//! The resolver: enabled features + `FLAGSPLIT_*` variables + config file → one provider per
//! facility, with its origin. Pure: the caller does all reading.
//!
//! Precedence: variable > file > default (DESIGN §1). Every input is validated even when a
//! higher-precedence one overrides it, except the feature check, which applies to the choice that
//! takes effect: an overridden request is not a request that cannot be met.

use std::collections::BTreeMap;

use crate::error::{ConfigError, Errors, Requester};
use crate::file::{self, FileChoice};
use crate::knobs::{self, CONFIG_VAR, When};
use crate::model::{Choice, Facility, FeatureSet, Origin, Provider, Selection};

/// The config file named by `FLAGSPLIT_CONFIG`, as read by the caller.
#[derive(Clone, Debug)]
pub struct ConfigFileInput {
    /// The value of `FLAGSPLIT_CONFIG`, used in messages and origins.
    pub named: String,
    /// The path actually read (absolute), for the "cannot be read" message.
    pub resolved: String,
    /// The contents, or the operating system's reason it could not be read.
    pub contents: Result<String, String>,
}

/// Everything the resolver decides from.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The enabled Cargo features.
    pub features: FeatureSet,
    /// Every variable in the build environment whose name starts with `FLAGSPLIT_`; `None` when
    /// its value is not UTF-8.
    pub env: BTreeMap<String, Option<String>>,
    /// The config file, when `FLAGSPLIT_CONFIG` names one.
    pub file: Option<ConfigFileInput>,
}

/// The prefix of every flagsplit variable.
pub const PREFIX: &str = "FLAGSPLIT_";

/// The config file `FLAGSPLIT_CONFIG` names, if it is set to something non-empty and valid.
pub fn config_file_name(env: &BTreeMap<String, Option<String>>) -> Option<&str> {
    match env.get(CONFIG_VAR) {
        Some(Some(name)) if !name.is_empty() => Some(name),
        _ => None,
    }
}

/// Resolves the selection, or returns every error found.
pub fn resolve(inputs: &Inputs) -> Result<Selection, Errors> {
    let mut errors = Vec::new();

    // 1. The variables themselves.
    let mut from_env: BTreeMap<Facility, (&'static str, Provider)> = BTreeMap::new();
    for (name, value) in &inputs.env {
        let Some(var) = knobs::flagsplit_variable(name) else {
            errors.push(ConfigError::UnknownVariable { name: name.clone() });
            continue;
        };
        if var.when != When::Build {
            continue; // read by the binaries or the test command, not by the build
        }
        let Some(value) = value else {
            errors.push(ConfigError::NotUnicode { name: name.clone() });
            continue;
        };
        if value.is_empty() {
            errors.push(ConfigError::EmptyVariable { name: var.name });
            continue;
        }
        let Some(facility) = Facility::ALL.into_iter().find(|f| f.env_var() == var.name) else {
            continue; // FLAGSPLIT_CONFIG: the caller read the file it names
        };
        match Provider::from_name(value).filter(|p| facility.providers().contains(p)) {
            Some(provider) => {
                from_env.insert(facility, (var.name, provider));
            }
            None => errors.push(ConfigError::UnknownProvider {
                by: Requester::Env(var.name),
                facility,
                value: value.clone(),
            }),
        }
    }

    // 2. The file.
    let mut from_file: BTreeMap<Facility, FileChoice> = BTreeMap::new();
    if let Some(input) = &inputs.file {
        match &input.contents {
            Err(reason) => errors.push(ConfigError::FileUnreadable {
                named: input.named.clone(),
                resolved: input.resolved.clone(),
                reason: reason.clone(),
            }),
            Ok(text) => {
                let (choices, file_errors) = file::parse(&input.named, text);
                errors.extend(file_errors);
                for choice in choices {
                    from_file.insert(choice.facility, choice);
                }
            }
        }
    }

    // 3. Precedence, then the feature check on what takes effect.
    let mut choices = Facility::ALL.map(|f| f.default_choice(inputs.features));
    for facility in Facility::ALL {
        let requested = if let Some((var, provider)) = from_env.get(&facility) {
            Some((Requester::Env(var), *provider, Origin::Env(var)))
        } else {
            from_file.get(&facility).map(|c| {
                let origin = Origin::File {
                    path: c.at.path.clone(),
                    line: c.at.line,
                    column: c.at.column,
                };
                (Requester::File(c.at.clone()), c.provider, origin)
            })
        };
        let Some((by, provider, origin)) = requested else {
            continue;
        };
        if let Some(feature) = facility.required_feature(provider)
            && !inputs.features.contains(feature)
        {
            errors.push(ConfigError::FeatureOff {
                by,
                facility,
                provider,
                feature,
                features: inputs.features,
            });
            continue;
        }
        choices[facility as usize] = Choice { provider, origin };
    }

    if errors.is_empty() {
        Ok(Selection { choices })
    } else {
        Err(Errors(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FilePos;
    use crate::model::Feature;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, Option<String>> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), Some((*v).to_string())))
            .collect()
    }

    fn file(text: &str) -> Option<ConfigFileInput> {
        Some(ConfigFileInput {
            named: "flagsplit.toml".into(),
            resolved: "/pkg/flagsplit.toml".into(),
            contents: Ok(text.into()),
        })
    }

    fn run(
        features: FeatureSet,
        vars: &[(&str, &str)],
        text: Option<&str>,
    ) -> Result<Selection, Errors> {
        resolve(&Inputs {
            features,
            env: env(vars),
            file: text.and_then(file),
        })
    }

    fn providers(sel: &Selection) -> [&'static str; 4] {
        Facility::ALL.map(|f| sel.provider(f).name())
    }

    /// The defaults of DESIGN §1, written out per feature set rather than recomputed.
    #[test]
    fn defaults_for_every_feature_set() {
        use Feature::*;
        let cases: &[(&[Feature], [&str; 4])] = &[
            (&[], ["dc", "block", "builtin", "none"]),
            (&[RustlsTls], ["dc", "block", "builtin", "rustls"]),
            (&[OpensslSha1], ["openssl", "openssl", "builtin", "none"]),
            (&[OpensslMd5], ["dc", "block", "openssl", "none"]),
            (&[OpensslTls], ["dc", "block", "builtin", "openssl"]),
            (
                &[OpensslTls, RustlsTls],
                ["dc", "block", "builtin", "openssl"],
            ),
            (
                &[OpensslSha1, RustlsTls],
                ["openssl", "openssl", "builtin", "rustls"],
            ),
            (
                &[OpensslSha1, OpensslMd5, OpensslTls, RustlsTls],
                ["openssl", "openssl", "openssl", "openssl"],
            ),
        ];
        for (features, expected) in cases {
            let set: FeatureSet = features.iter().copied().collect();
            let sel = run(set, &[], None).expect("defaults always resolve");
            assert_eq!(&providers(&sel), expected, "features {set}");
        }
        // Every one of the 16 sets resolves with no input, and each default is available.
        for set in FeatureSet::all_combinations() {
            let sel = run(set, &[], None).expect("defaults always resolve");
            for facility in Facility::ALL {
                assert!(facility.is_available(sel.provider(facility), set));
                let origin = &sel.get(facility).origin;
                match facility.required_feature(sel.provider(facility)) {
                    Some(feature) => assert_eq!(origin, &Origin::FeatureDefault(feature)),
                    None => assert_eq!(origin, &Origin::Default),
                }
            }
        }
    }

    /// Every facility × every provider name × every feature set, asked for by a variable and by
    /// the file: either it takes effect with the right origin, or the right error says why.
    #[test]
    fn every_facility_provider_feature_set() {
        for set in FeatureSet::all_combinations() {
            for facility in Facility::ALL {
                for provider in Provider::ALL {
                    let var = facility.env_var();
                    let text = format!("[{facility}]\nprovider = \"{provider}\"\n");
                    let by_env = run(set, &[(var, provider.name())], None);
                    let by_file = run(set, &[], Some(&text));
                    let valid = facility.providers().contains(&provider);
                    let needs = facility.required_feature(provider);
                    for (result, from_file) in [(&by_env, false), (&by_file, true)] {
                        let by = if from_file {
                            Requester::File(FilePos {
                                path: "flagsplit.toml".into(),
                                line: 2,
                                column: 12,
                            })
                        } else {
                            Requester::Env(var)
                        };
                        if !valid {
                            let errors = result.as_ref().expect_err("unknown provider must fail");
                            assert_eq!(
                                errors.0,
                                vec![ConfigError::UnknownProvider {
                                    by,
                                    facility,
                                    value: provider.name().into()
                                }]
                            );
                        } else if let Some(feature) = needs.filter(|f| !set.contains(*f)) {
                            let errors = result.as_ref().expect_err("feature off must fail");
                            assert_eq!(
                                errors.0,
                                vec![ConfigError::FeatureOff {
                                    by,
                                    facility,
                                    provider,
                                    feature,
                                    features: set
                                }]
                            );
                            let text = errors.to_string();
                            assert!(text.contains(&format!("--features {feature}")), "{text}");
                        } else {
                            let sel = result.as_ref().expect("valid request resolves");
                            assert_eq!(sel.provider(facility), provider);
                            let origin = &sel.get(facility).origin;
                            if from_file {
                                assert_eq!(origin.to_string(), "flagsplit.toml:2:12");
                            } else {
                                assert_eq!(origin, &Origin::Env(var));
                            }
                            // The other facilities keep their defaults.
                            for other in Facility::ALL.into_iter().filter(|f| *f != facility) {
                                assert_eq!(sel.get(other), &other.default_choice(set));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn variable_beats_file_beats_default() {
        let text = "[sha1]\nprovider = \"block\"\n[md5]\nprovider = \"builtin\"\n";
        let sel = run(
            FeatureSet::DEFAULT.with(Feature::OpensslMd5),
            &[("FLAGSPLIT_SHA1_PROVIDER", "dc")],
            Some(text),
        )
        .unwrap();
        assert_eq!(
            sel.get(Facility::Sha1).origin,
            Origin::Env("FLAGSPLIT_SHA1_PROVIDER")
        );
        assert_eq!(sel.provider(Facility::Sha1), Provider::Dc);
        assert_eq!(sel.provider(Facility::Md5), Provider::Builtin);
        assert_eq!(
            sel.get(Facility::Md5).origin.to_string(),
            "flagsplit.toml:4:12"
        );
        assert_eq!(
            sel.get(Facility::Tls).origin,
            Origin::FeatureDefault(Feature::RustlsTls)
        );
    }

    #[test]
    fn overridden_file_entry_needs_no_feature_but_must_be_valid() {
        // The file asks for OpenSSL TLS without the feature, but the variable overrides it.
        let text = "[tls]\nprovider = \"openssl\"\n";
        let sel = run(
            FeatureSet::EMPTY,
            &[("FLAGSPLIT_TLS_PROVIDER", "none")],
            Some(text),
        )
        .unwrap();
        assert_eq!(sel.provider(Facility::Tls), Provider::None);
        // A misspelt value is reported even when overridden.
        let text = "[tls]\nprovider = \"opensssl\"\n";
        assert!(
            run(
                FeatureSet::EMPTY,
                &[("FLAGSPLIT_TLS_PROVIDER", "none")],
                Some(text)
            )
            .is_err()
        );
    }

    #[test]
    fn run_time_variables_are_not_typos() {
        let sel = run(
            FeatureSet::DEFAULT,
            &[
                ("FLAGSPLIT_SHA1DC", "0"),
                ("FLAGSPLIT_EXEC_PATH", "/x"),
                ("FLAGSPLIT_TEST_NO_INSTALL", "1"),
            ],
            None,
        );
        assert!(sel.is_ok());
    }

    #[test]
    fn all_errors_are_reported_at_once() {
        let errors = run(
            FeatureSet::EMPTY,
            &[
                ("FLAGSPLIT_SHA_PROVIDER", "dc"),
                ("FLAGSPLIT_TLS_PROVIDER", "openssl"),
            ],
            Some("[sha2]\n"),
        )
        .unwrap_err();
        assert_eq!(errors.0.len(), 3, "{errors}");
    }

    #[test]
    fn selection_cfgs_and_links() {
        let sel = run(
            FeatureSet::EMPTY
                .with(Feature::OpensslSha1)
                .with(Feature::OpensslTls),
            &[("FLAGSPLIT_SHA1_PROVIDER", "dc")],
            None,
        )
        .unwrap();
        // sha1-unsafe still uses OpenSSL, so OPENSSL_SHA1 holds.
        assert!(sel.openssl_sha1() && !sel.openssl_md5() && sel.openssl_tls());
        let flagsplit = sel.links(crate::Binary::Flagsplit);
        assert!(flagsplit.libcrypto && !flagsplit.libssl);
        let sender = sel.links(crate::Binary::ImapSend);
        assert!(sender.libcrypto && sender.libssl);
        // The sender computes no SHA-1: OpenSSL SHA-1 alone links nothing into it; OpenSSL MD5
        // (CRAM-MD5) links libcrypto.
        let sha1 = run(FeatureSet::EMPTY.with(Feature::OpensslSha1), &[], None).unwrap();
        let sender = sha1.links(crate::Binary::ImapSend);
        assert!(!sender.libcrypto && !sender.libssl);
        assert!(sha1.links(crate::Binary::Flagsplit).libcrypto);
        let md5 = run(FeatureSet::EMPTY.with(Feature::OpensslMd5), &[], None).unwrap();
        let sender = md5.links(crate::Binary::ImapSend);
        assert!(sender.libcrypto && !sender.libssl);
        assert_eq!(
            sel.needed_capabilities(),
            vec![crate::Capability::Sha1Digest, crate::Capability::TlsClient]
        );
    }
}

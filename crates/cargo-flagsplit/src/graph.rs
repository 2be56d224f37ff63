//! The graph-wide settings (`RUST_BACKEND_*`) present in the environment and in the
//! `RUST_BACKEND_CONFIG` file, and which of them no crate of the build reads.

use crate::model::{GraphSetting, SettingSource};
use flagsplit_config::graph::{self, KINDS, Setting};
use std::collections::BTreeSet;

/// Which settings the crates of a build read, by their file keys (`tls`, `link`, `bundled`, and
/// `config` for the file), as each crate's build options list them (`graph_reads`).
pub struct Readers<'a> {
    pub keys: &'a BTreeSet<String>,
}

impl Readers<'_> {
    fn reads(&self, setting: Setting) -> bool {
        self.keys.contains(setting.key())
    }

    fn reads_config(&self) -> bool {
        self.keys.contains("config")
    }
}

/// The graph-wide settings among `env` (name, value), scoped ones recognised for `triples`, and
/// the entries of the file `config` (its path and text, when `RUST_BACKEND_CONFIG` names one).
/// Returns them with the warnings: settings nobody reads, names that are no setting.
pub fn settings(
    env: &[(String, String)],
    triples: &[&str],
    config: Option<(&str, Result<String, String>)>,
    readers: &Readers<'_>,
) -> (Vec<GraphSetting>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut env: Vec<&(String, String)> = env.iter().collect();
    env.sort();
    for (name, value) in env {
        if name == graph::CONFIG {
            out.push(GraphSetting {
                name: name.clone(),
                value: value.clone(),
                source: SettingSource::Environment,
                at: None,
                key: Some("config".into()),
                read: readers.reads_config(),
            });
            continue;
        }
        match graph::classify(name, triples) {
            Ok(Some((setting, _scoped))) => {
                let read = readers.reads(setting);
                if !read {
                    warnings.push(unread(&format!("{name}={value}"), setting));
                }
                out.push(GraphSetting {
                    name: name.clone(),
                    value: value.clone(),
                    source: SettingSource::Environment,
                    at: None,
                    key: Some(setting.key().into()),
                    read,
                });
            }
            Ok(None) => {}
            Err(()) => {
                warnings.push(format!(
                    "{name}={value} is no graph-wide setting: the kinds are {}, and LINK, BUNDLED, CONFIG",
                    KINDS.join(", ")
                ));
                out.push(GraphSetting {
                    name: name.clone(),
                    value: value.clone(),
                    source: SettingSource::Environment,
                    at: None,
                    key: None,
                    read: false,
                });
            }
        }
    }
    if let Some((path, text)) = config {
        match text {
            Ok(text) => file_settings(path, &text, readers, &mut out, &mut warnings),
            Err(e) => warnings.push(format!(
                "{} names {path}, which cannot be read: {e}",
                graph::CONFIG
            )),
        }
    }
    (out, warnings)
}

fn unread(what: &str, setting: Setting) -> String {
    match setting {
        Setting::Kind(k) => format!(
            "{what}: no crate of this build has a facility of kind {k}, so nothing reads it"
        ),
        _ => format!("{what}: no crate of this build uses flagsplit-config, so nothing reads it"),
    }
}

fn file_settings(
    path: &str,
    text: &str,
    readers: &Readers<'_>,
    out: &mut Vec<GraphSetting>,
    warnings: &mut Vec<String>,
) {
    let root = match toml_span::parse(text) {
        Ok(root) => root,
        Err(e) => {
            warnings.push(format!(
                "{} file {path} is not valid TOML: {e}",
                graph::CONFIG
            ));
            return;
        }
    };
    let Some(table) = root.as_table() else { return };
    let at = |value: &toml_span::Value<'_>| {
        let (line, col) = crate::policy::line_col(text, crate::policy::value_start(text, value));
        format!("{path}:{line}:{col}")
    };
    let mut entries = Vec::new();
    for (key, value) in table {
        if key.name == "target" {
            for (scope, t) in value.as_table().into_iter().flatten() {
                for (k, v) in t.as_table().into_iter().flatten() {
                    entries.push((
                        format!("target.{}.{}", scope.name, k.name),
                        k.name.to_string(),
                        v,
                    ));
                }
            }
        } else {
            entries.push((key.name.to_string(), key.name.to_string(), value));
        }
    }
    entries.sort_by_key(|e| e.2.span.start);
    for (name, key, value) in entries {
        let value_text = value
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| value.as_ref().type_str().to_string());
        let place = at(value);
        match Setting::from_key(&key) {
            Some(setting) => {
                let read = readers.reads(setting);
                if !read {
                    warnings.push(unread(
                        &format!("{place}: {name} = {value_text:?}"),
                        setting,
                    ));
                }
                out.push(GraphSetting {
                    name,
                    value: value_text,
                    source: SettingSource::File,
                    at: Some(place),
                    key: Some(key),
                    read,
                });
            }
            None => {
                warnings.push(format!(
                    "{place}: `{name}` is no graph-wide setting: the keys are {}, link, bundled",
                    KINDS.join(", ")
                ));
                out.push(GraphSetting {
                    name,
                    value: value_text,
                    source: SettingSource::File,
                    at: Some(place),
                    key: None,
                    read: false,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_kind_no_crate_has_is_unread() {
        let keys: BTreeSet<String> = ["tls", "link", "bundled", "config"]
            .map(String::from)
            .into();
        let readers = Readers { keys: &keys };
        let (s, w) = settings(
            &env(&[
                ("RUST_BACKEND_TLS", "openssl"),
                ("RUST_BACKEND_ZSTD", "system"),
                ("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_LINK", "static"),
                ("PATH", "/bin"),
            ]),
            &["x86_64-unknown-linux-gnu"],
            None,
            &readers,
        );
        let names: Vec<_> = s.iter().map(|s| (s.name.as_str(), s.read)).collect();
        assert_eq!(
            names,
            [
                ("RUST_BACKEND_TLS", true),
                ("RUST_BACKEND_ZSTD", false),
                ("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_LINK", true)
            ]
        );
        assert_eq!(
            w,
            [
                "RUST_BACKEND_ZSTD=system: no crate of this build has a facility of kind zstd, so nothing reads it"
            ]
        );
    }

    #[test]
    fn misspelt_names_and_file_entries() {
        let keys: BTreeSet<String> = ["zlib", "link", "bundled", "config"]
            .map(String::from)
            .into();
        let readers = Readers { keys: &keys };
        let text =
            "zlib = \"system\"\n[target.x86_64-unknown-linux-gnu]\ntls = \"openssl\"\n".to_string();
        let (s, w) = settings(
            &env(&[
                ("RUST_BACKEND_TSL", "openssl"),
                ("RUST_BACKEND_CONFIG", "/b.toml"),
            ]),
            &["x86_64-unknown-linux-gnu"],
            Some(("/b.toml", Ok(text))),
            &readers,
        );
        assert_eq!(s.len(), 4);
        assert!(w[0].starts_with("RUST_BACKEND_TSL=openssl is no graph-wide setting"));
        assert_eq!(s[3].name, "target.x86_64-unknown-linux-gnu.tls");
        assert_eq!(s[3].at.as_deref(), Some("/b.toml:3:7"));
        assert!(!s[3].read);
        assert_eq!(
            w[1],
            "/b.toml:3:7: target.x86_64-unknown-linux-gnu.tls = \"openssl\": no crate of this build has a facility of kind tls, so nothing reads it"
        );
    }
}

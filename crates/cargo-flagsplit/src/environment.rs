//! The settings a build's scripts see (the environment, Cargo's `[env]` tables, the
//! `RUST_BACKEND_CONFIG` file) against every name the graph's crates read: their variables (each
//! crate's `flagsplit-config.json` lists them, with their target-scoped forms) and the graph-wide
//! `RUST_BACKEND_*` settings. Cargo reruns a build script only when a variable it named changes,
//! so a misspelt name added to an up-to-date build goes unseen by every build script; this
//! check runs on every `cargo flagsplit`, whatever Cargo reran.

use crate::diag::{Code, Diagnostic, Severity};
use crate::model::{CrateReport, Setting, SettingSource};
use crate::source::{SourceFile, Span};
use flagsplit_config::clib::target_prefixed;
use flagsplit_config::graph::{self, KINDS, Setting as GraphSetting};
use flagsplit_config::nearest_variable;
use std::collections::BTreeMap;

/// One name found, with its value and where.
pub struct Found<'a> {
    pub name: &'a str,
    pub value: &'a str,
    /// `None`: the environment.
    pub at: Option<&'a Span>,
}

/// What the graph's crates read.
struct Readers {
    /// Each crate variable (plain and target-scoped) and the crates that read it.
    variables: BTreeMap<String, Vec<String>>,
    /// Each crate's prefix (`TLS_A_`), its package name and its names.
    prefixes: Vec<(String, String, Vec<String>)>,
    /// Each graph-wide key (`tls`, `link`, `bundled`, `config`) and the crates that read it.
    keys: BTreeMap<String, Vec<String>>,
}

impl Readers {
    fn new(crates: &[CrateReport]) -> Readers {
        let mut variables: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut prefixes = Vec::new();
        for c in crates {
            let mut names: Vec<String> =
                c.options.variables.iter().map(|v| v.name.clone()).collect();
            // A facility's variable has a form scoped to the triple the crate is built for.
            if !c.options.target.is_empty() {
                names.extend(
                    c.options
                        .facilities
                        .iter()
                        .map(|f| target_prefixed(&c.options.target, &f.variable)),
                );
            }
            for n in &names {
                let by = variables.entry(n.clone()).or_default();
                if !by.contains(&c.name) {
                    by.push(c.name.clone());
                }
            }
            for k in &c.options.graph_reads {
                let by = keys.entry(k.clone()).or_default();
                if !by.contains(&c.name) {
                    by.push(c.name.clone());
                }
            }
            if !c.options.prefix.is_empty() {
                prefixes.push((format!("{}_", c.options.prefix), c.name.clone(), names));
            }
        }
        Readers {
            variables,
            prefixes,
            keys,
        }
    }

    fn read_by(&self, key: &str) -> Vec<String> {
        self.keys.get(key).cloned().unwrap_or_default()
    }

    /// The kind some crate reads that `key`, read by none, most likely misspells.
    fn near_kind(&self, key: &str) -> Option<&str> {
        let kinds = self
            .keys
            .keys()
            .map(String::as_str)
            .filter(|k| !matches!(*k, "link" | "bundled" | "config"));
        flagsplit_config::closest(key, kinds)
    }

    /// The graph-wide variables some crate reads.
    fn read_variables(&self) -> Vec<String> {
        self.keys
            .keys()
            .map(|k| match k.as_str() {
                "config" => graph::CONFIG.to_string(),
                k => graph::variable_of(k),
            })
            .collect()
    }
}

/// The graph-wide variable names for `triples`: the plain ones and their scoped forms.
fn graph_names(triples: &[&str]) -> Vec<String> {
    let mut out = graph::variable_names();
    for t in triples {
        out.extend(
            GraphSetting::all()
                .into_iter()
                .map(|s| s.target_variable(t)),
        );
    }
    out
}

/// The settings among `found` (the environment's and the `[env]` tables' names), the entries
/// of the graph-wide file `file` (its path and text, when `RUST_BACKEND_CONFIG` names one), and
/// the diagnostics: a name no crate knows that has a crate's prefix, is a `RUST_BACKEND_*` name,
/// or is close to a name the graph reads (with `severity`), a valid setting nothing reads (a
/// warning).
pub fn check(
    found: &[Found<'_>],
    file: Option<(&str, Result<String, String>)>,
    crates: &[CrateReport],
    triples: &[&str],
    severity: Severity,
) -> (Vec<Setting>, Vec<Diagnostic>) {
    let readers = Readers::new(crates);
    let mut settings = Vec::new();
    let mut diags = Vec::new();
    let graph_vars = graph_names(triples);
    let mut found: Vec<&Found<'_>> = found.iter().collect();
    found.sort_by(|a, b| (a.name, a.at.is_some()).cmp(&(b.name, b.at.is_some())));
    for f in found {
        let source = if f.at.is_some() {
            SettingSource::CargoEnv
        } else {
            SettingSource::Environment
        };
        let setting = |key: Option<&str>, read_by: Vec<String>| Setting {
            name: f.name.to_string(),
            value: f.value.to_string(),
            source: source.clone(),
            at: f.at.map(Span::at),
            key: key.map(str::to_string),
            read_by,
        };
        let place = |d: Diagnostic| match f.at {
            Some(span) => d.at(span.clone(), "set here"),
            None => d.note("note", "set in the environment of the build"),
        };
        let shown = format!("{}={}", f.name, f.value);
        if f.name == graph::CONFIG {
            let read_by = readers.read_by("config");
            if read_by.is_empty() {
                diags.push(place(unread(&shown, "config")));
            }
            settings.push(setting(Some("config"), read_by));
            continue;
        }
        match graph::classify(f.name, triples) {
            Some(graph::Name::Setting { key, scoped }) => {
                let read_by = readers.read_by(&key);
                if !read_by.is_empty() {
                    settings.push(setting(Some(&key), read_by));
                    continue;
                }
                // Kinds are open: a kind no crate here has is someone else's, unless it is close
                // to one a crate reads.
                match readers.near_kind(&key) {
                    Some(near) => {
                        let meant = match (scoped, triples.first()) {
                            (true, Some(t)) => target_prefixed(t, &graph::variable_of(near)),
                            _ => graph::variable_of(near),
                        };
                        diags.push(place(
                            Diagnostic::new(
                                Code::UnknownSetting,
                                severity,
                                format!("`{}` is no setting any crate of this build reads", f.name),
                            )
                            .note("help", format!("did you mean {meant}?"))
                            .note(
                                "note",
                                format!(
                                    "the graph-wide settings this build reads: {}",
                                    readers.read_variables().join(", ")
                                ),
                            ),
                        ));
                    }
                    None => diags.push(place(unread(&shown, &key))),
                }
                settings.push(setting(Some(&key), Vec::new()));
                continue;
            }
            Some(graph::Name::Malformed) => {
                let mut d = Diagnostic::new(
                    Code::UnknownSetting,
                    severity,
                    format!("`{}` is no graph-wide setting", f.name),
                );
                let names = readers
                    .read_variables()
                    .into_iter()
                    .chain(graph_vars.iter().cloned());
                if let Some(near) = nearest_variable(f.name, names) {
                    d = d.note("help", format!("did you mean {near}?"));
                }
                d = d.note(
                    "note",
                    format!(
                        "a graph-wide variable is {}_<KIND> (a kind's name in capitals, `-` as `_`: {}, ...), {}_LINK, {}_BUNDLED or {}",
                        graph::PREFIX,
                        KINDS.join(", "),
                        graph::PREFIX,
                        graph::PREFIX,
                        graph::CONFIG
                    ),
                );
                diags.push(place(d));
                settings.push(setting(None, Vec::new()));
                continue;
            }
            _ => {}
        }
        if let Some(by) = readers.variables.get(f.name) {
            settings.push(setting(None, by.clone()));
            continue;
        }
        // A name with a crate's prefix (after a build triple, for a scoped form) that the crate
        // does not know; else a name close to one the graph reads.
        let (scope, rest) = triples
            .iter()
            .find_map(|t| {
                f.name
                    .strip_prefix(&target_prefixed(t, ""))
                    .map(|r| (Some(*t), r))
            })
            .unwrap_or((None, f.name));
        let owner = readers
            .prefixes
            .iter()
            .filter(|(p, _, _)| rest.starts_with(p.as_str()))
            .max_by_key(|(p, _, _)| p.len());
        let (message, near) = match owner {
            Some((_, krate, names)) => {
                let candidates: Vec<String> = match scope {
                    Some(t) => names.iter().map(|n| target_prefixed(t, n)).collect(),
                    None => names.clone(),
                };
                (
                    format!(
                        "`{}` has {krate}'s prefix, but {krate} reads no such variable",
                        f.name
                    ),
                    nearest_variable(f.name, candidates),
                )
            }
            // Within 3 edits of a name the graph reads (a short name is too easily near one).
            None if f.name.len() >= 8 => {
                let names = readers
                    .variables
                    .keys()
                    .cloned()
                    .chain(graph_vars.iter().cloned());
                match nearest_variable(f.name, names) {
                    Some(near) => (
                        format!("`{}` is no variable any crate of this build reads", f.name),
                        Some(near),
                    ),
                    None => continue,
                }
            }
            None => continue,
        };
        let mut d = Diagnostic::new(Code::UnknownVariable, severity, message);
        if let Some(near) = &near {
            d = d.note("help", format!("did you mean {near}?"));
        }
        if let Some((_, krate, names)) = owner {
            d = d.note("note", format!("{krate} reads {}", names.join(", ")));
        }
        d = d.note(
            "note",
            "Cargo reruns a build script only when a variable it reads changes: this name changes nothing, and the build goes on with the selection it had",
        );
        diags.push(place(d));
        settings.push(setting(None, Vec::new()));
    }
    if let Some((path, text)) = file {
        match text {
            Ok(text) => file_settings(
                &SourceFile::new(path, text),
                &readers,
                severity,
                &mut settings,
                &mut diags,
            ),
            Err(e) => diags.push(Diagnostic::new(
                Code::UnknownSetting,
                severity,
                format!("{} names {path}, which cannot be read: {e}", graph::CONFIG),
            )),
        }
    }
    (settings, diags)
}

/// A valid setting nothing reads: `key` is a kind's, or `link`, `bundled`, `config`.
fn unread(what: &str, key: &str) -> Diagnostic {
    let why = match key {
        "link" | "bundled" | "config" => {
            "no crate of this build uses flagsplit-config, so nothing reads it".to_string()
        }
        kind => {
            format!("no crate of this build has a facility of kind {kind}, so nothing reads it")
        }
    };
    let d = Diagnostic::warning(Code::UnreadSetting, format!("{what}: {why}"));
    // The nearest well-known kind, as help (`zlibb` for zlib; nothing for zlib itself).
    match flagsplit_config::closest(key, KINDS.iter().copied()) {
        Some(near) => d.note("help", format!("did you mean the well-known kind {near}?")),
        None => d,
    }
}

/// The entries of the graph-wide file: top-level keys and `[target.<scope>]` tables.
fn file_settings(
    file: &std::rc::Rc<SourceFile>,
    readers: &Readers,
    severity: Severity,
    out: &mut Vec<Setting>,
    diags: &mut Vec<Diagnostic>,
) {
    // flagsplit-config's own reader, the one every build script uses: the same entries, the same
    // errors (syntax, a bad `[target.<...>]` table).
    let (entries, errors) = flagsplit_config::read_graph_file(&file.name, &file.text);
    for e in errors {
        let at = match &e {
            flagsplit_config::ConfigError::Syntax { at, .. }
            | flagsplit_config::ConfigError::BadScope { at, .. } => Some(at),
            _ => None,
        };
        let text = e.to_string();
        let (headline, rest) = text.split_once('\n').unwrap_or((&text, ""));
        let headline = match at {
            Some(at) => headline
                .strip_prefix(&format!("{at}: "))
                .unwrap_or(headline),
            None => headline,
        };
        let mut d = Diagnostic::new(
            Code::UnknownSetting,
            severity,
            format!("{} file {}: {headline}", graph::CONFIG, file.name),
        );
        if let Some(at) = at {
            let offset = file.offset(at.line as usize, at.column as usize);
            d = d.at(Span::new(file, offset..offset + 1), "here");
        }
        for line in rest.lines() {
            if let Some(fix) = line.trim_start().strip_prefix("fix: ") {
                d = d.note("fix", fix.to_string());
            }
        }
        diags.push(d);
    }
    for entry in entries {
        let key = entry.key.as_str();
        let name = match &entry.target {
            Some(scope) => format!("target.{scope}.{key}"),
            None => key.to_string(),
        };
        let value_text = match &entry.value {
            Ok(text) => text.clone(),
            Err(type_name) => type_name.to_string(),
        };
        let span = Span::new(file, entry.key_span.clone());
        let valid = graph::name_problem(key).is_none() && key != "target" && key != "config";
        let read_by = if valid {
            readers.read_by(key)
        } else {
            Vec::new()
        };
        if valid && read_by.is_empty() {
            match readers.near_kind(key) {
                Some(near) => diags.push(
                    Diagnostic::new(
                        Code::UnknownSetting,
                        severity,
                        format!("`{name}` is no setting any crate of this build reads"),
                    )
                    .at(span.clone(), "no such kind here")
                    .note("help", format!("did you mean {near}?")),
                ),
                None => diags.push(
                    unread(&format!("{name} = {value_text:?}"), key).at(span.clone(), "set here"),
                ),
            }
        } else if !valid {
            let mut d = Diagnostic::new(
                Code::UnknownSetting,
                severity,
                format!("`{name}` is no graph-wide setting"),
            )
            .at(span.clone(), "no such key");
            let keys: Vec<&str> = readers
                .keys
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "config")
                .collect();
            if let Some(near) = flagsplit_config::closest(key, keys.iter().copied()) {
                d = d.note("help", format!("did you mean {near}?"));
            }
            diags.push(d.note(
                "note",
                "a key is a kind's name (lowercase, words joined by `-`), `link` or `bundled`",
            ));
        }
        let key_name = valid.then(|| key.to_string());
        out.push(Setting {
            name,
            value: value_text,
            source: SettingSource::File,
            at: Some(span.at()),
            key: key_name,
            read_by,
        });
    }
}

/// The names of an environment saved with `env -0 > FILE` (NUL-separated) or `env > FILE`
/// (a line each; a value holding a newline is then cut).
pub fn parse_env_file(bytes: &[u8]) -> Vec<(String, String)> {
    let sep = if bytes.contains(&0) { 0 } else { b'\n' };
    bytes
        .split(|&b| b == sep)
        .filter_map(|entry| {
            let text = std::str::from_utf8(entry).ok()?;
            let (name, value) = text.split_once('=')?;
            let valid =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            valid.then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::tests::tls_crate;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> Vec<Found<'a>> {
        pairs
            .iter()
            .map(|(n, v)| Found {
                name: n,
                value: v,
                at: None,
            })
            .collect()
    }

    const HOST: &str = "x86_64-unknown-linux-gnu";

    fn codes(d: &[Diagnostic]) -> Vec<(&'static str, String)> {
        d.iter()
            .map(|d| (d.code.as_str(), d.message.clone()))
            .collect()
    }

    #[test]
    fn crate_variables_known_misspelt_and_close() {
        let mut a = tls_crate("tls-a", "none", "default", "default");
        a.options.graph_reads = vec![
            "tls".into(),
            "link".into(),
            "bundled".into(),
            "config".into(),
        ];
        let (settings, d) = check(
            &env(&[
                ("TLS_A_TLS_PROVIDER", "none"),
                ("X86_64_UNKNOWN_LINUX_GNU_TLS_A_TLS_PROVIDER", "none"),
                ("TLS_A_TLS_PROVIDR", "none"),
                ("TL_A_TLS_PROVIDER", "none"),
                ("RUST_BACKEND_ZLIBB", "system"),
                ("RUST_BACKEND_ZLIB", "system"),
                ("RUST_BACKEND_TLS", "openssl"),
                ("RUST_BACKEND_TSL", "openssl"),
                ("RUST_BACKEND_tls", "openssl"),
                ("PATH", "/bin"),
                ("OPENSSL_NO_VENDOR", "1"),
            ]),
            None,
            &[a],
            &[HOST],
            Severity::Error,
        );
        let got = codes(&d);
        assert_eq!(got.len(), 6, "{got:#?}");
        assert!(got.contains(&(
            "unknown-variable",
            "`TLS_A_TLS_PROVIDR` has tls-a's prefix, but tls-a reads no such variable".into()
        )));
        assert!(got.contains(&(
            "unknown-variable",
            "`TL_A_TLS_PROVIDER` is no variable any crate of this build reads".into()
        )));
        // Kinds are open: RUST_BACKEND_ZLIBB is a kind no crate here has, as RUST_BACKEND_ZLIB
        // is; RUST_BACKEND_TSL is close to tls, which tls-a reads.
        assert!(got.contains(&("unread-setting", "RUST_BACKEND_ZLIBB=system: no crate of this build has a facility of kind zlibb, so nothing reads it".into())));
        assert!(got.contains(&(
            "unknown-setting",
            "`RUST_BACKEND_TSL` is no setting any crate of this build reads".into()
        )));
        assert!(got.contains(&(
            "unknown-setting",
            "`RUST_BACKEND_tls` is no graph-wide setting".into()
        )));
        assert!(got.contains(&("unread-setting", "RUST_BACKEND_ZLIB=system: no crate of this build has a facility of kind zlib, so nothing reads it".into())));
        for d in d
            .iter()
            .filter(|d| !d.message.starts_with("RUST_BACKEND_ZLIB="))
        {
            assert!(
                d.notes
                    .iter()
                    .any(|(n, t)| n == "help" && t.starts_with("did you mean ")),
                "{d:?}"
            );
            if d.code != Code::UnreadSetting {
                assert_eq!(d.severity, Severity::Error);
            }
        }
        let help = |code: Code, name: &str| {
            d.iter()
                .find(|x| x.code == code && x.message.contains(name))
                .and_then(|x| x.notes.iter().find(|(n, _)| n == "help"))
                .map(|(_, t)| t.clone())
        };
        assert_eq!(
            help(Code::UnknownVariable, "TLS_A_TLS_PROVIDR").as_deref(),
            Some("did you mean TLS_A_TLS_PROVIDER?")
        );
        assert_eq!(
            help(Code::UnknownVariable, "TL_A_TLS_PROVIDER").as_deref(),
            Some("did you mean TLS_A_TLS_PROVIDER?")
        );
        assert_eq!(
            help(Code::UnreadSetting, "ZLIBB").as_deref(),
            Some("did you mean the well-known kind zlib?")
        );
        assert_eq!(
            help(Code::UnknownSetting, "TSL").as_deref(),
            Some("did you mean RUST_BACKEND_TLS?")
        );
        assert_eq!(
            help(Code::UnknownSetting, "RUST_BACKEND_tls").as_deref(),
            Some("did you mean RUST_BACKEND_TLS?")
        );
        let listed: Vec<(&str, Vec<String>)> = settings
            .iter()
            .map(|s| (s.name.as_str(), s.read_by.clone()))
            .collect();
        assert!(listed.contains(&("TLS_A_TLS_PROVIDER", vec!["tls-a".to_string()])));
        assert!(listed.contains(&(
            "X86_64_UNKNOWN_LINUX_GNU_TLS_A_TLS_PROVIDER",
            vec!["tls-a".to_string()]
        )));
        assert!(listed.contains(&("RUST_BACKEND_TLS", vec!["tls-a".to_string()])));
        assert!(
            !listed
                .iter()
                .any(|(n, _)| *n == "PATH" || *n == "OPENSSL_NO_VENDOR")
        );
    }

    #[test]
    fn an_env_entry_points_at_its_file() {
        let f = SourceFile::new(
            ".cargo/config.toml",
            "[env]\nTLS_A_TLS_PROVIDR = \"none\"\n",
        );
        let span = Span::new(&f, 6..23);
        let found = [Found {
            name: "TLS_A_TLS_PROVIDR",
            value: "none",
            at: Some(&span),
        }];
        let (s, d) = check(
            &found,
            None,
            &[tls_crate("tls-a", "none", "default", "default")],
            &[HOST],
            Severity::Warning,
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
        assert_eq!(d[0].location().as_deref(), Some(".cargo/config.toml:2:1"));
        assert_eq!(s[0].source, SettingSource::CargoEnv);
        assert_eq!(s[0].at.as_deref(), Some(".cargo/config.toml:2:1"));
    }

    /// The graph-wide file's own mistakes, as flagsplit-config's reader (the build scripts') finds
    /// them: a table under `[target]` that is no triple or `cfg(...)`, and invalid TOML.
    #[test]
    fn the_graph_wide_file_read_as_the_builds_read_it() {
        let mut z = tls_crate("zlib-c", "none", "default", "default");
        z.options.graph_reads = vec!["tls".into(), "config".into()];
        for (text, want, at) in [
            (
                "[target.'cfg(feature = \"x\")']\ntls = \"openssl\"\n",
                "RUST_BACKEND_CONFIG file /b.toml: [target.'cfg(feature = \"x\")'] names no target",
                "/b.toml:1:10",
            ),
            (
                "tls = \n",
                "RUST_BACKEND_CONFIG file /b.toml: invalid TOML",
                "/b.toml:1:7",
            ),
        ] {
            let (_, d) = check(
                &env(&[("RUST_BACKEND_CONFIG", "/b.toml")]),
                Some(("/b.toml", Ok(text.to_string()))),
                &[z.clone()],
                &[HOST],
                Severity::Error,
            );
            assert_eq!(d.len(), 1, "{text}: {d:?}");
            assert!(d[0].message.starts_with(want), "{text}: {}", d[0].message);
            assert_eq!(d[0].location().as_deref(), Some(at), "{text}");
            assert!(d[0].notes.iter().any(|(k, _)| k == "fix"), "{text}: {d:?}");
        }
    }

    #[test]
    fn the_graph_wide_file() {
        let mut z = tls_crate("zlib-c", "none", "default", "default");
        z.options.graph_reads = vec!["zlib".into(), "config".into()];
        let text =
            "zlib = \"system\"\n[target.x86_64-unknown-linux-gnu]\ntls = \"openssl\"\ntsl = 1\n"
                .to_string();
        let (s, d) = check(
            &env(&[("RUST_BACKEND_CONFIG", "/b.toml")]),
            Some(("/b.toml", Ok(text))),
            &[z],
            &[HOST],
            Severity::Error,
        );
        let names: Vec<(&str, bool)> = s
            .iter()
            .map(|s| (s.name.as_str(), s.read_by.is_empty()))
            .collect();
        assert_eq!(
            names,
            [
                ("RUST_BACKEND_CONFIG", false),
                ("zlib", false),
                ("target.x86_64-unknown-linux-gnu.tls", true),
                ("target.x86_64-unknown-linux-gnu.tsl", true)
            ]
        );
        assert_eq!(s[2].at.as_deref(), Some("/b.toml:3:1"));
        let got = codes(&d);
        assert_eq!(got[0], ("unread-setting", "target.x86_64-unknown-linux-gnu.tls = \"openssl\": no crate of this build has a facility of kind tls, so nothing reads it".into()));
        // Kinds are open: `tsl` is a kind no crate here has, close to the well-known tls.
        assert_eq!(got[1], ("unread-setting", "target.x86_64-unknown-linux-gnu.tsl = \"integer\": no crate of this build has a facility of kind tsl, so nothing reads it".into()));
        assert_eq!(
            d[1].notes,
            [(
                "help".to_string(),
                "did you mean the well-known kind tls?".to_string()
            )]
        );
    }

    #[test]
    fn env_files() {
        assert_eq!(
            parse_env_file(b"A=1\0B=x\ny\0=no\0C=\0"),
            [
                ("A".into(), "1".into()),
                ("B".into(), "x\ny".into()),
                ("C".into(), "".into())
            ]
        );
        assert_eq!(
            parse_env_file(b"A=1\nB=2\nnot a line\n"),
            [("A".into(), "1".into()), ("B".into(), "2".into())]
        );
    }
}

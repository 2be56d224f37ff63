//! The `[env]` tables Cargo applies to build scripts, read as Cargo documents its configuration
//! (<https://doc.rust-lang.org/cargo/reference/config.html>): `.cargo/config.toml` (or
//! `.cargo/config`) in the current directory and each parent, then `$CARGO_HOME/config.toml`,
//! then each `--config KEY=VALUE` or `--config PATH`, a later source winning for a name set
//! twice. Cargo has no stable command that prints its merged configuration, and the crates that
//! read it (cargo-config2) neither take `--config` nor keep positions; each entry here keeps its
//! `FILE:LINE:COL` for the diagnostics. Also `[build] target`, the target a build without
//! `--target` is for.

use crate::source::{SourceFile, Span};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use toml_span::value::{Value, ValueInner};

/// One `[env]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvEntry {
    pub name: String,
    /// Its value (`value` of the table form); the TOML type for a value that is no string.
    pub value: String,
    /// Where its key is.
    pub at: Span,
}

/// What the configuration says that this tool reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CargoConfig {
    /// Every `[env]` entry, lowest precedence first (a name may be listed more than once).
    pub env: Vec<EnvEntry>,
    /// `[build] target` (the last source that sets it), when it is one triple.
    pub build_target: Option<String>,
    /// Files and `--config` values that could not be read or parsed, with why: Cargo itself
    /// refuses them, so the build would have failed.
    pub problems: Vec<String>,
}

/// The config files of a Cargo run in `cwd`, highest precedence first: each directory from
/// `cwd` up to the root, then `cargo_home` unless it was one of them.
pub fn files(cwd: &Path, cargo_home: Option<&Path>) -> Vec<PathBuf> {
    let pick = |dir: &Path| {
        // Cargo reads `config` when both exist (and warns).
        let plain = dir.join("config");
        if plain.is_file() {
            return Some(plain);
        }
        let toml = dir.join("config.toml");
        toml.is_file().then_some(toml)
    };
    let mut out: Vec<PathBuf> = cwd
        .ancestors()
        .filter_map(|d| pick(&d.join(".cargo")))
        .collect();
    if let Some(home) = cargo_home
        && let Some(f) = pick(home)
        && !out.contains(&f)
    {
        out.push(f);
    }
    out
}

/// `$CARGO_HOME`, or `$HOME/.cargo`, in an environment.
pub fn cargo_home(env: &[(String, String)]) -> Option<PathBuf> {
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    get("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| get("HOME").map(|h| Path::new(&h).join(".cargo")))
}

/// Reads the configuration of a Cargo run in `cwd` with `--config` arguments `cli`.
pub fn read(cwd: &Path, cargo_home: Option<&Path>, cli: &[String]) -> CargoConfig {
    let mut config = CargoConfig::default();
    // Lowest precedence first.
    for path in files(cwd, cargo_home).iter().rev() {
        match std::fs::read_to_string(path) {
            Ok(text) => config.take(&SourceFile::new(path.display().to_string(), text)),
            Err(e) => config
                .problems
                .push(format!("cannot read {}: {e}", path.display())),
        }
    }
    for (i, arg) in cli.iter().enumerate() {
        let as_path = cwd.join(arg);
        if as_path.is_file() {
            match std::fs::read_to_string(&as_path) {
                Ok(text) => config.take(&SourceFile::new(arg.clone(), text)),
                Err(e) => config
                    .problems
                    .push(format!("cannot read --config {arg}: {e}")),
            }
        } else {
            config.take(&SourceFile::new(
                format!("--config #{}", i + 1),
                arg.clone(),
            ));
        }
    }
    config
}

/// One config file's (or `--config` value's) `[env]` and `[build] target`, as [`read`] takes it.
pub fn parse(name: &str, text: &str) -> CargoConfig {
    let mut config = CargoConfig::default();
    config.take(&SourceFile::new(name, text));
    config
}

impl CargoConfig {
    /// Takes one file's (or one `--config` value's) `[env]` and `[build] target`.
    fn take(&mut self, file: &Rc<SourceFile>) {
        let root = match toml_span::parse(&file.text) {
            Ok(root) => root,
            Err(e) => {
                let at = Span::new(file, e.span.start..e.span.end).at();
                self.problems.push(format!("{at}: invalid TOML: {e}"));
                return;
            }
        };
        let Some(table) = root.as_table() else { return };
        if let Some(env) = table.get("env").and_then(Value::as_table) {
            for (key, value) in env {
                let value_text = match value.as_ref() {
                    ValueInner::String(s) => s.to_string(),
                    ValueInner::Table(t) => t
                        .get("value")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    other => other.type_str().to_string(),
                };
                self.env.push(EnvEntry {
                    name: key.name.to_string(),
                    value: value_text,
                    at: Span::new(file, key.span.start..key.span.end),
                });
            }
        }
        if let Some(target) = table
            .get("build")
            .and_then(Value::as_table)
            .and_then(|b| b.get("target"))
        {
            self.build_target = match target.as_ref() {
                ValueInner::String(s) => Some(s.to_string()),
                ValueInner::Array(a) if a.len() == 1 => a[0].as_str().map(str::to_string),
                _ => None,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "cargo-flagsplit-config-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn every_level_and_the_command_line() {
        let top = dir("levels");
        let ws = top.join("ws");
        std::fs::create_dir_all(ws.join(".cargo")).unwrap();
        std::fs::create_dir_all(top.join(".cargo")).unwrap();
        std::fs::create_dir_all(top.join("home")).unwrap();
        std::fs::write(
            ws.join(".cargo/config.toml"),
            "[env]\nTLS_A_TLS_PROVIDR = \"none\"\nX = { value = \"y\", force = true }\n[build]\ntarget = \"aarch64-unknown-linux-gnu\"\n",
        )
        .unwrap();
        std::fs::write(top.join(".cargo/config"), "[env]\nFROM_PARENT = \"1\"\n").unwrap();
        std::fs::write(top.join("home/config.toml"), "env.FROM_HOME = \"2\"\n").unwrap();
        std::fs::write(ws.join("extra.toml"), "[env]\nFROM_FILE = \"3\"\n").unwrap();
        let c = read(
            &ws,
            Some(&top.join("home")),
            &[
                "env.RUST_BACKEND_ZLIBB=\"system\"".into(),
                "extra.toml".into(),
            ],
        );
        let names: Vec<(&str, &str)> = c
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("FROM_HOME", "2"),
                ("FROM_PARENT", "1"),
                ("TLS_A_TLS_PROVIDR", "none"),
                ("X", "y"),
                ("RUST_BACKEND_ZLIBB", "system"),
                ("FROM_FILE", "3")
            ]
        );
        assert_eq!(
            c.env[2].at.at(),
            format!("{}:2:1", ws.join(".cargo/config.toml").display())
        );
        assert_eq!(c.env[4].at.at(), "--config #1:1:5");
        assert_eq!(c.build_target.as_deref(), Some("aarch64-unknown-linux-gnu"));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        std::fs::remove_dir_all(top).unwrap();
    }

    #[test]
    fn a_bad_file_is_a_problem() {
        let d = dir("bad");
        std::fs::create_dir_all(d.join(".cargo")).unwrap();
        std::fs::write(d.join(".cargo/config.toml"), "[env\n").unwrap();
        let c = read(&d, None, &[]);
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(c.problems[0].contains("invalid TOML"));
        std::fs::remove_dir_all(d).unwrap();
    }
}

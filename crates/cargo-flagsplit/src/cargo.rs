//! Runs `cargo build --message-format=json-render-diagnostics` and collects what the report
//! needs from its messages: the build scripts' `OUT_DIR`s and the executables.

use crate::args::BuildArgs;
use crate::model::Copy;
use anyhow::{Context, Result};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// A build script that ran (or was fresh) in the build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptRun {
    pub package_id: String,
    pub out_dir: PathBuf,
}

/// An executable the build produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    pub name: String,
    pub package_id: String,
    pub path: PathBuf,
}

/// What the build's messages said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages {
    pub scripts: Vec<ScriptRun>,
    pub executables: Vec<Artifact>,
}

impl Messages {
    /// Takes one line of Cargo's standard output; returns false for a line that is no JSON
    /// message (the caller passes it on).
    pub fn take(&mut self, line: &str) -> bool {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        match message.get("reason").and_then(Value::as_str) {
            Some("build-script-executed") => {
                if let (Some(id), Some(out_dir)) =
                    (text(&message, "package_id"), text(&message, "out_dir"))
                {
                    let out_dir = PathBuf::from(out_dir);
                    if !self.scripts.iter().any(|s| s.out_dir == out_dir) {
                        self.scripts.push(ScriptRun {
                            package_id: id,
                            out_dir,
                        });
                    }
                }
            }
            Some("compiler-artifact") => {
                let exe = text(&message, "executable");
                let target = message.get("target");
                let is_bin = target
                    .and_then(|t| t.get("kind"))
                    .and_then(Value::as_array)
                    .is_some_and(|k| k.iter().any(|k| k == "bin"));
                let name = target.and_then(|t| text(t, "name"));
                if let (Some(path), Some(name), Some(id), true) =
                    (exe, name, text(&message, "package_id"), is_bin)
                {
                    let path = PathBuf::from(path);
                    if !self.executables.iter().any(|e| e.path == path) {
                        self.executables.push(Artifact {
                            name,
                            package_id: id,
                            path,
                        });
                    }
                }
            }
            _ => {}
        }
        true
    }
}

/// Runs the build: Cargo's rendered diagnostics and progress go to standard error as they come.
pub fn build(args: &BuildArgs) -> Result<(ExitStatus, Messages)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .arg("build")
        .args(args.cargo_args())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(&cargo).display()))?;
    let mut messages = Messages::default();
    if let Some(stdout) = child.stdout.take() {
        let stderr = std::io::stderr();
        for line in BufReader::new(stdout).lines() {
            let line = line.context("cannot read cargo's output")?;
            if !messages.take(&line) {
                let _ = writeln!(stderr.lock(), "{line}");
            }
        }
    }
    let status = child.wait().context("cannot wait for cargo")?;
    Ok((status, messages))
}

/// The messages of a build already made, saved by `cargo build --message-format=json...`: every
/// line that is a message is taken, the others (rendered diagnostics) are skipped.
pub fn read_messages(file: &Path) -> Result<Messages> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the messages file {}", file.display()))?;
    let mut messages = Messages::default();
    let mut any = false;
    for line in text.lines() {
        any |= messages.take(line);
    }
    anyhow::ensure!(
        any,
        "{} holds no Cargo JSON message: save them with `cargo build --message-format=json-render-diagnostics ... > {}`",
        file.display(),
        file.display()
    );
    Ok(messages)
}

/// The name and version in a package id: `path+file:///ws/tls-a#0.1.0`,
/// `registry+https://...#serde@1.0.0`, `path+file:///ws/x#name@0.1.0`, or the old
/// `name 0.1.0 (source)`.
pub fn package_name_version(id: &str) -> (String, String) {
    if let Some((url, fragment)) = id.rsplit_once('#') {
        if let Some((name, version)) = fragment.split_once('@') {
            return (name.to_string(), version.to_string());
        }
        let url = url.split('?').next().unwrap_or(url);
        let name = url.trim_end_matches('/').rsplit('/').next().unwrap_or(url);
        return (name.to_string(), fragment.to_string());
    }
    let mut words = id.split(' ');
    let name = words.next().unwrap_or(id).to_string();
    let version = words.next().unwrap_or("").to_string();
    (name, version)
}

/// Which copy a build script's `OUT_DIR` belongs to: under `--target T` the target's units sit in
/// `<target-dir>/T/<profile>/build/<unit>/out`, the host's in `<target-dir>/<profile>/build/...`.
pub fn copy_of(out_dir: &Path, target: Option<&str>) -> Copy {
    let Some(target) = target else {
        return Copy::Target;
    };
    // A target given as a JSON specification is named by its file stem.
    let triple = if target.ends_with(".json") {
        Path::new(target)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(target)
    } else {
        target
    };
    let parts: Vec<&str> = out_dir
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    match parts.iter().rposition(|p| *p == "build") {
        Some(i) if i >= 2 && parts[i - 2] == triple => Copy::Target,
        _ => Copy::Host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_ids() {
        assert_eq!(
            package_name_version("path+file:///ws/tls-a#0.1.0"),
            ("tls-a".into(), "0.1.0".into())
        );
        assert_eq!(
            package_name_version("path+file:///ws/crates/cli#flagsplit-cli@0.1.0"),
            ("flagsplit-cli".into(), "0.1.0".into())
        );
        assert_eq!(
            package_name_version(
                "registry+https://github.com/rust-lang/crates.io-index#serde@1.0.229"
            ),
            ("serde".into(), "1.0.229".into())
        );
        assert_eq!(
            package_name_version("tls-a 0.1.0 (path+file:///ws/tls-a)"),
            ("tls-a".into(), "0.1.0".into())
        );
    }

    #[test]
    fn host_and_target_copies() {
        let t = Some("x86_64-unknown-linux-gnu");
        assert_eq!(
            copy_of(Path::new("/t/debug/build/tls-a-1/out"), None),
            Copy::Target
        );
        assert_eq!(
            copy_of(Path::new("/t/debug/build/tls-a-1/out"), t),
            Copy::Host
        );
        assert_eq!(
            copy_of(
                Path::new("/t/x86_64-unknown-linux-gnu/debug/build/tls-a-2/out"),
                t
            ),
            Copy::Target
        );
        // A target directory whose own path holds the triple.
        assert_eq!(
            copy_of(
                Path::new("/x86_64-unknown-linux-gnu/t/debug/build/tls-a-1/out"),
                t
            ),
            Copy::Host
        );
    }

    #[test]
    fn messages_saved_by_a_build() {
        let dir =
            std::env::temp_dir().join(format!("cargo-flagsplit-messages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("m.json");
        std::fs::write(
            &file,
            "warning: something rendered\n{\"reason\":\"build-script-executed\",\"package_id\":\"path+file:///ws/tls-a#0.1.0\",\"out_dir\":\"/t/debug/build/tls-a-1/out\"}\n",
        )
        .unwrap();
        let m = read_messages(&file).unwrap();
        assert_eq!(m.scripts.len(), 1);
        std::fs::write(&file, "not json\n").unwrap();
        let e = read_messages(&file).unwrap_err().to_string();
        assert!(e.contains("holds no Cargo JSON message"), "{e}");
        assert!(read_messages(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn messages() {
        let mut m = Messages::default();
        assert!(m.take(r#"{"reason":"build-script-executed","package_id":"path+file:///ws/tls-a#0.1.0","linked_libs":[],"linked_paths":[],"cfgs":[],"env":[],"out_dir":"/t/debug/build/tls-a-1/out"}"#));
        assert!(m.take(r#"{"reason":"compiler-artifact","package_id":"path+file:///ws/app#0.1.0","target":{"kind":["bin"],"name":"app"},"executable":"/t/debug/app","fresh":true}"#));
        assert!(m.take(r#"{"reason":"compiler-artifact","package_id":"path+file:///ws/app#0.1.0","target":{"kind":["custom-build"],"name":"build-script-build"},"executable":null}"#));
        assert!(m.take(r#"{"reason":"build-finished","success":true}"#));
        assert!(!m.take("not json"));
        assert_eq!(m.scripts.len(), 1);
        assert_eq!(
            m.scripts[0].out_dir,
            PathBuf::from("/t/debug/build/tls-a-1/out")
        );
        assert_eq!(
            m.executables,
            [Artifact {
                name: "app".into(),
                package_id: "path+file:///ws/app#0.1.0".into(),
                path: "/t/debug/app".into()
            }]
        );
    }
}

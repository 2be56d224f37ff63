//! Cargo's JSON messages of a build (cargo_metadata's message types): run by `cargo build
//! --message-format=json-render-diagnostics`, or read from a file a package recipe saved. Only a
//! whole stream of a build that succeeded is taken: every line a Cargo message, the last one
//! `build-finished` with `success: true`.

use crate::args::BuildArgs;
use crate::diag::{Code, Diagnostic};
use anyhow::{Context, Result};
use cargo_metadata::{Message, TargetKind};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// A build script that ran (or was fresh) in the build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptRun {
    pub package_id: String,
    pub out_dir: PathBuf,
    /// Its `rustc-link-lib` directives, as Cargo reports them (`static=crypto`, `ssl`).
    pub linked_libs: Vec<String>,
    /// Its `rustc-link-search` directives (`native=/usr/lib`, `/opt/lib`).
    pub linked_paths: Vec<String>,
}

/// An executable the build produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    pub name: String,
    pub package_id: String,
    pub path: PathBuf,
}

/// What a build's messages said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Build {
    pub scripts: Vec<ScriptRun>,
    pub executables: Vec<Artifact>,
    /// The features each compiled package had (every unit of it but its build script).
    pub features: BTreeMap<String, BTreeSet<String>>,
    /// `build-finished`'s `success`, once per build-finished message.
    pub finished: Vec<bool>,
    /// How many messages came after the last `build-finished`.
    pub after_finish: usize,
}

impl Build {
    /// Takes one message.
    pub fn take(&mut self, message: Message) {
        if !self.finished.is_empty() {
            self.after_finish += 1;
        }
        match message {
            Message::BuildScriptExecuted(s) => {
                let out_dir = PathBuf::from(s.out_dir.as_std_path());
                if !self.scripts.iter().any(|x| x.out_dir == out_dir) {
                    self.scripts.push(ScriptRun {
                        package_id: s.package_id.repr,
                        out_dir,
                        linked_libs: s.linked_libs.iter().map(|l| l.to_string()).collect(),
                        linked_paths: s.linked_paths.iter().map(|l| l.to_string()).collect(),
                    });
                }
            }
            Message::CompilerArtifact(a) => {
                if a.target.kind.contains(&TargetKind::CustomBuild) {
                    return;
                }
                self.features
                    .entry(a.package_id.repr.clone())
                    .or_default()
                    .extend(a.features.iter().cloned());
                if let (Some(exe), true) = (&a.executable, a.target.kind.contains(&TargetKind::Bin))
                {
                    let path = PathBuf::from(exe.as_std_path());
                    if !self.executables.iter().any(|e| e.path == path) {
                        self.executables.push(Artifact {
                            name: a.target.name.clone(),
                            package_id: a.package_id.repr.clone(),
                            path,
                        });
                    }
                }
            }
            Message::BuildFinished(f) => {
                self.finished.push(f.success);
                self.after_finish = 0;
            }
            _ => {}
        }
    }

    /// The stream is whole and its build succeeded: exactly one `build-finished`, last, with
    /// `success: true`. `what` names the stream in messages.
    pub fn complete(&self, what: &str) -> Result<(), Diagnostic> {
        match self.finished.as_slice() {
            [] => Err(Diagnostic::error(
                Code::IncompleteMessages,
                format!("{what} does not end in Cargo's `build-finished` message: it was cut short, or the build was interrupted"),
            )
            .note("fix", "save the whole standard output of one `cargo build --message-format=json-render-diagnostics` that finished")),
            [false] => Err(Diagnostic::error(
                Code::FailedBuild,
                format!("{what} is of a build that failed (`build-finished` with `success: false`)"),
            )
            .note("fix", "check the messages of a build that succeeded")),
            [true] if self.after_finish == 0 => Ok(()),
            [true] => Err(Diagnostic::error(
                Code::IncompleteMessages,
                format!("{what} goes on after its `build-finished` message ({} more)", self.after_finish),
            )
            .note("fix", "save one build's messages to the file, not several appended")),
            many => Err(Diagnostic::error(
                Code::IncompleteMessages,
                format!("{what} holds the messages of {} builds", many.len()),
            )
            .note("fix", "save one build's messages to the file, not several appended")),
        }
    }
}

/// One line of Cargo's standard output: a message, a JSON object with a `reason` this reader
/// does not know (taken as a message of a newer Cargo, and skipped), or no message.
fn parse(line: &str) -> Option<Option<Message>> {
    match serde_json::from_str::<Message>(line) {
        Ok(m) => Some(Some(m)),
        Err(_) => match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(o))
                if o.get("reason").is_some_and(serde_json::Value::is_string) =>
            {
                Some(None)
            }
            _ => None,
        },
    }
}

/// Runs the build: Cargo's rendered diagnostics and progress go to standard error as they come.
pub fn build(args: &BuildArgs) -> Result<(ExitStatus, Build)> {
    let mut command = vec!["build".to_string()];
    command.extend(args.cargo_args());
    let (status, build, _) = run(&command, &[], true)?;
    Ok((status, build))
}

/// Runs `cargo ARGS` with `env` added, reading the messages on its standard output (the
/// command must ask for `--message-format=json-render-diagnostics`). Other lines of its standard
/// output (a test's) go to this process's standard output, or to standard error when `quiet`
/// keeps standard output for one document; its standard error is passed on as it comes and
/// returned too, for the caller to read what failed.
pub fn run(
    args: &[String],
    env: &[(String, String)],
    quiet: bool,
) -> Result<(ExitStatus, Build, String)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(&cargo).display()))?;
    let stderr_pipe = child.stderr.take();
    let tee = std::thread::spawn(move || {
        let mut kept = String::new();
        if let Some(pipe) = stderr_pipe {
            let err = std::io::stderr();
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let _ = writeln!(err.lock(), "{line}");
                kept.push_str(&line);
                kept.push('\n');
            }
        }
        kept
    });
    let mut build = Build::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.context("cannot read cargo's output")?;
            match parse(&line) {
                Some(Some(m)) => build.take(m),
                Some(None) => {}
                None if quiet => {
                    let _ = writeln!(std::io::stderr().lock(), "{line}");
                }
                None => {
                    let _ = writeln!(std::io::stdout().lock(), "{line}");
                }
            }
        }
    }
    let status = child.wait().context("cannot wait for cargo")?;
    let kept = tee.join().unwrap_or_default();
    Ok((status, build, kept))
}

/// The messages of a build already made, saved by `cargo build
/// --message-format=json-render-diagnostics > FILE`: every line must be a Cargo message, and the
/// stream whole ([`Build::complete`]).
pub fn read_messages(file: &Path) -> Result<Build, Diagnostic> {
    let text = std::fs::read(file).map_err(|e| {
        Diagnostic::error(
            Code::MessagesUnreadable,
            format!("cannot read the messages file {}: {e}", file.display()),
        )
        .note(
            "fix",
            "give the file a package recipe saved with `cargo build --message-format=json-render-diagnostics > FILE`",
        )
    })?;
    parse_messages(&text, &file.display().to_string())
}

/// As [`read_messages`], of the file `name`'s bytes.
pub fn parse_messages(text: &[u8], name: &str) -> Result<Build, Diagnostic> {
    let mut build = Build::default();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let parsed = std::str::from_utf8(line).ok().and_then(parse);
        match parsed {
            Some(Some(m)) => build.take(m),
            Some(None) => {}
            None => {
                let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
                return Err(Diagnostic::error(
                    Code::NotAMessage,
                    format!("{name}:{}: not a Cargo JSON message: {shown}", i + 1),
                )
                .note("fix", "save only Cargo's standard output with --message-format=json-render-diagnostics (its diagnostics and progress go to standard error)"));
            }
        }
    }
    build.complete(&format!("the messages file {name}"))?;
    Ok(build)
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
pub fn copy_of(out_dir: &Path, target: Option<&str>) -> crate::model::Copy {
    use crate::model::Copy;
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
    use crate::model::Copy;

    const SCRIPT: &str = r#"{"reason":"build-script-executed","package_id":"path+file:///ws/tls-a#0.1.0","linked_libs":["static=crypto"],"linked_paths":["native=/usr/lib"],"cfgs":[],"env":[],"out_dir":"/t/debug/build/tls-a-1/out"}"#;
    const BIN: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///ws/app#0.1.0","manifest_path":"/ws/app/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"app","src_path":"/ws/app/src/main.rs","edition":"2021","doc":true,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":2,"debug_assertions":true,"overflow_checks":true,"test":false},"features":["default"],"filenames":["/t/debug/app"],"executable":"/t/debug/app","fresh":true}"#;
    const DONE: &str = r#"{"reason":"build-finished","success":true}"#;

    fn file(name: &str, text: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("cargo-flagsplit-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("m.json");
        std::fs::write(&f, text).unwrap();
        f
    }

    #[test]
    fn a_whole_stream() {
        let f = file(
            "whole",
            &format!("{SCRIPT}\n{BIN}\n{{\"reason\":\"future-thing\"}}\n{DONE}\n"),
        );
        let b = read_messages(&f).unwrap();
        assert_eq!(b.scripts[0].linked_libs, ["static=crypto"]);
        assert_eq!(b.scripts[0].linked_paths, ["native=/usr/lib"]);
        assert_eq!(
            b.executables,
            [Artifact {
                name: "app".into(),
                package_id: "path+file:///ws/app#0.1.0".into(),
                path: "/t/debug/app".into()
            }]
        );
        assert_eq!(
            b.features["path+file:///ws/app#0.1.0"],
            BTreeSet::from(["default".to_string()])
        );
    }

    #[test]
    fn what_is_refused() {
        let code = |name: &str, text: &str| read_messages(&file(name, text)).unwrap_err().code;
        assert_eq!(code("array", "[1,2,3]\n"), Code::NotAMessage);
        assert_eq!(
            code("rendered", &format!("warning: unused\n{DONE}\n")),
            Code::NotAMessage
        );
        assert_eq!(
            code("half", &format!("{SCRIPT}\n{}", &BIN[..40])),
            Code::NotAMessage
        );
        assert_eq!(
            code("cut", &format!("{SCRIPT}\n{BIN}\n")),
            Code::IncompleteMessages
        );
        assert_eq!(code("empty", ""), Code::IncompleteMessages);
        assert_eq!(
            code(
                "failed",
                "{\"reason\":\"build-finished\",\"success\":false}\n"
            ),
            Code::FailedBuild
        );
        assert_eq!(
            code("two", &format!("{DONE}\n{BIN}\n{DONE}\n")),
            Code::IncompleteMessages
        );
        assert_eq!(
            code("after", &format!("{DONE}\n{BIN}\n")),
            Code::IncompleteMessages
        );
        let e = read_messages(Path::new("/nonexistent/m.json")).unwrap_err();
        assert_eq!(e.code, Code::MessagesUnreadable);
        let e = read_messages(&file("line", &format!("{SCRIPT}\n[1,2,3]\n"))).unwrap_err();
        assert!(
            e.message
                .ends_with("m.json:2: not a Cargo JSON message: [1,2,3]"),
            "{}",
            e.message
        );
    }

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
}

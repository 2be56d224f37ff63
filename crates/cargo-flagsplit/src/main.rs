//! `cargo flagsplit`: builds with Cargo (or reads the messages of a build already made), then
//! reports what every crate that uses flagsplit-config selected for each facility (and why),
//! every C library each executable carries and the crate that linked it, and the settings of
//! the environment that no crate reads; `cargo flagsplit check --policy FILE` checks a policy
//! against the same data and fails closed. The modules are the library's (`lib.rs` lists their
//! layers); this file joins them and decides the exit status.

use anyhow::{Context, Result};
use args::{Args, Mode};
use cargo_flagsplit::{
    args, binaries, cargo, cargo_config, collect, diag, each, environment, inspect, metadata,
    model, policy, render,
};
use diag::{Class, Diagnostic, JsonDiagnostic, Severity};
use model::{Report, SCHEMA};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match args::parse(std::env::args_os()) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The `--json` document.
#[derive(Serialize)]
struct Document<'a> {
    schema: u32,
    /// `report` or `check`.
    command: &'static str,
    policy: Option<String>,
    /// `reported`, `holds`, `broken`, or `refused` (the input could not be trusted).
    outcome: &'static str,
    errors: usize,
    warnings: usize,
    report: Option<&'a Report>,
    diagnostics: Vec<JsonDiagnostic>,
}

/// How the run ends: the diagnostics decide the status.
struct Finish<'a> {
    args: &'a Args,
    diags: Vec<Diagnostic>,
    rules: usize,
}

impl Finish<'_> {
    fn done(mut self, report: Option<&Report>) -> Result<ExitCode> {
        // Refusals first, then errors, then the rest, each in the order found.
        self.diags.sort_by_key(|d| {
            (
                !d.refuses(),
                std::cmp::Reverse(d.severity),
                d.code.class() == Class::Refusal,
            )
        });
        if self.args.deny_warnings {
            for d in &mut self.diags {
                if d.severity == Severity::Warning {
                    d.severity = Severity::Error;
                }
            }
        }
        let refused = self.diags.iter().any(Diagnostic::refuses);
        let errors = self
            .diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = self
            .diags
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        let check = match &self.args.mode {
            Mode::Check { policy, .. } => Some(policy.display().to_string()),
            Mode::Report | Mode::Inspect { .. } | Mode::Each(_) => None,
        };
        let outcome = match (&check, refused, errors) {
            (_, true, _) => "refused",
            (None, false, _) => "reported",
            (Some(_), false, 0) => "holds",
            (Some(_), false, _) => "broken",
        };
        if self.args.json {
            let doc = Document {
                schema: SCHEMA,
                command: if check.is_some() { "check" } else { "report" },
                policy: check.clone(),
                outcome,
                errors,
                warnings,
                report,
                diagnostics: self.diags.iter().map(JsonDiagnostic::from).collect(),
            };
            println!("{}", serde_json::to_string_pretty(&doc)?);
        } else {
            if let (Some(r), None) = (report, &check) {
                print!("{}", render::text(r));
            }
            let styled = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            for d in &self.diags {
                eprintln!("{}\n", d.render(styled));
            }
            if let Some(policy) = &check {
                let what = match report {
                    Some(r) => format!(
                        "{} rule(s), {} crate(s), {} executable(s)",
                        self.rules,
                        r.crates.len(),
                        r.executables.len()
                    ),
                    None => format!("{} rule(s)", self.rules),
                };
                match outcome {
                    "holds" => eprintln!("policy {policy}: holds ({what}; {warnings} warning(s))"),
                    "broken" => eprintln!(
                        "policy {policy}: broken: {errors} error(s), {warnings} warning(s) ({what})"
                    ),
                    _ => eprintln!(
                        "policy {policy}: not checked: the input cannot be trusted ({errors} error(s))"
                    ),
                }
            }
        }
        Ok(ExitCode::from(if refused {
            2
        } else if errors > 0 {
            1
        } else {
            0
        }))
    }
}

/// The host's triple, as rustc says it.
fn host_triple() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output().ok()?;
    String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
}

fn run(args: &Args) -> Result<ExitCode> {
    let mut finish = Finish {
        args,
        diags: Vec::new(),
        rules: 0,
    };
    if let Mode::Inspect { paths, format } = &args.mode {
        return run_inspect(paths, *format);
    }
    if let Mode::Each(each_args) = &args.mode {
        return Ok(ExitCode::from(each::run(each_args)?));
    }
    // The policy is read before the build, so that a bad file fails at once.
    let policy = match &args.mode {
        Mode::Check { policy, .. } => match policy::parse::read(policy) {
            Ok(p) => {
                finish.rules = p.len();
                Some(p)
            }
            Err(errors) => {
                finish.diags = errors;
                return finish.done(None);
            }
        },
        Mode::Report | Mode::Inspect { .. } | Mode::Each(_) => None,
    };
    if let (
        Mode::Check {
            binaries: Some(paths),
            ..
        },
        Some(policy),
    ) = (&args.mode, &policy)
    {
        return check_binaries(finish, policy, paths);
    }
    let build = match &args.messages {
        Some(file) => match cargo::read_messages(file) {
            Ok(b) => b,
            Err(d) => {
                finish.diags.push(d);
                return finish.done(None);
            }
        },
        None => {
            let (status, build) = cargo::build(&args.build)?;
            if !status.success() {
                let code = status.code().unwrap_or(101);
                return Ok(ExitCode::from(u8::try_from(code).unwrap_or(101)));
            }
            if let Err(d) = build.complete("cargo's output") {
                finish.diags.push(d);
                return finish.done(None);
            }
            build
        }
    };
    let workspace = match metadata::workspace(&args.build) {
        Ok(w) => w,
        Err(d) => {
            finish.diags.push(d);
            return finish.done(None);
        }
    };
    // The environment the build had, and the directory its Cargo config files are read from.
    let (env, cwd) = match (&args.messages, &args.build_env) {
        (None, _) => (
            Some(
                std::env::vars_os()
                    .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                    .collect::<Vec<_>>(),
            ),
            std::env::current_dir().context("cannot tell the current directory")?,
        ),
        (Some(_), Some(file)) => match std::fs::read(file) {
            Ok(bytes) => (
                Some(environment::parse_env_file(&bytes)),
                workspace.root.clone(),
            ),
            Err(e) => {
                finish.diags.push(
                    Diagnostic::error(
                        diag::Code::UnreadableBuildEnv,
                        format!(
                            "cannot read the build's environment {}: {e}",
                            file.display()
                        ),
                    )
                    .note("fix", "save it beside the build with `env -0 > FILE`"),
                );
                return finish.done(None);
            }
        },
        (Some(_), None) => (None, workspace.root.clone()),
    };
    let config = env.as_ref().map(|env| {
        cargo_config::read(
            &cwd,
            cargo_config::cargo_home(env).as_deref(),
            &args.build.config,
        )
    });
    let platform = args
        .build
        .target
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.build_target.clone()))
        .or_else(host_triple);
    let graph = match metadata::graph(
        &args.build,
        &workspace,
        &build.features,
        platform.as_deref(),
    ) {
        Ok(g) => g,
        Err(d) => {
            finish.diags.push(d);
            return finish.done(None);
        }
    };
    if let Some(file) = &args.messages
        && let Some(d) = foreign(&build, &workspace, &graph, file)
    {
        finish.diags.push(d);
        return finish.done(None);
    }
    let (crates, d) = collect::crates(&build, args.build.target.as_deref());
    finish.diags.extend(d);
    if let Some(file) = &args.messages {
        finish
            .diags
            .extend(collect::not_stale(&build, &crates, file));
    }
    let (executables, d) = collect::executables(&build, &crates, &graph);
    finish.diags.extend(d);
    let mut report = Report {
        target: args.build.target.clone(),
        crates,
        executables,
        settings: Vec::new(),
    };
    match (&env, &config) {
        (Some(env), Some(config)) => {
            let mut triples: Vec<&str> = report.crates.iter().map(|c| c.options.target.as_str()).collect();
            triples.extend(platform.as_deref());
            triples.retain(|t| !t.is_empty());
            triples.sort_unstable();
            triples.dedup();
            let severity = match args.mode {
                Mode::Check { .. } => Severity::Error,
                Mode::Report | Mode::Inspect { .. } | Mode::Each(_) => Severity::Warning,
            };
            for p in &config.problems {
                finish.diags.push(
                    Diagnostic::new(
                        diag::Code::UnreadableCargoConfig,
                        severity,
                        format!("Cargo's configuration: {p}"),
                    )
                    .note("fix", "correct the file: Cargo refuses it too"),
                );
            }
            let mut found: Vec<environment::Found<'_>> = env
                .iter()
                .map(|(name, value)| environment::Found {
                    name,
                    value,
                    at: None,
                })
                .collect();
            found.extend(config.env.iter().map(|e| environment::Found {
                name: &e.name,
                value: &e.value,
                at: Some(&e.at),
            }));
            let graph_file = env
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .chain(config.env.iter().map(|e| (e.name.as_str(), e.value.as_str())))
                .find(|(n, _)| *n == flagsplit_config::graph::CONFIG)
                .map(|(_, v)| (v, std::fs::read_to_string(v).map_err(|e| e.to_string())));
            let (settings, d) = environment::check(&found, graph_file, &report.crates, &triples, severity);
            report.settings = settings;
            finish.diags.extend(d);
        }
        _ => finish.diags.push(
            Diagnostic::new(
                diag::Code::EnvironmentNotChecked,
                Severity::Note,
                "the build's environment was not checked: --messages reads a build made elsewhere, whose variables this process does not have",
            )
            .note("fix", "save the build's environment beside its messages (`env -0 > FILE`) and pass --build-env FILE"),
        ),
    }
    if let Some(policy) = &policy
        && !finish.diags.iter().any(|d| d.refuses())
    {
        let vocab = policy::eval::Vocabulary {
            built: build
                .features
                .keys()
                .chain(build.scripts.iter().map(|s| &s.package_id))
                .map(|id| cargo::package_name_version(id).0)
                .collect(),
            locked: workspace.package_names().map(str::to_string).collect(),
            bins: workspace.bins.clone(),
        };
        for f in policy::eval::evaluate(policy, &report, &vocab) {
            finish.diags.push(policy::render::diagnostic(&f));
        }
    }
    finish.done(Some(&report))
}

/// `cargo flagsplit inspect`: exit 1 when a file could not be read (the others are printed).
fn run_inspect(paths: &[std::path::PathBuf], format: args::Format) -> Result<ExitCode> {
    let scan = binaries::scan(paths);
    match format {
        args::Format::Text => print!("{}", inspect::text(&scan)),
        args::Format::Json => println!("{}", serde_json::to_string_pretty(&inspect::json(&scan))?),
        args::Format::CycloneDx => {
            println!(
                "{}",
                serde_json::to_string_pretty(&inspect::cyclonedx(&scan))?
            )
        }
    }
    let failed = scan.binaries.iter().filter(|b| b.error.is_some()).count();
    if failed > 0 {
        eprintln!(
            "error: {failed} of {} file(s) could not be read",
            scan.binaries.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `cargo flagsplit check --binaries`: the policy against the executables' records. It fails
/// closed: a file that cannot be read or whose record is damaged, or one with no record (unless
/// the policy allows it), refuses the check (exit 2).
fn check_binaries(
    mut finish: Finish<'_>,
    policy: &policy::Policy,
    paths: &[std::path::PathBuf],
) -> Result<ExitCode> {
    let scan = binaries::scan(paths);
    for b in &scan.binaries {
        if let Some(e) = &b.error {
            finish.diags.push(
                Diagnostic::error(diag::Code::UnreadableRecord, format!("{}: {e}", b.path)).note(
                    "fix",
                    "check the file itself: a damaged or truncated executable cannot be judged",
                ),
            );
        } else if b.crates.is_empty() && !policy.allow_without_record {
            finish.diags.push(
                Diagnostic::error(
                    diag::Code::NoRecord,
                    format!("{} carries no build record: what it links statically cannot be seen", b.path),
                )
                .note("note", format!("its dynamic section: {}", match &b.needed {
                    Some(n) if !n.is_empty() => format!("NEEDED {}", n.join(", ")),
                    Some(_) => "no NEEDED entry".to_string(),
                    None => "none (a static executable)".to_string(),
                }))
                .note("fix", "build it with flagsplit-config 0.5 or later (its libraries' build_info.rs places the record), or add `[binaries] without-record = \"allow\"` to the policy to judge such files by their dynamic section"),
            );
        }
    }
    if scan.binaries.is_empty() {
        finish.diags.push(
            Diagnostic::error(
                diag::Code::UnreadableRecord,
                format!(
                    "no executable found in {}",
                    paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .note("fix", "name the executables, or directories that hold them"),
        );
    }
    let report = binaries::report(&scan.binaries);
    if !finish.diags.iter().any(|d| d.refuses()) {
        // The executables given are some of a package's: the others a rule's `only` names are
        // taken as the package's (absent here, a warning), since no build says which exist.
        let vocab = policy::eval::Vocabulary {
            bins: report
                .executables
                .iter()
                .map(|e| e.name.clone())
                .chain(
                    policy
                        .libraries
                        .iter()
                        .flat_map(|r| r.only.iter().flatten())
                        .map(|f| f.value.clone()),
                )
                .collect(),
            ..Default::default()
        };
        for f in policy::eval::evaluate(policy, &report, &vocab) {
            finish.diags.push(policy::render::diagnostic(&f));
        }
    }
    finish.done(Some(&report))
}

/// With `--messages`: the packages of the messages that are not the workspace's.
fn foreign(
    build: &cargo::Build,
    workspace: &metadata::Workspace,
    graph: &metadata::Graph,
    file: &Path,
) -> Option<Diagnostic> {
    let ids: std::collections::BTreeSet<&str> = build
        .scripts
        .iter()
        .map(|s| s.package_id.as_str())
        .chain(build.executables.iter().map(|e| e.package_id.as_str()))
        .chain(build.features.keys().map(String::as_str))
        .collect();
    let alien: Vec<&str> = ids
        .into_iter()
        .filter(|id| {
            let (name, version) = cargo::package_name_version(id);
            !workspace.holds(graph, id, &name, &version)
        })
        .collect();
    if alien.is_empty() {
        return None;
    }
    let shown: Vec<&str> = alien.iter().take(3).copied().collect();
    Some(
        diag::Diagnostic::error(
            diag::Code::ForeignMessages,
            format!(
                "{} holds {} package(s) that are not in the workspace of {}: {}{}",
                file.display(),
                alien.len(),
                workspace.manifest.display(),
                shown.join(", "),
                if alien.len() > shown.len() { ", ..." } else { "" }
            ),
        )
        .note("note", "a package belongs when Cargo.lock lists it and, for a path package, the workspace's package graph has it at that path")
        .note("fix", "give the manifest of the workspace that was built with --manifest-path (a package recipe: the unpacked source's), or the messages of its own build"),
    )
}

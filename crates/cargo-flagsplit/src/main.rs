//! `cargo flagsplit`: builds with Cargo, then reports what every crate that uses flagsplit-config
//! selected for each facility (and why), what each executable links, and the graph-wide settings
//! nothing reads; `cargo flagsplit check --policy FILE` checks a policy against the same data.

mod args;
mod cargo;
mod elf;
mod graph;
mod model;
mod policy;
mod render;

use anyhow::Result;
use args::{Args, Mode};
use model::{CrateReport, Executable, OPTIONS_SCHEMA, Options, Report, SCHEMA};
use std::collections::BTreeSet;
use std::process::ExitCode;

/// The file each flagsplit-config build script writes to its `OUT_DIR`.
const OPTIONS_FILE: &str = "flagsplit-config.json";

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

fn run(args: &Args) -> Result<ExitCode> {
    // The policy is read before the build, so that a bad file fails at once.
    let policy = match &args.mode {
        Mode::Check { policy } => match policy::read(policy) {
            Ok(p) => Some(p),
            Err(errors) => {
                for e in errors {
                    eprintln!("{e}");
                }
                return Ok(ExitCode::from(2));
            }
        },
        Mode::Report { .. } => None,
    };
    let messages = match &args.build.messages {
        Some(file) => cargo::read_messages(file)?,
        None => {
            let (status, messages) = cargo::build(&args.build)?;
            if !status.success() {
                let code = status.code().unwrap_or(101);
                return Ok(ExitCode::from(u8::try_from(code).unwrap_or(101)));
            }
            messages
        }
    };
    let (report, problems) = collect(args, &messages);
    match (&args.mode, policy) {
        (Mode::Report { json: true }, _) => {
            if report.crates.is_empty() {
                eprintln!("{}", render::NO_CRATE);
            }
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
        (Mode::Check { policy: path }, Some(policy)) => {
            // What could not be read would pass every rule unseen: the check stops instead.
            if !problems.is_empty() {
                for p in &problems {
                    eprintln!("error: {p}");
                }
                eprintln!(
                    "error: the policy was not checked: {} file(s) of the build could not be read (rebuild, or check the target directory)",
                    problems.len()
                );
                return Ok(ExitCode::from(2));
            }
            if report.crates.is_empty() {
                // The [[libraries]] rules still apply to the executables.
                println!("{}", render::NO_CRATE);
            }
            let outcome = policy::evaluate(&policy, &report);
            for v in &outcome.violations {
                println!("{v}\n");
            }
            for w in report.warnings.iter().chain(&outcome.warnings) {
                println!("warning: {w}");
            }
            let what = format!(
                "{} rule(s), {} crate(s), {} executable(s)",
                policy.len(),
                report.crates.len(),
                report.executables.len()
            );
            if outcome.violations.is_empty() {
                println!("policy {}: holds ({what})", path.display());
            } else {
                println!(
                    "policy {}: {} error(s) ({what})",
                    path.display(),
                    outcome.violations.len()
                );
                return Ok(ExitCode::from(1));
            }
        }
        _ => print!("{}", render::text(&report)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The report from the build's messages, the files they name and the environment, and what
/// could not be read (warnings of the report; errors of a policy check).
fn collect(args: &Args, messages: &cargo::Messages) -> (Report, Vec<String>) {
    let mut warnings = Vec::new();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    for script in &messages.scripts {
        let path = script.out_dir.join(OPTIONS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            // Not a flagsplit-config crate (or one older than 0.4.0).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && script.out_dir.is_dir() => {
                continue;
            }
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", path.display()));
                continue;
            }
        };
        let options: Options = match serde_json::from_str(&text) {
            Ok(o) => o,
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", path.display()));
                continue;
            }
        };
        read.push((script, options));
    }
    // Which copy is the target's: `--target`, or else the triple a crate was built for when its
    // OUT_DIR lies under `<target-dir>/<triple>/` (a target set in Cargo's configuration, or the
    // saved messages of such a build).
    let target = args.build.target.clone().or_else(|| {
        read.iter()
            .map(|(_, o)| o.target.as_str())
            .find(|t| {
                !t.is_empty()
                    && read
                        .iter()
                        .any(|(s, _)| s.out_dir.components().any(|c| c.as_os_str() == *t))
            })
            .map(String::from)
    });
    let mut crates = Vec::new();
    for (script, options) in read {
        let path = script.out_dir.join(OPTIONS_FILE);
        if options.schema != OPTIONS_SCHEMA {
            warnings.push(format!(
                "{} has schema {}, this cargo-flagsplit reads schema {OPTIONS_SCHEMA}: update it",
                path.display(),
                options.schema
            ));
        }
        let (name, version) = cargo::package_name_version(&script.package_id);
        crates.push(CrateReport {
            name,
            version,
            package_id: script.package_id.clone(),
            build: cargo::copy_of(&script.out_dir, target.as_deref()),
            out_dir: script.out_dir.display().to_string(),
            options,
        });
    }
    crates.sort_by(|a, b| (&a.name, a.build, &a.version).cmp(&(&b.name, b.build, &b.version)));
    let mut executables = Vec::new();
    for a in &messages.executables {
        let needed = match elf::needed(&a.path) {
            Ok(n) => n,
            Err(e) => {
                problems.push(format!("{:#}", e));
                Vec::new()
            }
        };
        executables.push(Executable {
            name: a.name.clone(),
            package: cargo::package_name_version(&a.package_id).0,
            path: a.path.display().to_string(),
            needed,
        });
    }
    executables.sort_by(|a, b| (&a.name, &a.path).cmp(&(&b.name, &b.path)));

    let keys: BTreeSet<String> = crates
        .iter()
        .flat_map(|c| c.options.graph_reads.iter().cloned())
        .collect();
    let mut triples: Vec<&str> = crates.iter().map(|c| c.options.target.as_str()).collect();
    if let Some(t) = &args.build.target {
        triples.push(t);
    }
    triples.sort_unstable();
    triples.dedup();
    let env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let config_path = env
        .iter()
        .find(|(k, _)| k == flagsplit_config::graph::CONFIG)
        .map(|(_, v)| v.clone());
    let config = config_path
        .as_deref()
        .map(|p| (p, std::fs::read_to_string(p).map_err(|e| e.to_string())));
    let readers = graph::Readers { keys: &keys };
    let (graph_settings, graph_warnings) = graph::settings(&env, &triples, config, &readers);
    warnings.extend(graph_warnings);
    // In a report, what could not be read is a warning.
    warnings.extend(problems.iter().cloned());
    let report = Report {
        schema: SCHEMA,
        target: args.build.target.clone(),
        crates,
        executables,
        graph_settings,
        warnings,
    };
    (report, problems)
}

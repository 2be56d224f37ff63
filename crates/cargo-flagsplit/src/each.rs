//! `cargo flagsplit each`: one discovery build, compiled as the command compiles
//! ([`discovery_subcommand`]) with its package, feature and target flags, records every facility
//! of the graph; `plan` chooses the runs; each run is the
//! command with the variables and features of its selections, and is then proven: the selections
//! its build scripts recorded (`flagsplit-config.json`) must be the planned ones, or the run fails
//! naming the origin that won. A run whose provider's C library is missing fails with the
//! library's message, or with `--skip-unavailable` is reported as skipped, never passed.

use crate::args::BuildArgs;
use crate::cargo::{self, Build};
use crate::cargo_config;
use crate::collect;
use crate::metadata;
use crate::model::CrateReport;
use crate::plan::{self, Filters, Plan, Run, Strategy};
use crate::policy;
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::time::Instant;

/// `each`'s options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EachArgs {
    pub strategy: Strategy,
    pub filters: Filters,
    pub print_plan: bool,
    pub json: bool,
    pub keep_going: bool,
    pub skip_unavailable: bool,
    pub fail_on_skip: bool,
    /// A policy whose `[[deny]]` and `[[require]]` rules narrow the plan.
    pub policy: Option<std::path::PathBuf>,
    /// The Cargo command, its subcommand first (`test --workspace`).
    pub command: Vec<String>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Passed,
    /// Cargo failed.
    Failed,
    /// Cargo succeeded, but a selection was not the planned one.
    WrongSelection,
    /// A planned provider's C library is missing (`--skip-unavailable`).
    Skipped,
    /// Not run: an earlier run failed (without `--keep-going`).
    NotRun,
}

/// One run's result.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub run: usize,
    pub selection: String,
    pub outcome: Outcome,
    /// Cargo's exit status.
    pub exit: Option<i32>,
    pub seconds: f64,
    /// What went wrong, one line each.
    pub problems: Vec<String>,
}

/// The `--json` document.
#[derive(Serialize)]
struct Document<'a> {
    schema: u32,
    command: &'static str,
    cargo: &'a [String],
    plan: &'a Plan,
    results: &'a [RunResult],
    /// `crate:facility:provider` of every provider no run exercised.
    never_exercised: Vec<String>,
    /// Those that only skipped runs selected.
    skipped_only: Vec<String>,
    outcome: &'static str,
}

/// The package, workspace, feature and configuration flags of a Cargo command, which the
/// discovery build and the proof of each run must share with it.
pub fn selection_args(command: &[String]) -> Result<BuildArgs> {
    let mut b = BuildArgs::default();
    let mut it = command.iter().skip(1);
    while let Some(arg) = it.next() {
        if arg == "--" {
            break;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let takes_value = matches!(
            flag,
            "--manifest-path"
                | "-p"
                | "--package"
                | "--exclude"
                | "-F"
                | "--features"
                | "--target"
                | "--config"
                | "--target-dir"
                | "--profile"
                | "--bin"
                | "--test"
                | "--example"
                | "--bench"
                | "--message-format"
        );
        let value = if takes_value {
            match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .with_context(|| format!("{flag} in the Cargo command has no value"))?,
            }
        } else {
            String::new()
        };
        match flag {
            "--manifest-path" => b.manifest.manifest_path = Some(value.into()),
            "-p" | "--package" => b.workspace.package.push(value),
            "--exclude" => b.workspace.exclude.push(value),
            "-F" | "--features" => b.features.features.push(value),
            "--target" => b.target = Some(value),
            "--config" => b.config.push(value),
            "--target-dir" => b.target_dir = Some(value),
            "--message-format" => bail!(
                "the Cargo command sets --message-format: `cargo flagsplit each` sets it to read each run's build records; leave it out"
            ),
            "--profile" => b.profile = Some(value),
            // Which targets: the discovery build compiles the same ones.
            "--lib" | "--bins" | "--tests" | "--examples" | "--benches" | "--all-targets"
            | "--doc" => b.passthrough.push(flag.to_string()),
            "--bin" | "--test" | "--example" | "--bench" => {
                b.passthrough.push(flag.to_string());
                b.passthrough.push(value);
            }
            "--release" | "-r" => b.release = true,
            "--workspace" | "--all" => b.workspace.workspace = true,
            "--all-features" => b.features.all_features = true,
            "--no-default-features" => b.features.no_default_features = true,
            "--locked" => b.locked = true,
            "--offline" => b.offline = true,
            "--frozen" => b.frozen = true,
            _ => {}
        }
    }
    Ok(b)
}

/// The discovery build's subcommand: the command's own for `test` and `bench`, with `--no-run`
/// (what the first run then reuses, compiled with the same features), `check` for a command that
/// only checks, `build` for the others.
pub fn discovery_subcommand(command: &[String]) -> &'static [&'static str] {
    match command.first().map(String::as_str) {
        Some("test" | "t") => &["test", "--no-run"],
        Some("bench") => &["bench", "--no-run"],
        Some("check" | "c" | "clippy" | "doc" | "d" | "rustdoc" | "fix") | None => &["check"],
        Some(_) => &["build"],
    }
}

/// The discovery build ([`discovery_subcommand`]) with the command's selection, then every
/// flagsplit-config crate's record.
pub fn discover(subcommand: &[&str], selection: &BuildArgs) -> Result<Vec<CrateReport>> {
    let mut args: Vec<String> = subcommand.iter().map(|s| s.to_string()).collect();
    args.extend(selection.cargo_args());
    let (status, build, _) = cargo::run(&args, &[], true).context("the discovery build")?;
    if !status.success() {
        bail!(
            "the discovery build (`cargo {}`) failed: the command must build with nothing set before its providers can be planned",
            args.join(" ")
        );
    }
    let (crates, diags) = collect::crates(&build, selection.target.as_deref());
    if let Some(d) = diags.first() {
        bail!(
            "the discovery build's records cannot be read: {}",
            d.message
        );
    }
    Ok(crates)
}

/// The plan for the command: discovery, then [`plan::plan`].
pub fn make_plan(args: &EachArgs, selection: &BuildArgs) -> Result<Plan> {
    let crates = discover(discovery_subcommand(&args.command), selection)?;
    let workspace = metadata::workspace(selection).map_err(|d| anyhow::anyhow!("{}", d.message))?;
    let facilities = plan::facilities(&crates, |id| workspace.members.contains(id));
    let mut filters = args.filters.clone();
    if let Some(path) = &args.policy {
        filters.excluded = policy_exclusions(path, &crates)?;
    }
    Ok(plan::plan(&facilities, args.strategy, &filters)?)
}

/// The providers a policy's `[[deny]]` and `[[require]]` rules rule out, in the discovery build's
/// crates. A rule that applies to no facility is an error: it would narrow nothing.
pub fn policy_exclusions(
    path: &std::path::Path,
    crates: &[CrateReport],
) -> Result<Vec<plan::Excluded>> {
    let policy = policy::parse::read(path).map_err(|errors| {
        anyhow::anyhow!(
            "the policy {} cannot be read: {}",
            path.display(),
            errors
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    let mut out = Vec::new();
    for rule in &policy.selections {
        let mut applied = false;
        for c in crates {
            for f in &c.options.facilities {
                if !policy::eval::applies(rule, c, f) {
                    continue;
                }
                applied = true;
                for p in &f.providers {
                    let matches = rule.choice.value.is(p);
                    let ruled_out = match rule.which {
                        policy::Which::Deny => matches,
                        policy::Which::Require => !matches,
                    };
                    let excluded = plan::Excluded {
                        crate_name: c.name.clone(),
                        facility: f.name.clone(),
                        provider: p.name.clone(),
                        rule: format!(
                            "[[{}]] {} at {}",
                            rule.which.table(),
                            rule.describe(),
                            rule.table.at()
                        ),
                    };
                    if ruled_out && !out.contains(&excluded) {
                        out.push(excluded);
                    }
                }
            }
        }
        if !applied {
            bail!(
                "the policy's [[{}]] {} at {} applies to no facility of this build: fix its kind or crate",
                rule.which.table(),
                rule.describe(),
                rule.table.at()
            );
        }
    }
    Ok(out)
}

/// The command with `--message-format` after its subcommand, and `--features` for the run.
fn run_command(command: &[String], run: &Run) -> Vec<String> {
    let mut out = vec![
        command[0].clone(),
        "--message-format=json-render-diagnostics".to_string(),
    ];
    // The features go before a `--`, whose arguments are the test binaries' or clippy's.
    let rest = &command[1..];
    let split = rest.iter().position(|a| a == "--").unwrap_or(rest.len());
    out.extend(rest[..split].iter().cloned());
    if !run.features.is_empty() {
        out.push("--features".to_string());
        out.push(run.features.join(","));
    }
    out.extend(rest[split..].iter().cloned());
    out
}

/// Where an `[env]` entry of Cargo's configuration sets `name`, for the proof's message.
fn env_entry(config: &cargo_config::CargoConfig, name: &str) -> Option<String> {
    config.env.iter().rev().find(|e| e.name == name).map(|e| {
        format!(
            "the [env] entry `{} = \"{}\"` at {}",
            e.name,
            e.value,
            e.at.at()
        )
    })
}

/// The proof of one run: each planned selection, in every copy of its crate the run built.
pub fn verify(
    run: &Run,
    crates: &[CrateReport],
    config: &cargo_config::CargoConfig,
) -> Vec<String> {
    let mut problems = Vec::new();
    for pick in &run.picks {
        let copies: Vec<&CrateReport> = crates
            .iter()
            .filter(|c| c.name == pick.crate_name)
            .collect();
        if copies.is_empty() {
            problems.push(format!(
                "{} was not built by this run, so its facility {} was not exercised",
                pick.crate_name, pick.facility
            ));
            continue;
        }
        for c in copies {
            let Some(f) = c
                .options
                .facilities
                .iter()
                .find(|f| f.name == pick.facility)
            else {
                problems.push(format!(
                    "{} recorded no facility {}",
                    pick.crate_name, pick.facility
                ));
                continue;
            };
            if f.selected == pick.provider {
                continue;
            }
            let mut who = f.worded_origin();
            if let Some(name) = &f.origin_name
                && let Some(entry) = env_entry(config, name)
            {
                who = format!("{who}: {entry}");
            }
            problems.push(format!(
                "{}'s facility {} selected `{}`, but this run planned `{}` ({}={}): the selection came from {who}",
                pick.crate_name, pick.facility, f.selected, pick.provider, pick.variable, pick.provider
            ));
        }
    }
    problems
}

/// The C library a failed run's output says is missing: a build script of a crate whose
/// planned provider links it failed, and its error names the library. Cargo shows a build
/// script's `cargo::error` lines as `error: CRATE@VERSION: ...`, and a script that exited
/// non-zero after `failed to run custom build command for `CRATE VERSION``.
pub fn missing_library(run: &Run, plan: &Plan, stderr: &str) -> Option<(String, String)> {
    for pick in &run.picks {
        let directive = format!("error: {}@", pick.crate_name);
        let exited = format!(
            "failed to run custom build command for `{} ",
            pick.crate_name
        );
        let said: String = match stderr.find(&exited) {
            Some(at) => stderr[at..].to_string(),
            None => stderr
                .lines()
                .filter(|l| l.starts_with(&directive))
                .collect::<Vec<_>>()
                .join("\n"),
        };
        if said.is_empty() {
            continue;
        }
        let Some(facility) = plan
            .facilities
            .iter()
            .find(|f| f.crate_name == pick.crate_name && f.name == pick.facility)
        else {
            continue;
        };
        let Some(provider) = facility.providers.iter().find(|p| p.name == pick.provider) else {
            continue;
        };
        if let Some(lib) = provider
            .links
            .iter()
            .find(|lib| said.contains(lib.as_str()))
        {
            return Some((
                lib.clone(),
                format!("{}:{}={}", pick.crate_name, pick.facility, pick.provider),
            ));
        }
    }
    None
}

/// Runs the plan and prints the summary: the exit status (0 all passed; 1 a run failed, a
/// selection was wrong or a provider was never exercised; skips fail only with `--fail-on-skip`).
pub fn run(args: &EachArgs) -> Result<u8> {
    if args.command.is_empty() && !args.print_plan {
        bail!(
            "no Cargo command: give one after `--`, as in `cargo flagsplit each -- test --workspace`"
        );
    }
    let selection = selection_args(&args.command)?;
    let plan = make_plan(args, &selection)?;
    if args.print_plan {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&plan)?);
        } else {
            print!("{}", plan_text(&plan));
        }
        return Ok(0);
    }
    let cwd = std::env::current_dir().context("no current directory")?;
    let env: Vec<(String, String)> = std::env::vars().collect();
    let config = cargo_config::read(
        &cwd,
        cargo_config::cargo_home(&env).as_deref(),
        &selection.config,
    );
    let mut results: Vec<RunResult> = Vec::new();
    let mut stop = false;
    for run in &plan.runs {
        let label = run.label();
        if stop {
            results.push(RunResult {
                run: run.number,
                selection: label,
                outcome: Outcome::NotRun,
                exit: None,
                seconds: 0.0,
                problems: Vec::new(),
            });
            continue;
        }
        let command = run_command(&args.command, run);
        eprintln!(
            "cargo flagsplit each: run {}/{}: {label}\n  {}cargo {}",
            run.number,
            plan.runs.len(),
            run.env
                .iter()
                .map(|(k, v)| format!("{k}={v} "))
                .collect::<String>(),
            command.join(" ")
        );
        let start = Instant::now();
        let (status, build, stderr) = cargo::run(&command, &run.env, args.json)?;
        let seconds = start.elapsed().as_secs_f64();
        let mut result = RunResult {
            run: run.number,
            selection: label,
            outcome: Outcome::Passed,
            exit: status.code(),
            seconds,
            problems: Vec::new(),
        };
        if !status.success() {
            match missing_library(run, &plan, &stderr) {
                Some((lib, by)) if args.skip_unavailable => {
                    result.outcome = Outcome::Skipped;
                    result
                        .problems
                        .push(format!("skipped: {lib} not found (for {by})"));
                }
                Some((lib, by)) => {
                    result.outcome = Outcome::Failed;
                    result.problems.push(format!(
                        "{lib} not found (for {by}): install it, or pass --skip-unavailable to report this run as skipped"
                    ));
                }
                None => {
                    result.outcome = Outcome::Failed;
                    result.problems.push(format!("cargo exited with {status}"));
                }
            }
        } else {
            result.problems = prove(run, &build, &selection, &config);
            if !result.problems.is_empty() {
                result.outcome = Outcome::WrongSelection;
            }
        }
        if matches!(result.outcome, Outcome::Failed | Outcome::WrongSelection) && !args.keep_going {
            stop = true;
        }
        results.push(result);
    }
    let never = never_exercised(&plan, &results, false);
    let only_skipped = never_exercised(&plan, &results, true);
    let failed = results.iter().any(|r| {
        matches!(
            r.outcome,
            Outcome::Failed | Outcome::WrongSelection | Outcome::NotRun
        )
    }) || !never.is_empty();
    let skipped = results.iter().any(|r| r.outcome == Outcome::Skipped);
    let outcome = if failed {
        "failed"
    } else if skipped {
        "skipped"
    } else {
        "passed"
    };
    if args.json {
        let doc = Document {
            schema: 1,
            command: "each",
            cargo: &args.command,
            plan: &plan,
            results: &results,
            never_exercised: never.clone(),
            skipped_only: only_skipped,
            outcome,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", summary_text(&plan, &results, &never, &only_skipped));
    }
    Ok(if failed || (skipped && args.fail_on_skip) {
        1
    } else {
        0
    })
}

/// The records of a run that succeeded, against its plan.
fn prove(
    run: &Run,
    build: &Build,
    selection: &BuildArgs,
    config: &cargo_config::CargoConfig,
) -> Vec<String> {
    let (crates, diags) = collect::crates(build, selection.target.as_deref());
    let mut problems: Vec<String> = diags.into_iter().map(|d| d.message).collect();
    problems.extend(verify(run, &crates, config));
    problems
}

/// Every planned provider that no passed run selected (`skipped`: only those that a skipped run
/// selected; otherwise those no run passed or skipped with), and every provider the plan could
/// not reach: `crate:facility:provider (why)`.
pub fn never_exercised(plan: &Plan, results: &[RunResult], skipped_only: bool) -> Vec<String> {
    let mut out = Vec::new();
    for f in &plan.facilities {
        for p in &f.providers {
            let left = plan.left_out.iter().find(|l| {
                l.crate_name == f.crate_name && l.facility == f.name && l.provider == p.name
            });
            match left {
                Some(l) if l.why == "unreachable" && !skipped_only => {
                    out.push(format!(
                        "{}:{}:{} (unreachable: {})",
                        f.crate_name, f.name, p.name, l.detail
                    ));
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
            // Whether a run that ended `outcome` selected this provider.
            let selected_by = |outcome: Outcome| {
                plan.runs.iter().zip(results).any(|(run, r)| {
                    r.outcome == outcome
                        && run.picks.iter().any(|k| {
                            k.crate_name == f.crate_name
                                && k.facility == f.name
                                && k.provider == p.name
                        })
                })
            };
            let exercised = selected_by(Outcome::Passed);
            let skipped = selected_by(Outcome::Skipped);
            if !exercised && skipped == skipped_only {
                out.push(format!("{}:{}:{}", f.crate_name, f.name, p.name));
            }
        }
    }
    out
}

/// `--print-plan`'s text.
pub fn plan_text(plan: &Plan) -> String {
    let mut s = String::new();
    let facilities = plan.facilities.len();
    s.push_str(&format!(
        "{} run{} ({}) over {facilities} facilit{} and {} providers",
        plan.runs.len(),
        if plan.runs.len() == 1 { "" } else { "s" },
        match plan.strategy {
            Strategy::EachProvider => "each provider",
            Strategy::Pairwise => "pairwise",
        },
        if facilities == 1 { "y" } else { "ies" },
        plan.providers
    ));
    if plan.strategy == Strategy::Pairwise {
        s.push_str(&format!(
            ", covering {} of {} cross-facility pairs",
            plan.pairs_covered, plan.pairs
        ));
    }
    s.push_str(&format!(
        "; cargo hack --feature-powerset over the same provider features: {} runs\n",
        plan.powerset
    ));
    for run in &plan.runs {
        s.push_str(&format!("run {}: {}\n", run.number, run.label()));
        if !run.env.is_empty() {
            let env: Vec<String> = run.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!("  env: {}\n", env.join(" ")));
        }
        if !run.features.is_empty() {
            s.push_str(&format!("  --features {}\n", run.features.join(",")));
        }
    }
    for l in &plan.left_out {
        s.push_str(&format!(
            "left out: {}:{}:{} ({}: {})\n",
            l.crate_name, l.facility, l.provider, l.why, l.detail
        ));
    }
    s
}

/// The summary after the runs.
pub fn summary_text(
    plan: &Plan,
    results: &[RunResult],
    never: &[String],
    skipped_only: &[String],
) -> String {
    let mut s = String::from("cargo flagsplit each: summary\n");
    for r in results {
        let what = match r.outcome {
            Outcome::Passed => "passed",
            Outcome::Failed => "FAILED",
            Outcome::WrongSelection => "WRONG SELECTION",
            Outcome::Skipped => "skipped",
            Outcome::NotRun => "not run",
        };
        let exit = r
            .exit
            .map(|c| format!("exit {c}"))
            .unwrap_or_else(|| "-".to_string());
        s.push_str(&format!(
            "run {}/{}  {what:<15} {exit:<7} {:>7.1}s  {}\n",
            r.run,
            plan.runs.len(),
            r.seconds,
            r.selection
        ));
        for p in &r.problems {
            s.push_str(&format!("    {p}\n"));
        }
    }
    if !skipped_only.is_empty() {
        s.push_str(&format!(
            "not exercised, their runs skipped ({}): {}\n",
            skipped_only.len(),
            skipped_only.join(", ")
        ));
    }
    if never.is_empty() && skipped_only.is_empty() {
        s.push_str("every planned provider was exercised\n");
    } else if !never.is_empty() {
        s.push_str(&format!(
            "never exercised ({}): {}\n",
            never.len(),
            never.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_selection_flags_are_read_and_message_format_refused() {
        let cmd: Vec<String> = [
            "test",
            "--workspace",
            "--package=tls-a",
            "--features",
            "x/y",
            "--",
            "--nocapture",
            "-p",
            "z",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let b = selection_args(&cmd).unwrap();
        assert!(b.workspace.workspace);
        assert_eq!(b.workspace.package, vec!["tls-a"]);
        assert_eq!(b.features.features, vec!["x/y"]);
        assert_eq!(discovery_subcommand(&cmd), ["test", "--no-run"]);
        assert_eq!(discovery_subcommand(&["clippy".to_string()]), ["check"]);
        assert_eq!(discovery_subcommand(&["build".to_string()]), ["build"]);
        let targets: Vec<String> = ["test", "--lib", "--bin", "x", "--", "--lib"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            selection_args(&targets).unwrap().passthrough,
            ["--lib", "--bin", "x"]
        );
        let release: Vec<String> = ["build", "--profile", "ci", "-r"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let b = selection_args(&release).unwrap();
        assert_eq!((b.profile.as_deref(), b.release), (Some("ci"), true));
        let bad: Vec<String> = ["build", "--message-format", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(selection_args(&bad).is_err());
        let run = Run {
            number: 1,
            default: false,
            picks: Vec::new(),
            env: Vec::new(),
            features: vec!["a/b".into(), "c/d".into()],
        };
        assert_eq!(
            run_command(&cmd, &run),
            [
                "test",
                "--message-format=json-render-diagnostics",
                "--workspace",
                "--package=tls-a",
                "--features",
                "x/y",
                "--features",
                "a/b,c/d",
                "--",
                "--nocapture",
                "-p",
                "z"
            ]
        );
    }

    #[test]
    fn a_missing_library_is_named_only_when_the_crate_that_links_it_failed() {
        let facility = plan::Facility {
            crate_name: "xz-d".into(),
            name: "decompress".into(),
            kind: Some("xz".into()),
            variable: "XZ_D_DECOMPRESS_PROVIDER".into(),
            member: true,
            default: "none".into(),
            providers: vec![plan::Provider {
                name: "liblzma".into(),
                feature: Some("system".into()),
                compiled: true,
                links: vec!["liblzma".into()],
                answers_to: Some("system".into()),
                properties: Vec::new(),
            }],
        };
        let p = plan::plan(&[facility], Strategy::EachProvider, &Filters::default()).unwrap();
        let run = &p.runs[0];
        let out = "error: failed to run custom build command for `xz-d v0.1.0 (/ws/xz-d)`\n  liblzma could not be found: pkg-config knows no usable module liblzma\n";
        assert_eq!(
            missing_library(run, &p, out),
            Some(("liblzma".into(), "xz-d:decompress=liblzma".into()))
        );
        assert_eq!(
            missing_library(run, &p, "error[E0308]: mismatched types\n"),
            None
        );
        let other = "error: failed to run custom build command for `tls-a v0.1.0`\n liblzma\n";
        assert_eq!(missing_library(run, &p, other), None);
        let directive = "error: xz-d@0.1.0: liblzma could not be found: pkg-config knows no usable module liblzma\nerror: build script logged errors\n";
        assert_eq!(
            missing_library(run, &p, directive),
            Some(("liblzma".into(), "xz-d:decompress=liblzma".into()))
        );
        let unrelated = "error: xz-d@0.1.0: XZ_D_DECOMPRESS_PROVIDER=lzma: not a provider\n";
        assert_eq!(missing_library(run, &p, unrelated), None);
    }
}

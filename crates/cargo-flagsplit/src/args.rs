//! The command line: `cargo flagsplit [OPTIONS] [-- CARGO-ARGS]` and
//! `cargo flagsplit check --policy FILE [OPTIONS] [-- CARGO-ARGS]`. Every option may stand before
//! or after `check`. Cargo's manifest, package and feature flags are clap-cargo's, as Cargo
//! spells them; the other build flags Cargo takes are declared once, here.

use clap::{Arg, ArgAction, ArgMatches, Args as _, Command, FromArgMatches};
use std::ffi::OsString;
use std::path::PathBuf;

/// The flags passed on to `cargo build`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildArgs {
    pub manifest: clap_cargo::Manifest,
    pub workspace: clap_cargo::Workspace,
    pub features: clap_cargo::Features,
    pub target: Option<String>,
    pub release: bool,
    pub profile: Option<String>,
    pub bins: Vec<String>,
    pub all_bins: bool,
    pub target_dir: Option<String>,
    pub jobs: Option<String>,
    pub config: Vec<String>,
    pub locked: bool,
    pub offline: bool,
    pub frozen: bool,
    /// Everything after `--`, appended to `cargo build`'s arguments.
    pub passthrough: Vec<String>,
}

/// What to do after the build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Print the report.
    Report,
    /// Check the policy file: against a build, or with `--binaries` against executables' records.
    Check {
        policy: PathBuf,
        binaries: Option<Vec<PathBuf>>,
    },
    /// Read the build records of executables (files or directories).
    Inspect { paths: Vec<PathBuf>, format: Format },
    /// Run a Cargo command once per planned selection.
    Each(crate::each::EachArgs),
}

/// `inspect`'s output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    CycloneDx,
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    pub mode: Mode,
    pub build: BuildArgs,
    /// Read Cargo's JSON messages of a build already made from this file instead of building.
    pub messages: Option<PathBuf>,
    /// The environment of that build (`env -0 > FILE`), to check its settings.
    pub build_env: Option<PathBuf>,
    /// One JSON document on standard output.
    pub json: bool,
    /// `-D warnings`: warnings are errors.
    pub deny_warnings: bool,
}

impl BuildArgs {
    /// The arguments of `cargo build`, after `build`.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut out = vec!["--message-format=json-render-diagnostics".to_string()];
        let mut value = |flag: &str, v: &str| {
            out.push(flag.to_string());
            out.push(v.to_string());
        };
        if let Some(m) = &self.manifest.manifest_path {
            value("--manifest-path", &m.display().to_string());
        }
        for p in &self.workspace.package {
            value("--package", p);
        }
        for p in &self.workspace.exclude {
            value("--exclude", p);
        }
        for f in &self.features.features {
            value("--features", f);
        }
        if let Some(t) = &self.target {
            value("--target", t);
        }
        if let Some(p) = &self.profile {
            value("--profile", p);
        }
        for b in &self.bins {
            value("--bin", b);
        }
        if let Some(d) = &self.target_dir {
            value("--target-dir", d);
        }
        if let Some(j) = &self.jobs {
            value("--jobs", j);
        }
        for c in &self.config {
            value("--config", c);
        }
        let flags = [
            (
                self.workspace.workspace || self.workspace.all,
                "--workspace",
            ),
            (self.features.all_features, "--all-features"),
            (self.features.no_default_features, "--no-default-features"),
            (self.all_bins, "--bins"),
            (self.release, "--release"),
            (self.locked, "--locked"),
            (self.offline, "--offline"),
            (self.frozen, "--frozen"),
        ];
        out.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_string()));
        out.extend(self.passthrough.iter().cloned());
        out
    }

    /// The flags `cargo metadata` shares with the build: the manifest, the configuration and
    /// how the lock file and the network may be used.
    pub fn metadata_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.config {
            out.push("--config".to_string());
            out.push(c.clone());
        }
        for (on, flag) in [
            (self.locked, "--locked"),
            (self.offline, "--offline"),
            (self.frozen, "--frozen"),
        ] {
            if on {
                out.push(flag.to_string());
            }
        }
        out
    }
}

/// A `--name` switch.
fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn build_flags() -> Vec<Arg> {
    let value = |name: &'static str, value_name: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value_name).help(help)
    };
    vec![
        value("target", "TRIPLE", "Build for the target triple"),
        flag("release", "Build with the release profile"),
        value("profile", "PROFILE-NAME", "Build with the given profile"),
        value("bin", "NAME", "Build only the named binary").action(ArgAction::Append),
        flag("bins", "Build all binaries"),
        value("target-dir", "DIRECTORY", "Directory for all generated artifacts"),
        value("jobs", "N", "Number of parallel jobs").short('j'),
        value(
            "config",
            "KEY=VALUE|PATH",
            "Override a Cargo configuration value (its [env] entries are checked too)",
        )
        .action(ArgAction::Append),
        flag("locked", "Passed to Cargo: assert that Cargo.lock stays unchanged"),
        flag("offline", "Passed to Cargo: run without accessing the network"),
        flag("frozen", "Passed to Cargo: --locked and --offline"),
        Arg::new("messages")
            .long("messages")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "Build nothing: check the JSON messages of a build already made (the whole standard \
                 output of `cargo build --message-format=json-render-diagnostics`), which must be \
                 of the workspace --manifest-path names and not older than its executables; the \
                 build flags are then ignored but --target, --manifest-path and --config",
            ),
        Arg::new("build-env")
            .long("build-env")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "With --messages: the build's environment, saved beside it with `env -0 > FILE` \
                 (or `env > FILE`), whose settings are then checked as a build's are",
            ),
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print one JSON document on standard output (schema: the book's cargo flagsplit chapter, book/src/cargo-flagsplit.md)"),
        Arg::new("deny")
            .short('D')
            .long("deny")
            .value_name("warnings")
            .value_parser(["warnings"])
            .help("`-D warnings`: warnings are errors (exit 1)"),
        Arg::new("cargo-args")
            .num_args(0..)
            .last(true)
            .allow_hyphen_values(true)
            .value_name("CARGO-ARGS")
            .help("Arguments passed on to `cargo build`"),
    ]
}

/// The command's definition.
pub fn command() -> Command {
    let mut cmd = Command::new("cargo-flagsplit")
        .bin_name("cargo flagsplit")
        .about(
            "Builds, then reports what each flagsplit-config crate selected (provider and origin \
             per facility), every C library each executable carries and who linked it, and the \
             settings of the environment no crate reads",
        )
        .args(build_flags())
        .after_long_help(codes_help());
    cmd = clap_cargo::Manifest::augment_args(cmd);
    cmd = clap_cargo::Workspace::augment_args(cmd);
    cmd = clap_cargo::Features::augment_args(cmd);
    // Every option may stand on either side of `check`.
    cmd.mut_args(|a| a.global(true)).subcommand(
        Command::new("check")
            .about("Builds, then checks a policy file: exit 1 when it is broken, 2 when the input cannot be trusted")
            .arg(
                Arg::new("policy")
                    .long("policy")
                    .value_name("FILE")
                    .required(true)
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("The policy (TOML: [[deny]], [[require]], [[libraries]])"),
            )
            .arg(
                Arg::new("binaries")
                    .long("binaries")
                    .value_name("PATH")
                    .num_args(1..)
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("Build nothing: check the build records inside these executables (files, or directories searched for ELF files), the build flags ignored; one without a record is exit 2 unless the policy's [binaries] says `without-record = \"allow\"`"),
            ),
    )
    .subcommand(inspect_command())
    // Listed in the help only: `each` is parsed on its own ([`parse`]).
    .subcommand(Command::new("each").about(EACH_ABOUT))
}

const EACH_ABOUT: &str = "Runs a Cargo command once per planned selection of providers, so that every provider of every flagsplit-config facility of the build is selected at least once (or every pair of providers of two facilities, --pairwise), and proves each run got the selection it planned";

/// `cargo flagsplit each`, parsed on its own as `inspect` is: its options are its own, and the
/// Cargo command after `--` carries the package and feature flags.
pub fn each_command() -> Command {
    let list = |name: &'static str, value_name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_name(value_name)
            .action(ArgAction::Append)
            .help(help)
    };
    Command::new("each")
        .bin_name("cargo flagsplit each")
        .about(EACH_ABOUT)
        .after_long_help(
            "A discovery build (`cargo test --no-run` for test, `cargo bench --no-run` for bench, `cargo check` for \
             check, clippy and doc, `cargo build` for the others, with the command's --manifest-path, --package, \
             --workspace, --exclude, --features, --all-features, --no-default-features, --release, --profile, --target, \
             --config, --target-dir, --locked, --offline, --frozen and target flags) records every facility; each run then sets each facility's variable \
             (<PREFIX>_<FACILITY>_PROVIDER) and, for a provider not compiled by the build's features, \
             --features CRATE/FEATURE (workspace members only). After a run, the selections its build \
             scripts recorded are compared with the plan.\n\n\
             Exit status: 0 when every run passed; 1 when a run failed, got another selection than planned, \
             or a provider was never exercised (and, with --fail-on-skip, when a run was skipped); \
             2 when the plan cannot be made (the discovery build failed, or an option names nothing).",
        )
        .arg(flag("each-provider", "Every provider of every facility selected at least once, in as many runs as the largest facility has providers (the default)").conflicts_with("pairwise"))
        .arg(flag("pairwise", "Every pair of providers of two different facilities selected together at least once (a covering array)"))
        .arg(list("facility", "[CRATE:]FACILITY", "Plan only this facility (repeatable)"))
        .arg(list("kind", "KIND", "Plan only facilities of this kind (repeatable)"))
        .arg(list("skip", "[[CRATE:]FACILITY:]PROVIDER", "Never select this provider (repeatable); it is listed as left out"))
        .arg(list("keep", "[[CRATE:]FACILITY:]PROVIDER", "Select this provider in every run of its facility, the facility's others left out (repeatable): for a provider a policy requires"))
        .arg(flag("include-default", "One more run first, with nothing set: the build as its users get it"))
        .arg(
            Arg::new("policy")
                .long("policy")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Plan only what this policy allows: a provider a [[deny]] rule names, or that a [[require]] rule does not ask for, is left out (a rule that applies to no facility is an error)"),
        )
        .arg(flag("print-plan", "Print the runs (after the discovery build) and run nothing"))
        .arg(flag("json", "One JSON document on standard output: the plan, or the plan and each run's result (the command's own output then goes to standard error)"))
        .arg(flag("keep-going", "Go on after a run fails (the default stops at the first)"))
        .arg(flag("skip-unavailable", "A run that fails because a planned provider's C library is missing is reported as skipped, with the library, instead of failed"))
        .arg(flag("fail-on-skip", "Exit 1 when a run was skipped"))
        .arg(
            Arg::new("cargo-command")
                .num_args(0..)
                .last(true)
                .allow_hyphen_values(true)
                .value_name("CARGO-COMMAND")
                .help("The Cargo subcommand and its arguments: `test --workspace`, `clippy -- -D warnings`"),
        )
}

fn each_mode(m: &ArgMatches) -> crate::each::EachArgs {
    let strings = |name: &str| -> Vec<String> {
        m.get_many::<String>(name)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    crate::each::EachArgs {
        strategy: if m.get_flag("pairwise") {
            crate::plan::Strategy::Pairwise
        } else {
            crate::plan::Strategy::EachProvider
        },
        filters: crate::plan::Filters {
            facilities: strings("facility"),
            kinds: strings("kind"),
            skip: strings("skip"),
            keep: strings("keep"),
            include_default: m.get_flag("include-default"),
            excluded: Vec::new(),
        },
        print_plan: m.get_flag("print-plan"),
        json: m.get_flag("json"),
        keep_going: m.get_flag("keep-going"),
        skip_unavailable: m.get_flag("skip-unavailable"),
        fail_on_skip: m.get_flag("fail-on-skip"),
        policy: m.get_one::<PathBuf>("policy").cloned(),
        command: strings("cargo-command"),
    }
}

/// `cargo flagsplit inspect`, which takes none of the build's options: parsed on its own (see
/// [`parse`]), and listed in the main command's help.
pub fn inspect_command() -> Command {
    Command::new("inspect")
        .bin_name("cargo flagsplit inspect")
        .about("Reads the build record inside executables, with no source or build: each flagsplit-config crate's providers and origins, and the C libraries linked; without a record, the dynamic section")
        .arg(
            Arg::new("paths")
                .value_name("PATH")
                .num_args(1..)
                .required(true)
                .value_parser(clap::value_parser!(PathBuf))
                .help("Executables, or directories searched recursively for ELF files"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["text", "json", "cyclonedx"])
                .default_value("text")
                .help("text (as the report), json, or cyclonedx (a CycloneDX 1.5 JSON SBOM: the C libraries as components)"),
        )
}

/// The diagnostics' codes, for `--help`.
fn codes_help() -> String {
    let mut s = String::from(
        "Exit status: 0 when the policy holds (or the report is made), 1 when it is broken, 2 when the \
         input cannot be trusted or the command line is bad; Cargo's own status when the build fails.\n\n\
         Diagnostic codes (exit 2 for the first group's errors, 1 for the others'):\n",
    );
    let mut refusals = true;
    for c in crate::diag::Code::ALL {
        if refusals && c.class() == crate::diag::Class::Finding {
            s.push('\n');
            refusals = false;
        }
        s.push_str(&format!("  {:<26}{}\n", c.as_str(), c.doc()));
    }
    s
}

/// The arguments as given by Cargo (`cargo-flagsplit flagsplit ...`) or directly
/// (`cargo-flagsplit ...`): a first argument `flagsplit` is dropped.
pub fn strip_subcommand_name(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "flagsplit") {
        args.remove(1);
    }
    args
}

/// Parses the command line (program name first).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Args, clap::Error> {
    let args = strip_subcommand_name(args);
    if args.get(1).is_some_and(|a| a == "each") {
        let m = each_command().try_get_matches_from(args.into_iter().skip(1))?;
        return Ok(Args {
            mode: Mode::Each(each_mode(&m)),
            build: BuildArgs::default(),
            messages: None,
            build_env: None,
            json: false,
            deny_warnings: false,
        });
    }
    // `inspect` builds nothing: its own command, so that its help lists only its own options.
    if args.get(1).is_some_and(|a| a == "inspect") {
        let m = inspect_command().try_get_matches_from(args.into_iter().skip(1))?;
        return Ok(Args {
            mode: inspect_mode(&m),
            build: BuildArgs::default(),
            messages: None,
            build_env: None,
            json: false,
            deny_warnings: false,
        });
    }
    let matches = command().try_get_matches_from(args)?;
    from_matches(&matches)
}

fn inspect_mode(sub: &ArgMatches) -> Mode {
    Mode::Inspect {
        paths: sub
            .get_many::<PathBuf>("paths")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        format: match sub.get_one::<String>("format").map(String::as_str) {
            Some("json") => Format::Json,
            Some("cyclonedx") => Format::CycloneDx,
            _ => Format::Text,
        },
    }
}

fn from_matches(m: &ArgMatches) -> Result<Args, clap::Error> {
    let (mode, m) = match m.subcommand() {
        Some(("check", sub)) => (
            Mode::Check {
                policy: sub
                    .get_one::<PathBuf>("policy")
                    .cloned()
                    .unwrap_or_default(),
                binaries: sub
                    .get_many::<PathBuf>("binaries")
                    .map(|v| v.cloned().collect()),
            },
            sub,
        ),
        Some(("inspect", sub)) => (inspect_mode(sub), sub),
        _ => (Mode::Report, m),
    };
    let strings = |name: &str| -> Vec<String> {
        m.get_many::<String>(name)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let one = |name: &str| m.get_one::<String>(name).cloned();
    let build = BuildArgs {
        manifest: clap_cargo::Manifest::from_arg_matches(m)?,
        workspace: clap_cargo::Workspace::from_arg_matches(m)?,
        features: clap_cargo::Features::from_arg_matches(m)?,
        target: one("target"),
        release: m.get_flag("release"),
        profile: one("profile"),
        bins: strings("bin"),
        all_bins: m.get_flag("bins"),
        target_dir: one("target-dir"),
        jobs: one("jobs"),
        config: strings("config"),
        locked: m.get_flag("locked"),
        offline: m.get_flag("offline"),
        frozen: m.get_flag("frozen"),
        passthrough: strings("cargo-args"),
    };
    Ok(Args {
        mode,
        build,
        messages: m.get_one::<PathBuf>("messages").cloned(),
        build_env: m.get_one::<PathBuf>("build-env").cloned(),
        json: m.get_flag("json"),
        deny_warnings: m.get_one::<String>("deny").is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, clap::Error> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn the_definition_is_consistent() {
        command().debug_assert();
        inspect_command().debug_assert();
        each_command().debug_assert();
    }

    #[test]
    fn each_takes_its_plan_options_and_the_cargo_command() {
        let a = p(&[
            "cargo-flagsplit",
            "flagsplit",
            "each",
            "--pairwise",
            "--skip",
            "tls:openssl",
            "--keep-going",
            "--",
            "test",
            "--workspace",
        ])
        .unwrap();
        let Mode::Each(e) = a.mode else {
            panic!("{:?}", a.mode)
        };
        assert_eq!(e.strategy, crate::plan::Strategy::Pairwise);
        assert_eq!(e.filters.skip, vec!["tls:openssl"]);
        assert!(e.keep_going && !e.skip_unavailable);
        assert_eq!(e.command, vec!["test", "--workspace"]);
        assert!(p(&["cargo-flagsplit", "each", "--pairwise", "--each-provider"]).is_err());
    }

    #[test]
    fn inspect_and_binaries_take_paths() {
        let a = p(&[
            "cargo-flagsplit",
            "flagsplit",
            "inspect",
            "--format",
            "cyclonedx",
            "a",
            "dir",
        ])
        .unwrap();
        assert_eq!(
            a.mode,
            Mode::Inspect {
                paths: vec![PathBuf::from("a"), PathBuf::from("dir")],
                format: Format::CycloneDx,
            }
        );
        assert!(p(&["cargo-flagsplit", "inspect"]).is_err());
        let c = p(&[
            "cargo-flagsplit",
            "check",
            "--policy",
            "p.toml",
            "--binaries",
            "x",
            "y",
        ])
        .unwrap();
        assert_eq!(
            c.mode,
            Mode::Check {
                policy: PathBuf::from("p.toml"),
                binaries: Some(vec![PathBuf::from("x"), PathBuf::from("y")]),
            }
        );
    }

    #[test]
    fn cargo_passes_the_subcommand_name_first() {
        let a = p(&["cargo-flagsplit", "flagsplit", "--json", "--release"]).unwrap();
        assert_eq!(a.mode, Mode::Report);
        assert!(a.json && a.build.release);
        let direct = p(&["cargo-flagsplit", "--json", "--release"]).unwrap();
        assert_eq!(a, direct);
    }

    #[test]
    fn build_flags_become_cargo_build_arguments() {
        let a = p(&[
            "cargo-flagsplit",
            "flagsplit",
            "--features",
            "openssl-tls",
            "-F",
            "zlib-system",
            "--no-default-features",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--manifest-path",
            "ws/Cargo.toml",
            "-p",
            "app",
            "--locked",
            "--offline",
            "--profile",
            "rpm",
            "--bin",
            "app",
            "--target-dir",
            "/t",
            "-j",
            "1",
            "--config",
            "env.X=\"1\"",
            "--workspace",
            "--exclude",
            "lib",
            "--",
            "--timings",
            "-v",
        ])
        .unwrap();
        assert_eq!(
            a.build.cargo_args(),
            [
                "--message-format=json-render-diagnostics",
                "--manifest-path",
                "ws/Cargo.toml",
                "--package",
                "app",
                "--exclude",
                "lib",
                "--features",
                "openssl-tls",
                "--features",
                "zlib-system",
                "--target",
                "x86_64-unknown-linux-gnu",
                "--profile",
                "rpm",
                "--bin",
                "app",
                "--target-dir",
                "/t",
                "--jobs",
                "1",
                "--config",
                "env.X=\"1\"",
                "--workspace",
                "--no-default-features",
                "--locked",
                "--offline",
                "--timings",
                "-v",
            ]
        );
        assert_eq!(
            a.build.metadata_args(),
            ["--config", "env.X=\"1\"", "--locked", "--offline"]
        );
    }

    #[test]
    fn options_on_either_side_of_check() {
        let a = p(&[
            "cargo-flagsplit",
            "flagsplit",
            "--release",
            "--json",
            "check",
            "--policy",
            "p.toml",
            "--features",
            "x",
            "-D",
            "warnings",
        ])
        .unwrap();
        assert_eq!(
            a.mode,
            Mode::Check {
                policy: PathBuf::from("p.toml"),
                binaries: None,
            }
        );
        assert!(a.build.release && a.json && a.deny_warnings);
        assert_eq!(a.build.features.features, ["x"]);
        let b = p(&[
            "cargo-flagsplit",
            "check",
            "-D",
            "warnings",
            "--json",
            "--policy",
            "p.toml",
            "--release",
            "-F",
            "x",
        ])
        .unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn check_needs_a_policy_and_unknown_flags_fail() {
        assert!(p(&["cargo-flagsplit", "flagsplit", "check"]).is_err());
        assert!(p(&["cargo-flagsplit", "flagsplit", "--bogus"]).is_err());
        assert!(p(&["cargo-flagsplit", "-D", "everything"]).is_err());
    }
}

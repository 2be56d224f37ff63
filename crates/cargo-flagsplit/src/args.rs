//! The command line: `cargo flagsplit [BUILD FLAGS] [--json]` and
//! `cargo flagsplit check --policy FILE [BUILD FLAGS]`.

use clap::{Arg, ArgAction, ArgMatches, Command};
use std::ffi::OsString;
use std::path::PathBuf;

/// The flags passed on to `cargo build`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildArgs {
    pub features: Vec<String>,
    pub no_default_features: bool,
    pub all_features: bool,
    pub target: Option<String>,
    pub release: bool,
    pub manifest_path: Option<String>,
    pub packages: Vec<String>,
    pub locked: bool,
    pub offline: bool,
    pub frozen: bool,
    /// Read Cargo's JSON messages of a build already made from this file instead of building.
    pub messages: Option<PathBuf>,
}

/// What to do after the build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Print the report (`--json`: as one JSON document).
    Report { json: bool },
    /// Check the policy file.
    Check { policy: PathBuf },
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    pub mode: Mode,
    pub build: BuildArgs,
}

impl BuildArgs {
    /// The arguments of `cargo build`, after `build`.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut out = vec!["--message-format=json-render-diagnostics".to_string()];
        for f in &self.features {
            out.push("--features".into());
            out.push(f.clone());
        }
        let flags = [
            (self.no_default_features, "--no-default-features"),
            (self.all_features, "--all-features"),
            (self.release, "--release"),
            (self.locked, "--locked"),
            (self.offline, "--offline"),
            (self.frozen, "--frozen"),
        ];
        out.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_string()));
        if let Some(t) = &self.target {
            out.push("--target".into());
            out.push(t.clone());
        }
        if let Some(m) = &self.manifest_path {
            out.push("--manifest-path".into());
            out.push(m.clone());
        }
        for p in &self.packages {
            out.push("-p".into());
            out.push(p.clone());
        }
        out
    }
}

fn build_flags() -> Vec<Arg> {
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
            .global(true)
    };
    vec![
        Arg::new("features")
            .long("features")
            .short('F')
            .value_name("FEATURES")
            .action(ArgAction::Append)
            .help("Space or comma separated list of features to activate")
            .global(true),
        flag(
            "no-default-features",
            "Do not activate the `default` feature",
        ),
        flag("all-features", "Activate all available features"),
        Arg::new("target")
            .long("target")
            .value_name("TRIPLE")
            .help("Build for the target triple")
            .global(true),
        flag("release", "Build in release mode"),
        Arg::new("manifest-path")
            .long("manifest-path")
            .value_name("PATH")
            .help("Path to Cargo.toml")
            .global(true),
        Arg::new("package")
            .long("package")
            .short('p')
            .value_name("SPEC")
            .action(ArgAction::Append)
            .help("Package to build (see `cargo help pkgid`)")
            .global(true),
        flag("locked", "Passed to cargo build"),
        flag("offline", "Passed to cargo build"),
        flag("frozen", "Passed to cargo build"),
        Arg::new("messages")
            .long("messages")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "Build nothing: read the JSON messages of a build already made \
                 (`cargo build --message-format=json ... > FILE`, as a package recipe can save \
                 them); the build flags are then ignored but --target, which names the \
                 target's copies",
            )
            .global(true),
    ]
}

/// The command's definition.
pub fn command() -> Command {
    Command::new("cargo-flagsplit")
        .bin_name("cargo flagsplit")
        .about(
            "Builds, then reports what each flagsplit-config crate selected (provider and origin \
             per facility) and what each executable links",
        )
        .args(build_flags())
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print the report as one JSON document (schema: README.md)"),
        )
        .subcommand(
            Command::new("check")
                .about("Builds, then checks a policy file: exit 1 when it is broken")
                .arg(
                    Arg::new("policy")
                        .long("policy")
                        .value_name("FILE")
                        .required(true)
                        .value_parser(clap::value_parser!(PathBuf))
                        .help("The policy (TOML: [[deny]], [[require]], [[libraries]])"),
                ),
        )
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
    let matches = command().try_get_matches_from(strip_subcommand_name(args))?;
    Ok(from_matches(&matches))
}

fn from_matches(m: &ArgMatches) -> Args {
    let (mode, sub) = match m.subcommand() {
        Some(("check", sub)) => (
            Mode::Check {
                policy: sub
                    .get_one::<PathBuf>("policy")
                    .cloned()
                    .unwrap_or_default(),
            },
            Some(sub),
        ),
        _ => (
            Mode::Report {
                json: m.get_flag("json"),
            },
            None,
        ),
    };
    // Global arguments are propagated to the subcommand's matches.
    let m = sub.unwrap_or(m);
    let strings = |name: &str| -> Vec<String> {
        m.get_many::<String>(name)
            .map(|v| v.cloned().collect())
            .unwrap_or_default()
    };
    let build = BuildArgs {
        features: strings("features"),
        no_default_features: m.get_flag("no-default-features"),
        all_features: m.get_flag("all-features"),
        target: m.get_one::<String>("target").cloned(),
        release: m.get_flag("release"),
        manifest_path: m.get_one::<String>("manifest-path").cloned(),
        packages: strings("package"),
        locked: m.get_flag("locked"),
        offline: m.get_flag("offline"),
        frozen: m.get_flag("frozen"),
        messages: m.get_one::<PathBuf>("messages").cloned(),
    };
    Args { mode, build }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, clap::Error> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn cargo_passes_the_subcommand_name_first() {
        let a = p(&["cargo-flagsplit", "flagsplit", "--json", "--release"]).unwrap();
        assert_eq!(a.mode, Mode::Report { json: true });
        assert!(a.build.release);
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
        ])
        .unwrap();
        assert_eq!(
            a.build.cargo_args(),
            [
                "--message-format=json-render-diagnostics",
                "--features",
                "openssl-tls",
                "--features",
                "zlib-system",
                "--no-default-features",
                "--locked",
                "--offline",
                "--target",
                "x86_64-unknown-linux-gnu",
                "--manifest-path",
                "ws/Cargo.toml",
                "-p",
                "app",
            ]
        );
    }

    #[test]
    fn check_takes_the_policy_and_the_build_flags_on_either_side() {
        let a = p(&[
            "cargo-flagsplit",
            "flagsplit",
            "--release",
            "check",
            "--policy",
            "p.toml",
            "--features",
            "x",
        ])
        .unwrap();
        assert_eq!(
            a.mode,
            Mode::Check {
                policy: PathBuf::from("p.toml")
            }
        );
        assert!(a.build.release);
        assert_eq!(a.build.features, ["x"]);
    }

    #[test]
    fn check_needs_a_policy_and_unknown_flags_fail() {
        assert!(p(&["cargo-flagsplit", "flagsplit", "check"]).is_err());
        assert!(p(&["cargo-flagsplit", "flagsplit", "--bogus"]).is_err());
    }
}

//! A corpus of bad config files and bad variables, each with the exact error text that flagsplit's
//! facility table must produce through the resolver.
//!
//! Each `tests/config-corpus/NAME.toml` is given to the resolver as the file named by
//! `FLAGSPLIT_CONFIG` (`flagsplit.toml`). Lines starting with `#!` set the other inputs:
//! `#! features: openssl-sha1 rustls-tls` and `#! env: NAME=VALUE` (a `RUST_BACKEND_*` name is a
//! graph-wide variable); the target is x86_64 Linux. The resolver's complete
//! output — the selection, or every error — must equal `tests/config-corpus/NAME.expected`. Run
//! `FLAGSPLIT_BLESS=1 cargo test --test integration config_corpus::` to write the expected files
//! after an intended change, then review the diff.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use flagsplit::spec::SPEC;
use flagsplit_config::{ConfigFileInput, FeatureSet, Inputs, TargetCfg, resolve};

fn file(named: &str, contents: Result<String, String>) -> ConfigFileInput {
    ConfigFileInput::new(
        named,
        format!("FLAGSPLIT_CONFIG={named}"),
        format!("/pkg/{named}"),
        contents,
        "create the file (config.example.toml documents the format) or unset FLAGSPLIT_CONFIG; a relative path resolves against the package root, /pkg",
    )
}

fn default_features() -> FeatureSet {
    FeatureSet::from_names(&SPEC, ["rustls-tls"])
}

fn inputs(text: &str) -> Inputs {
    let mut features = FeatureSet::EMPTY;
    let mut env = BTreeMap::new();
    for line in text.lines() {
        if let Some(list) = line.strip_prefix("#! features:") {
            for name in list.split_whitespace() {
                let feature = SPEC
                    .features()
                    .into_iter()
                    .find(|f| *f == name)
                    .unwrap_or_else(|| panic!("unknown feature {name} in corpus header"));
                features = features.with(feature);
            }
        } else if let Some(pair) = line.strip_prefix("#! env:") {
            let (k, v) = pair.trim().split_once('=').expect("NAME=VALUE");
            env.insert(k.to_string(), Some(v.to_string()));
        }
    }
    {
        let mut i = Inputs::new(&SPEC);
        i.features = features;
        // The graph-wide variables go where a build script puts them.
        let (graph, own): (BTreeMap<_, _>, BTreeMap<_, _>) = env
            .into_iter()
            .partition(|(k, _)| k.contains("RUST_BACKEND_"));
        i.env = own;
        i.graph_env = graph;
        // Built for x86_64 Linux, as a build script reads it from Cargo's variables.
        i.target = "x86_64-unknown-linux-gnu".to_string();
        i.host = i.target.clone();
        i.cfg = TargetCfg::from_cargo_vars([
            ("CARGO_CFG_TARGET_OS", "linux"),
            ("CARGO_CFG_TARGET_ARCH", "x86_64"),
            ("CARGO_CFG_TARGET_FAMILY", "unix"),
            ("CARGO_CFG_UNIX", ""),
        ]);
        i.file = Some(file("flagsplit.toml", Ok(text.to_string())));
        i
    }
}

fn outcome(inputs: &Inputs) -> String {
    match resolve(inputs) {
        Err(errors) => format!("{errors}\n"),
        Ok(sel) => {
            let mut s = String::from("ok\n");
            for (f, c) in sel.iter() {
                let _ = writeln!(s, "{f} = {} ({})", c.provider, c.origin);
            }
            for w in &sel.warnings {
                let _ = writeln!(s, "warning: {w}");
            }
            s
        }
    }
}

#[test]
fn corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/config-corpus");
    let bless = std::env::var_os("FLAGSPLIT_BLESS").is_some();
    let mut cases: Vec<_> = fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "corpus went missing: {}", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let text = fs::read_to_string(&case).expect("read case");
        let got = outcome(&inputs(&text));
        let expected_path = case.with_extension("expected");
        if bless {
            fs::write(&expected_path, &got).expect("write expected");
            continue;
        }
        let expected = fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no .expected file", case.display()));
        if got != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- got\n{got}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unreadable_file_names_both_paths() {
    let inputs = {
        let mut i = Inputs::new(&SPEC);
        i.features = default_features();
        i.env = BTreeMap::from([(
            "FLAGSPLIT_CONFIG".to_string(),
            Some("nope.toml".to_string()),
        )]);
        i.file = Some(file(
            "nope.toml",
            Err("No such file or directory (os error 2)".into()),
        ));
        i
    };
    let text = resolve(&inputs).unwrap_err().to_string();
    assert_eq!(
        text,
        "FLAGSPLIT_CONFIG=nope.toml names a config file that cannot be read: /pkg/nope.toml: No such file or directory (os error 2)\n  fix: create the file (config.example.toml documents the format) or unset FLAGSPLIT_CONFIG; a relative path resolves against the package root, /pkg"
    );
}

#[test]
fn non_unicode_and_empty_variables() {
    let inputs = {
        let mut i = Inputs::new(&SPEC);
        i.features = default_features();
        i.env = BTreeMap::from([
            ("FLAGSPLIT_SHA1_PROVIDER".to_string(), None),
            ("FLAGSPLIT_MD5_PROVIDER".to_string(), Some(String::new())),
        ]);
        i.file = None;
        i
    };
    let text = resolve(&inputs).unwrap_err().to_string();
    assert_eq!(
        text,
        "FLAGSPLIT_MD5_PROVIDER is set but empty\n  fix: unset it, or set one of: builtin, openssl\nFLAGSPLIT_SHA1_PROVIDER is not valid UTF-8\n  fix: set it to one of the documented values, or unset it"
    );
}

/// The documented example must itself be a valid file (with the default features it selects
/// exactly the defaults, each from the file).
#[test]
fn config_example_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml");
    let text = fs::read_to_string(&path).expect("config.example.toml at the repository root");
    let inputs = {
        let mut i = Inputs::new(&SPEC);
        i.features = default_features();
        i.env = BTreeMap::new();
        i.file = Some(file("config.example.toml", Ok(text)));
        i
    };
    let selection = resolve(&inputs).unwrap_or_else(|e| panic!("{e}"));
    for (facility, choice) in selection.iter() {
        assert_eq!(
            choice.provider,
            facility
                .default_choice(SPEC.role, &default_features())
                .provider
        );
        assert!(
            choice
                .origin
                .to_string()
                .starts_with("config.example.toml:"),
            "{facility}"
        );
    }
}

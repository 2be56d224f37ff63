//! flagsplit-config's two config files (a crate's own, `[facility] provider = "..."`, and the
//! graph-wide one, `kind = "shared"`, each with `[target.<triple or cfg(...)>]` tables) through
//! the resolver, with flagsplit's facility table and an x86_64 Linux target, on arbitrary text:
//! never panics; a selection names providers of their facilities; every error renders, and the
//! positions it names lie in the text.
#![no_main]

use std::collections::BTreeMap;

use flagsplit_config::{ConfigError, ConfigFileInput, Inputs, Origin, TargetCfg, resolve};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = |named: &str| {
        ConfigFileInput::new(
            named,
            format!("X={named}"),
            named,
            Ok(text.to_string()),
            "fix",
        )
    };
    let mut inputs = Inputs::new(&flagsplit_spec::SPEC);
    inputs.target = "x86_64-unknown-linux-gnu".into();
    inputs.host = inputs.target.clone();
    inputs.cfg = TargetCfg::from_cargo_vars([
        ("CARGO_CFG_TARGET_OS", "linux"),
        ("CARGO_CFG_TARGET_ARCH", "x86_64"),
        ("CARGO_CFG_UNIX", ""),
    ]);
    inputs.env = BTreeMap::new();
    inputs.file = Some(file("crate.toml"));
    inputs.graph_file = Some(file("/graph.toml"));
    let lines = text.lines().count() as u32 + 1;
    match resolve(&inputs) {
        Ok(selection) => {
            for (facility, choice) in selection.iter() {
                assert!(facility.provider(choice.provider.name).is_some());
                if let Origin::File { line, .. } | Origin::GraphFile { line, .. } = choice.origin {
                    assert!(line >= 1 && line <= lines);
                }
            }
        }
        Err(errors) => {
            for e in &errors.0 {
                let shown = e.to_string();
                assert!(!shown.is_empty());
                if let ConfigError::Syntax { at, .. } | ConfigError::UnknownTable { at, .. } = e {
                    assert!(at.line >= 1 && at.line <= lines, "{shown}");
                }
            }
        }
    }
});

//! `version --build-options` of both binaries, as text and as JSON: the same facts, matching what
//! this build compiled in (each feature set of the test command checks its own build), and
//! `--all-knobs` is the generated knob table.

use std::collections::BTreeMap;
use std::process::Command;

use flagsplit::config::{Binary, Facility, Links, Provider};
use flagsplit::hash::BUILD_INFO;

fn run(binary: &str, args: &[&str]) -> String {
    let out = Command::new(binary).args(args).output().expect("run");
    assert!(
        out.status.success(),
        "{binary} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn check(binary: Binary, exe: &str, version_args: &[&str]) {
    let mut args = version_args.to_vec();
    args.push("--build-options");
    let text = run(exe, &args);
    args.push("--json");
    let json: serde_json::Value = serde_json::from_str(&run(exe, &args)).expect("valid JSON");

    assert_eq!(json["binary"], binary.name());
    assert_eq!(json["target"], BUILD_INFO.target);
    let lines: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(": ")).collect();
    for facility in Facility::ALL {
        let choice = BUILD_INFO.choice(facility);
        let entry = &json["providers"][facility.name()];
        assert_eq!(entry["provider"], choice.provider.name(), "{facility}");
        assert_eq!(entry["origin"], choice.origin, "{facility}");
        // The text says the same thing.
        let key = format!("{facility}-provider");
        assert_eq!(
            lines.get(key.as_str()).copied(),
            Some(format!("{} (from {})", choice.provider, choice.origin).as_str()),
            "{text}"
        );
    }
    let features = BUILD_INFO.feature_names();
    assert_eq!(json["features"], serde_json::json!(features));
    let links = Links::of(binary, |f| BUILD_INFO.provider(f));
    assert_eq!(json["links"]["libcrypto"], links.libcrypto);
    assert_eq!(json["links"]["libssl"], links.libssl);
    // "OpenSSL:" appears exactly when this binary links it, in both forms.
    assert_eq!(lines.contains_key("OpenSSL"), links.libcrypto, "{text}");
    assert_eq!(json["openssl"].is_string(), links.libcrypto);
    assert_eq!(
        json["collision_detection"],
        BUILD_INFO.provider(Facility::Sha1) == Provider::Dc
    );
    assert_eq!(
        lines.get("SHA-1").copied().is_some_and(|v| v == "SHA1_DC"),
        BUILD_INFO.provider(Facility::Sha1) == Provider::Dc
    );
}

#[test]
fn flagsplit_text_and_json_agree_with_the_build() {
    check(
        Binary::Flagsplit,
        env!("CARGO_BIN_EXE_flagsplit"),
        &["version"],
    );
}

#[test]
fn sender_text_and_json_agree_with_the_build() {
    let exe = env!("CARGO_BIN_EXE_flagsplit-imap-send");
    check(Binary::ImapSend, exe, &[]);
    let json: serde_json::Value =
        serde_json::from_str(&run(exe, &["--build-options", "--json"])).expect("JSON");
    // The sender names its TLS provider's version unless this build has none.
    assert_eq!(
        json["tls_version"].is_string(),
        BUILD_INFO.provider(Facility::Tls) != Provider::None,
        "{json}"
    );
}

#[test]
fn all_knobs_is_the_generated_table() {
    let table = run(env!("CARGO_BIN_EXE_flagsplit"), &["version", "--all-knobs"]);
    assert_eq!(table, flagsplit::config::knobs::markdown_table());
}

#[test]
fn json_needs_build_options() {
    let out = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
        .args(["version", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
}

//! `version --build-options` of both binaries, as text and as JSON: the same facts, matching what
//! this build compiled in (each feature set of the test command checks its own build), and
//! `--all-knobs` is the generated knob table.

use std::collections::BTreeMap;
use std::process::Command;

use flagsplit::build_options::BUILD_INFO;
use flagsplit::spec::{FLAGSPLIT, FSCK, IMAP_SEND, MD5, REPORT, SHA1, SHA1_UNSAFE, SPEC, TLS};

fn run(binary: &str, args: &[&str]) -> String {
    let out = Command::new(binary).args(args).output().expect("run");
    assert!(
        out.status.success(),
        "{binary} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// What `binary` must link, written out per binary rather than derived from the facility table:
/// `flagsplit` libcrypto for an OpenSSL hashing provider and never libssl; the sender libcrypto
/// only for OpenSSL MD5 (CRAM-MD5) or TLS, libssl only for OpenSSL TLS, nothing for SHA-1.
fn expected_links(binary: &str) -> (bool, bool) {
    let openssl = |f: &str| BUILD_INFO.provider(f) == "openssl";
    if binary == FLAGSPLIT {
        (openssl(SHA1) || openssl(SHA1_UNSAFE) || openssl(MD5), false)
    } else {
        (openssl(MD5) || openssl(TLS), openssl(TLS))
    }
}

fn check(binary: &str, exe: &str, version_args: &[&str]) {
    let mut args = version_args.to_vec();
    args.push("--build-options");
    let text = run(exe, &args);
    args.push("--json");
    let json: serde_json::Value = serde_json::from_str(&run(exe, &args)).expect("valid JSON");

    assert_eq!(json["binary"], binary);
    assert_eq!(json["target"], BUILD_INFO.target);
    let lines: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(": ")).collect();
    assert_eq!(
        lines.get("config-file").copied(),
        Some(BUILD_INFO.config_file)
    );
    assert_eq!(json["config_file"], BUILD_INFO.config_file);
    assert_eq!(BUILD_INFO.choices.len(), SPEC.facilities.len());
    for choice in BUILD_INFO.choices {
        let facility = choice.facility;
        let entry = &json["providers"][facility];
        assert_eq!(entry["provider"], choice.provider, "{facility}");
        assert_eq!(entry["origin"], choice.origin, "{facility}");
        // Each facility's kind, from the table.
        let kind = SPEC.facility(facility).and_then(|f| f.kind);
        assert_eq!(entry["kind"], serde_json::json!(kind), "{facility}");
        assert!(
            kind.is_some(),
            "{facility}: every facility of flagsplit has a kind"
        );
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
    let (libcrypto, libssl) = expected_links(binary);
    assert_eq!(json["links"]["libcrypto"], libcrypto);
    assert_eq!(json["links"]["libssl"], libssl);
    // "OpenSSL:" appears exactly when this binary links it, in both forms.
    assert_eq!(lines.contains_key("OpenSSL"), libcrypto, "{text}");
    assert_eq!(json["openssl"].is_string(), libcrypto);
    let dc = BUILD_INFO.provider(SHA1) == "dc";
    assert_eq!(json["collision_detection"], dc);
    assert_eq!(
        lines.get("SHA-1").copied().is_some_and(|v| v == "SHA1_DC"),
        dc
    );
}

#[test]
fn flagsplit_text_and_json_agree_with_the_build() {
    let exe = env!("CARGO_BIN_EXE_flagsplit");
    check(FLAGSPLIT, exe, &["version"]);
    // git's `zlib:` line (`zlib-ng:` for zlib-ng; the crate's name for a pure-Rust inflater) and
    // the same in JSON, with the selected provider's library version.
    let (library, version) = flagsplit::zlib::version_line();
    let text = run(exe, &["version", "--build-options"]);
    assert!(
        text.contains(&format!("\n{library}: {version}\n")),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&run(exe, &["version", "--build-options", "--json"])).expect("JSON");
    assert_eq!(json["zlib"]["library"], library, "{json}");
    assert_eq!(json["zlib"]["version"], version, "{json}");
    let expected = match BUILD_INFO.provider("zlib") {
        "system" => "zlib",
        other => other,
    };
    assert_eq!(library, expected);
    assert!(
        version.starts_with(|c: char| c.is_ascii_digit()),
        "{version}"
    );
}

#[test]
fn sender_text_and_json_agree_with_the_build() {
    let exe = env!("CARGO_BIN_EXE_flagsplit-imap-send");
    check(IMAP_SEND, exe, &[]);
    let json: serde_json::Value =
        serde_json::from_str(&run(exe, &["--build-options", "--json"])).expect("JSON");
    // The sender inflates nothing.
    assert!(json["zlib"].is_null(), "{json}");
    // The sender names its TLS provider's version unless this build has none.
    assert_eq!(
        json["tls_version"].is_string(),
        BUILD_INFO.provider(TLS) != "none",
        "{json}"
    );
}

#[test]
fn all_knobs_is_the_generated_table() {
    let table = run(env!("CARGO_BIN_EXE_flagsplit"), &["version", "--all-knobs"]);
    assert_eq!(table, flagsplit::config::knobs::markdown_table(&SPEC));
}

#[test]
fn json_needs_build_options() {
    let out = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
        .args(["version", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
}

/// The test-built binaries need no shared library besides the C runtime's and those their selected
/// providers link (`readelf -d`): a new NEEDED entry (libm through a float function, say) costs
/// every process its loading and must be a decision of the facility table.
#[test]
fn needed_is_the_c_runtime_and_what_the_selection_links() {
    if !(cfg!(target_os = "linux") && cfg!(target_env = "gnu") && cfg!(target_arch = "x86_64")) {
        return flagsplit_test_support::skip_optional(
            "needed_is_the_c_runtime_and_what_the_selection_links",
            "the sonames below are x86-64 glibc's",
        );
    }
    for (binary, exe) in [
        (FLAGSPLIT, env!("CARGO_BIN_EXE_flagsplit")),
        (FSCK, env!("CARGO_BIN_EXE_flagsplit-fsck")),
        (REPORT, env!("CARGO_BIN_EXE_flagsplit-report")),
        (IMAP_SEND, env!("CARGO_BIN_EXE_flagsplit-imap-send")),
    ] {
        let out = match Command::new("readelf").args(["-d", exe]).output() {
            Ok(out) if out.status.success() => out,
            _ => {
                return flagsplit_test_support::skip(
                    "needed_is_the_c_runtime_and_what_the_selection_links",
                    "readelf (binutils) is not installed",
                );
            }
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let links = flagsplit::build_options::links(&BUILD_INFO, binary);
        let allowed = |soname: &str| {
            matches!(
                soname,
                "libc.so.6" | "ld-linux-x86-64.so.2" | "libgcc_s.so.1"
            ) || links.iter().any(|l| soname.starts_with(&format!("{l}.so")))
        };
        for line in text.lines().filter(|l| l.contains("(NEEDED)")) {
            let soname = line.rsplit('[').next().unwrap_or("").trim_end_matches(']');
            assert!(allowed(soname), "{binary} needs {soname}:\n{text}");
        }
    }
}

//! flagsplit's own facility table through `flagsplit-config`'s resolver and knob table: the
//! defaults of its five facilities per feature set, every facility × provider × feature set,
//! its variable names, what each binary links, and its knob rows. (The crate's machinery itself is
//! tested in crates/config on tables of its own; the table's consistency in `flagsplit::spec`.)

use std::collections::BTreeMap;

use flagsplit::spec::{IMAP_SEND, SPEC};
use flagsplit_config::knobs::markdown_table;
use flagsplit_config::suggest;
use flagsplit_config::{ConfigFileInput, Errors, FeatureSet, Inputs, Origin, Selection, resolve};

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, Option<String>> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), Some((*v).to_string())))
        .collect()
}

fn file(text: &str) -> Option<ConfigFileInput> {
    Some(ConfigFileInput::new(
        "flagsplit.toml",
        "FLAGSPLIT_CONFIG=flagsplit.toml",
        "/pkg/flagsplit.toml",
        Ok(text.into()),
        "create it",
    ))
}

fn features(names: &[&str]) -> FeatureSet {
    FeatureSet::from_names(&SPEC, names.iter().copied())
}

fn run(
    features: FeatureSet,
    vars: &[(&str, &str)],
    text: Option<&str>,
) -> Result<Selection, Errors> {
    resolve(&{
        let mut i = Inputs::new(&SPEC);
        i.features = features;
        i.env = env(vars);
        i.file = text.and_then(file);
        i
    })
}

fn providers(sel: &Selection) -> Vec<&'static str> {
    sel.choices.iter().map(|c| c.provider.name).collect()
}

/// The defaults, written out per feature set rather than recomputed.
#[test]
fn defaults_for_every_feature_set() {
    let cases: &[(&[&str], [&str; 6])] = &[
        (
            &[],
            ["dc", "block", "builtin", "builtin", "none", "zlib-rs"],
        ),
        (
            &["rustls-tls"],
            ["dc", "block", "builtin", "builtin", "rustls", "zlib-rs"],
        ),
        (
            &["openssl-sha1"],
            [
                "openssl", "openssl", "builtin", "builtin", "none", "zlib-rs",
            ],
        ),
        (
            &["openssl-md5"],
            ["dc", "block", "openssl", "builtin", "none", "zlib-rs"],
        ),
        (
            &["openssl-sha256"],
            ["dc", "block", "builtin", "openssl", "none", "zlib-rs"],
        ),
        (
            &["openssl-tls"],
            ["dc", "block", "builtin", "builtin", "openssl", "zlib-rs"],
        ),
        (
            &["openssl-tls", "rustls-tls"],
            ["dc", "block", "builtin", "builtin", "openssl", "zlib-rs"],
        ),
        (
            &["openssl-sha1", "rustls-tls"],
            [
                "openssl", "openssl", "builtin", "builtin", "rustls", "zlib-rs",
            ],
        ),
        (
            &[
                "openssl-sha1",
                "openssl-md5",
                "openssl-sha256",
                "openssl-tls",
                "rustls-tls",
            ],
            [
                "openssl", "openssl", "openssl", "openssl", "openssl", "zlib-rs",
            ],
        ),
        (
            &["zlib-miniz"],
            ["dc", "block", "builtin", "builtin", "none", "miniz"],
        ),
        (
            &["zlib-miniz", "zlib-system"],
            ["dc", "block", "builtin", "builtin", "none", "system"],
        ),
        (
            &["zlib-miniz", "zlib-system", "zlib-ng"],
            ["dc", "block", "builtin", "builtin", "none", "zlib-ng"],
        ),
    ];
    for (names, expected) in cases {
        let set = features(names);
        let sel = run(set.clone(), &[], None).expect("defaults always resolve");
        assert_eq!(providers(&sel), expected, "features {names:?}");
    }
    // Every one of the 256 sets resolves with no input, and each default is available.
    let all = FeatureSet::all_combinations(&SPEC);
    assert_eq!(all.len(), 256);
    for set in all {
        let sel = run(set.clone(), &[], None).expect("defaults always resolve");
        for (_, choice) in sel.iter() {
            assert!(choice.provider.is_available(&set));
            match choice.provider.feature {
                Some(feature) => assert_eq!(choice.origin, Origin::FeatureDefault(feature)),
                None => assert_eq!(choice.origin, Origin::Default),
            }
        }
    }
}

/// Every facility × every provider name × every feature set, asked for by a variable and by
/// the file: either it takes effect with the right origin, or the right error says why.
#[test]
fn every_facility_provider_feature_set() {
    let names: std::collections::BTreeSet<&str> = SPEC
        .facilities
        .iter()
        .flat_map(|f| f.providers.iter().map(|p| p.name))
        .collect();
    let per_set = 1 + SPEC.facilities.len() * names.len() * 2;
    assert_eq!(
        flagsplit::config::check_every_request(&SPEC),
        Ok(256 * per_set)
    );
}

#[test]
fn run_time_variables_are_not_typos() {
    let sel = run(
        features(&["rustls-tls"]),
        &[
            ("FLAGSPLIT_SHA1DC", "0"),
            ("FLAGSPLIT_EXEC_PATH", "/x"),
            ("FLAGSPLIT_TEST_NO_INSTALL", "1"),
        ],
        None,
    );
    assert!(sel.is_ok());
}

#[test]
fn suggestions_catch_typos_only() {
    let s = |n: &str| suggest(&SPEC, n);
    assert_eq!(
        s("FLAGSPLIT_SHA_PROVIDER").as_deref(),
        Some("FLAGSPLIT_SHA1_PROVIDER")
    );
    assert_eq!(
        s("FLAGSPLIT_TLS_PROVDER").as_deref(),
        Some("FLAGSPLIT_TLS_PROVIDER")
    );
    assert_eq!(s("FLAGSPLIT_CONFG").as_deref(), Some("FLAGSPLIT_CONFIG"));
    assert_eq!(s("FLAGSPLIT_SOMETHING_ELSE_ENTIRELY"), None);
}

#[test]
fn selection_cfgs_links_and_probes() {
    let sel = run(
        features(&["openssl-sha1", "openssl-tls"]),
        &[("FLAGSPLIT_SHA1_PROVIDER", "dc")],
        None,
    )
    .unwrap();
    // sha1-unsafe still uses OpenSSL, so OPENSSL_SHA1 holds.
    assert_eq!(sel.used_features(), ["openssl-sha1", "openssl-tls"]);
    assert_eq!(sel.links("flagsplit"), ["libcrypto"]);
    assert_eq!(sel.links(IMAP_SEND), ["libssl", "libcrypto"]);
    let probes: Vec<&str> = sel.probes().iter().map(|(p, _)| p.source).collect();
    assert_eq!(probes, ["probe-sha1.c", "probe-tls.c"]);
    // OpenSSL SHA-1 alone: the sender links nothing.
    let sel = run(features(&["openssl-sha1"]), &[], None).unwrap();
    assert!(sel.links(IMAP_SEND).is_empty());
}

#[test]
fn the_table_names_every_knob_and_the_sender_links_nothing_for_sha() {
    let t = markdown_table(&SPEC);
    for name in SPEC.build_variable_names() {
        assert!(t.contains(&format!("`{name}`")), "{name} missing");
    }
    for f in SPEC.features() {
        assert!(t.contains(&format!("`--features {f}`")), "{f} missing");
    }
    let sha1_row = t
        .lines()
        .find(|l| l.starts_with("| `--features openssl-sha1`"))
        .unwrap();
    // Columns: flagsplit, flagsplit-fsck, flagsplit-report, flagsplit-imap-send.
    assert!(
        sha1_row.ends_with(
            "| libcrypto when selected | libcrypto when selected | nothing when selected | nothing when selected |"
        ),
        "{sha1_row}"
    );
    let tls_row = t
        .lines()
        .find(|l| l.starts_with("| `FLAGSPLIT_TLS_PROVIDER`"))
        .unwrap();
    assert!(tls_row.contains("nothing (does not use it)"), "{tls_row}");
    assert!(tls_row.contains("openssl: libssl + libcrypto"), "{tls_row}");
}

/// Every probe the table names is a program in compat/ that calls the symbol the table names in
/// its failures.
#[test]
fn every_probe_is_a_compat_program() {
    let compat = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("compat");
    let mut seen = 0;
    for facility in SPEC.facilities {
        for provider in facility.providers {
            let Some(probe) = provider.probe else {
                continue;
            };
            seen += 1;
            let text = std::fs::read_to_string(compat.join(probe.source))
                .unwrap_or_else(|e| panic!("{}: {e}", probe.source));
            let called = probe.symbol.trim_end_matches('_');
            assert!(
                text.contains(called),
                "{} does not call {}",
                probe.source,
                probe.symbol
            );
        }
    }
    assert_eq!(
        seen, 6,
        "the openssl providers of sha1, sha1-unsafe, md5, sha256 and tls; zlib's system"
    );
}

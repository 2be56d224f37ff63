//! `cargo flagsplit`'s policy reader, on arbitrary text: never panics; a policy it reads has a
//! rule, is checked against a small build (two crates, an executable carrying static, bundled and
//! dynamic libraries), and every diagnostic, of a refused file or of the check, renders with its
//! place inside the text.
#![no_main]

use cargo_flagsplit::model::*;
use cargo_flagsplit::policy::{eval, parse, render};
use cargo_flagsplit::source::SourceFile;
use libfuzzer_sys::fuzz_target;

fn build() -> Report {
    let facility = Facility {
        name: "tls".into(),
        kind: Some("tls".into()),
        variable: "TLS_A_TLS_PROVIDER".into(),
        used_by: vec!["app".into()],
        providers: vec![
            Provider {
                name: "none".into(),
                compiled: true,
                answers_to: Some("none".into()),
                ..Default::default()
            },
            Provider {
                name: "openssl".into(),
                feature: Some("openssl".into()),
                compiled: true,
                answers_to: Some("openssl".into()),
                links: vec!["libssl".into(), "libcrypto".into()],
                properties: vec!["fips-capable".into()],
            },
        ],
        selected: "openssl".into(),
        origin: "graph-wide RUST_BACKEND_TLS".into(),
        origin_kind: "graph-variable".into(),
        origin_name: Some("RUST_BACKEND_TLS".into()),
        origin_at: None,
    };
    let krate = |name: &str| CrateReport {
        name: name.into(),
        version: "0.1.0".into(),
        package_id: format!("path+file:///ws/{name}#0.1.0"),
        build: Copy::Target,
        out_dir: format!("/t/debug/build/{name}-0/out"),
        options: Options {
            schema: OPTIONS_SCHEMA,
            crate_name: name.into(),
            prefix: name.to_uppercase().replace('-', "_"),
            role: "library".into(),
            facilities: vec![facility.clone()],
            ..Default::default()
        },
    };
    let lib = |name: &str, file: &str, link: LinkMode, bundled: bool| CarriedLibrary {
        name: name.into(),
        file: file.into(),
        link,
        bundled,
        held: Held::Yes,
        evidence: "seen".into(),
        archive: None,
        linked_by: vec![LinkedBy {
            package: "tls-a".into(),
            version: "0.1.0".into(),
            directive: name.into(),
        }],
        found_by: vec![],
        selected_by: vec![],
    };
    Report {
        target: None,
        crates: vec![krate("tls-a"), krate("tls-b")],
        executables: vec![Executable {
            name: "app".into(),
            package: "app".into(),
            path: "/t/debug/app".into(),
            needed: vec!["libssl.so.3".into()],
            dynamic: true,
            symbols: true,
            libraries: vec![
                lib("ssl", "libssl.so.3", LinkMode::Dynamic, false),
                lib("crypto", "libcrypto.a", LinkMode::Static, false),
                lib("z", "libz.a", LinkMode::Static, true),
            ],
            not_carried: vec![],
        }],
        settings: vec![],
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("p.toml", text.as_ref());
    let in_text = |d: &cargo_flagsplit::diag::Diagnostic| {
        if let Some((span, _)) = d.label.as_deref() {
            assert!(span.range.start <= span.range.end && span.range.end <= file.text.len());
        }
        assert!(!d.render(false).is_empty());
    };
    match parse::parse(&file) {
        Ok(policy) => {
            assert!(policy.len() > 0);
            let report = build();
            let vocab = eval::Vocabulary {
                built: ["tls-a", "tls-b", "app", "openssl-sys"].map(String::from).into(),
                locked: ["tls-a", "tls-b", "app", "openssl-sys", "ring"].map(String::from).into(),
                bins: ["app", "tool"].map(String::from).into(),
            };
            for f in eval::evaluate(&policy, &report, &vocab) {
                in_text(&render::diagnostic(&f));
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            errors.iter().for_each(in_text);
        }
    }
});

//! The text report, in `cargo tree`'s style.

use crate::model::{Copy, CrateReport, Report, SettingSource};
use std::fmt::Write;

/// The line that replaces the report when no crate of the build uses flagsplit-config.
pub const NO_CRATE: &str = "no crate in this build uses flagsplit-config";

/// Items under one heading, drawn as a tree: each item is a first line and continuation lines.
fn tree(out: &mut String, items: &[(String, Vec<String>)]) {
    for (i, (first, rest)) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        let _ = writeln!(out, "{}{first}", if last { "└── " } else { "├── " });
        for line in rest {
            let _ = writeln!(out, "{}{line}", if last { "    " } else { "│   " });
        }
    }
}

fn crate_heading(c: &CrateReport) -> String {
    let mut s = format!(
        "{} v{} ({}, {}",
        c.name, c.version, c.options.role, c.options.target
    );
    if c.build == Copy::Host {
        s.push_str(", host copy for build scripts");
    }
    if c.options.crate_name != c.name {
        s.push_str(&format!(", table {}", c.options.crate_name));
    }
    s.push(')');
    s
}

fn crate_items(c: &CrateReport) -> Vec<(String, Vec<String>)> {
    let mut items = Vec::new();
    for f in &c.options.facilities {
        let head = match &f.kind {
            Some(k) => format!("{} (kind {k}): {}, from {}", f.name, f.selected, f.origin),
            None => format!("{}: {}, from {}", f.name, f.selected, f.origin),
        };
        let compiled: Vec<String> = f
            .providers
            .iter()
            .filter(|p| p.compiled)
            .map(|p| {
                if p.feature.is_some() && p.name != f.selected {
                    format!("{} (unselected)", p.name)
                } else {
                    p.name.clone()
                }
            })
            .collect();
        let compiled = if compiled.is_empty() {
            "(none)".to_string()
        } else {
            compiled.join(", ")
        };
        items.push((head, vec![format!("compiled: {compiled}")]));
    }
    for (name, policy) in [
        ("link", &c.options.graph.link),
        ("bundled", &c.options.graph.bundled),
    ] {
        if let Some(p) = policy {
            items.push((format!("{name}: {}, from {}", p.value, p.origin), vec![]));
        }
    }
    if !c.options.libraries.is_empty() {
        let libs: Vec<String> = c
            .options
            .libraries
            .iter()
            .map(|l| {
                let mut s = l.library.clone();
                if let Some(v) = &l.version {
                    s.push_str(&format!(" {v}"));
                }
                s.push_str(&format!(
                    ", {}, located by {}",
                    if l.static_link { "static" } else { "dynamic" },
                    l.located_by
                ));
                s
            })
            .collect();
        items.push((format!("libraries: {}", libs.join("; ")), vec![]));
    }
    items
}

/// The text report.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    if report.crates.is_empty() {
        out.push_str(NO_CRATE);
        out.push('\n');
    }
    for c in &report.crates {
        out.push_str(&crate_heading(c));
        out.push('\n');
        tree(&mut out, &crate_items(c));
    }
    for e in &report.executables {
        let _ = writeln!(out, "{} (executable)", e.name);
        let links = if e.needed.is_empty() {
            "(nothing: no dynamic section)".to_string()
        } else {
            e.needed.join(" ")
        };
        tree(&mut out, &[(format!("links: {links}"), vec![])]);
    }
    if !report.graph_settings.is_empty() {
        let list: Vec<String> = report
            .graph_settings
            .iter()
            .map(|s| match (&s.source, &s.at) {
                (SettingSource::File, Some(at)) => format!("{at}: {} = {:?}", s.name, s.value),
                _ => format!("{}={}", s.name, s.value),
            })
            .collect();
        let _ = writeln!(out, "graph-wide settings: {}", list.join(", "));
    }
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;
    use crate::policy::tests::{report, tls_crate};

    #[test]
    fn the_tree() {
        let mut zlib = tls_crate("zlib-c", "pure-rust", "default", "default");
        zlib.options.facilities[0] = Facility {
            name: "inflate".into(),
            kind: Some("zlib".into()),
            variable: "ZLIB_C_INFLATE_PROVIDER".into(),
            providers: vec![
                Provider {
                    name: "pure-rust".into(),
                    compiled: true,
                    ..Default::default()
                },
                Provider {
                    name: "system".into(),
                    feature: Some("system".into()),
                    compiled: true,
                    ..Default::default()
                },
            ],
            selected: "pure-rust".into(),
            origin: "default".into(),
            origin_kind: "default".into(),
            ..Default::default()
        };
        let mut host = tls_crate(
            "tls-a",
            "openssl",
            "graph-wide RUST_BACKEND_TLS",
            "graph-variable",
        );
        host.build = Copy::Host;
        host.options.libraries = vec![Library {
            library: "openssl".into(),
            version: Some("3.0.13".into()),
            located_by: "pkg-config".into(),
            static_link: false,
        }];
        let mut r = report(
            vec![
                tls_crate(
                    "tls-a",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
                host,
                zlib,
            ],
            &["libssl.so.3", "libc.so.6"],
        );
        r.graph_settings = vec![GraphSetting {
            name: "RUST_BACKEND_TLS".into(),
            value: "openssl".into(),
            source: SettingSource::Environment,
            at: None,
            key: Some("tls".into()),
            read: true,
        }];
        r.warnings = vec!["RUST_BACKEND_ZSTD=system: no crate".into()];
        assert_eq!(
            text(&r),
            "tls-a v0.1.0 (library, x86_64-unknown-linux-gnu)\n\
             └── tls (kind tls): openssl, from graph-wide RUST_BACKEND_TLS\n    \
             compiled: none, openssl\n\
             tls-a v0.1.0 (library, x86_64-unknown-linux-gnu, host copy for build scripts)\n\
             ├── tls (kind tls): openssl, from graph-wide RUST_BACKEND_TLS\n\
             │   compiled: none, openssl\n\
             └── libraries: openssl 3.0.13, dynamic, located by pkg-config\n\
             zlib-c v0.1.0 (library, x86_64-unknown-linux-gnu)\n\
             └── inflate (kind zlib): pure-rust, from default\n    \
             compiled: pure-rust, system (unselected)\n\
             app (executable)\n\
             └── links: libssl.so.3 libc.so.6\n\
             graph-wide settings: RUST_BACKEND_TLS=openssl\n\
             warning: RUST_BACKEND_ZSTD=system: no crate\n"
        );
    }

    #[test]
    fn nothing_uses_it() {
        let mut r = report(vec![], &[]);
        r.executables.clear();
        assert_eq!(text(&r), "no crate in this build uses flagsplit-config\n");
    }
}

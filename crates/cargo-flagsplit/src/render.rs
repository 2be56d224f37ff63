//! The text report, in `cargo tree`'s style.

use crate::model::{CarriedLibrary, Copy, CrateReport, Held, LinkMode, Report, SettingSource};
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

/// One carried library: `libcrypto.a: static, linked by flagsplit v0.1.0 (rustc-link-lib=static=crypto); ...`.
fn library_line(l: &CarriedLibrary) -> String {
    let mut s = format!("{}: {}", l.file, l.link.as_str());
    if l.bundled {
        s.push_str(", bundled");
    }
    let by: Vec<String> = l
        .linked_by
        .iter()
        .map(|b| {
            format!(
                "{} v{} (rustc-link-lib={})",
                b.package, b.version, b.directive
            )
        })
        .collect();
    if !by.is_empty() {
        s.push_str(&format!(", linked by {}", by.join(", ")));
    }
    for f in &l.found_by {
        s.push_str(&format!("; {}", f.library));
        if let Some(v) = &f.library_version {
            s.push_str(&format!(" {v}"));
        }
        s.push_str(&format!(
            ", located by {} for {} v{}",
            f.located_by, f.package, f.version
        ));
    }
    if l.link == LinkMode::Static {
        match l.held {
            Held::Yes => s.push_str(&format!(": {}", l.evidence)),
            Held::Unknown => s.push_str(&format!(": not seen, {}", l.evidence)),
        }
    }
    s
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
        let needed = if !e.dynamic {
            "(none: a static executable)".to_string()
        } else if e.needed.is_empty() {
            "(none)".to_string()
        } else {
            e.needed.join(" ")
        };
        let mut items = vec![(format!("needed: {needed}"), vec![])];
        // The libraries a build script linked (the toolchain's are in `needed:` alone).
        items.extend(
            e.libraries
                .iter()
                .filter(|l| !l.linked_by.is_empty() || !l.found_by.is_empty())
                .map(|l| (library_line(l), vec![])),
        );
        tree(&mut out, &items);
    }
    if !report.settings.is_empty() {
        let list: Vec<String> = report
            .settings
            .iter()
            .map(|s| match (&s.source, &s.at) {
                (SettingSource::File, Some(at)) => format!("{at}: {} = {:?}", s.name, s.value),
                (SettingSource::CargoEnv, Some(at)) => {
                    format!("{}={} ([env] at {at})", s.name, s.value)
                }
                _ => format!("{}={}", s.name, s.value),
            })
            .collect();
        let _ = writeln!(out, "settings: {}", list.join(", "));
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
            library: "OpenSSL".into(),
            version: Some("3.0.13".into()),
            located_by: "pkg-config".into(),
            ..Default::default()
        }];
        let ssl = CarriedLibrary {
            name: "ssl".into(),
            file: "libssl.so.3".into(),
            link: LinkMode::Dynamic,
            bundled: false,
            held: Held::Yes,
            evidence: "NEEDED libssl.so.3".into(),
            archive: None,
            linked_by: vec![LinkedBy {
                package: "openssl-sys".into(),
                version: "0.9.1".into(),
                directive: "ssl".into(),
            }],
            found_by: vec![],
            selected_by: vec![],
        };
        let ring = CarriedLibrary {
            name: "ring_core".into(),
            file: "libring_core.a".into(),
            link: LinkMode::Static,
            bundled: true,
            evidence: "2 of the archive's 3 symbols are in its symbol table".into(),
            linked_by: vec![LinkedBy {
                package: "ring".into(),
                version: "0.17.14".into(),
                directive: "static=ring_core".into(),
            }],
            ..ssl.clone()
        };
        let libc = CarriedLibrary {
            name: "c".into(),
            file: "libc.so.6".into(),
            linked_by: vec![],
            ..ssl.clone()
        };
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
            vec![ssl, ring, libc],
        );
        r.settings = vec![Setting {
            name: "RUST_BACKEND_TLS".into(),
            value: "openssl".into(),
            source: SettingSource::Environment,
            at: None,
            key: Some("tls".into()),
            read_by: vec!["tls-a".into()],
        }];
        assert_eq!(
            text(&r),
            "tls-a v0.1.0 (library, x86_64-unknown-linux-gnu)\n\
             └── tls (kind tls): openssl, from graph-wide RUST_BACKEND_TLS\n    \
             compiled: none, openssl\n\
             tls-a v0.1.0 (library, x86_64-unknown-linux-gnu, host copy for build scripts)\n\
             ├── tls (kind tls): openssl, from graph-wide RUST_BACKEND_TLS\n\
             │   compiled: none, openssl\n\
             └── libraries: OpenSSL 3.0.13, dynamic, located by pkg-config\n\
             zlib-c v0.1.0 (library, x86_64-unknown-linux-gnu)\n\
             └── inflate (kind zlib): pure-rust, from default\n    \
             compiled: pure-rust, system (unselected)\n\
             app (executable)\n\
             ├── needed: libssl.so.3 libc.so.6\n\
             ├── libssl.so.3: dynamic, linked by openssl-sys v0.9.1 (rustc-link-lib=ssl)\n\
             └── libring_core.a: static, bundled, linked by ring v0.17.14 (rustc-link-lib=static=ring_core): 2 of the archive's 3 symbols are in its symbol table\n\
             settings: RUST_BACKEND_TLS=openssl\n"
        );
    }

    #[test]
    fn nothing_uses_it() {
        let mut r = report(vec![], vec![]);
        r.executables[0].dynamic = false;
        assert_eq!(
            text(&r),
            "no crate in this build uses flagsplit-config\napp (executable)\n└── needed: (none: a static executable)\n"
        );
    }
}

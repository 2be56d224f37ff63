//! `cargo flagsplit inspect`'s output: what executables' build records say, as text (like the
//! report), as JSON, or as a CycloneDX 1.5 SBOM whose components are the C libraries, with a
//! `purl` and, for the libraries advisories name, a `cpe`.

use crate::binaries::Scan;
use crate::model::{Library, Options};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The `--format json` document's schema.
pub const SCHEMA: u32 = 1;

fn facility_line(o: &Options, out: &mut String) {
    for f in &o.facilities {
        let properties = f
            .selected_provider()
            .map(|p| p.properties.join(", "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    {}{} = {} ({}){}",
            f.name,
            f.kind
                .as_deref()
                .filter(|k| *k != f.name)
                .map(|k| format!(" [{k}]"))
                .unwrap_or_default(),
            f.selected,
            f.origin,
            if properties.is_empty() {
                String::new()
            } else {
                format!(", guarantees: {properties}")
            }
        );
    }
}

fn link_mode(l: &Library) -> &'static str {
    if l.bundled {
        "bundled"
    } else if l.static_link {
        "static"
    } else {
        "dynamic"
    }
}

/// The text form.
pub fn text(scan: &Scan) -> String {
    let mut out = String::new();
    for b in &scan.binaries {
        if let Some(e) = &b.error {
            let _ = writeln!(out, "{}: error: {e}", b.path);
            continue;
        }
        match b.crates.len() {
            0 => {
                let _ = writeln!(out, "{}: no build record", b.path);
            }
            n => {
                let _ = writeln!(
                    out,
                    "{}: {n} build record(s) (.note.flagsplit{})",
                    b.path,
                    if b.record == "segment" {
                        ", from a PT_NOTE segment"
                    } else {
                        ""
                    }
                );
            }
        }
        for o in &b.crates {
            let _ = writeln!(
                out,
                "  {} {} ({}, {})",
                o.crate_name,
                if o.version.is_empty() {
                    "?"
                } else {
                    &o.version
                },
                o.role,
                o.target
            );
            facility_line(o, &mut out);
            for l in &o.libraries {
                let _ = writeln!(
                    out,
                    "    C library {} {}: {} (-l{}), found by {}",
                    l.library,
                    l.version.as_deref().unwrap_or("(version unknown)"),
                    link_mode(l),
                    l.links.join(" -l"),
                    l.located_by
                );
            }
        }
        match &b.needed {
            Some(needed) if needed.is_empty() => {
                let _ = writeln!(out, "  dynamic section: no NEEDED entry");
            }
            Some(needed) => {
                let _ = writeln!(out, "  dynamic section: NEEDED {}", needed.join(", "));
            }
            None => {
                let _ = writeln!(out, "  no dynamic section (a static executable)");
            }
        }
        if b.crates.is_empty() {
            let _ = writeln!(
                out,
                "  (without a record, only the dynamic section is seen: libraries linked statically are not)"
            );
        }
    }
    if scan.skipped > 0 {
        let _ = writeln!(out, "({} file(s) that are not ELF skipped)", scan.skipped);
    }
    out
}

/// The `--format json` document.
pub fn json(scan: &Scan) -> Value {
    json!({
        "schema": SCHEMA,
        "binaries": scan.binaries,
        "skipped": scan.skipped,
    })
}

/// The CPE vendor and product of the C libraries advisories name, by the library's name in the
/// record or its link name.
fn cpe_of(l: &Library) -> Option<(&'static str, &'static str)> {
    let names = std::iter::once(l.library.as_str()).chain(l.links.iter().map(String::as_str));
    for n in names {
        let n = n.to_ascii_lowercase();
        let n = n.strip_prefix("lib").unwrap_or(&n).to_string();
        let hit = match n.as_str() {
            "openssl" | "ssl" | "crypto" => Some(("openssl", "openssl")),
            "z" | "zlib" => Some(("zlib", "zlib")),
            "zstd" => Some(("facebook", "zstandard")),
            "lzma" | "xz" => Some(("tukaani", "xz")),
            "bz2" | "bzip2" => Some(("bzip", "bzip2")),
            "curl" => Some(("haxx", "libcurl")),
            "sqlite3" | "sqlite" => Some(("sqlite", "sqlite")),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
    }
    None
}

/// A package URL's name part: lower case, with what a purl must escape replaced.
fn purl_name(s: &str) -> String {
    s.to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The CycloneDX 1.5 document: each executable an `application` component, each C library its
/// records name a `library` component (version, `purl`, `cpe` where one is known, and the link
/// mode and finder as `flagsplit:*` properties), and which executable carries which library in
/// `dependencies`. Executables without a record list the libraries of their dynamic section.
pub fn cyclonedx(scan: &Scan) -> Value {
    let mut components = Vec::new();
    let mut dependencies = Vec::new();
    for (i, b) in scan.binaries.iter().enumerate() {
        if b.error.is_some() {
            continue;
        }
        let app_ref = format!("binary-{i}:{}", b.name());
        let mut properties = vec![json!({"name": "flagsplit:record", "value": b.record})];
        for o in &b.crates {
            for f in &o.facilities {
                properties.push(json!({
                    "name": format!("flagsplit:facility:{}:{}", o.crate_name, f.name),
                    "value": format!("{} ({})", f.selected, f.origin),
                }));
            }
        }
        components.push(json!({
            "type": "application",
            "bom-ref": app_ref,
            "name": b.name(),
            "properties": properties,
        }));
        let mut depends = Vec::new();
        for (j, l) in b
            .crates
            .iter()
            .flat_map(|o| o.libraries.iter().map(move |l| (o, l)))
            .enumerate()
        {
            let (o, l) = l;
            let lib_ref = format!("{app_ref}:lib-{j}:{}", l.library);
            let name = purl_name(&l.library);
            let mut c = json!({
                "type": "library",
                "bom-ref": lib_ref,
                "name": l.library,
                "purl": match &l.version {
                    Some(v) => format!("pkg:generic/{name}@{v}"),
                    None => format!("pkg:generic/{name}"),
                },
                "properties": [
                    {"name": "flagsplit:link", "value": link_mode(l)},
                    {"name": "flagsplit:located-by", "value": l.located_by},
                    {"name": "flagsplit:linked-names", "value": l.links.join(" ")},
                    {"name": "flagsplit:crate", "value": o.crate_name},
                ],
            });
            if let Some(v) = &l.version {
                c["version"] = json!(v);
            }
            if let Some((vendor, product)) = cpe_of(l) {
                c["cpe"] = json!(format!(
                    "cpe:2.3:a:{vendor}:{product}:{}:*:*:*:*:*:*:*",
                    l.version.as_deref().unwrap_or("*")
                ));
            }
            components.push(c);
            depends.push(json!(lib_ref));
        }
        if b.crates.is_empty() {
            for (j, soname) in b.needed.iter().flatten().enumerate() {
                let lib_ref = format!("{app_ref}:needed-{j}:{soname}");
                components.push(json!({
                    "type": "library",
                    "bom-ref": lib_ref,
                    "name": soname,
                    "properties": [{"name": "flagsplit:link", "value": "dynamic"}, {"name": "flagsplit:evidence", "value": "NEEDED"}],
                }));
                depends.push(json!(lib_ref));
            }
        }
        dependencies.push(json!({"ref": app_ref, "dependsOn": depends}));
    }
    json!({
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "version": 1,
        "metadata": {
            "tools": {
                "components": [{
                    "type": "application",
                    "name": "cargo-flagsplit",
                    "version": env!("CARGO_PKG_VERSION"),
                }],
            },
        },
        "components": components,
        "dependencies": dependencies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binaries::Binary;

    fn lib(name: &str, links: &[&str], version: Option<&str>) -> Library {
        Library {
            library: name.into(),
            version: version.map(String::from),
            located_by: "pkg-config".into(),
            static_link: true,
            links: links.iter().map(|s| s.to_string()).collect(),
            bundled: false,
        }
    }

    #[test]
    fn advisories_match_by_cpe_and_purl() {
        assert_eq!(
            cpe_of(&lib("OpenSSL", &["crypto"], None)),
            Some(("openssl", "openssl"))
        );
        assert_eq!(
            cpe_of(&lib("libcrypto", &["crypto"], None)),
            Some(("openssl", "openssl"))
        );
        assert_eq!(
            cpe_of(&lib("libzstd", &["zstd"], None)),
            Some(("facebook", "zstandard"))
        );
        assert_eq!(cpe_of(&lib("mine", &["mine"], None)), None);
        let o = Options {
            crate_name: "app".into(),
            libraries: vec![lib("libcrypto", &["crypto"], Some("3.0.19"))],
            ..Options::default()
        };
        let scan = Scan {
            binaries: vec![Binary {
                path: "/x/app".into(),
                record: "section",
                crates: vec![o],
                needed: Some(vec!["libc.so.6".into()]),
                error: None,
            }],
            skipped: 0,
        };
        let doc = cyclonedx(&scan);
        let libc = &doc["components"][1];
        assert_eq!(libc["purl"], "pkg:generic/libcrypto@3.0.19");
        assert_eq!(
            libc["cpe"],
            "cpe:2.3:a:openssl:openssl:3.0.19:*:*:*:*:*:*:*"
        );
        assert_eq!(libc["properties"][0]["value"], "static");
        assert_eq!(doc["dependencies"][0]["dependsOn"][0], libc["bom-ref"]);
        let t = text(&scan);
        assert!(
            t.contains("C library libcrypto 3.0.19: static (-lcrypto), found by pkg-config"),
            "{t}"
        );
    }
}

//! The knob table: every Cargo feature, config key and variable of a [`Spec`], what it does, its
//! values, its default, and what each binary links because of it — generated from the same table
//! the resolver uses, so book/src/packaging.md, `flagsplit version --all-knobs` and the man
//! pages cannot drift from the build.

use std::fmt::Write as _;

use crate::model::{Facility, Provider, Role, Spec, When};

/// What `binary` links when `facility` uses `provider` and every other facility keeps a provider
/// that links nothing.
fn effect(spec: &Spec, binary: &str, facility: &Facility, provider: &Provider) -> String {
    let libs = spec.links(binary, |f| {
        if std::ptr::eq(f, facility) {
            Some(provider)
        } else {
            f.providers.iter().find(|p| p.links.is_empty())
        }
    });
    if libs.is_empty() {
        "nothing".to_string()
    } else {
        libs.join(" + ")
    }
}

fn cell(t: &str) -> String {
    t.replace('|', "\\|")
}

/// The knob table of `spec` in Markdown.
// Inline: compiled only in the crates that call it, not in every build script (ARCHITECTURE.md).
#[inline]
pub fn markdown_table(spec: &Spec) -> String {
    let mut s = String::new();
    s.push_str("| knob | what it does | values | default |");
    for b in spec.binaries {
        let _ = write!(s, " `{b}` links |");
    }
    s.push_str("\n|---|---|---|---|");
    for _ in spec.binaries {
        s.push_str("---|");
    }
    s.push('\n');
    let none: Vec<&str> = spec.binaries.iter().map(|_| "—").collect();

    for feature in spec.features() {
        let compiled = spec.compiled_by(feature);
        let provider_names: Vec<&str> = {
            let mut v: Vec<&str> = compiled.iter().map(|(_, p)| p.name).collect();
            v.dedup();
            v
        };
        let facilities: Vec<String> = compiled.iter().map(|(f, _)| format!("`{f}`")).collect();
        let links: Vec<String> = spec
            .binaries
            .iter()
            .map(|b| {
                let mut parts: Vec<String> = compiled
                    .iter()
                    .map(|(f, p)| effect(spec, b, f, p))
                    .collect();
                parts.dedup();
                format!("{} when selected", parts.join(", "))
            })
            .collect();
        // A library's feature is turned on by whoever depends on it, and only compiles.
        let (knob, selected) = match spec.role {
            Role::Application => (
                format!("`--features {feature}`"),
                "selected by default when on".to_string(),
            ),
            Role::Library => {
                let vars: Vec<String> = compiled
                    .iter()
                    .map(|(f, _)| format!("`{}`", spec.env_var(f)))
                    .collect();
                (
                    format!("feature `{feature}`"),
                    format!("selected only by {}", vars.join(", ")),
                )
            }
        };
        let _ = writeln!(
            s,
            "| {knob} | compiles the `{}` provider of {} ({selected}) | on, off | {} | {} |",
            provider_names.join("`/`"),
            facilities.join(", "),
            feature_default(spec, feature),
            links.join(" | ")
        );
    }
    for feature in spec.source_features {
        let cells: Vec<String> = spec
            .binaries
            .iter()
            .map(|_| "the library inside the binary, not in NEEDED".to_string())
            .collect();
        let _ = writeln!(
            s,
            "| `--features {}` | {} | {} | {} | {} |",
            feature.name,
            cell(feature.help),
            feature.values,
            feature.default,
            cells.join(" | ")
        );
    }
    for facility in spec.facilities {
        let values: Vec<String> = facility
            .providers
            .iter()
            .map(|p| match p.answers_to {
                Some(shared) if shared != p.name => format!("`{p}` ({shared})"),
                _ => format!("`{p}`"),
            })
            .collect();
        let graph = facility.kind.map_or(String::new(), |kind| {
            format!(
                ", graph-wide `{}` (kind {kind})",
                crate::graph::Setting::Kind(kind).variable()
            )
        });
        let links: Vec<String> = spec
            .binaries
            .iter()
            .map(|b| {
                if !facility.used_by.contains(b) {
                    return "nothing (does not use it)".to_string();
                }
                facility
                    .providers
                    .iter()
                    .map(|p| format!("{p}: {}", effect(spec, b, facility, p)))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .collect();
        let _ = writeln!(
            s,
            "| `{}`, config `[{facility}] provider`{graph} | selects the provider of {} | {} | {} | {} |",
            spec.env_var(facility),
            cell(facility.purpose),
            values.join(", "),
            facility.default_text(spec.role),
            links.join(" | ")
        );
    }
    let config_help = match spec.local_config {
        Some(local) => format!(
            "build configuration file ({}), read instead of {local}; a relative path resolves against the package root; a named file that does not exist is an error",
            spec.format_hint()
        ),
        None => "build configuration file; a relative path resolves against the package root; a named file that does not exist is an error".to_string(),
    };
    let config_default = match spec.local_config {
        Some(local) => format!("{local} at the package root when it exists, else none"),
        None => "no file".to_string(),
    };
    let _ = writeln!(
        s,
        "| `{}` | (build time) {} | path to a TOML file | {} | {} |",
        spec.config_var(),
        cell(&config_help),
        cell(&config_default),
        none.join(" | ")
    );
    let probes = spec
        .facilities
        .iter()
        .any(|f| f.providers.iter().any(|p| p.probe.is_some()));
    if probes {
        let _ = writeln!(
            s,
            "| `RUST_BACKEND_LINK` | (build time, graph-wide) how the C libraries found through flagsplit-config link, in every crate of the build that uses it; a library's own `<LIB>_STATIC` wins | `static`, `dynamic` | each library's own default | {} |",
            none.join(" | ")
        );
        let _ = writeln!(
            s,
            "| `RUST_BACKEND_BUNDLED` | (build time, graph-wide) `deny`: a `-sys` crate that built its own copy of a C library fails the build, naming its switch | `deny`, `allow` | `allow` | {} |",
            none.join(" | ")
        );
    }
    if spec.facilities.iter().any(|f| f.kind.is_some()) || probes {
        let _ = writeln!(
            s,
            "| `RUST_BACKEND_CONFIG` | (build time, graph-wide) the graph-wide config file: `<kind> = \"<shared provider>\"`, `link`, `bundled`, and `[target.<triple or cfg(...)>]` tables of them; each `RUST_BACKEND_*` variable but this one also has a `<TARGET>_RUST_BACKEND_*` form that wins for that target | absolute path to a TOML file | no file | {} |",
            none.join(" | ")
        );
    }
    for var in spec.variables.iter().chain(spec.foreign_variables) {
        let when = if var.when == When::Build && !var.name.starts_with(&spec.var_prefix()) {
            When::Build.label()
        } else {
            var.when.label()
        };
        let _ = writeln!(
            s,
            "| `{}` | ({when}) {} | {} | {} | {} |",
            var.name,
            cell(var.help),
            cell(var.values),
            cell(var.default),
            none.join(" | ")
        );
    }
    s
}

fn feature_default(spec: &Spec, feature: &str) -> &'static str {
    if spec.default_features.contains(&feature) {
        "on"
    } else {
        "off"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tables::DEMO;

    #[test]
    fn target_prefix_matches_openssl_sys() {
        assert_eq!(
            crate::clib::target_prefixed("x86_64-unknown-linux-gnu", "OPENSSL_DIR"),
            "X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR"
        );
    }

    #[test]
    fn the_table_names_every_knob_and_what_each_binary_links() {
        let t = markdown_table(&DEMO);
        for name in DEMO.build_variable_names() {
            assert!(t.contains(&format!("`{name}`")), "{name} missing");
        }
        for f in DEMO.features() {
            assert!(t.contains(&format!("`--features {f}`")), "{f} missing");
        }
        let hash_row = t
            .lines()
            .find(|l| l.starts_with("| `--features openssl-hash`"))
            .unwrap();
        assert!(
            hash_row.ends_with("| libcrypto when selected | libcrypto, nothing when selected |"),
            "{hash_row}"
        );
        let fast_row = t
            .lines()
            .find(|l| l.starts_with("| `DEMO_HASH_FAST_PROVIDER`"))
            .unwrap();
        assert!(
            fast_row
                .ends_with("| block: nothing; openssl: libcrypto | nothing (does not use it) |"),
            "{fast_row}"
        );
        let tls_row = t
            .lines()
            .find(|l| l.starts_with("| `DEMO_TLS_PROVIDER`"))
            .unwrap();
        assert!(tls_row.contains("nothing (does not use it)"), "{tls_row}");
        assert!(tls_row.contains("openssl: libssl + libcrypto"), "{tls_row}");
        // The source feature, the run-time and the foreign variables, with `|` escaped in cells.
        for row in [
            "| `--features openssl-vendored` | builds OpenSSL from source and links it statically \\| only with an OpenSSL provider | on, off | off | the library inside the binary, not in NEEDED | the library inside the binary, not in NEEDED |",
            "| `DEMO_TRACE` | (run time) 1 traces every call | 0 \\| 1 | 0 | — | — |",
            "| `DEMO_TEST_OFFLINE` | (test command) the tests use no network | 1 | tests may use the network | — | — |",
            "| `OPENSSL_DIR` | (build time) where OpenSSL is installed | directory | found by openssl-sys | — | — |",
            "| `SSL_CERT_FILE` | (run time) trusted CAs of demo-sync | PEM file | the system store | — | — |",
        ] {
            assert!(t.lines().any(|l| l == row), "{row} missing from\n{t}");
        }
    }
}

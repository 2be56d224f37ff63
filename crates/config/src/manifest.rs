//! A facility table declared in the package's own `Cargo.toml`, under
//! `[package.metadata.flagsplit]`, instead of a Rust [`Spec`]: what a library with a few providers
//! and plain C libraries needs, in a few lines, readable by `cargo metadata` without building.
//!
//! ```toml
//! [package.metadata.flagsplit.compress]
//! kind = "zstd"
//! providers = [
//!     { name = "stored", answers-to = "pure-rust" },
//!     { name = "zstd", feature = "zstd", answers-to = "system", pkg-config = "libzstd", header = "zstd.h", symbol = "ZSTD_compress" },
//! ]
//! ```
//!
//! Each key of `[package.metadata.flagsplit]` is a facility (`prefix` and `cfg-prefix` excepted,
//! which default to the package's name: `ZSTD_DEMO`, `zstd_demo`), each facility a table with
//! `providers` (in default order) and optionally `kind`, `label` and `summary`. A provider is an
//! inline table: `name`; optionally `label`, `summary`, `feature`, `answers-to`, `properties`; and,
//! for a provider that links a C library found by [`crate::probe::System`], `pkg-config` (the
//! module), `header` and `symbol` (the function the generated probe includes and links), and
//! optionally `variables` (the `<LIB>_*` prefix, the module's name without `lib` by default),
//! `link` (the `-l` names, the same by default), `min-version` (checked against pkg-config's
//! version, or against `version-macros` of the header) and `install` (`"Debian/Ubuntu: apt-get
//! install ..."`). Every mistake is an error with `Cargo.toml:LINE:COL` and the fix; nothing is
//! ignored.
//!
//! The table is leaked into `'static` data: it lives as long as the build script.

use crate::toml::{Key, Span, Value, ValueInner};

use crate::clib::{Library, Probe, ReadVersion, VersionCheck};
use crate::error::{ConfigError, Errors};
use crate::file::Lines;
use crate::model::{Facility, Provider, Spec, closest};
use crate::probe::System;

/// The keys of `[package.metadata.flagsplit]` that are no facility.
const TOP_KEYS: &[&str] = &["prefix", "cfg-prefix"];
const FACILITY_KEYS: &[&str] = &["providers", "kind", "label", "summary"];
const PROVIDER_KEYS: &[&str] = &[
    "name",
    "label",
    "summary",
    "feature",
    "answers-to",
    "properties",
    "pkg-config",
    "header",
    "symbol",
    "variables",
    "link",
    "min-version",
    "version-macros",
    "install",
];
/// The keys that only mean something with `pkg-config`.
const LIBRARY_KEYS: &[&str] = &[
    "header",
    "symbol",
    "variables",
    "link",
    "min-version",
    "version-macros",
    "install",
];

/// A table declared in `Cargo.toml`, and the probes generated for it.
#[derive(Debug)]
pub(crate) struct Declared {
    /// The table.
    pub(crate) spec: &'static Spec,
    /// Each probe's file name and C source, to be written to the directory the build script
    /// passes to [`crate::script::Build::probe`].
    pub(crate) probes: Vec<(&'static str, String)>,
}

fn leak(s: impl Into<String>) -> &'static str {
    Box::leak(s.into().into_boxed_str())
}

fn leak_all(v: Vec<String>) -> &'static [&'static str] {
    let mut leaked = Vec::with_capacity(v.len());
    for s in v {
        leaked.push(leak(s));
    }
    Box::leak(leaked.into_boxed_slice())
}

/// `zstd-demo` → `ZSTD_DEMO`.
fn upper(name: &str) -> String {
    name.replace('-', "_").to_ascii_uppercase()
}

struct Reader<'a> {
    lines: Lines<'a>,
    errors: Vec<ConfigError>,
}

impl Reader<'_> {
    fn error(&mut self, span: Span, problem: String, fix: String) {
        let at = self.lines.at(span);
        self.errors.push(ConfigError::Metadata { at, problem, fix });
    }

    /// An error about a value: a string's position is its opening quote.
    fn error_at(&mut self, value: &Value<'_>, problem: String, fix: String) {
        let at = match value.as_ref() {
            ValueInner::String(_) => self.lines.at_string(value.span),
            _ => self.lines.at(value.span),
        };
        self.errors.push(ConfigError::Metadata { at, problem, fix });
    }

    fn string(&mut self, where_: &str, key: &str, value: &Value<'_>) -> Option<String> {
        match value.as_ref() {
            ValueInner::String(s) if !s.is_empty() => Some(s.to_string()),
            ValueInner::String(_) => {
                self.error_at(
                    value,
                    format!("`{key}` of {where_} is empty"),
                    format!("give `{key}` a value, or remove it"),
                );
                None
            }
            other => {
                self.error_at(
                    value,
                    format!(
                        "`{key}` of {where_} must be a string, found {}",
                        other.type_str()
                    ),
                    format!("{key} = \"...\""),
                );
                None
            }
        }
    }

    fn strings(&mut self, where_: &str, key: &str, value: &Value<'_>) -> Option<Vec<String>> {
        let items = match value.as_array() {
            Some(items) => items,
            None => {
                self.error_at(
                    value,
                    format!(
                        "`{key}` of {where_} must be an array of strings, found {}",
                        value.as_ref().type_str()
                    ),
                    format!("{key} = [\"...\"]"),
                );
                return None;
            }
        };
        let mut out = Vec::new();
        for item in items {
            out.push(self.string(where_, key, item)?);
        }
        Some(out)
    }

    fn unknown_key(&mut self, span: Span, where_: &str, key: &str, valid: &[&str]) {
        let fix = match closest(key, valid.iter().copied()) {
            Some(meant) => format!("did you mean `{meant}`? (keys: {})", valid.join(", ")),
            None => format!("remove it (keys: {})", valid.join(", ")),
        };
        self.error(span, format!("unknown key `{key}` in {where_}"), fix);
    }
}

/// The table `Cargo.toml` (`text`, named `path` in messages) declares for the package `package`,
/// or `None` when it declares none (no `[package.metadata.flagsplit]`).
pub(crate) fn declared(path: &str, text: &str, package: &str) -> Result<Option<Declared>, Errors> {
    let mut r = Reader {
        lines: Lines::new(text, path),
        errors: Vec::new(),
    };
    let root = match crate::toml::parse(text) {
        Ok(root) => root,
        Err(e) => {
            r.error(
                e.span,
                format!("invalid TOML: {e}"),
                "fix the manifest (cargo reads it too)".to_string(),
            );
            return Err(Errors(r.errors));
        }
    };
    let table = root
        .as_table()
        .and_then(|t| t.get("package"))
        .and_then(|p| p.as_table())
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.as_table())
        .and_then(|m| m.get("flagsplit"));
    let table = match table {
        Some(table) => table,
        None => {
            return Ok(None);
        }
    };
    let entries = match table.as_table() {
        Some(entries) => entries,
        None => {
            r.error_at(
                table,
                format!(
                    "[package.metadata.flagsplit] must be a table, found {}",
                    table.as_ref().type_str()
                ),
                "[package.metadata.flagsplit.<facility>] tables".to_string(),
            );
            return Err(Errors(r.errors));
        }
    };
    let mut prefix = upper(package);
    let mut cfg_prefix = None;
    let mut facilities = Vec::new();
    let mut probes = Vec::new();
    for (key, value) in entries.by_position() {
        match key.name.as_ref() {
            "prefix" => {
                if let Some(p) = r.string("[package.metadata.flagsplit]", "prefix", value) {
                    prefix = p;
                }
            }
            "cfg-prefix" => {
                cfg_prefix = r.string("[package.metadata.flagsplit]", "cfg-prefix", value);
            }
            name => {
                if let Some(f) = facility(&mut r, name, key.span, value, package, &mut probes) {
                    facilities.push(f);
                }
            }
        }
    }
    if facilities.is_empty() && r.errors.is_empty() {
        r.error_at(
            table,
            "[package.metadata.flagsplit] declares no facility".to_string(),
            format!(
                "add a [package.metadata.flagsplit.<facility>] table with `providers` (the keys {} are no facility)",
                TOP_KEYS.join(", ")
            ),
        );
    }
    if !r.errors.is_empty() {
        return Err(Errors(r.errors));
    }
    let cfg_prefix = cfg_prefix.unwrap_or_else(|| prefix.to_ascii_lowercase());
    let facilities: &'static [Facility] = Box::leak(facilities.into_boxed_slice());
    let spec: &'static Spec = Box::leak(Box::new(
        Spec::library(leak(package), leak(prefix), leak(cfg_prefix)).facilities(facilities),
    ));
    Ok(Some(Declared { spec, probes }))
}

fn facility(
    r: &mut Reader<'_>,
    name: &str,
    name_span: Span,
    value: &Value<'_>,
    package: &str,
    probes: &mut Vec<(&'static str, String)>,
) -> Option<Facility> {
    let where_ = format!("[package.metadata.flagsplit.{name}]");
    let entries = match value.as_table() {
        Some(entries) => entries,
        None => {
            r.error_at(
            value,
            format!(
                "{where_} must be a table (a facility), found {}",
                value.as_ref().type_str()
            ),
            format!(
                "[package.metadata.flagsplit.{name}] with `providers = [...]`; the other keys of [package.metadata.flagsplit] are {}",
                TOP_KEYS.join(", ")
            ),
        );
            return None;
        }
    };
    // The providers, in default order: a name, or an inline table with its keys.
    let mut items: Vec<(String, &Value<'_>)> = Vec::new();
    match entries.get("providers") {
        None => {
            r.error(
                name_span,
                format!("{where_} has no `providers`"),
                "providers = [\"...\", ...], the default first".to_string(),
            );
            for (key, _) in entries.by_position() {
                if !FACILITY_KEYS.contains(&key.name.as_ref()) {
                    r.unknown_key(key.span, &where_, &key.name, FACILITY_KEYS);
                }
            }
            return None;
        }
        Some(v) => match v.as_array() {
            Some(list) if !list.is_empty() => {
                for item in list {
                    let item_name = match item.as_ref() {
                        ValueInner::String(s) => Some(s.to_string()),
                        ValueInner::Table(t) => {
                            t.get("name").and_then(|n| n.as_str()).map(str::to_string)
                        }
                        _ => None,
                    };
                    match item_name {
                        Some(n) if !n.is_empty() => items.push((n, item)),
                        _ => r.error_at(
                            item,
                            format!("a provider of {where_} has no name"),
                            "providers = [\"name\", { name = \"other\", feature = \"...\" }]"
                                .to_string(),
                        ),
                    }
                }
            }
            _ => {
                r.error_at(
                    v,
                    format!(
                        "`providers` of {where_} must be a non-empty array of names or tables, found {}",
                        v.as_ref().type_str()
                    ),
                    "providers = [\"...\", ...], the default first".to_string(),
                );
                return None;
            }
        },
    }
    let (mut kind, mut label, mut summary) = (None, None, None);
    let mut tables: Vec<(String, &Value<'_>)> = Vec::new();
    for (key, v) in entries.by_position() {
        match key.name.as_ref() {
            "providers" => {}
            "kind" => kind = r.string(&where_, "kind", v),
            "label" => label = r.string(&where_, "label", v),
            "summary" => summary = r.string(&where_, "summary", v),
            other if items.iter().any(|(n, _)| n == other) => {
                if v.as_table().is_some() {
                    tables.push((other.to_string(), v));
                } else {
                    r.error_at(
                        v,
                        format!(
                            "`{other}` of {where_} must be a table (the provider's keys), found {}",
                            v.as_ref().type_str()
                        ),
                        format!("[package.metadata.flagsplit.{name}.{other}] with its keys"),
                    );
                }
            }
            other => {
                let mut valid: Vec<&str> = FACILITY_KEYS.to_vec();
                valid.extend(items.iter().map(|(n, _)| n.as_str()));
                r.unknown_key(key.span, &where_, other, &valid);
            }
        }
    }
    let errors_before = r.errors.len();
    let mut providers = Vec::new();
    for (provider_name, item) in &items {
        let table = tables
            .iter()
            .find(|(n, _)| n == provider_name)
            .map(|(_, v)| *v);
        if let Some(p) = provider(
            r,
            &where_,
            name,
            provider_name,
            item,
            table,
            package,
            probes,
        ) {
            providers.push(p);
        }
    }
    if r.errors.len() > errors_before || providers.is_empty() {
        return None;
    }
    let providers: &'static [Provider] = Box::leak(providers.into_boxed_slice());
    let mut f = Facility::new(
        leak(name),
        leak(label.unwrap_or_else(|| upper(name))),
        leak(summary.unwrap_or_else(|| name.to_string())),
        providers,
    );
    if let Some(kind) = kind {
        f = f.kind(leak(kind));
    }
    Some(f)
}

/// What a provider's C library needs said, gathered before the library is made.
#[derive(Default)]
struct LibraryKeys {
    module: Option<String>,
    header: Option<String>,
    symbol: Option<String>,
    variables: Option<String>,
    link: Option<Vec<String>>,
    min_version: Option<String>,
    version_macros: Option<Vec<String>>,
    install: Option<Vec<(String, String)>>,
    /// Where the first library-only key is, for the error when `pkg-config` is missing.
    first: Option<(Span, String)>,
}

/// One provider: `item` (its name, or an inline table) and `table` (its
/// `[package.metadata.flagsplit.<facility>.<provider>]`, if any), whose keys add up; a key given
/// in both is an error.
#[allow(clippy::too_many_arguments)]
fn provider(
    r: &mut Reader<'_>,
    facility_where: &str,
    facility: &str,
    name: &str,
    item: &Value<'_>,
    table: Option<&Value<'_>>,
    package: &str,
    probes: &mut Vec<(&'static str, String)>,
) -> Option<Provider> {
    let where_ = format!("provider `{name}` of {facility_where}");
    let mut entries: Vec<(&Key<'_>, &Value<'_>)> = Vec::new();
    for source in [Some(item), table].into_iter().flatten() {
        if let Some(t) = source.as_table() {
            for (k, v) in t.by_position() {
                if let Some((first, _)) = entries.iter().find(|(e, _)| e.name == k.name) {
                    let at = r.lines.at(first.span);
                    r.error(
                        k.span,
                        format!("`{}` of {where_} is given twice (first at {at})", k.name),
                        "keep one".to_string(),
                    );
                    continue;
                }
                entries.push((k, v));
            }
        }
    }
    let errors_before = r.errors.len();
    let (mut label, mut summary, mut feature, mut answers, mut properties) =
        (None, None, None, None, None);
    let mut lib = LibraryKeys::default();
    for (key, v) in entries {
        let k = key.name.as_ref();
        if LIBRARY_KEYS.contains(&k) && lib.first.is_none() {
            lib.first = Some((key.span, k.to_string()));
        }
        match k {
            "name" => {}
            "label" => label = r.string(&where_, k, v),
            "summary" => summary = r.string(&where_, k, v),
            "feature" => feature = r.string(&where_, k, v),
            "answers-to" => answers = r.string(&where_, k, v),
            "properties" => properties = r.strings(&where_, k, v),
            "pkg-config" => lib.module = r.string(&where_, k, v),
            "header" => lib.header = r.string(&where_, k, v),
            "symbol" => lib.symbol = r.string(&where_, k, v),
            "variables" => lib.variables = r.string(&where_, k, v),
            "link" => lib.link = r.strings(&where_, k, v),
            "min-version" => lib.min_version = r.string(&where_, k, v),
            "version-macros" => lib.version_macros = r.strings(&where_, k, v),
            "install" => {
                if let Some(lines) = r.strings(&where_, k, v) {
                    let mut pairs = Vec::new();
                    for line in lines {
                        match line.split_once(": ") {
                            Some((system, command)) => {
                                pairs.push((system.to_string(), command.to_string()))
                            }
                            None => r.error_at(
                                v,
                                format!("`install` of {where_}: `{line}` names no system"),
                                "install = [\"Debian/Ubuntu: apt-get install libfoo-dev pkg-config\"]"
                                    .to_string(),
                            ),
                        }
                    }
                    lib.install = Some(pairs);
                }
            }
            other => r.unknown_key(key.span, &where_, other, PROVIDER_KEYS),
        }
    }
    let mut p = Provider::new(
        leak(name),
        leak(label.unwrap_or_else(|| upper(name))),
        leak(summary.unwrap_or_else(|| name.to_string())),
    );
    if let Some(f) = feature {
        p = p.feature(leak(f));
    }
    if let Some(a) = answers {
        p = p.answers_to(leak(a));
    }
    if let Some(props) = properties {
        p = p.properties(leak_all(props));
    }
    match lib.module.take() {
        Some(module) => {
            let span = table.unwrap_or(item).span;
            let (links, probe) = library(
                r, &where_, span, facility, name, module, lib, package, probes,
            )?;
            p = p.links(links).probe(probe);
        }
        None => {
            if let Some((span, key)) = lib.first {
                r.error(
                    span,
                    format!(
                        "`{key}` of {where_} describes a C library, but the provider has no `pkg-config`"
                    ),
                    "name the library's pkg-config module: pkg-config = \"libfoo\" (or remove the key)"
                        .to_string(),
                );
            }
        }
    }
    if r.errors.len() > errors_before {
        return None;
    }
    Some(p)
}

#[allow(clippy::too_many_arguments)]
fn library(
    r: &mut Reader<'_>,
    where_: &str,
    span: Span,
    facility: &str,
    provider: &str,
    module: String,
    keys: LibraryKeys,
    package: &str,
    probes: &mut Vec<(&'static str, String)>,
) -> Option<(&'static [&'static str], &'static Probe)> {
    let (header, symbol) = match (keys.header, keys.symbol) {
        (Some(header), Some(symbol)) => (header, symbol),
        _ => {
            r.error(
                span,
                format!("{where_} links `{module}` but does not say what its probe checks"),
                "add header = \"foo.h\" and symbol = \"foo_function\" (a function the header declares)"
                    .to_string(),
            );
            return None;
        }
    };
    let base = module.strip_prefix("lib").unwrap_or(&module).to_string();
    let variables = keys.variables.unwrap_or_else(|| upper(&base));
    let link = keys.link.unwrap_or_else(|| vec![base.clone()]);
    let finder: &'static System =
        Box::leak(Box::new(System::new(leak(module.clone()), leak(variables))));
    let mut library = Library::new(leak(base.clone()), finder);
    if let Some(install) = keys.install {
        let pairs: Vec<(&'static str, &'static str)> = install
            .into_iter()
            .map(|(s, c)| (leak(s), leak(c)))
            .collect();
        library = library.install(Box::leak(pairs.into_boxed_slice()));
    }
    if let Some(minimum) = keys.min_version {
        let read = match keys.version_macros {
            Some(macros) => ReadVersion::macros(leak(header.clone()), leak_all(macros)),
            None => ReadVersion::FOUND,
        };
        library = library.version(VersionCheck::minimum(read, leak(minimum)));
    }
    let library: &'static Library = Box::leak(Box::new(library));
    let file = leak(format!("probe-{facility}-{provider}.c"));
    let probe: &'static Probe = Box::leak(Box::new(Probe::new(
        library,
        file,
        leak(symbol.clone()),
        leak_all(link),
        leak(format!("{symbol} in {module}")),
    )));
    probes.push((
        file,
        format!(
            "/* Generated from {package}'s Cargo.toml ([package.metadata.flagsplit.{facility}], provider {provider}): {header} declares {symbol}, and the library defines it. */\n#include <{header}>\n\nint main(void) {{\n    void (*volatile f)(void) = (void (*)(void)){symbol};\n    return f == 0;\n}}\n"
        ),
    ));
    Some((Box::leak(vec![leak(module)].into_boxed_slice()), probe))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's zstd-demo.
    const ZSTD: &str = r#"[package]
name = "zstd-demo"

[package.metadata.flagsplit.compress]
providers = ["stored", "zstd"]

[package.metadata.flagsplit.compress.zstd]
feature = "zstd"
pkg-config = "libzstd"
header = "zstd.h"
symbol = "ZSTD_compress"
min-version = "1.4.0"
install = ["Debian/Ubuntu: apt-get install libzstd-dev pkg-config"]
"#;

    /// The same, each provider an inline table, with a kind.
    const INLINE: &str = r#"[package.metadata.flagsplit.compress]
kind = "zstd"
providers = [
    { name = "stored", answers-to = "pure-rust" },
    { name = "zstd", feature = "zstd", answers-to = "system", pkg-config = "libzstd", header = "zstd.h", symbol = "ZSTD_compress" },
]
"#;

    fn errors(text: &str) -> String {
        declared("Cargo.toml", text, "zstd-demo")
            .expect_err("an error")
            .to_string()
    }

    #[test]
    fn a_table_declared_in_the_manifest() {
        let d = declared("Cargo.toml", ZSTD, "zstd-demo").unwrap().unwrap();
        assert_eq!(d.spec.check(), Ok(()));
        assert_eq!(
            (d.spec.name, d.spec.prefix, d.spec.cfg_prefix),
            ("zstd-demo", "ZSTD_DEMO", "zstd_demo")
        );
        let f = &d.spec.facilities[0];
        assert_eq!((f.name, f.label, f.kind), ("compress", "COMPRESS", None));
        let names: Vec<&str> = f.providers.iter().map(|p| p.name).collect();
        assert_eq!(names, ["stored", "zstd"]);
        let zstd = &f.providers[1];
        assert_eq!((zstd.feature, zstd.label), (Some("zstd"), "ZSTD"));
        assert_eq!(zstd.links, ["libzstd"]);
        let probe = zstd.probe.unwrap();
        assert_eq!((probe.symbol, probe.link), ("ZSTD_compress", &["zstd"][..]));
        assert_eq!(probe.library.name, "zstd");
        assert_eq!(
            probe.library.install,
            &[("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config")]
        );
        assert!(probe.library.version.is_some());
        assert_eq!(d.probes.len(), 1);
        assert_eq!(d.probes[0].0, "probe-compress-zstd.c");
        assert!(d.probes[0].1.contains("#include <zstd.h>"));
        assert!(d.probes[0].1.contains("(void (*)(void))ZSTD_compress;"));
    }

    #[test]
    fn inline_providers_and_a_kind() {
        let d = declared("Cargo.toml", INLINE, "zstd-demo")
            .unwrap()
            .unwrap();
        assert_eq!(d.spec.check(), Ok(()));
        let f = &d.spec.facilities[0];
        assert_eq!(f.kind, Some("zstd"));
        assert_eq!(f.providers[0].answers_to, Some("pure-rust"));
        assert_eq!(f.providers[1].answers_to, Some("system"));
        assert!(f.providers[1].probe.is_some());
        assert!(f.providers[1].links == ["libzstd"]);
    }

    /// The README's example, as it stands.
    #[test]
    fn a_manifest_in_toml_1_1_as_cargo_reads_it() {
        // Line breaks, comments and trailing commas in inline tables: Cargo accepts them, so the
        // build script must.
        let text = r#"[package]
name = "zstd-demo"
metadata.flagsplit.compress = {
    kind = "zstd", # a comment
    providers = [
        { name = "stored", answers-to = "pure-rust" },
        {
            name = "zstd", feature = "zstd", answers-to = "system",
            pkg-config = "libzstd", header = "zstd.h", symbol = "ZSTD_compress",
        },
    ],
}
"#;
        let d = declared("Cargo.toml", text, "zstd-demo").unwrap().unwrap();
        assert_eq!(d.spec.check(), Ok(()));
        let f = &d.spec.facilities[0];
        assert_eq!(f.kind, Some("zstd"));
        assert!(f.providers[1].links == ["libzstd"]);
    }

    #[test]
    fn the_readme_table() {
        let readme = include_str!("../README.md");
        let section = readme
            .split("## The table in `Cargo.toml`")
            .nth(1)
            .expect("the README's section");
        let block = section
            .split("```toml\n")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .expect("its toml block");
        let d = declared("Cargo.toml", block, "zstd-demo")
            .expect("no mistake")
            .expect("a table");
        assert_eq!(d.spec.check(), Ok(()));
        assert_eq!(
            d.spec.facilities[0].providers[1].probe.map(|p| p.symbol),
            Some("ZSTD_compress")
        );
    }

    #[test]
    fn no_table_is_none() {
        assert!(
            declared("Cargo.toml", "[package]\nname = \"x\"\n", "x")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn mistakes_name_the_place_and_the_fix() {
        let e = errors(&ZSTD.replace("pkg-config = ", "pkgconfig = "));
        assert!(
            e.contains("Cargo.toml:9:1: unknown key `pkgconfig` in provider `zstd` of [package.metadata.flagsplit.compress]"),
            "{e}"
        );
        assert!(e.contains("did you mean `pkg-config`?"), "{e}");
        assert!(
            e.contains("`header` of provider `zstd` of [package.metadata.flagsplit.compress] describes a C library, but the provider has no `pkg-config`"),
            "{e}"
        );

        let e = errors(&ZSTD.replace("header = \"zstd.h\"\n", ""));
        assert!(
            e.contains("links `libzstd` but does not say what its probe checks"),
            "{e}"
        );

        let e = errors(&ZSTD.replace("providers = ", "provider = "));
        assert!(
            e.contains("Cargo.toml:4:29: [package.metadata.flagsplit.compress] has no `providers`"),
            "{e}"
        );
        assert!(e.contains("Cargo.toml:5:1: unknown key `provider`"), "{e}");
        assert!(e.contains("did you mean `providers`?"), "{e}");

        let e = errors(&ZSTD.replace("compress.zstd]", "compress.zsdt]"));
        assert!(e.contains("Cargo.toml:7:38: unknown key `zsdt`"), "{e}");
        assert!(e.contains("did you mean `zstd`?"), "{e}");

        let e = errors(&INLINE.replace(
            "feature = \"zstd\", ",
            "feature = \"zstd\", feature = \"x\", ",
        ));
        assert!(e.contains("invalid TOML"), "{e}");

        let e = errors(&format!(
            "{ZSTD}[package.metadata.flagsplit.compress.stored]\nfeature = 1\n"
        ));
        assert!(e.contains("`feature` of provider `stored` of [package.metadata.flagsplit.compress] must be a string, found integer"), "{e}");

        let twice = INLINE.replace(
            "{ name = \"stored\", answers-to = \"pure-rust\" }",
            "{ name = \"stored\", answers-to = \"pure-rust\", feature = \"x\" }",
        ) + "[package.metadata.flagsplit.compress.stored]\nfeature = \"y\"\n";
        let e = errors(&twice);
        assert!(e.contains("`feature` of provider `stored` of [package.metadata.flagsplit.compress] is given twice (first at Cargo.toml:4:"), "{e}");

        let e = errors("[package.metadata.flagsplit]\nprefix = \"X\"\n");
        assert!(
            e.contains("Cargo.toml:1:1: [package.metadata.flagsplit] declares no facility"),
            "{e}"
        );

        let e = errors("[package.metadata.flagsplit]\ncompress = \"zstd\"\n");
        assert!(
            e.contains("Cargo.toml:2:12: [package.metadata.flagsplit.compress] must be a table"),
            "{e}"
        );

        let e = errors("[package.metadata.flagsplit.compress]\nproviders = [{ label = \"X\" }]\n");
        assert!(
            e.contains("a provider of [package.metadata.flagsplit.compress] has no name"),
            "{e}"
        );

        let e = errors(&ZSTD.replace("install = [\"Debian/Ubuntu: ", "install = [\""));
        assert!(e.contains("names no system"), "{e}");
    }

    #[test]
    fn a_table_that_spec_check_refuses_is_refused_by_the_build() {
        // The manifest's reader builds the table; Spec::check (run by resolve_and_emit) judges it:
        // here the default is behind a feature.
        let text = "[package.metadata.flagsplit.compress]\nproviders = [{ name = \"zstd\", feature = \"zstd\" }]\n";
        let d = declared("Cargo.toml", text, "zstd-demo").unwrap().unwrap();
        assert!(d.spec.check().is_err());
    }
}

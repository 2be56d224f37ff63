//! What the build decided, printed by `version --build-options` in git's stable style: one fact per
//! line, `key: value`, so scripts can grep it.
//!
//! The decision is the build-options table the root package's build script generates
//! (`OUT_DIR/build_info.rs`), which only that package's targets can include: each of them names
//! it (`flagsplit::build_options::BUILD_INFO`, and `flagsplit-imap-send`'s own) and passes it
//! here as `info`.

use std::io::{self, Write};

use flagsplit_info::BuildInfo;
use flagsplit_spec::{OPENSSL, SHA1, SPEC, TLS};

use crate::cli::VERSION;
use crate::cpu::CpuFeatures;

/// The `version --build-options` token of the provider selected for `facility` (git's
/// `SHA1_DC`, `SHA1_BLK`, ..., and flagsplit's for the facilities git does not have), from the
/// facility table.
pub fn token(info: &BuildInfo, facility: &str) -> &'static str {
    SPEC.facility(facility)
        .and_then(|f| f.provider(info.provider(facility)))
        .map_or("?", |p| p.label)
}

/// The selection as JSON object members, one per facility in the table's order:
/// `"sha1": {"provider": "dc", "token": "SHA1_DC", "origin": "default", "kind": "sha1"}` (`kind`
/// null for a facility of no kind).
pub fn provider_members(info: &BuildInfo) -> Vec<String> {
    use crate::json::string;
    info.choices
        .iter()
        .map(|c| {
            format!(
                "{}: {{\"provider\": {}, \"token\": {}, \"origin\": {}, \"kind\": {}}}",
                string(c.facility),
                string(c.provider),
                string(token(info, c.facility)),
                string(c.origin),
                c.kind.map_or_else(|| "null".to_string(), string)
            )
        })
        .collect()
}

/// What `binary` links because of this build's selection (`libssl`, `libcrypto`).
pub fn links(info: &BuildInfo, binary: &str) -> Vec<&'static str> {
    SPEC.links(binary, |f| f.provider(info.provider(f.name)))
}

/// Facts only the calling binary knows.
#[derive(Clone, Debug, Default)]
pub struct RuntimeFacts {
    /// OpenSSL's own version text, when this binary links OpenSSL.
    pub openssl: Option<String>,
    /// The TLS provider's version, when this binary has one.
    pub tls: Option<String>,
    /// The zlib library and its version as git prints them (`zlib`, `1.2.13`; `zlib-ng`,
    /// `2.2.4`), when this binary inflates.
    pub zlib: Option<(&'static str, String)>,
}

/// Writes `version --build-options` for `binary`.
pub fn write(
    out: &mut impl Write,
    info: &BuildInfo,
    binary: &str,
    facts: &RuntimeFacts,
) -> io::Result<()> {
    writeln!(out, "{binary} version {VERSION}")?;
    writeln!(out, "cpu: {}", CpuFeatures::detect().describe())?;
    for facility in SPEC.facilities {
        let token = token(info, facility.name);
        match &facts.tls {
            Some(version) if facility.name == TLS => {
                writeln!(out, "{}: {token} ({version})", facility.label)?
            }
            _ => writeln!(out, "{}: {token}", facility.label)?,
        }
    }
    if let Some(openssl) = &facts.openssl {
        // A static OpenSSL (OPENSSL_STATIC, openssl-vendored) is inside the binary: no NEEDED entry
        // shows it, so the line says it.
        let linked = if info.library(OPENSSL.name).is_some_and(|o| o.static_link) {
            " (static)"
        } else {
            ""
        };
        writeln!(out, "OpenSSL: {openssl}{linked}")?;
    }
    if let Some((library, version)) = &facts.zlib {
        writeln!(out, "{library}: {version}")?;
    }
    writeln!(out, "features: {}", info.describe_features())?;
    writeln!(out, "config-file: {}", info.config_file)?;
    for choice in info.choices {
        writeln!(out, "{choice}")?;
    }
    let mut linked = links(info, binary);
    // libssl first, as the loader lists them.
    linked.sort_by_key(|l| *l != "libssl");
    if linked.is_empty() {
        writeln!(out, "links: (no OpenSSL)")?;
    } else {
        writeln!(out, "links: {}", linked.join(" "))?;
    }
    if let Some(o) = info
        .library(OPENSSL.name)
        .filter(|_| linked.contains(&"libcrypto"))
    {
        writeln!(
            out,
            "openssl-build: {} located by {} in {} ({})",
            o.version.unwrap_or("unknown"),
            o.located_by,
            dirs_text(o.lib_dirs),
            if o.static_link { "static" } else { "dynamic" }
        )?;
    }
    // OpenSSL has its own line above (its version included, as git's `OpenSSL:` line).
    for l in info
        .libraries
        .iter()
        .filter(|l| l.library != OPENSSL.name && uses_library(info, binary, l.library))
    {
        writeln!(
            out,
            "{}-build: located by {} in {} ({})",
            l.library,
            l.located_by,
            dirs_text(l.lib_dirs),
            if l.static_link { "static" } else { "dynamic" }
        )?;
    }
    writeln!(out, "target: {}", info.target)?;
    Ok(())
}

/// Library directories as the `*-build:` lines say them.
fn dirs_text(dirs: &[&str]) -> String {
    if dirs.is_empty() {
        "the compiler's default paths".to_string()
    } else {
        dirs.join(", ")
    }
}

/// Whether `binary` uses a facility whose selected provider links the probed library `library`.
fn uses_library(info: &BuildInfo, binary: &str, library: &str) -> bool {
    SPEC.facilities.iter().any(|f| {
        f.used_by.contains(&binary)
            && f.provider(info.provider(f.name))
                .and_then(|p| p.probe)
                .is_some_and(|probe| probe.library.name == library)
    })
}

/// `version --build-options --json`: the same facts as [`write`](fn@write), machine-readable, so
/// that a packager's CI can assert the providers of the binary it is about to ship.
pub fn json(info: &BuildInfo, binary: &str, facts: &RuntimeFacts) -> String {
    use crate::json::{opt_string, string};
    let cpu = CpuFeatures::detect();
    let linked = links(info, binary);
    let libcrypto = linked.contains(&"libcrypto");
    let libssl = linked.contains(&"libssl");
    let providers: Vec<String> = provider_members(info)
        .iter()
        .map(|m| format!("    {m}"))
        .collect();
    let features: Vec<String> = info.feature_names().into_iter().map(string).collect();
    let openssl_build = match info.library(OPENSSL.name).filter(|_| libcrypto) {
        None => "null".to_string(),
        Some(o) => {
            let dirs: Vec<String> = o.lib_dirs.iter().map(|d| string(d)).collect();
            format!(
                "{{\"version\": {}, \"located_by\": {}, \"lib_dirs\": [{}], \"static\": {}}}",
                string(o.version.unwrap_or("unknown")),
                string(o.located_by),
                dirs.join(", "),
                o.static_link
            )
        }
    };
    format!(
        "{{\n  \"binary\": {},\n  \"version\": {},\n  \"target\": {},\n  \"features\": [{}],\n  \"config_file\": {},\n  \"providers\": {{\n{}\n  }},\n  \"collision_detection\": {},\n  \"links\": {{\"libcrypto\": {}, \"libssl\": {}}},\n  \"openssl\": {},\n  \"openssl_build\": {},\n  \"tls_version\": {},\n  \"zlib\": {},\n  \"cpu\": {{\"arch\": {}, \"sha_instructions\": {}, \"avx2\": {}}}\n}}\n",
        string(binary),
        string(VERSION),
        string(info.target),
        features.join(", "),
        string(info.config_file),
        providers.join(",\n"),
        info.provider(SHA1) == "dc",
        libcrypto,
        libssl,
        opt_string(facts.openssl.as_deref()),
        openssl_build,
        opt_string(facts.tls.as_deref()),
        facts
            .zlib
            .as_ref()
            .map_or("null".to_string(), |(library, version)| format!(
                "{{\"library\": {}, \"version\": {}}}",
                string(library),
                string(version)
            )),
        string(std::env::consts::ARCH),
        cpu.sha,
        cpu.avx2
    )
}

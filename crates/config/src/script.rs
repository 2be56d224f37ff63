//! The I/O half of a flagsplit build script (feature `build-script`): read the environment through
//! one injectable [`Env`] that records `rerun-if-env-changed`, read the config file, call
//! [`crate::resolve()`], probe OpenSSL, and emit the directives. Every package whose code depends on
//! the selection calls [`run`] (or [`follow`]) from its `build.rs`, so they all decide alike.
//!
//! The OpenSSL checks are [`probe::setup`]; this module only says what the selection needs
//! ([`openssl_needs`]).

use std::path::{Path, PathBuf};
use std::{env, fs};

use crate::codegen;
pub use crate::env::Env;
use crate::model::{Choice, Facility, Feature, FeatureSet, Provider, Selection};
use crate::probe::{self, Asker, Capability, Need};
use crate::remap::PathRemap;
use crate::resolve::{self, ConfigFileInput, Inputs};

/// Runs the whole build-script job for the current package: resolve, emit `cfg`s, check and probe
/// OpenSSL, write `OUT_DIR/build_info.rs`. On any error it prints `cargo::error=` lines (which fail
/// the build) and returns `None`.
pub fn run() -> Option<Selection> {
    let env = Env::process();
    let manifest_dir = PathBuf::from(env.cargo_var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(env.cargo_var("OUT_DIR").unwrap_or_default());

    let features: FeatureSet = Feature::ALL
        .into_iter()
        .filter(|f| env.cargo_var(f.cargo_env()).is_some())
        .collect();
    let vars = env.flagsplit_vars();
    let file = resolve::config_file_name(&vars).map(|named| {
        let path = manifest_dir.join(named);
        println!("cargo::rerun-if-changed={}", path.display());
        ConfigFileInput {
            named: named.to_string(),
            resolved: path.display().to_string(),
            contents: fs::read_to_string(&path).map_err(|e| e.to_string()),
        }
    });
    let inputs = Inputs {
        features,
        env: vars,
        file,
    };
    let selection = match resolve::resolve(&inputs) {
        Ok(selection) => selection,
        Err(errors) => {
            error(&errors.to_string());
            return None;
        }
    };

    emit_cfgs(&selection);
    for facility in Facility::ALL {
        // Read by the packages above as DEP_FLAGSPLIT_<FACILITY> (see `follow`).
        println!(
            "cargo::metadata={}={}",
            metadata_key(facility),
            selection.provider(facility)
        );
    }

    if env.cargo_var(VENDORED_FEATURE).is_some() {
        let on: Vec<&str> = features.iter().map(|f| f.name()).collect();
        let openssl_on: Vec<&str> = features
            .iter()
            .filter(|f| *f != Feature::RustlsTls)
            .map(|f| f.name())
            .collect();
        let selected = !selection.needed_capabilities().is_empty();
        match probe::vendored_check(&on, &openssl_on, selected) {
            Ok(None) => {}
            Ok(Some(w)) => warning(&w),
            Err(e) => {
                error(&e);
                return None;
            }
        }
    }

    let mut openssl = None;
    let needs = openssl_needs(&selection);
    if !needs.is_empty() {
        // The probes' sources are in the repository's top-level compat/, two levels above
        // crates/hash.
        let compat_dir = manifest_dir.join("../../compat");
        match probe::setup(&env, &needs, &compat_dir, &out_dir) {
            Ok(found) => openssl = Some(found),
            Err(message) => {
                error(&message);
                return None;
            }
        }
    }

    // The table's paths follow the `--remap-path-prefix` flags, as the paths rustc embeds do
    // (reproducible builds in different directories).
    let remap = PathRemap::from_encoded_rustflags(
        &env.cargo_var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default(),
    );
    let source_features: Vec<&str> = crate::knobs::SOURCE_FEATURES
        .iter()
        .filter(|f| {
            let var = format!("CARGO_FEATURE_{}", f.name.to_uppercase().replace('-', "_"));
            env.cargo_var(&var).is_some()
        })
        .map(|f| f.name)
        .collect();
    let literal = codegen::build_info_literal(
        &remap.selection(&selection),
        features,
        &source_features,
        openssl.as_ref().map(|o| remap.openssl(o)).as_ref(),
        &env.target_triple(),
    );
    if let Err(e) = write_if_changed(&out_dir.join("build_info.rs"), &literal) {
        error(&format!("cannot write {}: {e}", out_dir.display()));
        return None;
    }
    Some(selection)
}

/// The variable Cargo sets when `flagsplit-hash`'s feature `openssl-vendored` is on.
pub const VENDORED_FEATURE: &str = "CARGO_FEATURE_OPENSSL_VENDORED";

/// The OpenSSL capabilities the selection needs, each with the facilities that selected OpenSSL
/// for it and the variable that selects another provider instead.
pub fn openssl_needs(selection: &Selection) -> Vec<Need> {
    selection
        .needed_capabilities()
        .into_iter()
        .map(|capability| {
            let facilities: &[Facility] = match capability {
                Capability::Sha1Digest => &[Facility::Sha1, Facility::Sha1Unsafe],
                Capability::Md5Digest => &[Facility::Md5],
                Capability::TlsClient => &[Facility::Tls],
                Capability::Sha256Digest => &[],
            };
            let askers = facilities
                .iter()
                .filter(|f| selection.provider(**f) == Provider::Openssl)
                .map(|f| {
                    let other = f
                        .providers()
                        .iter()
                        .find(|p| **p != Provider::Openssl)
                        .map_or("", |p| p.name());
                    Asker {
                        what: format!("{f} = openssl"),
                        origin: selection.get(*f).origin.to_string(),
                        instead: format!("{}={other}", f.env_var()),
                    }
                })
                .collect();
            Need { capability, askers }
        })
        .collect()
}

/// The `links` metadata key for a facility (`sha1_unsafe` → `DEP_FLAGSPLIT_SHA1_UNSAFE`).
fn metadata_key(facility: Facility) -> &'static str {
    facility.cfg_name().trim_start_matches("flagsplit_")
}

/// For a package that depends on `flagsplit-hash`: emits the `cfg`s of the selection that
/// `flagsplit-hash`'s build script resolved (read from `DEP_FLAGSPLIT_*`), so that every package
/// of the build sees the same decision without deciding again.
pub fn follow() -> Option<Selection> {
    let mut choices = Facility::ALL.map(|f| Choice::default_of(f.providers()[0]));
    for facility in Facility::ALL {
        let var = format!("DEP_FLAGSPLIT_{}", metadata_key(facility).to_uppercase());
        let provider = env::var(&var)
            .ok()
            .and_then(|v| Provider::from_name(&v))
            .filter(|p| facility.providers().contains(p));
        let Some(provider) = provider else {
            error(&format!(
                "{var} is missing: this package must depend on flagsplit-hash, which resolves the build configuration"
            ));
            return None;
        };
        choices[facility as usize].provider = provider;
    }
    let selection = Selection { choices };
    emit_cfgs(&selection);
    Some(selection)
}

/// Prints a multi-line message as `cargo::error` lines.
pub fn error(message: &str) {
    for line in message.lines() {
        println!("cargo::error={line}");
    }
}

/// Prints a multi-line message as `cargo::warning` lines.
pub fn warning(message: &str) {
    for line in message.lines() {
        println!("cargo::warning={line}");
    }
}

/// The split itself (`openssl_sha1`, `openssl_md5`, `openssl_tls`) and one value cfg per facility,
/// each declared with `rustc-check-cfg`.
pub fn emit_cfgs(selection: &Selection) {
    for (name, on) in [
        ("openssl_sha1", selection.openssl_sha1()),
        ("openssl_md5", selection.openssl_md5()),
        ("openssl_tls", selection.openssl_tls()),
    ] {
        println!("cargo::rustc-check-cfg=cfg({name})");
        if on {
            println!("cargo::rustc-cfg={name}");
        }
    }
    for facility in Facility::ALL {
        let values: Vec<String> = facility
            .providers()
            .iter()
            .map(|p| format!("\"{p}\""))
            .collect();
        println!(
            "cargo::rustc-check-cfg=cfg({}, values({}))",
            facility.cfg_name(),
            values.join(", ")
        );
        println!(
            "cargo::rustc-cfg={}=\"{}\"",
            facility.cfg_name(),
            selection.provider(facility)
        );
    }
}

/// Writes `contents` unless the file already holds exactly that (keeps mtimes stable).
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    fs::write(path, contents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Origin;

    #[test]
    fn needs_name_who_asked_and_the_way_around() {
        let selection = Selection {
            choices: [
                Choice {
                    provider: Provider::Openssl,
                    origin: Origin::Env("FLAGSPLIT_SHA1_PROVIDER"),
                },
                Choice {
                    provider: Provider::Openssl,
                    origin: Origin::FeatureDefault(Feature::OpensslSha1),
                },
                Choice::default_of(Provider::Builtin),
                Choice::default_of(Provider::Openssl),
            ],
        };
        let needs = openssl_needs(&selection);
        let caps: Vec<Capability> = needs.iter().map(|n| n.capability).collect();
        assert_eq!(caps, [Capability::Sha1Digest, Capability::TlsClient]);
        assert_eq!(
            needs[0].askers,
            [
                Asker {
                    what: "sha1 = openssl".into(),
                    origin: "FLAGSPLIT_SHA1_PROVIDER".into(),
                    instead: "FLAGSPLIT_SHA1_PROVIDER=dc".into(),
                },
                Asker {
                    what: "sha1-unsafe = openssl".into(),
                    origin: "default with feature openssl-sha1".into(),
                    instead: "FLAGSPLIT_SHA1_UNSAFE_PROVIDER=block".into(),
                },
            ]
        );
        assert_eq!(needs[1].askers[0].instead, "FLAGSPLIT_TLS_PROVIDER=rustls");
        let none = Selection {
            choices: [
                Choice::default_of(Provider::Dc),
                Choice::default_of(Provider::Block),
                Choice::default_of(Provider::Builtin),
                Choice::default_of(Provider::None),
            ],
        };
        assert!(openssl_needs(&none).is_empty());
    }
}

//! The I/O half of a build script (feature `build-script`): read the environment through one
//! injectable [`Env`] that records `rerun-if-env-changed`, find the config file, call
//! [`crate::resolve()`] on a [`Spec`], emit the `cfg`s, probe the C libraries, and write the
//! build-options table. Each crate that declares facilities runs it once for its own table (its
//! own prefix, its own `cfg`s, which reach only its own targets), so nothing is decided twice: the
//! application's package for its table ([`crate::Role::Application`]), each library for its own
//! ([`crate::Role::Library`], selected by the application through the variables):
//!
//! ```no_run
//! # static SPEC: flagsplit_config::Spec = flagsplit_config::Spec::library("demo", "DEMO", "demo");
//! // build.rs
//! fn main() {
//!     let build = flagsplit_config::script::Build::new(&SPEC);
//!     if let Some(resolved) = build.resolve_and_emit() {
//!         build.write_build_info(&resolved, &Default::default());
//!     }
//! }
//! ```
//!
//! A table declared in `Cargo.toml` (`[package.metadata.flagsplit]`, feature `config-file` too)
//! needs no Rust at all: the whole build script is `main`.
//!
//! Cross builds: the target is read from `TARGET` and `CARGO_CFG_TARGET_*` (never `cfg!`, which
//! describes the machine running the build script).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use crate::clib::{Asker, target_prefixed};
use crate::clib::{Library, LibraryFound};
use crate::codegen;
pub use crate::directive::{error, warning};
use crate::env::Env;
use crate::graph::{self, Setting};
use crate::model::{FeatureSet, Role, Selection, Spec};
use crate::probe;
use crate::probe::need::Need;
use crate::remap::PathRemap;
use crate::resolve::{self, ConfigFileInput, Inputs, TargetCfg};

/// The directory, at the package root, holding a committed symlink `config.toml ->
/// ../config.toml`: Cargo's scan of a watched directory follows the link, so creating, editing or
/// deleting the local config file reruns the build script, while a missing file is not "always
/// dirty" as a missing `rerun-if-changed` path is.
pub const WATCH_DIR: &str = ".config-watch";

/// What a successful resolution decided.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Resolved {
    /// The selection.
    pub selection: Selection,
    /// The enabled provider features.
    pub features: FeatureSet,
    /// The enabled source features ([`Spec::source_features`]).
    pub source_features: Vec<&'static str>,
    /// The config file read, as `version --build-options` says it.
    pub config_file: String,
}

/// One build script's job for one [`Spec`].
#[non_exhaustive]
pub struct Build {
    /// The facility table.
    pub spec: &'static Spec,
    /// The build environment.
    pub env: Env,
    /// `CARGO_MANIFEST_DIR`: the package root.
    pub manifest_dir: PathBuf,
    /// `OUT_DIR`.
    pub out_dir: PathBuf,
}

impl Build {
    /// For the build script of the current package.
    pub fn new(spec: &'static Spec) -> Build {
        Build::with_env(spec, Env::process())
    }

    /// With a given environment (tests).
    pub fn with_env(spec: &'static Spec, env: Env) -> Build {
        let manifest_dir = PathBuf::from(env.cargo_var("CARGO_MANIFEST_DIR").unwrap_or_default());
        let out_dir = PathBuf::from(env.cargo_var("OUT_DIR").unwrap_or_default());
        Build {
            spec,
            env,
            manifest_dir,
            out_dir,
        }
    }

    /// Whether this package was unpacked from a registry (`cargo install`, a dependency): Cargo
    /// writes `Cargo.toml.orig` into every package it publishes.
    pub fn is_packaged(&self) -> bool {
        self.manifest_dir.join("Cargo.toml.orig").is_file()
    }

    /// The config file that applies, with the rerun directives that keep it exact, and how
    /// `version --build-options` describes it.
    fn config_file(
        &self,
        vars: &BTreeMap<String, Option<String>>,
    ) -> (Option<ConfigFileInput>, String) {
        let spec = self.spec;
        let var = spec.config_var();
        let local = spec.local_config;
        if let Some(named) = resolve::config_file_name(spec, vars) {
            let not_read = local.map_or(String::new(), |l| format!("; {l} not read"));
            let shown = format!("{named} ({var}{not_read})");
            let relative = Path::new(named).is_relative();
            if relative && self.is_packaged() {
                let input = ConfigFileInput {
                    named: named.to_string(),
                    named_by: format!("{var}={named}"),
                    resolved: self.manifest_dir.join(named).display().to_string(),
                    contents: Err(format!(
                        "a relative path means nothing for a package built from a registry (cargo install, a dependency): it would resolve inside Cargo's unpacked copy of {}",
                        spec.name
                    )),
                    fix: format!(
                        "give an absolute path, for example {var}=\"$PWD/{named}\", or in .cargo/config.toml [env] {var} = {{ value = \"{named}\", relative = true }}"
                    ),
                };
                return (Some(input), shown);
            }
            let path = self.manifest_dir.join(named);
            if path.exists() {
                self.env.watch_path(&path);
            }
            let input = ConfigFileInput {
                named: named.to_string(),
                named_by: format!("{var}={named}"),
                resolved: path.display().to_string(),
                contents: fs::read_to_string(&path).map_err(|e| e.to_string()),
                fix: match spec.role {
                    Role::Application => format!(
                        "create the file ({}) or unset {var}; a relative path resolves against the package root, {}",
                        spec.format_hint(),
                        self.manifest_dir.display()
                    ),
                    Role::Library => format!(
                        "create the file ({}) or unset {var}; a relative path resolves against {}'s own package root ({}), not the application's: give an absolute path, or in the application's .cargo/config.toml [env] {var} = {{ value = \"{named}\", relative = true }}, which Cargo resolves against the directory that holds .cargo/",
                        spec.format_hint(),
                        spec.name,
                        self.manifest_dir.display()
                    ),
                },
            };
            return (Some(input), shown);
        }
        let local = match local {
            Some(local) => local,
            None => {
                return (None, "(none)".to_string());
            }
        };
        if self.is_packaged() {
            // A registry copy has no user file; the variable is the way to configure it.
            return (None, "(none)".to_string());
        }
        let watch = self.manifest_dir.join(WATCH_DIR);
        let link = watch.join(local);
        if link
            .symlink_metadata()
            .map_or(false, |m| m.file_type().is_symlink())
        {
            self.env.watch_path(Path::new(WATCH_DIR));
        } else {
            // No symlink here (a checkout without symlink support): Cargo cannot see config.toml
            // appear. Say so on every build; Cargo replays the warning when nothing is rebuilt.
            warning(&format!(
                "{WATCH_DIR}/{local} is not a symlink here, so creating {local} does not rebuild by itself: after creating it, run `touch build.rs` (or `cargo clean -p {}`) and build again",
                spec.name
            ));
        }
        let path = self.manifest_dir.join(local);
        if !path.exists() {
            return (None, "(none)".to_string());
        }
        self.env.watch_path(Path::new(local));
        let input = ConfigFileInput {
            named: local.to_string(),
            named_by: local.to_string(),
            resolved: path.display().to_string(),
            contents: fs::read_to_string(&path).map_err(|e| e.to_string()),
            fix: match spec.example_config {
                Some(example) => {
                    format!("make it readable, or remove it (cp {example} {local} starts again)")
                }
                None => "make it readable, or remove it".to_string(),
            },
        };
        (Some(input), local.to_string())
    }

    fn enabled_features(&self) -> FeatureSet {
        let mut features = FeatureSet::EMPTY;
        for feature in self.spec.features() {
            if self
                .env
                .cargo_var(&Spec::cargo_feature_env(feature))
                .is_some()
            {
                features = features.with(feature);
            }
        }
        features
    }

    fn enabled_source_features(&self) -> Vec<&'static str> {
        let mut on = Vec::new();
        for f in self.spec.source_features {
            if self
                .env
                .cargo_var(&Spec::cargo_feature_env(f.name))
                .is_some()
            {
                on.push(f.name);
            }
        }
        on
    }

    /// The graph-wide settings this crate reads: one per kind its facilities declare, and the link
    /// policies when it declares a C library. Only these are recorded with
    /// `rerun-if-env-changed`, so changing one reruns exactly the build scripts it concerns.
    fn graph_settings(&self) -> Vec<Setting> {
        let mut out: Vec<Setting> = Vec::new();
        for f in self.spec.facilities {
            if let Some(kind) = f.kind {
                if !out.contains(&Setting::Kind(kind)) {
                    out.push(Setting::Kind(kind));
                }
            }
        }
        if !self.libraries().is_empty() {
            out.push(Setting::Link);
            out.push(Setting::Bundled);
        }
        out
    }

    /// The graph-wide variables (those this crate reads, recorded; every other one present,
    /// checked but not recorded) and the graph-wide file, for a crate that reads any.
    fn graph_inputs(
        &self,
        settings: &[Setting],
        all: &[(String, Option<String>)],
        target: &str,
        host: &str,
    ) -> (BTreeMap<String, Option<String>>, Option<ConfigFileInput>) {
        let mut vars = BTreeMap::new();
        if settings.is_empty() {
            return (vars, None);
        }
        for setting in settings {
            self.env.var(&setting.target_variable(target));
            self.env.var(&setting.variable());
        }
        for (name, value) in all {
            if graph::classify(name, &[target, host]).is_some() {
                vars.insert(name.clone(), value.clone());
            }
        }
        let file = self.env.var(graph::CONFIG).map(|named| {
            let named = named.to_string_lossy().into_owned();
            let by = format!("{}={named}", graph::CONFIG);
            let path = Path::new(&named);
            if !path.is_absolute() {
                return ConfigFileInput::new(
                    named.clone(),
                    by,
                    named.clone(),
                    Err("the graph-wide file is read by the build script of every crate that uses it, each in its own directory, so a relative path means nothing".to_string()),
                    format!(
                        "give an absolute path, for example {}=\"$PWD/{named}\", or in the application's .cargo/config.toml [env] {} = {{ value = \"{named}\", relative = true }}",
                        graph::CONFIG,
                        graph::CONFIG
                    ),
                );
            }
            if path.exists() {
                self.env.watch_path(path);
            }
            ConfigFileInput::new(
                named.clone(),
                by,
                named.clone(),
                fs::read_to_string(path).map_err(|e| e.to_string()),
                format!("create the file, or unset {}", graph::CONFIG),
            )
        });
        (vars, file)
    }

    /// Gathers the inputs (features, variables, the config files) and resolves: the selection,
    /// or the build error's text.
    pub fn resolve(&self) -> Result<Resolved, String> {
        let spec = self.spec;
        let features = self.enabled_features();
        let source_features = self.enabled_source_features();
        let target = self.env.target_triple();
        let host = self.env.cargo_var("HOST").unwrap_or_default();
        let mut vars = self.env.prefixed_vars(spec);
        for facility in spec.facilities {
            let name = target_prefixed(&target, &spec.env_var(facility));
            if let Some(value) = self.env.var(&name) {
                vars.insert(name, value.into_string().ok());
            }
        }
        let (file, config_file) = self.config_file(&vars);
        let all = self.env.all_vars();
        let graph_reads = self.graph_settings();
        let (graph_env, graph_file) = self.graph_inputs(&graph_reads, &all, &target, &host);
        let cfg = TargetCfg::from_cargo_vars(
            all.iter()
                .filter_map(|(k, v)| Some((k.as_str(), v.as_deref()?))),
        );
        let inputs = Inputs {
            spec,
            features: features.clone(),
            env: vars,
            file,
            target,
            host,
            cfg,
            graph_env,
            graph_file,
            graph_reads: Some(graph_reads),
        };
        let selection = resolve::resolve(&inputs).map_err(|e| {
            let mut text = e.to_string();
            if spec.role == Role::Library {
                text.push_str(&library_note(spec));
            }
            text
        })?;
        Ok(Resolved {
            selection,
            features,
            source_features,
            config_file,
        })
    }

    /// For a [`Role::Library`], the providers a feature compiles that nothing selects: warnings
    /// for a local package, whose warnings Cargo shows; the build error for a non-local one
    /// ([`Build::is_non_local`]), whose warnings Cargo hides (not for a documentation build).
    pub fn unselected(&self, resolved: &Resolved) -> Result<Vec<String>, String> {
        if self.spec.role != Role::Library {
            return Ok(Vec::new());
        }
        let warnings = unselected_warnings(resolved);
        if self.is_non_local() && !self.is_docs_rs() && !warnings.is_empty() {
            return Err(unselected_error(resolved, &warnings));
        }
        Ok(warnings)
    }

    /// Whether Cargo treats this package as non-local, showing its build script's warnings only
    /// with `-vv`: unpacked from a registry or a directory source ([`Build::is_packaged`]), or a
    /// git dependency (checked out under Cargo's `git/checkouts/`).
    pub fn is_non_local(&self) -> bool {
        let mut in_git_checkouts = false;
        let mut previous = None;
        for c in self.manifest_dir.components() {
            let c = c.as_os_str();
            in_git_checkouts |= previous == Some(OsStr::new("git")) && c == "checkouts";
            previous = Some(c);
        }
        self.is_packaged() || in_git_checkouts
    }

    /// Whether this is a documentation build (`DOCS_RS` set, as docs.rs does): it links
    /// nothing, so it probes nothing, and it fails on nothing (a configuration error becomes a
    /// warning and the defaults apply).
    pub fn is_docs_rs(&self) -> bool {
        self.env.var("DOCS_RS").is_some()
    }

    /// The selection nothing asked for: every facility's default for the enabled features.
    fn defaults(&self) -> Resolved {
        let spec = self.spec;
        let features = self.enabled_features();
        Resolved {
            selection: Selection::new(spec, resolve::default_choices(spec, &features)),
            features,
            source_features: self.enabled_source_features(),
            config_file: "(none)".to_string(),
        }
    }

    /// [`Build::resolve`], then [`emit_cfgs`]; on an error, fails the build with it ([`error`])
    /// and returns `None` (a documentation build warns instead and goes on with the defaults).
    ///
    /// The table itself is checked first ([`Spec::check`]): a mistake in it (a default that
    /// needs a feature, a name declared twice) fails the build of every configuration, naming
    /// the mistake, rather than building a provider whose feature is off.
    pub fn resolve_and_emit(&self) -> Option<Resolved> {
        if let Err(problems) = self.spec.check() {
            let message = table_error(self.spec, &problems);
            if self.is_docs_rs() {
                warning(&format!(
                    "{message}\n  (DOCS_RS is set: a documentation build goes on)"
                ));
            } else {
                error(&message);
                return None;
            }
        }
        let result = match self.resolve() {
            Err(message) if self.is_docs_rs() => {
                warning(&format!(
                    "{message}\n  (DOCS_RS is set: a documentation build goes on with the defaults)"
                ));
                Ok(self.defaults())
            }
            other => other,
        };
        match result {
            Ok(resolved) => {
                for line in &resolved.selection.warnings {
                    warning(line);
                }
                match self.unselected(&resolved) {
                    Ok(warnings) => {
                        for line in warnings {
                            warning(&line);
                        }
                    }
                    Err(message) => {
                        error(&message);
                        return None;
                    }
                }
                emit_cfgs(&resolved.selection);
                Some(resolved)
            }
            Err(message) => {
                error(&message);
                None
            }
        }
    }

    /// Writes `OUT_DIR/build_info.rs`, the `flagsplit_info::BuildInfo` literal (data only), with the paths
    /// in it following `--remap-path-prefix`. `false` (after an [`error`]) when it cannot.
    pub fn write_build_info(&self, resolved: &Resolved, probed: &Probed) -> bool {
        let remap = PathRemap::from_encoded_rustflags(
            &self
                .env
                .cargo_var("CARGO_ENCODED_RUSTFLAGS")
                .unwrap_or_default(),
        );
        let selection = remap.selection(&resolved.selection);
        let config_file = remap.path(&resolved.config_file);
        let mut libraries = Vec::with_capacity(probed.libraries.len());
        for l in &probed.libraries {
            libraries.push(remap.library(l));
        }
        let target = self.env.target_triple();
        let settings = self.graph_settings();
        let mut graph: Vec<codegen::GraphReadOut<'_>> = Vec::with_capacity(settings.len());
        let mut reads: Vec<&str> = Vec::with_capacity(settings.len());
        for &setting in &settings {
            graph.push(codegen::GraphReadOut {
                key: setting.key(),
                values: resolve::setting_values(self.spec, setting),
                open: resolve::setting_is_open(setting),
            });
            reads.push(setting.key());
        }
        let literal = codegen::build_info_literal(
            &selection,
            &resolved.features.in_order(self.spec),
            &resolved.source_features,
            &config_file,
            &libraries,
            &target,
            &graph,
        );
        let path = self.out_dir.join("build_info.rs");
        if let Err(e) = write_if_changed(&path, &literal) {
            error(&format!("cannot write {}: {e}", path.display()));
            return false;
        }
        // The same, as JSON, for tools that read a whole build's choices from each build script's
        // OUT_DIR (Cargo's `build-script-executed` messages name it).
        if !reads.is_empty() {
            reads.push("config");
        }
        let mut record = codegen::build_record(
            &selection,
            &resolved.features,
            &resolved.source_features,
            &config_file,
            &libraries,
            &target,
            &reads,
        );
        record.version = self.env.cargo_var("CARGO_PKG_VERSION").unwrap_or_default();
        let path = self.out_dir.join(codegen::JSON_FILE);
        if let Err(e) = write_if_changed(&path, record.to_json()) {
            error(&format!("cannot write {}: {e}", path.display()));
            return false;
        }
        // What the executables carry: the same record, trimmed, as an ELF note that
        // build_info.rs places in `.note.flagsplit` (flagsplit_info::note).
        let big_endian = self.env.cargo_var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Some("big");
        let note = flagsplit_info::note::encode(&record.for_binary().to_compact_json(), big_endian);
        let path = self.out_dir.join(codegen::NOTE_FILE);
        if let Err(e) = write_if_changed(&path, &note) {
            error(&format!("cannot write {}: {e}", path.display()));
            return false;
        }
        true
    }
}

/// What the probes found, for the build options ([`Build::write_build_info`]); the default:
/// nothing probed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Probed {
    /// The probed libraries, in the order the table first names them.
    pub libraries: Vec<LibraryFound>,
}

impl Probed {
    /// The probed library named `name`.
    pub fn library(&self, name: &str) -> Option<&LibraryFound> {
        self.libraries.iter().find(|l| l.library == name)
    }

    /// The `-I` directories of every probed library, in order and without repeats, for a build
    /// script that compiles C against them with the `cc` crate (`cc::Build::includes`). Empty when
    /// the compiler's default directories hold the headers.
    // Inline: compiled only in the build scripts that call it, not in every copy of this crate.
    #[inline]
    pub fn include_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for library in &self.libraries {
            for dir in &library.include_dirs {
                let dir = PathBuf::from(dir);
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        dirs
    }
}

impl Build {
    /// The probes the selected providers need ([`crate::Provider::probe`]), each with who asked
    /// and the selection that avoids its library.
    fn needs(&self, resolved: &Resolved) -> Vec<Need> {
        let mut needs = Vec::new();
        for (probe, askers) in resolved.selection.probes() {
            let mut need = Need {
                probe,
                askers: Vec::new(),
            };
            for (facility, choice) in askers {
                // A provider that needs no probe: one compiled, else the first.
                let (mut compiled, mut first) = (None, None);
                for p in facility.providers {
                    if p.probe.is_none() {
                        first = first.or(Some(p.name));
                        if p.is_available(&resolved.features) {
                            compiled = Some(p.name);
                            break;
                        }
                    }
                }
                let other = compiled.or(first).unwrap_or("");
                need.askers.push(Asker {
                    what: format!("{facility} = {}", choice.provider),
                    origin: choice.origin.to_string(),
                    instead: format!("{}={other}", self.spec.env_var(facility)),
                });
            }
            needs.push(need);
        }
        needs
    }

    /// Every library a provider of the table links, in table order.
    fn libraries(&self) -> Vec<&'static Library> {
        let mut out: Vec<&'static Library> = Vec::new();
        for facility in self.spec.facilities {
            for p in facility.providers {
                if let Some(probe) = p.probe {
                    if !out.contains(&probe.library) {
                        out.push(probe.library);
                    }
                }
            }
        }
        out
    }

    /// Checks the source features of each library ([`Library::source_features`]) that are on.
    fn check_source_features(&self, resolved: &Resolved, needs: &[Need]) -> Result<(), String> {
        let spec = self.spec;
        let on = resolved.features.in_order(spec);
        for library in self.libraries() {
            for feature in library.source_features {
                if !resolved.source_features.contains(feature) {
                    continue;
                }
                let links = |f: &str| {
                    spec.compiled_by(f)
                        .iter()
                        .any(|(_, p)| p.probe.map_or(false, |q| q.library == library))
                };
                let mut linking: Vec<&str> = Vec::new();
                for f in spec.features() {
                    if links(f) {
                        linking.push(f);
                    }
                }
                let mut compiling: Vec<&str> = Vec::new();
                for &f in &on {
                    if links(f) {
                        compiling.push(f);
                    }
                }
                let selected = needs.iter().any(|n| n.probe.library == library);
                if let Some(w) = probe::plan::source_feature_check(
                    library, feature, &on, &compiling, &linking, selected,
                )? {
                    warning(&w);
                }
            }
        }
        Ok(())
    }

    /// Probes every C library the selected providers need, one [`Library`] at a time, with the
    /// programs in `compat_dir`: its [`Finder`](crate::clib::Finder) says where it is, its
    /// [`VersionCheck`](crate::clib::VersionCheck) whether its version is accepted, then each [`Probe`](crate::clib::Probe) is
    /// compiled and linked. Before that, a source feature that is on must go with a compiled
    /// provider of its library ([`Library::source_features`]). `Err` is the build error's text,
    /// for [`error`]. A documentation build (`DOCS_RS` set) probes nothing and fails nothing.
    pub fn probe(&self, resolved: &Resolved, compat_dir: &Path) -> Result<Probed, String> {
        let needs = self.needs(resolved);
        if self.is_docs_rs() {
            if !needs.is_empty() {
                let mut names: Vec<&str> = Vec::with_capacity(needs.len());
                for n in &needs {
                    names.push(n.probe.source);
                }
                warning(&format!(
                    "DOCS_RS is set: a documentation build links nothing, so {} are not compiled",
                    names.join(", ")
                ));
            }
            return Ok(Probed::default());
        }
        self.check_source_features(resolved, &needs)?;
        if needs.is_empty() {
            return Ok(Probed::default());
        }
        self.env.watch_path(compat_dir);
        let selection = &resolved.selection;
        let link_by = selection.link.as_ref().map(|p| p.source("link"));
        let policy = probe::run::Policy {
            link: selection
                .link
                .as_ref()
                .zip(link_by.as_deref())
                .map(|(p, by)| (p.value, by)),
            deny_bundled: selection.bundled.as_ref().filter(|p| p.value == "deny"),
            own_copy_is_error: self.is_non_local(),
        };
        let mut probed = Probed::default();
        for library in self.libraries() {
            let mut mine: Vec<Need> = Vec::new();
            for n in &needs {
                if n.probe.library == library {
                    mine.push(n.clone());
                }
            }
            if mine.is_empty() {
                continue;
            }
            probed.libraries.push(probe::run::setup(
                &self.env,
                library,
                &mine,
                self.spec.name,
                compat_dir,
                &self.out_dir,
                &policy,
            )?);
        }
        Ok(probed)
    }
}

/// The build error for a facility table that fails [`Spec::check`]: a mistake of the crate's
/// author, not of the build's configuration.
pub(crate) fn table_error(spec: &Spec, problems: &str) -> String {
    let mut lines = vec![format!(
        "the facility table of {} is inconsistent (a mistake in the crate, not in this build's configuration):",
        spec.name
    )];
    lines.extend(problems.lines().map(|p| format!("  {p}")));
    lines.push(format!(
        "  fix: correct {}'s table (its `Spec`); a unit test with `assert_eq!(SPEC.check(), Ok(()))` finds the same",
        spec.name
    ));
    lines.join("\n")
}

/// The build error for a library from a registry or git whose features compile a provider nothing
/// selects: the warnings' text, why it is an error, and the fixes.
pub(crate) fn unselected_error(resolved: &Resolved, warnings: &[String]) -> String {
    let selection = &resolved.selection;
    let spec = selection.spec;
    let mut lines: Vec<String> = Vec::with_capacity(warnings.len());
    for w in warnings {
        lines.push(w.split(". To use").next().unwrap_or(w).to_string());
    }
    lines.push(format!(
        "  {} comes from a registry or git, whose build-script warnings Cargo shows only with -vv: a provider compiled and never used would go unseen, so the build stops",
        spec.name
    ));
    for (facility, provider) in selection.unselected(&resolved.features) {
        let mut fix = format!(
            "  fix: select it in the application's .cargo/config.toml [env]: {}={provider}",
            spec.env_var(facility)
        );
        if let (Some(kind), Some(shared)) = (facility.kind, provider.answers_to) {
            fix.push_str(&format!(
                " (or {}={shared} for every {kind} facility in the build)",
                Setting::Kind(kind).variable()
            ));
        }
        lines.push(fix);
        lines.push(format!(
            "  fix: or keep the default, and say so: {}={}",
            spec.env_var(facility),
            selection.provider(facility.name)
        ));
    }
    lines.push(format!(
        "  note: `cargo tree -e features -i {}` names the crate that turned the feature on",
        spec.name
    ));
    lines.join("\n")
}

/// The last line of a [`Role::Library`]'s configuration error: where its variables come from.
fn library_note(spec: &Spec) -> String {
    format!(
        "\n  note: {} is a library; its {}* variables reach its build script from the environment of the whole build: the shell, or the [env] table of the application's .cargo/config.toml (Cargo does not say which)",
        spec.name,
        spec.var_prefix()
    )
}

/// For a [`Role::Library`]: one warning per provider a feature compiles that nothing selected
/// (see [`Selection::unselected`]), naming the variable that would select it.
pub(crate) fn unselected_warnings(resolved: &Resolved) -> Vec<String> {
    let selection = &resolved.selection;
    let spec = selection.spec;
    selection
        .unselected(&resolved.features)
        .into_iter()
        .map(|(facility, provider)| {
            format!(
                "feature `{}` of {} compiles the {provider} {facility} provider, but nothing selects it: {} stays {} (the default; a dependent's feature does not select for the whole build). To use {provider}, the application sets {}={provider} (its .cargo/config.toml [env])",
                provider.feature.unwrap_or_default(),
                spec.name,
                facility,
                selection.provider(facility.name),
                spec.env_var(facility),
            )
        })
        .collect()
}

/// The whole build script of a package whose table is declared in its `Cargo.toml`, under
/// `[package.metadata.flagsplit]` (the keys: the guide, §3): reads the table (a mistake in it
/// stops the build with `Cargo.toml:LINE:COL` and the fix), resolves and emits the `cfg`s, finds,
/// probes and links the C libraries of the selected providers (each probe generated in `OUT_DIR`
/// from the declared header and function), and writes the build options.
///
/// ```no_run
/// // The body of build.rs's `fn main`:
/// flagsplit_config::script::main();
/// ```
#[cfg(feature = "config-file")]
pub fn main() {
    let env = Env::process();
    let dir = PathBuf::from(env.cargo_var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(env.cargo_var("OUT_DIR").unwrap_or_default());
    let package = env.cargo_var("CARGO_PKG_NAME").unwrap_or_default();
    let manifest = dir.join("Cargo.toml");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = match fs::read_to_string(&manifest) {
        Ok(text) => text,
        Err(e) => {
            error(&format!("cannot read {}: {e}", manifest.display()));
            return;
        }
    };
    let declared = match crate::manifest::declared("Cargo.toml", &text, &package) {
        Ok(Some(declared)) => declared,
        Ok(None) => {
            error(&format!(
                "{package}'s build script calls flagsplit_config::script::main, but Cargo.toml declares no table\n  fix: add [package.metadata.flagsplit.<facility>] with `providers = [...]` (the guide, §3), or call Build::new with a Spec of your own"
            ));
            return;
        }
        Err(errors) => {
            error(&format!(
                "{package}'s facility table, in Cargo.toml:\n{errors}"
            ));
            return;
        }
    };
    let build = Build::new(declared.spec);
    let resolved = match build.resolve_and_emit() {
        Some(resolved) => resolved,
        None => return,
    };
    let probes = out_dir.join("flagsplit-probes");
    for (file, source) in &declared.probes {
        let written =
            fs::create_dir_all(&probes).and_then(|_| write_if_changed(&probes.join(file), source));
        if let Err(e) = written {
            error(&format!(
                "cannot write {}: {e}",
                probes.join(file).display()
            ));
            return;
        }
    }
    match build.probe(&resolved, &probes) {
        Ok(probed) => {
            build.write_build_info(&resolved, &probed);
        }
        Err(message) => error(&message),
    }
}

/// One value cfg per facility (`flagsplit_sha1="dc"`), and a cfg per provider feature whose
/// provider is selected (`openssl_sha1`: the split itself), each declared with
/// `rustc-check-cfg`.
pub fn emit_cfgs(selection: &Selection) {
    for line in cfg_directives(selection) {
        println!("{line}");
    }
}

/// The directives [`emit_cfgs`] prints.
pub fn cfg_directives(selection: &Selection) -> Vec<String> {
    let spec = selection.spec;
    let mut out = Vec::new();
    let used = selection.used_features();
    for feature in spec.features() {
        let name = feature.replace('-', "_");
        out.push(format!("cargo:rustc-check-cfg=cfg({name})"));
        if used.contains(&feature) {
            out.push(format!("cargo:rustc-cfg={name}"));
        }
    }
    for (facility, choice) in selection.iter() {
        let mut values: Vec<String> = Vec::with_capacity(facility.providers.len());
        for p in facility.providers {
            values.push(format!("\"{p}\""));
        }
        let cfg = spec.cfg_name(facility);
        out.push(format!(
            "cargo:rustc-check-cfg=cfg({cfg}, values({}))",
            values.join(", ")
        ));
        out.push(format!("cargo:rustc-cfg={cfg}=\"{}\"", choice.provider));
    }
    out
}

/// Writes `contents` unless the file already holds exactly that (keeps mtimes stable).
fn write_if_changed(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let contents = contents.as_ref();
    if fs::read(path).map_or(false, |old| old == contents) {
        return Ok(());
    }
    fs::write(path, contents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tables::DEMO;

    /// A package root in a fresh temporary directory, and a build of it with `vars`.
    fn package(name: &str, files: &[(&str, &str)], vars: &[(&str, &str)]) -> (PathBuf, Build) {
        let root =
            std::env::temp_dir().join(format!("config-script-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        for (file, text) in files {
            fs::write(root.join(file), text).unwrap();
        }
        let mut env: Vec<(String, String)> = vec![
            ("CARGO_MANIFEST_DIR".into(), root.display().to_string()),
            ("OUT_DIR".into(), root.display().to_string()),
            ("CARGO_FEATURE_RUSTLS".into(), "1".into()),
        ];
        env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let build = Build::with_env(&DEMO, Env::fixed(env));
        (root, build)
    }

    const BLOCK: &str = "[hash]\nprovider = \"block\"\n";

    const X86: &str = "x86_64-unknown-linux-gnu";

    /// A build of `spec` for `target` on an x86_64 host, with `vars`.
    fn build_for(spec: &'static Spec, target: &str, vars: &[(&str, &str)]) -> Build {
        let arch = target.split('-').next().unwrap_or_default();
        let mut env: Vec<(String, String)> = vec![
            ("TARGET".into(), target.into()),
            ("HOST".into(), X86.into()),
            ("CARGO_CFG_TARGET_ARCH".into(), arch.into()),
            ("CARGO_CFG_TARGET_OS".into(), "linux".into()),
            ("CARGO_CFG_UNIX".into(), String::new()),
        ];
        env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Build::with_env(spec, Env::fixed(env))
    }

    #[test]
    fn each_copy_applies_the_scope_of_its_own_target() {
        // `cargo build --target aarch64-unknown-linux-gnu` with a library that is also a
        // build-dependency: the copy for the target reads TARGET = aarch64, the copy for the build
        // script TARGET = the host.
        let vars = [
            ("CARGO_FEATURE_OPENSSL_TLS", "1"),
            ("CARGO_FEATURE_RUSTLS", "1"),
            ("AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS", "rustls"),
            ("X86_64_UNKNOWN_LINUX_GNU_DEMO_HASH_PROVIDER", "block"),
        ];
        let target_copy = build_for(&DEMO, "aarch64-unknown-linux-gnu", &vars);
        let r = target_copy.resolve().unwrap();
        assert_eq!(r.selection.provider("tls"), "rustls");
        assert_eq!(
            r.selection.get("tls").origin.to_string(),
            "graph-wide AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS"
        );
        assert_eq!(r.selection.provider("hash"), "portable");
        let host_copy = build_for(&DEMO, X86, &vars);
        let r = host_copy.resolve().unwrap();
        assert_eq!(r.selection.provider("tls"), "openssl");
        assert_eq!(r.selection.provider("hash"), "block");
        // Each copy records (rerun-if-env-changed) the graph-wide names of its own kinds and
        // target, and the link policies, since it declares a C library; no other kind's.
        let read = target_copy.env.read_names();
        for name in [
            "RUST_BACKEND_TLS",
            "AARCH64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS",
            "RUST_BACKEND_SHA256",
            "RUST_BACKEND_LINK",
            "RUST_BACKEND_BUNDLED",
            "RUST_BACKEND_CONFIG",
            "AARCH64_UNKNOWN_LINUX_GNU_DEMO_TLS_PROVIDER",
        ] {
            assert!(read.contains(name), "{name} not recorded: {read:?}");
        }
        assert!(!read.contains("RUST_BACKEND_ZLIB"), "{read:?}");
        assert!(
            !read.contains("X86_64_UNKNOWN_LINUX_GNU_RUST_BACKEND_TLS"),
            "{read:?}"
        );
    }

    #[test]
    fn a_crate_without_kinds_or_libraries_reads_no_graph_wide_setting() {
        use crate::{Facility, Provider};
        static PLAIN: Spec = Spec::library("plain", "PLAIN", "plain").facilities(&[Facility::new(
            "x",
            "X",
            "x",
            &[Provider::new("a", "A", "a")],
        )]);
        let build = build_for(&PLAIN, X86, &[("RUST_BACKEND_TSL", "openssl")]);
        assert!(build.resolve().is_ok());
        assert!(
            !build
                .env
                .read_names()
                .iter()
                .any(|n| n.contains("RUST_BACKEND"))
        );
    }

    #[test]
    fn a_relative_graph_wide_file_is_an_error_saying_what_to_write() {
        let build = build_for(&DEMO, X86, &[("RUST_BACKEND_CONFIG", "backends.toml")]);
        let e = build.resolve().unwrap_err();
        assert!(
            e.starts_with(
                "RUST_BACKEND_CONFIG=backends.toml names a config file that cannot be read"
            ),
            "{e}"
        );
        assert!(
            e.contains("RUST_BACKEND_CONFIG = { value = \"backends.toml\", relative = true }"),
            "{e}"
        );
    }

    #[test]
    fn an_unselected_provider_of_a_registry_library_is_an_error() {
        let root = std::env::temp_dir().join(format!(
            "config-script-test-unselected-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        let local = Build::with_env(
            &crate::test_tables::LIBRARY,
            Env::fixed([
                ("CARGO_MANIFEST_DIR", root.display().to_string()),
                ("CARGO_FEATURE_ZLIB", "1".to_string()),
            ]),
        );
        assert!(!local.is_non_local());
        let r = local.resolve().unwrap();
        let warnings = unselected_warnings(&r);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let e = unselected_error(&r, &warnings);
        assert_eq!(
            e,
            "feature `zlib` of inflate-lib compiles the zlib inflate provider, but nothing selects it: inflate stays miniz (the default; a dependent's feature does not select for the whole build)
  inflate-lib comes from a registry or git, whose build-script warnings Cargo shows only with -vv: a provider compiled and never used would go unseen, so the build stops
  fix: select it in the application's .cargo/config.toml [env]: INFLATE_LIB_INFLATE_PROVIDER=zlib (or RUST_BACKEND_ZLIB=system for every zlib facility in the build)
  fix: or keep the default, and say so: INFLATE_LIB_INFLATE_PROVIDER=miniz
  note: `cargo tree -e features -i inflate-lib` names the crate that turned the feature on"
        );
        fs::write(root.join("Cargo.toml.orig"), "").unwrap();
        assert!(local.is_non_local());
        assert_eq!(local.unselected(&r), Err(e));
        // A graph-wide choice selects: nothing is left unselected.
        let chosen = Build::with_env(
            &crate::test_tables::LIBRARY,
            Env::fixed([
                ("CARGO_MANIFEST_DIR", root.display().to_string()),
                ("CARGO_FEATURE_ZLIB", "1".to_string()),
                ("RUST_BACKEND_ZLIB", "system".to_string()),
            ]),
        );
        let r = chosen.resolve().unwrap();
        assert_eq!(
            r.selection.get("inflate").origin.to_string(),
            "graph-wide RUST_BACKEND_ZLIB"
        );
        assert_eq!(chosen.unselected(&r), Ok(Vec::new()));
        let git = Path::new("/home/u/.cargo/git/checkouts/lib-1234/abcd");
        let in_git = Build::with_env(
            &crate::test_tables::LIBRARY,
            Env::fixed([("CARGO_MANIFEST_DIR", git.display().to_string())]),
        );
        assert!(in_git.is_non_local());
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_table_mistake_is_a_build_error_naming_it() {
        use crate::{Facility, Provider};
        // The default behind a feature: without a check, a library would emit the cfg of a
        // provider whose feature is off.
        static BAD: Spec = Spec::library("mini-compress", "MINI_COMPRESS", "mini_compress")
            .facilities(&[Facility::new(
                "zstd",
                "ZSTD",
                "zstd",
                &[
                    Provider::new("system", "SYSTEM", "libzstd").feature("system"),
                    Provider::new("pure", "PURE", "ruzstd").feature("pure"),
                ],
            )]);
        let problems = BAD.check().unwrap_err();
        assert_eq!(
            table_error(&BAD, &problems),
            "the facility table of mini-compress is inconsistent (a mistake in the crate, not in this build's configuration):
  zstd: default_order must name a provider that needs no feature
  fix: correct mini-compress's table (its `Spec`); a unit test with `assert_eq!(SPEC.check(), Ok(()))` finds the same"
        );
    }

    #[test]
    fn kinds_are_open_and_names_follow_the_rule() {
        use crate::{Facility, Provider};
        static BAD: Spec = Spec::library("bad", "RUST", "bad").facilities(&[
            Facility::new(
                "tls",
                "TLS",
                "tls",
                &[
                    Provider::new("a", "A", "a").answers_to("opensll"),
                    Provider::new("b", "B", "b").answers_to("opensll"),
                ],
            )
            .kind("tls"),
            Facility::new(
                "target",
                "T",
                "t",
                &[Provider::new("c", "C", "c").answers_to("none")],
            ),
            Facility::new(
                "xz",
                "XZ",
                "xz",
                &[
                    Provider::new("d", "D", "d").answers_to("Pure_Rust"),
                    Provider::new("e", "E", "e").feature("test"),
                ],
            )
            .kind("x_z"),
            Facility::new(
                "os",
                "OS",
                "os",
                &[Provider::new("f", "F", "f").properties(&["Collision_Detection"])],
            )
            .kind("link"),
        ]);
        let problems = BAD.check().unwrap_err();
        for expected in [
            "tls: provider a answers to `opensll`, not a shared provider name of the well-known kind tls (valid: openssl, rustls, system, pure-rust, zlib-ng, none); did you mean openssl?",
            "tls: providers a and b both answer to `opensll`",
            "a facility may not be named `target`",
            "target: provider c answers to `none`, but the facility declares no kind (Facility::kind)",
            "xz: kind `x_z` is not a kind's name: only lowercase ASCII letters, digits and `-` may be in it",
            "xz: provider d answers to `Pure_Rust`, not a shared provider name: it must start with a lowercase letter",
            "feature `test`: its cfg `test` is rustc's: a build that sets it changes code that tests it (`#[cfg(test)]`); rename it",
            "os: kind `link` is reserved",
            "os: provider f has property `Collision_Detection`, not a property's name: it must start with a lowercase letter",
            "prefix RUST shares a prefix with the graph-wide settings' RUST_BACKEND_: choose another",
        ] {
            assert!(
                problems.contains(expected),
                "{expected}\nnot in:\n{problems}"
            );
        }
        // A crate's own kind, with shared names of its own.
        static XZ: Spec = Spec::library("xz-lib", "XZ_LIB", "xz_lib").facilities(&[Facility::new(
            "decompress",
            "XZ",
            "xz",
            &[
                Provider::new("lzma-rs", "LZMA_RS", "pure Rust").answers_to("pure-rust"),
                Provider::new("liblzma", "LIBLZMA", "the system's")
                    .feature("system")
                    .answers_to("system"),
                Provider::new("xz2", "XZ2", "another").answers_to("xz2-crate"),
            ],
        )
        .kind("xz")]);
        assert_eq!(XZ.check(), Ok(()));
        assert_eq!(DEMO.check(), Ok(()));
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn config_toml_is_read_when_no_variable_names_a_file() {
        let (root, build) = package("local", &[("config.toml", BLOCK)], &[]);
        let r = build.resolve().unwrap();
        assert_eq!(r.config_file, "config.toml");
        assert_eq!(
            r.selection.get("hash").origin.to_string(),
            "config.toml:2:12"
        );
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    #[cfg(feature = "config-file")]
    fn a_named_file_replaces_config_toml_and_resolves_against_the_package_root() {
        let (root, build) = package(
            "named",
            &[
                ("config.toml", "[hash]\nprovider = \"bogus\"\n"),
                ("my.toml", BLOCK),
            ],
            &[("DEMO_CONFIG", "my.toml")],
        );
        let r = build.resolve().unwrap();
        assert_eq!(r.config_file, "my.toml (DEMO_CONFIG; config.toml not read)");
        assert_eq!(r.selection.get("hash").origin.to_string(), "my.toml:2:12");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_relative_path_in_a_registry_package_is_an_error_saying_what_to_write() {
        let (root, build) = package(
            "packaged",
            &[
                ("Cargo.toml.orig", ""),
                ("my.toml", BLOCK),
                ("config.toml", BLOCK),
            ],
            &[("DEMO_CONFIG", "my.toml")],
        );
        let e = build.resolve().unwrap_err();
        assert!(
            e.contains("a relative path means nothing for a package built from a registry"),
            "{e}"
        );
        assert!(e.contains("DEMO_CONFIG=\"$PWD/my.toml\""), "{e}");
        // Without the variable, the registry copy's config.toml is not read.
        let (_, build) = package(
            "packaged",
            &[("Cargo.toml.orig", ""), ("config.toml", BLOCK)],
            &[],
        );
        let r = build.resolve().unwrap();
        assert_eq!(r.config_file, "(none)");
        assert_eq!(r.selection.provider("hash"), "portable");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn openssl_vendored_needs_a_compiled_openssl_provider() {
        let (root, build) = package("vendored", &[], &[("CARGO_FEATURE_OPENSSL_VENDORED", "1")]);
        let r = build.resolve().unwrap();
        let e = build.probe(&r, &root.join("compat")).unwrap_err();
        assert!(
            e.contains("no OpenSSL provider is compiled (features on: rustls openssl-vendored)"),
            "{e}"
        );
        // Compiled but not selected: a warning, and nothing to probe.
        let (_, build) = package(
            "vendored",
            &[],
            &[
                ("CARGO_FEATURE_OPENSSL_VENDORED", "1"),
                ("CARGO_FEATURE_OPENSSL_HASH", "1"),
                ("DEMO_HASH_PROVIDER", "portable"),
                ("DEMO_HASH_FAST_PROVIDER", "block"),
            ],
        );
        let r = build.resolve().unwrap();
        assert_eq!(build.probe(&r, &root.join("compat")), Ok(Probed::default()));
        fs::remove_dir_all(root).unwrap();
    }

    /// Without a TOML reader, a config file is an error that says what to do instead.
    #[test]
    #[cfg(not(feature = "config-file"))]
    fn without_a_toml_reader_a_config_file_is_an_error() {
        let (root, build) = package("no-reader", &[("config.toml", BLOCK)], &[]);
        let e = build.resolve().unwrap_err();
        assert!(
            e.starts_with("config.toml names a config file, but this build of demo reads none"),
            "{e}"
        );
        assert!(
            e.contains("fix: select with the DEMO_<FACILITY>_PROVIDER variables instead"),
            "{e}"
        );
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn cargo_error_only_where_cargo_and_the_package_allow_it() {
        let cargo = |v| Some(format!("cargo {v} (f2d3ce0bd 2026-03-21)\n"));
        assert!(crate::directive::error_directive_allowed(
            "",
            cargo("1.95.0").as_deref()
        ));
        assert!(crate::directive::error_directive_allowed(
            "1.77",
            cargo("1.84.0").as_deref()
        ));
        assert!(crate::directive::error_directive_allowed(
            "1.88.0",
            cargo("1.95.0-nightly").as_deref()
        ));
        // A package that declares an older Rust may not print `cargo::` at all.
        assert!(!crate::directive::error_directive_allowed(
            "1.70",
            cargo("1.95.0").as_deref()
        ));
        assert!(!crate::directive::error_directive_allowed(
            "1.76.1",
            cargo("1.95.0").as_deref()
        ));
        // Cargo before 1.84 does not know `cargo::error`; an unknown Cargo is treated as old.
        assert!(!crate::directive::error_directive_allowed(
            "",
            cargo("1.83.0").as_deref()
        ));
        assert!(!crate::directive::error_directive_allowed("", None));
        assert!(!crate::directive::error_directive_allowed(
            "",
            Some("something else")
        ));
    }

    #[test]
    fn cfgs_name_each_facility_and_the_used_features() {
        let (root, build) = package("cfgs", &[], &[("DEMO_TLS_PROVIDER", "none")]);
        let r = build.resolve().unwrap();
        let lines = cfg_directives(&r.selection);
        assert!(lines.contains(&"cargo:rustc-cfg=demo_hash_fast=\"block\"".to_string()));
        assert!(lines.contains(&"cargo:rustc-cfg=demo_tls=\"none\"".to_string()));
        assert!(lines.contains(&"cargo:rustc-check-cfg=cfg(openssl_hash)".to_string()));
        assert!(
            !lines.iter().any(|l| l == "cargo:rustc-cfg=rustls"),
            "{lines:?}"
        );
        fs::remove_dir_all(root).unwrap();
    }
}

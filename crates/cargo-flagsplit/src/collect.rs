//! The report of a build: each flagsplit-config crate's build options (its `OUT_DIR`'s
//! `flagsplit-config.json`), and each executable with the C libraries it carries. What cannot be
//! read is a refusal: a check must not pass what it could not see.

use crate::cargo::{Build, copy_of, package_name_version};
use crate::diag::{Code, Diagnostic};
use crate::libraries::{self, Disk};
use crate::metadata::Graph;
use crate::model::{CrateReport, Executable, OPTIONS_SCHEMA, Options};
use std::collections::BTreeMap;
use std::path::Path;

/// The file each flagsplit-config build script writes to its `OUT_DIR`.
pub const OPTIONS_FILE: &str = "flagsplit-config.json";

/// The crates that use flagsplit-config, and what could not be read.
pub fn crates(build: &Build, target: Option<&str>) -> (Vec<CrateReport>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut read = Vec::new();
    for script in &build.scripts {
        let path = script.out_dir.join(OPTIONS_FILE);
        let unreadable = |e: String| {
            Diagnostic::error(
                Code::UnreadableBuildOptions,
                format!("cannot read {}: {e}", path.display()),
            )
            .note(
                "fix",
                "rebuild: the build's files are not what its messages say",
            )
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            // Not a flagsplit-config crate (or one older than 0.4.0).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && script.out_dir.is_dir() => {
                continue;
            }
            Err(e) => {
                diags.push(unreadable(e.to_string()));
                continue;
            }
        };
        match serde_json::from_str::<Options>(&text) {
            Ok(options) => read.push((script, options)),
            Err(e) => diags.push(unreadable(e.to_string())),
        }
    }
    // Which copy is the target's: `--target`, or else the triple a crate was built for when its
    // OUT_DIR lies under `<target-dir>/<triple>/` (a target set in Cargo's configuration).
    let target = target.map(str::to_string).or_else(|| {
        read.iter()
            .map(|(_, o)| o.target.as_str())
            .find(|t| {
                !t.is_empty()
                    && read
                        .iter()
                        .any(|(s, _)| s.out_dir.components().any(|c| c.as_os_str() == *t))
            })
            .map(String::from)
    });
    let mut crates = Vec::new();
    for (script, mut options) in read {
        // A file of an older schema gets what the current one says on its own.
        options.upgrade();
        if options.schema > OPTIONS_SCHEMA {
            diags.push(Diagnostic::warning(
                Code::NewerBuildOptions,
                format!(
                    "{} has schema {}, this cargo-flagsplit reads schema {OPTIONS_SCHEMA}: update cargo-flagsplit",
                    script.out_dir.join(OPTIONS_FILE).display(),
                    options.schema
                ),
            ));
        }
        let (name, version) = package_name_version(&script.package_id);
        crates.push(CrateReport {
            name,
            version,
            package_id: script.package_id.clone(),
            build: copy_of(&script.out_dir, target.as_deref()),
            out_dir: script.out_dir.display().to_string(),
            options,
        });
    }
    crates.sort_by(|a, b| (&a.name, a.build, &a.version).cmp(&(&b.name, b.build, &b.version)));
    (crates, diags)
}

/// Each executable with what it carries; an executable that cannot be read is a refusal.
pub fn executables(
    build: &Build,
    crates: &[CrateReport],
    graph: &Graph,
) -> (Vec<Executable>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut out = Vec::new();
    let mut archives = BTreeMap::new();
    let mut defaults = BTreeMap::new();
    let inputs = libraries::Build {
        scripts: &build.scripts,
        crates,
    };
    for a in &build.executables {
        let unreadable = |e: anyhow::Error| {
            Diagnostic::error(
                Code::UnreadableExecutable,
                format!("cannot read the executable {}: {e:#}", a.path.display()),
            )
            .note(
                "fix",
                "rebuild: the build's files are not what its messages say",
            )
        };
        let headers = match crate::elf::headers(&a.path) {
            Ok(h) => h,
            Err(e) => {
                diags.push(unreadable(e));
                continue;
            }
        };
        let needed = headers.needed.clone().unwrap_or_default();
        let reachable = graph.reachable(&a.package_id);
        let mut disk = Disk {
            exe: a.path.clone(),
            has_symtab: headers.has_symtab,
            archives: &mut archives,
            defaults: &mut defaults,
            exe_symbols: None,
        };
        let (libraries, not_carried) =
            match libraries::carried(&inputs, &a.name, &reachable, &needed, &mut disk) {
                Ok(x) => x,
                Err(e) => {
                    diags.push(unreadable(e));
                    continue;
                }
            };
        if libraries
            .iter()
            .any(|l| l.held == crate::model::Held::Unknown)
            && !headers.has_symtab
        {
            diags.push(
                Diagnostic::warning(
                    Code::Stripped,
                    format!(
                        "{} has no symbol table: the static libraries its crates link are counted as carried, unseen",
                        a.path.display()
                    ),
                )
                .note("fix", "check the build before it is stripped (Cargo's `strip` profile setting, dh_strip)"),
            );
        }
        out.push(Executable {
            name: a.name.clone(),
            package: package_name_version(&a.package_id).0,
            path: a.path.display().to_string(),
            needed,
            dynamic: headers.needed.is_some(),
            symbols: headers.has_symtab,
            libraries,
            not_carried,
        });
    }
    out.sort_by(|a, b| (&a.name, &a.path).cmp(&(&b.name, &b.path)));
    (out, diags)
}

/// With `--messages`: every executable and build-options file the messages name exists and was
/// written before the messages were.
pub fn not_stale(build: &Build, crates: &[CrateReport], messages: &Path) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let Ok(saved) = std::fs::metadata(messages).and_then(|m| m.modified()) else {
        return diags;
    };
    let files = build.executables.iter().map(|e| e.path.clone()).chain(
        crates
            .iter()
            .map(|c| Path::new(&c.out_dir).join(OPTIONS_FILE)),
    );
    for f in files {
        let problem = match std::fs::metadata(&f).and_then(|m| m.modified()) {
            Err(e) => format!("{} is gone ({e})", f.display()),
            Ok(t) if t > saved => format!(
                "{} was written after {}: the messages are not of the build that made it",
                f.display(),
                messages.display()
            ),
            Ok(_) => continue,
        };
        diags.push(
            Diagnostic::error(Code::StaleMessages, problem)
                .note("fix", "check the messages right after the build that wrote them, or build again and save its messages"),
        );
    }
    diags
}

//! Installed executables, judged without their build: the build records each carries
//! (`flagsplit_info::note`, read by [`crate::elf::records`]) and its dynamic section, for
//! `cargo flagsplit inspect` and `cargo flagsplit check --binaries`. Each file is read on its own:
//! one that cannot be read is a problem of that file, and the scan goes on.

use crate::elf::{self, RecordPlace};
use crate::libraries::selected_by;
use crate::model::{
    CarriedLibrary, Copy, CrateReport, Executable, FoundBy, Held, LinkMode, LinkedBy,
    OPTIONS_SCHEMA, Options, Report, link_name_of,
};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One executable looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Binary {
    pub path: String,
    /// Where its records were: `section`, `segment`, or `absent`.
    pub record: &'static str,
    /// Each flagsplit-config crate's record, in the file's order, each once.
    pub crates: Vec<Options>,
    /// `DT_NEEDED`, in file order; `None` for a static executable.
    pub needed: Option<Vec<String>>,
    /// Why it could not be read (then nothing else is known).
    pub error: Option<String>,
}

impl Binary {
    /// The file's name, as a policy's `only` names an executable.
    pub fn name(&self) -> &str {
        Path::new(&self.path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&self.path)
    }
}

/// What a scan found: the ELF files, and the files of the directories given that were skipped as
/// not ELF.
#[derive(Debug, Default)]
pub struct Scan {
    pub binaries: Vec<Binary>,
    pub skipped: usize,
}

fn read_one(path: &Path) -> Binary {
    let mut b = Binary {
        path: path.display().to_string(),
        record: "absent",
        crates: Vec::new(),
        needed: None,
        error: None,
    };
    let outcome = (|| -> anyhow::Result<()> {
        let (texts, place, headers) = elf::executable(path)?;
        b.record = match place {
            RecordPlace::Section => "section",
            RecordPlace::Segment => "segment",
            RecordPlace::Absent => "absent",
        };
        for text in texts {
            let mut options: Options = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "a build record in {} is not a record's JSON ({e}): the file is damaged",
                    path.display()
                )
            })?;
            options.upgrade();
            if options.schema > OPTIONS_SCHEMA {
                anyhow::bail!(
                    "a build record in {} has schema {}, this cargo-flagsplit reads schema {OPTIONS_SCHEMA}: update cargo-flagsplit",
                    path.display(),
                    options.schema
                );
            }
            if !b.crates.contains(&options) {
                b.crates.push(options);
            }
        }
        b.needed = headers.needed;
        Ok(())
    })();
    if let Err(e) = outcome {
        b.error = Some(format!("{e:#}"));
        b.crates.clear();
    }
    b
}

/// Whether the file starts as an ELF file does (its first four bytes).
fn looks_elf(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == object::elf::ELFMAG
}

/// Looks at each path: a file is read as an executable (a file that is not ELF is a problem of
/// that file); a directory, recursively, for its ELF files (other files are skipped). Symbolic
/// links to files are followed, links to directories are not (so a loop cannot be walked), and a
/// link that cannot be resolved is a problem of that path.
pub fn scan(paths: &[PathBuf]) -> Scan {
    let mut out = Scan::default();
    for path in paths {
        walk(path, true, &mut out);
    }
    out
}

fn problem(path: &Path, error: String) -> Binary {
    Binary {
        path: path.display().to_string(),
        record: "absent",
        crates: Vec::new(),
        needed: None,
        error: Some(error),
    }
}

fn walk(path: &Path, named: bool, out: &mut Scan) {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            let what = if link {
                format!(
                    "{} is a symbolic link whose target cannot be reached (missing, or a loop of links): {e}",
                    path.display()
                )
            } else {
                format!("cannot read {}: {e}", path.display())
            };
            out.binaries.push(problem(path, what));
            return;
        }
    };
    if meta.is_dir() {
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if linked && !named {
            // Not followed: a link to a directory could lead back to where the walk is.
            return;
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                out.binaries.push(problem(
                    path,
                    format!("cannot list {}: {e}", path.display()),
                ));
                return;
            }
        };
        entries.sort();
        for entry in entries {
            walk(&entry, false, out);
        }
        return;
    }
    if !meta.is_file() {
        if named {
            out.binaries.push(problem(
                path,
                format!("{} is not a regular file", path.display()),
            ));
        }
        return;
    }
    if !named && !looks_elf(path) {
        out.skipped += 1;
        return;
    }
    out.binaries.push(read_one(path));
}

/// The report a policy is checked against: each binary as an executable, the C libraries it
/// carries being its `NEEDED` entries and the libraries its records say were linked statically,
/// and each record's crate once.
pub fn report(binaries: &[Binary]) -> Report {
    let mut crates: Vec<CrateReport> = Vec::new();
    let mut executables = Vec::new();
    for b in binaries.iter().filter(|b| b.error.is_none()) {
        let mine: Vec<CrateReport> = b
            .crates
            .iter()
            .map(|o| CrateReport {
                name: o.crate_name.clone(),
                version: o.version.clone(),
                package_id: format!("{} {} (from {})", o.crate_name, o.version, b.path),
                build: Copy::Target,
                out_dir: String::new(),
                options: o.clone(),
            })
            .collect();
        let refs: Vec<&CrateReport> = mine.iter().collect();
        let found_by = |matches: &dyn Fn(&str) -> bool| -> Vec<FoundBy> {
            mine.iter()
                .flat_map(|c| {
                    c.options
                        .libraries
                        .iter()
                        .filter(|l| l.links.iter().any(|n| matches(n)))
                        .map(move |l| FoundBy::new(c, l))
                })
                .collect()
        };
        let mut libraries = Vec::new();
        for soname in b.needed.iter().flatten() {
            let name = link_name_of(soname);
            libraries.push(CarriedLibrary {
                found_by: found_by(&|n| n == name),
                selected_by: selected_by(&refs, soname, b.name()),
                name,
                file: soname.clone(),
                link: LinkMode::Dynamic,
                bundled: false,
                held: Held::Yes,
                evidence: "NEEDED".into(),
                archive: None,
                linked_by: Vec::new(),
            });
        }
        for c in &mine {
            for l in c
                .options
                .libraries
                .iter()
                .filter(|l| l.static_link || l.bundled)
            {
                for n in &l.links {
                    let file = format!("lib{n}.a");
                    libraries.push(CarriedLibrary {
                        found_by: found_by(&|m| m == n),
                        selected_by: selected_by(&refs, &file, b.name()),
                        name: n.clone(),
                        file,
                        link: LinkMode::Static,
                        bundled: l.bundled,
                        held: Held::Yes,
                        evidence: format!("the build record of {}", c.name),
                        archive: None,
                        // The crate's build script linked what its record lists.
                        linked_by: vec![LinkedBy {
                            package: c.name.clone(),
                            version: c.version.clone(),
                            directive: format!("static={n}"),
                        }],
                    });
                }
            }
        }
        executables.push(Executable {
            name: b.name().to_string(),
            package: String::new(),
            path: b.path.clone(),
            dynamic: b.needed.is_some(),
            needed: b.needed.clone().unwrap_or_default(),
            symbols: false,
            libraries,
            not_carried: Vec::new(),
        });
        for c in mine {
            if !crates.iter().any(|k| k.options == c.options) {
                crates.push(c);
            }
        }
    }
    Report {
        target: None,
        crates,
        executables,
        settings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_walked_for_elf_files_and_problems_do_not_stop_it() {
        let dir = std::env::temp_dir().join(format!("flagsplit-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("script.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(dir.join("sub/short"), b"\x7fELF\x02").unwrap();
        std::fs::copy(std::env::current_exe().unwrap(), dir.join("sub/exe")).unwrap();
        // A link back to the top, and one to nowhere.
        std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("gone"), dir.join("dangling")).unwrap();
        let s = scan(std::slice::from_ref(&dir));
        assert_eq!(s.skipped, 1, "{s:?}");
        let by_name = |n: &str| s.binaries.iter().find(|b| b.name() == n).unwrap();
        assert!(
            by_name("dangling")
                .error
                .as_deref()
                .unwrap()
                .contains("symbolic link whose target cannot be reached")
        );
        // A loop of links, named: an error of that path.
        std::os::unix::fs::symlink(dir.join("b"), dir.join("a")).unwrap();
        std::os::unix::fs::symlink(dir.join("a"), dir.join("b")).unwrap();
        let l = scan(&[dir.join("a")]);
        assert!(
            l.binaries[0]
                .error
                .as_deref()
                .unwrap()
                .contains("a loop of links"),
            "{l:?}"
        );
        std::fs::remove_file(dir.join("a")).unwrap();
        std::fs::remove_file(dir.join("b")).unwrap();
        assert!(by_name("short").error.is_some());
        let exe = by_name("exe");
        assert_eq!(exe.error, None);
        assert_eq!(exe.record, "absent");
        assert!(
            exe.needed
                .as_ref()
                .unwrap()
                .iter()
                .any(|n| n.starts_with("libc.so"))
        );
        assert_eq!(s.binaries.len(), 3, "{s:?}");
        // Named, a file that is not ELF is a problem.
        let s = scan(&[dir.join("script.sh")]);
        assert!(
            s.binaries[0]
                .error
                .as_deref()
                .unwrap()
                .contains("not an ELF file")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! The C libraries an executable carries, and who linked each: every `rustc-link-lib` of the
//! build scripts of the packages it holds (every crate, with flagsplit-config or without), every
//! library a flagsplit-config crate found, and every `NEEDED` entry. A dynamic library is carried
//! when `NEEDED` names it; a static one when its archive's symbols are in the executable's symbol
//! table; an archive inside a build script's `OUT_DIR` is a copy the build made (bundled).

use crate::cargo::{ScriptRun, package_name_version};
use crate::elf::Symbols;
use crate::model::{
    CarriedLibrary, CrateReport, FoundBy, Held, LinkMode, LinkedBy, NotCarried, SelectedBy,
    link_name_of, soname_matches,
};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The kind of a `rustc-link-lib` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Static,
    Dylib,
    /// No kind: the linker takes the shared library, or the archive when there is none.
    Unspecified,
    Framework,
}

/// One `rustc-link-lib` directive: `[KIND[:MODIFIERS]=]NAME[:RENAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub kind: Kind,
    /// The library linked (the rename, when there is one).
    pub name: String,
    pub raw: String,
}

pub fn parse_link_lib(raw: &str) -> Directive {
    let (kind, rest) = match raw.split_once('=') {
        Some((k, rest)) => {
            let kind = match k.split(':').next().unwrap_or(k) {
                "static" => Kind::Static,
                "dylib" => Kind::Dylib,
                "framework" => Kind::Framework,
                _ => Kind::Unspecified,
            };
            (kind, rest)
        }
        None => (Kind::Unspecified, raw),
    };
    let name = match rest.split_once(':') {
        Some((_, rename)) if !rename.is_empty() => rename,
        _ => rest,
    };
    Directive {
        kind,
        name: name.to_string(),
        raw: raw.to_string(),
    }
}

/// The directories of `rustc-link-search` directives where C libraries are looked for
/// (`native=`, `all=` or no kind).
pub fn search_dirs(linked_paths: &[String]) -> Vec<PathBuf> {
    linked_paths
        .iter()
        .filter_map(|p| match p.split_once('=') {
            Some(("native" | "all", dir)) => Some(PathBuf::from(dir)),
            Some(_) => None,
            None => Some(PathBuf::from(p)),
        })
        .collect()
}

/// How the files are looked at: the disk, or a test's fakes.
pub trait Look {
    /// The symbols of the archive at `path`; `None` when there is no such file.
    fn archive(&mut self, path: &Path) -> anyhow::Result<Option<Rc<Symbols>>>;
    /// Where the C compiler's default search path has `file`.
    fn default_path(&mut self, file: &str) -> Option<PathBuf>;
    /// The symbols the executable defines; `None` when it has no symbol table (stripped).
    fn executable_symbols(&mut self) -> anyhow::Result<Option<Rc<Symbols>>>;
}

/// One library a crate of the executable links, from every place that names it.
#[derive(Default)]
struct Candidate {
    kinds: Vec<Kind>,
    dirs: Vec<PathBuf>,
    linked_by: Vec<LinkedBy>,
    found_by: Vec<FoundBy>,
}

/// What is known of the build, for every executable.
pub struct Build<'a> {
    pub scripts: &'a [ScriptRun],
    pub crates: &'a [CrateReport],
}

impl Build<'_> {
    fn is_bundled(&self, path: &Path) -> bool {
        self.scripts.iter().any(|s| path.starts_with(&s.out_dir))
    }
}

/// The libraries an executable carries and those its crates link that it does not, given the
/// packages it holds (`reachable`, package ids), its `NEEDED` and its name.
pub fn carried(
    build: &Build<'_>,
    exe_name: &str,
    reachable: &HashSet<&str>,
    needed: &[String],
    look: &mut dyn Look,
) -> anyhow::Result<(Vec<CarriedLibrary>, Vec<NotCarried>)> {
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    for s in build.scripts {
        if !reachable.contains(s.package_id.as_str()) {
            continue;
        }
        let (package, version) = package_name_version(&s.package_id);
        for raw in &s.linked_libs {
            let d = parse_link_lib(raw);
            if d.kind == Kind::Framework || d.name.is_empty() {
                continue;
            }
            let c = candidates.entry(d.name.clone()).or_default();
            c.kinds.push(d.kind);
            c.dirs.extend(search_dirs(&s.linked_paths));
            let by = LinkedBy {
                package: package.clone(),
                version: version.clone(),
                directive: d.raw,
            };
            // A build script may print the same directive twice (libz-sys does).
            if !c.linked_by.contains(&by) {
                c.linked_by.push(by);
            }
        }
    }
    let crates: Vec<&CrateReport> = build
        .crates
        .iter()
        .filter(|c| reachable.contains(c.package_id.as_str()))
        .collect();
    for c in &crates {
        for l in &c.options.libraries {
            for name in &l.links {
                let cand = candidates.entry(name.clone()).or_default();
                if cand.kinds.is_empty() {
                    cand.kinds.push(if l.static_link {
                        Kind::Static
                    } else {
                        Kind::Unspecified
                    });
                }
                cand.found_by.push(FoundBy::new(c, l));
            }
        }
    }
    let mut carried = Vec::new();
    let mut not = Vec::new();
    let mut used_needed = vec![false; needed.len()];
    for (name, mut c) in candidates {
        // The build scripts ran in parallel: their order in the stream is not the report's.
        c.linked_by.sort_by(|a, b| {
            (&a.package, &a.version, &a.directive).cmp(&(&b.package, &b.version, &b.directive))
        });
        let lib = format!("lib{name}");
        let in_needed = needed.iter().position(|n| soname_matches(n, &lib));
        let only_dylib = c.kinds.iter().all(|k| *k == Kind::Dylib);
        let dynamic_only_kinds = c.kinds.iter().all(|k| *k != Kind::Static);
        let entry = |file: String,
                     link: LinkMode,
                     bundled: bool,
                     held: Held,
                     evidence: String,
                     archive: Option<String>| CarriedLibrary {
            name: name.clone(),
            file,
            link,
            bundled,
            held,
            evidence,
            archive,
            linked_by: c.linked_by.clone(),
            found_by: c.found_by.clone(),
            selected_by: selected_by(&crates, &lib, exe_name),
        };
        if let Some(i) = in_needed {
            used_needed[i] = true;
            let bundled = c.dirs.iter().any(|d| {
                build.is_bundled(d)
                    && std::fs::read_dir(d).is_ok_and(|mut entries| {
                        entries.any(|e| {
                            e.is_ok_and(|e| {
                                e.file_name()
                                    .to_str()
                                    .is_some_and(|f| soname_matches(f, &format!("{lib}.so")))
                            })
                        })
                    })
            });
            carried.push(entry(
                needed[i].clone(),
                LinkMode::Dynamic,
                bundled,
                Held::Yes,
                format!("NEEDED {}", needed[i]),
                None,
            ));
            continue;
        }
        if only_dylib {
            not.push(NotCarried {
                name: name.clone(),
                linked_by: c.linked_by.clone(),
                why: format!(
                    "no NEEDED entry is {lib}.so (dropped by --as-needed: nothing of it is used)"
                ),
            });
            continue;
        }
        let file = format!("{lib}.a");
        let mut archive = None;
        for dir in &c.dirs {
            let path = dir.join(&file);
            if let Some(symbols) = look.archive(&path)? {
                archive = Some((path, symbols));
                break;
            }
        }
        if archive.is_none()
            && !dynamic_only_kinds
            && let Some(path) = look.default_path(&file)
            && let Some(symbols) = look.archive(&path)?
        {
            archive = Some((path, symbols));
        }
        match archive {
            Some((path, symbols)) => {
                let bundled = build.is_bundled(&path);
                let shown = path.display().to_string();
                match look.executable_symbols()? {
                    Some(exe) => {
                        let held = crate::elf::held(&symbols, &exe);
                        if held > 0 {
                            carried.push(entry(
                                file,
                                LinkMode::Static,
                                bundled,
                                Held::Yes,
                                format!("{held} of the archive's {} symbols are in its symbol table", symbols.len()),
                                Some(shown),
                            ));
                        } else {
                            not.push(NotCarried {
                                name: name.clone(),
                                linked_by: c.linked_by.clone(),
                                why: format!("none of the {} symbols of {shown} is in its symbol table", symbols.len()),
                            });
                        }
                    }
                    None => carried.push(entry(
                        file,
                        LinkMode::Static,
                        bundled,
                        Held::Unknown,
                        "the executable has no symbol table (stripped): counted as holding it".into(),
                        Some(shown),
                    )),
                }
            }
            None if !dynamic_only_kinds => carried.push(entry(
                file.clone(),
                LinkMode::Static,
                false,
                Held::Unknown,
                format!("{file} is not in the build's search paths nor the C compiler's: counted as held"),
                None,
            )),
            None => not.push(NotCarried {
                name: name.clone(),
                linked_by: c.linked_by.clone(),
                why: format!("no NEEDED entry is {lib}.so and no {lib}.a is in the search paths"),
            }),
        }
    }
    // NEEDED entries no build script named: the toolchain's (libc, libgcc_s, the loader).
    for (i, soname) in needed.iter().enumerate() {
        if used_needed[i] {
            continue;
        }
        let name = link_name_of(soname);
        carried.push(CarriedLibrary {
            selected_by: selected_by(&crates, &format!("lib{name}"), exe_name),
            name,
            file: soname.clone(),
            link: LinkMode::Dynamic,
            bundled: false,
            held: Held::Yes,
            evidence: format!("NEEDED {soname}"),
            archive: None,
            linked_by: Vec::new(),
            found_by: Vec::new(),
        });
    }
    Ok((carried, not))
}

/// The facilities whose selected provider links `lib` (`libcrypto`), among those `exe` uses
/// (a facility's `used_by`; every facility when it lists none).
pub fn selected_by(crates: &[&CrateReport], lib: &str, exe: &str) -> Vec<SelectedBy> {
    let mut out = Vec::new();
    for c in crates {
        for f in &c.options.facilities {
            if !f.used_by.is_empty() && !f.used_by.iter().any(|b| b == exe) {
                continue;
            }
            let Some(p) = f.selected_provider() else {
                continue;
            };
            if p.links
                .iter()
                .any(|l| soname_matches(lib, l) || soname_matches(l, lib))
            {
                out.push(SelectedBy {
                    package: c.name.clone(),
                    version: c.version.clone(),
                    facility: f.name.clone(),
                    provider: f.selected.clone(),
                    origin: f.origin.clone(),
                    origin_kind: f.origin_kind.clone(),
                    variable: f.variable.clone(),
                });
            }
        }
    }
    out
}

/// The disk, for one executable: archives' symbols are kept for the next executable.
pub struct Disk<'c> {
    pub exe: PathBuf,
    pub has_symtab: bool,
    pub archives: &'c mut BTreeMap<PathBuf, Option<Rc<Symbols>>>,
    pub defaults: &'c mut BTreeMap<String, Option<PathBuf>>,
    pub exe_symbols: Option<Rc<Symbols>>,
}

impl Look for Disk<'_> {
    fn archive(&mut self, path: &Path) -> anyhow::Result<Option<Rc<Symbols>>> {
        if let Some(s) = self.archives.get(path) {
            return Ok(s.clone());
        }
        let symbols = if path.is_file() {
            Some(Rc::new(crate::elf::archive_symbols(path)?))
        } else {
            None
        };
        self.archives.insert(path.to_path_buf(), symbols.clone());
        Ok(symbols)
    }

    fn default_path(&mut self, file: &str) -> Option<PathBuf> {
        self.defaults
            .entry(file.to_string())
            .or_insert_with(|| {
                let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
                let out = std::process::Command::new(cc)
                    .arg(format!("-print-file-name={file}"))
                    .output()
                    .ok()?;
                let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
                // Without it the compiler prints the name back.
                (path.is_absolute() && path.is_file()).then_some(path)
            })
            .clone()
    }

    fn executable_symbols(&mut self) -> anyhow::Result<Option<Rc<Symbols>>> {
        if !self.has_symtab {
            return Ok(None);
        }
        if self.exe_symbols.is_none() {
            self.exe_symbols = Some(Rc::new(crate::elf::defined_symbols(&self.exe)?));
        }
        Ok(self.exe_symbols.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Library;
    use crate::policy::tests::tls_crate;

    #[test]
    fn directives() {
        let d = parse_link_lib("static=ring_core_0_17_14_");
        assert_eq!(
            (d.kind, d.name.as_str()),
            (Kind::Static, "ring_core_0_17_14_")
        );
        let d = parse_link_lib("static:+whole-archive,-bundle=foo");
        assert_eq!((d.kind, d.name.as_str()), (Kind::Static, "foo"));
        assert_eq!(parse_link_lib("ssl").kind, Kind::Unspecified);
        assert_eq!(parse_link_lib("dylib=c").kind, Kind::Dylib);
        assert_eq!(parse_link_lib("dylib=foo:bar").name, "bar");
        assert_eq!(
            search_dirs(&[
                "native=/a".into(),
                "/b".into(),
                "dependency=/c".into(),
                "all=/d".into()
            ]),
            [PathBuf::from("/a"), "/b".into(), "/d".into()]
        );
    }

    struct Fake {
        archives: BTreeMap<PathBuf, Rc<Symbols>>,
        exe: Option<Rc<Symbols>>,
    }

    impl Look for Fake {
        fn archive(&mut self, path: &Path) -> anyhow::Result<Option<Rc<Symbols>>> {
            Ok(self.archives.get(path).cloned())
        }
        fn default_path(&mut self, file: &str) -> Option<PathBuf> {
            let p = PathBuf::from("/usr/lib").join(file);
            self.archives.contains_key(&p).then_some(p)
        }
        fn executable_symbols(&mut self) -> anyhow::Result<Option<Rc<Symbols>>> {
            Ok(self.exe.clone())
        }
    }

    /// Global symbols of an executable, or default-visibility ones of an archive.
    fn symbols(names: &[&str]) -> Rc<Symbols> {
        Rc::new(names.iter().map(|n| (n.as_bytes().into(), true)).collect())
    }

    fn script(id: &str, libs: &[&str], paths: &[&str], out_dir: &str) -> ScriptRun {
        ScriptRun {
            package_id: id.into(),
            out_dir: out_dir.into(),
            linked_libs: libs.iter().map(|s| s.to_string()).collect(),
            linked_paths: paths.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn static_bundled_dynamic_and_toolchain() {
        let ring = "registry+https://x#ring@0.17.14";
        let sys = "registry+https://x#openssl-sys@0.9.1";
        let app = "path+file:///ws/app#0.1.0";
        let scripts = [
            script(
                ring,
                &["static=ring_core", "static=ring_core_test"],
                &["native=/t/build/ring-1/out"],
                "/t/build/ring-1/out",
            ),
            script(
                sys,
                &["ssl", "crypto"],
                &["native=/usr/lib"],
                "/t/build/openssl-sys-1/out",
            ),
            script(app, &["static=crypto"], &[], "/t/build/app-1/out"),
        ];
        let mut fake = Fake {
            archives: BTreeMap::from([
                (
                    "/t/build/ring-1/out/libring_core.a".into(),
                    symbols(&["ring_a", "ring_b"]),
                ),
                (
                    "/t/build/ring-1/out/libring_core_test.a".into(),
                    symbols(&["ring_test"]),
                ),
                (
                    "/usr/lib/libcrypto.a".into(),
                    symbols(&["EVP_a", "EVP_b", "EVP_c"]),
                ),
            ]),
            exe: Some(symbols(&["main", "ring_a", "EVP_a", "EVP_b"])),
        };
        let build = Build {
            scripts: &scripts,
            crates: &[],
        };
        let reachable = HashSet::from([ring, app]);
        let needed = ["libc.so.6".to_string()];
        let (c, n) = carried(&build, "app", &reachable, &needed, &mut fake).unwrap();
        let got: Vec<(&str, &str, LinkMode, bool, Held)> = c
            .iter()
            .map(|l| (l.name.as_str(), l.file.as_str(), l.link, l.bundled, l.held))
            .collect();
        assert_eq!(
            got,
            [
                ("crypto", "libcrypto.a", LinkMode::Static, false, Held::Yes),
                (
                    "ring_core",
                    "libring_core.a",
                    LinkMode::Static,
                    true,
                    Held::Yes
                ),
                ("c", "libc.so.6", LinkMode::Dynamic, false, Held::Yes),
            ]
        );
        assert_eq!(
            c[0].evidence,
            "2 of the archive's 3 symbols are in its symbol table"
        );
        assert_eq!(c[0].linked_by[0].package, "app");
        assert!(c[2].linked_by.is_empty());
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].name, "ring_core_test");
        // openssl-sys is not reachable: libssl is not even a candidate. With it, and NEEDED:
        let reachable = HashSet::from([sys]);
        let needed = ["libssl.so.3".to_string(), "libc.so.6".to_string()];
        let (c, n) = carried(&build, "app", &reachable, &needed, &mut fake).unwrap();
        assert_eq!(c[0].file, "libcrypto.a", "{c:#?}");
        assert_eq!(c[0].linked_by[0].directive, "crypto");
        assert_eq!(
            (c[1].file.as_str(), c[1].link),
            ("libssl.so.3", LinkMode::Dynamic)
        );
        assert!(n.is_empty());
        // Stripped: a static archive is counted, as unknown.
        fake.exe = None;
        let reachable = HashSet::from([ring]);
        let (c, _) = carried(&build, "app", &reachable, &[], &mut fake).unwrap();
        assert!(c.iter().all(|l| l.held == Held::Unknown), "{c:#?}");
    }

    #[test]
    fn flagsplit_config_records_and_selections() {
        let mut root = tls_crate("flagsplit", "openssl", "default", "default");
        root.package_id = "path+file:///ws#flagsplit@0.1.0".into();
        root.options.facilities[0].used_by = vec!["flagsplit-imap-send".into()];
        root.options.libraries = vec![Library {
            library: "OpenSSL".into(),
            version: Some("OpenSSL 3.0.19".into()),
            located_by: "pkg-config (libcrypto)".into(),
            static_link: true,
            links: vec!["crypto".into()],
            bundled: false,
        }];
        let crates = [root];
        let scripts = [script(
            "path+file:///ws#flagsplit@0.1.0",
            &["static=crypto"],
            &["native=/usr/lib"],
            "/t/out",
        )];
        let build = Build {
            scripts: &scripts,
            crates: &crates,
        };
        let mut fake = Fake {
            archives: BTreeMap::from([("/usr/lib/libcrypto.a".into(), symbols(&["EVP_a"]))]),
            exe: Some(symbols(&["EVP_a"])),
        };
        let reachable = HashSet::from(["path+file:///ws#flagsplit@0.1.0"]);
        let (c, _) = carried(&build, "flagsplit-imap-send", &reachable, &[], &mut fake).unwrap();
        assert_eq!(
            c[0].found_by[0].library_version.as_deref(),
            Some("OpenSSL 3.0.19")
        );
        assert_eq!(c[0].selected_by.len(), 1);
        // The tls facility is the sender's only: another executable is not selected by it.
        let (c, _) = carried(&build, "flagsplit", &reachable, &[], &mut fake).unwrap();
        assert!(c[0].selected_by.is_empty());
    }
}

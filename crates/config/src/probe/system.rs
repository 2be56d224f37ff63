//! A C library that no `-sys` crate handles: found by pkg-config or by variables named after it,
//! checked by the probes, and linked by the declaring crate's own build script ([`System`]).

use crate::clib::{FindContext, Finder, Found, Library, LinkMode, Message, TargetInfo};
use crate::model::joined;

/// A C library found, checked and linked by this crate, with no `-sys` crate in between: a
/// simple C API then needs only an `extern "C"` block. The build script finds it
///
/// - through the variables named after it, when one of them names a directory:
///   `<LIB>_LIB_DIR` (its `-L` directory), `<LIB>_INCLUDE_DIR` (its `-I` directory); or with
///   `<LIB>_NO_PKG_CONFIG` set, in the C compiler's default directories;
/// - otherwise through pkg-config's module (its `-I` and `-L` directories and `Version:`, which
///   [`crate::clib::ReadVersion::FOUND`] checks; pkg-config reads `PKG_CONFIG_PATH`,
///   `PKG_CONFIG_SYSROOT_DIR` and their target-prefixed forms).
///
/// `<LIB>_LIBS` replaces the libraries linked (names as `-l` takes them, separated by `:`, `,`
/// or spaces: `zstd` or `ssl:crypto`), and `<LIB>_STATIC` (any value but `0`) links the archives
/// (`lib<name>.a`) instead of the shared libraries. Each variable is read in its target-prefixed
/// form first (`AARCH64_UNKNOWN_LINUX_GNU_ZSTD_LIB_DIR`), as `openssl-sys` reads its own, and
/// every one read is recorded with `rerun-if-env-changed`.
///
/// Once the probes pass, the build script emits `cargo:rustc-link-search=native=<dir>` and
/// `cargo:rustc-link-lib=[static=]<name>` for the library, so a provider needs no `#[link]`
/// attribute; a library that no selected provider needs is neither probed nor linked. The
/// include directories come back in `script::Probed::include_dirs` (feature `build-script`) for a build script
/// that compiles C of its own with the `cc` crate.
///
/// ```
/// use flagsplit_config::clib::{Library, Probe, ReadVersion, VersionCheck};
/// use flagsplit_config::probe::System;
///
/// // pkg-config's module `libzstd`, or ZSTD_LIB_DIR, ZSTD_INCLUDE_DIR, ZSTD_NO_PKG_CONFIG,
/// // ZSTD_LIBS and ZSTD_STATIC.
/// static LIBZSTD: System = System::new("libzstd", "ZSTD");
/// static ZSTD: Library = Library::new("zstd", &LIBZSTD)
///     .version(VersionCheck::minimum(ReadVersion::FOUND, "1.4.0"))
///     .install(&[("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config")]);
/// static COMPRESS: Probe = Probe::new(&ZSTD, "probe-zstd.c", "ZSTD_compress", &["zstd"],
///     "one-shot compression in libzstd");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct System {
    module: &'static str,
    variables: &'static str,
}

impl System {
    /// The library of pkg-config module `module` (`libzstd`), whose variables start with
    /// `variables` (`ZSTD`: `ZSTD_LIB_DIR`, `ZSTD_STATIC`, ...).
    pub const fn new(module: &'static str, variables: &'static str) -> System {
        System { module, variables }
    }

    /// The pkg-config module.
    pub const fn module(&self) -> &'static str {
        self.module
    }

    /// The variable `<LIB>_<suffix>` (`ZSTD_LIB_DIR` for `LIB_DIR`).
    pub fn variable(&self, suffix: &str) -> String {
        format!("{}_{suffix}", self.variables)
    }

    /// Every variable this finder reads, unprefixed, in the order of the documentation.
    pub fn variables(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(SUFFIXES.len());
        for s in SUFFIXES {
            names.push(self.variable(s));
        }
        names
    }
}

/// The suffixes of the variables a [`System`] library reads.
const SUFFIXES: [&str; 5] = ["NO_PKG_CONFIG", "LIB_DIR", "INCLUDE_DIR", "LIBS", "STATIC"];

/// The directories in order, without repeats.
fn dedup(dirs: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for dir in dirs {
        if !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

/// A variable that says yes: set, and neither empty nor `0`.
fn yes(value: Option<&str>) -> bool {
    value.map_or(false, |v| !v.is_empty() && v != "0")
}

/// `<LIB>_LIBS`: names separated by `:`, `,` or white space, a leading `-l` dropped.
pub(crate) fn split_libs(value: &str) -> Vec<String> {
    let mut names = Vec::new();
    for name in value.split(|c: char| c == ':' || c == ',' || c.is_whitespace()) {
        let name = name.trim_start_matches("-l");
        if !name.is_empty() {
            names.push(name.to_string());
        }
    }
    names
}

/// The variable as read: `(name, value)`, the target-prefixed name when that form is set.
fn read(
    finder: &System,
    cx: &FindContext<'_>,
    target: &TargetInfo,
    suffix: &str,
) -> Option<(String, String)> {
    let plain = finder.variable(suffix);
    let prefixed = crate::clib::target_prefixed(&target.triple, &plain);
    // Both forms are read (and so recorded for reruns), the prefixed one winning.
    let p = if target.triple.is_empty() {
        None
    } else {
        cx.env.var(&prefixed)
    };
    let u = cx.env.var(&plain);
    match (p, u) {
        (Some(v), _) => Some((prefixed, v)),
        (None, Some(v)) => Some((plain, v)),
        (None, None) => None,
    }
}

impl Finder for System {
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message> {
        let target = cx.env.target();
        let no_pkg_config = read(self, cx, &target, "NO_PKG_CONFIG");
        let lib_dir = read(self, cx, &target, "LIB_DIR").filter(|(_, v)| !v.is_empty());
        let include_dir = read(self, cx, &target, "INCLUDE_DIR").filter(|(_, v)| !v.is_empty());
        let libs = read(self, cx, &target, "LIBS").filter(|(_, v)| !v.is_empty());
        let static_ = read(self, cx, &target, "STATIC");
        // The library's own <LIB>_STATIC wins; else the graph-wide link policy.
        let want_static = match &static_ {
            Some((_, v)) => yes(Some(v)),
            None => cx.link_policy.map_or(false, |(value, _)| value == "static"),
        };

        let by_variables = lib_dir.is_some()
            || include_dir.is_some()
            || yes(no_pkg_config.as_ref().map(|(_, v)| v.as_str()));
        let mut found = if by_variables {
            let mut said: Vec<String> = Vec::new();
            for (name, value) in [&no_pkg_config, &lib_dir, &include_dir]
                .into_iter()
                .flatten()
            {
                said.push(format!("{name}={value}"));
            }
            let mut found = Found::new(said.join(" "));
            if let Some((name, dir)) = &lib_dir {
                if cx.env.list_dir(dir).is_none() {
                    return Err(Message::new(format!(
                        "{} could not be found: {name}={dir} is not a directory that can be read",
                        library.name
                    ))
                    .fix(format!(
                        "set {name} to the directory that holds {}",
                        joined(&link_names(cx, &libs), ", ", &|l| format!(
                            "lib{l}.so or lib{l}.a"
                        ))
                    ))
                    .fix(format!("unset it to ask pkg-config ({})", self.module)));
                }
                found.lib_dirs = vec![dir.clone()];
            }
            if let Some((name, dir)) = &include_dir {
                if cx.env.list_dir(dir).is_none() {
                    return Err(Message::new(format!(
                        "{} could not be found: {name}={dir} is not a directory that can be read",
                        library.name
                    ))
                    .fix(format!(
                        "set {name} to the directory that holds {}'s headers",
                        library.name
                    )));
                }
                found.include_dirs = vec![dir.clone()];
            }
            found
        } else {
            let answer = if want_static {
                cx.env.pkg_config_static(self.module)
            } else {
                cx.env.pkg_config(self.module)
            };
            match answer {
                Ok(answer) => {
                    let mut found = Found::new(format!("pkg-config ({})", self.module));
                    found.include_dirs = dedup(answer.include_dirs);
                    // A static answer lists the system directory once per module it names (with
                    // PKG_CONFIG_ALLOW_SYSTEM_LIBS, which the pkg-config crate sets for it).
                    found.lib_dirs = dedup(answer.lib_dirs);
                    found.version = Some(answer.version);
                    if want_static {
                        // What the archive needs after it (`-ldl`), from `Libs.private`.
                        let own = link_names(cx, &libs);
                        for l in &answer.libs {
                            if !own.contains(l) {
                                found.system_libs.push(format!("-l{l}"));
                            }
                        }
                    }
                    found
                }
                Err(reason) => {
                    let m = Message::new(format!(
                        "{} could not be found: pkg-config knows no usable module {}",
                        library.name, self.module
                    ))
                    .output(&reason);
                    let m = super::message::install_fixes(m, library);
                    return Err(m
                        .fix(format!(
                            "point pkg-config at an installation: PKG_CONFIG_PATH=/path/lib/pkgconfig (the directory of {}.pc)",
                            self.module
                        ))
                        .fix(format!(
                            "name the directories yourself: {}=/path/lib {}=/path/include",
                            self.variable("LIB_DIR"),
                            self.variable("INCLUDE_DIR")
                        )));
                }
            }
        };
        if let Some((_, value)) = &libs {
            found.libs = Some(split_libs(value));
        }
        found.link_directives = true;
        if want_static {
            found.link_mode = LinkMode::Static;
            // An archive that is in none of the directories found (the compiler's default
            // directories, or a pkg-config file whose `libdir` is not where the archive is): where
            // the compiler's driver finds it.
            for name in link_names(cx, &libs) {
                let archive = format!("lib{name}.a");
                let listed = found.lib_dirs.iter().any(|d| {
                    cx.env
                        .list_dir(d)
                        .map_or(false, |names| names.contains(&archive))
                });
                if listed {
                    continue;
                }
                if let Some(path) = cx.env.compiler_file_name(&archive) {
                    if let Some(dir) = std::path::Path::new(&path).parent() {
                        let dir = dir.display().to_string();
                        if !found.lib_dirs.contains(&dir) {
                            found.lib_dirs.push(dir);
                        }
                    }
                }
            }
        }
        Ok(found)
    }

    fn cross_fix(&self, library: &Library, target: &TargetInfo) -> Option<String> {
        let prefixed = crate::clib::target_prefixed(&target.triple, &self.variable("LIB_DIR"));
        Some(format!(
            "and a {} built for {}: PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its {}.pc, or {prefixed}=/path/lib",
            library.name, target.triple, self.module
        ))
    }
}

/// The libraries linked: `<LIB>_LIBS` when set, else those the probes link.
fn link_names(cx: &FindContext<'_>, libs: &Option<(String, String)>) -> Vec<String> {
    match libs {
        Some((_, value)) if !split_libs(value).is_empty() => split_libs(value),
        _ => {
            let mut names = Vec::with_capacity(cx.link.len());
            for l in cx.link {
                names.push(l.to_string());
            }
            names
        }
    }
}

/// The directives that link a found library: one `rustc-link-search` per library directory, one
/// `rustc-link-lib` per library (`static=` for archives), then what a static link needs after the
/// archives.
pub(crate) fn link_directives(found: &Found, link: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in &found.lib_dirs {
        out.push(format!("cargo:rustc-link-search=native={d}"));
    }
    let names = found.link_names(link);
    let kind = match found.link_mode {
        LinkMode::Static => "static=",
        LinkMode::Dynamic => "",
    };
    for n in &names {
        out.push(format!("cargo:rustc-link-lib={kind}{n}"));
    }
    if found.link_mode == LinkMode::Static {
        for lib in &found.system_libs {
            let name = lib
                .strip_prefix("-l")
                .or_else(|| lib.strip_prefix('-'))
                .unwrap_or(lib);
            if !name.is_empty() {
                out.push(format!("cargo:rustc-link-lib={name}"));
            }
        }
    }
    out
}

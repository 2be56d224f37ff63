//! The C libraries providers link, and the compile-and-link probes that prove a build can use
//! them, like autoconf's `AC_CHECK_LIB`.
//!
//! A [`Library`] says how the build finds it (its [`Finder`]), which versions the declaring crate
//! accepts ([`VersionCheck`]) and the fixes a failure offers; a [`Probe`] names a C program that
//! calls one symbol of it. Three finders come with this crate, and any crate can write its own:
//!
//! - [`SysCrate`]: what the library's `-sys` crate published to its direct dependents
//!   (`DEP_<LINKS>_INCLUDE`, and `DEP_<LINKS>_ROOT` when it built the library itself);
//! - [`PkgConfig`]: pkg-config's answer for a module (as a `-sys` crate with a `pkg-config`
//!   feature finds it), with its version;
//! - [`openssl::OpensslSys`]: OpenSSL as `openssl-sys` found it, judged by the declaring crate's
//!   own version policy.
//!
//! The decisions take the environment through [`BuildEnv`], so that they are tested with layouts
//! and targets that exist nowhere; `run` (feature `build-script`) gives them the real one and runs
//! the compiler.

// The decisions are pure, and tested without feature `build-script`; only that feature's half
// calls them.
#![cfg_attr(not(feature = "build-script"), allow(dead_code))]

use std::fmt;

mod finders;
mod library;
mod message;
pub mod openssl;
#[cfg(feature = "build-script")]
pub(crate) mod run;
mod system;

pub use finders::{PkgConfig, SysCrate};
pub use library::{Library, Probe, ReadVersion, VersionCheck};
pub use message::Message;
pub use system::System;

use library::{VersionSource, version_from_preprocessed, version_program};

// ---- how a library is found ---------------------------------------------------------------

/// What a finder may read and ask while it decides: the build script's variables, the
/// directories, the C preprocessor and pkg-config. The build script gives the real ones; a test
/// gives its own.
pub trait BuildEnv {
    /// A variable the user sets (recorded with `rerun-if-env-changed` in a build script).
    fn var(&self, name: &str) -> Option<String>;
    /// A variable Cargo sets for build scripts (`DEP_*`, `TARGET`, `CARGO_CFG_*`).
    fn cargo_var(&self, name: &str) -> Option<String>;
    /// The target being built for.
    fn target(&self) -> TargetInfo;
    /// The names of a directory's entries, or `None` when it cannot be read.
    fn list_dir(&self, dir: &str) -> Option<Vec<String>>;
    /// The target C compiler's preprocessor output for `source`, with `-I` for each of
    /// `include_dirs`; `None` when it fails.
    fn preprocess(&self, source: &str, include_dirs: &[String]) -> Option<String>;
    /// Where the target C compiler finds file `name` in its default search path
    /// (`-print-file-name`), when it finds it.
    fn compiler_file_name(&self, name: &str) -> Option<String>;
    /// pkg-config's answer for `module`, or why it has none.
    fn pkg_config(&self, module: &str) -> Result<PkgConfigFound, String>;

    /// pkg-config's answer for a static link of `module` (`--static`: `Libs.private` too, in
    /// [`PkgConfigFound::libs`]). By default, [`BuildEnv::pkg_config`]'s.
    fn pkg_config_static(&self, module: &str) -> Result<PkgConfigFound, String> {
        self.pkg_config(module)
    }

    /// A variable that also has a target-prefixed form (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`),
    /// which wins, as in `openssl-sys`. Both forms are read.
    fn target_var(&self, name: &str) -> Option<String> {
        let prefixed = self.var(&crate::knobs::target_prefixed(&self.target().triple, name));
        let plain = self.var(name);
        prefixed.or(plain)
    }
}

/// What pkg-config says of a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PkgConfigFound {
    /// `-I` directories (none for the system's own).
    pub include_dirs: Vec<String>,
    /// `-L` directories (none for the system's own).
    pub lib_dirs: Vec<String>,
    /// Its `Version:`.
    pub version: String,
    /// The libraries it links, as `-l` takes them (for a static answer, `Libs.private` too).
    pub libs: Vec<String>,
}

impl PkgConfigFound {
    /// pkg-config's answer: directories and version.
    pub fn new(
        include_dirs: Vec<String>,
        lib_dirs: Vec<String>,
        version: String,
    ) -> PkgConfigFound {
        PkgConfigFound {
            include_dirs,
            lib_dirs,
            version,
            libs: Vec::new(),
        }
    }
}

/// What a [`Finder`] is told.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct FindContext<'a> {
    /// The environment.
    pub env: &'a dyn BuildEnv,
    /// The crate whose table declares the library ([`crate::Spec::name`]), for messages.
    pub declared_by: &'a str,
    /// The libraries the probes will link, in link order, as `-l` takes them.
    pub link: &'a [&'static str],
}

/// How a build finds a C library: where its headers and libraries are, how it links, its
/// version. Implement it for a library none of the finders of this crate fits.
pub trait Finder: Sync + fmt::Debug {
    /// Where `library` is, or the build error saying why it cannot be used (without who asked:
    /// the caller adds that).
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message>;

    /// For a cross build without a usable C compiler: the second line of the fix, how to provide
    /// the library for `target` (after the compiler's line).
    fn cross_fix(&self, library: &Library, target: &TargetInfo) -> Option<String> {
        Some(format!(
            "and a {} built for {}, where the build finds it (PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files)",
            library.name, target.triple
        ))
    }
}

/// Where a library was found and how the probes link it; what the build options record of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// How it was located, for messages and the build options (`pkg-config (libzstd)`,
    /// `libz-sys`, `OPENSSL_DIR=/opt/ssl`).
    pub located_by: String,
    /// `-I` directories; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// `-L` directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Static (the archives' paths are linked) or dynamic (`-l`).
    pub link_mode: LinkMode,
    /// What a static link needs after the archives (`-ldl`, `-pthread`).
    pub system_libs: Vec<String>,
    /// Its version, when the finder knows it.
    pub version: Option<String>,
    /// Warnings to print (an accepted but untested version).
    pub warnings: Vec<String>,
    /// The library directories the build options record, when not [`Found::lib_dirs`] (a copy
    /// built inside the target directory is not recorded by path).
    pub recorded_lib_dirs: Option<Vec<String>>,
    /// Its `-sys` crate built its own copy.
    pub own_copy: bool,
    /// The libraries to link instead of those the probes name (`<LIB>_LIBS` of a [`System`]
    /// library), as `-l` takes them.
    pub libs: Option<Vec<String>>,
    /// The build script links it: once the probes pass, it emits `rustc-link-search` for
    /// [`Found::lib_dirs`] and `rustc-link-lib` for each library ([`System`] sets it). `false`:
    /// something else links it (its `-sys` crate).
    pub link_directives: bool,
}

impl Found {
    /// Found as `located_by` says, dynamic, in the compiler's default directories.
    pub fn new(located_by: impl Into<String>) -> Found {
        Found {
            located_by: located_by.into(),
            ..Found::default()
        }
    }
}

/// How a library ends up in the binaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkMode {
    /// A shared library: listed in NEEDED.
    #[default]
    Dynamic,
    /// An archive: copied into the binary.
    Static,
}

/// A C library the build probed, as recorded in the build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LibraryFound {
    /// The library's name (`zlib`).
    pub library: &'static str,
    /// Its version, when known.
    pub version: Option<String>,
    /// How it was located.
    pub located_by: String,
    /// Library directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Linked statically.
    pub static_link: bool,
    /// `-I` directories of its headers; none: the compiler's default. For a build script that
    /// compiles C of its own against the library (`cc::Build::includes`).
    pub include_dirs: Vec<String>,
    /// The build script emitted its `rustc-link-lib` directives ([`Found::link_directives`]).
    pub linked_here: bool,
}

/// The target being built for, as Cargo describes it to build scripts (`TARGET`, `HOST` and
/// `CARGO_CFG_TARGET_*`), never the machine the build script runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TargetInfo {
    /// `TARGET`, for example `aarch64-unknown-linux-gnu`.
    pub triple: String,
    /// `HOST`: the triple of the machine running the build.
    pub host: String,
    /// `CARGO_CFG_TARGET_ARCH`.
    pub arch: String,
    /// `CARGO_CFG_TARGET_OS`.
    pub os: String,
    /// `CARGO_CFG_TARGET_ENV` (`gnu`, `musl`, `msvc`, or empty).
    pub env: String,
    /// `CARGO_CFG_TARGET_VENDOR`.
    pub vendor: String,
    /// `CARGO_CFG_TARGET_POINTER_WIDTH`.
    pub pointer_width: u32,
}

impl TargetInfo {
    /// Whether the build runs on another kind of machine than it builds for.
    pub fn is_cross(&self) -> bool {
        !self.host.is_empty() && self.triple != self.host
    }

    /// Whether the target's C toolchain is Microsoft's (`cl.exe`, `.lib` archives).
    pub fn is_msvc(&self) -> bool {
        self.env == "msvc"
    }
}

/// Lists a directory: the names of its entries, or `None` when it does not exist. Injected, so
/// that the decisions are tested with layouts that exist nowhere.
pub(crate) trait ListDir: Fn(&str) -> Option<Vec<String>> {}
impl<F: Fn(&str) -> Option<Vec<String>>> ListDir for F {}

pub(crate) fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// `lib64/` and `lib/` of `prefix` that exist, both when both do (as `openssl-sys` takes them).
pub(crate) fn lib_dirs_of(prefix: &str, list: &impl ListDir) -> Vec<String> {
    ["lib64", "lib"]
        .iter()
        .map(|d| join(prefix, d))
        .filter(|d| list(d).is_some())
        .collect()
}

// ---- who asked ----------------------------------------------------------------------------

/// Who asked for a probed library, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Asker {
    /// What was selected: `sha1 = openssl`.
    pub what: String,
    /// Where the selection came from: `DEMO_SHA1_PROVIDER`, `default with feature openssl-sha1`,
    /// `config.toml:3:12`.
    pub origin: String,
    /// The change that avoids the library: `DEMO_SHA1_PROVIDER=dc`.
    pub instead: String,
}

/// A probe the build needs, and who asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    /// What to probe.
    pub probe: &'static Probe,
    /// Who asked (one line each in messages).
    pub askers: Vec<Asker>,
}

pub(crate) fn askers(needs: &[Need]) -> impl Iterator<Item = &Asker> {
    needs.iter().flat_map(|n| &n.askers)
}

// ---- the decisions before the compiler runs -----------------------------------------------

/// Finds `library` for `needs` (all of them probes of it) and checks its version: the [`Found`]
/// the probes use, or the build error's text.
pub(crate) fn locate(
    library: &'static Library,
    needs: &[Need],
    who: &str,
    env: &dyn BuildEnv,
) -> Result<Found, String> {
    let mut link: Vec<&'static str> = Vec::new();
    for need in needs {
        for l in need.probe.link {
            if !link.contains(l) {
                link.push(l);
            }
        }
    }
    let cx = FindContext {
        env,
        declared_by: who,
        link: &link,
    };
    let mut found = library
        .finder
        .find(library, &cx)
        .map_err(|m| m.asked_by(library.name, askers(needs)).render())?;
    if let Some(check) = &library.version {
        let version = match check.read.0 {
            VersionSource::Found => found.version.clone(),
            VersionSource::Metadata(variable) => env.cargo_var(variable),
            VersionSource::Macros { header, macros } => env
                .preprocess(&version_program(header, macros), &found.include_dirs)
                .and_then(|out| version_from_preprocessed(&out)),
        };
        let verdict = match &version {
            Some(v) => check.judge(library.name, v, who),
            None => Err(format!(
                "{}'s version could not be read ({}), so the minimum {} cannot be checked",
                library.name, check.read, check.minimum
            )),
        };
        match verdict {
            Ok(warning) => found.warnings.extend(warning),
            Err(reason) => {
                return Err(message::version_message(library, &reason, &found)
                    .asked_by(library.name, askers(needs))
                    .render());
            }
        }
        found.version = version;
    }
    Ok(found)
}

/// What a probe passes to the compiler after the source: `-I` and `-L` directories, then the
/// libraries — `-l<name>` for a dynamic build, the archives' paths and the system libraries for
/// a static one (the paths work with every Unix linker, where `-Bstatic` does not).
pub(crate) fn probe_args(
    probe: &Probe,
    found: &Found,
    list: &impl ListDir,
) -> Result<Vec<String>, Message> {
    let link: Vec<&str> = match &found.libs {
        Some(libs) => libs.iter().map(String::as_str).collect(),
        None => probe.link.to_vec(),
    };
    let mut args: Vec<String> = found
        .include_dirs
        .iter()
        .map(|d| format!("-I{d}"))
        .collect();
    match found.link_mode {
        LinkMode::Dynamic => {
            args.extend(found.lib_dirs.iter().map(|d| format!("-L{d}")));
            args.extend(link.iter().map(|l| format!("-l{l}")));
        }
        LinkMode::Static => {
            for lib in &link {
                let file = format!("lib{lib}.a");
                let dir = found
                    .lib_dirs
                    .iter()
                    .find(|d| list(d).map_or(false, |names| names.contains(&file)));
                match dir {
                    Some(dir) => args.push(join(dir, &file)),
                    None => return Err(message::missing_archive(probe.library, &file, found)),
                }
            }
            args.extend(found.system_libs.iter().cloned());
        }
    }
    Ok(args)
}

/// A source feature of `library` (see [`Library::source_features`]) that is on: with no provider
/// linking the library compiled, an error (it would change nothing); with none selected, a
/// warning (the library is built for nothing). `features_on` names every provider feature on;
/// `compiling` those among them that compile a provider linking the library; `linking` every
/// provider feature that would.
pub(crate) fn source_feature_check(
    library: &Library,
    feature: &str,
    features_on: &[&str],
    compiling: &[&str],
    linking: &[&str],
    selected: bool,
) -> Result<Option<String>, String> {
    let name = library.name;
    if compiling.is_empty() {
        let on = crate::model::names_or_none(features_on);
        let example = linking.first().map_or(String::new(), |f| {
            format!(", for example `--features {feature},{f}`")
        });
        return Err(Message::new(format!(
            "feature `{feature}` is on, but no {name} provider is compiled (features on: {on} {feature})"
        ))
        .tried(format!("{feature} only says where {name} comes from; it selects nothing by itself"))
        .fix(format!(
            "add the features you want it for ({}){example}, or drop {feature}",
            linking.join(", ")
        ))
        .render());
    }
    if !selected {
        return Ok(Some(format!(
            "feature `{feature}` says where {name} comes from, but no selected provider uses {name} (the {} providers are compiled, not selected): the binaries link none of it",
            compiling.join(", ")
        )));
    }
    Ok(None)
}

/// The C compiler the `cc` crate picked for the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompilerFacts {
    /// Its path or name.
    pub path: String,
    /// It takes MSVC-style options (`cl.exe`, `clang-cl`).
    pub msvc_like: bool,
    /// It is Clang (which cross-compiles with `--target`, which `cc` passes).
    pub clang_like: bool,
    /// The variable that named it (`CC_aarch64_unknown_linux_gnu`, `TARGET_CC`, `CC`), if any.
    pub named_by: Option<String>,
}

/// Why a probe cannot run for this target, decided before running anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CompilerProblem {
    /// An MSVC-style compiler: the probes use a GCC/Clang command line.
    Msvc {
        /// The compiler.
        path: String,
    },
    /// Cross-compiling, and `cc` knew no cross compiler for the target, so it fell back to the
    /// host's: the probe would compile for the wrong machine.
    NoCrossCompiler {
        /// The host compiler it fell back to.
        path: String,
    },
    /// The compiler could not be started (not installed).
    NotFound {
        /// The compiler.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// `cc` could not pick a compiler at all.
    NoCompiler {
        /// `cc`'s reason.
        reason: String,
    },
}

/// Checks, before running it, that `compiler` can compile and link a probe for `target`.
pub(crate) fn check_compiler(
    target: &TargetInfo,
    compiler: &CompilerFacts,
) -> Result<(), CompilerProblem> {
    if compiler.msvc_like || (target.is_msvc() && compiler.named_by.is_none()) {
        return Err(CompilerProblem::Msvc {
            path: compiler.path.clone(),
        });
    }
    if target.is_cross() && compiler.named_by.is_none() && !compiler.clang_like {
        let name = compiler
            .path
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&compiler.path)
            .trim_end_matches(".exe");
        if matches!(name, "cc" | "gcc" | "c99") {
            return Err(CompilerProblem::NoCrossCompiler {
                path: compiler.path.clone(),
            });
        }
    }
    Ok(())
}

/// The variable names the `cc` crate reads for the target's C compiler, in its order.
pub(crate) fn compiler_variables(target: &TargetInfo) -> Vec<String> {
    vec![
        format!("CC_{}", target.triple),
        format!("CC_{}", target.triple.replace('-', "_")),
        if target.is_cross() {
            "TARGET_CC".to_string()
        } else {
            "HOST_CC".to_string()
        },
        "CC".to_string(),
    ]
}

/// A probe that did not compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProbeFailure {
    /// What was probed.
    pub probe: &'static Probe,
    /// How the library was located ([`Found::located_by`]).
    pub located_by: String,
    /// `-L` directories tried; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// `-I` directories tried; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// The compiler command line, for reproducing it by hand.
    pub command: String,
    /// The last lines of the compiler's output.
    pub output: String,
}

#[cfg(test)]
mod tests;

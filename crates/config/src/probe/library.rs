//! What a facility table says about the C libraries its providers link: per [`Library`], the
//! `-sys` crate that finds it and publishes what it found; per [`Probe`], the `compat/` program
//! and the symbol that prove a build can compile and link against it, like autoconf's
//! `AC_CHECK_LIB`.
//!
//! Two ways of checking what the `-sys` crate found ([`Finder`]): OpenSSL's (its layouts, the
//! supported version range, the static check: the parent module), and the one any other `-sys`
//! crate gets ([`generic_plan`]): its published include directory and, when it built the library
//! itself, its root.

use super::{LinkMode, ListDir, join, lib_dirs_of};

/// A C library that providers link, found and linked by a `-sys` crate.
#[derive(Debug)]
pub struct Library {
    /// For messages: `OpenSSL`, `zlib`.
    pub name: &'static str,
    /// The `-sys` crate that finds and links it (`openssl-sys`). The package whose build script
    /// probes must depend on it directly: Cargo gives a crate's metadata only to its direct
    /// dependents.
    pub sys_crate: &'static str,
    /// The `-sys` crate's `links` key, as Cargo spells it in the variables it gives dependents:
    /// `OPENSSL` for `DEP_OPENSSL_INCLUDE`, `Z` for `DEP_Z_ROOT`.
    pub links: &'static str,
    /// How the build checks what the `-sys` crate found before probing.
    pub finder: Finder,
    /// The development files per distribution, for the fix of a failed probe: (`Debian/Ubuntu`,
    /// `apt-get install libssl-dev pkg-config`).
    pub install: &'static [(&'static str, &'static str)],
    /// Further fixes of a failed probe: how to point the `-sys` crate at an installation.
    pub locate: &'static [&'static str],
    /// The variables with which a user asks the `-sys` crate to build its own copy
    /// (`LIBZ_SYS_STATIC=1`). A copy it built although none was set (it found no system library,
    /// and fell back) is reported with a build-script warning, never silently linked.
    pub own_copy_asked_by: &'static [&'static str],
}

/// How what a `-sys` crate found is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finder {
    /// `openssl-sys`: `DEP_OPENSSL_*` and the `OPENSSL_*` variables it reads, its search
    /// layouts, the supported version range and the static check.
    Openssl,
    /// Any other `-sys` crate: `-I` from `DEP_<LINKS>_INCLUDE`, `-L` from `DEP_<LINKS>_ROOT`'s
    /// `lib64/` and `lib/` when it built the library itself (static when only archives are
    /// there), else the compiler's defaults.
    Generic,
}

/// One compile-and-link check of a [`Library`].
#[derive(Debug)]
pub struct Probe {
    /// The library.
    pub library: &'static Library,
    /// The C source, relative to the package's compat directory (`probe-sha1.c`).
    pub source: &'static str,
    /// The symbol the program calls first, named in failures (`SHA1_Init`).
    pub symbol: &'static str,
    /// The libraries it links, in link order, as `-l` takes them (`ssl`, `crypto`).
    pub link: &'static [&'static str],
    /// What it checks, for messages: `SHA-1 digest in libcrypto`.
    pub what: &'static str,
}

impl PartialEq for Probe {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Probe {}

impl PartialEq for Library {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Library {}

/// OpenSSL through `openssl-sys`, checked with [`Finder::Openssl`].
pub static OPENSSL: Library = Library {
    name: "OpenSSL",
    sys_crate: "openssl-sys",
    links: "OPENSSL",
    finder: Finder::Openssl,
    install: &[
        ("Debian/Ubuntu", "apt-get install libssl-dev pkg-config"),
        ("Fedora", "dnf install openssl-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S openssl pkgconf"),
        ("Alpine", "apk add openssl-dev pkgconf"),
    ],
    locate: &[
        "point the build at an installation: OPENSSL_DIR=/path (containing include/openssl and lib/), or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR",
    ],
    own_copy_asked_by: &[],
};

/// What a [`Finder::Generic`] `-sys` crate published (`DEP_<LINKS>_INCLUDE`, `DEP_<LINKS>_ROOT`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Published {
    /// `DEP_<LINKS>_INCLUDE`: the headers' directory, when it says.
    pub include: Option<String>,
    /// `DEP_<LINKS>_ROOT`: where it installed a library it built itself.
    pub root: Option<String>,
}

/// Where a [`Finder::Generic`] probe looks, and how it links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericPlan {
    /// `-I` directories; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// `-L` directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Static when the `-sys` crate's own build left only archives.
    pub mode: LinkMode,
    /// How the library was located, for messages and the build options.
    pub located_by: String,
}

/// The plan of a [`Finder::Generic`] library from what its `-sys` crate published; `link`: the
/// libraries its probes link.
pub fn generic_plan(
    library: &Library,
    published: &Published,
    link: &[&str],
    list: &impl ListDir,
) -> GenericPlan {
    let include_dirs: Vec<String> = published.include.iter().cloned().collect();
    let (lib_dirs, located_by) = match &published.root {
        Some(root) => (
            lib_dirs_of(root, list),
            format!(
                "{} (built by it: DEP_{}_ROOT)",
                library.sys_crate, library.links
            ),
        ),
        None => (Vec::new(), library.sys_crate.to_string()),
    };
    let files: Vec<String> = lib_dirs.iter().filter_map(|d| list(d)).flatten().collect();
    let only_archives = !lib_dirs.is_empty()
        && link.iter().all(|l| files.contains(&format!("lib{l}.a")))
        && !link.iter().any(|l| {
            files
                .iter()
                .any(|f| f.starts_with(&format!("lib{l}.so")) || *f == format!("lib{l}.dylib"))
        });
    GenericPlan {
        include_dirs,
        lib_dirs,
        mode: if only_archives {
            LinkMode::Static
        } else {
            LinkMode::Dynamic
        },
        located_by,
    }
}

/// The compiler arguments after the source for a [`Finder::Generic`] probe: `-I` and `-L`, then
/// `-l<lib>` (dynamic) or the archives' paths (static).
pub fn generic_args(probe: &Probe, plan: &GenericPlan, list: &impl ListDir) -> Vec<String> {
    let mut args: Vec<String> = plan.include_dirs.iter().map(|d| format!("-I{d}")).collect();
    for lib in probe.link {
        let archive = format!("lib{lib}.a");
        let dir = plan
            .lib_dirs
            .iter()
            .find(|d| list(d).is_some_and(|names| names.contains(&archive)));
        match (plan.mode, dir) {
            (LinkMode::Static, Some(dir)) => args.push(join(dir, &archive)),
            _ => {
                args.extend(plan.lib_dirs.iter().map(|d| format!("-L{d}")));
                args.push(format!("-l{lib}"));
            }
        }
    }
    args
}

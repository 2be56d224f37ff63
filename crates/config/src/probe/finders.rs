//! The finders that come with this crate: a `-sys` crate's published metadata, and pkg-config.

// `#[inline]` on the finders' functions: a build script compiles them only when its table names
// the finder (one declared in `[package.metadata]` never does), not in every copy of this crate.

use super::need::lib_dirs_of;
use crate::clib::{FindContext, Finder, Found, Library, LinkMode, Message};

/// A library found and linked by its `-sys` crate, which published what it found to its direct
/// dependents: `-I` from `DEP_<LINKS>_INCLUDE` (several directories separated by `;`); when it
/// built the library itself, `DEP_<LINKS>_ROOT`'s `lib64/` and `lib/` (static when only archives
/// are there, and reported with a warning unless [`Library::own_copy_asked_by`] asked for it);
/// otherwise the compiler's default directories. The package whose build script probes must
/// depend on the `-sys` crate directly: Cargo gives its metadata only to direct dependents.
///
/// ```
/// use flagsplit_config::clib::{Library, Probe};
/// use flagsplit_config::probe::SysCrate;
///
/// // libz-sys has `links = "z"`: Cargo names its metadata DEP_Z_*.
/// static LIBZ_SYS: SysCrate = SysCrate::new("libz-sys", "Z");
/// static LIBZ: Library = Library::new("zlib", &LIBZ_SYS)
///     .install(&[("Debian/Ubuntu", "apt-get install zlib1g-dev pkg-config")])
///     .own_copy_asked_by(&["LIBZ_SYS_STATIC"]);
/// static INFLATE: Probe = Probe::new(&LIBZ, "probe-zlib.c", "inflateInit2_", &["z"], "inflate in libz");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SysCrate {
    sys_crate: &'static str,
    links: &'static str,
}

impl SysCrate {
    /// The `-sys` crate `sys_crate`, whose `links` key Cargo spells `links` in the variables it
    /// gives dependents (`OPENSSL` for `DEP_OPENSSL_INCLUDE`, `Z` for `DEP_Z_ROOT`).
    pub const fn new(sys_crate: &'static str, links: &'static str) -> SysCrate {
        SysCrate { sys_crate, links }
    }
}

impl Finder for SysCrate {
    #[inline]
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message> {
        let env = cx.env;
        let include = env.cargo_var(&format!("DEP_{}_INCLUDE", self.links));
        let root = env.cargo_var(&format!("DEP_{}_ROOT", self.links));
        let list = |dir: &str| env.list_dir(dir);
        let mut found = Found::new(self.sys_crate);
        found.include_dirs = include
            .iter()
            .flat_map(|dirs| dirs.split(';'))
            .filter(|d| !d.is_empty())
            .map(String::from)
            .collect();
        if let Some(root) = &root {
            found.located_by = format!("{} (built by it: DEP_{}_ROOT)", self.sys_crate, self.links);
            found.lib_dirs = lib_dirs_of(root, &list);
            found.own_copy = true;
            found.bundled = Some((
                format!("DEP_{}_ROOT", self.links),
                format!(
                    "make {} use the system's copy (its own switch: {})",
                    self.sys_crate,
                    switches(self.sys_crate).system
                ),
            ));
            // A copy the -sys crate built lies in its OUT_DIR, which would make the binary
            // depend on where it was built: not recorded.
            found.recorded_lib_dirs = Some(vec![format!("{}'s OUT_DIR", self.sys_crate)]);
        }
        let files: Vec<String> = found
            .lib_dirs
            .iter()
            .filter_map(|d| list(d))
            .flatten()
            .collect();
        let only_archives = !found.lib_dirs.is_empty()
            && cx.link.iter().all(|l| files.contains(&format!("lib{l}.a")))
            && !cx.link.iter().any(|l| {
                files
                    .iter()
                    .any(|f| f.starts_with(&format!("lib{l}.so")) || *f == format!("lib{l}.dylib"))
            });
        if only_archives {
            found.link_mode = LinkMode::Static;
        }
        let sw = switches(self.sys_crate);
        link_policy_check(
            &found,
            cx,
            library,
            self.sys_crate,
            (sw.link_static, sw.link_dynamic),
        )?;
        Ok(found)
    }
}

/// The switches of a known `-sys` crate, as its documentation names them.
struct Switches {
    /// What makes it use the system's library rather than build its own copy.
    system: &'static str,
    /// What makes it link statically.
    link_static: &'static str,
    /// What makes it link dynamically.
    link_dynamic: &'static str,
}

#[inline]
fn switches(sys_crate: &str) -> Switches {
    known_switches(sys_crate).unwrap_or(Switches {
        system: "see its documentation",
        link_static: "see its documentation",
        link_dynamic: "see its documentation",
    })
}

#[inline]
fn known_switches(sys_crate: &str) -> Option<Switches> {
    Some(match sys_crate {
        "libz-sys" => Switches {
            system: "unset LIBZ_SYS_STATIC or set it to 0, and turn off its `static` feature",
            link_static: "LIBZ_SYS_STATIC=1 (it then builds its bundled zlib and links it statically)",
            link_dynamic: "unset LIBZ_SYS_STATIC or set it to 0, and turn off its `static` feature (it then links the system's shared zlib)",
        },
        "zstd-sys" => Switches {
            system: "ZSTD_SYS_USE_PKG_CONFIG=1",
            link_static: "turn off its `pkg-config` feature (its bundled, static build)",
            link_dynamic: "turn on its `pkg-config` feature and set ZSTD_SYS_USE_PKG_CONFIG=1",
        },
        "openssl-sys" => Switches {
            system: "OPENSSL_NO_VENDOR=1",
            link_static: "OPENSSL_STATIC=1",
            link_dynamic: "unset OPENSSL_STATIC or set it to 0",
        },
        _ => return None,
    })
}

/// What makes a known `-sys` crate (`libz-sys`, `zstd-sys`, `openssl-sys`) use the system's
/// library rather than build its own copy, as its documentation names it; `None` for another
/// crate. `cargo flagsplit` gives it as the fix for a bundled copy a policy refuses.
pub fn system_switch(sys_crate: &str) -> Option<&'static str> {
    known_switches(sys_crate).map(|s| s.system)
}

/// A library linked by its `-sys` crate (not by this crate's directives) obeys that crate's own
/// switches, not `RUST_BACKEND_LINK`: when the two disagree the build stops, naming the switch,
/// rather than link otherwise than asked.
/// `switches`: what makes that crate link statically, and dynamically; the fix names the one the
/// policy asks for.
#[inline]
pub(crate) fn link_policy_check(
    found: &Found,
    cx: &FindContext<'_>,
    library: &Library,
    sys_crate: &str,
    switches: (&str, &str),
) -> Result<(), Message> {
    let (value, by) = match cx.link_policy {
        Some(policy) => policy,
        None => return Ok(()),
    };
    let is_static = found.link_mode == LinkMode::Static;
    if (value == "static") == is_static {
        return Ok(());
    }
    let how = if is_static {
        "statically"
    } else {
        "dynamically"
    };
    Err(Message::new(format!(
        "{by} asks for {value} linking, but {sys_crate} links {} {how}, and it decides: this crate's link policy applies only to libraries it links itself",
        library.name
    ))
    .fix(format!(
        "set {sys_crate}'s own switch for {value} linking: {}",
        if value == "static" { switches.0 } else { switches.1 }
    ))
    .fix(format!(
        "scope the policy: a library's own variables win, and a target-scoped {} applies to one target only",
        crate::graph::Setting::Link.variable()
    )))
}

/// A library found by pkg-config (as a `-sys` crate with a `pkg-config` feature, such as
/// zstd-sys, finds it): its `-I` and `-L` directories and its `Version:`, which
/// [`crate::clib::ReadVersion::FOUND`] checks. pkg-config reads `PKG_CONFIG_PATH`,
/// `PKG_CONFIG_SYSROOT_DIR` and their target-prefixed forms, as the `pkg-config` crate does.
///
/// ```
/// use flagsplit_config::clib::{Library, ReadVersion, VersionCheck};
/// use flagsplit_config::probe::PkgConfig;
///
/// static LIBZSTD: PkgConfig = PkgConfig::new("libzstd");
/// static ZSTD: Library = Library::new("zstd", &LIBZSTD)
///     .version(VersionCheck::minimum(ReadVersion::FOUND, "1.4.0"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PkgConfig {
    module: &'static str,
}

impl PkgConfig {
    /// The pkg-config module `module` (`libzstd`, `zlib`, `libcurl`).
    pub const fn new(module: &'static str) -> PkgConfig {
        PkgConfig { module }
    }
}

impl Finder for PkgConfig {
    #[inline]
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message> {
        match cx.env.pkg_config(self.module) {
            Ok(answer) => {
                let mut found = Found::new(format!("pkg-config ({})", self.module));
                found.include_dirs = answer.include_dirs;
                found.lib_dirs = answer.lib_dirs;
                found.version = Some(answer.version);
                // Found by pkg-config, linked by its -sys crate: that crate decides how.
                link_policy_check(
                    &found,
                    cx,
                    library,
                    "its -sys crate",
                    (
                        "see that crate's documentation",
                        "see that crate's documentation",
                    ),
                )?;
                Ok(found)
            }
            Err(reason) => {
                let mut m = Message::new(format!(
                    "{} could not be found: pkg-config knows no usable module {}",
                    library.name, self.module
                ))
                .output(&reason);
                m = super::message::install_fixes(m, library);
                Err(m.fix(format!(
                    "point pkg-config at an installation: PKG_CONFIG_PATH=/path/lib/pkgconfig (the directory of {}.pc)",
                    self.module
                )))
            }
        }
    }
}

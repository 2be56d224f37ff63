//! zlib-c's facility table: `inflate`, of kind `zlib`, with `pure-rust` (the default) and
//! `system`. build.rs `#[path]`-includes it.

use flagsplit_config::clib::{Library, Probe};
use flagsplit_config::probe::SysCrate;
use flagsplit_config::{Facility, Provider, Spec, Variable, When};

/// libz-sys (`links = "z"`: `DEP_Z_INCLUDE`, and `DEP_Z_ROOT` when it built its bundled copy).
static LIBZ_SYS: SysCrate = SysCrate::new("libz-sys", "Z");

/// zlib, found (or built) by libz-sys.
pub static ZLIB: Library = Library::new("zlib", &LIBZ_SYS)
    .install(&[
        ("Debian/Ubuntu", "apt-get install zlib1g-dev pkg-config"),
        ("Fedora", "dnf install zlib-devel pkgconf-pkg-config"),
    ])
    .own_copy_asked_by(&["LIBZ_SYS_STATIC"]);

/// `compat/probe-zlib.c`: zlib's inflater.
pub static PROBE_ZLIB: Probe = Probe::new(
    &ZLIB,
    "probe-zlib.c",
    "inflateInit2_",
    &["z"],
    "inflate in libz",
);

/// Variables `ZLIB_C_*`, cfgs `zlib_c_*`.
pub static SPEC: Spec = Spec::library("zlib-c", "ZLIB_C", "zlib_c")
    .facilities(&[Facility::new(
        "inflate",
        "INFLATE",
        "zlib (DEFLATE) decompression",
        &[
            Provider::new("pure-rust", "MINIZ_OXIDE", "pure Rust (crate miniz_oxide)")
                .answers_to("pure-rust"),
            Provider::new("system", "SYSTEM_ZLIB", "zlib through libz-sys")
                .feature("system")
                .links(&["libz"])
                .probe(&PROBE_ZLIB)
                .answers_to("system"),
        ],
    )
    .kind("zlib")])
    .foreign_variables(&[Variable::new(
        "LIBZ_SYS_STATIC",
        When::Build,
        "compile libz-sys's bundled zlib and link it statically (libz-sys)",
    )
    .values("1 (0: dynamic)")]);

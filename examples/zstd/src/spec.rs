//! The facility table of zstd-demo: one facility, `compress`, with two providers, and the C
//! library the second one links (libzstd), how the build finds it (pkg-config's `libzstd`, or the
//! `ZSTD_*` variables), the versions accepted and the probe. build.rs resolves, probes and links
//! it (`#[path]`-included there); the library's build options read it.

use flagsplit_config::clib::{Library, Probe, ReadVersion, VersionCheck};
use flagsplit_config::probe::System;
use flagsplit_config::{Facility, Provider, Spec};

/// libzstd as pkg-config describes it (`libzstd.pc`), or as `ZSTD_NO_PKG_CONFIG`,
/// `ZSTD_LIB_DIR`, `ZSTD_INCLUDE_DIR`, `ZSTD_LIBS` and `ZSTD_STATIC` say; linked by build.rs.
static LIBZSTD: System = System::new("libzstd", "ZSTD");

/// libzstd: found by pkg-config or the `ZSTD_*` variables; its version read from the `zstd.h` the probe compiles against;
/// 1.4.0 or newer (the oldest whose `ZSTD_compress` frames every decoder since reads, and what
/// current distributions ship), tested with 1.5.x.
pub static ZSTD: Library = Library::new("zstd", &LIBZSTD)
    .version(
        VersionCheck::minimum(
            ReadVersion::macros(
                "zstd.h",
                &[
                    "ZSTD_VERSION_MAJOR",
                    "ZSTD_VERSION_MINOR",
                    "ZSTD_VERSION_RELEASE",
                ],
            ),
            "1.4.0",
        )
        .tested_up_to("1.5"),
    )
    .install(&[
        ("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config"),
        ("Fedora", "dnf install libzstd-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S zstd pkgconf"),
        ("Alpine", "apk add zstd-dev pkgconf"),
    ]);

/// `compat/probe-zstd.c`: compiles against zstd.h and links `ZSTD_compress`.
pub static PROBE_ZSTD: Probe = Probe::new(
    &ZSTD,
    "probe-zstd.c",
    "ZSTD_compress",
    &["zstd"],
    "one-shot compression in libzstd",
);

/// zstd-demo's facilities: variables `ZSTD_DEMO_*`, cfgs `zstd_demo_*`. A library: feature
/// `zstd` compiles the zstd provider and never selects it; the default is `stored`.
pub static SPEC: Spec =
    Spec::library("zstd-demo", "ZSTD_DEMO", "zstd_demo").facilities(&[Facility::new(
        "compress",
        "COMPRESS",
        "zstd-format compression",
        &[
            Provider::new(
                "stored",
                "STORED",
                "pure Rust: zstd frames of uncompressed blocks",
            )
            .answers_to("pure-rust"),
            Provider::new(
                "zstd",
                "ZSTD",
                "libzstd (found by pkg-config or ZSTD_* variables, linked by build.rs)",
            )
            .feature("zstd")
            .links(&["libzstd"])
            .probe(&PROBE_ZSTD)
            .answers_to("system"),
        ],
    )
    // RUST_BACKEND_ZSTD=system (or pure-rust) selects for it, with every other zstd facility.
    .kind("zstd")]);

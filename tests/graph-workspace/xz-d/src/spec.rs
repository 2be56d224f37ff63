//! xz-d's facility table: `decompress`, of kind `xz` (a kind of this crate's own: no other crate of
//! the workspace has it), with `none` (the default) and `liblzma`. build.rs `#[path]`-includes it.

use flagsplit_config::clib::{Library, Probe, ReadVersion, VersionCheck};
use flagsplit_config::probe::System;
use flagsplit_config::{Facility, Provider, Spec};

/// liblzma as pkg-config describes it (`liblzma.pc`), or as the `LZMA_*` variables say.
static LIBLZMA: System = System::new("liblzma", "LZMA");

/// XZ Utils' liblzma: 5.2 or newer (the `lzma_stream_buffer_decode` of every current
/// distribution), tested with 5.4.
pub static LZMA: Library = Library::new("liblzma", &LIBLZMA)
    .version(
        VersionCheck::minimum(
            ReadVersion::macros(
                "lzma.h",
                &[
                    "LZMA_VERSION_MAJOR",
                    "LZMA_VERSION_MINOR",
                    "LZMA_VERSION_PATCH",
                ],
            ),
            "5.2.0",
        )
        .tested_up_to("5.6"),
    )
    .install(&[
        ("Debian/Ubuntu", "apt-get install liblzma-dev pkg-config"),
        ("Fedora", "dnf install xz-devel pkgconf-pkg-config"),
    ]);

/// `compat/probe-lzma.c`: compiles against lzma.h and links the one-shot decoder.
pub static PROBE_LZMA: Probe = Probe::new(
    &LZMA,
    "probe-lzma.c",
    "lzma_stream_buffer_decode",
    &["lzma"],
    "one-shot .xz decoding in liblzma",
);

/// Variables `XZ_D_*`, cfgs `xz_d_*`.
pub static SPEC: Spec = Spec::library("xz-d", "XZ_D", "xz_d").facilities(&[Facility::new(
    "decompress",
    "XZ",
    ".xz decompression",
    &[
        Provider::new("none", "NO_XZ", "no decoder: the library is built without it")
            .answers_to("none"),
        Provider::new(
            "liblzma",
            "LIBLZMA",
            "the system's liblzma (found by pkg-config or LZMA_* variables, linked by build.rs)",
        )
        .feature("system")
        .links(&["liblzma"])
        .probe(&PROBE_LZMA)
        .answers_to("system"),
    ],
)
// RUST_BACKEND_XZ=system (or none) selects for it: a kind of its own, read as a well-known one is.
.kind("xz")]);

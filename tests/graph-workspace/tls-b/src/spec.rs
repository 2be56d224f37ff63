//! tls-b's facility table: `tls`, of kind `tls`, with `none` (the default) and `openssl`.
//! build.rs `#[path]`-includes it.

use flagsplit_config::clib::{Library, Probe};
use flagsplit_config::probe::System;
use flagsplit_config::{Facility, Provider, Spec};

/// libssl as pkg-config describes it (`libssl.pc`), or as the `OPENSSL_*` variables say.
static LIBSSL: System = System::new("libssl", "OPENSSL");

/// OpenSSL's libssl and libcrypto.
pub static OPENSSL: Library = Library::new("openssl", &LIBSSL).install(&[
    ("Debian/Ubuntu", "apt-get install libssl-dev pkg-config"),
    ("Fedora", "dnf install openssl-devel pkgconf-pkg-config"),
]);

/// `compat/probe-tls.c`: compiles against openssl/ssl.h and links a TLS client context.
pub static PROBE_TLS: Probe = Probe::new(
    &OPENSSL,
    "probe-tls.c",
    "SSL_CTX_new",
    &["ssl", "crypto"],
    "a TLS client context in libssl",
);

/// Variables `TLS_B_*`, cfgs `tls_b_*`.
pub static SPEC: Spec = Spec::library("tls-b", "TLS_B", "tls_b").facilities(&[Facility::new(
    "tls",
    "TLS",
    "TLS client connections",
    &[
        Provider::new("none", "NO_TLS", "no TLS: the library is built without it")
            .answers_to("none"),
        Provider::new(
            "openssl",
            "OPENSSL",
            "OpenSSL's libssl (found by pkg-config or OPENSSL_* variables, linked by build.rs)",
        )
        .feature("openssl")
        .links(&["libssl", "libcrypto"])
        .probe(&PROBE_TLS)
        .answers_to("openssl"),
    ],
)
.kind("tls")]);

//! The facility table of checksum-demo: one facility, `sha1`, with two providers.

use flagsplit_config::{Facility, Provider, Spec};

/// checksum-demo's facilities: variables `CHECKSUM_DEMO_*`, cfgs `checksum_demo_*`. A library:
/// the default is `rustcrypto` whatever features are on; the application selects `dc` with
/// `CHECKSUM_DEMO_SHA1_PROVIDER=dc`.
pub static SPEC: Spec = Spec::library("checksum-demo", "CHECKSUM_DEMO", "checksum_demo")
    .facilities(&[Facility::new(
        "sha1",
        "SHA1",
        "SHA-1 of a byte stream",
        &[
            Provider::new(
                "rustcrypto",
                "RUSTCRYPTO",
                "RustCrypto's SHA-1 (crate sha1)",
            ),
            Provider::new(
                "dc",
                "SHA1DC",
                "SHA-1 with collision detection (crate sha1dc)",
            )
            .feature("dc"),
        ],
    )]);

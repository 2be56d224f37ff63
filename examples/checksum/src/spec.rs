//! The facility table of checksum-demo: one facility, `sha1`, with two providers.

use flagsplit_config::{Facility, Provider, Role, Spec};

/// checksum-demo's facilities: variables `CHECKSUM_DEMO_*`, cfgs `checksum_demo_*`. A library:
/// the default is `rustcrypto` whatever features are on; the application selects `dc` with
/// `CHECKSUM_DEMO_SHA1_PROVIDER=dc`.
pub static SPEC: Spec = Spec {
    name: "checksum-demo",
    prefix: "CHECKSUM_DEMO",
    cfg_prefix: "checksum_demo",
    binaries: &[],
    default_features: &[],
    facilities: &[Facility {
        name: "sha1",
        label: "SHA1",
        purpose: "SHA-1 of a byte stream",
        providers: &[
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
        default_order: &["rustcrypto"],
        used_by: &[],
    }],
    variables: &[],
    source_features: &[],
    foreign_variables: &[],
    local_config: None,
    example_config: None,
    role: Role::Library,
};

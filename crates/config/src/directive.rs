//! The lines a build script prints for Cargo that end or mark the build: [`error`] and
//! [`warning`] (feature `build-script`; re-exported by [`crate::script`]).

use crate::env::Env;

/// Fails the build with a multi-line message. Cargo 1.84 and later show `cargo::error` lines as
/// the build's error; that syntax is refused for a package whose `rust-version` is below 1.77 and
/// unknown to an older Cargo. So the directive is used only where both allow it (the version of
/// `$CARGO` is asked only here, on the way out); elsewhere the message goes out as
/// `cargo:warning` lines and on standard error, and the build script exits with status 1, which
/// fails the build on every Cargo. Either way the caller's build script does nothing more.
pub fn error(message: &str) {
    let env = Env::process();
    let package = env.cargo_var("CARGO_PKG_RUST_VERSION").unwrap_or_default();
    let cargo = env.cargo_var("CARGO").and_then(|cargo| {
        let out = std::process::Command::new(cargo).arg("-V").output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    });
    if error_directive_allowed(&package, cargo.as_deref()) {
        for line in message.lines() {
            println!("cargo::error={line}");
        }
    } else {
        warning(message);
        eprintln!("{message}");
        std::process::exit(1);
    }
}

/// Whether `cargo::error` may be printed: the package's `rust-version` (`CARGO_PKG_RUST_VERSION`,
/// empty when it declares none) is 1.77 or later or unset, and Cargo (`cargo -V`'s output) is
/// 1.84 or later.
pub(crate) fn error_directive_allowed(
    package_rust_version: &str,
    cargo_version: Option<&str>,
) -> bool {
    let minor = |v: &str| -> Option<(u32, u32)> {
        let mut parts = v.split(['.', '-', ' ']);
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    };
    let package_ok = package_rust_version.is_empty()
        || minor(package_rust_version).map_or(false, |v| v >= (1, 77));
    let cargo_ok = cargo_version
        .and_then(|v| v.strip_prefix("cargo "))
        .and_then(minor)
        .map_or(false, |v| v >= (1, 84));
    package_ok && cargo_ok
}

/// Prints a multi-line message as `cargo:warning` lines (one colon: every Cargo reads it, whatever
/// the package's `rust-version`).
pub fn warning(message: &str) {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
}

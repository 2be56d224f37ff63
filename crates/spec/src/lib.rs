//! flagsplit's own facility table: the one place that says which facilities exist, which
//! providers each has, which Cargo feature compiles each, what a binary then links, and the
//! defaults. The root package's `build.rs` resolves it; `version --build-options`, the knob table
//! and the man pages read it (the root library re-exports this crate as `flagsplit::spec`).
//!
//! Adding a facility is one entry here, its provider code, its feature lines in the root
//! `Cargo.toml`, and a wiring line in each binary that uses it.
//!
//! The C libraries are declared here too, with how the build finds each: zlib through libz-sys,
//! OpenSSL through [`OpensslFinder`] (what `openssl-sys` found or built when it is in the build,
//! else libcrypto found, version-checked and linked by the root build script itself, so that a
//! missing libcrypto stops the build with flagsplit's message rather than `openssl-sys`'s).

use flagsplit_config::clib::{
    BuildEnv, FindContext, Finder, Found, Library, LinkMode, Message, Probe, TargetInfo,
};
use flagsplit_config::probe::openssl::{Flavor, OpensslSys, Verdict};
use flagsplit_config::probe::{SysCrate, System};
use flagsplit_config::{Facility, Provider, Spec, Variable, When};

/// The `flagsplit` executable.
pub const FLAGSPLIT: &str = "flagsplit";
/// The `flagsplit-imap-send` executable.
pub const IMAP_SEND: &str = "flagsplit-imap-send";
/// The `flagsplit-fsck` executable (`flagsplit fsck`).
pub const FSCK: &str = "flagsplit-fsck";
/// The `flagsplit-report` executable (`flagsplit report`): no facility; it links none.
pub const REPORT: &str = "flagsplit-report";

/// Checked SHA-1 (object ids, `sha1sum`).
pub const SHA1: &str = "sha1";
/// SHA-1 without collision detection.
pub const SHA1_UNSAFE: &str = "sha1-unsafe";
/// MD5 (`md5sum`, CRAM-MD5).
pub const MD5: &str = "md5";
/// SHA-256 (`sha256sum`).
pub const SHA256: &str = "sha256";
/// TLS for the IMAP sender.
pub const TLS: &str = "tls";
/// zlib inflate (git objects).
pub const ZLIB: &str = "zlib";

const LIBCRYPTO: &[&str] = &["libcrypto"];

/// The oldest OpenSSL flagsplit accepts: 1.1.1 (`OPENSSL_VERSION_NUMBER` 0x1010100f for the
/// release; its pre-releases count too). `TLS_client_method` needs 1.1.0; 1.1.0 has been out of
/// support since 2019 and no maintained distribution ships it.
pub const MIN_OPENSSL: u64 = 0x1010_1000;
/// The first OpenSSL version newer than the tested range (4.0.0).
pub const UNTESTED_OPENSSL: u64 = 0x4000_0000;
/// The oldest LibreSSL accepted: 3.5.0, the oldest `openssl-sys` accepts.
pub const MIN_LIBRESSL: u64 = 0x3050_0000;
/// The supported range, as the messages and the documentation say it.
pub const SUPPORTED_RANGE: &str = "OpenSSL 1.1.1 to 3.x (LibreSSL 3.5 or newer with a warning)";

/// flagsplit's OpenSSL policy (the book's configuring and packaging chapters): **OpenSSL 1.1.1 to 3.x**. Older ones are
/// refused (1.1.0 and 1.0.2 are long out of support; `openssl-sys` itself refuses anything before
/// 1.1.0). OpenSSL 4 and later are accepted with a warning (not tested; the probes still check
/// every function flagsplit calls). **LibreSSL 3.5 or newer** (the oldest `openssl-sys` accepts)
/// is accepted with a warning: the probes pass on it, but flagsplit's tests do not run against
/// it. **BoringSSL and AWS-LC are refused**: they publish no version number to check a range
/// against and promise no stable API, and flagsplit is not tested with them. `who` is the
/// table's name (`flagsplit`).
pub fn judge(flavor: Option<Flavor>, who: &str) -> Verdict {
    match flavor {
        None => Verdict::Refuse(
            "openssl-sys reported no OpenSSL version (DEP_OPENSSL_VERSION_NUMBER and DEP_OPENSSL_LIBRESSL_VERSION_NUMBER are unset), so the supported range cannot be checked".into(),
        ),
        Some(f @ Flavor::Openssl(n)) if n < MIN_OPENSSL => Verdict::Refuse(format!(
            "{} is too old: {who} needs OpenSSL 1.1.1 or newer (supported: {SUPPORTED_RANGE})",
            f.describe()
        )),
        Some(f @ Flavor::Openssl(n)) if n >= UNTESTED_OPENSSL => Verdict::Warn(format!(
            "{} is newer than the range {who} is tested with ({SUPPORTED_RANGE}); the probes checked every function {who} calls",
            f.describe()
        )),
        Some(Flavor::Openssl(_)) => Verdict::Supported,
        Some(f @ Flavor::Libressl(n)) if n < MIN_LIBRESSL => Verdict::Refuse(format!(
            "{} is too old: {who} needs LibreSSL 3.5.0 or newer (supported: {SUPPORTED_RANGE})",
            f.describe()
        )),
        Some(f @ Flavor::Libressl(_)) => Verdict::Warn(format!(
            "{} is accepted but not tested by {who} (supported: {SUPPORTED_RANGE}); the probes checked every function {who} calls",
            f.describe()
        )),
        Some(f) => Verdict::Refuse(format!(
            "{} is not supported: it has no version number to check against the supported range ({SUPPORTED_RANGE}), promises no stable API, and {who} is not tested with it",
            f.describe()
        )),
    }
}

/// How the build finds OpenSSL: as `openssl-sys` found or built it when `openssl-sys` is in the
/// build (features `openssl-tls`, `openssl-vendored`: it publishes `DEP_OPENSSL_*` to the root
/// package, its direct dependent, and links libcrypto and libssl itself), so that the hashing
/// providers and TLS use one libcrypto; otherwise found by the root build script itself, which
/// then also links it ([`System`] with module `libcrypto` and the variables `openssl-sys` reads:
/// `OPENSSL_LIB_DIR`, `OPENSSL_INCLUDE_DIR`, `OPENSSL_STATIC`, `OPENSSL_LIBS`,
/// `OPENSSL_NO_PKG_CONFIG`, and `OPENSSL_DIR` for both directories). Either way the version is
/// judged by [`judge`]: on the second route, read from the headers with the target's preprocessor.
#[derive(Debug)]
pub struct OpensslFinder {
    sys: OpensslSys,
    system: System,
}

/// [`OpensslFinder`] with flagsplit's [`judge`].
pub static OPENSSL_FINDER: OpensslFinder = OpensslFinder {
    sys: OpensslSys::new(judge),
    system: System::new("libcrypto", "OPENSSL"),
};

/// Whether `openssl-sys` ran for this build: it publishes its version (or its flavor) whatever it
/// found or built.
pub fn openssl_sys_ran(env: &dyn BuildEnv) -> bool {
    [
        "DEP_OPENSSL_VERSION_NUMBER",
        "DEP_OPENSSL_LIBRESSL_VERSION_NUMBER",
        "DEP_OPENSSL_BORINGSSL",
        "DEP_OPENSSL_AWSLC",
        "DEP_OPENSSL_INCLUDE",
        "DEP_OPENSSL_VENDORED",
    ]
    .iter()
    .any(|v| env.cargo_var(v).is_some())
}

/// The program whose preprocessed text says which OpenSSL the headers are: a marker, the flavor,
/// and its version as plain numbers (OpenSSL 3 spells `OPENSSL_VERSION_NUMBER` as an expression,
/// so its major, minor and patch are read instead).
pub const VERSION_PROGRAM: &str = "#include <openssl/opensslv.h>
#if defined(OPENSSL_IS_AWSLC)
flagsplit_openssl_flavor awslc
#elif defined(OPENSSL_IS_BORINGSSL)
flagsplit_openssl_flavor boringssl
#elif defined(LIBRESSL_VERSION_NUMBER)
flagsplit_openssl_flavor libressl LIBRESSL_VERSION_NUMBER
#elif defined(OPENSSL_VERSION_MAJOR) && defined(OPENSSL_VERSION_MINOR) && defined(OPENSSL_VERSION_PATCH)
flagsplit_openssl_flavor openssl3 OPENSSL_VERSION_MAJOR OPENSSL_VERSION_MINOR OPENSSL_VERSION_PATCH
#elif defined(OPENSSL_VERSION_NUMBER)
flagsplit_openssl_flavor openssl OPENSSL_VERSION_NUMBER
#endif
";

/// The flavor and version in [`VERSION_PROGRAM`]'s preprocessed text, or `None` when the text
/// has none.
pub fn flavor_from_preprocessed(text: &str) -> Option<Flavor> {
    let tokens: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
    let at = tokens
        .iter()
        .position(|t| *t == "flagsplit_openssl_flavor")?;
    let number = |i: usize| -> Option<u64> {
        let t = tokens.get(at + i)?;
        let t = t
            .trim_matches(|c| c == '(' || c == ')')
            .trim_end_matches(['L', 'l', 'U', 'u']);
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        }
    };
    match *tokens.get(at + 1)? {
        "awslc" => Some(Flavor::AwsLc),
        "boringssl" => Some(Flavor::Boringssl),
        "libressl" => number(2).map(Flavor::Libressl),
        "openssl3" => {
            let (major, minor, patch) = (number(2)?, number(3)?, number(4)?);
            Some(Flavor::Openssl(
                (major << 28) | ((minor & 0xff) << 20) | ((patch & 0xff) << 4),
            ))
        }
        "openssl" => number(2).map(Flavor::Openssl),
        _ => None,
    }
}

/// A variable that says yes, as [`System`] reads `OPENSSL_STATIC`: set, and neither empty nor `0`.
fn yes(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The system libraries a static libcrypto needs after it on `target` (as `openssl-sys` adds
/// them): threads and `dlopen` on Linux, `libatomic` for OpenSSL 3 on 32-bit Linux.
fn static_system_libs(target: &TargetInfo) -> Vec<String> {
    let mut libs: Vec<&str> = match target.os.as_str() {
        "linux" => vec!["-ldl", "-pthread"],
        "android" => vec!["-ldl"],
        "macos" | "ios" | "tvos" | "watchos" | "visionos" | "windows" => vec![],
        _ => vec!["-pthread"],
    };
    if matches!(target.os.as_str(), "linux" | "android") && target.pointer_width == 32 {
        libs.push("-latomic");
    }
    libs.into_iter().map(String::from).collect()
}

fn dirs_text(dirs: &[String]) -> String {
    if dirs.is_empty() {
        "(the compiler's default search path)".to_string()
    } else {
        dirs.join(", ")
    }
}

impl OpensslFinder {
    /// `OPENSSL_DIR` (target-prefixed form first) when it alone names the installation (neither
    /// `OPENSSL_LIB_DIR` nor `OPENSSL_INCLUDE_DIR` is set): its `include/`, and its `lib64/` and
    /// `lib/` that exist.
    fn openssl_dir(library: &Library, env: &dyn BuildEnv) -> Option<Result<Found, Message>> {
        let dir = env.target_var("OPENSSL_DIR").filter(|d| !d.is_empty())?;
        if env.target_var("OPENSSL_LIB_DIR").is_some()
            || env.target_var("OPENSSL_INCLUDE_DIR").is_some()
        {
            return None;
        }
        if env.list_dir(&dir).is_none() {
            return Some(Err(Message::new(format!(
                "{} could not be found: OPENSSL_DIR={dir} is not a directory that can be read",
                library.name
            ))
            .fix("set OPENSSL_DIR to the installation's prefix (the directory holding include/openssl and lib/), or unset it to ask pkg-config (libcrypto)")
            .with_library_fixes(library)));
        }
        let base = dir.trim_end_matches('/');
        let mut found = Found::new(format!("OPENSSL_DIR={dir}"));
        found.include_dirs = vec![format!("{base}/include")];
        found.lib_dirs = ["lib64", "lib"]
            .iter()
            .map(|d| format!("{base}/{d}"))
            .filter(|d| env.list_dir(d).is_some())
            .collect();
        if let Some(libs) = env.target_var("OPENSSL_LIBS").filter(|l| !l.is_empty()) {
            let names: Vec<String> = libs
                .split(|c: char| c == ':' || c == ',' || c.is_whitespace())
                .map(|n| n.trim_start_matches("-l"))
                .filter(|n| !n.is_empty())
                .map(String::from)
                .collect();
            found.libs = Some(names);
        }
        if yes(env.target_var("OPENSSL_STATIC").as_deref()) {
            found.link_mode = LinkMode::Static;
        }
        found.link_directives = true;
        Some(Ok(found))
    }
}

impl Finder for OpensslFinder {
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message> {
        if openssl_sys_ran(cx.env) {
            return self.sys.find(library, cx);
        }
        let found = match OpensslFinder::openssl_dir(library, cx.env) {
            Some(found) => found?,
            None => self.system.find(library, cx)?,
        };
        OpensslFinder::checked(found, library, cx.env, cx.declared_by)
    }

    fn cross_fix(&self, library: &Library, target: &TargetInfo) -> Option<String> {
        // The same variables name the installation on both routes.
        self.sys.cross_fix(library, target)
    }
}

impl OpensslFinder {
    /// `found` (by [`System`] or `OPENSSL_DIR`) with the system libraries of a static link, and
    /// its version read from the headers and judged by [`judge`] for `who`.
    fn checked(
        mut found: Found,
        library: &Library,
        env: &dyn BuildEnv,
        who: &str,
    ) -> Result<Found, Message> {
        if found.link_mode == LinkMode::Static && found.system_libs.is_empty() {
            found.system_libs = static_system_libs(&env.target());
        }
        let flavor = env
            .preprocess(VERSION_PROGRAM, &found.include_dirs)
            .as_deref()
            .and_then(flavor_from_preprocessed);
        let refuse = |reason: String| {
            Message::new(format!("{} version check failed: {reason}", library.name))
                .tried(format!(
                    "located by {}; headers in {}; library directories: {}",
                    found.located_by,
                    dirs_text(&found.include_dirs),
                    dirs_text(&found.lib_dirs)
                ))
                .with_library_fixes(library)
        };
        let Some(flavor) = flavor else {
            return Err(refuse(
                "the version could not be read from <openssl/opensslv.h> (OPENSSL_VERSION_NUMBER, LIBRESSL_VERSION_NUMBER) with the target's preprocessor, so the supported range cannot be checked".to_string(),
            ));
        };
        match judge(Some(flavor), who) {
            Verdict::Supported => {}
            Verdict::Warn(w) => found.warnings.push(w),
            Verdict::Refuse(reason) => return Err(refuse(reason)),
            _ => {}
        }
        found.version = Some(flavor.version_text());
        Ok(found)
    }
}

/// OpenSSL: libcrypto for the hashing providers, libssl and libcrypto for TLS, found by
/// [`OPENSSL_FINDER`]; feature `openssl-vendored` builds it from source (through openssl-sys).
pub static OPENSSL: Library = Library::new("OpenSSL", &OPENSSL_FINDER)
    .install(&[
        ("Debian/Ubuntu", "apt-get install libssl-dev pkg-config"),
        ("Fedora", "dnf install openssl-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S openssl pkgconf"),
        ("Alpine", "apk add openssl-dev pkgconf"),
    ])
    .locate(&[
        "point the build at an installation: OPENSSL_DIR=/path (containing include/openssl and lib/), or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR",
        "build OpenSSL from source and link it statically: --features openssl-vendored (needs perl and make)",
    ])
    .source_features(&["openssl-vendored"]);

/// libcrypto's low-level SHA-1 (`compat/probe-sha1.c`).
pub static PROBE_SHA1: Probe = Probe::new(
    &OPENSSL,
    "probe-sha1.c",
    "SHA1_Init",
    &["crypto"],
    "SHA-1 digest in libcrypto",
);
/// libcrypto's low-level SHA-256 (`compat/probe-sha256.c`).
pub static PROBE_SHA256: Probe = Probe::new(
    &OPENSSL,
    "probe-sha256.c",
    "SHA256_Init",
    &["crypto"],
    "SHA-256 digest in libcrypto",
);
/// libcrypto's low-level MD5 (`compat/probe-md5.c`).
pub static PROBE_MD5: Probe = Probe::new(
    &OPENSSL,
    "probe-md5.c",
    "MD5_Init",
    &["crypto"],
    "MD5 digest in libcrypto",
);
/// A TLS client method in libssl (`compat/probe-tls.c`).
pub static PROBE_TLS: Probe = Probe::new(
    &OPENSSL,
    "probe-tls.c",
    "TLS_client_method",
    &["ssl", "crypto"],
    "TLS client method in libssl",
);

const LIBSSL: &[&str] = &["libssl", "libcrypto"];
const LIBZ_NAMES: &[&str] = &["libz"];

/// libz-sys (`links = "z"`: `DEP_Z_INCLUDE`, and `DEP_Z_ROOT` when it built its bundled copy).
static LIBZ_SYS: SysCrate = SysCrate::new("libz-sys", "Z");

/// The system zlib, found by libz-sys.
pub static LIBZ: Library = Library::new("zlib", &LIBZ_SYS)
    .install(&[
        ("Debian/Ubuntu", "apt-get install zlib1g-dev pkg-config"),
        ("Fedora", "dnf install zlib-devel pkgconf-pkg-config"),
        ("Arch", "pacman -S zlib pkgconf"),
        ("Alpine", "apk add zlib-dev pkgconf"),
    ])
    .locate(&[
        "point pkg-config at an installation: PKG_CONFIG_PATH=/path/lib/pkgconfig (libz-sys asks pkg-config, then the compiler)",
    ])
    .own_copy_asked_by(&["LIBZ_SYS_STATIC"]);

/// zlib's inflater in the system libz (`compat/probe-zlib.c`).
pub static PROBE_ZLIB: Probe = Probe::new(
    &LIBZ,
    "probe-zlib.c",
    "inflateInit2_",
    &["z"],
    "inflate in libz",
);

/// flagsplit's facilities.
pub static SPEC: Spec = Spec::application("flagsplit", "FLAGSPLIT", "flagsplit")
    .binaries(&[FLAGSPLIT, FSCK, REPORT, IMAP_SEND])
    .default_features(&["rustls-tls"])
    .facilities(&[
        Facility::new(
            SHA1,
            "SHA-1",
            "SHA-1 of untrusted content: sha1sum, hash-object and fsck (object ids, pack trailers)",
            &[
                Provider::new(
                    "dc",
                    "SHA1_DC",
                    "collision-detecting SHA-1 (crate sha1dc), git's SHA1_DC",
                )
                .answers_to("pure-rust")
                // A packager's policy requires this rather than the provider's name.
                .properties(&["collision-detection"]),
                Provider::new(
                    "block",
                    "SHA1_BLK (No collision detection)",
                    "block SHA-1 (crate sha1, SHA-NI chosen at run time), git's BLK_SHA1",
                ),
                Provider::new(
                    "openssl",
                    "SHA1_OPENSSL (No collision detection)",
                    "libcrypto's SHA-1, git's OPENSSL_SHA1",
                )
                .feature("openssl-sha1")
                .links(LIBCRYPTO)
                .probe(&PROBE_SHA1)
                .answers_to("openssl"),
            ],
        )
        .kind("sha1")
        .default_order(&["openssl", "dc"])
        .used_by(&[FLAGSPLIT, FSCK]),
        Facility::new(
            SHA1_UNSAFE,
            "non-collision-detecting-SHA-1",
            "SHA-1 without collision detection: checksums of flagsplit's own data and pack index trailers (as git 2.47), --no-collision-detection",
            &[
                Provider::new(
                    "block",
                    "SHA1_BLK",
                    "block SHA-1 (crate sha1, SHA-NI chosen at run time)",
                )
                .answers_to("pure-rust"),
                Provider::new("openssl", "SHA1_OPENSSL", "libcrypto's SHA-1")
                    .feature("openssl-sha1")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_SHA1)
                    .answers_to("openssl"),
            ],
        )
        .kind("sha1-unsafe")
        .default_order(&["openssl", "block"])
        .used_by(&[FLAGSPLIT, FSCK]),
        Facility::new(
            MD5,
            "MD5",
            "MD5: md5sum, CRAM-MD5 in imap-send",
            &[
                Provider::new(
                    "builtin",
                    "MD5_BUILTIN",
                    "flagsplit's own MD5 block function",
                )
                .answers_to("pure-rust"),
                Provider::new("openssl", "MD5_OPENSSL", "libcrypto's MD5")
                    .feature("openssl-md5")
                    .links(LIBCRYPTO)
                    .probe(&PROBE_MD5)
                    .answers_to("openssl"),
            ],
        )
        .kind("md5")
        .default_order(&["openssl", "builtin"])
        .used_by(&[FLAGSPLIT, IMAP_SEND]),
        Facility::new(
            SHA256,
            "SHA-256",
            "SHA-256: sha256sum, SHA-256 repositories in fsck",
            &[
                Provider::new(
                    "builtin",
                    "SHA256_BLK",
                    "block SHA-256 (crate sha2, SHA-NI chosen at run time), git's SHA256_BLK",
                )
                .answers_to("pure-rust"),
                Provider::new(
                    "openssl",
                    "SHA256_OPENSSL",
                    "libcrypto's SHA-256, git's OPENSSL_SHA256",
                )
                .feature("openssl-sha256")
                .links(LIBCRYPTO)
                .probe(&PROBE_SHA256)
                .answers_to("openssl"),
            ],
        )
        .kind("sha256")
        .default_order(&["openssl", "builtin"])
        .used_by(&[FLAGSPLIT, FSCK]),
        Facility::new(
            TLS,
            "TLS",
            "TLS for flagsplit-imap-send (imaps://, STARTTLS)",
            &[
                Provider::new("rustls", "RUSTLS", "rustls on ring")
                    .feature("rustls-tls")
                    .answers_to("rustls"),
                Provider::new("openssl", "OPENSSL", "libssl (the openssl crate)")
                    .feature("openssl-tls")
                    .links(LIBSSL)
                    .probe(&PROBE_TLS)
                    .answers_to("openssl"),
                Provider::new("none", "NONE", "no TLS (imap.tunnel still works)")
                    .answers_to("none"),
            ],
        )
        .kind("tls")
        .default_order(&["openssl", "rustls", "none"])
        .used_by(&[IMAP_SEND]),
        Facility::new(
            ZLIB,
            "zlib-backend",
            "zlib inflate of git objects: fsck, measured by flagsplit bench",
            &[
                Provider::new("zlib-rs", "ZLIB_RS", "zlib-rs, pure Rust").answers_to("pure-rust"),
                Provider::new("miniz", "MINIZ_OXIDE", "miniz_oxide, pure Rust").feature("zlib-miniz"),
                Provider::new(
                    "system",
                    "ZLIB",
                    "the system libz (libz-sys; dynamic, its bundled copy is reported), git's default",
                )
                .feature("zlib-system")
                .links(LIBZ_NAMES)
                .probe(&PROBE_ZLIB)
                .answers_to("system"),
                Provider::new(
                    "zlib-ng",
                    "ZLIB_NG",
                    "zlib-ng's native zng_ API (libz-ng-sys, built with cmake, static), git's ZLIB_NG",
                )
                .feature("zlib-ng")
                .answers_to("zlib-ng"),
            ],
        )
        .kind("zlib")
        .default_order(&["zlib-ng", "system", "miniz", "zlib-rs"])
        .used_by(&[FLAGSPLIT, FSCK]),
    ])
    .variables(&[
        Variable::new("FLAGSPLIT_SHA1DC", When::Run, "0 turns collision detection off for one command, like --no-collision-detection")
        .values("0 | 1")
        .default_value("1"),
        Variable::new("FLAGSPLIT_EXEC_PATH", When::Run, "where `flagsplit imap-send`, `flagsplit fsck` and `flagsplit report` look for flagsplit-imap-send, flagsplit-fsck and flagsplit-report")
        .values("directory")
        .default_value("the directory of flagsplit, then PATH"),
        Variable::new("FLAGSPLIT_FSCK_TIMES", When::Run, "`flagsplit fsck` reports on standard error the time of each stage (read, inflate, delta, hash, checks, connectivity), the floor (inflate + delta + hash over the threads) and the peak memory, in bytes per object by what they are for")
        .values("1")
        .default_value("no report"),
        Variable::new("FLAGSPLIT_FSCK_CASES", When::Test, "the fsck corpus test runs only the cases whose names contain it")
        .values("substring")
        .default_value("every case"),
        Variable::new("FLAGSPLIT_FSCK_SUBJECT", When::Test, "the fsck corpus test compares git with itself (to check the harness), or with another flagsplit build (to see which cases a change fixed)")
        .values("git | path of a flagsplit")
        .default_value("flagsplit"),
        Variable::new("FLAGSPLIT_FSCK_ALL_CORES_ONLY", When::Test, "the fsck corpus test runs each case on all cores only, not also with `--threads 1` and `--low-memory` (`scripts/test.sh --quick`)")
        .values("1")
        .default_value("all three runs"),
        Variable::new("FLAGSPLIT_FSCK_KEEP", When::Test, "the fsck corpus test keeps the repositories it built and says where")
        .values("1")
        .default_value("removed"),
        Variable::new("FLAGSPLIT_TEST_NO_INSTALL", When::Test, "the test command installs nothing (offline or packaging builds)")
        .values("1")
        .default_value("install missing packages with apt-get when root"),
        Variable::new("FLAGSPLIT_BLESS", When::Test, "tests rewrite their generated expectations (the knob table, config error corpus, git's recorded fsck results) instead of failing; review the diff")
        .values("1")
        .default_value("tests compare"),
        Variable::new("FLAGSPLIT_RATIOS_MIB", When::Bench, "the ratios bench's buffer size (cargo bench --bench ratios)")
        .values("MiB")
        .default_value("256"),
        Variable::new("FLAGSPLIT_RATIOS_ROUNDS", When::Bench, "the ratios bench's throughput rounds")
        .values("count")
        .default_value("7"),
        Variable::new("FLAGSPLIT_RATIOS_SMALL_ROUNDS", When::Bench, "the ratios bench's 64-byte rounds")
        .values("count")
        .default_value("41"),
        Variable::new("FLAGSPLIT_RATIOS_ONLY", When::Bench, "the ratios bench runs only these rows (for profiling)")
        .values("rows, comma-separated (`block,sha1:openssl`, `zlib`, `zlib:<provider>`)")
        .default_value("every row"),
        Variable::new("FLAGSPLIT_RATIOS_PROFILE", When::Bench, "the ratios bench only runs the 64-byte loop N times per row, untimed (for callgrind)")
        .values("N")
        .default_value("timed rounds"),
        Variable::new("FLAGSPLIT_RATIOS_ZLIB_MIB", When::Bench, "the ratios bench's one large zlib stream")
        .values("MiB")
        .default_value("64"),
        Variable::new("FLAGSPLIT_RATIOS_OBJECTS_MIB", When::Bench, "the ratios bench's git-object-shaped zlib input (inflated size)")
        .values("MiB")
        .default_value("16"),
    ])
    .source_features(&[Variable::new("openssl-vendored", When::Build, "builds OpenSSL from source (openssl-sys's `vendored`, through openssl-src; needs perl and make) and links it statically, for the hashing providers too; only with openssl-sha1, openssl-md5, openssl-sha256 or openssl-tls (on its own: a build error); TLS then probes the distribution's CA bundle")
        .values("on, off")
        .default_value("off")])
    .foreign_variables(FOREIGN_VARIABLES)
    .local_config("config.toml")
    .example_config("config.example.toml");

/// The ecosystem's variables the build honours: OpenSSL's, read by `openssl-sys` when it is in the
/// build (features `openssl-tls`, `openssl-vendored`) and otherwise by flagsplit's own build script
/// ([`OpensslFinder`]), each also in the target-prefixed form `<TARGET>_<NAME>`, for example
/// `X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`; then libz-sys's.
pub const FOREIGN_VARIABLES: &[Variable] = &[
    Variable::new("OPENSSL_DIR", When::Build, "where OpenSSL is installed (used when OPENSSL_LIB_DIR and OPENSSL_INCLUDE_DIR are unset)")
        .values("directory with include/ and lib/ (or lib64/)")
        .default_value("found by pkg-config (libcrypto; openssl-sys: openssl, then platform prefixes)"),
    Variable::new("OPENSSL_LIB_DIR", When::Build, "libcrypto/libssl directory (with OPENSSL_INCLUDE_DIR, OPENSSL_DIR is not needed)")
        .values("directory")
        .default_value("$OPENSSL_DIR/lib64 and $OPENSSL_DIR/lib, or what pkg-config (or openssl-sys) found"),
    Variable::new("OPENSSL_INCLUDE_DIR", When::Build, "directory containing openssl/*.h")
        .values("directory")
        .default_value("$OPENSSL_DIR/include, or what pkg-config (or openssl-sys) found"),
    Variable::new("OPENSSL_STATIC", When::Build, "link libcrypto/libssl statically: no OpenSSL in NEEDED, `OpenSSL: ... (static)`. For OpenSSL hashing alone, build.rs links libcrypto.a from the directory pkg-config --static or OPENSSL_LIB_DIR names; with openssl-sys in the build (openssl-tls) it needs OPENSSL_LIB_DIR + OPENSSL_INCLUDE_DIR (or OPENSSL_DIR) when pkg-config would find a system OpenSSL, which openssl-sys links dynamically whatever this says (a build error names the fix)")
        .values("1 (0: dynamic)")
        .default_value("dynamic (with openssl-sys: unless the library directory holds only libcrypto.a/libssl.a)"),
    Variable::new("OPENSSL_LIBS", When::Build, "the libraries linked for OpenSSL hashing without openssl-sys, replacing `crypto` (openssl-sys reads it too)")
        .values("names separated by `:`, `,` or spaces")
        .default_value("crypto"),
    Variable::new("OPENSSL_NO_VENDOR", When::Build, "use the system OpenSSL although feature openssl-vendored is on (openssl-sys)")
        .values("1")
        .default_value("feature openssl-vendored builds OpenSSL from source"),
    Variable::new("OPENSSL_NO_PKG_CONFIG", When::Build, "pkg-config is not asked for OpenSSL: the compiler's default directories, or OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR")
        .values("1")
        .default_value("pkg-config is asked"),
    Variable::new("PKG_CONFIG_PATH", When::Build, "where pkg-config finds libcrypto.pc and openssl.pc (also PKG_CONFIG_SYSROOT_DIR, PKG_CONFIG_LIBDIR)")
        .values("directories")
        .default_value("pkg-config's own"),
    Variable::new("SSL_CERT_FILE", When::Run, "trusted CAs of flagsplit-imap-send (both TLS providers; imap.sslCAInfo replaces them); also SSL_CERT_DIR")
        .values("PEM file of trusted CA certificates")
        .default_value("the system store (OpenSSL's compiled-in one when it exists, else the distribution's bundle, probed)"),
    Variable::new("LIBZ_SYS_STATIC", When::Build, "with zlib = system: libz-sys builds its bundled zlib and links it statically (no libz in NEEDED, `zlib-build: ... (static)`)")
        .values("1 (0: dynamic)")
        .default_value("dynamic when pkg-config or the C compiler finds the system zlib, else its bundled copy (reported with a warning)"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use flagsplit_config::FeatureSet;

    #[test]
    fn the_table_is_consistent() {
        SPEC.check().unwrap();
        assert_eq!(
            SPEC.features(),
            [
                "openssl-sha1",
                "openssl-md5",
                "openssl-sha256",
                "rustls-tls",
                "openssl-tls",
                "zlib-miniz",
                "zlib-system",
                "zlib-ng"
            ]
        );
    }

    /// A build environment that exists nowhere: variables, directories, the preprocessor's
    /// answer for [`VERSION_PROGRAM`].
    #[derive(Default)]
    struct FakeEnv {
        vars: Vec<(&'static str, &'static str)>,
        cargo: Vec<(&'static str, &'static str)>,
        dirs: Vec<(&'static str, Vec<&'static str>)>,
        preprocessed: Option<&'static str>,
    }

    impl BuildEnv for FakeEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.vars
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
        fn cargo_var(&self, name: &str) -> Option<String> {
            self.cargo
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
        fn target(&self) -> TargetInfo {
            let mut t = TargetInfo::default();
            t.triple = "x86_64-unknown-linux-gnu".into();
            t.host = t.triple.clone();
            t.os = "linux".into();
            t.pointer_width = 64;
            t
        }
        fn list_dir(&self, dir: &str) -> Option<Vec<String>> {
            self.dirs
                .iter()
                .find(|(d, _)| *d == dir)
                .map(|(_, names)| names.iter().map(|n| n.to_string()).collect())
        }
        fn preprocess(&self, source: &str, _include_dirs: &[String]) -> Option<String> {
            assert_eq!(source, VERSION_PROGRAM);
            self.preprocessed.map(String::from)
        }
        fn compiler_file_name(&self, _name: &str) -> Option<String> {
            None
        }
        fn pkg_config(
            &self,
            module: &str,
        ) -> Result<flagsplit_config::clib::PkgConfigFound, String> {
            Err(format!("no {module}"))
        }
    }

    #[test]
    fn the_headers_version() {
        // gcc -E on OpenSSL 3.0.22's opensslv.h: a line marker inside the expansion.
        let gcc = "flagsplit_openssl_flavor openssl3 \n# 9 \"v.c\" 3 4\n                                 3 0 22\n";
        assert_eq!(
            flavor_from_preprocessed(gcc),
            Some(Flavor::Openssl(0x3000_0160))
        );
        assert_eq!(
            flavor_from_preprocessed(gcc)
                .map(Flavor::version_text)
                .as_deref(),
            Some("3.0.22")
        );
        assert_eq!(
            flavor_from_preprocessed("flagsplit_openssl_flavor openssl 0x1010117fL\n"),
            Some(Flavor::Openssl(0x1010_117f))
        );
        assert_eq!(
            flavor_from_preprocessed("flagsplit_openssl_flavor libressl 0x3090200fL"),
            Some(Flavor::Libressl(0x3090_200f))
        );
        assert_eq!(
            flavor_from_preprocessed("flagsplit_openssl_flavor boringssl"),
            Some(Flavor::Boringssl)
        );
        assert_eq!(flavor_from_preprocessed("# 1 \"v.c\"\n"), None);
        assert_eq!(
            flavor_from_preprocessed("flagsplit_openssl_flavor openssl OPENSSL_VERSION_NUMBER"),
            None
        );
    }

    #[test]
    fn openssl_sys_in_the_build_decides_the_route() {
        assert!(!openssl_sys_ran(&FakeEnv::default()));
        let env = FakeEnv {
            cargo: vec![("DEP_OPENSSL_VERSION_NUMBER", "30000160")],
            ..FakeEnv::default()
        };
        assert!(openssl_sys_ran(&env));
        let env = FakeEnv {
            cargo: vec![("DEP_OPENSSL_VENDORED", "1")],
            ..FakeEnv::default()
        };
        assert!(openssl_sys_ran(&env));
    }

    #[test]
    fn the_system_route_judges_the_headers() {
        let mut found = Found::new("OPENSSL_LIB_DIR=/l OPENSSL_INCLUDE_DIR=/fake");
        found.include_dirs = vec!["/fake".into()];
        found.lib_dirs = vec!["/l".into()];
        found.link_directives = true;
        let old = FakeEnv {
            preprocessed: Some("flagsplit_openssl_flavor openssl 0x101000cfL"),
            ..FakeEnv::default()
        };
        let e = OpensslFinder::checked(found.clone(), &OPENSSL, &old, "flagsplit")
            .unwrap_err()
            .render();
        for want in [
            "OpenSSL version check failed: OpenSSL 1.1.0l is too old: flagsplit needs OpenSSL 1.1.1 or newer",
            "located by OPENSSL_LIB_DIR=/l OPENSSL_INCLUDE_DIR=/fake; headers in /fake; library directories: /l",
            "Debian/Ubuntu: apt-get install libssl-dev pkg-config",
            "--features openssl-vendored",
        ] {
            assert!(e.contains(want), "{want:?} not in:\n{e}");
        }
        let unreadable = FakeEnv::default();
        let e = OpensslFinder::checked(found.clone(), &OPENSSL, &unreadable, "flagsplit")
            .unwrap_err()
            .render();
        assert!(
            e.contains("the version could not be read from <openssl/opensslv.h>"),
            "{e}"
        );
        let libressl = FakeEnv {
            preprocessed: Some("flagsplit_openssl_flavor libressl 0x3090200fL"),
            ..FakeEnv::default()
        };
        let ok = OpensslFinder::checked(found.clone(), &OPENSSL, &libressl, "flagsplit").unwrap();
        assert_eq!(ok.version.as_deref(), Some("LibreSSL 3.9.2"));
        assert!(ok.warnings[0].contains("accepted but not tested by flagsplit"));
        let three = FakeEnv {
            preprocessed: Some("flagsplit_openssl_flavor openssl3 3 5 1"),
            ..FakeEnv::default()
        };
        let mut static_ = found.clone();
        static_.link_mode = LinkMode::Static;
        let ok = OpensslFinder::checked(static_, &OPENSSL, &three, "flagsplit").unwrap();
        assert_eq!(ok.version.as_deref(), Some("3.5.1"));
        assert!(ok.warnings.is_empty());
        assert_eq!(ok.system_libs, ["-ldl", "-pthread"]);
        assert!(ok.link_directives);
    }

    #[test]
    fn openssl_dir_names_both_directories() {
        let env = FakeEnv {
            vars: vec![("OPENSSL_DIR", "/nonexistent")],
            ..FakeEnv::default()
        };
        let e = OpensslFinder::openssl_dir(&OPENSSL, &env)
            .unwrap()
            .unwrap_err()
            .render();
        assert!(
            e.contains("OpenSSL could not be found: OPENSSL_DIR=/nonexistent is not a directory"),
            "{e}"
        );
        let env = FakeEnv {
            vars: vec![
                ("X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR", "/opt/ssl/"),
                ("OPENSSL_DIR", "/elsewhere"),
                ("OPENSSL_STATIC", "1"),
                ("OPENSSL_LIBS", "-lcrypto"),
            ],
            dirs: vec![
                ("/opt/ssl/", vec!["lib"]),
                ("/opt/ssl/lib", vec!["libcrypto.a"]),
            ],
            ..FakeEnv::default()
        };
        let found = OpensslFinder::openssl_dir(&OPENSSL, &env).unwrap().unwrap();
        assert_eq!(found.located_by, "OPENSSL_DIR=/opt/ssl/");
        assert_eq!(found.include_dirs, ["/opt/ssl/include"]);
        assert_eq!(found.lib_dirs, ["/opt/ssl/lib"]);
        assert_eq!(found.libs.as_deref(), Some(&["crypto".to_string()][..]));
        assert_eq!(found.link_mode, LinkMode::Static);
        assert!(found.link_directives);
        // OPENSSL_LIB_DIR or OPENSSL_INCLUDE_DIR: System reads them, and OPENSSL_DIR is not used.
        let env = FakeEnv {
            vars: vec![("OPENSSL_DIR", "/opt/ssl"), ("OPENSSL_LIB_DIR", "/l")],
            ..FakeEnv::default()
        };
        assert!(OpensslFinder::openssl_dir(&OPENSSL, &env).is_none());
    }

    #[test]
    fn what_each_binary_links() {
        let openssl = |f: &'static Facility| f.provider("openssl");
        assert_eq!(SPEC.links(FLAGSPLIT, openssl), ["libcrypto"]);
        assert_eq!(SPEC.links(IMAP_SEND, openssl), ["libcrypto", "libssl"]);
        // The sender never links anything for the SHA facilities, which it does not use.
        let only_sha = |f: &'static Facility| {
            if f.name.starts_with("sha") {
                f.provider("openssl")
            } else {
                f.providers.iter().find(|p| p.links.is_empty())
            }
        };
        assert_eq!(SPEC.links(FLAGSPLIT, only_sha), ["libcrypto"]);
        assert!(SPEC.links(IMAP_SEND, only_sha).is_empty());
        let set = FeatureSet::from_names(&SPEC, ["openssl-md5"]);
        assert!(set.contains("openssl-md5"));
    }
}

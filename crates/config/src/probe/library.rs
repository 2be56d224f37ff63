//! What a facility table says about the C libraries its providers link: per [`Library`], how the
//! build finds it (a [`Finder`]), which versions the declaring crate accepts ([`VersionCheck`]),
//! and the fixes it offers; per [`Probe`], the program and the symbol that prove a build can
//! compile and link against it, like autoconf's `AC_CHECK_LIB`.

use std::fmt;

use super::Finder;

/// A C library that providers link. Built with [`Library::new`] and the builder methods.
#[derive(Debug)]
#[non_exhaustive]
pub struct Library {
    /// For messages: `OpenSSL`, `zlib`, `zstd`.
    pub name: &'static str,
    /// How the build finds it: [`super::SysCrate`], [`super::PkgConfig`],
    /// [`super::openssl::OpensslSys`] or a finder of the declaring crate's own.
    pub finder: &'static dyn Finder,
    /// The development files per distribution, for the fix of a failed probe: (`Debian/Ubuntu`,
    /// `apt-get install libssl-dev pkg-config`).
    pub install: &'static [(&'static str, &'static str)],
    /// Further fixes of a failed probe: how to point the finder at an installation, or to do
    /// without the system's library (a feature that builds it from source).
    pub locate: &'static [&'static str],
    /// The variables with which a user asks the `-sys` crate to build its own copy
    /// (`LIBZ_SYS_STATIC=1`). A copy it built although none was set (it found no system library,
    /// and fell back) is reported with a build-script warning, never silently linked.
    pub own_copy_asked_by: &'static [&'static str],
    /// The versions the declaring crate accepts; `None`: any.
    pub version: Option<VersionCheck>,
    /// Cargo features of the declaring crate that say where this library comes from (a build from
    /// source) rather than which provider is used. One of them on while no provider linking the
    /// library is compiled is an error; on while none is selected, a warning.
    pub source_features: &'static [&'static str],
}

impl Library {
    /// The library `name`, found by `finder`, with no fix, version check or source feature until
    /// the builder methods add them.
    pub const fn new(name: &'static str, finder: &'static dyn Finder) -> Library {
        Library {
            name,
            finder,
            install: &[],
            locate: &[],
            own_copy_asked_by: &[],
            version: None,
            source_features: &[],
        }
    }

    /// The same, with these install lines per distribution ([`Library::install`]).
    pub const fn install(self, install: &'static [(&'static str, &'static str)]) -> Library {
        Library { install, ..self }
    }

    /// The same, with these further fixes ([`Library::locate`]).
    pub const fn locate(self, locate: &'static [&'static str]) -> Library {
        Library { locate, ..self }
    }

    /// The same, with these variables asking for the `-sys` crate's own copy
    /// ([`Library::own_copy_asked_by`]).
    pub const fn own_copy_asked_by(self, variables: &'static [&'static str]) -> Library {
        Library {
            own_copy_asked_by: variables,
            ..self
        }
    }

    /// The same, accepting only the versions `check` accepts ([`Library::version`]).
    pub const fn version(self, check: VersionCheck) -> Library {
        Library {
            version: Some(check),
            ..self
        }
    }

    /// The same, with these source features ([`Library::source_features`]).
    pub const fn source_features(self, features: &'static [&'static str]) -> Library {
        Library {
            source_features: features,
            ..self
        }
    }
}

impl PartialEq for Library {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Library {}

/// One compile-and-link check of a [`Library`]: a C program in the package (for example in its
/// `compat/` directory) that calls `symbol`, compiled and linked, never run.
#[derive(Debug)]
#[non_exhaustive]
pub struct Probe {
    /// The library.
    pub library: &'static Library,
    /// The C source, relative to the directory the build script passes (`probe-sha1.c`).
    pub source: &'static str,
    /// The symbol the program calls first, named in failures (`SHA1_Init`).
    pub symbol: &'static str,
    /// The libraries it links, in link order, as `-l` takes them (`ssl`, `crypto`).
    pub link: &'static [&'static str],
    /// What it checks, for messages: `SHA-1 digest in libcrypto`.
    pub what: &'static str,
}

impl Probe {
    /// A probe of `library`: `source` calls `symbol` (what it checks: `what`) and links `link`.
    pub const fn new(
        library: &'static Library,
        source: &'static str,
        symbol: &'static str,
        link: &'static [&'static str],
        what: &'static str,
    ) -> Probe {
        Probe {
            library,
            source,
            symbol,
            link,
            what,
        }
    }
}

impl PartialEq for Probe {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Probe {}

/// Where a library's version is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadVersion(pub(crate) VersionSource);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VersionSource {
    Found,
    Metadata(&'static str),
    Macros {
        header: &'static str,
        macros: &'static [&'static str],
    },
}

impl ReadVersion {
    /// The version the finder reported: pkg-config's `Version:` ([`super::PkgConfig`]), the
    /// version `openssl-sys` published ([`super::openssl::OpensslSys`]).
    pub const FOUND: ReadVersion = ReadVersion(VersionSource::Found);

    /// A variable Cargo gives the build script: the metadata a `-sys` crate publishes to its
    /// direct dependents, such as `DEP_Z_VERSION` (a dotted version).
    pub const fn cargo_variable(name: &'static str) -> ReadVersion {
        ReadVersion(VersionSource::Metadata(name))
    }

    /// The version the headers the probes compile against declare: `header` is included and
    /// each of `macros` expanded by the C preprocessor, the results (numbers, or a string such as
    /// `"1.2.13"`) joined with dots: `ZSTD_VERSION_MAJOR`, `ZSTD_VERSION_MINOR`,
    /// `ZSTD_VERSION_RELEASE` give `1.5.4`.
    pub const fn macros(header: &'static str, macros: &'static [&'static str]) -> ReadVersion {
        ReadVersion(VersionSource::Macros { header, macros })
    }
}

/// The versions of a [`Library`] the declaring crate accepts, read as [`ReadVersion`] says.
/// Versions compare component by component as numbers (`1.10` is newer than `1.9`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VersionCheck {
    /// Where the version comes from.
    pub read: ReadVersion,
    /// The oldest version accepted: an older one stops the build.
    pub minimum: &'static str,
    /// The newest version line tested (`1.5`: every 1.5.x); a newer one builds with a warning.
    /// `None`: no warning.
    pub tested_up_to: Option<&'static str>,
}

impl VersionCheck {
    /// Versions from `minimum` on, read as `read` says.
    pub const fn minimum(read: ReadVersion, minimum: &'static str) -> VersionCheck {
        VersionCheck {
            read,
            minimum,
            tested_up_to: None,
        }
    }

    /// The same, with a warning for versions newer than the `tested` line.
    pub const fn tested_up_to(self, tested: &'static str) -> VersionCheck {
        VersionCheck {
            tested_up_to: Some(tested),
            ..self
        }
    }

    /// The verdict on `found` (a version text such as `1.5.4`, `3.0.19` or `1.1.1w`): `Err` with
    /// the reason it is refused, `Ok` with a warning when it is newer than the tested line.
    pub fn judge(&self, library: &str, found: &str, who: &str) -> Result<Option<String>, String> {
        let version = match components(found) {
            Some(version) => version,
            None => {
                return Err(format!(
                    "{library}'s version `{found}` is not a version number, so the minimum {} cannot be checked",
                    self.minimum
                ));
            }
        };
        let minimum = components(self.minimum).unwrap_or_default();
        if older(&version, &minimum) {
            return Err(format!(
                "{library} {found} is too old: {who} needs {library} {} or newer",
                self.minimum
            ));
        }
        if let Some(tested) = self.tested_up_to {
            let line = components(tested).unwrap_or_default();
            let head: Vec<u64> = version.iter().copied().take(line.len()).collect();
            if head > line {
                return Ok(Some(format!(
                    "{library} {found} is newer than the versions {who} is tested with ({} to {tested}); the probes checked every function it calls",
                    self.minimum
                )));
            }
        }
        Ok(None)
    }
}

/// Whether `a` is older than `b`, missing components counting as 0 (`1.4` is `1.4.0`).
fn older(a: &[u64], b: &[u64]) -> bool {
    let n = a.len().max(b.len());
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    (0..n)
        .map(|i| (at(a, i), at(b, i)))
        .find(|(x, y)| x != y)
        .map_or(false, |(x, y)| x < y)
}

/// `1.5.4` as `[1, 5, 4]`; a component's trailing letters are ignored (`1.1.1w`); `None` when the
/// text does not start with a number.
fn components(text: &str) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    for part in text.trim().split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        out.push(digits.parse().ok()?);
        if digits.len() < part.len() {
            break;
        }
    }
    if out.is_empty() { None } else { Some(out) }
}

/// The version the C preprocessor's `output` gives for `macros` (see [`ReadVersion::macros`]):
/// the token after each `VERSION_MARK`, line markers (`# 4 "x.c" 3 4`, which GCC puts between a
/// name and an expansion from a system header) left out.
pub(crate) fn version_from_preprocessed(output: &str) -> Option<String> {
    let tokens: Vec<&str> = output
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
    let parts: Vec<String> = tokens
        .windows(2)
        .filter(|w| w[0] == VERSION_MARK)
        .map(|w| {
            let e = w[1]
                .trim_matches('"')
                .trim_start_matches('(')
                .trim_end_matches(')');
            e.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .to_string()
        })
        .collect();
    let marks = tokens.iter().filter(|t| **t == VERSION_MARK).count();
    if parts.is_empty()
        || parts.len() != marks
        || !parts
            .iter()
            .all(|p| p.starts_with(|c: char| c.is_ascii_digit()))
    {
        None
    } else {
        Some(parts.join("."))
    }
}

/// The marker before each macro's expansion in the program the preprocessor reads.
pub(crate) const VERSION_MARK: &str = "probed_version_component";

/// The program that makes the preprocessor expand `macros` after including `header`.
pub(crate) fn version_program(header: &str, macros: &[&str]) -> String {
    let mut s = format!("#include <{header}>\n");
    for m in macros {
        s.push_str(&format!("{VERSION_MARK} {m}\n"));
    }
    s
}

impl fmt::Display for ReadVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            VersionSource::Found => f.write_str("as found"),
            VersionSource::Metadata(name) => f.write_str(name),
            VersionSource::Macros { header, macros } => {
                write!(f, "{} in {header}", macros.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_component() {
        let check = VersionCheck::minimum(ReadVersion::FOUND, "1.4.0").tested_up_to("1.5");
        assert_eq!(check.judge("zstd", "1.5.4", "demo"), Ok(None));
        assert_eq!(check.judge("zstd", "1.4", "demo"), Ok(None));
        assert_eq!(
            check.judge("zstd", "1.3.8", "demo"),
            Err("zstd 1.3.8 is too old: demo needs zstd 1.4.0 or newer".into())
        );
        assert!(
            check
                .judge("zstd", "1.10.0", "demo")
                .unwrap()
                .unwrap()
                .starts_with(
                    "zstd 1.10.0 is newer than the versions demo is tested with (1.4.0 to 1.5)"
                )
        );
        assert!(check.judge("zstd", "unknown", "demo").is_err());
        let letters = VersionCheck::minimum(ReadVersion::FOUND, "1.1.1");
        assert_eq!(letters.judge("OpenSSL", "1.1.1w", "demo"), Ok(None));
        assert!(letters.judge("OpenSSL", "1.1.0l", "demo").is_err());
    }

    #[test]
    fn versions_from_the_preprocessor() {
        let program = version_program("zstd.h", &["ZSTD_VERSION_MAJOR", "ZSTD_VERSION_MINOR"]);
        assert_eq!(
            program,
            "#include <zstd.h>\nprobed_version_component ZSTD_VERSION_MAJOR\nprobed_version_component ZSTD_VERSION_MINOR\n"
        );
        let out = "# 1 \"x.c\"\nint f(void);\nprobed_version_component 1\nprobed_version_component 5\nprobed_version_component (4)\n";
        assert_eq!(version_from_preprocessed(out).as_deref(), Some("1.5.4"));
        let gcc = "probed_version_component \n# 4 \"pv.c\" 3 4\n                        4\n";
        assert_eq!(version_from_preprocessed(gcc).as_deref(), Some("4"));
        let out = "probed_version_component \"1.2.13\"\n";
        assert_eq!(version_from_preprocessed(out).as_deref(), Some("1.2.13"));
        let out = "probed_version_component 0x30000000L\n";
        assert_eq!(
            version_from_preprocessed(out).as_deref(),
            Some("0x30000000")
        );
        // A macro the header does not define stays a name: no version.
        assert_eq!(
            version_from_preprocessed("probed_version_component ZSTD_VERSION_MAJOR\n"),
            None
        );
        assert_eq!(
            version_from_preprocessed("probed_version_component \n"),
            None
        );
        assert_eq!(version_from_preprocessed("nothing\n"), None);
    }
}

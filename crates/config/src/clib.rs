//! The C libraries a facility table declares, and the interface of the finders that locate
//! them: what a provider's [`Probe`] checks, which [`Library`] it belongs to, which versions the
//! declaring crate accepts ([`VersionCheck`]), and how a [`Finder`] answers ([`Found`], or a
//! [`Message`]). The lowest layer with the table itself (`model`): it names no other module of
//! this crate. The finders, the decisions and the probes' I/O are in [`crate::probe`].

use std::fmt;

/// The target-prefixed form of a variable, as `openssl-sys` and the `cc` crate spell it
/// (`X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`).
pub fn target_prefixed(target: &str, name: &str) -> String {
    format!("{}_{name}", target.to_uppercase().replace('-', "_"))
}

// ---- how a library is found ---------------------------------------------------------------

/// What a finder may read and ask while it decides: the build script's variables, the
/// directories, the C preprocessor and pkg-config. The build script gives the real ones; a test
/// gives its own.
pub trait BuildEnv {
    /// A variable the user sets (recorded with `rerun-if-env-changed` in a build script).
    fn var(&self, name: &str) -> Option<String>;
    /// A variable Cargo sets for build scripts (`DEP_*`, `TARGET`, `CARGO_CFG_*`).
    fn cargo_var(&self, name: &str) -> Option<String>;
    /// The target being built for.
    fn target(&self) -> TargetInfo;
    /// The names of a directory's entries, or `None` when it cannot be read.
    fn list_dir(&self, dir: &str) -> Option<Vec<String>>;
    /// The target C compiler's preprocessor output for `source`, with `-I` for each of
    /// `include_dirs`; `None` when it fails.
    fn preprocess(&self, source: &str, include_dirs: &[String]) -> Option<String>;
    /// Where the target C compiler finds file `name` in its default search path
    /// (`-print-file-name`), when it finds it.
    fn compiler_file_name(&self, name: &str) -> Option<String>;
    /// pkg-config's answer for `module`, or why it has none.
    fn pkg_config(&self, module: &str) -> Result<PkgConfigFound, String>;

    /// pkg-config's answer for a static link of `module` (`--static`: `Libs.private` too, in
    /// [`PkgConfigFound::libs`]). By default, [`BuildEnv::pkg_config`]'s.
    fn pkg_config_static(&self, module: &str) -> Result<PkgConfigFound, String> {
        self.pkg_config(module)
    }

    /// A variable that also has a target-prefixed form (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`),
    /// which wins, as in `openssl-sys`. Both forms are read.
    fn target_var(&self, name: &str) -> Option<String> {
        let prefixed = self.var(&target_prefixed(&self.target().triple, name));
        let plain = self.var(name);
        prefixed.or(plain)
    }
}

/// What pkg-config says of a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PkgConfigFound {
    /// `-I` directories (none for the system's own).
    pub include_dirs: Vec<String>,
    /// `-L` directories (none for the system's own).
    pub lib_dirs: Vec<String>,
    /// Its `Version:`.
    pub version: String,
    /// The libraries it links, as `-l` takes them (for a static answer, `Libs.private` too).
    pub libs: Vec<String>,
}

impl PkgConfigFound {
    /// pkg-config's answer: directories and version.
    pub fn new(
        include_dirs: Vec<String>,
        lib_dirs: Vec<String>,
        version: String,
    ) -> PkgConfigFound {
        PkgConfigFound {
            include_dirs,
            lib_dirs,
            version,
            libs: Vec::new(),
        }
    }
}

/// What a [`Finder`] is told.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct FindContext<'a> {
    /// The environment.
    pub env: &'a dyn BuildEnv,
    /// The crate whose table declares the library ([`crate::Spec::name`]), for messages.
    pub declared_by: &'a str,
    /// The libraries the probes will link, in link order, as `-l` takes them.
    pub link: &'a [&'static str],
    /// The graph-wide link policy (`RUST_BACKEND_LINK`: `static` or `dynamic`) and who set it,
    /// which a finder applies when the library's own variables say nothing.
    pub link_policy: Option<(&'a str, &'a str)>,
}

/// How a build finds a C library: where its headers and libraries are, how it links, its
/// version. Implement it for a library none of the finders of this crate fits.
pub trait Finder: Sync + fmt::Debug {
    /// Where `library` is, or the build error saying why it cannot be used (without who asked:
    /// the caller adds that).
    fn find(&self, library: &Library, cx: &FindContext<'_>) -> Result<Found, Message>;

    /// For a cross build without a usable C compiler: the second line of the fix, how to provide
    /// the library for `target` (after the compiler's line).
    fn cross_fix(&self, library: &Library, target: &TargetInfo) -> Option<String> {
        Some(format!(
            "and a {} built for {}, where the build finds it (PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files)",
            library.name, target.triple
        ))
    }
}

/// Where a library was found and how the probes link it; what the build options record of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// How it was located, for messages and the build options (`pkg-config (libzstd)`,
    /// `libz-sys`, `OPENSSL_DIR=/opt/ssl`).
    pub located_by: String,
    /// `-I` directories; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// `-L` directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Static (the archives' paths are linked) or dynamic (`-l`).
    pub link_mode: LinkMode,
    /// What a static link needs after the archives (`-ldl`, `-pthread`).
    pub system_libs: Vec<String>,
    /// Its version, when the finder knows it.
    pub version: Option<String>,
    /// Warnings to print (an accepted but untested version).
    pub warnings: Vec<String>,
    /// The library directories the build options record, when not [`Found::lib_dirs`] (a copy
    /// built inside the target directory is not recorded by path).
    pub recorded_lib_dirs: Option<Vec<String>>,
    /// Its `-sys` crate built its own copy.
    pub own_copy: bool,
    /// When a copy was built from source rather than found on the system: what reported it
    /// (`DEP_Z_ROOT`, `DEP_OPENSSL_VENDORED`) and the switch that makes its crate use the
    /// system's (`OPENSSL_NO_VENDOR=1`); `RUST_BACKEND_BUNDLED=deny` fails the build on it.
    pub bundled: Option<(String, String)>,
    /// The libraries to link instead of those the probes name (`<LIB>_LIBS` of a [`System`](crate::probe::System)
    /// library), as `-l` takes them.
    pub libs: Option<Vec<String>>,
    /// The build script links it: once the probes pass, it emits `rustc-link-search` for
    /// [`Found::lib_dirs`] and `rustc-link-lib` for each library ([`System`](crate::probe::System) sets it). `false`:
    /// something else links it (its `-sys` crate).
    pub link_directives: bool,
}

impl Found {
    /// The libraries to link, as `-l` takes them: [`Found::libs`] when set, else `link` (the
    /// probes' libraries).
    pub fn link_names(&self, link: &[&str]) -> Vec<String> {
        match &self.libs {
            Some(libs) => libs.clone(),
            None => {
                let mut names = Vec::with_capacity(link.len());
                for l in link {
                    names.push(l.to_string());
                }
                names
            }
        }
    }

    /// Found as `located_by` says, dynamic, in the compiler's default directories.
    pub fn new(located_by: impl Into<String>) -> Found {
        Found {
            located_by: located_by.into(),
            ..Found::default()
        }
    }
}

/// How a library ends up in the binaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkMode {
    /// A shared library: listed in NEEDED.
    #[default]
    Dynamic,
    /// An archive: copied into the binary.
    Static,
}

/// A C library the build probed, as recorded in the build options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LibraryFound {
    /// The library's name (`zlib`).
    pub library: &'static str,
    /// Its version, when known.
    pub version: Option<String>,
    /// How it was located.
    pub located_by: String,
    /// Library directories; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// Linked statically.
    pub static_link: bool,
    /// `-I` directories of its headers; none: the compiler's default. For a build script that
    /// compiles C of its own against the library (`cc::Build::includes`).
    pub include_dirs: Vec<String>,
    /// The build script emitted its `rustc-link-lib` directives ([`Found::link_directives`]).
    pub linked_here: bool,
    /// The libraries linked, as `-l` takes them (`crypto`, `z`): what `cargo flagsplit` matches
    /// against the executables' `NEEDED` entries and archives.
    pub links: Vec<String>,
    /// Its `-sys` crate built its own copy ([`Found::own_copy`] or [`Found::bundled`]).
    pub bundled: bool,
}

/// The target being built for, as Cargo describes it to build scripts (`TARGET`, `HOST` and
/// `CARGO_CFG_TARGET_*`), never the machine the build script runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TargetInfo {
    /// `TARGET`, for example `aarch64-unknown-linux-gnu`.
    pub triple: String,
    /// `HOST`: the triple of the machine running the build.
    pub host: String,
    /// `CARGO_CFG_TARGET_ARCH`.
    pub arch: String,
    /// `CARGO_CFG_TARGET_OS`.
    pub os: String,
    /// `CARGO_CFG_TARGET_ENV` (`gnu`, `musl`, `msvc`, or empty).
    pub env: String,
    /// `CARGO_CFG_TARGET_VENDOR`.
    pub vendor: String,
    /// `CARGO_CFG_TARGET_POINTER_WIDTH`.
    pub pointer_width: u32,
}

impl TargetInfo {
    /// Whether the build runs on another kind of machine than it builds for.
    pub fn is_cross(&self) -> bool {
        !self.host.is_empty() && self.triple != self.host
    }

    /// Whether the target's C toolchain is Microsoft's (`cl.exe`, `.lib` archives).
    pub fn is_msvc(&self) -> bool {
        self.env == "msvc"
    }
}

/// Who asked for a probed library, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Asker {
    /// What was selected: `sha1 = openssl`.
    pub what: String,
    /// Where the selection came from: `DEMO_SHA1_PROVIDER`, `default with feature openssl-sha1`,
    /// `config.toml:3:12`.
    pub origin: String,
    /// The change that avoids the library: `DEMO_SHA1_PROVIDER=dc`.
    pub instead: String,
}

/// A C library that providers link. Built with [`Library::new`] and the builder methods.
#[derive(Debug)]
#[non_exhaustive]
pub struct Library {
    /// For messages: `OpenSSL`, `zlib`, `zstd`.
    pub name: &'static str,
    /// How the build finds it: [`SysCrate`](crate::probe::SysCrate), [`PkgConfig`](crate::probe::PkgConfig),
    /// [`OpensslSys`](crate::probe::openssl::OpensslSys) or a finder of the declaring crate's own.
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
    /// The version the finder reported: pkg-config's `Version:` ([`PkgConfig`](crate::probe::PkgConfig)), the
    /// version `openssl-sys` published ([`OpensslSys`](crate::probe::openssl::OpensslSys)).
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
        let digits = &part[..part
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(part.len())];
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
    // Plain loops: less code to compile in every build script than iterator chains.
    let mut tokens: Vec<&str> = Vec::new();
    for line in output.lines() {
        if !line.trim_start().starts_with('#') {
            tokens.extend(line.split_whitespace());
        }
    }
    let mut parts: Vec<String> = Vec::new();
    let mut marks = 0;
    for (i, token) in tokens.iter().enumerate() {
        if *token != VERSION_MARK {
            continue;
        }
        marks += 1;
        if let Some(next) = tokens.get(i + 1) {
            let e = next
                .trim_matches('"')
                .trim_start_matches('(')
                .trim_end_matches(')');
            parts.push(
                e.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .to_string(),
            );
        }
    }
    if parts.is_empty()
        || parts.len() != marks
        || parts
            .iter()
            .any(|p| !p.starts_with(|c: char| c.is_ascii_digit()))
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

/// A build error's text, as a [`Finder`] returns it. Rendered as the headline, then two-space-indented lines: what was found
/// and tried, `asked for by: ...`, `fix: ...` followed by `or ...` alternatives, and last
/// `or do without <library> here: ...`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Message {
    // Boxed: a finder returns it as its `Err`, and a `Result` is as large as its larger side.
    parts: Box<Parts>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Parts {
    headline: String,
    tried: Vec<String>,
    asked_by: Vec<String>,
    fixes: Vec<String>,
    instead: Vec<String>,
    library: &'static str,
}

impl Message {
    /// A message with its first line.
    pub fn new(headline: impl Into<String>) -> Message {
        Message {
            parts: Box::new(Parts {
                headline: headline.into(),
                ..Parts::default()
            }),
        }
    }

    /// A line of what was found or tried.
    pub fn tried(mut self, line: impl Into<String>) -> Message {
        self.parts.tried.push(line.into());
        self
    }

    /// A program's output, each line quoted with `| `.
    pub fn output(mut self, text: &str) -> Message {
        self.parts
            .tried
            .extend(text.lines().map(|l| format!("| {l}")));
        self
    }

    /// Who asked for `library`, with the selection each can change instead (duplicates are
    /// dropped).
    pub(crate) fn asked_by<'a>(
        mut self,
        library: &'static str,
        askers: impl IntoIterator<Item = &'a Asker>,
    ) -> Message {
        let p = &mut self.parts;
        p.library = library;
        for asker in askers {
            let line = format!("{} ({})", asker.what, asker.origin);
            if !p.asked_by.contains(&line) {
                p.asked_by.push(line);
            }
            if !p.instead.contains(&asker.instead) {
                p.instead.push(asker.instead.clone());
            }
        }
        self
    }

    /// A fix: the first is `fix: ...`, later ones `or ...`. Further lines of a fix are indented
    /// under it.
    pub fn fix(mut self, fix: impl Into<String>) -> Message {
        self.parts.fixes.push(fix.into());
        self
    }

    /// The same, with `library`'s install lines per distribution as one fix (`install zstd's
    /// development files and pkg-config:` and one aligned line per distribution), then its other
    /// fixes ([`Library::locate`]), as every probe failure of this crate gives them. For a
    /// finder of one's own.
    pub fn with_library_fixes(mut self, library: &Library) -> Message {
        let mut width = 0;
        for (d, _) in library.install {
            width = width.max(d.len() + 1);
        }
        let mut install: Vec<String> = Vec::with_capacity(library.install.len());
        for (distro, line) in library.install {
            install.push(format!("{:<width$} {line}", format!("{distro}:")));
        }
        if !install.is_empty() {
            self = self.fix(format!(
                "install {}'s development files and pkg-config:\n{}",
                library.name,
                install.join("\n")
            ));
        }
        for fix in library.locate {
            self = self.fix(*fix);
        }
        self
    }

    /// The text, without a final newline.
    pub fn render(&self) -> String {
        let p = &self.parts;
        let mut lines = vec![p.headline.clone()];
        for l in &p.tried {
            lines.push(format!("  {l}"));
        }
        if !p.asked_by.is_empty() {
            lines.push(format!("  asked for by: {}", p.asked_by.join("; ")));
        }
        for (i, fix) in p.fixes.iter().enumerate() {
            let lead = if i == 0 { "fix:" } else { "or" };
            let mut parts = fix.lines();
            lines.push(format!("  {lead} {}", parts.next().unwrap_or_default()));
            for l in parts {
                lines.push(format!("    {l}"));
            }
        }
        if !p.instead.is_empty() {
            lines.push(format!(
                "  or do without {} here: {}",
                p.library,
                p.instead.join(", ")
            ));
        }
        lines.join("\n")
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

//! The build errors of the probes, built with one [`Message`]: a headline, what was found and
//! tried, who asked, the fixes, and the selections that avoid the library. Every name in them
//! comes from the declaring crate's table or from the library's finder.

use super::openssl::{OpensslSysReport, SearchPaths, StaticProblem};
use super::{Asker, CompilerProblem, Found, Library, Need, Probe, ProbeFailure, TargetInfo};

/// A build error's text, as a [`super::Finder`] returns it. Rendered as the headline, then two-space-indented lines: what was found
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

    /// The text, without a final newline.
    pub fn render(&self) -> String {
        let p = &self.parts;
        let mut lines = vec![p.headline.clone()];
        lines.extend(p.tried.iter().map(|l| format!("  {l}")));
        if !p.asked_by.is_empty() {
            lines.push(format!("  asked for by: {}", p.asked_by.join("; ")));
        }
        for (i, fix) in p.fixes.iter().enumerate() {
            let lead = if i == 0 { "fix:" } else { "or" };
            let mut parts = fix.lines();
            lines.push(format!("  {lead} {}", parts.next().unwrap_or_default()));
            lines.extend(parts.map(|l| format!("    {l}")));
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

fn dirs(d: &[String]) -> String {
    if d.is_empty() {
        "(the compiler's default search path)".to_string()
    } else {
        d.join(", ")
    }
}

/// The library's install lines per distribution as one fix, then its other fixes.
pub(crate) fn install_fixes(mut m: Message, library: &Library) -> Message {
    let width = library
        .install
        .iter()
        .map(|(d, _)| d.len() + 1)
        .max()
        .unwrap_or(0);
    let install: Vec<String> = library
        .install
        .iter()
        .map(|(distro, line)| format!("{:<width$} {line}", format!("{distro}:")))
        .collect();
    if !install.is_empty() {
        m = m.fix(format!(
            "install {}'s development files and pkg-config:\n{}",
            library.name,
            install.join("\n")
        ));
    }
    for fix in library.locate {
        m = m.fix(*fix);
    }
    m
}

/// The build error for a refused version: the reason, where the library was found, the fixes.
pub(crate) fn version_message(library: &Library, reason: &str, found: &Found) -> Message {
    let m =
        Message::new(format!("{} version check failed: {reason}", library.name)).tried(format!(
            "located by {}; headers in {}; library directories: {}",
            found.located_by,
            dirs(&found.include_dirs),
            dirs(&found.lib_dirs)
        ));
    install_fixes(m, library)
}

/// The build error for a static link whose archive is missing.
pub(crate) fn missing_archive(library: &Library, file: &str, found: &Found) -> Message {
    let m = Message::new(format!(
        "{} static linking was asked for, but {file} is not in the library directories: {}",
        library.name,
        dirs(&found.lib_dirs)
    ))
    .tried(format!("located by: {}", found.located_by));
    install_fixes(m, library)
}

/// The build error for an OpenSSL refused by the declaring crate's judge: what was found, where,
/// the fixes.
pub(crate) fn version_refusal(
    library: &Library,
    reason: &str,
    paths: &SearchPaths,
    report: &OpensslSysReport,
) -> Message {
    let m =
        Message::new(format!("{} version check failed: {reason}", library.name)).tried(format!(
            "found by openssl-sys: headers in {}; located by {}; library directories: {}",
            report
                .include
                .as_deref()
                .unwrap_or("(the compiler's default include path)"),
            paths.location,
            dirs(&paths.lib_dirs)
        ));
    install_fixes(m, library)
}

/// The build error for a static OpenSSL build that cannot be one.
pub(crate) fn static_message(
    library: &Library,
    problem: &StaticProblem,
    paths: &SearchPaths,
) -> Message {
    let name = library.name;
    let mut m = match problem {
        StaticProblem::PkgConfigSystemDir { libdir, includedir } => {
            let lib = libdir.as_deref().unwrap_or("/usr/lib/<multiarch>");
            let include = includedir.as_deref().unwrap_or("/usr/include");
            Message::new(format!("{name} static linking was asked for (OPENSSL_STATIC or PKG_CONFIG_ALL_STATIC), but it would not happen: openssl-sys found OpenSSL through pkg-config in the system's directories, and the pkg-config crate it uses links system libraries dynamically whatever OPENSSL_STATIC says; the binaries would list libcrypto.so in NEEDED"))
                .tried(format!("located by: {}; library directory: {lib}", paths.location))
                .fix(format!("name the directories, so that openssl-sys honours OPENSSL_STATIC: OPENSSL_STATIC=1 OPENSSL_LIB_DIR={lib} OPENSSL_INCLUDE_DIR={include} (Debian/Ubuntu: libssl-dev has libcrypto.a and libssl.a)"))
                .fix("unset OPENSSL_STATIC (and PKG_CONFIG_ALL_STATIC) for a dynamic build")
        }
        StaticProblem::NoLibDir => Message::new(format!(
            "{name} static linking was asked for, but no library directory is known to take libcrypto.a from"
        ))
        .tried(format!("located by: {}; headers: {}", paths.location, dirs(&paths.include_dirs)))
        .fix("OPENSSL_STATIC=1 with OPENSSL_LIB_DIR and OPENSSL_INCLUDE_DIR (or OPENSSL_DIR)"),
    };
    for fix in library.locate {
        m = m.fix(*fix);
    }
    m
}

fn probe_headline(target: &TargetInfo, probe: &Probe) -> String {
    let cross = if target.is_cross() {
        format!(" (cross-compiling from {})", target.host)
    } else {
        String::new()
    };
    format!(
        "{} probe cannot run for target {}{cross}: {} (`{}`) must be compiled and linked from {} with the target's C compiler, and ",
        probe.library.name, target.triple, probe.what, probe.symbol, probe.source
    )
}

/// The build error when the probe cannot run for this target: it says so instead of guessing.
pub(crate) fn compiler_message(
    problem: &CompilerProblem,
    target: &TargetInfo,
    need: &Need,
) -> String {
    let library = need.probe.library;
    let mut headline = probe_headline(target, need.probe);
    let mut m = match problem {
        CompilerProblem::Msvc { path } => {
            headline.push_str(&format!("the compiler for this target, `{path}`, is MSVC-style (cl.exe options); these probes are written for GCC/Clang-style compilers and are not run with it rather than guessed"));
            Message::new(headline).fix(format!("build the providers that link {} with a GNU-style toolchain (the x86_64-pc-windows-gnu target with MinGW), or select providers that need no {} on this target", library.name, library.name))
        }
        CompilerProblem::NoCrossCompiler { path } => {
            headline.push_str(&format!(
                "the cc crate knows no cross compiler for it and would fall back to the host's `{path}`, which builds for {}, not for {}",
                target.host, target.triple
            ));
            cross_fix(Message::new(headline), target, library)
        }
        CompilerProblem::NotFound { path, reason } => {
            headline.push_str(&format!(
                "the compiler the cc crate chose for it, `{path}`, could not be started: {reason}"
            ));
            cross_fix(Message::new(headline), target, library)
        }
        CompilerProblem::NoCompiler { reason } => {
            headline.push_str(&format!("the cc crate found no C compiler: {reason}"));
            cross_fix(Message::new(headline), target, library)
        }
    };
    m = m.tried("(the probes only compile and link; they never run the program, so a cross toolchain is enough)");
    m.asked_by(library.name, &need.askers).render()
}

fn cross_fix(m: Message, target: &TargetInfo, library: &Library) -> Message {
    let underscored = target.triple.replace('-', "_");
    if !target.is_cross() {
        return m.fix(format!(
            "install a C compiler (Debian/Ubuntu: apt-get install gcc) or name one: CC=/path/to/cc (or CC_{underscored})"
        ));
    }
    let gnu_prefix = match (
        target.arch.as_str(),
        target.os.as_str(),
        target.env.as_str(),
    ) {
        (arch, "linux", "gnu") => Some(format!("{arch}-linux-gnu")),
        (arch, "linux", "musl") => Some(format!("{arch}-linux-musl")),
        (arch, "windows", "gnu") => Some(format!("{arch}-w64-mingw32")),
        _ => None,
    };
    let compiler = match &gnu_prefix {
        Some(p) => format!(
            "install a C cross compiler for {} (Debian/Ubuntu: apt-get install gcc-{}) or name one: CC_{underscored}=/path/to/{p}-gcc",
            target.triple,
            p.replace('_', "-"),
        ),
        None => format!(
            "install a C cross compiler for {} and name it: CC_{underscored}=/path/to/compiler",
            target.triple
        ),
    };
    let mut m = match library.finder.cross_fix(library, target) {
        Some(second) => m.fix(format!("{compiler}\n{second}")),
        None => m.fix(compiler),
    };
    for fix in library.locate {
        m = m.fix(*fix);
    }
    m
}

/// The build error when a probe does not compile or link: which symbol, which directories, who
/// asked, and how to fix it (the library's install lines per distribution, then its other fixes).
pub(crate) fn failure_message(failure: &ProbeFailure, need: &Need) -> String {
    let probe = failure.probe;
    let library = probe.library;
    let m = Message::new(format!(
        "{} probe failed: {} (`{}`) could not be compiled and linked from {}",
        library.name, probe.what, probe.symbol, probe.source
    ))
    .tried(format!(
        "{} located by: {}; library directories tried: {}; include directories: {}",
        library.name,
        failure.located_by,
        dirs(&failure.lib_dirs),
        dirs(&failure.include_dirs)
    ))
    .tried(format!("command: {}", failure.command))
    .output(&failure.output)
    .asked_by(library.name, &need.askers);
    install_fixes(m, library).render()
}

//! The build errors of the OpenSSL checks, built with one [`Message`]: a headline, what was
//! found and tried, who asked, the fixes, and the selections that avoid OpenSSL.

use super::{
    Asker, CompilerProblem, Finder, Library, Need, OpensslSysReport, Probe, ProbeFailure,
    SearchPaths, StaticProblem, TargetInfo,
};

/// A build error's text. Rendered as the headline, then two-space-indented lines: what was found
/// and tried, `asked for by: ...`, `fix: ...` followed by `or ...` alternatives, and last
/// `or do without <library> here: ...`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
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
            headline: headline.into(),
            ..Message::default()
        }
    }

    /// A line of what was found or tried.
    pub fn tried(mut self, line: impl Into<String>) -> Message {
        self.tried.push(line.into());
        self
    }

    /// A program's output, each line quoted with `| `.
    pub fn output(mut self, text: &str) -> Message {
        self.tried.extend(text.lines().map(|l| format!("| {l}")));
        self
    }

    /// Who asked for `library`, with the selection each can change instead (duplicates are
    /// dropped).
    pub fn asked_by<'a>(
        mut self,
        library: &'static str,
        askers: impl IntoIterator<Item = &'a Asker>,
    ) -> Message {
        self.library = library;
        for asker in askers {
            let line = format!("{} ({})", asker.what, asker.origin);
            if !self.asked_by.contains(&line) {
                self.asked_by.push(line);
            }
            if !self.instead.contains(&asker.instead) {
                self.instead.push(asker.instead.clone());
            }
        }
        self
    }

    /// A fix: the first is `fix: ...`, later ones `or ...`. Further lines of a fix are indented
    /// under it.
    pub fn fix(mut self, fix: impl Into<String>) -> Message {
        self.fixes.push(fix.into());
        self
    }

    /// The text, without a final newline.
    pub fn render(&self) -> String {
        let mut lines = vec![self.headline.clone()];
        lines.extend(self.tried.iter().map(|l| format!("  {l}")));
        if !self.asked_by.is_empty() {
            lines.push(format!("  asked for by: {}", self.asked_by.join("; ")));
        }
        for (i, fix) in self.fixes.iter().enumerate() {
            let lead = if i == 0 { "fix:" } else { "or" };
            let mut parts = fix.lines();
            lines.push(format!("  {lead} {}", parts.next().unwrap_or_default()));
            lines.extend(parts.map(|l| format!("    {l}")));
        }
        if !self.instead.is_empty() {
            lines.push(format!(
                "  or do without {} here: {}",
                self.library,
                self.instead.join(", ")
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

fn askers(needs: &[Need]) -> impl Iterator<Item = &Asker> {
    needs.iter().flat_map(|n| &n.askers)
}

const VENDORED_FIX: &str =
    "build OpenSSL from source and link it statically: --features openssl-vendored";

/// The build error for a refused OpenSSL: what was found, where, the minimum, who asked, the fix.
pub fn version_refusal(
    reason: &str,
    paths: &SearchPaths,
    report: &OpensslSysReport,
    needs: &[Need],
) -> String {
    Message::new(format!("OpenSSL version check failed: {reason}"))
        .tried(format!(
            "found by openssl-sys: headers in {}; located by {}; library directories: {}",
            report
                .include
                .as_deref()
                .unwrap_or("(the compiler's default include path)"),
            paths.location,
            dirs(&paths.lib_dirs)
        ))
        .asked_by("OpenSSL", askers(needs))
        .fix("install OpenSSL 1.1.1 or newer (Debian 10+, Ubuntu 18.04+, RHEL 8+, current Fedora, Arch and Alpine ship 1.1.1 or 3.x) and point the build at it: OPENSSL_DIR=/path, or OPENSSL_LIB_DIR plus OPENSSL_INCLUDE_DIR")
        .fix(format!("{VENDORED_FIX} (needs perl and make)"))
        .render()
}

/// The build error for a static build that cannot be one.
pub fn static_message(problem: &StaticProblem, paths: &SearchPaths, needs: &[Need]) -> String {
    let m = match problem {
        StaticProblem::PkgConfigSystemDir { libdir, includedir } => {
            let lib = libdir.as_deref().unwrap_or("/usr/lib/<multiarch>");
            let include = includedir.as_deref().unwrap_or("/usr/include");
            Message::new("OpenSSL static linking was asked for (OPENSSL_STATIC or PKG_CONFIG_ALL_STATIC), but it would not happen: openssl-sys found OpenSSL through pkg-config in the system's directories, and the pkg-config crate it uses links system libraries dynamically whatever OPENSSL_STATIC says; the binaries would list libcrypto.so in NEEDED")
                .tried(format!("located by: {}; library directory: {lib}", paths.location))
                .fix(format!("name the directories, so that openssl-sys honours OPENSSL_STATIC: OPENSSL_STATIC=1 OPENSSL_LIB_DIR={lib} OPENSSL_INCLUDE_DIR={include} (Debian/Ubuntu: libssl-dev has libcrypto.a and libssl.a)"))
                .fix(VENDORED_FIX)
                .fix("unset OPENSSL_STATIC (and PKG_CONFIG_ALL_STATIC) for a dynamic build")
        }
        StaticProblem::Missing { file, dirs: d } => Message::new(format!(
            "OpenSSL static linking was asked for, but {file} is not in the library directories: {}",
            dirs(d)
        ))
        .tried(format!("located by: {}", paths.location))
        .fix("install OpenSSL's static libraries (Debian/Ubuntu: libssl-dev; Alpine: openssl-libs-static) and point OPENSSL_LIB_DIR at their directory")
        .fix(VENDORED_FIX)
        .fix("unset OPENSSL_STATIC for a dynamic build"),
        StaticProblem::NoLibDir => Message::new(
            "OpenSSL static linking was asked for, but no library directory is known to take libcrypto.a from",
        )
        .tried(format!("located by: {}; headers: {}", paths.location, dirs(&paths.include_dirs)))
        .fix("OPENSSL_STATIC=1 with OPENSSL_LIB_DIR and OPENSSL_INCLUDE_DIR (or OPENSSL_DIR)")
        .fix(VENDORED_FIX),
    };
    m.asked_by("OpenSSL", askers(needs)).render()
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
pub fn compiler_message(problem: &CompilerProblem, target: &TargetInfo, need: &Need) -> String {
    let mut headline = probe_headline(target, need.probe);
    let mut m = match problem {
        CompilerProblem::Msvc { path } => {
            headline.push_str(&format!("the compiler for this target, `{path}`, is MSVC-style (cl.exe options); flagsplit's probes are written for GCC/Clang-style compilers and are not run with it rather than guessed"));
            Message::new(headline).fix("build the OpenSSL providers with a GNU-style toolchain (the x86_64-pc-windows-gnu target with MinGW), or select providers that need no OpenSSL on this target")
        }
        CompilerProblem::NoCrossCompiler { path } => {
            headline.push_str(&format!(
                "the cc crate knows no cross compiler for it and would fall back to the host's `{path}`, which builds for {}, not for {}",
                target.host, target.triple
            ));
            cross_fix(Message::new(headline), target, need.probe.library)
        }
        CompilerProblem::NotFound { path, reason } => {
            headline.push_str(&format!(
                "the compiler the cc crate chose for it, `{path}`, could not be started: {reason}"
            ));
            cross_fix(Message::new(headline), target, need.probe.library)
        }
        CompilerProblem::NoCompiler { reason } => {
            headline.push_str(&format!("the cc crate found no C compiler: {reason}"));
            cross_fix(Message::new(headline), target, need.probe.library)
        }
    };
    m = m.tried("(the probes only compile and link; they never run the program, so a cross toolchain is enough)");
    m.asked_by(need.probe.library.name, &need.askers).render()
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
    if library.finder != Finder::Openssl {
        return m.fix(format!(
            "{compiler}\nand a {} built for {}, where {} finds it (PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files)",
            library.name, target.triple, library.sys_crate
        ));
    }
    let prefix = crate::knobs::target_prefixed(&target.triple, "OPENSSL_DIR");
    m.fix(format!(
        "{compiler}\nand an OpenSSL built for {}: {prefix}=/path (include/ and lib/), or PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH for its pkg-config files; or --features openssl-vendored",
        target.triple
    ))
}

/// The build error when a probe does not compile or link: which symbol, which directories, who
/// asked, and how to fix it (the library's install lines per distribution, then how to point its
/// `-sys` crate at an installation).
pub fn failure_message(failure: &ProbeFailure, need: &Need) -> String {
    let probe = failure.probe;
    let library = probe.library;
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
    let mut m = Message::new(format!(
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
    m.render()
}

//! The build errors of the probes, built with one [`Message`]: a headline, what was found and
//! tried, who asked, the fixes, and the selections that avoid the library. Every name in them
//! comes from the declaring crate's table or from the library's finder.

use super::need::{CompilerProblem, Need, ProbeFailure};
use crate::clib::{Found, Library, Message, Probe, TargetInfo};

pub(crate) fn dirs(d: &[String]) -> String {
    if d.is_empty() {
        "(the compiler's default search path)".to_string()
    } else {
        d.join(", ")
    }
}

/// The library's install lines per distribution as one fix, then its other fixes
/// ([`Message::with_library_fixes`]).
pub(crate) fn install_fixes(m: Message, library: &Library) -> Message {
    m.with_library_fixes(library)
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
                "no cross compiler is named for it, and the host's `{path}` builds for {}, not for {}",
                target.host, target.triple
            ));
            cross_fix(Message::new(headline), target, library)
        }
        CompilerProblem::NotFound { path, reason } => {
            headline.push_str(&format!(
                "the C compiler for it, `{path}`, could not be started: {reason}"
            ));
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

//! What the probes work with: who asked for a library ([`Need`]), the C compiler's facts and
//! problems, a failed probe, and the directory helpers the finders share.

use crate::clib::{Asker, Probe};

/// Lists a directory: the names of its entries, or `None` when it does not exist. Injected, so
/// that the decisions are tested with layouts that exist nowhere.
pub(crate) trait ListDir: Fn(&str) -> Option<Vec<String>> {}
impl<F: Fn(&str) -> Option<Vec<String>>> ListDir for F {}

pub(crate) fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// `lib64/` and `lib/` of `prefix` that exist, both when both do (as `openssl-sys` takes them).
pub(crate) fn lib_dirs_of(prefix: &str, list: &impl ListDir) -> Vec<String> {
    ["lib64", "lib"]
        .iter()
        .map(|d| join(prefix, d))
        .filter(|d| list(d).is_some())
        .collect()
}

/// A probe the build needs, and who asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    /// What to probe.
    pub probe: &'static Probe,
    /// Who asked (one line each in messages).
    pub askers: Vec<Asker>,
}

pub(crate) fn askers(needs: &[Need]) -> impl Iterator<Item = &Asker> {
    needs.iter().flat_map(|n| &n.askers)
}

/// The C compiler chosen for the target (see `compiler`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompilerFacts {
    /// Its path or name.
    pub path: String,
    /// It takes MSVC-style options (`cl.exe`, `clang-cl`).
    pub msvc_like: bool,
    /// It is Clang (which cross-compiles with `--target`, which `compiler` passes).
    pub clang_like: bool,
    /// The variable that named it (`CC_aarch64_unknown_linux_gnu`, `TARGET_CC`, `CC`), if any.
    pub named_by: Option<String>,
}

/// Why a probe cannot run for this target, decided before running anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CompilerProblem {
    /// An MSVC-style compiler: the probes use a GCC/Clang command line.
    Msvc {
        /// The compiler.
        path: String,
    },
    /// Cross-compiling with the host's own compiler (`cc`, `gcc`) that no variable named: the
    /// probe would compile for the wrong machine.
    NoCrossCompiler {
        /// The host compiler.
        path: String,
    },
    /// The compiler could not be started (not installed).
    NotFound {
        /// The compiler.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
}

/// A probe that did not compile or link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProbeFailure {
    /// What was probed.
    pub probe: &'static Probe,
    /// How the library was located ([`Found::located_by`]).
    pub located_by: String,
    /// `-L` directories tried; none: the compiler's default.
    pub lib_dirs: Vec<String>,
    /// `-I` directories tried; none: the compiler's default.
    pub include_dirs: Vec<String>,
    /// The compiler command line, for reproducing it by hand.
    pub command: String,
    /// The last lines of the compiler's output.
    pub output: String,
}

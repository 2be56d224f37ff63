//! The target's C compiler for the probes: which program, with which arguments. The choice is
//! pure (the variables and `PATH` are passed in), so it is tested for targets that exist nowhere;
//! `run` gives it the real environment.
//!
//! It follows the `cc` crate's conventions, so that a build configured for a `-sys` crate's C
//! code configures the probes the same way, without compiling `cc` (and its dependencies) into
//! every library's build script:
//!
//! - the program: the first non-empty of `CC_<triple>`, `CC_<triple with underscores>`,
//!   `TARGET_CC` (cross builds) or `HOST_CC`, `CC`, split at white space (so `ccache gcc` runs
//!   `gcc` through `ccache`); otherwise `cc` for the host, or for another target the GNU
//!   cross compiler's name (`aarch64-linux-gnu-gcc`), the first such name found in `PATH`;
//! - its flags: the first of `CFLAGS_<triple>`, `CFLAGS_<triple with underscores>`,
//!   `TARGET_CFLAGS` or `HOST_CFLAGS`, `CFLAGS`, split at white space; Clang cross-compiling gets
//!   `--target=<triple>`;
//! - its family, from the program's name: `cl`/`clang-cl` take MSVC options (the probes refuse
//!   them), a name with `clang` is Clang.

use std::process::Command;

use super::need::CompilerFacts;
use crate::clib::TargetInfo;

/// The C compiler a probe runs: its program, the arguments before the probe's own, and what
/// [`check_compiler`](super::plan::check_compiler) judges it by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tool {
    /// The program started (a wrapper such as `ccache` when the variable names one).
    pub program: String,
    /// The arguments before the probe's: the compiler after a wrapper, the flags variable's words,
    /// `--target` for Clang.
    pub args: Vec<String>,
    /// The compiler's path or name, the variable that named it and its family.
    pub facts: CompilerFacts,
}

impl Tool {
    /// The command to which a probe adds its own arguments.
    pub(crate) fn to_command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        cmd
    }

    /// The compiler's path or name, for messages.
    pub(crate) fn path(&self) -> &str {
        &self.facts.path
    }
}

/// The variable names read for the target's C compiler, in the order the first set one wins.
pub(crate) fn compiler_variables(target: &TargetInfo) -> Vec<String> {
    cc_forms("CC", target)
}

/// The variable names read for the C compiler's flags, in the order the first set one wins.
pub(crate) fn flags_variables(target: &TargetInfo) -> Vec<String> {
    cc_forms("CFLAGS", target)
}

/// `NAME_<triple>`, `NAME_<triple_underscored>`, `TARGET_NAME` or `HOST_NAME`, `NAME`: the `cc`
/// crate's forms of a variable (`clib::target_prefixed` is openssl-sys's form).
fn cc_forms(name: &str, target: &TargetInfo) -> Vec<String> {
    vec![
        format!("{name}_{}", target.triple),
        format!("{name}_{}", target.triple.replace('-', "_")),
        format!(
            "{}_{name}",
            if target.is_cross() { "TARGET" } else { "HOST" }
        ),
        name.to_string(),
    ]
}

/// The names a GNU cross compiler for `triple` goes by, most likely first: `aarch64-linux-gnu-gcc`
/// for `aarch64-unknown-linux-gnu` (the vendor dropped, Rust's architecture names mapped to
/// GNU's), then `<triple>-gcc`.
pub(crate) fn cross_compiler_names(triple: &str) -> Vec<String> {
    let parts: Vec<&str> = triple.split('-').collect();
    let mut names = Vec::new();
    if parts.len() == 4 {
        let arch = match parts[0] {
            a if a.starts_with("riscv64") => "riscv64",
            a if a.starts_with("riscv32") => "riscv32",
            a if a.starts_with("armv7") || a.starts_with("thumbv7") => "arm",
            a => a,
        };
        names.push(format!("{arch}-{}-{}-gcc", parts[2], parts[3]));
    }
    let whole = format!("{triple}-gcc");
    if !names.contains(&whole) {
        names.push(whole);
    }
    names
}

/// Chooses the compiler for `target`: `var` reads a variable (empty counts as unset), `on_path`
/// says whether a program of that name is in `PATH`.
pub(crate) fn choose(
    target: &TargetInfo,
    var: &dyn Fn(&str) -> Option<String>,
    on_path: &dyn Fn(&str) -> bool,
) -> Tool {
    let set = |names: Vec<String>| {
        names
            .into_iter()
            .find_map(|n| var(&n).filter(|v| !v.trim().is_empty()).map(|v| (n, v)))
    };
    let (named_by, mut words) = match set(compiler_variables(target)) {
        Some((name, value)) => (Some(name), split_words(&value)),
        None => {
            let program = if target.is_msvc() {
                "cl.exe".to_string()
            } else if target.is_cross() {
                let names = cross_compiler_names(&target.triple);
                let found = names.iter().find(|n| on_path(n)).cloned();
                found.unwrap_or_else(|| names[0].clone())
            } else {
                "cc".to_string()
            };
            (None, vec![program])
        }
    };
    let program = words.remove(0);
    // A wrapper runs the compiler named after it: the family is the compiler's.
    let compiler = if is_wrapper(&program) && !words.is_empty() {
        words[0].clone()
    } else {
        program.clone()
    };
    let name = file_name(&compiler);
    let msvc_like = matches!(name, "cl" | "clang-cl");
    let clang_like = !msvc_like && name.contains("clang");
    let mut args = words;
    if let Some((_, flags)) = set(flags_variables(target)) {
        args.extend(split_words(&flags));
    }
    if clang_like && target.is_cross() && !args.iter().any(|a| a.starts_with("--target")) {
        args.push(format!("--target={}", clang_triple(&target.triple)));
    }
    Tool {
        program,
        args,
        facts: CompilerFacts {
            path: compiler,
            msvc_like,
            clang_like,
            named_by,
        },
    }
}

/// Clang's name for a Rust target triple (the architecture names where they differ).
fn clang_triple(triple: &str) -> String {
    match triple.split_once('-') {
        Some((arch, rest)) if arch.starts_with("riscv64") => format!("riscv64-{rest}"),
        Some((arch, rest)) if arch.starts_with("riscv32") => format!("riscv32-{rest}"),
        _ => triple.to_string(),
    }
}

fn split_words(value: &str) -> Vec<String> {
    let mut words = Vec::new();
    for w in value.split_whitespace() {
        words.push(w.to_string());
    }
    words
}

/// A program's file name without its directory or `.exe`.
pub(crate) fn file_name(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.strip_suffix(".exe").unwrap_or(name)
}

fn is_wrapper(program: &str) -> bool {
    matches!(
        file_name(program),
        "ccache" | "sccache" | "distcc" | "buildcache"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(triple: &str, host: &str) -> TargetInfo {
        TargetInfo {
            triple: triple.into(),
            host: host.into(),
            env: triple.rsplit('-').next().unwrap_or("").into(),
            ..TargetInfo::default()
        }
    }

    const HOST: &str = "x86_64-unknown-linux-gnu";

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |n: &str| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_host_compiler_is_cc_and_its_flags_come_from_cflags() {
        let t = choose(
            &target(HOST, HOST),
            &with(&[("CFLAGS", "-O1  -g")]),
            &|_| true,
        );
        assert_eq!(t.program, "cc");
        assert_eq!(t.args, ["-O1", "-g"]);
        assert_eq!(t.facts.named_by, None);
        assert!(!t.facts.clang_like && !t.facts.msvc_like);
        let cmd = t.to_command();
        assert_eq!(cmd.get_program(), "cc");
        assert_eq!(cmd.get_args().count(), 2);
    }

    #[test]
    fn the_first_set_variable_wins_in_cc_order() {
        let vars = [
            ("CC", "gcc"),
            ("HOST_CC", "gcc-12"),
            ("CC_x86_64_unknown_linux_gnu", ""),
            ("CFLAGS", "-O2"),
            ("HOST_CFLAGS", "-O3"),
        ];
        let t = choose(&target(HOST, HOST), &with(&vars), &|_| true);
        assert_eq!(t.program, "gcc-12");
        assert_eq!(t.facts.named_by.as_deref(), Some("HOST_CC"));
        assert_eq!(t.args, ["-O3"]);
        let vars = [("CC", "gcc"), ("CC_x86_64-unknown-linux-gnu", "/opt/cc")];
        let t = choose(&target(HOST, HOST), &with(&vars), &|_| true);
        assert_eq!(t.program, "/opt/cc");
        assert_eq!(
            t.facts.named_by.as_deref(),
            Some("CC_x86_64-unknown-linux-gnu")
        );
    }

    #[test]
    fn a_wrapper_runs_the_compiler_and_the_family_is_the_compilers() {
        let t = choose(
            &target("aarch64-unknown-linux-gnu", HOST),
            &with(&[("TARGET_CC", "sccache clang")]),
            &|_| false,
        );
        assert_eq!(t.program, "sccache");
        assert_eq!(t.facts.path, "clang");
        assert!(t.facts.clang_like);
        assert_eq!(t.args, ["clang", "--target=aarch64-unknown-linux-gnu"]);
        let t = choose(
            &target(HOST, HOST),
            &with(&[("CC", "clang-cl.exe")]),
            &|_| true,
        );
        assert!(t.facts.msvc_like && !t.facts.clang_like);
        // The host's Clang needs no --target.
        let t = choose(
            &target(HOST, HOST),
            &with(&[("CC", "/usr/bin/clang-16")]),
            &|_| true,
        );
        assert!(t.facts.clang_like);
        assert!(t.args.is_empty());
    }

    #[test]
    fn a_cross_build_takes_the_gnu_cross_compiler_found_in_path() {
        let aarch64 = target("aarch64-unknown-linux-gnu", HOST);
        let t = choose(&aarch64, &with(&[]), &|n| {
            n == "aarch64-unknown-linux-gnu-gcc"
        });
        assert_eq!(t.program, "aarch64-unknown-linux-gnu-gcc");
        assert_eq!(t.facts.named_by, None);
        // None found: the usual name, which then fails to start, with the install line.
        let t = choose(&aarch64, &with(&[]), &|_| false);
        assert_eq!(t.program, "aarch64-linux-gnu-gcc");
        assert_eq!(
            cross_compiler_names("riscv64gc-unknown-linux-gnu")[0],
            "riscv64-linux-gnu-gcc"
        );
        assert_eq!(
            cross_compiler_names("armv7-unknown-linux-gnueabihf")[0],
            "arm-linux-gnueabihf-gcc"
        );
        assert_eq!(
            cross_compiler_names("x86_64-unknown-freebsd"),
            ["x86_64-unknown-freebsd-gcc"]
        );
        assert_eq!(
            choose(
                &aarch64,
                &with(&[("TARGET_CFLAGS", "-march=armv8-a")]),
                &|_| false
            )
            .args,
            ["-march=armv8-a"]
        );
        assert_eq!(
            clang_triple("riscv64gc-unknown-linux-gnu"),
            "riscv64-unknown-linux-gnu"
        );
    }

    #[test]
    fn msvc_targets_default_to_cl() {
        let msvc = target("x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc");
        let t = choose(&msvc, &with(&[]), &|_| true);
        assert_eq!(t.program, "cl.exe");
        assert!(t.facts.msvc_like);
        assert_eq!(compiler_variables(&msvc)[2], "HOST_CC");
        assert_eq!(
            flags_variables(&target("aarch64-unknown-linux-gnu", HOST)),
            [
                "CFLAGS_aarch64-unknown-linux-gnu",
                "CFLAGS_aarch64_unknown_linux_gnu",
                "TARGET_CFLAGS",
                "CFLAGS"
            ]
        );
    }
}

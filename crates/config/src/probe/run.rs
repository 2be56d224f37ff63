//! The I/O of the probes (feature `build-script`): the real [`BuildEnv`] (variables, directories,
//! the target's C preprocessor, pkg-config), and each probe compiled and linked (never run) with
//! the target's C compiler (chosen by [`super::compiler`]), like autoconf's `AC_CHECK_LIB`.
//!
//! Cross builds: the target comes from `TARGET`/`HOST`/`CARGO_CFG_TARGET_*`, and a probe that
//! cannot work for the target (no cross compiler, an MSVC-style compiler) stops the build saying
//! so instead of guessing.

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::{fs, io};

use super::compiler::{Tool, choose};
use super::message::{compiler_message, failure_message};
use super::need::{CompilerProblem, Need, ProbeFailure};
use super::plan::{check_compiler, locate_with, probe_args};
use crate::clib::{BuildEnv, Found, Library, LibraryFound, PkgConfigFound, TargetInfo};
use crate::env::Env;
use crate::model::joined;

/// The real [`BuildEnv`] of a build script: its [`Env`], the file system, the target's C
/// compiler (picked once, when first needed) with `out_dir` for scratch files, pkg-config.
pub(crate) struct ScriptEnv<'a> {
    env: &'a Env,
    out_dir: PathBuf,
    tool: RefCell<Option<Result<Tool, CompilerProblem>>>,
}

impl<'a> ScriptEnv<'a> {
    pub(crate) fn new(env: &'a Env, out_dir: &Path) -> ScriptEnv<'a> {
        ScriptEnv {
            env,
            out_dir: out_dir.to_path_buf(),
            tool: RefCell::new(None),
        }
    }

    /// The target's C compiler, checked.
    pub(crate) fn tool(&self) -> Result<Tool, CompilerProblem> {
        let mut slot = self.tool.borrow_mut();
        if slot.is_none() {
            *slot = Some(compiler(self.env));
        }
        match slot.as_ref() {
            Some(result) => result.clone(),
            None => unreachable!("set above"),
        }
    }
}

impl BuildEnv for ScriptEnv<'_> {
    fn var(&self, name: &str) -> Option<String> {
        self.env.var_string(name)
    }

    fn cargo_var(&self, name: &str) -> Option<String> {
        self.env.cargo_var(name)
    }

    fn target(&self) -> TargetInfo {
        self.env.target()
    }

    fn list_dir(&self, dir: &str) -> Option<Vec<String>> {
        list_dir(dir)
    }

    fn preprocess(&self, source: &str, include_dirs: &[String]) -> Option<String> {
        let tool = self.tool().ok()?;
        let file = self.out_dir.join("probe-preprocess.c");
        fs::write(&file, source).ok()?;
        let mut cmd = tool.to_command();
        cmd.arg("-E")
            .args(include_dirs.iter().map(|d| format!("-I{d}")))
            .arg(&file);
        let out = cmd.output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn compiler_file_name(&self, name: &str) -> Option<String> {
        let tool = self.tool().ok()?;
        let out = tool
            .to_command()
            .arg(format!("-print-file-name={name}"))
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Path::new(&path)
            .is_absolute()
            .then(|| Path::new(&path).canonicalize().ok())
            .flatten()
            .map(|p| p.display().to_string())
    }

    fn pkg_config(&self, module: &str) -> Result<PkgConfigFound, String> {
        pkg_config_answer(module, false)
    }

    fn pkg_config_static(&self, module: &str) -> Result<PkgConfigFound, String> {
        pkg_config_answer(module, true)
    }
}

/// pkg-config's answer for `module` (with `--static` when `statik`). The pkg-config crate prints
/// `rerun-if-env-changed` for what it reads; it prints no link directive: whoever links (the
/// `-sys` crate, or [`setup`] for a [`super::System`] library) does.
fn pkg_config_answer(module: &str, statik: bool) -> Result<PkgConfigFound, String> {
    let library = pkg_config::Config::new()
        .cargo_metadata(false)
        .env_metadata(true)
        .statik(statik)
        .probe(module)
        .map_err(|e| e.to_string())?;
    // Plain loops: less code to compile in every build script than iterator chains.
    let text = |paths: &[PathBuf]| {
        let mut text = Vec::with_capacity(paths.len());
        for p in paths {
            text.push(p.display().to_string());
        }
        text
    };
    let mut found = PkgConfigFound::new(
        text(&library.include_paths),
        text(&library.link_paths),
        library.version,
    );
    found.libs = library.libs.clone();
    // `-pthread` is a flag, not a library: pkg-config's crate keeps it among the linker's
    // arguments.
    let mut pthread_flag = false;
    for args in &library.ld_args {
        pthread_flag |= args.iter().any(|a| a == "-pthread");
    }
    if pthread_flag && !found.libs.iter().any(|l| l == "pthread") {
        found.libs.push("pthread".into());
    }
    Ok(found)
}

/// The entries of a real directory, or `None` when it cannot be read.
pub(crate) fn list_dir(dir: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).ok()?.flatten() {
        if let Ok(name) = entry.file_name().into_string() {
            names.push(name);
        }
    }
    Some(names)
}

/// Finds and checks `library` for `needs` (all of them probes of it, asked for by the crate
/// `who`), then compiles and links each need's program from `compat_dir` in `out_dir`. `Err` is
/// the build error's text; warnings are printed.
pub(crate) fn setup(
    env: &Env,
    library: &'static Library,
    needs: &[Need],
    who: &str,
    compat_dir: &Path,
    out_dir: &Path,
    policy: &Policy<'_>,
) -> Result<LibraryFound, String> {
    let script_env = ScriptEnv::new(env, out_dir);
    let found = locate_with(library, needs, who, &script_env, policy.link)?;
    if let (Some((evidence, switch)), Some(by)) = (&found.bundled, policy.deny_bundled) {
        return Err(bundled_message(library, &found, evidence, switch, by));
    }
    for w in &found.warnings {
        crate::directive::warning(w);
    }
    let own_copy_unasked = found.own_copy
        && !library
            .own_copy_asked_by
            .iter()
            .any(|v| env.var(v).is_some());
    if own_copy_unasked && policy.own_copy_is_error {
        return Err(own_copy_message(library, &found, who, true));
    }
    let mut probes: Vec<(&Need, Vec<String>)> = Vec::new();
    for need in needs {
        let args = probe_args(need.probe, &found, &list_dir)
            .map_err(|m| m.asked_by(library.name, &need.askers).render())?;
        probes.push((need, args));
    }
    if let Some((first, _)) = probes.first() {
        let target = env.target();
        let tool = script_env
            .tool()
            .map_err(|problem| compiler_message(&problem, &target, first))?;
        for (need, args) in &probes {
            let source = compat_dir.join(need.probe.source);
            env.watch_path(&source);
            match probe(&tool, &source, out_dir, args) {
                Ok(()) => {}
                Err(ProbeError::Compiler(problem)) => {
                    return Err(compiler_message(&problem, &target, need));
                }
                Err(ProbeError::Link { command, output }) => {
                    let failure = ProbeFailure {
                        probe: need.probe,
                        located_by: found.located_by.clone(),
                        lib_dirs: found.lib_dirs.clone(),
                        include_dirs: found.include_dirs.clone(),
                        command,
                        output,
                    };
                    return Err(failure_message(&failure, need));
                }
            }
        }
    }
    let mut link: Vec<&str> = Vec::new();
    for need in needs {
        for l in need.probe.link {
            if !link.contains(l) {
                link.push(l);
            }
        }
    }
    if found.link_directives {
        for line in super::system::link_directives(&found, &link) {
            println!("{line}");
        }
    }
    if own_copy_unasked {
        crate::directive::warning(&own_copy_message(library, &found, who, false));
    }
    Ok(LibraryFound {
        library: library.name,
        version: found.version.clone(),
        located_by: found.located_by.clone(),
        lib_dirs: found
            .recorded_lib_dirs
            .clone()
            .unwrap_or_else(|| found.lib_dirs.clone()),
        static_link: found.link_mode == crate::clib::LinkMode::Static,
        include_dirs: found.include_dirs.clone(),
        linked_here: found.link_directives,
        links: found.link_names(&link),
        bundled: found.own_copy || found.bundled.is_some(),
    })
}

/// The `-sys` crate that located a library (`libz-sys` of `libz-sys (built by it: ...)`).
fn sys_crate(found: &Found) -> &str {
    found
        .located_by
        .split(' ')
        .next()
        .unwrap_or("its -sys crate")
}

/// A library's install lines, one per distribution: `Debian/Ubuntu: apt-get install ...; ...`.
fn install_lines(library: &Library) -> String {
    joined(library.install, "; ", &|(distro, line)| {
        format!("{distro}: {line}")
    })
}

/// The graph-wide policies a library's setup applies: the link policy (`static` or `dynamic`, and
/// who set it) and, when bundled copies are denied, who denied them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Policy<'a> {
    pub(crate) link: Option<(&'a str, &'a str)>,
    pub(crate) deny_bundled: Option<&'a crate::PolicyChoice>,
    /// A copy the `-sys` crate built unasked is an error, not a warning: the crate is non-local
    /// (`Build::is_non_local`), whose warnings Cargo shows to no one.
    pub(crate) own_copy_is_error: bool,
}

/// The build error for a copy of `library` built from source under `RUST_BACKEND_BUNDLED=deny`.
pub(crate) fn bundled_message(
    library: &Library,
    found: &Found,
    evidence: &str,
    switch: &str,
    denied: &crate::PolicyChoice,
) -> String {
    let (by, install) = (sys_crate(found), install_lines(library));
    let mut lines = vec![format!(
        "{by} built its own copy of {} ({evidence} is set), but {} allows only the system's libraries",
        library.name,
        denied.source("bundled")
    )];
    if install.is_empty() {
        lines.push(format!("  fix: {switch}"));
    } else {
        lines.push(format!(
            "  fix: {switch}, with {}'s development files installed ({install})",
            library.name
        ));
    }
    lines.push(format!(
        "  or allow bundled copies: {}",
        denied.undo("bundled", "allow")
    ));
    lines.join("\n")
}

/// The warning for a copy of `library` that its `-sys` crate built although nobody asked; with
/// `error`, the build error of a non-local crate `who` (Cargo would show the warning to no one).
pub(crate) fn own_copy_message(library: &Library, found: &Found, who: &str, error: bool) -> String {
    let install = install_lines(library);
    let asked = joined(library.own_copy_asked_by, " or ", &|v| format!("{v}=1"));
    let by = sys_crate(found);
    let mut lines = vec![format!(
        "{by} built its own copy of {} (it found no system {}): the binaries link that copy statically, not the system's",
        library.name, library.name
    )];
    if error {
        lines[0].push_str(&format!(
            "; {who} comes from a registry or git, whose build warnings Cargo shows to no one, so the substitution stops the build"
        ));
    }
    lines.push(format!(
        "  fix: install {}'s development files ({install}) and rebuild",
        library.name
    ));
    if !asked.is_empty() {
        lines.push(format!(
            "  or, if the copy is wanted, say so: {asked} (in the application's .cargo/config.toml [env], or the shell)"
        ));
    }
    lines.join("\n")
}

/// Why a probe did not pass.
#[derive(Debug)]
pub(crate) enum ProbeError {
    /// It cannot run for this target (no usable compiler).
    Compiler(CompilerProblem),
    /// It ran, and did not compile or link.
    Link {
        /// The command line.
        command: String,
        /// The last lines of the compiler's output.
        output: String,
    },
}

/// The target's C compiler ([`choose`]: the variables `cc` reads, else the GNU names), checked
/// (see [`check_compiler`]) before it is used.
pub(crate) fn compiler(env: &Env) -> Result<Tool, CompilerProblem> {
    let target = env.target();
    // Read only when a cross compiler's name is looked up, and not watched: `PATH` is where
    // programs are, not a setting of the build (the `cc` crate does not watch it either).
    let on_path = |name: &str| {
        env.cargo_var("PATH").map_or(false, |p| {
            std::env::split_paths(&p).any(|d| d.join(name).is_file())
        })
    };
    let tool = choose(&target, &|name| env.var_string(name), &on_path);
    check_compiler(&target, &tool.facts)?;
    Ok(tool)
}

/// Compiles and links `source` into `out_dir` (never runs it) with `args` (from
/// `probe_args`).
pub(crate) fn probe(
    tool: &Tool,
    source: &Path,
    out_dir: &Path,
    args: &[String],
) -> Result<(), ProbeError> {
    let exe = out_dir.join(
        source
            .file_stem()
            .map_or_else(|| OsString::from("probe"), |s| s.to_os_string()),
    );
    let mut cmd = tool.to_command();
    cmd.arg(source).arg("-o").arg(&exe).args(args);
    let command = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stdout));
            let lines: Vec<&str> = text.lines().collect();
            let output = lines[lines.len().saturating_sub(12)..].join("\n");
            Err(ProbeError::Link { command, output })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(ProbeError::Compiler(CompilerProblem::NotFound {
                path: tool.path().to_string(),
                reason: e.to_string(),
            }))
        }
        Err(e) => Err(ProbeError::Link {
            command,
            output: format!("could not run the compiler: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests;

//! The I/O of the OpenSSL checks (feature `build-script`): read what `openssl-sys` published and
//! the variables it reads, list directories, and compile and link each probe (never run it) with
//! the C compiler the `cc` crate picks for the target, like autoconf's `AC_CHECK_LIB`.
//!
//! Cross builds: the target comes from `TARGET`/`HOST`/`CARGO_CFG_TARGET_*`, the OpenSSL variables'
//! target-prefixed forms win (as in `openssl-sys`), and a probe that cannot work for the target
//! (no cross compiler, an MSVC-style compiler) stops the build saying so instead of guessing.

use std::ffi::OsString;
use std::path::Path;
use std::{fs, io};

use super::library::{Published, generic_args, generic_plan};
use super::message::{compiler_message, failure_message, static_message, version_refusal};
use super::{
    CompilerFacts, CompilerProblem, Library, LibraryFound, LinkMode, Need, OpensslFound,
    OpensslInputs, OpensslSysReport, OpensslVars, ProbeFailure, StaticProblem, Stop,
    check_compiler, compiler_variables, plan, search_paths,
};
use crate::env::Env;

/// What `openssl-sys` published (`DEP_OPENSSL_*`), the variables it reads (target-prefixed forms
/// first), and the target.
pub fn inputs(env: &Env) -> OpensslInputs {
    OpensslInputs {
        target: env.target(),
        vars: OpensslVars {
            dir: env.target_var_string("OPENSSL_DIR"),
            lib_dir: env.target_var_string("OPENSSL_LIB_DIR"),
            include_dir: env.target_var_string("OPENSSL_INCLUDE_DIR"),
            static_: env.target_var_string("OPENSSL_STATIC"),
            pkg_config_all_static: env.var("PKG_CONFIG_ALL_STATIC").is_some()
                && env.var("OPENSSL_DYNAMIC").is_none(),
            pkg_config_sysroot: pkg_config_var(env, "PKG_CONFIG_SYSROOT_DIR")
                .or_else(|| env.var_string("SYSROOT")),
        },
        report: OpensslSysReport {
            version_number: env.cargo_var("DEP_OPENSSL_VERSION_NUMBER"),
            libressl_version_number: env.cargo_var("DEP_OPENSSL_LIBRESSL_VERSION_NUMBER"),
            boringssl: env.cargo_var("DEP_OPENSSL_BORINGSSL").is_some(),
            awslc: env.cargo_var("DEP_OPENSSL_AWSLC").is_some(),
            vendored: env.cargo_var("DEP_OPENSSL_VENDORED").is_some(),
            root: env.cargo_var("DEP_OPENSSL_ROOT"),
            include: env.cargo_var("DEP_OPENSSL_INCLUDE"),
            conf: env.cargo_var("DEP_OPENSSL_CONF"),
        },
    }
}

/// A variable as the `pkg-config` crate reads it: `<NAME>_<target>`, `<NAME>_<target_with_underscores>`,
/// `TARGET_<NAME>` (cross) or `HOST_<NAME>`, then `<NAME>`.
fn pkg_config_var(env: &Env, name: &str) -> Option<String> {
    let target = env.target();
    let kind = if target.is_cross() { "TARGET" } else { "HOST" };
    [
        format!("{name}_{}", target.triple),
        format!("{name}_{}", target.triple.replace('-', "_")),
        format!("{kind}_{name}"),
        name.to_string(),
    ]
    .iter()
    .find_map(|n| env.var_string(n))
}

/// The entries of a real directory, or `None` when it cannot be read.
pub fn list_dir(dir: &str) -> Option<Vec<String>> {
    let entries = fs::read_dir(dir).ok()?;
    Some(
        entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect(),
    )
}

/// Checks the OpenSSL `openssl-sys` found for `needs` (all of them probes of [`super::OPENSSL`]): the version (an accepted but untested one
/// prints a warning), static or dynamic, and a compile-and-link probe per need from
/// `compat_dir`, built in `out_dir`. `Err` is the build error's text.
pub fn setup(
    env: &Env,
    needs: &[Need],
    compat_dir: &Path,
    out_dir: &Path,
) -> Result<OpensslFound, String> {
    let inputs = inputs(env);
    let plan = match plan(&inputs, needs, &list_dir) {
        Ok(plan) => plan,
        Err(stop) => {
            let paths = search_paths(&inputs, &list_dir);
            return Err(match stop {
                Stop::Version(reason) => version_refusal(&reason, &paths, &inputs.report, needs),
                Stop::Static(StaticProblem::PkgConfigSystemDir { .. }) => {
                    let (libdir, includedir) = compiler(env)
                        .map(|tool| system_dirs(&tool, out_dir))
                        .unwrap_or_default();
                    let includedir = inputs.report.include.clone().or(includedir);
                    let problem = StaticProblem::PkgConfigSystemDir { libdir, includedir };
                    static_message(&problem, &paths, needs)
                }
                Stop::Static(problem) => static_message(&problem, &paths, needs),
            });
        }
    };
    if let Some(w) = &plan.warning {
        crate::script::warning(w);
    }
    let located_by = plan.paths.location.to_string();
    let probes: Vec<(&Need, &[String])> = needs
        .iter()
        .zip(&plan.probes)
        .map(|(need, (_, args))| (need, args.as_slice()))
        .collect();
    run_probes(
        env,
        &probes,
        compat_dir,
        out_dir,
        &located_by,
        &plan.paths.lib_dirs,
        &plan.paths.include_dirs,
    )?;
    Ok(plan.found())
}

/// What a [`super::Finder::Generic`] library's `-sys` crate published (`DEP_<LINKS>_INCLUDE`,
/// `DEP_<LINKS>_ROOT`).
pub fn published(env: &Env, library: &Library) -> Published {
    Published {
        include: env.cargo_var(&format!("DEP_{}_INCLUDE", library.links)),
        root: env.cargo_var(&format!("DEP_{}_ROOT", library.links)),
    }
}

/// Probes a [`super::Finder::Generic`] library for `needs` (all of them probes of `library`): the
/// directories and link mode from what its `-sys` crate published, then a compile-and-link
/// program per need from `compat_dir`, built in `out_dir`. `Err` is the build error's text.
pub fn generic_setup(
    env: &Env,
    library: &'static Library,
    needs: &[Need],
    compat_dir: &Path,
    out_dir: &Path,
) -> Result<LibraryFound, String> {
    let mut link: Vec<&str> = Vec::new();
    for need in needs {
        for l in need.probe.link {
            if !link.contains(l) {
                link.push(l);
            }
        }
    }
    let plan = generic_plan(library, &published(env, library), &link, &list_dir);
    let args: Vec<Vec<String>> = needs
        .iter()
        .map(|n| generic_args(n.probe, &plan, &list_dir))
        .collect();
    let probes: Vec<(&Need, &[String])> = needs
        .iter()
        .zip(&args)
        .map(|(need, args)| (need, args.as_slice()))
        .collect();
    run_probes(
        env,
        &probes,
        compat_dir,
        out_dir,
        &plan.located_by,
        &plan.lib_dirs,
        &plan.include_dirs,
    )?;
    let own_copy = published(env, library).root.is_some();
    if own_copy
        && !library
            .own_copy_asked_by
            .iter()
            .any(|v| env.var(v).is_some())
    {
        crate::script::warning(&own_copy_warning(library));
    }
    Ok(LibraryFound {
        library: library.name,
        located_by: plan.located_by,
        // A copy the -sys crate built lies in its OUT_DIR, which would make the binary depend on
        // where it was built: not recorded.
        lib_dirs: if own_copy {
            vec![format!("{}'s OUT_DIR", library.sys_crate)]
        } else {
            plan.lib_dirs
        },
        static_link: plan.mode == LinkMode::Static,
    })
}

/// The warning for a copy of `library` that its `-sys` crate built although nobody asked.
pub fn own_copy_warning(library: &Library) -> String {
    let install = library
        .install
        .iter()
        .map(|(distro, line)| format!("{distro}: {line}"))
        .collect::<Vec<_>>()
        .join("; ");
    let asked = library
        .own_copy_asked_by
        .iter()
        .map(|v| format!("{v}=1"))
        .collect::<Vec<_>>()
        .join(" or ");
    format!(
        "{} built its own copy of {} (it found no system {}): the binaries link that copy statically, not the system's\n  fix: install {}'s development files ({install}) and rebuild, or, if the copy is wanted, say so: {asked}",
        library.sys_crate, library.name, library.name, library.name
    )
}

/// Compiles and links each need's program with its arguments; the first failure is the build
/// error's text.
fn run_probes(
    env: &Env,
    probes: &[(&Need, &[String])],
    compat_dir: &Path,
    out_dir: &Path,
    located_by: &str,
    lib_dirs: &[String],
    include_dirs: &[String],
) -> Result<(), String> {
    let Some((first, _)) = probes.first() else {
        return Ok(());
    };
    let target = env.target();
    let tool = compiler(env).map_err(|problem| compiler_message(&problem, &target, first))?;
    for (need, args) in probes {
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
                    located_by: located_by.to_string(),
                    lib_dirs: lib_dirs.to_vec(),
                    include_dirs: include_dirs.to_vec(),
                    command,
                    output,
                };
                return Err(failure_message(&failure, need));
            }
        }
    }
    Ok(())
}

/// Why a probe did not pass.
#[derive(Debug)]
pub enum ProbeError {
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

/// The C compiler the `cc` crate picks for the target, checked (see [`check_compiler`]) before it
/// is used.
pub fn compiler(env: &Env) -> Result<cc::Tool, CompilerProblem> {
    let target = env.target();
    let named_by = compiler_variables(&target)
        .into_iter()
        .find(|name| env.var(name).is_some_and(|v| !v.is_empty()));
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .cargo_warnings(false)
        .opt_level(0)
        .debug(false);
    if !target.triple.is_empty() {
        build.target(&target.triple);
    }
    if !target.host.is_empty() {
        build.host(&target.host);
    }
    let tool = build
        .try_get_compiler()
        .map_err(|e| CompilerProblem::NoCompiler {
            reason: e.to_string(),
        })?;
    let facts = CompilerFacts {
        path: tool.path().display().to_string(),
        msvc_like: tool.is_like_msvc(),
        clang_like: tool.is_like_clang(),
        named_by,
    };
    check_compiler(&target, &facts)?;
    Ok(tool)
}

/// Compiles and links `source` into `out_dir` (never runs it) with `args` (from
/// [`super::probe_args`]).
pub fn probe(
    tool: &cc::Tool,
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
                path: tool.path().display().to_string(),
                reason: e.to_string(),
            }))
        }
        Err(e) => Err(ProbeError::Link {
            command,
            output: format!("could not run the compiler: {e}"),
        }),
    }
}

/// Where the compiler itself finds `libcrypto.so` and `openssl/opensslv.h` (its default search
/// paths, where pkg-config's system OpenSSL is), to name them in a fix.
fn system_dirs(tool: &cc::Tool, out_dir: &Path) -> (Option<String>, Option<String>) {
    let stdout = |cmd: &mut std::process::Command| {
        cmd.output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let lib = stdout(tool.to_command().arg("-print-file-name=libcrypto.so"))
        .map(|s| s.trim().to_string())
        .filter(|p| Path::new(p).is_absolute())
        .and_then(|p| Path::new(&p).parent()?.canonicalize().ok())
        .map(|d| d.display().to_string());
    let source = out_dir.join("flagsplit-opensslv.c");
    let include = fs::write(&source, "#include <openssl/opensslv.h>\n")
        .ok()
        .and_then(|()| stdout(tool.to_command().arg("-E").arg(&source)))
        .and_then(|text| {
            text.lines().find_map(|line| {
                let path = line.strip_prefix("# ")?.split('"').nth(1)?;
                path.strip_suffix("/openssl/opensslv.h").map(String::from)
            })
        });
    (lib, include)
}

#[cfg(test)]
mod tests;

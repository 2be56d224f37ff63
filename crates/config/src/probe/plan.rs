//! The decisions before the compiler runs: where a library is and whether its version is
//! accepted ([`locate`]), what a probe passes to the compiler ([`probe_args`]), whether a source
//! feature is meaningful ([`source_feature_check`]), and whether the target's C compiler can run
//! a probe at all ([`check_compiler`]).

use super::compiler::file_name;
use super::message;
use super::need::{CompilerFacts, CompilerProblem, ListDir, Need, askers, join};
use crate::clib::{
    BuildEnv, FindContext, Found, Library, LinkMode, Message, Probe, TargetInfo, VersionSource,
    version_from_preprocessed, version_program,
};

/// Finds `library` for `needs` (all of them probes of it) and checks its version: the [`Found`]
/// the probes use, or the build error's text.
#[cfg(test)]
pub(crate) fn locate(
    library: &'static Library,
    needs: &[Need],
    who: &str,
    env: &dyn BuildEnv,
) -> Result<Found, String> {
    locate_with(library, needs, who, env, None)
}

/// [`locate`] under a graph-wide link policy (`static` or `dynamic`, and who set it).
pub(crate) fn locate_with(
    library: &'static Library,
    needs: &[Need],
    who: &str,
    env: &dyn BuildEnv,
    link_policy: Option<(&str, &str)>,
) -> Result<Found, String> {
    let mut link: Vec<&'static str> = Vec::new();
    for need in needs {
        for l in need.probe.link {
            if !link.contains(l) {
                link.push(l);
            }
        }
    }
    let cx = FindContext {
        env,
        declared_by: who,
        link: &link,
        link_policy,
    };
    let mut found = library
        .finder
        .find(library, &cx)
        .map_err(|m| m.asked_by(library.name, askers(needs)).render())?;
    if let Some(check) = &library.version {
        let version = match check.read.0 {
            VersionSource::Found => found.version.clone(),
            VersionSource::Metadata(variable) => env.cargo_var(variable),
            VersionSource::Macros { header, macros } => env
                .preprocess(&version_program(header, macros), &found.include_dirs)
                .and_then(|out| version_from_preprocessed(&out)),
        };
        let verdict = match (&version, check.read.0) {
            (Some(v), _) => check.judge(library.name, v, who),
            // The header itself may be what is missing: say that, not that a macro is.
            (None, VersionSource::Macros { header, .. })
                if env
                    .preprocess(&format!("#include <{header}>\n"), &found.include_dirs)
                    .is_none() =>
            {
                let searched = if found.include_dirs.is_empty() {
                    "the C compiler's default directories".to_string()
                } else {
                    format!(
                        "{}, and the C compiler's default directories",
                        found.include_dirs.join(", ")
                    )
                };
                Err(format!(
                    "{}'s header {header} was not found (searched {searched}), so nothing of {} can be compiled",
                    library.name, library.name
                ))
            }
            (None, _) => Err(format!(
                "{}'s version could not be read ({}), so the minimum {} cannot be checked",
                library.name, check.read, check.minimum
            )),
        };
        match verdict {
            Ok(warning) => found.warnings.extend(warning),
            Err(reason) => {
                return Err(message::version_message(library, &reason, &found)
                    .asked_by(library.name, askers(needs))
                    .render());
            }
        }
        found.version = version;
    }
    Ok(found)
}

/// What a probe passes to the compiler after the source: `-I` and `-L` directories, then the
/// libraries — `-l<name>` for a dynamic build, the archives' paths and the system libraries for
/// a static one (the paths work with every Unix linker, where `-Bstatic` does not).
pub(crate) fn probe_args(
    probe: &Probe,
    found: &Found,
    list: &impl ListDir,
) -> Result<Vec<String>, Message> {
    // Plain loops: less code to compile in every build script than iterator chains.
    let mut link: Vec<&str> = Vec::new();
    match &found.libs {
        Some(libs) => {
            for lib in libs {
                link.push(lib);
            }
        }
        None => link.extend_from_slice(probe.link),
    }
    let mut args: Vec<String> = Vec::new();
    for d in &found.include_dirs {
        args.push(format!("-I{d}"));
    }
    match found.link_mode {
        LinkMode::Dynamic => {
            for d in &found.lib_dirs {
                args.push(format!("-L{d}"));
            }
            for l in &link {
                args.push(format!("-l{l}"));
            }
        }
        LinkMode::Static => {
            for lib in &link {
                let file = format!("lib{lib}.a");
                let mut dir = None;
                for d in &found.lib_dirs {
                    if list(d).map_or(false, |names| names.contains(&file)) {
                        dir = Some(d);
                        break;
                    }
                }
                match dir {
                    Some(dir) => args.push(join(dir, &file)),
                    None => return Err(message::missing_archive(probe.library, &file, found)),
                }
            }
            args.extend_from_slice(&found.system_libs);
        }
    }
    Ok(args)
}

/// A source feature of `library` (see [`Library::source_features`]) that is on: with no provider
/// linking the library compiled, an error (it would change nothing); with none selected, a
/// warning (the library is built for nothing). `features_on` names every provider feature on;
/// `compiling` those among them that compile a provider linking the library; `linking` every
/// provider feature that would.
pub(crate) fn source_feature_check(
    library: &Library,
    feature: &str,
    features_on: &[&str],
    compiling: &[&str],
    linking: &[&str],
    selected: bool,
) -> Result<Option<String>, String> {
    let name = library.name;
    if compiling.is_empty() {
        let on = crate::model::names_or_none(features_on);
        let example = linking.first().map_or(String::new(), |f| {
            format!(", for example `--features {feature},{f}`")
        });
        return Err(Message::new(format!(
            "feature `{feature}` is on, but no {name} provider is compiled (features on: {on} {feature})"
        ))
        .tried(format!("{feature} only says where {name} comes from; it selects nothing by itself"))
        .fix(format!(
            "add the features you want it for ({}){example}, or drop {feature}",
            linking.join(", ")
        ))
        .render());
    }
    if !selected {
        return Ok(Some(format!(
            "feature `{feature}` says where {name} comes from, but no selected provider uses {name} (the {} providers are compiled, not selected): the binaries link none of it",
            compiling.join(", ")
        )));
    }
    Ok(None)
}

/// Checks, before running it, that `compiler` can compile and link a probe for `target`.
pub(crate) fn check_compiler(
    target: &TargetInfo,
    compiler: &CompilerFacts,
) -> Result<(), CompilerProblem> {
    if compiler.msvc_like || (target.is_msvc() && compiler.named_by.is_none()) {
        return Err(CompilerProblem::Msvc {
            path: compiler.path.clone(),
        });
    }
    if target.is_cross()
        && compiler.named_by.is_none()
        && !compiler.clang_like
        && matches!(file_name(&compiler.path), "cc" | "gcc" | "c99")
    {
        return Err(CompilerProblem::NoCrossCompiler {
            path: compiler.path.clone(),
        });
    }
    Ok(())
}

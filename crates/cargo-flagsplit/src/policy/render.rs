//! Each finding of a policy check as a diagnostic: what broke the rule, the rule as a snippet,
//! who chose what broke it (the origin of a selection, the crate that linked a library), and the
//! fix for that origin.

use super::eval::{Finding, NameKind};
use super::{Choice, LibraryRule, SelectionRule};
use crate::diag::{Code, Diagnostic};
use crate::model::{CarriedLibrary, Copy, CrateReport, Executable, Facility, Held, LinkMode};
use flagsplit_config::graph::Setting;

/// `tls-a v0.1.0`, with ` (host copy)` for a build-dependency copy under `--target`.
pub fn crate_label(c: &CrateReport) -> String {
    match c.build {
        Copy::Target => format!("{} v{}", c.name, c.version),
        Copy::Host => format!("{} v{} (host copy)", c.name, c.version),
    }
}

/// The graph-wide variable of kind `kind` (`RUST_BACKEND_SHA1_UNSAFE`).
fn kind_variable(kind: &str) -> String {
    Setting::from_key(kind).map_or_else(
        || {
            format!(
                "{}_{}",
                flagsplit_config::graph::PREFIX,
                kind.to_uppercase()
            )
        },
        Setting::variable,
    )
}

/// How to change the selection, given where it came from.
fn fix_for(f: &Facility, alternatives: &[&str]) -> String {
    let others = if alternatives.is_empty() {
        "a provider not compiled in this build (turn its feature on)".to_string()
    } else {
        format!("<one of: {}>", alternatives.join(", "))
    };
    let own = format!("{}={others}", f.variable);
    // The origin's parts (schema 2; an older record is upgraded when read).
    let name = f.origin_name.as_deref().unwrap_or(&f.origin);
    let at = f.origin_at.as_deref().unwrap_or(&f.origin);
    match f.origin_kind.as_str() {
        "graph-variable" => format!(
            "{name} chose it for every facility of kind {}: change or unset it, or set {own} for this crate alone",
            f.kind.as_deref().unwrap_or("?")
        ),
        "graph-file" => format!(
            "the graph-wide file entry at {at} chose it: change or remove it, or set {own} for this crate alone"
        ),
        "variable" => format!("{name} chose it: set {own} instead"),
        "file" => format!("the config file entry at {at} chose it: change it, or set {own}"),
        "feature" => format!(
            "the application's feature {name} chose it: turn that feature off, or set {own}"
        ),
        _ => match &f.kind {
            Some(k) => format!(
                "it is the default: set {own}, or {}=<shared name> for every facility of kind {k}",
                kind_variable(k)
            ),
            None => format!("it is the default: set {own}"),
        },
    }
}

fn with_kind(f: &Facility) -> String {
    f.kind
        .as_ref()
        .map(|k| format!(" (kind {k})"))
        .unwrap_or_default()
}

/// `libcrypto (static, libcrypto.a)`.
fn describe(lib: &CarriedLibrary) -> String {
    let mode = match (lib.link, lib.bundled) {
        (LinkMode::Static, true) => "static, bundled".to_string(),
        (mode, _) => mode.as_str().to_string(),
    };
    format!("lib{} ({mode}, {})", lib.name, lib.file)
}

/// The notes of a library finding: how it was seen, who linked it, found it, selected it.
fn library_notes(mut d: Diagnostic, rule: &LibraryRule, lib: &CarriedLibrary) -> Diagnostic {
    let held = match lib.held {
        Held::Yes => lib.evidence.clone(),
        Held::Unknown => format!("not seen: {}", lib.evidence),
    };
    d = d.note("carried", held);
    if let Some(a) = &lib.archive {
        d = d.note("archive", a.clone());
    }
    if lib.linked_by.is_empty() {
        d = d.note(
            "linked by",
            "no build script: the toolchain's own link line",
        );
    }
    for l in &lib.linked_by {
        d = d.note(
            "linked by",
            format!(
                "{} v{}'s build script (rustc-link-lib={})",
                l.package, l.version, l.directive
            ),
        );
    }
    for f in &lib.found_by {
        d = d.note(
            "found by",
            format!(
                "{} v{}: {}{}, located by {}",
                f.package,
                f.version,
                f.library,
                f.library_version
                    .as_ref()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default(),
                f.located_by
            ),
        );
    }
    for s in &lib.selected_by {
        d = d.note(
            "selected by",
            format!(
                "{} v{}: `{}` = {} (from {})",
                s.package, s.version, s.facility, s.provider, s.origin
            ),
        );
    }
    if let Some(r) = &rule.reason {
        d = d.note("reason", r.clone());
    }
    d
}

/// The crates that linked a library, for a fix: `openssl-sys`.
fn linkers(lib: &CarriedLibrary) -> String {
    let mut names: Vec<&str> = lib.linked_by.iter().map(|l| l.package.as_str()).collect();
    names.dedup();
    if names.is_empty() {
        "the toolchain".to_string()
    } else {
        names.join(", ")
    }
}

fn library_finding(
    code: Code,
    rule: &LibraryRule,
    exe: &Executable,
    lib: &CarriedLibrary,
) -> Diagnostic {
    let what = describe(lib);
    let (title, span, label, fix) = match code {
        Code::LibraryNotAllowed => {
            let only = rule.only.as_deref().unwrap_or_default();
            let allowed = if only.is_empty() {
                "which the policy lets no executable carry".to_string()
            } else {
                let names: Vec<&str> = only.iter().map(|o| o.value.as_str()).collect();
                format!("which only {} may carry", names.join(", "))
            };
            let fix = if lib.selected_by.is_empty() {
                format!(
                    "stop {} linking it into {}, or add \"{}\" to `only`",
                    linkers(lib),
                    exe.name,
                    exe.name
                )
            } else {
                format!(
                    "select providers that do not link lib{} for {} ({}), or add \"{}\" to `only`",
                    lib.name,
                    exe.name,
                    lib.selected_by
                        .iter()
                        .map(|s| format!("{}=<another provider>", s.variable))
                        .collect::<Vec<_>>()
                        .join(", "),
                    exe.name
                )
            };
            (
                format!("executable `{}` carries {what}, {allowed}", exe.name),
                rule.library.span.clone(),
                "this library",
                fix,
            )
        }
        Code::LibraryLinkMode => {
            let allowed = rule.link.as_ref().map_or(LinkMode::Dynamic, |l| l.value);
            let span = rule
                .link
                .as_ref()
                .map_or(rule.library.span.clone(), |l| l.span.clone());
            let fix = match allowed {
                LinkMode::Dynamic => format!(
                    "make {} link lib{} dynamically: RUST_BACKEND_LINK=dynamic (or unset) for the libraries flagsplit-config crates find, the -sys crate's own switch (OPENSSL_STATIC, LIBZ_SYS_STATIC) for the others",
                    linkers(lib),
                    lib.name
                ),
                LinkMode::Static => format!(
                    "make {} link lib{} statically: RUST_BACKEND_LINK=static for the libraries flagsplit-config crates find, the -sys crate's own switch for the others",
                    linkers(lib),
                    lib.name
                ),
            };
            (
                format!(
                    "executable `{}` carries {what}, where the policy allows it only {}",
                    exe.name,
                    match allowed {
                        LinkMode::Dynamic => "as a shared library",
                        LinkMode::Static => "as an archive",
                    }
                ),
                span,
                "the link mode allowed",
                fix,
            )
        }
        _ => {
            let span = rule
                .bundled
                .as_ref()
                .map_or(rule.library.span.clone(), |b| b.span.clone());
            let switches: Vec<String> = lib
                .linked_by
                .iter()
                .map(
                    |l| match flagsplit_config::probe::system_switch(&l.package) {
                        Some(s) => format!("{}: {s}", l.package),
                        None => format!("{}: see its documentation", l.package),
                    },
                )
                .collect();
            (
                format!(
                    "executable `{}` carries {what}, a copy {} built, where the policy allows only the system's",
                    exe.name,
                    linkers(lib)
                ),
                span,
                "no bundled copy allowed",
                format!(
                    "make it use the system's library ({}), with that library's development files installed",
                    switches.join("; ")
                ),
            )
        }
    };
    let d = Diagnostic::error(code, title)
        .at(span, label)
        .within(rule.table.clone());
    library_notes(d, rule, lib).note("fix", fix)
}

/// A `[[deny]]` or `[[require]]` finding: `<crate>: facility `f` (kind k) selects p<rest>`, the
/// rule's choice labelled, the selection's origin, the rule's reason and the fix.
fn selection_finding(
    code: Code,
    rest: String,
    (rule, krate, f): (&SelectionRule, &CrateReport, &Facility),
    label: &str,
    fix: String,
) -> Diagnostic {
    let mut d = Diagnostic::error(
        code,
        format!(
            "{}: facility `{}`{} selects {}{rest}",
            crate_label(krate),
            f.name,
            with_kind(f),
            f.selected
        ),
    )
    .at(rule.choice.span.clone(), label)
    .within(rule.table.clone())
    .note("origin", f.origin.clone());
    if let Some(r) = &rule.reason {
        d = d.note("reason", r.clone());
    }
    d.note("fix", fix)
}

/// The diagnostic of one finding.
pub fn diagnostic(finding: &Finding<'_>) -> Diagnostic {
    match finding {
        Finding::Denied {
            rule,
            krate,
            facility: f,
        } => {
            let alternatives: Vec<&str> = f
                .providers
                .iter()
                .filter(|p| p.compiled && p.name != f.selected && !rule.choice.value.is(p))
                .map(|p| p.name.as_str())
                .collect();
            let answers = match (&rule.choice.value, f.selected_shared()) {
                (Choice::Shared(_), Some(s)) if s != f.selected => format!(" (answers to {s})"),
                _ => String::new(),
            };
            selection_finding(
                Code::DeniedProvider,
                format!("{answers}, which the policy denies"),
                (rule, krate, f),
                "denied here",
                fix_for(f, &alternatives),
            )
        }
        Finding::Required {
            rule,
            krate: c,
            facility: f,
        } => {
            let compiled: Vec<&str> = f
                .providers
                .iter()
                .filter(|p| p.compiled && rule.choice.value.is(p))
                .map(|p| p.name.as_str())
                .collect();
            let want = match &rule.choice.value {
                Choice::Provider(p) => p.clone(),
                Choice::Shared(s) => format!("a provider answering to {s}"),
                Choice::Property(p) => format!("a provider with the property {p}"),
            };
            let fix = if compiled.is_empty() {
                let features: Vec<String> = f
                    .providers
                    .iter()
                    .filter(|p| rule.choice.value.is(p))
                    .filter_map(|p| p.feature.as_ref().map(|x| format!("`{x}` ({})", p.name)))
                    .collect();
                if features.is_empty() {
                    format!("{} has no such provider for `{}`", c.name, f.name)
                } else if c.options.role == "application" {
                    format!(
                        "no such provider is compiled: turn on {}'s feature {} (an application's provider feature makes its provider the default)",
                        c.name,
                        features.join(" or ")
                    )
                } else {
                    format!(
                        "no such provider is compiled: turn on {}'s feature {} where the application depends on it, then select it with {}",
                        c.name,
                        features.join(" or "),
                        f.variable
                    )
                }
            } else {
                let mut s = format!("select it: {}={}", f.variable, compiled[0]);
                if let (Choice::Shared(sh), Some(k)) = (&rule.choice.value, &f.kind) {
                    s.push_str(&format!(
                        ", or {}={sh} for every facility of kind {k}",
                        kind_variable(k)
                    ));
                }
                s
            };
            selection_finding(
                Code::RequiredProvider,
                format!(", where the policy requires {want}"),
                (rule, c, f),
                "required here",
                fix,
            )
        }
        Finding::NotAllowed { rule, exe, lib } => {
            library_finding(Code::LibraryNotAllowed, rule, exe, lib)
        }
        Finding::LinkMode { rule, exe, lib } => {
            library_finding(Code::LibraryLinkMode, rule, exe, lib)
        }
        Finding::Bundled { rule, exe, lib } => {
            library_finding(Code::LibraryBundled, rule, exe, lib)
        }
        Finding::Unknown {
            what,
            field,
            table,
            near,
            known,
        } => {
            let whom = match what {
                NameKind::Crate => "no crate of this build, nor of Cargo.lock, has that name",
                NameKind::Provider => {
                    "no facility of this build has a provider of that name, nor is it a shared name"
                }
                NameKind::Property => {
                    "no provider of this build's facilities declares that property"
                }
                NameKind::Library => {
                    "no executable of this build carries it, and no crate of it links or declares it"
                }
                NameKind::Executable => "the workspace has no executable of that name",
            };
            let mut d = Diagnostic::error(
                Code::UnknownName,
                format!("`{} = {:?}`: {whom}", what.key(), field.value),
            )
            .at(field.span.clone(), format!("unknown {}", what.key()))
            .within((*table).clone());
            if let Some(n) = near {
                d = d.note("help", format!("did you mean `{n}`?"));
            }
            if !known.is_empty() {
                let mut shown: Vec<&str> = known.iter().take(12).map(String::as_str).collect();
                if known.len() > shown.len() {
                    shown.push("...");
                }
                d = d.note("note", format!("known here: {}", shown.join(", ")));
            }
            d.note(
                "fix",
                "correct the name: a rule that can match nothing would hold for every build",
            )
        }
        Finding::Absent {
            what,
            field,
            table,
            why,
        } => Diagnostic::warning(
            Code::AbsentName,
            format!(
                "`{} = {:?}` matches nothing in this build: {why}",
                what.key(),
                field.value
            ),
        )
        .at(field.span.clone(), "absent here")
        .within((*table).clone()),
        Finding::NoMatch { rule } => Diagnostic::error(
            Code::NoMatch,
            format!(
                "[[{}]] {}: no facility of this build matches it, so it checks nothing",
                rule.which.table(),
                rule.describe()
            ),
        )
        .at(rule.choice.span.clone(), "matches no facility")
        .within(rule.table.clone())
        .note(
            "fix",
            "check the build the rule is for (its features, its --package), or narrow the policy to this build: fix or remove the rule's kind or crate",
        ),
    }
}

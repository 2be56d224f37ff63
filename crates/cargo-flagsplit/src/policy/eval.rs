//! Checking a policy against a build: what breaks each rule, and each name a rule gives that
//! matches nothing here (unknown to the build and to its vocabulary: an error; known but absent
//! from this configuration: a warning).

use super::{Field, LibraryRule, Policy, SelectionRule, Which};
use crate::model::{CarriedLibrary, CrateReport, Executable, Facility, Report, soname_matches};
use crate::source::Span;
use flagsplit_config::closest;
use flagsplit_config::graph::SHARED_PROVIDERS;
use std::collections::BTreeSet;

/// The names a rule may give beyond what this build holds.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    /// The packages compiled in this build.
    pub built: BTreeSet<String>,
    /// Every package `Cargo.lock` lists.
    pub locked: BTreeSet<String>,
    /// Every `bin` target of the workspace.
    pub bins: BTreeSet<String>,
}

/// What a rule gives that matches nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Crate,
    Provider,
    Property,
    Library,
    Executable,
}

impl NameKind {
    pub fn key(self) -> &'static str {
        match self {
            NameKind::Crate => "crate",
            NameKind::Provider => "provider",
            NameKind::Property => "property",
            NameKind::Library => "library",
            NameKind::Executable => "only",
        }
    }
}

/// One finding of a policy check.
#[derive(Clone, Debug)]
pub enum Finding<'a> {
    Denied {
        rule: &'a SelectionRule,
        krate: &'a CrateReport,
        facility: &'a Facility,
    },
    Required {
        rule: &'a SelectionRule,
        krate: &'a CrateReport,
        facility: &'a Facility,
    },
    /// An executable not in `only` carries the library.
    NotAllowed {
        rule: &'a LibraryRule,
        exe: &'a Executable,
        lib: &'a CarriedLibrary,
    },
    /// The library is in a link mode `link` does not allow.
    LinkMode {
        rule: &'a LibraryRule,
        exe: &'a Executable,
        lib: &'a CarriedLibrary,
    },
    /// A bundled copy where `bundled = false`.
    Bundled {
        rule: &'a LibraryRule,
        exe: &'a Executable,
        lib: &'a CarriedLibrary,
    },
    /// A name neither this build nor its vocabulary knows (an error).
    Unknown {
        what: NameKind,
        field: Field<String>,
        table: &'a Span,
        near: Option<String>,
        known: Vec<String>,
    },
    /// A name known but absent from this build (a warning).
    Absent {
        what: NameKind,
        field: Field<String>,
        table: &'a Span,
        why: String,
    },
    /// A `[[require]]` rule that applies to no facility, or a `[[deny]]` rule's filter that
    /// matches none (a warning).
    NoMatch { rule: &'a SelectionRule },
}

/// Whether a selection rule applies to facility `f` of crate `c` (its `kind` and `crate`).
pub fn applies(rule: &SelectionRule, c: &CrateReport, f: &Facility) -> bool {
    rule.kind
        .as_ref()
        .is_none_or(|k| f.kind.as_deref() == Some(k.value.as_str()))
        && rule
            .krate
            .as_ref()
            .is_none_or(|n| n.value == c.name || n.value == c.options.crate_name)
}

/// Every library name this build or its tables know, as `lib<name>`.
fn library_names(report: &Report) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in &report.executables {
        out.extend(e.libraries.iter().map(|l| format!("lib{}", l.name)));
        out.extend(e.not_carried.iter().map(|l| format!("lib{}", l.name)));
    }
    for c in &report.crates {
        for l in &c.options.libraries {
            out.extend(l.links.iter().map(|n| format!("lib{n}")));
        }
        for f in &c.options.facilities {
            for p in &f.providers {
                out.extend(p.links.iter().cloned());
            }
        }
    }
    out
}

/// Checks `policy` against `report`.
pub fn evaluate<'a>(
    policy: &'a Policy,
    report: &'a Report,
    vocab: &Vocabulary,
) -> Vec<Finding<'a>> {
    let mut out = Vec::new();
    let tables: BTreeSet<&str> = report
        .crates
        .iter()
        .flat_map(|c| [c.name.as_str(), c.options.crate_name.as_str()])
        .collect();
    let providers: BTreeSet<&str> = report
        .facilities()
        .flat_map(|(_, f)| f.providers.iter().map(|p| p.name.as_str()))
        .chain(SHARED_PROVIDERS.iter().copied())
        .collect();
    for rule in &policy.selections {
        let before = out.len();
        if let Some(k) = &rule.krate
            && !tables.contains(k.value.as_str())
        {
            if vocab.built.contains(&k.value) {
                out.push(Finding::Absent {
                    what: NameKind::Crate,
                    field: k.clone(),
                    table: &rule.table,
                    why: format!(
                        "{} is in this build but uses no flagsplit-config: it has no facility",
                        k.value
                    ),
                });
            } else if vocab.locked.contains(&k.value) {
                out.push(Finding::Absent {
                    what: NameKind::Crate,
                    field: k.clone(),
                    table: &rule.table,
                    why: format!("{} is in Cargo.lock but not in this build", k.value),
                });
            } else {
                let known: Vec<String> = tables
                    .iter()
                    .map(|s| s.to_string())
                    .chain(vocab.locked.iter().cloned())
                    .collect();
                out.push(Finding::Unknown {
                    what: NameKind::Crate,
                    field: k.clone(),
                    table: &rule.table,
                    near: closest(&k.value, known.iter().map(String::as_str)).map(str::to_string),
                    known: tables.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        if let super::Choice::Property(p) = &rule.choice.value {
            let known: BTreeSet<&str> = report
                .facilities()
                .flat_map(|(_, f)| f.providers.iter())
                .flat_map(|p| p.properties.iter().map(String::as_str))
                .collect();
            if !known.contains(p.as_str()) {
                out.push(Finding::Unknown {
                    what: NameKind::Property,
                    field: Field {
                        value: p.clone(),
                        span: rule.choice.span.clone(),
                    },
                    table: &rule.table,
                    near: closest(p, known.iter().copied()).map(str::to_string),
                    known: known.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        if let super::Choice::Provider(p) = &rule.choice.value {
            // With a crate named, its own providers; else any table's.
            let scope: Vec<&str> = match &rule.krate {
                Some(k) if tables.contains(k.value.as_str()) => report
                    .crates
                    .iter()
                    .filter(|c| c.name == k.value || c.options.crate_name == k.value)
                    .flat_map(|c| c.options.facilities.iter())
                    .flat_map(|f| f.providers.iter().map(|p| p.name.as_str()))
                    .collect(),
                _ => providers.iter().copied().collect(),
            };
            if !scope.contains(&p.as_str()) {
                let field = Field {
                    value: p.clone(),
                    span: rule.choice.span.clone(),
                };
                out.push(Finding::Unknown {
                    what: NameKind::Provider,
                    field,
                    table: &rule.table,
                    near: closest(p, scope.iter().copied()).map(str::to_string),
                    known: scope.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        if out.len() > before {
            continue;
        }
        let mut matched = false;
        for (c, f) in report.facilities().filter(|(c, f)| applies(rule, c, f)) {
            matched = true;
            let selected = rule.choice.value.selected_by(f);
            match rule.which {
                Which::Deny if selected => out.push(Finding::Denied {
                    rule,
                    krate: c,
                    facility: f,
                }),
                Which::Require if !selected => out.push(Finding::Required {
                    rule,
                    krate: c,
                    facility: f,
                }),
                _ => {}
            }
        }
        if !matched {
            out.push(Finding::NoMatch { rule });
        }
    }
    let names = library_names(report);
    for rule in &policy.libraries {
        let name = &rule.library.value;
        let mut carried_anywhere = false;
        for exe in &report.executables {
            for lib in exe.libraries.iter().filter(|l| l.is(name)) {
                carried_anywhere = true;
                if let Some(only) = &rule.only
                    && !only.iter().any(|o| o.value == exe.name)
                {
                    out.push(Finding::NotAllowed { rule, exe, lib });
                }
                if let Some(mode) = &rule.link
                    && lib.link != mode.value
                {
                    out.push(Finding::LinkMode { rule, exe, lib });
                }
                if rule.bundled.as_ref().is_some_and(|b| !b.value) && lib.bundled {
                    out.push(Finding::Bundled { rule, exe, lib });
                }
            }
        }
        if !carried_anywhere {
            if names
                .iter()
                .any(|n| soname_matches(n, name) || soname_matches(name, n))
            {
                out.push(Finding::Absent {
                    what: NameKind::Library,
                    field: rule.library.clone(),
                    table: &rule.table,
                    why: format!("no executable of this build carries {name}"),
                });
            } else {
                out.push(Finding::Unknown {
                    what: NameKind::Library,
                    field: rule.library.clone(),
                    table: &rule.table,
                    near: closest(name, names.iter().map(String::as_str)).map(str::to_string),
                    known: names.iter().cloned().collect(),
                });
            }
        }
        for o in rule.only.iter().flatten() {
            if report.executables.iter().any(|e| e.name == o.value) {
                continue;
            }
            if vocab.bins.contains(&o.value) {
                out.push(Finding::Absent {
                    what: NameKind::Executable,
                    field: o.clone(),
                    table: &rule.table,
                    why: format!(
                        "{} is an executable of the workspace that this build does not make",
                        o.value
                    ),
                });
            } else {
                out.push(Finding::Unknown {
                    what: NameKind::Executable,
                    field: o.clone(),
                    table: &rule.table,
                    near: closest(&o.value, vocab.bins.iter().map(String::as_str))
                        .map(str::to_string),
                    known: vocab.bins.iter().cloned().collect(),
                });
            }
        }
    }
    out
}

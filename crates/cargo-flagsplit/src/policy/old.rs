//! The policy file: `[[deny]]`, `[[require]]` and `[[libraries]]` rules, read with positions, and
//! checked against a [`Report`].

use crate::model::{CrateReport, Facility, Provider, Report};
use flagsplit_config::graph::{KINDS, SHARED_PROVIDERS, Setting};
use std::fmt;
use toml_span::Span;
use toml_span::value::{Table, Value, ValueInner};

/// A position in the policy file (line and column from 1; the column counts characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// What a `[[deny]]` or `[[require]]` rule names: a provider name or a shared name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Provider(String),
    Shared(String),
}

impl Choice {
    /// Whether the facility's selected provider is this choice.
    pub fn selected_by(&self, facility: &Facility) -> bool {
        match self {
            Choice::Provider(p) => facility.selected == *p,
            Choice::Shared(s) => facility.selected_shared() == Some(s.as_str()),
        }
    }

    /// Whether `provider` is this choice.
    fn is(&self, provider: &Provider) -> bool {
        match self {
            Choice::Provider(n) => provider.name == *n,
            Choice::Shared(s) => provider.answers_to.as_deref() == Some(s.as_str()),
        }
    }

    /// The compiled providers of `facility` that are this choice.
    fn compiled_in<'f>(&self, facility: &'f Facility) -> Vec<&'f str> {
        facility
            .providers
            .iter()
            .filter(|p| p.compiled && self.is(p))
            .map(|p| p.name.as_str())
            .collect()
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Provider(p) => write!(f, "provider = {p:?}"),
            Choice::Shared(s) => write!(f, "shared = {s:?}"),
        }
    }
}

/// A `[[deny]]` or `[[require]]` rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectionRule {
    pub at: At,
    pub choice: Choice,
    pub kind: Option<String>,
    pub krate: Option<String>,
    pub reason: Option<String>,
}

impl SelectionRule {
    /// Whether the rule applies to this facility of this crate.
    fn applies(&self, c: &CrateReport, f: &Facility) -> bool {
        self.kind
            .as_ref()
            .is_none_or(|k| f.kind.as_ref() == Some(k))
            && self
                .krate
                .as_ref()
                .is_none_or(|n| *n == c.name || *n == c.options.crate_name)
    }

    /// The rule as written, for messages: `shared = "openssl", kind = "tls"`.
    fn describe(&self) -> String {
        let mut s = self.choice.to_string();
        if let Some(k) = &self.kind {
            s.push_str(&format!(", kind = {k:?}"));
        }
        if let Some(c) = &self.krate {
            s.push_str(&format!(", crate = {c:?}"));
        }
        s
    }
}

/// A `[[libraries]]` rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryRule {
    pub at: At,
    pub library: String,
    pub only: Vec<String>,
    pub reason: Option<String>,
}

/// A parsed policy file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub deny: Vec<SelectionRule>,
    pub require: Vec<SelectionRule>,
    pub libraries: Vec<LibraryRule>,
}

impl Policy {
    /// How many rules it has.
    pub fn len(&self) -> usize {
        self.deny.len() + self.require.len() + self.libraries.len()
    }
}

/// An error in the policy file: where, what, the valid keys or values, and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    /// `FILE:LINE:COL`, or the file alone when it cannot be read.
    pub at: String,
    pub message: String,
    pub valid: Option<String>,
    pub fix: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}: {}", self.at, self.message)?;
        if let Some(v) = &self.valid {
            writeln!(f, "  = valid: {v}")?;
        }
        write!(f, "  = fix: {}", self.fix)
    }
}

const TOP_KEYS: &[&str] = &["deny", "require", "libraries"];
const SELECTION_KEYS: &[&str] = &["provider", "shared", "kind", "crate", "reason"];
const LIBRARY_KEYS: &[&str] = &["library", "only", "reason"];

/// Byte offsets to lines and columns.
struct Lines<'a> {
    file: &'a str,
    text: &'a str,
}

/// The line and column (from 1, in characters) of byte offset `offset` of `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Where a value starts: the parser's span of a string starts inside its quotes, a message
/// points at the opening quote (`"`, `'`, or a triple quote).
pub(crate) fn value_start(text: &str, value: &Value<'_>) -> usize {
    let mut start = value.span.start.min(text.len());
    if value.as_str().is_some() {
        let bytes = text.as_bytes();
        let mut quotes = 0;
        while start > 0 && quotes < 3 && matches!(bytes[start - 1], b'"' | b'\'') {
            start -= 1;
            quotes += 1;
        }
    }
    start
}

impl Lines<'_> {
    fn at(&self, span: Span) -> At {
        let (line, col) = line_col(self.text, span.start);
        At {
            file: self.file.to_string(),
            line,
            col,
        }
    }

    fn at_value(&self, value: &Value<'_>) -> At {
        let (line, col) = line_col(self.text, value_start(self.text, value));
        At {
            file: self.file.to_string(),
            line,
            col,
        }
    }
}

/// Reads the policy file at `path`.
pub fn read(path: &std::path::Path) -> Result<Policy, Vec<PolicyError>> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![PolicyError {
            at: file.clone(),
            message: format!("cannot read the policy file: {e}"),
            valid: None,
            fix: "give an existing TOML file with --policy (see the README of cargo-flagsplit)"
                .into(),
        }]
    })?;
    parse(&file, &text)
}

/// Parses a policy; `file` names it in the errors. Every error of the file is returned.
pub fn parse(file: &str, text: &str) -> Result<Policy, Vec<PolicyError>> {
    let lines = Lines { file, text };
    let root = match toml_span::parse(text) {
        Ok(root) => root,
        Err(e) => {
            return Err(vec![PolicyError {
                at: lines.at(e.span).to_string(),
                message: format!("invalid TOML: {e}"),
                valid: None,
                fix: "correct the TOML syntax at that position".into(),
            }]);
        }
    };
    let mut errors = Vec::new();
    let mut policy = Policy::default();
    let Some(table) = root.as_table() else {
        return Err(vec![PolicyError {
            at: lines.at(root.span).to_string(),
            message: "the policy must be a TOML table".into(),
            valid: None,
            fix: "write [[deny]], [[require]] and [[libraries]] tables".into(),
        }]);
    };
    for (key, value) in by_position(table) {
        let entries = match key.name.as_ref() {
            name @ ("deny" | "require" | "libraries") => match value.as_ref() {
                ValueInner::Array(a) => a.iter().map(|v| (name, v)).collect::<Vec<_>>(),
                other => {
                    errors.push(PolicyError {
                        at: lines.at(key.span).to_string(),
                        message: format!(
                            "`{name}` must be an array of tables, found {}",
                            other.type_str()
                        ),
                        valid: None,
                        fix: format!("write each rule as a [[{name}]] table, not [{name}]"),
                    });
                    continue;
                }
            },
            other => {
                errors.push(PolicyError {
                    at: lines.at(key.span).to_string(),
                    message: format!("unknown table or key `{other}`"),
                    valid: Some(TOP_KEYS.join(", ")),
                    fix: "write the rules as [[deny]], [[require]] or [[libraries]] tables".into(),
                });
                continue;
            }
        };
        for (name, entry) in entries {
            let Some(t) = entry.as_table() else {
                errors.push(PolicyError {
                    at: lines.at(entry.span).to_string(),
                    message: format!(
                        "an entry of `{name}` must be a table, found {}",
                        entry.as_ref().type_str()
                    ),
                    valid: None,
                    fix: format!("write each rule as a [[{name}]] table"),
                });
                continue;
            };
            let at = lines.at(entry.span);
            match name {
                "libraries" => {
                    if let Some(rule) = library_rule(&lines, at, t, &mut errors) {
                        policy.libraries.push(rule);
                    }
                }
                _ => {
                    if let Some(rule) = selection_rule(&lines, name, at, t, &mut errors) {
                        if name == "deny" {
                            policy.deny.push(rule);
                        } else {
                            policy.require.push(rule);
                        }
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(policy)
    } else {
        Err(errors)
    }
}

/// A table's entries in file order.
fn by_position<'a, 'de>(
    t: &'a Table<'de>,
) -> Vec<(&'a toml_span::value::Key<'de>, &'a Value<'de>)> {
    let mut v: Vec<_> = t.iter().collect();
    v.sort_by_key(|(k, _)| k.span.start);
    v
}

/// One key of a rule table: its text (a string) or its list (`only`), and where its value starts.
struct Field {
    name: String,
    list: Option<Vec<String>>,
    text: Option<String>,
    span: Span,
}

/// The keys of a rule table: unknown ones are errors; each value must be a string, except
/// `only` (an array of strings).
fn strings_of(
    lines: &Lines<'_>,
    table_name: &str,
    valid: &[&str],
    t: &Table<'_>,
    errors: &mut Vec<PolicyError>,
) -> Vec<Field> {
    let mut out = Vec::new();
    for (key, value) in by_position(t) {
        let name = key.name.as_ref();
        if !valid.contains(&name) {
            errors.push(PolicyError {
                at: lines.at(key.span).to_string(),
                message: format!("unknown key `{name}` in [[{table_name}]]"),
                valid: Some(valid.join(", ")),
                fix: format!("remove `{name}` or use one of the valid keys"),
            });
            continue;
        }
        if name == "only" {
            let Some(items) = value.as_array() else {
                errors.push(type_error(
                    lines,
                    value,
                    table_name,
                    name,
                    "an array of strings",
                    "only = [\"flagsplit-imap-send\"]",
                ));
                continue;
            };
            let mut list = Vec::new();
            for item in items {
                match item.as_str() {
                    Some(s) => list.push(s.to_string()),
                    None => errors.push(type_error(
                        lines,
                        item,
                        table_name,
                        name,
                        "an array of strings",
                        "only = [\"flagsplit-imap-send\"]",
                    )),
                }
            }
            out.push(Field {
                name: name.to_string(),
                list: Some(list),
                text: None,
                span: key.span,
            });
        } else {
            match value.as_str() {
                Some(s) => out.push(Field {
                    name: name.to_string(),
                    list: None,
                    text: Some(s.to_string()),
                    span: Span::new(value_start(lines.text, value), value.span.end),
                }),
                None => errors.push(type_error(
                    lines,
                    value,
                    table_name,
                    name,
                    "a string",
                    &format!("{name} = \"...\""),
                )),
            }
        }
    }
    out
}

fn type_error(
    lines: &Lines<'_>,
    value: &Value<'_>,
    table: &str,
    key: &str,
    wanted: &str,
    example: &str,
) -> PolicyError {
    PolicyError {
        at: lines.at_value(value).to_string(),
        message: format!(
            "`{key}` in [[{table}]] must be {wanted}, found {}",
            value.as_ref().type_str()
        ),
        valid: None,
        fix: format!("write it as {example}"),
    }
}

fn selection_rule(
    lines: &Lines<'_>,
    name: &str,
    at: At,
    t: &Table<'_>,
    errors: &mut Vec<PolicyError>,
) -> Option<SelectionRule> {
    let before = errors.len();
    let fields = strings_of(lines, name, SELECTION_KEYS, t, errors);
    let get = |k: &str| {
        fields
            .iter()
            .find(|f| f.name == k)
            .and_then(|f| f.text.clone().map(|v| (v, f.span)))
    };
    let kind = get("kind");
    if let Some((k, span)) = &kind
        && !KINDS.contains(&k.as_str())
    {
        errors.push(PolicyError {
            at: lines.at(*span).to_string(),
            message: format!("`kind = {k:?}` is no facility kind"),
            valid: Some(KINDS.join(", ")),
            fix: "use one of the kinds flagsplit-config defines".into(),
        });
    }
    let shared = get("shared");
    if let Some((s, span)) = &shared
        && !SHARED_PROVIDERS.contains(&s.as_str())
    {
        errors.push(PolicyError {
            at: lines.at(*span).to_string(),
            message: format!("`shared = {s:?}` is no shared provider name"),
            valid: Some(SHARED_PROVIDERS.join(", ")),
            fix: "use one of the shared names, or `provider = ...` for a crate's own provider name"
                .into(),
        });
    }
    let choice = match (get("provider"), shared) {
        (Some((p, _)), None) => Some(Choice::Provider(p)),
        (None, Some((s, _))) => Some(Choice::Shared(s)),
        (Some(_), Some(_)) => {
            errors.push(PolicyError {
                at: at.to_string(),
                message: format!("a [[{name}]] rule has both `provider` and `shared`"),
                valid: Some(SELECTION_KEYS.join(", ")),
                fix: "keep one of them: a provider name, or a shared name (answers_to)".into(),
            });
            None
        }
        (None, None) => {
            errors.push(PolicyError {
                at: at.to_string(),
                message: format!("a [[{name}]] rule names no provider"),
                valid: Some(SELECTION_KEYS.join(", ")),
                fix: "add `provider = \"<name>\"` or `shared = \"<shared name>\"`".into(),
            });
            None
        }
    };
    if errors.len() > before {
        return None;
    }
    Some(SelectionRule {
        at,
        choice: choice?,
        kind: kind.map(|k| k.0),
        krate: get("crate").map(|c| c.0),
        reason: get("reason").map(|r| r.0),
    })
}

fn library_rule(
    lines: &Lines<'_>,
    at: At,
    t: &Table<'_>,
    errors: &mut Vec<PolicyError>,
) -> Option<LibraryRule> {
    let before = errors.len();
    let fields = strings_of(lines, "libraries", LIBRARY_KEYS, t, errors);
    let library = fields
        .iter()
        .find(|f| f.name == "library")
        .and_then(|f| f.text.clone());
    let only = fields
        .iter()
        .find(|f| f.name == "only")
        .and_then(|f| f.list.clone());
    let reason = fields
        .iter()
        .find(|f| f.name == "reason")
        .and_then(|f| f.text.clone());
    let mut missing = |key: &str, example: &str| {
        errors.push(PolicyError {
            at: at.to_string(),
            message: format!("a [[libraries]] rule has no `{key}`"),
            valid: Some(LIBRARY_KEYS.join(", ")),
            fix: format!("add {example}"),
        })
    };
    if library.is_none() {
        missing(
            "library",
            "`library = \"libssl\"` (matched against NEEDED sonames)",
        );
    }
    if only.is_none() {
        missing(
            "only",
            "`only = [\"<executable>\", ...]` (the executables allowed to link it; [] for none)",
        );
    }
    if errors.len() > before {
        return None;
    }
    Some(LibraryRule {
        at,
        library: library?,
        only: only?,
        reason,
    })
}

/// Whether the soname `soname` (`libssl.so.3`) is library `library` (`libssl`, `libssl.so`):
/// a prefix that ends where the soname does or before a `.` or `-`, so `libz` does not match
/// `libzstd.so.1`.
pub fn soname_matches(soname: &str, library: &str) -> bool {
    match soname.strip_prefix(library) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('-'),
        None => false,
    }
}

/// A broken rule, printed cargo-deny style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub title: String,
    pub notes: Vec<(String, String)>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[policy]: {}", self.title)?;
        for (label, text) in &self.notes {
            write!(f, "\n  = {label}: {text}")?;
        }
        Ok(())
    }
}

/// The outcome of checking a policy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub violations: Vec<Violation>,
    pub warnings: Vec<String>,
}

/// `tls-a v0.1.0`, with ` (host copy)` for a build-dependency copy under `--target`.
pub fn crate_label(c: &CrateReport) -> String {
    match c.build {
        crate::model::Copy::Target => format!("{} v{}", c.name, c.version),
        crate::model::Copy::Host => format!("{} v{} (host copy)", c.name, c.version),
    }
}

/// `graph-wide RUST_BACKEND_TLS (graph-variable)`.
fn origin_note(f: &Facility) -> String {
    if f.origin_kind.is_empty() {
        f.origin.clone()
    } else {
        format!("{} ({})", f.origin, f.origin_kind)
    }
}

/// How to change the selection, given where it came from.
fn fix_for(f: &Facility, alternatives: &[&str]) -> String {
    let others = if alternatives.is_empty() {
        "a provider not compiled in this build (turn its feature on)".to_string()
    } else {
        format!("<one of: {}>", alternatives.join(", "))
    };
    let own = format!("{}={others}", f.variable);
    let graph = |what: &str| {
        let var = what.strip_prefix("graph-wide ").unwrap_or(what);
        format!(
            "{var} chose it for every facility of kind {}: change or unset it, or set {own} for this crate alone",
            f.kind.as_deref().unwrap_or("?")
        )
    };
    match f.origin_kind.as_str() {
        "graph-variable" => graph(&f.origin),
        "graph-file" => format!(
            "the graph-wide file entry at {} chose it: change or remove it, or set {own} for this crate alone",
            f.origin.strip_prefix("graph-wide ").unwrap_or(&f.origin)
        ),
        "variable" => format!("{} chose it: set {own} instead", f.origin),
        "file" => format!(
            "the config file entry at {} chose it: change it, or set {own}",
            f.origin
        ),
        "feature" => format!(
            "the application's feature chose it ({}): turn that feature off, or set {own}",
            f.origin
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

/// The graph-wide variable of kind `kind` (`RUST_BACKEND_SHA1_UNSAFE`), as flagsplit-config
/// names it.
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

/// The notes every broken rule starts with: the choice's origin, the rule, its reason.
fn rule_notes(
    f: &Facility,
    at: &str,
    which: &str,
    rule: &str,
    reason: &Option<String>,
) -> Vec<(String, String)> {
    let mut notes = vec![
        ("origin".to_string(), origin_note(f)),
        ("rule".to_string(), format!("{at} [[{which}]] {rule}")),
    ];
    if let Some(r) = reason {
        notes.push(("reason".into(), r.clone()));
    }
    notes
}

/// Checks `policy` against `report`.
pub fn evaluate(policy: &Policy, report: &Report) -> Outcome {
    let mut out = Outcome::default();
    for rule in &policy.deny {
        for (c, f) in report.facilities().filter(|(c, f)| rule.applies(c, f)) {
            if !rule.choice.selected_by(f) {
                continue;
            }
            let alternatives: Vec<&str> = f
                .providers
                .iter()
                .filter(|p| p.compiled && p.name != f.selected && !rule.choice.is(p))
                .map(|p| p.name.as_str())
                .collect();
            let mut notes = rule_notes(
                f,
                &rule.at.to_string(),
                "deny",
                &rule.describe(),
                &rule.reason,
            );
            notes.push(("fix".into(), fix_for(f, &alternatives)));
            out.violations.push(Violation {
                title: format!(
                    "{}: facility `{}`{} selects {}{}, which the policy denies",
                    crate_label(c),
                    f.name,
                    f.kind
                        .as_ref()
                        .map(|k| format!(" (kind {k})"))
                        .unwrap_or_default(),
                    f.selected,
                    match (&rule.choice, f.selected_shared()) {
                        (Choice::Shared(_), Some(s)) if s != f.selected =>
                            format!(" (answers to {s})"),
                        _ => String::new(),
                    }
                ),
                notes,
            });
        }
    }
    for rule in &policy.require {
        let mut matched = false;
        for (c, f) in report.facilities().filter(|(c, f)| rule.applies(c, f)) {
            matched = true;
            if rule.choice.selected_by(f) {
                continue;
            }
            let compiled = rule.choice.compiled_in(f);
            let want = match &rule.choice {
                Choice::Provider(p) => p.clone(),
                Choice::Shared(s) => format!("a provider answering to {s}"),
            };
            let mut notes = rule_notes(
                f,
                &rule.at.to_string(),
                "require",
                &rule.describe(),
                &rule.reason,
            );
            let fix = if compiled.is_empty() {
                let features: Vec<String> = f
                    .providers
                    .iter()
                    .filter(|p| rule.choice.is(p))
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
                if let (Choice::Shared(sh), Some(k)) = (&rule.choice, &f.kind) {
                    s.push_str(&format!(
                        ", or {}={sh} for every facility of kind {k}",
                        kind_variable(k)
                    ));
                }
                s
            };
            notes.push(("fix".into(), fix));
            out.violations.push(Violation {
                title: format!(
                    "{}: facility `{}`{} selects {}, where the policy requires {want}",
                    crate_label(c),
                    f.name,
                    f.kind
                        .as_ref()
                        .map(|k| format!(" (kind {k})"))
                        .unwrap_or_default(),
                    f.selected,
                ),
                notes,
            });
        }
        if !matched {
            out.warnings.push(format!(
                "{} [[require]] {}: no facility of this build matches it",
                rule.at,
                rule.describe()
            ));
        }
    }
    for rule in &policy.libraries {
        for name in &rule.only {
            if !report.executables.iter().any(|e| e.name == *name) {
                out.warnings.push(format!(
                    "{} [[libraries]] library = {:?}: `only` names `{name}`, which this build does not produce",
                    rule.at, rule.library
                ));
            }
        }
        for exe in &report.executables {
            if rule.only.contains(&exe.name) {
                continue;
            }
            let linked: Vec<&str> = exe
                .needed
                .iter()
                .filter(|n| soname_matches(n, &rule.library))
                .map(String::as_str)
                .collect();
            if linked.is_empty() {
                continue;
            }
            let allowed = if rule.only.is_empty() {
                "which the policy lets no executable link".to_string()
            } else {
                format!("which only {} may link", rule.only.join(", "))
            };
            let mut notes = vec![
                ("needed".to_string(), exe.needed.join(" ")),
                (
                    "rule".to_string(),
                    format!(
                        "{} [[libraries]] library = {:?}, only = [{}]",
                        rule.at,
                        rule.library,
                        rule.only
                            .iter()
                            .map(|o| format!("{o:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            ];
            if let Some(r) = &rule.reason {
                notes.push(("reason".into(), r.clone()));
            }
            // The selections in the build whose provider links the library: the likely cause.
            for (c, f) in report.facilities() {
                let Some(p) = f.selected_provider() else {
                    continue;
                };
                if p.links
                    .iter()
                    .any(|l| soname_matches(l, &rule.library) || soname_matches(&rule.library, l))
                {
                    notes.push((
                        "selected by".into(),
                        format!(
                            "{}: `{}` = {} (from {}), which links {}",
                            crate_label(c),
                            f.name,
                            f.selected,
                            origin_note(f),
                            p.links.join(", ")
                        ),
                    ));
                }
            }
            notes.push((
                "fix".into(),
                format!(
                    "select providers that do not link {} for {}, or add \"{}\" to `only`",
                    rule.library, exe.name, exe.name
                ),
            ));
            out.violations.push(Violation {
                title: format!(
                    "executable `{}` links {}, {allowed}",
                    exe.name,
                    linked.join(", ")
                ),
                notes,
            });
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::*;

    fn errors(text: &str) -> Vec<PolicyError> {
        parse("p.toml", text).expect_err("an error")
    }

    #[test]
    fn parses_every_rule() {
        let p = parse(
            "p.toml",
            "[[deny]]\nprovider = \"rustls\"\nkind = \"tls\"\ncrate = \"tls-b\"\nreason = \"r\"\n\n\
             [[require]]\nkind = \"zlib\"\nshared = \"system\"\n\n\
             [[libraries]]\nlibrary = \"libssl\"\nonly = [\"flagsplit-imap-send\"]\n",
        )
        .expect("valid");
        assert_eq!(p.deny.len(), 1);
        assert_eq!(p.deny[0].choice, Choice::Provider("rustls".into()));
        assert_eq!(p.deny[0].krate.as_deref(), Some("tls-b"));
        assert_eq!(p.deny[0].reason.as_deref(), Some("r"));
        assert_eq!(p.require[0].choice, Choice::Shared("system".into()));
        assert_eq!(p.require[0].at.line, 7);
        assert_eq!(p.libraries[0].only, ["flagsplit-imap-send"]);
        assert_eq!(p.libraries[0].at.file, "p.toml");
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn an_unknown_key_names_its_position_and_the_valid_keys() {
        let e = errors("[[deny]]\nprovider = \"rustls\"\n  provder = \"x\"\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].at, "p.toml:3:3");
        assert!(e[0].message.contains("unknown key `provder` in [[deny]]"));
        assert_eq!(
            e[0].valid.as_deref(),
            Some("provider, shared, kind, crate, reason")
        );
        assert!(e[0].to_string().contains("= fix: "));
    }

    #[test]
    fn an_unknown_table_and_a_plain_table() {
        let e = errors("[[denny]]\nprovider = \"x\"\n");
        assert_eq!(e[0].at, "p.toml:1:3");
        assert!(e[0].message.contains("unknown table or key `denny`"));
        assert_eq!(e[0].valid.as_deref(), Some("deny, require, libraries"));
        let e = errors("[deny]\nprovider = \"x\"\n");
        assert!(
            e[0].message
                .contains("must be an array of tables, found table")
        );
        assert!(e[0].fix.contains("[[deny]]"));
    }

    #[test]
    fn wrong_types() {
        let e = errors("[[libraries]]\nlibrary = \"libssl\"\nonly = \"app\"\n");
        assert_eq!(e[0].at, "p.toml:3:8");
        assert!(
            e[0].message
                .contains("`only` in [[libraries]] must be an array of strings, found string")
        );
        let e = errors("[[deny]]\nprovider = 3\n");
        assert_eq!(e[0].at, "p.toml:2:12");
        assert!(e[0].message.contains("must be a string, found integer"));
    }

    #[test]
    fn bad_names_and_missing_keys() {
        let e = errors("[[deny]]\nshared = \"opnessl\"\nkind = \"tsl\"\n");
        assert_eq!(e.len(), 2);
        assert!(
            e.iter()
                .any(|e| e.message.contains("no facility kind") && e.at == "p.toml:3:8")
        );
        assert!(e.iter().any(|e| {
            e.valid
                .as_deref()
                .is_some_and(|v| v.contains("openssl, rustls"))
        }));
        let e = errors("[[require]]\nkind = \"zlib\"\n");
        assert!(e[0].message.contains("names no provider"));
        let e = errors("[[deny]]\nprovider = \"a\"\nshared = \"openssl\"\n");
        assert!(e[0].message.contains("both"));
        let e = errors("[[libraries]]\nlibrary = \"libssl\"\n");
        assert!(e[0].message.contains("no `only`"));
    }

    #[test]
    fn invalid_toml_has_a_position() {
        let e = errors("[[deny]]\nprovider = \n");
        assert!(e[0].at.starts_with("p.toml:2:"), "{}", e[0].at);
        assert!(e[0].message.starts_with("invalid TOML"));
    }

    #[test]
    fn columns_count_characters() {
        let e = errors("[[deny]]\nreason = \"é\"; provider = \"x\"\n");
        assert!(e[0].at.starts_with("p.toml:2:"));
        let e = errors("[[deny]]\nprovider = \"é\"\nkind = 1\n");
        assert_eq!(e[0].at, "p.toml:3:8");
    }

    #[test]
    fn sonames() {
        assert!(soname_matches("libssl.so.3", "libssl"));
        assert!(soname_matches("libssl.so.3", "libssl.so"));
        assert!(soname_matches("libssl.so.3", "libssl.so.3"));
        assert!(!soname_matches("libssl3.so", "libssl"));
        assert!(!soname_matches("libzstd.so.1", "libz"));
        assert!(soname_matches("libz.so.1", "libz"));
    }

    pub(crate) fn tls_crate(
        name: &str,
        selected: &str,
        origin: &str,
        origin_kind: &str,
    ) -> CrateReport {
        CrateReport {
            name: name.into(),
            version: "0.1.0".into(),
            package_id: format!("path+file:///ws/{name}#0.1.0"),
            build: Copy::Target,
            out_dir: format!("/t/debug/build/{name}-0/out"),
            options: Options {
                schema: 1,
                crate_name: name.into(),
                prefix: name.to_uppercase().replace('-', "_"),
                role: "library".into(),
                target: "x86_64-unknown-linux-gnu".into(),
                features: vec!["openssl".into()],
                facilities: vec![Facility {
                    name: "tls".into(),
                    kind: Some("tls".into()),
                    variable: format!("{}_TLS_PROVIDER", name.to_uppercase().replace('-', "_")),
                    providers: vec![
                        Provider {
                            name: "none".into(),
                            compiled: true,
                            answers_to: Some("none".into()),
                            ..Default::default()
                        },
                        Provider {
                            name: "openssl".into(),
                            feature: Some("openssl".into()),
                            compiled: true,
                            answers_to: Some("openssl".into()),
                            links: vec!["libssl".into(), "libcrypto".into()],
                        },
                    ],
                    selected: selected.into(),
                    origin: origin.into(),
                    origin_kind: origin_kind.into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
        }
    }

    pub(crate) fn report(crates: Vec<CrateReport>, needed: &[&str]) -> Report {
        Report {
            schema: 1,
            target: None,
            crates,
            executables: vec![Executable {
                name: "app".into(),
                package: "app".into(),
                path: "/t/debug/app".into(),
                needed: needed.iter().map(|s| s.to_string()).collect(),
            }],
            graph_settings: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn deny_names_the_crate_the_facility_and_the_origin() {
        let p = parse(
            "p.toml",
            "[[deny]]\nshared = \"openssl\"\nkind = \"tls\"\nreason = \"rustls only\"\n",
        )
        .unwrap();
        let r = report(
            vec![
                tls_crate(
                    "tls-a",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
                tls_crate("tls-b", "none", "TLS_B_TLS_PROVIDER", "variable"),
            ],
            &[],
        );
        let o = evaluate(&p, &r);
        assert_eq!(o.violations.len(), 1);
        let text = o.violations[0].to_string();
        assert!(text.starts_with("error[policy]: tls-a v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies"), "{text}");
        assert!(
            text.contains("\n  = origin: graph-wide RUST_BACKEND_TLS (graph-variable)"),
            "{text}"
        );
        assert!(
            text.contains("\n  = rule: p.toml:1:1 [[deny]] shared = \"openssl\", kind = \"tls\""),
            "{text}"
        );
        assert!(text.contains("\n  = reason: rustls only"));
        assert!(text.contains("RUST_BACKEND_TLS chose it for every facility of kind tls: change or unset it, or set TLS_A_TLS_PROVIDER=<one of: none> for this crate alone"), "{text}");
        // The same policy holds with the default selected.
        let r = report(vec![tls_crate("tls-a", "none", "default", "default")], &[]);
        assert_eq!(evaluate(&p, &r), Outcome::default());
    }

    #[test]
    fn deny_filters_by_crate_and_kind() {
        let p = parse("p.toml", "[[deny]]\nprovider = \"openssl\"\ncrate = \"tls-b\"\n[[deny]]\nprovider = \"openssl\"\nkind = \"zlib\"\n").unwrap();
        let r = report(
            vec![
                tls_crate(
                    "tls-a",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
                tls_crate(
                    "tls-b",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
            ],
            &[],
        );
        let o = evaluate(&p, &r);
        assert_eq!(o.violations.len(), 1);
        assert!(o.violations[0].title.starts_with("tls-b v0.1.0:"));
    }

    #[test]
    fn require_says_how_to_select() {
        let p = parse("p.toml", "[[require]]\nkind = \"tls\"\nshared = \"openssl\"\n[[require]]\nkind = \"zstd\"\nprovider = \"x\"\n").unwrap();
        let r = report(vec![tls_crate("tls-a", "none", "default", "default")], &[]);
        let o = evaluate(&p, &r);
        assert_eq!(o.violations.len(), 1);
        let text = o.violations[0].to_string();
        assert!(
            text.contains(
                "selects none, where the policy requires a provider answering to openssl"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "= fix: select it: TLS_A_TLS_PROVIDER=openssl, or RUST_BACKEND_TLS=openssl"
            ),
            "{text}"
        );
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].contains("no facility of this build matches it"));
    }

    #[test]
    fn libraries_only_names_the_executable_and_the_selection() {
        let p = parse("p.toml", "[[libraries]]\nlibrary = \"libssl\"\nonly = []\n").unwrap();
        let r = report(
            vec![tls_crate(
                "tls-a",
                "openssl",
                "graph-wide RUST_BACKEND_TLS",
                "graph-variable",
            )],
            &["libssl.so.3", "libcrypto.so.3", "libc.so.6"],
        );
        let o = evaluate(&p, &r);
        assert_eq!(o.violations.len(), 1);
        let text = o.violations[0].to_string();
        assert!(text.starts_with("error[policy]: executable `app` links libssl.so.3, which the policy lets no executable link"), "{text}");
        assert!(text.contains("= selected by: tls-a v0.1.0: `tls` = openssl (from graph-wide RUST_BACKEND_TLS (graph-variable)), which links libssl, libcrypto"), "{text}");
        let p = parse(
            "p.toml",
            "[[libraries]]\nlibrary = \"libssl\"\nonly = [\"app\", \"gone\"]\n",
        )
        .unwrap();
        let o = evaluate(&p, &r);
        assert!(o.violations.is_empty());
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].contains("`gone`"));
    }
}

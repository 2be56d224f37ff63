//! Diagnostics: a code per kind of finding, a severity, the message, the place in a file it is
//! about (shown as a source snippet with a caret, as rustc and Cargo show theirs, through
//! annotate-snippets), and notes. All of them go to standard error; `--json` puts them in the
//! document on standard output instead.

use crate::source::Span;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use serde::Serialize;
use std::rc::Rc;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// What an error stops: the check itself (the input cannot be trusted: exit 2) or the build
/// (what the check found: exit 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Refusal,
    Finding,
}

macro_rules! codes {
    ($($variant:ident = $name:literal, $class:ident, $doc:literal;)*) => {
        /// The kinds of diagnostic, each with its code (the book's cargo flagsplit chapter has the
        /// table).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            pub const ALL: &[Code] = &[$(Code::$variant,)*];

            /// The code as printed: `error[denied-provider]`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// Whether an error of this kind refuses the input or reports a finding.
            pub fn class(self) -> Class {
                match self {
                    $(Code::$variant => Class::$class,)*
                }
            }

            /// What the code means, for `--help` and the book's table.
            pub fn doc(self) -> &'static str {
                match self {
                    $(Code::$variant => $doc,)*
                }
            }
        }
    };
}

codes! {
    PolicyUnreadable = "policy-unreadable", Refusal, "The policy file cannot be read.";
    PolicyTooLarge = "policy-too-large", Refusal, "The policy file is larger than the limit (4 MiB).";
    PolicySyntax = "policy-syntax", Refusal, "The policy is not valid TOML.";
    PolicyKey = "policy-key", Refusal, "An unknown table or key in the policy.";
    PolicyType = "policy-type", Refusal, "A policy value of the wrong type.";
    PolicyValue = "policy-value", Refusal, "A policy value outside its vocabulary (a kind, a shared name, a link mode).";
    PolicyIncomplete = "policy-incomplete", Refusal, "A rule that names no provider or library, or restricts nothing.";
    PolicyEmpty = "policy-empty", Refusal, "A policy without any rule.";
    NoMatch = "no-match", Refusal, "A [[deny]] or [[require]] rule that applies to no facility of this build: it checks nothing, so the check refuses.";
    UnknownName = "unknown-name", Refusal, "A crate, provider, library or executable a rule names that neither this build nor its vocabulary knows.";
    MessagesUnreadable = "messages-unreadable", Refusal, "The --messages file cannot be read.";
    NotAMessage = "not-a-message", Refusal, "A line of the --messages file that is no Cargo JSON message.";
    IncompleteMessages = "incomplete-messages", Refusal, "The messages do not end in Cargo's build-finished message.";
    FailedBuild = "failed-build", Refusal, "The messages are of a build that failed.";
    ForeignMessages = "foreign-messages", Refusal, "The messages name packages that are not in the workspace --manifest-path names.";
    StaleMessages = "stale-messages", Refusal, "A file the messages name was written after them, or is gone.";
    UnreadableExecutable = "unreadable-executable", Refusal, "An executable of the build cannot be read as ELF.";
    UnreadableBuildOptions = "unreadable-build-options", Refusal, "A crate's flagsplit-config.json cannot be read.";
    NoPackageGraph = "no-package-graph", Refusal, "cargo metadata failed: which crate an executable holds cannot be told.";
    UnreadableCargoConfig = "unreadable-cargo-config", Refusal, "A Cargo config file (or --config value) that cannot be read as TOML: its [env] entries cannot be checked (a warning in the report).";
    UnreadableBuildEnv = "unreadable-build-env", Refusal, "The --build-env file cannot be read.";
    UnreadableRecord = "unreadable-record", Refusal, "An executable given to --binaries cannot be read, or its build record is damaged or partial.";
    NoRecord = "no-record", Refusal, "An executable given to --binaries carries no build record, and the policy's [binaries] does not say `without-record = \"allow\"`.";
    DeniedProvider = "denied-provider", Finding, "A facility selects a provider a [[deny]] rule names.";
    RequiredProvider = "required-provider", Finding, "A facility does not select the provider a [[require]] rule names.";
    LibraryNotAllowed = "library-not-allowed", Finding, "An executable carries a C library that a [[libraries]] rule's `only` does not allow it.";
    LibraryLinkMode = "library-link-mode", Finding, "An executable carries a C library in a link mode a [[libraries]] rule's `link` does not allow.";
    LibraryBundled = "library-bundled", Finding, "An executable carries a copy of a C library that a -sys crate built, where a [[libraries]] rule says `bundled = false`.";
    UnknownVariable = "unknown-variable", Finding, "A variable of the environment or of Cargo's [env] that no crate of the graph knows, with a crate's prefix or close to a name one reads.";
    UnknownSetting = "unknown-setting", Finding, "A RUST_BACKEND_* name, or an entry of the RUST_BACKEND_CONFIG file, that is no graph-wide setting.";
    UnreadSetting = "unread-setting", Finding, "A valid graph-wide setting that no crate of this build reads (a warning).";
    AbsentName = "absent-name", Finding, "A rule's crate, library or executable is known but absent from this build (a warning).";
    Stripped = "stripped-executable", Finding, "An executable without a symbol table: whether it holds a static library cannot be seen, so it counts as holding it (a warning).";
    NewerBuildOptions = "newer-build-options", Finding, "A flagsplit-config.json of a newer schema than this tool reads (a warning).";
    EnvironmentNotChecked = "environment-not-checked", Finding, "With --messages and no --build-env, the build's environment was not checked (a note).";
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// The place it is about, and what to say there.
    pub label: Option<Box<(Span, String)>>,
    /// The lines around it to show (a rule's whole table); the label's lines when `None`.
    pub context: Option<Span>,
    /// `= name: text` lines.
    pub notes: Vec<(String, String)>,
}

impl Diagnostic {
    pub fn new(code: Code, severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            label: None,
            context: None,
            notes: Vec::new(),
        }
    }

    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, message)
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Warning, message)
    }

    pub fn at(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.label = Some(Box::new((span, label.into())));
        self
    }

    pub fn within(mut self, context: Span) -> Diagnostic {
        self.context = Some(context);
        self
    }

    pub fn note(mut self, name: &str, text: impl Into<String>) -> Diagnostic {
        self.notes.push((name.to_string(), text.into()));
        self
    }

    /// A refusal: the check could not trust its input (exit 2).
    pub fn refuses(&self) -> bool {
        self.severity == Severity::Error && self.code.class() == Class::Refusal
    }

    /// `FILE:LINE:COL` of the label, when it has one.
    pub fn location(&self) -> Option<String> {
        self.label.as_deref().map(|(span, _)| span.at())
    }

    /// The diagnostic as rustc prints one (`styled`: with colours).
    pub fn render(&self, styled: bool) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
        };
        let mut group = Group::with_title(
            level
                .primary_title(self.message.as_str())
                .id(self.code.as_str()),
        );
        if let Some((span, label)) = self.label.as_deref() {
            // Only the lines shown are handed to the renderer, so that a diagnostic costs the
            // size of its snippet, not of its file.
            let shown = match &self.context {
                Some(c) if Rc::ptr_eq(&c.file, &span.file) => {
                    c.range.start.min(span.range.start)..c.range.end.max(span.range.end)
                }
                _ => span.range.clone(),
            };
            let (first_line, lines) = span.file.lines_of(&shown);
            let text = &span.file.text[lines.clone()];
            let local = |r: &std::ops::Range<usize>| {
                let start = r.start.clamp(lines.start, lines.end) - lines.start;
                let end = r.end.clamp(lines.start + start, lines.end) - lines.start;
                start..end
            };
            let mut snippet = Snippet::source(text)
                .line_start(first_line)
                .path(span.file.name.as_str())
                .fold(false)
                .annotation(
                    AnnotationKind::Primary
                        .span(local(&span.range))
                        .label(label.as_str()),
                );
            if let Some(c) = &self.context
                && Rc::ptr_eq(&c.file, &span.file)
            {
                let (_, header) = span.file.lines_of(&(c.range.start..c.range.start + 1));
                if !header.contains(&span.range.start) {
                    snippet = snippet.annotation(AnnotationKind::Context.span(local(&header)));
                }
            }
            group = group.element(snippet);
        }
        for (name, text) in &self.notes {
            let level = if name == "help" || name == "fix" {
                Level::HELP
            } else {
                Level::NOTE
            };
            group = group.element(level.with_name(Some(name.as_str())).message(text.as_str()));
        }
        let renderer = if styled {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        renderer.render(&[group])
    }
}

/// A diagnostic in `--json` output.
#[derive(Clone, Debug, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// `FILE:LINE:COL` of the place it is about.
    pub location: Option<String>,
    pub notes: Vec<JsonNote>,
}

#[derive(Clone, Debug, Serialize)]
pub struct JsonNote {
    pub name: String,
    pub text: String,
}

impl From<&Diagnostic> for JsonDiagnostic {
    fn from(d: &Diagnostic) -> JsonDiagnostic {
        JsonDiagnostic {
            code: d.code.as_str(),
            severity: d.severity,
            message: d.message.clone(),
            location: d.location(),
            notes: d
                .notes
                .iter()
                .map(|(name, text)| JsonNote {
                    name: name.clone(),
                    text: text.clone(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    #[test]
    fn codes_are_unique_and_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "{} twice", c.as_str());
            assert!(
                c.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                c.as_str()
            );
            assert!(!c.doc().is_empty());
        }
    }

    #[test]
    fn the_book_lists_every_code_with_its_exit_status() {
        let readme = include_str!("../../../book/src/cargo-flagsplit.md");
        for c in Code::ALL {
            let exit = match (
                c.class(),
                c.doc().contains("(a warning)"),
                c.doc().contains("(a note)"),
            ) {
                (_, true, _) => "warning",
                (_, _, true) => "note",
                (Class::Refusal, _, _) => "2",
                (Class::Finding, _, _) => "1",
            };
            let row = format!("| `{}` | {exit} |", c.as_str());
            assert!(
                readme.contains(&row),
                "book/src/cargo-flagsplit.md lacks {row}"
            );
        }
    }

    #[test]
    fn a_rule_as_a_snippet_with_a_caret() {
        let f = SourceFile::new(
            "p.toml",
            "# policy\n[[deny]]\nshared = \"openssl\"\nkind = \"tls\"\n\n[[deny]]\n",
        );
        let table = f.text.find("[[deny]]").unwrap();
        let value = f.text.find("\"openssl\"").unwrap();
        let end = f.text.find("\"tls\"").unwrap() + 5;
        let d = Diagnostic::error(Code::DeniedProvider, "tls-a v0.1.0: selects openssl")
            .at(Span::new(&f, value..value + 9), "denied here")
            .within(Span::new(&f, table..end))
            .note("origin", "default")
            .note("fix", "set TLS_A_TLS_PROVIDER=none");
        assert_eq!(d.location().as_deref(), Some("p.toml:3:10"));
        let text = d.render(false);
        assert_eq!(
            text,
            "error[denied-provider]: tls-a v0.1.0: selects openssl\n \
             --> p.toml:3:10\n  \
             |\n\
             2 | [[deny]]\n  \
             | --------\n\
             3 | shared = \"openssl\"\n  \
             |          ^^^^^^^^^ denied here\n\
             4 | kind = \"tls\"\n  \
             |\n  \
             = origin: default\n  \
             = fix: set TLS_A_TLS_PROVIDER=none"
        );
        assert!(!d.refuses() && Code::PolicySyntax.class() == Class::Refusal);
    }

    #[test]
    fn without_a_place() {
        let d = Diagnostic::warning(
            Code::UnreadSetting,
            "RUST_BACKEND_ZSTD=system: nothing reads it",
        )
        .note("note", "no crate has a facility of kind zstd");
        assert_eq!(
            d.render(false),
            "warning[unread-setting]: RUST_BACKEND_ZSTD=system: nothing reads it\n |\n = note: no crate has a facility of kind zstd"
        );
        let j = JsonDiagnostic::from(&d);
        assert_eq!(
            serde_json::to_string(&j).unwrap(),
            r#"{"code":"unread-setting","severity":"warning","message":"RUST_BACKEND_ZSTD=system: nothing reads it","location":null,"notes":[{"name":"note","text":"no crate has a facility of kind zstd"}]}"#
        );
    }
}

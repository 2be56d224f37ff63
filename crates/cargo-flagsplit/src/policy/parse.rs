//! Reading a policy file: every mistake of the file at once, each with its place, the valid keys
//! or values, the nearest of them, and the fix. Linear in the file's size (positions come from
//! the file's line index); a file above [`MAX_SIZE`] is refused before it is read.

use super::{Choice, Field, LibraryRule, Policy, SelectionRule, Which};
use crate::diag::{Code, Diagnostic};
use crate::model::LinkMode;
use crate::source::{SourceFile, Span};
use flagsplit_config::closest;
use flagsplit_config::graph::{KINDS, SHARED_PROVIDERS};
use std::rc::Rc;
use toml_span::value::{Table, Value, ValueInner};

/// The largest policy read: 4 MiB, about 100,000 rules. toml-span keeps the whole document as a
/// tree, about 30 bytes of memory per byte of TOML; a policy is a page of rules, so a larger file
/// is refused with that said rather than held.
pub const MAX_SIZE: u64 = 4 << 20;

const TOP_KEYS: &[&str] = &["deny", "require", "libraries", "binaries"];
const SELECTION_KEYS: &[&str] = &["provider", "shared", "property", "kind", "crate", "reason"];
const LIBRARY_KEYS: &[&str] = &["library", "only", "link", "bundled", "reason"];
const LINK_VALUES: &[&str] = &["dynamic", "static"];

/// Reads the policy file at `path`.
pub fn read(path: &std::path::Path) -> Result<Policy, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let unreadable = |e: std::io::Error| {
        vec![
            Diagnostic::error(
                Code::PolicyUnreadable,
                format!("cannot read the policy file {name}: {e}"),
            )
            .note(
                "fix",
                "give an existing TOML file with --policy (see the book's cargo flagsplit chapter)",
            ),
        ]
    };
    let size = std::fs::metadata(path).map_err(unreadable)?.len();
    if size > MAX_SIZE {
        return Err(vec![
            Diagnostic::error(
                Code::PolicyTooLarge,
                format!(
                    "the policy file {name} is {size} bytes; the largest read is {MAX_SIZE} bytes (4 MiB, about 100,000 rules)"
                ),
            )
            .note("fix", "write the rules with `kind` and `crate` filters rather than one rule per crate, or split the policy and check each part"),
        ]);
    }
    let text = std::fs::read_to_string(path).map_err(unreadable)?;
    parse(&SourceFile::new(name, text))
}

/// The nearest valid word as a `help` note.
fn did_you_mean(d: Diagnostic, name: &str, valid: &[&str]) -> Diagnostic {
    match closest(name, valid.iter().copied()) {
        Some(near) => d.note("help", format!("did you mean `{near}`?")),
        None => d,
    }
}

/// Parses a policy; every mistake of the file is returned.
pub fn parse(file: &Rc<SourceFile>) -> Result<Policy, Vec<Diagnostic>> {
    let span = |s: toml_span::Span| Span::new(file, s.start..s.end);
    let root = toml_span::parse(&file.text).map_err(|e| {
        vec![
            Diagnostic::error(Code::PolicySyntax, format!("invalid TOML: {e}"))
                .at(span(e.span), "here")
                .note("fix", "correct the TOML syntax at that position"),
        ]
    })?;
    let mut errors = Vec::new();
    let mut policy = Policy::default();
    let Some(table) = root.as_table() else {
        return Err(vec![Diagnostic::error(
            Code::PolicySyntax,
            "the policy must be a TOML table",
        )]);
    };
    let mut parser = Parser {
        file,
        errors: &mut errors,
    };
    for (key, value) in by_position(table) {
        let name = key.name.as_ref();
        if name == "binaries" {
            parser.binaries(&mut policy, key.span, value);
            continue;
        }
        let which = match name {
            "deny" => Some(Which::Deny),
            "require" => Some(Which::Require),
            "libraries" => None,
            other => {
                let d = Diagnostic::error(Code::PolicyKey, format!("unknown table `{other}`"))
                    .at(span(key.span), "not a rule table")
                    .note(
                        "note",
                        format!("the rule tables are {}", TOP_KEYS.join(", ")),
                    )
                    .note(
                        "fix",
                        "write the rules as [[deny]], [[require]] or [[libraries]] tables",
                    );
                parser.errors.push(did_you_mean(d, other, TOP_KEYS));
                continue;
            }
        };
        let ValueInner::Array(entries) = value.as_ref() else {
            parser.errors.push(
                Diagnostic::error(
                    Code::PolicyType,
                    format!(
                        "`{name}` must be an array of tables, found {}",
                        value.as_ref().type_str()
                    ),
                )
                .at(span(key.span), "here")
                .note(
                    "fix",
                    format!("write each rule as a [[{name}]] table, not [{name}]"),
                ),
            );
            continue;
        };
        for entry in entries {
            let Some(t) = entry.as_table() else {
                parser.errors.push(
                    Diagnostic::error(
                        Code::PolicyType,
                        format!(
                            "an entry of `{name}` must be a table, found {}",
                            entry.as_ref().type_str()
                        ),
                    )
                    .at(span(entry.span), "here")
                    .note("fix", format!("write each rule as a [[{name}]] table")),
                );
                continue;
            };
            let table_span = span(entry.span);
            match which {
                Some(w) => {
                    if let Some(rule) = parser.selection_rule(w, table_span, t) {
                        policy.selections.push(rule);
                    }
                }
                None => {
                    if let Some(rule) = parser.library_rule(table_span, t) {
                        policy.libraries.push(rule);
                    }
                }
            }
        }
    }
    if errors.is_empty() && policy.is_empty() {
        errors.push(
            Diagnostic::error(
                Code::PolicyEmpty,
                format!("the policy {} has no rule: it would hold for any build", file.name),
            )
            .note("fix", "write [[deny]], [[require]] or [[libraries]] rules (the book's cargo flagsplit chapter)"),
        );
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

struct Parser<'a> {
    file: &'a Rc<SourceFile>,
    errors: &'a mut Vec<Diagnostic>,
}

/// A rule table's known keys and their values.
struct Keys<'t, 'de> {
    values: Vec<(&'t str, &'t Value<'de>)>,
}

impl<'t, 'de> Keys<'t, 'de> {
    fn get(&self, key: &str) -> Option<&'t Value<'de>> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

impl Parser<'_> {
    /// `[binaries]`: how `check --binaries` treats an executable without a build record
    /// (`without-record = "refuse"`, the default, or `"allow"`).
    fn binaries(&mut self, policy: &mut Policy, key: toml_span::Span, value: &Value<'_>) {
        let span = |s: toml_span::Span| Span::new(self.file, s.start..s.end);
        let Some(t) = value.as_table() else {
            self.errors.push(
                Diagnostic::error(
                    Code::PolicyType,
                    format!(
                        "`binaries` must be a table, found {}",
                        value.as_ref().type_str()
                    ),
                )
                .at(span(key), "here")
                .note(
                    "fix",
                    "write it as [binaries] with `without-record = \"refuse\"` or `\"allow\"`",
                ),
            );
            return;
        };
        for (k, v) in by_position(t) {
            if k.name.as_ref() != "without-record" {
                let d = Diagnostic::error(
                    Code::PolicyKey,
                    format!("unknown key `{}` in [binaries]", k.name.as_ref()),
                )
                .at(span(k.span), "not a key of [binaries]")
                .note(
                    "fix",
                    "[binaries] takes `without-record = \"refuse\"` or `\"allow\"`",
                );
                self.errors
                    .push(did_you_mean(d, k.name.as_ref(), &["without-record"]));
                continue;
            }
            match v.as_str() {
                Some("refuse") => policy.allow_without_record = false,
                Some("allow") => policy.allow_without_record = true,
                _ => self.errors.push(
                    Diagnostic::error(
                        Code::PolicyValue,
                        "`without-record` must be \"refuse\" or \"allow\"",
                    )
                    .at(span(v.span), "here")
                    .note("fix", "\"refuse\" (the default: an executable without a build record cannot be judged) or \"allow\" (judge it by its dynamic section alone)"),
                ),
            }
        }
    }

    /// The span of a value; a string's includes its quotes.
    fn value_span(&self, value: &Value<'_>) -> Span {
        let text = self.file.text.as_bytes();
        let mut start = value.span.start.min(text.len());
        let mut end = value.span.end.min(text.len());
        if value.as_str().is_some() {
            let mut quotes = 0;
            while start > 0 && quotes < 3 && matches!(text[start - 1], b'"' | b'\'') {
                start -= 1;
                quotes += 1;
            }
            let mut back = 0;
            while end < text.len() && back < quotes && matches!(text[end], b'"' | b'\'') {
                end += 1;
                back += 1;
            }
        }
        Span::new(self.file, start..end)
    }

    /// The table's keys: an unknown key is an error.
    fn keys<'t, 'de>(
        &mut self,
        table: &str,
        valid: &[&'t str],
        t: &'t Table<'de>,
    ) -> Keys<'t, 'de> {
        let mut values = Vec::new();
        for (key, value) in by_position(t) {
            let name = key.name.as_ref();
            match valid.iter().find(|v| **v == name) {
                Some(v) => values.push((*v, value)),
                None => {
                    let d = Diagnostic::error(
                        Code::PolicyKey,
                        format!("unknown key `{name}` in [[{table}]]"),
                    )
                    .at(
                        Span::new(self.file, key.span.start..key.span.end),
                        "unknown key",
                    )
                    .note(
                        "note",
                        format!("the keys of [[{table}]] are {}", valid.join(", ")),
                    )
                    .note(
                        "fix",
                        format!("remove `{name}` or use one of the valid keys"),
                    );
                    self.errors.push(did_you_mean(d, name, valid));
                }
            }
        }
        Keys { values }
    }

    fn type_error(
        &mut self,
        value: &Value<'_>,
        table: &str,
        key: &str,
        wanted: &str,
        example: &str,
    ) {
        self.errors.push(
            Diagnostic::error(
                Code::PolicyType,
                format!(
                    "`{key}` in [[{table}]] must be {wanted}, found {}",
                    value.as_ref().type_str()
                ),
            )
            .at(self.value_span(value), "here")
            .note("fix", format!("write it as {example}")),
        );
    }

    fn string(&mut self, keys: &Keys<'_, '_>, table: &str, key: &str) -> Option<Field<String>> {
        let value = keys.get(key)?;
        match value.as_str() {
            Some(s) => Some(Field {
                value: s.to_string(),
                span: self.value_span(value),
            }),
            None => {
                self.type_error(value, table, key, "a string", &format!("{key} = \"...\""));
                None
            }
        }
    }

    /// A string that must be one of `valid`.
    fn word(
        &mut self,
        keys: &Keys<'_, '_>,
        table: &str,
        key: &str,
        valid: &[&str],
        what: &str,
    ) -> Option<Field<String>> {
        let f = self.string(keys, table, key)?;
        if valid.contains(&f.value.as_str()) {
            return Some(f);
        }
        let d = Diagnostic::error(
            Code::PolicyValue,
            format!("`{key} = {:?}` is no {what}", f.value),
        )
        .at(f.span.clone(), format!("not a {what}"))
        .note("note", format!("the values are {}", valid.join(", ")));
        self.errors.push(did_you_mean(d, &f.value, valid));
        None
    }

    fn selection_rule(
        &mut self,
        which: Which,
        table: Span,
        t: &Table<'_>,
    ) -> Option<SelectionRule> {
        let name = which.table();
        let before = self.errors.len();
        let keys = self.keys(name, SELECTION_KEYS, t);
        let kind = self.word(&keys, name, "kind", KINDS, "facility kind");
        let shared = self.word(
            &keys,
            name,
            "shared",
            SHARED_PROVIDERS,
            "shared provider name",
        );
        let provider = self.string(&keys, name, "provider");
        let krate = self.string(&keys, name, "crate");
        let reason = self.string(&keys, name, "reason").map(|r| r.value);
        let missing = |message: String, fix: &str| {
            Diagnostic::error(Code::PolicyIncomplete, message)
                .at(table.clone(), "this rule")
                .note(
                    "note",
                    format!("the keys of [[{name}]] are {}", SELECTION_KEYS.join(", ")),
                )
                .note("fix", fix.to_string())
        };
        let property = self.string(&keys, name, "property");
        let given = ["provider", "shared", "property"]
            .iter()
            .filter(|k| keys.get(k).is_some())
            .count();
        let choice = match (provider, shared, property) {
            _ if given > 1 => {
                self.errors.push(missing(
                    format!("a [[{name}]] rule names more than one of `provider`, `shared` and `property`"),
                    "keep one of them: a provider name, a shared name (answers_to), or a property",
                ));
                None
            }
            (Some(p), None, None) => Some(Field {
                value: Choice::Provider(p.value),
                span: p.span,
            }),
            (None, Some(s), None) => Some(Field {
                value: Choice::Shared(s.value),
                span: s.span,
            }),
            (None, None, Some(p)) => Some(Field {
                value: Choice::Property(p.value),
                span: p.span,
            }),
            // A bad value is already an error.
            _ if given == 1 => None,
            _ => {
                self.errors.push(missing(
                    format!("a [[{name}]] rule names no provider"),
                    "add `provider = \"<name>\"`, `shared = \"<shared name>\"` or `property = \"<property>\"`",
                ));
                None
            }
        };
        if self.errors.len() > before {
            return None;
        }
        Some(SelectionRule {
            which,
            table,
            choice: choice?,
            kind,
            krate,
            reason,
        })
    }

    fn library_rule(&mut self, table: Span, t: &Table<'_>) -> Option<LibraryRule> {
        let name = "libraries";
        let before = self.errors.len();
        let keys = self.keys(name, LIBRARY_KEYS, t);
        let library = self.string(&keys, name, "library");
        let reason = self.string(&keys, name, "reason").map(|r| r.value);
        let link = self
            .word(&keys, name, "link", LINK_VALUES, "link mode")
            .map(|f| Field {
                value: if f.value == "static" {
                    LinkMode::Static
                } else {
                    LinkMode::Dynamic
                },
                span: f.span,
            });
        let bundled = match keys.get("bundled") {
            Some(v) => match v.as_ref() {
                ValueInner::Boolean(b) => Some(Field {
                    value: *b,
                    span: self.value_span(v),
                }),
                _ => {
                    self.type_error(v, name, "bundled", "a boolean", "bundled = false");
                    None
                }
            },
            None => None,
        };
        let only = match keys.get("only") {
            Some(v) => match v.as_array() {
                Some(items) => {
                    let mut list = Vec::new();
                    for item in items {
                        match item.as_str() {
                            Some(s) => list.push(Field {
                                value: s.to_string(),
                                span: self.value_span(item),
                            }),
                            None => self.type_error(
                                item,
                                name,
                                "only",
                                "an array of strings",
                                "only = [\"flagsplit-imap-send\"]",
                            ),
                        }
                    }
                    Some(list)
                }
                None => {
                    self.type_error(
                        v,
                        name,
                        "only",
                        "an array of strings",
                        "only = [\"flagsplit-imap-send\"]",
                    );
                    None
                }
            },
            None => None,
        };
        let missing = |message: &str, fix: &str| {
            Diagnostic::error(Code::PolicyIncomplete, message.to_string())
                .at(table.clone(), "this rule")
                .note(
                    "note",
                    format!("the keys of [[libraries]] are {}", LIBRARY_KEYS.join(", ")),
                )
                .note("fix", fix.to_string())
        };
        if keys.get("library").is_none() {
            self.errors.push(missing(
                "a [[libraries]] rule has no `library`",
                "add `library = \"libssl\"` (matched against the NEEDED sonames and the archives: libssl.so.3, libssl.a)",
            ));
        }
        let restricts = ["only", "link", "bundled"]
            .iter()
            .any(|k| keys.get(k).is_some());
        if !restricts {
            self.errors.push(missing(
                "a [[libraries]] rule restricts nothing: it has no `only`, `link` or `bundled`",
                "add `only = [\"<executable>\", ...]` (the executables allowed to carry it; [] for none), `link = \"dynamic\"` or `bundled = false`",
            ));
        }
        if self.errors.len() > before {
            return None;
        }
        Some(LibraryRule {
            table,
            library: library?,
            only,
            link,
            bundled,
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<Diagnostic> {
        parse(&SourceFile::new("p.toml", text)).expect_err("an error")
    }

    fn ok(text: &str) -> Policy {
        parse(&SourceFile::new("p.toml", text)).expect("valid")
    }

    fn help(d: &Diagnostic) -> Option<&str> {
        d.notes
            .iter()
            .find(|(n, _)| n == "help")
            .map(|(_, t)| t.as_str())
    }

    #[test]
    fn parses_every_rule() {
        let p = ok(
            "[[deny]]\nprovider = \"rustls\"\nkind = \"tls\"\ncrate = \"tls-b\"\nreason = \"r\"\n\n\
             [[require]]\nkind = \"zlib\"\nshared = \"system\"\n\n\
             [[libraries]]\nlibrary = \"libssl\"\nonly = [\"flagsplit-imap-send\"]\nlink = \"dynamic\"\nbundled = false\n",
        );
        assert_eq!(p.selections.len(), 2);
        assert_eq!(p.selections[0].which, Which::Deny);
        assert_eq!(
            p.selections[0].choice.value,
            Choice::Provider("rustls".into())
        );
        assert_eq!(p.selections[0].choice.span.at(), "p.toml:2:12");
        assert_eq!(p.selections[0].krate.as_ref().unwrap().value, "tls-b");
        assert_eq!(p.selections[0].reason.as_deref(), Some("r"));
        assert_eq!(
            p.selections[1].choice.value,
            Choice::Shared("system".into())
        );
        assert_eq!(p.selections[1].table.at(), "p.toml:7:1");
        let l = &p.libraries[0];
        assert_eq!(l.only.as_ref().unwrap()[0].value, "flagsplit-imap-send");
        assert_eq!(l.only.as_ref().unwrap()[0].span.at(), "p.toml:13:9");
        assert_eq!(l.link.as_ref().unwrap().value, LinkMode::Dynamic);
        assert!(!l.bundled.as_ref().unwrap().value);
        assert_eq!(p.len(), 3);
        // `link` or `bundled` alone restricts.
        assert_eq!(
            ok("[[libraries]]\nlibrary = \"libz\"\nbundled = false\n").libraries[0].only,
            None
        );
    }

    #[test]
    fn an_unknown_key_names_its_place_and_the_nearest_key() {
        let e = errors("[[deny]]\nprovider = \"rustls\"\n  provder = \"x\"\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].code, Code::PolicyKey);
        assert_eq!(e[0].location().as_deref(), Some("p.toml:3:3"));
        assert_eq!(e[0].message, "unknown key `provder` in [[deny]]");
        assert_eq!(help(&e[0]), Some("did you mean `provider`?"));
        let e = errors("[[denny]]\nprovider = \"x\"\n");
        assert_eq!(e[0].location().as_deref(), Some("p.toml:1:3"));
        assert_eq!(help(&e[0]), Some("did you mean `deny`?"));
        let e = errors("[deny]\nprovider = \"x\"\n");
        assert_eq!(e[0].code, Code::PolicyType);
        assert!(
            e[0].message
                .contains("must be an array of tables, found table")
        );
    }

    #[test]
    fn wrong_types_and_values() {
        let e = errors("[[libraries]]\nlibrary = \"libssl\"\nonly = \"app\"\n");
        assert_eq!(e[0].location().as_deref(), Some("p.toml:3:8"));
        assert!(
            e[0].message
                .contains("`only` in [[libraries]] must be an array of strings, found string")
        );
        let e = errors("[[deny]]\nprovider = 3\n");
        assert_eq!(e[0].location().as_deref(), Some("p.toml:2:12"));
        let e = errors("[[deny]]\nshared = \"opnessl\"\nkind = \"tsl\"\n");
        assert_eq!(e.len(), 2);
        assert!(e.iter().all(|e| e.code == Code::PolicyValue));
        assert_eq!(help(&e[0]), Some("did you mean `tls`?"));
        assert_eq!(help(&e[1]), Some("did you mean `openssl`?"));
        let e = errors("[[libraries]]\nlibrary = \"libz\"\nlink = \"dynamc\"\nbundled = \"no\"\n");
        assert_eq!(e.len(), 2);
        assert_eq!(help(&e[0]), Some("did you mean `dynamic`?"));
        assert!(e[1].message.contains("must be a boolean"));
    }

    #[test]
    fn incomplete_and_empty() {
        assert_eq!(
            errors("[[require]]\nkind = \"zlib\"\n")[0].message,
            "a [[require]] rule names no provider"
        );
        assert!(
            errors("[[deny]]\nprovider = \"a\"\nshared = \"openssl\"\n")[0]
                .message
                .contains("more than one")
        );
        let e = errors("[[libraries]]\nlibrary = \"libssl\"\n");
        assert!(
            e[0].message.contains("restricts nothing"),
            "{}",
            e[0].message
        );
        assert_eq!(e[0].location().as_deref(), Some("p.toml:1:1"));
        for empty in ["", "# nothing\n", "deny = []\n"] {
            let e = errors(empty);
            assert_eq!(e[0].code, Code::PolicyEmpty, "{empty:?}");
        }
    }

    #[test]
    fn invalid_toml_has_a_place() {
        let e = errors("[[deny]]\nprovider = \n");
        assert_eq!(e[0].code, Code::PolicySyntax);
        assert!(e[0].location().unwrap().starts_with("p.toml:2:"));
    }

    #[test]
    fn columns_count_characters() {
        let e = errors("[[deny]]\nprovider = \"é\"\nkind = 1\n");
        assert_eq!(e[0].location().as_deref(), Some("p.toml:3:8"));
    }

    #[test]
    fn every_mistake_of_a_large_policy() {
        // 20,000 rules with one mistake each, each placed (book/src/benchmarks.md times the largest
        // policy read).
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!(
                "[[deny]]\nprovider = \"p{i}\"\nkinds = \"tls\"\n\n"
            ));
        }
        let e = errors(&text);
        assert_eq!(e.len(), 20_000);
        assert_eq!(e[19_999].location().as_deref(), Some("p.toml:79999:1"));
    }
}

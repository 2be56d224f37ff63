//! A config file (`config.toml`, or the file the `<PREFIX>_CONFIG` variable names). The format
//! (flagsplit's is documented by `config.example.toml`), one table per facility of the [`Spec`]:
//!
//! ```toml
//! [sha1]
//! provider = "dc"
//! [sha1-unsafe]
//! provider = "block"
//! [md5]
//! provider = "builtin"
//! [tls]
//! provider = "rustls"
//! ```
//!
//! Every table is optional. Unknown tables, unknown keys, wrong types and unknown provider names are
//! errors with `FILE:LINE:COL`; nothing is ignored.

use crate::toml::{Key, Span, Table, Value, ValueInner};

use crate::cfgexpr::Scope;
use crate::error::{ConfigError, Requester};
use crate::model::{FileChoice, GraphEntry, Spec};
use crate::model::{FilePos, LineIndex};

/// Turns byte offsets into 1-based line and character columns.
pub(crate) struct Lines<'a> {
    text: &'a str,
    path: &'a str,
    index: LineIndex,
}

impl<'a> Lines<'a> {
    /// The positions of `text`, a file named `path` in messages.
    pub(crate) fn new(text: &'a str, path: &'a str) -> Lines<'a> {
        Lines {
            text,
            path,
            index: LineIndex::new(text),
        }
    }

    fn pos(&self, offset: usize) -> FilePos {
        self.index.pos(self.path, self.text, offset)
    }

    /// The position where `span` starts.
    pub(crate) fn at(&self, span: Span) -> FilePos {
        self.pos(span.start)
    }

    /// The position of a string value: the parser's span starts inside the quotes, a message
    /// points at the opening quote (`"`, `'`, or a triple quote).
    pub(crate) fn at_string(&self, span: Span) -> FilePos {
        let bytes = self.text.as_bytes();
        let mut start = span.start.min(bytes.len());
        let mut quotes = 0;
        while start > 0 && quotes < 3 && matches!(bytes[start - 1], b'"' | b'\'') {
            start -= 1;
            quotes += 1;
        }
        self.pos(start)
    }
}

/// Parses and validates the file. Returns the valid choices and every error found.
pub(crate) fn parse(
    spec: &'static Spec,
    path: &str,
    text: &str,
) -> (Vec<FileChoice>, Vec<ConfigError>) {
    let lines = Lines::new(text, path);
    let mut choices = Vec::new();
    let mut errors = Vec::new();
    each_entry(
        &lines,
        spec.format_hint(),
        &mut errors,
        |key, value, scope, errors| {
            facility_table(spec, &lines, key, value, scope, &mut choices, errors);
        },
    );
    (choices, errors)
}

/// Calls `entry` for each top-level entry of the document and each entry of its
/// `[target.<triple or cfg(...)>]` tables, with its scope, in file order; a syntax error or a bad
/// scope is an error in `errors`.
fn each_entry(
    lines: &Lines<'_>,
    format: String,
    errors: &mut Vec<ConfigError>,
    mut entry: impl FnMut(&Key<'_>, &Value<'_>, &Scope, &mut Vec<ConfigError>),
) {
    let root = match document(lines, lines.text, format, errors) {
        Some(root) => root,
        None => {
            return;
        }
    };
    let table = match root.as_table() {
        Some(table) => table,
        None => {
            // The parser always returns a table for a document.
            return;
        }
    };
    for (key, value) in table.by_position() {
        if key.name == "target" {
            for (scope, entries) in scopes(lines, value, errors) {
                for (k, v) in entries.by_position() {
                    entry(k, v, &scope, errors);
                }
            }
        } else {
            entry(key, value, &Scope::All, errors);
        }
    }
}

/// The parsed document, or `None` after a syntax error.
fn document<'de>(
    lines: &Lines<'_>,
    text: &'de str,
    format: String,
    errors: &mut Vec<ConfigError>,
) -> Option<Value<'de>> {
    match crate::toml::parse(text) {
        Ok(root) => Some(root),
        Err(e) => {
            // Not `e.line_info`: its column counts bytes, where messages count characters.
            errors.push(ConfigError::Syntax {
                at: lines.at(e.span),
                message: e.to_string(),
                format,
            });
            None
        }
    }
}

/// The tables under `[target]`, each with its scope; every bad name is an error.
fn scopes<'a, 'de>(
    lines: &Lines<'_>,
    value: &'a Value<'de>,
    errors: &mut Vec<ConfigError>,
) -> Vec<(Scope, &'a Table<'de>)> {
    let mut out = Vec::new();
    let targets = match value.as_table() {
        Some(targets) => targets,
        None => {
            errors.push(ConfigError::BadScope {
                at: lines.at(value.span),
                text: "target".to_string(),
                reason: format!(
                    "`target` must be a table of tables, found {}",
                    value.as_ref().type_str()
                ),
            });
            return out;
        }
    };
    for (name, tables) in targets.by_position() {
        let scope = match Scope::parse(&name.name) {
            Ok(scope) => scope,
            Err(e) => {
                errors.push(ConfigError::BadScope {
                    at: lines.at(name.span),
                    text: name.name.to_string(),
                    reason: e.reason,
                });
                continue;
            }
        };
        match tables.as_table() {
            Some(t) => out.push((scope, t)),
            None => errors.push(ConfigError::BadScope {
                at: lines.at(tables.span),
                text: name.name.to_string(),
                reason: format!("it must be a table, found {}", tables.as_ref().type_str()),
            }),
        }
    }
    out
}

/// One `[facility]` table (top-level, or under `[target.<scope>]`).
fn facility_table(
    spec: &'static Spec,
    lines: &Lines<'_>,
    key: &Key<'_>,
    value: &Value<'_>,
    scope: &Scope,
    choices: &mut Vec<FileChoice>,
    errors: &mut Vec<ConfigError>,
) {
    let facility = match spec.facilities.iter().find(|f| f.name == key.name) {
        Some(facility) => facility,
        None => {
            let mut valid: Vec<String> = spec.facilities.iter().map(|f| format!("[{f}]")).collect();
            if *scope == Scope::All {
                valid.push("[target.<triple or cfg(...)>.<facility>]".to_string());
            }
            errors.push(ConfigError::UnknownTable {
                at: lines.at(key.span),
                name: key.name.to_string(),
                valid: valid.join(", "),
            });
            return;
        }
    };
    let entries = match value.as_table() {
        Some(entries) => entries,
        None => {
            let suggestion = value
                .as_str()
                .and_then(|name| facility.provider(name))
                .unwrap_or(&facility.providers[0])
                .name;
            errors.push(ConfigError::NotATable {
                at: lines.at(value.span),
                facility,
                found: value.as_ref().type_str(),
                suggestion,
            });
            return;
        }
    };
    let mut provider_seen = false;
    let mut unknown_key = false;
    for (k, v) in entries.by_position() {
        if k.name != "provider" {
            unknown_key = true;
            errors.push(ConfigError::UnknownKey {
                at: lines.at(k.span),
                facility,
                key: k.name.to_string(),
            });
            continue;
        }
        provider_seen = true;
        let at = match v.as_ref() {
            ValueInner::String(_) => lines.at_string(v.span),
            _ => lines.at(v.span),
        };
        match v.as_ref() {
            ValueInner::String(name) => match facility.provider(name) {
                Some(provider) => choices.push(FileChoice {
                    facility,
                    provider,
                    at,
                    scope: scope.clone(),
                }),
                None => errors.push(ConfigError::UnknownProvider {
                    by: Requester::File(at),
                    facility,
                    value: name.to_string(),
                }),
            },
            other => errors.push(ConfigError::WrongType {
                at,
                facility,
                found: other.type_str(),
            }),
        }
    }
    // A misspelt `provider` is reported once, as the unknown key it is.
    if !provider_seen && !unknown_key {
        errors.push(ConfigError::MissingProvider {
            at: lines.at(key.span),
            facility,
        });
    }
}

/// Parses the graph-wide file ([`crate::graph`]): `key = "value"` entries, and
/// `[target.<triple or cfg(...)>]` tables of them. Returns every entry with its place (which of
/// them a crate reads, and their values, are the resolver's to check) and the file's own errors
/// (syntax, scope tables).
pub(crate) fn parse_graph(path: &str, text: &str) -> (Vec<GraphEntry>, Vec<ConfigError>) {
    let lines = Lines::new(text, path);
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    let format = "top-level `tls = \"openssl\"`, `link = \"static\"`, `bundled = \"deny\"` entries and [target.<triple or cfg(...)>] tables of them".to_string();
    each_entry(&lines, format, &mut errors, |key, value, scope, _| {
        let (value_text, at) = match value.as_ref() {
            ValueInner::String(text) => (Ok(text.to_string()), lines.at_string(value.span)),
            other => (Err(other.type_str()), lines.at(value.span)),
        };
        entries.push(GraphEntry {
            key: key.name.to_string(),
            key_at: lines.at(key.span),
            key_span: key.span.start..key.span.end,
            value: value_text,
            at,
            target: scope.text().map(str::to_string),
            scope: scope.clone(),
        });
    });
    (entries, errors)
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::test_tables::LIBRARY;

    /// Positions and offsets, each the inverse of the other, on lines with characters of more
    /// than one byte; an offset inside a character or past the end is moved to one that is not.
    #[test]
    fn line_index_round_trips() {
        use crate::model::LineIndex;
        let text = "a = 1\n\u{e9}t\u{e9} = \"\u{fc}\"\n\nlast";
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices() {
            let (line, col) = index.line_col(text, offset);
            assert_eq!(
                index.offset(text, line, col),
                offset,
                "{offset}: {line}:{col}"
            );
        }
        assert_eq!(index.line_col(text, 7), (2, 1), "inside \u{e9}");
        assert_eq!(index.line_col(text, 999), (4, 5));
        assert_eq!(index.pos("f.toml", text, 11).to_string(), "f.toml:2:4");
        assert_eq!(index.offset(text, 9, 1), text.len());
        assert_eq!(index.line_start(3), Some(text.len() - 4));
    }

    /// The column of a syntax error counts characters, not bytes, after non-ASCII text.
    #[test]
    fn syntax_error_columns_count_characters() {
        for (text, want) in [
            ("[inflate]\nnote = \"\u{e9}\u{fc}\" = 1\n", "f.toml:2:13"),
            ("[inflate]\nnote = \"ab\" = 1\n", "f.toml:2:13"),
            ("x = { a = \"\u{fc}\", b = 1, a = 2 }\n", "f.toml:1:23"),
        ] {
            let (_, errors) = parse(&LIBRARY, "f.toml", text);
            let shown = errors[0].to_string();
            assert!(
                shown.starts_with(&format!("{want}: invalid TOML")),
                "{text:?}: {shown}"
            );
        }
    }
}

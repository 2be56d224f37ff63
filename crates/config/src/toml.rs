//! A TOML 1.1 reader (the version Cargo reads) with the byte span of every key and value, for the two files a build script
//! reads: a config file and the package's `Cargo.toml` (its `[package.metadata.flagsplit]`
//! table). Its own, rather than a crate's: it is on the critical path of every adopting library's
//! cold build, where it compiles within flagsplit-config instead of as a crate that the library's
//! build must wait for (book/src/benchmarks.md, "What adopting flagsplit-config costs"), and it builds
//! with Rust 1.63. `fuzz/fuzz_targets/config_toml.rs` compares its trees with those of the `toml`
//! crate, Cargo's own reader, on every input.
//!
//! The whole grammar is read (every string form and escape, integers in four bases, floats,
//! datetimes, arrays, inline tables, dotted keys, `[table]` and `[[array]]` headers), with TOML's
//! rules on defining a table once. Nesting is limited to [`MAX_DEPTH`] arrays and inline tables,
//! so that no input exhausts the stack.

use std::borrow::Cow;
use std::fmt;

/// How deep arrays and inline tables may nest.
pub(crate) const MAX_DEPTH: usize = 128;

/// A range of bytes of the document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// A key. A quoted key's span is its contents, inside the quotes, as a string value's.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Key<'de> {
    pub(crate) name: Cow<'de, str>,
    pub(crate) span: Span,
}

/// A value. A string's span is its contents, inside the quotes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Value<'de> {
    pub(crate) span: Span,
    inner: ValueInner<'de>,
}

/// What a value is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ValueInner<'de> {
    String(Cow<'de, str>),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// An offset or local date-time, date or time, as written.
    Datetime(&'de str),
    Array(Vec<Value<'de>>),
    Table(Table<'de>),
}

impl ValueInner<'_> {
    /// The type's name, for messages.
    pub(crate) fn type_str(&self) -> &'static str {
        match self {
            ValueInner::String(_) => "string",
            ValueInner::Integer(_) => "integer",
            ValueInner::Float(_) => "float",
            ValueInner::Boolean(_) => "boolean",
            ValueInner::Datetime(_) => "datetime",
            ValueInner::Array(_) => "array",
            ValueInner::Table(_) => "table",
        }
    }
}

impl<'de> Value<'de> {
    /// What the value is.
    pub(crate) fn as_ref(&self) -> &ValueInner<'de> {
        &self.inner
    }

    pub(crate) fn as_table(&self) -> Option<&Table<'de>> {
        match &self.inner {
            ValueInner::Table(t) => Some(t),
            _ => None,
        }
    }

    // Read by manifest.rs, which needs the feature build-script.
    #[cfg_attr(not(feature = "build-script"), allow(dead_code))]
    pub(crate) fn as_array(&self) -> Option<&Vec<Value<'de>>> {
        match &self.inner {
            ValueInner::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.inner {
            ValueInner::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A table's entries, in the document's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Table<'de> {
    entries: Vec<(Key<'de>, Value<'de>)>,
}

impl<'de> Table<'de> {
    /// The entries, in the document's order (for the tests and the fuzzer's canonical form).
    #[cfg(any(test, fuzzing))]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Key<'de>, &Value<'de>)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    // Read by manifest.rs, which needs the feature build-script.
    #[cfg_attr(not(feature = "build-script"), allow(dead_code))]
    pub(crate) fn get(&self, name: &str) -> Option<&Value<'de>> {
        self.entries
            .iter()
            .find(|(k, _)| k.name == name)
            .map(|(_, v)| v)
    }

    /// The entries in the order they appear in the file (errors are reported in file order).
    pub(crate) fn by_position(&self) -> Vec<(&Key<'de>, &Value<'de>)> {
        let mut starts = Vec::with_capacity(self.entries.len());
        for (k, _) in &self.entries {
            starts.push(k.span.start);
        }
        let mut entries = Vec::with_capacity(starts.len());
        for i in order_of(&starts) {
            let (k, v) = &self.entries[i];
            entries.push((k, v));
        }
        entries
    }
}

/// The indices of `starts` in the order of their values, ties in index order: a bottom-up merge
/// sort, O(n log n) whatever the order a file gives its keys in. Not generic, so it is compiled
/// once, and smaller than the standard library's sort in every build script that reads a table.
fn order_of(starts: &[usize]) -> Vec<usize> {
    let n = starts.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if starts[order[j]] < starts[order[i]] {
                    merged[k] = order[j];
                    j += 1;
                } else {
                    merged[k] = order[i];
                    i += 1;
                }
                k += 1;
            }
            merged[k..k + (mid - i)].copy_from_slice(&order[i..mid]);
            k += mid - i;
            merged[k..k + (hi - j)].copy_from_slice(&order[j..hi]);
            lo = hi;
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// A document that is not TOML: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Error {
    pub(crate) span: Span,
    message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Reads a document: its root table.
pub(crate) fn parse(text: &str) -> Result<Value<'_>, Error> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    if text.starts_with('\u{feff}') {
        p.pos = 3;
    }
    let mut root = Node::table(Kind::Implicit, Span::new(0, text.len()));
    p.document(&mut root)?;
    Ok(root.into_value())
}

// While reading: each table remembers how it was made, which decides what may add to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Made by a header `[a.b]` as a table on the way (`a`): a header may still define it.
    Implicit,
    /// Defined by its own header.
    Header,
    /// Made by a dotted key (`a.b = 1` makes `a`).
    Dotted,
    /// Made by a dotted key inside an inline table (`{ a.b = 1 }` makes `a`).
    Inline,
    /// An inline table `{ ... }`: nothing adds to it afterwards.
    Frozen,
}

enum Node<'de> {
    Value(Value<'de>),
    Table {
        kind: Kind,
        span: Span,
        entries: Vec<(Key<'de>, Node<'de>)>,
    },
    /// `[[a]]`: each element a table.
    Tables {
        span: Span,
        items: Vec<Node<'de>>,
    },
}

impl<'de> Node<'de> {
    fn table(kind: Kind, span: Span) -> Node<'de> {
        Node::Table {
            kind,
            span,
            entries: Vec::new(),
        }
    }

    fn into_value(self) -> Value<'de> {
        match self {
            Node::Value(v) => v,
            Node::Table { span, entries, .. } => Value {
                span,
                inner: ValueInner::Table(Table {
                    entries: {
                        let mut values = Vec::with_capacity(entries.len());
                        for (k, n) in entries {
                            values.push((k, n.into_value()));
                        }
                        values
                    },
                }),
            },
            Node::Tables { span, items } => Value {
                span,
                inner: ValueInner::Array({
                    let mut values = Vec::with_capacity(items.len());
                    for n in items {
                        values.push(n.into_value());
                    }
                    values
                }),
            },
        }
    }
}

fn entries_of<'a, 'de>(node: &'a mut Node<'de>) -> &'a mut Vec<(Key<'de>, Node<'de>)> {
    match node {
        Node::Table { entries, .. } => entries,
        // Callers check that the node is a table first.
        _ => unreachable!("entries_of on a value"),
    }
}

struct Parser<'de> {
    text: &'de str,
    bytes: &'de [u8],
    pos: usize,
    depth: usize,
}

fn is_bare(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

impl<'de> Parser<'de> {
    fn error<T>(&self, start: usize, message: impl Into<String>) -> Result<T, Error> {
        let end = (start + 1).min(self.text.len()).max(start);
        Err(Error {
            span: Span::new(start, end),
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn starts_with(&self, s: &str) -> bool {
        self.bytes[self.pos..].starts_with(s.as_bytes())
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    /// A comment, if one starts here, up to (not including) the line's end.
    fn comment(&mut self) -> Result<(), Error> {
        if !self.eat(b'#') {
            return Ok(());
        }
        while let Some(b) = self.peek() {
            match b {
                b'\n' => break,
                b'\r' if self.peek_at(1) == Some(b'\n') => break,
                b'\t' => self.pos += 1,
                0..=0x1f | 0x7f => return self.error(self.pos, "a control character in a comment"),
                _ => self.pos += 1,
            }
        }
        Ok(())
    }

    /// A line's end (or the document's), if one is here.
    fn newline(&mut self) -> Result<bool, Error> {
        match self.peek() {
            None => Ok(true),
            Some(b'\n') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'\r') if self.peek_at(1) == Some(b'\n') => {
                self.pos += 2;
                Ok(true)
            }
            Some(b'\r') => self.error(self.pos, "a carriage return not followed by a line feed"),
            _ => Ok(false),
        }
    }

    /// What is at `self.pos`, for messages: `` `=` ``, a line break, the end of the document.
    fn found(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => "the end of the document".to_string(),
            Some('\n' | '\r') => "a line break".to_string(),
            Some(c) => format!("`{c}`"),
        }
    }

    /// Whitespace, a comment, then the line's end: what must follow a key/value pair or a header.
    fn line_end(&mut self) -> Result<(), Error> {
        self.ws();
        self.comment()?;
        if self.newline()? {
            Ok(())
        } else {
            self.error(
                self.pos,
                format!(
                    "expected the end of the line (a line break or a comment), found {}",
                    self.found()
                ),
            )
        }
    }

    fn document(&mut self, root: &mut Node<'de>) -> Result<(), Error> {
        // The table key/value pairs go to: a path of keys from the root.
        let mut current: Vec<Cow<'de, str>> = Vec::new();
        loop {
            self.ws();
            self.comment()?;
            if self.peek().is_none() {
                return Ok(());
            }
            if self.newline()? {
                continue;
            }
            if self.peek() == Some(b'[') {
                let start = self.pos;
                let array = self.starts_with("[[");
                self.pos += if array { 2 } else { 1 };
                self.ws();
                let keys = self.key_path()?;
                self.ws();
                let close = if array { "]]" } else { "]" };
                if !self.starts_with(close) {
                    return self.error(
                        self.pos,
                        format!(
                            "expected `{close}` to close the table header, found {}",
                            self.found()
                        ),
                    );
                }
                self.pos += close.len();
                let span = Span::new(start, self.pos);
                self.header(root, &keys, array, span)?;
                current = keys.into_iter().map(|k| k.name).collect();
                self.line_end()?;
                continue;
            }
            let table = self.resolve_current(root, &current);
            self.key_value(table)?;
            self.line_end()?;
        }
    }

    /// The table the path of the last header names (its last element, for an array of tables).
    fn resolve_current<'n>(
        &self,
        root: &'n mut Node<'de>,
        path: &[Cow<'de, str>],
    ) -> &'n mut Node<'de> {
        let mut node = root;
        for name in path {
            let next = match node {
                Node::Table { entries, .. } => entries
                    .iter_mut()
                    .find(|(k, _)| k.name == *name)
                    .map(|(_, n)| n),
                _ => None,
            };
            node = match next {
                Some(Node::Tables { items, .. }) => match items.last_mut() {
                    Some(t) => t,
                    None => unreachable!("an array of tables is made with one table"),
                },
                Some(n) => n,
                None => unreachable!("the header made its tables"),
            };
        }
        node
    }

    /// Defines the table (or appends to the array of tables) a header names.
    fn header(
        &self,
        root: &mut Node<'de>,
        keys: &[Key<'de>],
        array: bool,
        span: Span,
    ) -> Result<(), Error> {
        let mut node = root;
        let (last, path) = match keys.split_last() {
            Some(x) => x,
            None => return self.error(span.start, "a table header without a key"),
        };
        for key in path {
            let entries = entries_of(node);
            let at = entries.iter().position(|(k, _)| k.name == key.name);
            let at = match at {
                Some(i) => i,
                None => {
                    entries.push((key.clone(), Node::table(Kind::Implicit, key.span)));
                    entries.len() - 1
                }
            };
            node = match &mut entries[at].1 {
                Node::Tables { items, .. } => match items.last_mut() {
                    Some(t) => t,
                    None => unreachable!("an array of tables is made with one table"),
                },
                n @ Node::Table { .. } => {
                    if let Node::Table {
                        kind: Kind::Inline | Kind::Frozen,
                        ..
                    } = n
                    {
                        return self.error(
                            key.span.start,
                            format!(
                                "`{}` is an inline table: nothing can be added to it",
                                key.name
                            ),
                        );
                    }
                    n
                }
                Node::Value(v) => {
                    return self.error(
                        key.span.start,
                        format!(
                            "`{}` is already a {}, not a table",
                            key.name,
                            v.inner.type_str()
                        ),
                    );
                }
            };
        }
        let entries = entries_of(node);
        let found = entries.iter_mut().find(|(k, _)| k.name == last.name);
        match (found, array) {
            (None, false) => entries.push((last.clone(), Node::table(Kind::Header, span))),
            (None, true) => entries.push((
                last.clone(),
                Node::Tables {
                    span,
                    items: vec![Node::table(Kind::Header, span)],
                },
            )),
            (Some((_, Node::Tables { items, .. })), true) => {
                items.push(Node::table(Kind::Header, span))
            }
            (Some((_, Node::Table { kind, span: s, .. })), false) if *kind == Kind::Implicit => {
                *kind = Kind::Header;
                *s = span;
            }
            (Some(_), _) => {
                return self.error(
                    span.start,
                    format!("table `{}` is defined twice", last.name),
                );
            }
        }
        Ok(())
    }

    /// `key = value` into `table` (a dotted key makes or enters the tables on its way).
    fn key_value(&mut self, table: &mut Node<'de>) -> Result<(), Error> {
        let keys = self.key_path()?;
        self.ws();
        if !self.eat(b'=') {
            return self.error(
                self.pos,
                format!("expected `=` after the key, found {}", self.found()),
            );
        }
        self.ws();
        let value = self.value()?;
        self.insert(table, keys, value, Kind::Dotted)
    }

    fn insert(
        &self,
        table: &mut Node<'de>,
        keys: Vec<Key<'de>>,
        value: Node<'de>,
        made: Kind,
    ) -> Result<(), Error> {
        let mut node = table;
        let n = keys.len();
        for (i, key) in keys.into_iter().enumerate() {
            let entries = entries_of(node);
            let at = entries.iter().position(|(k, _)| k.name == key.name);
            if i + 1 == n {
                if at.is_some() {
                    return self.error(key.span.start, format!("duplicate key `{}`", key.name));
                }
                entries.push((key, value));
                return Ok(());
            }
            let at = match at {
                Some(at) => at,
                None => {
                    entries.push((key.clone(), Node::table(made, key.span)));
                    entries.len() - 1
                }
            };
            match &entries[at].1 {
                Node::Table { kind, .. } if *kind == made => {}
                _ => {
                    return self.error(
                        key.span.start,
                        format!(
                            "`{}` is already defined: a dotted key cannot add to it",
                            key.name
                        ),
                    );
                }
            }
            node = &mut entries[at].1;
        }
        Ok(())
    }

    /// `a.b."c"` (whitespace around the dots).
    fn key_path(&mut self) -> Result<Vec<Key<'de>>, Error> {
        let mut keys = vec![self.key()?];
        loop {
            let save = self.pos;
            self.ws();
            if self.eat(b'.') {
                self.ws();
                keys.push(self.key()?);
            } else {
                self.pos = save;
                return Ok(keys);
            }
        }
    }

    fn key(&mut self) -> Result<Key<'de>, Error> {
        let start = self.pos;
        match self.peek() {
            Some(b'"') => {
                if self.starts_with("\"\"\"") {
                    return self.error(start, "a key cannot be a multi-line string");
                }
                let (name, span) = self.basic_string()?;
                Ok(Key { name, span })
            }
            Some(b'\'') => {
                if self.starts_with("'''") {
                    return self.error(start, "a key cannot be a multi-line string");
                }
                let (name, span) = self.literal_string()?;
                Ok(Key { name, span })
            }
            Some(b) if is_bare(b) => {
                while matches!(self.peek(), Some(b) if is_bare(b)) {
                    self.pos += 1;
                }
                Ok(Key {
                    name: Cow::Borrowed(&self.text[start..self.pos]),
                    span: Span::new(start, self.pos),
                })
            }
            _ => self.error(
                start,
                "expected a key (letters, digits, `_`, `-`, or a quoted string)",
            ),
        }
    }

    fn value(&mut self) -> Result<Node<'de>, Error> {
        let start = self.pos;
        let simple = |inner, span| Ok(Node::Value(Value { span, inner }));
        match self.peek() {
            Some(b'"') => {
                let (s, span) = if self.starts_with("\"\"\"") {
                    self.multiline_basic()?
                } else {
                    self.basic_string()?
                };
                simple(ValueInner::String(s), span)
            }
            Some(b'\'') => {
                let (s, span) = if self.starts_with("'''") {
                    self.multiline_literal()?
                } else {
                    self.literal_string()?
                };
                simple(ValueInner::String(s), span)
            }
            Some(b'[') => self.array(),
            Some(b'{') => self.inline_table(),
            Some(_) => {
                let inner = self.scalar()?;
                simple(inner, Span::new(start, self.pos))
            }
            None => self.error(start, "expected a value"),
        }
    }

    fn nest(&mut self, start: usize) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(
                start,
                format!("arrays and inline tables nested more than {MAX_DEPTH} deep"),
            );
        }
        Ok(())
    }

    /// Whitespace, newlines and comments inside an array.
    fn array_space(&mut self) -> Result<(), Error> {
        loop {
            self.ws();
            self.comment()?;
            if self.peek().is_none() || !self.newline()? {
                return Ok(());
            }
        }
    }

    fn array(&mut self) -> Result<Node<'de>, Error> {
        let start = self.pos;
        self.nest(start)?;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.array_space()?;
            if self.eat(b']') {
                break;
            }
            if self.peek().is_none() {
                return self.error(start, "an array that is never closed (`]`)");
            }
            items.push(self.value()?.into_value());
            self.array_space()?;
            if self.eat(b']') {
                break;
            }
            if self.peek().is_none() {
                return self.error(start, "an array that is never closed (`]`)");
            }
            if !self.eat(b',') {
                return self.error(self.pos, "expected `,` or `]` in the array");
            }
        }
        self.depth -= 1;
        Ok(Node::Value(Value {
            span: Span::new(start, self.pos),
            inner: ValueInner::Array(items),
        }))
    }

    fn inline_table(&mut self) -> Result<Node<'de>, Error> {
        let start = self.pos;
        self.nest(start)?;
        self.pos += 1;
        let mut table = Node::table(Kind::Frozen, Span::new(start, start));
        // TOML 1.1 (which Cargo reads): line breaks, comments and a trailing comma inside.
        loop {
            self.array_space()?;
            if self.eat(b'}') {
                break;
            }
            if self.peek().is_none() {
                return self.error(start, "an inline table that is never closed (`}`)");
            }
            let keys = self.key_path()?;
            // Cargo's reader also takes line breaks around `=` here.
            self.array_space()?;
            if !self.eat(b'=') {
                return self.error(
                    self.pos,
                    format!("expected `=` after the key, found {}", self.found()),
                );
            }
            self.array_space()?;
            let value = self.value()?;
            self.insert(&mut table, keys, value, Kind::Inline)?;
            self.array_space()?;
            if self.eat(b'}') {
                break;
            }
            if !self.eat(b',') {
                return self.error(self.pos, "expected `,` or `}` in the inline table");
            }
        }
        self.depth -= 1;
        if let Node::Table { span, .. } = &mut table {
            span.end = self.pos;
        }
        Ok(table)
    }

    /// `"..."`: the contents and their span (inside the quotes).
    fn basic_string(&mut self) -> Result<(Cow<'de, str>, Span), Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        let mut owned: Option<String> = None;
        loop {
            let b = match self.peek() {
                Some(b) => b,
                None => return self.error(open, "a string that is never closed (`\"`)"),
            };
            match b {
                b'"' => {
                    let span = Span::new(start, self.pos);
                    self.pos += 1;
                    return Ok((self.finish(owned, start, span.end), span));
                }
                b'\\' => {
                    let s = owned.get_or_insert_with(|| self.text[start..self.pos].to_string());
                    let c = self.escape()?;
                    s.push(c);
                }
                b'\n' | b'\r' => {
                    return self.error(
                        self.pos,
                        "a line break in a one-line string (use `\"\"\"` for several lines)",
                    );
                }
                b'\t' => self.push_byte(&mut owned),
                0..=0x1f | 0x7f => {
                    return self.error(
                        self.pos,
                        "a control character in a string (write it as an escape)",
                    );
                }
                _ => self.push_char(&mut owned),
            }
        }
    }

    fn finish(&self, owned: Option<String>, start: usize, end: usize) -> Cow<'de, str> {
        match owned {
            Some(s) => Cow::Owned(s),
            None => Cow::Borrowed(&self.text[start..end]),
        }
    }

    fn push_byte(&mut self, owned: &mut Option<String>) {
        if let Some(s) = owned {
            s.push(self.bytes[self.pos] as char);
        }
        self.pos += 1;
    }

    fn push_char(&mut self, owned: &mut Option<String>) {
        let c = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
        if let Some(s) = owned {
            s.push(c);
        }
        self.pos += c.len_utf8();
    }

    /// An escape after `\`.
    fn escape(&mut self) -> Result<char, Error> {
        let at = self.pos;
        self.pos += 1;
        let b = match self.peek() {
            Some(b) => b,
            None => return self.error(at, "a `\\` at the end of the document"),
        };
        self.pos += 1;
        Ok(match b {
            b'b' => '\u{8}',
            b't' => '\t',
            b'n' => '\n',
            b'f' => '\u{c}',
            b'r' => '\r',
            b'"' => '"',
            b'\\' => '\\',
            // TOML 1.1.
            b'e' => '\u{1b}',
            b'x' | b'u' | b'U' => {
                let n = match b {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let hex = match self.text.get(self.pos..self.pos + n) {
                    Some(h) if h.bytes().all(|c| c.is_ascii_hexdigit()) => h,
                    _ => return self.error(at, format!("`\\{}` needs {n} hexadecimal digits", b as char)),
                };
                self.pos += n;
                let code = u32::from_str_radix(hex, 16).unwrap_or(u32::MAX);
                match char::from_u32(code) {
                    Some(c) => c,
                    None => return self.error(at, format!("`\\{}{hex}` is not a Unicode scalar value", b as char)),
                }
            }
            _ => return self.error(at, format!("`\\{}` is not an escape (valid: \\b \\t \\n \\f \\r \\e \\\" \\\\ \\xHH \\uXXXX \\UXXXXXXXX)", self.text[at + 1..].chars().next().unwrap_or(' '))),
        })
    }

    /// `"""..."""`.
    fn multiline_basic(&mut self) -> Result<(Cow<'de, str>, Span), Error> {
        let open = self.pos;
        self.pos += 3;
        self.trim_first_newline();
        let start = self.pos;
        let mut owned: Option<String> = None;
        loop {
            let b = match self.peek() {
                Some(b) => b,
                None => {
                    return self.error(open, "a multi-line string that is never closed (`\"\"\"`)");
                }
            };
            match b {
                b'"' if self.starts_with("\"\"\"") => {
                    // Up to two more quotes belong to the string.
                    let mut extra = 0;
                    while extra < 2 && self.peek_at(3 + extra) == Some(b'"') {
                        extra += 1;
                    }
                    let end = self.pos + extra;
                    if let Some(s) = &mut owned {
                        s.push_str(&self.text[self.pos..end]);
                    }
                    self.pos = end + 3;
                    return Ok((self.finish(owned, start, end), Span::new(start, end)));
                }
                b'\\' => {
                    // A line-ending backslash: the break and the whitespace after it are dropped.
                    let mut look = self.pos + 1;
                    while matches!(self.bytes.get(look), Some(b' ' | b'\t')) {
                        look += 1;
                    }
                    let breaks = matches!(self.bytes.get(look), Some(b'\n'))
                        || (self.bytes.get(look) == Some(&b'\r')
                            && self.bytes.get(look + 1) == Some(&b'\n'));
                    if breaks {
                        // From here the contents differ from the text: they are collected.
                        owned.get_or_insert_with(|| self.text[start..self.pos].to_string());
                        self.pos = look;
                        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n'))
                            || (self.peek() == Some(b'\r') && self.peek_at(1) == Some(b'\n'))
                        {
                            self.pos += 1;
                        }
                    } else {
                        let s = owned.get_or_insert_with(|| self.text[start..self.pos].to_string());
                        let c = self.escape()?;
                        s.push(c);
                    }
                }
                b'\n' | b'\t' => self.push_byte(&mut owned),
                b'\r' if self.peek_at(1) == Some(b'\n') => {
                    self.push_byte(&mut owned);
                    self.push_byte(&mut owned);
                }
                0..=0x1f | 0x7f => {
                    return self.error(
                        self.pos,
                        "a control character in a string (write it as an escape)",
                    );
                }
                _ => self.push_char(&mut owned),
            }
        }
    }

    fn trim_first_newline(&mut self) {
        if self.peek() == Some(b'\n') {
            self.pos += 1;
        } else if self.starts_with("\r\n") {
            self.pos += 2;
        }
    }

    /// `'...'`.
    fn literal_string(&mut self) -> Result<(Cow<'de, str>, Span), Error> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                None => return self.error(open, "a string that is never closed (`'`)"),
                Some(b'\'') => {
                    let span = Span::new(start, self.pos);
                    self.pos += 1;
                    return Ok((Cow::Borrowed(&self.text[start..span.end]), span));
                }
                Some(b'\n' | b'\r') => {
                    return self.error(
                        self.pos,
                        "a line break in a one-line string (use `'''` for several lines)",
                    );
                }
                Some(b'\t') => self.pos += 1,
                Some(0..=0x1f | 0x7f) => {
                    return self.error(self.pos, "a control character in a literal string");
                }
                Some(_) => self.push_char(&mut None),
            }
        }
    }

    /// `'''...'''`.
    fn multiline_literal(&mut self) -> Result<(Cow<'de, str>, Span), Error> {
        let open = self.pos;
        self.pos += 3;
        self.trim_first_newline();
        let start = self.pos;
        loop {
            match self.peek() {
                None => {
                    return self.error(open, "a multi-line string that is never closed (`'''`)");
                }
                Some(b'\'') if self.starts_with("'''") => {
                    let mut extra = 0;
                    while extra < 2 && self.peek_at(3 + extra) == Some(b'\'') {
                        extra += 1;
                    }
                    let end = self.pos + extra;
                    self.pos = end + 3;
                    return Ok((Cow::Borrowed(&self.text[start..end]), Span::new(start, end)));
                }
                Some(b'\n' | b'\t') => self.pos += 1,
                Some(b'\r') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                Some(0..=0x1f | 0x7f) => {
                    return self.error(self.pos, "a control character in a literal string");
                }
                Some(_) => self.push_char(&mut None),
            }
        }
    }

    /// A boolean, number or datetime: a run of the characters they are made of, then classified.
    fn scalar(&mut self) -> Result<ValueInner<'de>, Error> {
        let start = self.pos;
        let word =
            |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.' | b':');
        while matches!(self.peek(), Some(b) if word(b)) {
            self.pos += 1;
        }
        // A date and a time may be separated by one space: `1979-05-27 07:32:00`.
        if is_date(&self.text[start..self.pos])
            && self.peek() == Some(b' ')
            && matches!(self.peek_at(1), Some(b'0'..=b'9'))
            && matches!(self.peek_at(2), Some(b'0'..=b'9'))
            && self.peek_at(3) == Some(b':')
        {
            self.pos += 1;
            while matches!(self.peek(), Some(b) if word(b)) {
                self.pos += 1;
            }
        }
        let text = &self.text[start..self.pos];
        if text.is_empty() {
            let shown = self.text[start..].chars().next().unwrap_or(' ');
            return self.error(start, format!("expected a value, found `{shown}`"));
        }
        match text {
            "true" => return Ok(ValueInner::Boolean(true)),
            "false" => return Ok(ValueInner::Boolean(false)),
            "inf" | "+inf" => return Ok(ValueInner::Float(f64::INFINITY)),
            "-inf" => return Ok(ValueInner::Float(f64::NEG_INFINITY)),
            "nan" | "+nan" => return Ok(ValueInner::Float(f64::NAN)),
            "-nan" => return Ok(ValueInner::Float(-f64::NAN)),
            _ => {}
        }
        if let Some(i) = integer(text) {
            return Ok(ValueInner::Integer(i));
        }
        if let Some(f) = float(text) {
            return Ok(ValueInner::Float(f));
        }
        if datetime(text) {
            return Ok(ValueInner::Datetime(text));
        }
        self.error(
            start,
            format!("`{text}` is not a value (a string needs quotes; numbers, booleans and dates are written as TOML writes them)"),
        )
    }
}

/// Digits with single underscores between them.
fn digits(s: &str, radix: u32) -> Option<String> {
    if s.is_empty() || s.starts_with('_') || s.ends_with('_') || s.contains("__") {
        return None;
    }
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    if clean.chars().all(|c| c.is_digit(radix)) {
        Some(clean)
    } else {
        None
    }
}

fn integer(s: &str) -> Option<i64> {
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = s.strip_prefix(prefix) {
            return i64::from_str_radix(&digits(rest, radix)?, radix).ok();
        }
    }
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let clean = digits(rest, 10)?;
    if clean.len() > 1 && clean.starts_with('0') {
        return None;
    }
    let text = if negative { format!("-{clean}") } else { clean };
    text.parse().ok()
}

fn float(s: &str) -> Option<f64> {
    let rest = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    if frac.is_none() && exponent.is_none() {
        return None;
    }
    let int = digits(int, 10)?;
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let mut clean = format!("{}{int}", if s.starts_with('-') { "-" } else { "" });
    if let Some(f) = frac {
        clean.push('.');
        clean.push_str(&digits(f, 10)?);
    }
    if let Some(e) = exponent {
        let digits_of = e.strip_prefix(['+', '-']).unwrap_or(e);
        clean.push('e');
        if e.starts_with('-') {
            clean.push('-');
        }
        clean.push_str(&digits(digits_of, 10)?);
    }
    // A literal too large for binary64 is refused, as Cargo's reader refuses it, not read as inf.
    clean.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn number(s: &str, len: usize, max: u32) -> Option<u32> {
    if s.len() != len || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = s.parse().ok()?;
    if n <= max { Some(n) } else { None }
}

/// `YYYY-MM-DD`, a real day.
fn is_date(s: &str) -> bool {
    let mut parts = s.splitn(3, '-');
    let (y, m, d) = match (parts.next(), parts.next(), parts.next()) {
        (Some(y), Some(m), Some(d)) => (y, m, d),
        _ => return false,
    };
    let (year, month, day) = match (number(y, 4, 9999), number(m, 2, 12), number(d, 2, 31)) {
        (Some(y), Some(m), Some(d)) => (y, m, d),
        _ => return false,
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    month >= 1 && day >= 1 && day <= days
}

/// `HH:MM:SS` with an optional fraction, or `HH:MM` (TOML 1.1 makes the seconds optional).
fn is_time(s: &str) -> bool {
    let (hms, frac) = match s.split_once('.') {
        Some((a, f)) => (a, Some(f)),
        None => (s, None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let ok = match parts.as_slice() {
        [h, m] => frac.is_none() && number(h, 2, 23).is_some() && number(m, 2, 59).is_some(),
        [h, m, x] => {
            number(h, 2, 23).is_some() && number(m, 2, 59).is_some() && number(x, 2, 60).is_some()
        }
        _ => false,
    };
    ok && frac.map_or(true, |f| {
        !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit())
    })
}

/// An offset or local date-time, a local date, or a local time.
fn datetime(s: &str) -> bool {
    if is_time(s) {
        return true;
    }
    if s.len() < 10 || !s.is_char_boundary(10) {
        return false;
    }
    let (date, rest) = s.split_at(10);
    if !is_date(date) {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let rest = match rest.as_bytes()[0] {
        b'T' | b't' | b' ' => &rest[1..],
        _ => return false,
    };
    let (time, offset) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, None)
    } else if rest.len() > 6 && matches!(rest.as_bytes()[rest.len() - 6], b'+' | b'-') {
        let (t, o) = rest.split_at(rest.len() - 6);
        (t, Some(&o[1..]))
    } else {
        (rest, None)
    };
    let offset_ok = offset.map_or(true, |o| {
        let mut p = o.splitn(2, ':');
        matches!(
            (
                p.next().and_then(|h| number(h, 2, 23)),
                p.next().and_then(|m| number(m, 2, 59))
            ),
            (Some(_), Some(_))
        )
    });
    is_time(time) && offset_ok
}

/// The tree of a document in one canonical line (tables' keys sorted, every value with its type,
/// a datetime as `datetime`), for the fuzz target that compares it with Cargo's reader; `Err` when
/// the text is not TOML.
#[cfg(fuzzing)]
pub fn canonical(text: &str) -> Result<String, String> {
    fn walk(v: &Value<'_>, out: &mut String) {
        match &v.inner {
            ValueInner::String(s) => out.push_str(&format!("s{s:?}")),
            ValueInner::Integer(i) => out.push_str(&format!("i{i}")),
            ValueInner::Float(f) if f.is_nan() => out.push_str("fnan"),
            ValueInner::Float(f) => out.push_str(&format!("f{f:?}")),
            ValueInner::Boolean(b) => out.push_str(&format!("b{b}")),
            ValueInner::Datetime(_) => out.push_str("datetime"),
            ValueInner::Array(a) => {
                out.push('[');
                for x in a {
                    walk(x, out);
                    out.push(',');
                }
                out.push(']');
            }
            ValueInner::Table(t) => {
                let mut entries: Vec<_> = t.iter().collect();
                entries.sort_by(|a, b| a.0.name.cmp(&b.0.name));
                out.push('{');
                for (k, x) in entries {
                    out.push_str(&format!("{:?}=", k.name));
                    walk(x, out);
                    out.push(',');
                }
                out.push('}');
            }
        }
    }
    let doc = parse(text).map_err(|e| e.to_string())?;
    let mut out = String::new();
    walk(&doc, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_of_sorts_stably_in_n_log_n() {
        assert!(order_of(&[]).is_empty());
        assert_eq!(order_of(&[5]), [0]);
        assert_eq!(order_of(&[3, 1, 2, 1]), [1, 3, 2, 0]);
        // Every arrangement of a pseudo-random sequence with repeats, as the standard sort orders it.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in [2, 3, 7, 8, 9, 64, 1000] {
            let starts: Vec<usize> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 50) as usize
                })
                .collect();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&i| starts[i]);
            assert_eq!(order_of(&starts), want, "{starts:?}");
        }
        // A table written backwards: 100,000 keys, ordered in well under a second.
        let backwards: Vec<usize> = (0..100_000).rev().collect();
        let order = order_of(&backwards);
        assert_eq!(order[0], 99_999);
        assert_eq!(order[99_999], 0);
    }

    fn ok(text: &str) -> Value<'_> {
        match parse(text) {
            Ok(v) => v,
            Err(e) => panic!("{text:?}: {e} at {:?}", e.span),
        }
    }

    fn bad(text: &str) -> String {
        match parse(text) {
            Ok(v) => panic!("{text:?} was read: {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn get<'a, 'de>(v: &'a Value<'de>, path: &str) -> &'a Value<'de> {
        let mut v = v;
        for k in path.split('.') {
            v = v
                .as_table()
                .and_then(|t| t.get(k))
                .unwrap_or_else(|| panic!("no {path}"));
        }
        v
    }

    #[test]
    fn every_kind_of_value() {
        let doc = ok(r#"
# a comment
s = "a\tb\u00e9\U0001F600"
l = 'C:\path'
ml = """
one \
   two"""
mll = '''
x''y'''
i = [1_000, -17, +3, 0xdead_BEEF, 0o17, 0b101]
f = [3.14, -0.5e-3, 1e10, inf, -inf, 6.626e-34]
b = true
d = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00.999-07:00, 1979-05-27, 07:32:00, 1979-05-27T00:32:00.5]
t = { a = 1, b.c = "x" }
u = {
  # TOML 1.1, as Cargo reads it
  a = "\e\x41",
  b = 07:32,
}
e = []
"#);
        assert_eq!(get(&doc, "s").as_str(), Some("a\tbé😀"));
        assert_eq!(get(&doc, "l").as_str(), Some("C:\\path"));
        assert_eq!(get(&doc, "ml").as_str(), Some("one two"));
        assert_eq!(get(&doc, "mll").as_str(), Some("x''y"));
        let ints: Vec<i64> = get(&doc, "i")
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match v.as_ref() {
                ValueInner::Integer(i) => *i,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(ints, [1000, -17, 3, 0xdead_beef, 0o17, 0b101]);
        assert_eq!(get(&doc, "f").as_array().unwrap().len(), 6);
        assert_eq!(get(&doc, "b").as_ref(), &ValueInner::Boolean(true));
        for d in get(&doc, "d").as_array().unwrap() {
            assert_eq!(d.as_ref().type_str(), "datetime", "{d:?}");
        }
        assert_eq!(get(&doc, "t.b.c").as_str(), Some("x"));
        assert_eq!(get(&doc, "u.a").as_str(), Some("\u{1b}A"));
        assert_eq!(get(&doc, "u.b").as_ref().type_str(), "datetime");
        assert_eq!(get(&doc, "e").as_array().map(Vec::len), Some(0));
    }

    #[test]
    fn spans_are_byte_ranges_strings_inside_their_quotes() {
        let text = "[a]\nkey = \"value\"\n'q k' = 1\n";
        let doc = ok(text);
        let a = get(&doc, "a").as_table().unwrap();
        let (k, v) = a.iter().next().unwrap();
        assert_eq!(&text[k.span.start..k.span.end], "key");
        assert_eq!(&text[v.span.start..v.span.end], "value");
        let (k, _) = a.iter().nth(1).unwrap();
        // A quoted key's span is inside its quotes, as a string value's.
        assert_eq!(&text[k.span.start..k.span.end], "q k");
        assert_eq!(k.name, "q k");
    }

    #[test]
    fn tables_headers_and_arrays_of_tables() {
        let doc = ok(
            "[a.b]\nx = 1\n[a]\ny = 2\n[[p]]\nn = 1\n[[p]]\nn = 2\n[p.sub]\nz = 3\n[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true\n",
        );
        assert!(get(&doc, "a.b.x").as_ref() == &ValueInner::Integer(1));
        assert!(get(&doc, "a.y").as_ref() == &ValueInner::Integer(2));
        let p = get(&doc, "p").as_array().unwrap();
        assert_eq!(p.len(), 2);
        assert!(p[1].as_table().unwrap().get("sub").is_some());
        assert!(get(&doc, "fruit.apple.texture.smooth").as_ref() == &ValueInner::Boolean(true));
    }

    #[test]
    fn what_toml_forbids_is_an_error() {
        for (text, says) in [
            ("a = 1\na = 2", "duplicate key `a`"),
            ("[a]\n[a]", "table `a` is defined twice"),
            ("a.b = 1\n[a]", "defined twice"),
            ("[a]\nb.c = 1\n[a.b]", "defined twice"),
            ("a = {}\n[a.b]", "inline table"),
            ("a = { b = 1 }\na.c = 2", "cannot add"),
            ("t = { a = { b = 1 }, a.c = 2 }", "cannot add"),
            ("a = [1]\n[[a]]", "defined twice"),
            ("[[a]]\n[a]", "defined twice"),
            (
                "a = 1 b = 2",
                "expected the end of the line (a line break or a comment), found `b`",
            ),
            ("a = \"x\ny\"", "line break"),
            ("a = \"\\q\"", "not an escape"),
            ("a = \"\\uD800\"", "not a Unicode scalar value"),
            ("a = 01", "not a value"),
            ("a = 1__0", "not a value"),
            ("a = 1.", "not a value"),
            ("a = .5", "not a value"),
            ("a = 1979-02-30", "not a value"),
            ("a = 25:00:00", "not a value"),
            ("a = bare", "not a value"),
            ("a = { b = 1,, }", "expected a key"),
            ("a = [1 2]", "expected `,` or `]`"),
            ("a = [1", "never closed"),
            ("a = 'x", "never closed"),
            ("= 1", "expected a key"),
            ("a 1", "expected `=` after the key, found `1`"),
            ("a = 1\r", "carriage return"),
            ("# \u{1}", "control character"),
            (
                "[a",
                "expected `]` to close the table header, found the end of the document",
            ),
            ("a = 9223372036854775808", "not a value"),
        ] {
            let e = bad(text);
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn what_cargo_reads_is_read() {
        // Found by fuzz/fuzz_targets/config_toml.rs: Cargo's reader takes line breaks around `=`
        // in an inline table.
        let doc = ok("x = { a\n= [ { b = 3 } ] }\n");
        assert_eq!(get(&doc, "x").as_table().map(|t| t.iter().count()), Some(1));
        // A float literal too large for binary64 is refused, as Cargo's reader refuses it.
        assert!(bad("a = 98e0901378").contains("not a value"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!(
            "a = {}1{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert!(bad(&deep).contains("nested more than"));
        let fine = format!("a = {}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        ok(&fine);
    }
}

//! What a response is: continuation, tagged status, untagged data, and their parts.

use super::printable;

/// The longest server text quoted in a message, in bytes.
pub const QUOTE_MAX: usize = 400;

/// A parsed response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// `+ text`: go on (send the literal, or the next SASL step).
    Continuation(Vec<u8>),
    /// `tag OK|NO|BAD [code] text`.
    Tagged {
        /// The command's tag.
        tag: String,
        /// The status.
        status: Status,
    },
    /// `* ...`.
    Untagged(Untagged),
}

/// `OK|NO|BAD [code] text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Which one.
    pub kind: StatusKind,
    /// The response code.
    pub code: Option<Code>,
    /// The human-readable text.
    pub text: String,
}

impl Status {
    /// `NO [CODE] text` as the server said it, for messages to the user: control characters
    /// escaped (a server's text could otherwise clear the screen or set the terminal's title),
    /// and cut after [`QUOTE_MAX`] bytes.
    pub fn quote(&self) -> String {
        printable(self.raw_quote().as_bytes(), QUOTE_MAX)
    }

    fn raw_quote(&self) -> String {
        let mut s = String::from(self.kind.name());
        if let Some(code) = &self.code {
            s.push_str(" [");
            s.push_str(&code.to_string());
            s.push(']');
        }
        if !self.text.is_empty() {
            s.push(' ');
            s.push_str(&self.text);
        }
        s
    }
}

/// The status word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    /// `OK`.
    Ok,
    /// `NO`.
    No,
    /// `BAD`.
    Bad,
    /// `PREAUTH` (greeting only).
    Preauth,
    /// `BYE`.
    Bye,
}

impl StatusKind {
    /// As written.
    pub fn name(self) -> &'static str {
        match self {
            StatusKind::Ok => "OK",
            StatusKind::No => "NO",
            StatusKind::Bad => "BAD",
            StatusKind::Preauth => "PREAUTH",
            StatusKind::Bye => "BYE",
        }
    }
}

/// A response code (`[...]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// `CAPABILITY ...`.
    Capability(Vec<String>),
    /// `APPENDUID uidvalidity uid-set` (RFC 4315).
    AppendUid {
        /// UIDVALIDITY.
        validity: u32,
        /// The UIDs assigned, in order.
        uids: Vec<u32>,
    },
    /// `UIDVALIDITY n`.
    UidValidity(u32),
    /// `UIDNEXT n`.
    UidNext(u32),
    /// Any other code: its atom and the rest.
    Other(String, String),
}

impl Code {
    /// The code's atom, upper case.
    pub fn name(&self) -> &str {
        match self {
            Code::Capability(_) => "CAPABILITY",
            Code::AppendUid { .. } => "APPENDUID",
            Code::UidValidity(_) => "UIDVALIDITY",
            Code::UidNext(_) => "UIDNEXT",
            Code::Other(name, _) => name,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Capability(c) => write!(f, "CAPABILITY {}", c.join(" ")),
            Code::AppendUid { validity, uids } => {
                write!(f, "APPENDUID {validity} ")?;
                let list: Vec<String> = uids.iter().map(u32::to_string).collect();
                f.write_str(&list.join(","))
            }
            Code::UidValidity(n) => write!(f, "UIDVALIDITY {n}"),
            Code::UidNext(n) => write!(f, "UIDNEXT {n}"),
            Code::Other(name, rest) if rest.is_empty() => f.write_str(name),
            Code::Other(name, rest) => write!(f, "{name} {rest}"),
        }
    }
}

/// Untagged data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untagged {
    /// `* OK|NO|BAD|PREAUTH|BYE ...`.
    Status(Status),
    /// `* CAPABILITY ...`.
    Capability(Vec<String>),
    /// `* LIST (attributes) delimiter name` (also LSUB).
    List {
        /// Attributes (`\Drafts`, `\Noselect`, ...).
        attributes: Vec<String>,
        /// The hierarchy delimiter, if any.
        delimiter: Option<char>,
        /// The name as sent (modified UTF-7).
        name: Vec<u8>,
    },
    /// `* SEARCH n ...`.
    Search(Vec<u32>),
    /// `* ESEARCH (TAG "t") UID ALL 1:3,5` (RFC 4731): the UIDs (or sequence numbers) found by
    /// the command with that tag.
    Esearch {
        /// The command's tag.
        tag: Option<String>,
        /// The numbers found (`ALL`).
        all: Vec<u32>,
    },
    /// `* n EXISTS`.
    Exists(u32),
    /// `* n FETCH (...)`.
    Fetch {
        /// Sequence number.
        seq: u32,
        /// The attribute/value pairs.
        items: Vec<(String, Value)>,
    },
    /// Anything else (`FLAGS`, `RECENT`, `EXPUNGE`, `ENABLED`, ...): its keyword.
    Other(String),
}

impl Untagged {
    /// About how many bytes of memory it takes (itself and what it owns), for limits on what a
    /// session keeps.
    pub fn memory(&self) -> usize {
        let strings = |v: &[String]| {
            v.iter()
                .map(|s| s.len() + std::mem::size_of::<String>())
                .sum::<usize>()
        };
        std::mem::size_of::<Untagged>()
            + match self {
                Untagged::Status(s) => s.memory(),
                Untagged::Capability(c) => strings(c),
                Untagged::List {
                    attributes, name, ..
                } => strings(attributes) + name.len(),
                Untagged::Search(n) => 4 * n.len(),
                Untagged::Esearch { tag, all } => {
                    tag.as_ref().map_or(0, String::len) + 4 * all.len()
                }
                Untagged::Exists(_) => 0,
                Untagged::Fetch { items, .. } => items
                    .iter()
                    .map(|(name, value)| {
                        name.len() + std::mem::size_of::<String>() + value.memory()
                    })
                    .sum(),
                Untagged::Other(s) => s.len(),
            }
    }
}

impl Status {
    fn memory(&self) -> usize {
        self.text.len()
            + match &self.code {
                None | Some(Code::UidValidity(_) | Code::UidNext(_)) => 0,
                Some(Code::Capability(c)) => c
                    .iter()
                    .map(|s| s.len() + std::mem::size_of::<String>())
                    .sum(),
                Some(Code::AppendUid { uids, .. }) => 4 * uids.len(),
                Some(Code::Other(a, b)) => a.len() + b.len(),
            }
    }
}

/// A value in a parenthesised list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// An atom (or a number).
    Atom(String),
    /// A quoted string or literal.
    String(Vec<u8>),
    /// `NIL`.
    Nil,
    /// `( ... )`.
    List(Vec<Value>),
}

impl Value {
    /// About how many bytes of memory it takes.
    pub fn memory(&self) -> usize {
        std::mem::size_of::<Value>()
            + match self {
                Value::Atom(a) => a.len(),
                Value::String(s) => s.len(),
                Value::Nil => 0,
                Value::List(l) => l.iter().map(Value::memory).sum(),
            }
    }

    /// The bytes of a string, or of an atom.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Atom(a) => Some(a.as_bytes()),
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

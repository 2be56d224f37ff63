//! Splitting `git format-patch --stdout` output (an mbox) into messages, as `git imap-send` does.
//!
//! git's rule (imap-send.c `split_msg`): the input starts with a `From ` line; a message runs from
//! the line after it to the next line that starts with `From `; the separator line itself is not
//! part of the message. That rule cuts a patch in two when its body has a line starting with
//! `From ` (format-patch does not escape it in its default format). So when the first separator
//! is format-patch's own magic line (`From <commit id> Mon Sep 17 00:00:00 2001`), only lines of
//! that exact shape separate messages; any other input is split at every `From ` line, as git
//! does. With `--mboxrd` (for `git format-patch --pretty=mboxrd`), body lines `>From `, `>>From `
//! ... lose one `>`.
//!
//! Each message must look like a mail: a header section (with `From:` and `Subject:`, as git's
//! `count_messages` requires), then an empty line. An empty input, or one that does not start
//! with a `From ` line, or a message without headers, is an error for the whole input, so that
//! nothing is stored from a malformed series.
//!
//! This module never panics on any input (property-tested and fuzzed).

use std::fmt;

/// Why an mbox was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MboxError {
    /// No bytes at all (or only white space).
    #[error("the mbox is empty: nothing to send (pipe 'git format-patch --stdout' into it)")]
    Empty,
    /// The first line is not a `From ` separator.
    #[error(
        "the input is not an mbox: line 1 does not start with 'From ' (expected 'git format-patch --stdout' output)"
    )]
    NoSeparator,
    /// A message is not a mail.
    #[error("message {index} (line {line}) is malformed: {reason}")]
    Malformed {
        /// 1-based message number.
        index: usize,
        /// 1-based line number of its separator line in the input.
        line: usize,
        /// What is wrong.
        reason: MalformedReason,
    },
}

/// What is wrong with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalformedReason {
    /// Nothing between two separators.
    Empty,
    /// A line in the header section is neither `Name: value` nor a continuation.
    BadHeaderLine(usize),
    /// No empty line ends the headers.
    NoBody,
    /// No `From:` header.
    NoFrom,
    /// No `Subject:` header.
    NoSubject,
}

impl fmt::Display for MalformedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedReason::Empty => f.write_str("it is empty"),
            MalformedReason::BadHeaderLine(line) => {
                write!(f, "line {line} is not a header line ('Name: value')")
            }
            MalformedReason::NoBody => f.write_str("no empty line ends its headers"),
            MalformedReason::NoFrom => f.write_str("it has no 'From:' header"),
            MalformedReason::NoSubject => f.write_str("it has no 'Subject:' header"),
        }
    }
}

/// How `>From ` lines are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// mboxo, format-patch's default: lines are taken as they are.
    #[default]
    Mboxo,
    /// mboxrd: one `>` is removed from lines matching `^>+From `.
    Mboxrd,
}

/// One message of the series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The message as in the input (separator dropped, `>From ` unescaped for mboxrd).
    pub raw: Vec<u8>,
    /// 1-based line number of its separator line in the input.
    pub line: usize,
    /// The unfolded `Subject:` value (lossy UTF-8), for reports.
    pub subject: String,
    /// The unfolded `Date:` value, when present.
    pub date: Option<String>,
    /// The `Message-ID:` value, when present.
    pub message_id: Option<String>,
}

impl Message {
    /// The bytes to store: line endings converted to CRLF, as git imap-send stores them.
    pub fn to_crlf(&self) -> Vec<u8> {
        to_crlf(&self.raw)
    }

    /// The value of the first header `name` (case-insensitive), unfolded.
    pub fn header(&self, name: &str) -> Option<String> {
        header_value(&self.raw, name)
    }
}

/// Converts bare LF to CRLF (an existing CRLF stays as it is).
pub fn to_crlf(data: &[u8]) -> Vec<u8> {
    let extra = data.iter().filter(|&&b| b == b'\n').count();
    let mut out = Vec::with_capacity(data.len() + extra);
    let mut prev = 0u8;
    for &b in data {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    out
}

/// Splits an mbox into messages.
pub fn split(input: &[u8], format: Format) -> Result<Vec<Message>, MboxError> {
    if input.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(MboxError::Empty);
    }
    if !input.starts_with(b"From ") {
        return Err(MboxError::NoSeparator);
    }
    let lines = Lines::new(input);
    let mut strict = false;
    let mut messages = Vec::new();
    let mut current: Option<(usize, Vec<u8>)> = None;
    for (number, line) in lines {
        let is_separator = if number == 1 {
            strict = is_format_patch_magic(line);
            true
        } else if strict {
            is_format_patch_magic(line)
        } else {
            line.starts_with(b"From ")
        };
        if is_separator {
            if let Some((start, raw)) = current.take() {
                messages.push(finish(messages.len() + 1, start, raw)?);
            }
            current = Some((number, Vec::new()));
            continue;
        }
        if let Some((_, raw)) = current.as_mut() {
            match format {
                Format::Mboxrd if is_escaped_from(line) => raw.extend_from_slice(&line[1..]),
                _ => raw.extend_from_slice(line),
            }
        }
    }
    if let Some((start, raw)) = current.take() {
        messages.push(finish(messages.len() + 1, start, raw)?);
    }
    if messages.is_empty() {
        return Err(MboxError::Empty);
    }
    Ok(messages)
}

/// Lines including their `\n` (the last one may have none), numbered from 1.
struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl<'a> Lines<'a> {
    fn new(input: &'a [u8]) -> Lines<'a> {
        Lines {
            rest: input,
            number: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self
            .rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.rest.len(), |i| i + 1);
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        self.number += 1;
        Some((self.number, line))
    }
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `From <40 or 64 hex digits> Mon Sep 17 00:00:00 2001`: the line format-patch writes.
pub fn is_format_patch_magic(line: &[u8]) -> bool {
    let line = trim_eol(line);
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    let hex = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    (hex == 40 || hex == 64) && rest.get(hex..) == Some(b" Mon Sep 17 00:00:00 2001".as_slice())
}

fn is_escaped_from(line: &[u8]) -> bool {
    let quotes = line.iter().take_while(|&&b| b == b'>').count();
    quotes > 0 && line.get(quotes..).is_some_and(|r| r.starts_with(b"From "))
}

fn finish(index: usize, line: usize, raw: Vec<u8>) -> Result<Message, MboxError> {
    let malformed = |reason| MboxError::Malformed {
        index,
        line,
        reason,
    };
    if raw.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(malformed(MalformedReason::Empty));
    }
    let mut has_from = false;
    let mut has_subject = false;
    let mut ended = false;
    for (offset, l) in Lines::new(&raw) {
        let l = trim_eol(l);
        if l.is_empty() {
            ended = true;
            break;
        }
        if l[0] == b' ' || l[0] == b'\t' {
            if offset == 1 {
                return Err(malformed(MalformedReason::BadHeaderLine(line + offset)));
            }
            continue;
        }
        let Some(colon) = l.iter().position(|&b| b == b':') else {
            return Err(malformed(MalformedReason::BadHeaderLine(line + offset)));
        };
        let name = &l[..colon];
        if name.is_empty() || !name.iter().all(|&b| b.is_ascii_graphic()) {
            return Err(malformed(MalformedReason::BadHeaderLine(line + offset)));
        }
        has_from |= name.eq_ignore_ascii_case(b"From");
        has_subject |= name.eq_ignore_ascii_case(b"Subject");
    }
    if !ended {
        return Err(malformed(MalformedReason::NoBody));
    }
    if !has_from {
        return Err(malformed(MalformedReason::NoFrom));
    }
    if !has_subject {
        return Err(malformed(MalformedReason::NoSubject));
    }
    let subject = header_value(&raw, "Subject").unwrap_or_default();
    let date = header_value(&raw, "Date");
    let message_id = header_value(&raw, "Message-ID").filter(|v| !v.is_empty());
    Ok(Message {
        raw,
        line,
        subject,
        date,
        message_id,
    })
}

/// The unfolded value of the first header `name` in `raw` (headers end at the first empty line).
pub fn header_value(raw: &[u8], name: &str) -> Option<String> {
    let mut value: Option<Vec<u8>> = None;
    for (_, l) in Lines::new(raw) {
        let l = trim_eol(l);
        if l.is_empty() {
            break;
        }
        if l[0] == b' ' || l[0] == b'\t' {
            if let Some(v) = value.as_mut() {
                v.extend_from_slice(l);
            }
            continue;
        }
        if value.is_some() {
            break;
        }
        if let Some(colon) = l.iter().position(|&b| b == b':')
            && l[..colon].eq_ignore_ascii_case(name.as_bytes())
        {
            value = Some(l[colon + 1..].to_vec());
        }
    }
    value.map(|v| String::from_utf8_lossy(&v).trim().to_string())
}

/// git's `imap.preformattedHTML`: the body is HTML-escaped and wrapped in `<pre>`, and a
/// `Content-Type: text/html;` header is added (imap-send.c `wrap_in_html`). A message without a
/// body is left as it is.
pub fn wrap_in_html(raw: &[u8]) -> Vec<u8> {
    let Some(split) = raw.windows(2).position(|w| w == b"\n\n") else {
        return raw.to_vec();
    };
    let (head, body) = (&raw[..=split], &raw[split + 2..]);
    let mut out = Vec::with_capacity(raw.len() + body.len() / 8 + 64);
    out.extend_from_slice(head);
    out.extend_from_slice(b"Content-Type: text/html;\n\n<pre>\n");
    for &b in body {
        match b {
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'&' => out.extend_from_slice(b"&amp;"),
            b'"' => out.extend_from_slice(b"&quot;"),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"</pre>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &str = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n";

    fn patch(subject: &str, body: &str) -> String {
        format!(
            "{MAGIC}From: A U Thor <a@example.org>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\nSubject: {subject}\n\n{body}\n-- \n2.47.3\n\n"
        )
    }

    #[test]
    fn splits_format_patch_output() {
        let input = format!(
            "{}{}",
            patch("[PATCH 1/2] one", "a"),
            patch("[PATCH 2/2] two", "b")
        );
        let m = split(input.as_bytes(), Format::Mboxo).unwrap();
        assert_eq!(m.len(), 2);
        assert!(m[0].raw.starts_with(b"From: A U Thor"));
        assert!(m[0].raw.ends_with(b"2.47.3\n\n"));
        assert_eq!(m[1].subject, "[PATCH 2/2] two");
        assert_eq!(m[1].line, 10);
        assert_eq!(m[0].date.as_deref(), Some("Mon, 1 Jan 2024 00:00:00 +0000"));
        assert_eq!(m[0].message_id, None);
    }

    #[test]
    fn body_from_line_does_not_split_format_patch_output() {
        let input = patch("x", "From the start\nFrom here");
        let m = split(input.as_bytes(), Format::Mboxo).unwrap();
        assert_eq!(m.len(), 1);
        assert!(String::from_utf8_lossy(&m[0].raw).contains("\nFrom the start\n"));
    }

    #[test]
    fn generic_mbox_splits_at_every_from_line() {
        let input = "From a@b Sat Jan  1 00:00:00 2000\nFrom: a\nSubject: s\n\nx\nFrom b@c Sat Jan  1 00:00:00 2000\nFrom: b\nSubject: t\n\ny\n";
        let m = split(input.as_bytes(), Format::Mboxo).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].raw, b"From: b\nSubject: t\n\ny\n");
    }

    #[test]
    fn mboxrd_unescapes() {
        let input = patch("x", ">From me\n>>From you\n> From not");
        let rd = split(input.as_bytes(), Format::Mboxrd).unwrap();
        let text = String::from_utf8_lossy(&rd[0].raw).into_owned();
        assert!(
            text.contains("\nFrom me\n>From you\n> From not\n"),
            "{text}"
        );
        let o = split(input.as_bytes(), Format::Mboxo).unwrap();
        assert!(String::from_utf8_lossy(&o[0].raw).contains("\n>From me\n"));
    }

    #[test]
    fn folded_subject_and_message_id() {
        let input = format!(
            "{MAGIC}From: a\nSubject: [PATCH] a very\n long subject\nMessage-ID: <x@y>\n\nbody\n"
        );
        let m = split(input.as_bytes(), Format::Mboxo).unwrap();
        assert_eq!(m[0].subject, "[PATCH] a very long subject");
        assert_eq!(m[0].message_id.as_deref(), Some("<x@y>"));
    }

    #[test]
    fn errors() {
        assert_eq!(split(b"", Format::Mboxo), Err(MboxError::Empty));
        assert_eq!(split(b"\n \n", Format::Mboxo), Err(MboxError::Empty));
        assert_eq!(
            split(b"Subject: x\n\n", Format::Mboxo),
            Err(MboxError::NoSeparator)
        );
        let e = split(format!("{MAGIC}not a header\n\n").as_bytes(), Format::Mboxo).unwrap_err();
        assert_eq!(
            e.to_string(),
            "message 1 (line 1) is malformed: line 2 is not a header line ('Name: value')"
        );
        let e = split(
            format!("{MAGIC}From: a\nSubject: b\n").as_bytes(),
            Format::Mboxo,
        );
        assert!(matches!(
            e,
            Err(MboxError::Malformed {
                reason: MalformedReason::NoBody,
                ..
            })
        ));
        let e = split(format!("{MAGIC}Subject: b\n\nx").as_bytes(), Format::Mboxo);
        assert!(matches!(
            e,
            Err(MboxError::Malformed {
                reason: MalformedReason::NoFrom,
                ..
            })
        ));
        let two = format!("{}{MAGIC}", patch("a", "b"));
        let e = split(two.as_bytes(), Format::Mboxo);
        assert!(matches!(
            e,
            Err(MboxError::Malformed {
                index: 2,
                reason: MalformedReason::Empty,
                ..
            })
        ));
    }

    #[test]
    fn crlf() {
        assert_eq!(to_crlf(b"a\nb\r\nc"), b"a\r\nb\r\nc");
        assert_eq!(to_crlf(b"\n\n"), b"\r\n\r\n");
        assert_eq!(to_crlf(b""), b"");
    }

    #[test]
    fn html() {
        let out = wrap_in_html(b"Subject: x\n\na<b & \"c\">\n");
        assert_eq!(
            out,
            b"Subject: x\nContent-Type: text/html;\n\n<pre>\na&lt;b &amp; &quot;c&quot;&gt;\n</pre>\n"
        );
        assert_eq!(wrap_in_html(b"Subject: x\n"), b"Subject: x\n");
    }
}

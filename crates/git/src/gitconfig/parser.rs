//! The configuration syntax, parsed byte by byte as git's `config.c` does.

use super::*;

/// git's byte-wise configuration parser.
pub(super) struct Parser<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
    pub(super) linenr: usize,
    pub(super) eof: bool,
    /// Read as git reads a memory buffer (signed `char`: 0xff is EOF, no byte order mark).
    pub(super) memory: bool,
}

pub(super) fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// git's own `isspace` (its `sane_ctype`): space, tab, newline and carriage return only.
pub(super) fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Parser<'_> {
    /// git's `get_next_char`: `\r\n` is `\n`, and the end reads as a (counted) `\n`.
    fn next(&mut self) -> u8 {
        let Some(&c) = self.buf.get(self.pos) else {
            self.eof = true;
            self.linenr += 1;
            return b'\n';
        };
        self.pos += 1;
        if self.memory && c == 0xff {
            self.eof = true;
            self.linenr += 1;
            return b'\n';
        }
        if self.memory && c == b'\r' && self.buf.get(self.pos) == Some(&0xff) {
            // git reads the 0xff after a carriage return as EOF and does not put it back.
            self.pos += 1;
            return c;
        }
        let c = if c == b'\r' && self.buf.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
            b'\n'
        } else {
            c
        };
        if c == b'\n' {
            self.linenr += 1;
        }
        c
    }

    pub(super) fn run(&mut self, origin: &Path, scope: Scope, out: &mut Parsed) {
        const BOM: &[u8] = b"\xef\xbb\xbf";
        let mut bom = 0usize;
        let mut comment = false;
        let mut var: Vec<u8> = Vec::new();
        let mut baselen = 0usize;
        loop {
            let c = self.next();
            if bom < BOM.len() && !self.memory {
                if !self.eof && c == BOM[bom] {
                    bom += 1;
                    continue;
                }
                if bom != 0 {
                    break;
                }
                bom = BOM.len();
            }
            if c == b'\n' {
                if self.eof {
                    return;
                }
                comment = false;
                continue;
            }
            if comment {
                continue;
            }
            if is_space(c) {
                continue;
            }
            if c == b'#' || c == b';' {
                comment = true;
                continue;
            }
            if c == b'[' {
                var.clear();
                if self.base_var(&mut var).is_err() || var.is_empty() {
                    break;
                }
                var.push(b'.');
                baselen = var.len();
                continue;
            }
            if !c.is_ascii_alphabetic() {
                break;
            }
            var.truncate(baselen);
            var.push(c.to_ascii_lowercase());
            match self.value(&mut var) {
                Some(value) => {
                    // git's callbacks get C strings: a NUL in a subsection ends the name.
                    let key_bytes = var.split(|&b| b == 0).next().unwrap_or(&var).to_vec();
                    out.entries.push(Entry {
                        key: String::from_utf8_lossy(&key_bytes).into_owned(),
                        key_bytes,
                        value,
                        origin: origin.to_path_buf(),
                        line: self.linenr.saturating_sub(1),
                        scope,
                    });
                }
                None => break,
            }
        }
        out.bad_line = Some(self.linenr);
    }

    /// The name's rest and the value (`Some(None)` for no `=`); `None` for a syntax error.
    #[allow(clippy::option_option)]
    fn value(&mut self, name: &mut Vec<u8>) -> Option<Option<Vec<u8>>> {
        let mut c;
        loop {
            c = self.next();
            if self.eof || !is_key_char(c) {
                break;
            }
            name.push(c.to_ascii_lowercase());
        }
        while c == b' ' || c == b'\t' {
            c = self.next();
        }
        if c == b'\n' {
            return Some(None);
        }
        if c != b'=' {
            return None;
        }
        self.parse_value().map(Some)
    }

    /// git's `parse_value`, from after `=` to the end of the (continued) line.
    fn parse_value(&mut self) -> Option<Vec<u8>> {
        let mut quote = false;
        let mut comment = false;
        let mut trim_len = 0usize;
        let mut value = Vec::new();
        loop {
            let mut c = self.next();
            if c == b'\n' {
                if quote {
                    self.linenr = self.linenr.saturating_sub(1);
                    return None;
                }
                if trim_len != 0 {
                    value.truncate(trim_len);
                }
                return Some(value);
            }
            if comment {
                continue;
            }
            if is_space(c) && !quote {
                if trim_len == 0 {
                    trim_len = value.len();
                }
                if !value.is_empty() {
                    value.push(c);
                }
                continue;
            }
            if !quote && (c == b';' || c == b'#') {
                comment = true;
                continue;
            }
            trim_len = 0;
            if c == b'\\' {
                c = self.next();
                c = match c {
                    b'\n' => continue,
                    b't' => b'\t',
                    b'b' => b'\x08',
                    b'n' => b'\n',
                    b'\\' | b'"' => c,
                    _ => return None,
                };
                value.push(c);
                continue;
            }
            if c == b'"' {
                quote = !quote;
                continue;
            }
            value.push(c);
        }
    }

    /// git's `get_base_var`: the section header after `[`.
    fn base_var(&mut self, name: &mut Vec<u8>) -> Result<(), ()> {
        loop {
            let c = self.next();
            if self.eof {
                return Err(());
            }
            if c == b']' {
                return Ok(());
            }
            if is_space(c) {
                return self.extended_base_var(name, c);
            }
            if !is_key_char(c) && c != b'.' {
                return Err(());
            }
            name.push(c.to_ascii_lowercase());
        }
    }

    /// git's `get_extended_base_var`: `[section "subsection"]`.
    fn extended_base_var(&mut self, name: &mut Vec<u8>, mut c: u8) -> Result<(), ()> {
        loop {
            if c == b'\n' {
                self.linenr = self.linenr.saturating_sub(1);
                return Err(());
            }
            c = self.next();
            if !is_space(c) {
                break;
            }
        }
        if c != b'"' {
            return Err(());
        }
        name.push(b'.');
        loop {
            let mut c = self.next();
            if c == b'\n' {
                self.linenr = self.linenr.saturating_sub(1);
                return Err(());
            }
            if c == b'"' {
                break;
            }
            if c == b'\\' {
                c = self.next();
                if c == b'\n' {
                    self.linenr = self.linenr.saturating_sub(1);
                    return Err(());
                }
            }
            name.push(c);
        }
        if self.next() != b']' {
            return Err(());
        }
        Ok(())
    }
}

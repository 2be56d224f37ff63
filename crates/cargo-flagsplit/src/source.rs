//! Text files that diagnostics point into (a policy, a Cargo config file, the graph-wide file):
//! their line starts indexed once, so that a position is a binary search and a snippet is a
//! slice of whole lines, whatever the file's size.

use std::ops::Range;
use std::rc::Rc;

use flagsplit_config::LineIndex;

/// A file's name (as the user gave it) and text.
#[derive(Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// Where each line starts (flagsplit-config's, which its config files' messages count with).
    lines: LineIndex,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Rc<SourceFile> {
        let text = text.into();
        Rc::new(SourceFile {
            name: name.into(),
            lines: LineIndex::new(&text),
            text,
        })
    }

    /// The line and column (both from 1; the column counts characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col(&self.text, offset)
    }

    /// The byte offset of line `line`, column `column` (both from 1, the column in characters).
    pub fn offset(&self, line: usize, column: usize) -> usize {
        self.lines.offset(&self.text, line, column)
    }

    /// The whole lines `range` touches: the first one's number (from 1) and their bytes,
    /// without the last line's newline.
    pub fn lines_of(&self, range: &Range<usize>) -> (usize, Range<usize>) {
        let start = range.start.min(self.text.len());
        let end = range.end.clamp(start, self.text.len());
        let first = self.lines.line_of(start);
        let last = self.lines.line_of(end.saturating_sub(1).max(start));
        let line_end = self
            .lines
            .line_start(last + 1)
            .map_or(self.text.len(), |s| s - 1);
        let first_start = self.lines.line_start(first).unwrap_or(0);
        (first + 1, first_start..line_end.max(start))
    }
}

/// A range of a [`SourceFile`], within its text and on character boundaries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub file: Rc<SourceFile>,
    pub range: Range<usize>,
}

impl Span {
    /// `range` of `file`, widened to whole characters and cut to the text (a parser's error span
    /// may be one byte of a character that is not ASCII, or lie past the end).
    pub fn new(file: &Rc<SourceFile>, range: Range<usize>) -> Span {
        let text = &file.text;
        let mut start = range.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = range.end.clamp(start, text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        Span {
            file: Rc::clone(file),
            range: start..end,
        }
    }

    /// `FILE:LINE:COL` of its start.
    pub fn at(&self) -> String {
        let (line, col) = self.file.line_col(self.range.start);
        format!("{}:{line}:{col}", self.file.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let f = SourceFile::new("p.toml", "[[deny]]\nreason = \"é\"; x = 1\n\nlast");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(9), (2, 1));
        // After the two-byte é the column is one character further, not two.
        let x = f.text.find("x =").unwrap();
        assert_eq!(f.line_col(x), (2, 15));
        assert_eq!(f.line_col(f.text.len()), (4, 5));
        assert_eq!(Span::new(&f, x..x + 1).at(), "p.toml:2:15");
    }

    #[test]
    fn spans_hold_whole_characters() {
        let f = SourceFile::new("p", "ab\u{fffd}cd");
        assert_eq!(Span::new(&f, 3..4).range, 2..5);
        assert_eq!(Span::new(&f, 4..40).range, 2..7);
        assert_eq!(Span::new(&f, 50..60).range, 7..7);
    }

    #[test]
    fn whole_lines_of_a_range() {
        let f = SourceFile::new("p", "a\nbb\ncc\nd\n");
        assert_eq!(f.lines_of(&(3..4)), (2, 2..4));
        assert_eq!(f.lines_of(&(2..7)), (2, 2..7));
        assert_eq!(&f.text[f.lines_of(&(2..7)).1], "bb\ncc");
        assert_eq!(f.lines_of(&(0..0)), (1, 0..1));
    }
}

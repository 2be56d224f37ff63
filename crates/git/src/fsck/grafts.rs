//! The parents git gives a commit instead of its own: the commits of a shallow repository's
//! boundary (`shallow`: none) and git's deprecated grafts (`info/grafts`, or the file
//! `GIT_GRAFT_FILE` names), read as git 2.47's `read_graft_file` reads them. A shallow commit's
//! entry wins over a graft of the same commit (git registers the shallow ones last, replacing).
//!
//! git reads the graft file when it first parses a commit, and then prints its deprecation
//! advice (unless `GIT_ADVICE=0` or `advice.graftFileDeprecated=false`) and an error for each
//! line it cannot use: [`Grafts::lines`].

use std::collections::{HashMap, HashSet};

use crate::links::{Link, Links};
use crate::{Kind, ObjectFormat};

use super::table::{Oid, oid};

/// git's advice when it reads a graft file, as `advise` prints it.
const ADVICE: &[&str] = &[
    "hint: Support for <GIT_DIR>/info/grafts is deprecated",
    "hint: and will be removed in a future Git version.",
    "hint:",
    "hint: Please use \"git replace --convert-graft-file\"",
    "hint: to convert the grafts into replace refs.",
    "hint:",
    "hint: Turn this message off by running",
    "hint: \"git config advice.graftFileDeprecated false\"",
];

/// The grafts of a repository.
#[derive(Debug, Default)]
pub struct Grafts {
    /// The commits git grafts, with the parents it gives them.
    pub parents: HashMap<Oid, Vec<Oid>>,
    /// Whether a graft file was read.
    pub read: bool,
    /// What git prints when it reads the file (its advice, `bad graft data: LINE`,
    /// `duplicate graft data: LINE`), with their prefixes.
    pub lines: Vec<String>,
}

impl Grafts {
    /// Reads `text`, the graft file's content, as git does (`advise`: whether git gives its
    /// advice).
    pub fn parse(text: &[u8], format: ObjectFormat, advise: bool) -> Grafts {
        let mut g = Grafts {
            read: true,
            ..Grafts::default()
        };
        if advise {
            g.lines.extend(ADVICE.iter().map(|l| l.to_string()));
        }
        let hex = format.hex_len();
        let parse_id = |s: &[u8]| -> Option<Oid> {
            let h = s.get(..hex)?;
            crate::repo::parse_hex(h, format.raw_len()).map(|raw| oid(&raw))
        };
        // Lines as `strbuf_getwholeline` gives them (the last may lack its newline).
        for raw_line in text.split_inclusive(|&b| b == b'\n') {
            // `strbuf_rtrim`.
            let line = raw_line.trim_ascii_end();
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            let shown = String::from_utf8_lossy(line);
            let Some(commit) = parse_id(line) else {
                g.lines.push(format!("error: bad graft data: {shown}"));
                continue;
            };
            let mut rest = &line[hex..];
            let mut parents = Vec::new();
            let mut bad = false;
            while !rest.is_empty() {
                // One whitespace byte, then an id.
                match (rest[0].is_ascii_whitespace(), parse_id(&rest[1..])) {
                    (true, Some(p)) => {
                        parents.push(p);
                        rest = &rest[1 + hex..];
                    }
                    _ => {
                        bad = true;
                        break;
                    }
                }
            }
            if bad {
                g.lines.push(format!("error: bad graft data: {shown}"));
                continue;
            }
            if g.parents.contains_key(&commit) {
                g.lines
                    .push(format!("error: duplicate graft data: {shown}"));
                continue;
            }
            g.parents.insert(commit, parents);
        }
        g
    }

    /// The parents git gives commit `id` instead of its own, if it does (`shallow`: the
    /// shallow boundary, whose commits have none).
    pub fn of<'a>(&'a self, id: &Oid, shallow: &HashSet<Oid>) -> Option<&'a [Oid]> {
        if shallow.contains(id) {
            return Some(&[]);
        }
        self.parents.get(id).map(Vec::as_slice)
    }
}

/// The links of commit `id` as git's parser makes them: a grafted or shallow commit's own
/// parents are replaced by the ones git gives it (`parents`), which its parser then looks up
/// (unless its own parent lines did not parse: git stops there).
pub fn apply(links: &mut Links, parents: Option<&[Oid]>, format: ObjectFormat) {
    let Some(parents) = parents else {
        return;
    };
    links.targets.retain(|t| t.kind != Kind::Commit);
    if links.parse_failed {
        return;
    }
    links.grafted = true;
    links.targets.extend(parents.iter().map(|p| Link {
        kind: Kind::Commit,
        id: p[..format.raw_len()].to_vec(),
        mode: 0,
        name: Vec::new(),
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    /// Lines as git reads them: comments and blank lines skipped, trailing blanks trimmed,
    /// bad lines and duplicates reported (the first graft of a commit wins).
    #[test]
    fn graft_lines() {
        let text = format!("# c\n\n{A} {B}  \n{A}\n{B} x\ngarbage\n{B}");
        let g = Grafts::parse(text.as_bytes(), ObjectFormat::Sha1, false);
        let a = oid(&[0x11; 20]);
        let b = oid(&[0x22; 20]);
        assert_eq!(g.parents.get(&a), Some(&vec![b]));
        assert_eq!(g.parents.get(&b), Some(&Vec::new()));
        assert_eq!(
            g.lines,
            [
                format!("error: duplicate graft data: {A}"),
                format!("error: bad graft data: {B} x"),
                "error: bad graft data: garbage".to_string(),
            ]
        );
        // A shallow commit has no parents, graft or not.
        let shallow: HashSet<Oid> = [a].into_iter().collect();
        assert_eq!(g.of(&a, &shallow), Some(&[][..]));
        assert_eq!(g.of(&b, &HashSet::new()), Some(&[][..]));
        let with = Grafts::parse(b"", ObjectFormat::Sha1, true);
        assert_eq!(with.lines.len(), ADVICE.len());
    }
}

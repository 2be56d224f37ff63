//! One commit-graph file's checks, as git's `verify_one_commit_graph`: its chunks, the order
//! and fan-out of its ids, and each commit against the object it names.

use super::*;

/// The object database's side of the verification, and whether its meter is shown.
pub(super) struct ReadCommit<'a> {
    pub(super) read: &'a mut dyn FnMut(&[u8]) -> Commit,
    pub(super) progress: Progress,
}

/// A `die` of git's: the message of the `fatal:` line.
pub(super) struct Die(pub(super) String);

/// What git knows of one commit object while verifying (its `struct commit` and its slab data).
#[derive(Default)]
pub(super) struct CommitState {
    pub(super) graph_pos: Option<u32>,
    pub(super) generation: u64,
    pub(super) date: u64,
    pub(super) parsed: bool,
    pub(super) parents: Vec<Vec<u8>>,
    pub(super) tree: Option<Vec<u8>>,
}

pub(super) struct Verifier<'a, 'g> {
    pub(super) layers: &'a [Graph<'g>],
    pub(super) commits: HashMap<Vec<u8>, CommitState>,
    pub(super) error: u32,
    pub(super) out: Outcome,
    /// `Verifying commits in commit graph`, counted as git counts: once per commit of the
    /// second pass.
    pub(super) meter: Meter,
    pub(super) seen: u64,
}

impl Verifier<'_, '_> {
    pub(super) fn report(&mut self, line: String) {
        self.error = 1;
        self.out.plain(line);
    }

    /// The layer at or below `top` that holds global position `pos`.
    pub(super) fn layer_of(&self, top: usize, pos: u32) -> usize {
        let mut l = top;
        while l > 0 && pos < self.layers[l].in_base {
            l -= 1;
        }
        l
    }

    pub(super) fn state(&mut self, id: &[u8]) -> &mut CommitState {
        self.commits.entry(id.to_vec()).or_default()
    }

    /// `fill_commit_graph_info`.
    pub(super) fn fill_info(&mut self, id: &[u8], top: usize, pos: u32) -> Result<(), Die> {
        let l = self.layer_of(top, pos);
        let g = &self.layers[l];
        if u64::from(pos) >= u64::from(g.num_commits) + u64::from(g.in_base) {
            return Err(Die(
                "invalid commit position. commit-graph is likely corrupt".into(),
            ));
        }
        let lex = pos - g.in_base;
        let row = g.row(lex);
        let word = be32(g.commit_data, row + g.hash_len + 8).unwrap_or(0);
        let date_low = be32(g.commit_data, row + g.hash_len + 12).unwrap_or(0);
        let date = (u64::from(word & 3) << 32) | u64::from(date_low);
        let generation = match g.generation_data {
            Some(gda) if g.read_generation_data => {
                let offset = u64::from(be32(gda, 4 * lex as usize).unwrap_or(0));
                if offset & OFFSET_OVERFLOW != 0 {
                    let Some(gdo) = g.generation_overflow else {
                        return Err(Die(
                            "commit-graph requires overflow generation data but has none".into(),
                        ));
                    };
                    let at = (offset ^ OFFSET_OVERFLOW) as usize;
                    if gdo.len() / 8 <= at {
                        return Err(Die(
                            "commit-graph overflow generation data is too small".into()
                        ));
                    }
                    date.wrapping_add(be64(gdo, at * 8).unwrap_or(0))
                } else {
                    date.wrapping_add(offset)
                }
            }
            _ => u64::from(word >> 2),
        };
        let st = self.state(id);
        st.graph_pos = Some(pos);
        st.date = date;
        st.generation = generation;
        Ok(())
    }

    /// `insert_parent_or_die` (with `load_oid_from_graph`): the parent's id.
    pub(super) fn parent_at(&mut self, l: usize, pos: u32) -> Result<Vec<u8>, Die> {
        let g = &self.layers[l];
        if u64::from(pos) >= u64::from(g.num_commits) + u64::from(g.in_base) {
            return Err(Die(format!("invalid parent position {pos}")));
        }
        let pl = self.layer_of(l, pos);
        let pg = &self.layers[pl];
        let id = pg.oid(pos - pg.in_base).to_vec();
        self.state(&id).graph_pos = Some(pos);
        Ok(id)
    }

    /// `fill_commit_in_graph`: `Ok(false)` when the extra edges are out of bounds.
    pub(super) fn fill(&mut self, id: &[u8], top: usize, pos: u32) -> Result<bool, Die> {
        let l = self.layer_of(top, pos);
        self.fill_info(id, l, pos)?;
        let g = &self.layers[l];
        let row = g.row(pos.wrapping_sub(g.in_base));
        let edge1 = be32(g.commit_data, row + g.hash_len).unwrap_or(0);
        let edge2 = be32(g.commit_data, row + g.hash_len + 4).unwrap_or(0);
        let extra = g.extra_edges.unwrap_or(&[]);
        {
            let st = self.state(id);
            st.parsed = true;
            st.tree = None;
            st.parents.clear();
        }
        let mut parents = Vec::new();
        let done = 'edges: {
            if edge1 == PARENT_NONE {
                break 'edges true;
            }
            parents.push(self.parent_at(l, edge1)?);
            if edge2 == PARENT_NONE {
                break 'edges true;
            }
            if edge2 & EXTRA_EDGES_NEEDED == 0 {
                parents.push(self.parent_at(l, edge2)?);
                break 'edges true;
            }
            let mut at = (edge2 & EDGE_LAST_MASK) as usize;
            loop {
                if extra.len() / 4 <= at {
                    self.out
                        .error("commit-graph extra-edges pointer out of bounds");
                    break 'edges false;
                }
                let value = be32(extra, 4 * at).unwrap_or(0);
                parents.push(self.parent_at(l, value & EDGE_LAST_MASK)?);
                at += 1;
                if value & LAST_EDGE != 0 {
                    break 'edges true;
                }
            }
        };
        let st = self.state(id);
        if done {
            st.parents = parents;
        } else {
            st.parents.clear();
            st.parsed = false;
        }
        Ok(done)
    }

    /// `parse_commit_in_graph_one`.
    pub(super) fn parse_in_graph(&mut self, id: &[u8], top: usize) -> Result<bool, Die> {
        if let Some(st) = self.commits.get(id) {
            if st.parsed {
                return Ok(true);
            }
            if let Some(pos) = st.graph_pos {
                return self.fill(id, top, pos);
            }
        }
        let mut l = top;
        loop {
            let g = &self.layers[l];
            if let Some(lex) = g.bsearch(id) {
                let pos = lex + g.in_base;
                return self.fill(id, top, pos);
            }
            if l == 0 {
                return Ok(false);
            }
            l -= 1;
        }
    }

    pub(super) fn generation_from_graph(&self, id: &[u8]) -> u64 {
        match self.commits.get(id) {
            Some(st) if st.graph_pos.is_some() => st.generation,
            _ => GENERATION_INFINITY,
        }
    }

    /// `verify_one_commit_graph` for layer `l`.
    pub(super) fn verify_one<H: Hashes>(
        &mut self,
        l: usize,
        format: ObjectFormat,
        read_commit: &mut dyn FnMut(&[u8]) -> Commit,
    ) -> Result<u32, Die> {
        let g = &self.layers[l];
        let num = g.num_commits;
        if !checksum_valid::<H>(g.data, format) {
            self.report(
                "the commit-graph file has incorrect checksum and is likely corrupt".into(),
            );
            self.error = ERROR_HASH;
        }
        let mut fanout_pos = 0usize;
        let mut prev: Vec<u8> = Vec::new();
        for i in 0..num {
            let g = &self.layers[l];
            let cur = g.oid(i).to_vec();
            let fanout = g.fanout;
            if i > 0 && prev >= cur {
                self.report(format!(
                    "commit-graph has incorrect OID order: {} then {}",
                    hex(&prev),
                    hex(&cur)
                ));
            }
            let first = usize::from(cur.first().copied().unwrap_or(0));
            while first > fanout_pos {
                let value = be32(fanout, 4 * fanout_pos).unwrap_or(0);
                if i != value {
                    self.report(format!(
                        "commit-graph has incorrect fanout value: fanout[{fanout_pos}] = {value} != {i}"
                    ));
                }
                fanout_pos += 1;
            }
            if !self.parse_in_graph(&cur, l)? {
                self.report(format!(
                    "failed to parse commit {} from commit-graph",
                    hex(&cur)
                ));
            }
            prev = cur;
        }
        let fanout = self.layers[l].fanout;
        while fanout_pos < 256 {
            let value = be32(fanout, 4 * fanout_pos).unwrap_or(0);
            if num != value {
                self.report(format!(
                    "commit-graph has incorrect fanout value: fanout[{fanout_pos}] = {value} != {num}"
                ));
            }
            fanout_pos += 1;
        }
        if self.error & !ERROR_HASH != 0 {
            return Ok(self.error);
        }

        let mut seen_zero: Option<Vec<u8>> = None;
        let mut seen_non_zero: Option<Vec<u8>> = None;
        for i in 0..num {
            self.seen += 1;
            self.meter.display(self.seen);
            let g = &self.layers[l];
            let read_generation_data = g.read_generation_data;
            let cur = g.oid(i).to_vec();
            let cur_hex = hex(&cur);
            let Some(odb) = self.parse_odb(&cur, format, read_commit)? else {
                self.report(format!(
                    "failed to parse commit {cur_hex} from object database for commit-graph"
                ));
                continue;
            };
            // `get_commit_tree_in_graph_one`.
            let graph_tree = match self.commits.get(&cur).and_then(|s| s.tree.clone()) {
                Some(t) => t,
                None => {
                    let pos = self
                        .commits
                        .get(&cur)
                        .and_then(|s| s.graph_pos)
                        .unwrap_or(0);
                    let tl = self.layer_of(l, pos);
                    let tg = &self.layers[tl];
                    let row = tg.row(pos.wrapping_sub(tg.in_base));
                    let mut t = vec![0u8; tg.hash_len];
                    if let Some(src) = tg.commit_data.get(row..row.saturating_add(tg.hash_len)) {
                        t.copy_from_slice(src);
                    }
                    self.state(&cur).tree = Some(t.clone());
                    t
                }
            };
            if graph_tree != odb.tree {
                self.report(format!(
                    "root tree OID for commit {cur_hex} in commit-graph is {} != {}",
                    hex(&graph_tree),
                    hex(&odb.tree)
                ));
            }
            let graph_parents = self
                .commits
                .get(&cur)
                .map(|s| s.parents.clone())
                .unwrap_or_default();
            let mut max_generation = 0u64;
            let mut odb_parents = odb.parents.iter();
            let mut too_long = false;
            for parent in &graph_parents {
                let Some(odb_parent) = odb_parents.next() else {
                    self.report(format!(
                        "commit-graph parent list for commit {cur_hex} is too long"
                    ));
                    too_long = true;
                    break;
                };
                self.parse_in_graph(parent, l)?;
                if parent != odb_parent {
                    self.report(format!(
                        "commit-graph parent for {cur_hex} is {} != {}",
                        hex(parent),
                        hex(odb_parent)
                    ));
                }
                max_generation = max_generation.max(self.generation_from_graph(parent));
            }
            if !too_long && odb_parents.next().is_some() {
                self.report(format!(
                    "commit-graph parent list for commit {cur_hex} terminates early"
                ));
            }
            if self.generation_from_graph(&cur) != 0 {
                seen_non_zero = Some(cur.clone());
            } else {
                seen_zero = Some(cur.clone());
            }
            if seen_zero.is_some() {
                continue;
            }
            if !read_generation_data && max_generation == GENERATION_V1_MAX {
                max_generation -= 1;
            }
            let (generation, date) = match self.commits.get(&cur) {
                Some(s) if s.generation != 0 => (s.generation, s.date),
                Some(s) => (GENERATION_INFINITY, s.date),
                None => (GENERATION_INFINITY, 0),
            };
            let want = max_generation.wrapping_add(1);
            if generation < want {
                self.report(format!(
                    "commit-graph generation for commit {cur_hex} is {generation} < {want}"
                ));
            }
            if date != odb.date {
                self.report(format!(
                    "commit date for commit {cur_hex} in commit-graph is {date} != {}",
                    odb.date
                ));
            }
        }
        if let (Some(z), Some(nz)) = (&seen_zero, &seen_non_zero) {
            let line = format!(
                "commit-graph has both zero and non-zero generations (e.g., commits '{}' and '{}')",
                hex(z),
                hex(nz)
            );
            self.report(line);
        }
        Ok(self.error)
    }

    /// `repo_parse_commit_internal` without the commit-graph: the commit as the object database
    /// has it, or `None` after git's error line, or git's `die` on a corrupt object.
    pub(super) fn parse_odb(
        &mut self,
        id: &[u8],
        format: ObjectFormat,
        read_commit: &mut dyn FnMut(&[u8]) -> Commit,
    ) -> Result<Option<OdbCommit>, Die> {
        Ok(match read_commit(id) {
            Commit::Missing => {
                self.out.error(format!("Could not read {}", hex(id)));
                None
            }
            Commit::NotACommit => {
                self.out.error(format!("Object {} not a commit", hex(id)));
                None
            }
            Commit::Corrupt { lines, message } => {
                self.out.lines.extend(lines);
                return Err(Die(message));
            }
            Commit::Found(buf) => match parse_commit_buffer(&buf, format) {
                Ok(c) => Some(c),
                Err(what) => {
                    self.out.error(format!("{what} {}", hex(id)));
                    None
                }
            },
            Commit::Grafted(buf, parents) => match parse_commit_buffer(&buf, format) {
                Ok(c) => Some(OdbCommit { parents, ..c }),
                Err(what) => {
                    self.out.error(format!("{what} {}", hex(id)));
                    None
                }
            },
        })
    }
}

/// What `parse_commit_buffer` takes from a commit.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct OdbCommit {
    pub tree: Vec<u8>,
    pub parents: Vec<Vec<u8>>,
    pub date: u64,
}

/// git's `parse_commit_buffer` (without grafts): `Err` is the start of git's error message, to
/// which the commit's id is appended.
pub(crate) fn parse_commit_buffer(
    buf: &[u8],
    format: ObjectFormat,
) -> Result<OdbCommit, &'static str> {
    let hexsz = format.hex_len();
    let tree_len = hexsz + 5;
    let parent_len = hexsz + 7;
    if buf.len() <= tree_len + 1 || !buf.starts_with(b"tree ") || buf.get(tree_len) != Some(&b'\n')
    {
        return Err("bogus commit object");
    }
    let tree = parse_hex_id(&buf[5..], format).ok_or("bad tree pointer in commit")?;
    let mut at = tree_len + 1;
    let mut parents = Vec::new();
    while at + parent_len < buf.len() && buf[at..].starts_with(b"parent ") {
        if buf.len() <= at + parent_len + 1 || buf.get(at + parent_len) != Some(&b'\n') {
            return Err("bad parents in commit");
        }
        let id = parse_hex_id(&buf[at + 7..], format).ok_or("bad parents in commit")?;
        parents.push(id);
        at += parent_len + 1;
    }
    let date = parse_commit_date(&buf[at..]);
    Ok(OdbCommit {
        tree,
        parents,
        date,
    })
}

/// git's `parse_commit_date`: the committer's timestamp, 0 when the lines are not where git
/// expects them, parsed as `strtoumax` does.
pub(crate) fn parse_commit_date(buf: &[u8]) -> u64 {
    if buf.len() <= 6 || !buf.starts_with(b"author") {
        return 0;
    }
    let mut at = 0;
    while at < buf.len() {
        at += 1;
        if buf[at - 1] == b'\n' {
            break;
        }
    }
    let rest = &buf[at..];
    if rest.len() <= 9 || !rest.starts_with(b"committer") {
        return 0;
    }
    let Some(eol) = rest.iter().position(|&b| b == b'\n') else {
        return 0;
    };
    let mut d = eol;
    while d > 0 && rest[d - 1] != b'>' {
        d -= 1;
    }
    if d == 0 {
        return 0;
    }
    while d < eol && matches!(rest[d], b' ' | b'\t' | b'\n' | b'\r') {
        d += 1;
    }
    let tail = &rest[d..];
    let (negative, digits) = match tail.first() {
        Some(b'-') => (true, &tail[1..]),
        Some(c) if c.is_ascii_digit() => (false, tail),
        _ => return 0,
    };
    let mut value = 0u64;
    let mut any = false;
    let mut overflow = false;
    for &c in digits.iter().take_while(|c| c.is_ascii_digit()) {
        any = true;
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if !any {
        0
    } else if overflow {
        u64::MAX
    } else if negative {
        value.wrapping_neg()
    } else {
        value
    }
}

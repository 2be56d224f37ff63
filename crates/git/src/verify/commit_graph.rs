//! The commit-graph (`info/commit-graph`, or the split chain
//! `info/commit-graphs/commit-graph-chain` with its `graph-<hash>.graph` layers), checked as
//! `git commit-graph verify --object-dir <odb> --no-progress` does (git's commit-graph.c
//! `parse_commit_graph`, `load_commit_graph_chain_fd_st` and `verify_commit_graph`), which
//! `git fsck` runs as a child process for each object directory when `core.commitGraph` is true
//! (the default); a failure sets `git fsck`'s 020 bit.
//!
//! Each layer, from the tip of a chain to its base: the trailing checksum, the object ids' order,
//! the fanout, that each commit parses from the graph; then, unless one of those failed (other
//! than the checksum), each commit against the object database: root tree, parents, generation
//! number (topological levels, or corrected commit dates from the `GDA2`/`GDO2` chunks) and
//! commit date. Like git, errors found in one layer stop the second pass in the layers below it
//! (git keeps one error state across layers), and git's `die`s (an impossible parent position, a
//! missing overflow chunk) end the run with a `fatal:` line.
//!
//! Not checked (git does not either): the changed-path Bloom filters beyond their chunks' sizes.
//! A split chain's layers are looked for in every object directory of the repository
//! ([`verify_in`]), as git does. Not emulated: replace refs and grafts applied to the object
//! database's commits, and git's errors when an id named as a tree or parent is already known as
//! an object of another type.

use crate::Hashes;
use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::{
    Outcome, be32, be64, checksum_valid, find_chunk, hex, oid_version, parse_hex_id, read_toc,
};
use crate::ObjectFormat;
use crate::progress::{Meter, Progress};

const SIGNATURE: u32 = 0x4347_5048;
const OIDF: u32 = 0x4f49_4446;
const OIDL: u32 = 0x4f49_444c;
const CDAT: u32 = 0x4344_4154;
const GDA2: u32 = 0x4744_4132;
const GDO2: u32 = 0x4744_4f32;
const EDGE: u32 = 0x4544_4745;
const BIDX: u32 = 0x4249_4458;
const BDAT: u32 = 0x4244_4154;
const BASE: u32 = 0x4241_5345;
const HEADER: usize = 8;
const FANOUT: usize = 4 * 256;
const PARENT_NONE: u32 = 0x7000_0000;
const EXTRA_EDGES_NEEDED: u32 = 0x8000_0000;
const EDGE_LAST_MASK: u32 = 0x7fff_ffff;
const LAST_EDGE: u32 = 0x8000_0000;
const OFFSET_OVERFLOW: u64 = 1 << 31;
const GENERATION_INFINITY: u64 = (1 << 63) - 1;
const GENERATION_V1_MAX: u64 = 0x3FFF_FFFF;
/// git's `VERIFY_COMMIT_GRAPH_ERROR_HASH`.
const ERROR_HASH: u32 = 2;

/// What the object database holds under an id, for [`verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Commit {
    /// A commit, with its content (after the object header).
    Found(Vec<u8>),
    /// A commit (its content) that a graft or the shallow boundary gives other parents (their
    /// raw ids), which git's parser takes instead of its own.
    Grafted(Vec<u8>, Vec<Vec<u8>>),
    /// An object of another type (`Object … not a commit`).
    NotACommit,
    /// No such object, or it cannot be read (`Could not read …`).
    Missing,
    /// The object is corrupt: git dies reading it (`OBJECT_INFO_DIE_IF_CORRUPT`) with this
    /// message (without `fatal: `), for example `loose object <id> (stored in <path>) is
    /// corrupt`. Earlier `error:` lines git prints first go in `lines`.
    Corrupt {
        /// `error:` lines printed before the `fatal:` one, with their prefix.
        lines: Vec<String>,
        /// The `fatal:` message.
        message: String,
    },
}

/// The configuration that changes what git reads from a commit-graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `commitGraph.generationVersion` (default 2; below 2 the `GDA2` chunk is not read).
    pub generation_version: i64,
    /// `commitGraph.changedPathsVersion` (default -1, or 0 when `commitGraph.readChangedPaths`
    /// is false; 0 leaves the Bloom chunks unread).
    pub changed_paths_version: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            generation_version: 2,
            changed_paths_version: -1,
        }
    }
}

/// One parsed commit-graph file.
struct Graph<'a> {
    data: &'a [u8],
    hash_len: usize,
    num_commits: u32,
    in_base: u32,
    fanout: &'a [u8],
    lookup: &'a [u8],
    commit_data: &'a [u8],
    generation_data: Option<&'a [u8]>,
    generation_overflow: Option<&'a [u8]>,
    extra_edges: Option<&'a [u8]>,
    base_graphs: Option<&'a [u8]>,
    read_generation_data: bool,
    bloom: Option<[u32; 3]>,
    oid: Vec<u8>,
}

impl Graph<'_> {
    fn width(&self) -> usize {
        self.hash_len + 16
    }

    fn oid(&self, lex: u32) -> &[u8] {
        let start = (lex as usize).saturating_mul(self.hash_len);
        self.lookup
            .get(start..start.saturating_add(self.hash_len))
            .unwrap_or(&[])
    }

    fn row(&self, lex: u32) -> usize {
        (lex as usize).saturating_mul(self.width())
    }

    fn bsearch(&self, id: &[u8]) -> Option<u32> {
        crate::fanout::bsearch_hash(self.fanout, u32::MAX, id, |n| self.oid(n))
    }
}

/// `parse_commit_graph` (with `load_commit_graph_one_fd_st`'s size check).
fn parse<'a>(
    data: &'a [u8],
    format: ObjectFormat,
    settings: Settings,
    out: &mut Outcome,
) -> Option<Graph<'a>> {
    let hash_len = format.raw_len();
    if data.len() < HEADER + 4 * 12 + FANOUT + hash_len {
        out.error("commit-graph file is too small");
        return None;
    }
    let signature = be32(data, 0).unwrap_or(0);
    if signature != SIGNATURE {
        out.error(format!(
            "commit-graph signature {signature:X} does not match signature {SIGNATURE:X}"
        ));
        return None;
    }
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    if byte(4) != 1 {
        out.error(format!(
            "commit-graph version {:X} does not match version 1",
            byte(4)
        ));
        return None;
    }
    if byte(5) != oid_version(format) {
        out.error(format!(
            "commit-graph hash version {:X} does not match version {:X}",
            byte(5),
            oid_version(format)
        ));
        return None;
    }
    let num_chunks = usize::from(byte(6));
    if data.len() < HEADER + (num_chunks + 1) * 12 + FANOUT + hash_len {
        out.error(format!(
            "commit-graph file is too small to hold {num_chunks} chunks"
        ));
        return None;
    }
    let chunks = read_toc(data, HEADER, num_chunks, 1, format, out).ok()?;
    let required = |out: &mut Outcome, what: &str| {
        out.error(format!(
            "commit-graph required {what} chunk missing or corrupted"
        ));
    };
    let Some(fanout) = find_chunk(data, &chunks, OIDF) else {
        required(out, "OID fanout");
        return None;
    };
    if fanout.len() != FANOUT {
        out.error("commit-graph oid fanout chunk is wrong size");
        required(out, "OID fanout");
        return None;
    }
    let num_commits = be32(fanout, 4 * 255).unwrap_or(0);
    for i in 0..255 {
        if be32(fanout, 4 * i) > be32(fanout, 4 * i + 4) {
            out.error("commit-graph fanout values out of order");
            required(out, "OID fanout");
            return None;
        }
    }
    let Some(lookup) = find_chunk(data, &chunks, OIDL) else {
        required(out, "OID lookup");
        return None;
    };
    if (lookup.len() / hash_len) as u64 != u64::from(num_commits) {
        out.error("commit-graph OID lookup chunk is the wrong size");
        required(out, "OID lookup");
        return None;
    }
    let Some(commit_data) = find_chunk(data, &chunks, CDAT) else {
        required(out, "commit data");
        return None;
    };
    if (commit_data.len() / (hash_len + 16)) as u64 != u64::from(num_commits) {
        out.error("commit-graph commit data chunk is wrong size");
        required(out, "commit data");
        return None;
    }
    let extra_edges = find_chunk(data, &chunks, EDGE);
    let base_graphs = find_chunk(data, &chunks, BASE);
    let mut generation_data = None;
    let mut generation_overflow = None;
    if settings.generation_version >= 2 {
        if let Some(c) = find_chunk(data, &chunks, GDA2) {
            if (c.len() / 4) as u64 != u64::from(num_commits) {
                out.error("commit-graph generations chunk is wrong size");
            } else {
                generation_data = Some(c);
            }
        }
        generation_overflow = find_chunk(data, &chunks, GDO2);
    }
    let mut bloom = None;
    if settings.changed_paths_version != 0 {
        let mut index_ok = false;
        if let Some(c) = find_chunk(data, &chunks, BIDX) {
            if (c.len() / 4) as u64 != u64::from(num_commits) {
                out.warning("commit-graph changed-path index chunk is too small");
            } else {
                index_ok = true;
            }
        }
        if let Some(c) = find_chunk(data, &chunks, BDAT) {
            if c.len() < 12 {
                out.warning(format!(
                    "ignoring too-small changed-path chunk ({} < 12) in commit-graph file",
                    c.len()
                ));
            } else if index_ok {
                bloom = Some([
                    be32(c, 0).unwrap_or(0),
                    be32(c, 4).unwrap_or(0),
                    be32(c, 8).unwrap_or(0),
                ]);
            }
        }
    }
    let oid = data.get(data.len() - hash_len..).unwrap_or(&[]).to_vec();
    Some(Graph {
        data,
        hash_len,
        num_commits,
        in_base: 0,
        fanout,
        lookup,
        commit_data,
        read_generation_data: generation_data.is_some(),
        generation_data,
        generation_overflow,
        extra_edges,
        base_graphs,
        bloom,
        oid,
    })
}

/// The object database's side of the verification, and whether its meter is shown.
struct ReadCommit<'a> {
    read: &'a mut dyn FnMut(&[u8]) -> Commit,
    progress: Progress,
}

/// A `die` of git's: the message of the `fatal:` line.
struct Die(String);

/// What git knows of one commit object while verifying (its `struct commit` and its slab data).
#[derive(Default)]
struct CommitState {
    graph_pos: Option<u32>,
    generation: u64,
    date: u64,
    parsed: bool,
    parents: Vec<Vec<u8>>,
    tree: Option<Vec<u8>>,
}

struct Verifier<'a, 'g> {
    layers: &'a [Graph<'g>],
    commits: HashMap<Vec<u8>, CommitState>,
    error: u32,
    out: Outcome,
    /// `Verifying commits in commit graph`, counted as git counts: once per commit of the
    /// second pass.
    meter: Meter,
    seen: u64,
}

impl Verifier<'_, '_> {
    fn report(&mut self, line: String) {
        self.error = 1;
        self.out.plain(line);
    }

    /// The layer at or below `top` that holds global position `pos`.
    fn layer_of(&self, top: usize, pos: u32) -> usize {
        let mut l = top;
        while l > 0 && pos < self.layers[l].in_base {
            l -= 1;
        }
        l
    }

    fn state(&mut self, id: &[u8]) -> &mut CommitState {
        self.commits.entry(id.to_vec()).or_default()
    }

    /// `fill_commit_graph_info`.
    fn fill_info(&mut self, id: &[u8], top: usize, pos: u32) -> Result<(), Die> {
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
    fn parent_at(&mut self, l: usize, pos: u32) -> Result<Vec<u8>, Die> {
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
    fn fill(&mut self, id: &[u8], top: usize, pos: u32) -> Result<bool, Die> {
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
    fn parse_in_graph(&mut self, id: &[u8], top: usize) -> Result<bool, Die> {
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

    fn generation_from_graph(&self, id: &[u8]) -> u64 {
        match self.commits.get(id) {
            Some(st) if st.graph_pos.is_some() => st.generation,
            _ => GENERATION_INFINITY,
        }
    }

    /// `verify_one_commit_graph` for layer `l`.
    fn verify_one<H: Hashes>(
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
    fn parse_odb(
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

/// The path of the single-file commit-graph of `objects_dir`.
pub fn graph_path(objects_dir: &Path) -> PathBuf {
    objects_dir.join("info").join("commit-graph")
}

/// The path of the split commit-graph's chain file of `objects_dir`.
pub fn chain_path(objects_dir: &Path) -> PathBuf {
    objects_dir
        .join("info")
        .join("commit-graphs")
        .join("commit-graph-chain")
}

/// How reading a file went: its bytes, absent, or another error (git dies on it).
enum Read {
    Bytes(Vec<u8>),
    Absent,
    Failed(std::io::Error),
}

fn read(path: &Path) -> Read {
    match std::fs::read(path) {
        Ok(b) => Read::Bytes(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Read::Absent,
        Err(e) => Read::Failed(e),
    }
}

/// The text of an I/O error as git's `die_errno` prints it (`strerror`).
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// `git commit-graph verify --object-dir <objects_dir> --no-progress` with default settings, in
/// a repository whose only object directory is `objects_dir`.
pub fn verify<H: Hashes>(
    objects_dir: &Path,
    format: ObjectFormat,
    read_commit: &mut dyn FnMut(&[u8]) -> Commit,
) -> Outcome {
    verify_with::<H>(objects_dir, format, Settings::default(), read_commit)
}

/// [`verify`] with the repository's commit-graph [`Settings`]. `objects_dir` appears in messages
/// as given; `read_commit` is asked for the object database's commits by raw id.
pub fn verify_with<H: Hashes>(
    objects_dir: &Path,
    format: ObjectFormat,
    settings: Settings,
    read_commit: &mut dyn FnMut(&[u8]) -> Commit,
) -> Outcome {
    verify_in::<H>(
        objects_dir,
        &[objects_dir],
        format,
        settings,
        read_commit,
        Progress::OFF,
    )
}

/// [`verify_with`] in a repository with alternates: `odbs` are all its object directories in
/// git's order (its own first, then the alternates'), where git looks for a split chain's layer
/// files (the first that loads wins), whichever object directory's chain file names them.
/// `progress` shows git's `Verifying commits in commit graph` meter (`--progress`).
pub fn verify_in<H: Hashes>(
    objects_dir: &Path,
    odbs: &[&Path],
    format: ObjectFormat,
    settings: Settings,
    read_commit: &mut dyn FnMut(&[u8]) -> Commit,
    progress: Progress,
) -> Outcome {
    let rc = ReadCommit {
        read: read_commit,
        progress,
    };
    drive::<H>(objects_dir, odbs, format, settings, Some(rc)).0
}

/// What a process that reads the repository's commit-graph prints while loading it, without
/// verifying anything: git's `prepare_commit_graph` takes the object directories `odbs` in
/// order (the repository's own first, then the alternates') up to the first with a commit-graph
/// that loads, each the single file or, when it is absent or refused, the chain. `git fsck`
/// itself loads the commit-graph when `core.commitGraph` is true and the repository is not
/// shallow and has no grafts or replace refs, and prints these lines (git 2.47.3 printed them
/// twice in our tests, which does not change the set of lines). They do not make `git fsck`
/// fail: [`Outcome::failed`] is false.
pub fn load_lines<H: Hashes>(odbs: &[&Path], format: ObjectFormat, settings: Settings) -> Outcome {
    let mut all = Outcome::default();
    for odb in odbs {
        let (out, found) = drive::<H>(odb, odbs, format, settings, None);
        all.lines.extend(out.lines);
        if found {
            break;
        }
    }
    all
}

/// A commit as the commit-graph lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphCommit {
    /// Its tree's raw id.
    pub tree: Vec<u8>,
    /// Its parents' raw ids, in order.
    pub parents: Vec<Vec<u8>>,
}

/// Each commit the commit-graph lists, by raw id, as a process reading the repository takes it
/// from the graph instead of reading the object (git's `parse_commit_in_graph`): from the first
/// object directory of `odbs` whose commit-graph loads, as [`load_lines`] loads it. `None` when
/// none loads, or when a commit's parents do not resolve in it (the objects are then read).
pub fn commits<H: Hashes>(
    odbs: &[&Path],
    format: ObjectFormat,
    settings: Settings,
) -> Option<HashMap<Vec<u8>, GraphCommit>> {
    for odb in odbs {
        let mut found = None;
        let mut collect = |layers: &[Graph<'_>]| found = Some(all_commits(layers));
        let (_, loaded) = drive_with::<H>(odb, odbs, format, settings, None, Some(&mut collect));
        if loaded {
            return found.flatten();
        }
    }
    None
}

/// Every commit of `layers` with its tree and parents.
fn all_commits(layers: &[Graph<'_>]) -> Option<HashMap<Vec<u8>, GraphCommit>> {
    let top = layers.len().checked_sub(1)?;
    let mut v = Verifier {
        layers,
        commits: HashMap::new(),
        error: 0,
        out: Outcome::default(),
        meter: Meter::off(),
        seen: 0,
    };
    let mut all = HashMap::new();
    // A process finds a commit in the graph by a binary search of its ids (which a damaged
    // order can defeat), or by the position its child's entry gives (git's
    // `insert_parent_or_die`).
    let mut found = Vec::new();
    for g in layers {
        for lex in 0..g.num_commits {
            let id = g.oid(lex).to_vec();
            let row = g.row(lex);
            let tree = g.commit_data.get(row..row + g.hash_len)?.to_vec();
            if !v.fill(&id, top, lex + g.in_base).ok()? {
                return None;
            }
            let parents = v.commits.get(&id).map(|c| c.parents.clone())?;
            if g.bsearch(&id) == Some(lex) {
                found.push(id.clone());
            }
            all.insert(id, GraphCommit { tree, parents });
        }
    }
    let mut reached: HashMap<Vec<u8>, GraphCommit> = HashMap::new();
    while let Some(id) = found.pop() {
        if reached.contains_key(&id) {
            continue;
        }
        let Some(c) = all.remove(&id) else {
            continue;
        };
        found.extend(c.parents.iter().cloned());
        reached.insert(id, c);
    }
    Some(reached)
}

/// What [`drive_with`] hands the loaded layers to.
type Collect<'a> = &'a mut dyn FnMut(&[Graph<'_>]);

/// Loads the commit-graph of `objects_dir` and, with `read_commit`, verifies it as
/// `git commit-graph verify` does; without, loads it as a reading process does. Returns what was
/// printed and whether a commit-graph loaded.
fn drive<H: Hashes>(
    objects_dir: &Path,
    odbs: &[&Path],
    format: ObjectFormat,
    settings: Settings,
    read_commit: Option<ReadCommit<'_>>,
) -> (Outcome, bool) {
    drive_with::<H>(objects_dir, odbs, format, settings, read_commit, None)
}

/// [`drive`], handing the layers that loaded to `collect` when not verifying.
fn drive_with<H: Hashes>(
    objects_dir: &Path,
    odbs: &[&Path],
    format: ObjectFormat,
    settings: Settings,
    read_commit: Option<ReadCommit<'_>>,
    collect: Option<Collect<'_>>,
) -> (Outcome, bool) {
    let verifying = read_commit.is_some();
    let mut out = Outcome::default();
    let single = graph_path(objects_dir);
    let chain = chain_path(objects_dir);
    match read(&single) {
        Read::Bytes(data) => {
            match parse(&data, format, settings, &mut out) {
                Some(g) => {
                    let layers = [g];
                    return match read_commit {
                        Some(rc) => (
                            run::<H>(&layers, format, rc.read, false, out, rc.progress),
                            true,
                        ),
                        None => {
                            if let Some(c) = collect {
                                c(&layers);
                            }
                            (out, true)
                        }
                    };
                }
                // `git commit-graph verify` opened the file: it does not look for a chain.
                None if verifying => {
                    out.failed = true;
                    return (out, false);
                }
                None => {}
            }
        }
        Read::Failed(e) if verifying => {
            out.fatal(format!(
                "Could not open commit-graph '{}': {}",
                single.display(),
                strerror(&e)
            ));
            return (out, false);
        }
        Read::Failed(_) | Read::Absent => {}
    }
    match read(&chain) {
        Read::Absent => (out, false),
        Read::Failed(_) if !verifying => (out, false),
        Read::Failed(e) => {
            out.fatal(format!(
                "could not open commit-graph chain '{}': {}",
                chain.display(),
                strerror(&e)
            ));
            (out, false)
        }
        Read::Bytes(text) if text.is_empty() => (out, false),
        Read::Bytes(text) if text.len() < format.hex_len() => {
            out.warning("commit-graph chain file too small");
            if verifying {
                out.fatal(format!(
                    "could not open commit-graph chain '{}': Invalid argument",
                    chain.display()
                ));
            }
            (out, false)
        }
        Read::Bytes(text) => {
            verify_chain::<H>(odbs, &text, format, settings, read_commit, collect, out)
        }
    }
}

fn run<H: Hashes>(
    layers: &[Graph<'_>],
    format: ObjectFormat,
    read_commit: &mut dyn FnMut(&[u8]) -> Commit,
    incomplete: bool,
    out: Outcome,
    progress: Progress,
) -> Outcome {
    let total = layers
        .last()
        .map_or(0, |top| u64::from(top.num_commits) + u64::from(top.in_base));
    let mut v = Verifier {
        layers,
        commits: HashMap::new(),
        error: 0,
        out,
        meter: progress.start("Verifying commits in commit graph", total),
        seen: 0,
    };
    let mut local = 0u32;
    for l in (0..layers.len()).rev() {
        match v.verify_one::<H>(l, format, read_commit) {
            Ok(e) => local |= e,
            Err(Die(msg)) => {
                v.out.fatal(msg);
                return v.out;
            }
        }
    }
    v.meter.stop();
    let mut out = v.out;
    if incomplete {
        out.error("one or more commit-graph chain files could not be loaded");
        local |= 1;
    }
    out.failed |= local != 0;
    out
}

/// `load_commit_graph_chain_fd_st`, then the verification of what loaded.
fn verify_chain<H: Hashes>(
    odbs: &[&Path],
    text: &[u8],
    format: ObjectFormat,
    settings: Settings,
    read_commit: Option<ReadCommit<'_>>,
    collect: Option<Collect<'_>>,
    mut out: Outcome,
) -> (Outcome, bool) {
    let count = text.len() / (format.hex_len() + 1);
    let mut lines = text.split_inclusive(|&b| b == b'\n');
    let mut ids: Vec<Vec<u8>> = Vec::new();
    let mut valid = true;
    // The files are read first (the parsed layers borrow them), then parsed in order: for each
    // line, the layer file in each object directory in turn, up to the first that loads.
    let mut names: Vec<&[u8]> = Vec::new();
    for _ in 0..count {
        let Some(line) = lines.next() else { break };
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        names.push(line);
        let Some(id) = parse_hex_id(line, format) else {
            ids.push(Vec::new());
            break;
        };
        ids.push(id);
    }
    let layer_file = |odb: &Path, name: &[u8]| {
        let mut file = b"graph-".to_vec();
        file.extend_from_slice(name);
        file.extend_from_slice(b".graph");
        odb.join("info")
            .join("commit-graphs")
            .join(std::ffi::OsStr::from_bytes(&file))
    };
    let files: Vec<Vec<Option<Vec<u8>>>> = names
        .iter()
        .zip(&ids)
        .map(|(name, id)| {
            if id.is_empty() {
                return Vec::new();
            }
            odbs.iter()
                .map(|odb| match read(&layer_file(odb, name)) {
                    Read::Bytes(b) => Some(b),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut layers: Vec<Graph<'_>> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if ids[i].is_empty() {
            out.warning(format!(
                "invalid commit-graph chain: line '{}' not a hash",
                String::from_utf8_lossy(name)
            ));
            valid = false;
            break;
        }
        valid = false;
        let parsed = files[i]
            .iter()
            .flatten()
            .find_map(|data| parse(data, format, settings, &mut out));
        if let Some(mut g) = parsed
            && add_to_chain(&mut g, &layers, &ids, i, &mut out)
        {
            layers.push(g);
            valid = true;
        }
        if !valid {
            out.warning("unable to find all commit-graph files");
            break;
        }
    }
    // `validate_mixed_generation_chain`.
    if !layers.iter().all(|g| g.read_generation_data) {
        for g in &mut layers {
            g.read_generation_data = false;
        }
    }
    // `validate_mixed_bloom_settings`, from the tip down.
    let mut reference: Option<[u32; 3]> = None;
    for g in layers.iter_mut().rev() {
        let Some(b) = g.bloom else { continue };
        match reference {
            None => reference = Some(b),
            Some(r) if r != b => {
                g.bloom = None;
                out.warning(format!(
                    "disabling Bloom filters for commit-graph layer '{}' due to incompatible settings",
                    hex(&g.oid)
                ));
            }
            Some(_) => {}
        }
    }
    let Some(read_commit) = read_commit else {
        if let Some(c) = collect
            && !layers.is_empty()
        {
            c(&layers);
        }
        return (out, !layers.is_empty());
    };
    if layers.is_empty() {
        out.failed = true;
        return (out, false);
    }
    (
        run::<H>(
            &layers,
            format,
            read_commit.read,
            !valid,
            out,
            read_commit.progress,
        ),
        true,
    )
}

/// `add_graph_to_chain`: layer `n` of the chain on top of `below`.
fn add_to_chain(
    g: &mut Graph<'_>,
    below: &[Graph<'_>],
    ids: &[Vec<u8>],
    n: usize,
    out: &mut Outcome,
) -> bool {
    if n > 0 && g.base_graphs.is_none() {
        out.warning("commit-graph has no base graphs chunk");
        return false;
    }
    let base = g.base_graphs.unwrap_or(&[]);
    if base.len() / g.hash_len < n {
        out.warning("commit-graph base graphs chunk is too small");
        return false;
    }
    for k in (0..n).rev() {
        let cur = below.get(k);
        let listed = base.get(k * g.hash_len..(k + 1) * g.hash_len);
        let ok = cur.is_some_and(|c| ids.get(k) == Some(&c.oid))
            && listed.is_some_and(|b| ids.get(k).is_some_and(|id| id.as_slice() == b));
        if !ok {
            out.warning("commit-graph chain does not match");
            return false;
        }
    }
    if let Some(top) = below.last() {
        let Some(sum) = top.num_commits.checked_add(top.in_base) else {
            out.warning(format!(
                "commit count in base graph too high: {}",
                top.in_base
            ));
            return false;
        };
        g.in_base = sum;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_dates() {
        let c = b"author A <a> 5 +0000\ncommitter C <c> 1234567890 +0100\n\nmsg\n";
        assert_eq!(parse_commit_date(c), 1_234_567_890);
        assert_eq!(
            parse_commit_date(b"author A <a> 5\ncommitter C <c> -1 +0\n"),
            u64::MAX
        );
        assert_eq!(
            parse_commit_date(b"author A <a> 5\ncommitter C <c> x +0\n"),
            0
        );
        assert_eq!(
            parse_commit_date(b"author A <a> 5\ncommitter C <c> 99999999999999999999999 +0\n"),
            u64::MAX
        );
        assert_eq!(parse_commit_date(b"author A\ncommitter C <c> 12"), 0);
    }

    #[test]
    fn commit_buffers() {
        let t = "a".repeat(40);
        let p = "b".repeat(40);
        let buf =
            format!("tree {t}\nparent {p}\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\nm\n");
        let c = parse_commit_buffer(buf.as_bytes(), ObjectFormat::Sha1).ok();
        assert_eq!(c.map(|c| (c.parents.len(), c.date)), Some((1, 2)));
        assert_eq!(
            parse_commit_buffer(b"tree x\n", ObjectFormat::Sha1),
            Err("bogus commit object")
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 5u32;
        for len in [0usize, 100, 1100, 1200, 1500, 2000] {
            for round in 0..40 {
                let mut data: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        (seed >> 16) as u8
                    })
                    .collect();
                if len > 8 {
                    data[..4].copy_from_slice(b"CGPH");
                    data[4] = 1;
                    data[5] = 1;
                    data[6] = (round % 6) as u8;
                }
                let mut out = Outcome::default();
                if let Some(g) = parse(&data, ObjectFormat::Sha1, Settings::default(), &mut out) {
                    let layers = [g];
                    let _ = run::<crate::test_hashes::TestHashes>(
                        &layers,
                        ObjectFormat::Sha1,
                        &mut |_| Commit::Missing,
                        false,
                        out,
                        Progress::OFF,
                    );
                }
            }
        }
    }
}

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

mod chain;
#[cfg(test)]
mod tests;
mod verifier;

use chain::*;
use verifier::*;

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

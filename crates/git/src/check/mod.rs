//! git's fsck checks of single objects (git 2.47's `fsck.c`), as two commands run them:
//!
//! - `git fsck` ([`check_object`], [`finish`]): every message has a severity ([`MsgId::default`],
//!   changed by `--strict` and by `fsck.<msg-id>` configuration, [`Options`]); errors and warnings
//!   are printed as `error in <type> <id>: <msgId>: <text>` / `warning in ...`, ignored and
//!   skip-listed ones are not. Trees name the blobs that must be valid `.gitmodules` and
//!   `.gitattributes` files ([`SpecialBlobs`]); they are checked when seen, and the rest at the
//!   end ([`finish`]).
//! - `git hash-object` ([`tree`], [`commit`], [`tag`]): strict mode, where every finding that is
//!   not ignored refuses the object: `error: object fails fsck: <msgId>: <text>`.
//!
//! The behaviour follows git closely, quirks included, because the point is to accept and
//! refuse exactly what git does: a tree's parse error is printed before the fsck message for it,
//! a tree reports every kind of problem it has (in a fixed order) while commits and tags stop at
//! the first error (but not at a warning), and a tag whose bad `tagger` line is followed by an
//! extra header line is reported but still passes, because the (ignored) extra-header message
//! decides the tag's verdict.

mod checks;
#[cfg(any(test, fuzzing))]
pub mod delta_oracle;
mod gitmodules;
mod msg_ids;
mod names;
mod options;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

pub(crate) use checks::{decode_tree_entry, parse_hex_id};

use super::{Kind, ObjectFormat};
use crate::gitconfig;

use msg_ids::*;
pub use msg_ids::{MsgId, Severity};
pub use options::Options;
use options::*;

/// What checking found: one line git prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// [`Severity::Error`] (`error in <type> <id>: <message>`) or [`Severity::Warn`]
    /// (`warning in <type> <id>: <message>`). For a `plain` line, always `Error`.
    pub severity: Severity,
    /// `<msgId>: <text>`, or for a `plain` line git's parser message (bytes that are not UTF-8,
    /// from names and values in the object, replaced; see `raw`).
    pub message: String,
    /// `message` exactly as git prints it.
    pub raw: Vec<u8>,
    /// A plain `error: <message>` line of git's tree parser (e.g. `too-short tree object`),
    /// printed just before the `badTree` finding; not tied to the object in the output.
    pub plain: bool,
}

impl Finding {
    /// The line `git fsck` prints on stderr for this finding about the object of `kind` whose
    /// id is `hex` (without the newline): `error in <kind> <hex>: <message>`, `warning in ...`,
    /// or `error: <message>` for a `plain` line.
    pub fn line(&self, kind: Kind, hex: &str) -> Vec<u8> {
        let mut l = if self.plain {
            b"error: ".to_vec()
        } else if self.severity == Severity::Error {
            format!("error in {kind} {hex}: ").into_bytes()
        } else {
            format!("warning in {kind} {hex}: ").into_bytes()
        };
        l.extend_from_slice(&self.raw);
        l
    }
}

/// One set of special blobs in insertion order (git keeps them in a hash set; its iteration
/// order is its own, and only the set of lines printed is meant to match).
#[derive(Clone, Debug, Default)]
struct OidSet {
    order: Vec<Vec<u8>>,
    seen: HashSet<Vec<u8>>,
}

impl OidSet {
    fn insert(&mut self, id: &[u8]) {
        if self.seen.insert(id.to_vec()) {
            self.order.push(id.to_vec());
        }
    }

    fn contains(&self, id: &[u8]) -> bool {
        self.seen.contains(id)
    }

    fn clear(&mut self) {
        self.order.clear();
        self.seen.clear();
    }
}

/// The blobs trees name `.gitmodules` or `.gitattributes` (git's `gitmodules_found`/`_done` and
/// `gitattributes_found`/`_done`).
#[derive(Clone, Debug, Default)]
pub struct SpecialBlobs {
    gitmodules_found: OidSet,
    gitmodules_done: OidSet,
    gitattributes_found: OidSet,
    gitattributes_done: OidSet,
}

impl SpecialBlobs {
    /// Whether `oid` was named `.gitmodules` by a tree checked so far.
    pub fn is_gitmodules(&self, oid: &[u8]) -> bool {
        self.gitmodules_found.contains(oid)
    }

    /// How many blobs trees have named `.gitmodules` and `.gitattributes` so far: the ids
    /// [`SpecialBlobs::found_since`] gives from these counts on were named after.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.gitmodules_found.order.len(),
            self.gitattributes_found.order.len(),
        )
    }

    /// The blobs named `.gitmodules` and `.gitattributes` since `counts` said `since`, in order.
    pub fn found_since(&self, since: (usize, usize)) -> (&[Vec<u8>], &[Vec<u8>]) {
        (
            self.gitmodules_found.order.get(since.0..).unwrap_or(&[]),
            self.gitattributes_found.order.get(since.1..).unwrap_or(&[]),
        )
    }

    /// Records that a tree named `oid` `.gitmodules`, as checking the tree would (for a caller
    /// that checked trees with sets of its own and replays them in git's order).
    pub fn add_gitmodules(&mut self, oid: &[u8]) {
        self.gitmodules_found.insert(oid);
    }

    /// Records that a tree named `oid` `.gitattributes` (see [`SpecialBlobs::add_gitmodules`]).
    pub fn add_gitattributes(&mut self, oid: &[u8]) {
        self.gitattributes_found.insert(oid);
    }

    /// Whether `oid` was named `.gitattributes` by a tree checked so far.
    pub fn is_gitattributes(&self, oid: &[u8]) -> bool {
        self.gitattributes_found.contains(oid)
    }
}

/// What reading a special blob in [`finish`] gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not in the repository (`gitmodulesMissing`/`gitattributesMissing`).
    Missing,
    /// Missing, but a promisor object (skipped, as in a partial clone).
    Promisor,
    /// An object of another type (`gitmodulesBlob`/`gitattributesBlob`, reported on that
    /// object with its type).
    NotBlob(Kind),
    /// The blob's content (git reads it whole here, whatever its size).
    Blob(Vec<u8>),
}

/// A finding of [`finish`]: on the object `oid` of type `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobFinding {
    /// The object's raw id.
    pub oid: Vec<u8>,
    /// Its type as git prints it (`blob`, or the other type of a `NotBlob`).
    pub kind: Kind,
    /// The finding.
    pub finding: Finding,
}

/// The sink of `git fsck`: severities, the skip list, the special blobs.
struct FsckSink<'a> {
    opts: &'a Options,
    skipped: bool,
    special: &'a mut SpecialBlobs,
    out: &'a mut Vec<Finding>,
}

impl checks::Sink for FsckSink<'_> {
    fn report_bytes(&mut self, id: MsgId, text: &[u8]) -> bool {
        if self.skipped {
            return false;
        }
        let Some(severity) = self.opts.severity(id).printed() else {
            return false;
        };
        let mut raw = format!("{}: ", id.camel()).into_bytes();
        raw.extend_from_slice(text);
        self.out.push(Finding {
            severity,
            message: String::from_utf8_lossy(&raw).into_owned(),
            raw,
            plain: false,
        });
        severity == Severity::Error
    }

    fn parse_error(&mut self, text: &str) {
        self.out.push(Finding {
            severity: Severity::Error,
            message: text.to_string(),
            raw: text.as_bytes().to_vec(),
            plain: true,
        });
    }

    fn strict(&self) -> bool {
        self.opts.strict
    }

    fn max_tree_entry_len(&self) -> i64 {
        self.opts.max_tree_entry_len
    }

    fn gitmodules(&mut self, id: &[u8]) {
        self.special.gitmodules_found.insert(id);
    }

    fn gitattributes(&mut self, id: &[u8]) {
        self.special.gitattributes_found.insert(id);
    }
}

/// git's `fsck_object()` on an object of `kind` with raw id `oid` and content `buf`, as
/// `git fsck` calls it: what it prints goes to `out` (errors and warnings; ignored messages,
/// and every message of a skip-listed object, are left out). Trees record their `.gitmodules`
/// and `.gitattributes` blobs in `special`; a blob recorded there is checked now and marked
/// done. Returns whether git's `fsck_object` returned non-zero (which makes `git fsck`'s exit
/// status non-zero); an `error` line may be printed without it (the tag quirk above).
pub fn check_object(
    kind: Kind,
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    if kind == Kind::Blob {
        return check_blob(oid, Some(buf), opts, special, out);
    }
    let mut sink = FsckSink {
        opts,
        skipped: opts.skipped(oid),
        special,
        out,
    };
    match kind {
        Kind::Tree => checks::tree(buf, format, &mut sink),
        Kind::Commit => checks::commit(buf, format, &mut sink),
        Kind::Tag => checks::tag(buf, format, &mut sink),
        Kind::Blob => false,
    }
}

/// Where one entry of a tree is, and the type a link to it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeEntryAt {
    /// The type a link to it names.
    pub kind: Kind,
    /// The offset of its name in the tree (the name ends with the NUL before the id).
    pub name: u32,
    /// The offset of its id.
    pub id: u32,
    /// See [`BaseEntry::plain`].
    pub plain: bool,
    /// See [`BaseEntry::after_candidate`].
    pub after_candidate: bool,
}

/// An entry of a well-formed tree as its check saw it, which a check of a tree that is a delta
/// of it reads to skip the entries the delta copied.
pub trait BaseEntry {
    /// The type a link to it names (a tree's or a blob's mode; never a gitlink).
    fn kind(&self) -> Kind;
    /// The offset of its name.
    fn name(&self) -> u32;
    /// The offset of its id.
    fn id(&self) -> u32;
    /// Whether its name is one git's name checks pass without a second look (no `.`-name,
    /// no HFS+ or NTFS alias, no `/` or `\\`): nothing but its order is checked.
    fn plain(&self) -> bool;
    /// Whether git's order check, between it and the entry before it, kept the one before as
    /// a candidate for a duplicate (a file `foo` before `foo.c`).
    fn after_candidate(&self) -> bool;
    /// Where it starts and ends in its tree (its mode is one of those git writes: `40000` or six
    /// digits).
    fn span(&self, raw: usize) -> (usize, usize) {
        let mode = if self.kind() == Kind::Tree { 6 } else { 7 };
        (
            (self.name() as usize).saturating_sub(mode),
            self.id() as usize + raw,
        )
    }
}

impl BaseEntry for TreeEntryAt {
    fn kind(&self) -> Kind {
        self.kind
    }
    fn name(&self) -> u32 {
        self.name
    }
    fn id(&self) -> u32 {
        self.id
    }
    fn plain(&self) -> bool {
        self.plain
    }
    fn after_candidate(&self) -> bool {
        self.after_candidate
    }
}

/// What the check of a tree that is a delta knows of its base: the base's entries (every one
/// but gitlinks, in order) when the base is well-formed and its check found nothing, and the
/// copies the delta made from it.
#[derive(Clone, Copy)]
pub struct DeltaOf<'a, B> {
    /// The base's entries.
    pub entries: &'a [B],
    /// The delta's copies, in the order of the result.
    pub copies: &'a [crate::delta::Copy],
}

/// Entries of a delta tree that are byte for byte a run of its base's entries, copied by one
/// copy of the delta: git's checks of them and of their order give what they gave in the base
/// (nothing), so they are not made again. The run's links are the base's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// How many of the tree's collected entries come before it.
    pub at: u32,
    /// The base's entries it is, `first..=last`.
    pub first: u32,
    /// See `first`.
    pub last: u32,
    /// Where in this tree the base's entry `first` starts.
    pub to: u32,
}

/// [`check_object`] for a tree, which also collects its links as a walk of a well-formed tree
/// visits them: every entry but gitlinks, into `links` (cleared first). Returns whether the
/// check failed, whether the tree is well-formed (every entry parsed and has one of the five
/// modes git writes, spelled as git spells it), without which `links` means nothing, and
/// whether it is clean (none of git's tree findings applies to it, skip lists aside).
pub fn check_tree_links(
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
    links: &mut Vec<TreeEntryAt>,
) -> TreeChecked {
    let mut runs = Vec::new();
    check_delta_tree_links::<TreeEntryAt>(
        oid, buf, format, opts, special, out, links, &mut runs, None,
    )
}

/// [`check_tree_links`] for a tree that is a delta (`delta`: its clean base's entries and the
/// copies it made): entries copied whole from the base are not checked again; they are in
/// `runs` (cleared first), not `links`.
#[allow(clippy::too_many_arguments)]
pub fn check_delta_tree_links<B: BaseEntry>(
    oid: &[u8],
    buf: &[u8],
    format: ObjectFormat,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
    links: &mut Vec<TreeEntryAt>,
    runs: &mut Vec<Run>,
    delta: Option<DeltaOf<'_, B>>,
) -> TreeChecked {
    let mut sink = FsckSink {
        opts,
        skipped: opts.skipped(oid),
        special,
        out,
    };
    let mut collect = checks::TreeLinks {
        out: links,
        runs,
        simple: true,
        clean: false,
    };
    let failed = checks::tree_with(buf, format, &mut sink, Some(&mut collect), delta);
    TreeChecked {
        failed,
        simple: collect.simple,
        clean: collect.clean,
    }
}

/// What [`check_tree_links`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeChecked {
    /// Whether git's check failed.
    pub failed: bool,
    /// Whether the tree is well-formed (its links were collected).
    pub simple: bool,
    /// Whether none of git's tree findings applies (whether or not it would be reported).
    pub clean: bool,
}

/// [`check_object`] for a blob whose content git does not load (larger than
/// `core.bigFileThreshold`): a special blob is then reported as too large to parse.
pub fn check_unloaded_blob(
    oid: &[u8],
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    check_blob(oid, None, opts, special, out)
}

/// git's `fsck_blob`.
fn check_blob(
    oid: &[u8],
    buf: Option<&[u8]>,
    opts: &Options,
    special: &mut SpecialBlobs,
    out: &mut Vec<Finding>,
) -> bool {
    if opts.skipped(oid) {
        return false;
    }
    let modules = special.gitmodules_found.contains(oid);
    let attributes = special.gitattributes_found.contains(oid);
    let mut sink = FsckSink {
        opts,
        skipped: false,
        special,
        out,
    };
    let mut failed = false;
    if modules {
        sink.special.gitmodules_done.insert(oid);
        let Some(buf) = buf else {
            return checks::Sink::report(
                &mut sink,
                MsgId::GitmodulesLarge,
                ".gitmodules too large to parse",
            );
        };
        failed |= checks::gitmodules(buf, &mut sink);
    }
    if attributes {
        sink.special.gitattributes_done.insert(oid);
        let Some(buf) = buf else {
            return checks::Sink::report(
                &mut sink,
                MsgId::GitattributesLarge,
                ".gitattributes too large to parse",
            );
        };
        failed |= checks::gitattributes(buf, &mut sink);
    }
    failed
}

/// git's `fsck_finish()`: the `.gitmodules` blobs not seen yet, then the `.gitattributes` ones,
/// each read through `read` (raw id) and checked; a missing one is `gitmodulesMissing` /
/// `gitattributesMissing` (unless a promisor object), another type `gitmodulesBlob` /
/// `gitattributesBlob`. Findings go to `out` with the object they are about. Both sets are
/// emptied. Returns whether git's `fsck_finish` returned non-zero.
pub fn finish(
    special: &mut SpecialBlobs,
    read: &mut dyn FnMut(&[u8]) -> Lookup,
    opts: &Options,
    out: &mut Vec<BlobFinding>,
) -> bool {
    let mut failed = false;
    for modules in [true, false] {
        let pending: Vec<Vec<u8>> = {
            let (found, done) = if modules {
                (&special.gitmodules_found, &special.gitmodules_done)
            } else {
                (&special.gitattributes_found, &special.gitattributes_done)
            };
            found
                .order
                .iter()
                .filter(|id| !done.contains(id))
                .cloned()
                .collect()
        };
        let (name, missing, not_blob) = if modules {
            (
                ".gitmodules",
                MsgId::GitmodulesMissing,
                MsgId::GitmodulesBlob,
            )
        } else {
            (
                ".gitattributes",
                MsgId::GitattributesMissing,
                MsgId::GitattributesBlob,
            )
        };
        for oid in pending {
            let mut findings = Vec::new();
            let mut kind = Kind::Blob;
            let lookup = read(&oid);
            {
                let mut sink = FsckSink {
                    opts,
                    skipped: opts.skipped(&oid),
                    special,
                    out: &mut findings,
                };
                let report = |s: &mut FsckSink<'_>, id: MsgId, text: String| {
                    checks::Sink::report(s, id, &text)
                };
                match lookup {
                    Lookup::Promisor => {}
                    Lookup::Missing => {
                        failed |= report(&mut sink, missing, format!("unable to read {name} blob"));
                    }
                    Lookup::NotBlob(k) => {
                        kind = k;
                        failed |= report(&mut sink, not_blob, format!("non-blob found at {name}"));
                    }
                    Lookup::Blob(_) => {}
                }
            }
            if let Lookup::Blob(ref data) = lookup {
                failed |= check_blob(&oid, Some(data), opts, special, &mut findings);
            }
            out.extend(findings.into_iter().map(|finding| BlobFinding {
                oid: oid.clone(),
                kind,
                finding,
            }));
        }
        if modules {
            special.gitmodules_found.clear();
            special.gitmodules_done.clear();
        } else {
            special.gitattributes_found.clear();
            special.gitattributes_done.clear();
        }
    }
    failed
}

/// The result of checking one object for `git hash-object`.
#[derive(Debug, Default)]
pub struct Report {
    /// git's `error:` lines, without `error: `, in the order git prints them.
    pub errors: Vec<String>,
    /// Whether git refuses the object (`fatal: refusing to create malformed object`).
    pub refused: bool,
}

/// The sink of `git hash-object`: strict mode with git's default severities, every message
/// that is not ignored printed as `object fails fsck: ...` and counted as an error.
struct StrictSink<'a>(&'a mut Report);

impl checks::Sink for StrictSink<'_> {
    fn report_bytes(&mut self, id: MsgId, text: &[u8]) -> bool {
        if id.default() == Severity::Ignore {
            return false;
        }
        self.0.errors.push(format!(
            "object fails fsck: {}: {}",
            id.camel(),
            String::from_utf8_lossy(text)
        ));
        true
    }

    fn parse_error(&mut self, text: &str) {
        self.0.errors.push(text.to_string());
    }

    fn strict(&self) -> bool {
        true
    }

    fn max_tree_entry_len(&self) -> i64 {
        DEFAULT_MAX_TREE_ENTRY_LEN
    }
}

fn strict(run: impl FnOnce(&mut StrictSink<'_>) -> bool) -> Report {
    let mut r = Report::default();
    let refused = run(&mut StrictSink(&mut r));
    r.refused = refused;
    r
}

/// Checks a tree as `git hash-object` does.
pub fn tree(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::tree(buf, format, s))
}

/// Checks a commit as `git hash-object` does.
pub fn commit(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::commit(buf, format, s))
}

/// Checks a tag as `git hash-object` does.
pub fn tag(buf: &[u8], format: ObjectFormat) -> Report {
    strict(|s| checks::tag(buf, format, s))
}

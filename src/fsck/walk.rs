//! What fsck needs to know of each object's content: what it links to (git's `fsck_walk`), and
//! git's per-object checks at their configured severities; and the configuration they read.

use crate::gitconfig::Config;
use crate::object::{Kind, ObjectFormat};

use super::table::Oid;
use super::{Fatal, Repo};

use crate::object::fsck::{self as checks, Lookup, SpecialBlobs};
pub use crate::object::links::{Link as Target, Links};

/// The links of an object of `kind` with id `id` and content `buf`, in git's walk order.
pub fn links(kind: Kind, id: &Oid, buf: &[u8], format: ObjectFormat) -> Links {
    crate::object::links::links_for(kind, &id[..format.raw_len()], buf, format)
}

/// The modes of a well-formed tree: a directory, a file, an executable, a symbolic link, a
/// gitlink.
fn simple_mode(m: &[u8]) -> Option<Option<Kind>> {
    match m {
        b"40000" => Some(Some(Kind::Tree)),
        b"100644" | b"100755" | b"120000" => Some(Some(Kind::Blob)),
        b"160000" => Some(None),
        _ => None,
    }
}

/// Calls `each` for the entries of `tree` as long as they are well-formed (a standard mode, a
/// non-empty name, a whole id); returns whether every entry was.
fn walk_simple(tree: &[u8], raw: usize, mut each: impl FnMut(Option<Kind>, &[u8])) -> bool {
    let mut at = 0;
    while at < tree.len() {
        let rest = &tree[at..];
        let Some(sp) = rest.iter().take(7).position(|&b| b == b' ') else {
            return false;
        };
        let Some(kind) = simple_mode(&rest[..sp]) else {
            return false;
        };
        let Some(nul) = rest[sp + 1..].iter().position(|&b| b == 0) else {
            return false;
        };
        if nul == 0 {
            return false;
        }
        let id_at = sp + 1 + nul + 1;
        let Some(id) = rest.get(id_at..id_at + raw) else {
            return false;
        };
        each(kind, id);
        at += id_at + raw;
    }
    true
}

/// The links of `tree` as (type, offset of the id) into `out` (cleared first), in order, when it
/// is well-formed enough that git's walk visits exactly its entries (trees as trees, files and
/// symbolic links as blobs, gitlinks skipped) and prints nothing; else `false`, and the caller
/// builds its [`Links`].
pub fn simple_entries(tree: &[u8], raw: usize, out: &mut Vec<(Kind, u32)>) -> bool {
    out.clear();
    let mut at = 0usize;
    walk_simple(tree, raw, |k, id| {
        // `id` is a slice of `tree`: its offset is where it starts.
        let off = id.as_ptr() as usize - tree.as_ptr() as usize;
        if let Some(k) = k {
            out.push((k, off as u32));
        }
        at = off;
    }) && at <= tree.len()
}

/// A commit's number of parents, from its links.
pub fn parents(links: &Links) -> usize {
    links
        .targets
        .iter()
        .filter(|t| t.kind == Kind::Commit)
        .count()
}

/// One line of git's checks.
pub use checks::Finding;

/// git's checks with the repository's `fsck.*` configuration.
pub struct Checks {
    /// The configured options.
    pub opts: checks::Options,
    /// The blobs trees named `.gitmodules` or `.gitattributes`, for `fsck_finish`.
    pub special: SpecialBlobs,
}

impl Checks {
    /// Configured from `config`; git's lines when it dies reading it.
    pub fn new(config: &Config, strict: bool, format: ObjectFormat) -> Result<Checks, Fatal> {
        let opts = checks::Options::from_config(config, strict, format).map_err(Fatal)?;
        Ok(Checks {
            opts,
            special: SpecialBlobs::default(),
        })
    }

    /// Checks with no configuration, to stand in while the real ones are borrowed.
    pub fn placeholder() -> Checks {
        Checks {
            opts: checks::Options::new(false),
            special: SpecialBlobs::default(),
        }
    }

    /// What git printed while reading the configuration and went on.
    pub fn config_warnings(&self) -> &[String] {
        &self.opts.warnings
    }

    /// The findings for one object (`data` is `None` for a streamed blob), and whether git's
    /// `fsck_object` failed.
    pub fn check(
        &mut self,
        kind: Kind,
        id: &Oid,
        data: Option<&[u8]>,
        format: ObjectFormat,
    ) -> (Vec<Finding>, bool) {
        let raw = &id[..format.raw_len()];
        let mut out = Vec::new();
        let failed = match data {
            Some(d) => checks::check_object(
                kind,
                raw,
                d,
                format,
                &self.opts,
                &mut self.special,
                &mut out,
            ),
            None => checks::check_unloaded_blob(raw, &self.opts, &mut self.special, &mut out),
        };
        (out, failed)
    }

    /// git's `fsck_finish`: the special blobs not seen, read through `read`; the findings with
    /// the object (raw id, type) each is about, and whether it failed.
    pub fn finish(
        &mut self,
        read: &mut dyn FnMut(&[u8]) -> Lookup,
    ) -> (Vec<(Vec<u8>, Kind, Finding)>, bool) {
        let mut out = Vec::new();
        let failed = checks::finish(&mut self.special, read, &self.opts, &mut out);
        (
            out.into_iter()
                .map(|b| (b.oid, b.kind, b.finding))
                .collect(),
            failed,
        )
    }
}

/// The repository's configuration, as git reads it for fsck.
pub fn load_config(repo: &Repo) -> Result<Config, Fatal> {
    Config::load_for_repo(&repo.git_dir, &repo.common_dir).map_err(|e| Fatal(e.lines.join("\n")))
}

/// `core.bigFileThreshold` (git's default: 512 MiB).
pub fn big_file_threshold(config: &Config) -> u64 {
    config
        .get_ulong("core.bigfilethreshold")
        .ok()
        .flatten()
        .unwrap_or(512 << 20)
}

//! What fsck needs to know of each object's content: what it links to (git's `fsck_walk`), and
//! git's per-object checks at their configured severities; and the configuration they read.

use crate::gitconfig::Config;
use crate::{Kind, ObjectFormat};

use super::table::Oid;
use super::{Fatal, Repo};

use crate::check::{self as checks, Lookup, SpecialBlobs};
pub use crate::links::{Link as Target, Links};

/// The links of an object of `kind` with id `id` and content `buf`, in git's walk order.
pub fn links(kind: Kind, id: &Oid, buf: &[u8], format: ObjectFormat) -> Links {
    crate::links::links_for(kind, &id[..format.raw_len()], buf, format)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, &str, u8)]) -> Vec<u8> {
        let mut t = Vec::new();
        for (mode, name, id) in entries {
            t.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            t.extend_from_slice(&[*id; 20]);
        }
        t
    }

    /// The links of a well-formed tree as the check pass collects them (the walk of such a tree
    /// is those links), and the trees that are not well-formed.
    fn simple(t: &[u8], out: &mut Vec<checks::TreeEntryAt>) -> bool {
        let opts = checks::Options::new(false);
        let mut special = SpecialBlobs::default();
        let mut findings = Vec::new();
        checks::check_tree_links(
            &[0; 20],
            t,
            ObjectFormat::Sha1,
            &opts,
            &mut special,
            &mut findings,
            out,
        )
        .simple
    }

    #[test]
    fn links_of_well_formed_trees_only() {
        let t = tree(&[
            ("100644", "a", 1),
            ("100755", "b", 2),
            ("120000", "c", 3),
            ("160000", "d", 4),
            ("40000", "e", 5),
        ]);
        let mut out = Vec::new();
        assert!(simple(&t, &mut out));
        let kinds: Vec<(Kind, u8)> = out.iter().map(|e| (e.kind, t[e.id as usize])).collect();
        let names: Vec<&[u8]> = out
            .iter()
            .map(|e| &t[e.name as usize..e.id as usize - 1])
            .collect();
        assert_eq!(names, [&b"a"[..], b"b", b"c", b"e"]);
        // The gitlink is not followed.
        assert_eq!(
            kinds,
            [
                (Kind::Blob, 1),
                (Kind::Blob, 2),
                (Kind::Blob, 3),
                (Kind::Tree, 5)
            ]
        );
        // Modes git reads but does not write, or reads as another (16 bits of 300644 are
        // 100644's), and broken entries.
        for odd in ["040000", "100664", "10644", "1006440", "300644", "4000", ""] {
            let t = tree(&[("100644", "a", 1), (odd, "x", 2)]);
            assert!(!simple(&t, &mut out), "{odd:?}");
        }
        let t = tree(&[("100644", "", 1)]);
        assert!(!simple(&t, &mut out));
        let mut t = tree(&[("100644", "a", 1)]);
        t.pop();
        assert!(!simple(&t, &mut out));
        assert!(simple(b"", &mut out) && out.is_empty());
    }
}

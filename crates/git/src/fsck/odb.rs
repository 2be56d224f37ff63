//! The object database as `git fsck` sees it: the repository's object directory and its
//! alternates (`objects/info/alternates`, recursively, as git's `prepare_alt_odb` reads them), the
//! loose objects of each (`xx/yyyy...`, and the other files git calls `bad sha1 file`), and the
//! packs (`pack/*.idx` with their `.pack`, mapped read-only).
//!
//! Paths are kept in the form git prints them: the object directory as the repository's git
//! directory was named (`.git/objects`, `GIT_DIR=/abs` gives `/abs/objects`).

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

/// One object directory: the repository's own or an alternate.
#[derive(Debug, Clone)]
pub struct ObjectDir {
    /// As git prints it.
    pub path: PathBuf,
}

/// What a loose-object scan of one directory finds.
#[derive(Debug, Default)]
pub struct LooseFiles {
    /// Object files: the hex id (from the path) and the path.
    pub objects: Vec<(String, PathBuf)>,
    /// Files in the fan-out directories that are not objects (git: `bad sha1 file: PATH`),
    /// without git's own temporary files.
    pub cruft: Vec<PathBuf>,
}

/// The object directories: `objects` first, then the alternates of `GIT_ALTERNATE_OBJECT_DIRECTORIES`
/// (`env`, separated by `:`, relative ones to the current directory) and of
/// `objects/info/alternates` (relative ones to the directory that lists them), each followed
/// by its own alternates, depth-first as git's `prepare_alt_odb` adds them; and git's errors for
/// the entries it skips. An alternate is named by its real path (git normalises it); each
/// directory comes once, and `objects` is not its own alternate.
///
/// Also returns the errors git prints again each time it reads the alternates again
/// (`reprepare_packed_git`, when an object is not found): those of the entries it could not add
/// at the top level (the environment's and the repository's own alternates file). An entry it
/// added is not read again, nor are the alternates it lists.
pub fn object_dirs(
    objects: &Path,
    env: Option<&std::ffi::OsStr>,
) -> (Vec<ObjectDir>, Vec<String>, Vec<String>) {
    let mut out = vec![ObjectDir {
        path: objects.to_path_buf(),
    }];
    let normalized = canonical(objects);
    let mut seen = vec![objects.to_path_buf()];
    let mut errors = Vec::new();
    let mut again = Vec::new();
    let mut alt = Alternates {
        normalized: &normalized,
        out: &mut out,
        seen: &mut seen,
        errors: &mut errors,
        again: &mut again,
    };
    if let Some(env) = env {
        use std::os::unix::ffi::OsStrExt;
        alt.link_entries(env.as_bytes(), b':', None, 0);
    }
    alt.read_info(objects, 0);
    (out, errors, again)
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// git's `strbuf_realpath` without dying: the real path, where only the last component may be
/// missing.
fn realpath(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(parent).ok()?.join(name))
}

/// What [`object_dirs`] has found so far.
struct Alternates<'a> {
    normalized: &'a Path,
    out: &'a mut Vec<ObjectDir>,
    seen: &'a mut Vec<PathBuf>,
    errors: &'a mut Vec<String>,
    /// The errors of top-level entries, which git prints again when it reads the alternates
    /// again.
    again: &'a mut Vec<String>,
}

impl Alternates<'_> {
    /// git's `read_info_alternates`: the alternates `dir` lists.
    fn read_info(&mut self, dir: &Path, depth: usize) {
        if let Ok(text) = fs::read(dir.join("info").join("alternates")) {
            self.link_entries(&text, b'\n', Some(dir), depth);
        }
    }

    /// git's `link_alt_odb_entries`: `sep`-separated entries, relative ones to `base` (the
    /// current directory when `None`). Deeper than five levels, git stops with an error naming
    /// the directory whose alternates it ignores.
    fn link_entries(&mut self, text: &[u8], sep: u8, base: Option<&Path>, depth: usize) {
        if text.is_empty() {
            return;
        }
        if depth > 5 {
            self.errors.push(format!(
                "{}: ignoring alternate object stores, nesting too deep",
                base.map_or_else(String::new, |b| b.display().to_string())
            ));
            return;
        }
        let mut rest = text;
        while !rest.is_empty() {
            let (entry, after) = parse_entry(rest, sep);
            rest = after;
            if !entry.is_empty() {
                self.link_entry(&entry, base, depth);
            }
        }
    }

    /// An entry that could not be added: at the top level, git says so again each time it reads
    /// the alternates again.
    fn entry_error(&mut self, line: String, depth: usize) {
        if depth == 0 {
            self.again.push(line.clone());
        }
        self.errors.push(line);
    }

    /// git's `link_alt_odb_entry`.
    fn link_entry(&mut self, entry: &[u8], base: Option<&Path>, depth: usize) {
        use std::os::unix::ffi::OsStrExt;
        let entry = Path::new(std::ffi::OsStr::from_bytes(entry));
        let joined = match base {
            Some(b) if !entry.is_absolute() => {
                let b = realpath(b).unwrap_or_else(|| b.to_path_buf());
                PathBuf::from(format!("{}/{}", b.display(), entry.display()))
            }
            _ => entry.to_path_buf(),
        };
        let Some(mut path) = realpath(&joined) else {
            self.entry_error(
                format!(
                    "unable to normalize alternate object path: {}",
                    joined.display()
                ),
                depth,
            );
            return;
        };
        // (The real path has no trailing slash.)
        while path.as_os_str().len() > 1 && path.as_os_str().as_bytes().ends_with(b"/") {
            path = PathBuf::from(std::ffi::OsStr::from_bytes(
                &path.as_os_str().as_bytes()[..path.as_os_str().len() - 1],
            ));
        }
        if !path.is_dir() {
            self.entry_error(
                format!(
                    "object directory {} does not exist; check .git/objects/info/alternates",
                    path.display()
                ),
                depth,
            );
            return;
        }
        if path == self.normalized || self.seen.contains(&path) {
            return;
        }
        self.seen.push(path.clone());
        self.out.push(ObjectDir { path: path.clone() });
        self.read_info(&path, depth + 1);
    }
}

/// git's `parse_alt_odb_entry`: one entry of `text` up to `sep` (a `#` line is a comment; a
/// quoted one is unquoted as C quotes it, or taken as it is when its quoting is broken), and the
/// rest.
fn parse_entry(text: &[u8], sep: u8) -> (Vec<u8>, &[u8]) {
    let end = text.iter().position(|&b| b == sep).unwrap_or(text.len());
    let after = text.get(end + 1..).unwrap_or(&[]);
    if text.first() == Some(&b'#') {
        return (Vec::new(), after);
    }
    if text.first() == Some(&b'"')
        && let Some((unquoted, used)) = crate::quote::unquote_c_style(text)
    {
        let rest = &text[used..];
        // What follows the closing quote up to the separator is skipped with it.
        let skip = rest
            .iter()
            .position(|&b| b == sep)
            .map_or(rest.len(), |p| p + 1);
        return (unquoted, &rest[skip.min(rest.len())..]);
    }
    (text[..end].to_vec(), after)
}

/// Lists the loose objects of `dir` (`hex_len`-digit ids), in git's order: fan-out directories
/// `00` to `ff`, each sorted.
pub fn loose_files(dir: &Path, hex_len: usize) -> LooseFiles {
    let mut out = LooseFiles::default();
    for b in 0..256u32 {
        let sub = format!("{b:02x}");
        let subdir = dir.join(&sub);
        let Ok(rd) = fs::read_dir(&subdir) else {
            continue;
        };
        let mut names: Vec<_> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let path = subdir.join(&name);
            if name.len() == hex_len - 2 && name.bytes().all(|c| c.is_ascii_hexdigit()) {
                // git takes lowercase and uppercase hex alike when it reads the name.
                out.objects
                    .push((format!("{sub}{}", name.to_ascii_lowercase()), path));
            } else if !name.starts_with("tmp_obj_") {
                out.cruft.push(path);
            }
        }
    }
    out
}

/// A pack as found: its `.idx` and `.pack` paths, and the files beside it.
#[derive(Debug, Clone)]
pub struct PackFiles {
    /// `.../pack-X.pack`, as git names the pack in messages.
    pub pack: PathBuf,
    /// `.../pack-X.idx`.
    pub idx: PathBuf,
    /// Whether a `.promisor` file marks it as from a promisor remote.
    pub promisor: bool,
}

/// The packs of an object directory: each `pack/*.idx` whose `.pack` exists, sorted by name.
pub fn packs(dir: &Path) -> Vec<PackFiles> {
    let pack_dir = dir.join("pack");
    let Ok(rd) = fs::read_dir(&pack_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".idx"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let stem = &name[..name.len() - 4];
        let pack = pack_dir.join(format!("{stem}.pack"));
        if !pack.is_file() {
            continue;
        }
        out.push(PackFiles {
            idx: pack_dir.join(&name),
            promisor: pack_dir.join(format!("{stem}.promisor")).exists(),
            pack,
        });
    }
    out
}

/// A file mapped read-only (empty files are not mapped: an empty slice stands for them).
pub struct Mapped {
    map: Option<Mmap>,
}

impl Mapped {
    /// Maps `path`.
    pub fn open(path: &Path) -> std::io::Result<Mapped> {
        let f = File::open(path)?;
        let len = f.metadata()?.len();
        if len == 0 {
            return Ok(Mapped { map: None });
        }
        // SAFETY: the map is read-only and private. Another process truncating or rewriting the
        // file while it is mapped could change the bytes under us or raise SIGBUS, as it would
        // for git; fsck reads the objects as found and never writes to them.
        let map = unsafe { Mmap::map(&f)? };
        Ok(Mapped { map: Some(map) })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// git reads again only the top-level alternates (the repository's own file and the
    /// environment's): their entries it could not add are said again, those of an alternate's
    /// own file are not, nor is the nesting error.
    #[test]
    fn only_top_level_entries_are_said_again() {
        let root = std::env::temp_dir().join(format!("flagsplit-odb-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let (objects, alt) = (root.join("a/objects"), root.join("b/objects"));
        for d in [&objects, &alt] {
            fs::create_dir_all(d.join("info")).unwrap();
        }
        let missing_top = root.join("nowhere/objects");
        let missing_nested = root.join("elsewhere/objects");
        fs::write(
            objects.join("info/alternates"),
            format!("{}\n{}\n", alt.display(), missing_top.display()),
        )
        .unwrap();
        fs::write(
            alt.join("info/alternates"),
            format!("{}\n", missing_nested.display()),
        )
        .unwrap();
        let env = root.join("gone/objects");
        let (dirs, errors, again) = object_dirs(&objects, Some(env.as_os_str()));
        let _ = fs::remove_dir_all(&root);
        assert_eq!(dirs.len(), 2, "{dirs:?}");
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(again.len(), 2, "{again:?}");
        assert!(
            again.iter().any(|e| e.contains("gone/objects")),
            "{again:?}"
        );
        assert!(
            again.iter().any(|e| e.contains("nowhere/objects")),
            "{again:?}"
        );
        assert!(!again.iter().any(|e| e.contains("elsewhere")), "{again:?}");
    }
}

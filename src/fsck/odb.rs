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

/// The object directories: `objects` first, then its alternates, depth-first as git adds them
/// (at most 5 levels deep, each directory once); and git's errors for the entries it skips.
pub fn object_dirs(objects: &Path) -> (Vec<ObjectDir>, Vec<String>) {
    let mut out = vec![ObjectDir {
        path: objects.to_path_buf(),
    }];
    let mut seen = vec![canonical(objects)];
    let mut errors = Vec::new();
    add_alternates(objects, 0, &mut out, &mut seen, &mut errors);
    (out, errors)
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn add_alternates(
    dir: &Path,
    depth: usize,
    out: &mut Vec<ObjectDir>,
    seen: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
) {
    if depth > 5 {
        return;
    }
    let Ok(text) = fs::read(dir.join("info").join("alternates")) else {
        return;
    };
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let Ok(s) = std::str::from_utf8(line) else {
            continue;
        };
        let p = Path::new(s);
        // git names a relative entry after the real path of the directory it is relative to.
        let path = if p.is_absolute() {
            p.to_path_buf()
        } else {
            PathBuf::from(format!("{}/{s}", canonical(dir).display()))
        };
        // git's realpath lets only the last component be missing.
        let parent_exists = path
            .parent()
            .is_none_or(|d| d.as_os_str().is_empty() || d.is_dir());
        if !parent_exists {
            errors.push(format!(
                "unable to normalize alternate object path: {}",
                path.display()
            ));
            continue;
        }
        if !path.is_dir() {
            errors.push(format!(
                "object directory {} does not exist; check .git/objects/info/alternates",
                path.display()
            ));
            continue;
        }
        let c = canonical(&path);
        if seen.contains(&c) {
            continue;
        }
        seen.push(c);
        out.push(ObjectDir { path: path.clone() });
        add_alternates(&path, depth + 1, out, seen, errors);
    }
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
        // for git; fsck reads the repository as found and never writes to it.
        let map = unsafe { Mmap::map(&f)? };
        Ok(Mapped { map: Some(map) })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

//! `--lost-found`: each dangling object written under the common directory's `lost-found/`, as
//! git's `check_unreachable_object` writes it — a commit to `commit/ID`, any other object to
//! `other/ID`; a blob holds its content, a commit, tree or tag its id and a newline. It is the
//! only write fsck makes, and only when asked for.
//!
//! git opens the final name and writes into it; here a file named by an object id is never
//! partial: the content goes to `lost-found/.tmp-PID-N` first and is renamed over the final name,
//! and a run with `--lost-found` first removes the `.tmp-*` files left by a run that was killed
//! (those of a process that is no longer running). The lines are git's: `error: could not create
//! lost-found` when a directory cannot be made (and the object is skipped), and git's deaths
//! (`fatal: could not open 'PATH' for writing: ...`, `could not write`, `could not finish`).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Kind;
use crate::os_error::strerror;

/// The prefix of a file being written.
const TMP_PREFIX: &str = ".tmp-";

/// Where dangling objects go, and the temporary files of this run.
pub struct LostFound {
    /// `COMMON/lost-found`, named as git names it.
    dir: PathBuf,
    /// The temporary files made so far (each gets a new number).
    made: u64,
}

/// What an object's file holds.
pub enum Content {
    /// A blob's content.
    Blob(Vec<u8>),
    /// A commit's, tree's or tag's line: its id (as git describes it) and a newline.
    Line(String),
}

/// How writing an object's file failed.
pub enum Failed {
    /// git's `error: could not create lost-found`: the object is skipped.
    Directory,
    /// git dies: its message (without `fatal: `).
    Fatal(String),
}

impl LostFound {
    /// The directory under `common_dir` (the repository's common directory, as git names it).
    pub fn new(common_dir: &Path) -> LostFound {
        LostFound {
            dir: common_dir.join("lost-found"),
            made: 0,
        }
    }

    /// The file git writes for an object of type `kind` that it describes as `described`.
    pub fn path(&self, kind: Option<Kind>, described: &str) -> PathBuf {
        let sub = if kind == Some(Kind::Commit) {
            "commit"
        } else {
            "other"
        };
        self.dir.join(sub).join(described)
    }

    /// Removes the temporary files a killed run left in the directory: those whose process is no
    /// longer running (where `/proc` tells; elsewhere, all of them). Errors are ignored: a file
    /// that stays is removed by a later run.
    pub fn remove_leftovers(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let proc_known = Path::new("/proc/self").exists();
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TMP_PREFIX)) else {
                continue;
            };
            let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
            let running = match pid {
                Some(pid) if proc_known => {
                    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
                }
                _ => false,
            };
            if !running {
                let _ = fs::remove_file(e.path());
            }
        }
    }

    /// Makes the directories of `path` as git's `safe_create_leading_directories` does: each
    /// missing one with mode 0777 (less the umask); one that is not a directory, or cannot be
    /// made, fails.
    fn make_directories(&self, path: &Path) -> bool {
        let Some(parent) = path.parent() else {
            return true;
        };
        let mut dirs: Vec<&Path> = parent
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty())
            .collect();
        dirs.reverse();
        for d in dirs {
            match fs::metadata(d) {
                Ok(m) if m.is_dir() => continue,
                Ok(_) => return false,
                Err(_) => {}
            }
            if let Err(e) = fs::create_dir(d)
                && !(e.kind() == io::ErrorKind::AlreadyExists
                    && fs::metadata(d).is_ok_and(|m| m.is_dir()))
            {
                return false;
            }
        }
        true
    }

    /// Writes `path` (from [`LostFound::path`]) with the content `read` gives once the
    /// temporary file is open; `None` when a blob cannot be read (git's `could not write`, here
    /// without the C library's word for it, which git takes from whatever call failed last).
    pub fn write(
        &mut self,
        path: &Path,
        read: impl FnOnce() -> Option<Content>,
    ) -> Result<(), Failed> {
        if !self.make_directories(path) {
            return Err(Failed::Directory);
        }
        let shown = path.display();
        let open_failed = |e: &io::Error| {
            Failed::Fatal(format!(
                "could not open '{shown}' for writing: {}",
                strerror(e)
            ))
        };
        self.made += 1;
        let tmp = self
            .dir
            .join(format!("{TMP_PREFIX}{}-{}", std::process::id(), self.made));
        let mut file = File::create(&tmp).map_err(|e| open_failed(&e))?;
        let written = match read() {
            Some(Content::Blob(data)) => file
                .write_all(&data)
                .map_err(|e| Failed::Fatal(format!("could not write '{shown}': {}", strerror(&e)))),
            Some(Content::Line(id)) => writeln!(file, "{id}").map_err(|e| {
                Failed::Fatal(format!("could not finish '{shown}': {}", strerror(&e)))
            }),
            None => Err(Failed::Fatal(format!("could not write '{shown}'"))),
        };
        // Closed before the rename: a process killed before it leaves only the temporary file.
        drop(file);
        let renamed = written.and_then(|()| fs::rename(&tmp, path).map_err(|e| open_failed(&e)));
        if renamed.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        renamed
    }
}

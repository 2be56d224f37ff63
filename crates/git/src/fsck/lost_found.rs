//! `--lost-found`: each dangling object written under the common directory's `lost-found/`, as
//! git's `check_unreachable_object` writes it — a commit to `commit/ID`, any other object to
//! `other/ID`; a blob holds its content, a commit, tree or tag its id and a newline. It is the
//! only write fsck makes, and only when asked for.
//!
//! git opens the final name and writes into it; here a file named by an object id is never
//! partial: the content goes to `lost-found/.tmp-PID-N` first, is synced to the disk, and is
//! renamed over the final name, and a run with `--lost-found` first removes the `.tmp-*` files left by a run that was killed
//! (those of a process that is no longer running). The directories it makes get the modes of
//! `core.sharedRepository`, as git's `adjust_shared_perm` sets them. The lines are git's: `error:
//! could not create lost-found` when a directory cannot be made (and the object is skipped), and
//! git's deaths (`fatal: could not open 'PATH' for writing: ...`, `could not write`, `could not
//! finish`, and a bad `core.sharedRepository` when the first directory is made).

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
    /// `core.sharedRepository` as git holds it ([`shared_repository`]), or git's fatal message
    /// for a bad value, which git gives when it first makes a directory.
    shared: Result<i32, String>,
}

/// git's `PERM_GROUP` and `PERM_EVERYBODY`.
const PERM_GROUP: i32 = 0o660;
const PERM_EVERYBODY: i32 = 0o664;

/// `core.sharedRepository` as git's `git_config_perm` reads it: 0 (the umask: `umask`, `false`,
/// unset), 0660 (`group`, `true`, `1`, no value), 0664 (`all`, `world`, `everybody`, `2`), or an
/// octal mode given as the negative of its `0666` bits. `Err` is git's fatal message.
pub fn shared_repository(value: Option<Option<&[u8]>>) -> Result<i32, String> {
    let v = match value {
        None => return Ok(0),
        Some(None) => return Ok(PERM_GROUP),
        Some(Some(v)) => String::from_utf8_lossy(v).into_owned(),
    };
    match v.as_str() {
        "umask" => return Ok(0),
        "group" => return Ok(PERM_GROUP),
        "all" | "world" | "everybody" => return Ok(PERM_EVERYBODY),
        _ => {}
    }
    // strtol(value, 8): an optional sign, octal digits; anything after them makes it a boolean.
    let digits = v.trim_start_matches(['+', '-']);
    let octal = !digits.is_empty() && digits.bytes().all(|b| (b'0'..=b'7').contains(&b));
    if !octal {
        return match crate::gitconfig::parse_maybe_bool(Some(v.as_bytes())) {
            Some(true) => Ok(PERM_GROUP),
            Some(false) => Ok(0),
            None => Err(format!(
                "bad boolean config value '{v}' for 'core.sharedrepository'"
            )),
        };
    }
    let mut i = i64::from_str_radix(digits, 8).unwrap_or(i64::MAX);
    if v.starts_with('-') {
        i = -i;
    }
    match i {
        0 => Ok(0),
        1 => Ok(PERM_GROUP),
        2 => Ok(PERM_EVERYBODY),
        _ if i & 0o600 != 0o600 => Err(format!(
            "problem with core.sharedRepository filemode value (0{:03o}).\nThe owner of files must always have read and write permissions.",
            i & 0o7777
        )),
        _ => Ok(-((i & 0o666) as i32)),
    }
}

/// The mode git's `adjust_shared_perm` gives a directory of mode `mode` under `shared`
/// (`calc_shared_perm`, then the read bits copied to the execute bits and set-group-id where the
/// group gains access); `mode` itself when `shared` is 0.
pub fn shared_dir_mode(mode: u32, shared: i32) -> u32 {
    if shared == 0 {
        return mode;
    }
    let mut tweak = shared.unsigned_abs();
    if mode & 0o200 == 0 {
        tweak &= !0o222;
    }
    if mode & 0o100 != 0 {
        tweak |= (tweak & 0o444) >> 2;
    }
    let mut new = if shared < 0 {
        (mode & !0o777) | tweak
    } else {
        mode | tweak
    };
    new |= (new & 0o444) >> 2;
    if new & 0o060 != 0 {
        new |= 0o2000;
    }
    new
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
    /// The directory under `common_dir` (the repository's common directory, as git names it);
    /// `shared`: `core.sharedRepository` ([`shared_repository`]), for the directories it makes.
    pub fn new(common_dir: &Path, shared: Result<i32, String>) -> LostFound {
        LostFound {
            dir: common_dir.join("lost-found"),
            made: 0,
            shared,
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
    /// missing one with mode 0777 (less the umask), then `core.sharedRepository`'s mode
    /// (`adjust_shared_perm`); one that is not a directory, or cannot be made, fails.
    fn make_directories(&self, path: &Path) -> Result<(), Failed> {
        let Some(parent) = path.parent() else {
            return Ok(());
        };
        let mut dirs: Vec<&Path> = parent
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty())
            .collect();
        dirs.reverse();
        for d in dirs {
            match fs::metadata(d) {
                Ok(m) if m.is_dir() => continue,
                Ok(_) => return Err(Failed::Directory),
                Err(_) => {}
            }
            if let Err(e) = fs::create_dir(d)
                && !(e.kind() == io::ErrorKind::AlreadyExists
                    && fs::metadata(d).is_ok_and(|m| m.is_dir()))
            {
                return Err(Failed::Directory);
            }
            // git reads core.sharedRepository here first, and dies on a bad value.
            let shared = self.shared.clone().map_err(Failed::Fatal)?;
            if shared != 0 {
                use std::os::unix::fs::PermissionsExt;
                let Ok(m) = fs::metadata(d) else {
                    return Err(Failed::Directory);
                };
                let old = m.permissions().mode() & 0o7777;
                let new = shared_dir_mode(old, shared) & 0o7777;
                if new != old && fs::set_permissions(d, fs::Permissions::from_mode(new)).is_err() {
                    return Err(Failed::Directory);
                }
            }
        }
        Ok(())
    }

    /// Writes `path` (from [`LostFound::path`]) with the content `read` gives once the
    /// temporary file is open; `None` when a blob cannot be read: git's `could not write`, with
    /// the C library's word for the last call that failed before it. That is a blob git could
    /// not stream, which (its copy having been checked by the scan otherwise) is one of
    /// `--connectivity-only`, whose last failed call is its scan's `opendir` of a fan-out
    /// directory that is not there (ENOENT), as in every object directory but one holding all
    /// 256.
    pub fn write(
        &mut self,
        path: &Path,
        read: impl FnOnce() -> Option<Content>,
    ) -> Result<(), Failed> {
        self.make_directories(path)?;
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
            None => Err(Failed::Fatal(format!(
                "could not write '{shown}': {}",
                strerror(&io::Error::from_raw_os_error(libc::ENOENT))
            ))),
        };
        // On the disk before the rename, so that not even a crash of the machine leaves a file
        // named by an id that is partial (git, which writes in place, does not sync either).
        let written = written.and_then(|()| {
            file.sync_data()
                .map_err(|e| Failed::Fatal(format!("could not finish '{shown}': {}", strerror(&e))))
        });
        // Closed before the rename: a process killed before it leaves only the temporary file.
        drop(file);
        let renamed = written.and_then(|()| fs::rename(&tmp, path).map_err(|e| open_failed(&e)));
        if renamed.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        renamed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_repository_as_git_reads_it() {
        let v = |s: &str| shared_repository(Some(Some(s.as_bytes())));
        assert_eq!(shared_repository(None), Ok(0));
        assert_eq!(shared_repository(Some(None)), Ok(0o660));
        assert_eq!(v("group"), Ok(0o660));
        assert_eq!(v("true"), Ok(0o660));
        assert_eq!(v("1"), Ok(0o660));
        assert_eq!(v("everybody"), Ok(0o664));
        assert_eq!(v("2"), Ok(0o664));
        assert_eq!(v("umask"), Ok(0));
        assert_eq!(v("false"), Ok(0));
        assert_eq!(v("0640"), Ok(-0o640));
        assert_eq!(v("0777"), Ok(-0o666));
        assert!(
            v("0440")
                .unwrap_err()
                .starts_with("problem with core.sharedRepository filemode value (0440)")
        );
        assert!(v("sometimes").is_err());
    }

    #[test]
    fn directory_modes_as_adjust_shared_perm_makes_them() {
        // A directory made under umask 022.
        assert_eq!(shared_dir_mode(0o755, 0), 0o755);
        assert_eq!(shared_dir_mode(0o755, 0o660), 0o2775);
        assert_eq!(shared_dir_mode(0o755, 0o664), 0o2775);
        assert_eq!(shared_dir_mode(0o755, -0o640), 0o2750);
        assert_eq!(shared_dir_mode(0o700, -0o600), 0o700);
    }
}

//! The worktrees of a repository as git's `get_worktrees` lists them: the main worktree first,
//! then every `$GIT_COMMON_DIR/worktrees/<id>` whose `gitdir` file is readable and not empty
//! (git skips an entry without one silently; one without `HEAD` is listed, and its `HEAD` is
//! then invalid).

use std::fs;
use std::path::{Path, PathBuf};

use super::model::{WorktreeRefType, parse_worktree_ref};

/// One worktree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worktree {
    /// `None` for the main worktree, else the directory name under `worktrees/`.
    pub id: Option<String>,
    /// Its git directory (`get_worktree_git_dir`): the common directory for the main worktree,
    /// `$GIT_COMMON_DIR/worktrees/<id>` for a linked one.
    pub git_dir: PathBuf,
    /// The working tree's path: the common directory without `/.git` for the main worktree
    /// (as given, not made absolute), the `gitdir` file's content without `/.git` for a linked
    /// one.
    pub path: PathBuf,
    /// It is the worktree the command runs in (its git directory is the repository's).
    pub is_current: bool,
}

impl Worktree {
    /// Whether this is the main worktree.
    pub fn is_main(&self) -> bool {
        self.id.is_none()
    }

    /// `strbuf_worktree_ref`: the name the current worktree's ref store gives `refname` of this
    /// worktree — a per-worktree name (`HEAD`, `refs/bisect/…`) of another worktree gets
    /// `main-worktree/` or `worktrees/<id>/` in front.
    pub fn ref_name(&self, refname: &str) -> String {
        if parse_worktree_ref(refname.as_bytes()).0 == WorktreeRefType::Current && !self.is_current
        {
            match &self.id {
                None => return format!("main-worktree/{refname}"),
                Some(id) => return format!("worktrees/{id}/{refname}"),
            }
        }
        refname.to_string()
    }

    /// [`Worktree::ref_name`] on bytes.
    pub fn ref_name_bytes(&self, refname: &[u8]) -> Vec<u8> {
        if parse_worktree_ref(refname).0 == WorktreeRefType::Current && !self.is_current {
            let mut out = match &self.id {
                None => b"main-worktree/".to_vec(),
                Some(id) => format!("worktrees/{id}/").into_bytes(),
            };
            out.extend_from_slice(refname);
            return out;
        }
        refname.to_vec()
    }

    /// Its index file (`worktree_git_path(wt, "index")`).
    pub fn index_path(&self) -> PathBuf {
        self.git_dir.join("index")
    }
}

/// The common directory of a git directory: `commondir`'s content (relative to the git
/// directory when not absolute), else the git directory itself.
pub fn common_dir(git_dir: &Path) -> PathBuf {
    match fs::read(git_dir.join("commondir")) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                git_dir.to_path_buf()
            } else {
                git_dir.join(text)
            }
        }
        Err(_) => git_dir.to_path_buf(),
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// `get_worktrees()` for a repository whose git directory is `git_dir` and common directory
/// `common_dir`: main first, then the linked ones sorted by id (git lists them in directory
/// order).
pub fn get_worktrees(git_dir: &Path, common_dir: &Path) -> Vec<Worktree> {
    let main_path = {
        let s = common_dir.to_string_lossy();
        PathBuf::from(s.strip_suffix("/.git").unwrap_or(&s))
    };
    let mut list = vec![Worktree {
        id: None,
        git_dir: common_dir.to_path_buf(),
        path: main_path,
        is_current: same_dir(git_dir, common_dir),
    }];
    let mut linked = Vec::new();
    if let Ok(dir) = fs::read_dir(common_dir.join("worktrees")) {
        for entry in dir.flatten() {
            let id = entry.file_name().to_string_lossy().into_owned();
            let wt_dir = common_dir.join("worktrees").join(entry.file_name());
            let Ok(content) = fs::read(wt_dir.join("gitdir")) else {
                continue;
            };
            if content.is_empty() {
                continue;
            }
            let text = String::from_utf8_lossy(&content);
            let text = text.trim_end();
            let path = PathBuf::from(text.strip_suffix("/.git").unwrap_or(text));
            linked.push(Worktree {
                id: Some(id),
                is_current: same_dir(git_dir, &wt_dir),
                git_dir: wt_dir,
                path,
            });
        }
    }
    linked.sort_by(|a, b| a.id.cmp(&b.id));
    list.extend(linked);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_names() {
        let main = Worktree {
            id: None,
            git_dir: PathBuf::from("/r/.git"),
            path: PathBuf::from("/r"),
            is_current: false,
        };
        assert_eq!(main.ref_name("HEAD"), "main-worktree/HEAD");
        assert_eq!(main.ref_name("refs/heads/x"), "refs/heads/x");
        let wt = Worktree {
            id: Some("w".into()),
            is_current: false,
            ..main.clone()
        };
        assert_eq!(wt.ref_name("HEAD"), "worktrees/w/HEAD");
        assert_eq!(
            wt.ref_name("refs/bisect/bad"),
            "worktrees/w/refs/bisect/bad"
        );
        let cur = Worktree {
            is_current: true,
            ..wt
        };
        assert_eq!(cur.ref_name("HEAD"), "HEAD");
    }
}

//! `flagsplit::repo` (refs, HEAD links, worktrees, reflogs, index files) against what git 2.47
//! itself prints for repositories made by git: `git for-each-ref`, `git rev-parse`,
//! `git reflog`, `git ls-files -s`, `git ls-files --resolve-undo`, `git write-tree`, and
//! `git fsck`'s own lines for broken inputs.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use flagsplit::hash::Selected;
use flagsplit::object::ObjectFormat;
use flagsplit::repo::index::{IndexError, Objects, compute_cache_tree, read_index};
use flagsplit::repo::reflog::worktree_reflogs;
use flagsplit::repo::refs::{HeadState, RefStore};
use flagsplit::repo::worktrees::{common_dir, get_worktrees};
use flagsplit::repo::{hex, parse_hex};
use tempfile::TempDir;

/// A scratch directory with a repository `r` made by git in a clean environment.
struct Repo {
    tmp: TempDir,
}

impl Repo {
    fn new() -> Repo {
        let tmp = TempDir::new().unwrap();
        let repo = Repo { tmp };
        repo.git_in(repo.tmp.path(), &["init", "-q", "-b", "main", "r"]);
        repo
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("r")
    }

    fn git_dir(&self) -> PathBuf {
        self.dir().join(".git")
    }

    fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_NAME", "A U Thor")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "C O Mitter")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com")
            .env("GIT_AUTHOR_DATE", "@1700000000 +0000")
            .env("GIT_COMMITTER_DATE", "@1700000000 +0000");
        c
    }

    fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.command(cwd, args).output().unwrap()
    }

    fn git_in(&self, cwd: &Path, args: &[&str]) -> String {
        let out = self.run_in(cwd, args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.dir(), args)
    }

    fn write(&self, path: &str, content: &str) {
        let p = self.dir().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }

    fn commit(&self, path: &str, content: &str, message: &str) {
        self.write(path, content);
        self.git(&["add", path]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// `git fsck` with `GIT_DIR` absolute (so that git's messages name absolute paths): its
    /// stderr lines and exit status.
    fn fsck(&self) -> (Vec<String>, i32) {
        let mut c = self.command(&self.dir(), &["fsck"]);
        c.env("GIT_DIR", self.git_dir());
        let out = c.output().unwrap();
        let lines = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_string)
            .collect();
        (lines, out.status.code().unwrap_or(-1))
    }

    fn store(&self) -> RefStore {
        RefStore::open::<Selected>(&self.git_dir(), &self.git_dir(), ObjectFormat::Sha1).unwrap()
    }

    fn index(&self) -> Result<Option<flagsplit::repo::index::Index>, IndexError> {
        read_index::<Selected>(
            &self.git_dir().join("index"),
            &self.git_dir(),
            ObjectFormat::Sha1,
            &mut GitObjects(self),
        )
    }
}

/// The objects of a repository through `git cat-file`.
struct GitObjects<'a>(&'a Repo);

impl Objects for GitObjects<'_> {
    fn read_tree(&mut self, id: &[u8]) -> Option<Vec<u8>> {
        let out = self
            .0
            .run_in(&self.0.dir(), &["cat-file", "tree", &hex(id)]);
        out.status.success().then_some(out.stdout)
    }
    fn has_object(&mut self, id: &[u8]) -> bool {
        let out = self.0.run_in(&self.0.dir(), &["cat-file", "-e", &hex(id)]);
        out.status.success()
    }
}

/// A listing as `git for-each-ref --format='%(refname) %(objectname)'` prints it (git did not
/// die part-way).
fn ref_lines(listing: &flagsplit::repo::refs::RefListing) -> BTreeSet<String> {
    assert_eq!(listing.fatal, None);
    listing
        .refs
        .iter()
        .map(|x| format!("{} {}", x.name_lossy(), hex(&x.id)))
        .collect()
}

fn lines(s: &str) -> BTreeSet<String> {
    s.lines().map(str::to_string).collect()
}

/// `git ls-files -s` lines from an index.
fn ls_files(index: &flagsplit::repo::index::Index) -> BTreeSet<String> {
    index
        .entries
        .iter()
        .map(|e| {
            format!(
                "{:06o} {} {}\t{}",
                e.mode,
                hex(&e.id),
                e.stage,
                String::from_utf8_lossy(&e.path)
            )
        })
        .collect()
}

fn base_repo() -> Repo {
    let r = Repo::new();
    r.commit("a", "a\n", "one");
    r.commit("dir/b", "b\n", "two");
    r.git(&["branch", "b1"]);
    r.git(&["tag", "t1"]);
    r.git(&["tag", "-a", "-m", "annotated", "t2"]);
    r
}

#[test]
fn refs_match_for_each_ref() {
    let r = base_repo();
    r.git(&["pack-refs", "--all"]);
    r.git(&["branch", "b2"]);
    r.commit("c", "c\n", "three");
    r.git(&["branch", "-f", "b1", "HEAD"]); // loose b1 over a stale packed b1
    r.git(&["symbolic-ref", "refs/heads/sym", "refs/heads/b2"]);
    r.git(&["update-ref", "refs/bisect/bad", "HEAD"]);
    r.git(&["notes", "add", "-m", "note"]);
    let listing = r.store().for_each_rawref();
    let ours = ref_lines(&listing);
    let theirs = lines(&r.git(&["for-each-ref", "--format=%(refname) %(objectname)"]));
    assert_eq!(ours, theirs);
    // git's order: sorted by name
    let names: Vec<_> = listing.refs.iter().map(|x| x.name.clone()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let sym = listing.refs.iter().find(|x| x.name == b"refs/heads/sym");
    assert_eq!(
        sym.and_then(|s| s.symref_target.clone()),
        Some(b"refs/heads/b2".to_vec())
    );
    assert!(flagsplit::repo::refs::is_branch("refs/heads/b1"));
    assert!(!flagsplit::repo::refs::is_branch("refs/tags/t1"));
}

#[test]
fn broken_refs_are_visited_with_the_null_id_as_git_fsck_reports_them() {
    let r = base_repo();
    let heads = r.git_dir().join("refs/heads");
    fs::write(heads.join("garbage"), "garbage\n").unwrap();
    fs::write(heads.join("dangling"), "ref: refs/heads/nowhere\n").unwrap();
    fs::write(heads.join("nullid"), format!("{}\n", "0".repeat(40))).unwrap();
    let head = r.git(&["rev-parse", "HEAD"]);
    fs::write(heads.join("bad..name"), &head).unwrap();
    fs::create_dir_all(heads.join("skipped.lock")).unwrap();
    fs::write(heads.join(".hidden"), &head).unwrap();
    let missing = "1".repeat(40);
    fs::write(heads.join("missing"), format!("{missing}\n")).unwrap();

    let listing = r.store().for_each_rawref();
    assert_eq!(listing.fatal, None);
    // every ref git fsck names "invalid sha1 pointer" is ours with that id
    let (stderr, code) = r.fsck();
    assert_eq!(code, 2, "{stderr:?}");
    let theirs: BTreeSet<String> = stderr
        .iter()
        .filter(|l| l.contains(": invalid sha1 pointer "))
        .cloned()
        .collect();
    let present = lines(&r.git(&[
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objectname)",
    ]));
    let ours: BTreeSet<String> = listing
        .refs
        .iter()
        .filter(|x| !present.contains(&hex(&x.id)))
        .map(|x| {
            format!(
                "error: {}: invalid sha1 pointer {}",
                x.name_lossy(),
                hex(&x.id)
            )
        })
        .collect();
    assert_eq!(ours, theirs);
    assert!(listing.refs.iter().all(|x| x.name != b"refs/heads/.hidden"));
}

/// Each bad `packed-refs` file: git fsck dies with our fatal line, or goes on with the refs we
/// list (broken ones with the null id).
#[test]
fn bad_packed_refs_die_as_git_does() {
    let r = base_repo();
    let id = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    let cases = [
        format!("{id} refs/heads/p1\ngarbage line\n"),
        format!("{id} refs/heads/p1\n{id} refs/heads/p2"),
        format!("^{id}\n"),
        format!("# some other comment\n{id} refs/heads/p1\n"),
        format!("{id}  refs/heads/p1\n"),
        format!("{id}x refs/heads/p1\n"),
        format!(
            "# pack-refs with: peeled fully-peeled sorted \n{id} refs/heads/p1\nshort\n{id} refs/heads/p3\n"
        ),
        format!("# pack-refs with: peeled sorted \n{id} refs/heads/p1\n^{id}x\n"),
        format!("{id} refs/heads/{}\n", "x".repeat(100)).replace('\n', ""),
        "\n".to_string(),
        // sorted files are checked while iterating: an empty name, an id line without a name
        // (the next line becomes its name), a short line, a bad peeled line, a long bad line
        format!("# pack-refs with: sorted \n{id} refs/heads/a\n{id} \n{id} refs/heads/z\n"),
        format!("# pack-refs with: sorted \n{id}\nrefs/heads/a\n{id} refs/heads/z\n"),
        format!("# pack-refs with: sorted \n{id} refs/heads/a\n^{id}\n^{id}\n"),
        format!("# pack-refs with: sorted \n{id}x{}\n", "y".repeat(100)),
        format!(
            "# pack-refs with: peeled\n{id} refs/heads/a\n^{}\n",
            "z".repeat(40)
        ),
    ];
    for case in cases {
        fs::write(r.git_dir().join("packed-refs"), &case).unwrap();
        let (stderr, code) = r.fsck();
        let fatal = stderr
            .iter()
            .find_map(|l| l.strip_prefix("fatal: "))
            .map(str::to_string);
        assert_eq!(code == 128, fatal.is_some(), "{case:?}: {stderr:?}");
        let listing = r.store().for_each_rawref();
        assert_eq!(listing.fatal, fatal, "{case:?}");
        let theirs: BTreeSet<String> = stderr
            .iter()
            .filter(|l| l.contains(": invalid sha1 pointer "))
            .cloned()
            .collect();
        let ours: BTreeSet<String> = listing
            .refs
            .iter()
            .filter(|x| x.id == vec![0; 20])
            .map(|x| {
                format!(
                    "error: {}: invalid sha1 pointer {}",
                    x.name_lossy(),
                    hex(&x.id)
                )
            })
            .collect();
        assert_eq!(ours, theirs, "{case:?}");
    }
    // symbolic refs to the records of a file wrongly claiming `sorted`: git's binary search
    // finds some and misses others
    let mut text = "# pack-refs with: sorted \n".to_string();
    for name in ["m", "z", "b", "y", "a", "c"] {
        text.push_str(&format!("{id} refs/heads/p{name}\n"));
        fs::write(
            r.git_dir().join(format!("refs/heads/s{name}")),
            format!("ref: refs/heads/p{name}\n"),
        )
        .unwrap();
    }
    fs::write(r.git_dir().join("packed-refs"), &text).unwrap();
    let (stderr, _) = r.fsck();
    let theirs: BTreeSet<String> = stderr
        .iter()
        .filter(|l| l.contains(": invalid sha1 pointer "))
        .cloned()
        .collect();
    assert!(!theirs.is_empty());
    let ours: BTreeSet<String> = r
        .store()
        .for_each_rawref()
        .refs
        .iter()
        .filter(|x| x.id == vec![0; 20])
        .map(|x| {
            format!(
                "error: {}: invalid sha1 pointer {}",
                x.name_lossy(),
                hex(&x.id)
            )
        })
        .collect();
    assert_eq!(ours, theirs);
    for name in ["m", "z", "b", "y", "a", "c"] {
        fs::remove_file(r.git_dir().join(format!("refs/heads/s{name}"))).unwrap();
    }

    // a name git refuses without dying: visited with the null id
    fs::write(
        r.git_dir().join("packed-refs"),
        format!("{id} refs/heads/bad..name\n"),
    )
    .unwrap();
    let listing = r.store().for_each_rawref();
    let bad = listing
        .refs
        .iter()
        .find(|x| x.name == b"refs/heads/bad..name");
    assert!(bad.is_some_and(|b| b.bad_name && b.id == vec![0; 20]));
}

#[test]
fn head_links_of_worktrees() {
    let r = base_repo();
    let tmp = r.tmp.path();
    r.git(&["worktree", "add", "-q", "../wt1", "-b", "wtb"]);
    r.git(&["worktree", "add", "-q", "--detach", "../wt2"]);
    r.git(&["worktree", "add", "-q", "../wt3", "-b", "gone"]);
    r.git(&["worktree", "add", "-q", "../wt4", "-b", "wt4b"]);
    r.git(&["worktree", "add", "-q", "../wt5", "-b", "wt5b"]);
    r.git(&["worktree", "add", "-q", "../wt6", "-b", "wt6b"]);
    // wt3: unborn (branch deleted); wt4: HEAD garbage; wt5: gitdir file removed
    let gone = tmp.join("wt3");
    r.git_in(&gone, &["checkout", "-q", "--orphan", "unborn"]);
    let wts = r.git_dir().join("worktrees");
    fs::write(wts.join("wt4/HEAD"), "garbage\n").unwrap();
    fs::remove_file(wts.join("wt5/gitdir")).unwrap();
    // wt6: no HEAD at all
    fs::remove_file(wts.join("wt6/HEAD")).unwrap();
    fs::write(r.git_dir().join("HEAD"), "ref: refs/tags/t1\n").unwrap();

    let git_dir = r.git_dir();
    let common = common_dir(&git_dir);
    let worktrees = get_worktrees(&git_dir, &common);
    let ids: Vec<_> = worktrees.iter().map(|w| w.id.clone()).collect();
    assert_eq!(
        ids,
        vec![
            None,
            Some("wt1".to_string()),
            Some("wt2".to_string()),
            Some("wt3".to_string()),
            Some("wt4".to_string()),
            Some("wt6".to_string())
        ]
    );
    assert!(worktrees[0].is_current && !worktrees[1].is_current);
    let store = r.store();
    let links: Vec<_> = worktrees
        .iter()
        .map(|w| store.head_link(&w.ref_name("HEAD")).unwrap())
        .collect();
    assert_eq!(
        links.iter().map(|l| l.state).collect::<Vec<_>>(),
        vec![
            HeadState::Strange,
            HeadState::Branch,
            HeadState::Detached,
            HeadState::Unborn,
            HeadState::Invalid,
            HeadState::DetachedNull
        ]
    );
    assert_eq!(links[1].name, "worktrees/wt1/HEAD");
    let wt2_head = r.git_in(&tmp.join("wt2"), &["rev-parse", "HEAD"]);
    assert_eq!(hex(&links[2].id), wt2_head.trim());
    let (stderr, _) = r.fsck();
    let ours: BTreeSet<String> = links.iter().filter_map(|l| l.message()).collect();
    let theirs: BTreeSet<String> = stderr
        .iter()
        .filter(|l| {
            l.starts_with("notice: ")
                || l.starts_with("error: invalid ")
                || l.contains("points to something strange")
                || l.contains("points at nothing")
        })
        .cloned()
        .collect();
    assert_eq!(ours, theirs);

    // from inside a linked worktree: its own HEAD is `HEAD`, the main one `main-worktree/HEAD`
    let wt1_git = common.join("worktrees/wt1");
    assert_eq!(
        common_dir(&wt1_git).canonicalize().unwrap(),
        common.canonicalize().unwrap()
    );
    let from_wt1 = get_worktrees(&wt1_git, &common);
    assert!(from_wt1[1].is_current && !from_wt1[0].is_current);
    assert_eq!(from_wt1[0].ref_name("HEAD"), "main-worktree/HEAD");
    let wt1_store = RefStore::open::<Selected>(&wt1_git, &common, ObjectFormat::Sha1).unwrap();
    let head = wt1_store.head_link("HEAD").unwrap();
    assert_eq!(head.points_at.as_deref(), Some(&b"refs/heads/wtb"[..]));
}

#[test]
fn reflogs_of_worktrees() {
    let r = base_repo();
    r.commit("c", "c\n", "three");
    r.git(&["checkout", "-q", "b1"]);
    r.git(&["worktree", "add", "-q", "../wt1", "-b", "wtb"]);
    let wt1 = r.tmp.path().join("wt1");
    fs::write(wt1.join("x"), "x\n").unwrap();
    r.git_in(&wt1, &["add", "x"]);
    r.git_in(&wt1, &["commit", "-q", "-m", "in wt1"]);
    // a malformed line and an unterminated one are skipped
    let log = r.git_dir().join("logs/HEAD");
    let mut content = fs::read(&log).unwrap();
    content.extend_from_slice(b"garbage line\n");
    fs::write(&log, &content).unwrap();

    let git_dir = r.git_dir();
    let worktrees = get_worktrees(&git_dir, &git_dir);
    let store = r.store();
    let mut all = Vec::new();
    for wt in &worktrees {
        all.extend(worktree_reflogs(&store, wt, &git_dir));
    }
    let names: BTreeSet<String> = all.iter().map(|l| l.name.clone()).collect();
    let expected: BTreeSet<String> = [
        "HEAD",
        "refs/heads/b1",
        "refs/heads/main",
        "refs/heads/wtb",
        "worktrees/wt1/HEAD",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    assert_eq!(names, expected);
    for log in &all {
        let theirs: Vec<String> = r
            .git(&["reflog", "show", "--format=%H", &log.name])
            .lines()
            .map(str::to_string)
            .collect();
        let ours: Vec<String> = log.entries.iter().rev().map(|e| hex(&e.new)).collect();
        assert_eq!(ours, theirs, "{}", log.name);
        assert!(log.entries.iter().all(|e| e.timestamp == 1_700_000_000));
    }

    // from inside wt1: its HEAD is `HEAD`, the main worktree's `main-worktree/HEAD`
    let wt1_git = git_dir.join("worktrees/wt1");
    let store = RefStore::open::<Selected>(&wt1_git, &git_dir, ObjectFormat::Sha1).unwrap();
    let mut all = Vec::new();
    for wt in &get_worktrees(&wt1_git, &git_dir) {
        all.extend(worktree_reflogs(&store, wt, &git_dir));
    }
    let names: BTreeSet<String> = all.iter().map(|l| l.name.clone()).collect();
    assert!(names.contains("main-worktree/HEAD") && names.contains("HEAD"));
    for log in &all {
        let theirs: Vec<String> = r
            .git_in(&wt1, &["reflog", "show", "--format=%H", &log.name])
            .lines()
            .map(str::to_string)
            .collect();
        let ours: Vec<String> = log.entries.iter().rev().map(|e| hex(&e.new)).collect();
        assert_eq!(ours, theirs, "{}", log.name);
    }
}

#[test]
fn index_versions_match_ls_files() {
    let r = base_repo();
    r.commit("dir/sub/c", "c\n", "three");
    r.git(&["write-tree"]);
    let idx = r.index().unwrap().unwrap();
    assert_eq!(idx.version, 2);
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
    // the cache tree: the root is write-tree's tree, each subtree HEAD:<path>'s
    let ct = idx.cache_tree.clone().unwrap();
    assert_eq!(hex(ct.id.as_ref().unwrap()), r.git(&["write-tree"]).trim());
    assert_eq!(ct.entry_count as usize, idx.entries.len());
    let dir = &ct.subtrees[0];
    assert_eq!(dir.name, b"dir");
    assert_eq!(
        hex(dir.id.as_ref().unwrap()),
        r.git(&["rev-parse", "HEAD:dir"]).trim()
    );
    assert_eq!(ct.walk().len(), 3);

    // the cache tree git would compute for staged changes: write-tree's trees
    r.write("dir/sub/c", "changed\n");
    r.write("dir/e", "e\n");
    r.git(&["add", "dir"]);
    let idx = r.index().unwrap().unwrap();
    let (ct, messages) =
        compute_cache_tree::<Selected>(&idx.entries, ObjectFormat::Sha1, &mut GitObjects(&r));
    assert!(messages.is_empty(), "{messages:?}");
    let ct = ct.unwrap();
    assert_eq!(hex(ct.id.as_ref().unwrap()), r.git(&["write-tree"]).trim());
    let sub = &ct.subtrees[0].subtrees[0];
    assert_eq!(sub.name, b"sub");
    let theirs = r.git(&[
        "rev-parse",
        &format!("{}:dir/sub", r.git(&["write-tree"]).trim()),
    ]);
    assert_eq!(hex(sub.id.as_ref().unwrap()), theirs.trim());

    // version 3 (an intent-to-add entry needs the extended flags) and version 4
    r.write("new", "n\n");
    r.git(&["add", "-N", "new"]);
    let idx = r.index().unwrap().unwrap();
    assert_eq!(idx.version, 3);
    assert!(idx.entries.iter().any(|e| e.intent_to_add));
    // an intent-to-add entry invalidates the root of a computed cache tree
    let (ct, _) =
        compute_cache_tree::<Selected>(&idx.entries, ObjectFormat::Sha1, &mut GitObjects(&r));
    assert_eq!(ct.map(|t| (t.entry_count, t.id)), Some((-1, None)));
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
    r.git(&["update-index", "--index-version", "4"]);
    let idx = r.index().unwrap().unwrap();
    assert_eq!(idx.version, 4);
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));

    // a path of 4095 bytes or more: its length is not in the flags
    let long: Vec<String> = (0..20)
        .map(|i| format!("{i:02}{}", "d".repeat(240)))
        .collect();
    let long = format!("{}/f", long.join("/"));
    let blob = r.git(&["hash-object", "-w", "a"]);
    let info = format!("100644,{},{long}", blob.trim());
    r.git(&["update-index", "--add", "--cacheinfo", &info]);
    for version in ["2", "4"] {
        r.git(&["update-index", "--index-version", version]);
        let idx = r.index().unwrap().unwrap();
        assert!(idx.entries.iter().any(|e| e.path.len() > 4095));
        assert_eq!(
            ls_files(&idx),
            lines(&r.git(&["ls-files", "-s"])),
            "v{version}"
        );
    }

    // no index: not an error
    fs::remove_file(r.git_dir().join("index")).unwrap();
    assert_eq!(r.index(), Ok(None));
}

#[test]
fn conflict_stages_and_resolve_undo() {
    let r = base_repo();
    r.git(&["checkout", "-q", "-b", "other"]);
    r.commit("a", "other\n", "other");
    r.git(&["checkout", "-q", "main"]);
    r.commit("a", "mine\n", "mine");
    let out = r.run_in(&r.dir(), &["merge", "-q", "other"]);
    assert!(!out.status.success());
    let idx = r.index().unwrap().unwrap();
    assert!(idx.entries.iter().any(|e| e.stage == 3));
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
    r.write("a", "resolved\n");
    r.git(&["add", "a"]);
    let idx = r.index().unwrap().unwrap();
    let ru = idx.resolve_undo.clone().unwrap();
    let ours: BTreeSet<String> = ru
        .iter()
        .flat_map(|u| {
            (0..3).filter(|&i| u.modes[i] != 0).map(move |i| {
                format!(
                    "{:06o} {} {}\t{}",
                    u.modes[i],
                    hex(u.ids[i].as_ref().unwrap()),
                    i + 1,
                    String::from_utf8_lossy(&u.path)
                )
            })
        })
        .collect();
    assert_eq!(ours, lines(&r.git(&["ls-files", "--resolve-undo"])));
}

#[test]
fn split_index_is_merged_with_its_shared_index() {
    let r = base_repo();
    r.git(&["update-index", "--split-index"]);
    r.commit("a", "changed\n", "change a");
    r.write("added", "x\n");
    r.git(&["add", "added"]);
    r.git(&["rm", "-q", "--cached", "dir/b"]);
    let idx = r.index().unwrap().unwrap();
    assert!(idx.shared_index.is_some());
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
    // the shared index gone: git dies naming it
    for entry in fs::read_dir(r.git_dir()).unwrap().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("sharedindex.")
        {
            fs::remove_file(entry.path()).unwrap();
        }
    }
    let (stderr, code) = r.fsck();
    assert_eq!(code, 128);
    let err = r.index().unwrap_err();
    assert_eq!(err.lines(), stderr);
}

#[test]
fn sparse_index_is_expanded() {
    let r = base_repo();
    r.commit("d1/x", "x\n", "d1");
    r.commit("d2/deep/y", "y\n", "d2");
    r.commit("d2/z", "z\n", "d2 z");
    r.git(&["sparse-checkout", "set", "--sparse-index", "d1"]);
    let raw = fs::read(r.git_dir().join("index")).unwrap();
    let parsed =
        flagsplit::repo::index::parse_index::<Selected>(&raw, ObjectFormat::Sha1, "index").unwrap();
    assert!(parsed.index.sparse);
    assert!(parsed.index.entries.iter().any(|e| e.is_sparse_dir()));
    let idx = r.index().unwrap().unwrap();
    assert!(idx.entries.iter().all(|e| !e.is_sparse_dir()));
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
    // the cache tree git recomputes: HEAD's trees
    let ct = idx.cache_tree.clone().unwrap();
    assert_eq!(
        hex(ct.id.as_ref().unwrap()),
        r.git(&["rev-parse", "HEAD^{tree}"]).trim()
    );
    for node in &ct.subtrees {
        let name = String::from_utf8_lossy(&node.name).into_owned();
        let theirs = r.git(&["rev-parse", &format!("HEAD:{name}")]);
        assert_eq!(hex(node.id.as_ref().unwrap()), theirs.trim(), "{name}");
    }
    assert!(idx.messages.is_empty(), "{:?}", idx.messages);
}

/// Rewrites the index's checksum after `edit` (or nulls it: git then skips the check).
fn edit_index(r: &Repo, null_checksum: bool, edit: impl FnOnce(&mut Vec<u8>)) {
    let path = r.git_dir().join("index");
    let mut data = fs::read(&path).unwrap();
    data.truncate(data.len() - 20);
    edit(&mut data);
    if null_checksum {
        data.extend_from_slice(&[0; 20]);
    } else {
        let mut h = flagsplit::hash::Hasher::new(flagsplit::hash::Algorithm::Sha1);
        h.update(&data);
        let sum = h.finalize().unwrap();
        data.extend_from_slice(sum.as_bytes());
    }
    fs::write(&path, data).unwrap();
}

#[test]
fn broken_indexes_die_with_gits_lines() {
    let r = base_repo();
    let path = r.git_dir().join("index");
    let good = fs::read(&path).unwrap();
    let check = |what: &str| {
        let (stderr, code) = r.fsck();
        assert_eq!(code, 128, "{what}: {stderr:?}");
        let err = r.index().unwrap_err();
        let ours = err.lines();
        // git's lines, in order, are the last ones of its stderr
        let theirs = &stderr[stderr.len() - ours.len()..];
        assert_eq!(ours, theirs, "{what}: {stderr:?}");
        fs::write(&path, &good).unwrap();
    };
    let mut bad = good.clone();
    bad[20] ^= 1;
    fs::write(&path, &bad).unwrap();
    check("bit flip");
    fs::write(&path, &good[..good.len() / 2]).unwrap();
    check("truncated");
    fs::write(&path, &good[..20]).unwrap();
    check("too small");
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    fs::write(path.join("x"), "x").unwrap();
    let (stderr, code) = r.fsck();
    assert_eq!(code, 128);
    assert_eq!(r.index().unwrap_err().lines().last(), stderr.last());
    fs::remove_dir_all(&path).unwrap();
    fs::write(&path, &good).unwrap();
    edit_index(&r, false, |d| d[0] = b'X');
    check("signature");
    edit_index(&r, false, |d| d[7] = 9);
    check("version");
    edit_index(&r, true, |d| d.extend_from_slice(b"abcd\0\0\0\0"));
    check("unknown lowercase extension");
    // two entries swapped: unordered (v2 entries of one-letter names have the same size)
    edit_index(&r, true, |d| {
        // entries: "a" then "dir/b"; rename "a" to "z"
        let flags_at = 12 + 40 + 20;
        assert_eq!(&d[flags_at + 2..flags_at + 3], b"a");
        d[flags_at + 2] = b'z';
    });
    check("unordered");
    // an optional extension is ignored with a message and no error
    edit_index(&r, false, |d| d.extend_from_slice(b"ZZZZ\0\0\0\0"));
    let idx = r.index().unwrap().unwrap();
    assert_eq!(idx.messages, vec!["ignoring ZZZZ extension".to_string()]);
    let (stderr, code) = r.fsck();
    assert_eq!(code, 0);
    assert!(stderr.contains(&"ignoring ZZZZ extension".to_string()));
    let _ = parse_hex(b"00", 1);
}

/// The store of a linked worktree: its own `refs/bisect/`, `refs/worktree/` and
/// `refs/rewritten/`, the shared refs of the repository; root refs (`ORIG_HEAD`) are not
/// visited, and a directory where `HEAD`'s branch should be makes it unborn.
#[test]
fn per_worktree_refs_and_root_refs() {
    let r = base_repo();
    r.git(&["worktree", "add", "-q", "../wt1", "-b", "wtb"]);
    let wt1 = r.tmp.path().join("wt1");
    r.git_in(&wt1, &["update-ref", "refs/bisect/wt1-bad", "HEAD"]);
    r.git_in(&wt1, &["update-ref", "refs/worktree/mine", "HEAD"]);
    r.git(&["update-ref", "refs/bisect/main-bad", "HEAD"]);
    r.git(&["update-ref", "refs/rewritten/main", "HEAD"]);
    fs::write(r.git_dir().join("ORIG_HEAD"), "1".repeat(40) + "\n").unwrap();
    let common = r.git_dir();
    let wt1_git = common.join("worktrees/wt1");
    for (git_dir, cwd) in [(common.clone(), r.dir()), (wt1_git, wt1.clone())] {
        let store = RefStore::open::<Selected>(&git_dir, &common, ObjectFormat::Sha1).unwrap();
        let listing = store.for_each_rawref();
        let ours: BTreeSet<String> = listing
            .refs
            .iter()
            .map(|x| format!("{} {}", x.name_lossy(), hex(&x.id)))
            .collect();
        let theirs = lines(&r.git_in(&cwd, &["for-each-ref", "--format=%(refname) %(objectname)"]));
        assert_eq!(ours, theirs, "{}", git_dir.display());
    }
    let (stderr, _) = r.fsck();
    assert!(
        !stderr.iter().any(|l| l.contains("ORIG_HEAD")),
        "{stderr:?}"
    );

    fs::create_dir_all(r.git_dir().join("refs/heads/dirref/sub")).unwrap();
    fs::write(r.git_dir().join("HEAD"), "ref: refs/heads/dirref\n").unwrap();
    let head = r.store().head_link("HEAD").unwrap();
    let (stderr, _) = r.fsck();
    assert!(stderr.contains(&head.message().unwrap()), "{stderr:?}");
    assert_eq!(head.state, HeadState::Unborn);
}

/// Extensions git reads without dying: an invalid `REUC` (an error line, no records), an
/// unreadable `TREE` (dropped silently), a bad `FSMN` (an error line).
#[test]
fn bad_optional_extensions_as_git_reports_them() {
    let r = base_repo();
    r.git(&["write-tree"]);
    let path = r.git_dir().join("index");
    let good = fs::read(&path).unwrap();
    let entries_end = {
        let idx = flagsplit::repo::index::parse_index::<Selected>(&good, ObjectFormat::Sha1, "i")
            .unwrap();
        assert!(idx.index.cache_tree.is_some());
        // the TREE extension is the first one: find it
        good.windows(4).position(|w| w == b"TREE").unwrap()
    };
    let cases: [(&str, &[u8]); 4] = [
        ("REUC", b"path\x00100644\x00"),
        ("TREE", b"\0garbage"),
        ("FSMN", b"\0\0"),
        ("FSMN", b"\0\0\0\x07\0\0\0\0\0\0\0\0"),
    ];
    for (name, content) in cases {
        edit_index(&r, false, |d| {
            d.truncate(entries_end);
            d.extend_from_slice(name.as_bytes());
            d.extend_from_slice(&(content.len() as u32).to_be_bytes());
            d.extend_from_slice(content);
        });
        let idx = r.index().unwrap().unwrap();
        let (stderr, code) = r.fsck();
        assert_eq!(code, 0, "{name}: {stderr:?}");
        let theirs: Vec<String> = stderr
            .iter()
            .filter(|l| l.starts_with("error: "))
            .cloned()
            .collect();
        assert_eq!(idx.messages, theirs, "{name}");
        assert_eq!(theirs.is_empty(), name == "TREE", "{name}: {theirs:?}");
        if name == "TREE" {
            assert_eq!(idx.cache_tree, None);
        }
        if name == "REUC" {
            assert_eq!(idx.resolve_undo, None);
        }
        fs::write(&path, &good).unwrap();
    }
}

/// A SHA-256 repository: 32-byte ids in refs, packed refs, reflogs and the index.
#[test]
fn sha256_repository() {
    let tmp = TempDir::new().unwrap();
    let r = Repo { tmp };
    r.git_in(
        r.tmp.path(),
        &["init", "-q", "-b", "main", "--object-format=sha256", "r"],
    );
    r.commit("a", "a\n", "one");
    r.commit("d/b", "b\n", "two");
    r.git(&["tag", "-a", "-m", "t", "t1"]);
    r.git(&["pack-refs", "--all"]);
    r.git(&["branch", "loose"]);
    let git_dir = r.git_dir();
    assert_eq!(
        flagsplit::object::repository::format_of(&git_dir),
        Ok(ObjectFormat::Sha256)
    );
    let store = RefStore::open::<Selected>(&git_dir, &git_dir, ObjectFormat::Sha256).unwrap();
    let listing = store.for_each_rawref();
    let ours: BTreeSet<String> = listing
        .refs
        .iter()
        .map(|x| format!("{} {}", x.name_lossy(), hex(&x.id)))
        .collect();
    assert_eq!(
        ours,
        lines(&r.git(&["for-each-ref", "--format=%(refname) %(objectname)"]))
    );
    let head = store.head_link("HEAD").unwrap();
    assert_eq!(hex(&head.id), r.git(&["rev-parse", "HEAD"]).trim());
    let worktrees = get_worktrees(&git_dir, &git_dir);
    let logs = worktree_reflogs(&store, &worktrees[0], &git_dir);
    let head_log = logs.iter().find(|l| l.name == "HEAD").unwrap();
    assert_eq!(head_log.entries.len(), 2);
    assert_eq!(head_log.entries[0].old, vec![0; 32]);
    let idx = read_index::<Selected>(
        &git_dir.join("index"),
        &git_dir,
        ObjectFormat::Sha256,
        &mut GitObjects(&r),
    )
    .unwrap()
    .unwrap();
    assert_eq!(ls_files(&idx), lines(&r.git(&["ls-files", "-s"])));
}

/// Each worktree's index is its own.
#[test]
fn worktree_indexes() {
    let r = base_repo();
    r.git(&["worktree", "add", "-q", "../wt1", "-b", "wtb"]);
    let wt1 = r.tmp.path().join("wt1");
    fs::write(wt1.join("only-in-wt1"), "x\n").unwrap();
    r.git_in(&wt1, &["add", "only-in-wt1"]);
    let git_dir = r.git_dir();
    for wt in get_worktrees(&git_dir, &git_dir) {
        let idx = read_index::<Selected>(
            &wt.index_path(),
            &wt.git_dir,
            ObjectFormat::Sha1,
            &mut GitObjects(&r),
        )
        .unwrap()
        .unwrap();
        let cwd = if wt.is_main() { r.dir() } else { wt1.clone() };
        assert_eq!(ls_files(&idx), lines(&r.git_in(&cwd, &["ls-files", "-s"])));
    }
}

/// A reftable repository (a stack of tables, one per transaction, then tables of many small
/// blocks): every ref as `git for-each-ref` lists it, the worktrees' `HEAD`s as `git rev-parse`
/// resolves them, and the reflogs as `git reflog` shows them, from the main worktree and from a
/// linked one.
#[test]
fn reftable_refs_heads_and_reflogs() {
    let r = Repo::new();
    let top = r.tmp.path();
    let git = |cwd: &Path, args: &[&str]| -> String {
        let out = r
            .command(cwd, args)
            .env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    git(
        top,
        &["init", "-q", "-b", "main", "--ref-format=reftable", "rt"],
    );
    let dir = top.join("rt");
    let git_dir = dir.join(".git");
    let commit = |cwd: &Path, name: &str| {
        fs::write(cwd.join(name), name).unwrap();
        git(cwd, &["add", name]);
        git(cwd, &["commit", "-q", "-m", name]);
    };
    commit(&dir, "a");
    commit(&dir, "b");
    git(&dir, &["branch", "b1"]);
    git(&dir, &["tag", "-a", "-m", "t", "t1"]);
    git(&dir, &["branch", "gone"]);
    git(&dir, &["branch", "-D", "gone"]);
    git(&dir, &["symbolic-ref", "refs/heads/sym", "refs/heads/b1"]);
    git(
        &dir,
        &["symbolic-ref", "refs/heads/dangling", "refs/heads/nowhere"],
    );
    git(&dir, &["worktree", "add", "-q", "../wt1", "-b", "wtb"]);
    let wt1 = top.join("wt1");
    commit(&wt1, "w");
    git(&wt1, &["update-ref", "refs/bisect/bad", "HEAD"]);
    git(&dir, &["update-ref", "refs/worktree/mine", "HEAD"]);
    assert!(
        fs::read_to_string(git_dir.join("reftable/tables.list"))
            .unwrap()
            .lines()
            .count()
            > 5
    );

    let check = |label: &str| {
        for (cwd, wt_git) in [
            (&dir, git_dir.clone()),
            (&wt1, git_dir.join("worktrees/wt1")),
        ] {
            let store = RefStore::open::<Selected>(&wt_git, &git_dir, ObjectFormat::Sha1).unwrap();
            let ours = ref_lines(&store.for_each_rawref());
            // for-each-ref leaves the dangling symbolic ref out; fsck visits it, null
            let mut theirs = lines(&git(
                cwd,
                &["for-each-ref", "--format=%(refname) %(objectname)"],
            ));
            theirs.insert(format!("refs/heads/dangling {}", "0".repeat(40)));
            assert_eq!(ours, theirs, "{label} in {}", cwd.display());
            let worktrees = get_worktrees(&wt_git, &git_dir);
            store.open_worktrees(&worktrees).unwrap();
            let mut entries = 0;
            for wt in &worktrees {
                let name = wt.ref_name("HEAD");
                let head = store.head_link(&name).unwrap();
                assert_eq!(
                    hex(&head.id),
                    git(cwd, &["rev-parse", &name]).trim(),
                    "{label}: {name}"
                );
                for log in worktree_reflogs(&store, wt, &git_dir) {
                    let theirs: Vec<String> =
                        git(cwd, &["reflog", "show", "--format=%H", &log.name])
                            .lines()
                            .map(str::to_string)
                            .collect();
                    let ours: Vec<String> = log.entries.iter().rev().map(|e| hex(&e.new)).collect();
                    assert_eq!(ours, theirs, "{label}: reflog {}", log.name);
                    entries += ours.len();
                }
            }
            assert!(entries >= 10, "{label}: {entries} reflog entries");
            assert_eq!(store.take_reports(), Vec::new());
        }
    };
    check("a stack");
    // many refs in small blocks: ref, object and log indexes
    let mut stdin = String::new();
    for i in 0..300 {
        stdin.push_str(&format!("create refs/heads/many/b{i} HEAD~{}\n", i % 2));
    }
    let mut c = r.command(&dir, &["update-ref", "--stdin"]);
    c.env("GIT_TEST_REFTABLE_AUTOCOMPACTION", "false")
        .stdin(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    git(
        &dir,
        &[
            "-c",
            "reftable.blockSize=256",
            "-c",
            "reftable.restartInterval=2",
            "pack-refs",
            "--all",
        ],
    );
    git(&dir, &["branch", "-D", "many/b7"]);
    check("small blocks");
}

//! `scripts/make-network-store.sh`, the fork-network store of the benchmarks: one bare repository
//! holding several repositories' packs (hard-linked, not rewritten) and their refs under
//! `refs/network/NAME/`. git's and flagsplit's verdicts on such a store are compared in the fsck
//! corpus (`network.*`); here, what the script writes and what it refuses.

use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/make-network-store.sh")
}

/// A command with no user or system git configuration and fixed identities.
fn cmd(root: &Path, program: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CEILING_DIRECTORIES", root)
        .env("LC_ALL", "C")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.com")
        .current_dir(root);
    c
}

fn sh(root: &Path, script: &str) {
    let out = cmd(root, Path::new("sh"))
        .args(["-ec", script])
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn make_store(root: &Path, args: &[&str]) -> Output {
    cmd(root, &script()).args(args).output().expect("script")
}

fn git(root: &Path, dir: &str, args: &[&str]) -> String {
    let out = cmd(root, Path::new("git"))
        .arg("--git-dir")
        .arg(root.join(dir))
        .args(args)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two repositories, the second a fork of the first with a commit of its own, a tag, a
/// remote-tracking HEAD (a symbolic ref) and a loose object.
fn world() -> TempDir {
    let tmp = TempDir::new().expect("tmp");
    sh(
        tmp.path(),
        "git init -q -b main up && cd up
         for i in 1 2 3; do echo $i > f$i; git add f$i; git commit -q -m c$i; done
         git gc -q && cd ..
         git clone -q --no-local up fork && cd fork
         echo mine > mine && git add mine && git commit -q -m mine && git tag -a -m t v1
         git repack -q -d && echo loose | git hash-object -w --stdin > ../loose-id",
    );
    tmp
}

fn packs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir.join("objects/pack"))
        .expect("pack dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .collect();
    v.sort();
    v
}

#[test]
fn store_links_packs_and_renames_refs() {
    let tmp = world();
    let root = tmp.path();
    let out = make_store(root, &["net.git", "up/.git", "fork=fork"]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("2 repositories (up fork)") && said.contains("files linked, 0 copied"),
        "{said}"
    );

    // The sources' packs, the same files (hard links), and no other pack.
    let store = packs(&root.join("net.git"));
    let mut sources = packs(&root.join("up/.git"));
    sources.extend(packs(&root.join("fork/.git")));
    assert_eq!(store.len(), sources.len(), "{store:?} {sources:?}");
    for s in &sources {
        let name = s.file_name().expect("name");
        let linked = root.join("net.git/objects/pack").join(name);
        let (a, b) = (
            fs::metadata(s).expect("src"),
            fs::metadata(&linked).expect("dst"),
        );
        assert_eq!(
            (a.dev(), a.ino()),
            (b.dev(), b.ino()),
            "{name:?} is not linked"
        );
    }
    // The loose object was copied.
    let loose = fs::read_to_string(root.join("loose-id")).expect("id");
    let loose = loose.trim();
    assert_eq!(
        git(root, "net.git", &["cat-file", "-t", loose]).trim(),
        "blob"
    );

    // Refs: each repository's under refs/network/NAME/, no symbolic ref, HEAD on refs/heads/main
    // naming the first repository's HEAD.
    let refs = git(root, "net.git", &["for-each-ref", "--format=%(refname)"]);
    let refs: Vec<&str> = refs.lines().collect();
    for want in [
        "refs/heads/main",
        "refs/network/up/heads/main",
        "refs/network/fork/heads/main",
        "refs/network/fork/remotes/origin/main",
        "refs/network/fork/tags/v1",
    ] {
        assert!(refs.contains(&want), "{want} not in {refs:?}");
    }
    assert!(
        !refs.iter().any(|r| r.ends_with("origin/HEAD")),
        "a symbolic ref was copied: {refs:?}"
    );
    assert_eq!(
        git(root, "net.git", &["rev-parse", "HEAD"]),
        git(root, "up/.git", &["rev-parse", "HEAD"])
    );

    // git and flagsplit agree on it: exit 0, the loose blob dangling.
    let g = cmd(root, Path::new("git"))
        .args(["--git-dir=net.git", "fsck", "--full", "--no-progress"])
        .output()
        .expect("git fsck");
    let f = cmd(&root.join("net.git"), Path::new(FLAGSPLIT))
        .args(["fsck", "--no-progress"])
        .output()
        .expect("flagsplit fsck");
    assert!(g.status.success(), "{g:?}");
    assert_eq!(f.status.code(), g.status.code(), "{f:?}");
    assert_eq!(f.stdout, g.stdout);
    assert_eq!(
        String::from_utf8_lossy(&g.stdout).trim(),
        format!("dangling blob {loose}")
    );

    // --copy copies.
    let out = make_store(root, &["--copy", "copied.git", "up/.git", "fork"]);
    assert!(out.status.success(), "{out:?}");
    for p in packs(&root.join("copied.git")) {
        let name = p.file_name().expect("name");
        let src = [root.join("up/.git"), root.join("fork/.git")]
            .iter()
            .map(|d| d.join("objects/pack").join(name))
            .find(|s| s.exists())
            .expect("a source");
        assert_ne!(
            fs::metadata(&p).expect("dst").ino(),
            fs::metadata(&src).expect("src").ino()
        );
    }
}

/// Each refusal names its cause, exits 1, and leaves nothing: no store, no temporary directory.
#[test]
fn refusals_leave_nothing() {
    let tmp = world();
    let root = tmp.path();
    sh(
        root,
        "git init -q --object-format=sha256 s256 && cd s256 && echo x > x && git add x && git commit -q -m x && cd ..
         git clone -q -s up borrowed && mkdir exists",
    );
    let cases: &[(&[&str], &str)] = &[
        (&["exists", "up"], "exists: name a directory that does not"),
        (
            &["new.git", "up", "s256"],
            "one store holds one object format",
        ),
        (&["new.git", "up", "borrowed"], "objects/info/alternates"),
        (&["new.git", "up", "up=fork"], "two repositories named up"),
        (
            &["new.git", "up", "no-such-dir"],
            "no-such-dir is not a git repository",
        ),
        (&["new.git", "bad name=up"], "not usable in a ref name"),
        (&["new.git"], "usage:"),
    ];
    for (args, says) in cases {
        let before: Vec<_> = fs::read_dir(root)
            .expect("ls")
            .map(|e| e.expect("e").file_name())
            .collect();
        let out = make_store(root, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(says), "{args:?}: {err}");
        let after: Vec<_> = fs::read_dir(root)
            .expect("ls")
            .map(|e| e.expect("e").file_name())
            .collect();
        assert_eq!(before, after, "{args:?} left something behind");
    }
    assert_eq!(fs::read_dir(root.join("exists")).expect("ls").count(), 0);
}

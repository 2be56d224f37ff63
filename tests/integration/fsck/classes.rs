//! Repository states where git's verdict comes from how git reads its object store rather than
//! from what is stored: git recovering (a damaged packed object with a good copy elsewhere), git's
//! parsers (a tag or commit that names an object as another type than it has), git's cached
//! objects (the empty tree), the multi-pack-index's packs, grafts, and the exact words git prints
//! (zlib's messages, paths). Each is built from the repositories of [`super::build`] or from
//! scratch with git, and compared with `git fsck` like the rest of the corpus.

use std::fs;

use super::build::{Builder, CORRUPT_OPTIONS, MISSING_OPTIONS};
use super::corrupt::write_loose;

/// What these cases run with.
const OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
    ("no-full", &["--no-full"]),
    ("name-objects", &["--name-objects"]),
];

/// Every class.
pub(crate) fn classes(b: &mut Builder) {
    empty_tree(b);
}

/// `git rev-parse REV` in `dir`.
fn rev(b: &Builder, dir: &str, what: &str) -> String {
    b.sh(dir, &format!("git rev-parse '{what}'"))
        .trim()
        .to_string()
}

/// The loose object file of `id` in `dir` (a worktree), relative to the root.
fn loose(dir: &str, id: &str) -> String {
    format!("{dir}/.git/objects/{}/{}", &id[..2], &id[2..])
}

/// A fresh repository `r/NAME` made by `script` (run in it after `git init`).
fn fresh(b: &Builder, name: &str, init: &str, script: &str) -> String {
    let dir = format!("r/{name}");
    fs::create_dir_all(b.path(&dir)).expect("mkdir");
    b.sh(&dir, &format!("git init -q {init} .\n{script}"));
    dir
}

/// The empty tree is one of git's cached objects: every read finds it, stored or not (a commit
/// of it, a tree entry, refs and tags naming it), and it is read from there even when its stored
/// copy is corrupt; `git fsck` still lists it as missing when it is reachable and not stored.
fn empty_tree(b: &mut Builder) {
    for (name, init) in [
        ("cls-empty-tree", ""),
        ("cls-empty-tree-sha256", "--object-format=sha256"),
    ] {
        let dir = fresh(
            b,
            name,
            init,
            "git commit -q --allow-empty -m empty
             echo a > a && git add a && git commit -q -m one",
        );
        let et = rev(b, &dir, "HEAD~1^{tree}");
        fs::remove_file(b.path(&loose(&dir, &et))).expect("rm empty tree");
        b.cases(name, &dir, OPTIONS);
    }
    // A tree entry, a branch, a lightweight and an annotated tag naming it; loose, then packed
    // (the pack holds it: git writes it), then packed without it.
    let dir = fresh(
        b,
        "cls-empty-tree-named",
        "",
        "echo a > a && git add a && git commit -q -m one
         et=$(git hash-object -t tree /dev/null)
         t=$(printf '100644 blob %s\\ta\\n040000 tree %s\\te\\n' $(git rev-parse HEAD:a) $et | git mktree --missing)
         git update-ref refs/heads/main $(git commit-tree $t -p HEAD -m two)
         echo $et > .git/refs/heads/et-branch
         echo $et > .git/refs/tags/et
         git tag -a -m t et-tag $et",
    );
    let et = rev(b, &dir, "HEAD:e");
    let _ = fs::remove_file(b.path(&loose(&dir, &et)));
    let all: &[(&str, &[&str])] = &[
        ("default", &[]),
        ("connectivity-only", &["--connectivity-only"]),
        ("no-full", &["--no-full"]),
        ("name-objects", &["--name-objects"]),
        ("root-tags", &["--root", "--tags"]),
    ];
    b.cases("cls-empty-tree-named", &dir, all);
    b.copy(&dir, "r/cls-empty-tree-packed");
    b.sh("r/cls-empty-tree-packed", "git repack -adq");
    b.cases(
        "cls-empty-tree-packed",
        "r/cls-empty-tree-packed",
        &all[..3],
    );
    b.copy(&dir, "r/cls-empty-tree-unpacked");
    b.sh(
        "r/cls-empty-tree-unpacked",
        "et=$(git hash-object -t tree /dev/null)
         git cat-file --batch-all-objects --batch-check='%(objectname)' | grep -v $et |
           git pack-objects -q .git/objects/pack/pack >/dev/null
         git prune-packed",
    );
    b.cases(
        "cls-empty-tree-unpacked",
        "r/cls-empty-tree-unpacked",
        &all[..3],
    );
    // Its stored copy corrupt: fsck reports the file, every read finds the cached one.
    let dir = fresh(
        b,
        "cls-empty-tree-corrupt",
        "",
        "git commit -q --allow-empty -m empty",
    );
    let et = rev(b, &dir, "HEAD^{tree}");
    let path = b.path(&loose(&dir, &et));
    b.sh(".", &format!("chmod u+w '{}'", path.display()));
    fs::write(&path, b"garbage\n").expect("write");
    b.cases("cls-empty-tree-corrupt", &dir, OPTIONS);
    let _ = (CORRUPT_OPTIONS, MISSING_OPTIONS, write_loose);
}

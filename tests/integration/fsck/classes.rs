//! Repository states where git's verdict comes from how git reads its object store rather than
//! from what is stored: git recovering (a damaged packed object with a good copy elsewhere), git's
//! parsers (a tag or commit that names an object as another type than it has), git's cached
//! objects (the empty tree), the multi-pack-index's packs, grafts, and the exact words git prints
//! (zlib's messages, paths). Each is built from the repositories of [`super::build`] or from
//! scratch with git, and compared with `git fsck` like the rest of the corpus.

use std::fs;

use super::build::{Builder, CORRUPT_OPTIONS, MISSING_OPTIONS};
use super::corrupt::{unhex, write_loose};

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
    named_as_another_type(b);
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

/// An object that a tag, commit or tree names as another type than it has. git's parser of a
/// commit or tag looks up what it names with the type it names it as (`lookup_commit`...): the
/// first of the two to be read gives the object its type, and the other one fails — the tag or
/// commit does not parse (`bad tag pointer to X in Y`, and it is neither valid nor dangling), the
/// tree's walk finds a broken link, or the object itself is `corrupt or missing`. Loose, and
/// packed in both orders (a pack is checked in offset order), referenced or not.
fn named_as_another_type(b: &mut Builder) {
    // (name, the object named: a rev, what names it)
    let ident = "tagger T <t@example.com> 1700000000 +0000";
    let who =
        "author A <a@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000000 +0000";
    let variants: &[(&str, &str, String)] = &[
        (
            "tag-commit-blob",
            "HEAD:a",
            format!("tag\nobject X\ntype commit\ntag wrong\n{ident}\n\nm\n"),
        ),
        (
            "tag-tree-commit",
            "HEAD",
            format!("tag\nobject X\ntype tree\ntag wrong\n{ident}\n\nm\n"),
        ),
        (
            "tag-tag-blob",
            "HEAD:a",
            format!("tag\nobject X\ntype tag\ntag wrong\n{ident}\n\nm\n"),
        ),
        (
            "tag-blob-tree",
            "HEAD^{tree}",
            format!("tag\nobject X\ntype blob\ntag wrong\n{ident}\n\nm\n"),
        ),
        (
            "commit-tree-blob",
            "HEAD:a",
            format!("commit\ntree X\nparent HEAD\n{who}\n\nm\n"),
        ),
        (
            "commit-parent-tree",
            "HEAD^{tree}",
            format!("commit\ntree T\nparent X\n{who}\n\nm\n"),
        ),
        (
            "commit-second-parent-blob",
            "HEAD:a",
            format!("commit\ntree T\nparent HEAD\nparent X\n{who}\n\nm\n"),
        ),
    ];
    for (name, named, text) in variants {
        let dir = format!("r/cls-type-{name}");
        fs::create_dir_all(b.path(&dir)).expect("mkdir");
        b.sh(
            &dir,
            "git init -q . && echo a > a && git add a && git commit -q -m one",
        );
        let x = rev(b, &dir, named);
        let (kind, body) = text.split_once('\n').expect("kind");
        let content = body
            .replace('X', &x)
            .replace("HEAD", &rev(b, &dir, "HEAD"))
            .replace("tree T", &format!("tree {}", rev(b, &dir, "HEAD^{tree}")));
        let y = write_loose(b, &dir, kind, content.as_bytes());
        let refname = if kind == "tag" {
            "refs/tags/wrong"
        } else {
            "refs/heads/wrong"
        };
        fs::write(b.path(&format!("{dir}/.git/{refname}")), format!("{y}\n")).expect("ref");
        let opts: &[(&str, &[&str])] = &[
            ("default", &[]),
            ("connectivity-only", &["--connectivity-only"]),
            ("no-full", &["--no-full"]),
            ("unreachable", &["--unreachable", "--no-reflogs"]),
        ];
        b.cases(&format!("cls-type-{name}"), &dir, opts);
        // Packed: the object named first, then the one naming it; and the other way round.
        let all = b.sh(
            &dir,
            "git cat-file --batch-all-objects --batch-check='%(objectname)'",
        );
        let rest: Vec<&str> = all.lines().filter(|l| *l != x && *l != y).collect();
        for (order, first, second) in [("named-first", &x, &y), ("naming-first", &y, &x)] {
            let to = format!("{dir}-{order}");
            b.copy(&dir, &to);
            let list = format!("{first}\n{second}\n{}\n", rest.join("\n"));
            b.sh(
                &to,
                &format!(
                    "printf '{list}' | git pack-objects -q .git/objects/pack/pack >/dev/null
                     git prune-packed"
                ),
            );
            b.cases(&format!("cls-type-{name}-{order}"), &to, opts);
        }
        // Nothing refers to the one naming it.
        let to = format!("{dir}-unreferenced");
        b.copy(&dir, &to);
        fs::remove_file(b.path(&format!("{to}/.git/{refname}"))).expect("rm ref");
        b.cases(&format!("cls-type-{name}-unreferenced"), &to, &opts[..3]);
    }
    // In a pack's order git reads a tree whose entries are a base's, then a commit, then a tree
    // that is a delta of the first and names the commit as a blob: the commit has its type when
    // the delta is read, so the delta's link is broken (flagsplit resolves the delta with its
    // base, before the commit, unless it checks such a pack again in git's order).
    let dir = fresh(
        b,
        "cls-type-delta-order",
        "",
        "i=0; while [ $i -lt 20 ]; do i=$((i+1)); echo \"file $i\" > f$i; done
         git add . && git commit -q -m base",
    );
    let commit = rev(b, &dir, "HEAD");
    let mut tree = Vec::new();
    for line in b.sh(&dir, "git ls-tree HEAD").lines().take(12) {
        let (meta, name) = line.split_once('\t').expect("entry");
        let id = meta.rsplit(' ').next().expect("id");
        tree.extend_from_slice(format!("100644 {name}\0").as_bytes());
        tree.extend_from_slice(&unhex(id));
    }
    tree.extend_from_slice(b"100644 x\0");
    tree.extend_from_slice(&unhex(&commit));
    fs::write(b.path(&format!("{dir}/t2")), &tree).expect("write");
    b.sh(
        &dir,
        "t1=$(git rev-parse HEAD^{tree}) c=$(git rev-parse HEAD)
         t2=$(git hash-object --literally -t tree -w t2) && rm t2
         d=$(git commit-tree $t2 -p HEAD -m d) && echo $d > .git/refs/heads/d
         { echo $t1; echo $c; echo $t2; echo $d; git ls-tree HEAD | cut -f1 | cut -d' ' -f3; } |
           git pack-objects -q --window=50 .git/objects/pack/pack >/dev/null
         git prune-packed
         # The second tree is a delta of the first, after the commit.
         git verify-pack -v .git/objects/pack/*.idx | grep -q \"^$t2 tree .* $t1\\$\"",
    );
    b.cases("cls-type-delta-order", &dir, &CORRUPT_OPTIONS[..1]);
}

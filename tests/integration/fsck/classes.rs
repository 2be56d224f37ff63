//! Repository states where git's verdict comes from how git reads its object store rather than
//! from what is stored: git recovering (a damaged packed object with a good copy elsewhere), git's
//! parsers (a tag or commit that names an object as another type than it has), git's cached
//! objects (the empty tree), the multi-pack-index's packs, grafts, and the exact words git prints
//! (zlib's messages, paths). Each is built from the repositories of [`super::build`] or from
//! scratch with git, and compared with `git fsck` like the rest of the corpus.

use std::fs;

use super::build::{Builder, CORRUPT_OPTIONS, MISSING_OPTIONS, PACK_OPTIONS};
use super::corrupt::{unhex, write_loose};

/// What these cases run with.
const OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
    ("no-full", &["--no-full"]),
    ("name-objects", &["--name-objects"]),
];

/// What the cases of lines git prints more than once run with: the walk reads objects with
/// `--connectivity-only` and `--name-objects`, and does not by default.
const REPEAT_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
    ("name-objects", &["--name-objects"]),
];

/// Every class.
pub(crate) fn classes(b: &mut Builder) {
    empty_tree(b);
    named_as_another_type(b);
    good_copy_elsewhere(b);
    midx_packs(b);
    alternates(b);
    paths(b);
    stored_twice(b);
    graph_walk(b);
    grafts(b);
    zlib_words(b);
    connectivity_only(b);
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

/// The three blobs of git's t5303-pack-corruption-resilience: mostly random bytes (stored
/// uncompressed by zlib, so their text shows in the pack), the second a delta of the first and
/// the third a delta of the second. Written to `dir` as `file_1`..`file_3`.
fn t5303_files(b: &Builder, dir: &str) {
    let random = |seed: u64, n: usize| crate::support::Rng(seed).bytes(n);
    let common = random(1, 2000);
    let mut f1 = common.clone();
    f1.extend_from_slice(b" base \n");
    let mut f2 = common[..1800].to_vec();
    f2.extend_from_slice(b" delta1 \n");
    f2.extend_from_slice(&random(2, 150));
    let mut f3 = common[..1800].to_vec();
    f3.extend_from_slice(b" delta delta2 \n");
    f3.extend_from_slice(&random(3, 100));
    for (name, data) in [("file_1", f1), ("file_2", f2), ("file_3", f3)] {
        fs::write(b.path(&format!("{dir}/{name}")), data).expect("write");
    }
}

/// A repository with t5303's blobs in one pack (`ofs`: OFS_DELTA, else REF_DELTA), and the pack's
/// path without its extension (root-relative); with `reachable`, a commit of the three files
/// (its commit and tree loose).
fn t5303_pack(b: &Builder, name: &str, ofs: bool, reachable: bool) -> (String, String) {
    let dir = format!("r/{name}");
    fs::create_dir_all(b.path(&dir)).expect("mkdir");
    b.sh(&dir, "git init -q .");
    t5303_files(b, &dir);
    let ids: Vec<String> = (1..=3)
        .map(|n| {
            b.sh(&dir, &format!("git hash-object -w file_{n}"))
                .trim()
                .to_string()
        })
        .collect();
    let flag = if ofs { "--delta-base-offset" } else { "" };
    let stem = b
        .sh(
            &dir,
            &format!(
                "printf '{}\\n{}\\n{}\\n' | git pack-objects {flag} -q .git/objects/pack/pack",
                ids[0], ids[1], ids[2]
            ),
        )
        .trim()
        .to_string();
    b.sh(&dir, "git prune-packed");
    // The chain t5303 relies on: blob 2 a delta of blob 1, blob 3 of blob 2.
    let chain = b.sh(
        &dir,
        &format!("git verify-pack -v .git/objects/pack/pack-{stem}.idx"),
    );
    assert!(
        chain.contains(&format!("1 {}", ids[0])) && chain.contains(&format!("2 {}", ids[1])),
        "t5303's delta chain in {dir}:\n{chain}"
    );
    if reachable {
        b.sh(
            &dir,
            "git add file_1 file_2 file_3 2>/dev/null
             git commit -q -m files",
        );
    }
    (dir.clone(), format!("{dir}/.git/objects/pack/pack-{stem}"))
}

/// Writes `bytes` at `at` bytes into the pack entry of `id` (t5303's `do_corrupt_object`).
fn poke(b: &Builder, dir: &str, pack: &str, id: &str, at: u64, bytes: &[u8]) {
    let offset = b.sh(
        dir,
        &format!(
            "git show-index < '{}/{pack}.idx' | grep {id} | cut -d' ' -f1",
            b.root.display()
        ),
    );
    let offset: u64 = offset.trim().parse().expect("offset");
    let path = b.path(&format!("{pack}.pack"));
    let mut data = fs::read(&path).expect("pack");
    let from = (offset + at) as usize;
    data[from..from + bytes.len()].copy_from_slice(bytes);
    b.sh(".", &format!("chmod u+w '{pack}.pack'"));
    fs::write(&path, data).expect("write pack");
}

/// Replaces the first `from` in the pack by `to` (t5303's `perl -pe s/from/to/`).
fn replace(b: &Builder, pack: &str, from: &[u8], to: &[u8]) {
    let path = b.path(&format!("{pack}.pack"));
    let mut data = fs::read(&path).expect("pack");
    let at = data
        .windows(from.len())
        .position(|w| w == from)
        .expect("the text in the pack");
    data[at..at + to.len()].copy_from_slice(to);
    b.sh(".", &format!("chmod u+w '{pack}.pack'"));
    fs::write(&path, data).expect("write pack");
}

/// Writes loose copies of `files` although they are packed (t5303 hides the idx meanwhile).
fn loose_copies(b: &Builder, dir: &str, pack: &str, files: &[&str]) {
    let root = b.root.display();
    b.sh(
        dir,
        &format!(
            "mv '{root}/{pack}.idx' '{root}/{pack}.idx.away'
             for f in {}; do git hash-object -w $f >/dev/null; done
             mv '{root}/{pack}.idx.away' '{root}/{pack}.idx'",
            files.join(" ")
        ),
    );
}

/// A damaged packed object whose object has a good copy elsewhere (loose, or in another pack),
/// the states of git's t5303: git reads a delta base its pack cannot give by its id from the
/// rest of the store, so the deltas based on it are checked (and valid), and the object itself is
/// not lost. Each state with OFS_DELTA and REF_DELTA entries, the blobs dangling or reachable.
fn good_copy_elsewhere(b: &mut Builder) {
    type Damage = fn(&Builder, &str, &str, &[String]);
    let states: &[(&str, Damage, &[&str])] = &[
        // The first object's header (type 0), and a loose copy of it, or of the first delta.
        (
            "header-first",
            |b, d, p, ids| poke(b, d, p, &ids[0], 0, b"\0"),
            &["file_1"],
        ),
        (
            "header-first-loose-delta",
            |b, d, p, ids| poke(b, d, p, &ids[0], 0, b"\0"),
            &["file_2"],
        ),
        // The first object's data.
        (
            "data-first",
            |b, _, p, _| replace(b, p, b" base ", b"abcdef"),
            &["file_1"],
        ),
        (
            "data-first-loose-delta",
            |b, _, p, _| replace(b, p, b" base ", b"abcdef"),
            &["file_2"],
        ),
        // The first delta's header, and its data.
        (
            "header-delta",
            |b, d, p, ids| poke(b, d, p, &ids[1], 0, b"\0"),
            &["file_2"],
        ),
        (
            "data-delta",
            |b, _, p, _| replace(b, p, b" delta1 ", b"abcdefgh"),
            &["file_2"],
        ),
        // The first delta's base reference.
        (
            "base-ref-delta",
            |b, d, p, ids| poke(b, d, p, &ids[1], 2, b"\0"),
            &["file_2"],
        ),
        // The first delta's base offset one byte back, into the object before it (t5303's
        // `corruption #1`), with and without a copy.
        (
            "base-ofs-one",
            |b, d, p, ids| poke(b, d, p, &ids[1], 2, b"\x01"),
            &["file_2"],
        ),
        (
            "base-ofs-one-no-copy",
            |b, d, p, ids| poke(b, d, p, &ids[1], 2, b"\x01"),
            &[],
        ),
        // No copy: what git can still read.
        (
            "header-first-no-copy",
            |b, d, p, ids| poke(b, d, p, &ids[0], 0, b"\0"),
            &[],
        ),
        // A size in the header too small for the data.
        (
            "small-size",
            |b, d, p, ids| poke(b, d, p, &ids[0], 0, b"\xb2\x01"),
            &[],
        ),
    ];
    // git prints a damaged entry's lines again from each delta whose chain reaches it, and from
    // each read of the walk: under every variant, each line is compared with its count.
    let opts: &[(&str, &[&str])] = &[
        ("default", &[]),
        ("unreachable", &["--unreachable"]),
        ("connectivity-only", &["--connectivity-only"]),
        ("no-dangling", &["--no-dangling"]),
        ("name-objects", &["--name-objects"]),
    ];
    let reachable_opts: &[(&str, &[&str])] = &[
        ("default", &[]),
        ("connectivity-only", &["--connectivity-only"]),
        ("no-full", &["--no-full"]),
        ("unreachable", &["--unreachable"]),
        ("name-objects", &["--name-objects"]),
    ];
    for (state, damage, copies) in states {
        for (kind, ofs) in [("ofs", true), ("ref", false)] {
            for reachable in [false, true] {
                let name = format!(
                    "cls-copy-{state}-{kind}{}",
                    if reachable { "-reachable" } else { "" }
                );
                let (dir, pack) = t5303_pack(b, &name, ofs, reachable);
                let ids: Vec<String> = (1..=3)
                    .map(|n| {
                        b.sh(&dir, &format!("git hash-object file_{n}"))
                            .trim()
                            .to_string()
                    })
                    .collect();
                damage(b, &dir, &pack, &ids);
                loose_copies(b, &dir, &pack, copies);
                b.cases(&name, &dir, if reachable { reachable_opts } else { opts });
            }
        }
    }
    // The first delta's base reference damaged, and a second pack with the first two blobs.
    let (dir, pack) = t5303_pack(b, "cls-copy-redundant-pack", true, true);
    let ids: Vec<String> = (1..=3)
        .map(|n| {
            b.sh(&dir, &format!("git hash-object file_{n}"))
                .trim()
                .to_string()
        })
        .collect();
    poke(b, &dir, &pack, &ids[1], 2, b"\0");
    let root = b.root.display();
    b.sh(
        &dir,
        &format!(
            "mv '{root}/{pack}.idx' '{root}/{pack}.idx.away'
             git hash-object -w file_1 file_2 >/dev/null
             printf '{}\\n{}\\n' | git pack-objects -q .git/objects/pack/pack >/dev/null
             git prune-packed
             mv '{root}/{pack}.idx.away' '{root}/{pack}.idx'",
            ids[0], ids[1]
        ),
    );
    b.cases("cls-copy-redundant-pack", &dir, CORRUPT_OPTIONS);
    // The third blob's base offset pointing at another object; a loose copy of it.
    let (dir, pack) = t5303_pack(b, "cls-copy-wrong-base", true, true);
    let ids: Vec<String> = (1..=3)
        .map(|n| {
            b.sh(&dir, &format!("git hash-object file_{n}"))
                .trim()
                .to_string()
        })
        .collect();
    poke(b, &dir, &pack, &ids[2], 2, b"\x90\x1b");
    b.cases("cls-copy-wrong-base-no-copy", &dir, CORRUPT_OPTIONS);
    b.copy(&dir, "r/cls-copy-wrong-base-loose");
    let pack2 = pack.replace("r/cls-copy-wrong-base/", "r/cls-copy-wrong-base-loose/");
    loose_copies(b, "r/cls-copy-wrong-base-loose", &pack2, &["file_3"]);
    b.cases(
        "cls-copy-wrong-base-loose",
        "r/cls-copy-wrong-base-loose",
        CORRUPT_OPTIONS,
    );
}

/// A multi-pack-index whose packs lost or damaged their `.idx` (or their `.pack`): git has the
/// pack among its packs through the index (`packfile … index not opened`, `unable to load
/// rev-index`), finds none of its objects, and each time it looks for one the index puts there
/// it tries to open the pack's index again (its error, then `packfile … index unavailable`).
fn midx_packs(b: &mut Builder) {
    type Damage = fn(&Builder, &str, &str);
    let states: &[(&str, &str, &str, Damage)] = &[
        ("idx-gone", "", "HEAD", |b, d, p| {
            b.rm(d, &format!("{p}.idx"))
        }),
        ("idx-gone-old", "", "HEAD~2", |b, d, p| {
            b.rm(d, &format!("{p}.idx"))
        }),
        ("pack-gone", "", "HEAD", |b, d, p| {
            b.rm(d, &format!("{p}.pack"))
        }),
        ("both-gone", "", "HEAD", |b, d, p| {
            b.rm(d, &format!("{p}.pack"));
            b.rm(d, &format!("{p}.idx"));
        }),
        ("idx-truncated", "", "HEAD", |b, d, p| {
            b.sh(
                d,
                &format!("f='{p}.idx'; chmod u+w $f; head -c 500 $f > t; mv t $f"),
            );
        }),
        // An idx of the wrong size (git's `wrong index v2 file size`), and one whose trailer
        // moved (the pack no longer matches it).
        ("idx-size", "", "HEAD", |b, d, p| {
            b.sh(
                d,
                &format!("f='{p}.idx'; chmod u+w $f; head -c 100 /dev/zero >> $f"),
            );
        }),
        ("idx-mismatch", "", "HEAD", |b, d, p| {
            b.sh(
                d,
                &format!("f='{p}.idx'; chmod u+w $f; head -c 8 /dev/zero >> $f"),
            );
        }),
        ("bitmap-idx-gone", "--bitmap", "HEAD", |b, d, p| {
            b.rm(d, &format!("{p}.idx"))
        }),
        (
            "incremental-idx-gone",
            "--incremental",
            "HEAD",
            |b, d, p| b.rm(d, &format!("{p}.idx")),
        ),
        // With the multi-pack-index off, the pack without its .idx is not one of git's.
        ("off-idx-gone", "", "HEAD", |b, d, p| {
            b.rm(d, &format!("{p}.idx"));
            b.sh(d, "git config core.multiPackIndex false");
        }),
    ];
    for (state, write, holding, damage) in states {
        let name = format!("cls-midx-{state}");
        let dir = fresh(
            b,
            &name,
            "",
            &format!(
                "i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i > f$i; git add f$i; git commit -q -m c$i; git repack -dq; done
                 git multi-pack-index write {write}"
            ),
        );
        let pack = b
            .sh(
                &dir,
                &format!(
                    "h=$(git rev-parse {holding})
                     for i in .git/objects/pack/*.idx; do
                       if git show-index < $i | grep -q $h; then echo ${{i%.idx}}; fi
                     done"
                ),
            )
            .trim()
            .to_string();
        damage(b, &dir, &pack);
        b.cases(&name, &dir, PACK_OPTIONS);
    }
    // Every object loose too, and the index's cache-tree naming trees the multi-pack-index puts
    // in a pack whose .idx is of the wrong size: git reads a tree again from the store each time
    // (its check forgot the tree's content), through the multi-pack-index first.
    let dir = fresh(
        b,
        "cls-midx-loose-copies",
        "",
        "mkdir d && echo a > d/a && echo b > b && git add . && git commit -q -m one
         echo c > d/c && git add . && git commit -q -m two
         git cat-file --batch-all-objects --batch-check='%(objectname)' |
           git pack-objects -q .git/objects/pack/test >/dev/null
         git multi-pack-index write
         f=$(ls .git/objects/pack/test-*.idx); chmod u+w $f; head -c 100 /dev/zero >> $f",
    );
    b.cases("cls-midx-loose-copies", &dir, PACK_OPTIONS);
}

/// Alternates as git reads them: each named by its real path (`../../alt.git/objects` is
/// `…/alt.git/objects` in every message), `#` comments, C-quoted entries, duplicates and the
/// repository itself skipped, entries that do not exist reported, `GIT_ALTERNATE_OBJECT_DIRECTORIES`
/// read first, and more than five levels of alternates of alternates refused (`ignoring alternate
/// object stores, nesting too deep`).
fn alternates(b: &mut Builder) {
    // An empty object file in an alternate listed by a relative path (t1450's `alternate objects
    // are correctly blamed`).
    let dir = fresh(
        b,
        "cls-alt-relative",
        "",
        "git init -q --bare ../cls-alt-relative-store.git
         echo a > a && git add a && git commit -q -m one
         mkdir -p ../cls-alt-relative-store.git/objects/01
         : > ../cls-alt-relative-store.git/objects/01/23456789012345678901234567890123456789
         echo '../../../cls-alt-relative-store.git/objects' > .git/objects/info/alternates",
    );
    b.cases("cls-alt-relative", &dir, CORRUPT_OPTIONS);
    // Comments, a quoted entry, a duplicate, the repository itself, one that does not exist.
    let dir = fresh(
        b,
        "cls-alt-entries",
        "",
        "git init -q --bare ../cls-alt-entries-store.git
         (cd ../cls-alt-entries-store.git && git --work-tree=. commit -q --allow-empty -m other)
         echo a > a && git add a && git commit -q -m one
         s=$(cd ../cls-alt-entries-store.git/objects && pwd)
         printf '# a comment\n\"%s\"\n%s/\n../objects\n%s\n/nowhere/objects\n' \
           \"$s\" \"$s\" \"$(pwd)/.git/objects\" > .git/objects/info/alternates",
    );
    b.cases("cls-alt-entries", &dir, CORRUPT_OPTIONS);
    // Seven repositories, each the alternate of the one before (t5613).
    let dir = fresh(
        b,
        "cls-alt-deep",
        "",
        "prev=$(pwd)
         for n in 1 2 3 4 5 6 7; do
           git init -q --bare ../cls-alt-deep-$n.git
           echo \"$(cd ../cls-alt-deep-$n.git/objects && pwd)\" >> \"$prev/.git/objects/info/alternates\" 2>/dev/null ||
             echo \"$(cd ../cls-alt-deep-$n.git/objects && pwd)\" >> \"$prev/objects/info/alternates\"
           prev=$(cd ../cls-alt-deep-$n.git && pwd)
         done
         echo a > a && git add a && git commit -q -m one",
    );
    b.cases("cls-alt-deep", &dir, REPEAT_OPTIONS);
    // From the environment, relative to where fsck runs.
    let dir = fresh(
        b,
        "cls-alt-env",
        "",
        "git init -q --bare ../cls-alt-env-store.git
         echo a > a && git add a && git commit -q -m one
         mkdir -p ../cls-alt-env-store.git/objects/01
         : > ../cls-alt-env-store.git/objects/01/23456789012345678901234567890123456789",
    );
    b.case(
        "cls-alt-env.default",
        &dir,
        &[(
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "../cls-alt-env-store.git/objects:/nowhere/objects",
        )],
        &[],
    );
}

/// The paths in git's messages depend on where it runs: from a worktree's top or a directory in
/// it, git works from the top (`.git/objects/…`); from the git directory itself it names it `.`;
/// from a directory inside the git directory (or a bare repository) by its real path; with
/// `GIT_DIR` and `GIT_WORK_TREE` from a directory inside the worktree, by its real path too.
fn paths(b: &mut Builder) {
    // A damaged loose tree and a damaged packed blob, in a worktree and in a bare repository.
    b.copy("r/c-pack-blob-zlib", "r/cls-path");
    fs::create_dir_all(b.path("r/cls-path/.git/objects/ab")).expect("mkdir");
    fs::write(
        b.path("r/cls-path/.git/objects/ab/cdef0123456789abcdef0123456789abcdef01"),
        b"not zlib",
    )
    .expect("write");
    for (name, cwd, env) in [
        ("cls-path-git-dir", "r/cls-path/.git", &[][..]),
        ("cls-path-objects", "r/cls-path/.git/objects", &[][..]),
        ("cls-path-refs-heads", "r/cls-path/.git/refs/heads", &[][..]),
        (
            "cls-path-env-work-tree",
            "r/cls-path/d",
            &[("GIT_DIR", "../.git"), ("GIT_WORK_TREE", "..")][..],
        ),
        (
            "cls-path-env-git-dir",
            "r/cls-path/d/e",
            &[("GIT_DIR", "../../.git")][..],
        ),
    ] {
        b.case(&format!("{name}.default"), cwd, env, &[]);
        b.case(
            &format!("{name}.connectivity-only"),
            cwd,
            env,
            &["--connectivity-only"],
        );
    }
    b.sh(
        "r",
        "cp -a cls-path/.git cls-path-bare.git && git --git-dir=cls-path-bare.git config core.bare true",
    );
    b.cases("cls-path-bare", "r/cls-path-bare.git", CORRUPT_OPTIONS);
    b.cases(
        "cls-path-bare-objects",
        "r/cls-path-bare.git/objects",
        CORRUPT_OPTIONS,
    );
}

/// Objects stored twice (in two packs, or loose and packed) are checked twice; an unreachable
/// tree stored twice still leaves its blobs unreachable.
fn stored_twice(b: &mut Builder) {
    let dir = fresh(
        b,
        "cls-twice-packs",
        "",
        "echo a > a && git add a && git commit -q -m one
         git checkout -q -b gone && echo g > g && git add g && git commit -q -m gone
         git checkout -q - && git branch -q -D gone
         g=$(git rev-parse HEAD@{1})
         git rev-list --objects $g | cut -d' ' -f1 > list
         git pack-objects -q .git/objects/pack/pack < list >/dev/null
         printf '%s\\n' $(git rev-parse $g) $(git rev-parse $g^{tree}) $(git rev-parse $g:g) |
           git pack-objects -q .git/objects/pack/pack >/dev/null
         rm list",
    );
    let opts: &[(&str, &[&str])] = &[
        ("default", &[]),
        ("unreachable", &["--unreachable", "--no-reflogs"]),
        (
            "connectivity-only",
            &["--connectivity-only", "--unreachable", "--no-reflogs"],
        ),
    ];
    b.cases("cls-twice-packs", &dir, opts);
    b.copy(&dir, "r/cls-twice-loose");
    b.sh("r/cls-twice-loose", "git prune-packed");
    b.cases("cls-twice-loose", "r/cls-twice-loose", opts);
}

/// With `--connectivity-only` git's walk takes a commit from the commit-graph unless it parsed
/// the commit's object already (a ref names it) or cannot find it there (a binary search of the
/// graph's ids, which a damaged order defeats): the damaged commit-graphs of the corpus, walked.
fn graph_walk(b: &mut Builder) {
    for name in [
        "tree",
        "date",
        "fanout",
        "trailer",
        "split-chain",
        "split-trailer",
    ] {
        b.case(
            &format!("cls-graph-walk-{name}"),
            &format!("r/c-cgraph-{name}"),
            &[],
            &["--connectivity-only"],
        );
    }
    // Ids out of order, and a parent's id changed, in a graph of commits most refs do not name.
    let dir = fresh(
        b,
        "cls-graph-walk-order",
        "",
        "i=0; while [ $i -lt 12 ]; do i=$((i+1)); echo $i > f; git add f; git commit -q -m c$i; done
         git tag t6 HEAD~6
         git commit-graph write --reachable",
    );
    let graph = b.path(&format!("{dir}/.git/objects/info/commit-graph"));
    let mut data = fs::read(&graph).expect("graph");
    // Header (8 bytes), then the chunk table: OIDF, OIDL, ... (12 bytes each).
    let chunk = |data: &[u8], want: &[u8; 4]| -> usize {
        (0..usize::from(data[6]))
            .map(|i| 8 + 12 * i)
            .find(|&at| &data[at..at + 4] == want)
            .map(|at| u64::from_be_bytes(data[at + 4..at + 12].try_into().expect("8")) as usize)
            .expect("chunk")
    };
    let oidl = chunk(&data, b"OIDL");
    // Two ids swapped: the binary search no longer finds them.
    let (a, c) = (oidl + 20, oidl + 5 * 20);
    let first = data[a..a + 20].to_vec();
    let second = data[c..c + 20].to_vec();
    data[a..a + 20].copy_from_slice(&second);
    data[c..c + 20].copy_from_slice(&first);
    super::corrupt::retrail(&mut data, 20);
    b.sh(".", &format!("chmod u+w '{}'", graph.display()));
    fs::write(&graph, data).expect("write graph");
    b.cases("cls-graph-walk-order", &dir, CORRUPT_OPTIONS);
    // Every commit named by a ref (parsed from its object before the walk), one's tree id
    // damaged in the graph (t5318's `detect incorrect tree OID`).
    let dir = fresh(
        b,
        "cls-graph-walk-named",
        "",
        "i=0; while [ $i -lt 8 ]; do i=$((i+1)); echo $i > f; git add f; git commit -q -m c$i; git tag t$i; done
         git commit-graph write --reachable",
    );
    let graph = b.path(&format!("{dir}/.git/objects/info/commit-graph"));
    let mut data = fs::read(&graph).expect("graph");
    let cdat = chunk(&data, b"CDAT");
    // The fourth commit's tree id (each row: tree id, two parent positions, date).
    data[cdat + 3 * 36 + 5] ^= 0x40;
    super::corrupt::retrail(&mut data, 20);
    fs::write(&graph, data).expect("write graph");
    b.cases("cls-graph-walk-named", &dir, CORRUPT_OPTIONS);
    // Every commit named by a ref, one id of the graph's list damaged (t5318's `detect incorrect
    // OID order`: its first byte, and `detect OID not in object database`: a byte inside): a
    // child parsed from its object names its parent by the parent's real id, which the walk
    // then parses from its object too.
    for (name, at) in [
        ("cls-graph-walk-named-order", 8 * 20),
        ("cls-graph-walk-named-missing", 4 * 20 + 10),
    ] {
        let dir = fresh(
            b,
            name,
            "",
            "i=0; while [ $i -lt 9 ]; do i=$((i+1)); echo $i > f; git add f; git commit -q -m c$i; git tag t$i; done
             git commit-graph write --reachable",
        );
        let graph = b.path(&format!("{dir}/.git/objects/info/commit-graph"));
        let mut data = fs::read(&graph).expect("graph");
        let oidl = chunk(&data, b"OIDL");
        data[oidl + at] = 1;
        super::corrupt::retrail(&mut data, 20);
        b.sh(".", &format!("chmod u+w '{}'", graph.display()));
        fs::write(&graph, data).expect("write graph");
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
}

/// Grafts (`info/grafts`, deprecated) as git 2.47 applies them: a grafted commit's parents are
/// the graft's (its own are not followed, and may be dangling), a commit-graph disagrees with
/// them (`commit-graph parent for … is … != …`), and git prints its deprecation advice and an
/// error for each line it cannot use once it parses a commit.
fn grafts(b: &mut Builder) {
    let history = "i=0; while [ $i -lt 6 ]; do i=$((i+1)); echo $i > f; git add f; git commit -q -m c$i; done";
    let opts: &[(&str, &[&str])] = &[
        ("default", &[]),
        ("unreachable", &["--unreachable", "--no-reflogs"]),
        (
            "connectivity-only",
            &["--connectivity-only", "--no-reflogs"],
        ),
        ("no-full", &["--no-full", "--no-reflogs"]),
        ("name-objects", &["--name-objects", "--no-reflogs"]),
        ("root", &["--root", "--no-reflogs"]),
        ("head", &["HEAD~1"]),
    ];
    // HEAD grafted onto HEAD~3 (two commits skipped), HEAD~4 made a root.
    let dir = fresh(
        b,
        "cls-graft",
        "",
        &format!(
            "{history}
             h=$(git rev-parse HEAD) h3=$(git rev-parse HEAD~3) h4=$(git rev-parse HEAD~4)
             printf '%s %s\\n%s\\n' $h $h3 $h4 > .git/info/grafts"
        ),
    );
    b.cases("cls-graft", &dir, opts);
    b.copy(&dir, "r/cls-graft-packed");
    b.sh(
        "r/cls-graft-packed",
        "git -c core.commitGraph=false repack -adq",
    );
    b.cases("cls-graft-packed", "r/cls-graft-packed", &opts[..3]);
    // A commit-graph written before the graft (git's t5318 `commit grafts invalidate
    // commit-graph`).
    let dir = fresh(
        b,
        "cls-graft-commit-graph",
        "",
        &format!(
            "{history}
             git commit-graph write --reachable
             echo \"$(git rev-parse HEAD~1) $(git rev-parse HEAD~4)\" > .git/info/grafts"
        ),
    );
    b.cases("cls-graft-commit-graph", &dir, &opts[..3]);
    // The advice turned off, by the environment and by the configuration.
    b.case(
        "cls-graft-commit-graph.no-advice",
        &dir,
        &[("GIT_ADVICE", "0")],
        &[],
    );
    b.case(
        "cls-graft-commit-graph.no-advice-config",
        &dir,
        &[(
            "GIT_CONFIG_PARAMETERS",
            "'advice.graftFileDeprecated=false'",
        )],
        &[],
    );
    // Parents that are missing or not commits, lines git cannot use, a duplicate.
    let dir = fresh(
        b,
        "cls-graft-bad",
        "",
        &format!(
            "{history}
             {{
               echo '# a comment'
               echo \"$(git rev-parse HEAD) 1111111111111111111111111111111111111111\"
               echo \"$(git rev-parse HEAD~1) $(git rev-parse HEAD~1^{{tree}})\"
               echo \"$(git rev-parse HEAD) $(git rev-parse HEAD~2)\"
               echo 'not a graft'
               echo \"$(git rev-parse HEAD~2) $(git rev-parse HEAD~3)x\"
               echo
             }} > grafts
             mv grafts .git/info/grafts"
        ),
    );
    b.cases("cls-graft-bad", &dir, &opts[..5]);
    // The file GIT_GRAFT_FILE names, and a repository with no commit to parse.
    let dir = fresh(b, "cls-graft-env", "", history);
    b.sh(
        &dir,
        "echo \"$(git rev-parse HEAD) $(git rev-parse HEAD~2)\" > ../cls-graft-env.grafts",
    );
    b.case(
        "cls-graft-env.default",
        &dir,
        &[("GIT_GRAFT_FILE", "$ROOT/r/cls-graft-env.grafts")],
        &["--unreachable", "--no-reflogs"],
    );
    let dir = fresh(
        b,
        "cls-graft-no-commits",
        "",
        "echo 1111111111111111111111111111111111111111 > .git/info/grafts",
    );
    b.cases("cls-graft-no-commits", &dir, &opts[..1]);
}

/// A damaged deflate stream, in a pack and loose: git prints zlib's own message for it
/// (`inflate: data stream error (invalid distance too far back)`, `(incorrect data check)`,
/// `(invalid block type)`...), whichever provider flagsplit inflates with; an entry's stream is
/// inflated with room for its size and one byte more, and an error zlib finds there (with no more
/// room) is printed too. The damage is chosen by reading the streams with zlib's rules
/// ([`flagsplit_zlib::failure`]): one byte flipped for each message it finds, and one whose
/// stream holds a byte more than the entry's size and then a wrong Adler-32.
fn zlib_words(b: &mut Builder) {
    use flagsplit_zlib::Inflater as _;
    use flagsplit_zlib::failure::inflate_failure;
    let text = {
        let mut rng = crate::support::Rng(42);
        let words: Vec<String> = (0..300)
            .map(|_| {
                let n = 2 + rng.below(6);
                (0..n)
                    .map(|_| (b'a' + rng.below(8) as u8) as char)
                    .collect()
            })
            .collect();
        let mut t = String::new();
        for _ in 0..5000 {
            t.push_str(&words[rng.below(words.len())]);
            t.push(' ');
        }
        t
    };
    let base = fresh(b, "cls-zlib-base", "", "");
    fs::write(b.path(&format!("{base}/words")), &text).expect("write");
    b.sh(
        &base,
        "git add words && git commit -q -m words && git repack -adq && git prune-packed",
    );
    let stem = super::corrupt::the_pack(b, &base);
    let pack = fs::read(b.path(&format!("{stem}.pack"))).expect("pack");
    let idx = fs::read(b.path(&format!("{stem}.idx"))).expect("idx");
    let entries = super::corrupt::pack_entries(&pack, &super::corrupt::idx_v2(&idx, 20), 20);
    let blob = entries
        .iter()
        .filter(|e| e.kind == 3)
        .max_by_key(|e| e.end - e.data)
        .expect("the blob")
        .clone();
    let size = blob.size as usize;
    // One flip per message zlib gives, and one whose stream is a byte longer with a bad
    // Adler-32 (found at the very end, after the room is full: git still prints it).
    let mut chosen: Vec<(String, usize, u8)> = Vec::new();
    let mut z = flagsplit_zlib::zlib_rs::ZlibRs::new().expect("inflater");
    let mut out = Vec::new();
    // (Every 7th byte from the start, where the block headers and code tables are, then every
    // 61st: enough to find each message once.)
    let offsets =
        (blob.data + 2..blob.end).filter(|&at| at < blob.data + 200 && at % 7 == 0 || at % 61 == 0);
    'search: for at in offsets {
        for bit in [0, 3, 6] {
            let mut bad = pack[blob.data..blob.end].to_vec();
            bad[at - blob.data] ^= 1 << bit;
            let Some(f) = inflate_failure(&bad, &[size + 1]) else {
                continue;
            };
            let message = f.message.clone().unwrap_or_default();
            let long = matches!(
                z.inflate_to_vec(&bad, size, &mut out),
                Err(flagsplit_zlib::Error::SizeMismatch { .. })
            );
            let key = if long {
                format!("{message} (long)")
            } else {
                message
            };
            if !chosen.iter().any(|(k, _, _)| *k == key) {
                chosen.push((key, at, 1 << bit));
            }
            if chosen.len() >= 12 {
                break 'search;
            }
        }
    }
    assert!(
        chosen
            .iter()
            .any(|(k, _, _)| k == "invalid distance too far back"),
        "no flip gives `invalid distance too far back`: {chosen:?}"
    );
    for (n, (_, at, bit)) in chosen.iter().enumerate() {
        let dir = format!("r/cls-zlib-pack-{n}");
        b.copy(&base, &dir);
        let rel = stem.replacen(&base, &dir, 1);
        let path = b.path(&format!("{rel}.pack"));
        let mut bytes = fs::read(&path).expect("pack");
        bytes[*at] ^= bit;
        b.sh(".", &format!("chmod u+w '{rel}.pack'"));
        fs::write(&path, bytes).expect("write pack");
        b.cases(&format!("cls-zlib-pack-{n}"), &dir, PACK_OPTIONS);
    }
    // The same flips in the loose object (zlib's message for the header, then the content).
    let loose_dir = fresh(b, "cls-zlib-loose-base", "", "");
    fs::write(b.path(&format!("{loose_dir}/words")), &text).expect("write");
    b.sh(&loose_dir, "git add words && git commit -q -m words");
    let id = rev(b, &loose_dir, "HEAD:words");
    let file = loose(&loose_dir, &id);
    let stream = fs::read(b.path(&file)).expect("loose");
    let mut done: Vec<String> = Vec::new();
    let mut n = 0;
    for at in (2..stream.len()).filter(|&at| at < 200 && at % 5 == 0 || at % 97 == 0) {
        for bit in [1, 4, 7] {
            let mut bad = stream.clone();
            bad[at] ^= 1 << bit;
            let Some(f) = inflate_failure(&bad, &[usize::MAX]) else {
                continue;
            };
            let key = f.message.unwrap_or_default();
            if done.contains(&key) || n >= 6 {
                continue;
            }
            done.push(key);
            let dir = format!("r/cls-zlib-loose-{n}");
            b.copy(&loose_dir, &dir);
            let path = b.path(&loose(&dir, &id));
            b.sh(".", &format!("chmod u+w '{}'", path.display()));
            fs::write(&path, &bad).expect("write loose");
            b.cases(&format!("cls-zlib-loose-{n}"), &dir, CORRUPT_OPTIONS);
            n += 1;
        }
    }
}

/// With `--connectivity-only` git checks that an unreachable object exists without reading it
/// (a blob is never read; a corrupt loose copy, an empty alternate object file, an idx entry whose
/// offset lies past its pack's end are only dangling), and reads an object it must parse (an
/// unreachable commit, tree or tag whose links it marks) as its parsers do, printing what they
/// print: an empty file name in a tree, an entry naming a blob as a tree, a commit without a
/// tree, a tag of an unknown type, an object whose stored type is not its name's (swapped
/// files), a pack entry of type 0 (git dies when no other copy exists). Mostly the states of
/// git's t1450, t3800, t5318 and t5319.
fn connectivity_only(b: &mut Builder) {
    // Loose blobs, unreachable: garbage after the stream (the streaming path too, past
    // core.bigFileThreshold), cut short.
    let dir = fresh(
        b,
        "cls-conn-loose-garbage",
        "--bare",
        "oid=$(git hash-object -w --stdin --literally </dev/null)
         f=objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-)
         chmod +w $f && echo extra garbage >>$f",
    );
    b.cases("cls-conn-loose-garbage", &dir, CORRUPT_OPTIONS);
    let dir = fresh(
        b,
        "cls-conn-loose-garbage-big",
        "",
        "echo one >one && git add one && git commit -q -m one
         blob=$(echo trailing | git hash-object -w --stdin)
         f=.git/objects/$(echo $blob | cut -c1-2)/$(echo $blob | cut -c3-)
         chmod +w $f && echo garbage >>$f
         git config core.bigFileThreshold 5",
    );
    b.cases("cls-conn-loose-garbage-big", &dir, CORRUPT_OPTIONS);
    for (name, threshold) in [
        ("cls-conn-loose-truncated", None),
        ("cls-conn-loose-truncated-big", Some(128)),
    ] {
        let dir = fresh(
            b,
            name,
            "",
            "echo one >one && git add one && git commit -q -m one",
        );
        fs::write(
            b.path(&format!("{dir}/file")),
            crate::support::Rng(4096).bytes(4096),
        )
        .expect("write");
        let id = b
            .sh(&dir, "git hash-object -w file && rm file")
            .trim()
            .to_string();
        let path = b.path(&loose(&dir, &id));
        let bytes = fs::read(&path).expect("loose");
        b.sh(".", &format!("chmod u+w '{}'", path.display()));
        fs::write(&path, &bytes[..1024]).expect("truncate");
        if let Some(t) = threshold {
            b.sh(&dir, &format!("git config core.bigFileThreshold {t}"));
        }
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
    // A packed commit whose loose copy is not a zlib stream (t1450's duplicate loose objects).
    let dir = fresh(
        b,
        "cls-conn-duplicate",
        "",
        "echo duplicate >duplicate.t && git add duplicate.t && git commit -q -m duplicate
         git repack -q
         oid=$(git rev-parse HEAD)
         f=.git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-)
         rm -f $f && echo broken >$f",
    );
    b.cases("cls-conn-duplicate", &dir, CORRUPT_OPTIONS);
    // A pack entry of type 0: an unreachable commit's only copy (git dies), and with its loose
    // copy (git falls back to it after `unknown object type 0`).
    for (name, keep_loose) in [("cls-conn-type0", false), ("cls-conn-type0-loose", true)] {
        let dir = fresh(
            b,
            name,
            "",
            &format!(
                "echo one >one && git add one && git commit -q -m one
                 hsh=$(git commit-tree -m mycommit HEAD^{{tree}})
                 pack=$(echo $hsh | git pack-objects -q .git/objects/pack/pack)
                 chmod a+w .git/objects/pack/pack-$pack.pack
                 printf '\\0' | dd of=.git/objects/pack/pack-$pack.pack bs=1 conv=notrunc seek=12 2>/dev/null
                 {}",
                if keep_loose {
                    ""
                } else {
                    "rm .git/objects/$(echo $hsh | cut -c1-2)/$(echo $hsh | cut -c3-)"
                }
            ),
        );
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
    // A tree entry with an empty name (unparseable), unreachable and then reachable (also with
    // reftable refs, as t1450 runs under GIT_TEST_DEFAULT_REF_FORMAT=reftable). git prints its
    // `empty filename in tree entry` from each parse: the check's, its walk's and, when the tree
    // is reachable, the connectivity walk's.
    for (name, reachable, init) in [
        ("cls-conn-empty-name", false, ""),
        ("cls-conn-empty-name-reachable", true, ""),
        (
            "cls-conn-empty-name-reachable-reftable",
            true,
            "--ref-format=reftable",
        ),
    ] {
        let dir = fresh(
            b,
            name,
            init,
            &format!(
                "echo one >one && git add one && git commit -q -m one
                 tree=$(printf '100644 \\0twenty-bytes-of-junk' | git hash-object -t tree --stdin -w --literally)
                 {}",
                if reachable {
                    "git update-ref refs/heads/wrong $(git commit-tree -m wrong $tree)"
                } else {
                    ""
                }
            ),
        );
        b.cases(name, &dir, REPEAT_OPTIONS);
    }
    // A tree whose entry names a blob as a directory (t1450's tree entry with type mismatch),
    // unreachable and reachable (also with reftable refs). git's `object X is a blob, not a tree`
    // comes from each walk of the tree: its check's, and the connectivity walk's when reachable.
    for (name, reachable, init) in [
        ("cls-conn-entry-type", false, ""),
        ("cls-conn-entry-type-reachable", true, ""),
        (
            "cls-conn-entry-type-reachable-reftable",
            true,
            "--ref-format=reftable",
        ),
    ] {
        let dir = fresh(
            b,
            name,
            init,
            "echo one >one && git add one && git commit -q -m one",
        );
        let blob = b
            .sh(&dir, "echo blob | git hash-object -w --stdin")
            .trim()
            .to_string();
        let mut tree = b"40000 dir\0".to_vec();
        tree.extend_from_slice(&unhex(&blob));
        tree.extend_from_slice(b"100644 file\0");
        tree.extend_from_slice(&unhex(&blob));
        fs::write(b.path(&format!("{dir}/tree.bin")), tree).expect("write");
        b.sh(
            &dir,
            &format!(
                "tree=$(git hash-object -t tree -w --literally tree.bin) && rm tree.bin
                 {}",
                if reachable {
                    "git update-ref refs/heads/type_mismatch $(git commit-tree -m mismatch $tree)"
                } else {
                    ""
                }
            ),
        );
        b.cases(name, &dir, REPEAT_OPTIONS);
    }
    // Two commits whose loose files are swapped (t1450's rev-list --verify-objects case).
    let dir = fresh(
        b,
        "cls-conn-swapped",
        "",
        "echo one >one.t && git add one.t && git commit -q -m one && git tag one
         echo two >two.t && git add two.t && git commit -q -m two && git tag two
         one=$(git rev-parse HEAD) && two=$(git rev-parse HEAD^)
         p() { echo .git/objects/$(echo $1 | cut -c1-2)/$(echo $1 | cut -c3-); }
         mv $(p $one) tmp && mv $(p $two) $(p $one) && mv tmp $(p $two)",
    );
    b.cases("cls-conn-swapped", &dir, CORRUPT_OPTIONS);
    // A tag of a made-up type (t3800), naming an object this repository does not have;
    // unreferenced, and named by a ref.
    for (name, named) in [
        ("cls-conn-tag-type", false),
        ("cls-conn-tag-type-named", true),
    ] {
        let dir = fresh(
            b,
            name,
            "--bare",
            &format!(
                "tag=$(printf 'object 8b6fa0de2cdb1d1f1e0c0a5e8a3ff5c9c2b1a7d4\\ntype tagggg\\ntag mytag\\ntagger . <> 0 +0000\\n\\n' | git hash-object -t tag -w --stdin --literally)
                 {}",
                if named {
                    "mkdir -p refs/tags && echo $tag >refs/tags/bad_tag"
                } else {
                    ""
                }
            ),
        );
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
    // A commit without a tree line (t5318's corrupt commit-graph write), unreferenced, and as
    // the parent of a commit a branch names.
    for (name, child) in [
        ("cls-conn-bogus-commit", false),
        ("cls-conn-bogus-commit-parent", true),
    ] {
        let dir = fresh(
            b,
            name,
            "",
            &format!(
                "tree=$(git mktree </dev/null)
                 zero=0000000000000000000000000000000000000000
                 broken=$(printf 'parent %s\\nauthor whatever <whatever@example.com> 1234 -0000\\ncommitter whatever <whatever@example.com> 1234 -0000\\n\\nbroken commit\\n' $zero | git hash-object -w -t commit --stdin --literally)
                 {}",
                if child {
                    "git update-ref refs/heads/main $(git commit-tree -p $broken -m good $tree)"
                } else {
                    ""
                }
            ),
        );
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
    objects64(b);
}

/// t5319's `objects64`: a pack whose idx has 64-bit offsets for every entry, one of them (a
/// blob's) damaged to lie past the pack's end, the alternate of an empty repository. git's
/// `--connectivity-only` reads an unreachable object's type only when no tree named it first, in
/// the pack's index order: a blob after its tree is just dangling, one before it is read (git
/// dies). And the blob after its tree with a multi-pack-index over the pack whose large-offset
/// chunk is gone (its check dies, not fsck).
fn objects64(b: &mut Builder) {
    let src = fresh(
        b,
        "cls-conn-objects64-src",
        "",
        "echo one >one && git add one && git commit -q -m one",
    );
    let mut rng = crate::support::Rng(64);
    for i in 0..12 {
        let n = 100 + rng.below(3000);
        fs::write(b.path(&format!("{src}/file_{i:03}")), rng.bytes(n)).expect("write");
    }
    let root = b.root.display().to_string();
    let tree = b.sh(&src, "git add . && git write-tree").trim().to_string();
    let blobs: Vec<String> = b
        .sh(&src, &format!("git ls-tree {tree} | cut -c13-52"))
        .lines()
        .map(str::to_string)
        .collect();
    let after = blobs
        .iter()
        .filter(|id| **id > tree)
        .max()
        .expect("a blob after the tree");
    let before = blobs
        .iter()
        .filter(|id| **id < tree)
        .min()
        .expect("a blob before the tree");
    for (name, blob, midx) in [
        ("cls-conn-objects64", after, false),
        ("cls-conn-objects64-first", before, false),
        ("cls-conn-objects64-midx", after, true),
    ] {
        let store = format!("r/{name}-store");
        fs::create_dir_all(b.path(&format!("{store}/pack"))).expect("mkdir");
        let stem = b
            .sh(
                &src,
                &format!(
                    "{{ echo {tree}; git ls-tree {tree} | cut -c13-52; }} |
                     git pack-objects -q --index-version=2,0x40 '{root}/{store}/pack/test-64'"
                ),
            )
            .trim()
            .to_string();
        let idx_path = b.path(&format!("{store}/pack/test-64-{stem}.idx"));
        let mut idx = fs::read(&idx_path).expect("idx");
        let n = u32::from_be_bytes(idx[8 + 255 * 4..8 + 256 * 4].try_into().expect("4")) as usize;
        let ids = 8 + 256 * 4;
        let offsets = ids + n * 20 + n * 4;
        let large = offsets + n * 4;
        let want = unhex(blob);
        let pos = (0..n)
            .find(|&i| idx[ids + 20 * i..ids + 20 * (i + 1)] == want[..])
            .expect("the blob in the idx");
        let small = u32::from_be_bytes(
            idx[offsets + 4 * pos..offsets + 4 * pos + 4]
                .try_into()
                .expect("4"),
        );
        assert_ne!(small & 0x8000_0000, 0, "every offset is a large one");
        // Byte 3 of the 8: 8 GiB past the start.
        idx[large + 8 * (small & 0x7fff_ffff) as usize + 3] = 2;
        b.sh(".", &format!("chmod u+w '{}'", idx_path.display()));
        fs::write(&idx_path, &idx).expect("write idx");
        let dir = fresh(
            b,
            name,
            "",
            &format!(
                "echo '{root}/{store}' >.git/objects/info/alternates
                 {}",
                if midx {
                    format!("git multi-pack-index --object-dir='{root}/{store}' write")
                } else {
                    String::new()
                }
            ),
        );
        if midx {
            let midx_path = b.path(&format!("{store}/pack/multi-pack-index"));
            let data = fs::read(&midx_path).expect("midx");
            b.sh(".", &format!("chmod u+w '{}'", midx_path.display()));
            fs::write(&midx_path, clear_chunk(&data, 12, b"LOFF")).expect("write midx");
        }
        b.cases(name, &dir, CORRUPT_OPTIONS);
    }
}

/// `file` (a chunk file whose table of contents starts at `toc`) without chunk `id`'s data, the
/// offsets after it moved back (git's `corrupt_chunk_file FILE ID clear`).
fn clear_chunk(file: &[u8], toc: usize, id: &[u8; 4]) -> Vec<u8> {
    let entry = |i: usize| {
        let at = toc + 12 * i;
        let off = u64::from_be_bytes(file[at + 4..at + 12].try_into().expect("8")) as usize;
        (&file[at..at + 4], off)
    };
    let k = (0..).find(|&i| entry(i).0 == id).expect("the chunk");
    let (start, end) = (entry(k).1, entry(k + 1).1);
    let len = end - start;
    let mut out = file[..start].to_vec();
    let mut i = k + 1;
    loop {
        let (name, off) = entry(i);
        let at = toc + 12 * i;
        out[at + 4..at + 12].copy_from_slice(&((off - len) as u64).to_be_bytes());
        if name == [0, 0, 0, 0] {
            break;
        }
        i += 1;
    }
    out.extend_from_slice(&file[end..]);
    out
}

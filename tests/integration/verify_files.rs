//! `flagsplit::verify` against git 2.47.3 as the oracle: small repositories written by git
//! (reverse indexes, bitmaps, a commit-graph single and split, a multi-pack-index), checked
//! silent when sound, then corrupted (a checksum byte, a data byte, truncation) and compared
//! with what `git fsck`, `git commit-graph verify` and `git multi-pack-index verify` print.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use flagsplit::hash::Selected;
use flagsplit::object::ObjectFormat;
use flagsplit::verify::{self, Outcome, bitmap, commit_graph, midx, rev};

use crate::support::{self, Rng};

fn have_git(test: &str) -> bool {
    let ok = support::runs("git", &["--version"]);
    if !ok {
        support::skip(test, "git not found; nothing to compare with");
    }
    ok
}

/// A scratch repository with git's environment neutralised.
struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    home: PathBuf,
}

impl Repo {
    fn new(format: ObjectFormat) -> Repo {
        let tmp = tempfile::Builder::new()
            .prefix("verify-files")
            .tempdir()
            .expect("temporary directory");
        let home = tmp.path().join("home");
        let dir = tmp.path().join("repo");
        fs::create_dir_all(&home).expect("home");
        fs::create_dir_all(&dir).expect("repo");
        let r = Repo {
            _tmp: tmp,
            dir,
            home,
        };
        r.ok(&["init", "-q", &format!("--object-format={}", format.name())]);
        r
    }

    fn git(&self, args: &[&str]) -> Output {
        self.git_at(args, "1700000000 +0000")
    }

    /// [`Repo::git`] with the author and committer dates `date`.
    fn git_at(&self, args: &[&str], date: &str) -> Output {
        Command::new("git")
            .args(args)
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env(
                "GIT_CEILING_DIRECTORIES",
                self.dir.parent().unwrap_or(&self.dir),
            )
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_NAME", "A U Thor")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "C O Mitter")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com")
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date)
            .output()
            .expect("git runs")
    }

    fn ok(&self, args: &[&str]) -> Output {
        let o = self.git(args);
        assert!(
            o.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o
    }

    /// `n` commits, one file each, with a merge in the middle when `n` is large enough.
    fn commits(&self, n: usize, tag: &str) {
        for i in 0..n {
            fs::write(self.dir.join(format!("{tag}{i}")), format!("{tag} {i}\n")).expect("write");
            self.ok(&["add", "."]);
            self.ok(&["commit", "-qm", &format!("{tag} {i}")]);
        }
    }

    fn objects(&self) -> PathBuf {
        self.dir.join(".git/objects")
    }

    fn packs(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(self.objects().join("pack"))
            .expect("pack dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "pack"))
            .collect();
        v.sort();
        v
    }

    /// Every object, by raw id: (type, content).
    fn all_objects(&self) -> HashMap<Vec<u8>, (String, Vec<u8>)> {
        let o = self.ok(&["cat-file", "--batch-all-objects", "--batch"]);
        let mut map = HashMap::new();
        let mut rest = &o.stdout[..];
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            let mut f = header.split(' ');
            let (id, kind, size) = (
                f.next().unwrap_or(""),
                f.next().unwrap_or(""),
                f.next().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0),
            );
            let content = rest[nl + 1..nl + 1 + size].to_vec();
            rest = &rest[nl + 1 + size + 1..];
            map.insert(unhex(id), (kind.to_string(), content));
        }
        map
    }

    /// (raw id, offset) of a pack's objects in `.idx` order.
    fn idx_entries(&self, pack: &Path) -> Vec<(Vec<u8>, u64)> {
        let idx = pack.with_extension("idx");
        let out = Command::new("git")
            .args(["show-index", "--object-format"])
            .arg(format_of(self))
            .stdin(fs::File::open(&idx).expect("idx"))
            .output()
            .expect("show-index");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let mut f = l.split(' ');
                let off = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                (unhex(f.next().unwrap_or("")), off)
            })
            .collect()
    }

    fn fsck(&self) -> (BTreeSet<String>, i32) {
        let o = self.git(&["fsck", "--no-progress"]);
        (lines(&o.stderr), o.status.code().unwrap_or(-1))
    }
}

fn format_of(r: &Repo) -> String {
    let o = r.ok(&["rev-parse", "--show-object-format"]);
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

fn lines(b: &[u8]) -> BTreeSet<String> {
    String::from_utf8_lossy(b)
        .lines()
        .map(str::to_string)
        .collect()
}

fn set(o: &Outcome) -> BTreeSet<String> {
    o.lines.iter().cloned().collect()
}

/// Rewrites one byte of `path` (made writable first: git writes these files read-only).
fn flip(path: &Path, at: usize) {
    flip_bits(path, at, 0x40);
}

fn flip_bits(path: &Path, at: usize, mask: u8) {
    let mut b = fs::read(path).expect("read");
    b[at] ^= mask;
    write(path, &b);
}

/// A change to a file.
type Damage = Box<dyn Fn(&Path)>;
/// A change to a file or to the repository around it.
type RepoDamage = Box<dyn Fn(&Repo, &Path)>;

fn write(path: &Path, b: &[u8]) {
    let mut perm = fs::metadata(path).expect("metadata").permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    fs::set_permissions(path, perm).expect("chmod");
    fs::write(path, b).expect("write");
}

fn truncate(path: &Path, len: usize) {
    let b = fs::read(path).expect("read");
    write(path, &b[..len]);
}

/// The reverse-index check of every pack, as `git fsck` runs it.
fn check_revs(r: &Repo, format: ObjectFormat) -> Outcome {
    let mut all = Outcome::default();
    for pack in r.packs() {
        let offsets: Vec<u64> = r.idx_entries(&pack).into_iter().map(|(_, o)| o).collect();
        let name = format!(
            ".git/objects/pack/{}",
            pack.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        let revb = fs::read(pack.with_extension("rev")).ok();
        let size = fs::metadata(&pack).map(|m| m.len()).unwrap_or(0);
        let o = rev::verify::<Selected>(
            &name,
            revb.as_deref(),
            format,
            offsets.len(),
            |n| offsets[n],
            size,
        );
        all.lines.extend(o.lines);
        all.failed |= o.failed;
    }
    all
}

/// The bitmap check of every pack and of the multi-pack-index, as `git fsck` runs it.
fn check_bitmaps(r: &Repo, format: ObjectFormat) -> Outcome {
    let mut all = Outcome::default();
    let rel = Path::new(".git/objects");
    let mut paths = Vec::new();
    let loaded = midx::load_lines(&r.objects(), rel, format);
    if let Some(name) = loaded.bitmap {
        paths.push(rel.join("pack").join(name));
    }
    for pack in r.packs() {
        let name = format!(
            ".git/objects/pack/{}",
            pack.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        paths.push(PathBuf::from(bitmap::pack_bitmap_path(&name)));
    }
    for p in paths {
        if let Ok(b) = fs::read(r.dir.join(&p)) {
            let o = bitmap::verify::<Selected>(&p, &b, format);
            all.lines.extend(o.lines);
            all.failed |= o.failed;
        }
    }
    all
}

/// Our lines are among `git fsck`'s, git's lines about these files are all ours, and our
/// failure is git's exit bit.
fn compare_fsck(r: &Repo, ours: &Outcome, bit: i32, about: &[&str]) {
    let (theirs, rc) = r.fsck();
    let mine = set(ours);
    let relevant: BTreeSet<String> = theirs
        .iter()
        .filter(|l| about.iter().any(|a| l.contains(a)))
        .cloned()
        .collect();
    assert!(
        mine.is_subset(&theirs),
        "ours {mine:#?}\ngit fsck {theirs:#?}"
    );
    assert_eq!(relevant, mine, "git fsck printed {theirs:#?}");
    assert_eq!(ours.failed, rc & bit != 0, "git fsck exit {rc}");
}

fn read_commit(
    objects: &HashMap<Vec<u8>, (String, Vec<u8>)>,
) -> impl FnMut(&[u8]) -> commit_graph::Commit + '_ {
    move |id: &[u8]| match objects.get(id) {
        Some((k, c)) if k == "commit" => commit_graph::Commit::Found(c.clone()),
        Some(_) => commit_graph::Commit::NotACommit,
        None => commit_graph::Commit::Missing,
    }
}

/// `git commit-graph verify` against ours: the same set of lines, the same verdict.
fn compare_commit_graph(r: &Repo, format: ObjectFormat) {
    compare_commit_graph_with(r, format, commit_graph::Settings::default(), &[]);
}

fn compare_commit_graph_with(
    r: &Repo,
    format: ObjectFormat,
    settings: commit_graph::Settings,
    config: &[&str],
) {
    let objdir = r.objects();
    let mut args: Vec<&str> = config.to_vec();
    args.extend([
        "commit-graph",
        "verify",
        "--object-dir",
        objdir.to_str().unwrap_or(""),
        "--no-progress",
    ]);
    let o = r.git(&args);
    let objects = r.all_objects();
    let ours = commit_graph::verify_with::<Selected>(
        &objdir,
        format,
        settings,
        &mut read_commit(&objects),
    );
    assert_eq!(
        set(&ours),
        lines(&o.stderr),
        "git exit {:?}",
        o.status.code()
    );
    assert_eq!(ours.failed, !o.status.success());
}

/// `git multi-pack-index verify` against ours.
fn compare_midx(r: &Repo, format: ObjectFormat) {
    let objdir = r.objects();
    let o = r.git(&[
        "multi-pack-index",
        "verify",
        "--object-dir",
        objdir.to_str().unwrap_or(""),
        "--no-progress",
    ]);
    let mut entries: HashMap<String, HashMap<Vec<u8>, u64>> = HashMap::new();
    for pack in r.packs() {
        let idx = pack.with_extension("idx");
        let name = idx
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        entries.insert(name, r.idx_entries(&pack).into_iter().collect());
    }
    let ours = midx::verify::<Selected>(&objdir, format, &mut |idx, id| {
        let name = idx.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match entries.get(name) {
            None => midx::PackEntry::Unusable(Vec::new()),
            Some(m) => m
                .get(id)
                .map_or(midx::PackEntry::NotInIndex, |&o| midx::PackEntry::Offset(o)),
        }
    });
    assert_eq!(
        set(&ours),
        lines(&o.stderr),
        "git exit {:?}",
        o.status.code()
    );
    assert_eq!(ours.failed, !o.status.success());
}

/// The offset of chunk `id` in a chunk-format file whose table starts at `toc`.
fn chunk_offset(data: &[u8], toc: usize, id: &[u8; 4]) -> usize {
    let mut at = toc;
    while &data[at..at + 4] != b"\0\0\0\0" {
        if &data[at..at + 4] == id {
            let mut o = [0u8; 8];
            o.copy_from_slice(&data[at + 4..at + 12]);
            return u64::from_be_bytes(o) as usize;
        }
        at += 12;
    }
    panic!("no chunk {id:?}");
}

fn packed_repo(format: ObjectFormat) -> Repo {
    let r = Repo::new(format);
    r.commits(4, "a");
    r.ok(&["-c", "pack.writeReverseIndex=true", "repack", "-adbq"]);
    r
}

#[test]
fn reverse_indexes() {
    if !have_git("verify_files::reverse_indexes") {
        return;
    }
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let r = packed_repo(format);
        let ours = check_revs(&r, format);
        assert_eq!(ours, Outcome::default());
        compare_fsck(
            &r,
            &ours,
            0o100,
            &["rev-index", "reverse-index", "invalid checksum"],
        );
        let rev_file = r.packs()[0].with_extension("rev");
        let len = fs::metadata(&rev_file)
            .map(|m| m.len() as usize)
            .unwrap_or(0);
        // A checksum byte, a position, the hash id, the signature, truncation.
        for (i, damage) in [len - 1, 12 + 4 + 3, 11, 0, usize::MAX, 13]
            .into_iter()
            .enumerate()
        {
            let r = packed_repo(format);
            let rev_file = r.packs()[0].with_extension("rev");
            if damage == usize::MAX {
                truncate(&rev_file, len - 1);
            } else if i == 5 {
                truncate(&rev_file, damage);
            } else {
                flip(&rev_file, damage);
            }
            let ours = check_revs(&r, format);
            assert!(ours.failed, "damage {damage}");
            compare_fsck(
                &r,
                &ours,
                0o100,
                &["rev-index", "reverse-index", "invalid checksum"],
            );
        }
    }
}

#[test]
fn bitmaps() {
    if !have_git("verify_files::bitmaps") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let r = packed_repo(format);
    r.ok(&["multi-pack-index", "write", "--bitmap"]);
    let ours = check_bitmaps(&r, format);
    assert_eq!(ours, Outcome::default());
    compare_fsck(&r, &ours, 0o200, &["bitmap"]);
    let pack_bitmap = r.packs()[0].with_extension("bitmap");
    flip(&pack_bitmap, 30);
    let midx_bytes = fs::read(midx::midx_path(&r.objects())).expect("midx");
    let midx_bitmap = r
        .dir
        .join(midx::bitmap_path(Path::new(".git/objects"), &midx_bytes, format).expect("path"));
    truncate(&midx_bitmap, 10);
    let ours = check_bitmaps(&r, format);
    assert_eq!(ours.lines.len(), 2, "{ours:?}");
    compare_fsck(&r, &ours, 0o200, &["bitmap"]);
}

fn graph_repo(format: ObjectFormat) -> Repo {
    let r = Repo::new(format);
    r.commits(3, "a");
    r.ok(&["checkout", "-qb", "side", "HEAD~1"]);
    r.commits(2, "b");
    r.ok(&["checkout", "-q", "-"]);
    r.ok(&["merge", "-q", "--no-edit", "side"]);
    r.ok(&["commit-graph", "write", "--reachable"]);
    r
}

#[test]
fn commit_graph_single() {
    if !have_git("verify_files::commit_graph_single") {
        return;
    }
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let r = graph_repo(format);
        compare_commit_graph(&r, format);
        let path = commit_graph::graph_path(&r.objects());
        let data = fs::read(&path).expect("graph");
        let cdat = chunk_offset(&data, 8, b"CDAT");
        let oidl = chunk_offset(&data, 8, b"OIDL");
        let gda2 = chunk_offset(&data, 8, b"GDA2");
        let hl = format.raw_len();
        let damages: Vec<Damage> = vec![
            Box::new(move |p| flip(p, data.len() - 1)),
            // Root tree, first parent, date, generation of commit 0.
            Box::new(move |p| flip(p, cdat + 2)),
            Box::new(move |p| flip(p, cdat + hl + 3)),
            Box::new(move |p| flip(p, cdat + hl + 15)),
            Box::new(move |p| flip(p, cdat + hl + 8)),
            Box::new(move |p| flip(p, gda2 + 3)),
            // An id (order and the object database).
            Box::new(move |p| flip(p, oidl + hl + 1)),
            Box::new(move |p| flip(p, oidl)),
            Box::new(move |p| flip(p, 8 + 4 * 12 + 5)),
            Box::new(move |p| flip(p, 0)),
            Box::new(|p| truncate(p, 100)),
            Box::new(|p| truncate(p, 1200)),
        ];
        for damage in &damages {
            let r = graph_repo(format);
            damage(&commit_graph::graph_path(&r.objects()));
            compare_commit_graph(&r, format);
        }
    }
}

#[test]
fn commit_graph_split() {
    if !have_git("verify_files::commit_graph_split") {
        return;
    }
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        commit_graph_split_in(format);
    }
}

fn commit_graph_split_in(format: ObjectFormat) {
    let make = || {
        let r = Repo::new(format);
        r.commits(3, "a");
        r.ok(&["commit-graph", "write", "--reachable", "--split"]);
        r.commits(2, "b");
        r.ok(&["commit-graph", "write", "--reachable", "--split=no-merge"]);
        r
    };
    let r = make();
    compare_commit_graph(&r, format);
    let layers = |r: &Repo| {
        let chain = fs::read_to_string(commit_graph::chain_path(&r.objects())).expect("chain");
        chain
            .lines()
            .map(|l| {
                r.objects()
                    .join(format!("info/commit-graphs/graph-{l}.graph"))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(layers(&r).len(), 2);
    for (layer, at) in [(1usize, usize::MAX), (0, usize::MAX), (1, 1100), (0, 1100)] {
        let r = make();
        let path = layers(&r)[layer].clone();
        let len = fs::metadata(&path).map(|m| m.len() as usize).unwrap_or(0);
        flip(&path, if at == usize::MAX { len - 1 } else { at });
        compare_commit_graph(&r, format);
    }
    // A missing layer, a chain line that is not a hash.
    let r = make();
    fs::remove_file(&layers(&r)[0]).expect("rm");
    compare_commit_graph(&r, format);
    let r = make();
    let chain = commit_graph::chain_path(&r.objects());
    let text = fs::read_to_string(&chain).expect("chain");
    write(
        &chain,
        text.replacen('a', "x", 1)
            .replacen(|c: char| c.is_ascii_digit(), "z", 1)
            .as_bytes(),
    );
    compare_commit_graph(&r, format);
}

fn midx_repo(format: ObjectFormat) -> Repo {
    let r = Repo::new(format);
    r.commits(3, "a");
    r.ok(&["repack", "-dq"]);
    r.commits(2, "b");
    r.ok(&["repack", "-dq"]);
    r.ok(&["multi-pack-index", "write"]);
    r
}

#[test]
fn multi_pack_index() {
    if !have_git("verify_files::multi_pack_index") {
        return;
    }
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let r = midx_repo(format);
        assert_eq!(r.packs().len(), 2);
        compare_midx(&r, format);
        let data = fs::read(midx::midx_path(&r.objects())).expect("midx");
        let ooff = chunk_offset(&data, 12, b"OOFF");
        let oidl = chunk_offset(&data, 12, b"OIDL");
        let hl = format.raw_len();
        let len = data.len();
        let damages: Vec<RepoDamage> = vec![
            Box::new(move |_, p| flip(p, len - 1)),
            Box::new(move |_, p| flip(p, ooff + 7)),
            Box::new(move |_, p| flip(p, ooff + 3)),
            Box::new(move |_, p| flip(p, oidl + hl + 2)),
            Box::new(move |_, p| flip(p, oidl)),
            Box::new(|_, p| flip(p, 0)),
            Box::new(|_, p| flip(p, 5)),
            Box::new(|_, p| truncate(p, 20)),
            Box::new(move |_, p| truncate(p, len - 1)),
            Box::new(|r, _| {
                let pack = r.packs()[0].clone();
                fs::remove_file(&pack).expect("rm pack");
            }),
        ];
        for damage in &damages {
            let r = midx_repo(format);
            damage(&r, &midx::midx_path(&r.objects()));
            compare_midx(&r, format);
        }
    }
}

#[test]
fn files_are_named_as_git_names_them() {
    assert_eq!(rev::rev_path("a/pack-1.pack"), "a/pack-1.rev");
    assert!(verify::commit_graph::graph_path(Path::new("o")).ends_with("info/commit-graph"));
}

#[test]
fn commit_graph_generation_versions() {
    if !have_git("verify_files::commit_graph_generation_versions") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let v1 = commit_graph::Settings {
        generation_version: 1,
        ..commit_graph::Settings::default()
    };
    // Topological levels only (no GDA2 chunk), verified with either setting.
    let make_v1 = || {
        let r = graph_repo(format);
        r.ok(&[
            "-c",
            "commitGraph.generationVersion=1",
            "commit-graph",
            "write",
            "--reachable",
        ]);
        r
    };
    let r = make_v1();
    compare_commit_graph(&r, format);
    compare_commit_graph_with(&r, format, v1, &["-c", "commitGraph.generationVersion=1"]);
    let data = fs::read(commit_graph::graph_path(&r.objects())).expect("graph");
    assert!(!data.windows(4).any(|w| w == b"GDA2") || chunk_offset(&data, 8, b"CDAT") > 0);
    let cdat = chunk_offset(&data, 8, b"CDAT");
    for at in [cdat + 20 + 8, cdat + 20 + 11, cdat + 36 + 20 + 11] {
        let r = make_v1();
        flip(&commit_graph::graph_path(&r.objects()), at);
        compare_commit_graph(&r, format);
    }
    // Corrected commit dates, read as topological levels when the setting says 1.
    let r = graph_repo(format);
    compare_commit_graph_with(&r, format, v1, &["-c", "commitGraph.generationVersion=1"]);
    let cdat = chunk_offset(
        &fs::read(commit_graph::graph_path(&r.objects())).expect("graph"),
        8,
        b"CDAT",
    );
    flip(&commit_graph::graph_path(&r.objects()), cdat + 20 + 11);
    compare_commit_graph_with(&r, format, v1, &["-c", "commitGraph.generationVersion=1"]);
}

#[test]
fn commit_graph_overflow_generations() {
    if !have_git("verify_files::commit_graph_overflow_generations") {
        return;
    }
    let format = ObjectFormat::Sha1;
    // A commit dated long before its parent: its corrected date's offset needs the GDO2 chunk.
    let make = || {
        let r = Repo::new(format);
        fs::write(r.dir.join("a"), "a\n").expect("write");
        r.ok(&["add", "."]);
        let o = r.git_at(&["commit", "-qm", "late"], "4000000000 +0000");
        assert!(o.status.success());
        fs::write(r.dir.join("b"), "b\n").expect("write");
        r.ok(&["add", "."]);
        let o = r.git_at(&["commit", "-qm", "early"], "@100 +0000");
        assert!(o.status.success());
        r.ok(&["commit-graph", "write", "--reachable"]);
        r
    };
    let r = make();
    compare_commit_graph(&r, format);
    let path = commit_graph::graph_path(&r.objects());
    let data = fs::read(&path).expect("graph");
    let gdo2 = chunk_offset(&data, 8, b"GDO2");
    let gda2 = chunk_offset(&data, 8, b"GDA2");
    for at in [gdo2 + 7, gdo2 + 3, gda2, gda2 + 4, gda2 + 3, gda2 + 7] {
        let r = make();
        flip(&commit_graph::graph_path(&r.objects()), at);
        compare_commit_graph(&r, format);
    }
}

/// `git fsck` loads the multi-pack-index and the commit-graph itself, besides running their
/// verify commands: its lines are both sets.
#[test]
fn fsck_loads_midx_and_commit_graph() {
    if !have_git("verify_files::fsck_loads_midx_and_commit_graph") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let rel = Path::new(".git/objects");
    let midx_damages: [fn(&Path); 4] = [
        |p| flip(p, 5),
        |p| truncate(p, 20),
        |p| flip(p, 0),
        |p| {
            let len = fs::metadata(p).map(|m| m.len() as usize).unwrap_or(0);
            flip(p, len - 1);
        },
    ];
    for damage in midx_damages {
        let r = midx_repo(format);
        let path = midx::midx_path(&r.objects());
        damage(&path);
        let load = midx::load_lines(&r.objects(), rel, format).outcome;
        let (theirs, rc) = r.fsck();
        if load.failed {
            assert_eq!(set(&load), theirs);
            assert_eq!(rc, 128);
            continue;
        }
        let ours = midx::verify::<Selected>(&r.objects(), format, &mut |_, _| {
            midx::PackEntry::NotInIndex
        });
        let mut all = set(&load);
        if ours.failed {
            // The offsets are not compared here: only the load and checksum lines.
            all.extend(
                ours.lines
                    .iter()
                    .filter(|l| !l.starts_with("incorrect object offset"))
                    .cloned(),
            );
        }
        let theirs: BTreeSet<String> = theirs
            .into_iter()
            .filter(|l| !l.starts_with("incorrect object offset"))
            .collect();
        assert_eq!(all, theirs);
        assert_eq!(rc & 0o40 != 0, ours.failed);
    }
    for (n, at) in [
        (100usize, None),
        (1200, None),
        (0, Some(0usize)),
        (0, Some(6)),
    ] {
        let r = graph_repo(format);
        let path = commit_graph::graph_path(&r.objects());
        match at {
            Some(at) => flip(&path, at),
            None => truncate(&path, n),
        }
        let load = commit_graph::load_lines::<Selected>(
            &[r.objects().as_path()],
            format,
            commit_graph::Settings::default(),
        );
        assert!(!load.failed);
        let objects = r.all_objects();
        let ours =
            commit_graph::verify::<Selected>(&r.objects(), format, &mut read_commit(&objects));
        let mut all = set(&load);
        all.extend(ours.lines.iter().cloned());
        let (theirs, rc) = r.fsck();
        assert_eq!(all, theirs);
        assert_eq!(rc & 0o20 != 0, ours.failed);
    }
}

#[test]
fn commit_graph_octopus_and_zero_generations() {
    if !have_git("verify_files::commit_graph_octopus_and_zero_generations") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let make = |v1: bool| {
        let r = Repo::new(format);
        r.commits(1, "base");
        r.ok(&["tag", "start"]);
        for b in ["x", "y", "z"] {
            r.ok(&["checkout", "-qb", b, "start"]);
            r.commits(1, b);
        }
        r.ok(&["checkout", "-qb", "top", "start"]);
        r.ok(&["merge", "-q", "--no-edit", "x", "y", "z"]);
        let version = if v1 {
            "commitGraph.generationVersion=1"
        } else {
            "commitGraph.generationVersion=2"
        };
        r.ok(&["-c", version, "commit-graph", "write", "--reachable"]);
        r
    };
    let r = make(false);
    compare_commit_graph(&r, format);
    let data = fs::read(commit_graph::graph_path(&r.objects())).expect("graph");
    let edge = chunk_offset(&data, 8, b"EDGE");
    let cdat = chunk_offset(&data, 8, b"CDAT");
    let n = (chunk_offset(&data, 8, b"GDA2") - cdat) / 36;
    // The octopus merge's row: the one whose second parent word has the extra-edges bit.
    let octopus = (0..n)
        .find(|i| data[cdat + 36 * i + 24] & 0x80 != 0)
        .expect("an octopus merge");
    for (at, mask) in [
        (edge, 0x40),
        (edge + 3, 0x40),
        (edge + 3, 0x01),
        (edge + 7, 0x01),
        (edge + 4, 0x80),
        (cdat + 36 * octopus + 27, 0x40),
        (cdat + 36 * octopus + 24, 0x80),
    ] {
        let r = make(false);
        flip_bits(&commit_graph::graph_path(&r.objects()), at, mask);
        compare_commit_graph(&r, format);
    }
    // Zero generations (as git before generation numbers wrote them), for one commit or all.
    for rows in [vec![0usize], (0..n).collect()] {
        let r = make(true);
        let path = commit_graph::graph_path(&r.objects());
        let mut b = fs::read(&path).expect("graph");
        let cdat = chunk_offset(&b, 8, b"CDAT");
        for i in &rows {
            let at = cdat + 36 * i + 28;
            b[at] = 0;
            b[at + 1] = 0;
            b[at + 2] = 0;
            b[at + 3] &= 3;
        }
        write(&path, &b);
        compare_commit_graph(&r, format);
    }
}

/// One random change: a few bytes xored, or a truncation.
fn mutate(rng: &mut Rng, original: &[u8]) -> Vec<u8> {
    let mut b = original.to_vec();
    if rng.below(5) == 0 {
        b.truncate(rng.below(b.len()));
        return b;
    }
    for _ in 0..=rng.below(3) {
        let at = rng.below(b.len());
        b[at] ^= 1 << rng.below(8);
    }
    b
}

/// Random changes to each file, every one compared with git's verify command.
#[test]
fn random_damage_matches_git() {
    if !have_git("verify_files::random_damage_matches_git") {
        return;
    }
    let mut rng = Rng(0x005e_ed0f_f5c4);
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let r = graph_repo(format);
        let path = commit_graph::graph_path(&r.objects());
        let original = fs::read(&path).expect("graph");
        for _ in 0..60 {
            write(&path, &mutate(&mut rng, &original));
            compare_commit_graph(&r, format);
        }
        let r = midx_repo(format);
        let path = midx::midx_path(&r.objects());
        let original = fs::read(&path).expect("midx");
        for _ in 0..60 {
            write(&path, &mutate(&mut rng, &original));
            compare_midx(&r, format);
        }
    }
    let format = ObjectFormat::Sha1;
    let r = Repo::new(format);
    r.commits(3, "a");
    r.ok(&["commit-graph", "write", "--reachable", "--split"]);
    r.commits(2, "b");
    r.ok(&["commit-graph", "write", "--reachable", "--split=no-merge"]);
    let chain = fs::read_to_string(commit_graph::chain_path(&r.objects())).expect("chain");
    let layers: Vec<PathBuf> = chain
        .lines()
        .map(|l| {
            r.objects()
                .join(format!("info/commit-graphs/graph-{l}.graph"))
        })
        .collect();
    let originals: Vec<Vec<u8>> = layers.iter().map(|p| fs::read(p).expect("layer")).collect();
    for _ in 0..60 {
        let k = rng.below(layers.len());
        write(&layers[k], &mutate(&mut rng, &originals[k]));
        compare_commit_graph(&r, format);
        write(&layers[k], &originals[k]);
    }
}

/// Random changes to a reverse index and to a bitmap, compared with `git fsck`.
#[test]
fn random_rev_and_bitmap_damage_matches_fsck() {
    if !have_git("verify_files::random_rev_and_bitmap_damage_matches_fsck") {
        return;
    }
    let mut rng = Rng(0x00b1_73a9);
    let format = ObjectFormat::Sha1;
    let r = packed_repo(format);
    let pack = r.packs()[0].clone();
    let rev_file = pack.with_extension("rev");
    let bitmap_file = pack.with_extension("bitmap");
    let rev_original = fs::read(&rev_file).expect("rev");
    let bitmap_original = fs::read(&bitmap_file).expect("bitmap");
    for _ in 0..40 {
        write(&rev_file, &mutate(&mut rng, &rev_original));
        let ours = check_revs(&r, format);
        compare_fsck(
            &r,
            &ours,
            0o100,
            &["rev-index", "reverse-index", "invalid checksum"],
        );
    }
    write(&rev_file, &rev_original);
    for _ in 0..10 {
        write(&bitmap_file, &mutate(&mut rng, &bitmap_original));
        let ours = check_bitmaps(&r, format);
        compare_fsck(&r, &ours, 0o200, &["bitmap"]);
    }
}

/// A split chain in an alternate object directory, its layers found in the repository's own
/// object directory first.
#[test]
fn commit_graph_chain_in_alternate() {
    if !have_git("verify_files::commit_graph_chain_in_alternate") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let make = || {
        let a = Repo::new(format);
        a.commits(3, "a");
        a.ok(&["commit-graph", "write", "--reachable", "--split"]);
        a.commits(2, "b");
        a.ok(&["commit-graph", "write", "--reachable", "--split=no-merge"]);
        let b = Repo::new(format);
        let alt = b.objects().join("info/alternates");
        fs::write(&alt, format!("{}\n", a.objects().display())).expect("alternates");
        (a, b)
    };
    let compare = |a: &Repo, b: &Repo| {
        let o = b.git(&[
            "commit-graph",
            "verify",
            "--object-dir",
            a.objects().to_str().unwrap_or(""),
            "--no-progress",
        ]);
        let objects = b.all_objects();
        let (ao, bo) = (a.objects(), b.objects());
        let ours = commit_graph::verify_in::<Selected>(
            &ao,
            &[bo.as_path(), ao.as_path()],
            format,
            commit_graph::Settings::default(),
            &mut read_commit(&objects),
            flagsplit::progress::Progress::OFF,
        );
        assert_eq!(
            set(&ours),
            lines(&o.stderr),
            "git exit {:?}",
            o.status.code()
        );
        assert_eq!(ours.failed, !o.status.success());
    };
    let (a, b) = make();
    compare(&a, &b);
    let layer_of = |a: &Repo, k: usize| {
        let chain = fs::read_to_string(commit_graph::chain_path(&a.objects())).expect("chain");
        let name = chain.lines().nth(k).unwrap_or("").to_string();
        format!("info/commit-graphs/graph-{name}.graph")
    };
    // The base layer moved to the repository's own object directory.
    let (a, b) = make();
    let rel = layer_of(&a, 0);
    fs::create_dir_all(b.objects().join("info/commit-graphs")).expect("mkdir");
    fs::rename(a.objects().join(&rel), b.objects().join(&rel)).expect("move");
    compare(&a, &b);
    // A damaged copy in the repository's own directory and the sound one in the alternate's.
    let (a, b) = make();
    let rel = layer_of(&a, 1);
    fs::create_dir_all(b.objects().join("info/commit-graphs")).expect("mkdir");
    fs::copy(a.objects().join(&rel), b.objects().join(&rel)).expect("copy");
    truncate(&b.objects().join(&rel), 200);
    compare(&a, &b);
    let (a, b) = make();
    let rel = layer_of(&a, 1);
    fs::create_dir_all(b.objects().join("info/commit-graphs")).expect("mkdir");
    fs::copy(a.objects().join(&rel), b.objects().join(&rel)).expect("copy");
    let len = fs::metadata(b.objects().join(&rel))
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    flip(&b.objects().join(&rel), len - 1);
    compare(&a, &b);
}

/// Three packs, each added to an incremental multi-pack-index chain; the layers base first.
fn midx_chain_repo(format: ObjectFormat) -> (Repo, Vec<PathBuf>) {
    let r = Repo::new(format);
    for tag in ["a", "b", "c"] {
        r.commits(2, tag);
        r.ok(&["repack", "-dq"]);
        r.ok(&["multi-pack-index", "write", "--incremental"]);
    }
    let chain = fs::read_to_string(midx::chain_path(&r.objects())).expect("chain");
    let layers = chain
        .lines()
        .map(|l| {
            r.objects()
                .join(format!("pack/multi-pack-index.d/multi-pack-index-{l}.midx"))
        })
        .collect();
    (r, layers)
}

#[test]
fn multi_pack_index_chain() {
    if !have_git("verify_files::multi_pack_index_chain") {
        return;
    }
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let (r, layers) = midx_chain_repo(format);
        assert_eq!(layers.len(), 3);
        assert!(!midx::midx_path(&r.objects()).exists());
        compare_midx(&r, format);
        let hl = format.raw_len();
        for k in 0..3 {
            let data = fs::read(&layers[k]).expect("layer");
            let ooff = chunk_offset(&data, 12, b"OOFF");
            let oidl = chunk_offset(&data, 12, b"OIDL");
            let len = data.len();
            for damage in [len - 1, ooff + 7, ooff + 3, oidl, oidl + hl + 2, 0, 5] {
                let (r, layers) = midx_chain_repo(format);
                flip(&layers[k], damage);
                compare_midx(&r, format);
            }
            let (r, layers) = midx_chain_repo(format);
            fs::remove_file(&layers[k]).expect("rm");
            compare_midx(&r, format);
        }
        // A chain line that is not a hash, a chain file too small, an empty one.
        for text in ["xyz\n", "0123\n", ""] {
            let (r, _) = midx_chain_repo(format);
            let chain = midx::chain_path(&r.objects());
            let mut t = fs::read_to_string(&chain).expect("chain");
            if text.len() > 4 {
                t = t.replacen(|c: char| c.is_ascii_hexdigit(), "x", 1);
            } else {
                t = text.to_string();
            }
            write(&chain, t.as_bytes());
            compare_midx(&r, format);
        }
        // What `git fsck` prints loading the chain itself, and its bitmap of the tip.
        let (r, layers) = midx_chain_repo(format);
        flip(&layers[2], 5);
        let load = midx::load_lines(&r.objects(), Path::new(".git/objects"), format);
        let (theirs, _) = r.fsck();
        assert!(set(&load.outcome).is_subset(&theirs), "{load:?} {theirs:?}");
        assert!(!load.outcome.lines.is_empty());
    }
    let mut rng = Rng(0x00c4_a1e5);
    let format = ObjectFormat::Sha1;
    let (r, layers) = midx_chain_repo(format);
    let originals: Vec<Vec<u8>> = layers.iter().map(|p| fs::read(p).expect("layer")).collect();
    for _ in 0..60 {
        let k = rng.below(layers.len());
        write(&layers[k], &mutate(&mut rng, &originals[k]));
        compare_midx(&r, format);
        write(&layers[k], &originals[k]);
    }
}

/// A pack whose header disagrees with its index: git's own lines about it come from the caller.
#[test]
fn multi_pack_index_unusable_pack() {
    if !have_git("verify_files::multi_pack_index_unusable_pack") {
        return;
    }
    let format = ObjectFormat::Sha1;
    let r = midx_repo(format);
    let pack = r.packs()[0].clone();
    flip_bits(&pack, 11, 0x08);
    let o = r.git(&[
        "multi-pack-index",
        "verify",
        "--object-dir",
        r.objects().to_str().unwrap_or(""),
        "--no-progress",
    ]);
    let mut entries: HashMap<String, HashMap<Vec<u8>, u64>> = HashMap::new();
    for p in r.packs() {
        let idx = p.with_extension("idx");
        let name = idx
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        entries.insert(name, r.idx_entries(&p).into_iter().collect());
    }
    let broken = pack
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    let ours = midx::verify::<Selected>(&r.objects(), format, &mut |idx, id| {
        let name = idx.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let m = &entries[name];
        if name.strip_suffix(".idx") == broken.strip_suffix(".pack") {
            let header = fs::read(idx.with_extension("pack")).expect("pack");
            let claimed = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
            return midx::PackEntry::Unusable(vec![format!(
                "error: packfile {} claims to have {claimed} objects while index indicates {} objects",
                idx.with_extension("pack").display(),
                m.len()
            )]);
        }
        m.get(id)
            .map_or(midx::PackEntry::NotInIndex, |&o| midx::PackEntry::Offset(o))
    });
    assert!(ours.lines.iter().any(|l| l.starts_with("error: packfile")));
    assert_eq!(set(&ours), lines(&o.stderr));
    assert_eq!(ours.failed, !o.status.success());
}

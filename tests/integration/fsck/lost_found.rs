//! `fsck --lost-found`, the one write fsck makes, against git 2.47's.
//!
//! A repository with dangling commits (one only in HEAD's reflog, which `--lost-found` ignores),
//! trees, blobs (a binary one, one packed as a delta) and tags is copied twice; git runs on one
//! copy and flagsplit on the other, with each option that changes what is written, and the exit
//! status, the lines (each as many times as it comes) and the two `lost-found/` trees (names,
//! modes and bytes) must be the same. Also: a copy mounted read-only (git's lines and status, with
//! and without `lost-found/` there), a run killed while it writes a 256 MiB blob (no file named
//! by an id is left partial; the next run removes what it left), and a blob that cannot be read
//! (git's death, with its word for the error).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::{command, git_version, subject};
use crate::support;

/// Runs git in `dir` with the corpus's environment; its stdout, trimmed.
fn git(root: &Path, dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut c = command(root, "git");
    c.args(args).current_dir(dir);
    let out = match stdin {
        None => c.output().expect("run git"),
        Some(input) => {
            use std::io::Write;
            c.stdin(Stdio::piped()).stdout(Stdio::piped());
            let mut child = c.spawn().expect("run git");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input)
                .expect("write to git");
            child.wait_with_output().expect("git")
        }
    };
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// git 2.47 and the flagsplit under test, or why the test cannot run.
fn programs(test: &str) -> Option<String> {
    let version = git_version().unwrap_or_default();
    if !version.starts_with("2.47.") {
        support::skip(
            test,
            &format!("needs git 2.47.x as the oracle (found {version:?})"),
        );
        return None;
    }
    let s = subject();
    if s.is_none() {
        support::skip(test, "flagsplit has no fsck in this build");
    }
    s
}

/// A repository whose dangling objects are of every type, loose and packed.
fn build(root: &Path) -> PathBuf {
    let r = root.join("repo");
    fs::create_dir_all(&r).expect("mkdir");
    git(root, &r, &["init", "-q", "-b", "main"], None);
    fs::write(r.join("file1"), "").expect("write");
    git(root, &r, &["add", "file1"], None);
    git(root, &r, &["commit", "-q", "-m", "initial"], None);
    fs::write(r.join("file1"), "1\n").expect("write");
    fs::write(r.join("file2"), "2\n").expect("write");
    git(root, &r, &["add", "file1", "file2"], None);
    git(root, &r, &["commit", "-q", "-m", "second"], None);
    // Dangling with --lost-found only: HEAD's reflog still names it.
    git(root, &r, &["reset", "-q", "--hard", "HEAD^"], None);
    // A dangling commit on a branch deleted (its reflog goes with it).
    git(root, &r, &["checkout", "-q", "-b", "gone"], None);
    fs::write(r.join("file3"), "3\n").expect("write");
    git(root, &r, &["add", "file3"], None);
    git(root, &r, &["commit", "-q", "-m", "gone"], None);
    git(root, &r, &["checkout", "-q", "main"], None);
    git(root, &r, &["branch", "-q", "-D", "gone"], None);
    // A dangling tag (its commit then used by it).
    git(root, &r, &["tag", "-a", "-m", "a tag", "t", "HEAD"], None);
    git(root, &r, &["update-ref", "-d", "refs/tags/t"], None);
    // Dangling trees and blobs, loose: an empty tree, a tree naming a new blob, a binary blob.
    git(root, &r, &["mktree"], Some(b""));
    let named = git(
        root,
        &r,
        &["hash-object", "-w", "--stdin"],
        Some(b"named\n"),
    );
    let entry = format!("100644 blob {named}\tnamed\n");
    git(root, &r, &["mktree"], Some(entry.as_bytes()));
    let binary: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
    git(root, &r, &["hash-object", "-w", "--stdin"], Some(&binary));
    // Packed: a blob and a delta of it, both dangling.
    let mut base: Vec<u8> = (0..3000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let a = git(root, &r, &["hash-object", "-w", "--stdin"], Some(&base));
    base.extend_from_slice(b"one more line\n");
    let b = git(root, &r, &["hash-object", "-w", "--stdin"], Some(&base));
    git(
        root,
        &r,
        &["pack-objects", "-q", ".git/objects/pack/pack"],
        Some(format!("{a}\n{b}\n").as_bytes()),
    );
    git(root, &r, &["prune-packed"], None);
    r
}

/// A file or directory under `lost-found/`: its mode and, for a file, its bytes.
type Tree = BTreeMap<String, (u32, Option<Vec<u8>>)>;

fn tree(dir: &Path) -> Tree {
    fn walk(dir: &Path, prefix: &str, out: &mut Tree) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.expect("read_dir");
            let name = format!("{prefix}{}", e.file_name().to_string_lossy());
            let meta = fs::symlink_metadata(e.path()).expect("stat");
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                out.insert(name.clone(), (mode, None));
                walk(&e.path(), &format!("{name}/"), out);
            } else {
                out.insert(name, (mode, Some(fs::read(e.path()).expect("read"))));
            }
        }
    }
    let mut out = Tree::new();
    walk(dir, "", &mut out);
    out
}

fn describe(t: &Tree) -> String {
    t.iter()
        .map(|(k, (mode, bytes))| match bytes {
            None => format!("{k}/ {mode:o}\n"),
            Some(b) => format!("{k} {mode:o} {} bytes\n", b.len()),
        })
        .collect()
}

/// Status and lines (sorted, each as many times as printed), the copy's path written `$DIR`.
fn result(out: &Output, dir: &Path) -> (Option<i32>, Vec<String>, Vec<String>) {
    let d = dir.to_string_lossy();
    let lines = |b: &[u8]| {
        let mut v: Vec<String> = String::from_utf8_lossy(b)
            .lines()
            .filter(|l| !l.starts_with(super::NOT_CHECKED))
            .map(|l| l.replace(&*d, "$DIR"))
            .collect();
        v.sort();
        v
    };
    (out.status.code(), lines(&out.stdout), lines(&out.stderr))
}

fn copy(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp");
    assert!(st.success(), "cp -a {} {}", from.display(), to.display());
}

fn fsck(root: &Path, program: &str, dir: &Path, args: &[&str]) -> Output {
    command(root, program)
        .arg("fsck")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run fsck")
}

/// Every option that changes what `--lost-found` writes or prints, on all cores, one thread and
/// without delta trees: git's lines, status and `lost-found/` tree.
#[test]
fn lost_found_matches_git() {
    let Some(flagsplit) = programs("lost_found_matches_git") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonicalize");
    let repo = build(&root);
    let optionsets: &[&[&str]] = &[
        &["--lost-found"],
        &["--lost-found", "--no-dangling"],
        &["--lost-found", "--name-objects"],
        &["--lost-found", "--connectivity-only"],
        &["--lost-found", "--no-full", "--reflogs"],
        &["--lost-found", "--unreachable"],
        &["--lost-found", "--root", "--tags"],
        &["--lost-found", "--no-lost-found"],
    ];
    let mut failures = Vec::new();
    let mut written = 0;
    for (n, opts) in optionsets.iter().enumerate() {
        for extra in [&[][..], &["--threads", "1"], &["--low-memory"]] {
            let theirs = root.join(format!("git-{n}-{}", extra.len()));
            let ours = root.join(format!("flagsplit-{n}-{}", extra.len()));
            copy(&repo, &theirs);
            copy(&repo, &ours);
            // A second run over a tree already there overwrites its files.
            let rounds = if n == 0 && extra.is_empty() { 2 } else { 1 };
            for _ in 0..rounds {
                let g = fsck(&root, "git", &theirs, opts);
                let mut args = opts.to_vec();
                args.extend_from_slice(extra);
                let f = fsck(&root, &flagsplit, &ours, &args);
                let (want, got) = (result(&g, &theirs), result(&f, &ours));
                if want != got {
                    failures.push(format!("fsck {args:?}: git {want:?}\n  flagsplit {got:?}"));
                }
            }
            let (want, got) = (
                tree(&theirs.join(".git/lost-found")),
                tree(&ours.join(".git/lost-found")),
            );
            if want != got {
                failures.push(format!(
                    "fsck {opts:?} {extra:?}: lost-found differs\n git:\n{}flagsplit:\n{}",
                    describe(&want),
                    describe(&got)
                ));
            }
            written += want.values().filter(|(_, b)| b.is_some()).count();
            let _ = fs::remove_dir_all(&theirs);
            let _ = fs::remove_dir_all(&ours);
        }
    }
    // core.sharedRepository: the directories git makes get its modes (adjust_shared_perm); a
    // filemode the owner cannot write is git's fatal error.
    for shared in ["group", "everybody", "0640", "0600", "0440", "true"] {
        let theirs = root.join(format!("git-shared-{shared}"));
        let ours = root.join(format!("flagsplit-shared-{shared}"));
        copy(&repo, &theirs);
        copy(&repo, &ours);
        for dir in [&theirs, &ours] {
            git(
                &root,
                dir,
                &["config", "core.sharedRepository", shared],
                None,
            );
        }
        let g = fsck(&root, "git", &theirs, &["--lost-found"]);
        let f = fsck(&root, &flagsplit, &ours, &["--lost-found"]);
        let (want, got) = (result(&g, &theirs), result(&f, &ours));
        if want != got {
            failures.push(format!(
                "core.sharedRepository={shared}: git {want:?}\n  flagsplit {got:?}"
            ));
        }
        let (want, got) = (
            tree(&theirs.join(".git/lost-found")),
            tree(&ours.join(".git/lost-found")),
        );
        if want != got {
            failures.push(format!(
                "core.sharedRepository={shared}: lost-found differs\n git:\n{}flagsplit:\n{}",
                describe(&want),
                describe(&got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The repository has dangling objects of every type: the runs must have written some.
    assert!(written > 0, "no run wrote a file");
    let all = tree(&{
        let d = root.join("check");
        copy(&repo, &d);
        fsck(&root, &flagsplit, &d, &["--lost-found"]);
        d.join(".git/lost-found")
    });
    for want in ["commit/", "other/"] {
        assert!(
            all.keys().any(|k| k.starts_with(want)),
            "no file under {want}:\n{}",
            describe(&all)
        );
    }
}

/// Whether this process may make a mount namespace and bind-mount in it (root, `unshare`).
fn can_mount(root: &Path) -> bool {
    let d = root.join("probe");
    fs::create_dir_all(&d).expect("mkdir");
    let script = "mount --bind -o ro \"$1\" \"$1\" && ! touch \"$1/x\" 2>/dev/null";
    Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(&d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `fsck ARGS` by `program` in `dir` bind-mounted read-only (in a mount namespace of its own).
fn fsck_read_only(root: &Path, program: &str, dir: &Path, args: &[&str]) -> Output {
    let script = "mount --bind -o ro \"$1\" \"$1\" && cd \"$1\" && shift && exec \"$@\"";
    let mut c = command(root, "unshare");
    c.args(["-m", "sh", "-c", script, "sh"])
        .arg(dir)
        .arg(program)
        .arg("fsck")
        .args(args)
        .current_dir(root);
    c.output().expect("run unshare")
}

/// On a read-only copy: without `lost-found/`, git's `error: could not create lost-found` for each
/// object and its status; with the directories there, git's death on the file it cannot open.
#[test]
fn lost_found_read_only() {
    let Some(flagsplit) = programs("lost_found_read_only") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonicalize");
    if !can_mount(&root) {
        // Not every machine that runs the tests may mount (a container, a user without root).
        support::skip_optional(
            "lost_found_read_only",
            "cannot bind-mount read-only in a mount namespace (needs root and unshare)",
        );
        return;
    }
    let repo = build(&root);
    // One dangling object, so that git's death names the one file either program tries first.
    let single = root.join("single");
    fs::create_dir_all(&single).expect("mkdir");
    git(&root, &single, &["init", "-q"], None);
    git(
        &root,
        &single,
        &["hash-object", "-w", "--stdin"],
        Some(b"alone\n"),
    );
    for d in ["commit", "other"] {
        fs::create_dir_all(single.join(".git/lost-found").join(d)).expect("mkdir");
    }
    let mut failures = Vec::new();
    for (dir, want_status) in [(&repo, 0), (&single, 128)] {
        let g = fsck_read_only(&root, "git", dir, &["--lost-found"]);
        let f = fsck_read_only(&root, &flagsplit, dir, &["--lost-found"]);
        let (want, got) = (result(&g, dir), result(&f, dir));
        assert_eq!(want.0, Some(want_status), "git: {want:?}");
        if want != got {
            failures.push(format!(
                "{}: git {want:?}\n  flagsplit {got:?}",
                dir.display()
            ));
        }
        let errors = want
            .2
            .iter()
            .filter(|l| l.starts_with("error: could not create"))
            .count();
        let fatal = want.2.iter().any(|l| l.contains("Read-only file system"));
        assert!(
            errors > 1 || fatal,
            "git wrote on a read-only mount? {want:?}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Killed while it writes a dangling blob of 256 MiB: no file named by an id is left, only the
/// temporary file, which the next `--lost-found` run removes as it writes the whole blob.
#[test]
fn lost_found_killed_while_writing() {
    let Some(flagsplit) = programs("lost_found_killed_while_writing") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonicalize");
    let r = root.join("big");
    fs::create_dir_all(&r).expect("mkdir");
    git(&root, &r, &["init", "-q"], None);
    // 256 MiB that deflate well (the loose object is small), unlike any other blob.
    const SIZE: usize = 256 << 20;
    let mut pattern: Vec<u8> = (0..65_536u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    pattern.extend_from_slice(b"end of block\n");
    let content: Vec<u8> = pattern.iter().copied().cycle().take(SIZE).collect();
    let file = root.join("blob");
    fs::write(&file, &content).expect("write");
    drop(content);
    let file_arg = file.to_string_lossy().into_owned();
    let id = git(&root, &r, &["hash-object", "-w", &file_arg], None);
    let lost = r.join(".git/lost-found");
    let other = lost.join("other");
    fs::create_dir_all(&other).expect("mkdir");
    let by_id = other.join(&id);
    // The temporary file that has bytes in it: writing has started.
    let writing = |lost: &Path| -> Option<PathBuf> {
        fs::read_dir(lost).ok()?.flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            (name.starts_with(".tmp-") && len > 0).then(|| e.path())
        })
    };
    let mut killed_at = None;
    for _attempt in 0..5 {
        let mut child = command(&root, &flagsplit)
            .args(["fsck", "--lost-found", "--threads", "1"])
            .current_dir(&r)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run fsck");
        let started = Instant::now();
        let mut seen = None;
        while started.elapsed() < Duration::from_secs(300) {
            if let Some(p) = writing(&lost) {
                seen = Some(p);
                break;
            }
            if child.try_wait().expect("wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = child.kill();
        let _ = child.wait();
        if let Some(p) = seen
            && p.exists()
            && !by_id.exists()
        {
            killed_at = Some(fs::metadata(&p).map(|m| m.len()).unwrap_or(0));
            break;
        }
        let _ = fs::remove_file(&by_id);
    }
    let Some(len) = killed_at else {
        panic!("never caught fsck while it wrote the blob (5 runs)");
    };
    assert!(
        !by_id.exists(),
        "a partial file named by the id after the kill"
    );
    let leftovers: Vec<String> = fs::read_dir(&lost)
        .expect("read_dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(
        !leftovers.is_empty(),
        "the kill left no temporary file ({len} bytes seen)"
    );
    let out = command(&root, &flagsplit)
        .args(["fsck", "--lost-found"])
        .current_dir(&r)
        .output()
        .expect("run fsck");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let left: Vec<String> = fs::read_dir(&lost)
        .expect("read_dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(left.is_empty(), "the next run left {left:?}");
    assert_eq!(
        fs::metadata(&by_id).expect("the blob's file").len(),
        SIZE as u64
    );
    let by_id_arg = by_id.to_string_lossy().into_owned();
    assert_eq!(git(&root, &r, &["hash-object", &by_id_arg], None), id);
}

/// A dangling blob that cannot be streamed (`--connectivity-only` reads nothing before, and the
/// end of its loose file is damaged): git's zlib line and its death `could not write 'PATH':
/// STRERROR`, with git's status. git leaves an empty file named by the id; flagsplit leaves no
/// file named by an id, and no temporary file.
#[test]
fn lost_found_unreadable_blob_dies_as_git() {
    let Some(flagsplit) = programs("lost_found_unreadable_blob_dies_as_git") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonicalize");
    let r = root.join("base");
    fs::create_dir_all(&r).expect("mkdir");
    git(&root, &r, &["init", "-q"], None);
    git(
        &root,
        &r,
        &["commit", "-q", "--allow-empty", "-m", "one"],
        None,
    );
    // Bytes that do not deflate much: the damage lands in the deflated data, past the header.
    let content: Vec<u8> = (0..6000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let id = git(&root, &r, &["hash-object", "-w", "--stdin"], Some(&content));
    let file = r.join(format!(".git/objects/{}/{}", &id[..2], &id[2..]));
    let mut bytes = fs::read(&file).expect("read the loose object");
    let at = bytes.len() - 40;
    for b in &mut bytes[at..at + 16] {
        *b ^= 0x5a;
    }
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).expect("chmod");
    fs::write(&file, &bytes).expect("damage the loose object");
    let (g, s) = (root.join("git"), root.join("flagsplit"));
    copy(&r, &g);
    copy(&r, &s);
    let args = ["--connectivity-only", "--lost-found"];
    let want = fsck(&root, "git", &g, &args);
    let got = fsck(&root, &flagsplit, &s, &args);
    let (want_r, got_r) = (result(&want, &g), result(&got, &s));
    assert_eq!(got_r, want_r, "flagsplit's status and lines are not git's");
    assert_eq!(want.status.code(), Some(128), "{want:?}");
    assert!(
        want_r
            .2
            .iter()
            .any(|l| l.starts_with("fatal: could not write '")
                && l.ends_with(": No such file or directory")),
        "{want_r:?}"
    );
    let other = |d: &Path| d.join(".git/lost-found/other");
    assert!(other(&g).join(&id).exists(), "git wrote no file by the id");
    let left: Vec<String> = fs::read_dir(other(&s))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "flagsplit left {left:?}");
    let tmps: Vec<String> = fs::read_dir(s.join(".git/lost-found"))
        .expect("lost-found")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(tmps.is_empty(), "flagsplit left {tmps:?}");
}

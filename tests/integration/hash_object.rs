//! `flagsplit hash-object` against `git hash-object` as the oracle: blobs of every shape, many
//! files in parallel, `--stdin`, `--stdin-paths` (including as a coprocess), well-formed commits,
//! trees and tags taken from a real repository, malformed ones refused by both, errors, and the
//! public collision files.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{self, Rng};

const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

/// Whether git runs; when it does not, `test` is skipped (a failure under CI=true).
fn have_git(test: &str) -> bool {
    let ok = support::runs("git", &["--version"]);
    if !ok {
        support::skip(
            test,
            "git not found; hash-object cannot be compared with it",
        );
    }
    ok
}

/// Runs a command in `dir` with git's environment neutralised (no repository above `dir`, no
/// config).
fn run(dir: &Path, program: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
    run_below(dir.parent().unwrap_or(dir), dir, program, args, stdin)
}

/// [`run`], looking for a repository up to (not into) `ceiling`.
fn run_below(ceiling: &Path, dir: &Path, program: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", ceiling)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    out
}

fn flagsplit(dir: &Path, args: &[&OsStr], stdin: &[u8]) -> Output {
    let mut full: Vec<&OsStr> = vec![OsStr::new("hash-object")];
    full.extend_from_slice(args);
    run(dir, FLAGSPLIT, &full, stdin)
}

fn git(dir: &Path, args: &[&OsStr], stdin: &[u8]) -> Output {
    let mut full: Vec<&OsStr> = vec![OsStr::new("hash-object")];
    full.extend_from_slice(args);
    run(dir, "git", &full, stdin)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Both succeed with the same stdout.
fn same_ids(dir: &Path, args: &[&OsStr], stdin: &[u8]) -> String {
    let f = flagsplit(dir, args, stdin);
    let g = git(dir, args, stdin);
    assert!(
        g.status.success(),
        "git failed on {args:?}: {}",
        String::from_utf8_lossy(&g.stderr)
    );
    assert!(
        f.status.success(),
        "flagsplit failed on {args:?}: {}",
        String::from_utf8_lossy(&f.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&f.stdout),
        String::from_utf8_lossy(&g.stdout),
        "ids differ for {args:?}"
    );
    String::from_utf8_lossy(&f.stdout).into_owned()
}

/// Deterministic pseudo-random bytes (the shared generator).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    Rng(seed).bytes(len)
}

/// A corpus: an empty file, text, binary, sizes around the small-file fast path, a large file, a
/// name with spaces and one with a newline.
fn corpus(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut add = |name: &[u8], data: &[u8]| {
        let p = dir.join(OsStr::from_bytes(name));
        fs::write(&p, data).expect("write");
        files.push(p);
    };
    add(b"empty", b"");
    add(b"text", b"hello\nworld\n");
    add(b"binary", &noise(10_000, 1));
    add(b"fast-path-edge", &noise(64 * 1024, 2));
    add(b"fast-path-edge+1", &noise(64 * 1024 + 1, 3));
    add(b"large", &noise(5 * 1024 * 1024 + 7, 4));
    add(b"with space", b"x");
    add(b"new\nline", b"y");
    add(b"back\\slash", b"z");
    files
}

#[test]
fn blobs_equal_gits() {
    if !have_git("blobs_equal_gits") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let files = corpus(tmp.path());
    // One file at a time, then all at once (the parallel path), in input order.
    for f in &files {
        same_ids(tmp.path(), &[f.as_os_str()], b"");
    }
    let all: Vec<&OsStr> = files.iter().map(|p| p.as_os_str()).collect();
    let ids = same_ids(tmp.path(), &all, b"");
    assert_eq!(ids.lines().count(), files.len());
    // --stdin, from a pipe, small and large (the large one is spooled to a temporary file).
    for f in &files {
        let data = fs::read(f).expect("read");
        same_ids(tmp.path(), &[os("--stdin")], &data);
    }
    // --stdin together with files: stdin first.
    same_ids(tmp.path(), &[os("--stdin"), all[1], all[2]], b"from stdin");
    // --no-filters is accepted.
    same_ids(tmp.path(), &[os("--no-filters"), all[1]], b"");
}

/// Standard input larger than what is kept in memory: from a regular file (streamed, its size is
/// known) and from a pipe (spooled to a temporary file).
#[test]
fn large_stdin_from_a_file_and_from_a_pipe() {
    if !have_git("large_stdin_from_a_file_and_from_a_pipe") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let big = tmp.path().join("big");
    fs::write(&big, noise(17 * 1024 * 1024, 9)).expect("write");
    let id = |program: &str| {
        let out = Command::new(program)
            .args(["hash-object", "--stdin"])
            .current_dir(tmp.path())
            .stdin(fs::File::open(&big).expect("open"))
            .output()
            .expect("run");
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(id(FLAGSPLIT), id("git"));
    let data = fs::read(&big).expect("read");
    same_ids(tmp.path(), &[os("--stdin")], &data);
}

#[test]
fn many_small_files_via_stdin_paths() {
    if !have_git("many_small_files_via_stdin_paths") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut list = Vec::new();
    for i in 0..3000usize {
        let name = format!("f{i:04}");
        fs::write(tmp.path().join(&name), noise(i * 37 % 9000, i as u64)).expect("write");
        list.extend_from_slice(name.as_bytes());
        list.push(b'\n');
    }
    // A C-quoted name, as git quotes names, and a name with a space.
    fs::write(tmp.path().join("tab\there"), b"t").expect("write");
    list.extend_from_slice(b"\"tab\\there\"\n");
    fs::write(tmp.path().join("sp ace"), b"s").expect("write");
    list.extend_from_slice(b"sp ace\n");
    let ids = same_ids(tmp.path(), &[os("--stdin-paths")], &list);
    assert_eq!(ids.lines().count(), 3002);
}

/// `flagsplit hash-object --stdin-paths` in `dir`, driven as a coprocess: for each round, writes
/// its paths in one write and reads one id per path while standard input stays open. Returns the
/// ids in order. A guard kills the child after a minute (a deadlock guard only, not a speed
/// limit): an id not flushed while stdin is open would otherwise block `read_line` forever.
fn ask_as_coprocess(dir: &Path, rounds: &[&[&str]]) -> String {
    let mut child = Command::new(FLAGSPLIT)
        .args(["hash-object", "--stdin-paths"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let guard = std::thread::spawn(move || {
        if done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_err()
        {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    });
    let mut answers = String::new();
    for paths in rounds {
        let lines: String = paths.iter().map(|p| format!("{p}\n")).collect();
        input.write_all(lines.as_bytes()).expect("write paths");
        input.flush().expect("flush");
        for name in *paths {
            let mut line = String::new();
            output.read_line(&mut line).expect("read id");
            assert_eq!(
                line.len(),
                41,
                "no id came back for {name} while stdin was open: {line:?}"
            );
            answers.push_str(&line);
        }
    }
    let _ = done_tx.send(());
    guard.join().expect("guard");
    drop(input);
    assert!(child.wait().expect("wait").success());
    answers
}

#[test]
fn stdin_paths_answers_each_path_as_a_coprocess() {
    if !have_git("stdin_paths_answers_each_path_as_a_coprocess") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("one"), b"1").expect("write");
    fs::write(tmp.path().join("two"), b"2").expect("write");
    let answers = ask_as_coprocess(tmp.path(), &[&["one"], &["two"]]);
    let expected = same_ids(tmp.path(), &[os("one"), os("two")], b"");
    assert_eq!(answers, expected);
}

/// Commits (root, normal, merge, with encoding and a multi-line message), trees (nested, every
/// mode) and tags (annotated, of a tree, of a tag) from a real repository: the id of each object's
/// content is the object's id, as a file and from stdin, for flagsplit and git alike.
#[test]
fn well_formed_commits_trees_and_tags() {
    if !have_git("well_formed_commits_trees_and_tags") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    let sh = |script: &str| {
        let out = Command::new("sh")
            .arg("-ec")
            .arg(script)
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "A U Thor")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "C O Mitter")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com")
            .env("GIT_AUTHOR_DATE", "1700000000 +0130")
            .env("GIT_COMMITTER_DATE", "1700000100 -0700")
            .output()
            .expect("sh");
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    fs::create_dir(&repo).expect("mkdir");
    sh("git init -q -b main .
        echo one > a; mkdir -p d/e; echo two > d/e/b; echo x > 'a.b'; mkdir a0; echo y > a0/c
        printf '#!/bin/sh\\n' > run; chmod +x run; ln -s a link
        git add -A; git commit -q -m root
        git checkout -q -b side; echo side > s; git add s; git commit -q -m side
        git checkout -q main; echo more >> a; git commit -q -am 'second

body line
'
        git merge -q --no-edit side
        git -c i18n.commitEncoding=ISO-8859-1 commit -q --allow-empty -m 'encoded'
        git tag -a -m 'a tag' v1
        git tag -a -m 'tag of a tree' vt HEAD^{tree}
        git tag -a -m 'tag of a tag' vtt v1
        git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,sub
        git commit -q -m 'with a gitlink'");
    let objects =
        sh("git cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)'");
    let mut checked = 0;
    for line in objects.lines() {
        let (id, kind) = line.split_once(' ').expect("id type");
        let content = Command::new("git")
            .args(["cat-file", kind, id])
            .current_dir(&repo)
            .output()
            .expect("cat-file")
            .stdout;
        let out = same_ids(tmp.path(), &[os("-t"), os(kind), os("--stdin")], &content);
        assert_eq!(out.trim(), id, "{kind} {id}");
        let file = tmp.path().join(format!("obj-{id}"));
        fs::write(&file, &content).expect("write");
        same_ids(tmp.path(), &[os("-t"), os(kind), file.as_os_str()], b"");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} objects");
}

/// Malformed commits, trees and tags: git refuses each, and so does flagsplit, with a message
/// and a non-zero exit.
#[test]
fn malformed_objects_are_refused_by_both() {
    if !have_git("malformed_objects_are_refused_by_both") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let id = "0123456789abcdef0123456789abcdef01234567";
    let ident = "A <a@b> 1700000000 +0000";
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("commit", b"junk".to_vec()),
        ("commit", format!("tree {id}\n\nno author\n").into_bytes()),
        (
            "commit",
            format!("tree 1234\nauthor {ident}\ncommitter {ident}\n\nm\n").into_bytes(),
        ),
        (
            "commit",
            format!("tree {id}\nauthor A a@b 1 +0000\ncommitter {ident}\n\nm\n").into_bytes(),
        ),
        (
            "commit",
            format!("tree {id}\nauthor {ident}\ncommitter A <a@b> x +0000\n\nm\n").into_bytes(),
        ),
        (
            "commit",
            format!("parent {id}\ntree {id}\nauthor {ident}\ncommitter {ident}\n\nm\n")
                .into_bytes(),
        ),
        ("tag", format!("object {id}\ntype blob\n\nm\n").into_bytes()),
        (
            "tag",
            format!("object {id}\ntype nope\ntag v\n\nm\n").into_bytes(),
        ),
        ("tag", b"type commit\n".to_vec()),
        ("tree", b"100644 a\0short".to_vec()),
        ("tree", b"100644 \0aaaaaaaaaaaaaaaaaaaa".to_vec()),
        (
            "tree",
            b"100644 b\0aaaaaaaaaaaaaaaaaaaa100644 a\0aaaaaaaaaaaaaaaaaaaa".to_vec(),
        ),
        (
            "tree",
            b"100644 a\0aaaaaaaaaaaaaaaaaaaa100644 a\0aaaaaaaaaaaaaaaaaaaa".to_vec(),
        ),
        ("tree", b"100644 x/y\0aaaaaaaaaaaaaaaaaaaa".to_vec()),
        ("tree", b"no-space".to_vec()),
    ];
    for (kind, content) in cases {
        let args = [os("-t"), os(kind), os("--stdin")];
        let g = git(tmp.path(), &args, &content);
        let f = flagsplit(tmp.path(), &args, &content);
        assert!(!g.status.success(), "git accepted {kind} {content:?}");
        assert!(!f.status.success(), "flagsplit accepted {kind} {content:?}");
        let err = String::from_utf8_lossy(&f.stderr);
        assert!(err.contains("malformed"), "{err}");
        assert!(f.stdout.is_empty());
    }
}

#[test]
fn errors_like_git() {
    if !have_git("errors_like_git") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("a"), b"a").expect("write");
    fs::create_dir(tmp.path().join("dir")).expect("mkdir");
    // A missing file after a good one: the good id is printed, then git's message, exit 128.
    for args in [vec![os("a"), os("missing")], vec![os("dir")]] {
        let g = git(tmp.path(), &args, b"");
        let f = flagsplit(tmp.path(), &args, b"");
        assert_eq!(f.status.code(), g.status.code(), "{args:?}");
        assert_eq!(f.stdout, g.stdout, "{args:?}");
        let (ge, fe) = (
            String::from_utf8_lossy(&g.stderr),
            String::from_utf8_lossy(&f.stderr),
        );
        assert_eq!(
            fe.replace("flagsplit hash-object: ", ""),
            ge.to_string(),
            "{args:?}"
        );
    }
    let g = git(tmp.path(), &[os("--stdin-paths")], b"a\nmissing\na\n");
    let f = flagsplit(tmp.path(), &[os("--stdin-paths")], b"a\nmissing\na\n");
    assert_eq!(f.status.code(), g.status.code());
    assert_eq!(f.stdout, g.stdout);
    // Usage errors exit 129 like git's; an unknown type is fatal (128).
    for args in [
        vec![os("--stdin-paths"), os("a")],
        vec![os("--stdin"), os("--stdin-paths")],
        vec![os("-w"), os("a")],
    ] {
        let f = flagsplit(tmp.path(), &args, b"");
        assert_eq!(f.status.code(), Some(129), "{args:?}");
    }
    let g = git(tmp.path(), &[os("-t"), os("blob2"), os("a")], b"");
    let f = flagsplit(tmp.path(), &[os("-t"), os("blob2"), os("a")], b"");
    assert_eq!(f.status.code(), g.status.code());
}

/// The public collision files are not collisions once git's object header is prepended (the
/// colliding blocks move), so git hashes them, and so must flagsplit, to the same ids.
#[test]
fn collision_files_hash_as_git_hashes_them() {
    if !have_git("collision_files_hash_as_git_hashes_them") {
        return;
    }
    let Some(dir) = support::collisions_dir("collision_files_hash_as_git_hashes_them") else {
        return;
    };
    let mut names: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    let args: Vec<&OsStr> = names.iter().map(|p| p.as_os_str()).collect();
    let ids = same_ids(&dir, &args, b"");
    assert_eq!(ids.lines().count(), names.len());
}

/// git's version as (major, minor), when git runs.
fn git_version() -> Option<(u32, u32)> {
    let out = Command::new("git").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.trim().strip_prefix("git version ")?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Whether git is 2.47 or later (whose hash-object runs fsck's checks); when it is not, `test`
/// is skipped (a failure under CI=true).
fn have_checking_git(test: &str) -> bool {
    match git_version() {
        Some(v) if v >= (2, 47) => true,
        found => {
            support::skip(
                test,
                &format!(
                    "git {found:?} is older than 2.47; only the recorded verdicts are compared"
                ),
            );
            false
        }
    }
}

/// One recorded case of tests/hash-object-corpus (see scripts/hash-object-corpus.sh).
struct Case {
    name: String,
    obj: PathBuf,
    kind: String,
    sha256: bool,
    expected: String,
}

fn corpus_cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hash-object-corpus");
    let mut cases: Vec<Case> = fs::read_dir(&dir)
        .expect("tests/hash-object-corpus")
        .filter_map(|e| {
            let path = e.expect("entry").path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(".expected")?
                .to_string();
            let read = |ext: &str| fs::read_to_string(dir.join(format!("{name}.{ext}")));
            Some(Case {
                obj: dir.join(format!("{name}.obj")),
                kind: read("type").expect("type").trim().to_string(),
                sha256: read("format").is_ok_and(|f| f.trim() == "sha256"),
                expected: read("expected").expect("expected"),
                name,
            })
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(cases.len() >= 150, "only {} corpus cases", cases.len());
    cases
}

/// A run in the corpus's form: `status N`, `id HEX` or `id -`, then standard error with
/// flagsplit's program prefix taken off each line.
fn verdict(out: &Output) -> String {
    let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let stderr: String = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| {
            format!(
                "{}\n",
                l.strip_prefix("flagsplit hash-object: ").unwrap_or(l)
            )
        })
        .collect();
    format!(
        "status {}\nid {}\n{stderr}",
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        if id.is_empty() { "-" } else { &id }
    )
}

fn run_stdin_file(dir: &Path, program: &str, args: &[&str], input: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .stdin(fs::File::open(input).expect("open corpus object"))
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// Every recorded verdict of git 2.47 (accept or refuse, id, messages, status) is flagsplit's.
/// Needs no git.
#[test]
fn corpus_matches_recorded_git_verdicts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for case in corpus_cases() {
        let mut args = vec!["hash-object", "-t", &case.kind, "--stdin"];
        if case.sha256 {
            args.push("--object-format=sha256");
        }
        let got = verdict(&run_stdin_file(tmp.path(), FLAGSPLIT, &args, &case.obj));
        if got != case.expected {
            failures.push(format!(
                "{}:\n--- git 2.47 (recorded)\n{}--- flagsplit\n{got}",
                case.name, case.expected
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The recorded verdicts are still git's (when git 2.47 or later is installed), and flagsplit
/// finds the SHA-256 format from the repository as git does.
#[test]
fn corpus_matches_live_git() {
    if !have_checking_git("corpus_matches_live_git") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let outside = tmp.path().join("outside");
    let sha256 = tmp.path().join("sha256");
    fs::create_dir(&outside).expect("mkdir");
    let init = run(
        tmp.path(),
        "git",
        &[
            os("init"),
            os("-q"),
            os("--object-format=sha256"),
            sha256.as_os_str(),
        ],
        b"",
    );
    assert!(init.status.success());
    let mut failures = Vec::new();
    for case in corpus_cases() {
        let dir = if case.sha256 { &sha256 } else { &outside };
        let args = ["hash-object", "-t", &case.kind, "--stdin"];
        let g = verdict(&run_stdin_file(dir, "git", &args, &case.obj));
        let f = verdict(&run_stdin_file(dir, FLAGSPLIT, &args, &case.obj));
        if g != case.expected || f != g {
            failures.push(format!(
                "{}:\n--- recorded\n{}--- git now\n{g}--- flagsplit\n{f}",
                case.name, case.expected
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// git's option conventions: usage errors exit 129, `-h` prints the usage on standard output
/// and exits 129, `--stdin` twice is refused.
#[test]
fn usage_errors_exit_129() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for args in [
        vec!["--bogus"],
        vec!["-t"],
        vec!["--stdin-paths=x"],
        vec!["--stdin", "--stdin"],
        vec!["--object-format=md5", "--stdin"],
    ] {
        let args: Vec<&OsStr> = args.iter().map(|a| os(a)).collect();
        let f = flagsplit(tmp.path(), &args, b"x\n");
        assert_eq!(f.status.code(), Some(129), "{args:?}");
        assert!(f.stdout.is_empty(), "{args:?}");
    }
    let f = flagsplit(tmp.path(), &[os("--stdin"), os("--stdin")], b"x\n");
    assert!(
        String::from_utf8_lossy(&f.stderr).contains("Multiple --stdin arguments are not supported")
    );
    let h = flagsplit(tmp.path(), &[os("-h")], b"");
    assert_eq!(h.status.code(), Some(129));
    assert!(String::from_utf8_lossy(&h.stdout).starts_with("Usage: flagsplit hash-object"));
    let help = flagsplit(tmp.path(), &[os("--help")], b"");
    assert_eq!(help.status.code(), Some(0));
    assert_eq!(help.stdout, h.stdout);
}

/// A reader that goes away is not success: 141, as git (killed by SIGPIPE) ends.
#[test]
fn broken_pipe_is_not_success() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("a"), b"a").expect("write");
    let mut child = Command::new(FLAGSPLIT)
        .args(["hash-object", "--stdin-paths"])
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = child.stdout.take().expect("stdout");
    input.write_all(b"a\n").expect("write path");
    input.flush().expect("flush");
    let mut first = [0u8; 10];
    std::io::Read::read_exact(&mut output, &mut first).expect("first id");
    // The first path's id came; now the reader goes away.
    drop(output);
    let writer = std::thread::spawn(move || {
        for _ in 0..200_000 {
            if input.write_all(b"a\n").is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(141));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A special file whose size reads as 0 (`/proc/version`) is the empty blob, as a path and as
/// standard input, as git hashes it; through a pipe its content is hashed.
#[test]
fn special_files_hash_as_git_hashes_them() {
    let proc_version = Path::new("/proc/version");
    if !proc_version.exists() {
        support::skip_optional("special_files_hash_as_git_hashes_them", "no /proc/version");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n";
    let f = flagsplit(tmp.path(), &[proc_version.as_os_str()], b"");
    assert_eq!(String::from_utf8_lossy(&f.stdout), empty);
    let f = run_stdin_file(
        tmp.path(),
        FLAGSPLIT,
        &["hash-object", "--stdin"],
        proc_version,
    );
    assert_eq!(String::from_utf8_lossy(&f.stdout), empty);
    assert!(f.status.success());
    if have_git("special_files_hash_as_git_hashes_them") {
        let g = run_stdin_file(tmp.path(), "git", &["hash-object", "--stdin"], proc_version);
        assert_eq!(f.stdout, g.stdout);
        let content = fs::read(proc_version).expect("read");
        same_ids(tmp.path(), &[os("--stdin")], &content);
    }
}

/// `--literally`: any type name, and no checks, to the ids git gives.
#[test]
fn literally_like_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let long_type = "1234567890".repeat(150);
    let cases: Vec<(Vec<&str>, &[u8])> = vec![
        (
            vec!["-t", "1234567890", "--literally", "--stdin"],
            b"example\n",
        ),
        (
            vec!["-t", &long_type, "--literally", "--stdin"],
            b"example\n",
        ),
        (vec!["-t", "tree", "--literally", "--stdin"], b"abc\n"),
        (vec!["-t", "commit", "--literally", "--stdin"], b""),
        (vec!["--literally", "--stdin"], b"blob\n"),
    ];
    // Recorded from git 2.47.3.
    let recorded = [
        "f78b23c3f872d473c764d5fcf4fb39af8bbf2123",
        "2a881776ee43e849175ee7158075560ca0ae7692",
        "b7d8234f4ffb20232219f0cad8cf77096787cb7c",
        "dcf5b16e76cce7425d0beaef62d79a7d10fce1f5",
        "63499e4ea8e096b831515ceb1d5a7593e4d87ae5",
    ];
    let git = have_git("literally_like_git");
    for ((args, input), want) in cases.iter().zip(recorded) {
        let args: Vec<&OsStr> = args.iter().map(|a| os(a)).collect();
        let f = flagsplit(tmp.path(), &args, input);
        assert!(
            f.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&f.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&f.stdout).trim(), want);
        if git {
            same_ids(tmp.path(), &args, input);
        }
    }
}

/// In a repository made by `git init --object-format=sha256`, from its top and from a
/// subdirectory, through a `.git` file and through GIT_DIR, the ids are git's SHA-256 ones; the
/// same content outside gets SHA-1 ids, and `--object-format` overrides both ways.
#[test]
fn sha256_repository_ids_are_gits() {
    if !have_git("sha256_repository_ids_are_gits") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("repo");
    let init = run(
        tmp.path(),
        "git",
        &[
            os("init"),
            os("-q"),
            os("--object-format=sha256"),
            repo.as_os_str(),
        ],
        b"",
    );
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let sub = repo.join("sub/dir");
    fs::create_dir_all(&sub).expect("mkdir");
    let files = corpus(&sub);
    let all: Vec<&OsStr> = files.iter().map(|p| p.as_os_str()).collect();
    let both = |dir: &Path, args: &[&OsStr], input: &[u8]| {
        let mut full: Vec<&OsStr> = vec![os("hash-object")];
        full.extend_from_slice(args);
        let f = run_below(tmp.path(), dir, FLAGSPLIT, &full, input);
        let g = run_below(tmp.path(), dir, "git", &full, input);
        assert!(g.status.success() && f.status.success(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&f.stdout),
            String::from_utf8_lossy(&g.stdout),
            "{args:?} in {}",
            dir.display()
        );
        String::from_utf8_lossy(&f.stdout).into_owned()
    };
    for dir in [&repo, &sub] {
        let ids = both(dir, &all, b"");
        assert!(ids.lines().all(|l| l.len() == 64), "{ids}");
        both(dir, &[os("--stdin")], b"hello\n");
    }
    // Well-formed objects of a SHA-256 repository (32-byte ids in trees) hash to their ids.
    let sh = |script: &str| {
        let out = Command::new("sh")
            .arg("-ec")
            .arg(script)
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "C")
            .env("GIT_COMMITTER_EMAIL", "c@example.com")
            .output()
            .expect("sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    sh(
        "git add -A && git commit -q -m one && git tag -a -m t v1 && echo x > y && git add y && git commit -q -m two",
    );
    let objects =
        sh("git cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)'");
    for line in objects.lines() {
        let (id, kind) = line.split_once(' ').expect("id type");
        let content = sh(&format!("git cat-file {kind} {id} | od -An -tx1 -v"));
        let bytes: Vec<u8> = content
            .split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).expect("hex"))
            .collect();
        let out = both(&repo, &[os("-t"), os(kind), os("--stdin")], &bytes);
        assert_eq!(out.trim(), id, "{kind}");
    }
    // A worktree-like `.git` file pointing at the repository.
    let linked = tmp.path().join("linked");
    fs::create_dir(&linked).expect("mkdir");
    fs::write(
        linked.join(".git"),
        format!("gitdir: {}\n", repo.join(".git").display()),
    )
    .expect("write");
    let f = run_below(
        tmp.path(),
        &linked,
        FLAGSPLIT,
        &[os("hash-object"), os("--stdin")],
        b"hello\n",
    );
    let g = run_below(
        tmp.path(),
        &repo,
        "git",
        &[os("hash-object"), os("--stdin")],
        b"hello\n",
    );
    assert_eq!(f.stdout, g.stdout);
    // Outside: SHA-1; --object-format overrides in both directions.
    let outside = tmp.path().join("outside");
    fs::create_dir(&outside).expect("mkdir");
    let sha1 = flagsplit(&outside, &[os("--stdin")], b"hello\n");
    assert_eq!(String::from_utf8_lossy(&sha1.stdout).trim().len(), 40);
    let forced = flagsplit(
        &outside,
        &[os("--object-format=sha256"), os("--stdin")],
        b"hello\n",
    );
    assert_eq!(forced.stdout, g.stdout);
    let back = run_below(
        tmp.path(),
        &repo,
        FLAGSPLIT,
        &[os("hash-object"), os("--object-format=sha1"), os("--stdin")],
        b"hello\n",
    );
    assert_eq!(String::from_utf8_lossy(&f.stdout).trim().len(), 64);
    assert_eq!(back.stdout, sha1.stdout);
}

/// Large files next to each other and between small ones (a worker that meets a large file hands
/// the paths behind it to another worker): the ids still come in input order, as git's; a
/// missing file right after two large ones still ends the run after exactly the ids before it.
#[test]
fn large_files_among_small_ones_keep_input_order() {
    if !have_git("large_files_among_small_ones_keep_input_order") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut names = Vec::new();
    for i in 0..700usize {
        // Runs of large files (1–3 MiB) at batch boundaries and inside batches.
        let large = matches!(i % 97, 0..=2) || i % 64 == 63 || i % 64 == 0;
        let len = if large {
            (1 << 20) + i * 4099 % (2 << 20)
        } else {
            i * 31 % 5000
        };
        let name = format!("f{i:03}");
        fs::write(tmp.path().join(&name), noise(len, i as u64 + 7)).expect("write");
        names.push(name);
    }
    let list: String = names.iter().map(|n| format!("{n}\n")).collect();
    let ids = same_ids(tmp.path(), &[os("--stdin-paths")], list.as_bytes());
    assert_eq!(ids.lines().count(), names.len());
    // The same paths on the command line.
    let args: Vec<&OsStr> = names.iter().map(OsStr::new).collect();
    assert_eq!(same_ids(tmp.path(), &args, b""), ids);
    // A missing path right after two large files, then more of both kinds.
    let mut broken = names[..290].to_vec();
    broken.push("missing".into());
    broken.extend_from_slice(&names[290..]);
    let list: String = broken.iter().map(|n| format!("{n}\n")).collect();
    let g = git(tmp.path(), &[os("--stdin-paths")], list.as_bytes());
    let f = flagsplit(tmp.path(), &[os("--stdin-paths")], list.as_bytes());
    assert_eq!(f.status.code(), g.status.code());
    assert_eq!(f.stdout, g.stdout);
    assert_eq!(String::from_utf8_lossy(&f.stdout).lines().count(), 290);
}

/// A coprocess that writes a large file's path and a small one's together and then waits for both
/// ids: the worker holding them cannot hand the small one back while another worker waits for the
/// next line, and must not wait for it either.
#[test]
fn stdin_paths_coprocess_with_large_files() {
    if !have_git("stdin_paths_coprocess_with_large_files") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut names = Vec::new();
    for i in 0..40usize {
        let (big, small) = (format!("big{i}"), format!("small{i}"));
        fs::write(tmp.path().join(&big), noise((1 << 20) + i, i as u64)).expect("write");
        fs::write(tmp.path().join(&small), noise(i * 10, i as u64 + 100)).expect("write");
        names.push((big, small));
    }
    let rounds: Vec<[&str; 2]> = names
        .iter()
        .map(|(b, s)| [b.as_str(), s.as_str()])
        .collect();
    let rounds: Vec<&[&str]> = rounds.iter().map(|r| &r[..]).collect();
    let answers = ask_as_coprocess(tmp.path(), &rounds);
    let all: Vec<&OsStr> = names
        .iter()
        .flat_map(|(b, s)| [OsStr::new(b), OsStr::new(s)])
        .collect();
    assert_eq!(answers, same_ids(tmp.path(), &all, b""));
}

/// The files the recorded option cases name, in the directory they run in.
fn option_files(dir: &Path) {
    let files: [(&[u8], &[u8]); 11] = [
        (b"hello", b"hello"),
        (b"x", b"x"),
        (b"a\tb", b"ab"),
        (b"n\nl", b"n"),
        (b"q\"q", b"q"),
        (b"b\\s", b"b"),
        (b"\x01", b"o"),
        (b"c\r", b"c"),
        (b" s", b"s"),
        (b"hello\" x", b"e"),
        (b"-", b"dash"),
    ];
    for (name, data) in files {
        fs::write(dir.join(OsStr::from_bytes(name)), data).expect("write");
    }
}

/// What a run of one recorded case showed: the exit status, standard output (`usage` when it is
/// the usage, whose text is each program's own), and the first line of standard error without
/// flagsplit's program prefix.
fn observed(out: &Output) -> (i32, String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stdout = if stdout.starts_with("usage: git hash-object")
        || stdout.starts_with("Usage: flagsplit hash-object")
    {
        "usage".to_string()
    } else {
        stdout.into_owned()
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or("");
    (
        out.status.code().unwrap_or(-1),
        stdout,
        first
            .strip_prefix("flagsplit hash-object: ")
            .unwrap_or(first)
            .to_string(),
    )
}

/// git's option rules (abbreviations, `--no-` forms, `--`, `-h`, bundles, the messages and 129)
/// and its reading of `--stdin-paths` lines (CR before LF, a NUL ends the name, what follows a
/// closing quote is ignored, escapes): flagsplit against git 2.47.3's recorded results, and the
/// recording against the installed git when it is 2.47 or later.
#[test]
fn options_and_stdin_paths_lines_like_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    option_files(tmp.path());
    let live = have_checking_git("options_and_stdin_paths_lines_like_git");
    let mut failures = Vec::new();
    for case in RECORDED_OPTIONS {
        let args: Vec<&OsStr> = case.args.iter().map(|a| os(a)).collect();
        let want = (
            case.status,
            case.stdout.to_string(),
            case.stderr.to_string(),
        );
        let f = observed(&flagsplit(tmp.path(), &args, case.stdin));
        if f != want {
            failures.push(format!(
                "{:?} < {:?}:\n  git 2.47.3 (recorded) {want:?}\n  flagsplit             {f:?}",
                case.args,
                String::from_utf8_lossy(case.stdin)
            ));
        }
        if live {
            let g = observed(&git(tmp.path(), &args, case.stdin));
            if g != want {
                failures.push(format!(
                    "{:?} < {:?}:\n  recorded {want:?}\n  git now  {g:?}",
                    case.args,
                    String::from_utf8_lossy(case.stdin)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS`, which git's test suite sets: an abbreviation is
/// fatal (128), exact names and `--no-` forms still work, a value that is not a boolean is fatal.
#[test]
fn disallowed_abbreviations_like_git() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // (variable, argument, status, first line of standard error) as git 2.47.3 gives them.
    let cases = [
        (
            "true",
            "--std",
            128,
            "fatal: disallowed abbreviated or ambiguous option 'std'",
        ),
        (
            "1",
            "--no-stdin-p",
            128,
            "fatal: disallowed abbreviated or ambiguous option 'no-stdin-p'",
        ),
        (
            "yes",
            "--fil",
            128,
            "fatal: disallowed abbreviated or ambiguous option 'fil'",
        ),
        ("true", "--no-stdin", 0, ""),
        ("true", "--stdin-paths", 0, ""),
        ("false", "--stdin-p", 0, ""),
        ("", "--fil", 0, ""),
        (
            "bogus",
            "--stdin-paths",
            128,
            "fatal: bad boolean environment value 'bogus' for 'GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS'",
        ),
    ];
    let live = have_checking_git("disallowed_abbreviations_like_git");
    for (value, arg, status, stderr) in cases {
        let mut programs = vec![FLAGSPLIT];
        if live {
            programs.push("git");
        }
        for program in programs {
            let out = Command::new(program)
                .args(["hash-object", arg])
                .current_dir(tmp.path())
                .env("GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS", value)
                .env(
                    "GIT_CEILING_DIRECTORIES",
                    tmp.path().parent().unwrap_or(tmp.path()),
                )
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env_remove("GIT_DIR")
                .stdin(Stdio::null())
                .output()
                .expect("run");
            let (code, _, first) = observed(&out);
            assert_eq!(
                (code, first.as_str()),
                (status, stderr),
                "{program} with {value:?}: {arg}"
            );
        }
    }
}

/// `--git-completion-helper`, which git's bash completion runs: git's list, in git's order, with
/// flagsplit's own options among them.
#[test]
fn completion_helper_lists_gits_options() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = flagsplit(tmp.path(), &[os("--git-completion-helper")], b"");
    assert_eq!(f.status.code(), Some(0));
    let ours = String::from_utf8_lossy(&f.stdout).into_owned();
    let own = [
        "--object-format=",
        "--no-collision-detection",
        "--collision-detection",
        "--no-object-format",
    ];
    let without_own: Vec<&str> = ours
        .split_whitespace()
        .filter(|w| !own.contains(w))
        .collect();
    // Recorded from git 2.47.3.
    let recorded = "--stdin --stdin-paths --no-filters --literally --path= --filters -- --no-stdin \
                    --no-stdin-paths --no-literally --no-path";
    assert_eq!(without_own.join(" "), recorded);
    for word in own {
        assert!(ours.split_whitespace().any(|w| w == word), "{ours}");
    }
    if have_checking_git("completion_helper_lists_gits_options") {
        let g = git(tmp.path(), &[os("--git-completion-helper")], b"");
        assert_eq!(String::from_utf8_lossy(&g.stdout).trim(), recorded);
    }
}

/// One case of [`RECORDED_OPTIONS`].
struct Recorded {
    args: &'static [&'static str],
    stdin: &'static [u8],
    status: i32,
    /// Standard output, or `usage` for git's usage text.
    stdout: &'static str,
    /// The first line of standard error.
    stderr: &'static str,
}

/// git 2.47.3's results (`git hash-object ARGS < STDIN` outside any repository, in a directory
/// holding [`option_files`]). Not here: `-w` (refused by flagsplit) and flagsplit's own options.
static RECORDED_OPTIONS: &[Recorded] = &[
    Recorded {
        args: &["hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--std"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: std (could be --stdin or --stdin-paths)",
    },
    Recorded {
        args: &["--stdi", "hello"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: stdi (could be --stdin or --stdin-paths)",
    },
    Recorded {
        args: &["--stdin-p"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-pa"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--s"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: s (could be --stdin or --stdin-paths)",
    },
    Recorded {
        args: &["--st"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: st (could be --stdin or --stdin-paths)",
    },
    Recorded {
        args: &["--l", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--li", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--lit", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--literall", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--literally=1", "--stdin"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `literally' takes no value",
    },
    Recorded {
        args: &["--no-literally", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-lit", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-stdin", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--no-stdin", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--no-stdin", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--stdin"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Multiple --stdin arguments are not supported",
    },
    Recorded {
        args: &["--no-stdin-paths", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths", "--no-stdin-paths", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-std", "hello"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: no-std (could be --no-stdin or --no-stdin-paths)",
    },
    Recorded {
        args: &["--no-stdin-", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-filters", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-f", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-fil", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--filters", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--fil", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-no-filters", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-no-f", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-no-stdin", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `no-no-stdin'",
    },
    Recorded {
        args: &["--no-filters=1", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `no-filters' takes no value",
    },
    Recorded {
        args: &["--filters=1", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `no-no-filters' takes no value",
    },
    Recorded {
        args: &["--no-", "hello"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: no- (could be --no-path or --no-path)",
    },
    Recorded {
        args: &["--no", "hello"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: no (could be --no-literally or --no-path)",
    },
    Recorded {
        args: &["--n", "hello"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: n (could be --no-literally or --no-path)",
    },
    Recorded {
        args: &["--", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--", "--stdin"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open '--stdin' for reading: No such file or directory",
    },
    Recorded {
        args: &["--end-of-options", "--stdin"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open '--stdin' for reading: No such file or directory",
    },
    Recorded {
        args: &["hello", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\nb6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["hello", "--", "--stdin"],
        stdin: b"",
        status: 128,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "fatal: could not open '--stdin' for reading: No such file or directory",
    },
    Recorded {
        args: &["--type=blob", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `type=blob'",
    },
    Recorded {
        args: &["--type", "blob", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `type'",
    },
    Recorded {
        args: &["--t", "blob", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `t'",
    },
    Recorded {
        args: &["-t", "blob", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["-tblob", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["-t=blob", "hello"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: invalid object type \"=blob\"",
    },
    Recorded {
        args: &["-t"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: switch `t' requires a value",
    },
    Recorded {
        args: &["-t", "tree", "hello"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "error: too-short tree object",
    },
    Recorded {
        args: &["-t", "blob2", "hello"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: invalid object type \"blob2\"",
    },
    Recorded {
        args: &["--stdin", "-t"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: switch `t' requires a value",
    },
    Recorded {
        args: &["-tw", "hello"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: invalid object type \"w\"",
    },
    Recorded {
        args: &["-x", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown switch `x'",
    },
    Recorded {
        args: &["-wx", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown switch `x'",
    },
    Recorded {
        args: &["-stdin", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: did you mean `--stdin` (with two dashes)?",
    },
    Recorded {
        args: &["-st", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown switch `s'",
    },
    Recorded {
        args: &["-literally", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: did you mean `--literally` (with two dashes)?",
    },
    Recorded {
        args: &["-no-filters", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: did you mean `--no-filters` (with two dashes)?",
    },
    Recorded {
        args: &["-path", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: did you mean `--path` (with two dashes)?",
    },
    Recorded {
        args: &["--path=x", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--path", "x", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--path"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `path' requires a value",
    },
    Recorded {
        args: &["--path=", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-path", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--pa=x", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--p=x", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--path=x", "--no-filters", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't use --path with --no-filters",
    },
    Recorded {
        args: &["--path=x", "--stdin-paths"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't use --stdin-paths with --path",
    },
    Recorded {
        args: &["--no-path", "--stdin-paths"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't specify files with --stdin-paths",
    },
    Recorded {
        args: &["--stdin-paths", "--stdin"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't use --stdin-paths with --stdin",
    },
    Recorded {
        args: &["--bogus"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `bogus'",
    },
    Recorded {
        args: &["--bogus=1"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `bogus=1'",
    },
    Recorded {
        args: &["--stdin=1"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `stdin' takes no value",
    },
    Recorded {
        args: &["--stdin-paths=1"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `stdin-paths' takes no value",
    },
    Recorded {
        args: &["-h"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "-h"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["-wh"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["-hw"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["--help-all"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--help"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "",
    },
    Recorded {
        args: &["--hel"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `hel'",
    },
    Recorded {
        args: &["-"],
        stdin: b"",
        status: 0,
        stdout: "7e03e4f627dbcb99b8220bcba292748cd2905813\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "-"],
        stdin: b"",
        status: 0,
        stdout: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n7e03e4f627dbcb99b8220bcba292748cd2905813\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--literally", "-t", "foo"],
        stdin: b"",
        status: 0,
        stdout: "21bfdd2631e755ece1acede6bfb829b260f766b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--literally", "-t", "foo", "hello"],
        stdin: b"",
        status: 0,
        stdout: "cdb46ef5bd618f6276ba2a1228afc92c9c2e65fa\n",
        stderr: "",
    },
    Recorded {
        args: &["--literally", "--stdin", "-t"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: switch `t' requires a value",
    },
    Recorded {
        args: &["-é"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown non-ascii option in string: `-é'",
    },
    Recorded {
        args: &["-wé"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown non-ascii option in string: `-é'",
    },
    Recorded {
        args: &["--é"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `é'",
    },
    Recorded {
        args: &["-v"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown switch `v'",
    },
    Recorded {
        args: &["--version"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `version'",
    },
    Recorded {
        args: &["-w-", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `'",
    },
    Recorded {
        args: &["-w-x", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: unknown option `x'",
    },
    Recorded {
        args: &["--st=1"],
        stdin: b"",
        status: 129,
        stdout: "usage",
        stderr: "error: ambiguous option: st=1 (could be --stdin or --stdin-paths)",
    },
    Recorded {
        args: &["--no-stdin=1"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `no-stdin' takes no value",
    },
    Recorded {
        args: &["--no-path=x", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: option `no-path' takes no value",
    },
    Recorded {
        args: &["-t", "--stdin", "hello"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: invalid object type \"--stdin\"",
    },
    Recorded {
        args: &["-t", "--stdin"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--stdin", "--stdin", "--path=x", "--no-filters"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't use --path with --no-filters",
    },
    Recorded {
        args: &["--path=", "--no-filters", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't use --path with --no-filters",
    },
    Recorded {
        args: &["--path=x", "--no-path", "--no-filters", "hello"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--no-stdin-paths", "--stdin-paths", "hello"],
        stdin: b"",
        status: 129,
        stdout: "",
        stderr: "error: Can't specify files with --stdin-paths",
    },
    Recorded {
        args: &["--literally", "-t", "blob2", "hello"],
        stdin: b"",
        status: 0,
        stdout: "039f3955e7925f40c0237218235bd6ac41ec9f59\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths", "--no-filters", "--literally"],
        stdin: b"",
        status: 0,
        stdout: "",
        stderr: "",
    },
    Recorded {
        args: &["--end-of-options", "-t"],
        stdin: b"",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open '-t' for reading: No such file or directory",
    },
    Recorded {
        args: &["hello", "-t", "blob"],
        stdin: b"",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--", "-"],
        stdin: b"",
        status: 0,
        stdout: "7e03e4f627dbcb99b8220bcba292748cd2905813\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\r\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\r",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open 'hello?' for reading: No such file or directory",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"c\r\r\n",
        status: 0,
        stdout: "3410062ba67c5ed59b854387a8bc0ec012479368\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\nx",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\nc1b0730e0133447badcfd47fd144e254807b06e1\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\" x\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\"x\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\"\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\"\r\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open '' for reading: No such file or directory",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open '' for reading: No such file or directory",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\nhello\x00junk\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\nb6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\x00junk\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hel\x00lo\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\\000junk\"\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"a\\tb\"\n",
        status: 0,
        stdout: "9ae9e86b7bd6cb1472d9373702d8249973da0832\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"n\\nl\"\n",
        status: 0,
        stdout: "ef073cc45ccc66c921adc7ccc6221e38aa54ae17\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"q\\\"q\"\n",
        status: 0,
        stdout: "ea0c8a85cb7293feae2c9e151d1d395be59b61fa\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"b\\\\s\"\n",
        status: 0,
        stdout: "63d8dbd40c23542e740659a7168a0ce3138ea748\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\\001\"\n",
        status: 0,
        stdout: "883ad6e8ef9a7392b45f6fc9e7d53c88f502388b\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\\1\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\\400\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\\q\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: line is badly quoted",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"c\\r\"\n",
        status: 0,
        stdout: "3410062ba67c5ed59b854387a8bc0ec012479368\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"c\r\"\n",
        status: 0,
        stdout: "3410062ba67c5ed59b854387a8bc0ec012479368\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b" s\n",
        status: 0,
        stdout: "2f259b79aa7e263f5829bb6e98096e7ec976d998\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\" x\n",
        status: 0,
        stdout: "9cbe6ea56f225388ae614c419249bfc6d734cc30\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"x\"y\"\n",
        status: 128,
        stdout: "",
        stderr: "fatal: could not open 'x\"y\"' for reading: No such file or directory",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"\\150ello\"\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"-\n",
        status: 0,
        stdout: "7e03e4f627dbcb99b8220bcba292748cd2905813\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"hello\n\n",
        status: 128,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "fatal: could not open '' for reading: No such file or directory",
    },
    Recorded {
        args: &["--stdin-paths"],
        stdin: b"\"hello\" x\nx\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\nc1b0730e0133447badcfd47fd144e254807b06e1\n",
        stderr: "",
    },
    Recorded {
        args: &["--stdin-paths", "--literally", "-t", "blob"],
        stdin: b"\"hello\" x\n",
        status: 0,
        stdout: "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0\n",
        stderr: "",
    },
];

//! `flagsplit fsck --json` on a repository made with git and damaged in four ways: each
//! finding carries what the README's schema says (git's message id, the object and its type, the
//! pack and the offset, the exit bit), the lines are the text run's, and the summary's status is
//! the process's. (The fsck corpus checks the lines and status of every case with `--json` too.)

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support;

const FSCK: &str = env!("CARGO_BIN_EXE_flagsplit-fsck");

fn git(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> String {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "A U Thor")
        .env("GIT_COMMITTER_EMAIL", "author@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().expect("git");
    if let Some(input) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write");
    }
    drop(child.stdin.take());
    let o = child.wait_with_output().expect("git");
    assert!(o.status.success(), "git {args:?} failed");
    String::from_utf8(o.stdout)
        .expect("utf-8")
        .trim()
        .to_string()
}

fn fsck(dir: &Path, args: &[&str]) -> Output {
    Command::new(FSCK)
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("flagsplit-fsck")
}

#[test]
fn json_findings_carry_what_git_prints_and_what_it_is_about() {
    const TEST: &str = "json_findings_carry_what_git_prints_and_what_it_is_about";
    if !support::runs("git", &["--version"]) {
        support::skip(TEST, "git not found; the repository is made with git");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    git(dir, &["init", "-q", "."], None);
    fs::write(
        dir.join("a"),
        "the first file, long enough to be worth compressing\n".repeat(8),
    )
    .expect("a");
    git(dir, &["add", "a"], None);
    git(dir, &["commit", "-qm", "one"], None);
    let blob_a = git(dir, &["rev-parse", "HEAD:a"], None);
    git(dir, &["repack", "-adq"], None);
    // A loose blob the next commit names, then removed: missing, and a broken link.
    fs::write(dir.join("c"), "the second file\n").expect("c");
    git(dir, &["add", "c"], None);
    git(dir, &["commit", "-qm", "two"], None);
    let blob_c = git(dir, &["rev-parse", "HEAD:c"], None);
    fs::remove_file(
        dir.join(".git/objects")
            .join(&blob_c[..2])
            .join(&blob_c[2..]),
    )
    .expect("remove c");
    // A dangling blob.
    let dangling = git(
        dir,
        &["hash-object", "-w", "--stdin"],
        Some(b"nobody names me\n"),
    );
    // A tag without a tagger (git's missingTaggerEntry, a warning), named by a ref.
    let head = git(dir, &["rev-parse", "HEAD"], None);
    let tag_text = format!("object {head}\ntype commit\ntag v1\n\nno tagger\n");
    let tag = git(
        dir,
        &["hash-object", "-t", "tag", "-w", "--literally", "--stdin"],
        Some(tag_text.as_bytes()),
    );
    git(dir, &["update-ref", "refs/tags/v1", &tag], None);
    // A byte of blob a's compressed data flipped in the pack: its CRC and its inflate fail.
    let pack_dir = dir.join(".git/objects/pack");
    let idx = fs::read_dir(&pack_dir)
        .expect("pack dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .expect("an idx");
    let listing = git(
        dir,
        &["show-index"],
        Some(&fs::read(&idx).expect("read idx")),
    );
    let offset: u64 = listing
        .lines()
        .find(|l| l.contains(&blob_a))
        .and_then(|l| l.split(' ').next())
        .and_then(|o| o.parse().ok())
        .expect("a's offset");
    let pack = idx.with_extension("pack");
    let mut bytes = fs::read(&pack).expect("read pack");
    bytes[offset as usize + 4] ^= 0x55;
    let mut perms = fs::metadata(&pack).expect("meta").permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(&pack, perms).expect("chmod");
    fs::write(&pack, bytes).expect("write pack");

    let text = fsck(dir, &[]);
    let json = fsck(dir, &["--json"]);
    assert_eq!(json.status.code(), text.status.code(), "same status");
    assert!(
        json.stderr.is_empty(),
        "nothing but JSON: {:?}",
        json.stderr
    );
    let stdout = String::from_utf8(json.stdout).expect("utf-8");
    let values: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (summary, findings) = values.split_last().expect("a summary");
    assert_eq!(summary["type"], "summary", "{summary}");
    let status = text.status.code().expect("a status");
    assert_eq!(summary["exit_status"], status, "{summary}");
    for f in findings {
        assert_eq!(f["type"], "finding", "{f}");
    }
    // The same lines as the text run, on the same streams.
    let of = |stream: &str| -> BTreeSet<String> {
        findings
            .iter()
            .filter(|f| f["stream"] == stream)
            .map(|f| f["line"].as_str().expect("line").to_string())
            .collect()
    };
    let text_lines = |b: &[u8]| -> BTreeSet<String> {
        String::from_utf8_lossy(b)
            .lines()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(of("stdout"), text_lines(&text.stdout));
    assert_eq!(of("stderr"), text_lines(&text.stderr));
    let find = |pred: &dyn Fn(&Value) -> bool, what: &str| -> Value {
        findings
            .iter()
            .find(|f| pred(f))
            .unwrap_or_else(|| panic!("no finding {what} in\n{stdout}"))
            .clone()
    };
    let d = find(&|f| f["what"] == "dangling", "dangling");
    assert_eq!(
        (&d["object"], &d["object_type"], &d["level"]),
        (
            &Value::from(dangling.as_str()),
            &Value::from("blob"),
            &Value::from("info")
        )
    );
    let w = find(
        &|f| f["msg_id"] == "missingTaggerEntry",
        "missingTaggerEntry",
    );
    assert_eq!(
        (
            &w["what"],
            &w["level"],
            &w["object"],
            &w["object_type"],
            &w["exit_bit"]
        ),
        (
            &Value::from("check"),
            &Value::from("warning"),
            &Value::from(tag.as_str()),
            &Value::from("tag"),
            &Value::Null
        )
    );
    let m = find(&|f| f["what"] == "missing", "missing");
    assert_eq!(
        (&m["object"], &m["object_type"], &m["exit_bit"]),
        (
            &Value::from(blob_c.as_str()),
            &Value::from("blob"),
            &Value::from(2)
        )
    );
    let p = find(
        &|f| f["what"] == "pack" && f["object"] == blob_a.as_str(),
        "about blob a in the pack",
    );
    assert_eq!(p["offset"], offset, "{p}");
    assert_eq!(
        (&p["level"], &p["exit_bit"]),
        (&Value::from("error"), &Value::from(4)),
        "{p}"
    );
    let pack_name = p["pack"].as_str().expect("pack");
    assert!(pack_name.ends_with(".pack"), "{p}");
    let bits: BTreeSet<&str> = summary["exit_bits"]
        .as_array()
        .expect("bits")
        .iter()
        .map(|b| b.as_str().expect("a name"))
        .collect();
    let want: BTreeSet<&str> = [(1, "object"), (2, "reachable"), (4, "pack")]
        .into_iter()
        .filter(|(b, _)| status & b != 0)
        .map(|(_, n)| n)
        .collect();
    assert_eq!(bits, want, "{summary}");
    assert!(
        bits.contains("reachable") && bits.contains("pack"),
        "{summary}"
    );
    assert_eq!(summary["died"], false, "{summary}");
    assert!(summary["errors"].as_u64().expect("errors") > 0, "{summary}");
}

#[test]
fn json_outside_a_repository_is_a_fatal_finding_and_the_summary() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = Command::new(FSCK)
        .current_dir(tmp.path())
        .arg("--json")
        // git stops below a ceiling, not at it: the temporary directory's parent.
        .env(
            "GIT_CEILING_DIRECTORIES",
            tmp.path().parent().unwrap_or(tmp.path()),
        )
        .output()
        .expect("flagsplit-fsck");
    assert_eq!(o.status.code(), Some(128));
    let text = String::from_utf8(o.stdout).expect("utf-8");
    let v: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(v.len(), 2, "{text}");
    assert_eq!(v[0]["level"], "fatal");
    assert!(
        v[0]["line"]
            .as_str()
            .is_some_and(|l| l.starts_with("fatal: not a git repository")),
        "{text}"
    );
    assert_eq!(
        (&v[1]["exit_status"], &v[1]["died"], &v[1]["exit_bits"]),
        (
            &Value::from(128),
            &Value::from(true),
            &serde_json::json!([])
        )
    );
}

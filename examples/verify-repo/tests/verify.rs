//! The application on repositories made with git: a sound one passes, and a damaged one gives
//! the engine's findings and git's exit status.

use std::path::Path;
use std::process::Command;

const APP: &str = env!("CARGO_BIN_EXE_flagsplit-example-verify-repo");

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "A")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git");
    assert!(o.status.success(), "git {args:?}");
    String::from_utf8(o.stdout)
        .expect("utf-8")
        .trim()
        .to_string()
}

#[test]
fn verifies_with_its_own_providers() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("SKIP verifies_with_its_own_providers: git not found");
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "git is needed in CI"
        );
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    git(dir, &["init", "-q", "."]);
    for i in 0..20 {
        std::fs::write(dir.join("f"), format!("line {i}\n").repeat(50)).expect("write");
        git(dir, &["add", "f"]);
        git(dir, &["commit", "-qm", &format!("c{i}")]);
    }
    git(dir, &["repack", "-adq"]);
    let run = || {
        Command::new(APP)
            .current_dir(dir)
            .env("HOME", dir)
            .output()
            .expect("app")
    };
    let o = run();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.ends_with("0 fatal, 0 errors, 0 warnings, 0 other; exit status 0\n"),
        "{text}"
    );
    // A blob the last commit names, gone: git's `missing blob` and status 2.
    let blob = git(dir, &["rev-parse", "HEAD:f"]);
    std::fs::write(dir.join("f"), "new\n").expect("write");
    git(dir, &["commit", "-qam", "loose"]);
    let loose = git(dir, &["rev-parse", "HEAD:f"]);
    std::fs::remove_file(dir.join(".git/objects").join(&loose[..2]).join(&loose[2..]))
        .expect("remove");
    let o = run();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(text.contains(&format!("missing blob {loose}")), "{text}");
    assert!(!text.contains(&blob), "the packed blob is fine: {text}");
}

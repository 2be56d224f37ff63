//! `src/exec_path.rs`: where `flagsplit imap-send` finds `flagsplit-imap-send` — FLAGSPLIT_EXEC_PATH,
//! then the running executable's directory, then PATH — checked with real files.

use flagsplit::exec_path;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn helper(dir: &Path, executable: bool) {
    fs::create_dir_all(dir).unwrap();
    let p = dir.join("flagsplit-imap-send");
    fs::write(&p, "#!/bin/sh\n").unwrap();
    fs::set_permissions(
        &p,
        fs::Permissions::from_mode(if executable { 0o755 } else { 0o644 }),
    )
    .unwrap();
}

#[test]
fn lookup_order() {
    let t = tempfile::tempdir().unwrap();
    let (exec, own, p1, p2) = (
        t.path().join("exec"),
        t.path().join("own"),
        t.path().join("p1"),
        t.path().join("p2"),
    );
    for d in [&exec, &own, &p1, &p2] {
        fs::create_dir_all(d).unwrap();
    }
    let path = std::env::join_paths([&p1, &p2]).unwrap();
    let find = |e: Option<&Path>| {
        exec_path::find_in(
            "flagsplit-imap-send",
            e.map(|p| p.as_os_str()),
            Some(&own),
            Some(&path),
        )
    };
    let err = find(Some(&exec)).unwrap_err().to_string();
    assert!(
        err.contains("FLAGSPLIT_EXEC_PATH=")
            && err.contains("PATH")
            && err.contains("cargo install --path ."),
        "{err}"
    );
    helper(&p2, true);
    assert_eq!(find(Some(&exec)).unwrap(), p2.join("flagsplit-imap-send"));
    helper(&p1, false); // not executable: skipped
    assert_eq!(find(None).unwrap(), p2.join("flagsplit-imap-send"));
    helper(&own, true);
    assert_eq!(find(Some(&exec)).unwrap(), own.join("flagsplit-imap-send"));
    helper(&exec, true);
    assert_eq!(find(Some(&exec)).unwrap(), exec.join("flagsplit-imap-send"));
}

#[test]
fn the_real_binary_is_found_beside_flagsplit() {
    let bin = Path::new(env!("CARGO_BIN_EXE_flagsplit-imap-send"));
    let found = exec_path::find_in(
        "flagsplit-imap-send",
        None,
        bin.parent(),
        Some(&OsString::new()),
    )
    .unwrap();
    assert_eq!(found, bin);
}

/// `flagsplit imap-send ARGS` runs the sender beside it with the same arguments (the two are built
/// into the same directory), so its output is the sender's own.
#[test]
fn flagsplit_imap_send_runs_the_sender() {
    let flagsplit = env!("CARGO_BIN_EXE_flagsplit");
    let sender = env!("CARGO_BIN_EXE_flagsplit-imap-send");
    let via = std::process::Command::new(flagsplit)
        .args(["imap-send", "--build-options"])
        .env_remove("FLAGSPLIT_EXEC_PATH")
        .output()
        .expect("run flagsplit imap-send");
    let direct = std::process::Command::new(sender)
        .arg("--build-options")
        .output()
        .expect("run flagsplit-imap-send");
    assert!(
        via.status.success(),
        "{}",
        String::from_utf8_lossy(&via.stderr)
    );
    assert_eq!(via.stdout, direct.stdout);
    assert!(String::from_utf8_lossy(&via.stdout).starts_with("flagsplit-imap-send version "));
}

/// A `flagsplit` with no sender beside it, none in FLAGSPLIT_EXEC_PATH and none on PATH says where
/// it looked and how to fix it.
#[test]
fn missing_sender_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let alone = tmp.path().join("flagsplit");
    fs::copy(env!("CARGO_BIN_EXE_flagsplit"), &alone).unwrap();
    // Another test of this binary may fork while the copy's write descriptor is open; the child
    // holds it until its exec, and running the copy meanwhile fails with ETXTBSY. Try again.
    let mut tries = 0;
    let out = loop {
        match std::process::Command::new(&alone)
            .args(["imap-send", "--list"])
            .env("FLAGSPLIT_EXEC_PATH", tmp.path().join("nowhere"))
            .env("PATH", tmp.path().join("empty"))
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'flagsplit-imap-send' was not found"), "{err}");
    assert!(err.contains("FLAGSPLIT_EXEC_PATH="), "{err}");
    assert!(err.contains("cargo install --path ."), "{err}");
}

//! `flagsplit sha1sum` on the public SHA-1 collision files of `../shared/data/collisions/`: with
//! the collision-detecting provider (`dc`), a file that is part of an attack gets no line, a
//! message and status 1, the other files still being hashed; `--no-collision-detection` and
//! `FLAGSPLIT_SHA1DC=0` print the real SHA-1, as coreutils does. With a provider that does not
//! detect collisions (`block`, `openssl`), every file is hashed as coreutils hashes it.

use std::process::{Command, Output, Stdio};

use flagsplit::hash::Sha1;

use crate::support;

const ATTACKS: [&str; 4] = [
    "shattered-1.pdf",
    "shattered-2.pdf",
    "sha-mbles-1.bin",
    "sha-mbles-2.bin",
];
const ORDINARY: &str = "sha1_reducedsha_coll.bin";
/// The SHA-1 of both SHAttered PDFs, as published by the SHAttered authors.
const SHATTERED_SHA1: &str = "38762cf7f55934b34d179ae6a4c80cadccbb7f0a";

/// Runs in the repository root so that names are `../shared/data/collisions/...`, as a user
/// would type them.
fn run(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("LC_ALL", "C.UTF-8")
        .env_remove("FLAGSPLIT_SHA1DC")
        .envs(envs.iter().copied())
        .stdin(Stdio::null());
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

fn flagsplit(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut all = vec!["sha1sum"];
    all.extend_from_slice(args);
    run(env!("CARGO_BIN_EXE_flagsplit"), &all, envs)
}

fn coreutils(args: &[&str]) -> Output {
    let out = run("sha1sum", args, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "coreutils sha1sum {args:?} failed"
    );
    out
}

fn rel(name: &str) -> String {
    format!("../shared/data/collisions/{name}")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn attacks_get_no_digest() {
    let Some(_) = support::collisions_dir("attacks_get_no_digest") else {
        return;
    };
    for name in ATTACKS {
        let path = rel(name);
        let out = flagsplit(&[&path], &[]);
        if Sha1::DETECTS_COLLISIONS {
            assert_eq!(out.status.code(), Some(1), "{name}");
            assert!(out.stdout.is_empty(), "{name}: {}", text(&out.stdout));
            assert_eq!(
                text(&out.stderr),
                format!("flagsplit sha1sum: {path}: SHA-1 collision attack detected\n")
            );
        } else {
            // This build's sha1 provider does not detect attacks: the plain digest.
            assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
            assert_eq!(out.stdout, coreutils(&[&path]).stdout, "{name}");
        }
    }
}

#[test]
fn detection_can_be_turned_off() {
    let Some(_) = support::collisions_dir("detection_can_be_turned_off") else {
        return;
    };
    let paths: Vec<String> = ATTACKS.iter().map(|n| rel(n)).collect();
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let expected = coreutils(&args).stdout;
    let shattered = format!("{SHATTERED_SHA1}  {}\n", rel("shattered-1.pdf"));
    assert!(
        text(&expected).starts_with(&shattered),
        "{}",
        text(&expected)
    );
    for (flags, envs) in [
        (&["--no-collision-detection"][..], &[][..]),
        (&[], &[("FLAGSPLIT_SHA1DC", "0")]),
        (&["--no-coll"], &[("FLAGSPLIT_SHA1DC", "1")]),
    ] {
        let mut all = flags.to_vec();
        all.extend_from_slice(&args);
        let out = flagsplit(&all, envs);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{flags:?} {envs:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), text(&expected), "{flags:?} {envs:?}");
        assert!(out.stderr.is_empty());
    }
    // Any other value of FLAGSPLIT_SHA1DC leaves detection on.
    let out = flagsplit(&[&rel("shattered-2.pdf")], &[("FLAGSPLIT_SHA1DC", "1")]);
    assert_eq!(out.stdout.is_empty(), Sha1::DETECTS_COLLISIONS);
}

#[test]
fn other_files_are_still_hashed() {
    let Some(_) = support::collisions_dir("other_files_are_still_hashed") else {
        return;
    };
    let ordinary = rel(ORDINARY);
    let attack = rel("sha-mbles-1.bin");
    let readme = "Cargo.toml".to_string();
    let args = [
        ordinary.as_str(),
        attack.as_str(),
        readme.as_str(),
        "../shared/data/collisions/none",
    ];
    let out = flagsplit(&args, &[]);
    assert_eq!(out.status.code(), Some(1));
    let ordinary_line = text(&coreutils(&[&ordinary]).stdout);
    let readme_line = text(&coreutils(&[&readme]).stdout);
    let attack_line = text(&coreutils(&[&attack]).stdout);
    let mut expected_stdout = ordinary_line.clone();
    if !Sha1::DETECTS_COLLISIONS {
        expected_stdout.push_str(&attack_line);
    }
    expected_stdout.push_str(&readme_line);
    assert_eq!(text(&out.stdout), expected_stdout);
    let mut expected_stderr = String::new();
    if Sha1::DETECTS_COLLISIONS {
        expected_stderr.push_str(&format!(
            "flagsplit sha1sum: {attack}: SHA-1 collision attack detected\n"
        ));
    }
    expected_stderr
        .push_str("flagsplit sha1sum: ../shared/data/collisions/none: No such file or directory\n");
    assert_eq!(text(&out.stderr), expected_stderr);
}

#[test]
fn reduced_round_collision_is_ordinary() {
    let Some(_) = support::collisions_dir("reduced_round_collision_is_ordinary") else {
        return;
    };
    let path = rel(ORDINARY);
    let out = flagsplit(&[&path], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, coreutils(&[&path]).stdout);
    let tagged = flagsplit(&["--tag", &path], &[]);
    assert_eq!(tagged.stdout, coreutils(&["--tag", &path]).stdout);
}

/// `--check`: an attack file is reported like a file that cannot be read.
#[test]
fn check_reports_attacks_as_unreadable() {
    let Some(_) = support::collisions_dir("check_reports_attacks_as_unreadable") else {
        return;
    };
    let mut paths: Vec<String> = ATTACKS.iter().map(|n| rel(n)).collect();
    paths.push(rel(ORDINARY));
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let list = coreutils(&args).stdout;
    let dir = tempfile::TempDir::new().unwrap();
    let list_path = dir.path().join("list");
    std::fs::write(&list_path, &list).unwrap();
    let list_arg = list_path.to_str().unwrap();

    let out = flagsplit(&["-c", list_arg], &[]);
    if Sha1::DETECTS_COLLISIONS {
        assert_eq!(out.status.code(), Some(1));
        let mut stdout = String::new();
        let mut stderr = String::new();
        for p in &paths[..4] {
            stdout.push_str(&format!("{p}: FAILED open or read\n"));
            stderr.push_str(&format!(
                "flagsplit sha1sum: {p}: SHA-1 collision attack detected\n"
            ));
        }
        stdout.push_str(&format!("{}: OK\n", paths[4]));
        stderr.push_str("flagsplit sha1sum: WARNING: 4 listed files could not be read\n");
        assert_eq!(text(&out.stdout), stdout);
        assert_eq!(text(&out.stderr), stderr);
        // --status: only the status and the per-file messages on stderr.
        let quiet = flagsplit(&["-c", "--status", list_arg], &[]);
        assert_eq!(quiet.status.code(), Some(1));
        assert!(quiet.stdout.is_empty());
        assert_eq!(text(&quiet.stderr).lines().count(), 4);
    } else {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    // Without detection everything verifies, as with coreutils.
    for (flags, envs) in [
        (&["-c", "--no-collision-detection", list_arg][..], &[][..]),
        (&["-c", list_arg], &[("FLAGSPLIT_SHA1DC", "0")]),
    ] {
        let out = flagsplit(flags, envs);
        let expected = run("sha1sum", &["-c", list_arg], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(out.stdout, expected.stdout);
        assert!(out.stderr.is_empty());
    }
}

/// MD5 has no collision detection: md5sum hashes the attack files like coreutils.
#[test]
fn md5sum_is_unaffected() {
    let Some(_) = support::collisions_dir("md5sum_is_unaffected") else {
        return;
    };
    let paths: Vec<String> = ATTACKS.iter().map(|n| rel(n)).collect();
    let mut args = vec!["md5sum"];
    args.extend(paths.iter().map(String::as_str));
    let out = run(env!("CARGO_BIN_EXE_flagsplit"), &args, &[]);
    let expected = run("md5sum", &args[1..], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected.stdout);
}

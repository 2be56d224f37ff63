//! Patch series for the tests: real `git format-patch --stdout` output from a repository built
//! with `git fast-import` (fast even for a thousand commits), and synthetic large messages.

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use flagsplit_imap::mbox::{self, Format, Message};

/// `git format-patch --stdout --root` of a new repository with `n` commits (each adds a line to
/// a file, and some have bodies with a `From ` line and non-ASCII text). `salt` makes series
/// from different calls differ.
pub fn format_patch(dir: &Path, n: usize, salt: &str) -> Vec<u8> {
    let repo = dir.join(format!("repo-{salt}"));
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&["init", "-q", "-b", "main"]);
    let mut stream = Vec::new();
    let mut content = String::new();
    for i in 0..n {
        content.push_str(&format!("line {i} {salt}\n"));
        let message = if i % 7 == 3 {
            format!("Change {i} ({salt}): café\n\nFrom here on, a body line starts with 'From '.\n")
        } else {
            format!("Change {i} ({salt})\n\nBody of change {i}.\n")
        };
        let time = 1_700_000_000 + i as u64 * 60;
        write!(
            stream,
            "commit refs/heads/main\nauthor A U Thor <author@example.org> {time} +0000\ncommitter C O Mitter <committer@example.org> {time} +0000\ndata {}\n{message}\n",
            message.len()
        )
        .expect("write");
        write!(
            stream,
            "M 644 inline file.txt\ndata {}\n{content}\n",
            content.len()
        )
        .expect("write");
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&stream)
        .expect("feed");
    assert!(child.wait().expect("wait").success());
    git(&["format-patch", "--stdout", "--root", "main"])
}

/// Splits an mbox and gives the bytes to store for each message (CRLF).
pub fn split(mbox_bytes: &[u8]) -> (Vec<Message>, Vec<Vec<u8>>) {
    let messages = mbox::split(mbox_bytes, Format::Mboxo).expect("valid mbox");
    let stored = messages.iter().map(Message::to_crlf).collect();
    (messages, stored)
}

/// One message of about `size` bytes: 10,000-character lines, UTF-8, no final newline.
pub fn big_message(size: usize, tag: &str) -> Vec<u8> {
    let mut m = format!(
        "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A U Thor <a@example.org>\nDate: Tue, 14 Nov 2023 22:13:20 +0000\nSubject: [PATCH] big {tag}\n\n"
    )
    .into_bytes();
    let line: String = "ünïcödé-".repeat(1000);
    let mut k = 0;
    while m.len() < size {
        m.extend_from_slice(format!("{k:06} ").as_bytes());
        m.extend_from_slice(line.as_bytes());
        m.push(b'\n');
        k += 1;
    }
    m.extend_from_slice(b"no final newline");
    m
}

//! `flagsplit-imap-send` as a user runs it: `git format-patch --stdout | flagsplit-imap-send`
//! against a real Dovecot on loopback, configured through a git config file, with git's
//! credential helpers, checking what the user sees (messages, warnings, the per-message report)
//! and what the server stored (its maildir files). The git configuration is isolated per test
//! (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_NOSYSTEM`, `HOME`).

#[path = "../../crates/imap/tests/support/mod.rs"]
mod imap_support;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use imap_support::dovecot::{Dovecot, Fault, FaultProxy, Options, PASSWORD, USER};
use imap_support::series;

use crate::support;

const BIN: &str = env!("CARGO_BIN_EXE_flagsplit-imap-send");
const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

/// An isolated git configuration and working directory.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new(config: &str) -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join("gitconfig"), config).expect("gitconfig");
        Env { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", self.path().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path())
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        c
    }

    fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.run_with(self.command(args), stdin)
    }

    fn run_with(&self, mut c: Command, stdin: &[u8]) -> Output {
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run flagsplit-imap-send");
        let mut input = child.stdin.take().expect("stdin");
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&data);
        });
        let out = child.wait_with_output().expect("wait");
        let _ = writer.join();
        out
    }
}

fn text(o: &Output) -> String {
    format!(
        "status: {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `[imap]` for plain TCP to 127.0.0.2 (a listener without STARTTLS) with allowPlaintext: works
/// in every build.
fn plain_config(port: u16, extra: &str) -> String {
    plain_config_at("127.0.0.2", port, extra)
}

/// The same for another host (the fault proxy and the fake servers listen on 127.0.0.1).
fn plain_config_at(host: &str, port: u16, extra: &str) -> String {
    format!(
        "[imap]\n\thost = imap://{host}\n\tport = {port}\n\tuser = {USER}\n\tpass = {PASSWORD}\n\tfolder = Drafts\n\tallowPlaintext = true\n{extra}",
    )
}

fn tls_selected() -> bool {
    !cfg!(flagsplit_tls = "none")
}

#[test]
fn build_options_match_flagsplit() {
    let ours = Command::new(BIN)
        .arg("--build-options")
        .output()
        .expect("run");
    let also = Command::new(BIN)
        .args(["version", "--build-options"])
        .output()
        .expect("run");
    let theirs = Command::new(FLAGSPLIT)
        .args(["version", "--build-options"])
        .output()
        .expect("run");
    let (ours, also, theirs) = (
        String::from_utf8_lossy(&ours.stdout).into_owned(),
        String::from_utf8_lossy(&also.stdout).into_owned(),
        String::from_utf8_lossy(&theirs.stdout).into_owned(),
    );
    assert_eq!(ours, also);
    assert!(ours.starts_with("flagsplit-imap-send version "), "{ours}");
    // Same keys, same order; the values differ only where the binaries do (TLS version, links).
    let keys = |s: &str| {
        s.lines()
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    let (k1, k2) = (keys(&ours), keys(&theirs));
    let shared: Vec<&String> = k1.iter().filter(|k| k2.contains(k)).collect();
    assert!(shared.len() + 3 >= k1.len(), "{ours}\n---\n{theirs}");
    for line in theirs.lines().skip(1) {
        if line.starts_with("TLS:")
            || line.starts_with("links:")
            || line.starts_with("OpenSSL:")
            || line.starts_with("openssl-build:")
            || line.starts_with("zlib")
        {
            continue;
        }
        assert!(ours.contains(line), "'{line}' missing from:\n{ours}");
    }
    if cfg!(flagsplit_tls = "rustls") {
        assert!(ours.contains("TLS: RUSTLS (rustls 0."), "{ours}");
        assert!(!ours.contains("links: libssl"), "{ours}");
    } else if cfg!(flagsplit_tls = "openssl") {
        assert!(ours.contains("TLS: OPENSSL (OpenSSL "), "{ours}");
        assert!(ours.contains("\nOpenSSL: OpenSSL "), "{ours}");
        assert!(ours.contains("links: libssl libcrypto"), "{ours}");
    } else {
        assert!(ours.contains("TLS: NONE\n"), "{ours}");
    }
    assert!(
        theirs.contains("TLS: ") && !theirs.contains("libssl"),
        "{theirs}"
    );
}

#[test]
fn pass_on_the_command_line_is_refused() {
    let env = Env::new("");
    let o = env.run(
        &[
            "-c",
            "imap.pass=hunter2-secret",
            "-c",
            "imap.host=imap://127.0.0.1",
        ],
        b"",
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("refusing -c imap.pass"), "{t}");
    assert!(!t.contains("hunter2-secret"), "{t}");
}

#[test]
fn bad_configuration_is_reported_not_ignored() {
    let env = Env::new("[imap]\n\tauthMethod = NTLM\n");
    let o = env.run(&["--dry-run"], b"");
    assert!(
        text(&o)
            .contains("unknown method 'NTLM'; valid: LOGIN, PLAIN, CRAM-MD5, XOAUTH2, OAUTHBEARER"),
        "{}",
        text(&o)
    );
    let env = Env::new("[imap]\n\thost = imap://127.0.0.1\n\tport = 1\n\tfrobnicate = 1\n");
    let o = env.run(&["--allow-duplicates"], b"");
    let t = text(&o);
    assert!(
        t.contains("warning: unknown configuration key imap.frobnicate"),
        "{t}"
    );
}

#[test]
fn empty_or_malformed_mbox_stores_nothing() {
    let Some(d) = Dovecot::start("empty_or_malformed_mbox") else {
        return;
    };
    let env = Env::new(&plain_config(d.port, ""));
    for (input, want) in [
        (&b""[..], "the mbox is empty"),
        (b"Subject: x\n\nbody\n", "not an mbox"),
        (b"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: a\nSubject: b\n\nok\nFrom 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nnot a header\n\n", "message 2 (line 6) is malformed"),
    ] {
        let o = env.run(&[], input);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{t}");
        assert!(t.contains(want) && t.contains("nothing was stored"), "{t}");
    }
    assert!(d.bodies("Drafts").is_empty());
}

#[test]
fn format_patch_pipe_end_to_end_with_report_and_rerun() {
    let Some(d) = Dovecot::start("format_patch_pipe") else {
        return;
    };
    let env = Env::new(&plain_config(d.port, ""));
    let mbox = series::format_patch(env.path(), 12, "e2e");
    let (_, stored) = series::split(&mbox);
    let o = env.run(&[], &mbox);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("sending 12 messages") && t.contains("12 of 12 messages stored in 'Drafts'"),
        "{t}"
    );
    assert_eq!(d.bodies("Drafts"), stored);
    // Re-run: every message is skipped and reported.
    let o = env.run(&[], &mbox);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("0 of 12 messages stored in 'Drafts', 12 skipped (already there)"),
        "{t}"
    );
    assert_eq!(t.matches("skipped: identical to UID").count(), 12, "{t}");
    assert_eq!(d.bodies("Drafts").len(), 12);
    // --dry-run and --list.
    let o = env.run(&["--dry-run", "-f", "Other"], &mbox);
    assert!(
        text(&o).contains("dry run: 12 of 12 messages would be stored in 'Other'"),
        "{}",
        text(&o)
    );
    assert!(d.bodies("Other").is_empty());
    let o = env.run(&["--list"], b"");
    let listed = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        listed.lines().any(|l| l == "Drafts") && listed.lines().any(|l| l == "INBOX"),
        "{}",
        text(&o)
    );
}

#[test]
fn mboxrd_and_preformatted_html() {
    let Some(d) = Dovecot::start("mboxrd_and_html") else {
        return;
    };
    let env = Env::new(&plain_config(d.port, "\tpreformattedHTML = true\n"));
    let repo = env.path().join("r");
    fs::create_dir(&repo).unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_GLOBAL", env.path().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.org")
            .env("GIT_COMMITTER_NAME", "C")
            .env("GIT_COMMITTER_EMAIL", "c@example.org")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    git(&["init", "-q"]);
    fs::write(repo.join("f"), "x <y> & z\n").unwrap();
    git(&["add", "f"]);
    git(&[
        "commit",
        "-q",
        "-m",
        "subject\n\nFrom the body, an escaped line.\n>From another.",
    ]);
    let mbox = git(&["format-patch", "--stdout", "--root", "--pretty=mboxrd"]);
    assert!(
        String::from_utf8_lossy(&mbox).contains("\n>From the body"),
        "format-patch escaped it"
    );
    let o = env.run(&["--mboxrd"], &mbox);
    assert!(o.status.success(), "{}", text(&o));
    let stored = String::from_utf8(d.bodies("Drafts").remove(0)).unwrap();
    // Unescaped by --mboxrd, then HTML-escaped by preformattedHTML.
    assert!(
        stored.contains("\r\nFrom the body, an escaped line.\r\n&gt;From another."),
        "{stored}"
    );
    assert!(
        stored.contains("Content-Type: text/html;\r\n\r\n<pre>\r\n"),
        "{stored}"
    );
    assert!(stored.contains("+x &lt;y&gt; &amp; z"), "{stored}");
}

/// A credential helper that logs what it is asked (not the secrets) and answers `get` with
/// `password`.
fn credential_helper(dir: &Path, password: &str) -> PathBuf {
    let log = dir.join("helper.log");
    let script = dir.join("helper.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nwhile IFS= read -r line && [ -n \"$line\" ]; do case \"$line\" in password=*) echo \"$1 with-password\" >> {log};; protocol=*|host=*|username=*) echo \"$1 $line\" >> {log};; esac; done\n[ \"$1\" = get ] && printf 'username={USER}\\npassword={password}\\n'\nexit 0\n",
            log = log.display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    script
}

#[test]
fn git_credential_fill_approve_reject_and_no_secret_in_output() {
    let Some(d) = Dovecot::start("git_credential") else {
        return;
    };
    let mbox = series::format_patch(d.path(), 2, "cred");
    for (password, ok) in [("wrong-pw-5531", false), (PASSWORD, true)] {
        for method in ["LOGIN", "PLAIN", "CRAM-MD5"] {
            let env = Env::new("");
            let helper = credential_helper(env.path(), password);
            fs::write(
                env.path().join("gitconfig"),
                format!(
                    "[imap]\n\thost = imap://127.0.0.2\n\tport = {}\n\tfolder = Drafts\n\tallowPlaintext = true\n\tauthMethod = {method}\n[credential]\n\thelper = {}\n",
                    d.port,
                    helper.display()
                ),
            )
            .unwrap();
            let o = env.run(&["-v", "-v", "--allow-duplicates"], &mbox);
            let t = text(&o);
            assert_eq!(o.status.success(), ok, "{method}: {t}");
            let b64 =
                flagsplit_imap::sasl::base64_encode(format!("\0{USER}\0{password}").as_bytes());
            assert!(
                !t.contains(password) && !t.contains(&b64),
                "{method}: the secret leaked:\n{t}"
            );
            let log = fs::read_to_string(env.path().join("helper.log")).unwrap_or_default();
            assert!(
                log.contains("get protocol=imap")
                    && log.contains(&format!("get host=127.0.0.2:{}", d.port)),
                "{log}"
            );
            if ok {
                assert!(
                    log.contains("store with-password"),
                    "approved after success: {log}"
                );
                assert!(!log.contains("erase"), "{log}");
            } else {
                assert!(
                    log.contains("erase with-password"),
                    "rejected after failure: {log}"
                );
                assert!(
                    t.contains("AUTHENTICATIONFAILED") && t.contains("nothing was stored"),
                    "{t}"
                );
            }
        }
    }
}

#[test]
fn no_credentials_and_no_terminal_is_a_clear_error() {
    let Some(d) = Dovecot::start("no_credentials") else {
        return;
    };
    let env = Env::new(&format!(
        "[imap]\n\thost = imap://127.0.0.2\n\tport = {}\n\tfolder = Drafts\n\tallowPlaintext = true\n",
        d.port
    ));
    let mut c = env.command(&[]);
    c.env_remove("DISPLAY")
        .env_remove("SSH_ASKPASS")
        .env_remove("GIT_ASKPASS");
    let mut cmd = Command::new("setsid");
    cmd.arg("-w").arg(BIN);
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.current_dir(env.path());
    let o = env.run_with(cmd, &series::format_patch(env.path(), 1, "nocred"));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("no user name for 127.0.0.2"), "{t}");
}

#[test]
fn tls_none_build_refuses_before_connecting() {
    if tls_selected() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let env = Env::new(&format!(
        "[imap]\n\thost = imaps://127.0.0.1\n\tport = {port}\n\tuser = u\n\tfolder = F\n"
    ));
    let o = env.run(&[], &series::big_message(100, "x"));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    for want in [
        "this build of flagsplit has no TLS",
        "--features rustls-tls",
        "openssl-tls",
        "imap.tunnel",
    ] {
        assert!(t.contains(want), "'{want}' in {t}");
    }
    assert!(
        listener.accept().is_err(),
        "no connection may have been made"
    );
    // imap:// with a password (STARTTLS needed) too.
    let env = Env::new(&format!(
        "[imap]\n\thost = imap://127.0.0.1\n\tport = {port}\n\tuser = u\n\tfolder = F\n"
    ));
    let o = env.run(&[], &series::big_message(100, "x"));
    assert!(
        text(&o).contains("needs STARTTLS") && text(&o).contains("no TLS"),
        "{}",
        text(&o)
    );
    assert!(listener.accept().is_err());
}

#[test]
fn tls_verification_from_the_system_store_and_sslverify_false() {
    if !tls_selected() {
        return;
    }
    let Some(d) = Dovecot::start("tls_system_store") else {
        return;
    };
    let mbox = series::format_patch(d.path(), 2, "sys");
    let config = |extra: &str| {
        format!(
            "[imap]\n\thost = imaps://localhost\n\tport = {}\n\tuser = {USER}\n\tpass = {PASSWORD}\n\tfolder = Drafts\n{extra}",
            d.tls_port
        )
    };
    // SSL_CERT_FILE names the trusted CA.
    let env = Env::new(&config(""));
    let mut c = env.command(&[]);
    c.env("SSL_CERT_FILE", d.ca());
    let o = env.run_with(c, &mbox);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("warning"), "{}", text(&o));
    // A system store without the CA: refused, and the message says how to fix it.
    let mut c = env.command(&[]);
    c.env("SSL_CERT_FILE", d.other_ca());
    let o = env.run_with(c, &mbox);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("certificate was rejected") && t.contains("imap.sslCAInfo"),
        "{t}"
    );
    // imap.sslCAInfo wins over the system store.
    let env = Env::new(&config(&format!("\tsslCAInfo = {}\n", d.ca().display())));
    let mut c = env.command(&["--allow-duplicates"]);
    c.env("SSL_CERT_FILE", d.other_ca());
    assert!(env.run_with(c, &mbox).status.success());
    // sslverify=false: works, warns on every run.
    let env = Env::new(&config("\tsslverify = false\n"));
    for _ in 0..2 {
        let mut c = env.command(&[]);
        c.env("SSL_CERT_FILE", d.other_ca());
        let o = env.run_with(c, &mbox);
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            text(&o).contains("warning: imap.sslverify=false"),
            "{}",
            text(&o)
        );
    }
}

#[test]
fn cut_connection_report_from_the_binary() {
    let Some(d) = Dovecot::start_with(
        "cut_connection_report",
        Options {
            extra: "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE NAMESPACE UIDPLUS LITERAL+\n".into(),
        },
    ) else {
        return;
    };
    let mbox = series::format_patch(d.path(), 60, "cutbin");
    let (_, stored) = series::split(&mbox);
    let total: usize = stored.iter().map(Vec::len).sum();
    // Reconnect refused: stored / NOT stored / UNKNOWN, exit 1.
    let proxy = FaultProxy::start(
        ("127.0.0.2", d.port),
        vec![Fault::CutClientAfter(total / 2), Fault::Refuse],
    );
    let env = Env::new(&plain_config_at("127.0.0.1", proxy.port, ""));
    let o = env.run(&[], &mbox);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("connection lost"), "{t}");
    assert!(
        t.contains("could not look the messages up after the failure"),
        "{t}"
    );
    // Each report line against the maildir: "stored" ones are there, "NOT stored" ones are not,
    // "UNKNOWN" ones may be either (a message can be stored while its answer is lost).
    check_report_lines(&t, &d.bodies("Drafts"), 60);
    assert!(
        t.contains(" NOT stored: ") && t.contains(" UNKNOWN (may or may not be stored): "),
        "{t}"
    );
    // Reconnect allowed: the unknowns become exact.
    let proxy = FaultProxy::start(
        ("127.0.0.2", d.port),
        vec![Fault::CutClientAfter(total / 3), Fault::Pass],
    );
    let env = Env::new(&plain_config_at(
        "127.0.0.1",
        proxy.port,
        "\tfolder = Second\n",
    ));
    let o = env.run(&[], &mbox);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(!t.contains("UNKNOWN"), "{t}");
    let n = d.bodies("Second").len();
    check_report_lines(&t, &d.bodies("Second"), 60);
    assert_eq!(
        t.lines().filter(|l| l.contains(" stored (UID ")).count(),
        n,
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "{n} of 60 messages stored in 'Second', {} not stored",
            60 - n
        )),
        "{t}"
    );
}

/// Checks `  k/n state: subject` report lines against the messages on the server.
fn check_report_lines(t: &str, on_disk: &[Vec<u8>], n: usize) {
    let present = |k: usize| {
        let subject = format!("Subject: [PATCH {k:02}/{n}]");
        on_disk
            .iter()
            .any(|b| String::from_utf8_lossy(b).contains(&subject))
    };
    let mut seen = 0;
    for line in t.lines() {
        let Some((head, _)) = line.trim_start().split_once(&format!("/{n} ")) else {
            continue;
        };
        let Ok(k) = head.parse::<usize>() else {
            continue;
        };
        seen += 1;
        if line.contains(" stored (UID ") {
            assert!(
                present(k),
                "message {k} reported stored but is not there:\n{t}"
            );
        } else if line.contains(" NOT stored: ") {
            assert!(
                !present(k),
                "message {k} reported not stored but is there:\n{t}"
            );
        } else {
            assert!(line.contains(" UNKNOWN "), "{line}");
        }
    }
    assert_eq!(seen, n, "one line per message:\n{t}");
}

#[test]
fn tunnel_from_git_config() {
    let Some(d) = Dovecot::start("tunnel_from_git_config") else {
        return;
    };
    let env = Env::new(&format!(
        "[imap]\n\ttunnel = \"{}\"\n\tfolder = Drafts\n",
        d.tunnel()
    ));
    let mbox = series::format_patch(env.path(), 3, "tun");
    let o = env.run(&[], &mbox);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(d.bodies("Drafts"), series::split(&mbox).1);
}

/// A fake IMAP server on 127.0.0.1 ([`Scripted`]): greets without STARTTLS, answers LOGIN with
/// OK or NO (`login_ok`) and every other command with OK.
fn fake_imap(login_ok: bool) -> Scripted {
    Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] fake server ready\r\n",
        Box::new(move |w, tag, command| {
            if !login_ok && command.starts_with("LOGIN") {
                w.write_all(format!("{tag} NO [AUTHENTICATIONFAILED] no\r\n").as_bytes())?;
                return Ok(true);
            }
            ordinary(w, tag, command, "IMAP4rev1")
        }),
    )
}

/// A credential helper that records all it is given (`== get`, then the lines) and answers
/// `get` with a password and the attributes git passes back on approve and reject.
fn recording_helper(dir: &Path) -> PathBuf {
    let script = dir.join("recorder.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\n{{ echo \"== $1\"; while IFS= read -r line && [ -n \"$line\" ]; do echo \"$line\"; done; }} >> {log}\n[ \"$1\" = get ] && printf 'username={USER}\\npassword=HELPER-PW\\npassword_expiry_utc=4102444800\\noauth_refresh_token=REFRESH-TOK\\n'\nexit 0\n",
            log = dir.join("recorder.log").display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    script
}

/// A tunnel command that is a fake server (greets, logs, refuses every command) and logs that
/// it was started.
fn logging_tunnel(dir: &Path) -> String {
    let script = dir.join("tunnel.sh");
    let log = dir.join("tunnel.log");
    fs::write(
        &script,
        format!(
            "echo started >> {log}\nprintf '* OK [CAPABILITY IMAP4rev1] tunnel\\r\\n'\nwhile IFS= read -r l; do echo \"$l\" >> {log}; printf '%s NO no\\r\\n' \"${{l%% *}}\"; done\n",
            log = log.display()
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// A configuration for the fake server with two credential helpers: `store`, holding a GitHub
/// token, then the recording helper. `imap` gets `@TUNNEL@` replaced by a logging tunnel.
fn injection_env(server: &Scripted, imap: &str) -> Env {
    let env = Env::new("");
    let imap = imap.replace("@TUNNEL@", &logging_tunnel(env.path()));
    let store = env.path().join("store");
    fs::write(&store, "https://ghuser:GH-TOKEN-SECRET@github.com\n").unwrap();
    let recorder = recording_helper(env.path());
    fs::write(
        env.path().join("gitconfig"),
        format!(
            "[imap]\n\thost = imap://127.0.0.1\n\tport = {}\n\tfolder = Drafts\n\tallowPlaintext = true\n{imap}[credential]\n\thelper = store --file={}\n\thelper = {}\n",
            server.port,
            store.display(),
            recorder.display()
        ),
    )
    .unwrap();
    env
}

#[test]
fn credential_attributes_are_passed_back_on_approve_and_reject() {
    for login_ok in [true, false] {
        let server = fake_imap(login_ok);
        let env = injection_env(&server, "");
        let o = env.run(
            &["--dry-run", "--allow-duplicates"],
            &series::big_message(100, "x"),
        );
        let t = text(&o);
        assert_eq!(o.status.success(), login_ok, "{t}");
        let log = server.log();
        assert!(
            log.contains(&format!("LOGIN \"{USER}\" \"HELPER-PW\"")),
            "the control run logs in with the helper's password: {log}"
        );
        assert!(
            !t.contains("HELPER-PW") && !t.contains("REFRESH-TOK"),
            "{t}"
        );
        let helper = fs::read_to_string(env.path().join("recorder.log")).unwrap();
        let action = if login_ok { "== store" } else { "== erase" };
        let (_, reported) = helper.split_once(action).expect(action);
        for want in [
            "password=HELPER-PW",
            "password_expiry_utc=4102444800",
            "oauth_refresh_token=REFRESH-TOK",
            "host=127.0.0.1:",
        ] {
            assert!(reported.contains(want), "{want} in {helper}");
        }
    }
}

#[test]
fn credential_protocol_injection_is_refused_before_anything() {
    let server = fake_imap(true);
    let inject_user = "\tuser = \"ghuser\\nprotocol=https\\nhost=github.com\"\n";
    let cases: Vec<(String, Vec<String>, &str)> = vec![
        (inject_user.into(), vec![], "username contains newline"),
        (
            "\tuser = \"tester\\npassword=INJECTED\"\n".into(),
            vec![],
            "username contains newline",
        ),
        (
            String::new(),
            vec![
                "-c".into(),
                "imap.user=ghuser\nprotocol=https\nhost=github.com".into(),
            ],
            "username contains newline",
        ),
        (
            String::new(),
            vec!["-c".into(), "imap.user=tester\rpassword=INJECTED".into()],
            "username contains carriage return",
        ),
        (
            "\thost = \"imap://127.0.0.1\\nprotocol=https\\nhost=github.com\"\n\tuser = ghuser\n"
                .into(),
            vec![],
            "host contains newline",
        ),
        (
            "\tuser = ghuser\n".into(),
            vec!["-c".into(), "imap.host=127.0.0.1\nhost=github.com".into()],
            "host contains newline",
        ),
    ];
    // The control: without an injected value, the server (or the tunnel) sees the login with
    // the recording helper's password.
    let control = fake_imap(false);
    let env = injection_env(&control, "\tuser = tester\n");
    let o = env.run(&["--allow-duplicates"], &series::big_message(100, "x"));
    assert!(
        control.log().contains("LOGIN \"tester\" \"HELPER-PW\""),
        "{}\n{}",
        control.log(),
        text(&o)
    );
    let env = injection_env(&control, "\tuser = tester\n\ttunnel = \"@TUNNEL@\"\n");
    let o = env.run(&["--allow-duplicates"], &series::big_message(100, "x"));
    let tunnel_log = fs::read_to_string(env.path().join("tunnel.log")).unwrap_or_default();
    assert!(
        tunnel_log.starts_with("started") && tunnel_log.contains("LOGIN \"tester\" \"HELPER-PW\""),
        "{tunnel_log}\n{}",
        text(&o)
    );
    let helper = fs::read_to_string(env.path().join("recorder.log")).unwrap_or_default();
    assert!(helper.contains("host=tunnel\n"), "{helper}");

    for tunnel in [false, true] {
        for (imap, args, want) in &cases {
            let mut imap = imap.clone();
            if tunnel {
                imap.push_str("\ttunnel = \"@TUNNEL@\"\n");
            }
            let env = injection_env(&server, &imap);
            let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
            all.push("--allow-duplicates");
            let o = env.run(&all, &series::big_message(100, "x"));
            let t = text(&o);
            let log = server.log();
            assert!(
                !log.contains("GH-TOKEN-SECRET") && !log.contains("INJECTED"),
                "sent to the server: {log}"
            );
            assert!(log.is_empty(), "no connection may be made: {log}");
            assert!(
                !env.path().join("recorder.log").exists(),
                "no helper may be asked (tunnel: {tunnel}, {imap:?} {args:?})"
            );
            assert!(
                !env.path().join("tunnel.log").exists(),
                "no tunnel may be started"
            );
            assert_eq!(o.status.code(), Some(1), "{t}");
            assert!(
                t.contains(&format!("credential value for {want}")),
                "tunnel: {tunnel}, {imap:?} {args:?}: {t}"
            );
            assert!(
                t.contains("nothing was stored") || !t.contains("stored"),
                "{t}"
            );
            assert!(!t.contains("GH-TOKEN-SECRET"), "{t}");
        }
    }
}

/// What a hostile server sends (on loopback: no real server does this).
#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// Three literals of 300 MiB in the plaintext greeting.
    GreetingLiterals,
    /// After login, 8 million `* 1 EXISTS` before answering EXAMINE.
    ExistsFlood,
    /// After login, 400 untagged lines of almost 1 MiB before answering EXAMINE.
    BigUntaggedLines,
    /// After login, every message is a duplicate candidate, fetched as 3 literals of 300 MiB.
    FetchLiterals,
}

const HOSTILE_LITERAL: usize = 300 << 20;

/// Writes `n` bytes of `x`, 1 MiB at a time (the test itself holds no more).
fn stream_bytes(w: &mut impl Write, n: usize) -> std::io::Result<()> {
    let chunk = vec![b'x'; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len());
        w.write_all(&chunk[..k])?;
        left -= k;
    }
    Ok(())
}

/// A hostile server for one connection, on a thread; its port. It stops when the sender hangs
/// up (its writes fail).
fn hostile_server(how: Hostile) -> u16 {
    use std::io::BufRead;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || -> std::io::Result<()> {
        let (mut w, _) = listener.accept()?;
        let mut r = std::io::BufReader::new(w.try_clone()?);
        if let Hostile::GreetingLiterals = how {
            w.write_all(format!("* OK [ALERT] {{{HOSTILE_LITERAL}}}\r\n").as_bytes())?;
            for k in 0..3 {
                stream_bytes(&mut w, HOSTILE_LITERAL)?;
                if k < 2 {
                    w.write_all(format!(" {{{HOSTILE_LITERAL}}}\r\n").as_bytes())?;
                }
            }
            w.write_all(b"\r\n")?;
            return Ok(());
        }
        w.write_all(b"* OK [CAPABILITY IMAP4rev1] hostile\r\n")?;
        let mut line = String::new();
        while r.read_line(&mut line)? > 0 {
            let l = std::mem::take(&mut line);
            let mut words = l.split_ascii_whitespace();
            let tag = words.next().unwrap_or("*").to_string();
            let command = words.next().unwrap_or("").to_ascii_uppercase();
            let sub = words.next().unwrap_or("").to_ascii_uppercase();
            match (command.as_str(), sub.as_str(), how) {
                ("LOGIN", _, _) => {
                    w.write_all(format!("{tag} OK [CAPABILITY IMAP4rev1] in\r\n").as_bytes())?
                }
                ("EXAMINE", _, Hostile::ExistsFlood) => {
                    let lines = b"* 1 EXISTS\r\n".repeat(1 << 16);
                    for _ in 0..(8_000_000 >> 16) {
                        w.write_all(&lines)?;
                    }
                    w.write_all(format!("{tag} OK done\r\n").as_bytes())?;
                }
                ("EXAMINE", _, Hostile::BigUntaggedLines) => {
                    for _ in 0..400 {
                        w.write_all(b"* OK ")?;
                        stream_bytes(&mut w, (1 << 20) - 8)?;
                        w.write_all(b"\r\n")?;
                    }
                    w.write_all(format!("{tag} OK done\r\n").as_bytes())?;
                }
                ("UID", "SEARCH", _) => {
                    w.write_all(format!("* SEARCH 1 2 3\r\n{tag} OK\r\n").as_bytes())?
                }
                ("UID", "FETCH", _) => {
                    for uid in 1..=3 {
                        w.write_all(
                            format!("* {uid} FETCH (UID {uid} BODY[] {{{HOSTILE_LITERAL}}}\r\n")
                                .as_bytes(),
                        )?;
                        stream_bytes(&mut w, HOSTILE_LITERAL)?;
                        w.write_all(b")\r\n")?;
                    }
                    w.write_all(format!("{tag} OK\r\n").as_bytes())?;
                }
                ("LOGOUT", _, _) => {
                    w.write_all(format!("* BYE\r\n{tag} OK\r\n").as_bytes())?;
                    return Ok(());
                }
                _ => w.write_all(format!("{tag} OK\r\n").as_bytes())?,
            }
        }
        Ok(())
    });
    port
}

/// Peak resident memory in bytes, from an rusage.
fn maxrss_bytes(usage: &libc::rusage) -> u64 {
    // Linux reports ru_maxrss in KiB.
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

/// Runs the sender and returns its output with its peak RSS (`ru_maxrss` from `wait4`). A
/// child's figure starts from this process's own peak (exec keeps the larger of the two), so
/// that peak is returned too: the tests keep it small.
// The child is reaped by wait4 (which gives its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_measured(env: &Env, args: &[&str], stdin: &[u8]) -> (Output, u64, u64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    // Linux counts a process's RSS before its exec in its peak (the kernel keeps the high-water
    // mark of the image it replaces), and a child forked from this test process starts as large
    // as it is: hundreds of MiB while other tests hash large files. So the sender is started by a
    // small Python process, which forks it, waits for it and writes its peak RSS (KiB) to a file,
    // then exits as the sender did.
    const TRAMPOLINE: &str = r#"
import os, signal, sys
out = os.environ.pop("MEASURED_MAXRSS_FILE")
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"#;
    let direct = env.command(args);
    let maxrss_file = env.path().join("measured-maxrss");
    let mut trampoline = Command::new("python3");
    trampoline
        .arg("-c")
        .arg(TRAMPOLINE)
        .arg(direct.get_program())
        .args(direct.get_args())
        .env("MEASURED_MAXRSS_FILE", &maxrss_file);
    if let Some(dir) = direct.get_current_dir() {
        trampoline.current_dir(dir);
    }
    for (key, value) in direct.get_envs() {
        match value {
            Some(value) => trampoline.env(key, value),
            None => trampoline.env_remove(key),
        };
    }
    let mut child = trampoline
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run flagsplit-imap-send through python3");
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let collect = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = collect(Box::new(child.stdout.take().expect("stdout")));
    let err = collect(Box::new(child.stderr.take().expect("stderr")));
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (`child` is never waited on); `status`
    // and `usage` are valid for writes for the duration of the call.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    let _ = writer.join();
    let output = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    };
    // SAFETY: as above; RUSAGE_SELF is always valid.
    let mut own: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `own` is valid for writes.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut own) };
    let sender_kib: u64 = std::fs::read_to_string(&maxrss_file)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no peak RSS from the trampoline: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
    // `usage` is the trampoline's own: its peak is from the fork off this process.
    (output, sender_kib << 10, maxrss_bytes(&own))
}

/// The bound on the sender's peak RSS, whatever a server sends: 256 MiB and twice the largest
/// message being uploaded.
fn rss_bound(largest: usize) -> u64 {
    (256 << 20) + 2 * largest as u64
}

fn hostile_run(how: Hostile, args: &[&str]) -> (String, u64, u16) {
    let port = hostile_server(how);
    let env = fake_env(port, "");
    let message = series::big_message(10_000, "hostile");
    let (o, peak, own) = run_measured(&env, args, &message);
    let t = text(&o);
    eprintln!(
        "{how:?}: peak RSS of the sender {} MiB (this test process: {} MiB)",
        peak >> 20,
        own >> 20
    );
    assert!(
        peak < rss_bound(message.len()),
        "{how:?}: peak RSS {peak} bytes, over {} bytes:\n{t}",
        rss_bound(message.len())
    );
    (t, peak, port)
}

#[test]
fn hostile_greeting_literals_are_refused_before_authentication() {
    let (t, _, port) = hostile_run(Hostile::GreetingLiterals, &[]);
    assert!(
        t.contains(&format!(
            "the server 127.0.0.1:{port} sent more than 256 KiB before authentication"
        )) && t.contains("nothing was stored"),
        "{t}"
    );
    assert!(t.starts_with("status: exit status: 1"), "{t}");
}

#[test]
fn hostile_untagged_floods_are_refused() {
    for how in [Hostile::ExistsFlood, Hostile::BigUntaggedLines] {
        let (t, _, port) = hostile_run(how, &["--dry-run", "--allow-duplicates"]);
        assert!(
            t.contains(&format!(
                "the server 127.0.0.1:{port} sent more than 32 MiB of untagged responses"
            )),
            "{how:?}: {t}"
        );
        assert!(t.starts_with("status: exit status: 1"), "{t}");
    }
}

#[test]
fn hostile_fetch_literals_are_dropped_unheld() {
    // Longer than the message, so not identical: read and dropped, and the dry run goes on.
    let (t, _, _) = hostile_run(Hostile::FetchLiterals, &["--dry-run"]);
    assert!(
        t.starts_with("status: exit status: 0")
            && t.contains("dry run: 1 of 1 message would be stored in 'Drafts', 0 already there"),
        "{t}"
    );
}

/// A scripted fake server on 127.0.0.1 (for input no real server sends), one connection at a
/// time: greets with `greeting`, then gives every command line to `answer`, which writes what
/// it likes and says whether to go on. A command's literal (`{n}`) gets a go-ahead and is read.
/// Each connection is logged as `connect`, and every line received.
struct Scripted {
    port: u16,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

type Answer = dyn Fn(&mut std::net::TcpStream, &str, &str) -> std::io::Result<bool> + Send + Sync;

impl Scripted {
    fn start(greeting: &'static str, answer: Box<Answer>) -> Scripted {
        use std::io::{BufRead, Read};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let shared = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut w) = stream else { continue };
                shared.lock().unwrap().push("connect".to_string());
                let Ok(read) = w.try_clone() else { continue };
                let mut r = std::io::BufReader::new(read);
                if w.write_all(greeting.as_bytes()).is_err() {
                    continue;
                }
                let mut line = String::new();
                while r.read_line(&mut line).is_ok_and(|n| n > 0) {
                    let l = std::mem::take(&mut line).trim_end().to_string();
                    shared.lock().unwrap().push(l.clone());
                    if let Some(n) = l
                        .strip_suffix('}')
                        .and_then(|x| x.rsplit_once('{'))
                        .and_then(|(_, n)| n.trim_end_matches('+').parse::<u64>().ok())
                    {
                        if !l.ends_with("+}") && w.write_all(b"+ go\r\n").is_err() {
                            break;
                        }
                        let _ = std::io::copy(&mut (&mut r).take(n), &mut std::io::sink());
                        continue;
                    }
                    let tag = l.split(' ').next().unwrap_or("*").to_string();
                    let command = l[tag.len()..].trim_start().to_string();
                    if !answer(&mut w, &tag, &command).unwrap_or(false) {
                        break;
                    }
                }
            }
        });
        Scripted { port, log }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// The ordinary answers: LOGIN OK with `caps`, LOGOUT with BYE, OK to anything else.
fn ordinary(
    w: &mut std::net::TcpStream,
    tag: &str,
    command: &str,
    caps: &str,
) -> std::io::Result<bool> {
    let word = command.split(' ').next().unwrap_or("").to_ascii_uppercase();
    match word.as_str() {
        "LOGIN" => w.write_all(format!("{tag} OK [CAPABILITY {caps}] in\r\n").as_bytes())?,
        "LOGOUT" => {
            w.write_all(format!("* BYE bye\r\n{tag} OK bye\r\n").as_bytes())?;
            return Ok(false);
        }
        _ => w.write_all(format!("{tag} OK done\r\n").as_bytes())?,
    }
    Ok(true)
}

/// The configuration for a fake server on 127.0.0.1.
fn fake_env(port: u16, extra: &str) -> Env {
    Env::new(&plain_config_at("127.0.0.1", port, extra))
}

#[test]
fn timeout_is_not_extended_by_a_trickle() {
    // After login, EXAMINE is answered one byte at a time, 300 ms apart, for 30 bytes: an idle
    // timeout of 1 s would never strike.
    let server = Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] trickle\r\n",
        Box::new(|w, tag, command| {
            if command.starts_with("EXAMINE") {
                for b in b"* OK [UIDNEXT 1] trickling...." {
                    w.write_all(&[*b])?;
                    std::thread::sleep(std::time::Duration::from_millis(300));
                }
                w.write_all(format!("\r\n{tag} OK done\r\n").as_bytes())?;
                return Ok(true);
            }
            ordinary(w, tag, command, "IMAP4rev1")
        }),
    );
    let env = fake_env(server.port, "\ttimeout = 1\n");
    let o = env.run(&["--dry-run"], &series::big_message(100, "trickle"));
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("timed out after 1 s waiting for the answer to EXAMINE (imap.timeout)"),
        "{t}"
    );
    assert!(!t.contains("os error"), "{t}");
}

#[test]
fn server_text_is_escaped_in_errors() {
    let server = Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] hi\r\n",
        Box::new(|w, tag, command| {
            if command.starts_with("LOGIN") {
                w.write_all(
                    format!("{tag} NO [ALERT] \x1b]0;pwned\x07\x1b[2J\x1b[31mdenied\r\n")
                        .as_bytes(),
                )?;
                return Ok(true);
            }
            ordinary(w, tag, command, "IMAP4rev1")
        }),
    );
    let env = fake_env(server.port, "");
    let o = env.run(&[], &series::big_message(100, "escape"));
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        !o.stderr.contains(&0x1b) && !o.stderr.contains(&0x07),
        "{t}"
    );
    assert!(
        t.contains(r#"the server said "NO [ALERT] \u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31mdenied""#),
        "{t}"
    );
}

#[test]
fn a_mangled_esearch_reply_is_unknown_not_absent() {
    let server = Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] hi\r\n",
        Box::new(|w, tag, command| {
            if command.starts_with("UID SEARCH") {
                // What a reply-corrupting proxy made of `* ESEARCH (TAG "..") UID ALL 2`.
                w.write_all(format!("* ESEARCHLL 2\r\n{tag} OK done\r\n").as_bytes())?;
                return Ok(true);
            }
            ordinary(w, tag, command, "IMAP4rev1 ESEARCH UIDPLUS")
        }),
    );
    let env = fake_env(server.port, "");
    let o = env.run(&["--json"], &series::big_message(100, "esearch"));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        !server.log().contains("APPEND"),
        "nothing stored:\n{}",
        server.log()
    );
    assert!(
        t.contains("missing or malformed for message 1") && t.contains("1/1 UNKNOWN"),
        "{t}"
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(json["messages"][0]["status"], "unknown", "{json}");
    assert_eq!(json["unknown"], 1);
}

/// The pids a tunnel wrapped by [`traced_tunnel`] wrote: the shell's and its command's.
fn tunnel_pids(file: &Path) -> Vec<i32> {
    fs::read_to_string(file)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// `command` run in the background of a shell that records both pids in `file` and waits: a
/// tunnel that a kill of the shell alone leaves running.
fn traced_tunnel(command: &str, file: &Path) -> String {
    // A background command's stdin is /dev/null unless redirected, and dash applies that
    // before `<&0`: the pipe goes through fd 3.
    format!(
        "exec 3<&0; {command} <&3 3<&- & echo $$ $! > {}; wait",
        file.display()
    )
}

/// Whether `pid` is a live process (a zombie waiting for its reaper counts as gone).
fn alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

/// Runs the sender with stderr to a file (a pipe would wait for every process holding it),
/// then checks that the tunnel's processes are gone; kills leftovers so that a failure does not
/// leave them behind.
fn run_and_check_tunnel_gone(env: &Env, args: &[&str], stdin: &[u8], pids: &Path) -> String {
    let err = env.path().join("stderr");
    let mut c = env.command(args);
    c.stdout(Stdio::null())
        .stderr(fs::File::create(&err).expect("stderr file"));
    let mut child = c.stdin(Stdio::piped()).spawn().expect("run");
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin);
    drop(input);
    let status = child.wait().expect("wait");
    let t = format!(
        "status: {status}\n{}",
        fs::read_to_string(&err).unwrap_or_default()
    );
    let pids = tunnel_pids(pids);
    assert_eq!(pids.len(), 2, "the tunnel ran: {t}");
    let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    for &p in &left {
        if let Some(pid) = rustix::process::Pid::from_raw(p) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    assert!(left.is_empty(), "tunnel processes left: {left:?}\n{t}");
    t
}

#[test]
fn a_tunnel_is_gone_after_a_refused_login() {
    if !support::runs("socat", &["-V"]) {
        support::skip(
            "a_tunnel_is_gone_after_a_refused_login",
            "socat not found (scripts/test.sh installs it)",
        );
        return;
    }
    // The server refuses the login and keeps the connection open; socat (-t 600) lingers after
    // its input closes, as ssh waits for the remote side.
    let server = Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] hi\r\n",
        Box::new(|w, tag, command| {
            if command.starts_with("LOGIN") {
                w.write_all(format!("{tag} NO [AUTHENTICATIONFAILED] no\r\n").as_bytes())?;
                return Ok(true);
            }
            if command.starts_with("LOGOUT") {
                w.write_all(format!("* BYE bye\r\n{tag} OK bye\r\n").as_bytes())?;
                return Ok(true);
            }
            ordinary(w, tag, command, "IMAP4rev1")
        }),
    );
    let env = Env::new("");
    let pids = env.path().join("pids");
    let tunnel = traced_tunnel(
        &format!("socat -t 600 - TCP:127.0.0.1:{}", server.port),
        &pids,
    );
    fs::write(
        env.path().join("gitconfig"),
        format!(
            "[imap]\n\ttunnel = \"{tunnel}\"\n\tuser = {USER}\n\tpass = {PASSWORD}\n\tfolder = Drafts\n"
        ),
    )
    .unwrap();
    let t = run_and_check_tunnel_gone(&env, &[], &series::big_message(100, "tun"), &pids);
    assert!(t.contains("authentication failed (LOGIN)"), "{t}");
    assert!(
        server.log().contains("LOGOUT"),
        "LOGOUT after the refusal:\n{}",
        server.log()
    );
}

#[test]
fn a_tunnel_is_gone_on_success_and_on_errors() {
    let Some(d) = Dovecot::start("tunnel_gone") else {
        return;
    };
    let env = Env::new("");
    let pids = env.path().join("pids");
    let tunnel = traced_tunnel(&d.tunnel(), &pids);
    let mbox = series::format_patch(env.path(), 3, "tungone");
    // A name longer than a file name may be: CREATE fails.
    let long = "x".repeat(400);
    for (folder, ok) in [("Drafts", true), (long.as_str(), false)] {
        let _ = fs::remove_file(&pids);
        fs::write(
            env.path().join("gitconfig"),
            format!("[imap]\n\ttunnel = \"{tunnel}\"\n\tfolder = \"{folder}\"\n"),
        )
        .unwrap();
        let t = run_and_check_tunnel_gone(&env, &[], &mbox, &pids);
        assert_eq!(t.starts_with("status: exit status: 0"), ok, "{t}");
    }
    // A timeout: the tunnel that never answers.
    let _ = fs::remove_file(&pids);
    fs::write(
        env.path().join("gitconfig"),
        format!(
            "[imap]\n\ttunnel = \"{}\"\n\ttimeout = 1\n\tfolder = Drafts\n",
            traced_tunnel("sleep 600", &pids)
        ),
    )
    .unwrap();
    let t = run_and_check_tunnel_gone(&env, &[], &mbox, &pids);
    assert!(
        t.contains("timed out after 1 s waiting for the server's greeting"),
        "{t}"
    );
}

#[test]
fn errors_name_their_cause_once_and_empty_ca_file_is_unset() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let env = fake_env(port, "");
    let o = env.run(&["--list"], b"");
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert_eq!(t.matches("Connection refused").count(), 1, "{t}");
    // An empty CA file is no CA file: not "cannot use the CA file ''".
    let o = env.run(&["--list", "-c", "imap.sslCAInfo="], b"");
    let t = text(&o);
    assert!(!t.contains("CA file"), "{t}");
    assert_eq!(t.matches("Connection refused").count(), 1, "{t}");
}

#[test]
fn json_report_parses_and_matches_the_text() {
    let Some(d) = Dovecot::start("json_report") else {
        return;
    };
    let env = Env::new(&plain_config(d.port, ""));
    let mbox = series::format_patch(env.path(), 4, "json é");
    let (messages, _) = series::split(&mbox);
    // Two stored first, then all four: two skipped, two stored.
    let first: Vec<u8> = {
        let text = String::from_utf8_lossy(&mbox).into_owned();
        let cut = text
            .match_indices("\nFrom ")
            .nth(1)
            .map_or(text.len(), |(i, _)| i + 1);
        text.as_bytes()[..cut].to_vec()
    };
    let o = env.run(&[], &first);
    assert!(o.status.success(), "{}", text(&o));
    let o = env.run(&["-v", "--json"], &mbox);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let list = json["messages"].as_array().expect("messages");
    assert_eq!(list.len(), 4, "{json}");
    assert_eq!(
        (json["stored"].as_u64(), json["skipped"].as_u64()),
        (Some(2), Some(2))
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    for (k, m) in list.iter().enumerate() {
        assert_eq!(m["index"], k + 1);
        let subject = m["subject"].as_str().expect("subject");
        assert!(!subject.contains("=?"), "decoded: {subject}");
        assert_eq!(m["message_id"].as_str(), messages[k].message_id.as_deref());
        let status = m["status"].as_str().expect("status");
        let uid = m["uid"].as_u64().expect("uid");
        let line = match status {
            "stored" => format!("  {}/4 stored (UID {uid}): {subject}", k + 1),
            "skipped" => format!(
                "  {}/4 skipped: identical to UID {uid}, already there: {subject}",
                k + 1
            ),
            other => panic!("{other}"),
        };
        assert!(stderr.lines().any(|l| l == line), "'{line}' not in:\n{t}");
    }
}

/// A pseudo-terminal: the master, and the slave's path.
fn pty() -> (std::os::fd::OwnedFd, PathBuf) {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    (master, PathBuf::from(name.to_string_lossy().into_owned()))
}

/// Runs `flagsplit-imap-send --list` against a server that only greets, with no password
/// configured and no git on PATH (so that the sender's own prompt asks), on a new pseudo-terminal
/// as its controlling terminal (`setsid --ctty`). `env` is added to its environment. Returns
/// the child, the master, the slave (kept open to read its modes), and the terminal's output,
/// filled by a thread.
fn prompt_run(
    env: &[(&str, &str)],
) -> (
    std::process::Child,
    fs::File,
    fs::File,
    std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
) {
    use std::io::Read;
    let server = Scripted::start(
        "* OK [CAPABILITY IMAP4rev1] hi\r\n",
        Box::new(|w, tag, command| ordinary(w, tag, command, "IMAP4rev1")),
    );
    let (master, slave_path) = pty();
    let slave = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&slave_path)
        .expect("slave");
    let dir = tempfile::tempdir().expect("dir");
    // Found on this process's PATH: the child's has no git (nor anything else).
    let on_path = |name: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.exists())
    };
    let setsid = on_path("setsid").expect("setsid (util-linux)");
    // A test command started in the background (`cmd &` in a script) has SIGINT ignored, which its
    // children inherit and keep, as they should: the sender starts with the default disposition,
    // as it does from a terminal (coreutils env).
    let env_bin = on_path("env").expect("env (coreutils)");
    let mut c = Command::new(setsid);
    c.arg("--ctty")
        .arg(env_bin)
        .arg("--default-signal=INT,TERM")
        .arg(BIN)
        .args(["--list", "-c", "imap.host=imap://127.0.0.1"])
        .arg("-c")
        .arg(format!("imap.port={}", server.port))
        .args(["-c", "imap.user=tester", "-c", "imap.allowPlaintext=true"])
        .env_clear()
        .env("PATH", dir.path())
        .env("HOME", dir.path())
        .stdin(slave.try_clone().expect("dup"))
        .stdout(slave.try_clone().expect("dup"))
        .stderr(slave.try_clone().expect("dup"));
    for (k, v) in env {
        c.env(k, v);
    }
    assert!(echo_on(&slave), "a new pseudo-terminal echoes");
    let child = c.spawn().expect("setsid");
    std::mem::forget(dir);
    std::mem::forget(server);
    let master = fs::File::from(master);
    let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (mut reader, shared) = (master.try_clone().expect("dup"), output.clone());
    std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            shared.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    (child, master, slave, output)
}

fn echo_on(slave: &fs::File) -> bool {
    let modes = rustix::termios::tcgetattr(slave).expect("tcgetattr");
    modes
        .local_modes
        .contains(rustix::termios::LocalModes::ECHO)
}

/// Waits until the terminal shows the password prompt and echo is off.
fn wait_for_prompt(output: &std::sync::Mutex<Vec<u8>>, slave: &fs::File) {
    loop {
        let shown = String::from_utf8_lossy(&output.lock().unwrap()).into_owned();
        if shown.contains("Password for 'imap://tester@127.0.0.1") && !echo_on(slave) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_prompt_restores_the_terminal_on_sigint_and_sigterm() {
    use std::os::unix::process::ExitStatusExt;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // prompt_run checked that the terminal echoed before the sender started; checking here
        // would race with the sender turning echo off for its prompt.
        let (mut child, mut master, slave, output) = prompt_run(&[]);
        wait_for_prompt(&output, &slave);
        if signal == libc::SIGINT {
            // Ctrl-C typed at the terminal: SIGINT to its foreground process group.
            master.write_all(&[0x03]).expect("write ^C");
        } else {
            let pid = rustix::process::Pid::from_child(&child);
            rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("kill");
        }
        let status = child.wait().expect("wait");
        assert_eq!(status.signal(), Some(signal), "{status}");
        assert!(echo_on(&slave), "echo left off after signal {signal}");
    }
}

#[test]
fn no_prompt_with_git_terminal_prompt_0() {
    let (mut child, _master, slave, output) = prompt_run(&[("GIT_TERMINAL_PROMPT", "0")]);
    let status = child.wait().expect("wait");
    assert!(!status.success());
    assert!(echo_on(&slave));
    // The error reaches the terminal; no prompt was written before it. The reader thread may
    // have the line only in part yet: wait for its end (or 10 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let shown = String::from_utf8_lossy(&output.lock().unwrap()).into_owned();
        let whole = shown
            .find("error:")
            .is_some_and(|at| shown[at..].contains('\n'));
        if whole || std::time::Instant::now() > deadline {
            assert!(shown.contains("error:"), "{shown}");
            assert!(!shown.contains("Password for"), "{shown}");
            assert!(shown.contains("no password for 127.0.0.1"), "{shown}");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `program ARGS` (`flagsplit imap-send ...` when `program` is `flagsplit`) with empty
/// standard input, no git configuration and outside any repository: what it does before it
/// would need a server.
fn run_unconfigured(dir: &Path, program: &str, args: &[&str]) -> Output {
    let mut c = Command::new(program);
    if program == FLAGSPLIT || program == "git" {
        c.arg("imap-send");
    }
    c.args(args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// Whether the installed git is 2.47 or later; when it is not, `test` is skipped (a failure
/// under CI=true) and only the recorded results are compared.
fn have_git_2_47(test: &str) -> bool {
    let version = Command::new("git")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let mut parts = text.trim().strip_prefix("git version ")?.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            Some((major, minor))
        });
    match version {
        Some(v) if v >= (2, 47) => true,
        found => {
            crate::support::skip(
                test,
                &format!(
                    "git {found:?} is not 2.47 or later: only the recorded results are compared"
                ),
            );
            false
        }
    }
}

/// (status, standard output, first line of standard error) with flagsplit's program prefix
/// taken off, and `usage` for either program's usage text.
fn observed_usage(out: &Output) -> (i32, String, String) {
    let usage = |s: &str| {
        if s.starts_with("usage: git imap-send") || s.starts_with("Usage: flagsplit imap-send") {
            "usage".to_string()
        } else {
            s.to_string()
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or("");
    let first = first.strip_prefix("flagsplit imap-send: ").unwrap_or(first);
    (
        out.status.code().unwrap_or(-1),
        usage(&String::from_utf8_lossy(&out.stdout)),
        usage(first),
    )
}

/// git's option rules: what git 2.47.3's imap-send refuses while parsing its options (before it
/// needs any configuration) is refused alike (status 129, git's first line, the usage where git
/// prints it), and every spelling of git's own options it accepts is accepted: flagsplit then
/// does what it does without them (here: report the empty input).
#[test]
fn options_like_git_imap_send() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let live = have_git_2_47("options_like_git_imap_send");
    // Recorded from git 2.47.3: (arguments, status, standard output, standard error's first line).
    let refused: &[(&[&str], i32, &str, &str)] = &[
        (
            &["--curl=1"],
            129,
            "",
            "error: option `curl' takes no value",
        ),
        (
            &["--no-curl=1"],
            129,
            "",
            "error: option `no-curl' takes no value",
        ),
        (
            &["--verbose=1"],
            129,
            "",
            "error: option `verbose' takes no value",
        ),
        (
            &["--no-verbose=1"],
            129,
            "",
            "error: option `no-verbose' takes no value",
        ),
        (
            &["--no-q=1"],
            129,
            "",
            "error: option `no-quiet' takes no value",
        ),
        (&["--bogus"], 129, "", "error: unknown option `bogus'"),
        (&["--bogus=1"], 129, "", "error: unknown option `bogus=1'"),
        (&["-x"], 129, "", "error: unknown switch `x'"),
        (&["-vx"], 129, "", "error: unknown switch `x'"),
        (&["-h"], 129, "usage", ""),
        (&["-v", "-h"], 129, "usage", ""),
        (&["-qh"], 129, "usage", ""),
        (&["--help-all"], 129, "usage", ""),
        (
            &["--no"],
            129,
            "usage",
            "error: ambiguous option: no (could be --no-quiet or --no-curl)",
        ),
        (
            &["--no-"],
            129,
            "usage",
            "error: ambiguous option: no- (could be --no-curl or --no-curl)",
        ),
        (
            &["-curl"],
            129,
            "",
            "error: did you mean `--curl` (with two dashes)?",
        ),
        (
            &["-verbose"],
            129,
            "",
            "error: did you mean `--verbose` (with two dashes)?",
        ),
        (
            &["-quiet"],
            129,
            "",
            "error: did you mean `--quiet` (with two dashes)?",
        ),
        (
            &["-no-curl"],
            129,
            "",
            "error: did you mean `--no-curl` (with two dashes)?",
        ),
        (&["x"], 129, "", "usage"),
        (&["--", "x"], 129, "", "usage"),
        (&["--end-of-options", "x"], 129, "", "usage"),
    ];
    let mut failures = Vec::new();
    for &(args, status, stdout, stderr) in refused {
        let want = (status, stdout.to_string(), stderr.to_string());
        for program in [BIN, FLAGSPLIT] {
            let got = observed_usage(&run_unconfigured(tmp.path(), program, args));
            if got != want {
                failures.push(format!("{program} {args:?}: {got:?}, git 2.47.3: {want:?}"));
            }
        }
        if live {
            let g = observed_usage(&run_unconfigured(tmp.path(), "git", args));
            if g != want {
                failures.push(format!("git now {args:?}: {g:?}, recorded: {want:?}"));
            }
        }
    }
    // Accepted by git (which then stops for the missing configuration, status 1): flagsplit
    // accepts them too and reports what it reports without them.
    let baseline = run_unconfigured(tmp.path(), BIN, &[]);
    assert_eq!(baseline.status.code(), Some(1), "{}", text(&baseline));
    let accepted: &[&[&str]] = &[
        &["--no-curl"],
        &["--no-cu"],
        &["--curl", "--no-curl"],
        &["--quiet"],
        &["-q"],
        &["--qu"],
        &["--q"],
        &["-v"],
        &["-vv"],
        &["-qv"],
        &["--verbose"],
        &["--verb"],
        &["--ver"],
        &["--v"],
        &["--no-verbose"],
        &["--no-quiet"],
        &["--no-v"],
        &["-v", "--no-verbose", "-q", "--no-quiet"],
        &["--end-of-options"],
        &["--"],
    ];
    for &args in accepted {
        let f = run_unconfigured(tmp.path(), BIN, args);
        if (f.status.code(), &f.stdout, &f.stderr)
            != (baseline.status.code(), &baseline.stdout, &baseline.stderr)
        {
            failures.push(format!(
                "{args:?}:\n{}\nwithout them:\n{}",
                text(&f),
                text(&baseline)
            ));
        }
        if live {
            let g = run_unconfigured(tmp.path(), "git", args);
            let err = String::from_utf8_lossy(&g.stderr);
            if g.status.code() != Some(1) || err.contains("error:") || err.contains("usage:") {
                failures.push(format!("git refuses {args:?}: {}", text(&g)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--no-curl` (git's own IMAP implementation, the only one flagsplit has) changes nothing;
/// `--curl` gets git's warning for a build without libcurl's, and otherwise changes nothing;
/// the last of the two wins, as in git.
#[test]
fn no_curl_is_silent_and_curl_warns() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for program in [FLAGSPLIT, BIN] {
        let plain = run_unconfigured(tmp.path(), program, &["--dry-run"]);
        assert_eq!(plain.status.code(), Some(1), "{}", text(&plain));
        assert!(!plain.stderr.is_empty());
        for args in [
            &["--no-curl", "--dry-run"][..],
            &["--dry-run", "--no-curl"],
            &["--curl", "--no-curl", "--dry-run"],
        ] {
            let o = run_unconfigured(tmp.path(), program, args);
            assert_eq!(
                (o.status.code(), &o.stdout, &o.stderr),
                (plain.status.code(), &plain.stdout, &plain.stderr),
                "{program} {args:?}:\n{}",
                text(&o)
            );
        }
        let curl = run_unconfigured(tmp.path(), program, &["--curl", "--dry-run"]);
        let mut want =
            b"flagsplit-imap-send: warning: --curl not supported in this build\n".to_vec();
        want.extend_from_slice(&plain.stderr);
        assert_eq!(curl.status.code(), plain.status.code());
        assert_eq!(curl.stdout, plain.stdout);
        assert_eq!(
            String::from_utf8_lossy(&curl.stderr),
            String::from_utf8_lossy(&want)
        );
    }
}

//! User names and passwords from git's credential system (`git credential fill`, then `approve`
//! after a successful login or `reject` after a refused one), and from a terminal prompt when git
//! has none to give. Secrets travel on `git credential`'s standard input, never in arguments.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::secret::Secret;

/// What identifies the credential: git's `protocol`, `host` (with `:port` when not the default)
/// and `username`.
#[derive(Debug, Clone)]
pub struct CredentialKey {
    /// `imap` or `imaps`.
    pub protocol: &'static str,
    /// `host` or `host:port`.
    pub host: String,
    /// The user, when known.
    pub username: Option<String>,
}

impl CredentialKey {
    fn description(&self, password: Option<&Secret>) -> Vec<u8> {
        let mut s = format!("protocol={}\nhost={}\n", self.protocol, self.host);
        if let Some(u) = &self.username {
            s.push_str(&format!("username={u}\n"));
        }
        if let Some(p) = password {
            s.push_str("password=");
            s.push_str(p.expose());
            s.push('\n');
        }
        s.push('\n');
        let bytes = s.clone().into_bytes();
        drop(Secret::new(s));
        bytes
    }
}

/// A credential.
#[derive(Debug, Clone)]
pub struct Credential {
    /// The user name.
    pub username: String,
    /// The password or token.
    pub password: Secret,
    /// Whether `git credential fill` supplied it (so it is to be approved or rejected).
    pub from_git: bool,
}

/// Asks `git credential fill`. `None` when git has nothing (no helper and no prompt possible, or
/// git not installed).
pub fn git_fill(key: &CredentialKey) -> Option<Credential> {
    let mut child = Command::new("git")
        .args(["credential", "fill"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let mut input = key.description(None);
    let wrote = stdin.write_all(&input);
    input.fill(0);
    drop(stdin);
    let output = child.wait_with_output().ok()?;
    if wrote.is_err() || !output.status.success() {
        return None;
    }
    let mut username = key.username.clone();
    let mut password = None;
    for line in output.stdout.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        if let Some(u) = line.strip_prefix("username=") {
            username = Some(u.to_string());
        } else if let Some(p) = line.strip_prefix("password=") {
            password = Some(Secret::new(p));
        }
    }
    let mut raw = output.stdout;
    raw.fill(0);
    Some(Credential {
        username: username?,
        password: password?,
        from_git: true,
    })
}

/// `git credential approve` (after a successful login) or `reject` (after a refused one).
/// Failures are ignored: the upload itself does not depend on them.
pub fn git_report(key: &CredentialKey, credential: &Credential, approve: bool) {
    let action = if approve { "approve" } else { "reject" };
    let Ok(mut child) = Command::new("git")
        .args(["credential", action])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
    else {
        return;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let key = CredentialKey {
            username: Some(credential.username.clone()),
            ..key.clone()
        };
        let mut input = key.description(Some(&credential.password));
        let _ = stdin.write_all(&input);
        input.fill(0);
    }
    let _ = child.wait();
}

/// Prompts on the terminal (`/dev/tty`), the password without echo. `None` when there is no
/// terminal.
pub fn tty_prompt(key: &CredentialKey) -> Option<Credential> {
    let mut tty = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut reader = BufReader::new(tty.try_clone().ok()?);
    let username = match &key.username {
        Some(u) => u.clone(),
        None => {
            write!(tty, "Username for '{}://{}': ", key.protocol, key.host).ok()?;
            let mut line = String::new();
            reader.read_line(&mut line).ok()?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    write!(
        tty,
        "Password for '{}://{}@{}': ",
        key.protocol, username, key.host
    )
    .ok()?;
    let echo_off = set_echo(false);
    let mut line = String::new();
    let read = reader.read_line(&mut line);
    if echo_off {
        set_echo(true);
    }
    let _ = writeln!(tty);
    read.ok()?;
    let password = Secret::new(line.trim_end_matches(['\r', '\n']));
    drop(Secret::new(line));
    Some(Credential {
        username,
        password,
        from_git: false,
    })
}

/// Turns terminal echo off or on with `stty` (no libc calls needed).
fn set_echo(on: bool) -> bool {
    let Ok(tty) = std::fs::File::open("/dev/tty") else {
        return false;
    };
    Command::new("stty")
        .arg(if on { "echo" } else { "-echo" })
        .stdin(tty)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

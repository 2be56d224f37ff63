//! User names and passwords from git's credential system (`git credential fill`, then `approve`
//! after a successful login or `reject` after a refused one), and from a terminal prompt when git
//! has none to give. Secrets travel on `git credential`'s standard input, never in arguments.
//!
//! The protocol is one `key=value` per line, so a value with a newline would add attributes of
//! its own choosing (`username=me\nhost=github.com` asks for another site's token). Every value
//! written is checked first, with git's own rule and words: no newline ("credential value for
//! username contains newline"), no carriage return (which some helpers take as a line end; git
//! refuses it too unless `credential.protectProtocol=false`, which is not honoured here), and no
//! NUL byte (which git cannot represent, and which would cut the value short).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, Ordering};

use rustix::termios::{self, LocalModes, OptionalActions, Termios};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use zeroize::{Zeroize, Zeroizing};

use crate::secret::Secret;

/// A character the credential protocol cannot carry in a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden {
    /// `\n`.
    Newline,
    /// `\r`.
    CarriageReturn,
    /// `\0`.
    Nul,
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Forbidden::Newline => "newline",
            Forbidden::CarriageReturn => "carriage return",
            Forbidden::Nul => "NUL byte",
        })
    }
}

/// A value that cannot be written to `git credential`: which attribute, and why. The value
/// itself is never shown (it may be a secret).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("credential value for {key} contains {what}")]
pub struct UnsafeValue {
    /// The attribute (`host`, `username`, `password`, ...).
    pub key: &'static str,
    /// The character found.
    pub what: Forbidden,
}

/// Checks one value for the attribute `key`: `Err` when it holds a newline, carriage return or
/// NUL byte (the first of these found, in that order of precedence: newline first, as git).
pub fn check_value(key: &'static str, value: &str) -> Result<(), UnsafeValue> {
    let what = if value.contains('\n') {
        Forbidden::Newline
    } else if value.contains('\r') {
        Forbidden::CarriageReturn
    } else if value.contains('\0') {
        Forbidden::Nul
    } else {
        return Ok(());
    };
    Err(UnsafeValue { key, what })
}

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
    /// Checks every value the key would write (before any helper or prompt is asked).
    pub fn check(&self) -> Result<(), UnsafeValue> {
        check_value("protocol", self.protocol)?;
        check_value("host", &self.host)?;
        if let Some(u) = &self.username {
            check_value("username", u)?;
        }
        Ok(())
    }

    /// The description `git credential` reads: the key, and for approve/reject the credential's
    /// password and the attributes the helper gave with it. Nothing is returned (and so nothing
    /// written) when any value is unsafe.
    fn description(
        &self,
        credential: Option<&Credential>,
    ) -> Result<Zeroizing<Vec<u8>>, UnsafeValue> {
        self.check()?;
        if let Some(c) = credential {
            c.check()?;
        }
        // Large enough for any description, so that it is never reallocated (leaving an
        // uncleared copy of the password behind).
        let size = 256
            + self.host.len()
            + self.username.as_ref().map_or(0, String::len)
            + credential.map_or(0, |c| {
                c.password.len()
                    + c.oauth_refresh_token.as_ref().map_or(0, Secret::len)
                    + c.password_expiry_utc.as_ref().map_or(0, String::len)
            });
        let mut s = Zeroizing::new(String::with_capacity(size));
        s.push_str(&format!("protocol={}\nhost={}\n", self.protocol, self.host));
        if let Some(u) = &self.username {
            s.push_str(&format!("username={u}\n"));
        }
        if let Some(c) = credential {
            s.push_str("password=");
            s.push_str(c.password.expose());
            s.push('\n');
            if let Some(t) = &c.oauth_refresh_token {
                s.push_str("oauth_refresh_token=");
                s.push_str(t.expose());
                s.push('\n');
            }
            if let Some(e) = &c.password_expiry_utc {
                s.push_str(&format!("password_expiry_utc={e}\n"));
            }
        }
        s.push('\n');
        Ok(Zeroizing::new(std::mem::take(&mut *s).into_bytes()))
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
    /// `password_expiry_utc` as the helper gave it (passed back on approve and reject).
    pub password_expiry_utc: Option<String>,
    /// `oauth_refresh_token` as the helper gave it (passed back on approve and reject).
    pub oauth_refresh_token: Option<Secret>,
}

impl Credential {
    /// A user name and password from the configuration or a prompt (not from git).
    pub fn new(username: String, password: Secret) -> Credential {
        Credential {
            username,
            password,
            from_git: false,
            password_expiry_utc: None,
            oauth_refresh_token: None,
        }
    }

    /// Checks every value that approve or reject would write back.
    pub fn check(&self) -> Result<(), UnsafeValue> {
        check_value("username", &self.username)?;
        check_value("password", self.password.expose())?;
        if let Some(t) = &self.oauth_refresh_token {
            check_value("oauth_refresh_token", t.expose())?;
        }
        if let Some(e) = &self.password_expiry_utc {
            check_value("password_expiry_utc", e)?;
        }
        Ok(())
    }
}

/// Asks `git credential fill`. `Ok(None)` when git has nothing (no helper and no prompt
/// possible, or git not installed); `Err` before git is run when the key holds an unsafe value,
/// and after when git's answer does (so that it is neither used nor written back).
pub fn git_fill(key: &CredentialKey) -> Result<Option<Credential>, UnsafeValue> {
    let input = key.description(None)?;
    let Ok(mut child) = Command::new("git")
        .args(["credential", "fill"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    else {
        return Ok(None);
    };
    let wrote = match child.stdin.take() {
        Some(mut stdin) => stdin.write_all(&input).is_ok(),
        None => false,
    };
    drop(input);
    let Ok(output) = child.wait_with_output() else {
        return Ok(None);
    };
    let raw = Zeroizing::new(output.stdout);
    let parsed = parse_fill(key, &raw);
    if !wrote || !output.status.success() {
        return Ok(None);
    }
    parsed
}

/// Reads `git credential fill`'s answer: the user name (else the key's), the password, and the
/// attributes to pass back. `Ok(None)` without a user name or password.
fn parse_fill(key: &CredentialKey, out: &[u8]) -> Result<Option<Credential>, UnsafeValue> {
    let mut username = key.username.clone();
    let mut password = None;
    let mut expiry = None;
    let mut refresh = None;
    for line in out.split(|&b| b == b'\n') {
        let line = Secret::new(String::from_utf8_lossy(line));
        let line = line.expose();
        if let Some(u) = line.strip_prefix("username=") {
            username = Some(u.to_string());
        } else if let Some(p) = line.strip_prefix("password=") {
            password = Some(Secret::new(p));
        } else if let Some(e) = line.strip_prefix("password_expiry_utc=") {
            expiry = Some(e.to_string());
        } else if let Some(t) = line.strip_prefix("oauth_refresh_token=") {
            refresh = Some(Secret::new(t));
        }
    }
    let (Some(username), Some(password)) = (username, password) else {
        return Ok(None);
    };
    let credential = Credential {
        username,
        password,
        from_git: true,
        password_expiry_utc: expiry,
        oauth_refresh_token: refresh,
    };
    credential.check()?;
    Ok(Some(credential))
}

/// `git credential approve` (after a successful login) or `reject` (after a refused one),
/// with the attributes the helper gave (`password_expiry_utc`, `oauth_refresh_token`). Failures
/// to run git are ignored: the upload itself does not depend on them. An unsafe value is
/// refused before git is run.
pub fn git_report(
    key: &CredentialKey,
    credential: &Credential,
    approve: bool,
) -> Result<(), UnsafeValue> {
    let key = CredentialKey {
        username: Some(credential.username.clone()),
        ..key.clone()
    };
    let input = key.description(Some(credential))?;
    let action = if approve { "approve" } else { "reject" };
    if let Ok(mut child) = Command::new("git")
        .args(["credential", action])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
    {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&input);
        }
        let _ = child.wait();
    }
    drop(input);
    Ok(())
}

/// Prompts on the terminal (`/dev/tty`), the password without echo. `None` when there is no
/// terminal, or when `GIT_TERMINAL_PROMPT=0` says not to prompt (as git does).
pub fn tty_prompt(key: &CredentialKey) -> Option<Credential> {
    if std::env::var_os("GIT_TERMINAL_PROMPT").is_some_and(|v| v == "0") {
        return None;
    }
    let mut tty = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let username = match &key.username {
        Some(u) => u.clone(),
        None => {
            write!(tty, "Username for '{}://{}': ", key.protocol, key.host).ok()?;
            let line = read_line(&mut tty)?;
            String::from_utf8_lossy(&line).into_owned()
        }
    };
    write!(
        tty,
        "Password for '{}://{}@{}': ",
        key.protocol, username, key.host
    )
    .ok()?;
    let line = {
        let _echo_off = EchoOff::new(&tty);
        read_line(&mut tty)
    };
    let _ = writeln!(tty);
    let line = line?;
    let password = Secret::new(String::from_utf8_lossy(&line));
    Some(Credential::new(username, password))
}

/// One line from the terminal, without its end, read unbuffered (no copy is left in a buffer)
/// into memory cleared when dropped; `None` at end of file or on an error.
fn read_line(tty: &mut File) -> Option<Zeroizing<Vec<u8>>> {
    let mut line = Zeroizing::new(Vec::with_capacity(1024));
    let mut byte = [0u8];
    loop {
        match tty.read(&mut byte) {
            Ok(0) if line.is_empty() => return None,
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => {
                // Within the capacity reserved, so that no reallocation leaves a copy behind.
                if line.len() < line.capacity() {
                    line.push(byte[0]);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    byte.zeroize();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Some(line)
}

/// Terminal echo off while it lives. Its modes are restored when it is dropped, and also when
/// SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives meanwhile (see [`install_handlers`]): both restore
/// the same [`Saved`], the one in [`SAVED`].
struct EchoOff(&'static Saved);

/// The terminal and the modes to restore, for the signal handlers; null when no prompt is on.
/// Each one set is leaked on purpose: a handler running on another thread may still read it.
static SAVED: AtomicPtr<Saved> = AtomicPtr::new(std::ptr::null_mut());
static HANDLERS: Once = Once::new();

struct Saved {
    tty: OwnedFd,
    modes: Termios,
}

/// Installs, once per process, a handler for SIGINT, SIGTERM, SIGHUP and SIGQUIT that restores
/// the terminal modes while a prompt has echo off, then lets the signal take its default action
/// (the process ends as it would have). A signal the process ignores (SIGINT in a background
/// job) is left alone; the handlers assume no other handler for these signals (the program's
/// own default).
fn install_handlers() {
    HANDLERS.call_once(|| {
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            if ignored(signal) {
                continue;
            }
            let action = move || {
                let saved = SAVED.load(Ordering::SeqCst);
                // SAFETY: a non-null pointer in SAVED comes from `Box::leak` and is never freed.
                if let Some(saved) = unsafe { saved.as_ref() } {
                    let _ = termios::tcsetattr(&saved.tty, OptionalActions::Now, &saved.modes);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            };
            // SAFETY: the action is async-signal-safe: an atomic load, one ioctl
            // (`tcsetattr`), and `emulate_default_handler`, documented async-signal-safe;
            // nothing allocates, locks or drops in it.
            let _ = unsafe { signal_hook::low_level::register(signal, action) };
        }
    });
}

/// Whether `signal`'s disposition is to be ignored.
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: an all-zero sigaction is a valid value of this plain C struct.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: with a null new action, sigaction only writes the current one to `old`, which is
    // valid for writes.
    let r = unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) };
    r == 0 && old.sa_sigaction == libc::SIG_IGN
}

impl EchoOff {
    fn new(tty: &File) -> Option<EchoOff> {
        let tty: OwnedFd = tty.try_clone().ok()?.into();
        let modes = termios::tcgetattr(&tty).ok()?;
        install_handlers();
        let saved: &'static Saved = Box::leak(Box::new(Saved { tty, modes }));
        SAVED.store(std::ptr::from_ref(saved).cast_mut(), Ordering::SeqCst);
        let mut quiet = saved.modes.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        let _ = termios::tcsetattr(&saved.tty, OptionalActions::Now, &quiet);
        Some(EchoOff(saved))
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(&self.0.tty, OptionalActions::Now, &self.0.modes);
        SAVED.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(host: &str, user: Option<&str>) -> CredentialKey {
        CredentialKey {
            protocol: "imap",
            host: host.into(),
            username: user.map(str::to_string),
        }
    }

    #[test]
    fn unsafe_values_are_refused_in_gits_words() {
        for (value, what) in [
            ("a\nprotocol=https", "newline"),
            ("a\rb", "carriage return"),
            ("a\0b", "NUL byte"),
            ("a\r\n", "newline"),
        ] {
            assert_eq!(
                check_value("username", value).unwrap_err().to_string(),
                format!("credential value for username contains {what}")
            );
            let e = key(value, None).description(None).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("credential value for host contains {what}")
            );
            let e = key("h", Some(value)).check().unwrap_err();
            assert_eq!(e.key, "username");
        }
        assert!(check_value("host", "imap.example.com:993").is_ok());
    }

    #[test]
    fn description_with_the_attributes_to_pass_back() {
        let mut c = Credential::new("u".into(), Secret::new("pw"));
        c.password_expiry_utc = Some("4102444800".into());
        c.oauth_refresh_token = Some(Secret::new("rt"));
        let d = key("h:1143", Some("u")).description(Some(&c)).unwrap();
        assert_eq!(
            String::from_utf8(d.to_vec()).unwrap(),
            "protocol=imap\nhost=h:1143\nusername=u\npassword=pw\noauth_refresh_token=rt\npassword_expiry_utc=4102444800\n\n"
        );
        for bad in ["x\ny", "x\ry", "x\0y"] {
            let mut c2 = c.clone();
            c2.oauth_refresh_token = Some(Secret::new(bad));
            let e = key("h", Some("u")).description(Some(&c2)).unwrap_err();
            assert_eq!(e.key, "oauth_refresh_token");
            let mut c3 = c.clone();
            c3.password = Secret::new(bad);
            assert_eq!(c3.check().unwrap_err().key, "password");
            let e = c3.check().unwrap_err().to_string();
            assert!(!e.contains('x'), "the value is never shown: {e}");
        }
    }

    #[test]
    fn fill_answers_are_checked_before_use() {
        let k = key("h", None);
        let c = parse_fill(
            &k,
            b"protocol=imap\nhost=h\nusername=u\npassword=pw\npassword_expiry_utc=4102444800\noauth_refresh_token=rt\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (c.username.as_str(), c.password.expose(), c.from_git),
            ("u", "pw", true)
        );
        assert_eq!(c.password_expiry_utc.as_deref(), Some("4102444800"));
        assert_eq!(
            c.oauth_refresh_token.as_ref().map(Secret::expose),
            Some("rt")
        );
        assert!(parse_fill(&k, b"username=u\n").unwrap().is_none());
        for (answer, attr) in [
            (&b"username=u\rx\npassword=pw\n"[..], "username"),
            (b"username=u\npassword=p\0w\n", "password"),
            (
                b"username=u\npassword=pw\noauth_refresh_token=r\rt\n",
                "oauth_refresh_token",
            ),
            (
                b"username=u\npassword=pw\npassword_expiry_utc=1\r\n",
                "password_expiry_utc",
            ),
        ] {
            assert_eq!(parse_fill(&k, answer).unwrap_err().key, attr);
        }
    }
}

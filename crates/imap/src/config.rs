//! The sender's settings: git's `imap.*` keys (read with `git config`, so every git config file,
//! include and `GIT_CONFIG_*` variable counts), then `-c key=value` overrides.
//!
//! Keys git documents: `imap.folder`, `imap.tunnel`, `imap.host` (`imap://` or `imaps://`),
//! `imap.user`, `imap.pass`, `imap.port`, `imap.sslverify`, `imap.preformattedHTML`,
//! `imap.authMethod` — all implemented. Added: `imap.sslCAInfo` (a PEM CA file: trust only it),
//! `imap.allowPlaintext` (send a password or token over an unprotected connection),
//! `imap.timeout` (seconds). An unknown `imap.*` key is reported, never silently ignored.
//!
//! `imap.user` and `imap.host` are written to `git credential`: a newline, carriage return or
//! NUL byte in either is refused when the key is read, in git's words (see [`crate::credential`]).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::credential::check_value;
use crate::sasl::AuthMethod;
use crate::secret::Secret;

/// The default `imap.timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A configuration problem.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value that does not parse.
    #[error("bad value for {key} ({origin}): {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// Where it was set.
        origin: Origin,
        /// Why it is wrong.
        reason: String,
    },
    /// `-c imap.pass=...`.
    #[error(
        "refusing -c imap.pass: a password on the command line is visible to every user of this machine (ps, /proc).\n\
         Let 'git credential' supply it (a credential helper, or its prompt), or set imap.pass in a private git config file"
    )]
    PassOnCommandLine,
    /// `-c` without `=`, or not an `imap.` key.
    #[error("bad -c argument '{0}': expected imap.KEY=VALUE")]
    BadOverride(String),
    /// `git config` could not be run or failed.
    #[error("cannot read the git configuration: {0}")]
    Git(String),
}

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `git config`.
    GitConfig,
    /// `-c` on the command line.
    CommandLine,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Origin::GitConfig => "git config",
            Origin::CommandLine => "-c",
        })
    }
}

/// How the connection starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `imap://` or a bare host: plain TCP, upgraded with STARTTLS when the server offers it.
    Imap,
    /// `imaps://`: TLS from the first byte.
    Imaps,
}

impl Scheme {
    /// The port when none is configured: 143 for `imap://`, 993 for `imaps://`.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Imap => 143,
            Scheme::Imaps => 993,
        }
    }
}

/// Everything the sender is told.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `imap.folder` / `--folder`.
    pub folder: Option<String>,
    /// `imap.host` without its scheme.
    pub host: Option<String>,
    /// From `imap.host`.
    pub scheme: Scheme,
    /// `imap.port` (or a port in `imap.host`).
    pub port: Option<u16>,
    /// `imap.user`.
    pub user: Option<String>,
    /// `imap.pass`.
    pub pass: Option<Secret>,
    /// `imap.tunnel`.
    pub tunnel: Option<String>,
    /// `imap.sslverify`.
    pub ssl_verify: bool,
    /// `imap.sslCAInfo`.
    pub ca_file: Option<PathBuf>,
    /// `imap.preformattedHTML`.
    pub preformatted_html: bool,
    /// `imap.authMethod`.
    pub auth_method: Option<AuthMethod>,
    /// `imap.allowPlaintext`.
    pub allow_plaintext: bool,
    /// `imap.timeout`.
    pub timeout: Duration,
    /// Unknown keys seen, for a warning.
    pub unknown_keys: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            folder: None,
            host: None,
            scheme: Scheme::Imap,
            port: None,
            user: None,
            pass: None,
            tunnel: None,
            ssl_verify: true,
            ca_file: None,
            preformatted_html: false,
            auth_method: None,
            allow_plaintext: false,
            timeout: DEFAULT_TIMEOUT,
            unknown_keys: Vec::new(),
        }
    }
}

impl Settings {
    /// The port to use: configured, else 993 for `imaps://` and 143 for `imap://`.
    pub fn effective_port(&self) -> u16 {
        self.port.unwrap_or(self.scheme.default_port())
    }

    /// Applies one key (lower-case section and name, as `git config` prints them). `None` is a
    /// key without `=` (git's "true").
    pub fn apply(
        &mut self,
        key: &str,
        value: Option<&str>,
        origin: Origin,
    ) -> Result<(), ConfigError> {
        let name = key.to_ascii_lowercase();
        let Some(name) = name.strip_prefix("imap.") else {
            return Ok(());
        };
        let bad = |reason: String| ConfigError::BadValue {
            key: key.to_string(),
            origin,
            reason,
        };
        let string = || {
            value
                .map(str::to_string)
                .ok_or_else(|| bad("a value is required".into()))
        };
        match name {
            "folder" => self.folder = Some(string()?),
            "host" => {
                let v = string()?;
                // The host (with its port) is the credential's `host`: refused here, before any
                // connection, helper or prompt, rather than when it is written.
                check_value("host", &v).map_err(|e| bad(e.to_string()))?;
                let (scheme, rest) = if let Some(r) = strip_prefix_ci(&v, "imaps:") {
                    (Scheme::Imaps, r)
                } else if let Some(r) = strip_prefix_ci(&v, "imap:") {
                    (Scheme::Imap, r)
                } else {
                    (Scheme::Imap, v.as_str())
                };
                let rest = rest.strip_prefix("//").unwrap_or(rest);
                let rest = rest.trim_end_matches('/');
                let (host, port) = split_host_port(rest).map_err(bad)?;
                if host.is_empty() {
                    return Err(bad("no host name".into()));
                }
                self.scheme = scheme;
                self.host = Some(host);
                if let Some(p) = port {
                    self.port = Some(p);
                }
            }
            "port" => {
                let v = string()?;
                let p = v
                    .trim()
                    .parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| bad(format!("'{v}' is not a port number")))?;
                self.port = Some(p);
            }
            "user" => {
                let v = string()?;
                check_value("username", &v).map_err(|e| bad(e.to_string()))?;
                self.user = Some(v);
            }
            "pass" => {
                if origin == Origin::CommandLine {
                    return Err(ConfigError::PassOnCommandLine);
                }
                self.pass = Some(Secret::new(string()?));
            }
            "tunnel" => self.tunnel = Some(string()?).filter(|t| !t.trim().is_empty()),
            "sslverify" => self.ssl_verify = parse_bool(value).map_err(bad)?,
            "preformattedhtml" => self.preformatted_html = parse_bool(value).map_err(bad)?,
            "allowplaintext" => self.allow_plaintext = parse_bool(value).map_err(bad)?,
            // Empty means unset (`-c imap.sslCAInfo=` undoes a configured file), as in git.
            "sslcainfo" => {
                let v = string()?;
                self.ca_file = (!v.trim().is_empty()).then(|| PathBuf::from(expand_home(&v)));
            }
            "authmethod" => {
                let v = string()?;
                self.auth_method = Some(AuthMethod::from_name(&v).ok_or_else(|| {
                    bad(format!(
                        "unknown method '{v}'; valid: {}",
                        AuthMethod::ALL.map(AuthMethod::name).join(", ")
                    ))
                })?);
            }
            "timeout" => {
                let v = string()?;
                let secs = v
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|s| *s > 0 && *s <= 86_400)
                    .ok_or_else(|| bad(format!("'{v}' is not a number of seconds (1 to 86400)")))?;
                self.timeout = Duration::from_secs(secs);
            }
            _ => self.unknown_keys.push(key.to_string()),
        }
        Ok(())
    }

    /// Applies a `-c key=value` argument.
    pub fn apply_override(&mut self, arg: &str) -> Result<(), ConfigError> {
        let (key, value) = match arg.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (arg, None),
        };
        if !key.to_ascii_lowercase().starts_with("imap.") || key.len() <= 5 {
            return Err(ConfigError::BadOverride(redact_arg(arg)));
        }
        self.apply(key, value, Origin::CommandLine)
    }

    /// Reads `imap.*` from `git config` (every scope). When git is not installed, nothing.
    pub fn from_git_config() -> Result<Settings, ConfigError> {
        let mut settings = Settings::default();
        for (key, value) in read_git_config()? {
            settings.apply(&key, value.as_deref(), Origin::GitConfig)?;
        }
        Ok(settings)
    }
}

/// Hides what follows `=` when the key is `imap.pass` (for error messages).
fn redact_arg(arg: &str) -> String {
    match arg.split_once('=') {
        Some((k, _)) if k.eq_ignore_ascii_case("imap.pass") => format!("{k}=<hidden>"),
        _ => arg.to_string(),
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    (s.len() >= prefix.len()
        && s.is_char_boundary(prefix.len())
        && s[..prefix.len()].eq_ignore_ascii_case(prefix))
    .then(|| &s[prefix.len()..])
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`.
fn split_host_port(s: &str) -> Result<(String, Option<u16>), String> {
    if let Some(rest) = s.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return Err(format!("'{s}': unclosed '['"));
        };
        let port = match after.strip_prefix(':') {
            Some(p) => Some(
                p.parse()
                    .map_err(|_| format!("'{p}' is not a port number"))?,
            ),
            None if after.is_empty() => None,
            None => return Err(format!("'{s}' is not HOST or HOST:PORT")),
        };
        return Ok((host.to_string(), port));
    }
    match s.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => {
            let port = port
                .parse()
                .map_err(|_| format!("'{port}' is not a port number"))?;
            Ok((host.to_string(), Some(port)))
        }
        _ => Ok((s.to_string(), None)),
    }
}

fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// git's boolean syntax: `true/yes/on/1` (or no value), `false/no/off/0` (or empty).
pub fn parse_bool(value: Option<&str>) -> Result<bool, String> {
    let Some(v) = value else { return Ok(true) };
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" | "" => Ok(false),
        other => match other.parse::<i64>() {
            Ok(n) => Ok(n != 0),
            Err(_) => Err(format!(
                "'{v}' is not a boolean (true/false, yes/no, on/off, 1/0)"
            )),
        },
    }
}

/// `git config -z --get-regexp ^imap\.` as (key, value) pairs.
pub fn read_git_config() -> Result<Vec<(String, Option<String>)>, ConfigError> {
    let output = match Command::new("git")
        .args(["config", "-z", "--get-regexp", r"^imap\."])
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ConfigError::Git(e.to_string())),
    };
    match output.status.code() {
        Some(0) => {}
        Some(1) => return Ok(Vec::new()), // no such key
        _ => {
            return Err(ConfigError::Git(
                String::from_utf8_lossy(&output.stderr).trim().to_string(),
            ));
        }
    }
    Ok(parse_config_z(&output.stdout))
}

/// Parses `git config -z` output: `key\nvalue\0`, or `key\0` for a key without a value.
pub fn parse_config_z(out: &[u8]) -> Vec<(String, Option<String>)> {
    out.split(|&b| b == 0)
        .filter(|e| !e.is_empty())
        .map(|entry| {
            let text = String::from_utf8_lossy(entry);
            match text.split_once('\n') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (text.into_owned(), None),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, Option<&str>)]) -> Result<Settings, ConfigError> {
        let mut s = Settings::default();
        for (k, v) in pairs {
            s.apply(k, *v, Origin::GitConfig)?;
        }
        Ok(s)
    }

    #[test]
    fn hosts() {
        let s = settings(&[("imap.host", Some("imaps://imap.example.com"))]).unwrap();
        assert_eq!(
            (s.scheme, s.host.as_deref(), s.effective_port()),
            (Scheme::Imaps, Some("imap.example.com"), 993)
        );
        let s = settings(&[
            ("imap.host", Some("imap:example.com")),
            ("imap.port", Some("1143")),
        ])
        .unwrap();
        assert_eq!(
            (s.scheme, s.host.as_deref(), s.effective_port()),
            (Scheme::Imap, Some("example.com"), 1143)
        );
        let s = settings(&[("imap.host", Some("[::1]:10993"))]).unwrap();
        assert_eq!((s.host.as_deref(), s.port), (Some("::1"), Some(10993)));
        assert!(settings(&[("imap.host", Some("imaps://"))]).is_err());
        assert!(settings(&[("imap.port", Some("http"))]).is_err());
    }

    #[test]
    fn empty_ca_file_is_unset() {
        let mut s = settings(&[("imap.sslcainfo", Some("/x/ca.pem"))]).unwrap();
        assert_eq!(s.ca_file, Some(PathBuf::from("/x/ca.pem")));
        s.apply_override("imap.sslCAInfo=").unwrap();
        assert_eq!(s.ca_file, None);
    }

    #[test]
    fn booleans_and_methods() {
        let s = settings(&[
            ("imap.sslverify", Some("false")),
            ("imap.preformattedhtml", None),
            ("imap.authmethod", Some("cram-md5")),
            ("imap.allowplaintext", Some("yes")),
            ("imap.timeout", Some("5")),
            ("imap.frobnicate", Some("x")),
        ])
        .unwrap();
        assert!(!s.ssl_verify && s.preformatted_html && s.allow_plaintext);
        assert_eq!(s.auth_method, Some(AuthMethod::CramMd5));
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert_eq!(s.unknown_keys, vec!["imap.frobnicate".to_string()]);
        let e = settings(&[("imap.authmethod", Some("NTLM"))])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("valid: LOGIN, PLAIN, CRAM-MD5, XOAUTH2, OAUTHBEARER"),
            "{e}"
        );
        assert!(settings(&[("imap.sslverify", Some("maybe"))]).is_err());
    }

    #[test]
    fn pass_is_refused_on_the_command_line() {
        let mut s = Settings::default();
        let e = s
            .apply_override("imap.pass=hunter2")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(e.contains("refusing -c imap.pass"));
        let e = s
            .apply_override("IMAP.PASS=hunter2")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("hunter2"));
        assert!(s.apply_override("core.editor=vi").is_err());
        s.apply_override("imap.folder=Drafts").unwrap();
        assert_eq!(s.folder.as_deref(), Some("Drafts"));
    }

    #[test]
    fn credential_values_are_refused_when_read() {
        for (key, value, attr, what) in [
            (
                "imap.user",
                "ghuser\nprotocol=https\nhost=github.com",
                "username",
                "newline",
            ),
            (
                "imap.user",
                "tester\npassword=INJECTED",
                "username",
                "newline",
            ),
            ("imap.user", "tester\rx", "username", "carriage return"),
            ("imap.user", "tester\0x", "username", "NUL byte"),
            ("imap.host", "imap://h\nhost=github.com", "host", "newline"),
            ("imap.host", "h\r", "host", "carriage return"),
            ("imap.host", "imaps://h\0:993", "host", "NUL byte"),
        ] {
            for origin in [Origin::GitConfig, Origin::CommandLine] {
                let e = Settings::default()
                    .apply(key, Some(value), origin)
                    .unwrap_err()
                    .to_string();
                assert_eq!(
                    e,
                    format!(
                        "bad value for {key} ({origin}): credential value for {attr} contains {what}"
                    )
                );
            }
        }
        let mut s = Settings::default();
        let e = s
            .apply_override("imap.user=ghuser\nhost=github.com")
            .unwrap_err();
        assert!(e.to_string().contains("contains newline"), "{e}");
        assert!(s.user.is_none());
    }

    #[test]
    fn config_z() {
        assert_eq!(
            parse_config_z(b"imap.folder\nDrafts\0imap.sslverify\0imap.host\nimaps://x\0"),
            vec![
                ("imap.folder".to_string(), Some("Drafts".to_string())),
                ("imap.sslverify".to_string(), None),
                ("imap.host".to_string(), Some("imaps://x".to_string())),
            ]
        );
    }
}

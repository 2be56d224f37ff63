//! The authentication policy, decided once per connection before any credential is asked for:
//! whether the configured method may be used on it (offered by the server, LOGIN not disabled,
//! the secret not sent in clear text unless allowed).

use crate::error::ImapError;
use crate::sasl::AuthMethod;

/// What the policy looks at.
#[derive(Debug, Clone, Copy)]
pub struct Connection<'a> {
    /// The server's capabilities (upper case).
    pub capabilities: &'a [String],
    /// TLS or a tunnel.
    pub protected: bool,
    /// Whether the server offered STARTTLS (for the message when it was not used).
    pub starttls_offered: bool,
    /// The server, for messages.
    pub host: &'a str,
    /// `imap.allowPlaintext`.
    pub allow_plaintext: bool,
}

/// The method may be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// As is.
    Yes,
    /// In clear text, as `imap.allowPlaintext` allows: the warning to show.
    InClear(String),
}

/// Checks `method` on `c`.
pub fn check(method: AuthMethod, c: &Connection<'_>) -> Result<Allowed, ImapError> {
    let has = |cap: &str| c.capabilities.iter().any(|x| x.eq_ignore_ascii_case(cap));
    let offered = || {
        c.capabilities
            .iter()
            .filter_map(|x| x.strip_prefix("AUTH="))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if method == AuthMethod::Login && has("LOGINDISABLED") {
        return Err(ImapError::LoginDisabled {
            offered: offered(),
            hint: if c.protected {
                ""
            } else {
                " because it is not encrypted"
            },
        });
    }
    if method != AuthMethod::Login && !has(&format!("AUTH={}", method.name())) {
        return Err(ImapError::MethodNotOffered {
            method,
            offered: offered(),
        });
    }
    if c.protected || !method.reveals_secret() {
        return Ok(Allowed::Yes);
    }
    let what = if method.uses_token() {
        "token"
    } else {
        "password"
    };
    if !c.allow_plaintext {
        return Err(ImapError::PlaintextRefused {
            what,
            host: c.host.to_string(),
            method,
            why: if c.starttls_offered {
                ""
            } else {
                " (the server does not offer STARTTLS)"
            },
        });
    }
    Ok(Allowed::InClear(format!(
        "imap.allowPlaintext: sending the {what} for {} in clear text",
        c.host
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn<'a>(caps: &'a [String], protected: bool, allow: bool) -> Connection<'a> {
        Connection {
            capabilities: caps,
            protected,
            starttls_offered: false,
            host: "h",
            allow_plaintext: allow,
        }
    }

    fn caps(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn policy() {
        let c = caps("IMAP4REV1 AUTH=PLAIN AUTH=CRAM-MD5 LOGINDISABLED");
        let e = check(AuthMethod::Login, &conn(&c, false, true)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the server disabled LOGIN on this connection (LOGINDISABLED) because it is not encrypted; set imap.authMethod to a method it offers (PLAIN CRAM-MD5)"
        );
        let e = check(AuthMethod::Xoauth2, &conn(&c, true, false)).unwrap_err();
        assert!(matches!(e, ImapError::MethodNotOffered { .. }), "{e}");
        // CRAM-MD5 reveals nothing: allowed in clear text.
        assert_eq!(
            check(AuthMethod::CramMd5, &conn(&c, false, false)).unwrap(),
            Allowed::Yes
        );
        let e = check(AuthMethod::Plain, &conn(&c, false, false)).unwrap_err();
        assert!(matches!(e, ImapError::PlaintextRefused { .. }), "{e}");
        assert!(matches!(
            check(AuthMethod::Plain, &conn(&c, false, true)).unwrap(),
            Allowed::InClear(_)
        ));
        assert_eq!(
            check(AuthMethod::Plain, &conn(&c, true, false)).unwrap(),
            Allowed::Yes
        );
    }
}

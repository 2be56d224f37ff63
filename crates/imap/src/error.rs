//! The sender's errors. Their texts never contain a password or token: the commands that carry
//! one are never quoted, only the server's answer is.

use flagsplit_tls::TlsError;

use crate::credential::UnsafeValue;
use crate::response::ResponseError;
use crate::sasl::AuthMethod;

/// An IMAP failure.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// The TCP connection could not be made.
    ///
    /// The cause is part of the text, not a `source`: an error chain printed in full would
    /// name it twice.
    #[error("cannot connect to {host}:{port}: {cause}")]
    Connect {
        /// Host.
        host: String,
        /// Port.
        port: u16,
        /// Why.
        cause: String,
    },
    /// The tunnel command could not be started.
    #[error("cannot run the tunnel command '{command}': {cause}")]
    Tunnel {
        /// The command.
        command: String,
        /// Why.
        cause: String,
    },
    /// `imap.timeout` passed.
    #[error("timed out after {seconds} s {step} (imap.timeout)")]
    TimedOut {
        /// The timeout.
        seconds: u64,
        /// What was being done: `connecting to HOST:PORT`, `waiting for the answer to LOGIN`.
        step: String,
    },
    /// TLS failed.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The connection broke (or timed out) while talking to the server.
    #[error("connection lost: {0}")]
    ConnectionLost(String),
    /// The server sent something that is not IMAP.
    #[error("{0}")]
    Protocol(String),
    /// The duplicate search for some messages got no usable answer (no ESEARCH or SEARCH
    /// result, or a malformed one): they are neither skipped nor stored.
    #[error(
        "the server's answer to the duplicate search was missing or malformed for message{} {}: not stored, reported unknown",
        if messages.len() == 1 { "" } else { "s" },
        messages.iter().map(|m| (m + 1).to_string()).collect::<Vec<_>>().join(", ")
    )]
    SearchFailed {
        /// The messages (0-based).
        messages: Vec<usize>,
    },
    /// The server sent more than the sender accepts (see [`crate::session`]).
    #[error("the server {server} sent {what}: stopped there")]
    TooLarge {
        /// `host:port`, or `tunnel`.
        server: String,
        /// What, and the limit.
        what: String,
    },
    /// The server said BYE.
    #[error("the server closed the session: {0}")]
    Bye(String),
    /// A command failed: the server's answer, quoted.
    #[error("{command} failed: the server said \"{quote}\"")]
    Command {
        /// What was attempted (`APPEND to Drafts`).
        command: String,
        /// `NO [CODE] text` as the server sent it.
        quote: String,
    },
    /// The server rejected the credentials.
    #[error("authentication failed ({method}): the server said \"{quote}\"")]
    AuthFailed {
        /// The method used.
        method: AuthMethod,
        /// The server's answer.
        quote: String,
    },
    /// The chosen method is not offered.
    #[error(
        "the server does not offer {method} authentication (it offers: {offered}); set imap.authMethod to one of those"
    )]
    MethodNotOffered {
        /// The method asked for.
        method: AuthMethod,
        /// What the server advertises.
        offered: String,
    },
    /// LOGIN is disabled by the server on this connection.
    #[error(
        "the server disabled LOGIN on this connection (LOGINDISABLED){hint}; set imap.authMethod to a method it offers ({offered})"
    )]
    LoginDisabled {
        /// What else the server offers.
        offered: String,
        /// Why it probably did.
        hint: &'static str,
    },
    /// A password or token would go over an unprotected connection.
    #[error(
        "refusing to send a {what} in clear text: the connection to {host} is neither TLS nor a tunnel{why}, and {method} would reveal it.\n\
         Use imaps:// in imap.host, a server that offers STARTTLS, imap.tunnel, or imap.authMethod=CRAM-MD5;\n\
         or set imap.allowPlaintext=true to send it anyway (anyone on the network path can read it)"
    )]
    PlaintextRefused {
        /// `password` or `token`.
        what: &'static str,
        /// The server.
        host: String,
        /// The method.
        method: AuthMethod,
        /// Why there is no TLS.
        why: &'static str,
    },
    /// TLS is needed but this build has none.
    #[error(
        "{what}, but this build of flagsplit has no TLS (TLS: NONE).\n\
         Rebuild with TLS: cargo build --features rustls-tls (or --features openssl-tls);\n\
         or use imap.tunnel, which works without TLS (for example: ssh HOST /usr/lib/dovecot/imap)"
    )]
    NoTls {
        /// What needed it.
        what: String,
    },
    /// No user name or password is available.
    #[error("{0}")]
    Credentials(String),
    /// A value that `git credential` cannot carry (newline, carriage return, NUL byte).
    #[error(transparent)]
    CredentialValue(#[from] UnsafeValue),
    /// The folder to store into is unknown.
    #[error("{0}")]
    Folder(String),
}

impl From<ResponseError> for ImapError {
    fn from(e: ResponseError) -> ImapError {
        match e {
            ResponseError::Io(e) => ImapError::ConnectionLost(e.to_string()),
            ResponseError::Closed => {
                ImapError::ConnectionLost("the server closed the connection".into())
            }
            other => ImapError::Protocol(other.to_string()),
        }
    }
}

impl ImapError {
    /// Whether the connection is gone (so that what happened to in-flight commands is unknown).
    pub fn is_connection_lost(&self) -> bool {
        matches!(
            self,
            ImapError::ConnectionLost(_) | ImapError::Bye(_) | ImapError::TimedOut { .. }
        )
    }
}

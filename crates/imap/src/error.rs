//! The sender's errors. Their texts never contain a password or token: the commands that carry
//! one are never quoted, only the server's answer is.

use std::io;

use flagsplit_tls::TlsError;

use crate::credential::UnsafeValue;
use crate::response::ResponseError;
use crate::sasl::AuthMethod;

/// An IMAP failure.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// The TCP connection could not be made.
    #[error("cannot connect to {host}:{port}: {source}")]
    Connect {
        /// Host.
        host: String,
        /// Port.
        port: u16,
        /// Why.
        source: io::Error,
    },
    /// The tunnel command could not be started.
    #[error("cannot run the tunnel command '{command}': {source}")]
    Tunnel {
        /// The command.
        command: String,
        /// Why.
        source: io::Error,
    },
    /// TLS failed.
    #[error("{0}")]
    Tls(#[from] TlsError),
    /// The connection broke (or timed out) while talking to the server.
    #[error("connection lost: {0}")]
    ConnectionLost(String),
    /// The server sent something that is not IMAP.
    #[error("{0}")]
    Protocol(String),
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
    #[error("{0}")]
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
        matches!(self, ImapError::ConnectionLost(_) | ImapError::Bye(_))
    }
}

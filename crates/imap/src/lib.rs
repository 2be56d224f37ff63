//! flagsplit's IMAP sender: `git format-patch --stdout | flagsplit imap-send` stores each patch in
//! the user's drafts folder.
//!
//! This crate selects no provider: the caller passes its TLS provider ([`send::Job::tls`]) and
//! names its MD5 provider (the `M: Md5Provider` of [`send::send`] and [`send::list`], used by
//! CRAM-MD5), so a binary links only the providers it names.
//!
//! - [`mbox`]: splitting the series as git imap-send does (never panics on any input).
//! - [`response`]: reading and parsing server responses (never panics on any input).
//! - [`session`]: one IMAP session (STARTTLS, authentication, pipelined commands, timeouts).
//! - [`transport`]: TCP, TLS and tunnels, with `imap.timeout`.
//! - [`auth`]: which authentication method may be used on a connection (checked once).
//! - [`send`]: the upload's entry points and its per-message report; the private modules
//!   `connect` (a logged-in session as configured), `search` (the duplicate search) and
//!   `upload` (MULTIAPPEND or APPEND, and the lookup after a lost connection) do the work.
//! - [`config`], [`credential`]: git's `imap.*` keys and git's credential helpers.

pub mod auth;
pub mod config;
mod connect;
pub mod credential;
pub mod error;
pub mod mbox;
pub mod response;
pub mod rfc2047;
pub mod sasl;
#[cfg(test)]
mod script;
mod search;
pub mod secret;
pub mod send;
pub mod session;
pub mod transport;
mod upload;
pub mod utf7;

pub use error::ImapError;
pub use flagsplit_tls::{TlsConfig, TlsError, TlsProvider};
pub use secret::Secret;

use std::convert::Infallible;

use flagsplit_hash::HashProvider;

/// The bound on CRAM-MD5's hash: a [`HashProvider`] with MD5's 16-byte digest that cannot refuse.
/// Every such provider implements it; it adds nothing to the one hashing interface.
pub trait Md5Provider: HashProvider<Output = [u8; 16], Error = Infallible> {}

impl<P: HashProvider<Output = [u8; 16], Error = Infallible>> Md5Provider for P {}

//! flagsplit's IMAP sender: `git format-patch --stdout | flagsplit imap-send` stores each patch in
//! the user's drafts folder.
//!
//! This crate selects no provider: the caller passes its TLS provider ([`send::Job::tls`]) and
//! names its MD5 provider (the `M: Md5Provider` of [`send::send`] and [`send::list`], used by
//! CRAM-MD5), so a binary links only the providers it names.
//!
//! - [`mbox`]: splitting the series as git imap-send does (never panics on any input).
//! - [`response`]: reading and parsing server responses (never panics on any input).
//! - [`session`]: one IMAP session (STARTTLS, authentication, pipelined commands).
//! - [`send`]: the upload: folder, duplicates, MULTIAPPEND or APPEND, the per-message report,
//!   and the lookup after a lost connection.
//! - [`config`], [`credential`]: git's `imap.*` keys and git's credential helpers.

pub mod config;
pub mod credential;
pub mod error;
pub mod mbox;
pub mod response;
pub mod sasl;
pub mod secret;
pub mod send;
pub mod session;
pub mod transport;
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

//! The C libraries providers link, and the compile-and-link probes that prove a build can use
//! them, like autoconf's `AC_CHECK_LIB`.
//!
//! A [`Library`](crate::clib::Library) says how the build finds it (its [`Finder`](crate::clib::Finder)), which versions the declaring crate
//! accepts ([`VersionCheck`](crate::clib::VersionCheck)) and the fixes a failure offers; a [`Probe`](crate::clib::Probe) names a C program that
//! calls one symbol of it. Three finders come with this crate, and any crate can write its own:
//!
//! - [`SysCrate`]: what the library's `-sys` crate published to its direct dependents
//!   (`DEP_<LINKS>_INCLUDE`, and `DEP_<LINKS>_ROOT` when it built the library itself);
//! - [`PkgConfig`]: pkg-config's answer for a module (as a `-sys` crate with a `pkg-config`
//!   feature finds it), with its version;
//! - [`openssl::OpensslSys`]: OpenSSL as `openssl-sys` found it, judged by the declaring crate's
//!   own version policy.
//!
//! The decisions take the environment through [`BuildEnv`](crate::clib::BuildEnv), so that they are tested with layouts
//! and targets that exist nowhere; `run` (feature `build-script`) gives them the real one and runs
//! the compiler.

// The decisions are pure, and tested without feature `build-script`; only that feature's half
// calls them.
#![cfg_attr(not(feature = "build-script"), allow(dead_code))]

pub(crate) mod compiler;
mod finders;
mod message;
pub(crate) mod need;
pub mod openssl;
pub(crate) mod plan;
#[cfg(feature = "build-script")]
pub(crate) mod run;
mod system;

pub use finders::{PkgConfig, SysCrate, system_switch};
pub use system::System;

#[cfg(test)]
mod tests;

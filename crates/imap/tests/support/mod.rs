//! Shared test support: a real Dovecot on loopback, and patch series.
pub mod dovecot;
pub mod series;

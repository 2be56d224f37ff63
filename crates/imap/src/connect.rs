//! Opening a logged-in session as configured: the checks that need no server, the connection
//! (TCP, TLS, STARTTLS or a tunnel), the authentication policy ([`crate::auth`]), the
//! credentials (configuration, `git credential`, the terminal) and the login. The same
//! [`Connector`] opens another session after a lost connection.

use std::marker::PhantomData;

use crate::Md5Provider;
use flagsplit_tls::TlsConfig;

use crate::auth;
use crate::config::Scheme;
use crate::credential::{self, Credential, CredentialKey};
use crate::error::ImapError;
use crate::sasl::AuthMethod;
use crate::send::{CredentialSource, Job};
use crate::session::{Greeting, Session};
use crate::transport::{self, Stream, Transport};

/// What is needed to open a logged-in session, and another after a lost connection; `M` is the
/// MD5 provider of CRAM-MD5.
pub(crate) struct Connector<'a, M> {
    pub(crate) job: &'a Job<'a>,
    credential: Option<Credential>,
    approved: bool,
    md5: PhantomData<fn() -> M>,
}

impl<'a, M: Md5Provider> Connector<'a, M> {
    /// Checks what can be checked before connecting (refusals that need no server), warns about
    /// `imap.sslverify=false`, and connects.
    pub(crate) fn start(job: &'a Job<'a>) -> Result<(Connector<'a, M>, Session<'a>), ImapError> {
        let mut c = Connector {
            job,
            credential: None,
            approved: false,
            md5: PhantomData,
        };
        c.precheck()?;
        warn_sslverify(job);
        let session = c.open()?;
        Ok((c, session))
    }

    fn host(&self) -> &str {
        match (&self.job.settings.tunnel, &self.job.settings.host) {
            (Some(_), _) => "tunnel",
            (None, Some(h)) => h,
            (None, None) => "",
        }
    }

    /// The checks that need no connection: a value `git credential` cannot carry (checked here
    /// too for settings not read by [`Settings::apply`]), a `TLS: none` build asked for TLS,
    /// no host.
    fn precheck(&self) -> Result<(), ImapError> {
        let s = self.job.settings;
        self.key().check()?;
        if s.tunnel.is_some() {
            return Ok(());
        }
        if s.host.is_none() {
            return Err(ImapError::Credentials(
                "no server: set imap.host (imaps://HOST or imap://HOST), or imap.tunnel".into(),
            ));
        }
        if self.job.tls.is_some() {
            return Ok(());
        }
        if s.scheme == Scheme::Imaps {
            return Err(ImapError::NoTls {
                what: format!("imap.host asks for imaps://{} (TLS)", self.host()),
            });
        }
        let method = s.auth_method.unwrap_or(AuthMethod::Login);
        if method.reveals_secret() && !s.allow_plaintext {
            return Err(ImapError::NoTls {
                what: format!(
                    "logging in to imap://{} with {method} needs STARTTLS, so that the password is not sent in clear text",
                    self.host()
                ),
            });
        }
        Ok(())
    }

    fn tls_config(&self) -> TlsConfig<'_> {
        TlsConfig {
            host: self.host(),
            ca_file: self.job.settings.ca_file.as_deref(),
            verify: self.job.settings.ssl_verify,
        }
    }

    pub(crate) fn open(&mut self) -> Result<Session<'a>, ImapError> {
        let job = self.job;
        let s = job.settings;
        let trace = job.ui.trace();
        let mut session = if let Some(tunnel) = &s.tunnel {
            let t = transport::Tunnel::spawn(tunnel)?;
            Session::start(
                Transport::new(Stream::Tunnel(t), s.timeout),
                "tunnel",
                trace,
            )?
        } else {
            let port = s.effective_port();
            let tcp = transport::connect_tcp(self.host(), port, s.timeout)?;
            let stream = if s.scheme == Scheme::Imaps {
                let Some(tls) = job.tls else {
                    return Err(ImapError::NoTls {
                        what: "imaps:// needs TLS".into(),
                    });
                };
                let socket = tcp.try_clone().ok();
                let tls = transport::tls_connect(tls, tcp, &self.tls_config(), s.timeout)?;
                (Stream::Tls(tls), socket)
            } else {
                (Stream::Tcp(tcp), None)
            };
            let mut t = Transport::new(stream.0, s.timeout);
            t.set_socket(stream.1);
            let server = transport::server_name(self.host(), port);
            Session::start(t, &server, trace)?
        };
        trace.line(
            '*',
            &format!("connected: {}", session.transport().describe()),
        );
        let mut starttls_offered = false;
        if session.transport().is_plain_tcp()
            && session.greeting() == Greeting::NotAuthenticated
            && session.has("STARTTLS")
        {
            starttls_offered = true;
            match job.tls {
                Some(tls) => session.starttls(tls, &self.tls_config())?,
                None => job.ui.warn(
                    "the server offers STARTTLS, but this build has no TLS: the session is not encrypted",
                ),
            }
        }
        if session.greeting() == Greeting::Preauth {
            return Ok(session);
        }
        let method = s.auth_method.unwrap_or(AuthMethod::Login);
        let host = self.host().to_string();
        let allowed = auth::check(
            method,
            &auth::Connection {
                capabilities: session.capabilities(),
                protected: session.transport().is_protected(),
                starttls_offered,
                host: &host,
                allow_plaintext: s.allow_plaintext,
            },
        )?;
        if let auth::Allowed::InClear(warning) = allowed {
            job.ui.warn(&warning);
        }
        let credential = match self.credential.clone() {
            Some(c) => c,
            None => {
                let c = self.obtain_credential()?;
                self.credential = Some(c.clone());
                c
            }
        };
        let port = s.effective_port();
        match session.authenticate::<M>(
            method,
            &credential.username,
            &credential.password,
            &host,
            port,
        ) {
            Ok(()) => {
                if credential.from_git && !self.approved {
                    credential::git_report(&self.key(), &credential, true)?;
                    self.approved = true;
                }
                Ok(session)
            }
            Err(e) => {
                if matches!(e, ImapError::AuthFailed { .. }) && credential.from_git {
                    credential::git_report(&self.key(), &credential, false)?;
                }
                Err(e)
            }
        }
    }

    fn key(&self) -> CredentialKey {
        let s = self.job.settings;
        // With a tunnel the port is not used: the host is `tunnel`, as git's.
        let host = if s.tunnel.is_some() || s.effective_port() == s.scheme.default_port() {
            self.host().to_string()
        } else {
            format!("{}:{}", self.host(), s.effective_port())
        };
        CredentialKey {
            protocol: match s.scheme {
                Scheme::Imap => "imap",
                Scheme::Imaps => "imaps",
            },
            host,
            username: s.user.clone(),
        }
    }

    fn obtain_credential(&self) -> Result<Credential, ImapError> {
        let s = self.job.settings;
        if let (Some(user), Some(pass)) = (&s.user, &s.pass) {
            return Ok(Credential::new(user.clone(), pass.clone()));
        }
        if self.job.credentials == CredentialSource::GitThenTerminal {
            let key = self.key();
            if let Some(mut c) = credential::git_fill(&key)? {
                if let Some(pass) = &s.pass {
                    c.password = pass.clone();
                    c.from_git = false;
                }
                return Ok(c);
            }
            if let Some(c) = credential::tty_prompt(&key) {
                return Ok(c);
            }
        }
        Err(ImapError::Credentials(format!(
            "no {} for {}: set imap.user, and configure a git credential helper (git help credentials) or run from a terminal to be asked",
            if s.user.is_none() {
                "user name"
            } else {
                "password"
            },
            self.host()
        )))
    }
}

fn warn_sslverify(job: &Job<'_>) {
    if !job.settings.ssl_verify && job.settings.tunnel.is_none() {
        job.ui.warn(
            "imap.sslverify=false: the server's certificate is NOT verified; anyone on the network path can pose as the server and read the password and the patches",
        );
    }
}

//! The IMAP sender against a real Dovecot 2.3 started by the tests on loopback (see
//! `tests/support/dovecot.rs`): every TLS provider, every authentication method, the
//! security refusals, tunnels, byte-exact storage of large series and large messages (compared
//! with the maildir files Dovecot writes), duplicates, and connections cut mid-series by a
//! fault-injecting proxy in front of the real server.

mod support;

use std::sync::Mutex;
use std::time::Duration;

use flagsplit_imap::config::{Scheme, Settings};
use flagsplit_imap::error::ImapError;
use flagsplit_imap::sasl::AuthMethod;
use flagsplit_imap::send::{self, CredentialSource, Failure, Job, Outcome, Report, Ui};
use flagsplit_imap::session::Trace;
use flagsplit_imap::{Secret, TlsError, TlsProvider};
use support::dovecot::{Dovecot, Fault, FaultProxy, GOOD_TOKEN, Options, PASSWORD, USER};
use support::series;

/// Every TLS provider (the tests compile them all; the library is given one by its caller).
fn providers() -> [&'static dyn TlsProvider; 2] {
    [
        &flagsplit_tls::rustls_provider::RustlsTls,
        &flagsplit_tls_openssl::OpensslTls,
    ]
}

/// The MD5 provider of CRAM-MD5 in these tests (`src/sasl.rs` checks every compiled one).
type Md5 = flagsplit_hash::md5::builtin::Md5Builtin;

/// A provider that is never asked (the servers it is used with offer no TLS).
struct NeverTls;

impl TlsProvider for NeverTls {
    fn name(&self) -> &'static str {
        "never"
    }
    fn version(&self) -> String {
        String::new()
    }
    fn connect(
        &self,
        _: std::net::TcpStream,
        _: &flagsplit_imap::TlsConfig<'_>,
    ) -> Result<Box<dyn flagsplit_tls::TlsStream>, TlsError> {
        panic!("no TLS was to be attempted")
    }
}

#[derive(Default)]
struct Capture {
    lines: Mutex<Vec<String>>,
}

impl Capture {
    fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Ui for Capture {
    fn info(&self, message: &str) {
        self.lines.lock().unwrap().push(format!("info: {message}"));
    }
    fn warn(&self, message: &str) {
        self.lines
            .lock()
            .unwrap()
            .push(format!("warning: {message}"));
    }
    fn progress(&self, _: usize, _: usize) {}
    fn trace(&self) -> &dyn Trace {
        self
    }
}

impl Trace for Capture {
    fn line(&self, direction: char, text: &str) {
        self.lines
            .lock()
            .unwrap()
            .push(format!("{direction}: {text}"));
    }
}

/// Settings for `host:port` with the test user and password.
fn settings(host: &str, port: u16, scheme: Scheme) -> Settings {
    Settings {
        host: Some(host.to_string()),
        port: Some(port),
        scheme,
        user: Some(USER.to_string()),
        pass: Some(Secret::new(PASSWORD)),
        folder: Some("Drafts".to_string()),
        timeout: Duration::from_secs(30),
        ..Settings::default()
    }
}

fn tls_settings(d: &Dovecot, implicit: bool) -> Settings {
    let mut s = if implicit {
        settings("localhost", d.tls_port, Scheme::Imaps)
    } else {
        settings("localhost", d.port, Scheme::Imap)
    };
    s.ca_file = Some(d.ca());
    s
}

/// Plain TCP on 127.0.0.1 with allowPlaintext (loopback): for tests that do not need TLS, so
/// that they also run in a `TLS: none` build.
fn plain_settings(d: &Dovecot) -> Settings {
    let mut s = settings("127.0.0.1", d.port, Scheme::Imap);
    s.allow_plaintext = true;
    s
}

fn run(
    s: &Settings,
    tls: Option<&dyn TlsProvider>,
    ui: &Capture,
    stored: &[Vec<u8>],
    messages: &[flagsplit_imap::mbox::Message],
) -> Result<Report, Box<Failure>> {
    let job = Job {
        settings: s,
        tls,
        dry_run: false,
        allow_duplicates: false,
        credentials: CredentialSource::ConfigOnly,
        ui,
    };
    send::send::<Md5>(&job, messages, stored)
}

fn small_series(
    d: &Dovecot,
    n: usize,
    salt: &str,
) -> (Vec<flagsplit_imap::mbox::Message>, Vec<Vec<u8>>) {
    series::split(&series::format_patch(d.path(), n, salt))
}

fn assert_stored_exactly(d: &Dovecot, folder: &str, stored: &[Vec<u8>]) {
    let bodies = d.bodies(folder);
    assert_eq!(bodies.len(), stored.len(), "number of messages in {folder}");
    for (k, (got, want)) in bodies.iter().zip(stored).enumerate() {
        assert!(
            got == want,
            "message {k} differs from the CRLF-normalised input"
        );
    }
}

#[test]
fn every_tls_provider_verifies_and_stores() {
    let Some(d) = Dovecot::start("every_tls_provider_verifies_and_stores") else {
        return;
    };
    let (messages, stored) = small_series(&d, 2, "tls");
    for provider in providers() {
        for implicit in [true, false] {
            let what = format!(
                "{} {}",
                provider.name(),
                if implicit { "IMAPS" } else { "STARTTLS" }
            );
            // Verified against the test CA.
            let ui = Capture::default();
            let mut s = tls_settings(&d, implicit);
            s.folder = Some(format!("{}-{}", provider.name(), implicit));
            let report = run(&s, Some(provider), &ui, &stored, &messages)
                .unwrap_or_else(|f| panic!("{what}: {}", f.error));
            assert_eq!(report.stored(), 2, "{what}");
            assert_stored_exactly(&d, s.folder.as_deref().unwrap_or_default(), &stored);
            assert!(!ui.text().contains("warning"), "{what}: {}", ui.text());

            // Untrusted: a CA that did not sign the server's certificate.
            let mut s = tls_settings(&d, implicit);
            s.ca_file = Some(d.other_ca());
            let e = run(&s, Some(provider), &Capture::default(), &stored, &messages).unwrap_err();
            assert!(
                matches!(e.error, ImapError::Tls(TlsError::Certificate(_))),
                "{what}: {}",
                e.error
            );
            assert!(e.report.is_none(), "{what}: nothing may have started");

            // Wrong name: the certificate is for localhost, not 127.0.0.1.
            let mut s = tls_settings(&d, implicit);
            s.host = Some("127.0.0.1".into());
            let e = run(&s, Some(provider), &Capture::default(), &stored, &messages).unwrap_err();
            assert!(
                matches!(e.error, ImapError::Tls(TlsError::Certificate(_))),
                "{what}: {}",
                e.error
            );

            // sslverify=false: works, with a warning.
            let mut s = tls_settings(&d, implicit);
            s.folder = Some(format!("{}-{}", provider.name(), implicit));
            s.ca_file = Some(d.other_ca());
            s.host = Some("127.0.0.1".into());
            s.ssl_verify = false;
            let ui = Capture::default();
            let report = run(&s, Some(provider), &ui, &stored, &messages)
                .unwrap_or_else(|f| panic!("{what} sslverify=false: {}", f.error));
            assert_eq!(
                report.duplicates(),
                2,
                "{what}: the same messages are already there"
            );
            assert!(
                ui.text().contains("warning: imap.sslverify=false"),
                "{what}: {}",
                ui.text()
            );
        }
    }
}

#[test]
fn tls_provider_sees_the_wrong_name_directly() {
    let Some(d) = Dovecot::start("tls_provider_sees_the_wrong_name_directly") else {
        return;
    };
    for provider in providers() {
        let tcp = std::net::TcpStream::connect(("127.0.0.1", d.tls_port)).unwrap();
        let config = flagsplit_imap::TlsConfig {
            host: "wrong.example",
            ca_file: Some(&d.ca()),
            verify: true,
        };
        let e = provider
            .connect(tcp, &config)
            .err()
            .expect("wrong.example must be refused");
        assert!(
            matches!(e, TlsError::Certificate(_)),
            "{}: {e}",
            provider.name()
        );
        let tcp = std::net::TcpStream::connect(("127.0.0.1", d.tls_port)).unwrap();
        let ok = flagsplit_imap::TlsConfig {
            host: "localhost",
            ..config
        };
        let mut stream = provider
            .connect(tcp, &ok)
            .unwrap_or_else(|e| panic!("{}: {e}", provider.name()));
        let desc = stream.describe();
        assert!(desc.contains("TLS") || desc.contains("Tls"), "{desc}");
        let mut greeting = [0u8; 4];
        std::io::Read::read_exact(&mut stream, &mut greeting).unwrap();
        assert_eq!(&greeting, b"* OK");
    }
}

#[test]
fn login_plain_and_cram_md5() {
    let Some(d) = Dovecot::start("login_plain_and_cram_md5") else {
        return;
    };
    let (messages, stored) = small_series(&d, 1, "auth");
    for (k, method) in [AuthMethod::Login, AuthMethod::Plain, AuthMethod::CramMd5]
        .into_iter()
        .enumerate()
    {
        let ui = Capture::default();
        let mut s = plain_settings(&d);
        s.auth_method = Some(method);
        s.folder = Some(format!("auth{k}"));
        let report = run(&s, None, &ui, &stored, &messages)
            .unwrap_or_else(|f| panic!("{method}: {}", f.error));
        assert_eq!(report.stored(), 1);
        assert!(
            report.created,
            "{method}: the folder was missing and must be created"
        );
        assert_stored_exactly(&d, &format!("auth{k}"), &stored);
        assert!(
            !ui.text().contains(PASSWORD),
            "{method}: the password leaked: {}",
            ui.text()
        );
        let log = d.log();
        assert!(
            log.contains(&format!("method={}", method.name())) || method == AuthMethod::Login,
            "{method}: {log}"
        );
    }
    // Over TLS too, with every provider.
    for tls in providers() {
        for method in [AuthMethod::Login, AuthMethod::Plain, AuthMethod::CramMd5] {
            let mut s = tls_settings(&d, false);
            s.auth_method = Some(method);
            s.folder = Some("tls-auth".into());
            let ui = Capture::default();
            let r = run(&s, Some(tls), &ui, &stored, &messages)
                .unwrap_or_else(|f| panic!("{} {method}: {}", tls.name(), f.error));
            assert_eq!(r.stored() + r.duplicates(), 1);
        }
    }
}

#[test]
fn wrong_password_is_a_clear_error_and_stores_nothing() {
    let Some(d) = Dovecot::start("wrong_password") else {
        return;
    };
    let (messages, stored) = small_series(&d, 3, "wrong");
    for method in [AuthMethod::Login, AuthMethod::Plain, AuthMethod::CramMd5] {
        let mut s = plain_settings(&d);
        s.pass = Some(Secret::new("not-the-password"));
        s.auth_method = Some(method);
        let ui = Capture::default();
        let f = run(&s, None, &ui, &stored, &messages).unwrap_err();
        let text = f.error.to_string();
        assert!(matches!(f.error, ImapError::AuthFailed { .. }), "{text}");
        assert!(
            text.contains("AUTHENTICATIONFAILED"),
            "the server's answer is quoted: {text}"
        );
        assert!(!text.contains("not-the-password") && !ui.text().contains("not-the-password"));
    }
    assert!(d.bodies("Drafts").is_empty());
}

#[test]
fn no_password_in_clear_without_allow_plaintext() {
    let Some(d) = Dovecot::start("no_password_in_clear") else {
        return;
    };
    let (messages, stored) = small_series(&d, 1, "clear");
    // Without a TLS provider (a TLS: none build) the sender refuses before connecting (a
    // STARTTLS it cannot do).
    let s = settings("127.0.0.2", d.port, Scheme::Imap);
    let f = run(&s, None, &Capture::default(), &stored, &messages).unwrap_err();
    assert!(matches!(f.error, ImapError::NoTls { .. }), "{}", f.error);
    // 127.0.0.2 offers no STARTTLS.
    for method in [
        AuthMethod::Login,
        AuthMethod::Plain,
        AuthMethod::Xoauth2,
        AuthMethod::Oauthbearer,
    ] {
        let mut s = settings("127.0.0.2", d.port, Scheme::Imap);
        s.auth_method = Some(method);
        let ui = Capture::default();
        // As if TLS were compiled in, so that the refusal comes from the connection itself.
        let f = run(&s, Some(&NeverTls), &ui, &stored, &messages).unwrap_err();
        let text = f.error.to_string();
        assert!(
            matches!(f.error, ImapError::PlaintextRefused { .. }),
            "{method}: {text}"
        );
        assert!(
            text.contains("does not offer STARTTLS") && text.contains("imap.allowPlaintext"),
            "{text}"
        );
    }
    let log = d.log();
    assert!(
        !log.contains("Login: user=<tester>"),
        "no login may have happened: {log}"
    );
    // CRAM-MD5 reveals no password: allowed.
    let mut s = settings("127.0.0.2", d.port, Scheme::Imap);
    s.auth_method = Some(AuthMethod::CramMd5);
    let r = run(&s, None, &Capture::default(), &stored, &messages)
        .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.stored(), 1);
    // allowPlaintext: allowed, with a warning.
    let mut s = settings("127.0.0.2", d.port, Scheme::Imap);
    s.allow_plaintext = true;
    let ui = Capture::default();
    let r = run(&s, None, &ui, &stored, &messages).unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.duplicates(), 1);
    assert!(
        ui.text()
            .contains("warning: imap.allowPlaintext: sending the password"),
        "{}",
        ui.text()
    );
}

#[test]
fn logindisabled_is_respected() {
    let Some(d) = Dovecot::start("logindisabled") else {
        return;
    };
    let (messages, stored) = small_series(&d, 1, "ld");
    let mut s = settings("127.0.0.3", d.port, Scheme::Imap);
    s.allow_plaintext = true;
    let f = run(&s, None, &Capture::default(), &stored, &messages).unwrap_err();
    assert!(
        matches!(f.error, ImapError::LoginDisabled { .. }),
        "{}",
        f.error
    );
    assert!(f.error.to_string().contains("LOGINDISABLED"));
}

#[test]
fn xoauth2_and_oauthbearer() {
    let Some(d) = Dovecot::start("xoauth2_and_oauthbearer") else {
        return;
    };
    let (messages, stored) = small_series(&d, 1, "oauth");
    // Over plain TCP (allowPlaintext, loopback) as without a TLS provider, and over each one.
    let tls: Vec<Option<&dyn TlsProvider>> =
        std::iter::once(None).chain(providers().map(Some)).collect();
    for (tls, method) in tls
        .into_iter()
        .flat_map(|t| [AuthMethod::Xoauth2, AuthMethod::Oauthbearer].map(|m| (t, m)))
    {
        let mut s = match tls {
            Some(_) => tls_settings(&d, true),
            None => plain_settings(&d),
        };
        let over = tls.map_or("plain", |t| t.name());
        s.auth_method = Some(method);
        s.folder = Some(format!("oauth-{}-{over}", method.name()));
        s.pass = Some(Secret::new(GOOD_TOKEN));
        let ui = Capture::default();
        let r = run(&s, tls, &ui, &stored, &messages)
            .unwrap_or_else(|f| panic!("{method} {over}: {}\n{}", f.error, d.log()));
        assert_eq!(r.stored(), 1);
        assert!(
            d.log().contains(&format!("method={}", method.name())),
            "{}",
            d.log()
        );
        assert!(!ui.text().contains(GOOD_TOKEN));

        s.pass = Some(Secret::new("bad-token"));
        let f = run(&s, tls, &Capture::default(), &stored, &messages).unwrap_err();
        assert!(
            matches!(f.error, ImapError::AuthFailed { .. }),
            "{method} {over}: {}",
            f.error
        );
        assert!(!f.error.to_string().contains("bad-token"));
    }
    assert!(d.oauth_requests() >= 4, "the token endpoint was asked");
}

#[test]
fn tunnel_with_preauth() {
    let Some(d) = Dovecot::start("tunnel_with_preauth") else {
        return;
    };
    let (messages, stored) = small_series(&d, 3, "tunnel");
    let s = Settings {
        tunnel: Some(d.tunnel()),
        folder: Some("Drafts".into()),
        ..Settings::default()
    };
    let ui = Capture::default();
    // No TLS provider needed, no credentials configured: PREAUTH.
    let r = run(&s, None, &ui, &stored, &messages).unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.stored(), 3);
    assert_stored_exactly(&d, "Drafts", &stored);
    for (_, (_, flags)) in d.messages("Drafts") {
        assert!(flags.contains('S'), "stored with \\Seen: flags '{flags}'");
    }
}

#[test]
fn thousand_messages_byte_exact_and_no_duplicates_on_rerun() {
    let Some(d) = Dovecot::start("thousand_messages") else {
        return;
    };
    let mbox = series::format_patch(d.path(), 1000, "k");
    let (messages, stored) = series::split(&mbox);
    assert_eq!(messages.len(), 1000);
    let ui = Capture::default();
    let r = run(&plain_settings(&d), None, &ui, &stored, &messages)
        .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.stored(), 1000);
    let uids: Vec<u32> = r
        .outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Stored(u) => *u,
            _ => None,
        })
        .collect();
    assert_eq!(uids.len(), 1000, "UIDPLUS: every message has its UID");
    assert_stored_exactly(&d, "Drafts", &stored);
    let on_disk: Vec<u32> = d.messages("Drafts").keys().copied().collect();
    assert_eq!(uids, on_disk, "the reported UIDs are the stored ones");

    let ui = Capture::default();
    let again = run(&plain_settings(&d), None, &ui, &stored, &messages)
        .unwrap_or_else(|f| panic!("{}", f.error));
    if again.duplicates() != 1000 {
        std::fs::write("/tmp/dedupe-trace.txt", ui.text()).unwrap();
    }
    assert_eq!((again.stored(), again.duplicates()), (0, 1000));
    assert_eq!(d.bodies("Drafts").len(), 1000, "no duplicates stored");
}

#[test]
fn five_megabyte_message_byte_exact() {
    let Some(d) = Dovecot::start("five_megabyte_message") else {
        return;
    };
    let big = series::big_message(5 << 20, "5M");
    let (messages, stored) = series::split(&big);
    let r = run(
        &plain_settings(&d),
        None,
        &Capture::default(),
        &stored,
        &messages,
    )
    .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.stored(), 1);
    assert_stored_exactly(&d, "Drafts", &stored);
    assert!(stored[0].len() > 5 << 20);
    let again = run(
        &plain_settings(&d),
        None,
        &Capture::default(),
        &stored,
        &messages,
    )
    .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(again.duplicates(), 1);
}

const NO_MULTIAPPEND: &str = "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE NAMESPACE UIDPLUS LITERAL+\n";
const NO_LITERAL_PLUS: &str =
    "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE NAMESPACE UIDPLUS\n";

#[test]
fn one_append_per_message_without_multiappend() {
    for (extra, what) in [
        (NO_MULTIAPPEND, "LITERAL+"),
        (NO_LITERAL_PLUS, "synchronising literals"),
    ] {
        let Some(d) = Dovecot::start_with(
            "one_append_per_message",
            Options {
                extra: extra.into(),
            },
        ) else {
            return;
        };
        let (messages, stored) = small_series(&d, 30, "each");
        let ui = Capture::default();
        let r = run(&plain_settings(&d), None, &ui, &stored, &messages)
            .unwrap_or_else(|f| panic!("{what}: {}", f.error));
        assert_eq!(r.stored(), 30, "{what}");
        assert_stored_exactly(&d, "Drafts", &stored);
        let text = ui.text();
        let appends = text
            .lines()
            .filter(|l| l.starts_with("C: ") && l.contains(" APPEND "))
            .count();
        assert_eq!(appends, 30, "{what}: one APPEND per message");
        let uids: Vec<u32> = r
            .outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Stored(u) => *u,
                _ => None,
            })
            .collect();
        assert_eq!(
            uids,
            d.messages("Drafts").keys().copied().collect::<Vec<_>>(),
            "{what}"
        );
    }
}

#[test]
fn multiappend_is_one_command() {
    let Some(d) = Dovecot::start("multiappend_is_one_command") else {
        return;
    };
    let (messages, stored) = small_series(&d, 30, "multi");
    let ui = Capture::default();
    run(&plain_settings(&d), None, &ui, &stored, &messages)
        .unwrap_or_else(|f| panic!("{}", f.error));
    let appends = ui
        .text()
        .lines()
        .filter(|l| l.starts_with("C: ") && l.contains(" APPEND "))
        .count();
    assert_eq!(appends, 1);
    assert_stored_exactly(&d, "Drafts", &stored);
}

/// Checks a failure report against the maildir (the oracle): every message reported stored is
/// there, every one reported not stored is not.
fn check_report(d: &Dovecot, report: &Report, stored: &[Vec<u8>]) -> (usize, usize, usize) {
    let on_disk = d.messages("Drafts");
    let mut counts = (0, 0, 0);
    for (k, outcome) in report.outcomes.iter().enumerate() {
        let present: Vec<u32> = on_disk
            .iter()
            .filter(|(_, (b, _))| *b == stored[k])
            .map(|(u, _)| *u)
            .collect();
        match outcome {
            Outcome::Stored(uid) => {
                assert_eq!(present.len(), 1, "message {k} reported stored");
                if let Some(uid) = uid {
                    assert_eq!(present[0], *uid, "message {k}: UID");
                }
                counts.0 += 1;
            }
            Outcome::NotStored => {
                assert!(
                    present.is_empty(),
                    "message {k} reported not stored but is there"
                );
                counts.1 += 1;
            }
            Outcome::Unknown => counts.2 += 1,
            other => panic!("message {k}: unexpected {other:?}"),
        }
    }
    counts
}

#[test]
fn cut_connection_multiappend_gives_an_exact_report() {
    let Some(d) = Dovecot::start("cut_multiappend") else {
        return;
    };
    let (messages, stored) = small_series(&d, 40, "cut");
    let total: usize = stored.iter().map(Vec::len).sum();
    for (plan, reconnect) in [
        (vec![Fault::CutClientAfter(total / 2), Fault::Pass], true),
        (vec![Fault::CutClientAfter(total / 2), Fault::Refuse], false),
    ] {
        let proxy = FaultProxy::start(("127.0.0.1", d.port), plan);
        let mut s = plain_settings(&d);
        s.port = Some(proxy.port);
        s.folder = Some("Drafts".into());
        let f = run(&s, None, &Capture::default(), &stored, &messages).unwrap_err();
        assert!(f.error.is_connection_lost(), "{}", f.error);
        let report = f.report.expect("a report");
        let (st, not, unknown) = check_report(&d, &report, &stored);
        if reconnect {
            assert!(f.recovery_error.is_none(), "{:?}", f.recovery_error);
            assert_eq!(
                unknown, 0,
                "after reconnecting every message is accounted for"
            );
            assert_eq!(
                (st, not),
                (0, 40),
                "MULTIAPPEND is atomic: a cut series stores nothing"
            );
        } else {
            assert!(f.recovery_error.is_some());
            assert_eq!(unknown, 40, "the server was unreachable: unknown");
        }
    }
    assert!(d.bodies("Drafts").is_empty());
}

#[test]
fn cut_connection_one_append_per_message_gives_an_exact_report() {
    let Some(d) = Dovecot::start_with(
        "cut_each",
        Options {
            extra: NO_MULTIAPPEND.into(),
        },
    ) else {
        return;
    };
    let (messages, stored) = small_series(&d, 40, "cuteach");
    let total: usize = stored.iter().map(Vec::len).sum();
    // With recovery: every message is exactly stored or not stored, some of each.
    let proxy = FaultProxy::start(
        ("127.0.0.1", d.port),
        vec![Fault::CutClientAfter(total / 2), Fault::Pass],
    );
    let mut s = plain_settings(&d);
    s.port = Some(proxy.port);
    let f = run(&s, None, &Capture::default(), &stored, &messages).unwrap_err();
    assert!(f.error.is_connection_lost(), "{}", f.error);
    let report = f.report.expect("report");
    let (st, not, unknown) = check_report(&d, &report, &stored);
    assert_eq!(unknown, 0);
    assert!(
        st > 0 && not > 0,
        "cut in the middle: {st} stored, {not} not"
    );
    assert_eq!(d.bodies("Drafts").len(), st);

    // A re-run stores the rest and skips what is there.
    let r = run(
        &plain_settings(&d),
        None,
        &Capture::default(),
        &stored,
        &messages,
    )
    .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!((r.duplicates(), r.stored()), (st, 40 - st));
    assert_stored_exactly(&d, "Drafts", &stored);
}

#[test]
fn cut_connection_without_reconnect_reports_unknown_only_for_unanswered() {
    let Some(d) = Dovecot::start_with(
        "cut_each_refused",
        Options {
            extra: NO_MULTIAPPEND.into(),
        },
    ) else {
        return;
    };
    let (messages, stored) = small_series(&d, 60, "cutref");
    let total: usize = stored.iter().map(Vec::len).sum();
    let proxy = FaultProxy::start(
        ("127.0.0.1", d.port),
        vec![Fault::CutClientAfter(total / 2), Fault::Refuse],
    );
    let mut s = plain_settings(&d);
    s.port = Some(proxy.port);
    let f = run(&s, None, &Capture::default(), &stored, &messages).unwrap_err();
    let report = f.report.expect("report");
    assert!(f.recovery_error.is_some());
    let (_st, not, unknown) = check_report(&d, &report, &stored);
    assert!(
        unknown > 0 && not > 0,
        "unsent messages are known not stored: {not}, in flight unknown: {unknown}"
    );
}

#[test]
fn drafts_found_by_special_use_and_non_ascii_folders() {
    let Some(d) = Dovecot::start("special_use") else {
        return;
    };
    let (messages, stored) = small_series(&d, 2, "su");
    let mut s = plain_settings(&d);
    s.folder = None;
    let ui = Capture::default();
    let r = run(&s, None, &ui, &stored, &messages).unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.folder, "Drafts");
    assert!(
        ui.text()
            .contains("using the server's drafts folder 'Drafts'"),
        "{}",
        ui.text()
    );
    assert_stored_exactly(&d, "Drafts", &stored);

    let mut s = plain_settings(&d);
    s.folder = Some("Entwürfe/日本".into());
    let r = run(&s, None, &Capture::default(), &stored, &messages)
        .unwrap_or_else(|f| panic!("{}", f.error));
    assert!(r.created);
    assert_stored_exactly(&d, "Entw&APw-rfe/&ZeVnLA-", &stored);

    let job = Job {
        settings: &plain_settings(&d),
        tls: None,
        dry_run: false,
        allow_duplicates: false,
        credentials: CredentialSource::ConfigOnly,
        ui: &Capture::default(),
    };
    let names: Vec<String> = send::list::<Md5>(&job)
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for want in ["INBOX", "Drafts", "Entwürfe/日本"] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
}

#[test]
fn duplicates_by_message_id_and_dry_run() {
    let Some(d) = Dovecot::start("message_id") else {
        return;
    };
    let mbox = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n\
From: A <a@example.org>\nSubject: [PATCH] with id\nMessage-ID: <id-1@example.org>\n\nbody\n";
    let (messages, stored) = series::split(mbox.as_bytes());
    let mut s = plain_settings(&d);
    let job = |s: &Settings, dry: bool, ui: &Capture| -> Result<Report, Box<Failure>> {
        send::send::<Md5>(
            &Job {
                settings: s,
                tls: None,
                dry_run: dry,
                allow_duplicates: false,
                credentials: CredentialSource::ConfigOnly,
                ui,
            },
            &messages,
            &stored,
        )
    };
    let r = job(&s, true, &Capture::default()).unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(r.outcomes, vec![Outcome::WouldStore]);
    assert!(d.bodies("Drafts").is_empty(), "a dry run stores nothing");
    job(&s, false, &Capture::default()).unwrap_or_else(|f| panic!("{}", f.error));
    let ui = Capture::default();
    let r = job(&s, false, &ui).unwrap_or_else(|f| panic!("{}", f.error));
    assert!(matches!(r.outcomes[0], Outcome::Duplicate(_)));
    assert!(
        ui.text()
            .contains("UID SEARCH RETURN (ALL) HEADER Message-ID"),
        "{}",
        ui.text()
    );
    s.folder = Some("Drafts".into());
    let with_dups = send::send::<Md5>(
        &Job {
            settings: &s,
            tls: None,
            dry_run: false,
            allow_duplicates: true,
            credentials: CredentialSource::ConfigOnly,
            ui: &Capture::default(),
        },
        &messages,
        &stored,
    )
    .unwrap_or_else(|f| panic!("{}", f.error));
    assert_eq!(with_dups.stored(), 1);
    assert_eq!(d.bodies("Drafts").len(), 2);
}

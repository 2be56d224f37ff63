//! A real Dovecot 2.3 for the tests, started on loopback with a config from
//! `tests/dovecot/dovecot.conf.tmpl`, a fresh certificate, a token-introspection endpoint for
//! XOAUTH2/OAUTHBEARER, and a fault-injecting TCP proxy. Killed (its whole process group) when
//! dropped.
//!
//! When Dovecot is not installed, [`Dovecot::start`] returns `None` after
//! `flagsplit_test_support::skip` (a SKIPPED line, or a failure when `CI=true`, so that CI cannot
//! pass without it).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub const USER: &str = "tester";
pub const PASSWORD: &str = "s3cr3t-pw";
pub const GOOD_TOKEN: &str = "good-token-7f3a";
pub const DOVECOT: &str = "/usr/sbin/dovecot";
pub const IMAP_BINARY: &str = "/usr/lib/dovecot/imap";

const TEMPLATE: &str = include_str!("../dovecot/dovecot.conf.tmpl");

/// Instance options.
#[derive(Default, Clone)]
pub struct Options {
    /// Extra configuration lines (for example `imap_capability = ...`).
    pub extra: String,
}

/// A running Dovecot.
pub struct Dovecot {
    pub dir: tempfile::TempDir,
    /// Plain/STARTTLS port (on 127.0.0.1, .2 and .3).
    pub port: u16,
    /// Implicit-TLS port (127.0.0.1).
    pub tls_port: u16,
    child: Child,
    oauth: OauthServer,
}

/// Whether Dovecot can be used; prints SKIPPED (or panics under CI=true) when not.
pub fn available(test: &str) -> bool {
    if Path::new(DOVECOT).exists() && Path::new(IMAP_BINARY).exists() {
        return true;
    }
    flagsplit_test_support::skip(
        test,
        &format!("Dovecot not found ({DOVECOT}); install it with 'apt-get install dovecot-imapd'"),
    );
    false
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn run_as() -> (String, String, u32, u32) {
    let uid = Command::new("id").arg("-u").output().expect("id -u");
    let uid: u32 = String::from_utf8_lossy(&uid.stdout)
        .trim()
        .parse()
        .expect("uid");
    if uid == 0 {
        return ("nobody".into(), "nogroup".into(), 65534, 65534);
    }
    let out = |args: &[&str]| {
        let o = Command::new("id").args(args).output().expect("id");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    (
        out(&["-un"]),
        out(&["-gn"]),
        uid,
        out(&["-g"]).parse().expect("gid"),
    )
}

impl Dovecot {
    /// Starts an instance, or `None` (after a SKIPPED line) when Dovecot is not installed.
    pub fn start(test: &str) -> Option<Dovecot> {
        Dovecot::start_with(test, Options::default())
    }

    /// Starts an instance with options.
    pub fn start_with(test: &str, options: Options) -> Option<Dovecot> {
        if !available(test) {
            return None;
        }
        for _attempt in 0..10 {
            if let Some(d) = Dovecot::try_start(&options) {
                return Some(d);
            }
        }
        panic!("Dovecot did not start after 10 attempts");
    }

    fn try_start(options: &Options) -> Option<Dovecot> {
        let dir = tempfile::Builder::new()
            .prefix("flagsplit-dovecot")
            .tempdir()
            .expect("temp dir");
        let d = dir.path();
        for sub in ["run", "state", "mail"] {
            fs::create_dir_all(d.join(sub)).expect("mkdir");
        }
        fs::write(d.join("passwd"), format!("{USER}:{{PLAIN}}{PASSWORD}\n")).expect("passwd");
        make_cert(d, "cert.pem", "key.pem", "localhost");
        make_cert(d, "other-ca.pem", "other-key.pem", "localhost");
        let oauth = OauthServer::start();
        fs::write(
            d.join("oauth2.conf.ext"),
            format!(
                "introspection_mode = auth\nintrospection_url = http://127.0.0.1:{}/introspect\nusername_attribute = username\nactive_attribute = active\nactive_value = true\n",
                oauth.port
            ),
        )
        .expect("oauth2 conf");
        let (user, group, uid, gid) = run_as();
        let (p1, p2) = (free_port(), free_port());
        let conf = TEMPLATE
            .replace("@DIR@", &d.display().to_string())
            .replace("@USER@", &user)
            .replace("@GROUP@", &group)
            .replace("@UID@", &uid.to_string())
            .replace("@GID@", &gid.to_string())
            .replace("@P1@", &p1.to_string())
            .replace("@P2@", &p2.to_string())
            .replace("@EXTRA@", &options.extra);
        fs::write(d.join("dovecot.conf"), conf).expect("conf");
        let _ = Command::new("chown")
            .args(["-R", &format!("{uid}:{gid}")])
            .arg(d)
            .status();
        let _ = Command::new("chmod").arg("0755").arg(d).status();
        let log = fs::File::create(d.join("stdout.log")).expect("log");
        let mut cmd = Command::new(DOVECOT);
        cmd.arg("-F")
            .arg("-c")
            .arg(d.join("dovecot.conf"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd.spawn().expect("spawn dovecot");
        let mut dovecot = Dovecot {
            dir,
            port: p1,
            tls_port: p2,
            child,
            oauth,
        };
        // Ready when a connection gets a greeting; an early exit means a port clash or a config
        // error (retried with new ports by the caller).
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = dovecot.child.try_wait() {
                eprintln!(
                    "dovecot exited early ({status}):\n{}\n{}",
                    fs::read_to_string(dovecot.dir.path().join("stdout.log")).unwrap_or_default(),
                    fs::read_to_string(dovecot.dir.path().join("dovecot.log")).unwrap_or_default()
                );
                return None;
            }
            if let Ok(s) = TcpStream::connect(("127.0.0.1", p1)) {
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let mut line = String::new();
                if BufReader::new(s).read_line(&mut line).is_ok() && line.starts_with("* OK") {
                    return Some(dovecot);
                }
            }
            if started.elapsed() > Duration::from_secs(30) {
                panic!(
                    "dovecot not ready after 30 s:\n{}",
                    fs::read_to_string(dovecot.dir.path().join("dovecot.log")).unwrap_or_default()
                );
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The CA file the client trusts (the server's own self-signed certificate).
    pub fn ca(&self) -> PathBuf {
        self.path().join("cert.pem")
    }

    /// A certificate that did not sign the server's.
    pub fn other_ca(&self) -> PathBuf {
        self.path().join("other-ca.pem")
    }

    /// The `imap.tunnel` command for this instance.
    pub fn tunnel(&self) -> String {
        format!(
            "{IMAP_BINARY} -c {}/dovecot.conf -u {USER}",
            self.path().display()
        )
    }

    /// Dovecot's log.
    pub fn log(&self) -> String {
        fs::read_to_string(self.path().join("dovecot.log")).unwrap_or_default()
    }

    /// The maildir directory of `folder` (its name as on the wire, modified UTF-7).
    pub fn maildir(&self, wire_folder: &str) -> PathBuf {
        let root = self.path().join("mail").join(USER).join("Maildir");
        if wire_folder.eq_ignore_ascii_case("INBOX") {
            root
        } else {
            root.join(format!(".{}", wire_folder.replace('/', ".")))
        }
    }

    /// The messages stored in `folder`, by UID (read from `dovecot-uidlist`), with their file
    /// names' flag suffixes.
    pub fn messages(&self, wire_folder: &str) -> BTreeMap<u32, (Vec<u8>, String)> {
        // A file is renamed into cur/ or new/ just before its UID is written to the uidlist: when
        // a client has just gone away, Dovecot may still be between the two.
        for _ in 0..200 {
            if let Some(m) = self.try_messages(wire_folder) {
                return m;
            }
            thread::sleep(Duration::from_millis(25));
        }
        panic!("{wire_folder}: maildir files without a UID in dovecot-uidlist");
    }

    fn try_messages(&self, wire_folder: &str) -> Option<BTreeMap<u32, (Vec<u8>, String)>> {
        let dir = self.maildir(wire_folder);
        let mut uids: BTreeMap<String, u32> = BTreeMap::new();
        if let Ok(list) = fs::read_to_string(dir.join("dovecot-uidlist")) {
            for line in list.lines().skip(1) {
                let Some((uid, rest)) = line.split_once(' ') else {
                    continue;
                };
                let Ok(uid) = uid.parse() else { continue };
                let name = rest.rsplit_once(':').map_or(rest, |(_, n)| n);
                uids.insert(name.to_string(), uid);
            }
        }
        let mut out = BTreeMap::new();
        for sub in ["cur", "new"] {
            let Ok(entries) = fs::read_dir(dir.join(sub)) else {
                continue;
            };
            for e in entries.flatten() {
                let file = e.file_name().to_string_lossy().into_owned();
                let (base, flags) = match file.split_once(":2,") {
                    Some((b, f)) => (b.to_string(), f.to_string()),
                    None => (file.clone(), String::new()),
                };
                let uid = uids
                    .iter()
                    .find(|(name, _)| base.starts_with(name.as_str()) || name.starts_with(&base))
                    .map(|(_, u)| *u)?;
                let Ok(bytes) = fs::read(e.path()) else {
                    return None; // renamed from new/ to cur/ meanwhile
                };
                out.insert(uid, (bytes, flags));
            }
        }
        Some(out)
    }

    /// The bytes of the messages in `folder`, in UID order.
    pub fn bodies(&self, wire_folder: &str) -> Vec<Vec<u8>> {
        self.messages(wire_folder)
            .into_values()
            .map(|(b, _)| b)
            .collect()
    }

    /// Tokens the introspection endpoint has been asked about.
    pub fn oauth_requests(&self) -> usize {
        self.oauth.requests.load(Ordering::SeqCst)
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        let pgid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.oauth.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.oauth.port));
    }
}

fn make_cert(dir: &Path, cert: &str, key: &str, cn: &str) {
    let status = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ])
        .arg("-keyout")
        .arg(dir.join(key))
        .arg("-out")
        .arg(dir.join(cert))
        .args(["-days", "2", "-subj", &format!("/CN={cn}")])
        .args(["-addext", &format!("subjectAltName=DNS:{cn}")])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl CLI");
    assert!(status.success(), "openssl req failed");
}

/// The token-introspection endpoint Dovecot's oauth2 passdb asks (`GET /introspect` with
/// `Authorization: Bearer <token>`): `GOOD_TOKEN` is active for `tester`, anything else is not.
struct OauthServer {
    port: u16,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
}

impl OauthServer {
    fn start() -> OauthServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let (s, r) = (stop.clone(), requests.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(conn) = conn else { continue };
                let r = r.clone();
                thread::spawn(move || serve_introspection(conn, &r));
            }
        });
        OauthServer {
            port,
            stop,
            requests,
        }
    }
}

fn serve_introspection(conn: TcpStream, requests: &AtomicUsize) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut conn = conn;
    loop {
        let mut token = None;
        let mut content_length = 0usize;
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                let value = value.trim();
                if name.eq_ignore_ascii_case("authorization") {
                    token = value.strip_prefix("Bearer ").map(str::to_string);
                } else if name.eq_ignore_ascii_case("content-length") {
                    content_length = value.parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; content_length];
        let _ = reader.read_exact(&mut body);
        requests.fetch_add(1, Ordering::SeqCst);
        let (status, json) = if token.as_deref() == Some(GOOD_TOKEN) {
            (
                "200 OK",
                format!("{{\"active\": true, \"username\": \"{USER}\"}}"),
            )
        } else {
            ("401 Unauthorized", "{\"active\": false}".to_string())
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}",
            json.len()
        );
        if conn.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// What the proxy does to the n-th connection it accepts.
#[derive(Debug, Clone, Copy)]
pub enum Fault {
    /// Forward everything.
    Pass,
    /// Cut both directions once the client has sent this many bytes (the bytes past the limit
    /// are not forwarded).
    CutClientAfter(usize),
    /// Refuse: close at once.
    Refuse,
}

/// A TCP proxy in front of the real Dovecot that injects faults, connection by connection.
pub struct FaultProxy {
    pub port: u16,
    plan: Arc<Mutex<Vec<Fault>>>,
    pub accepted: Arc<AtomicUsize>,
    pub forwarded: Arc<AtomicUsize>,
}

impl FaultProxy {
    /// Forwards `127.0.0.1:port` → `upstream`; connection k gets `plan[k]` (the last entry
    /// repeats).
    pub fn start(upstream: (&'static str, u16), plan: Vec<Fault>) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let plan = Arc::new(Mutex::new(plan));
        let accepted = Arc::new(AtomicUsize::new(0));
        let forwarded = Arc::new(AtomicUsize::new(0));
        let (p, a, f) = (plan.clone(), accepted.clone(), forwarded.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let k = a.fetch_add(1, Ordering::SeqCst);
                let fault = {
                    let plan = p.lock().expect("plan");
                    plan.get(k).or(plan.last()).copied().unwrap_or(Fault::Pass)
                };
                let f = f.clone();
                thread::spawn(move || proxy_one(client, upstream, fault, &f));
            }
        });
        FaultProxy {
            port,
            plan,
            accepted,
            forwarded,
        }
    }
}

fn proxy_one(client: TcpStream, upstream: (&str, u16), fault: Fault, forwarded: &AtomicUsize) {
    if let Fault::Refuse = fault {
        let _ = client.shutdown(Shutdown::Both);
        return;
    }
    let Ok(server) = TcpStream::connect(upstream) else {
        return;
    };
    let limit = match fault {
        Fault::CutClientAfter(n) => Some(n),
        _ => None,
    };
    let (c2, s2) = (
        client.try_clone().expect("clone"),
        server.try_clone().expect("clone"),
    );
    // server -> client
    let down = thread::spawn(move || {
        let (mut from, mut to) = (s2, c2);
        let mut buf = [0u8; 16384];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
    // client -> server, cut after `limit` bytes
    let (mut from, mut to) = (client, server);
    let mut sent = 0usize;
    let mut buf = [0u8; 16384];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        let take = match limit {
            Some(l) => n.min(l.saturating_sub(sent)),
            None => n,
        };
        if to.write_all(&buf[..take]).is_err() {
            break;
        }
        sent += take;
        forwarded.fetch_add(take, Ordering::SeqCst);
        if take < n || limit.is_some_and(|l| sent >= l) {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
    let _ = down.join();
}

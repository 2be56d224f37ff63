//! The byte streams an IMAP session runs over: plain TCP, TLS (by the selected provider), and a
//! tunnel command (`imap.tunnel`, run by `sh -c` in a process group of its own, IMAP on its
//! stdin/stdout), with `imap.timeout` applied to each.
//!
//! The timeout bounds:
//! - connecting, over every address the name resolves to together;
//! - the TLS handshake, as a whole (a watchdog thread shuts the socket down when it passes);
//! - each wait for the server: a read fails once the timeout has passed since the last byte the
//!   client wrote, however many bytes arrive meanwhile (so a server sending one byte at a time
//!   cannot hold the client), while a long upload is never cut as long as its writes progress;
//! - each write, as an idle timeout (a server that stops reading).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use flagsplit_tls::{TlsConfig, TlsProvider, TlsStream};
use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::{Pid, Signal};

use crate::error::ImapError;

/// What a connection runs over.
pub enum Stream {
    /// Plain TCP.
    Tcp(TcpStream),
    /// TLS over TCP.
    Tls(Box<dyn TlsStream>),
    /// A tunnel command.
    Tunnel(Tunnel),
    /// Any other stream (the scripted server of the unit tests): protected, without timeouts.
    Other(Box<dyn ReadWrite>),
    /// Nothing (while a stream is being upgraded, or after a failure).
    Closed,
}

/// A byte stream both ways.
pub trait ReadWrite: Read + Write + Send {}

impl<T: Read + Write + Send> ReadWrite for T {}

/// Which way a timeout struck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimedOut {
    /// Waiting for the server.
    Waiting,
    /// Sending to a server that does not read.
    Sending,
}

/// A connection, with the deadline of the wait for the server.
pub struct Transport {
    stream: Stream,
    /// The TCP socket under TLS (the same socket), for its read timeout.
    socket: Option<TcpStream>,
    timeout: Duration,
    deadline: Instant,
    timed_out: Option<TimedOut>,
}

impl Transport {
    /// Over `stream`, with `timeout` from now for the first answer (the greeting).
    pub fn new(stream: Stream, timeout: Duration) -> Transport {
        let socket = match &stream {
            Stream::Tcp(s) => s.try_clone().ok(),
            _ => None,
        };
        Transport {
            stream,
            socket,
            timeout,
            deadline: Instant::now() + timeout,
            timed_out: None,
        }
    }

    /// The TCP socket under a TLS stream (a clone), for its read timeout.
    pub fn set_socket(&mut self, socket: Option<TcpStream>) {
        if socket.is_some() {
            self.socket = socket;
        }
    }

    /// Replaces the stream (STARTTLS), returning the old one; the socket kept for timeouts
    /// stays the same.
    pub fn replace(&mut self, stream: Stream) -> Stream {
        std::mem::replace(&mut self.stream, stream)
    }

    /// The timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the timeout (from the next write on).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
        self.deadline = self.deadline.min(Instant::now() + timeout);
    }

    /// Whether (and how) the last failure was the timeout.
    pub fn timed_out(&self) -> Option<TimedOut> {
        self.timed_out
    }

    /// Whether the bytes are protected from the network: TLS, or a tunnel (whose command is
    /// trusted to protect them, as with `ssh host /usr/lib/dovecot/imap`).
    pub fn is_protected(&self) -> bool {
        matches!(
            self.stream,
            Stream::Tls(_) | Stream::Tunnel(_) | Stream::Other(_)
        )
    }

    /// Whether it is plain TCP (where STARTTLS applies).
    pub fn is_plain_tcp(&self) -> bool {
        matches!(self.stream, Stream::Tcp(_))
    }

    /// A short description for `-v`.
    pub fn describe(&self) -> String {
        match &self.stream {
            Stream::Tcp(_) => "plain TCP".into(),
            Stream::Tls(t) => t.describe(),
            Stream::Tunnel(_) => "tunnel".into(),
            Stream::Other(_) => "scripted".into(),
            Stream::Closed => "closed".into(),
        }
    }

    fn read_once(&mut self, buf: &mut [u8], left: Duration) -> io::Result<usize> {
        match &mut self.stream {
            Stream::Tcp(s) => {
                s.set_read_timeout(Some(left))?;
                s.read(buf)
            }
            Stream::Tls(s) => {
                if let Some(socket) = &self.socket {
                    socket.set_read_timeout(Some(left))?;
                }
                s.read(buf)
            }
            Stream::Tunnel(t) => t.read(buf, left),
            Stream::Other(s) => s.read(buf),
            Stream::Closed => Err(closed()),
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "connection closed")
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "timed out")
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.timed_out = Some(TimedOut::Waiting);
                return Err(timed_out());
            }
            match self.read_once(buf, left) {
                // The socket's timeout may end a little early: the deadline decides.
                Err(e) if is_timeout(&e) => continue,
                r => return r,
            }
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let timeout = self.timeout;
        let r = match &mut self.stream {
            Stream::Tcp(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
            Stream::Tunnel(t) => t.write(buf, timeout),
            Stream::Other(s) => s.write(buf),
            Stream::Closed => Err(closed()),
        };
        match r {
            Ok(n) => {
                // The wait for the answer counts from the last byte written.
                self.deadline = Instant::now() + timeout;
                Ok(n)
            }
            Err(e) if is_timeout(&e) => {
                self.timed_out = Some(TimedOut::Sending);
                Err(timed_out())
            }
            Err(e) => Err(e),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = match &mut self.stream {
            Stream::Tcp(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
            Stream::Tunnel(t) => t.stdin_mut()?.flush(),
            Stream::Other(s) => s.flush(),
            Stream::Closed => Err(closed()),
        };
        match r {
            Ok(()) => {
                self.deadline = Instant::now() + self.timeout;
                Ok(())
            }
            Err(e) if is_timeout(&e) => {
                self.timed_out = Some(TimedOut::Sending);
                Err(timed_out())
            }
            Err(e) => Err(e),
        }
    }
}

/// Connects to `host:port` (every address it resolves to, in turn, within `timeout` in all);
/// writes time out after `timeout` too.
pub fn connect_tcp(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, ImapError> {
    let fail = |source: io::Error| ImapError::Connect {
        host: host.to_string(),
        port,
        cause: source.to_string(),
    };
    let deadline = Instant::now() + timeout;
    let addrs = (host, port).to_socket_addrs().map_err(fail)?;
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the name resolves to no address");
    for addr in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            last = timed_out();
            break;
        }
        match TcpStream::connect_timeout(&addr, left) {
            Ok(tcp) => {
                tcp.set_write_timeout(Some(timeout)).map_err(fail)?;
                let _ = tcp.set_nodelay(true);
                return Ok(tcp);
            }
            Err(e) => last = e,
        }
    }
    if is_timeout(&last) {
        return Err(ImapError::TimedOut {
            seconds: timeout.as_secs(),
            step: format!("connecting to {}", server_name(host, port)),
        });
    }
    Err(fail(last))
}

/// `host:port`, with brackets around an IPv6 address.
pub fn server_name(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The TLS handshake over `tcp`, within `timeout` as a whole: past it a watchdog shuts the
/// socket down, which ends the handshake whatever the provider is doing.
pub fn tls_connect(
    provider: &dyn TlsProvider,
    tcp: TcpStream,
    config: &TlsConfig<'_>,
    timeout: Duration,
) -> Result<Box<dyn TlsStream>, ImapError> {
    let guard = tcp.try_clone().map_err(|e| ImapError::Connect {
        host: config.host.to_string(),
        port: 0,
        cause: e.to_string(),
    })?;
    // Longer than the watchdog's wait, so that a stalled read ends by the watchdog.
    let _ = tcp.set_read_timeout(Some(timeout + Duration::from_secs(1)));
    let fired = Arc::new(AtomicBool::new(false));
    let (done, wait) = mpsc::channel::<()>();
    let watchdog = {
        let fired = fired.clone();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
                fired.store(true, Ordering::SeqCst);
                let _ = guard.shutdown(Shutdown::Both);
            }
        })
    };
    let result = provider.connect(tcp, config);
    drop(done);
    let _ = watchdog.join();
    if fired.load(Ordering::SeqCst) {
        return Err(ImapError::TimedOut {
            seconds: timeout.as_secs(),
            step: format!("in the TLS handshake with {}", config.host),
        });
    }
    Ok(result?)
}

/// A running tunnel command, in a process group of its own so that it ends as a whole (`sh`
/// and what it started, such as ssh, which would otherwise keep the user's stderr open).
pub struct Tunnel {
    child: Child,
    group: Option<Pid>,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

/// How long a tunnel may take to exit by itself once its input is closed (after LOGOUT, an
/// IMAP process exits at once) before its process group is terminated.
const TUNNEL_GRACE: Duration = Duration::from_millis(300);

impl Tunnel {
    /// Runs `sh -c command` in a new process group, with non-blocking pipes for stdin and
    /// stdout (stderr is inherited, so that the command's own diagnostics reach the user).
    pub fn spawn(command: &str) -> Result<Tunnel, ImapError> {
        let fail = |source: io::Error| ImapError::Tunnel {
            command: command.to_string(),
            cause: source.to_string(),
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(fail)?;
        let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(fail(io::Error::other("no pipes")));
        };
        let mut tunnel = Tunnel {
            child,
            group,
            stdin: Some(stdin),
            stdout,
        };
        let nonblocking = tunnel
            .stdin_mut()
            .and_then(|s| Ok(rustix::io::ioctl_fionbio(&*s, true)?))
            .and_then(|()| Ok(rustix::io::ioctl_fionbio(&tunnel.stdout, true)?));
        nonblocking.map_err(fail)?;
        Ok(tunnel)
    }

    fn stdin_mut(&mut self) -> io::Result<&mut ChildStdin> {
        self.stdin.as_mut().ok_or_else(closed)
    }

    fn read(&mut self, buf: &mut [u8], left: Duration) -> io::Result<usize> {
        loop {
            match self.stdout.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
                    if poll(&mut fds, left)? == 0 {
                        return Err(timed_out());
                    }
                }
                r => return r,
            }
        }
    }

    fn write(&mut self, buf: &[u8], timeout: Duration) -> io::Result<usize> {
        let stdin = self.stdin_mut()?;
        loop {
            match stdin.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let mut fds = [PollFd::new(&*stdin, PollFlags::OUT)];
                    if poll(&mut fds, timeout)? == 0 {
                        return Err(timed_out());
                    }
                }
                r => return r,
            }
        }
    }

    /// Ends the tunnel: closes its input, lets it exit by itself for a moment, then terminates
    /// its whole process group (SIGTERM, then SIGKILL for what is left) and waits for the shell.
    fn end(&mut self) {
        drop(self.stdin.take());
        let grace = Instant::now() + TUNNEL_GRACE;
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(group) = self.group {
            // The group outlives the shell while anything it started runs; the shell is not
            // reaped yet, so the group's id cannot have been reused.
            if rustix::process::test_kill_process_group(group).is_ok() {
                let _ = rustix::process::kill_process_group(group, Signal::TERM);
                let end = Instant::now() + TUNNEL_GRACE;
                while group_has_live_members(group) && Instant::now() < end {
                    std::thread::sleep(Duration::from_millis(5));
                }
                if group_has_live_members(group) {
                    let _ = rustix::process::kill_process_group(group, Signal::KILL);
                }
            }
        }
        let _ = self.child.wait();
    }
}

/// Whether a process of `group` other than its (unreaped) leader can still be signalled.
fn group_has_live_members(group: Pid) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return rustix::process::test_kill_process_group(group).is_ok();
    };
    let wanted = group.as_raw_nonzero().get();
    entries.flatten().any(|e| {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            return false;
        };
        if pid == wanted {
            return false;
        }
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        fields.first() != Some(&"Z") && fields.get(2) == Some(&wanted.to_string().as_str())
    })
}

fn poll(fds: &mut [PollFd<'_>], timeout: Duration) -> io::Result<usize> {
    let timeout = Timespec {
        tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    loop {
        match rustix::event::poll(fds, Some(&timeout)) {
            Err(rustix::io::Errno::INTR) => continue,
            r => return Ok(r?),
        }
    }
}

impl Drop for Tunnel {
    fn drop(&mut self) {
        self.end();
    }
}

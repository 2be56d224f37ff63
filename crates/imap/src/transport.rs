//! The byte streams an IMAP session runs over: plain TCP, TLS (by the selected provider), and a
//! tunnel command (`imap.tunnel`, run by `sh -c`, IMAP on its stdin/stdout).

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use flagsplit_tls::TlsStream;

use crate::error::ImapError;

/// A connection.
pub enum Transport {
    /// Plain TCP.
    Tcp(TcpStream),
    /// TLS over TCP.
    Tls(Box<dyn TlsStream>),
    /// A tunnel command.
    Tunnel(Tunnel),
    /// Nothing (while a stream is being upgraded, or after a failure).
    Closed,
}

impl Transport {
    /// Whether the bytes are protected from the network: TLS, or a tunnel (whose command is
    /// trusted to protect them, as with `ssh host /usr/lib/dovecot/imap`).
    pub fn is_protected(&self) -> bool {
        matches!(self, Transport::Tls(_) | Transport::Tunnel(_))
    }

    /// A short description for `-v`.
    pub fn describe(&self) -> String {
        match self {
            Transport::Tcp(_) => "plain TCP".into(),
            Transport::Tls(t) => t.describe(),
            Transport::Tunnel(_) => "tunnel".into(),
            Transport::Closed => "closed".into(),
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "connection closed")
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Tcp(s) => s.read(buf),
            Transport::Tls(s) => s.read(buf),
            Transport::Tunnel(t) => t.stdout.read(buf),
            Transport::Closed => Err(closed()),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Tcp(s) => s.write(buf),
            Transport::Tls(s) => s.write(buf),
            Transport::Tunnel(t) => t.stdin.write(buf),
            Transport::Closed => Err(closed()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Tcp(s) => s.flush(),
            Transport::Tls(s) => s.flush(),
            Transport::Tunnel(t) => t.stdin.flush(),
            Transport::Closed => Err(closed()),
        }
    }
}

/// Connects to `host:port` (every address it resolves to, in turn), with `timeout` for the
/// connection and for every later read and write.
pub fn connect_tcp(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, ImapError> {
    let fail = |source: io::Error| ImapError::Connect {
        host: host.to_string(),
        port,
        source,
    };
    let addrs = (host, port).to_socket_addrs().map_err(fail)?;
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the name resolves to no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(tcp) => {
                tcp.set_read_timeout(Some(timeout)).map_err(fail)?;
                tcp.set_write_timeout(Some(timeout)).map_err(fail)?;
                let _ = tcp.set_nodelay(true);
                return Ok(tcp);
            }
            Err(e) => last = e,
        }
    }
    Err(fail(last))
}

/// A running tunnel command.
pub struct Tunnel {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Tunnel {
    /// Runs `sh -c command` with pipes for stdin and stdout (stderr is inherited, so the
    /// command's own diagnostics reach the user).
    pub fn spawn(command: &str) -> Result<Tunnel, ImapError> {
        let fail = |source: io::Error| ImapError::Tunnel {
            command: command.to_string(),
            source,
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(fail)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(fail(io::Error::other("no pipes")));
        };
        Ok(Tunnel {
            child,
            stdin,
            stdout,
        })
    }
}

impl Drop for Tunnel {
    fn drop(&mut self) {
        // Closing stdin ends a well-behaved IMAP process (it sees EOF after LOGOUT); a command
        // still running after that is killed so that nothing is left behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

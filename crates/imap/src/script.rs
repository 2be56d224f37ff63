//! A scripted server for the unit tests: a byte stream that plays the server's part of a
//! conversation and checks the client's, step by step. A client that reads while the script
//! expects it to write (a command not sent before waiting for the answer) gets an error naming
//! what was expected, as does one that writes other bytes.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

/// One step of a conversation.
#[derive(Debug, Clone)]
pub enum Step {
    /// Bytes the server sends.
    Server(Vec<u8>),
    /// Bytes the client must send next.
    Client(Vec<u8>),
    /// The connection breaks: reads end, writes fail.
    Cut,
}

/// The client's part, as `Step::Client`.
pub fn client(b: impl AsRef<[u8]>) -> Step {
    Step::Client(b.as_ref().to_vec())
}

/// The server's part, as `Step::Server`.
pub fn server(b: impl AsRef<[u8]>) -> Step {
    Step::Server(b.as_ref().to_vec())
}

/// The stream; clones share the script (to check it was played to the end).
#[derive(Clone)]
pub struct Script {
    steps: Arc<Mutex<VecDeque<Step>>>,
}

impl Script {
    /// A stream that plays `steps`.
    pub fn new(steps: Vec<Step>) -> Script {
        Script {
            steps: Arc::new(Mutex::new(steps.into())),
        }
    }

    /// The steps not played yet.
    pub fn left(&self) -> Vec<Step> {
        self.steps
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

fn mismatch(what: String) -> io::Error {
    io::Error::other(format!("script: {what}"))
}

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut steps = self.steps.lock().map_err(|_| mismatch("poisoned".into()))?;
        match steps.front_mut() {
            None | Some(Step::Cut) => Ok(0),
            Some(Step::Client(expected)) => Err(mismatch(format!(
                "the client reads while it should send {:?}",
                String::from_utf8_lossy(expected)
            ))),
            Some(Step::Server(bytes)) => {
                let n = bytes.len().min(buf.len());
                buf[..n].copy_from_slice(&bytes[..n]);
                bytes.drain(..n);
                if bytes.is_empty() {
                    steps.pop_front();
                }
                Ok(n)
            }
        }
    }
}

impl Write for Script {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut steps = self.steps.lock().map_err(|_| mismatch("poisoned".into()))?;
        let mut rest = buf;
        while !rest.is_empty() {
            match steps.front_mut() {
                Some(Step::Client(expected)) => {
                    let n = expected.len().min(rest.len());
                    if expected[..n] != rest[..n] {
                        return Err(mismatch(format!(
                            "the client sent {:?} where {:?} was expected",
                            String::from_utf8_lossy(&rest[..n]),
                            String::from_utf8_lossy(&expected[..n])
                        )));
                    }
                    expected.drain(..n);
                    if expected.is_empty() {
                        steps.pop_front();
                    }
                    rest = &rest[n..];
                }
                Some(Step::Cut) => {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "cut"));
                }
                other => {
                    return Err(mismatch(format!(
                        "the client sent {:?} while the script is at {other:?}",
                        String::from_utf8_lossy(rest)
                    )));
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

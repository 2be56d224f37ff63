//! `flagsplit hash-object`: git object ids, compatible with `git hash-object` for reading (no `-w`).
//!
//! Many paths are hashed in parallel on all cores, and the ids are printed in input order. With
//! `--stdin-paths` the paths are read as they arrive and each id is flushed as soon as every id
//! before it is known, so a program can use it as a coprocess (write a path, read the id), as
//! git-svn does with git's.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Read, Seek, SeekFrom, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use flagsplit::cli::Matches;
use flagsplit::hash::{Digest, collision_detection_from_env};
use flagsplit::object::{self, Kind, ObjectError};
use flagsplit::os_error::strerror;

const NAME: &str = "flagsplit hash-object";

/// A file this size or smaller is read whole in one go (no `fstat`, one hash call).
const SMALL_FILE: usize = 64 * 1024;

/// Standard input from a pipe is kept in memory up to this size, spooled to a file beyond it.
const STDIN_IN_MEMORY: usize = 16 * 1024 * 1024;

/// Read buffer for large files.
const READ_SIZE: usize = 128 * 1024;

/// A fatal error, printed as git prints it (exit 128).
struct Fatal(String);

fn fatal_for(path: &OsStr, e: ObjectError) -> Fatal {
    let name = path.to_string_lossy();
    match e {
        ObjectError::Io(e) if e.kind() == io::ErrorKind::IsADirectory => {
            Fatal(format!("Unable to hash {name}"))
        }
        ObjectError::Io(e) => Fatal(format!("could not read '{name}': {}", strerror(&e))),
        ObjectError::Malformed { kind, reason } => Fatal(format!(
            "refusing to create malformed object: {name}: {kind}: {reason}"
        )),
        other => Fatal(format!("{other}: {name}")),
    }
}

/// Runs the command.
pub fn main(m: &Matches) -> ExitCode {
    let usage = |msg: &str| {
        eprintln!("{NAME}: error: {msg}\nTry '{NAME} --help' for more information.");
        ExitCode::from(129)
    };
    if m.flag("write") {
        return usage(
            "-w is not supported: flagsplit computes ids and never writes objects (use git hash-object -w)",
        );
    }
    let kind = match m.value("type") {
        None => Kind::Blob,
        Some(t) => match t.to_str().and_then(Kind::from_name) {
            Some(k) => k,
            None => {
                eprintln!(
                    "{NAME}: fatal: invalid object type \"{}\"",
                    t.to_string_lossy()
                );
                return ExitCode::from(128);
            }
        },
    };
    let stdin_paths = m.flag("stdin-paths");
    if stdin_paths && m.flag("stdin") {
        return usage("Can't use --stdin-paths with --stdin");
    }
    if stdin_paths && !m.operands.is_empty() {
        return usage("Can't specify files with --stdin-paths");
    }
    let detect = !m.flag("no-collision-detection") && collision_detection_from_env();
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());

    let result = (|| -> Result<(), Fatal> {
        if m.flag("stdin") {
            let id = hash_stdin(kind, detect).map_err(|e| fatal_for(OsStr::new("<stdin>"), e))?;
            print_id(&mut out, &id)?;
        }
        if stdin_paths {
            let lines = || {
                io::stdin().lock().split(b'\n').map(|line| match line {
                    Ok(mut l) => {
                        if l.last() == Some(&b'\r') {
                            // git's strbuf_getline strips a CR before the LF too
                            l.pop();
                        }
                        unquote_c_style(l)
                    }
                    Err(e) => Err(Fatal(format!("reading paths: {}", strerror(&e)))),
                })
            };
            hash_many(lines, kind, detect, &mut out, true)
        } else if m.operands.len() == 1 {
            let path = &m.operands[0];
            let mut buf = Vec::new();
            let id = hash_path(path, kind, detect, &mut buf)?;
            print_id(&mut out, &id)
        } else {
            let operands = m.operands.clone();
            hash_many(
                || operands.into_iter().map(Ok),
                kind,
                detect,
                &mut out,
                false,
            )
        }
    })();
    let flushed = out.flush();
    match result {
        Ok(()) => match flushed {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{NAME}: fatal: write error: {}", strerror(&e));
                ExitCode::from(128)
            }
        },
        Err(Fatal(msg)) if msg.is_empty() => ExitCode::SUCCESS, // stdout closed: quietly stop
        Err(Fatal(msg)) => {
            eprintln!("{NAME}: fatal: {msg}");
            ExitCode::from(128)
        }
    }
}

fn print_id(out: &mut impl Write, id: &Digest) -> Result<(), Fatal> {
    let mut line = [0u8; 41];
    line[..40].copy_from_slice(id.to_hex().as_bytes());
    line[40] = b'\n';
    out.write_all(&line).map_err(|e| match e.kind() {
        io::ErrorKind::BrokenPipe => Fatal(String::new()),
        _ => Fatal(format!("write error: {}", strerror(&e))),
    })
}

/// The id of one file. `buf` is a reusable buffer (one per worker).
fn hash_path(path: &OsStr, kind: Kind, detect: bool, buf: &mut Vec<u8>) -> Result<Digest, Fatal> {
    let mut file = File::open(path).map_err(|e| {
        Fatal(format!(
            "could not open '{}' for reading: {}",
            path.to_string_lossy(),
            strerror(&e)
        ))
    })?;
    hash_open_file(&mut file, kind, detect, buf).map_err(|e| fatal_for(path, e))
}

fn hash_open_file(
    file: &mut File,
    kind: Kind,
    detect: bool,
    buf: &mut Vec<u8>,
) -> Result<Digest, ObjectError> {
    if kind != Kind::Blob {
        buf.clear();
        file.read_to_end(buf)?;
        return object::id_of_bytes(kind, buf, detect);
    }
    // Fast path: read up to SMALL_FILE bytes; if that was all, the length is known without fstat.
    buf.resize(SMALL_FILE.max(READ_SIZE), 0);
    let mut filled = 0;
    while filled < SMALL_FILE {
        match file.read(&mut buf[filled..SMALL_FILE]) {
            Ok(0) => return object::id_of_bytes(kind, &buf[..filled], detect),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let len = file.metadata()?.len();
    let (first, rest) = buf.split_at_mut(SMALL_FILE);
    object::blob_id_streaming(&first[..filled], file, len, rest, detect)
}

fn hash_stdin(kind: Kind, detect: bool) -> Result<Digest, ObjectError> {
    if kind != Kind::Blob {
        let mut all = Vec::new();
        io::stdin().lock().read_to_end(&mut all)?;
        return object::id_of_bytes(kind, &all, detect);
    }
    // Standard input redirected from a regular file: its size is known, stream it.
    if let Ok(fd) = std::os::fd::AsFd::as_fd(&io::stdin()).try_clone_to_owned() {
        let mut file = File::from(fd);
        if let Ok(meta) = file.metadata()
            && meta.is_file()
        {
            let start = file.stream_position()?;
            let len = meta.len().saturating_sub(start);
            let mut buf = vec![0u8; READ_SIZE];
            return object::blob_id_streaming(&[], file, len, &mut buf, detect);
        }
    }
    // A pipe: keep up to STDIN_IN_MEMORY bytes; beyond that, spool to an unlinked temporary file,
    // because the object header needs the length before the content.
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut head = Vec::new();
    (&mut input)
        .take(STDIN_IN_MEMORY as u64 + 1)
        .read_to_end(&mut head)?;
    if head.len() <= STDIN_IN_MEMORY {
        return object::id_of_bytes(kind, &head, detect);
    }
    let mut spool = tempfile::tempfile()?;
    spool.write_all(&head)?;
    drop(head);
    io::copy(&mut input, &mut spool)?;
    let len = spool.stream_position()?;
    spool.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0u8; READ_SIZE];
    object::blob_id_streaming(&[], spool, len, &mut buf, detect)
}

/// Hashes every path (from the iterator `paths` makes, on the feeding thread) in parallel and prints the ids in input order, stopping at the first error
/// (as git does). With `interactive`, output is flushed whenever it has caught up with the input.
fn hash_many<F, I>(
    paths: F,
    kind: Kind,
    detect: bool,
    out: &mut impl Write,
    interactive: bool,
) -> Result<(), Fatal>
where
    F: FnOnce() -> I + Send,
    I: Iterator<Item = Result<OsString, Fatal>>,
{
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, OsString)>(workers * 64);
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<(usize, Result<Digest, Fatal>)>();
    let submitted = AtomicUsize::new(0);

    std::thread::scope(|scope| {
        let feeder_results = res_tx.clone();
        let submitted = &submitted;
        scope.spawn(move || {
            for (i, path) in paths().enumerate() {
                submitted.store(i + 1, Ordering::Release);
                let sent = match path {
                    Ok(p) => job_tx.send((i, p)).is_ok(),
                    Err(e) => {
                        let _ = feeder_results.send((i, Err(e)));
                        false
                    }
                };
                if !sent {
                    break;
                }
            }
        });
        for _ in 0..workers {
            let res_tx = res_tx.clone();
            let job_rx = &job_rx;
            scope.spawn(move || {
                let mut buf = Vec::new();
                loop {
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((i, path)) = job else { return };
                    let result = hash_path(&path, kind, detect, &mut buf);
                    if res_tx.send((i, result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(res_tx);

        let mut pending: BTreeMap<usize, Result<Digest, Fatal>> = BTreeMap::new();
        let mut next = 0;
        for (i, result) in res_rx.iter() {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&next) {
                match result {
                    Ok(id) => print_id(out, &id)?,
                    Err(fatal) => {
                        // Stop at the first error in input order, after the ids before it. The
                        // feeder may be blocked reading standard input, so do not wait for it.
                        let _ = out.flush();
                        let code = if fatal.0.is_empty() {
                            0
                        } else {
                            eprintln!("{NAME}: fatal: {}", fatal.0);
                            128
                        };
                        std::process::exit(code);
                    }
                }
                next += 1;
            }
            if interactive && next == submitted.load(Ordering::Acquire) {
                out.flush().map_err(|e| match e.kind() {
                    io::ErrorKind::BrokenPipe => Fatal(String::new()),
                    _ => Fatal(format!("write error: {}", strerror(&e))),
                })?;
            }
        }
        Ok(())
    })
}

/// git's `unquote_c_style` for a line that starts with `"`; other lines are taken as they are.
fn unquote_c_style(line: Vec<u8>) -> Result<OsString, Fatal> {
    use std::os::unix::ffi::OsStringExt;
    if line.first() != Some(&b'"') {
        return Ok(OsString::from_vec(line));
    }
    let bad = || Fatal("line is badly quoted".into());
    let mut out = Vec::with_capacity(line.len());
    let mut i = 1;
    loop {
        let Some(&c) = line.get(i) else {
            return Err(bad());
        };
        i += 1;
        match c {
            b'"' => {
                return if i == line.len() {
                    Ok(OsString::from_vec(out))
                } else {
                    Err(bad())
                };
            }
            b'\\' => {
                let Some(&e) = line.get(i) else {
                    return Err(bad());
                };
                i += 1;
                let v = match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let digits = line.get(i..i + 2).ok_or_else(bad)?;
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return Err(bad());
                        }
                        i += 2;
                        ((e - b'0') << 6) | ((digits[0] - b'0') << 3) | (digits[1] - b'0')
                    }
                    _ => return Err(bad()),
                };
                out.push(v);
            }
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_like_git() {
        let u = |s: &[u8]| {
            unquote_c_style(s.to_vec())
                .map(|o| o.into_encoded_bytes())
                .ok()
        };
        assert_eq!(u(b"plain \"name\""), Some(b"plain \"name\"".to_vec()));
        assert_eq!(
            u(b"\"a\\tb\\\\c\\\"d\\141\\303\\251\""),
            Some(b"a\tb\\c\"da\xc3\xa9".to_vec())
        );
        assert_eq!(u(b"\"unterminated"), None);
        assert_eq!(u(b"\"x\"trailing"), None);
        assert_eq!(u(b"\"bad \\q\""), None);
    }
}

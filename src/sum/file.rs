//! Hashing one named file: a large regular file is read by a thread of its own into one buffer
//! while the hash runs over the other, so that on two or more cores the kernel's copy from the
//! page cache overlaps the hashing instead of adding to it; everything else is read as standard
//! input is, with [`hash::hash_reader_with`].
//!
//! The reader thread makes the same `read` calls the sequential loop makes, in the same order
//! and until the same end (a read of 0 bytes or the first error), so a file that grows, shrinks
//! or fails while it is read gives what the sequential loop (and coreutils) gives: the digest of
//! what was read, or the read's error. No file is mapped, so a file truncated while it is hashed
//! cannot raise `SIGBUS`. Measurements (BENCHMARKS.md, *Checksums of a file*): on a 300 MiB file
//! in the page cache on 2 cores, 0.26 s instead of 0.32 s for `sha1sum`; on one core the
//! overlap cannot happen and the sequential loop is used.

use std::fs::File;
use std::io;
use std::sync::mpsc;
use std::thread;

use crate::hash::{self, Algorithm, Digest, HashError, Hasher};

/// Files smaller than this are read in sequence: starting a thread and passing buffers costs
/// more than the overlap saves (measured: BENCHMARKS.md).
pub const OVERLAP_MIN: u64 = 4 * 1024 * 1024;

/// The size of each of the two buffers the reader thread fills: large enough that the hand-over
/// between the threads costs nothing measurable, small enough that the first buffer, which is
/// read before any hashing starts, is a small part of a file of [`OVERLAP_MIN`].
pub const OVERLAP_BUF: usize = 512 * 1024;

/// The reader thread's buffers, kept across files so that each large file does not fault in
/// fresh pages.
#[derive(Default)]
pub struct Buffers {
    spare: Vec<Vec<u8>>,
}

impl Buffers {
    fn take(&mut self) -> Vec<u8> {
        self.spare.pop().unwrap_or_else(|| vec![0; OVERLAP_BUF])
    }
}

/// Hashes an opened file: [`overlapped`] when it is a regular file of at least
/// [`OVERLAP_MIN`] bytes and more than one core is available, else the sequential loop.
pub fn hash_file(
    algorithm: Algorithm,
    file: &mut File,
    read_buf: &mut Vec<u8>,
    buffers: &mut Buffers,
) -> Result<Digest, HashError> {
    let large = file
        .metadata()
        .is_ok_and(|m| m.file_type().is_file() && m.len() >= OVERLAP_MIN);
    if large && cores() > 1 {
        overlapped(algorithm, file, buffers)
    } else {
        hash::hash_reader_with(algorithm, file, read_buf)
    }
}

/// The cores this process may run on (its affinity mask and cgroup quota), 1 when unknown.
fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// What the reader thread hands over: a buffer and how its `read` ended (bytes read, 0 at the
/// end, or the error that ends the file).
type Filled = (Vec<u8>, io::Result<usize>);

/// Hashes everything `file` yields with a reader thread: the reader fills a buffer while the
/// hasher works on the one filled before. Falls back to reading in this thread when no thread
/// can be started.
pub fn overlapped(
    algorithm: Algorithm,
    file: &mut File,
    buffers: &mut Buffers,
) -> Result<Digest, HashError> {
    let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(2);
    let (full_tx, full_rx) = mpsc::sync_channel::<Filled>(2);
    for _ in 0..2 {
        // The receiver is alive and the channel has room for both.
        let _ = free_tx.send(buffers.take());
    }
    let source: &File = file;
    // `move`: should the hashing panic, the channels are dropped while unwinding out of this
    // closure, which ends the reader thread before the scope waits for it.
    thread::scope(move |s| {
        let reader = thread::Builder::new()
            .name("sum-reader".into())
            .spawn_scoped(s, move || {
                read_ahead(source, &free_rx, &full_tx).map(|()| free_rx)
            });
        let Ok(reader) = reader else {
            // No thread: the same reads, one after another.
            return hash::hash_reader_with(algorithm, source, &mut buffers.take());
        };
        let result = consume(algorithm, &full_rx, &free_tx, buffers);
        drop(free_tx);
        match reader.join() {
            Ok(Some(free_rx)) => buffers.spare.extend(free_rx.try_iter()),
            Ok(None) => {}
            Err(panic) => std::panic::resume_unwind(panic),
        }
        result
    })
}

/// The reader thread: reads into each free buffer in turn and hands it over, until a read
/// returns 0 or fails (that buffer is handed over too). Gives back the free-buffer queue for
/// the next file, or `None` when the hasher stopped listening.
fn read_ahead(
    mut file: &File,
    free: &mpsc::Receiver<Vec<u8>>,
    full: &mpsc::SyncSender<Filled>,
) -> Option<()> {
    while let Ok(mut buf) = free.recv() {
        let r = hash::read_retrying(&mut file, &mut buf);
        let last = !matches!(r, Ok(n) if n > 0);
        full.send((buf, r)).ok()?;
        if last {
            return Some(());
        }
    }
    None
}

/// The hasher's side: hashes each buffer handed over and gives it back, until the end.
fn consume(
    algorithm: Algorithm,
    full: &mpsc::Receiver<Filled>,
    free: &mpsc::SyncSender<Vec<u8>>,
    buffers: &mut Buffers,
) -> Result<Digest, HashError> {
    let mut hasher = Hasher::new(algorithm);
    loop {
        let Ok((buf, r)) = full.recv() else {
            // The reader ended without its last buffer: it panicked, which `join` reports.
            return Err(HashError::Io(io::Error::other("reader thread ended")));
        };
        match r {
            Ok(0) => {
                buffers.spare.push(buf);
                break;
            }
            Ok(n) => {
                hasher.update(&buf[..n]);
                if let Err(mpsc::SendError(buf)) = free.send(buf) {
                    buffers.spare.push(buf);
                }
            }
            Err(e) => {
                buffers.spare.push(buf);
                return Err(e.into());
            }
        }
    }
    Ok(hasher.finalize()?)
}

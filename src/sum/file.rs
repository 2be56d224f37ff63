//! Hashing one named file: a large regular file is read by a thread of its own into a ring of
//! buffers while the hash runs over the ones filled before, so that on two or more cores the
//! kernel's copy from the page cache overlaps the hashing instead of adding to it; everything
//! else is read as standard input is, with [`hash::hash_reader_with`].
//!
//! The reader thread makes the same `read` calls the sequential loop makes, in the same order
//! and until the same end (a read of 0 bytes or the first error), so a file that grows, shrinks
//! or fails while it is read gives what the sequential loop (and coreutils) gives: the digest of
//! what was read, or the read's error. No file is mapped, so a file truncated while it is hashed
//! cannot raise `SIGBUS`. Measurements: book/src/benchmarks.md, *Checksums of a file*; on one core the
//! overlap cannot happen and the sequential loop is used.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::AsRawFd;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use crate::hash::{self, Algorithm, Digest, HashError, Hasher};

/// Files smaller than this are read in sequence: starting the thread, filling the ring and
/// waiting for each other cost about a millisecond a file, more than the overlap saves below
/// about 32 MiB (measured: book/src/benchmarks.md, *Checksums of a file*).
pub const OVERLAP_MIN: u64 = 32 * 1024 * 1024;

/// The size of each buffer the reader thread fills: large enough that the hand-over between the
/// threads costs nothing measurable, small enough that the first buffer, which is read before
/// any hashing starts, is a small part of a file of [`OVERLAP_MIN`] (sizes from 128 KiB to
/// 4 MiB measured the same).
pub const OVERLAP_BUF: usize = 512 * 1024;

/// The buffers in the ring (4 MiB in all). Ahead of the hasher by up to the whole ring, the
/// reader can wait for the scheduler for milliseconds without the hasher waiting for it; and a
/// buffer is written again only after the hasher has read 3.5 MiB since, by when its lines have
/// left the hasher's core's cache, so the reader's copy does not fetch them from there.
pub const RING: usize = 8;

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

/// Hashes an opened file as [`hash::hash_reader_with`] does, but past its first
/// [`hash::SMALL_READ`] bytes a regular file of at least [`OVERLAP_MIN`] bytes is read
/// [`overlapped`] when more than one core is available. A file that ends within the first read
/// costs no `fstat`.
pub fn hash_file(
    algorithm: Algorithm,
    file: &mut File,
    read_buf: &mut Vec<u8>,
    buffers: &mut Buffers,
) -> Result<Digest, HashError> {
    let mut hasher = Hasher::new(algorithm);
    if hash_head(&mut hasher, file)? {
        return Ok(hasher.finalize()?);
    }
    let large = file
        .metadata()
        .is_ok_and(|m| m.file_type().is_file() && m.len() >= OVERLAP_MIN);
    if large && cores() > 1 {
        overlapped(hasher, file, buffers)
    } else {
        hash::hash_rest(hasher, file, read_buf)
    }
}

/// [`hash::hash_head`] for a file: the same `read` calls, into a buffer on the stack that is not
/// cleared first. Clearing 16 KiB was 16 K instructions of every file, and of a run on an empty
/// one (`flagsplit sha1sum /dev/null`, 4% of its start-up).
fn hash_head(hasher: &mut Hasher, file: &File) -> io::Result<bool> {
    let mut small = [MaybeUninit::<u8>::uninit(); hash::SMALL_READ];
    let fd = file.as_raw_fd();
    let mut filled = 0;
    while filled < hash::SMALL_READ {
        let rest = &mut small[filled..];
        // SAFETY: FFI. The pointer and length describe `rest`, the part of `small` not yet
        // filled, which read(2) writes at most that many bytes into; `fd` stays open while
        // `file` is borrowed.
        let n = unsafe { libc::read(fd, rest.as_mut_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(_) => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    // SAFETY: FFI. read(2) wrote the first `filled` bytes of `small`, which are initialized.
    let head = unsafe { std::slice::from_raw_parts(small.as_ptr().cast::<u8>(), filled) };
    hasher.update(head);
    Ok(filled < hash::SMALL_READ)
}

/// The cores this process may run on (its affinity mask and cgroup quota), 1 when unknown.
fn cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

/// What the reader thread hands over: a buffer and how its `read` ended (bytes read, 0 at the
/// end, or the error that ends the file).
type Filled = (Vec<u8>, io::Result<usize>);

/// The two threads' hand-off: buffers to fill, buffers filled (in order), who is waiting, and
/// whether the hasher has stopped.
struct Shared {
    free: Vec<Vec<u8>>,
    full: VecDeque<Filled>,
    /// The reader sleeps until half the ring is free again (see [`RING`]).
    reader_waiting: bool,
    hasher_waiting: bool,
    stopped: bool,
}

struct HandOff {
    state: Mutex<Shared>,
    /// The reader waits on this for free buffers (or the hasher's stop).
    freed: Condvar,
    /// The hasher waits on this for a filled buffer.
    filled: Condvar,
}

impl HandOff {
    /// The state; a thread that panicked while holding the lock left it consistent (each
    /// change is one push or pop), so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, on: &Condvar, guard: MutexGuard<'a, Shared>) -> MutexGuard<'a, Shared> {
        on.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the hasher stopped when it returns or unwinds, so that the reader never waits for it.
struct StopOnDrop<'a>(&'a HandOff);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.lock().stopped = true;
        self.0.freed.notify_one();
    }
}

/// Hashes the rest of `file` into `hasher` with a reader thread: the reader fills the ring's
/// buffers ahead while the hasher works on the ones filled before. Reads in this thread when no
/// thread can be started.
pub fn overlapped(
    hasher: Hasher,
    file: &mut File,
    buffers: &mut Buffers,
) -> Result<Digest, HashError> {
    let hand_off = HandOff {
        state: Mutex::new(Shared {
            free: (0..RING).map(|_| buffers.take()).collect(),
            full: VecDeque::with_capacity(RING),
            reader_waiting: false,
            hasher_waiting: false,
            stopped: false,
        }),
        freed: Condvar::new(),
        filled: Condvar::new(),
    };
    let source: &File = file;
    let result = thread::scope(|s| {
        let reader = thread::Builder::new()
            .name("sum-reader".into())
            .spawn_scoped(s, || read_ahead(source, &hand_off));
        if reader.is_err() {
            // No thread: the same reads, one after another.
            let mut buf = hand_off.lock().free.pop().unwrap_or_default();
            let r = hash::hash_rest(hasher, source, &mut buf);
            hand_off.lock().free.push(buf);
            return r;
        }
        let _stop = StopOnDrop(&hand_off);
        consume(hasher, &hand_off)
    });
    let mut shared = hand_off.lock();
    buffers.spare.append(&mut shared.free);
    buffers
        .spare
        .extend(shared.full.drain(..).map(|(buf, _)| buf));
    result
}

/// The reader thread: reads into each free buffer in turn and hands it over, until a read
/// returns 0 or fails (that buffer is handed over too), or the hasher stops. When no buffer is
/// free it sleeps until half the ring is, so that it wakes once per half ring, not per buffer.
fn read_ahead(mut file: &File, hand_off: &HandOff) {
    loop {
        let mut buf = {
            let mut shared = hand_off.lock();
            loop {
                if shared.stopped {
                    return;
                }
                if let Some(buf) = shared.free.pop() {
                    break buf;
                }
                shared.reader_waiting = true;
                shared = hand_off.wait(&hand_off.freed, shared);
            }
        };
        let r = hash::read_retrying(&mut file, &mut buf);
        let last = !matches!(r, Ok(n) if n > 0);
        let wake = {
            let mut shared = hand_off.lock();
            shared.full.push_back((buf, r));
            std::mem::take(&mut shared.hasher_waiting)
        };
        if wake {
            hand_off.filled.notify_one();
        }
        if last {
            return;
        }
    }
}

/// The hasher's side: hashes each buffer handed over, in order, and gives it back, until the
/// end of the file or its first read error.
fn consume(mut hasher: Hasher, hand_off: &HandOff) -> Result<Digest, HashError> {
    loop {
        let (buf, r) = {
            let mut shared = hand_off.lock();
            loop {
                if let Some(filled) = shared.full.pop_front() {
                    break filled;
                }
                // Nothing filled: every buffer is free or being read into, so a sleeping
                // reader is woken whatever the threshold.
                if std::mem::take(&mut shared.reader_waiting) {
                    hand_off.freed.notify_one();
                }
                shared.hasher_waiting = true;
                shared = hand_off.wait(&hand_off.filled, shared);
            }
        };
        let n = match r {
            Ok(n) => n,
            Err(e) => {
                hand_off.lock().free.push(buf);
                return Err(e.into());
            }
        };
        if n > 0 {
            hasher.update(&buf[..n]);
        }
        let wake = {
            let mut shared = hand_off.lock();
            shared.free.push(buf);
            shared.reader_waiting && shared.free.len() >= RING / 2 && {
                shared.reader_waiting = false;
                true
            }
        };
        if wake {
            hand_off.freed.notify_one();
        }
        if n == 0 {
            return Ok(hasher.finalize()?);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequential(algorithm: Algorithm, file: &mut File) -> Digest {
        hash::hash_reader_with(algorithm, file, &mut Vec::new()).unwrap()
    }

    /// The reader thread hashes what the sequential loop hashes, at every buffer boundary and
    /// past the ring's end, where buffers are reused, and the buffers come back for the next
    /// file.
    #[test]
    fn overlapped_hashes_what_the_sequential_loop_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let mut buffers = Buffers::default();
        let mut content = vec![0u8; 3 * RING * OVERLAP_BUF + 1];
        crate::bench::fill(&mut content);
        for size in [
            0,
            1,
            OVERLAP_BUF - 1,
            OVERLAP_BUF,
            OVERLAP_BUF + 1,
            3 * OVERLAP_BUF + 1,
            RING * OVERLAP_BUF,
            RING * OVERLAP_BUF + 1,
            3 * RING * OVERLAP_BUF + 1,
        ] {
            let path = dir.path().join(size.to_string());
            std::fs::write(&path, &content[..size]).unwrap();
            for algorithm in [Algorithm::Sha1, Algorithm::Md5, Algorithm::Sha256] {
                let expected = sequential(algorithm, &mut File::open(&path).unwrap());
                let got = overlapped(
                    Hasher::new(algorithm),
                    &mut File::open(&path).unwrap(),
                    &mut buffers,
                )
                .unwrap();
                assert_eq!(got.as_bytes(), expected.as_bytes(), "{size} bytes");
                assert_eq!(buffers.spare.len(), RING, "{size} bytes");
            }
        }
    }

    /// A read error reaches the hasher as the error the sequential loop returns (a directory:
    /// `EISDIR`), and the buffers still come back.
    #[test]
    fn overlapped_returns_the_read_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut buffers = Buffers::default();
        let r = overlapped(
            Hasher::new(Algorithm::Sha1),
            &mut File::open(dir.path()).unwrap(),
            &mut buffers,
        );
        let Err(HashError::Io(e)) = r else {
            panic!("a directory was hashed");
        };
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        assert_eq!(buffers.spare.len(), RING);
    }
}

//! What the process inherited from its parent, as it was before Rust's runtime changed it: whether
//! standard input and output were closed, and whether `SIGPIPE` was ignored.
//!
//! Rust's runtime, before `main`, opens `/dev/null` on any of the descriptors 0–2 that is closed and
//! sets `SIGPIPE` to ignored. coreutils' `md5sum <&-` then reports "Bad file descriptor" where a Rust
//! program would read an empty input, and a coreutils program whose parent ignored `SIGPIPE` gets
//! `EPIPE` and reports "write error" where it would otherwise die of the signal. To behave the
//! same, the `flagsplit` binary calls [`capture`] from an ELF `.init_array` constructor, which the C
//! library runs before `main` (and so before Rust's runtime); the sum commands read the result
//! with [`inherited`]. Without the constructor (other binaries, tests, non-ELF targets) nothing is
//! recorded and [`inherited`] says that everything was open and `SIGPIPE` had its default action.

use std::sync::atomic::{AtomicBool, Ordering};

static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static SIGPIPE_IGNORED: AtomicBool = AtomicBool::new(false);

/// The inherited state the commands care about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inherited {
    /// Descriptor 0 was closed.
    pub stdin_closed: bool,
    /// Descriptor 1 was closed.
    pub stdout_closed: bool,
    /// `SIGPIPE` was ignored: a write to a closed pipe is then an ordinary write error (`EPIPE`),
    /// as for a C program, instead of the end of the process.
    pub sigpipe_ignored: bool,
}

/// Records the inherited state. Call it before Rust's runtime starts (from a `.init_array`
/// constructor); it only asks the kernel, allocates nothing and cannot panic.
pub fn capture() {
    #[cfg(unix)]
    {
        // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags; it fails with EBADF when
        // the descriptor is not open, which is what is asked.
        let closed = |fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1;
        STDIN_CLOSED.store(closed(0), Ordering::Relaxed);
        STDOUT_CLOSED.store(closed(1), Ordering::Relaxed);
        let mut old = std::mem::MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: with a null new action, sigaction only writes the current one into `old`, a
        // valid (zeroed) sigaction structure.
        let ok = unsafe { libc::sigaction(libc::SIGPIPE, std::ptr::null(), old.as_mut_ptr()) };
        if ok == 0 {
            // SAFETY: sigaction succeeded, so it wrote `old`; zeroed was valid before anyway.
            let old = unsafe { old.assume_init() };
            SIGPIPE_IGNORED.store(old.sa_sigaction == libc::SIG_IGN, Ordering::Relaxed);
        }
    }
}

/// What [`capture`] recorded (all `false` when it did not run).
pub fn inherited() -> Inherited {
    Inherited {
        stdin_closed: STDIN_CLOSED.load(Ordering::Relaxed),
        stdout_closed: STDOUT_CLOSED.load(Ordering::Relaxed),
        sigpipe_ignored: SIGPIPE_IGNORED.load(Ordering::Relaxed),
    }
}

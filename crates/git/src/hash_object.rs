//! `git hash-object`'s many paths, hashed in parallel with their ids given in input order
//! ([`hash_many`]), and git's reading of a `--stdin-paths` line ([`path_of_line`]).
//!
//! Paths are numbered in input order. A worker takes up to [`BATCH`] of them (from a pipe, only
//! those already read, so that a coprocess gets its ids), hashes them with the caller's function
//! and hands the results to the caller's sink in order; results that finish early wait for those
//! before them. A worker that meets a large file hands the rest of its batch back, for the next
//! idle worker. The first error in input order ends the run after the ids before it, as in git.
//!
//! `--stdin-paths` lines are read by a thread of their own, never by a worker: a worker never
//! waits for input while it holds anything, and the run can end at an error while the writer of
//! the input (a coprocess waiting for that error) still holds it open. That reader stays blocked
//! in its read until the input ends or the process does.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Read};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Paths per batch: workers take paths and hand their results to the sink a batch at a time, so
/// that the locks and wake-ups are paid per batch, not per file.
pub const BATCH: usize = 64;

/// Paths read ahead of the workers at most (the reader then waits for room).
const READ_AHEAD: usize = 16 * BATCH;

/// Where the paths come from.
pub enum Paths {
    /// `--stdin-paths`: lines, read as they arrive ([`path_of_line`]) (a `BufReader`, whose
    /// buffer says which lines are there without waiting).
    Lines(io::BufReader<Box<dyn Read + Send>>),
    /// The command line.
    List(Vec<OsString>),
}

/// What the input held instead of a path.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A line that starts with `"` but is not a C-quoted name (git's `line is badly quoted`).
    #[error("line is badly quoted")]
    BadlyQuoted,
    /// Reading the input failed.
    #[error("reading paths: {}", crate::os_error::strerror(.0))]
    Read(#[from] io::Error),
}

/// Where the ids go, in input order.
pub trait Sink<T, E> {
    /// The next result.
    fn emit(&mut self, item: T) -> Result<(), E>;
    /// Writes what is buffered (when the output has caught up with the input, for a coprocess).
    fn flush(&mut self) -> Result<(), E>;
}

/// How the work is shared out.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Threads hashing (at least one).
    pub workers: usize,
    /// Flush the sink whenever it has caught up with the paths taken (a coprocess reads each id
    /// as soon as it can be known).
    pub interactive: bool,
}

/// The caller's hashing of one path: `(path, a buffer to reuse, hand_back)`.
pub type HashFn<'a, T, E> =
    dyn Fn(&OsStr, &mut Vec<u8>, &mut dyn FnMut()) -> Result<T, E> + Sync + 'a;

/// One path to hash: its place in the input, and the path or what the input held instead.
type Item = (usize, Result<OsString, InputError>);

/// What the workers and the reader share.
struct State {
    /// Paths read and not yet taken, in input order.
    queue: VecDeque<Item>,
    /// Ranges a worker handed back, taken before new input.
    handed_back: VecDeque<Vec<Item>>,
    /// Whether the input has ended (or failed, its error the last item).
    ended: bool,
    /// Paths taken by workers so far (the output has caught up when it printed as many).
    taken: usize,
    /// Workers holding a range: until they finish, one may hand paths back.
    busy: usize,
    /// An error ended the run: everyone stops.
    stopped: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Work arrived, or the run ended.
    work: Condvar,
    /// Room in the queue, or the run ended (for the reader).
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the run: wakes everyone waiting.
    fn stop(&self) {
        self.lock().stopped = true;
        self.work.notify_all();
        self.room.notify_all();
    }
}

/// Reads `--stdin-paths` lines into the queue until the input ends, fails, or the run stops. The
/// whole lines already buffered are queued together, up to [`BATCH`] (one lock and one wake-up
/// for them); a line that has to be waited for is queued as soon as it comes, so that a
/// coprocess gets its id.
fn read_lines(mut input: io::BufReader<Box<dyn Read + Send>>, shared: Arc<Shared>) {
    let mut index = 0;
    let mut batch: Vec<Item> = Vec::with_capacity(BATCH);
    loop {
        let mut last = false;
        while batch.len() < BATCH {
            let mut line = Vec::new();
            match input.read_until(b'\n', &mut line) {
                Ok(0) => last = true,
                Ok(_) => match path_of_line(line) {
                    Some(path) => batch.push((index, Ok(path))),
                    None => {
                        batch.push((index, Err(InputError::BadlyQuoted)));
                        last = true;
                    }
                },
                // An interrupted read is retried inside `read_until`.
                Err(e) => {
                    batch.push((index, Err(InputError::Read(e))));
                    last = true;
                }
            }
            index += 1;
            // The next line is not all there yet (reading it could wait for the writer): queue
            // what was read, so that a coprocess gets its ids.
            if last || !input.buffer().contains(&b'\n') {
                break;
            }
        }
        let mut state = shared.lock();
        while state.queue.len() >= READ_AHEAD && !state.stopped {
            state = shared.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.stopped {
            return;
        }
        state.queue.extend(batch.drain(..));
        state.ended = last;
        drop(state);
        if last {
            shared.work.notify_all();
            return;
        }
        shared.work.notify_one();
    }
}

/// Stops the run when its worker unwinds.
struct StopOnPanic<'a>(&'a Shared);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// The next range to hash: handed back, else up to [`BATCH`] queued paths, waiting while none is
/// queued and the input may still bring some or a busy worker hand some back. `None` once every
/// path has been hashed, or the run stopped.
fn take(shared: &Shared) -> Option<Vec<Item>> {
    let mut state = shared.lock();
    loop {
        if state.stopped {
            return None;
        }
        if let Some(range) = state.handed_back.pop_front() {
            state.busy += 1;
            return Some(range);
        }
        if !state.queue.is_empty() {
            let n = state.queue.len().min(BATCH);
            let range: Vec<Item> = state.queue.drain(..n).collect();
            state.taken += range.len();
            state.busy += 1;
            drop(state);
            shared.room.notify_one();
            return Some(range);
        }
        if state.ended && state.busy == 0 {
            drop(state);
            shared.work.notify_all();
            return None;
        }
        state = shared.work.wait(state).unwrap_or_else(|e| e.into_inner());
    }
}

/// The output side: results of ranges that finished early, by the place of their first path.
struct Output<'s, T, E> {
    sink: &'s mut (dyn Sink<T, E> + Send),
    /// The place of the next path whose result is to be given to the sink.
    next: usize,
    pending: BTreeMap<usize, Vec<Result<T, E>>>,
    /// The first error in input order.
    failed: Option<E>,
}

/// Hashes every path with `hash` on `schedule.workers` threads and gives the results to `sink`
/// in input order, stopping at the first error in input order (after the results before it),
/// which it returns. `hash(path, buffer, hand_back)` may call `hand_back()` before a long job
/// (a large file), so that the rest of its batch goes to another worker. `input_error` turns
/// what the input held instead of a path into the caller's error, at that path's place.
pub fn hash_many<T, E>(
    paths: Paths,
    schedule: Schedule,
    hash: &HashFn<'_, T, E>,
    input_error: &(dyn Fn(InputError) -> E + Sync),
    sink: &mut (dyn Sink<T, E> + Send),
) -> Result<(), E>
where
    T: Send,
    E: Send,
{
    let workers = schedule.workers.max(1);
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            queue: VecDeque::new(),
            handed_back: VecDeque::new(),
            ended: false,
            taken: 0,
            busy: 0,
            stopped: false,
        }),
        work: Condvar::new(),
        room: Condvar::new(),
    });
    match paths {
        Paths::List(list) => {
            let mut state = shared.lock();
            state.queue = list.into_iter().map(Ok).enumerate().collect();
            state.ended = true;
        }
        Paths::Lines(input) => {
            let reader = Arc::clone(&shared);
            std::thread::spawn(move || read_lines(input, reader));
        }
    }
    let output = Mutex::new(Output {
        sink,
        next: 0,
        pending: BTreeMap::new(),
        failed: None,
    });
    let work = || {
        // A panic in the caller's hashing or sink stops the others, so that the scope ends and
        // gives the panic back instead of waiting for this worker forever.
        let _stop_on_panic = StopOnPanic(&shared);
        let mut buf = Vec::new();
        while let Some(range) = take(&shared) {
            // A range is never empty: `take` drains at least one path, and a hand-back happens
            // only while paths are left.
            let start = range.first().map_or(0, |&(at, _)| at);
            let mut items = range.into_iter();
            let mut results: Vec<Result<T, E>> = Vec::with_capacity(items.len());
            while let Some((_, path)) = items.next() {
                let result = match path {
                    Ok(path) => {
                        let mut hand_back = || {
                            if workers > 1 && items.len() > 0 {
                                shared
                                    .lock()
                                    .handed_back
                                    .push_back(items.by_ref().collect());
                                shared.work.notify_one();
                            }
                        };
                        hash(&path, &mut buf, &mut hand_back)
                    }
                    Err(e) => Err(input_error(e)),
                };
                let failed = result.is_err();
                results.push(result);
                if failed {
                    break;
                }
            }
            let mut printing = output.lock().unwrap_or_else(|e| e.into_inner());
            let out = &mut *printing;
            out.pending.insert(start, results);
            while out.failed.is_none()
                && let Some(results) = out.pending.remove(&out.next)
            {
                out.next += results.len();
                for result in results {
                    if let Err(e) = result.and_then(|item| out.sink.emit(item)) {
                        out.failed = Some(e);
                        break;
                    }
                }
            }
            if out.failed.is_none()
                && schedule.interactive
                && out.next == shared.lock().taken
                && let Err(e) = out.sink.flush()
            {
                out.failed = Some(e);
            }
            let stop = out.failed.is_some();
            drop(printing);
            if stop {
                shared.stop();
                return;
            }
            let mut state = shared.lock();
            state.busy -= 1;
            let all_done = state.busy == 0 && state.ended;
            drop(state);
            if all_done {
                shared.work.notify_all();
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(work);
        }
        work();
    });
    shared.stop();
    let out = output.into_inner().unwrap_or_else(|e| e.into_inner());
    match out.failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The path a `--stdin-paths` line names, as git reads it: `strbuf_getline` (the LF, and a CR
/// right before it, are dropped; a CR elsewhere stays), then the line as a C string (it ends at
/// its first NUL byte), C-unquoted when it starts with `"` (what follows the closing quote is
/// ignored), and the result again as a C string (`"a\000b"` names `a`). `None`: badly quoted.
pub fn path_of_line(mut line: Vec<u8>) -> Option<OsString> {
    use std::os::unix::ffi::OsStringExt;
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    until_nul(&mut line);
    if line.first() == Some(&b'"') {
        line = crate::quote::unquote_c_style(&line)?.0;
        until_nul(&mut line);
    }
    Some(OsString::from_vec(line))
}

/// Cuts `bytes` at its first NUL, as C reads a string.
fn until_nul(bytes: &mut Vec<u8>) {
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_like_git() {
        let path = |s: &[u8]| path_of_line(s.to_vec()).map(|o| o.into_encoded_bytes());
        assert_eq!(path(b"plain \"name\"\n"), Some(b"plain \"name\"".to_vec()));
        assert_eq!(
            path(b"\"a\\tb\\\\c\\\"d\\141\\303\\251\"\r\n"),
            Some(b"a\tb\\c\"da\xc3\xa9".to_vec())
        );
        assert_eq!(path(b"\"x\" trailing\n"), Some(b"x".to_vec()));
        assert_eq!(path(b"\"x\"y"), Some(b"x".to_vec()));
        assert_eq!(path(b"cr\r"), Some(b"cr\r".to_vec()));
        assert_eq!(path(b"cr\r\r\n"), Some(b"cr\r".to_vec()));
        assert_eq!(path(b"a\0b\n"), Some(b"a".to_vec()));
        assert_eq!(path(b"\"a\\000b\"\n"), Some(b"a".to_vec()));
        assert_eq!(path(b"\n"), Some(Vec::new()));
        assert_eq!(path(b"\"a\0b\"\n"), None);
        assert_eq!(path(b"\"unterminated\n"), None);
        assert_eq!(path(b"\"\n"), None);
        assert_eq!(path(b"\"bad \\q\""), None);
        assert_eq!(path(b"\"\\400\""), None);
        assert_eq!(path(b"\"\\1\""), None);
    }

    fn lines_of(bytes: Vec<u8>) -> Paths {
        Paths::Lines(io::BufReader::new(Box::new(io::Cursor::new(bytes))))
    }

    /// Collects what it is given; fails on `fail`.
    struct Collect {
        got: Vec<String>,
        fail: Option<&'static str>,
        flushes: usize,
    }

    impl Sink<String, String> for Collect {
        fn emit(&mut self, item: String) -> Result<(), String> {
            if self.fail == Some(item.as_str()) {
                return Err(format!("sink refused {item}"));
            }
            self.got.push(item);
            Ok(())
        }
        fn flush(&mut self) -> Result<(), String> {
            self.flushes += 1;
            Ok(())
        }
    }

    fn run(
        paths: Paths,
        workers: usize,
        fail_at: Option<&'static str>,
    ) -> (Result<(), String>, Collect) {
        let mut sink = Collect {
            got: Vec::new(),
            fail: None,
            flushes: 0,
        };
        let hash = |p: &OsStr, _: &mut Vec<u8>, hand_back: &mut dyn FnMut()| {
            let s = p.to_string_lossy().into_owned();
            if Some(s.as_str()) == fail_at {
                return Err(format!("cannot hash {s}"));
            }
            if s.ends_with('0') {
                hand_back();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(s)
        };
        let r = hash_many(
            paths,
            Schedule {
                workers,
                interactive: true,
            },
            &hash,
            &|e| e.to_string(),
            &mut sink,
        );
        (r, sink)
    }

    #[test]
    fn results_come_in_input_order_on_any_number_of_workers() {
        let names: Vec<String> = (0..1000).map(|i| format!("p{i}")).collect();
        for workers in [1, 2, 7] {
            let list = names.iter().map(OsString::from).collect();
            let (r, sink) = run(Paths::List(list), workers, None);
            assert!(r.is_ok());
            assert_eq!(sink.got, names, "{workers} workers");
            let lines = names.join("\n").into_bytes();
            let (r, sink) = run(lines_of(lines), workers, None);
            assert!(r.is_ok());
            assert_eq!(sink.got, names, "{workers} workers, lines");
            assert!(sink.flushes > 0);
        }
    }

    #[test]
    fn the_first_error_in_input_order_ends_the_run_after_the_results_before_it() {
        let names: Vec<String> = (0..500).map(|i| format!("p{i}")).collect();
        for workers in [1, 3] {
            let list = names.iter().map(OsString::from).collect();
            let (r, sink) = run(Paths::List(list), workers, Some("p321"));
            assert_eq!(r, Err("cannot hash p321".to_string()));
            assert_eq!(sink.got, names[..321], "{workers} workers");
        }
        // A badly quoted line, at its place.
        let lines = b"a\nb\n\"bad\nc\n".to_vec();
        let (r, sink) = run(lines_of(lines), 2, None);
        assert_eq!(r, Err("line is badly quoted".to_string()));
        assert_eq!(sink.got, ["a", "b"]);
    }

    #[test]
    fn a_panic_in_the_callers_hashing_ends_the_run() {
        let list = (0..200).map(|i| OsString::from(format!("p{i}"))).collect();
        let mut sink = Collect {
            got: Vec::new(),
            fail: None,
            flushes: 0,
        };
        let hash = |p: &OsStr, _: &mut Vec<u8>, _: &mut dyn FnMut()| {
            assert!(p != "p57", "the caller's hashing panics");
            Ok::<_, String>(p.to_string_lossy().into_owned())
        };
        let run = std::panic::AssertUnwindSafe(|| {
            hash_many(
                Paths::List(list),
                Schedule {
                    workers: 4,
                    interactive: false,
                },
                &hash,
                &|e| e.to_string(),
                &mut sink,
            )
        });
        assert!(std::panic::catch_unwind(run).is_err());
    }

    #[test]
    fn an_error_ends_the_run_while_the_input_stays_open() {
        // A pipe whose writer keeps it open: the run must end at the error without waiting for
        // more input (a coprocess waits for that error before it writes again).
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        use std::io::Write;
        writer.write_all(b"ok\nfails\n").expect("write");
        let (r, sink) = run(
            Paths::Lines(io::BufReader::new(Box::new(reader))),
            2,
            Some("fails"),
        );
        assert_eq!(r, Err("cannot hash fails".to_string()));
        assert_eq!(sink.got, ["ok"]);
        drop(writer);
    }
}

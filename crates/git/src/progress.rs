//! git's progress meters (its `progress.c`), as `git fsck`, `git commit-graph verify` and `git
//! multi-pack-index verify` show them on standard error: `Checking objects:  42% (356586/849014)`
//! rewritten in place with `\r`, then `Checking objects: 100% (849014/849014), done.`.
//!
//! The rules are git's, so that a terminal sees the same updates at the same pace:
//! - a meter with a total is redrawn when its percentage changes, or when the one-second clock has
//!   ticked since it was last drawn (git's `SIGALRM` every second, here read from the monotonic
//!   clock when the meter is updated); one without a total only when the clock has ticked;
//! - a *delayed* meter (`start_delayed_progress`) stays silent until the clock has ticked
//!   `GIT_PROGRESS_DELAY` times (2 by default) — git counts the delay down once per update made
//!   while a tick is pending, and so does this;
//! - a *sparse* meter (`start_sparse_progress`) shows its total when stopped, whether or not it
//!   was updated with it;
//! - stopping a meter that was ever drawn draws it once more with `, done.`; one never drawn
//!   (a delayed meter that ended first) prints nothing;
//! - a meter is drawn only while the process is in the terminal's foreground process group
//!   (`tcgetpgrp`), except the final `, done.` line; and when the title and counters do not fit
//!   the terminal's width (`COLUMNS`, else the width of standard output's terminal, else 80), the
//!   counters move to a line of their own, indented by two spaces, as git splits them.
//!
//! [`Progress`] says whether meters are shown at all (`--progress`, `--no-progress`, or whether
//! standard error is a terminal); its meters are inert when it is off. [`Shared`] lets the threads
//! checking a pack update one meter: each update at a sampled count (git updates every 1024th
//! object of a pack) takes the meter only if no other thread holds it, and never draws a smaller
//! count than one already drawn.

use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Whether meters are shown, and where they are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    on: bool,
}

impl Progress {
    /// No meter is shown.
    pub const OFF: Progress = Progress { on: false };

    /// Meters are shown on standard error when `on`.
    pub fn new(on: bool) -> Progress {
        Progress { on }
    }

    /// Whether meters are shown.
    pub fn is_on(self) -> bool {
        self.on
    }

    /// git's `start_progress`: a meter shown from its first update.
    pub fn start(self, title: &str, total: u64) -> Meter {
        self.meter(title, total, 0, false)
    }

    /// git's `start_delayed_progress`: shown only once the work has taken `GIT_PROGRESS_DELAY`
    /// seconds (2 by default).
    pub fn start_delayed(self, title: &str, total: u64) -> Meter {
        self.meter(title, total, default_delay(), false)
    }

    /// git's `start_sparse_progress`: shows its total when stopped.
    pub fn start_sparse(self, title: &str, total: u64) -> Meter {
        self.meter(title, total, 0, true)
    }

    fn meter(self, title: &str, total: u64, delay: u32, sparse: bool) -> Meter {
        Meter(self.on.then(|| {
            Box::new(State::new(
                title,
                total,
                delay,
                sparse,
                Instant::now(),
                Screen::stderr(),
            ))
        }))
    }
}

/// `GIT_PROGRESS_DELAY` (git's `git_env_ulong`, default 2 seconds).
fn default_delay() -> u32 {
    std::env::var("GIT_PROGRESS_DELAY")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(2)
}

/// One meter (inert when progress is off).
pub struct Meter(Option<Box<State>>);

impl Meter {
    /// A meter that shows nothing.
    pub fn off() -> Meter {
        Meter(None)
    }

    /// git's `display_progress`: the count is now `n`.
    pub fn display(&mut self, n: u64) {
        if let Some(s) = &mut self.0 {
            s.display(n, None, Instant::now());
        }
    }

    /// git's `stop_progress`: the final `, done.` line, when the meter was ever drawn.
    pub fn stop(mut self) {
        if let Some(s) = &mut self.0 {
            s.stop(Instant::now());
        }
    }

    /// Whether the meter shows anything (progress is on).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }
}

/// A meter several threads update.
pub struct Shared(Mutex<Meter>);

impl Shared {
    /// Shares `meter`.
    pub fn new(meter: Meter) -> Shared {
        Shared(Mutex::new(meter))
    }

    /// Whether the meter shows anything.
    pub fn is_on(&self) -> bool {
        self.0.lock().is_ok_and(|m| m.is_on())
    }

    /// The count is now at least `n`: drawn unless another thread is drawing, or a larger count
    /// was already drawn.
    pub fn display(&self, n: u64) {
        if let Ok(mut m) = self.0.try_lock()
            && let Some(s) = &mut m.0
            && s.last_value.is_none_or(|last| n > last)
        {
            s.display(n, None, Instant::now());
        }
    }

    /// The count has passed `n`, one of git's sampled counts (a multiple of `step`): every sampled
    /// count from the last one shown up to `n` is shown in turn, whichever thread got there
    /// first, so that the meter shows git's values in git's order (git's one thread shows each
    /// multiple of `step` as its count reaches it). Nothing is shown for a count not above the
    /// last one.
    pub fn display_sampled(&self, n: u64, step: u64) {
        let Ok(mut m) = self.0.lock() else {
            return;
        };
        let Some(s) = &mut m.0 else {
            return;
        };
        let step = step.max(1);
        let mut v = match s.last_value {
            None => 0,
            Some(last) => (last / step + 1) * step,
        };
        while v <= n {
            s.display(v, None, Instant::now());
            v += step;
        }
    }

    /// The count is now `n`, drawn whatever another thread is doing (between pieces of work).
    pub fn display_now(&self, n: u64) {
        if let Ok(mut m) = self.0.lock() {
            m.display(n);
        }
    }

    /// The meter back, to stop it.
    pub fn into_inner(self) -> Meter {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where a meter is drawn: the writer, the terminal's width, and whether the process is in the
/// foreground.
struct Screen {
    out: Box<dyn Write + Send>,
    columns: usize,
    foreground: fn() -> bool,
}

impl Screen {
    fn stderr() -> Screen {
        Screen {
            out: Box::new(io::stderr()),
            columns: term_columns(),
            foreground: stderr_in_foreground,
        }
    }
}

/// git's `term_columns`: `COLUMNS` when it is a positive number, else the width of standard
/// output's terminal, else 80.
fn term_columns() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| atoi(&v))
        .filter(|&n| n > 0)
    {
        return n as usize;
    }
    terminal_width(1).unwrap_or(80)
}

/// C's `atoi` for what `COLUMNS` may hold: leading blanks, a sign, digits, anything after.
fn atoi(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    let n: i64 = digits[..end].parse().ok()?;
    Some(if neg { -n } else { n })
}

#[cfg(unix)]
fn terminal_width(fd: i32) -> Option<usize> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct passed, which lives for the call.
    let r = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

#[cfg(not(unix))]
fn terminal_width(_fd: i32) -> Option<usize> {
    None
}

/// git's `is_foreground_fd(2)`: no terminal process group, or ours.
#[cfg(unix)]
fn stderr_in_foreground() -> bool {
    // SAFETY: both calls only read the kernel's process-group state; no memory is passed.
    let (tpgrp, own) = unsafe { (libc::tcgetpgrp(2), libc::getpgid(0)) };
    tpgrp < 0 || tpgrp == own
}

#[cfg(not(unix))]
fn stderr_in_foreground() -> bool {
    true
}

/// A shown meter's state: git's `struct progress` and its `progress_update` flag.
struct State {
    title: String,
    total: u64,
    delay: u32,
    sparse: bool,
    last_value: Option<u64>,
    last_percent: Option<u64>,
    counters: String,
    split: bool,
    /// The next tick of the one-second clock.
    next_tick: Instant,
    /// A tick happened and was not used yet (git's `progress_update`).
    update: bool,
    screen: Screen,
}

impl State {
    fn new(
        title: &str,
        total: u64,
        delay: u32,
        sparse: bool,
        now: Instant,
        screen: Screen,
    ) -> State {
        State {
            title: title.to_string(),
            total,
            delay,
            sparse,
            last_value: None,
            last_percent: None,
            counters: String::new(),
            split: false,
            next_tick: now + Duration::from_secs(1),
            update: false,
            screen,
        }
    }

    /// The clock: a tick since the last look sets the pending flag.
    fn tick(&mut self, now: Instant) {
        if now >= self.next_tick {
            self.update = true;
            let behind = now.duration_since(self.next_tick).as_secs() + 1;
            self.next_tick += Duration::from_secs(behind);
        }
    }

    /// git's `display()`; `done` is the end of line that stops the meter.
    fn display(&mut self, n: u64, done: Option<&str>, now: Instant) {
        self.tick(now);
        if self.delay > 0 {
            if !self.update {
                return;
            }
            self.delay -= 1;
            if self.delay > 0 {
                return;
            }
        }
        self.last_value = Some(n);
        let last_len = self.counters.len();
        let mut show = false;
        if let Some(percent) = n.saturating_mul(100).checked_div(self.total) {
            if Some(percent) != self.last_percent || self.update {
                self.last_percent = Some(percent);
                self.counters = format!("{percent:3}% ({n}/{})", self.total);
                show = true;
            }
        } else if self.update {
            self.counters = n.to_string();
            show = true;
        }
        if !show {
            return;
        }
        if (self.screen.foreground)() || done.is_some() {
            let eol = done.unwrap_or("\r");
            let mut clear = if self.counters.len() < last_len {
                last_len - self.counters.len() + 1
            } else {
                0
            };
            let title_width = self.title.chars().count();
            let line_len = title_width + self.counters.len() + 2;
            let cols = self.screen.columns;
            let out = &mut self.screen.out;
            let _ = if self.split {
                write!(out, "  {}{:>clear$}", self.counters, eol)
            } else if done.is_none() && cols < line_len {
                clear = if title_width + 1 < cols {
                    cols - title_width - 1
                } else {
                    0
                };
                self.split = true;
                write!(
                    out,
                    "{}:{:clear$}\n  {}{}",
                    self.title, "", self.counters, eol
                )
            } else {
                write!(out, "{}: {}{:>clear$}", self.title, self.counters, eol)
            };
            let _ = out.flush();
        }
        self.update = false;
    }

    /// git's `stop_progress`.
    fn stop(&mut self, now: Instant) {
        if self.sparse && self.last_value != Some(self.total) {
            self.display(self.total, None, now);
        }
        if let Some(n) = self.last_value {
            self.update = true;
            self.display(n, Some(", done.\n"), now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A screen that records what is drawn.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<u8>>>);

    impl Write for Recorder {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Recorder {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().expect("lock").clone()).expect("utf-8")
        }
    }

    fn state(
        title: &str,
        total: u64,
        delay: u32,
        sparse: bool,
        cols: usize,
    ) -> (State, Recorder, Instant) {
        let rec = Recorder::default();
        let t0 = Instant::now();
        let screen = Screen {
            out: Box::new(rec.clone()),
            columns: cols,
            foreground: || true,
        };
        (State::new(title, total, delay, sparse, t0, screen), rec, t0)
    }

    fn secs(t0: Instant, s: f64) -> Instant {
        t0 + Duration::from_secs_f64(s)
    }

    #[test]
    fn a_total_is_redrawn_when_its_percentage_changes_or_a_second_passes() {
        let (mut s, rec, t0) = state("Checking objects", 200, 0, false, 80);
        s.display(1, None, t0); // 0%: first draw
        s.display(2, None, t0); // 1%
        s.display(3, None, t0); // still 1%: nothing
        s.display(3, None, secs(t0, 1.1)); // the clock ticked: redrawn
        s.display(4, None, secs(t0, 1.2)); // 2%
        s.stop(secs(t0, 1.3));
        assert_eq!(
            rec.text(),
            "Checking objects:   0% (1/200)\rChecking objects:   1% (2/200)\r\
             Checking objects:   1% (3/200)\rChecking objects:   2% (4/200)\r\
             Checking objects:   2% (4/200), done.\n"
        );
    }

    #[test]
    fn without_a_total_only_the_clock_redraws() {
        let (mut s, rec, t0) = state("Checking connectivity", 0, 0, false, 80);
        for n in 1..1000 {
            s.display(n, None, t0);
        }
        s.display(1000, None, secs(t0, 1.0));
        s.display(1001, None, secs(t0, 1.5));
        s.display(2000, None, secs(t0, 2.0));
        s.stop(secs(t0, 2.1));
        assert_eq!(
            rec.text(),
            "Checking connectivity: 1000\rChecking connectivity: 2000\r\
             Checking connectivity: 2000, done.\n"
        );
    }

    #[test]
    fn a_delayed_meter_waits_for_its_ticks_and_one_that_ends_first_prints_nothing() {
        let (mut s, rec, t0) = state("Checking connectivity", 0, 2, false, 80);
        s.display(1, None, secs(t0, 0.5));
        s.stop(secs(t0, 0.6));
        assert_eq!(rec.text(), "", "ended before its delay: nothing at all");

        // git counts the delay down once per update while a tick is pending: the first update
        // after the first tick takes it to 1, the next one to 0 and draws.
        let (mut s, rec, t0) = state("Verifying reverse pack-indexes", 3, 2, false, 80);
        s.display(1, None, secs(t0, 0.5));
        s.display(2, None, secs(t0, 1.1));
        assert_eq!(rec.text(), "");
        s.display(3, None, secs(t0, 1.2));
        s.stop(secs(t0, 1.3));
        assert_eq!(
            rec.text(),
            "Verifying reverse pack-indexes: 100% (3/3)\r\
             Verifying reverse pack-indexes: 100% (3/3), done.\n"
        );
    }

    #[test]
    fn a_sparse_meter_ends_at_its_total() {
        let (mut s, rec, t0) = state("Sorting objects by packfile", 5000, 0, true, 80);
        s.display(0, None, t0);
        s.stop(t0);
        assert_eq!(
            rec.text(),
            "Sorting objects by packfile:   0% (0/5000)\r\
             Sorting objects by packfile: 100% (5000/5000)\r\
             Sorting objects by packfile: 100% (5000/5000), done.\n"
        );
        // Not sparse: stopped where it was.
        let (mut s, rec, t0) = state("Checking objects", 5000, 0, false, 80);
        s.display(10, None, t0);
        s.stop(t0);
        assert!(
            rec.text()
                .ends_with("Checking objects:   0% (10/5000), done.\n")
        );
    }

    #[test]
    fn a_meter_never_updated_prints_nothing() {
        let (mut s, rec, t0) = state("Checking objects", 10, 0, false, 80);
        s.stop(t0);
        assert_eq!(rec.text(), "");
    }

    #[test]
    fn shorter_counters_clear_what_the_longer_ones_left() {
        let (mut s, rec, t0) = state("Checking connectivity", 0, 0, false, 80);
        s.display(12345, None, secs(t0, 1.0));
        s.display(7, None, secs(t0, 2.0));
        assert_eq!(
            rec.text(),
            "Checking connectivity: 12345\rChecking connectivity: 7    \r"
        );
    }

    #[test]
    fn a_narrow_terminal_puts_the_counters_on_their_own_line() {
        let (mut s, rec, t0) = state("Checking objects", 849014, 0, false, 30);
        s.display(1, None, t0);
        s.display(8491, None, t0);
        s.stop(t0);
        assert_eq!(
            rec.text(),
            concat!(
                "Checking objects:             \n",
                "    0% (1/849014)\r",
                "    1% (8491/849014)\r",
                "    1% (8491/849014), done.\n"
            )
        );
    }

    #[test]
    fn a_background_process_draws_only_the_final_line() {
        let rec = Recorder::default();
        let t0 = Instant::now();
        let screen = Screen {
            out: Box::new(rec.clone()),
            columns: 80,
            foreground: || false,
        };
        let mut s = State::new("Checking objects", 4, 0, false, t0, screen);
        s.display(1, None, t0);
        s.display(2, None, t0);
        s.stop(t0);
        assert_eq!(rec.text(), "Checking objects:  50% (2/4), done.\n");
    }

    #[test]
    fn columns_are_read_as_c_reads_them() {
        assert_eq!(atoi("120"), Some(120));
        assert_eq!(atoi("  42abc"), Some(42));
        assert_eq!(atoi("-3"), Some(-3));
        assert_eq!(atoi("x"), None);
    }

    #[test]
    fn an_inert_meter_does_nothing() {
        let mut m = Progress::OFF.start("Checking objects", 10);
        assert!(!m.is_on());
        m.display(5);
        m.stop();
        let shared = Shared::new(Progress::OFF.start_sparse("x", 3));
        shared.display(1);
        assert!(!shared.is_on());
    }
}

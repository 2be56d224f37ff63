//! `fsck`'s progress against git's, on a terminal (a pseudo-terminal the test opens) and off one.
//!
//! git's meters are redrawn when their percentage changes (at sampled counts: every 1024th object
//! of a pack, every 4096th of a multi-pack-index) and when a second has passed; delayed meters
//! wait `GIT_PROGRESS_DELAY` seconds. The sequence of percentages each meter shows, without the
//! redraws of the one-second clock (which depend on the machine's speed), and the final `, done.`
//! lines are compared with git's, meter by meter and in order, with every intermediate
//! percentage, with `--threads 1` and on all cores (where the sampled counts are shown in order,
//! whichever thread reaches them).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{Case, Expect, command, run_fsck, subject, world};
use crate::support;

/// One drawing of a meter: its title, what follows `: `, and whether it ended with `, done.`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Draw {
    title: String,
    counters: String,
    done: bool,
}

impl Draw {
    fn percent(&self) -> Option<&str> {
        self.counters.split_once('%').map(|(p, _)| p.trim())
    }
}

/// The drawings in `text` (pieces between `\r` and `\n` that read `TITLE: COUNTERS`).
fn draws(text: &str) -> Vec<Draw> {
    text.split_inclusive(['\r', '\n'])
        .filter_map(|piece| {
            let (title, rest) = piece.split_once(": ")?;
            if title.starts_with("error")
                || title.starts_with("warning")
                || title.starts_with("notice")
            {
                return None;
            }
            let rest = rest.trim_end_matches(['\r', '\n']).trim_end();
            let (counters, done) = match rest.strip_suffix(", done.") {
                Some(c) => (c, true),
                None => (rest, false),
            };
            Some(Draw {
                title: title.to_string(),
                counters: counters.trim().to_string(),
                done,
            })
        })
        .collect()
}

/// Per meter, in order: its title, the percentages it showed (each once: a redraw by the clock
/// repeats the one before) unless `exact` is off, and its final line.
fn summary(text: &str, exact: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<(String, Option<String>)> = None;
    for d in draws(text) {
        let same_meter = last.as_ref().is_some_and(|(t, _)| *t == d.title);
        if !same_meter {
            out.push(format!("meter {}", d.title));
        }
        let pct = d.percent().map(str::to_string);
        if d.done {
            out.push(format!("  done: {}", d.counters));
        } else if exact
            && pct.is_some()
            && (!same_meter || last.as_ref().is_some_and(|(_, p)| *p != pct))
        {
            // A meter without a total is drawn only by the clock: its intermediate counts depend
            // on the machine's speed and are not compared.
            out.push(format!("  {}", pct.clone().unwrap_or_default()));
        }
        last = Some((d.title, pct));
    }
    out
}

/// Runs `program fsck ARGS` in `repo` with standard error on a new pseudo-terminal, and returns
/// what the terminal received.
fn on_terminal(
    root: &Path,
    program: &str,
    repo: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> String {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read;
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_string_lossy().as_ref())
        .expect("slave");
    let mut c = command(root, program);
    c.arg("fsck")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(repo)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(slave.try_clone().expect("dup"));
    let mut child = c.spawn().expect("spawn");
    let master = fs::File::from(master);
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        let mut m = master;
        while let Ok(n) = m.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        all
    });
    // The command holds its copy of the slave until dropped.
    drop(c);
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{program} fsck on a terminal did not end in 120s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        status.success(),
        "{program} fsck failed on a terminal in {}",
        repo.display()
    );
    // The master reads EIO once no slave is open.
    drop(slave);
    let all = reader.join().expect("reader");
    // A terminal turns `\n` into `\r\n`.
    String::from_utf8_lossy(&all).replace("\r\n", "\n")
}

/// A repository of 6,000 objects in one pack, with a multi-pack-index and a commit-graph: enough
/// for several sampled updates of each meter.
fn big_repository(root: &Path) -> PathBuf {
    let dir = root.join("progress-big");
    fs::create_dir_all(&dir).expect("mkdir");
    let mut script = String::from(
        "git init -q . && {\n\
         for c in $(seq 1 40); do\n\
           echo \"commit refs/heads/main\"\n\
           echo \"committer C <c@example.com> $((1700000000 + c)) +0000\"\n\
           echo \"data 3\"; echo \"c$c\"\n\
           for f in $(seq 1 148); do\n\
             echo \"M 100644 inline d$((f % 7))/f$f\"\n\
             echo \"data <<EOF\"; echo \"$c.$f\"; echo EOF\n\
           done\n\
         done; } | git fast-import --quiet\n",
    );
    script.push_str(
        "git repack -adq && git multi-pack-index write && git commit-graph write --reachable\n",
    );
    let mut c = command(root, "sh");
    c.arg("-c").arg(&script).current_dir(&dir);
    let out = c.output().expect("sh");
    assert!(
        out.status.success(),
        "making the repository: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn fsck_progress_as_git_shows_it() {
    const TEST: &str = "fsck_progress_as_git_shows_it";
    if !support::runs("git", &["--version"]) {
        support::skip(TEST, "git not found");
        return;
    }
    let Some(subject) = subject() else {
        support::skip(TEST, "flagsplit has no fsck command");
        return;
    };
    let w = world();
    let big = big_repository(&w.root);
    let mut problems = Vec::new();
    let compare = |problems: &mut Vec<String>, what: String, git: &str, mine: &str, exact: bool| {
        let (g, m) = (summary(git, exact), summary(mine, exact));
        if g.is_empty() && what.contains("must show") {
            panic!("{what}: git showed no progress: {git:?}");
        }
        if g != m {
            problems.push(format!(
                "{what}:\n  git       {g:?}\n  flagsplit {m:?}\n  git's bytes       {git:?}\n  flagsplit's bytes {mine:?}"
            ));
        }
    };
    // On a terminal: loose objects only, one pack, several packs with a multi-pack-index, a pack
    // with a commit-graph, and the big repository on one thread and on all cores; with the
    // delayed meters shown at once (GIT_PROGRESS_DELAY=0) and as git delays them.
    // Packs are checked in git's order (the multi-pack-index's, then the newest first), on one
    // thread and on all cores, so every intermediate percentage is compared.
    let repos: Vec<(String, PathBuf, bool)> = [
        ("r/base", true),
        ("r/ofs", true),
        ("r/cgraph", true),
        ("r/midx", true),
        ("r/packs", true),
    ]
    .iter()
    .map(|(r, exact)| (r.to_string(), w.root.join(r), *exact))
    .chain([("the 6,000-object repository".to_string(), big.clone(), true)])
    .collect();
    for (name, repo, exact) in &repos {
        for delay in ["0", "2"] {
            let env = [("GIT_PROGRESS_DELAY", delay)];
            let git = on_terminal(&w.root, "git", repo, &[], &env);
            let mine = on_terminal(&w.root, &subject, repo, &["--threads", "1"], &env);
            compare(
                &mut problems,
                format!(
                    "{name} on a terminal, GIT_PROGRESS_DELAY={delay}, --threads 1 (must show)"
                ),
                &git,
                &mine,
                *exact,
            );
            let all = on_terminal(&w.root, &subject, repo, &[], &env);
            compare(
                &mut problems,
                format!("{name} on a terminal, GIT_PROGRESS_DELAY={delay}, all cores"),
                &git,
                &all,
                *exact,
            );
        }
    }
    // The intermediate updates are there: the big repository's pack shows 0% up to 100% in
    // steps, as git's does.
    let git = on_terminal(&w.root, "git", &big, &[], &[]);
    let steps: BTreeSet<String> = draws(&git)
        .into_iter()
        .filter(|d| d.title == "Checking objects")
        .filter_map(|d| d.percent().map(str::to_string))
        .collect();
    assert!(
        steps.len() >= 5,
        "git's `Checking objects` shows intermediate percentages on 6,000 objects: {git:?}"
    );
    // On a terminal with --no-progress: none.
    for program in ["git", subject.as_str()] {
        let shown = on_terminal(&w.root, program, &big, &["--no-progress"], &[]);
        if !draws(&shown).is_empty() {
            problems.push(format!("{program}: progress with --no-progress: {shown:?}"));
        }
    }
    // Off a terminal: none, unless --progress asks; then the same meters as on a terminal
    // (t5319 looks for the multi-pack-index's lines there).
    let case = |cwd: &str, args: &[&str]| Case {
        name: "progress".into(),
        cwd: cwd.into(),
        env: vec![("GIT_PROGRESS_DELAY".into(), "0".into())],
        args: args.iter().map(|a| a.to_string()).collect(),
        expect: Expect::Git,
    };
    let limit = Duration::from_secs(120);
    for program in ["git", subject.as_str()] {
        let ran = run_fsck(&w.root, program, &case("r/midx", &[]), limit, None);
        if !draws(&ran.stderr).is_empty() {
            problems.push(format!(
                "{program} shows progress off a terminal: {:?}",
                ran.stderr
            ));
        }
    }
    let git = run_fsck(
        &w.root,
        "git",
        &case("r/midx", &["--progress"]),
        limit,
        None,
    )
    .stderr;
    let mine = run_fsck(
        &w.root,
        &subject,
        &case("r/midx", &["--progress", "--threads", "1"]),
        limit,
        None,
    )
    .stderr;
    for title in [
        "Verifying OID order in multi-pack-index",
        "Verifying object offsets",
    ] {
        assert!(
            git.contains(title),
            "git --progress off a terminal shows {title}: {git:?}"
        );
        if !mine.contains(title) {
            problems.push(format!("--progress off a terminal: no `{title}`: {mine:?}"));
        }
    }
    compare(
        &mut problems,
        "r/midx --progress off a terminal (must show)".into(),
        &git,
        &mine,
        true,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn drawings_are_read_back() {
    let text = "Checking objects:   0% (0/6000)\rChecking objects:  17% (1024/6000)\r\
                Checking objects:  17% (1025/6000)\rChecking objects: 100% (6000/6000), done.\n\
                error: x: y\nChecking connectivity: 12\rChecking connectivity: 3   \r\
                Checking connectivity: 3, done.\n";
    assert_eq!(
        summary(text, true),
        [
            "meter Checking objects",
            "  0",
            "  17",
            "  done: 100% (6000/6000)",
            "meter Checking connectivity",
            "  done: 3"
        ]
    );
    assert_eq!(
        summary(text, false),
        [
            "meter Checking objects",
            "  done: 100% (6000/6000)",
            "meter Checking connectivity",
            "  done: 3"
        ]
    );
}

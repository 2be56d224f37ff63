//! `flagsplit sha1sum`, `md5sum` and `sha256sum` against GNU coreutils' `sha1sum`, `md5sum` and
//! `sha256sum` (found on PATH; coreutils 9.1 is the reference): for the same arguments, files and
//! standard input, stdout and the exit status must be byte-identical, and stderr too once
//! `flagsplit sha1sum` is renamed `sha1sum`.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::Rng;
use flagsplit::hash::{Algorithm, Hasher, READ_SIZE, SMALL_READ};
use flagsplit::sum::file::{OVERLAP_BUF, OVERLAP_MIN, RING};
use tempfile::TempDir;

#[derive(Clone, Copy, Debug)]
enum Tool {
    Sha1,
    Md5,
    Sha256,
}

const TOOLS: [Tool; 3] = [Tool::Sha1, Tool::Md5, Tool::Sha256];

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Sha1 => "sha1sum",
            Tool::Md5 => "md5sum",
            Tool::Sha256 => "sha256sum",
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// What one run needs besides the arguments.
#[derive(Clone, Copy)]
struct Env<'a> {
    dir: &'a Path,
    stdin: &'a [u8],
    locale: &'a str,
}

fn spawn(mut cmd: Command, env: Env<'_>) -> Outcome {
    cmd.current_dir(env.dir)
        .env("LC_ALL", env.locale)
        .env_remove("LANGUAGE")
        .env_remove("FLAGSPLIT_SHA1DC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let input = env.stdin.to_vec();
    // A thread, so that a large output cannot block the child while we write its input; the
    // child may exit without reading it all (EPIPE is fine).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Outcome {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

fn ours(tool: Tool, args: &[OsString], env: Env<'_>) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flagsplit"));
    cmd.arg(tool.name()).args(args);
    let mut out = spawn(cmd, env);
    out.stderr = normalize(&out.stderr, tool);
    out
}

fn theirs(tool: Tool, args: &[OsString], env: Env<'_>) -> Outcome {
    let mut cmd = Command::new(tool.name());
    cmd.args(args);
    spawn(cmd, env)
}

/// `flagsplit sha1sum` → `sha1sum` everywhere in stderr (no test file name contains it).
fn normalize(stderr: &[u8], tool: Tool) -> Vec<u8> {
    let from = format!("flagsplit {}", tool.name());
    let from = from.as_bytes();
    let mut out = Vec::with_capacity(stderr.len());
    let mut i = 0;
    while i < stderr.len() {
        if stderr[i..].starts_with(from) {
            out.extend_from_slice(tool.name().as_bytes());
            i += from.len();
        } else {
            out.push(stderr[i]);
            i += 1;
        }
    }
    out
}

fn show(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string().replace("\\n", "\\n\n    ")
}

fn describe(args: &[OsString]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.as_bytes().escape_ascii().to_string())
        .collect();
    let all = args.join(" ");
    match all.char_indices().nth(400) {
        Some((cut, _)) => format!("{}... ({} arguments)", &all[..cut], args.len()),
        None => all,
    }
}

/// Runs both and compares; returns coreutils' outcome.
fn assert_same(tool: Tool, args: &[OsString], env: Env<'_>) -> Outcome {
    let expected = theirs(tool, args, env);
    let got = ours(tool, args, env);
    if got != expected {
        panic!(
            "{} {} (LC_ALL={}) differs from coreutils\n\
             status: flagsplit {:?}, coreutils {:?}\n\
             stdout flagsplit:\n    {}\nstdout coreutils:\n    {}\n\
             stderr flagsplit:\n    {}\nstderr coreutils:\n    {}",
            tool.name(),
            describe(args),
            env.locale,
            got.status,
            expected.status,
            show(&got.stdout),
            show(&expected.stdout),
            show(&got.stderr),
            show(&expected.stderr),
        );
    }
    expected
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

fn osb(b: &[u8]) -> OsString {
    OsStr::from_bytes(b).to_os_string()
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(|s| os(s)).collect()
}

/// Regular files of the corpus: names that need escaping or quoting, non-UTF-8 names, empty,
/// binary and large contents.
fn corpus_files() -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let binary: Vec<u8> = (0..=255u8).cycle().take(256 * 64).collect();
    vec![
        (b"empty".to_vec(), Vec::new()),
        (b"binary.bin".to_vec(), binary),
        (b"large.dat".to_vec(), rng.bytes(3 * 1024 * 1024 + 123)),
        (b"with space".to_vec(), b"space\n".to_vec()),
        (b"  leading blanks".to_vec(), b"blanks".to_vec()),
        (b"back\\slash".to_vec(), b"backslash".to_vec()),
        (b"new\nline".to_vec(), b"newline".to_vec()),
        (b"car\rriage".to_vec(), b"carriage return".to_vec()),
        (b"all\\\n\rthree".to_vec(), b"three".to_vec()),
        (b"latin1-\xe9\xff".to_vec(), b"not UTF-8".to_vec()),
        ("café ☕".as_bytes().to_vec(), b"utf-8".to_vec()),
        (b"it's".to_vec(), b"quote".to_vec()),
        (b"a:b".to_vec(), b"colon".to_vec()),
        (b"tab\there".to_vec(), b"tab".to_vec()),
        (b"star*".to_vec(), b"star".to_vec()),
    ]
}

const DIRECTORY: &[u8] = b"subdir";
const MISSING: [&[u8]; 3] = [b"missing file", b"gone", b"missing\n\xff"];

fn make_corpus() -> (TempDir, Vec<OsString>) {
    let dir = TempDir::new().unwrap();
    let mut names = Vec::new();
    for (name, content) in corpus_files() {
        fs::write(dir.path().join(OsStr::from_bytes(&name)), content).unwrap();
        names.push(osb(&name));
    }
    fs::create_dir(dir.path().join(OsStr::from_bytes(DIRECTORY))).unwrap();
    (dir, names)
}

const UTF8: &str = "C.UTF-8";

#[test]
fn output_modes_match_coreutils() {
    let (dir, files) = make_corpus();
    let mut all = files.clone();
    all.push(osb(DIRECTORY));
    all.extend(MISSING.iter().map(|m| osb(m)));
    let env = Env {
        dir: dir.path(),
        stdin: b"",
        locale: UTF8,
    };
    let modes: [&[&str]; 9] = [
        &[],
        &["-b"],
        &["-t"],
        &["--tag"],
        &["-z"],
        &["--tag", "-z"],
        &["-b", "-z"],
        &["-b", "-t"],
        &["-t", "--tag"],
    ];
    for tool in TOOLS {
        for mode in modes {
            let mut a = args(mode);
            a.extend(all.iter().cloned());
            let out = assert_same(tool, &a, env);
            assert_eq!(
                out.status,
                Some(1),
                "the directory and the missing files fail"
            );
            assert!(!out.stdout.is_empty());
        }
        // Every file hashed, nothing failing: status 0.
        let out = assert_same(tool, &files, env);
        assert_eq!(out.status, Some(0));
        // Quoting of names in messages in the C locale (bytes above 0x7e are escaped there).
        let mut a = all.clone();
        a.insert(0, os("--tag"));
        assert_same(tool, &a, Env { locale: "C", ..env });
    }
}

#[test]
fn standard_input_matches_coreutils() {
    let (dir, _) = make_corpus();
    let env = Env {
        dir: dir.path(),
        stdin: b"some input\nwith lines\n",
        locale: UTF8,
    };
    let cases: [&[&str]; 7] = [
        &[],
        &["-"],
        &["--tag"],
        &["-b", "-"],
        &["-z", "-"],
        &["-", "empty", "-"],
        &["--", "-"],
    ];
    for tool in TOOLS {
        for case in cases {
            let out = assert_same(tool, &args(case), env);
            assert_eq!(out.status, Some(0));
        }
        assert_same(tool, &[], Env { stdin: b"", ..env });
    }
}

/// Every ordered pair of options (and some triples), on a file: coreutils refuses some
/// combinations, with its own wording and order of checks.
#[test]
fn option_combinations_match_coreutils() {
    let (dir, _) = make_corpus();
    let env = Env {
        dir: dir.path(),
        stdin: b"",
        locale: UTF8,
    };
    let options = [
        "-c",
        "--tag",
        "-t",
        "-b",
        "-z",
        "--quiet",
        "--status",
        "--warn",
        "--strict",
        "--ignore-missing",
    ];
    let mut cases: Vec<Vec<&str>> = options.iter().map(|o| vec![*o]).collect();
    for a in options {
        for b in options {
            if a != b {
                cases.push(vec![a, b]);
            }
        }
    }
    for extra in [
        ["-c", "--tag", "-z"],
        ["--tag", "-t", "-c"],
        ["-c", "-b", "-z"],
        ["--status", "--quiet", "--strict"],
        ["--warn", "--status", "--ignore-missing"],
        ["-c", "--status", "--warn"],
        ["-c", "--warn", "--quiet"],
        ["-t", "--tag", "-b"],
    ] {
        cases.push(extra.to_vec());
    }
    // Errors of the parser itself (getopt's wording).
    for bad in [
        &["--bogus"][..],
        &["-x"],
        &["--st"],
        &["--check=x"],
        &["-cx"],
        &["-c", "--"],
    ] {
        cases.push(bad.to_vec());
    }
    let mut refused = 0;
    for tool in TOOLS {
        for case in &cases {
            let mut a = args(case);
            a.push(os("empty"));
            let out = assert_same(tool, &a, env);
            refused += usize::from(out.stderr.ends_with(b"for more information.\n"));
        }
    }
    assert!(
        refused > 100,
        "only {refused} refused combinations: the test lost its point"
    );
}

#[test]
fn pipelines_verify_both_ways() {
    let (dir, files) = make_corpus();
    let env = Env {
        dir: dir.path(),
        stdin: b"",
        locale: UTF8,
    };
    for tool in TOOLS {
        for mode in [&[][..], &["-b"], &["--tag"]] {
            let mut a = args(mode);
            a.extend(files.iter().cloned());
            let produced = ours(tool, &a, env);
            assert_eq!(produced.status, Some(0), "{}", show(&produced.stderr));
            let their_list = theirs(tool, &a, env);
            assert_eq!(produced.stdout, their_list.stdout);
            for (checker, list) in [
                ("coreutils", &produced.stdout),
                ("flagsplit", &their_list.stdout),
            ] {
                let check_env = Env { stdin: list, ..env };
                let verified = if checker == "coreutils" {
                    theirs(tool, &args(&["-c"]), check_env)
                } else {
                    ours(tool, &args(&["-c"]), check_env)
                };
                assert_eq!(
                    verified.status,
                    Some(0),
                    "{checker}: {}",
                    show(&verified.stderr)
                );
                let oks = verified.stdout.windows(4).filter(|w| w == b": OK").count();
                assert_eq!(oks, files.len(), "{checker}: {}", show(&verified.stdout));
                assert!(verified.stderr.is_empty());
            }
        }
    }
}

/// Check files for `tool`, built from coreutils' own output (so the test does not check
/// flagsplit against itself).
fn check_corpus(tool: Tool, dir: &Path, files: &[OsString]) -> Vec<OsString> {
    let env = Env {
        dir,
        stdin: b"",
        locale: UTF8,
    };
    let small: Vec<OsString> = files
        .iter()
        .filter(|f| f.as_bytes() != b"large.dat")
        .cloned()
        .collect();
    let listing = |mode: &[&str], names: &[OsString]| {
        let mut a = args(mode);
        a.extend(names.iter().cloned());
        let out = theirs(tool, &a, env);
        assert_eq!(out.status, Some(0));
        out.stdout
    };
    let good = listing(&[], &small);
    let good_binary = listing(&["-b"], &small);
    let bsd = listing(&["--tag"], &small);
    let hex_len = match tool {
        Tool::Sha1 => 40,
        Tool::Md5 => 32,
        Tool::Sha256 => 64,
    };
    let fake_digest =
        b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"[..hex_len].to_vec();
    let lines = |text: &[u8]| -> Vec<Vec<u8>> {
        text.split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    };
    let good_lines = lines(&good);
    // Escaped lines span one line here: all of coreutils' lines are single lines.
    let simple: Vec<&Vec<u8>> = good_lines
        .iter()
        .filter(|l| !l.starts_with(b"\\"))
        .collect();
    let escaped: Vec<&Vec<u8>> = good_lines.iter().filter(|l| l.starts_with(b"\\")).collect();
    assert!(simple.len() >= 4 && !escaped.is_empty());
    let line_for = |name: &[u8]| {
        let mut l = fake_digest.clone();
        l.extend_from_slice(b"  ");
        l.extend_from_slice(name);
        l.push(b'\n');
        l
    };
    let mismatch = {
        let mut v = good.clone();
        // Change the first digit of the first and the third line.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                v.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        for &s in [starts[0], starts[2]].iter() {
            let at = if v[s] == b'\\' { s + 1 } else { s };
            v[at] = if v[at] == b'0' { b'1' } else { b'0' };
        }
        v
    };
    let upper = {
        let mut v = Vec::new();
        for l in &simple {
            let (digest, rest) = l.split_at(hex_len);
            v.extend(digest.to_ascii_uppercase());
            v.extend_from_slice(rest);
        }
        v
    };
    let crlf: Vec<u8> = simple
        .iter()
        .flat_map(|l| {
            let mut l = l[..l.len() - 1].to_vec();
            l.extend_from_slice(b"\r\n");
            l
        })
        .collect();
    let reversed: Vec<u8> = simple
        .iter()
        .flat_map(|l| {
            let mut r = l[..hex_len].to_vec();
            r.push(b' ');
            r.extend_from_slice(&l[hex_len + 2..]);
            r
        })
        .collect();
    let mut missing = good.clone();
    for m in MISSING {
        if !m.contains(&b'\n') {
            missing.extend(line_for(m));
        }
    }
    let mut only_missing = Vec::new();
    only_missing.extend(line_for(b"missing file"));
    only_missing.extend(line_for(b"gone"));
    let mut bad = Vec::new();
    bad.extend_from_slice(simple[0]);
    bad.extend_from_slice(b"garbage\n");
    bad.extend_from_slice(&fake_digest[1..]);
    bad.extend_from_slice(b"  short digest\n");
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b"\n");
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b"  \n");
    bad.push(b'\\');
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b"  bad\\tescape\n");
    bad.extend_from_slice(simple[1]);
    bad.extend_from_slice(b"  \t");
    bad.extend_from_slice(simple[2]);
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b" reversed after standard\n");
    bad.extend_from_slice(b"SHA1 (x) = 0123\nMD5 (x) = 0123\n");
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b"0  too long\n");
    bad.extend_from_slice(&fake_digest);
    bad.extend_from_slice(b"  empty\0after NUL\n");
    let mut mixed = Vec::new();
    for (i, l) in lines(&bsd).iter().enumerate() {
        mixed.extend_from_slice(l);
        if let Some(g) = good_lines.get(i) {
            mixed.extend_from_slice(g);
        }
    }
    mixed.extend_from_slice(&good_binary);
    mixed.extend_from_slice(b"# a comment\n\n   \n");
    let mut comments = b"# nothing but comments\n\n#\n".to_vec();
    comments.extend_from_slice(b"\r\n");
    let mut dash = line_for(b"-");
    dash.extend_from_slice(simple[0]);
    let dir_entry = line_for(DIRECTORY);
    let mut no_newline = simple[0].clone();
    no_newline.pop();
    // The other tool's lines: all improperly formatted here.
    let other = {
        let other_tool = match tool {
            Tool::Sha1 => Tool::Md5,
            Tool::Md5 => Tool::Sha256,
            Tool::Sha256 => Tool::Sha1,
        };
        let out = theirs(other_tool, &small[..3], env);
        out.stdout
    };

    let sets: Vec<(&str, Vec<u8>)> = vec![
        ("good", good),
        ("good-binary", good_binary),
        ("bsd", bsd),
        ("mismatch", mismatch),
        ("upper", upper),
        ("crlf", crlf),
        ("reversed", reversed),
        ("missing", missing),
        ("only-missing", only_missing),
        ("bad-lines", bad),
        ("mixed", mixed),
        ("empty-list", Vec::new()),
        ("comments", comments),
        ("dash", dash),
        ("dir-entry", dir_entry),
        ("no-newline", no_newline),
        ("other-tool", other),
        (
            "escaped-only",
            escaped.iter().flat_map(|l| l.to_vec()).collect(),
        ),
    ];
    let mut names = Vec::new();
    for (name, content) in sets {
        let file = format!("check-{}.{name}", tool.name());
        fs::write(dir.join(&file), content).unwrap();
        names.push(os(&file));
    }
    names
}

/// All 32 combinations of the five checking options.
fn check_option_sets() -> Vec<Vec<&'static str>> {
    let flags = [
        "--quiet",
        "--status",
        "--strict",
        "--warn",
        "--ignore-missing",
    ];
    let mut sets = Vec::new();
    for mask in 0..32u32 {
        let mut set = vec!["-c"];
        set.extend((0..5).filter(|i| mask & (1 << i) != 0).map(|i| flags[i]));
        sets.push(set);
    }
    // --status, --warn and --quiet override each other: the last one wins.
    sets.push(vec!["-c", "--warn", "--status"]);
    sets.push(vec!["--quiet", "-c", "--warn"]);
    sets.push(vec!["--status", "--quiet", "-c"]);
    sets
}

#[test]
fn check_matches_coreutils() {
    let (dir, files) = make_corpus();
    let env = Env {
        dir: dir.path(),
        stdin: b"data read for a '-' line\n",
        locale: UTF8,
    };
    let mut statuses = BTreeSet::new();
    for tool in TOOLS {
        let check_files = check_corpus(tool, dir.path(), &files);
        for options in check_option_sets() {
            for file in &check_files {
                let mut a = args(&options);
                a.push(file.clone());
                statuses.insert(assert_same(tool, &a, env).status);
            }
            // All at once (the layout seen first sticks across files), a directory and a
            // missing check file too.
            let mut a = args(&options);
            a.extend(check_files.iter().cloned());
            a.push(osb(DIRECTORY));
            a.push(os("no such list"));
            assert_same(tool, &a, env);
        }
        // The check file on standard input, alone and among others.
        for file in &check_files {
            let list = fs::read(dir.path().join(file)).unwrap();
            let stdin_env = Env {
                stdin: &list,
                ..env
            };
            assert_same(tool, &args(&["-c"]), stdin_env);
            assert_same(tool, &args(&["--check", "--warn", "-", "-"]), stdin_env);
            let mut a = args(&["-c", "--strict"]);
            a.push(check_files[0].clone());
            a.push(os("-"));
            assert_same(tool, &a, stdin_env);
        }
    }
    assert!(statuses.contains(&Some(0)) && statuses.contains(&Some(1)));
}

/// Random lines built from the pieces that matter to the parser, compared with `--warn` and
/// `--strict`.
#[test]
fn random_check_lines_match_coreutils() {
    let (dir, _) = make_corpus();
    let env = Env {
        dir: dir.path(),
        stdin: b"stdin",
        locale: UTF8,
    };
    for tool in TOOLS {
        let digests = {
            let out = theirs(tool, &args(&["empty", "with space", "back\\slash"]), env);
            let text = out.stdout;
            let mut d: Vec<Vec<u8>> = text
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let l = l.strip_prefix(b"\\").unwrap_or(l);
                    l.split(|&b| b == b' ').next().unwrap().to_vec()
                })
                .collect();
            d.push(d[0].to_ascii_uppercase());
            d.push(d[0][1..].to_vec());
            d
        };
        let tag = tool.name().trim_end_matches("sum").to_ascii_uppercase();
        let pieces: Vec<Vec<u8>> = [
            &b" "[..],
            b"  ",
            b"\t",
            b"*",
            b"\\",
            b"\\\\",
            b"\\n",
            b"\\r",
            b"\\t",
            b"(",
            b")",
            b" = ",
            b"=",
            b"-",
            b"\0",
            b"\r",
            b"#",
            b"empty",
            b"with space",
            b"back",
            b"slash",
            b"x",
            b"subdir",
            b"a",
            b"0f",
        ]
        .iter()
        .map(|p| p.to_vec())
        .chain([tag.as_bytes().to_vec(), format!("{tag} (").into_bytes()])
        .collect();
        let mut rng = Rng(0x1234_5678_9abc_def1 ^ tool.name().len() as u64);
        let mut lists = Vec::new();
        for n in 0..60 {
            let mut list = Vec::new();
            for _ in 0..6 {
                let mut line = Vec::new();
                let shape = rng.below(4);
                for _ in 0..rng.below(3) {
                    line.extend_from_slice(&pieces[rng.below(pieces.len())]);
                }
                if shape != 3 {
                    line.extend_from_slice(&digests[rng.below(digests.len())]);
                }
                for _ in 0..1 + rng.below(4) {
                    line.extend_from_slice(&pieces[rng.below(pieces.len())]);
                }
                if shape == 3 {
                    line.extend_from_slice(&digests[rng.below(digests.len())]);
                }
                line.push(b'\n');
                list.extend(line);
            }
            let name = format!("random-{}-{n}", tool.name());
            fs::write(dir.path().join(&name), &list).unwrap();
            lists.push(os(&name));
        }
        for options in [&["-c", "--warn"][..], &["-c", "--strict", "--quiet"]] {
            for list in &lists {
                let mut a = args(options);
                a.push(list.clone());
                assert_same(tool, &a, env);
            }
        }
    }
}

#[test]
fn write_errors_match_coreutils() {
    let (dir, _) = make_corpus();
    for tool in TOOLS {
        let run = |program: &str, flagsplit: bool| {
            let mut cmd = Command::new(program);
            if flagsplit {
                cmd.arg(tool.name());
            }
            let full = fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = cmd
                .args(["empty", "gone"])
                .current_dir(dir.path())
                .env("LC_ALL", UTF8)
                .stdout(full)
                .output()
                .unwrap();
            (out.status.code(), normalize(&out.stderr, tool))
        };
        let expected = run(tool.name(), false);
        assert_eq!(run(env!("CARGO_BIN_EXE_flagsplit"), true), expected);
        assert!(
            expected.1.ends_with(b": write error\n"),
            "{}",
            show(&expected.1)
        );
    }
}

/// Output into a pipe nobody reads: the command stops without a word.
#[test]
fn closed_pipe_is_quiet() {
    let (dir, _) = make_corpus();
    for check in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_flagsplit"));
        cmd.arg("sha1sum").current_dir(dir.path());
        if check {
            let list = theirs(
                Tool::Sha1,
                &args(&["empty"]),
                Env {
                    dir: dir.path(),
                    stdin: b"",
                    locale: UTF8,
                },
            );
            let many: Vec<u8> = list.stdout.repeat(20_000);
            fs::write(dir.path().join("many"), many).unwrap();
            cmd.args(["-c", "many"]);
        } else {
            // 20000 lines are far more than a pipe holds, so writing must fail.
            cmd.args(std::iter::repeat_n("empty", 20_000));
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(141), "check={check}");
        assert!(out.stderr.is_empty(), "{}", show(&out.stderr));
    }
}

/// How the process is started, each as a shell sets it up: closed stdin or stdout, SIGPIPE
/// ignored with output into a pipe nobody reads, `POSIXLY_CORRECT`, `-h`, and `--version` (which
/// prints flagsplit's own version). Run through `sh -c`, with `$0` the program (`md5sum`, or
/// `flagsplit md5sum` as `"$FLAGSPLIT" md5sum`).
#[test]
fn edges_match_coreutils() {
    let (dir, _) = make_corpus();
    let many = "$(i=0; while [ $i -lt 3000 ]; do echo empty; i=$((i+1)); done)";
    let list = "c.list";
    // 2000 `empty: OK` lines each: six give 120,000 bytes, more than a Linux pipe holds (65,536).
    let lists = "c.list c.list c.list c.list c.list c.list";
    let cases: Vec<String> = vec![
        "PROG <&-".into(),
        "PROG - <&-".into(),
        "PROG empty - <&-".into(),
        "PROG -c <&-".into(),
        format!("PROG -c {list} <&-"),
        "PROG empty >&-".into(),
        "PROG gone >&-".into(),
        "PROG -c --status c.list >&-".into(),
        // The program's own status, as the shell's PIPESTATUS would say, goes to stderr.
        format!("trap '' PIPE; {{ PROG {many}; echo \"status $?\" >&2; }} | true"),
        // More output than a pipe holds, so that the write fails whenever `true` exits: a few
        // lines could fit in the pipe before it does, or not, depending on the scheduler.
        format!("trap '' PIPE; {{ PROG -c {lists}; echo \"status $?\" >&2; }} | true"),
        "POSIXLY_CORRECT=1 PROG empty -b".into(),
        "POSIXLY_CORRECT=1 PROG empty -- -b".into(),
        "POSIXLY_CORRECT=1 PROG -b empty".into(),
        "PROG empty -- -b".into(),
        "PROG -h".into(),
        "PROG -bh empty".into(),
    ];
    for tool in TOOLS {
        let listing = theirs(
            tool,
            &args(&["empty"; 2000]),
            Env {
                dir: dir.path(),
                stdin: b"",
                locale: UTF8,
            },
        );
        fs::write(dir.path().join("c.list"), listing.stdout).unwrap();
        for case in &cases {
            let run = |prog: &str| {
                let script = case.replace("PROG", prog);
                let out = Command::new("sh")
                    .args(["-c", &script])
                    .current_dir(dir.path())
                    .env("FLAGSPLIT", env!("CARGO_BIN_EXE_flagsplit"))
                    .env("LC_ALL", UTF8)
                    .env_remove("POSIXLY_CORRECT")
                    .output()
                    .unwrap();
                (out.status.code(), out.stdout, normalize(&out.stderr, tool))
            };
            let expected = run(tool.name());
            let got = run(&format!("\"$FLAGSPLIT\" {}", tool.name()));
            assert_ne!(expected.0, Some(2), "`{case}` is not a valid script");
            assert_eq!(
                got.0,
                expected.0,
                "{} `{case}`: status\nstderr flagsplit:\n    {}\nstderr coreutils:\n    {}",
                tool.name(),
                show(&got.2),
                show(&expected.2)
            );
            assert!(
                got.1 == expected.1,
                "{} `{case}`: stdout\nflagsplit:\n    {}\ncoreutils:\n    {}",
                tool.name(),
                show(&got.1),
                show(&expected.1)
            );
            assert!(
                got.2 == expected.2,
                "{} `{case}`: stderr\nflagsplit:\n    {}\ncoreutils:\n    {}",
                tool.name(),
                show(&got.2),
                show(&expected.2)
            );
        }
        // --version: flagsplit's own version (coreutils prints its own), status 0.
        let out = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
            .args([tool.name(), "--version"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            out.stdout,
            format!("flagsplit version {}\n", env!("CARGO_PKG_VERSION")).as_bytes()
        );
        let theirs = Command::new(tool.name()).arg("--version").output().unwrap();
        assert_eq!(theirs.status.code(), Some(0));
    }
}

/// Names in messages: every boundary of what is printable in UTF-8 (the table generated from
/// glibc), and bytes that are not UTF-8, quoted exactly as coreutils quotes them.
#[test]
fn quoting_matches_coreutils_at_every_printable_boundary() {
    use flagsplit::sum::quote::is_printable;
    let dir = TempDir::new().unwrap();
    let mut names: Vec<OsString> = Vec::new();
    let mut previous = true;
    for cp in 0x20..=0x10ffffu32 {
        let Some(c) = char::from_u32(cp) else {
            continue;
        };
        let printable = is_printable(c);
        if printable != previous {
            for around in [cp - 1, cp] {
                if let Some(c) = char::from_u32(around) {
                    names.push(os(&format!("u{c}x")));
                }
            }
            previous = printable;
        }
    }
    assert!(names.len() > 1000, "only {} boundaries", names.len());
    for b in [
        0x80u8, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
    ] {
        names.push(osb(&[b'b', b, b'x']));
        names.push(osb(&[b'b', b, 0x80, 0x80, 0x80]));
        names.push(osb(&[b'b', b]));
    }
    for chunk in names.chunks(500) {
        for locale in [UTF8, "C"] {
            let env = Env {
                dir: dir.path(),
                stdin: b"",
                locale,
            };
            let out = assert_same(Tool::Md5, chunk, env);
            assert_eq!(
                out.stderr.iter().filter(|&&b| b == b'\n').count(),
                chunk.len()
            );
        }
    }
}

/// Every size a threshold of the file reading makes special, and one byte either side: the
/// first read on the stack ([`SMALL_READ`]), the sequential loop's buffer ([`READ_SIZE`]), the
/// size from which a file is read by a thread of its own ([`OVERLAP_MIN`]) and that thread's
/// buffers ([`OVERLAP_BUF`], [`RING`] of them).
fn threshold_sizes() -> Vec<usize> {
    let overlap_min = usize::try_from(OVERLAP_MIN).unwrap();
    let mut sizes = BTreeSet::new();
    for edge in [
        SMALL_READ,
        SMALL_READ + READ_SIZE,
        2 * READ_SIZE,
        OVERLAP_BUF,
        // The reader's reads start after the first SMALL_READ bytes: past this, it reuses
        // the ring's buffers.
        RING * OVERLAP_BUF + SMALL_READ,
    ] {
        sizes.extend([edge - 1, edge, edge + 1]);
    }
    // Files read by the reader thread (tens of MiB): at the threshold, and about a buffer's end
    // after the ring has been gone round (the reader's reads start after the first SMALL_READ).
    let buffer_end = SMALL_READ + overlap_min + (RING + 3) * OVERLAP_BUF;
    sizes.extend([
        overlap_min - 1,
        overlap_min,
        buffer_end - 1,
        buffer_end,
        buffer_end + 1,
    ]);
    sizes.into_iter().collect()
}

/// Random files of every [`threshold_sizes`] size, each tool's lines (and `--check` of them)
/// identical to coreutils', on every core and, where `taskset` exists, on one core (where a
/// large file is read in sequence).
#[test]
fn file_sizes_around_every_threshold_match_coreutils() {
    let dir = TempDir::new().unwrap();
    let sizes = threshold_sizes();
    // Each file a prefix of one random block (generating every file anew would take most of
    // the test's time in a debug build).
    let content = Rng(0x5eed_0043_0000_0001).bytes(sizes.iter().copied().max().unwrap_or(0));
    let mut names = Vec::new();
    for size in sizes {
        let name = format!("random-{size}");
        fs::write(dir.path().join(&name), &content[..size]).unwrap();
        names.push(os(&name));
    }
    let env = Env {
        dir: dir.path(),
        stdin: b"",
        locale: UTF8,
    };
    let one_core = crate::support::runs("taskset", &["-c", "0", "true"]);
    if !one_core {
        crate::support::skip(
            "file_sizes_around_every_threshold_match_coreutils",
            "no taskset: one core not tested",
        );
    }
    for tool in TOOLS {
        let expected = assert_same(tool, &names, env);
        assert_eq!(expected.status, Some(0));
        if matches!(tool, Tool::Sha1) {
            let mut unchecked = vec![os("--no-collision-detection")];
            unchecked.extend(names.iter().cloned());
            assert_eq!(ours(tool, &unchecked, env), expected);
        }
        fs::write(dir.path().join("sums"), &expected.stdout).unwrap();
        assert_same(tool, &args(&["-c", "sums"]), env);
        if one_core {
            let mut cmd = Command::new("taskset");
            cmd.args(["-c", "0", env!("CARGO_BIN_EXE_flagsplit"), tool.name()]);
            cmd.args(&names);
            assert_eq!(spawn(cmd, env), expected, "{} on one core", tool.name());
        }
    }
}

/// Standard input from a pipe, from a large regular file and from a FIFO, and files of /proc (a
/// size of 0 in `fstat`, content made as it is read): what coreutils prints.
#[test]
fn pipes_fifos_and_proc_files_match_coreutils() {
    let dir = TempDir::new().unwrap();
    let size = usize::try_from(OVERLAP_MIN).unwrap() + 3 * OVERLAP_BUF + 5;
    let content = Rng(0x5eed_0043_0000_0002).bytes(size);
    fs::write(dir.path().join("large"), &content).unwrap();
    let env = Env {
        dir: dir.path(),
        stdin: &content,
        locale: UTF8,
    };
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    for tool in TOOLS {
        // A pipe.
        assert_same(tool, &[], env);
        assert_same(tool, &args(&["-", "large"]), env);
        // Standard input redirected from a large regular file.
        let redirected = |prog: &str| {
            let out = Command::new("sh")
                .args(["-c", &format!("{prog} {} - < large", tool.name())])
                .current_dir(dir.path())
                .env("LC_ALL", UTF8)
                .output()
                .unwrap();
            (out.status.code(), out.stdout, normalize(&out.stderr, tool))
        };
        let expected = redirected("");
        assert_eq!(expected.0, Some(0));
        assert_eq!(
            redirected(&format!("'{}'", env!("CARGO_BIN_EXE_flagsplit"))),
            expected
        );
        // A FIFO, written by another thread as the command reads it.
        let through_fifo = |cmd: Command| {
            let writer = {
                let (fifo, content) = (fifo.clone(), content.clone());
                std::thread::spawn(move || fs::write(fifo, content))
            };
            let out = spawn(cmd, Env { stdin: b"", ..env });
            writer.join().unwrap().unwrap();
            out
        };
        let mut theirs_cmd = Command::new(tool.name());
        theirs_cmd.arg(&fifo);
        let expected = through_fifo(theirs_cmd);
        assert_eq!(expected.status, Some(0));
        let mut ours_cmd = Command::new(env!("CARGO_BIN_EXE_flagsplit"));
        ours_cmd.arg(tool.name()).arg(&fifo);
        let mut got = through_fifo(ours_cmd);
        got.stderr = normalize(&got.stderr, tool);
        assert_eq!(got, expected, "{} of a FIFO", tool.name());
        // /proc: files whose content does not change between the two runs.
        let proc_files = [
            "/proc/version",
            "/proc/sys/kernel/ostype",
            "/proc/self/nonexistent",
        ];
        if Path::new("/proc/version").exists() {
            assert_same(tool, &args(&proc_files), env);
        } else {
            crate::support::skip_optional("pipes_fifos_and_proc_files_match_coreutils", "no /proc");
        }
    }
}

/// The digests of `content[..n]` for every `n` in `from..=content.len()` that a reading loop can
/// stop at when the file's size changes under it: the multiples of the page size, `from` and
/// the whole.
fn prefix_digests(content: &[u8], from: usize) -> BTreeSet<String> {
    const PAGE: usize = 4096;
    let mut hasher = Hasher::new(Algorithm::Sha1Unchecked);
    let mut out = BTreeSet::new();
    let mut at = 0;
    let mut add = |h: &Hasher| {
        out.insert(crate::support::hex(
            h.clone().finalize().unwrap().as_bytes(),
        ));
    };
    while at < content.len() {
        let next = if at < from {
            from
        } else {
            ((at / PAGE) + 1) * PAGE
        }
        .min(content.len());
        hasher.update(&content[at..next]);
        at = next;
        if at >= from {
            add(&hasher);
        }
    }
    if from == 0 || content.is_empty() {
        add(&Hasher::new(Algorithm::Sha1Unchecked));
    }
    out
}

/// What `sha1sum --no-collision-detection BIG after` (coreutils: `sha1sum BIG after`) printed
/// while `change` ran on `BIG` after `delay`: the status, the digest of `BIG`, the line of
/// `after` and stderr.
fn hash_while(
    prog: &[&str],
    dir: &Path,
    delay: std::time::Duration,
    change: impl FnOnce(&Path),
) -> (Option<i32>, String, Vec<u8>, Vec<u8>) {
    let big = dir.join("big");
    let child = Command::new(prog[0])
        .args(&prog[1..])
        .args(["big", "after"])
        .current_dir(dir)
        .env("LC_ALL", UTF8)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    change(&big);
    let out = child.wait_with_output().unwrap();
    let mut lines = out.stdout.split_inclusive(|&b| b == b'\n');
    let first = lines.next().unwrap_or_default();
    let digest = String::from_utf8_lossy(first.split(|&b| b == b' ').next().unwrap_or_default());
    let rest = lines.flatten().copied().collect();
    (out.status.code(), digest.into_owned(), rest, out.stderr)
}

/// A file truncated while it is hashed, and one growing: no crash (a file is never mapped), no
/// message — coreutils' reads just end, at the new end or where they were — and the file after
/// it is hashed. The digest is that of a prefix the reads can have stopped at; coreutils, run
/// the same way, behaves the same.
#[test]
fn files_changing_size_while_hashed_behave_as_in_coreutils() {
    let dir = TempDir::new().unwrap();
    let size = 96 << 20;
    let content = Rng(0x5eed_0043_0000_0003).bytes(size);
    let cut = usize::try_from(OVERLAP_MIN).unwrap() + 12_345;
    let truncated = prefix_digests(&content, cut);
    let tail = Rng(0x5eed_0043_0000_0004).bytes(8 << 20);
    let grown: Vec<u8> = content.iter().chain(&tail).copied().collect();
    let growing = prefix_digests(&grown, size);
    fs::write(dir.path().join("after"), b"the next file\n").unwrap();
    let after_line = theirs(
        Tool::Sha1,
        &args(&["after"]),
        Env {
            dir: dir.path(),
            stdin: b"",
            locale: UTF8,
        },
    )
    .stdout;
    let flagsplit = env!("CARGO_BIN_EXE_flagsplit");
    let programs: [&[&str]; 2] = [
        &[flagsplit, "sha1sum", "--no-collision-detection"],
        &["sha1sum"],
    ];
    for delay_ms in [0, 5, 20, 60] {
        let delay = std::time::Duration::from_millis(delay_ms);
        for prog in programs {
            fs::write(dir.path().join("big"), &content).unwrap();
            let (status, digest, rest, stderr) = hash_while(prog, dir.path(), delay, |big| {
                let file = fs::OpenOptions::new().write(true).open(big).unwrap();
                file.set_len(cut as u64).unwrap();
            });
            let what = format!("{prog:?} truncated after {delay_ms} ms");
            assert_eq!(status, Some(0), "{what}: {}", show(&stderr));
            assert!(stderr.is_empty(), "{what}: {}", show(&stderr));
            assert!(
                truncated.contains(&digest),
                "{what}: {digest} is no prefix's"
            );
            assert_eq!(rest, after_line, "{what}");

            fs::write(dir.path().join("big"), &content).unwrap();
            let (status, digest, rest, stderr) = hash_while(prog, dir.path(), delay, |big| {
                let mut file = fs::OpenOptions::new().append(true).open(big).unwrap();
                for chunk in tail.chunks(1 << 20) {
                    file.write_all(chunk).unwrap();
                }
            });
            let what = format!("{prog:?} growing after {delay_ms} ms");
            assert_eq!(status, Some(0), "{what}: {}", show(&stderr));
            assert!(stderr.is_empty(), "{what}: {}", show(&stderr));
            assert!(growing.contains(&digest), "{what}: {digest} is no prefix's");
            assert_eq!(rest, after_line, "{what}");
        }
    }
}

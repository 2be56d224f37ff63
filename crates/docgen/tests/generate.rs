//! The generator run as packagers run it (`flagsplit-docgen --out-dir DIR`), checked against the
//! tables it reads (walked here, never listed by hand), the real shells and groff.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output, Stdio};

use flagsplit_cli::cli::{self, Command, OperandKind, Opt, Program};
use flagsplit_docgen::{BINARIES, Binary, SHELLS, completion_file_name};
use tempfile::TempDir;

const EPOCH: &str = "1700000000";

/// Whether `tool --version` runs.
fn runs(tool: &str) -> bool {
    Process::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether `tool` runs; when it does not, `test` is skipped (a failure under CI=true).
fn have(test: &str, tool: &str, package: &str) -> bool {
    let ok = runs(tool);
    if !ok {
        flagsplit_test_support::skip(
            test,
            &format!("{tool} not found (apt-get install {package})"),
        );
    }
    ok
}

/// Like [`have`], for shells that are optional even in CI.
fn have_optional(test: &str, tool: &str) -> bool {
    let ok = runs(tool);
    if !ok {
        flagsplit_test_support::skip_optional(
            test,
            &format!("{tool} not found (optional: apt-get install {tool})"),
        );
    }
    ok
}

fn run_docgen(out: &Path, epoch: Option<&str>) -> Output {
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_flagsplit-docgen"));
    cmd.arg("--out-dir").arg(out);
    match epoch {
        Some(e) => cmd.env("SOURCE_DATE_EPOCH", e),
        None => cmd.env_remove("SOURCE_DATE_EPOCH"),
    };
    cmd.output().expect("run flagsplit-docgen")
}

/// A fresh generation into a temporary directory.
fn generate(epoch: Option<&str>) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = run_docgen(dir.path(), epoch);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Every file under `root`, by relative path.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let content = fs::read(&path).unwrap();
                files.insert(path.strip_prefix(root).unwrap().to_path_buf(), content);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn read(dir: &TempDir, rel: impl AsRef<Path>) -> String {
    fs::read_to_string(dir.path().join(rel)).unwrap()
}

fn program() -> &'static Program {
    let found = BINARIES.iter().find_map(|b| match b {
        Binary::Program(p) => Some(*p),
        _ => None,
    });
    let program = found.expect("a program among the binaries");
    assert!(std::ptr::eq(program, &cli::flagsplit::PROGRAM));
    program
}

/// The standalone executables: (name, table).
fn standalones() -> Vec<(&'static str, &'static Command)> {
    BINARIES
        .iter()
        .filter_map(|b| match b {
            Binary::Command { name, command } => Some((*name, *command)),
            _ => None,
        })
        .collect()
}

/// What each man page must document, from the tables: page name -> (options, command).
fn expected_pages() -> BTreeMap<String, (Vec<Opt>, Option<&'static Command>)> {
    let p = program();
    let mut pages = BTreeMap::new();
    pages.insert(p.name.to_string(), (p.options().to_vec(), None));
    for c in p.commands.iter().filter(|c| !c.hidden) {
        pages.insert(
            format!("{}-{}", p.name, c.name),
            (c.all_options().copied().collect(), Some(c)),
        );
    }
    for (name, c) in standalones() {
        pages
            .entry(name.to_string())
            .or_insert_with(|| (c.all_options().copied().collect(), Some(c)));
    }
    pages
}

/// Help text as one line (the tables continue help on further lines).
fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

/// Text as roff writes it in a text line.
fn roff(text: &str) -> String {
    text.replace('\\', r"\\")
        .replace('-', r"\-")
        .replace('\'', r"\*(Aq")
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_binaries_are_the_tables() {
    assert_eq!(BINARIES.len(), 2);
    let (name, command) = standalones()[0];
    assert_eq!(name, "flagsplit-imap-send");
    // IMAP_SEND is a const: compared by content.
    let imap_send = &cli::imap_send::IMAP_SEND;
    assert_eq!(
        (command.name, command.usage, command.options.len()),
        (imap_send.name, imap_send.usage, imap_send.options.len())
    );
    assert_eq!(program().command("imap-send").unwrap().name, command.name);
}

#[test]
fn writes_every_page_and_script_and_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_docgen(dir.path(), None);
    assert!(out.status.success());
    let listed: BTreeSet<PathBuf> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    let files: BTreeSet<PathBuf> = tree(dir.path()).into_keys().collect();
    assert_eq!(listed, files);

    let mut expected: BTreeSet<PathBuf> = expected_pages()
        .keys()
        .map(|page| Path::new("man/man1").join(format!("{page}.1")))
        .collect();
    for binary in &BINARIES {
        for (shell, dir) in SHELLS {
            expected.insert(
                Path::new("completions")
                    .join(dir)
                    .join(completion_file_name(shell, binary.name())),
            );
        }
    }
    assert_eq!(files, expected);
    // The names the shells load by.
    for name in [
        "completions/bash/flagsplit",
        "completions/zsh/_flagsplit",
        "completions/fish/flagsplit.fish",
        "completions/bash/flagsplit-imap-send",
        "man/man1/flagsplit-sha1sum.1",
    ] {
        assert!(files.contains(Path::new(name)), "{name}");
    }
}

#[test]
fn man_pages_document_every_option_and_text_of_the_tables() {
    let dir = generate(None);
    let p = program();
    for (page, (options, command)) in expected_pages() {
        let man = read(&dir, format!("man/man1/{page}.1"));
        let title = page.to_uppercase().replace('-', r"\-");
        assert!(man.contains(&format!(".TH {title} 1 ")), "{page}");
        for opt in &options {
            let long = format!(r"\fB\-\-{}\fR", roff(opt.long));
            let header = match (opt.short, opt.value, opt.short_only) {
                (Some(c), Some(v), true) => format!(r"\fB\-{c}\fR \fI<{v}>\fR"),
                (Some(c), None, true) => format!(r"\fB\-{c}\fR"),
                (Some(c), Some(v), false) => format!(r"\fB\-{c}\fR, {long} \fI<{v}>\fR"),
                (Some(c), None, false) => format!(r"\fB\-{c}\fR, {long}"),
                (None, Some(v), _) => format!(r"{long} \fI<{v}>\fR"),
                (None, None, _) => long,
            };
            let item = format!(".TP\n{header}\n{}\n", roff(&one_line(opt.help)));
            assert!(man.contains(&item), "{page}: no\n{item}in\n{man}");
            if let Some(section) = opt.section {
                assert!(man.contains(&format!(".SS \"{section}\"\n")), "{page}");
            }
        }
        // (summary, texts, the synopsis's first form as invocation and the rest)
        let (about, texts, invocation, rest) = match command {
            None => (
                p.about,
                vec![p.epilogue],
                p.name.to_string(),
                cli::PROGRAM_USAGE,
            ),
            Some(c) => {
                let invocation = if page == format!("{}-{}", p.name, c.name) {
                    format!("{} {}", p.name, c.name)
                } else {
                    page.clone()
                };
                let first = c.usage.lines().next().unwrap();
                (c.about, vec![c.preamble, c.epilogue], invocation, first)
            }
        };
        assert!(
            man.contains(&format!(".SH NAME\n{} \\- {}\n", roff(&page), roff(about))),
            "{page}"
        );
        for text in texts {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                assert!(man.contains(&format!("{}\n", roff(line))), "{page}: {line}");
            }
        }
        let synopsis = format!(
            ".SH SYNOPSIS\n\\fB{}\\fR {}\n",
            roff(&invocation),
            roff(rest)
        );
        assert!(man.contains(&synopsis), "{page}: no {synopsis:?}");
        if command.is_some() {
            assert!(man.contains(".SH \"SEE ALSO\"\n\\fBflagsplit\\fR(1)\n"));
        }
    }
    // The program's page lists each command's page.
    let man = read(&dir, "man/man1/flagsplit.1");
    for c in p.commands.iter().filter(|c| !c.hidden) {
        let entry = format!(".TP\nflagsplit\\-{}(1)\n{}\n", roff(c.name), roff(c.about));
        assert!(man.contains(&entry), "{entry}");
    }
    // The standalone form of a command that is also an executable.
    for (name, c) in standalones() {
        let man = read(&dir, format!("man/man1/{name}.1"));
        let first = c.usage.lines().next().unwrap();
        assert!(man.contains(&format!(".br\n\\fB{}\\fR {}\n", roff(name), roff(first))));
    }
}

/// The words bash's completion function offers for `words` (the last one being completed).
fn bash_complete(script: &Path, words: &[&str]) -> BTreeSet<String> {
    // The function the script registers with `complete -F`.
    let text = fs::read_to_string(script).unwrap();
    let function = text
        .split("complete -F ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("complete -F in the script");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\n{function} '{}' '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        words[0],
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = Process::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn longs<'a>(options: impl IntoIterator<Item = &'a Opt>) -> BTreeSet<String> {
    options
        .into_iter()
        .filter_map(|o| o.long_name())
        .map(|long| format!("--{long}"))
        .collect()
}

fn shorts<'a>(options: impl IntoIterator<Item = &'a Opt>) -> BTreeSet<String> {
    options
        .into_iter()
        .filter_map(|o| o.short.map(|c| format!("-{c}")))
        .collect()
}

/// What a command's operand may be, when the shells are to offer words.
fn operand_words(c: &Command, p: Option<&Program>) -> BTreeSet<String> {
    match c.operands.map(|o| o.kind) {
        Some(OperandKind::Words(w)) => w.iter().map(|w| w.to_string()).collect(),
        Some(OperandKind::Command) => p
            .unwrap()
            .commands
            .iter()
            .filter(|c| !c.hidden)
            .map(|c| c.name.to_string())
            .collect(),
        _ => BTreeSet::new(),
    }
}

#[test]
fn bash_completes_every_option_of_every_command() {
    let dir = generate(None);
    let p = program();
    let script = dir.path().join("completions/bash").join(p.name);
    let status = Process::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .unwrap();
    assert!(status.success());

    assert_eq!(bash_complete(&script, &[p.name, "--"]), longs(p.options()));
    let names: BTreeSet<String> = p
        .commands
        .iter()
        .filter(|c| !c.hidden)
        .map(|c| c.name.to_string())
        .collect();
    let offered = bash_complete(&script, &[p.name, ""]);
    assert!(offered.is_superset(&names), "{offered:?}");
    for c in p.commands.iter().filter(|c| !c.hidden) {
        assert_eq!(
            bash_complete(&script, &[p.name, c.name, "--"]),
            longs(c.all_options()),
            "{}",
            c.name
        );
        let dash = bash_complete(&script, &[p.name, c.name, "-"]);
        assert!(dash.is_superset(&shorts(c.all_options())), "{dash:?}");
        let words = operand_words(c, Some(p));
        if !words.is_empty() {
            let offered = bash_complete(&script, &[p.name, c.name, ""]);
            assert!(offered.is_superset(&words), "{}: {offered:?}", c.name);
        }
    }
    for (name, c) in standalones() {
        let script = dir.path().join("completions/bash").join(name);
        let status = Process::new("bash")
            .arg("-n")
            .arg(&script)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            bash_complete(&script, &[name, "--"]),
            longs(c.all_options())
        );
        let offered = bash_complete(&script, &[name, ""]);
        assert!(offered.is_superset(&operand_words(c, None)));
    }
}

#[test]
fn fish_completes_every_option_of_every_command() {
    if !have_optional("fish_completes_every_option_of_every_command", "fish") {
        return;
    }
    let dir = generate(None);
    let complete = |script: &Path, line: &str| -> BTreeSet<String> {
        let out = Process::new("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(format!(
                "source '{}'; complete -C '{line}'",
                script.display()
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect()
    };
    for binary in &BINARIES {
        let script = dir
            .path()
            .join("completions/fish")
            .join(format!("{}.fish", binary.name()));
        let status = Process::new("fish")
            .arg("--no-execute")
            .arg(&script)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let p = program();
    let script = dir.path().join("completions/fish/flagsplit.fish");
    for c in p.commands.iter().filter(|c| !c.hidden) {
        let offered = complete(&script, &format!("{} {} --", p.name, c.name));
        assert_eq!(offered, longs(c.all_options()), "{}", c.name);
        let words = operand_words(c, Some(p));
        let offered = complete(&script, &format!("{} {} ", p.name, c.name));
        assert!(offered.is_superset(&words), "{}: {offered:?}", c.name);
        if c.operands.is_some_and(|o| o.kind == OperandKind::Path) {
            // File names, from the directory completion runs in.
            assert!(offered.contains("man/"), "{}: {offered:?}", c.name);
        }
    }
    for (name, c) in standalones() {
        let script = dir.path().join(format!("completions/fish/{name}.fish"));
        assert_eq!(
            complete(&script, &format!("{name} --")),
            longs(c.all_options())
        );
        assert!(complete(&script, &format!("{name} ")).is_superset(&operand_words(c, None)));
    }
}

#[test]
fn every_script_names_every_option() {
    let dir = generate(None);
    for binary in &BINARIES {
        let options: Vec<Opt> = match binary {
            Binary::Program(p) => p
                .options()
                .iter()
                .chain(p.commands.iter().flat_map(|c| c.all_options()))
                .copied()
                .collect(),
            Binary::Command { command, .. } => command.all_options().copied().collect(),
        };
        for (shell, sub) in SHELLS {
            let script = read(
                &dir,
                Path::new("completions")
                    .join(sub)
                    .join(completion_file_name(shell, binary.name())),
            );
            for opt in options.iter().filter(|o| !o.short_only) {
                assert!(
                    script.contains(&format!("--{}", opt.long))
                        || script.contains(&format!("-l {}", opt.long))
                        || script.contains(&format!("'{}'", opt.long)),
                    "{sub} {}: --{}",
                    binary.name(),
                    opt.long
                );
                if let Some(c) = opt.short {
                    assert!(
                        script.contains(&format!("-{c}")) || script.contains(&format!("-s {c}")),
                        "{sub} {}: -{c}",
                        binary.name()
                    );
                }
            }
        }
    }
}

#[test]
fn zsh_scripts_parse() {
    if !have_optional("zsh_scripts_parse", "zsh") {
        return;
    }
    let dir = generate(None);
    for binary in &BINARIES {
        let script = dir
            .path()
            .join("completions/zsh")
            .join(format!("_{}", binary.name()));
        assert!(read(&dir, &script).starts_with(&format!("#compdef {}\n", binary.name())));
        let out = Process::new("zsh").arg("-n").arg(&script).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn same_epoch_same_bytes_with_its_date() {
    let a = generate(Some(EPOCH));
    let b = generate(Some(EPOCH));
    let (ta, tb) = (tree(a.path()), tree(b.path()));
    assert!(!ta.is_empty());
    assert_eq!(
        ta, tb,
        "two generations with the same SOURCE_DATE_EPOCH differ"
    );

    // GNU date is the oracle for the day.
    let out = Process::new("date")
        .args(["-u", "-d", &format!("@{EPOCH}"), "+%F"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let day = String::from_utf8(out.stdout).unwrap().trim().to_string();
    for page in expected_pages().keys() {
        let man = read(&a, format!("man/man1/{page}.1"));
        let th = man.lines().find(|l| l.starts_with(".TH ")).unwrap();
        assert_eq!(
            th,
            format!(
                ".TH {} 1 {day} \"flagsplit {}\" \"flagsplit Manual\"",
                page.to_uppercase().replace('-', r"\-"),
                cli::VERSION
            )
        );
    }

    // No SOURCE_DATE_EPOCH: no date, and still the same bytes run after run; nothing else differs.
    let c = generate(None);
    let d = generate(None);
    let (tc, td) = (tree(c.path()), tree(d.path()));
    assert_eq!(tc, td);
    for (path, content) in &tc {
        let dated = &ta[path];
        let text = String::from_utf8(content.clone()).unwrap();
        for path_text in [
            c.path().to_str().unwrap(),
            env!("CARGO_MANIFEST_DIR"),
            "/home/",
            "/root/",
        ] {
            assert!(!text.contains(path_text), "{}: {path_text}", path.display());
        }
        if path.extension() == Some(OsStr::new("1")) {
            assert!(text.contains(" 1 \"\" \"flagsplit "), "{}", path.display());
            assert_eq!(
                text.replace(" 1 \"\" \"flagsplit ", &format!(" 1 {day} \"flagsplit ")),
                String::from_utf8_lossy(dated),
                "{}",
                path.display()
            );
        } else {
            assert_eq!(content, dated, "{}", path.display());
        }
    }
}

#[test]
fn a_malformed_epoch_is_an_error() {
    for bad in ["yesterday", "-5", "1.5", ""] {
        let dir = tempfile::tempdir().unwrap();
        let out = run_docgen(dir.path(), Some(bad));
        assert!(!out.status.success(), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("SOURCE_DATE_EPOCH"), "{stderr}");
        assert!(tree(dir.path()).is_empty());
    }
}

#[test]
fn man_dates_agree_with_gnu_date() {
    // Days around leap days, century years and the 32-bit limit, and a spread in between.
    let mut epochs: Vec<u64> = (0..200u64).map(|i| i * 21_474_836 + i * 3_607).collect();
    epochs.extend([
        0,
        86_399,
        86_400,
        951_782_399,
        951_782_400,
        951_868_800,
        1_709_164_800,
        1_709_251_199,
        2_147_483_647,
        4_102_444_800,
        4_107_542_400,
    ]);
    let mut script = String::new();
    for e in &epochs {
        script.push_str(&format!("date -u -d @{e} +%F\n"));
    }
    let out = Process::new("sh").arg("-c").arg(&script).output().unwrap();
    assert!(out.status.success());
    let days = String::from_utf8(out.stdout).unwrap();
    let days: Vec<&str> = days.lines().collect();
    assert_eq!(days.len(), epochs.len());
    for (e, day) in epochs.iter().zip(days) {
        assert_eq!(
            flagsplit_docgen::man_date(&e.to_string()).unwrap(),
            day,
            "{e}"
        );
    }
}

#[test]
fn groff_renders_every_page_without_warnings() {
    if !have(
        "groff_renders_every_page_without_warnings",
        "groff",
        "groff-base",
    ) {
        return;
    }
    let dir = generate(Some(EPOCH));
    for (page, (options, command)) in expected_pages() {
        let path = dir.path().join(format!("man/man1/{page}.1"));
        // -ww: every warning; a long line and no hyphenation keep the text searchable.
        let out = Process::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-rLL=1000n", "-rHY=0", "-P-cbou"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "{page}: {stderr}"
        );
        let text = squeeze(&String::from_utf8(out.stdout).unwrap());
        for opt in &options {
            let mut head = match (opt.short, opt.short_only) {
                (Some(c), true) => format!("-{c}"),
                (Some(c), false) => format!("-{c}, --{}", opt.long),
                (None, _) => format!("--{}", opt.long),
            };
            if let Some(v) = opt.value {
                head.push_str(&format!(" <{v}>"));
            }
            let item = squeeze(&format!("{head} {}", one_line(opt.help)));
            assert!(text.contains(&item), "{page}: no {item:?} in\n{text}");
        }
        if let Some(c) = command {
            for part in [c.preamble, c.epilogue]
                .iter()
                .flat_map(|t| t.split("\n\n"))
                .filter(|t| !t.trim().is_empty())
            {
                // Each line, as filling may join or break between them.
                for line in part.lines() {
                    assert!(text.contains(&squeeze(line)), "{page}: {line}");
                }
            }
        }
    }
    // man-db, as a user reads the page.
    if Process::new("man").arg("--version").output().is_ok() {
        let out = Process::new("man")
            .args(["--warnings", "-l"])
            .arg(dir.path().join("man/man1/flagsplit-sha1sum.1"))
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && stderr.is_empty(), "{stderr}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("FLAGSPLIT-SHA1SUM(1)"), "{text}");
    } else {
        flagsplit_test_support::skip_optional(
            "groff_renders_every_page_without_warnings (man -l)",
            "man not found (apt-get install man-db)",
        );
    }
}

/// Each program's page lists the facilities it uses, from the facility table, and only those.
#[test]
fn program_pages_list_their_facilities() {
    let spec = &flagsplit_spec::SPEC;
    let pages = flagsplit_docgen::man_pages(None).expect("pages");
    for binary in spec.binaries {
        let page = pages
            .iter()
            .find(|p| p.name == *binary)
            .unwrap_or_else(|| panic!("no page for {binary}"));
        assert!(page.roff.contains(".SH \"BUILD OPTIONS\""), "{binary}");
        for facility in spec.facilities {
            let var = roff(&spec.env_var(facility));
            assert_eq!(
                page.roff.contains(&var),
                facility.used_by.contains(binary),
                "{binary} and {var}"
            );
        }
    }
}

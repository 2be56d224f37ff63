//! git's per-object fsck checks, its walk's links and its config reader against `git fsck` as
//! the oracle: tiny repositories holding malformed commits, tags, trees, `.gitmodules` and
//! `.gitattributes` blobs, checked by `git fsck --full` with and without `--strict`,
//! `fsck.<msg-id>` settings and `fsck.skipList`; the lines it prints about objects (`error in
//! ...`, `warning in ...`, the parsers' `error:` lines) must be the ones the library predicts
//! from the same bytes.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use flagsplit::gitconfig::Config;
use flagsplit::object::fsck::{self, Lookup, Options, Severity, SpecialBlobs};
use flagsplit::object::links::links_for;
use flagsplit::object::{Kind, ObjectFormat};

use crate::support;

fn have_git(test: &str) -> bool {
    let ok = support::runs("git", &["--version"]);
    if !ok {
        support::skip(test, "git not found; fsck cannot be compared with it");
    }
    ok
}

/// A scratch repository.
struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    format: ObjectFormat,
}

impl Repo {
    fn new() -> Repo {
        Repo::with_format(ObjectFormat::Sha1)
    }

    fn with_format(format: ObjectFormat) -> Repo {
        let tmp = tempfile::Builder::new()
            .prefix("fsck-checks")
            .tempdir()
            .expect("tempdir");
        let dir = tmp.path().join("r");
        fs::create_dir(&dir).expect("mkdir");
        let r = Repo {
            _tmp: tmp,
            dir,
            format,
        };
        let object_format = format!("--object-format={}", format.name());
        let out = r.git(&["init", "-q", &object_format], b"");
        assert!(out.status.success(), "{out:?}");
        r
    }

    fn git(&self, args: &[&str], stdin: &[u8]) -> Output {
        let home = self._tmp.path();
        let mut child = Command::new("git")
            .args(args)
            .current_dir(&self.dir)
            .env("GIT_CEILING_DIRECTORIES", home)
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("LC_ALL", "C")
            .env("GIT_AUTHOR_DATE", "1700000000 +0000")
            .env("GIT_COMMITTER_DATE", "1700000000 +0000")
            .env_remove("GIT_DIR")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .env_remove("GIT_CONFIG_COUNT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("git");
        let mut input = child.stdin.take().expect("stdin");
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&data);
        });
        let out = child.wait_with_output().expect("wait");
        writer.join().expect("writer");
        out
    }

    /// Writes an object as is (`hash-object --literally`) and returns its id.
    fn put(&self, kind: &str, content: &[u8]) -> String {
        let out = self.git(
            &["hash-object", "-t", kind, "--literally", "-w", "--stdin"],
            content,
        );
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Every object: (type, hex id, content).
    fn objects(&self) -> Vec<(Kind, String, Vec<u8>)> {
        let out = self.git(
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objecttype) %(objectname)",
            ],
            b"",
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (t, id) = l.split_once(' ')?;
                let kind = Kind::from_name(t.as_bytes())?;
                let content = self.git(&["cat-file", t, id], b"").stdout;
                Some((kind, id.to_string(), content))
            })
            .collect()
    }

    /// The stderr lines of `git fsck --full --no-dangling ARGS` that are about objects (not the
    /// notices about references), as a set, and the exit status.
    fn fsck(&self, args: &[&str]) -> (BTreeSet<String>, i32) {
        let mut full = vec!["fsck", "--full", "--no-dangling"];
        full.extend_from_slice(args);
        let out = self.git(&full, b"");
        let lines = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.starts_with("notice: "))
            .map(str::to_string)
            .collect();
        (lines, out.status.code().unwrap_or(-1))
    }

    /// What the library predicts `git fsck` prints about the objects, given `opts`.
    fn predict(&self, opts: &Options) -> BTreeSet<String> {
        self.predict_with_status(opts).0
    }

    /// [`Repo::predict`], and whether git's `ERROR_OBJECT` bit of the exit status is set.
    fn predict_with_status(&self, opts: &Options) -> (BTreeSet<String>, bool) {
        self.predict_big(opts, usize::MAX)
    }

    /// [`Repo::predict_with_status`] where blobs larger than `big` (`core.bigFileThreshold`)
    /// are not loaded, as git streams them; objects are taken in git's order for a loose
    /// repository whose objects are in different fan-out directories (by id).
    fn predict_big(&self, opts: &Options, big: usize) -> (BTreeSet<String>, bool) {
        let mut failed = false;
        let mut lines = BTreeSet::new();
        let mut special = SpecialBlobs::default();
        let objects = self.objects();
        for (kind, hex, content) in &objects {
            let oid = raw(hex);
            let l = links_for(*kind, &oid, content, self.format);
            for e in &l.errors {
                lines.insert(format!("error: {e}"));
            }
            failed |= l.parse_failed || l.walk_failed;
            if l.parse_failed {
                lines.insert(format!(
                    "error: {hex}: object could not be parsed: .git/objects/{}/{}",
                    &hex[..2],
                    &hex[2..]
                ));
                continue;
            }
            if l.walk_failed {
                lines.insert(format!("error in {kind} {hex}: broken links"));
            }
            let mut out = Vec::new();
            failed |= if *kind == Kind::Blob && content.len() > big {
                fsck::check_unloaded_blob(&oid, opts, &mut special, &mut out)
            } else {
                fsck::check_object(
                    *kind,
                    &oid,
                    content,
                    self.format,
                    opts,
                    &mut special,
                    &mut out,
                )
            };
            for f in out {
                lines.insert(line(&f, *kind, hex));
            }
        }
        let mut read = |oid: &[u8]| {
            let hex = hex(oid);
            match objects.iter().find(|o| o.1 == hex) {
                None => Lookup::Missing,
                Some((Kind::Blob, _, c)) => Lookup::Blob(c.clone()),
                Some((k, _, _)) => Lookup::NotBlob(*k),
            }
        };
        let mut out = Vec::new();
        failed |= fsck::finish(&mut special, &mut read, opts, &mut out);
        for f in out {
            lines.insert(line(&f.finding, f.kind, &hex(&f.oid)));
        }
        (lines, failed)
    }

    /// The repository's own configuration file, parsed.
    fn config(&self) -> Config {
        let path = self.dir.join(".git/config");
        let bytes = fs::read(&path).expect("config");
        Config {
            entries: Config::parse(&bytes, &path).expect("parse"),
        }
    }
}

fn line(f: &fsck::Finding, kind: Kind, hex: &str) -> String {
    assert_eq!(f.message, String::from_utf8_lossy(&f.raw));
    assert!(f.plain || matches!(f.severity, Severity::Error | Severity::Warn));
    String::from_utf8_lossy(&f.line(kind, hex)).into_owned()
}

fn raw(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

fn hex(raw: &[u8]) -> String {
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// A tree entry.
fn entry(mode: &str, name: &[u8], hex: &str) -> Vec<u8> {
    let mut e = format!("{mode} ").into_bytes();
    e.extend_from_slice(name);
    e.push(0);
    e.extend_from_slice(&raw(hex));
    e
}

const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const IDENT: &str = "A U Thor <a@example.com> 1700000000 +0000";

/// A repository with one malformed object of every kind the checks know.
fn zoo() -> Repo {
    let r = Repo::new();
    let blob = r.put("blob", b"x\n");
    let empty = r.put("tree", b"");
    assert_eq!(empty, EMPTY_TREE);
    // Trees: every tree finding, special blobs, a symbolic .gitmodules, parse failures.
    let mut t = Vec::new();
    t.extend(entry("100644", b".", &blob));
    t.extend(entry("100644", b"..", &blob));
    t.extend(entry("100664", b".GIT", &blob));
    t.extend(entry("040000", b"a/b", EMPTY_TREE));
    t.extend(entry("100644", b"b", &"0".repeat(40)));
    t.extend(entry("100644", b"a", &blob));
    t.extend(entry("100644", b"a", &blob));
    t.extend(entry("100755", b"x", &blob));
    t.extend(entry("100600", b"y", &blob));
    r.put("tree", &t);
    let mut t = Vec::new();
    t.extend(entry("120000", b".gitmodules", &blob));
    t.extend(entry("120000", b".gitignore", &blob));
    t.extend(entry("120000", b".mailmap", &blob));
    t.extend(entry("120000", b".gitattributes", &blob));
    r.put("tree", &t);
    let long = "n".repeat(4097);
    r.put("tree", &entry("100644", long.as_bytes(), &blob));
    r.put("tree", b"abc\n");
    let mut t = entry("100644", b"a", &blob);
    t.extend_from_slice(b"100644 \0");
    t.extend_from_slice(&[7u8; 20]);
    r.put("tree", &t);
    // .gitmodules blobs: bad names, URLs, paths, updates; one that does not parse after a bad
    // entry; one missing; one that is a tree.
    let modules = r.put(
        "blob",
        b"[submodule \"../x\"]\n\tpath = -p\n\turl = ./%0a\n\tupdate = !rm\n[submodule \"ok\"]\n\turl = https://example.com/x\n\tupdate = none\n",
    );
    let unparsable = r.put("blob", b"[submodule \"..\"]\n\turl = -u\n[broken\n");
    let attributes = r.put("blob", format!("{} x\n", "*".repeat(3000)).as_bytes());
    let missing = "1".repeat(40);
    for (name, id, mode) in [
        (&b".gitmodules"[..], modules.as_str(), "100644"),
        (b"GITMOD~1", unparsable.as_str(), "100644"),
        (b".gitattributes", attributes.as_str(), "100644"),
        (b".gitattributes ", missing.as_str(), "100644"),
        (b".gitmodules", EMPTY_TREE, "040000"),
    ] {
        r.put("tree", &entry(mode, name, id));
    }
    // Commits.
    let tree = |rest: &str| format!("tree {EMPTY_TREE}\n{rest}");
    for c in [
        tree(&format!("author {IDENT}\ncommitter {IDENT}\n\nok\n")),
        tree(&format!("committer {IDENT}\n\nno author\n")),
        tree(&format!(
            "author {IDENT}\nauthor {IDENT}\ncommitter {IDENT}\n\ntwo\n"
        )),
        tree("author A <a> 0123 +0000\ncommitter C <c> 1 +0000\n\nzero\n"),
        tree("author A a> 1 +0000\ncommitter C <c> 1 +0000\n\nname\n"),
        tree("author A <a> 1 +000\ncommitter C <c> 1 +0000\n\ntz\n"),
        tree("author A <a> 99999999999999999999 +0000\ncommitter C <c> 1 +0000\n\nbig\n"),
        tree(&format!("author {IDENT}\n\nno committer\n")),
        tree(&format!("author {IDENT}\ncommitter {IDENT}\n\nnul\0here\n")),
        tree(&format!("author {IDENT}\ncommitter {IDENT}")),
        tree(&format!("author {IDENT}\0\ncommitter {IDENT}\n\n")),
        format!("tree {}\nauthor {IDENT}\n", "z".repeat(40)),
        format!("tree {EMPTY_TREE}\nparent {EMPTY_TREE}\n"),
        "bogus\n".to_string(),
    ] {
        r.put("commit", c.as_bytes());
    }
    // Tags.
    let obj = format!("object {EMPTY_TREE}\ntype tree\n");
    for t in [
        format!("{obj}tag v1\ntagger {IDENT}\n\nok\n"),
        format!("{obj}tag v1\n\nno tagger\n"),
        format!("{obj}tag v..1\ntagger {IDENT}\n\nbad name\n"),
        format!("{obj}tag v1\ntagger T <t> x +0000\nextra header\n\nquirk\n"),
        format!("{obj}tag v1\ntagger T <t> x +0000\n\nbad date\n"),
        format!("object {EMPTY_TREE}\ntype bogus\ntag v1\ntagger {IDENT}\n\nt\n"),
        format!("object {EMPTY_TREE}\ntype tree\n"),
    ] {
        r.put("tag", t.as_bytes());
    }
    r
}

#[test]
fn findings_match_git_fsck() {
    if !have_git("findings_match_git_fsck") {
        return;
    }
    let r = zoo();
    for strict in [false, true] {
        let args: &[&str] = if strict { &["--strict"] } else { &[] };
        let (git, _) = r.fsck(args);
        let ours = r.predict(&Options::new(strict));
        assert_eq!(ours, git, "strict={strict}");
        // Every kind of finding is there: the comparison is not of two empty sets.
        for id in [
            "badTree",
            "hasDot",
            "gitmodulesUrl",
            "gitmodulesParse",
            "gitattributesLineLength",
            "gitattributesMissing",
            "gitmodulesBlob",
            "missingAuthor",
            "missingTaggerEntry",
            "broken links",
            "object could not be parsed",
            "unknown tag type",
        ] {
            assert!(
                git.iter().any(|l| l.contains(id)),
                "{id} strict={strict}: {git:#?}"
            );
        }
    }
}

/// Each object of [`zoo`] alone (with the blob and tree it may name): the `ERROR_OBJECT` bit
/// of `git fsck`'s exit status is what the checks return (a tag's error line without it, too).
#[test]
fn exit_status_matches_git_fsck() {
    if !have_git("exit_status_matches_git_fsck") {
        return;
    }
    let zoo = zoo();
    let objects = zoo.objects();
    let mut quiet_errors = 0;
    for (kind, hex, content) in &objects {
        let r = Repo::new();
        r.put("blob", b"x\n");
        r.put("tree", b"");
        assert_eq!(&r.put(kind.name(), content), hex);
        for strict in [false, true] {
            let args: &[&str] = if strict { &["--strict"] } else { &[] };
            let (git, status) = r.fsck(args);
            let (ours, failed) = r.predict_with_status(&Options::new(strict));
            assert_eq!(ours, git, "{kind} {hex} strict={strict}");
            assert_eq!(
                failed,
                status & 1 == 1,
                "{kind} {hex} strict={strict}: {git:#?}"
            );
            if !failed && git.iter().any(|l| l.starts_with("error")) {
                quiet_errors += 1;
            }
        }
    }
    assert!(
        quiet_errors > 0,
        "the tag whose extra header hides its error"
    );
}

#[test]
fn configured_severities_and_skip_list_match_git_fsck() {
    if !have_git("configured_severities_and_skip_list_match_git_fsck") {
        return;
    }
    let r = zoo();
    // A skip list with a comment, blank line and surrounding space: the first two objects.
    let objects = r.objects();
    let skip = r._tmp.path().join("skip");
    let first: Vec<&str> = objects.iter().take(3).map(|o| o.1.as_str()).collect();
    fs::write(
        &skip,
        format!(
            "# skipped\n\n  {}  # one\n{}\r\n{}\n",
            first[0], first[1], first[2]
        ),
    )
    .expect("skip list");
    let skip = skip.to_string_lossy().into_owned();
    for settings in [
        &[("fsck.nullSha1", "ignore"), ("fsck.badTimezone", "warn")][..],
        &[
            ("fsck.missingTaggerEntry", "error"),
            ("fsck.hasDot", "ignore"),
        ],
        &[
            ("fsck.largePathname", "warn:10"),
            ("fsck.gitmodulesUrl", "warn"),
        ],
        &[
            ("fsck.badDate", "ignore"),
            ("fsck.extraHeaderEntry", "error"),
        ],
        &[("fsck.gitmodulesParse", "error"), ("fsck.skipList", &skip)],
        &[
            ("fsck.zeroPaddedDate", "warn"),
            ("fsck.missingAuthor", "ignore"),
        ],
    ] {
        for strict in [false, true] {
            let _ = r.git(&["config", "--remove-section", "fsck"], b"");
            for (k, v) in settings {
                let out = r.git(&["config", k, v], b"");
                assert!(out.status.success(), "{out:?}");
            }
            let args: &[&str] = if strict { &["--strict"] } else { &[] };
            let (git, _) = r.fsck(args);
            let opts = Options::from_config(&r.config(), strict, ObjectFormat::Sha1)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.predict(&opts), git, "{settings:?} strict={strict}");
        }
    }
}

#[test]
fn bad_settings_die_like_git() {
    if !have_git("bad_settings_die_like_git") {
        return;
    }
    let r = zoo();
    for text in [
        "[fsck]\n\tnullSha1 = maybe\n",
        "[fsck]\n\tnoSuchId = warn\n",
        "[fsck]\n\tnulInHeader = warn\n",
        "[fsck]\n\tnullSha1\n",
        "[fsck]\n\tlargePathname = warn:lots\n",
        "[fsck]\n\tskipList = /nonexistent/skip\n",
        "[fsck]\n\tskipList = \"/nonexistent/a b\"\n",
        "[fsck]\n\tskipList = /nonexistent/a|nullSha1=warn\n",
        "[fsck \"Sub\"]\n\tx = warn\n",
    ] {
        let path = r.dir.join(".git/config");
        fs::write(&path, format!("[core]\n\tbare = false\n{text}")).expect("config");
        let out = r.git(&["fsck"], b"");
        let cfg = Config {
            entries: Config::parse(text.as_bytes(), Path::new(".git/config")).expect("parse"),
        };
        let ours = Options::from_config(&cfg, false, ObjectFormat::Sha1)
            .err()
            .unwrap_or_else(|| panic!("{text:?}: accepted"));
        // git names the file by the path it opened; the test parsed the same text standing alone,
        // so only the line number differs by the two lines of [core].
        let git = String::from_utf8_lossy(&out.stderr)
            .trim_end()
            .replace("at line 4", "at line 2");
        assert_eq!(ours, git, "{text:?}");
        assert_eq!(out.status.code(), Some(128), "{text:?}");
    }
    // A skip list line that is not an id.
    fs::write(r.dir.join(".git/config"), "[core]\n\tbare = false\n").expect("config");
    let skip = r._tmp.path().join("skip");
    fs::write(&skip, "not-an-id\n").expect("skip");
    let cfg = Config {
        entries: Config::parse(
            format!("[fsck]\nskipList = {}\n", skip.display()).as_bytes(),
            Path::new("c"),
        )
        .expect("parse"),
    };
    let ours = Options::from_config(&cfg, false, ObjectFormat::Sha1).err();
    let out = r.git(
        &["-c", &format!("fsck.skipList={}", skip.display()), "fsck"],
        b"",
    );
    assert_eq!(
        ours.as_deref(),
        Some(String::from_utf8_lossy(&out.stderr).trim_end())
    );
}

#[test]
fn config_values_match_git_config() {
    if !have_git("config_values_match_git_config") {
        return;
    }
    let r = Repo::new();
    let text: &[u8] = b"\xef\xbb\xbf[Core]\n\tBare = false ; c\n  flag\n[sub \"CaSe\\\"q\"] K = \" a  b \" # x\n[a.B]c=1\n[s]\n\tv = one\\\n two\\t\\\"\\\\\\n\n\tw = \"x;y\" z # c\n\tempty =\n\tcrlf = v\r\n";
    let path = r._tmp.path().join("cfg");
    fs::write(&path, text).expect("cfg");
    let p = path.to_string_lossy().into_owned();
    let out = r.git(&["config", "-f", &p, "--list", "-z"], b"");
    assert!(out.status.success(), "{out:?}");
    let git: Vec<Vec<u8>> = out
        .stdout
        .split(|&c| c == 0)
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let ours: Vec<Vec<u8>> = Config::parse(text, &path)
        .expect("parse")
        .into_iter()
        .map(|e| {
            let mut l = e.key_bytes.clone();
            if let Some(v) = e.value {
                l.push(b'\n');
                l.extend_from_slice(&v);
            }
            l
        })
        .collect();
    assert_eq!(ours, git);
    for bad in [
        &b"[s]\nv = \"open\n"[..],
        b"[s]\nv = \\q\n",
        b"[s\n",
        b"[s]\n1 = x\n",
        b"[s]\nv x\n",
        b"[s \"x\n",
        b"\n\n[s]\n\tok\n[t]\n\tv = \"a\\\nb\n",
        b"\xef\xbbx",
    ] {
        fs::write(&path, bad).expect("cfg");
        let out = r.git(&["config", "-f", &p, "--list"], b"");
        let ours = Config::parse(bad, &path).err().map(|e| e.to_string());
        assert_eq!(
            ours.as_deref(),
            Some(String::from_utf8_lossy(&out.stderr).trim_end()),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    // Booleans and numbers as `git config --type` reads them.
    for v in [
        "true", "YES", "off", "", "0", "2k", "maybe", "1m", "0x10", "-1", "1x",
    ] {
        fs::write(&path, format!("[s]\n\tv = {v}\n")).expect("cfg");
        let cfg = Config {
            entries: Config::parse(&fs::read(&path).expect("read"), &path).expect("parse"),
        };
        let out = r.git(&["config", "-f", &p, "--type=bool", "s.v"], b"");
        let git = if out.status.success() {
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        } else {
            String::from_utf8_lossy(&out.stderr).trim().to_string()
        };
        let ours = match cfg.get_bool("S.V") {
            Ok(Some(b)) => b.to_string(),
            Ok(None) => "unset".to_string(),
            Err(e) => e.to_string(),
        };
        assert_eq!(ours, git, "bool {v:?}");
        let out = r.git(&["config", "-f", &p, "--type=int", "s.v"], b"");
        if v.starts_with('-') {
            continue;
        }
        if out.status.success() {
            let n: u64 = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("int");
            assert_eq!(cfg.get_ulong("s.v"), Ok(Some(n)), "ulong {v:?}");
        } else {
            assert_eq!(
                cfg.get_ulong("s.v").map_err(|e| e.to_string()),
                Err(String::from_utf8_lossy(&out.stderr).trim_end().to_string()),
                "ulong {v:?}"
            );
        }
    }
}

#[test]
fn includes_are_followed_like_git() {
    if !have_git("includes_are_followed_like_git") {
        return;
    }
    let r = Repo::new();
    let git_dir = r.dir.join(".git");
    let inc = r._tmp.path().join("inc");
    fs::write(
        &inc,
        "[fsck]\n\tnullSha1 = ignore\n[x]\n\ty = from-include\n",
    )
    .expect("inc");
    let other = r._tmp.path().join("other");
    fs::write(&other, "[x]\n\ty = not-this-dir\n").expect("other");
    let branch = r._tmp.path().join("branch");
    fs::write(&branch, "[x]\n\tz = on-master\n").expect("branch");
    fs::write(
        r._tmp.path().join("tilde"),
        "[x]\n\tt = from-home\n[include]\n\tpath = nested\n",
    )
    .expect("tilde");
    fs::write(r._tmp.path().join("nested"), "[x]\n\tn = nested\n").expect("nested");
    fs::write(r._tmp.path().join("icase"), "[x]\n\ti = icase\n").expect("icase");
    let mut cfg = fs::read_to_string(git_dir.join("config")).expect("config");
    cfg.push_str(&format!(
        "[include]\n\tpath = ~/tilde\n\tpath = /nonexistent/file\n[includeIf \"gitdir/i:{}/\"]\n\tpath = {}\n[includeIf \"gitdir:{}/\"]\n\tpath = {}\n",
        r.dir.display().to_string().to_uppercase(),
        r._tmp.path().join("icase").display(),
        r.dir.display().to_string().to_uppercase(),
        other.display(),
    ));
    cfg.push_str(&format!(
        "[include]\n\tpath = {}\n[includeIf \"gitdir:{}/\"]\n\tpath = ../../inc\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = {}\n[includeIf \"onbranch:ma*\"]\n\tpath = {}\n",
        inc.display(),
        r.dir.display(),
        other.display(),
        branch.display()
    ));
    fs::write(git_dir.join("config"), cfg).expect("config");
    let _ = r.git(&["symbolic-ref", "HEAD", "refs/heads/master"], b"");
    let out = r.git(&["config", "--list", "--includes"], b"");
    assert!(out.status.success(), "{out:?}");
    let git: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let home = r._tmp.path().to_path_buf();
    let env = |n: &str| match n {
        "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
        "GIT_CONFIG_GLOBAL" => Some("/dev/null".into()),
        "HOME" => Some(home.clone().into_os_string()),
        _ => None,
    };
    let (loaded, err) = Config::load_for_repo_with_env(&git_dir, &git_dir, &env);
    assert_eq!(err, None);
    let ours: Vec<String> = loaded
        .entries
        .iter()
        .map(|e| match &e.value {
            Some(v) => format!("{}={}", e.key, String::from_utf8_lossy(v)),
            None => e.key.clone(),
        })
        .collect();
    assert_eq!(ours, git);
    for included in [
        "x.y=from-include",
        "x.t=from-home",
        "x.n=nested",
        "x.i=icase",
        "x.z=on-master",
    ] {
        assert!(git.iter().any(|l| l == included), "{included}: {git:#?}");
    }
    assert!(!git.iter().any(|l| l == "x.y=not-this-dir"), "{git:#?}");
}

/// The same checks in a SHA-256 repository: 32-byte ids in trees, 64 hexadecimal digits in
/// commits and tags.
#[test]
fn sha256_findings_match_git_fsck() {
    if !have_git("sha256_findings_match_git_fsck") {
        return;
    }
    let r = Repo::with_format(ObjectFormat::Sha256);
    let blob = r.put("blob", b"x\n");
    let empty = r.put("tree", b"");
    assert_eq!(empty.len(), 64);
    let mut t = Vec::new();
    t.extend(entry("100644", b".", &blob));
    t.extend(entry("100644", b"b", &"0".repeat(64)));
    t.extend(entry("100644", b"a", &blob));
    r.put("tree", &t);
    let modules = r.put("blob", b"[submodule \"x\"]\n\turl = --evil\n");
    r.put("tree", &entry("100644", b".gitmodules", &modules));
    r.put("tree", &entry("100644", b"short", &blob)[..40]);
    for c in [
        format!("tree {empty}\ncommitter {IDENT}\n\nno author\n"),
        format!("tree {empty}\nparent {}\nauthor {IDENT}\n", "z".repeat(64)),
        format!("tree {}\nauthor {IDENT}\n", &empty[..40]),
    ] {
        r.put("commit", c.as_bytes());
    }
    for t in [
        format!("object {empty}\ntype tree\ntag v1\n\nno tagger\n"),
        format!("object {empty}\ntype nope\ntag v1\n\nbad type\n"),
    ] {
        r.put("tag", t.as_bytes());
    }
    for strict in [false, true] {
        let args: &[&str] = if strict { &["--strict"] } else { &[] };
        let (git, status) = r.fsck(args);
        let (ours, failed) = r.predict_with_status(&Options::new(strict));
        assert_eq!(ours, git, "strict={strict}");
        assert_eq!(failed, status & 1 == 1);
        assert!(git.len() >= 8, "{git:#?}");
    }
}

/// The names file systems take for `.gitmodules` and `.gitattributes` (HFS+ ignorable code
/// points and case, NTFS short names, trailing dots and spaces, backslashes), and `.gitmodules`
/// contents that git's config parser reads in its own way.
#[test]
fn special_names_and_contents_match_git_fsck() {
    if !have_git("special_names_and_contents_match_git_fsck") {
        return;
    }
    let r = Repo::new();
    let names: [&[u8]; 12] = [
        b".gitmodules",
        b".GitModules",
        b".git\xe2\x80\x8cmodules",
        b".gitmodules. .",
        b"GITMOD~1",
        b"gi7eba~9",
        b"a\\.gitmodules",
        b".gitmodulesx",
        b"gitmodules",
        b"GITMOD~5",
        b"\xef\xbb\xbf.gitmodules",
        b".gitmodules/x",
    ];
    for (i, name) in names.iter().enumerate() {
        let b = r.put(
            "blob",
            format!("[submodule \"n{i}\"]\n\turl = -{i}\n").as_bytes(),
        );
        r.put("tree", &entry("100644", name, &b));
    }
    let attrs: [&[u8]; 6] = [
        b".gitattributes",
        b".GITATTRIBUTES ",
        b"GITATT~1",
        b"gi7d29~3",
        b".gitattributes\xe2\x80\x8d",
        b"gitattributes",
    ];
    for (i, name) in attrs.iter().enumerate() {
        let b = r.put("blob", format!("{}{i}\n", "x".repeat(2047)).as_bytes());
        r.put("tree", &entry("100644", name, &b));
    }
    r.put("tree", b"");
    let mut tag = format!("object {EMPTY_TREE}\ntype tree\ntag v").into_bytes();
    tag.extend_from_slice(b"\xfe..1\n\nnot UTF-8\n");
    r.put("tag", &tag);
    let contents: [&[u8]; 17] = [
        b"[submodule \"n\xfe..\"]\n\turl = -\xfe\n",
        b"[submodule \"ff\"]\n\turl = -before\xff\n\turl = -after\n\tbad line\n",
        b"[submodule \"ff2\"]\n\turl = -x\xff = y\n[broken\n",
        b"[submodule \"cr\"]\n\turl = -cr\r\xff\n\tpath = -p\n",
        b"[submodule \"vt\"]\n\turl =\x0b-vt\n",
        b"[submodule.Legacy]\n\tURL = -legacy\n",
        b"[submodule \"q\\\"uote\"]\n\turl = \"-quoted\"\n",
        b"[submodule \"nourl\"]\n\turl\n\tpath\n",
        b"[submodule \"crlf\"]\r\n\turl = -crlf\r\n",
        b"[submodule \"nul\"]\n\turl = -a\0b\n",
        b"[submodule \"a\0b\"]\n\turl = -sub\n",
        b"\xef\xbb\xbf[submodule \"bom\"]\n\tupdate = !cmd\n",
        b"[submodule]\n\turl = -nosub\n",
        b"[submodule \"x\"]\n\tupdate = none\n\tupdate = rebase\n\tpath = ok\n",
        b"[submodule \"a/../b\"]\n\tpath = -p ; comment\n",
        b"[submodule \"y\"]\n\turl = https://example.com:99999/x\n\turl = http::https://ok/x\n",
        b"[submodule \"z\"]\n\turl = ../../:z\n\turl = git://h/%0a\n",
    ];
    for c in contents {
        let b = r.put("blob", c);
        r.put("tree", &entry("100644", b".gitmodules", &b));
    }
    for strict in [false, true] {
        let args: &[&str] = if strict { &["--strict"] } else { &[] };
        let (git, status) = r.fsck(args);
        let (ours, failed) = r.predict_with_status(&Options::new(strict));
        assert_eq!(ours, git, "strict={strict}");
        assert_eq!(failed, status & 1 == 1);
        assert!(git.len() >= 20, "{git:#?}");
    }
}

/// System, global (XDG and `~/.gitconfig`), repository, worktree and command-line configuration
/// in git's order, with the environment handed to the loader as git sees it.
#[test]
fn configuration_sources_match_git_config() {
    if !have_git("configuration_sources_match_git_config") {
        return;
    }
    let r = Repo::new();
    let home = r._tmp.path().join("home");
    let xdg = r._tmp.path().join("xdg");
    fs::create_dir_all(xdg.join("git")).expect("xdg");
    fs::create_dir_all(&home).expect("home");
    let system = r._tmp.path().join("system");
    fs::write(&system, "[sys]\n\tv = 1\n").expect("system");
    fs::write(xdg.join("git/config"), "[xdg]\n\tv = 2\n").expect("xdg");
    fs::write(home.join(".gitconfig"), "[home]\n\tv = 3\n").expect("home");
    assert!(
        r.git(&["config", "extensions.worktreeConfig", "true"], b"")
            .status
            .success()
    );
    assert!(
        r.git(&["config", "--worktree", "wt.v", "4"], b"")
            .status
            .success()
    );
    let vars: Vec<(&str, String)> = vec![
        ("HOME", home.to_string_lossy().into_owned()),
        ("XDG_CONFIG_HOME", xdg.to_string_lossy().into_owned()),
        ("GIT_CONFIG_SYSTEM", system.to_string_lossy().into_owned()),
        ("GIT_CONFIG_COUNT", "2".to_string()),
        ("GIT_CONFIG_KEY_0", "c.d".to_string()),
        ("GIT_CONFIG_VALUE_0", "e".to_string()),
        ("GIT_CONFIG_KEY_1", "Foo.Bar.Baz".to_string()),
        ("GIT_CONFIG_VALUE_1", "q".to_string()),
        (
            "GIT_CONFIG_PARAMETERS",
            "'a.b'='c' 'X.Y.z'= 'old.style=v w' 'flag.only' 'Sec.Sub.Key'='it'\\''s'".to_string(),
        ),
    ];
    let mut cmd = Command::new("git");
    cmd.args(["config", "--list", "--show-scope"])
        .current_dir(&r.dir)
        .env("GIT_CEILING_DIRECTORIES", r._tmp.path())
        .env_remove("GIT_CONFIG_NOSYSTEM")
        .env_remove("GIT_CONFIG_GLOBAL")
        .env_remove("GIT_DIR");
    for (k, v) in &vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("git");
    assert!(out.status.success(), "{out:?}");
    let git: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let env = |name: &str| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| std::ffi::OsString::from(v))
    };
    let git_dir = r.dir.join(".git");
    let (cfg, err) = Config::load_for_repo_with_env(&git_dir, &git_dir, &env);
    assert_eq!(err, None);
    let ours: Vec<String> = cfg
        .entries
        .iter()
        .map(|e| {
            use flagsplit::gitconfig::Scope;
            let scope = match e.scope {
                Scope::System => "system",
                Scope::Global => "global",
                Scope::Local => "local",
                Scope::Worktree => "worktree",
                Scope::Command => "command",
                Scope::Unknown => "unknown",
            };
            match &e.value {
                Some(v) => format!("{scope}\t{}={}", e.key, String::from_utf8_lossy(v)),
                None => format!("{scope}\t{}", e.key),
            }
        })
        .collect();
    assert_eq!(ours, git);
    // Bad command-line settings: git's messages.
    for (name, value) in [
        ("GIT_CONFIG_PARAMETERS", "'a.b"),
        ("GIT_CONFIG_PARAMETERS", "'nodot'='x'"),
        ("GIT_CONFIG_PARAMETERS", "'a.b'x"),
        ("GIT_CONFIG_COUNT", "1x"),
        ("GIT_CONFIG_COUNT", "2"),
    ] {
        let out = Command::new("git")
            .args(["config", "--list"])
            .current_dir(&r.dir)
            .env("GIT_CEILING_DIRECTORIES", r._tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_KEY_0", "a.b")
            .env("GIT_CONFIG_VALUE_0", "c")
            .env_remove("GIT_CONFIG_PARAMETERS")
            .env_remove("GIT_CONFIG_COUNT")
            .env(name, value)
            .output()
            .expect("git");
        let env = |n: &str| match n {
            "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
            "GIT_CONFIG_GLOBAL" => Some("/dev/null".into()),
            "GIT_CONFIG_KEY_0" => Some("a.b".into()),
            "GIT_CONFIG_VALUE_0" => Some("c".into()),
            _ if n == name => Some(value.into()),
            _ => None,
        };
        let (_, err) = Config::load_for_repo_with_env(&git_dir, &git_dir, &env);
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some(String::from_utf8_lossy(&out.stderr).trim_end()),
            "{name}={value}"
        );
        assert_eq!(out.status.code(), Some(128));
    }
}

/// `fsck.*` settings given on the command line (`git -c`): git's messages, fatal or not.
#[test]
fn command_line_settings_match_git_fsck() {
    if !have_git("command_line_settings_match_git_fsck") {
        return;
    }
    let r = Repo::new();
    let git_dir = r.dir.join(".git");
    for (setting, param) in [
        ("fsck.nullSha1", "'fsck.nullSha1'"),
        ("fsck.skipList", "'fsck.skipList'"),
        (
            "fsck.skipList=~nosuchuser/x",
            "'fsck.skipList=~nosuchuser/x'",
        ),
        ("fsck.NullSha1=warn", "'fsck.NullSha1=warn'"),
        ("fsck.badDate=fatal", "'fsck.badDate=fatal'"),
        ("fsck.x.y=warn", "'fsck.x.y=warn'"),
    ] {
        let out = r.git(&["-c", setting, "fsck"], b"");
        let git: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| !l.starts_with("notice: "))
            .map(str::to_string)
            .collect();
        let env = |n: &str| match n {
            "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
            "GIT_CONFIG_GLOBAL" => Some("/dev/null".into()),
            "GIT_CONFIG_PARAMETERS" => Some(param.into()),
            _ => None,
        };
        let (cfg, err) = Config::load_for_repo_with_env(&git_dir, &git_dir, &env);
        assert_eq!(err, None);
        let ours: Vec<String> = match Options::from_config(&cfg, false, ObjectFormat::Sha1) {
            Ok(o) => {
                assert_eq!(out.status.code(), Some(0), "{setting}");
                o.warnings
            }
            Err(e) => {
                assert_eq!(out.status.code(), Some(128), "{setting}");
                e.lines().map(str::to_string).collect()
            }
        };
        assert_eq!(ours, git, "{setting}");
    }
}

/// The links the walk follows, seen through `git fsck`'s `missing <type> <id>` lines: each
/// object is the only one in its repository, a tag ref points at it, and every object it names
/// is missing.
#[test]
fn links_match_git_fsck_missing_objects() {
    if !have_git("links_match_git_fsck_missing_objects") {
        return;
    }
    let id = |c: char| c.to_string().repeat(40);
    let mut tree = Vec::new();
    for (mode, name, c) in [
        ("100644", &b"a"[..], '1'),
        ("100664", b"b", '2'),
        ("100755", b"c", '3'),
        ("120000", b"d", '4'),
        ("40000", b"e", '5'),
        ("160000", b"f", '6'),
        ("0", b"g", '7'),
        ("170000", b"h", '8'),
        ("100000", b"i", '9'),
        ("140000", b"j", 'a'),
        ("1040000", b"k", 'b'),
    ] {
        tree.extend(entry(mode, name, &id(c)));
    }
    let mut objects: Vec<(&str, Vec<u8>)> = vec![("tree", tree)];
    objects.push((
        "commit",
        format!(
            "tree {}\nparent {}\nparent {}\nauthor {IDENT}\ncommitter {IDENT}\n\nm\n",
            id('1'),
            id('2'),
            id('3')
        )
        .into_bytes(),
    ));
    objects.push((
        "commit",
        format!(
            "tree {}\nauthor {IDENT}\nparent {}\n\nlate parent\n",
            id('4'),
            id('5')
        )
        .into_bytes(),
    ));
    for t in ["blob", "tree", "commit", "tag"] {
        objects.push((
            "tag",
            format!("object {}\ntype {t}\ntag v\ntagger {IDENT}\n\nm\n", id('c')).into_bytes(),
        ));
    }
    for (kind, content) in objects {
        let r = Repo::new();
        let hex = r.put(kind, &content);
        let out = r.git(&["update-ref", "refs/tags/t", &hex], b"");
        assert!(out.status.success(), "{out:?}");
        let out = r.git(&["fsck", "--full"], b"");
        let git: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("missing "))
            .map(str::to_string)
            .collect();
        let kind = Kind::from_name(kind.as_bytes()).expect("kind");
        let l = links_for(kind, &raw(&hex), &content, ObjectFormat::Sha1);
        assert!(!l.parse_failed && !l.walk_failed, "{l:?}");
        let ours: BTreeSet<String> = l
            .targets
            .iter()
            .map(|t| format!("missing {} {}", t.kind, self::hex(&t.id)))
            .collect();
        assert_eq!(ours, git, "{kind} {hex}");
    }
}

/// `includeIf.hasconfig:remote.*.url:` against the remote URLs of the whole configuration, and
/// git's refusal of a remote URL in a file it includes.
#[test]
fn hasconfig_includes_match_git_config() {
    if !have_git("hasconfig_includes_match_git_config") {
        return;
    }
    let r = Repo::new();
    let git_dir = r.dir.join(".git");
    let yes = r._tmp.path().join("yes");
    let no = r._tmp.path().join("no");
    let bad = r._tmp.path().join("bad");
    fs::write(&yes, "[x]\n\tv = matched\n").expect("yes");
    fs::write(&no, "[x]\n\tv = not-matched\n").expect("no");
    fs::write(&bad, "[remote \"sneaky\"]\n\turl = https://evil/\n").expect("bad");
    let base = fs::read_to_string(git_dir.join("config")).expect("config");
    let env = |n: &str| match n {
        "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
        "GIT_CONFIG_GLOBAL" => Some("/dev/null".into()),
        _ => None,
    };
    for (extra, fails) in [
        (
            format!(
                "[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = {}\n[includeIf \"hasconfig:remote.*.url:git@*\"]\n\tpath = {}\n[remote \"origin\"]\n\turl = https://example.com/x/y\n",
                yes.display(),
                no.display()
            ),
            false,
        ),
        (
            format!(
                "[remote \"origin\"]\n\turl = https://example.com/x\n[includeIf \"hasconfig:remote.*.url:https://**\"]\n\tpath = {}\n",
                bad.display()
            ),
            true,
        ),
    ] {
        fs::write(git_dir.join("config"), format!("{base}{extra}")).expect("config");
        let out = r.git(&["config", "--list"], b"");
        let (cfg, err) = Config::load_for_repo_with_env(&git_dir, &git_dir, &env);
        if fails {
            assert_eq!(out.status.code(), Some(128));
            assert_eq!(
                err.map(|e| e.to_string()).as_deref(),
                Some(String::from_utf8_lossy(&out.stderr).trim_end())
            );
            continue;
        }
        assert!(out.status.success(), "{out:?}");
        assert_eq!(err, None);
        let git: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        let ours: Vec<String> = cfg
            .entries
            .iter()
            .map(|e| match &e.value {
                Some(v) => format!("{}={}", e.key, String::from_utf8_lossy(v)),
                None => e.key.clone(),
            })
            .collect();
        assert_eq!(ours, git);
        assert!(git.iter().any(|l| l == "x.v=matched"), "{git:#?}");
    }
}

/// A `.gitmodules` or `.gitattributes` blob larger than `core.bigFileThreshold`, which git does
/// not load: reported as too large when its tree was checked first, read whole at the end
/// otherwise.
#[test]
fn unloaded_special_blobs_match_git_fsck() {
    if !have_git("unloaded_special_blobs_match_git_fsck") {
        return;
    }
    let mut large = 0;
    for i in 0..8 {
        let r = Repo::new();
        assert!(
            r.git(&["config", "core.bigFileThreshold", "10"], b"")
                .status
                .success()
        );
        let (name, content) = if i % 2 == 0 {
            (
                &b".gitmodules"[..],
                format!("[submodule \"a{i}\"]\n\turl = -x\n"),
            )
        } else {
            (&b".gitattributes"[..], format!("{}{i}\n", "y".repeat(3000)))
        };
        let blob = r.put("blob", content.as_bytes());
        let tree = r.put("tree", &entry("100644", name, &blob));
        if blob[..2] == tree[..2] {
            continue;
        }
        let (git, status) = r.fsck(&[]);
        let opts = Options::from_config(&r.config(), false, ObjectFormat::Sha1)
            .unwrap_or_else(|e| panic!("{e}"));
        let (ours, failed) = r.predict_big(&opts, 10);
        assert_eq!(ours, git, "{blob} in {tree}");
        assert_eq!(failed, status & 1 == 1);
        large += git
            .iter()
            .filter(|l| l.contains("too large to parse"))
            .count();
    }
    assert!(large > 0, "no blob came after its tree");
}

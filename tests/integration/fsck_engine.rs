//! `flagsplit fsck`'s engine through the library (`flagsplit::fsck::run_with`), where the tests
//! need what a repository cannot give: a hasher that reports a SHA-1 collision attack, as the
//! collision-detecting provider would (no git-object collision is public), and the public
//! collision files stored as ordinary blobs, which must not be reported.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use flagsplit::fsck::{self, Options, Output, Repo, table};
use flagsplit::hash::Selected;
use flagsplit::object::{Kind, ObjectFormat};

use crate::support;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "A")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .env("GIT_AUTHOR_DATE", "1700000000 +0000")
        .env("GIT_COMMITTER_DATE", "1700000000 +0000")
        .env("LC_ALL", "C")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with a few commits; packed when `pack`.
fn repo(dir: &Path, pack: bool) {
    git(dir, &["init", "-q", "-b", "main", "."]);
    for i in 0..4 {
        std::fs::write(dir.join("f"), format!("line {i}\n").repeat(i + 1)).unwrap();
        std::fs::write(dir.join(format!("g{i}")), format!("{i}\n")).unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", &format!("c{i}")]);
    }
    if pack {
        git(dir, &["repack", "-q", "-a", "-d"]);
    }
}

#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// The object the test hasher refuses.
static ATTACKED: OnceLock<table::Oid> = OnceLock::new();

/// The selected hash, except that the attacked object is refused as the collision-detecting
/// provider refuses a collision attack.
fn attacked_hash(format: ObjectFormat, kind: Kind, data: &[u8]) -> Result<table::Oid, String> {
    let id = fsck::object_id::<Selected>(format, kind, data)?;
    if Some(&id) == ATTACKED.get() {
        return Err(format!(
            "SHA-1 appears to be part of a collision attack: {}",
            fsck::hex(&id[..20])
        ));
    }
    Ok(id)
}

fn run(dir: &Path, hash: fsck::HashFn) -> (u8, Vec<String>, Vec<String>) {
    let (out, err) = (Sink::default(), Sink::default());
    let repo = Repo {
        git_dir: dir.join(".git"),
        common_dir: dir.join(".git"),
        format: ObjectFormat::Sha1,
    };
    let output = Output::new(Box::new(out.clone()), Box::new(err.clone()));
    let status = match fsck::run_with::<Selected>(&Options::default(), repo, output, hash).1 {
        Ok(bits) => bits,
        Err(fatal) => panic!("fsck died: {}", fatal.0),
    };
    (status, out.lines(), err.lines())
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn a_collision_is_reported_and_the_other_objects_are_still_checked() {
    for pack in [false, true] {
        let t = tempdir();
        let dir = t.path();
        repo(dir, pack);
        let blob = git(dir, &["rev-parse", "HEAD:g1"]);
        let raw: Vec<u8> = (0..20)
            .map(|i| u8::from_str_radix(&blob[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let attacked = *ATTACKED.get_or_init(|| table::oid(&raw));
        // One test binary, one attacked id: the second repository has the same content.
        assert_eq!(attacked, table::oid(&raw), "repositories are deterministic");

        let (status, out, err) = run(dir, fsck::object_id::<Selected>);
        assert_eq!((status, out.len()), (0, 0), "{err:?}");

        let (status, out, err) = run(dir, attacked_hash);
        let collision = format!("error: SHA-1 appears to be part of a collision attack: {blob}");
        assert!(err.contains(&collision), "pack={pack}: {err:?}");
        if pack {
            assert!(
                err.iter()
                    .any(|l| l.starts_with(&format!("error: packed {blob} from "))
                        && l.ends_with(" is corrupt")),
                "{err:?}"
            );
            assert_eq!(status & fsck::bits::PACK, fsck::bits::PACK);
        } else {
            assert!(
                err.iter()
                    .any(|l| l.starts_with(&format!("error: {blob}: object corrupt or missing: "))),
                "{err:?}"
            );
            assert_eq!(status & fsck::bits::OBJECT, fsck::bits::OBJECT);
        }
        // The refused blob is not an object fsck has: the tree naming it is reported as git
        // reports a blob it cannot read, and nothing else is.
        let others: Vec<_> = err
            .iter()
            .filter(|l| !l.contains(&blob) && !l.starts_with("notice: not checked"))
            .collect();
        assert!(
            others.is_empty(),
            "only the attacked blob is reported: {others:?}"
        );
        assert!(
            out.iter()
                .all(|l| l.contains(&blob) || l.starts_with("broken link from")),
            "{out:?}"
        );
    }
}

#[test]
fn the_public_collision_files_are_ordinary_blobs() {
    let Some(collisions) =
        support::collisions_dir("fsck_engine::the_public_collision_files_are_ordinary_blobs")
    else {
        return;
    };
    for pack in [false, true] {
        let t = tempdir();
        let dir = t.path();
        git(dir, &["init", "-q", "-b", "main", "."]);
        for name in [
            "shattered-1.pdf",
            "shattered-2.pdf",
            "sha-mbles-1.bin",
            "sha-mbles-2.bin",
            "sha1_reducedsha_coll.bin",
        ] {
            std::fs::copy(collisions.join(name), dir.join(name)).unwrap();
        }
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "collision files"]);
        if pack {
            git(dir, &["repack", "-q", "-a", "-d"]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
            .arg("fsck")
            .current_dir(dir)
            .env("HOME", dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let err: Vec<_> = err
            .lines()
            .filter(|l| !l.starts_with("notice: not checked"))
            .collect();
        assert_eq!(out.status.code(), Some(0), "pack={pack}: {err:?}");
        assert!(out.stdout.is_empty() && err.is_empty(), "{err:?}");
    }
}

/// Writes a pack of `entries` (type code, raw header bytes after the type/size varint, zlib
/// data) and its idx through `git index-pack` when it accepts it.
fn varint_header(type_code: u8, size: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut c = (type_code << 4) | (size & 15) as u8;
    let mut s = size >> 4;
    while s != 0 {
        out.push(c | 0x80);
        c = (s & 0x7f) as u8;
        s >>= 7;
    }
    out.push(c);
    out
}

fn delta_size(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            break;
        }
        out.push(b | 0x80);
    }
}

fn zlib(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 6)
}

fn sha1(data: &[u8]) -> Vec<u8> {
    let mut h = flagsplit::hash::Hasher::new(flagsplit::hash::Algorithm::Sha1);
    h.update(data);
    h.finalize().unwrap().as_bytes().to_vec()
}

/// A pack and a version 2 idx written here (git's index-pack refuses these packs).
fn write_pack(dir: &Path, objects: &[(Vec<u8>, Vec<u8>)]) -> PathBuf {
    // objects: (id, entry bytes)
    let mut pack = b"PACK\0\0\0\x02".to_vec();
    pack.extend((objects.len() as u32).to_be_bytes());
    let mut entries: Vec<(Vec<u8>, u64, u32)> = Vec::new();
    for (id, bytes) in objects {
        let off = pack.len() as u64;
        pack.extend(bytes);
        entries.push((id.clone(), off, crc32fast::hash(bytes)));
    }
    let trailer = sha1(&pack);
    pack.extend(&trailer);
    entries.sort();
    let mut idx = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for b in 0..256usize {
        let n = entries.iter().filter(|e| e.0[0] as usize <= b).count() as u32;
        idx.extend(n.to_be_bytes());
    }
    for e in &entries {
        idx.extend(&e.0);
    }
    for e in &entries {
        idx.extend(e.2.to_be_bytes());
    }
    for e in &entries {
        idx.extend((e.1 as u32).to_be_bytes());
    }
    idx.extend(&trailer);
    let sum = sha1(&idx);
    idx.extend(sum);
    let name = format!("pack-{}", fsck::hex(&trailer));
    let pack_dir = dir.join(".git/objects/pack");
    std::fs::write(pack_dir.join(format!("{name}.pack")), pack).unwrap();
    std::fs::write(pack_dir.join(format!("{name}.idx")), idx).unwrap();
    pack_dir.join(format!("{name}.pack"))
}

fn flagsplit_fsck(dir: &Path) -> (Option<i32>, String, String, std::time::Duration) {
    let start = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
        .arg("fsck")
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed(),
    )
}

#[test]
fn hostile_packs_are_named_with_their_offsets_without_the_allocation_or_the_loop() {
    let t = tempdir();
    let dir = t.path();
    git(dir, &["init", "-q", "-b", "main", "."]);
    let base = b"hello, hostile world\n".to_vec();
    let base_id = sha1(&[b"blob 21\0".as_slice(), &base].concat());
    let mut base_entry = varint_header(3, base.len() as u64);
    base_entry.extend(zlib(&base));

    // A delta declaring a 2^62-byte result (git's malloc fails on it).
    let mut huge = Vec::new();
    delta_size(base.len() as u64, &mut huge);
    delta_size(1 << 62, &mut huge);
    huge.extend([0x90, 5]);
    let mut huge_entry = varint_header(7, huge.len() as u64);
    huge_entry.extend(&base_id);
    huge_entry.extend(zlib(&huge));
    let huge_id = vec![0x11; 20];

    // Two REF_DELTAs, each based on the other (git loops until memory runs out).
    let (a_id, b_id) = (vec![0x22; 20], vec![0x33; 20]);
    let mut d = Vec::new();
    delta_size(3, &mut d);
    delta_size(3, &mut d);
    d.extend([0x90, 3]);
    let mut a_entry = varint_header(7, d.len() as u64);
    a_entry.extend(&b_id);
    a_entry.extend(zlib(&d));
    let mut b_entry = varint_header(7, d.len() as u64);
    b_entry.extend(&a_id);
    b_entry.extend(zlib(&d));

    // A zlib bomb: the header says 10 bytes, the stream holds 64 MiB of zeros.
    let bomb_id = vec![0x44; 20];
    let mut bomb_entry = varint_header(3, 10);
    bomb_entry.extend(zlib(&vec![0u8; 64 << 20]));

    let pack = write_pack(
        dir,
        &[
            (base_id.clone(), base_entry),
            (huge_id.clone(), huge_entry),
            (a_id.clone(), a_entry),
            (b_id.clone(), b_entry),
            (bomb_id.clone(), bomb_entry),
        ],
    );
    let (status, _out, err, took) = flagsplit_fsck(dir);
    let name = format!(
        ".git/objects/pack/{}",
        pack.file_name().unwrap().to_string_lossy()
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status, Some(0), "{err}");
    assert!(took < std::time::Duration::from_secs(60), "took {took:?}");
    let has = |needle: &str| err.lines().any(|l| l.contains(needle));
    for id in [&huge_id, &a_id, &b_id, &bomb_id] {
        let h = fsck::hex(id);
        assert!(
            has(&format!("error: cannot unpack {h} from {name} at offset ")),
            "{h}: {err}"
        );
    }
    assert!(
        has("declares a result of 4611686018427387904 bytes"),
        "{err}"
    );
    assert!(
        has("never reaches a base object") && has(&name),
        "the cycle is named with its pack: {err}"
    );
}

/// `FLAGSPLIT_FSCK_TIMES=1`: the stage report on standard error, after git's lines, which it
/// does not change; its memory line's parts, each in bytes per object, come to no more than the
/// peak beyond the mapped files, and the trees' shared lists are counted once.
#[test]
fn the_stage_report_says_where_the_memory_goes() {
    let d = tempdir();
    repo(d.path(), true);
    let (code, out, err, _) = flagsplit_fsck(d.path());
    let timed = Command::new(env!("CARGO_BIN_EXE_flagsplit"))
        .arg("fsck")
        .current_dir(d.path())
        .env("HOME", d.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("FLAGSPLIT_FSCK_TIMES", "1")
        .output()
        .unwrap();
    assert_eq!(timed.status.code(), code);
    assert_eq!(String::from_utf8_lossy(&timed.stdout), out);
    let report = String::from_utf8_lossy(&timed.stderr).into_owned();
    assert!(report.starts_with(&err), "{report}");
    for stage in [
        "packs 1 (",
        "inflate ",
        "hash ",
        "checks ",
        "connectivity ",
        "floor ",
    ] {
        assert!(
            report.contains(&format!("flagsplit fsck: {stage}")),
            "{stage}: {report}"
        );
    }
    let line = report
        .lines()
        .find(|l| l.starts_with("flagsplit fsck: memory peak RSS"))
        .unwrap_or_else(|| panic!("{report}"));
    let number_after = |label: &str| -> f64 {
        let at = line
            .find(label)
            .unwrap_or_else(|| panic!("{label}: {line}"))
            + label.len();
        line[at..]
            .trim_start()
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{label}: {line}"))
    };
    let beyond = number_after("beyond them");
    let parts = [
        "count of trees naming a blob)",
        ", id index",
        ", counts past 65,534",
        ", links ",
        ", pack positions",
        ", the rest",
    ];
    let sum: f64 = parts.iter().map(|p| number_after(p)).sum();
    assert!(sum <= beyond + 0.5, "{sum} > {beyond}: {line}");
    // Four commits of a repository whose trees have no subtrees: a commit's links are its tree
    // and parent (7 in all), and no tree keeps any.
    assert!(line.contains("(7 kept)"), "{line}");
    // Objects are 32 bytes each; the pack's objects were new to the table, so it keeps no
    // list of their places.
    assert_eq!(
        number_after("count of trees naming a blob)"),
        32.0,
        "{line}"
    );
    assert_eq!(number_after(", pack positions"), 0.0, "{line}");
}

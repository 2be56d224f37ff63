//! Repositories in the reftable ref format (`git init --ref-format=reftable`): healthy ones
//! (one compacted table, a stack of tables with tombstones, worktrees with their own stacks,
//! SHA-256, tables of many blocks with indexes), ones whose refs and reflogs name missing or
//! wrong-type objects, and damaged stacks. Each edit of a table is placed by reading its format
//! (the header and footer, the first ref block's records), never by guessing.

use std::fs;

use super::build::{ALL_OPTIONS, Builder, CORRUPT_OPTIONS, SOME_OPTIONS};

/// The history: a merge, a commit only the reflogs reach, an annotated and a lightweight tag, a
/// symbolic ref, a stash (with its reflog), a branch and a tag deleted (tombstones), every
/// transaction its own table.
const HISTORY: &str = r#"
export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
git init -q --ref-format=reftable -b main .
echo one > a
mkdir d
echo two > d/b
git add -A
git commit -q -m root
git checkout -q -b side
echo side > s
git add s
git commit -q -m side
git checkout -q main
echo more >> a
git commit -q -am second
git merge -q --no-edit side
git commit -q --allow-empty -m only-in-reflogs
git reset -q --hard HEAD~1
git tag -a -m annotated v1
git tag light HEAD~1
git update-ref refs/remotes/origin/main HEAD~1
git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
git branch gone HEAD~1
git branch -D gone >/dev/null
git tag tmp
git tag -d tmp >/dev/null
echo stashed >> a
git stash -q
echo stashed-again >> a
git stash -q
git stash drop -q
"#;

/// The ref format's tables of `dir/reftable`, in `tables.list`'s order.
fn tables(b: &Builder, git_dir: &str) -> Vec<String> {
    let list = fs::read_to_string(b.path(&format!("{git_dir}/reftable/tables.list")))
        .expect("tables.list");
    list.lines().map(str::to_string).collect()
}

/// Rewrites a file.
fn edit(b: &Builder, rel: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let path = b.path(rel);
    let mut bytes = fs::read(&path).expect("read");
    f(&mut bytes);
    fs::write(&path, bytes).expect("write");
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

fn varint(b: &[u8], p: &mut usize) -> u64 {
    let mut byte = b[*p];
    *p += 1;
    let mut v = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = b[*p];
        *p += 1;
        v = ((v + 1) << 7) | u64::from(byte & 0x7f);
    }
    v
}

/// One record of a table's first ref block.
struct RefRec {
    /// Where it starts.
    at: usize,
    name: Vec<u8>,
    /// Where the bytes of its name that are not shared with the record before start.
    suffix_at: usize,
    /// Where its value (an object id, for value types 1 and 2) starts.
    value_at: usize,
    value_type: u8,
    /// It is a restart point (its key is not prefix compressed).
    restart: bool,
}

/// What the corruptions need of a table: its hash size, footer size, the records of its first
/// ref block, and its log section.
struct Layout {
    hash: usize,
    footer: usize,
    refs: Vec<RefRec>,
    log_position: u64,
    log_index: u64,
}

fn layout(t: &[u8]) -> Layout {
    assert_eq!(&t[..4], b"REFT");
    let version = t[4];
    let (header, footer) = if version == 1 { (24, 68) } else { (28, 72) };
    let hash = if version == 1 || &t[24..28] == b"sha1" {
        20
    } else {
        32
    };
    let f = &t[t.len() - footer + header..];
    let (log_position, log_index) = (be(&f[24..32]), be(&f[32..40]));
    let mut refs = Vec::new();
    if t[header] == b'r' {
        let block_len = be(&t[header + 1..header + 4]) as usize;
        let restart_count = be(&t[block_len - 2..block_len]) as usize;
        let restart_start = block_len - 2 - 3 * restart_count;
        let restarts: Vec<usize> = (0..restart_count)
            .map(|i| be(&t[restart_start + 3 * i..restart_start + 3 * i + 3]) as usize)
            .collect();
        let mut p = header + 4;
        let mut key: Vec<u8> = Vec::new();
        while p < restart_start {
            let at = p;
            let prefix = varint(t, &mut p) as usize;
            let suffix = varint(t, &mut p);
            let (len, value_type) = ((suffix >> 3) as usize, (suffix & 7) as u8);
            key.truncate(prefix);
            let suffix_at = p;
            key.extend_from_slice(&t[p..p + len]);
            p += len;
            varint(t, &mut p);
            let value_at = p;
            p += match value_type {
                1 => hash,
                2 => 2 * hash,
                3 => varint(t, &mut p) as usize,
                _ => 0,
            };
            refs.push(RefRec {
                at,
                name: key.clone(),
                suffix_at,
                value_at,
                value_type,
                restart: restarts.contains(&at),
            });
        }
    }
    Layout {
        hash,
        footer,
        refs,
        log_position,
        log_index,
    }
}

/// The record of `name` in a table's first ref block.
fn record<'a>(l: &'a Layout, name: &str) -> &'a RefRec {
    l.refs
        .iter()
        .find(|r| r.name == name.as_bytes())
        .unwrap_or_else(|| panic!("no record of {name}"))
}

/// `git rev-parse REV` in `dir`, raw.
fn id(b: &Builder, dir: &str, rev: &str) -> Vec<u8> {
    let hex = b.sh(dir, &format!("git rev-parse '{rev}'"));
    super::corrupt::unhex(hex.trim())
}

/// A copy of `r/FROM` as `r/NAME` with `f` applied, and its cases.
fn variant(
    b: &mut Builder,
    name: &str,
    from: &str,
    options: &[(&str, &[&str])],
    f: impl FnOnce(&Builder, &str),
) {
    let dir = format!("r/{name}");
    b.copy(&format!("r/{from}"), &dir);
    f(b, &dir);
    b.cases(name, &dir, options);
}

/// The table of a one-table stack.
fn only_table(b: &Builder, dir: &str) -> String {
    let t = tables(b, &format!("{dir}/.git"));
    assert_eq!(t.len(), 1, "one table in {dir}");
    format!("{dir}/.git/reftable/{}", t[0])
}

pub(crate) fn reftable_cases(b: &mut Builder) {
    fs::create_dir_all(b.path("r/reftable-stack")).expect("mkdir");
    b.sh("r/reftable-stack", HISTORY);
    assert!(tables(b, "r/reftable-stack/.git").len() > 10, "a stack");
    b.cases("reftable-stack", "r/reftable-stack", ALL_OPTIONS);
    // one table (what `git pack-refs` compacts the stack to)
    variant(b, "reftable", "reftable-stack", ALL_OPTIONS, |b, dir| {
        b.sh(dir, "git pack-refs --all");
    });
    healthy(b);
    broken_refs(b);
    damaged_tables(b);
}

fn healthy(b: &mut Builder) {
    // Objects only the reflogs reached, once they expire; a blob nothing names.
    variant(
        b,
        "reftable-dangling",
        "reftable-stack",
        ALL_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
             git checkout -q -b doomed
             echo doomed > doomed && git add doomed && git commit -q -m doomed
             git checkout -q main && git branch -q -D doomed
             echo lonely | git hash-object -w --stdin >/dev/null
             git reflog expire --expire=now --expire-unreachable=now --all",
            );
        },
    );
    // Linked worktrees with their own stacks: one on a branch with a commit, refs/bisect and
    // refs/worktree refs of its own, one detached; the main worktree with a refs/worktree ref.
    variant(
        b,
        "reftable-worktree",
        "reftable-stack",
        SOME_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
             git worktree add -q ../reftable-wt -b wtb
             cd ../reftable-wt
             echo w > w && git add w && git commit -q -m wt
             git update-ref refs/bisect/bad HEAD
             git update-ref refs/worktree/mine HEAD~1
             cd ../reftable-worktree
             git update-ref refs/worktree/mainown HEAD~1
             git worktree add -q --detach ../reftable-wt-detached HEAD~2",
            );
        },
    );
    b.cases("reftable-wt", "r/reftable-wt", SOME_OPTIONS);
    b.cases(
        "reftable-wt-detached",
        "r/reftable-wt-detached",
        &SOME_OPTIONS[..1],
    );
    // SHA-256: version 2 tables.
    fs::create_dir_all(b.path("r/reftable-sha256")).expect("mkdir");
    b.sh(
        "r/reftable-sha256",
        "git init -q --ref-format=reftable --object-format=sha256 -b main .
         echo one > a && git add a && git commit -q -m root
         echo two >> a && git commit -q -am second
         git tag -a -m t v1 && git branch old HEAD~1",
    );
    b.cases("reftable-sha256", "r/reftable-sha256", SOME_OPTIONS);
    // Tables of many blocks: small blocks and few records between restart points, so that the
    // refs take several blocks under a ref index, the reflogs several log blocks under a log
    // index, with object blocks between them; and the same refs in a stack above it.
    variant(
        b,
        "reftable-blocks",
        "reftable-stack",
        SOME_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
             i=0
             while [ $i -lt 150 ]; do
               i=$((i+1))
               echo \"create refs/heads/many/branch-$i HEAD~$((i % 3))\"
               echo \"create refs/tags/many-$i HEAD~$((i % 2))\"
             done | git update-ref --stdin
             git -c reftable.blockSize=400 -c reftable.restartInterval=3 pack-refs --all
             git branch -q late HEAD~2
             git branch -q -D many/branch-7",
            );
            let t = tables(b, &format!("{dir}/.git"));
            let first = fs::read(b.path(&format!("{dir}/.git/reftable/{}", t[0]))).expect("table");
            let l = layout(&first);
            assert!(l.log_index > 0, "a log index");
        },
    );
}

fn broken_refs(b: &mut Builder) {
    // A branch and a tag naming objects that are not there (their ids edited in the table: it
    // has no checksum over its records).
    variant(
        b,
        "reftable-missing-object",
        "reftable",
        CORRUPT_OPTIONS,
        |b, dir| {
            let t = only_table(b, dir);
            edit(b, &t, |bytes| {
                let l = layout(bytes);
                for (name, fill) in [("refs/heads/side", 0x22), ("refs/tags/light", 0x11)] {
                    let r = record(&l, name);
                    assert_eq!(r.value_type, 1);
                    bytes[r.value_at..r.value_at + l.hash].fill(fill);
                }
            });
        },
    );
    // A branch naming a tree and a detached HEAD naming a blob (git refuses to write either).
    variant(
        b,
        "reftable-wrong-type",
        "reftable",
        CORRUPT_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "git update-ref --no-deref HEAD HEAD~1 && git pack-refs --all",
            );
            let tree = id(b, dir, "HEAD^{tree}");
            let blob = id(b, dir, "HEAD:a");
            let t = only_table(b, dir);
            edit(b, &t, |bytes| {
                let l = layout(bytes);
                for (name, to) in [("refs/heads/side", &tree), ("HEAD", &blob)] {
                    let r = record(&l, name);
                    assert_eq!(r.value_type, 1);
                    bytes[r.value_at..r.value_at + l.hash].copy_from_slice(to);
                }
            });
        },
    );
    // Reflog entries naming a commit whose object is gone (the branch was reset past it).
    variant(
        b,
        "reftable-reflog-missing",
        "reftable-stack",
        CORRUPT_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
                 git commit -q --allow-empty -m lost
                 lost=$(git rev-parse HEAD)
                 git reset -q --hard HEAD~1
                 rm .git/objects/$(echo $lost | cut -c1-2)/$(echo $lost | cut -c3-)",
            );
        },
    );
    // A symbolic ref to nothing, and HEAD on a branch that does not exist.
    variant(
        b,
        "reftable-symrefs",
        "reftable-stack",
        CORRUPT_OPTIONS,
        |b, dir| {
            b.sh(
                dir,
                "export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
                 git symbolic-ref refs/heads/dangle refs/heads/nowhere
                 git symbolic-ref HEAD refs/heads/unborn",
            );
        },
    );
}

fn damaged_tables(b: &mut Builder) {
    let one = |b: &mut Builder, name: &str, f: &dyn Fn(&mut Vec<u8>)| {
        variant(b, name, "reftable", CORRUPT_OPTIONS, |b, dir| {
            let t = only_table(b, dir);
            edit(b, &t, f);
        });
    };
    // Cut in half: its footer is not where it should be, and the stack does not open.
    one(b, "reftable-truncated", &|t| t.truncate(t.len() / 2));
    // The footer's CRC-32, its magic, the header's version.
    one(b, "reftable-bad-crc", &|t| {
        let n = t.len();
        t[n - 1] ^= 0x01;
    });
    one(b, "reftable-bad-magic", &|t| t[0] = b'X');
    one(b, "reftable-bad-version", &|t| t[4] = 3);
    // A record that does not decode (a prefix longer than the key before it): git stops listing
    // refs there, so what only the later refs reach is dangling.
    one(b, "reftable-bad-record", &|t| {
        let l = layout(t);
        let r = record(&l, "refs/heads/side");
        assert!(!r.restart, "not a restart point");
        t[r.at] = 0x7f;
    });
    // A name that fails git's ref name check (`refs/heads/s..e`: visited with the null id),
    // and one that climbs out of `refs/` (`refs/heads/../e`: git dies), edited in place.
    for (case, name) in [
        ("reftable-bad-name", &b"s..e"[..]),
        ("reftable-dangerous-name", b"../e"),
    ] {
        one(b, case, &|t| {
            let l = layout(t);
            let r = record(&l, "refs/heads/side");
            assert_eq!(&t[r.suffix_at..r.suffix_at + 4], b"side");
            t[r.suffix_at..r.suffix_at + 4].copy_from_slice(name);
        });
    }
    // The log block's zlib stream fails its Adler-32: no reflog reads.
    one(b, "reftable-bad-log-block", &|t| {
        let l = layout(t);
        assert!(l.log_position > 0 && l.log_index == 0, "one log block");
        let n = t.len() - l.footer - 1;
        t[n] ^= 0x01;
    });
    let stack = |b: &mut Builder, name: &str, f: &dyn Fn(&Builder, &str)| {
        variant(b, name, "reftable-stack", CORRUPT_OPTIONS, f);
    };
    // tables.list names a table that is not there.
    stack(b, "reftable-missing-table", &|b, dir| {
        let t = tables(b, &format!("{dir}/.git"));
        fs::remove_file(b.path(&format!("{dir}/.git/reftable/{}", t[t.len() - 3]))).expect("rm");
    });
    // tables.list empty, or gone: an empty stack.
    stack(b, "reftable-empty-list", &|b, dir| {
        fs::write(b.path(&format!("{dir}/.git/reftable/tables.list")), "").expect("write");
    });
    stack(b, "reftable-no-list", &|b, dir| {
        fs::remove_file(b.path(&format!("{dir}/.git/reftable/tables.list"))).expect("rm");
    });
    // A NUL byte ends the list (git's reading stops at it): the newest table is not read.
    stack(b, "reftable-list-nul", &|b, dir| {
        edit(b, &format!("{dir}/.git/reftable/tables.list"), |l| {
            let last = l[..l.len() - 1]
                .iter()
                .rposition(|&c| c == b'\n')
                .expect("lines");
            l[last] = 0;
        });
    });
    // A directory named as a table: git cannot map it, and dies.
    stack(b, "reftable-dir-table", &|b, dir| {
        fs::create_dir(b.path(&format!("{dir}/.git/reftable/dir.ref"))).expect("mkdir");
        edit(b, &format!("{dir}/.git/reftable/tables.list"), |l| {
            l.extend_from_slice(b"dir.ref\n");
        });
    });
    // A SHA-256 table on top of a SHA-1 stack.
    stack(b, "reftable-hash-mismatch", &|b, dir| {
        let t = tables(b, "r/reftable-sha256/.git");
        let name = &t[t.len() - 1];
        fs::copy(
            b.path(&format!("r/reftable-sha256/.git/reftable/{name}")),
            b.path(&format!("{dir}/.git/reftable/x-{name}")),
        )
        .expect("copy");
        edit(b, &format!("{dir}/.git/reftable/tables.list"), |l| {
            l.extend_from_slice(format!("x-{name}\n").as_bytes());
        });
    });
    // A record of an older table of the stack that does not decode: the merged listing stops.
    stack(b, "reftable-stack-bad-record", &|b, dir| {
        let git_dir = format!("{dir}/.git");
        let t = tables(b, &git_dir);
        let found = t.iter().find_map(|name| {
            let rel = format!("{git_dir}/reftable/{name}");
            let bytes = fs::read(b.path(&rel)).expect("table");
            let l = layout(&bytes);
            let r = l.refs.iter().find(|r| r.name == b"refs/tags/v1")?;
            Some((rel, r.at))
        });
        let (rel, at) = found.expect("a table with refs/tags/v1");
        edit(b, &rel, |bytes| bytes[at] = 0x7f);
    });
    // The linked worktree's stack misses a table: seen from the main worktree and from it.
    variant(
        b,
        "reftable-wt-missing-table",
        "reftable-worktree",
        CORRUPT_OPTIONS,
        |b, dir| {
            let wt = format!("{dir}/.git/worktrees/reftable-wt");
            let t = tables(b, &wt);
            fs::remove_file(b.path(&format!("{wt}/reftable/{}", t[1]))).expect("rm");
            b.sh(
                dir,
                "rm -rf ../reftable-wt-broken && cp -a ../reftable-wt ../reftable-wt-broken
                 echo \"gitdir: $PWD/.git/worktrees/reftable-wt\" > ../reftable-wt-broken/.git
                 echo \"$(cd .. && pwd)/reftable-wt-broken/.git\" > .git/worktrees/reftable-wt/gitdir
                 rm -rf .git/worktrees/reftable-wt-detached",
            );
        },
    );
    b.cases(
        "reftable-wt-broken",
        "r/reftable-wt-broken",
        CORRUPT_OPTIONS,
    );
}

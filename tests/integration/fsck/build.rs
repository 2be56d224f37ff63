//! The repositories made with git, deterministically (fixed identities and dates, one pack
//! thread, no expiry), and the option sets `fsck` runs with on each.

use std::fs;
use std::path::{Path, PathBuf};

use super::{Case, Expect, command};

/// Every option set worth comparing on a healthy repository.
pub(crate) const ALL_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("full", &["--full"]),
    ("no-full", &["--no-full"]),
    ("unreachable", &["--unreachable"]),
    ("no-dangling", &["--no-dangling"]),
    ("dangling", &["--no-dangling", "--dangling"]),
    ("root-tags", &["--root", "--tags"]),
    ("connectivity-only", &["--connectivity-only"]),
    ("strict", &["--strict"]),
    ("no-reflogs", &["--no-reflogs"]),
    ("name-objects", &["--name-objects", "--unreachable"]),
    ("cache", &["--cache"]),
    ("heads", &["main", "v1"]),
    ("no-progress", &["--no-progress"]),
];

/// The few that tell storage shapes apart.
pub(crate) const SOME_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("unreachable", &["--unreachable", "--no-reflogs"]),
    ("connectivity-only", &["--connectivity-only"]),
];

/// What corruptions run with.
pub(crate) const CORRUPT_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
];

/// What damaged packs run with: git prints the lines of a pack that does not open from each
/// search for an object that tries it, and each variant searches for other objects.
pub(crate) const PACK_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
    ("no-full", &["--no-full"]),
    ("unreachable", &["--unreachable"]),
    ("no-dangling", &["--no-dangling"]),
    ("name-objects", &["--name-objects"]),
];

/// What missing objects and broken indexes run with.
pub(crate) const MISSING_OPTIONS: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("connectivity-only", &["--connectivity-only"]),
    ("name-objects", &["--name-objects"]),
    ("unreachable", &["--unreachable", "--no-reflogs"]),
    ("root", &["--root", "--no-dangling"]),
    ("cache", &["--cache"]),
    ("heads", &["main"]),
];

/// Builds repositories under a root and collects the cases run on them.
pub(crate) struct Builder {
    pub root: PathBuf,
    cases: Vec<Case>,
}

impl Builder {
    /// A root with `home/.gitconfig` (identities, one pack thread, no expiry or automatic gc).
    pub fn new(root: &Path) -> Builder {
        fs::create_dir_all(root.join("home")).expect("home");
        fs::create_dir_all(root.join("r")).expect("r");
        fs::write(
            root.join("home/.gitconfig"),
            "[user]\n\tname = C O Mitter\n\temail = committer@example.com\n\
             [init]\n\tdefaultBranch = main\n\
             [pack]\n\tthreads = 1\n\
             [gc]\n\tauto = 0\n\tautoDetach = false\n\treflogExpire = never\n\
             \treflogExpireUnreachable = never\n\tpruneExpire = never\n\
             \tworktreePruneExpire = never\n\
             [maintenance]\n\tauto = false\n\
             [advice]\n\tdetachedHead = false\n\
             [uploadpack]\n\tallowFilter = true\n\
             [protocol \"file\"]\n\tallow = always\n",
        )
        .expect("gitconfig");
        Builder {
            root: root.to_path_buf(),
            cases: Vec::new(),
        }
    }

    /// `root/rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Runs `sh -ec script` in `root/dir`; its stdout.
    pub fn sh(&self, dir: &str, script: &str) -> String {
        let out = command(&self.root, "sh")
            .arg("-ec")
            .arg(script)
            .current_dir(self.path(dir))
            .output()
            .expect("sh");
        assert!(
            out.status.success(),
            "in {dir}: {script}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Removes `root/dir/file`.
    pub fn rm(&self, dir: &str, file: &str) {
        fs::remove_file(self.path(dir).join(file))
            .unwrap_or_else(|e| panic!("rm {dir}/{file}: {e}"));
    }

    /// `cp -a root/from root/to`.
    pub fn copy(&self, from: &str, to: &str) {
        self.sh(".", &format!("cp -a '{from}' '{to}'"));
    }

    /// A case named `name`, in `cwd`.
    pub fn case(&mut self, name: &str, cwd: &str, env: &[(&str, &str)], args: &[&str]) {
        assert!(
            !self.cases.iter().any(|c| c.name == name),
            "two cases named {name}"
        );
        self.cases.push(Case {
            name: name.to_string(),
            cwd: cwd.to_string(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            args: args.iter().map(|a| a.to_string()).collect(),
            expect: Expect::Git,
        });
    }

    /// One case per option set, named `name.SET`.
    pub fn cases(&mut self, name: &str, cwd: &str, options: &[(&str, &[&str])]) {
        for (set, args) in options {
            self.case(&format!("{name}.{set}"), cwd, &[], args);
        }
    }

    /// A case git is not run on (see [`Expect::Bounded`]).
    pub fn bounded(&mut self, name: &str, cwd: &str, pack: &str, offsets: Vec<u64>) {
        self.cases.push(Case {
            name: name.to_string(),
            cwd: cwd.to_string(),
            env: Vec::new(),
            args: Vec::new(),
            expect: Expect::Bounded {
                pack: pack.to_string(),
                offsets,
            },
        });
    }

    pub fn into_cases(self) -> Vec<Case> {
        self.cases
    }
}

/// The history every SHA-1 variant starts from: root, branch, merge, rename, annotated tags (of
/// a commit, a tree, a blob, a tag), a lightweight tag, binary and large blobs (one above
/// `core.bigFileThreshold`), `.gitattributes`, a gitlink with `.gitmodules`, and one file
/// edited sixty times (for delta chains).
const HISTORY: &str = r#"
git init -q -b main .
git config core.bigFileThreshold 64k
echo one > a
mkdir -p d/e
echo two > d/e/b
printf 'bin\000\001\002\377\376data\n' > blob.bin
seq 1 20000 > large.txt
printf '*.bin binary\n*.txt text eol=lf\n' > .gitattributes
seq 1 300 > chain.txt
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
git mv a renamed
git commit -q -m rename
git tag -a -m annotated v1
git tag -a -m 'a tree' vtree 'HEAD^{tree}'
git tag -a -m 'a blob' vblob HEAD:renamed
git tag -a -m nested vnested v1
git tag light HEAD~1
git update-index --add --cacheinfo "160000,$(git rev-parse HEAD~1),sub"
printf '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n' > .gitmodules
git add .gitmodules
git commit -q -m submodule
i=0
while [ $i -lt 60 ]; do
  i=$((i+1))
  echo "edit $i" >> chain.txt
  sed -i "$((i*3))s/\$/ changed $i/" chain.txt
  git commit -q -am "edit $i"
done
"#;

/// Two more commits on `main`.
const MORE: &str = r#"
echo later >> renamed
git commit -q -am later
echo latest > new
git add new
git commit -q -m latest
"#;

/// The repositories and their cases. Each is `r/NAME`; the loose one (`r/base`) is copied
/// before anything changes it.
pub(crate) fn repositories(b: &mut Builder) {
    fs::create_dir_all(b.path("r/base")).expect("mkdir");
    b.sh("r/base", HISTORY);
    let variants: &[(&str, &str)] = &[
        ("gc", "git gc -q"),
        ("ofs", "git repack -adf -q --depth=50 --window=50"),
        (
            "ref",
            "git -c repack.useDeltaBaseOffset=false repack -adf -q --depth=50 --window=50",
        ),
        ("idx1", "git -c pack.indexVersion=1 repack -adf -q"),
        (
            "packs",
            &format!(
                "git repack -adq\n{MORE}\ngit repack -dq\necho loose > l\ngit add l\ngit commit -q -m loose"
            ),
        ),
        ("bitmap", "git repack -adbq"),
        ("cgraph", "git commit-graph write --reachable"),
        (
            "cgraph-split",
            &format!(
                "git commit-graph write --reachable --split\n{MORE}\ngit commit-graph write --reachable --split=no-merge"
            ),
        ),
        ("packed-refs", "git pack-refs --all"),
        ("detached", "git checkout -q --detach HEAD~2"),
        (
            "no-refs",
            "git for-each-ref --format='%(refname)' | while read r; do git update-ref -d \"$r\"; done",
        ),
        (
            "dangling",
            "git checkout -q -b gone\necho g > g\ngit add g\ngit commit -q -m gone\n\
             git checkout -q main\ngit branch -q -D gone\n\
             echo lonely | git hash-object -w --stdin >/dev/null\n\
             git tag -a -m t tmp\ngit tag -d tmp >/dev/null\n\
             git rm -q --cached renamed\necho staged > staged\ngit add staged",
        ),
        (
            "worktree",
            "git worktree add -q ../worktree-linked -b wtb\n\
             (cd ../worktree-linked && echo w > w && git add w && git commit -q -m wt && echo idx > i && git add i)\n\
             git worktree add -q --detach ../worktree-detached HEAD~3",
        ),
    ];
    for (name, script) in variants {
        let dir = format!("r/{name}");
        b.copy("r/base", &dir);
        b.sh(&dir, script);
    }
    // midx and midx-bitmap from several packs.
    for (name, script) in [
        ("midx", "git multi-pack-index write"),
        ("midx-bitmap", "git multi-pack-index write --bitmap"),
    ] {
        let dir = format!("r/{name}");
        b.copy("r/packs", &dir);
        b.sh(&dir, script);
    }
    b.sh(
        "r",
        "git clone -q -s base alternates
         (cd alternates && echo alt > alt && git add alt && git commit -q -m alt)
         git clone -q --depth 1 \"file://$PWD/base\" shallow
         git clone -q --filter=blob:none \"file://$PWD/base\" partial
         git clone -q --filter=tree:0 \"file://$PWD/base\" partial-tree0
         git clone -q --filter=blob:limit=1k \"file://$PWD/base\" partial-limit
         git clone -q --filter=blob:none \"file://$PWD/base\" partial-mixed
         (cd partial-mixed && echo local > local && git add local && git commit -q -m local &&
          git repack -q -d && echo loose > loose && git add loose && git commit -q -m loose)
         git clone -q --filter=blob:none \"file://$PWD/base\" partial-gone-remote
         git -C partial-gone-remote remote set-url origin \"file://$PWD/no-such-remote\"
         git clone -q --bare base bare.git
         mkdir unborn && (cd unborn && git init -q)
         mkdir sha256 && cd sha256 && git init -q --object-format=sha256
         echo one > a && mkdir d && echo two > d/b && seq 1 500 > c
         git add -A && git commit -q -m root
         echo more >> a && sed -i 's/^7/seven/' c && git commit -q -am second
         git tag -a -m t v1 && git tag -a -m tree vtree 'HEAD^{tree}'
         git checkout -q -b gone && echo g > g && git add g && git commit -q -m gone
         git checkout -q main && git branch -q -D gone
         cd .. && cp -a sha256 sha256-gc && cd sha256-gc && git gc -q",
    );

    // A fork network's store (scripts/make-network-store.sh): the packs of four repositories that
    // share most objects, hard-linked, and the loose and unreachable objects of one of them, each
    // repository's refs under refs/network/NAME/.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/make-network-store.sh");
    b.sh(
        "r",
        &format!(
            "'{}' network.git gc=gc ofs=ofs packs=packs dangling=dangling 2>/dev/null",
            script.display()
        ),
    );

    for name in ["base", "gc"] {
        b.cases(name, &format!("r/{name}"), ALL_OPTIONS);
    }
    for name in [
        "ofs",
        "ref",
        "idx1",
        "packs",
        "bitmap",
        "cgraph",
        "cgraph-split",
        "packed-refs",
        "detached",
        "no-refs",
        "midx",
        "midx-bitmap",
        "alternates",
        "shallow",
        "partial",
        "partial-tree0",
        "partial-limit",
        "partial-mixed",
        "partial-gone-remote",
        "unborn",
        "sha256",
        "sha256-gc",
    ] {
        b.cases(name, &format!("r/{name}"), SOME_OPTIONS);
    }
    b.cases("dangling", "r/dangling", ALL_OPTIONS);
    b.cases("worktree", "r/worktree", SOME_OPTIONS);
    b.cases("worktree-linked", "r/worktree-linked", SOME_OPTIONS);
    b.cases(
        "worktree-detached",
        "r/worktree-detached",
        &SOME_OPTIONS[..1],
    );
    b.cases("bare", "r/bare.git", SOME_OPTIONS);
    b.cases("network", "r/network.git", SOME_OPTIONS);
    b.cases("subdir", "r/base/d/e", SOME_OPTIONS);
    b.case(
        "git-dir.default",
        ".",
        &[("GIT_DIR", "$ROOT/r/gc/.git")],
        &[],
    );
    b.case(
        "git-dir.unreachable",
        ".",
        &[("GIT_DIR", "$ROOT/r/dangling/.git")],
        &["--unreachable"],
    );
    b.case(
        "bare-git-dir.default",
        ".",
        &[("GIT_DIR", "$ROOT/r/bare.git")],
        &[],
    );
    b.case("no-repository", ".", &[], &[]);
    b.case("heads.tree-tag", "r/base", &[], &["vtree", "vblob"]);
    b.case("heads.bad-name", "r/base", &[], &["no-such-ref"]);
    b.case("heads.id", "r/base", &[], &["HEAD~2"]);
    // Heads that reach few of a pack's trees (blob counts made again from the reached ones),
    // most of them, or none: blobs shared by reached and unreached trees stay reachable.
    b.case("heads.gc-old", "r/gc", &[], &["--unreachable", "HEAD~40"]);
    b.case("heads.gc-recent", "r/gc", &[], &["--unreachable", "HEAD~5"]);
    b.case(
        "heads.gc-none",
        "r/gc",
        &[],
        &["--unreachable", "no-such-ref"],
    );
}

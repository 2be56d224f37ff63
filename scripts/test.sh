#!/usr/bin/env bash
# flagsplit's test command, in three tiers:
#
#   scripts/test.sh          what CI runs (.ci/run): formatting, clippy for the no-default, default and
#                            all-features sets, the whole workspace's test suites with the default
#                            features and with every feature, git's recorded hash-object verdicts, the
#                            real-build matrix (link dependencies with both linkers, build errors,
#                            exact rebuilds), the documented configuration commands, `cargo package`,
#                            flagsplit-config's public API and its Rust 1.63 build, the example
#                            libraries and application (examples/), flagsplit-config's guide copied
#                            verbatim (scripts/guide-case.sh) and the lines its zstd library writes to
#                            adopt it (scripts/adoption-lines.sh), the graph-wide settings on a workspace
#                            of three libraries (scripts/graph-case.sh) and `cargo flagsplit`'s
#                            reports and policies, and the build records executables carry
#                            (scripts/cargo-flagsplit-case.sh, scripts/auditable-case.sh: beside
#                            cargo-auditable's), book/src/packaging.md's recipes, the book (mdBook, its
#                            links, screenshots in Chromium) and the README's length, the
#                            Debian, RPM and Arch packages of the openssl choice, reproducible builds
#                            of the default features, and the README's quick start on a fresh clone.
#   scripts/test.sh --all    all of that, and what changes only with the build script, Cargo.toml, the
#                            facility table or packaging/: the whole workspace's tests with no TLS
#                            and with OpenSSL TLS alone, the packages of the rustls choice and the
#                            dependency table, static and vendored OpenSSL, and reproducible builds of
#                            every OpenSSL provider and in one directory without flags.
#   scripts/test.sh --quick  the edit-test loop (below).
#
# It installs what the tests need when run as root (Debian/Ubuntu, apt-get): pkg-config,
# libssl-dev, zlib1g-dev (the system zlib provider, examples/inflate), libzstd-dev and zstd
# (examples/zstd), liblzma-dev (tests/graph-workspace's xz-d), rustc and cargo (Debian's 1.63, for scripts/msrv.sh), cmake (zlib-ng's build), dovecot-imapd, git, binutils, valgrind, and
# groff/man-db/zsh/fish for checking the generated man pages and completions, chromium (with
# fonts-dejavu-core) for rendering `flagsplit report`'s page, and dpkg-dev/debhelper/lintian/rpm/
# makepkg/pacman-package-manager/libarchive-tools/bash-completion for scripts/packages.sh.
# FLAGSPLIT_TEST_NO_INSTALL=1 installs nothing (offline or packaging builds). With CI=true anything
# missing is a failure, never a skip.
#
# `scripts/test.sh --quick` is the tier for the edit-test loop: fmt, clippy on the default features,
# and the default build's unit, integration and doc tests, with the fsck corpus on all cores only
# (not also with --threads 1 and --low-memory); it installs nothing and builds no release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
all=false
case "${1:-}" in
--quick) quick=true ;;
--all) all=true ;;
"") ;;
*) echo "usage: scripts/test.sh [--all | --quick]" >&2; exit 2 ;;
esac
# The --all tier's checks that this run leaves out, for the last line.
left_out=()
ci=${CI:-false}
started=$(date +%s)
# --all-features includes openssl-vendored (OpenSSL compiled from source, minutes on 2 cores): the
# suites, clippy and the build matrix use the system OpenSSL; scripts/openssl-matrix.sh builds the
# vendored one (it unsets this itself).
export OPENSSL_NO_VENDOR=1

step() { printf '\n\033[1m== %s (%ss)\033[0m\n' "$*" "$(($(date +%s) - started))"; }
die() { echo "scripts/test.sh: $*" >&2; exit 1; }

if [ "$quick" = true ]; then
	step "quick tier: cargo fmt --check"
	cargo fmt --all -- --check
	step "quick tier: cargo clippy --workspace --all-targets (default features)"
	cargo clippy --locked --workspace --all-targets -- -D warnings
	step "quick tier: cargo test --workspace (default features; fsck corpus on all cores only)"
	FLAGSPLIT_FSCK_ALL_CORES_ONLY=1 cargo test --locked --workspace
	step "quick tier passed (the full run: scripts/test.sh)"
	exit 0
fi

# --- 1. what the tests need -------------------------------------------------------------------
packages=(pkg-config libssl-dev zlib1g-dev libzstd-dev liblzma-dev zstd rustc cargo openssl perl make cmake dovecot-imapd socat git binutils gcc coreutils valgrind groff-base man-db zsh fish python3 chromium fonts-dejavu-core dpkg-dev debhelper lintian rpm makepkg pacman-package-manager libarchive-tools bash-completion)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "${FLAGSPLIT_TEST_NO_INSTALL:-0}" = 1 ]; then
		echo "FLAGSPLIT_TEST_NO_INSTALL=1: not installing ${missing[*]}"
	elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		step "installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		# Debian's dovecot-core starts a system Dovecot on 143/993 where systemd runs; the tests use
		# their own instances on other ports and do not need it.
	else
		echo "not root (or no apt-get): cannot install ${missing[*]}"
	fi
fi
absent=()
for tool in cargo rustfmt cargo-clippy cc cmake pkg-config readelf git sha1sum md5sum openssl python3 /usr/sbin/dovecot groff chromium zstd /usr/bin/rustc /usr/bin/cargo; do
	command -v "$tool" >/dev/null || absent+=("$tool")
done
pkg-config --exists openssl 2>/dev/null || absent+=("openssl.pc (libssl-dev)")
pkg-config --exists zlib 2>/dev/null || absent+=("zlib.pc (zlib1g-dev)")
pkg-config --exists libzstd 2>/dev/null || absent+=("libzstd.pc (libzstd-dev)")
pkg-config --exists liblzma 2>/dev/null || absent+=("liblzma.pc (liblzma-dev)")
if [ ${#absent[@]} -gt 0 ]; then
	if [ "$ci" = true ]; then
		die "CI=true and these are missing: ${absent[*]}"
	fi
	echo "WARNING: missing ${absent[*]}: the tests that need them will be SKIPPED (with CI=true they fail)"
fi
[ -d ../shared/data/collisions ] || {
	[ "$ci" = true ] && die "CI=true and ../shared/data/collisions is missing"
	echo "WARNING: ../shared/data/collisions is missing: the collision tests will be SKIPPED"
}

# --- 2. style and lints -----------------------------------------------------------------------
step "cargo fmt --check"
cargo fmt --all -- --check

for set in "--no-default-features" "" "--all-features"; do
	step "cargo clippy --workspace --all-targets ${set:-(default features)}"
	# shellcheck disable=SC2086
	cargo clippy --locked --workspace --all-targets $set -- -D warnings
done

# The fuzz targets (fuzz/, a workspace of its own) compile against today's code: cargo-fuzz builds
# them with `--cfg fuzzing`; a check is enough to keep them from rotting between fuzzing runs.
step "the fuzz targets compile (cargo check --cfg fuzzing, fuzz/)"
(cd fuzz && RUSTFLAGS="--cfg fuzzing" cargo check --locked --bins --target-dir ../target/fuzz-check)

# --- 3. test suites ---------------------------------------------------------------------------
# The whole workspace's suites with the default features (rustls, the built-in hashes, zlib-rs),
# where the fsck corpus runs each case three times (all cores, --threads 1, --low-memory), and with
# every feature (every provider compiled: OpenSSL hashing and TLS against a real Dovecot, zlib-ng,
# the system zlib, miniz), the corpus on all cores only (the three runs differ in how fsck schedules
# its work, not in the providers). --all adds the sets with no TLS and with OpenSSL TLS alone.
step "cargo test --workspace (default features)"
cargo test --locked --workspace
step "cargo test --workspace --all-features"
FLAGSPLIT_FSCK_ALL_CORES_ONLY=1 cargo test --locked --workspace --all-features
if [ "$all" = true ]; then
	for set in "--no-default-features" "--no-default-features --features openssl-tls"; do
		step "cargo test --workspace $set"
		# shellcheck disable=SC2086
		FLAGSPLIT_FSCK_ALL_CORES_ONLY=1 cargo test --locked --workspace $set
	done
else
	left_out+=("the whole workspace's tests with --no-default-features and with --features openssl-tls alone")
fi

step "hash-object: git's recorded verdicts regenerate unchanged"
# README's command, with the installed git as the oracle (it needs git 2.47 or later, whose
# hash-object runs the fsck checks); the corpus must come out byte for byte as committed.
if scripts/hash-object-corpus.sh; then
	git diff --exit-code --stat -- tests/hash-object-corpus ||
		die "tests/hash-object-corpus differs from what $(git --version) says now"
	[ -z "$(git status --porcelain -- tests/hash-object-corpus)" ] ||
		die "tests/hash-object-corpus gained files: $(git status --porcelain -- tests/hash-object-corpus)"
elif [ "$ci" = true ]; then
	die "CI=true and scripts/hash-object-corpus.sh could not run (git 2.47 or later needed)"
else
	echo "SKIPPED: scripts/hash-object-corpus.sh (git 2.47 or later needed)"
fi

# --- 4. real builds ---------------------------------------------------------------------------
step "build matrix"
scripts/build-matrix.sh

step "the documented configuration commands (config.toml, FLAGSPLIT_CONFIG, [env])"
scripts/config-commands.sh

step "every publishable crate packages; one getrandom"
# `cargo package --workspace` packages `publish = false` members too: exclude them by name.
mapfile -t unpublished < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        print(p["name"])')
excludes=()
for p in "${unpublished[@]}"; do excludes+=(--exclude "$p"); done
# Cargo verifies each package against the ones packaged before it through a temporary local
# registry: it unpacks them under CARGO_HOME, in a directory named after the registry's path, and
# compiles them into the target directory. Both are keyed by name, version and source only (a
# registry's contents never change), so what an earlier run of the same version left would be
# reused, stale: remove our crates from both (third-party ones stay compiled).
pkg_target=target/package-check
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/flagsplit-* "$pkg_target/package"
[ -d "$pkg_target" ] && find "$pkg_target" -name '*flagsplit*' -prune -exec rm -rf {} +
CARGO_TARGET_DIR=$pkg_target cargo package --workspace "${excludes[@]}" --locked
# flagsplit-config is offered to other crates: its package holds none of flagsplit's own table (which
# lives in crates/spec), and its documentation builds without a warning with and without the
# build-script half.
listed=$(cargo package -p flagsplit-config --list --locked --allow-dirty)
if grep -qE '(^|/)(flagsplit|spec)\.rs$' <<<"$listed"; then
	die "flagsplit-config's package lists a table of flagsplit's:"$'\n'"$listed"
fi
for f in $listed; do
	case $f in Cargo.toml.orig | .cargo_vcs_info.json | Cargo.lock) continue ;; esac
	if grep -q 'FLAGSPLIT_SHA1_UNSAFE_PROVIDER' "crates/config/$f" 2>/dev/null; then
		die "crates/config/$f names a variable of flagsplit's table"
	fi
done
# Every feature set a dependent may ask for: a link to an item another feature compiles would be
# broken in the others.
for set in "" "--all-features" "--no-default-features" "--no-default-features --features resolve" "--no-default-features --features build-script"; do
	# shellcheck disable=SC2086
	RUSTDOCFLAGS="-D warnings" cargo doc --locked -p flagsplit-config --no-deps $set ||
		die "cargo doc -p flagsplit-config ${set} warns"
done
# Every publishable crate's documentation, warnings denied, with its default features and as
# docs.rs builds it (its [package.metadata.docs.rs]; DOCS_RS set; --cfg docsrs).
scripts/crate-docs.sh
# flagsplit-config's public API against its committed listing (about 10 s), and its oldest Rust: Debian's rustc 1.63 and cargo, offline from a vendored directory (about 40 s on 2 cores).
scripts/public-api.sh
scripts/msrv.sh
# flagsplit-config's layers (lib.rs says which module is in which): no module names one of a
# higher layer, and no two modules name each other, even through others.
config_layers="clib graph model cfgexpr knobs error guide toml | resolve file | env directive probe remap manifest | script codegen"
python3 scripts/module-graph-test.py || die "scripts/module-graph.py fails its own tests"
python3 scripts/module-graph.py crates/config/src --layers "$config_layers" >target/config-module-graph.txt ||
	die "flagsplit-config's module graph has a circle or an upward edge:"$'\n'"$(grep -E '^(circle|upward|not in)' target/config-module-graph.txt)"
tail -1 target/config-module-graph.txt
dups=$(cargo tree -d -e normal --all-features --locked)
if grep -q '^getrandom' <<<"$dups"; then
	die "more than one getrandom in the normal dependency graph:"$'\n'"$dups"
fi

step "examples/inflate-app: the example libraries through an application, with each provider"
scripts/example-crate.sh

step "the library case: a library's features, the application's [env], rebuilds, a directory source"
scripts/library-case.sh

step "flagsplit-config's guide, copied verbatim: two libraries and an application, each provider, each common mistake"
scripts/guide-case.sh
scripts/adoption-lines.sh

step "one choice for a whole graph: three libraries and an application, graph-wide settings, targets, link policy (tests/graph-workspace)"
scripts/graph-case.sh

step "cargo flagsplit: the backends of a whole graph reported and checked against a policy (crates/cargo-flagsplit)"
scripts/cargo-flagsplit-case.sh

step "cargo flagsplit each: every provider of a graph tested, each run proven (tests/graph-workspace, flagsplit's plans)"
scripts/each-case.sh

step "the build record beside cargo-auditable's: cargo auditable build of flagsplit, both read back"
scripts/auditable-case.sh

step "book/src/packaging.md recipes and cargo install"
scripts/packaging-recipes.sh

step "the book: built by mdBook without a warning, its links, charts and manual pages, the README's limits; screenshots in Chromium"
scripts/book.sh
scripts/book-shots.sh

# One release build per provider choice, shared by the three tools, and lintian: about 3 minutes a
# choice on 2 cores. This run builds the openssl choice (libssl on the sender's package only, the
# system libz); --all both choices, and compares the dependency table with book/src/packaging.md's.
if [ "$all" = true ]; then
	step "Debian, RPM and Arch packages, both provider choices, installed and removed (scripts/packages.sh)"
	scripts/packages.sh

	step "OpenSSL: static, vendored, supported range"
	scripts/openssl-matrix.sh
else
	step "Debian, RPM and Arch packages of the openssl choice, installed and removed (scripts/packages.sh --providers openssl)"
	scripts/packages.sh --providers openssl
	left_out+=("scripts/packages.sh's rustls choice and its dependency table" "scripts/openssl-matrix.sh")
fi

# The cross-directory pair with book/src/packaging.md's recipe flags, default features (two clean release
# builds); --all adds the pair with every OpenSSL provider and the same-directory pair without flags.
if [ "$all" = true ]; then
	step "reproducible builds (default and openssl sets, and the same-directory pair)"
	scripts/reproducible.sh --same-directory
else
	step "reproducible builds (default features)"
	scripts/reproducible.sh --sets default
	left_out+=("scripts/reproducible.sh's openssl set and same-directory pair")
fi

step "the README's quick start on a fresh clone (fsck against git fsck, bench's fsck row)"
scripts/quick-start.sh

if [ ${#left_out[@]} -gt 0 ]; then
	step "all tests passed; not run in this tier (scripts/test.sh --all runs them): $(printf '%s; ' "${left_out[@]}" | sed 's/; $//')"
else
	step "all tests passed"
fi

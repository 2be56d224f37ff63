#!/usr/bin/env bash
# Runs the `fsck` command README.md's quick start shows, verbatim, on this checkout, and compares
# it with `git fsck` on the same repository: the same exit status and the same sets of lines on
# standard output and standard error (flagsplit's `notice: not checked:` lines aside).
#
# Usage: scripts/fsck-checkout.sh     (run by scripts/test.sh; needs a git checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh
cmd='cargo run --release -- fsck'
grep -qF -- "$cmd" README.md || { fail "README.md no longer shows: $cmd"; finish "fsck on the checkout"; }
git rev-parse --git-dir >/dev/null 2>&1 || { fail "not a git checkout: cannot run '$cmd'"; finish "fsck on the checkout"; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
set +e
cargo build --release --quiet
bash -c "$cmd" >"$out/fs.out" 2>"$out/fs.err"
fs=$?
git fsck >"$out/git.out" 2>"$out/git.err"
gs=$?
set -e
grep -v -e '^notice: not checked: ' -e '^ *Finished \|^ *Running \|^ *Compiling ' "$out/fs.err" >"$out/fs.err2" || true
if [ "$fs" = "$gs" ] &&
	diff <(sort -u "$out/git.out") <(sort -u "$out/fs.out") &&
	diff <(sort -u "$out/git.err") <(sort -u "$out/fs.err2"); then
	pass "$cmd: exit $fs and the same lines as git fsck ($(git --version)) on this checkout ($(git count-objects -v | awk '/^count|^in-pack/ {s += $2} END {print s}') objects)"
else
	fail "$cmd: exit $fs, git fsck exit $gs (lines above)"
fi
finish "fsck on the checkout"

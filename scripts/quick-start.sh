#!/usr/bin/env bash
# The README's quick start as a newcomer meets it: a fresh `git clone` of this checkout into a
# temporary directory, a target directory nothing has built into, and the quick start's two cargo
# lines typed verbatim there (`cargo run` builds only the binary it runs, so nothing is built first):
#
# - `cargo run --release -- fsck` gives `git fsck`'s exit status and the same sets of lines on
#   standard output and standard error, on the clone (flagsplit's `notice: not checked:` lines and
#   Cargo's own status lines aside);
# - `cargo run --release -- bench` prints a measured fsck row, not "fsck: not measured";
# - the README's user example (the block after `<!-- user commands -->`), with the executables
#   those two lines built first in PATH: its SHA1SUMS is coreutils' `sha1sum` of the same files,
#   `-c` accepts it, and its `fsck` gives `git fsck`'s exit status.
#
# Usage: scripts/quick-start.sh     (run by scripts/test.sh; needs a git checkout; commits only:
#                                    the clone has what HEAD has)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh
what="the README's quick start on a fresh clone"
fsck_cmd='cargo run --release -- fsck'
bench_cmd='cargo run --release -- bench'
for cmd in "$fsck_cmd" "$bench_cmd"; do
	grep -qF -- "$cmd" README.md || fail "README.md no longer shows: $cmd"
done
user_block=$(awk '$0 == "<!-- user commands -->" { f = 1; next } f && /^```/ { if (i) exit; i = 1; next } f && i { print }' README.md)
[ -n "$user_block" ] || fail "README.md has no block after <!-- user commands -->"
[ "$failures" = 0 ] || finish "$what"
git rev-parse --git-dir >/dev/null 2>&1 || { fail "not a git checkout: cannot clone it"; finish "$what"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$PWD" "$work/flagsplit"
cd "$work/flagsplit"
# A newcomer's environment: no target directory chosen, no provider selected.
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
while IFS= read -r var; do unset "$var"; done < <(env | sed -n 's/^\(FLAGSPLIT_[A-Z0-9_]*\)=.*/\1/p')
[ ! -e target ] || { fail "the fresh clone already has a target directory"; finish "$what"; }

# Cargo's own status lines on standard error (its progress bar is off: stderr is not a terminal).
cargo_lines='^ *(Compiling|Finished|Running|Blocking|Downloading|Downloaded|Updating|Locking|Adding) '

note "$fsck_cmd (in $PWD, nothing built)"
started=$(date +%s)
set +e
bash -c "$fsck_cmd" >"$work/fs.out" 2>"$work/fs.err"
fs=$?
git fsck >"$work/git.out" 2>"$work/git.err"
gs=$?
set -e
echo "took $(($(date +%s) - started)) s (two release builds: flagsplit, then flagsplit-fsck)"
grep -q '^ *Compiling flagsplit ' "$work/fs.err" || fail "$fsck_cmd compiled nothing: was something built first?"
grep -vE -e '^notice: not checked: ' -e "$cargo_lines" "$work/fs.err" >"$work/fs.err2" || true
if [ "$fs" = "$gs" ] &&
	diff <(sort -u "$work/git.out") <(sort -u "$work/fs.out") &&
	diff <(sort -u "$work/git.err") <(sort -u "$work/fs.err2"); then
	pass "$fsck_cmd: exit $fs and the same lines as git fsck ($(git --version)) on the clone ($(git count-objects -v | awk '/^count|^in-pack/ {s += $2} END {print s}') objects)"
else
	fail "$fsck_cmd: exit $fs, git fsck exit $gs (differences above)"
	sed 's/^/    stderr: /' "$work/fs.err"
fi

note "$bench_cmd"
set +e
bash -c "$bench_cmd" >"$work/bench.out" 2>"$work/bench.err"
bs=$?
set -e
# Everything it runs was built by the fsck line: the sibling build must not have changed what
# the first build made (it runs in the environment the first one saw).
if grep -qE '^ *Compiling ' "$work/bench.err"; then
	fail "$bench_cmd compiled again after $fsck_cmd: $(grep -E '^ *Compiling ' "$work/bench.err" | tr -s ' ' | tr '\n' ';')"
else
	pass "$bench_cmd built nothing: $fsck_cmd had built flagsplit and flagsplit-fsck as they are"
fi
if [ "$bs" = 0 ] && grep -qE '^fsck of .*: [0-9.]+ s wall, [0-9.]+ s CPU, [0-9]+ MB peak RSS, exit [0-9]+' "$work/bench.out"; then
	pass "$bench_cmd: $(grep -E '^fsck of ' "$work/bench.out")"
else
	fail "$bench_cmd: exit $bs, no measured fsck row"
	cat "$work/bench.out"
	sed 's/^/    stderr: /' "$work/bench.err"
fi
note "the README's user example (target/release first in PATH)"
set +e
(PATH=$PWD/target/release:$PATH && bash -x -c "$user_block") >"$work/user.out" 2>"$work/user.err"
us=$?
set -e
git status --porcelain --untracked-files=all | grep -qvx '?? SHA1SUMS' && fail "the user example wrote more than SHA1SUMS: $(git status --porcelain)"
files=$(sed -n 's/^flagsplit sha1sum \([^>]*\) > SHA1SUMS$/\1/p' <<<"$user_block")
if [ -n "$files" ] && [ -s SHA1SUMS ] && diff <(sha1sum $files) SHA1SUMS; then
	pass "README: SHA1SUMS is coreutils' sha1sum of $files"
else
	fail "README: SHA1SUMS differs from coreutils' sha1sum of '$files'"
fi
git fsck >/dev/null 2>&1 && gs=0 || gs=$?
if [ "$us" = "$gs" ] && grep -q ': OK$' "$work/user.out"; then
	pass "README: the user example exits $us, as git fsck does, and sha1sum -c said OK"
else
	fail "README: the user example exits $us (git fsck: $gs)"
	sed 's/^/    /' "$work/user.err"
fi
rm -f SHA1SUMS
finish "$what"

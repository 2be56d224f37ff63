#!/usr/bin/env bash
# Runs the recipes book/src/packaging.md marks "run here" exactly as written there, and compares each binary's
# NEEDED entries (readelf -d) with the lines book/src/packaging.md gives for it (as sets). Then checks that
# `cargo install --path . --locked` installs both binaries and that `flagsplit imap-send` finds its
# partner there.
#
# book/src/packaging.md format: `<!-- recipe NAME -->` followed by a ```sh block (its lines are run; lines
# starting with apt-get are skipped: scripts/test.sh installs packages), and
# `<!-- needed NAME BINARY -->` followed by a ``` block with the sonames.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
doc=book/src/packaging.md
. scripts/lib/checks.sh

# block_after MARKER — the contents of the first fenced block after the line MARKER
block_after() {
	awk -v marker="$1" '
		$0 == marker { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		found && inside { print }
	' "$doc"
}

recipes=$(sed -n 's/^<!-- recipe \([a-z0-9-]*\) -->$/\1/p' "$doc")
[ -n "$recipes" ] || { echo "no recipes found in $doc" >&2; exit 1; }
for name in $recipes; do
	printf '\n== recipe %s\n' "$name"
	script=$(block_after "<!-- recipe $name -->" | grep -v '^apt-get ')
	export CARGO_TARGET_DIR=$root/target/recipe-$name
	if ! (set -e; eval "$script") >"$CARGO_TARGET_DIR.log" 2>&1; then
		cat "$CARGO_TARGET_DIR.log"
		fail "$name: the recipe failed"
		continue
	fi
	pass "$name: built as written"
	for bin in $(sed -n "s/^<!-- needed $name \\([a-z-]*\\) -->\$/\\1/p" "$doc"); do
		path=$(find "$CARGO_TARGET_DIR" -path "*/release/$bin" -type f -perm -u+x | head -1)
		if [ -z "$path" ]; then
			fail "$name: no $bin was built"
			continue
		fi
		want=$(block_after "<!-- needed $name $bin -->" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
		got=$(needed "$path" | sort | tr '\n' ' ')
		if [ "$want" = "$got" ]; then
			pass "$name: $bin NEEDED matches book/src/packaging.md: ${got:-(none)}"
		else
			fail "$name: $bin NEEDED is '${got:-(none)}', book/src/packaging.md says '${want:-(none)}'"
		fi
		"$path" version >/dev/null 2>&1 || [ "$bin" != flagsplit ] || fail "$name: $bin does not run"
	done
done
unset CARGO_TARGET_DIR

printf '\n== cargo install --path . --locked\n'
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
# The matrix's target directory holds a default release build already: reuse it.
if cargo install --quiet --path . --locked --root "$dest" --target-dir "$root/target/matrix" >"$dest.log" 2>&1; then
	for bin in flagsplit flagsplit-fsck flagsplit-report flagsplit-imap-send; do
		[ -x "$dest/bin/$bin" ] && pass "installed $bin" || fail "cargo install did not install $bin"
	done
	if out=$(env -u FLAGSPLIT_EXEC_PATH PATH=/usr/bin:/bin "$dest/bin/flagsplit" fsck --bogus 2>&1); [ $? = 129 ] &&
		grep -q "unknown option .bogus'" <<<"$out"; then
		pass "the installed flagsplit fsck runs its installed partner"
	else
		fail "installed flagsplit fsck: $out"
	fi
	if out=$(env -u FLAGSPLIT_EXEC_PATH PATH=/usr/bin:/bin "$dest/bin/flagsplit" imap-send --build-options 2>&1) &&
		grep -q '^flagsplit-imap-send version ' <<<"$out"; then
		pass "the installed flagsplit imap-send runs its installed partner"
	else
		fail "installed flagsplit imap-send: $out"
	fi
else
	cat "$dest.log"
	fail "cargo install --path . --locked failed"
fi
rm -f "$dest.log"

finish "packaging recipes"

#!/usr/bin/env bash
# Runs the build-configuration commands that book/src/configuring.md and config.example.toml show, verbatim, the
# way a newcomer types them at the repository root: each command below must appear character for
# character in the file it is quoted from (else the check fails: the docs changed without this
# script), and is then run in a scratch copy of the working tree.
#
# What it checks, with real release builds:
# - `cp config.example.toml config.toml`, edited, is applied (origin `config.toml:LINE:COL`) — also
#   when config.toml is created after a build without one; editing it rebuilds, deleting it rebuilds
#   back to the defaults, and an unchanged tree is Fresh in every state;
# - `FLAGSPLIT_CONFIG=<relative path> cargo build --release` reads the file beside Cargo.toml, and
#   config.toml is then not read (`--build-options` says so);
# - the `.cargo/config.toml` `[env]` form (a variable and a `relative = true` path).
#
# Usage: scripts/config-commands.sh     (run by scripts/test.sh)
# Target directory: target/matrix, shared with scripts/build-matrix.sh (its dependencies are compiled
# once: only flagsplit itself rebuilds here).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh
export CARGO_TARGET_DIR=$root/target/matrix
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT

# The working tree as git sees it (tracked and untracked, not ignored), symlinks kept as symlinks.
git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
cd "$copy"
rm -f config.toml

# doc FILE COMMAND — COMMAND must be written in FILE exactly like this; then it runs here.
doc() {
	local file=$1 cmd=$2
	if ! grep -qF -- "$cmd" "$root/$file"; then
		fail "$file no longer shows: $cmd"
		return 1
	fi
	printf '$ %s\n' "$cmd"
	if ! bash -c "$cmd" >"$copy/.last-build" 2>&1; then
		cat "$copy/.last-build"
		fail "$file: '$cmd' failed"
		return 1
	fi
}

bin=$CARGO_TARGET_DIR/release/flagsplit
# expect WHAT LINE... — each LINE is a line of `flagsplit version --build-options`.
expect() {
	local what=$1 out line
	shift
	out=$("$bin" version --build-options)
	for line in "$@"; do
		if grep -qxF -- "$line" <<<"$out"; then
			pass "$what: $line"
		else
			fail "$what: no line '$line' in:"$'\n'"$out"
		fi
	done
}

# fresh WHAT — a second build does nothing: no unit is Dirty or Compiling.
fresh() {
	local out
	out=$(cargo build --release -v 2>&1 | grep -E '^ *(Dirty|Compiling)' || true)
	if [ -z "$out" ]; then
		pass "$1: an unchanged tree is Fresh"
	else
		fail "$1: rebuilt with nothing changed:"$'\n'"$out"
	fi
}

# The line and column of the provider value of table [TABLE] in FILE.
position() {
	awk -v t="[$2]" '$0 == t { inside = 1; next } /^\[/ { inside = 0 }
		inside && /^provider = / { print NR ":" index($0, "\"") ; exit }' "$1"
}

note "no config.toml: the defaults"
doc book/src/configuring.md "cargo build --release"
expect "no config.toml" "config-file: (none)" "sha1-provider: dc (from default)"
fresh "no config.toml"

note "config.toml created after a build without one"
doc book/src/configuring.md "cp config.example.toml config.toml"
# The edit the chapter describes: [sha1] provider = "block".
sed -i '/^\[sha1\]$/,/^provider/ s/^provider = "dc"$/provider = "block"/' config.toml
doc book/src/configuring.md "cargo build --release"
expect "config.toml" "config-file: config.toml" \
	"sha1-provider: block (from config.toml:$(position config.toml sha1))" \
	"SHA-1: SHA1_BLK (No collision detection)"
fresh "config.toml"
shown="sha1-provider: block (from config.toml:$(position config.toml sha1))"
grep -qF "\`$shown\`" "$root/book/src/configuring.md" && pass "book/src/configuring.md quotes the origin as built: $shown" ||
	fail "book/src/configuring.md does not quote '$shown'"

note "config.toml edited"
sed -i '/^\[md5\]$/,/^provider/ s/^provider = "builtin"$/provider = "builtin"   # edited/' config.toml
sed -i '/^\[sha1\]$/,/^provider/ s/^provider = "block"$/provider = "dc"/' config.toml
doc book/src/configuring.md "cargo build --release"
expect "config.toml edited" "sha1-provider: dc (from config.toml:$(position config.toml sha1))" \
	"md5-provider: builtin (from config.toml:$(position config.toml md5))"
fresh "config.toml edited"

note "a bad config.toml stops the build naming config.toml:LINE:COL"
sed -i '/^\[tls\]$/,/^provider/ s/^provider = "rustls"$/provider = "rusttls"/' config.toml
if cargo build --release >"$copy/.bad" 2>&1; then
	fail "a misspelt provider in config.toml built"
elif grep -qF "config.toml:$(position config.toml tls): [tls] provider = \"rusttls\": \`rusttls\` is not a provider of tls" "$copy/.bad"; then
	pass "config.toml error names config.toml:$(position config.toml tls)"
else
	cat "$copy/.bad"
	fail "config.toml error text"
fi
sed -i 's/^provider = "rusttls"$/provider = "rustls"/' config.toml

note "config.toml deleted: back to the defaults"
rm config.toml
doc book/src/configuring.md "cargo build --release"
expect "config.toml deleted" "config-file: (none)" "sha1-provider: dc (from default)"
fresh "config.toml deleted"

note "FLAGSPLIT_CONFIG with a relative path (config.toml is then not read)"
cp config.example.toml flagsplit.toml
sed -i '/^\[sha1\]$/,/^provider/ s/^provider = "dc"$/provider = "block"/' flagsplit.toml
printf '[sha1]\nprovider = "nonsense"\n' >config.toml
doc config.example.toml "FLAGSPLIT_CONFIG=flagsplit.toml cargo build --release"
expect "FLAGSPLIT_CONFIG=flagsplit.toml" \
	"config-file: flagsplit.toml (FLAGSPLIT_CONFIG; config.toml not read)" \
	"sha1-provider: block (from flagsplit.toml:$(position flagsplit.toml sha1))"
out=$(FLAGSPLIT_CONFIG=flagsplit.toml cargo build --release -v 2>&1 | grep -E '^ *(Dirty|Compiling)' || true)
[ -z "$out" ] && pass "FLAGSPLIT_CONFIG=flagsplit.toml: unchanged is Fresh" || fail "FLAGSPLIT_CONFIG rebuilt: $out"
rm config.toml
if FLAGSPLIT_CONFIG=missing.toml cargo build --release >"$copy/.bad" 2>&1; then
	fail "FLAGSPLIT_CONFIG=missing.toml built"
elif grep -qF "FLAGSPLIT_CONFIG=missing.toml names a config file that cannot be read: $copy/missing.toml" "$copy/.bad"; then
	pass "FLAGSPLIT_CONFIG=missing.toml: the error names $copy/missing.toml"
else
	cat "$copy/.bad"
	fail "FLAGSPLIT_CONFIG=missing.toml error text"
fi

note "Cargo's [env] table"
mkdir -p .cargo packaging
# The block book/src/configuring.md shows, verbatim.
awk '/^```toml$/ { block = 1; text = ""; next } /^```$/ { if (block && text ~ /relative = true/) { printf "%s", text; exit } block = 0 }
	block { text = text $0 "\n" }' "$root/book/src/configuring.md" >.cargo/config.toml
if grep -qxF '[env]' .cargo/config.toml && grep -qF 'relative = true' .cargo/config.toml; then
	pass "book/src/configuring.md shows an [env] block"
else
	fail "book/src/configuring.md has no [env] block with relative = true"
fi
cp config.example.toml packaging/flagsplit.toml
sed -i '/^\[md5\]$/,/^provider/ s/^provider = "builtin"$/provider = "builtin" # from packaging/' packaging/flagsplit.toml
doc book/src/configuring.md "cargo build --release"
expect "[env]" "sha1-provider: block (from FLAGSPLIT_SHA1_PROVIDER)" \
	"md5-provider: builtin (from $copy/packaging/flagsplit.toml:$(position packaging/flagsplit.toml md5))"
fresh "[env]"
rm -r .cargo packaging

finish "config-commands"

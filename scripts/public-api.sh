#!/usr/bin/env bash
# flagsplit-config's and flagsplit-info's public APIs, as committed listings: `cargo doc` of each
# crate (flagsplit-config with every feature), denying missing documentation and any rustdoc
# warning, its HTML listed by scripts/public-api.py, compared with crates/config/public-api.txt and
# crates/info/public-api.txt. A change to the public surface shows as a diff of those files; after
# an intended change, `scripts/public-api.sh --bless` rewrites them (review the diff, and say what
# changed in crates/config/CHANGELOG.md). The docs.rs links of the guide and the crate's README
# must each name a page of that documentation.
#
# Why a script of our own: cargo-public-api reads rustdoc's JSON output, which only a nightly
# rustdoc writes; the test command has the stable toolchain only. The listing depends on the HTML
# layout of the rustdoc that wrote it, so a new toolchain may need a --bless without a change to
# the crate.
#
# Usage: scripts/public-api.sh [--bless]     (run by scripts/test.sh)   Target: target/public-api.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh
dir=target/public-api
bless=0
[ "${1:-}" = --bless ] && bless=1

# documented PACKAGE [CARGO DOC ARGS...] — `cargo doc` of the package into $dir, warnings denied
documented() {
	local package=$1
	shift
	rm -rf "$dir/doc/${package//-/_}"
	if RUSTDOCFLAGS="-D missing_docs -D warnings" cargo doc -q --locked -p "$package" --no-deps "$@" --target-dir "$dir" 2>"$dir.log"; then
		pass "cargo doc -p $package${*:+ $*} with -D missing_docs -D warnings"
	else
		cat "$dir.log"
		fail "cargo doc -p $package warns"
		return 1
	fi
}

# listed CRATE LISTING — the crate's HTML documentation listed, compared with (or, with --bless,
# written to) LISTING
listed() {
	local crate=$1 listing=$2 counts
	python3 scripts/public-api.py "$dir/doc/$crate" >"$dir/$crate.txt"
	counts=$(cut -d' ' -f1 "$dir/$crate.txt" | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
	if [ "$bless" = 1 ]; then
		cp "$dir/$crate.txt" "$listing"
		pass "wrote $listing: ${counts%, }"
	elif diff -u "$listing" "$dir/$crate.txt" >"$dir/$crate.diff"; then
		pass "$listing: as listed (${counts%, })"
	else
		cat "$dir/$crate.diff"
		fail "the public API differs from $listing (above); after an intended change: scripts/public-api.sh --bless"
	fi
}

if documented flagsplit-config --all-features; then
	# The guide and the README link the API as docs.rs shows it (a dependent's `cargo doc` never
	# documents a build-dependency): each such link must name a page this documentation has.
	links=$(grep -ho 'https://docs.rs/flagsplit-config/[^)]*' crates/config/GUIDE.md crates/config/README.md | sort -u)
	dead=0
	for url in $links; do
		page=${url#https://docs.rs/flagsplit-config/*/flagsplit_config/}
		[ -z "$page" ] && page=index.html
		[ -f "$dir/doc/flagsplit_config/$page" ] || { fail "a docs.rs link names no page of the documentation: $url"; dead=1; }
	done
	[ $dead = 0 ] && pass "every docs.rs link of GUIDE.md and README.md names a page of the documentation ($(wc -w <<<"$links") links)"
	listed flagsplit_config crates/config/public-api.txt
	# One public path per item: no item is also reachable through a re-export.
	reexports=$(grep -c '^use ' "$dir/flagsplit_config.txt" || true)
	[ "$reexports" = 0 ] && pass "flagsplit-config: each item has one public path (no public re-export)" ||
		fail "flagsplit-config re-exports $reexports item(s) under a second public path: $(grep '^use ' "$dir/flagsplit_config.txt" | tr '\n' ' ')"
fi
# flagsplit-info: what a library depends on at run time, for what its build script generates.
if documented flagsplit-info; then
	listed flagsplit_info crates/info/public-api.txt
fi
finish "public API"

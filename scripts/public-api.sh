#!/usr/bin/env bash
# flagsplit-config's public API, as a committed listing: `cargo doc` of the crate with every
# feature (denying missing documentation and any rustdoc warning), its HTML listed by
# scripts/public-api.py, compared with crates/config/public-api.txt. A change to the public
# surface shows as a diff of that file; after an intended change, `scripts/public-api.sh --bless`
# rewrites it (review the diff, and say what changed in crates/config/CHANGELOG.md).
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
listing=crates/config/public-api.txt
rm -rf "$dir/doc/flagsplit_config"
if RUSTDOCFLAGS="-D missing_docs -D warnings" cargo doc -q --locked -p flagsplit-config --no-deps --all-features --target-dir "$dir" 2>"$dir.log"; then
	pass "cargo doc -p flagsplit-config --all-features with -D missing_docs -D warnings"
else
	cat "$dir.log"
	fail "cargo doc -p flagsplit-config warns"
	finish "public API"
fi
python3 scripts/public-api.py "$dir/doc/flagsplit_config" >"$dir/listing.txt"
counts=$(cut -d' ' -f1 "$dir/listing.txt" | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
if [ "${1:-}" = --bless ]; then
	cp "$dir/listing.txt" "$listing"
	pass "wrote $listing: ${counts%, }"
elif diff -u "$listing" "$dir/listing.txt" >"$dir/diff"; then
	pass "$listing: as listed (${counts%, })"
else
	cat "$dir/diff"
	fail "the public API differs from $listing (above); after an intended change: scripts/public-api.sh --bless"
fi
finish "public API"

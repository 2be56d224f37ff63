#!/usr/bin/env bash
# Two records in one executable: flagsplit built with `cargo auditable build` (cargo-auditable
# embeds the crate list in its `.dep-v0` section) carries both that list and flagsplit-config's
# build record (`.note.flagsplit`), and each tool reads its own back, from the stripped file too:
# `rust-audit-info` the crates, `cargo flagsplit inspect` the providers.
#
# cargo-auditable and rust-audit-info are installed from crates.io (`cargo install --locked`) into
# target/tools when missing. The build shares the cargo-flagsplit case's target directory
# (target/cargo-flagsplit-case): cargo-auditable wraps rustc for the workspace's crates only
# (RUSTC_WORKSPACE_WRAPPER), so the dependencies built there are reused.
#
# Usage: scripts/auditable-case.sh   (run by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh
export CARGO_TARGET_DIR=$root/target/cargo-flagsplit-case
tools=$root/target/tools
work=$CARGO_TARGET_DIR/auditable
rm -rf "$work"
mkdir -p "$work"

note "cargo-auditable and rust-audit-info"
if [ ! -x "$tools/bin/cargo-auditable" ] || [ ! -x "$tools/bin/rust-audit-info" ]; then
	cargo install -q --locked --root "$tools" cargo-auditable rust-audit-info >"$work/install.log" 2>&1 ||
		{ cat "$work/install.log"; fail "cargo install cargo-auditable rust-audit-info"; finish "auditable case"; }
fi
export PATH=$tools/bin:$PATH
pass "$(cargo auditable --version 2>/dev/null || echo cargo-auditable), rust-audit-info"

note "cargo auditable build --bin flagsplit, then strip"
cargo build -q --locked --offline -p cargo-flagsplit >"$work/cargo-flagsplit.log" 2>&1 || { cat "$work/cargo-flagsplit.log"; fail "cargo build -p cargo-flagsplit"; }
if cargo auditable build --locked --offline --bin flagsplit >"$work/build.log" 2>&1; then
	pass "cargo auditable build"
else
	cat "$work/build.log"
	fail "cargo auditable build"
	finish "auditable case"
fi
exe=$work/flagsplit
strip -o "$exe" "$CARGO_TARGET_DIR/debug/flagsplit"
readelf -SW "$exe" >"$work/sections"
grep -q ' \.dep-v0 ' "$work/sections" && pass "the stripped file keeps .dep-v0 (cargo-auditable's)" || fail "no .dep-v0 section"
grep -q ' \.note\.flagsplit ' "$work/sections" && pass "the stripped file keeps .note.flagsplit" || fail "no .note.flagsplit section"

note "each tool reads its own record"
if rust-audit-info "$exe" >"$work/audit.json" 2>"$work/audit.err"; then
	python3 - "$work/audit.json" <<'PY' && pass "rust-audit-info: the crate list names flagsplit, flagsplit-config, sha1dc and rustls" || fail "rust-audit-info: crates missing"
import json, sys
names = {p["name"] for p in json.load(open(sys.argv[1]))["packages"]}
sys.exit(0 if {"flagsplit", "flagsplit-config", "sha1dc", "rustls"} <= names else 1)
PY
else
	cat "$work/audit.err"
	fail "rust-audit-info cannot read the file"
fi
if "$CARGO_TARGET_DIR/debug/cargo-flagsplit" inspect "$exe" >"$work/inspect" 2>&1; then
	for want in "$exe: 1 build record(s) (.note.flagsplit)" "    sha1 = dc (default), guarantees: collision-detection" "    tls = rustls (default with feature rustls-tls)"; do
		grep -qxF -- "$want" "$work/inspect" && pass "inspect: '$want'" || { fail "inspect lacks '$want'"; cat "$work/inspect"; }
	done
else
	cat "$work/inspect"
	fail "cargo flagsplit inspect cannot read the file"
fi

finish "auditable case"

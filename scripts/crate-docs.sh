#!/usr/bin/env bash
# Every publishable package's documentation, denying rustdoc's warnings: the packages `cargo
# metadata` lists whose `publish` is unset or names a registry (`publish = false` is []). For each:
#
# - `RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps -p NAME` (default features; lib and
#   bins, as `cargo doc` chooses them);
# - as docs.rs builds it: `DOCS_RS=1`, `--cfg docsrs` and the `[package.metadata.docs.rs]` table's
#   `features`, `all-features`, `no-default-features`, `rustdoc-args` (and `rustc-args`,
#   `cargo-args` if a table ever has them), for the host target only.
#
# A publishable package without `[package.metadata.docs.rs]` fails. One ok/FAIL line per package
# with its time; a failure shows rustdoc's output. Exit status 1 when any package failed.
#
# Usage: scripts/crate-docs.sh [PACKAGE...]   (default: every publishable package)
# Target: the default target dir (target/, or CARGO_TARGET_DIR), so that it reuses the workspace's
# builds; logs in its crate-docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh
logs=${CARGO_TARGET_DIR:-target}/crate-docs
mkdir -p "$logs"

# One line per publishable package, its fields separated by US (\x1f, which `read` does not merge
# as it merges tabs): NAME, `yes` or `no` (a docs.rs table), then the table as this script's
# inputs: cargo arguments, extra rustdoc flags, rustc flags (each space-separated). Written by
# python3 (the JSON reader the other scripts use); no value may hold a space the lines would split.
packages=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys

def words(value, key, name):
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        sys.exit(f"{name}: package.metadata.docs.rs.{key} is not a list of strings")
    for w in value:
        if not w or any(c.isspace() for c in w):
            sys.exit(f"{name}: package.metadata.docs.rs.{key} holds {w!r}: no spaces")
    return value

for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        continue
    name = p["name"]
    table = ((p.get("metadata") or {}).get("docs") or {}).get("rs")
    if table is None:
        print(f"{name}\x1fno\x1f\x1f\x1f")
        continue
    cargo = []
    if table.get("all-features"):
        cargo.append("--all-features")
    if table.get("no-default-features"):
        cargo.append("--no-default-features")
    features = words(table.get("features", []), "features", name)
    if features:
        cargo += ["--features", ",".join(features)]
    cargo += words(table.get("cargo-args", []), "cargo-args", name)
    rustdoc = words(table.get("rustdoc-args", []), "rustdoc-args", name)
    rustc = words(table.get("rustc-args", []), "rustc-args", name)
    print("\x1f".join([name, "yes", " ".join(cargo), " ".join(rustdoc), " ".join(rustc)]))
')

# documented NAME LOG [CARGO DOC ARGS...] — `cargo doc` of the package with the environment the
# caller set; its output in LOG
documented() {
	local name=$1 log=$2
	shift 2
	cargo doc --locked --no-deps -p "$name" "$@" >"$log" 2>&1
}

declare -A wanted=()
for p in "$@"; do wanted[$p]=1; done
started=$SECONDS
count=0
while IFS=$'\x1f' read -r name table cargo_args rustdoc_args rustc_args; do
	if [ $# -gt 0 ] && [ -z "${wanted[$name]:-}" ]; then
		continue
	fi
	unset "wanted[$name]"
	count=$((count + 1))
	t0=$SECONDS
	problems=()
	if ! RUSTDOCFLAGS="-D warnings" documented "$name" "$logs/$name.log"; then
		problems+=("cargo doc fails, warnings denied (default features; $logs/$name.log)")
		grep -vE '^ +(Compiling|Checking) ' "$logs/$name.log" || true
	fi
	if [ "$table" = no ]; then
		problems+=("no [package.metadata.docs.rs] in its Cargo.toml")
		how="default features"
	else
		how="default features; as docs.rs builds it: ${cargo_args:-default features}"
		read -ra args <<<"$cargo_args"
		log=$logs/$name.docsrs.log
		if ! (
			export DOCS_RS=1 RUSTDOCFLAGS="--cfg docsrs -D warnings${rustdoc_args:+ $rustdoc_args}"
			# docs.rs passes rustc-args as RUSTFLAGS, which rebuilds every dependency: only then.
			if [ -n "$rustc_args" ]; then export RUSTFLAGS="$rustc_args"; fi
			documented "$name" "$log" "${args[@]}"
		); then
			how_docsrs="DOCS_RS=1, --cfg docsrs${cargo_args:+, $cargo_args}"
			problems+=("cargo doc fails, warnings denied, as docs.rs builds it ($how_docsrs; $log)")
			grep -vE '^ +(Compiling|Checking) ' "$log" || true
		fi
	fi
	if [ ${#problems[@]} -eq 0 ]; then
		pass "$name ($how; $((SECONDS - t0))s)"
	else
		for problem in "${problems[@]}"; do
			fail "$name: $problem ($((SECONDS - t0))s)"
		done
	fi
done <<<"$packages"

for p in "${!wanted[@]}"; do
	fail "$p: not a publishable package of this workspace"
done
echo
echo "$count package(s) in $((SECONDS - started))s"
finish "crate docs"

#!/usr/bin/env bash
# flagsplit-config's oldest Rust, compiled and tested: Debian 12's own toolchain (the `rustc` and
# `cargo` packages: rustc 1.63, cargo 1.65), as a distribution packager building offline has it.
#
# - installs the two packages with apt-get when they are missing (as root);
# - packages the crate with the current cargo (`cargo package`: a manifest without the workspace's
#   inheritance, which old Cargo cannot read) and unpacks it;
# - resolves its dependencies for its `rust-version` (the current cargo's MSRV-aware resolver) and
#   vendors them into a directory source: old Cargo cannot read this registry's sparse index, and
#   the build after this step runs offline;
# - with /usr/bin/cargo and /usr/bin/rustc, offline from that directory: builds the crate and runs
#   its unit and documentation tests with every feature; builds a library that adopts it
#   (forbidding unsafe code, its table in [package.metadata.flagsplit], as the guide writes it) and
#   its executable, which must carry the build record; and checks that `rust-version` in
#   crates/config/Cargo.toml is the version of the compiler that did it.
#
# Usage: scripts/msrv.sh            (run by scripts/test.sh)
# Scratch files in target/msrv, replaced at each run. The first run downloads the two Debian
# packages (about 60 MB) and the dependencies' crates.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh
work=$root/target/msrv
old_rustc=/usr/bin/rustc
old_cargo=/usr/bin/cargo

note "Debian's rustc and cargo"
if [ ! -x "$old_rustc" ] || [ ! -x "$old_cargo" ]; then
	if [ "${FLAGSPLIT_TEST_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends rustc cargo >/dev/null
	fi
fi
if [ ! -x "$old_rustc" ] || [ ! -x "$old_cargo" ]; then
	fail "no $old_rustc or $old_cargo (Debian's rustc and cargo packages; install them as root)"
	finish "msrv"
fi
pass "$("$old_rustc" --version), $("$old_cargo" --version)"

note "the crate as packaged, its dependencies vendored for its rust-version"
rm -rf "$work"
mkdir -p "$work"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' crates/config/Cargo.toml | head -1)
claimed=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' crates/config/Cargo.toml)
cargo package -q --locked --offline --no-verify --allow-dirty -p flagsplit-info -p flagsplit-config --target-dir "$work/package" 2>"$work/package.log" ||
	{ cat "$work/package.log"; fail "cargo package -p flagsplit-info -p flagsplit-config"; finish "msrv"; }
tar -xzf "$work/package/package/flagsplit-config-$version.crate" -C "$work"
tar -xzf "$work/package/package/flagsplit-info-$version.crate" -C "$work"
src=$work/flagsplit-config-$version
info=$src/flagsplit-info
mv "$work/flagsplit-info-$version" "$info"
# A workspace of its own (target/ is inside this repository's workspace), with flagsplit-info, the
# one crate a library needs at run time, as a member: its packaged copy stands in for the registry.
printf '\n[workspace]\nmembers = [".", "%s", "adopter"]\n\n[patch.crates-io]\nflagsplit-info = { path = "%s" }\n' "$info" "$info" >>"$src/Cargo.toml"
# And a library that adopts it as the guide says, forbidding unsafe code, with an executable: its
# generated build_info.rs places the build record (flagsplit_info::record!) with Rust 1.63 too.
mkdir -p "$src/adopter/src"
cat >"$src/adopter/Cargo.toml" <<EOF
[package]
name = "adopter"
version = "0.1.0"
edition = "2021"
[dependencies]
flagsplit-info = { path = "$info" }
[build-dependencies]
flagsplit-config = { path = "$src", features = ["build-script"] }
[package.metadata.flagsplit.compress]
providers = ["stored"]
EOF
cat >"$src/adopter/build.rs" <<'EOF'
fn main() {
    flagsplit_config::script::main();
}
EOF
printf '#![forbid(unsafe_code)]\n/// What the build decided.\npub const BUILD_INFO: flagsplit_info::BuildInfo =\n    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));\n' >"$src/adopter/src/lib.rs"
printf '#![forbid(unsafe_code)]\nfn main() {\n    print!("{}", adopter::BUILD_INFO.describe());\n}\n' >"$src/adopter/src/main.rs"
# The versions whose rust-version the crate's allows (Cargo 1.84's MSRV-aware resolver), then a
# copy of each; old Cargo writes its own Cargo.lock (format 3) from that directory.
(cd "$src" && rm -f Cargo.lock && CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback cargo generate-lockfile -q &&
	cargo vendor -q --locked "$work/vendor" >/dev/null) 2>"$work/vendor.log" ||
	{ cat "$work/vendor.log"; fail "resolving and vendoring the dependencies"; finish "msrv"; }
rm -f "$src/Cargo.lock"
pass "vendored: $(cd "$work/vendor" && for d in *; do printf '%s %s; ' "$d" "$(sed -n 's/^version = "\(.*\)"$/\1/p' "$d/Cargo.toml" | head -1)"; done)"
mkdir -p "$src/.cargo"
printf '[source.crates-io]\nreplace-with = "vendored"\n\n[source.vendored]\ndirectory = "%s"\n' "$work/vendor" >"$src/.cargo/config.toml"

note "built and tested with $("$old_rustc" --version), offline"
# Old Cargo finds rustc and rustdoc on PATH: Debian's first. Its own CARGO_HOME: nothing of the
# current toolchain's is read or written.
old_env=(env -u RUSTFLAGS -u RUSTDOCFLAGS -u CARGO_BUILD_TARGET PATH="/usr/bin:/bin" CARGO_HOME="$work/cargo-home"
	RUSTC="$old_rustc" RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR="$work/target")
# Every feature: the default ones (the resolver and the config-file reader) and build-script.
features=(--features build-script)
started=$(date +%s)
if (cd "$src" && "${old_env[@]}" "$old_cargo" build --offline "${features[@]}") >"$work/build.log" 2>&1; then
	pass "cargo build ${features[*]} ($(($(date +%s) - started)) s)"
else
	cat "$work/build.log"
	fail "cargo build ${features[*]} with $("$old_rustc" --version)"
fi
if (cd "$src" && "${old_env[@]}" "$old_cargo" test --offline "${features[@]}") >"$work/test.log" 2>&1; then
	pass "cargo test ${features[*]}: $(grep -E '^test result: ok' "$work/test.log" | awk '{n += $4} END {print n}') tests passed ($(($(date +%s) - started)) s in all)"
else
	cat "$work/test.log"
	fail "cargo test ${features[*]} with $("$old_rustc" --version)"
fi
if (cd "$src" && "${old_env[@]}" "$old_cargo" test --offline -p flagsplit-info) >"$work/test-info.log" 2>&1; then
	pass "cargo test -p flagsplit-info: $(grep -E '^test result: ok' "$work/test-info.log" | awk '{n += $4} END {print n}') tests passed"
else
	cat "$work/test-info.log"
	fail "cargo test -p flagsplit-info with $("$old_rustc" --version)"
fi
if (cd "$src" && "${old_env[@]}" "$old_cargo" build --offline -p adopter) >"$work/adopter.log" 2>&1; then
	pass "a library forbidding unsafe code, built from its generated build_info.rs"
	if readelf -p .note.flagsplit "$work/target/debug/adopter" 2>/dev/null | grep -q '"crate":"adopter"'; then
		pass "its executable carries the build record (.note.flagsplit)"
	else
		fail "the executable built with $("$old_rustc" --version) has no .note.flagsplit naming adopter"
	fi
else
	cat "$work/adopter.log"
	fail "the adopting library with $("$old_rustc" --version)"
fi

note "rust-version"
tested=$("$old_rustc" --version | awk '{print $2}')
echo "rustc --version: $("$old_rustc" --version)"
for manifest in crates/config/Cargo.toml crates/info/Cargo.toml; do
	claimed=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' "$manifest")
	case "$tested" in
	"$claimed" | "$claimed".*) pass "$manifest: rust-version = \"$claimed\", tested with $tested" ;;
	*) fail "$manifest says rust-version = \"$claimed\", but the oldest compiler tested is $tested" ;;
	esac
done

finish "msrv"

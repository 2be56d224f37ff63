#!/usr/bin/env bash
# crates/config/GUIDE.md, copied as a newcomer copies it: every block marked
# `<!-- file: PATH -->` is written, as it stands, to PATH in an empty directory outside this
# workspace, which makes two libraries (inflate-demo, zstd-demo) and an application (app).
# flagsplit-config is served from its packaged .crate through a directory source (with the
# third-party crates from `cargo vendor` of examples/inflate-app), as a registry serves it, so the
# guide's `version = "0.5"` resolves unchanged (flagsplit-info likewise); the application gets the library the same way,
# packaged. Then:
#
# - each library's tests pass with each provider, run by the guide's CI line (`<!-- command: each
#   -->`, `cargo flagsplit each -- test`): inflate-demo's, its zlib run linking libz into the test
#   that inflates through it, and fails when the zlib provider is broken; zstd-demo's, with a
#   round-trip test added that reads its frames back with zstd(1) and checks that libzstd
#   compressed them; the application builds, prints the build options
#   the guide shows (`<!-- output: build-options -->`), round-trips data compressed by Python's
#   zlib, and its own test passes;
# - each build is broken the common ways, and each message is the one the guide shows (every line
#   of the `<!-- output: NAME -->` block): a misspelt value (value-typo), a provider whose feature
#   is off (feature-off), a misspelt variable name added to an application already built, which
#   its test catches (name-typo), the C library missing (library-missing: pkg-config given an
#   empty search path); and a mistake in the table itself (the default behind a feature) stops the
#   build naming it;
# - the `[env]` blocks after `<!-- application env -->` in README.md and book/src/library.md are
#   examples/inflate-app's file.
#
# Usage: scripts/guide-case.sh        (run by scripts/test.sh; needs libzstd-dev, zlib1g-dev,
# pkg-config and the crates of examples/inflate-app's Cargo.lock, fetched first)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh
guide=$root/crates/config/GUIDE.md
work=$(mktemp -d)
trap '[ -n "${GUIDE_CASE_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
log=$work/log
mkdir -p "$log"
export CARGO_TARGET_DIR=$root/target/guide-case
for v in $(compgen -e | grep -E '^(INFLATE_DEMO_|ZSTD_DEMO_|ZSTD_|PKG_CONFIG_LIBDIR$)' || true); do unset "$v"; done

note "the guide's files, as written"
python3 - "$guide" "$work" <<'EOF'
import os, re, sys
guide, work = sys.argv[1], sys.argv[2]
lines = open(guide, encoding="utf-8").read().split("\n")
i, files, outputs = 0, 0, 0
while i < len(lines):
    m = re.fullmatch(r"<!-- (file|output|command): (\S+) -->", lines[i])
    if not m:
        i += 1
        continue
    kind, name = m.groups()
    j = i + 1
    assert lines[j].startswith("```"), f"GUIDE.md:{j + 1}: a marker not followed by a fenced block"
    k = j + 1
    while not lines[k].startswith("```"):
        k += 1
    body = "\n".join(lines[j + 1:k]) + "\n"
    if kind == "file":
        path = os.path.join(work, name)
        files += 1
    elif kind == "command":
        path = os.path.join(work, "log", "command-" + name)
    else:
        path = os.path.join(work, "log", "expected-" + name)
        outputs += 1
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w", encoding="utf-8").write(body)
    i = k + 1
print(f"{files} files, {outputs} outputs")
EOF
pass "extracted: $(cd "$work" && find inflate-demo zstd-demo app -type f | sort | tr '\n' ' ')"

# The directory source: the packaged flagsplit-config beside the vendored third-party crates.
vendor=$work/vendor
(cd examples/inflate-app && cargo fetch --locked -q && cargo vendor --locked --offline -q "$vendor") >"$log/vendor" 2>&1 || { cat "$log/vendor"; fail "cargo vendor"; finish "guide case"; }
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' crates/config/Cargo.toml | head -1)
cargo package --locked --offline --no-verify --allow-dirty -p flagsplit-info -p flagsplit-config --target-dir "$work/package" >"$log/package" 2>&1 || { cat "$log/package"; fail "cargo package -p flagsplit-info -p flagsplit-config"; finish "guide case"; }
# unpack CRATE — a .crate into the directory source, with the checksum file Cargo wants
unpack() {
	local crate=$1 name
	name=$(basename "$crate" .crate)
	rm -rf "${vendor:?}/$name"
	tar -xzf "$crate" -C "$vendor"
	printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" >"$vendor/$name/.cargo-checksum.json"
}
unpack "$work/package/package/flagsplit-info-$version.crate"
unpack "$work/package/package/flagsplit-config-$version.crate"
mkdir -p "$work/.cargo"
printf '[source.crates-io]\nreplace-with = "packaged"\n\n[source.packaged]\ndirectory = "%s"\n' "$vendor" >"$work/.cargo/config.toml"
pass "flagsplit-config and flagsplit-info $version from their .crate files, through a directory source"
# Cargo keys a registry package by name, version and source: what an earlier run compiled from an
# older .crate would count as fresh.
rm -rf "$CARGO_TARGET_DIR"

# cargo_in NAME DIR [VAR=...]... -- CARGO ARGS... — cargo in DIR with the variables, --offline;
# output in $log/NAME; its status
cargo_in() {
	local name=$1 dir=$2 vars=()
	shift 2
	while [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	(cd "$work/$dir" && env "${vars[@]}" cargo "$@" --offline) >"$log/$name" 2>&1
}
# ok NAME DIR [VAR=...]... -- CARGO ARGS... — the same, which must succeed
ok() {
	if cargo_in "$@"; then
		pass "$1: cargo ${*: -1} ... passed$(grep -o 'test result: ok. [0-9]* passed' "$log/$1" | awk '{n += $4} END { if (n) printf " (%d tests)", n }')"
	else
		cat "$log/$1"
		fail "$1: failed"
	fi
}
# shows NAME EXPECTED — every line of the guide's output block EXPECTED is in $log/NAME
shows() {
	local name=$1 expected=$log/expected-$2 missing=0 line
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qF -- "$line" "$log/$name" || { fail "$name: the guide's '$line' is not in the output"; missing=1; }
	done <"$expected"
	[ "$missing" = 0 ] && pass "$name: every line of the guide's $2 block ($(grep -c . "$expected") lines)" || cat "$log/$name"
}
# breaks NAME EXPECTED DIR [VAR=...]... -- CARGO ARGS... — the command must fail, showing EXPECTED
breaks() {
	local name=$1 expected=$2
	shift 2
	if cargo_in "$name" "$@"; then
		fail "$name: passed, expected the guide's $expected message"
	else
		shows "$name" "$expected"
		# A failing test panics by design; a build script must not.
		[ "${*: -1}" != test ] && ! grep -q -- "--config" <<<"$*" && grep -q panicked "$log/$name" && fail "$name: a panic" || true
	fi
}

# cargo flagsplit, on PATH as `cargo install` puts it, for the commands the guide shows.
(cd "$root" && cargo build -q --locked --offline -p cargo-flagsplit --target-dir "$root/target") >"$log/cargo-flagsplit" 2>&1 || { cat "$log/cargo-flagsplit"; fail "cargo build -p cargo-flagsplit"; }
with_cf=PATH=$root/target/debug:$PATH

note "inflate-demo: the tests with each provider, by the guide's CI line ($(cat "$log/command-each"))"
read -ra each_line <"$log/command-each"
[ "${each_line[0]}" = cargo ] || fail "the guide's CI line does not start with cargo: ${each_line[*]}"
ok lib-each inflate-demo "$with_cf" -- "${each_line[@]:1}"
says lib-each "$log/lib-each" "run 1/2  passed" "run 2/2  passed" "inflate-demo:inflate=zlib" "every planned provider was exercised"
n=$(grep -c 'test inflates_hello ... ok' "$log/lib-each" || true)
[ "$n" = 2 ] && pass "lib-each: inflates_hello passed with miniz and with zlib" || fail "lib-each: inflates_hello passed $n times, not 2"
# The zlib run (the last) linked the C library into the test that inflated through it.
spec_test=$(ls -t "$CARGO_TARGET_DIR"/debug/deps/spec-* | grep -v '\.d$' | head -1)
needed "$spec_test" | grep -q '^libz\.so' && pass "lib-each: the zlib run's test executable has libz in NEEDED ($(basename "$spec_test"))" || fail "lib-each: $spec_test does not link libz"
# A provider that is broken: the run that selects it fails, and the summary says which.
cp -r "$work/inflate-demo" "$work/broken-provider"
python3 - "$work/broken-provider/src/lib.rs" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
marker = "                libz_sys::Z_OK => {\n"
assert marker in s, "the guide's zlib provider changed: update this fixture"
s = s.replace(marker, marker + "                    out[0] ^= 1;\n", 1)
open(p, "w").write(s)
PY
if cargo_in lib-each-broken broken-provider "$with_cf" -- "${each_line[@]:1}"; then
	fail "lib-each-broken: a broken zlib provider passed"
else
	says lib-each-broken "$log/lib-each-broken" "run 1/2  passed" "run 2/2  FAILED" "never exercised (1): inflate-demo:inflate:zlib"
fi
breaks value-typo value-typo inflate-demo INFLATE_DEMO_INFLATE_PROVIDER=zib -- build --features zlib
breaks feature-off feature-off inflate-demo INFLATE_DEMO_INFLATE_PROVIDER=zlib -- build

note "flagsplit-config is compiled once, for the build script: the libraries' code depends on flagsplit-info only"
for lib in inflate-demo zstd-demo; do
	for features in "" "--features=$([ $lib = inflate-demo ] && echo zlib || echo zstd)"; do
		if cargo_in "tree-$lib" "$lib" -- tree -e normal $features; then
			if grep -q flagsplit-info "$log/tree-$lib" && ! grep -q flagsplit-config "$log/tree-$lib"; then
				pass "$lib: cargo tree -e normal ${features:-(default features)}: flagsplit-info, no flagsplit-config"
			else
				cat "$log/tree-$lib"
				fail "$lib: cargo tree -e normal ${features:-(default features)} names flagsplit-config, or not flagsplit-info"
			fi
		else
			cat "$log/tree-$lib"
			fail "$lib: cargo tree -e normal failed"
		fi
	done
done

note "zstd-demo: each provider, and libzstd missing"
ok zstd-stored zstd-demo -- build --features zstd
ok zstd-zstd zstd-demo ZSTD_DEMO_COMPRESS_PROVIDER=zstd -- build --features zstd
grep -qF 'cargo:rustc-link-lib=zstd' "$CARGO_TARGET_DIR"/debug/build/zstd-demo-*/output && pass "zstd-zstd: build.rs linked libzstd (rustc-link-lib=zstd)" || fail "zstd-zstd: no rustc-link-lib=zstd in build.rs's output"
mkdir -p "$work/empty"
breaks library-missing library-missing zstd-demo PKG_CONFIG_LIBDIR="$work/empty" ZSTD_DEMO_COMPRESS_PROVIDER=zstd -- build --features zstd

note "zstd-demo with a test of its own, by the guide's CI line: each provider, libzstd's frames read back by zstd(1)"
# The guide's zstd-demo as written, plus one test: the frame it makes decompresses with the zstd
# command to the input, and with libzstd selected it is compressed (the C library did the work),
# with `stored` it is not.
cp -r "$work/zstd-demo" "$work/zstd-each"
mkdir -p "$work/zstd-each/tests"
cat >"$work/zstd-each/tests/roundtrip.rs" <<'RS'
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn frames_zstd_reads_back() {
    let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let frame = zstd_demo::compress(&data);
    let mut child = Command::new("zstd")
        .args(["-d", "-c", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("zstd(1)");
    child.stdin.take().unwrap().write_all(&frame).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, data);
    let provider = zstd_demo::BUILD_INFO.provider("compress");
    match provider {
        "zstd" => assert!(frame.len() < data.len() / 10, "libzstd compresses"),
        _ => assert!(frame.len() > data.len(), "stored blocks"),
    }
}
RS
# A target directory of its own: later checks look for zstd-demo's build directories.
ok zstd-each zstd-each "$with_cf" CARGO_TARGET_DIR="$CARGO_TARGET_DIR/zstd-each" -- "${each_line[@]:1}"
says zstd-each "$log/zstd-each" "run 1/2  passed" "run 2/2  passed" "zstd-demo:compress=zstd" "every planned provider was exercised"
n=$(grep -c 'test frames_zstd_reads_back ... ok' "$log/zstd-each" || true)
[ "$n" = 2 ] && pass "zstd-each: the round trip passed with stored and with zstd (its size checked per provider)" || fail "zstd-each: frames_zstd_reads_back passed $n times, not 2"

note "app: inflate-demo as a registry package, selected in the app's [env]"
cargo_in package-lib inflate-demo -- package --no-verify --allow-dirty --target-dir "$work/package" || { cat "$log/package-lib"; fail "cargo package of the guide's inflate-demo"; }
unpack "$work/package/package/inflate-demo-0.1.0.crate"
if cargo_in app-build app -- build; then
	A=$CARGO_TARGET_DIR/debug/app
	"$A" --build-options >"$log/app-options" 2>&1 || fail "app --build-options failed"
	shows app-options build-options
	printf 'hello, guide\n' | python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))' >"$work/hello.z"
	[ "$("$A" <"$work/hello.z")" = "hello, guide" ] && pass "app: inflates what Python's zlib compressed" || fail "app: does not inflate hello.z"
	needed "$A" | grep -qx libz.so.1 && pass "app: NEEDED has libz.so.1 (the zlib provider)" || fail "app: NEEDED lacks libz.so.1"
else
	cat "$log/app-build"
	fail "app: the build failed"
fi
# A misspelt name added to the application just built: not a variable the library's build script
# named, so Cargo does not rerun it and the build passes; the application's test sees it.
ok app-incremental app -- build -v --config 'env.INFLATE_DEMO_INFLATE_PROVDER="zlib"'
grep -qE '^ +Fresh inflate-demo ' "$log/app-incremental" && pass "app-incremental: inflate-demo Fresh, the misspelt name unseen" || fail "app-incremental: inflate-demo was rebuilt"
breaks name-typo name-typo app -- test --config 'env.INFLATE_DEMO_INFLATE_PROVDER="zlib"'
ok app-test app -- test
(cd "$work/app" && INFLATE_DEMO_INFLATE_PROVIDER=miniz cargo run -q --offline -- --build-options) >"$log/app-miniz" 2>&1
grep -qxF "inflate-provider: miniz (from INFLATE_DEMO_INFLATE_PROVIDER)" "$log/app-miniz" && pass "app: the shell's miniz wins over [env]" || { cat "$log/app-miniz"; fail "app: the shell's value did not select"; }

note "an application of both guide libraries, libzstd selected: its stripped executable says so (cargo flagsplit inspect)"
# The guide's two libraries as they are (inflate-demo from the registry, zstd-demo by path), in an
# application of this script's own that calls both, so that both are linked.
mkdir -p "$work/both/src" "$work/both/.cargo"
cat >"$work/both/Cargo.toml" <<EOF
[package]
name = "both"
version = "0.1.0"
edition = "2021"
[dependencies]
inflate-demo = { version = "0.1", features = ["zlib"] }
zstd-demo = { path = "$work/zstd-demo", features = ["zstd"] }
EOF
printf '[env]\nINFLATE_DEMO_INFLATE_PROVIDER = "zlib"\nZSTD_DEMO_COMPRESS_PROVIDER = "zstd"\n' >"$work/both/.cargo/config.toml"
cat >"$work/both/src/main.rs" <<'EOF'
fn main() {
    // Both libraries' providers are called, so that the linker keeps libzstd and libz.
    let frame = zstd_demo::compress(b"hello, both");
    let z = [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01];
    let empty = inflate_demo::inflate(&z).expect("an empty zlib stream");
    print!("{}{}", inflate_demo::BUILD_INFO.describe(), zstd_demo::BUILD_INFO.describe());
    println!("{} bytes of zstd, {} inflated", frame.len(), empty.len());
}
EOF
# A target directory of its own: the checks below look for zstd-demo's one build directory.
if cargo_in both-build both CARGO_TARGET_DIR="$CARGO_TARGET_DIR/both" -- build; then
	strip -o "$work/both-stripped" "$CARGO_TARGET_DIR/both/debug/both"
	"$work/both-stripped" >"$log/both-run" 2>&1 && grep -qF "inflated" "$log/both-run" && pass "both: runs, calling both libraries" || { fail "both: does not run"; cat "$log/both-run"; }
	zstd_version=$(pkg-config --modversion libzstd)
	if "$root/target/debug/cargo-flagsplit" inspect "$work/both-stripped" >"$log/both-inspect" 2>&1; then
		for want in "$work/both-stripped: 2 build record(s) (.note.flagsplit)" "  inflate-demo 0.1.0 (library, $(rustc -vV | sed -n 's/^host: //p'))" \
			"    compress = zstd (ZSTD_DEMO_COMPRESS_PROVIDER)" "    C library zstd $zstd_version: dynamic (-lzstd), found by pkg-config (libzstd)" \
			"    inflate [zlib] = zlib (INFLATE_DEMO_INFLATE_PROVIDER)"; do
			grep -qxF -- "$want" "$log/both-inspect" && pass "both: inspect says '$want'" || { fail "both: inspect lacks '$want'"; cat "$log/both-inspect"; }
		done
	else
		cat "$log/both-inspect"
		fail "both: cargo flagsplit inspect failed"
	fi
	printf '[[libraries]]\nlibrary = "libzstd"\nlink = "static"\nreason = "a static libzstd only"\n' >"$work/static-zstd.toml"
	st=0; "$root/target/debug/cargo-flagsplit" check --policy "$work/static-zstd.toml" --binaries "$work/both-stripped" >"$log/both-check" 2>&1 || st=$?
	[ "$st" = 1 ] && grep -qF 'error[library-link-mode]: executable `both-stripped` carries libzstd (dynamic, libzstd.so.1)' "$log/both-check" &&
		pass "both: check --binaries: libzstd dynamic breaks a static-only rule (exit 1)" || { fail "both: check --binaries exit $st"; cat "$log/both-check"; }
	python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(d[:len(d)//2])' "$work/both-stripped" "$work/both-half"
	st=0; "$root/target/debug/cargo-flagsplit" inspect "$work/both-half" >"$log/both-half" 2>&1 || st=$?
	[ "$st" = 1 ] && grep -qF "the file is truncated or damaged" "$log/both-half" && pass "both: half the file: a clear error (exit 1)" || { fail "both: half the file: exit $st"; cat "$log/both-half"; }
else
	cat "$log/both-build"
	fail "both: the build failed"
fi

note "the path form of the dependency, as the guide writes it (a checkout of flagsplit beside the library)"
path_line=$(grep -m1 'path = ' "$log/expected-dependency-forms")
path_value=$(sed -n 's/.*path = "\([^"]*\)".*/\1/p' <<<"$path_line")
cp -r "$work/inflate-demo" "$work/path-form"
ln -s "$root" "$work/path-form/${path_value%%/crates/config}"
info_value=$(sed -n 's/^flagsplit-info = { path = "\([^"]*\)".*/\1/p' "$log/expected-dependency-forms")
sed -i -e "s|flagsplit-config = { version = \"0.5\"|flagsplit-config = { path = \"$path_value\"|" \
	-e "s|^flagsplit-config = \"0.5\"$|flagsplit-config = { path = \"$path_value\" }|" \
	-e "s|^flagsplit-info = \"0.5\"$|flagsplit-info = { path = \"$info_value\" }|" "$work/path-form/Cargo.toml"
if grep -q "path = \"$path_value\"" "$work/path-form/Cargo.toml" && [ -d "$work/path-form/$path_value" ]; then
	ok path-form path-form -- test
	grep -qE "^ +Compiling flagsplit-config v$version \(/" "$log/path-form" && pass "path-form: flagsplit-config compiled from the checkout" || fail "path-form: flagsplit-config not compiled from the checkout"
	grep -qE "^ +Compiling flagsplit-info v$version \(/" "$log/path-form" && ! grep -qE "^ +Compiling flagsplit-info v$version$" "$log/path-form" && pass "path-form: flagsplit-info compiled from the checkout, not from the registry" || fail "path-form: flagsplit-info not (only) from the checkout"
else
	fail "path-form: the guide's path form ($path_line) could not be set up"
fi

note "a mistake in the table stops the build, naming it"
cp -r "$work/inflate-demo" "$work/bad-table"
sed -i 's/Provider::new("miniz", "MINIZ_OXIDE", "pure Rust (crate miniz_oxide)")/&.feature("miniz")/' "$work/bad-table/src/spec.rs"
sed -i 's/^zlib = \["dep:libz-sys"\]$/&\nminiz = []/' "$work/bad-table/Cargo.toml"
if grep -q '.feature("miniz")' "$work/bad-table/src/spec.rs" && ! cargo_in bad-table bad-table -- build --features miniz; then
	says bad-table "$log/bad-table" "the facility table of inflate-demo is inconsistent" "inflate: default_order must name a provider that needs no feature"
else
	cat "$log/bad-table" 2>/dev/null || true
	fail "bad-table: a table with its default behind a feature built"
fi

note "a mistake in the table declared in Cargo.toml stops the build at its line, with the fix"
cp -r "$work/zstd-demo" "$work/bad-metadata"
sed -i 's/^pkg-config = "libzstd"$/pkgconfig = "libzstd"/' "$work/bad-metadata/Cargo.toml"
line=$(grep -n '^pkgconfig = ' "$work/bad-metadata/Cargo.toml" | cut -d: -f1)
if [ -n "$line" ] && ! cargo_in bad-metadata bad-metadata -- build --features zstd; then
	says bad-metadata "$log/bad-metadata" "zstd-demo's facility table, in Cargo.toml:" \
		"Cargo.toml:$line:1: unknown key \`pkgconfig\` in provider \`zstd\` of [package.metadata.flagsplit.compress]" \
		"fix: did you mean \`pkg-config\`?"
else
	cat "$log/bad-metadata" 2>/dev/null || true
	fail "bad-metadata: a misspelt key in [package.metadata.flagsplit] built"
fi
# The probe in OUT_DIR, from the build with libzstd selected.
probes=$(ls "$CARGO_TARGET_DIR"/debug/build/zstd-demo-*/out/flagsplit-probes/ 2>/dev/null | sort -u | tr '\n' ' ')
[ "$probes" = "probe-compress-zstd.c " ] && grep -q '^#include <zstd.h>$' "$CARGO_TARGET_DIR"/debug/build/zstd-demo-*/out/flagsplit-probes/probe-compress-zstd.c &&
	pass "zstd-zstd: the probe was generated from Cargo.toml (OUT_DIR/flagsplit-probes/probe-compress-zstd.c, including zstd.h)" ||
	fail "zstd-zstd: the generated probes in OUT_DIR are '$probes'"

note "the [env] blocks of README.md and the book's library chapter are examples/inflate-app's"
app_env=$(sed -n '/^\[env\]$/,$p' examples/inflate-app/.cargo/config.toml)
for doc in README.md book/src/library.md; do
	doc_env=$(awk '$0 == "<!-- application env -->" { on = 1; next } on && /^```toml$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$doc")
	[ "$doc_env" = "$app_env" ] && pass "$doc's [env] block = examples/inflate-app/.cargo/config.toml's" || fail "$doc's [env] block differs from examples/inflate-app/.cargo/config.toml: $doc_env"
done

finish "guide case"

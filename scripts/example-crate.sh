#!/usr/bin/env bash
# The example libraries through the example application: examples/inflate-app (a workspace of its
# own) selects inflate-demo's `inflate`, checksum-demo's `sha1` and zstd-demo's `compress`
# providers in its .cargo/config.toml [env] (zstd-demo's `zstd` links libzstd, which its build
# script finds, probes and links through flagsplit-config with no -sys crate: libzstd-dev,
# pkg-config, the zstd tool; the checks with libzstd-dev hidden need root). Release builds
# with each provider, checking what each says it is (`inflate-app --build-options`), what it
# links (`readelf -d` NEEDED), that it round-trips data compressed by Python's zlib (and that its
# --sha1 agrees with sha1sum, and its --zstd output decompresses with `zstd -d`), the configuration
# errors (same form as flagsplit's, with the library's note), every kind of error (unknown
# provider, feature off, probe failing, version too old) in the libraries' own words, none naming
# flagsplit; then every ```sh block of examples/inflate/README.md,
# examples/inflate-app/README.md, examples/zstd/README.md and of the book's chapter book/src/library.md
# ("Using flagsplit-config in your own crate"), run as written. scripts/library-case.sh checks what is particular to a library (rebuilds,
# a dependent's feature, two libraries, cargo install, a directory source).
#
# Doc blocks: a ```sh block is run with `bash -eo pipefail` (examples/inflate/README.md's in
# examples/inflate, examples/inflate-app/README.md's in examples/inflate-app, the book chapter's at the
# root); `<!-- fails -->` on the line before it means it must fail; a ```text block right after it
# lists lines that must appear in its output (as substrings).
#
# Usage: scripts/example-crate.sh            (run by scripts/test.sh)
# Target directory: target/example (shared with scripts/library-case.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=$root/target/example
. scripts/lib/checks.sh
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
lib=$root/examples/inflate
app=$root/examples/inflate-app
for v in $(compgen -e | grep -E '^(INFLATE_DEMO_|CHECKSUM_DEMO_|ZSTD_DEMO_|LIBZ_SYS_STATIC$|PKG_CONFIG_PATH$)' || true); do unset "$v"; done

B=$CARGO_TARGET_DIR/release/inflate-app

# The builds below run --offline; the application's lockfile is its own (it may pin versions the
# workspace does not use), so its crates are fetched first.
(cd "$app" && cargo fetch --locked --quiet) || fail "examples/inflate-app: cargo fetch --locked failed"

# cargo_build NAME [VAR=...]... [-- cargo args...] — release build of the application (in its
# directory: its .cargo/config.toml applies), output in $log/NAME; its status
cargo_build() {
	local name=$1
	shift
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	(cd "$app" && env "${vars[@]}" cargo build --release --locked --offline "$@") >"$log/$name" 2>&1
}

# build NAME [VAR=...]... [-- cargo args...] — the same, which must succeed
build() {
	if ! cargo_build "$@"; then
		cat "$log/$1"
		fail "$1: build failed"
		return 1
	fi
}

# expect_libz NAME libz|nolibz — whether NEEDED has libz.so.1
expect_libz() {
	local name=$1 want=$2 libs got=nolibz
	libs=$(needed "$B" | tr '\n' ' ')
	case " $libs" in *" libz.so.1 "*) got=libz ;; esac
	[ "$got" = "$want" ] && pass "$name: NEEDED: $libs" || fail "$name: NEEDED is '$libs', expected $want"
}

# expect_options NAME [+LINE | ~PATTERN]... — lines of inflate-demo's block of
# `inflate-app --build-options`
expect_options() {
	local name=$1 out
	shift
	# The [inflate-demo ...] block only (checksum-demo's has a features: and a links: line too).
	out=$("$B" --build-options | awk 'substr($0, 1, 1) == "[" { on = (index($0, "[inflate-demo ") == 1); next } on') || { fail "$name: --build-options failed"; return; }
	for want in "$@"; do
		case $want in
		+*) grep -qxF -- "${want#+}" <<<"$out" && pass "$name: has '${want#+}'" || fail "$name: no line '${want#+}' in: $out" ;;
		~*) grep -qE -- "${want#\~}" <<<"$out" && pass "$name: matches /${want#\~}/" || fail "$name: nothing matches /${want#\~}/ in: $out" ;;
		esac
	done
}

# expect_zstd NAME PROVIDER — zstd-demo's block of --build-options names PROVIDER, NEEDED has
# libzstd.so.1 exactly when it is zstd, and `--zstd` output decompresses with the zstd tool
expect_zstd() {
	local name=$1 provider=$2 out libs f
	out=$("$B" --build-options | awk 'substr($0, 1, 1) == "[" { on = (index($0, "[zstd-demo ") == 1); next } on')
	grep -qxF "compress-provider: $provider (from ZSTD_DEMO_COMPRESS_PROVIDER)" <<<"$out" && pass "$name: [zstd-demo] compress-provider: $provider" || fail "$name: [zstd-demo] is: $out"
	libs=$(needed "$B" | tr '\n' ' ')
	case "$provider: $libs" in
	"zstd: "*" libzstd.so.1 "* | "zstd: libzstd.so.1 "*) pass "$name: NEEDED has libzstd.so.1" ;;
	zstd:*) fail "$name: NEEDED lacks libzstd.so.1: $libs" ;;
	*libzstd*) fail "$name: NEEDED has libzstd with $provider: $libs" ;;
	*) pass "$name: NEEDED has no libzstd" ;;
	esac
	if [ "$provider" = zstd ]; then
		grep -qE '^zstd: [0-9.]+ \(built against [0-9.]+, located by pkg-config \(libzstd\)\)$' <<<"$out" && pass "$name: $(grep '^zstd: ' <<<"$out")" || fail "$name: no zstd: line in: $out"
	fi
	for f in "$log"/data-*.orig; do
		if "$B" --zstd <"$f" | zstd -dcq | cmp -s - "$f"; then
			pass "$name: $(basename "$f" .orig) through --zstd and zstd -d"
		else
			fail "$name: $(basename "$f" .orig) does not come back from --zstd through zstd -d"
		fi
	done
}

# library_lines LOG — what the example libraries' build scripts said (their `error:`/`warning:`
# lines), with the repository's and Cargo's directories replaced, so that a directory named
# after the project does not count
library_lines() {
	grep -E '^(error|warning): (inflate-demo|checksum-demo|zstd-demo)@' "$1" | sed -e "s|$root|ROOT|g" -e "s|${CARGO_HOME:-$HOME/.cargo}|CARGO_HOME|g" || true
}

# own_words NAME — the libraries' messages in $log/NAME name only the libraries: none names
# flagsplit (the crate they are built with)
own_words() {
	local lines
	lines=$(library_lines "$log/$1")
	if [ -z "$lines" ]; then
		fail "$1: no message of an example library"
	elif grep -qi flagsplit <<<"$lines"; then
		fail "$1: a library's message names flagsplit: $(grep -i flagsplit <<<"$lines" | head -3)"
	else
		pass "$1: $(wc -l <<<"$lines") lines of the libraries' messages, none names flagsplit"
	fi
}

# round_trip NAME — every test file through the binary, compared with the original; truncated and
# corrupt input must fail
round_trip() {
	local name=$1 f
	for f in "$log"/data-*.orig; do
		if "$B" <"${f%.orig}.z" 2>"$log/rt.err" | cmp -s - "$f"; then
			pass "$name: $(basename "$f" .orig) round-trips"
		else
			fail "$name: $(basename "$f" .orig) does not round-trip: $(cat "$log/rt.err")"
		fi
	done
	local want got
	want=$(sha1sum <"$log/data-text.orig" | cut -d' ' -f1)
	got=$("$B" --sha1 <"$log/data-text.z") || got="(failed)"
	[ "$got" = "$want" ] && pass "$name: --sha1 of data-text = sha1sum: $got" || fail "$name: --sha1 says $got, sha1sum $want"
	if "$B" <"$log/truncated.z" >/dev/null 2>"$log/rt.err"; then
		fail "$name: truncated input accepted"
	else
		grep -q 'ends before the end of the zlib stream' "$log/rt.err" && pass "$name: truncated input: $(cat "$log/rt.err")" || fail "$name: truncated input: $(cat "$log/rt.err")"
	fi
	if "$B" <"$log/data-text.orig" >/dev/null 2>"$log/rt.err"; then
		fail "$name: data that is not zlib accepted"
	else
		grep -q 'not valid zlib data' "$log/rt.err" && pass "$name: not zlib: $(cat "$log/rt.err")" || fail "$name: not zlib: $(cat "$log/rt.err")"
	fi
}

# expect_build_error NAME 'TEXT'... -- [VAR=...]... [-- cargo args...] — the build must fail and
# print every TEXT
expect_build_error() {
	local name=$1
	shift
	local texts=()
	while [ "$1" != "--" ]; do texts+=("$1"); shift; done
	shift
	if cargo_build "$name" "$@"; then
		fail "$name: build succeeded, expected an error"
		return
	fi
	says "$name" "$log/$name" "${texts[@]}"
}

# run_doc FILE DIR [SECTION] — the ```sh blocks of FILE (under the `## SECTION` heading only, when
# given), each run in DIR
run_doc() {
	local doc=$1 dir=$2 section=${3:-} sh n status line blocks=0
	rm -f "$log"/doc-*
	awk -v out="$log/doc" -v section="$section" '
		kind == "" && section != "" && /^## / { insec = ($0 == "## " section); next }
		section != "" && !insec { next }
		kind == "" && /^<!-- fails -->$/ { fails = 1; next }
		kind == "" && /^```sh$/ {
			n++; kind = "sh"; file = out "-" n ".sh"; printf "" > file
			if (fails) printf "" > (out "-" n ".fails")
			fails = 0; next
		}
		kind == "" && /^```text$/ && pending { kind = "text"; file = out "-" pending ".expect"; pending = 0; next }
		/^```/ {
			if (kind == "") { kind = "other"; pending = 0 }
			else { if (kind == "sh") pending = n; kind = "" }
			next
		}
		kind == "sh" || kind == "text" { print > file; next }
		kind == "" && NF { pending = 0 }
	' "$doc"
	for sh in $(find "$log" -name 'doc-*.sh' | sort -V); do
		blocks=$((blocks + 1))
		n=${sh%.sh}
		status=0
		(cd "$dir" && bash -eo pipefail -c "$(cat "$sh")") >"$n.out" 2>&1 || status=$?
		local what
		what="$doc: \`$(head -1 "$sh")\`"
		if [ -e "$n.fails" ]; then
			[ "$status" != 0 ] && pass "$what fails as shown" || fail "$what succeeded, the doc says it fails"
		else
			[ "$status" = 0 ] && pass "$what runs" || { fail "$what failed (status $status)"; cat "$n.out"; }
		fi
		[ -e "$n.expect" ] || continue
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			grep -qF -- "$line" "$n.out" && pass "$doc: output has '$line'" || { fail "$doc: output of \`$(head -1 "$sh")\` lacks '$line'"; cat "$n.out"; }
		done <"$n.expect"
	done
	[ "$blocks" -gt 0 ] || fail "$doc: no \`\`\`sh block found${section:+ under ## $section}"
}

note "test data (compressed by Python's zlib)"
python3 - "$log" <<'EOF'
import os, random, sys, zlib
d = sys.argv[1]
rng = random.Random(7)
text = "".join(f"line {i}: {rng.random()}\n" for i in range(60000)).encode()
files = {
    "empty": b"",
    "text": text,  # ~1.6 MB, several 64 KiB buffers of input and output
    "random": bytes(rng.getrandbits(8) for _ in range(300000)),  # stored blocks
    "zeros": bytes(4 << 20),  # ratio ~1000: many output buffers per input buffer
}
for name, data in files.items():
    open(os.path.join(d, f"data-{name}.orig"), "wb").write(data)
    open(os.path.join(d, f"data-{name}.z"), "wb").write(zlib.compress(data, 9))
open(os.path.join(d, "truncated.z"), "wb").write(zlib.compress(text)[:-100])
EOF
pass "$(find "$log" -name 'data-*.orig' | wc -l) files"

note "the application's [env]: zlib"
if build env-zlib; then
	expect_options env-zlib "+INFLATE: ZLIB" "~^zlib: [0-9.]+ \(system, dynamic\)$" "+inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)" "+links: libz"
	expect_libz env-zlib libz
	round_trip env-zlib
	grep -q 'libz-sys compiled its bundled zlib' "$log/env-zlib" && fail "env-zlib: libz-sys did not find the system zlib (zlib1g-dev, pkg-config)" || pass "env-zlib: no bundled-zlib warning"
	expect_zstd env-zlib zstd
fi

note "INFLATE_DEMO_INFLATE_PROVIDER=miniz in the shell: it wins over [env] (no force = true there)"
if build shell-miniz INFLATE_DEMO_INFLATE_PROVIDER=miniz; then
	expect_options shell-miniz "+INFLATE: MINIZ_OXIDE" "+features: zlib" "+inflate-provider: miniz (from INFLATE_DEMO_INFLATE_PROVIDER)" "+links: (none)"
	expect_libz shell-miniz nolibz
	round_trip shell-miniz
fi

note "ZSTD_DEMO_COMPRESS_PROVIDER=stored in the shell: zstd-demo's pure-Rust frames, no libzstd"
if build shell-stored ZSTD_DEMO_COMPRESS_PROVIDER=stored; then
	expect_zstd shell-stored stored
fi

note "[env] zlib with LIBZ_SYS_STATIC=1 (libz-sys's bundled zlib)"
if build zlib-static LIBZ_SYS_STATIC=1; then
	expect_options zlib-static "+INFLATE: ZLIB" "~^zlib: [0-9.]+ \(bundled by libz-sys, static\)$" "+links: (none: libz inside the binary)"
	expect_libz zlib-static nolibz
	round_trip zlib-static
fi

note "configuration errors, with the library's note"
note_line="note: inflate-demo is a library; its INFLATE_DEMO_* variables reach its build script from the environment of the whole build: the shell, or the [env] table of the application's .cargo/config.toml (Cargo does not say which)"
expect_build_error unknown-provider "INFLATE_DEMO_INFLATE_PROVIDER=gzip: \`gzip\` is not a provider of inflate" "valid values: miniz, zlib" "$note_line" -- INFLATE_DEMO_INFLATE_PROVIDER=gzip
expect_build_error typo "unknown variable INFLATE_DEMO_INFLATE_PROVDER" "valid build-time names: INFLATE_DEMO_CONFIG, INFLATE_DEMO_INFLATE_PROVIDER" \
	"did you mean INFLATE_DEMO_INFLATE_PROVIDER?" "$note_line" -- INFLATE_DEMO_INFLATE_PROVDER=zlib
expect_build_error unknown-name "unknown variable INFLATE_DEMO_PROVIDER" "valid build-time names: INFLATE_DEMO_CONFIG, INFLATE_DEMO_INFLATE_PROVIDER" \
	-- INFLATE_DEMO_PROVIDER=zlib
# plain-user alone does not turn `zlib` on.
expect_build_error feature-off "INFLATE_DEMO_INFLATE_PROVIDER=zlib selects the zlib inflate provider, which this build does not compile: Cargo feature \`zlib\` is off (features on: (none))" \
	"fix: turn the feature on where the application depends on inflate-demo: inflate-demo = { version = \"...\", features = [\"zlib\"] } (\`--features zlib\` when inflate-demo itself is built), or unset INFLATE_DEMO_INFLATE_PROVIDER to select a compiled provider (miniz)" "$note_line" -- -- -p plain-user
cfg=$log/inflate.toml
printf '[inflate]\nprovider = "gzip"\n' >"$cfg"
expect_build_error named-file "$cfg:2:12: [inflate] provider = \"gzip\": \`gzip\` is not a provider of inflate" 'valid values: "miniz", "zlib"' "$note_line" \
	-- INFLATE_DEMO_CONFIG="$cfg"
expect_build_error missing-file "INFLATE_DEMO_CONFIG=$log/nope.toml names a config file that cannot be read" -- INFLATE_DEMO_CONFIG="$log/nope.toml"

note "a misspelt [env] entry an incremental build misses, caught by the application's test (check_environment)"
# A new variable is not one a build script named with rerun-if-env-changed, so Cargo does not rerun
# it: the build goes on with the old selection and says nothing. tests/config.rs sees the same [env].
typo_env=(--config 'env.INFLATE_DEMO_INFLATE_PROVDER="miniz"')
if build typo-warm && (cd "$app" && cargo build --release --locked --offline "${typo_env[@]}") >"$log/typo-incremental" 2>&1; then
	grep -q PROVDER "$log/typo-incremental" && fail "typo-incremental: the build saw the misspelt name (this check expects Cargo not to rerun): $(cat "$log/typo-incremental")" || pass "typo-incremental: the incremental build passed without a word about INFLATE_DEMO_INFLATE_PROVDER"
else
	cat "$log/typo-incremental"
	fail "typo-incremental: the incremental build failed"
fi
if (cd "$app" && cargo test --release --locked --offline --test config "${typo_env[@]}") >"$log/typo-test" 2>&1; then
	fail "typo-test: tests/config.rs passed with INFLATE_DEMO_INFLATE_PROVDER in [env]"
else
	says typo-test "$log/typo-test" "unknown variable INFLATE_DEMO_INFLATE_PROVDER in the build environment" "did you mean INFLATE_DEMO_INFLATE_PROVIDER?"
fi
(cd "$app" && cargo test --release --locked --offline --test config) >"$log/typo-none" 2>&1 && pass "typo-none: tests/config.rs passes with the committed [env]" || { cat "$log/typo-none"; fail "typo-none: tests/config.rs fails with the committed [env]"; }

note "every kind of error, in the libraries' own words: no message names flagsplit"
# --keep-going: every library's build script runs and says its own error.
expect_build_error words-unknown "INFLATE_DEMO_INFLATE_PROVIDER=gzip: \`gzip\` is not a provider of inflate" \
	"CHECKSUM_DEMO_SHA1_PROVIDER=md5: \`md5\` is not a provider of sha1" "ZSTD_DEMO_COMPRESS_PROVIDER=lz4: \`lz4\` is not a provider of compress" \
	-- INFLATE_DEMO_INFLATE_PROVIDER=gzip CHECKSUM_DEMO_SHA1_PROVIDER=md5 ZSTD_DEMO_COMPRESS_PROVIDER=lz4 -- --keep-going
own_words words-unknown
# [env] selects zlib, dc and zstd; without the application's features dc and zstd are not
# compiled (zlib-user turns inflate-demo's zlib on: its feature-off case is plain-user's, above).
own_words feature-off
expect_build_error words-feature-off "CHECKSUM_DEMO_SHA1_PROVIDER=dc selects the dc sha1 provider" "ZSTD_DEMO_COMPRESS_PROVIDER=zstd selects the zstd compress provider" \
	"turn the feature on where the application depends on zstd-demo: zstd-demo = { version = \"...\", features = [\"zstd\"] }" \
	-- -- --keep-going --no-default-features
own_words words-feature-off
# A C compiler that cannot link libzstd for zstd-demo's probe (it compiles everything else).
cat >"$log/cc-nozstd" <<'EOS'
#!/bin/sh
case " $* " in *"/probe-zstd.c "*" -lzstd "*) echo "/usr/bin/ld: cannot find -lzstd: No such file or directory" >&2; exit 1 ;; esac
exec cc "$@"
EOS
chmod +x "$log/cc-nozstd"
expect_build_error words-probe-fails "zstd probe failed: one-shot compression in libzstd (\`ZSTD_compress\`) could not be compiled and linked from probe-zstd.c" \
	"asked for by: compress = zstd (ZSTD_DEMO_COMPRESS_PROVIDER)" "cannot find -lzstd" "apt-get install libzstd-dev pkg-config" \
	"or do without zstd here: ZSTD_DEMO_COMPRESS_PROVIDER=stored" -- CC="$log/cc-nozstd"
own_words words-probe-fails
# An old libzstd: its pkg-config file and zstd.h say 1.3.8 (the library linked is the system's).
old=$log/old-zstd
mkdir -p "$old/include" "$old/pkgconfig"
printf '#define ZSTD_VERSION_MAJOR 1\n#define ZSTD_VERSION_MINOR 3\n#define ZSTD_VERSION_RELEASE 8\n' >"$old/include/zstd.h"
printf 'Name: libzstd\nDescription: zstd 1.3.8\nVersion: 1.3.8\nLibs: -lzstd\nCflags: -I%s/include\n' "$old" >"$old/pkgconfig/libzstd.pc"
expect_build_error words-too-old "zstd version check failed: zstd 1.3.8 is too old: zstd-demo needs zstd 1.4.0 or newer" \
	"located by pkg-config (libzstd); headers in $old/include" "asked for by: compress = zstd (ZSTD_DEMO_COMPRESS_PROVIDER)" \
	"apt-get install libzstd-dev pkg-config" -- PKG_CONFIG_PATH="$old/pkgconfig"
own_words words-too-old

note "libzstd found, checked and linked by flagsplit-config (zstd-demo has no -sys crate)"
# ZSTD_STATIC=1: the archive (pkg-config --static's libraries after it), no libzstd.so.1 in NEEDED.
if build zstd-static ZSTD_STATIC=1; then
	out=$("$B" --build-options | awk 'substr($0, 1, 1) == "[" { on = (index($0, "[zstd-demo ") == 1); next } on')
	grep -qE '^zstd: [0-9.]+ \(built against [0-9.]+, located by pkg-config \(libzstd\), static\)$' <<<"$out" && pass "zstd-static: $(grep '^zstd: ' <<<"$out")" || fail "zstd-static: no static zstd: line in: $out"
	grep -qxF 'links: (none: libzstd inside the binary)' <<<"$out" && pass "zstd-static: links: (none: libzstd inside the binary)" || fail "zstd-static: links line in: $out"
	libs=$(needed "$B" | tr '\n' ' ')
	case " $libs" in *libzstd*) fail "zstd-static: NEEDED has libzstd: $libs" ;; *) pass "zstd-static: NEEDED: $libs" ;; esac
	f=$log/data-text.orig
	"$B" --zstd <"$f" | zstd -dcq | cmp -s - "$f" && pass "zstd-static: the binary runs; --zstd output comes back through zstd -d" || fail "zstd-static: --zstd does not round-trip"
fi
# As on a machine without libzstd-dev: its headers, libzstd.pc, libzstd.so and libzstd.a hidden in a
# private mount namespace (scripts/lib/hide-lib.sh; libzstd.so.1 stays, as without the -dev package).
hidden_zstd() { "$root/scripts/lib/hide-lib.sh" zstd "$@"; }
if [ "$(id -u)" != 0 ]; then
	[ "${CI:-false}" = true ] && fail "CI=true and not root: the hidden-libzstd-dev checks need a private mount namespace" || echo "SKIPPED: the hidden-libzstd-dev checks (not root)"
else
	# Cargo reruns a build script only when what it watches changes: hiding the files is not one.
	cargo clean --release -p zstd-demo --quiet
	if (cd "$app" && RUST_BACKTRACE=1 hidden_zstd cargo build --release --locked --offline) >"$log/zstd-hidden" 2>&1; then
		fail "zstd-hidden: the build passed without libzstd-dev"
	else
		says zstd-hidden "$log/zstd-hidden" "error: zstd-demo@0.1.0: zstd could not be found: pkg-config knows no usable module libzstd" \
			"asked for by: compress = zstd (ZSTD_DEMO_COMPRESS_PROVIDER)" "Debian/Ubuntu: apt-get install libzstd-dev pkg-config" \
			"name the directories yourself: ZSTD_LIB_DIR=/path/lib ZSTD_INCLUDE_DIR=/path/include" \
			"or do without zstd here: ZSTD_DEMO_COMPRESS_PROVIDER=stored"
		grep -q panicked "$log/zstd-hidden" && fail "zstd-hidden: a panic: $(grep panicked "$log/zstd-hidden")" || pass "zstd-hidden: no panic, no backtrace (RUST_BACKTRACE=1)"
		own_words zstd-hidden
	fi
	# `stored` with the feature on: nothing of libzstd is needed, and the library's tests pass.
	if (cd "$app" && hidden_zstd env ZSTD_DEMO_COMPRESS_PROVIDER=stored cargo build --release --locked --offline) >"$log/zstd-hidden-stored" 2>&1; then
		libs=$(needed "$B" | tr '\n' ' ')
		case " $libs" in *libzstd*) fail "zstd-hidden-stored: NEEDED has libzstd: $libs" ;; *) pass "zstd-hidden-stored: builds with --features zstd; NEEDED: $libs" ;; esac
	else
		cat "$log/zstd-hidden-stored"
		fail "zstd-hidden-stored: the stored provider does not build without libzstd-dev"
	fi
	if (cd examples/zstd && hidden_zstd env ZSTD_DEMO_COMPRESS_PROVIDER=stored cargo test --release --features zstd --offline) >"$log/zstd-hidden-tests" 2>&1; then
		pass "zstd-hidden-tests: zstd-demo's tests pass with stored and --features zstd ($(grep -o '[0-9]* passed' "$log/zstd-hidden-tests" | head -1))"
	else
		cat "$log/zstd-hidden-tests"
		fail "zstd-hidden-tests: zstd-demo's tests fail with stored and --features zstd"
	fi
	# A copy of the library named by the variables, pkg-config not asked: the probe, the link and
	# compat/zstd-shim.c (compiled with the include directory the probe returned) use the copy, the
	# only zstd.h and libzstd.so the hidden build can see.
	copy=$log/zstd-copy-tree
	mkdir -p "$copy/lib" "$copy/include"
	cp /usr/include/zstd.h /usr/include/zstd_errors.h "$copy/include/"
	cp -P "/usr/lib/$(gcc -print-multiarch)"/libzstd.so* "$copy/lib/"
	if (cd "$app" && hidden_zstd env ZSTD_NO_PKG_CONFIG=1 ZSTD_LIB_DIR="$copy/lib" ZSTD_INCLUDE_DIR="$copy/include" cargo build --release --locked --offline) >"$log/zstd-copy" 2>&1; then
		out=$("$B" --build-options | awk 'substr($0, 1, 1) == "[" { on = (index($0, "[zstd-demo ") == 1); next } on')
		grep -qF "located by ZSTD_NO_PKG_CONFIG=1 ZSTD_LIB_DIR=$copy/lib ZSTD_INCLUDE_DIR=$copy/include)" <<<"$out" && pass "zstd-copy: $(grep '^zstd: ' <<<"$out")" || fail "zstd-copy: not located by the variables: $out"
		needed "$B" | grep -qx libzstd.so.1 && pass "zstd-copy: NEEDED has libzstd.so.1" || fail "zstd-copy: NEEDED lacks libzstd.so.1"
		f=$log/data-text.orig
		"$B" --zstd <"$f" | zstd -dcq | cmp -s - "$f" && pass "zstd-copy: --zstd output comes back through zstd -d" || fail "zstd-copy: --zstd does not round-trip"
	else
		cat "$log/zstd-copy"
		fail "zstd-copy: the build with ZSTD_NO_PKG_CONFIG, ZSTD_LIB_DIR and ZSTD_INCLUDE_DIR failed"
	fi
	cargo clean --release -p zstd-demo --quiet
fi

note "documentation commands, as written"
run_doc examples/inflate/README.md "$lib"
run_doc examples/inflate-app/README.md "$app"
run_doc examples/zstd/README.md "$root/examples/zstd"
run_doc book/src/library.md "$root"

finish "example crate"

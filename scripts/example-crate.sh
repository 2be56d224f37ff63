#!/usr/bin/env bash
# examples/inflate, a crate of its own that uses flagsplit-config for its `inflate` facility:
# release builds with each provider, checking what each says it is (`--build-options`), what it links
# (`readelf -d` NEEDED), that it round-trips data compressed by Python's zlib, the configuration
# errors (same form as flagsplit's), the local config.toml and its rebuilds; then every ```sh block
# of examples/inflate/README.md and of the README section "Using flagsplit-config in your own crate",
# run as written.
#
# Doc blocks: a ```sh block is run with `bash -eo pipefail` (examples/inflate/README.md's in
# examples/inflate, README.md's at the root); `<!-- fails -->` on the line before it means it must
# fail; a ```text block right after it lists lines that must appear in its output (as substrings).
#
# Usage: scripts/example-crate.sh            (run by scripts/test.sh)
# Target directory: target/example.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=$root/target/example
. scripts/lib/checks.sh
log=$(mktemp -d)
pkg=$root/examples/inflate
local_cfg=$pkg/config.toml
# The checks write the example's own config.toml: keep a user's copy aside and put it back.
[ -e "$local_cfg" ] && mv "$local_cfg" "$log/config.toml.saved"
restore() {
	rm -f "$local_cfg"
	if [ -e "$log/config.toml.saved" ]; then mv "$log/config.toml.saved" "$local_cfg"; fi
	rm -rf "$log"
}
trap restore EXIT
for v in $(compgen -e | grep -E '^(INFLATE_DEMO_|LIBZ_SYS_STATIC$)' || true); do unset "$v"; done

B=$CARGO_TARGET_DIR/release/inflate-demo

# cargo_build NAME [VAR=...]... [-- cargo args...] — release build of inflate-demo, output in
# $log/NAME; its status
cargo_build() {
	local name=$1
	shift
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	env "${vars[@]}" cargo build --release --locked -p inflate-demo "$@" >"$log/$name" 2>&1
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

# expect_options NAME [+LINE | ~PATTERN]... — lines of `inflate-demo --build-options`
expect_options() {
	local name=$1 out
	shift
	out=$("$B" --build-options) || { fail "$name: --build-options failed"; return; }
	for want in "$@"; do
		case $want in
		+*) grep -qxF -- "${want#+}" <<<"$out" && pass "$name: has '${want#+}'" || fail "$name: no line '${want#+}' in: $out" ;;
		~*) grep -qE -- "${want#\~}" <<<"$out" && pass "$name: matches /${want#\~}/" || fail "$name: nothing matches /${want#\~}/ in: $out" ;;
		esac
	done
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

# units_rebuilt NAME [cargo args...] — how many units a build compiled (0 = all Fresh)
units_rebuilt() {
	local name=$1
	shift
	cargo build --release --locked -p inflate-demo -v "$@" >"$log/$name" 2>&1 || { cat "$log/$name"; return 1; }
	grep -cE '^ +(Compiling|Dirty) ' "$log/$name" || true
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

note "default features: miniz"
if build default; then
	expect_options default "+INFLATE: MINIZ_OXIDE" "+features: (none)" "+inflate-provider: miniz (from default)" "+links: (none)"
	expect_libz default nolibz
	round_trip default
fi

note "--features zlib: the system zlib"
if build zlib -- --features zlib; then
	expect_options zlib "+INFLATE: ZLIB" "~^zlib: [0-9.]+ \(system, dynamic\)$" "+features: zlib" "+inflate-provider: zlib (from default with feature zlib)" "+links: libz"
	expect_libz zlib libz
	round_trip zlib
	grep -q 'libz-sys compiled its bundled zlib' "$log/zlib" && fail "zlib: libz-sys did not find the system zlib (zlib1g-dev, pkg-config)" || pass "zlib: no bundled-zlib warning"
fi

note "--features zlib with INFLATE_DEMO_INFLATE_PROVIDER=miniz"
if build zlib-miniz INFLATE_DEMO_INFLATE_PROVIDER=miniz -- --features zlib; then
	expect_options zlib-miniz "+INFLATE: MINIZ_OXIDE" "+features: zlib" "+inflate-provider: miniz (from INFLATE_DEMO_INFLATE_PROVIDER)" "+links: (none)"
	expect_libz zlib-miniz nolibz
	round_trip zlib-miniz
fi

note "--features zlib with LIBZ_SYS_STATIC=1 (libz-sys's bundled zlib)"
if build zlib-static LIBZ_SYS_STATIC=1 -- --features zlib; then
	expect_options zlib-static "+INFLATE: ZLIB" "~^zlib: [0-9.]+ \(bundled by libz-sys, static\)$" "+links: (none: libz inside the binary)"
	expect_libz zlib-static nolibz
	round_trip zlib-static
fi

note "configuration errors"
expect_build_error feature-off "INFLATE_DEMO_INFLATE_PROVIDER=zlib selects the zlib inflate provider, which this build does not compile: Cargo feature \`zlib\` is off" \
	"fix: build with \`--features zlib\`, or unset INFLATE_DEMO_INFLATE_PROVIDER to select a compiled provider (miniz)" -- INFLATE_DEMO_INFLATE_PROVIDER=zlib
expect_build_error unknown-provider "INFLATE_DEMO_INFLATE_PROVIDER=gzip: \`gzip\` is not a provider of inflate" "valid values: miniz, zlib" -- INFLATE_DEMO_INFLATE_PROVIDER=gzip
expect_build_error typo "unknown variable INFLATE_DEMO_INFLATE_PROVDER" "valid build-time names: INFLATE_DEMO_CONFIG, INFLATE_DEMO_INFLATE_PROVIDER" \
	"did you mean INFLATE_DEMO_INFLATE_PROVIDER?" -- INFLATE_DEMO_INFLATE_PROVDER=zlib
expect_build_error unknown-name "unknown variable INFLATE_DEMO_PROVIDER" "valid build-time names: INFLATE_DEMO_CONFIG, INFLATE_DEMO_INFLATE_PROVIDER" \
	-- INFLATE_DEMO_PROVIDER=zlib
cfg=$log/inflate.toml
printf '[inflate]\nprovider = "gzip"\n' >"$cfg"
expect_build_error named-file "$cfg:2:12: [inflate] provider = \"gzip\": \`gzip\` is not a provider of inflate" 'valid values: "miniz", "zlib"' -- INFLATE_DEMO_CONFIG="$cfg"
printf '[inflate]\nprovider = "zlib"\n' >"$cfg"
expect_build_error named-file-feature-off "$cfg:2:12: [inflate] provider = \"zlib\" selects the zlib inflate provider" "fix: build with \`--features zlib\`, or change $cfg" \
	-- INFLATE_DEMO_CONFIG="$cfg"
expect_build_error missing-file "INFLATE_DEMO_CONFIG=$log/nope.toml names a config file that cannot be read" -- INFLATE_DEMO_CONFIG="$log/nope.toml"
printf '# local\n[inflate]\nprovider = "gzip"\n' >"$local_cfg"
expect_build_error local-file "config.toml:3:12: [inflate] provider = \"gzip\": \`gzip\` is not a provider of inflate" 'valid values: "miniz", "zlib"' --
rm -f "$local_cfg"

note "the local config.toml, watched through .config-watch"
[ "$(readlink "$pkg/.config-watch/config.toml")" = ../config.toml ] && pass ".config-watch/config.toml -> ../config.toml" || fail ".config-watch/config.toml is not a symlink to ../config.toml"
if build watch-none -- --features zlib; then
	n=$(units_rebuilt watch-fresh --features zlib)
	[ "$n" = 0 ] && pass "unchanged: Fresh" || fail "unchanged build rebuilt $n units"
	printf '[inflate]\nprovider = "miniz"\n' >"$local_cfg"
	n=$(units_rebuilt watch-created --features zlib)
	[ "$n" -gt 0 ] && pass "created config.toml: rebuilt $n units" || fail "creating config.toml did not rebuild"
	expect_options watch-created "+config-file: config.toml" "+inflate-provider: miniz (from config.toml:2:12)"
	expect_libz watch-created nolibz
	n=$(units_rebuilt watch-fresh2 --features zlib)
	[ "$n" = 0 ] && pass "unchanged config.toml: Fresh" || fail "unchanged config.toml rebuilt $n units"
	rm -f "$local_cfg"
	n=$(units_rebuilt watch-removed --features zlib)
	[ "$n" -gt 0 ] && pass "removed config.toml: rebuilt $n units" || fail "removing config.toml did not rebuild"
	expect_options watch-removed "+config-file: (none)" "+inflate-provider: zlib (from default with feature zlib)"
	expect_libz watch-removed libz
fi

note "documentation commands, as written"
run_doc examples/inflate/README.md "$pkg"
run_doc README.md "$root" "Using flagsplit-config in your own crate"

finish "example crate"

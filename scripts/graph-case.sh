#!/usr/bin/env bash
# The graph-wide case: tests/graph-workspace is a workspace of its own with two libraries whose
# facility `tls` is of kind `tls` (tls-a, tls-b: `none` by default, or `openssl`, libssl found,
# probed and linked by flagsplit-config with no -sys crate), one whose facility `inflate` is of
# kind `zlib` (zlib-c: `pure-rust` by default, or `system`, zlib through libz-sys), one whose
# facility `decompress` is of a kind of its own, `xz` (xz-d: `none` by default, or `liblzma`), and
# an application (app) that turns every provider feature on and has tls-a as a build-dependency
# too. The graph-wide settings (RUST_BACKEND_*) select for every library at once; each check is
# shown by what the application prints (each library's build options in a section,
# `[tls-a (build script's copy)]` for the host copy) and links (`readelf -d` NEEDED):
#
# - (a) nothing set: the defaults, no libssl, libz or liblzma in NEEDED;
# - (b) RUST_BACKEND_TLS=openssl: both TLS libraries, libssl.so.3 in NEEDED; (c) a library's own
#   variable beats it; target-scoped forms beat plain ones (graph-wide and the crate's own);
# - a kind of a library's own: RUST_BACKEND_XZ, its target-scoped form and the file's `xz` select
#   liblzma; without liblzma-dev (LZMA_NO_PKG_CONFIG=1, lzma.h hidden) the missing header is named;
# - rebuilds exact: another RUST_BACKEND_TLS reruns tls-a's and tls-b's build scripts, not zlib-c's;
# - open kinds: a kind no crate has changes nothing, one close to a kind read is a warning; a
#   misspelt shared provider name fails, listing the valid ones; so does a graph-wide selection that
#   a library cannot meet (no provider answers to it, or its feature is off);
# - RUST_BACKEND_CONFIG (a graph-wide file, top level and [target.'cfg(...)'] / [target.<triple>]);
# - (d) `--target <host>`: tls-a built twice (host copy for app's build script, target copy),
#   both selected by <HOST>_RUST_BACKEND_TLS; another triple's variable changes nothing;
# - (e) RUST_BACKEND_BUNDLED=deny refuses libz-sys's bundled zlib (LIBZ_SYS_STATIC=1);
# - (f) RUST_BACKEND_LINK=static: no libssl/libcrypto in NEEDED, and the binary runs; against
#   libz-sys, which decides itself, static and dynamic each fail naming the switch for that way,
#   and following it builds;
# - no silent default: zlib-c packaged (`cargo package`) and built from a directory source, its
#   `system` feature on and nothing selecting: an error in Cargo's default output; selecting
#   `pure-rust` (the default) explicitly builds; without zlib1g-dev, libz-sys's own copy standing
#   in for the system zlib is an error there too, until LIBZ_SYS_STATIC=1 asks for it.
#
# Usage: scripts/graph-case.sh
# Target directory: target/graph-case; scratch files (logs, backends.toml, the directory source
# and the application's copy) in target/graph-case/scratch, replaced at each run. A first
# `cargo fetch --locked` may use the network; every build after it runs --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
export CARGO_TARGET_DIR=$root/target/graph-case
. scripts/lib/graph-workspace.sh
# Another target's variables must change nothing.
case $host in
aarch64-unknown-linux-gnu) OTHER=X86_64_UNKNOWN_LINUX_GNU ;;
*) OTHER=AARCH64_UNKNOWN_LINUX_GNU ;;
esac
B=$CARGO_TARGET_DIR/debug/app

# run_cargo NAME DIR [VAR=...]... -- CARGO ARGS... — `cargo ARGS` in DIR with the variables, output
# in $log/NAME; its status
run_cargo() {
	local name=$1 dir=$2
	shift 2
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	(cd "$dir" && env "${vars[@]}" cargo "$@") >"$log/$name" 2>&1
}

# build NAME [VAR=...]... [-- cargo build args...] — `cargo build -v --locked --offline` of the
# workspace; its status
build() {
	local name=$1
	shift
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	run_cargo "$name" "$ws" "${vars[@]}" -- build -v --locked --offline "$@"
}

# built NAME ... — the same, which must succeed
built() {
	build "$@" && { pass "$1: built"; return 0; }
	cat "$log/$1"
	fail "$1: build failed"
	return 1
}

# fails NAME ... — the same, which must fail
fails() {
	build "$@" && { fail "$1: the build succeeded"; return 1; }
	pass "$1: the build failed"
}

# hidden NAME LIB DIR [VAR=...]... -- CARGO ARGS... — `cargo ARGS` in DIR as on a machine without
# LIB's development files (scripts/lib/hide-lib.sh: root and a private mount namespace), output in
# $log/NAME; its status, 77 when that cannot be done here (a loud skip, a failure with CI=true)
hidden() {
	local name=$1 lib=$2 dir=$3 st=0
	shift 3
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	"$root/scripts/lib/hide-lib.sh" "$lib" env -C "$dir" "${vars[@]}" cargo "$@" >"$log/$name" 2>&1 || st=$?
	if [ "$st" = 77 ]; then
		if [ "${CI:-false}" = true ]; then fail "$name: CI=true and $(tail -1 "$log/$name")"; else echo "SKIPPED: $name: $(tail -1 "$log/$name")"; fi
	fi
	return "$st"
}

# output NAME BIN — runs BIN (which must exit 0) into $log/NAME.out
output() {
	if "$2" >"$log/$1.out" 2>&1; then
		pass "$1: $(basename "$2") exits 0"
	else
		cat "$log/$1.out"
		fail "$1: $(basename "$2") exits non-zero"
	fi
}

# section NAME HEADING — the lines under `[HEADING]` in $log/NAME.out
section() { awk -v h="[$2]" 'substr($0, 1, 1) == "[" { on = ($0 == h); next } on' "$log/$1.out"; }

# expect NAME HEADING LINE... — each LINE (`~ERE` for a pattern) is a line of that section
expect() {
	local name=$1 heading=$2 out want
	shift 2
	out=$(section "$name" "$heading")
	for want in "$@"; do
		case $want in
		-\~*) grep -qE -- "${want#-\~}" <<<"$out" && fail "$name: [$heading] a line matches /${want#-\~}/ in: $(paste -sd'|' <<<"$out")" || pass "$name: [$heading] no line matches /${want#-\~}/" ;;
		\~*) grep -qE -- "${want#\~}" <<<"$out" && pass "$name: [$heading] /${want#\~}/" || fail "$name: [$heading] nothing matches /${want#\~}/ in: $(paste -sd'|' <<<"$out")" ;;
		*) grep -qxF -- "$want" <<<"$out" && pass "$name: [$heading] $want" || fail "$name: [$heading] has no line '$want' in: $(paste -sd'|' <<<"$out")" ;;
		esac
	done
}

# expect_tls NAME PROVIDER ORIGIN [HEADING...] — the `tls` lines of those sections (default: all
# three TLS sections)
expect_tls() {
	local name=$1 provider=$2 origin=$3 heading use
	shift 3
	[ $# -gt 0 ] || set -- tls-a tls-b "tls-a (build script's copy)"
	case $provider in
	openssl) use='~^use: SSL_CTX created and freed \(OpenSSL 3\.' ;;
	none) use='use: no TLS in this build' ;;
	esac
	for heading in "$@"; do
		expect "$name" "$heading" "tls-provider: $provider (from $origin)" "compiled: $provider" "$use"
	done
}

# expect_zlib NAME PROVIDER ORIGIN — the zlib-c section
expect_zlib() {
	local use
	case $2 in
	pure-rust) use='use: inflated "hello, graph\n" with miniz_oxide' ;;
	system) use='~^use: inflated "hello, graph\\n" with zlib 1\.' ;;
	esac
	expect "$1" zlib-c "inflate-provider: $2 (from $3)" "compiled: $2" "$use"
}

# expect_xz NAME PROVIDER ORIGIN — the xz-d section (a kind of its own)
expect_xz() {
	local use
	case $2 in
	none) use='~^use: no \.xz decoder in this build' ;;
	liblzma) use='~^use: decompressed "hello, xz\\n" with liblzma 5\.' ;;
	esac
	expect "$1" xz-d "decompress-provider: $2 (from $3)" "compiled: $2" "$use"
}

# expect_needed NAME BIN [+LIB | -LIB]... — NEEDED has (+) or lacks (-) an entry starting with LIB
expect_needed() {
	local name=$1 bin=$2 libs want ok=1
	shift 2
	libs=" $(needed "$bin" | tr '\n' ' ')"
	for want in "$@"; do
		case $want in
		+*) [[ $libs == *" ${want#+}"* ]] || { ok=0; fail "$name: NEEDED lacks ${want#+}:$libs"; } ;;
		-*) [[ $libs != *" ${want#-}"* ]] || { ok=0; fail "$name: NEEDED has ${want#-}:$libs"; } ;;
		esac
	done
	[ $ok = 1 ] && pass "$name: NEEDED ($*):$libs"
	return 0
}

# has NAME TEXT... — $log/NAME holds every TEXT; lacks NAME TEXT — it does not
has() {
	local name=$1 t
	shift
	for t in "$@"; do
		grep -qF -- "$t" "$log/$name" && pass "$name: output has '$t'" || { fail "$name: output lacks '$t'"; cat "$log/$name"; }
	done
}
lacks() { grep -qF -- "$2" "$log/$1" && fail "$1: output has '$2'" || pass "$1: output lacks '$2'"; }

# script_runs NAME PACKAGE — how many times the build script of PACKAGE ran (`cargo build -v`)
script_runs() { grep -E '^ +Running ' "$log/$1" | grep -cE "/build/$2-[0-9a-f]+/build-script-build\`\$" || true; }

# expect_runs NAME PACKAGE COUNT
expect_runs() {
	local n
	n=$(script_runs "$1" "$2")
	[ "$n" = "$3" ] && pass "$1: $2's build script ran $n time(s)" || fail "$1: $2's build script ran $n time(s), expected $3"
}

# ran NAME — the packages whose build script ran, sorted, space-separated
ran() { { grep -E '^ +Running ' "$log/$1" | grep -oE '/build/[a-z0-9_-]+-[0-9a-f]+/build-script-build`$' || true; } | sed -E 's|^/build/(.*)-[0-9a-f]+/build-script-build`$|\1|' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# rebuilt NAME — the packages compiled or found dirty, sorted, space-separated
rebuilt() { { grep -E '^ +(Compiling|Dirty) ' "$log/$1" || true; } | awk '{print $2}' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

note "the workspace's crates (the one step that may use the network)"
if run_cargo fetch "$ws" -- fetch --locked; then pass "cargo fetch --locked"; else cat "$log/fetch"; fail "cargo fetch --locked"; fi

note "(a) nothing set: every library's default; path dependencies only warn about the providers compiled"
if built a; then
	output a "$B"
	expect_tls a none default
	expect_zlib a pure-rust default
	expect_xz a none default
	expect_needed a "$B" -libssl -libcrypto -libz -liblzma
	for lib in tls-a tls-b zlib-c xz-d; do
		grep -qE "^warning: $lib@0\.1\.0: .*nothing selects it" "$log/a" && pass "a: $lib warns: $(grep -m1 -oE "^warning: $lib@0\.1\.0: feature [^:]*" "$log/a")" || fail "a: no 'nothing selects it' warning from $lib"
	done
	lacks a "error:"
fi

note "(b) ${G}_TLS=openssl: both TLS libraries, one setting"
if built b ${G}_TLS=openssl; then
	output b "$B"
	expect_tls b openssl "graph-wide ${G}_TLS"
	expect_zlib b pure-rust default
	expect_needed b "$B" +libssl.so.3 +libcrypto.so.3 -libz
	expect_runs b zlib-c 0
fi

note "rebuilds exact: ${G}_TLS unset reruns tls-a's and tls-b's build scripts only"
if built unset; then
	got=$(ran unset)
	[ "$got" = "app tls-a tls-b" ] && pass "unset: build scripts run: $got (app's: its build-dependency tls-a changed)" || fail "unset: build scripts run: '$got', expected 'app tls-a tls-b'"
	expect_runs unset zlib-c 0
	has unset "Dirty tls-a v0.1.0 ($ws/tls-a): the env variable ${G}_TLS changed" "Dirty tls-b v0.1.0 ($ws/tls-b): the env variable ${G}_TLS changed" "Fresh zlib-c v0.1.0 ($ws/zlib-c)"
	printf '  rebuilt: %s\n' "$(rebuilt unset)"
	output unset "$B"
	expect_tls unset none default tls-a tls-b
fi
if built fresh; then
	got="$(rebuilt fresh)$(ran fresh)"
	[ -z "$got" ] && pass "fresh: nothing compiled, dirty or run" || fail "fresh: rebuilt or ran: $(rebuilt fresh) / $(ran fresh)"
	n=$(grep -cE '^ +Fresh ' "$log/fresh" || true)
	grep -qE '^ +Fresh app v0\.1\.0' "$log/fresh" && pass "fresh: $n Fresh lines, app's among them" || fail "fresh: app is not Fresh"
fi

note "(c) a library's own variable beats the graph-wide setting"
if built c ${G}_TLS=openssl TLS_B_TLS_PROVIDER=none; then
	output c "$B"
	expect_tls c openssl "graph-wide ${G}_TLS" tls-a "tls-a (build script's copy)"
	expect_tls c none TLS_B_TLS_PROVIDER tls-b
	expect_zlib c pure-rust default
	expect_needed c "$B" +libssl.so.3
fi

note "a kind of a library's own, xz (xz-d, liblzma): its ${G}_XZ, its target-scoped form, its file key"
if built xz ${G}_XZ=system; then
	output xz "$B"
	expect_xz xz liblzma "graph-wide ${G}_XZ"
	expect_needed xz "$B" +liblzma.so -libssl
	# Only xz-d reads RUST_BACKEND_XZ.
	expect_runs xz zlib-c 0
fi
if built xz-scoped ${G}_XZ=none "${HOST}_${G}_XZ=system" "${OTHER}_${G}_XZ=none"; then
	output xz-scoped "$B"
	expect_xz xz-scoped liblzma "graph-wide ${HOST}_${G}_XZ"
fi
printf '[target.%s]\nxz = "system"\n' "$host" >"$work/xz.toml"
if built xz-file ${G}_CONFIG="$work/xz.toml"; then
	output xz-file "$B"
	expect_xz xz-file liblzma "graph-wide $work/xz.toml:2:6"
fi
if fails xz-unmet ${G}_XZ=pure-rust; then
	has xz-unmet "error: xz-d@0.1.0: ${G}_XZ=pure-rust selects pure-rust for every xz facility in the build, but xz-d's decompress has no provider that answers to pure-rust"
fi
# Without liblzma-dev and with pkg-config set aside, the header that is missing is named.
st=0; hidden xz-no-header lzma "$ws" ${G}_XZ=system LZMA_NO_PKG_CONFIG=1 -- build --locked --offline || st=$?
case $st in
0) fail "xz-no-header: built without lzma.h" ;;
77) ;;
*) has xz-no-header "error: xz-d@0.1.0: " "liblzma's header lzma.h was not found (searched the C compiler's default directories)" "apt-get install liblzma-dev"
	lacks xz-no-header "version could not be read" ;;
esac
if built xz-unset; then
	output xz-unset "$B"
	expect_xz xz-unset none default
fi

note "target-scoped forms beat plain ones: <HOST>_${G}_TLS over ${G}_TLS, <HOST>_TLS_B_TLS_PROVIDER over TLS_B_TLS_PROVIDER"
if built scoped ${G}_TLS=none "${HOST}_${G}_TLS=openssl" TLS_B_TLS_PROVIDER=openssl "${HOST}_TLS_B_TLS_PROVIDER=none"; then
	output scoped "$B"
	expect_tls scoped openssl "graph-wide ${HOST}_${G}_TLS" tls-a "tls-a (build script's copy)"
	expect_tls scoped none "${HOST}_TLS_B_TLS_PROVIDER" tls-b
fi

note "open kinds: settings of kinds no crate has build; a misspelt kind warns where a kind is read"
# A name no crate reads is an error in no build script (it may be another crate's kind): with tls-a
# and tls-b cleaned, their build scripts run and warn of a name close to the tls they read; the
# kinds of nobody say nothing. `cargo flagsplit check` makes the close one an error (its case).
run_cargo clean-tls "$ws" -- clean --offline -p tls-a -p tls-b || { cat "$log/clean-tls"; fail "cargo clean -p tls-a -p tls-b"; }
if built misspelt-kind ${G}_TSL=openssl ${G}_BLAKE3=portable ${G}_NOSUCHKIND=system; then
	has misspelt-kind "warning: tls-a@0.1.0: ${G}_TSL is no graph-wide setting this crate reads: did you mean ${G}_TLS?" \
		"warning: tls-b@0.1.0: ${G}_TSL is no graph-wide setting this crate reads: did you mean ${G}_TLS?"
	grep -qE "warning: .*(BLAKE3|NOSUCHKIND)" "$log/misspelt-kind" && fail "misspelt-kind: a warning for a kind nobody has" || pass "misspelt-kind: nothing said of ${G}_BLAKE3 and ${G}_NOSUCHKIND"
fi
if fails misspelt-value ${G}_TLS=opensll; then
	has misspelt-value "${G}_TLS=opensll" "openssl, rustls, system, pure-rust, zlib-ng, none"
fi

note "a graph-wide selection a library cannot meet fails its build"
# No provider of tls answers to rustls.
if fails unmet-none ${G}_TLS=rustls; then
	has unmet-none "error: tls-a@0.1.0: " "${G}_TLS=rustls" TLS_A_TLS_PROVIDER
fi
# tls-a alone, without its feature `openssl`.
if fails unmet-feature ${G}_TLS=openssl -- -p tls-a; then
	has unmet-feature "error: tls-a@0.1.0: " "${G}_TLS" TLS_A_TLS_PROVIDER "\`openssl\`"
fi

note "a graph-wide file: ${G}_CONFIG"
cfgfile=$work/backends.toml
printf 'tls = "openssl"\n' >"$cfgfile"
if built file ${G}_CONFIG="$cfgfile"; then
	output file "$B"
	expect_tls file openssl "graph-wide $cfgfile:1:7"
	expect_zlib file pure-rust default
fi
printf '[target.'"'"'cfg(target_os = "linux")'"'"']\ntls = "openssl"\n' >"$cfgfile"
if built file-cfg ${G}_CONFIG="$cfgfile"; then
	output file-cfg "$B"
	expect_tls file-cfg openssl "graph-wide $cfgfile:2:7"
fi
printf 'tls = "openssl"\n\n[target.%s]\ntls = "none"\n' "$host" >"$cfgfile"
if built file-triple ${G}_CONFIG="$cfgfile"; then
	output file-triple "$B"
	expect_tls file-triple none "graph-wide $cfgfile:4:7"
fi
# A graph-wide variable beats the graph-wide file.
if built file-var ${G}_CONFIG="$cfgfile" ${G}_TLS=openssl; then
	output file-var "$B"
	expect_tls file-var openssl "graph-wide ${G}_TLS"
fi

note "(f) ${G}_LINK=static: libssl and libcrypto inside the binary"
if built static ${G}_TLS=openssl ${G}_LINK=static; then
	expect_needed static "$B" -libssl -libcrypto
	output static "$B"
	expect_tls static openssl "graph-wide ${G}_TLS"
	expect static tls-a "~^openssl-build: .*\(static\)$"
	# pkg-config's static answer names the system directory for libssl and for libcrypto: once.
	expect static tls-a "-~^openssl-build: .* in ([^,]*), \1 \(static\)$"
fi
# A library linked by its -sys crate obeys that crate's switches: the policy does not switch it
# silently, it stops the build naming the switch.
# Each way, the fix names the switch for the linking asked for, and following it builds.
if fails static-sys ${G}_ZLIB=system ${G}_LINK=static; then
	has static-sys "error: zlib-c@0.1.0: ${G}_LINK=static asks for static linking, but libz-sys links zlib dynamically, and it decides" \
		"fix: set libz-sys's own switch for static linking: LIBZ_SYS_STATIC=1"
	lacks static-sys "or or"
fi
if built static-sys-fixed ${G}_ZLIB=system ${G}_LINK=static LIBZ_SYS_STATIC=1; then
	output static-sys-fixed "$B"
	expect static-sys-fixed zlib-c "~^zlib-build: .*\(static\)$"
fi
if fails dynamic-sys ${G}_ZLIB=system ${G}_LINK=dynamic LIBZ_SYS_STATIC=1; then
	has dynamic-sys "${G}_LINK=dynamic asks for dynamic linking, but libz-sys links zlib statically" \
		"fix: set libz-sys's own switch for dynamic linking: unset LIBZ_SYS_STATIC or set it to 0"
fi
if built dynamic-sys-fixed ${G}_ZLIB=system ${G}_LINK=dynamic LIBZ_SYS_STATIC=0; then
	expect_needed dynamic-sys-fixed "$B" +libz.so.1
fi

note "(e) ${G}_ZLIB=system, and ${G}_BUNDLED=deny against libz-sys's bundled zlib"
if built zlib-system ${G}_BUNDLED=deny ${G}_ZLIB=system; then
	output zlib-system "$B"
	expect_zlib zlib-system system "graph-wide ${G}_ZLIB"
	expect_tls zlib-system none default tls-a tls-b
	expect_needed zlib-system "$B" +libz.so.1 -libssl
fi
if fails bundled-deny ${G}_BUNDLED=deny ${G}_ZLIB=system LIBZ_SYS_STATIC=1; then
	has bundled-deny "error: zlib-c@0.1.0: " "${G}_BUNDLED" LIBZ_SYS_STATIC zlib
fi
if built bundled-allow ${G}_BUNDLED=allow ${G}_ZLIB=system LIBZ_SYS_STATIC=1; then
	output bundled-allow "$B"
	expect_zlib bundled-allow system "graph-wide ${G}_ZLIB"
	expect bundled-allow zlib-c "~^zlib-build: .*built by it.*\(static\)$"
	expect_needed bundled-allow "$B" -libz
fi

note "(d) --target $host: tls-a twice (app's build script's copy and the target's), one setting for both"
Bt=$CARGO_TARGET_DIR/$host/debug/app
# Whatever an earlier run left: both copies of tls-a and tls-b's are built (and their build
# scripts run) here.
run_cargo clean-target "$ws" -- clean --offline -p tls-a -p tls-b --target "$host" || { cat "$log/clean-target"; fail "cargo clean -p tls-a -p tls-b --target $host"; }
if built target "${HOST}_${G}_TLS=openssl" -- --target "$host"; then
	expect_runs target tls-a 2
	expect_runs target tls-b 1
	output target "$Bt"
	expect_tls target openssl "graph-wide ${HOST}_${G}_TLS"
	expect_needed target "$Bt" +libssl.so.3
fi
if built target-other "${OTHER}_${G}_TLS=openssl" -- --target "$host"; then
	output target-other "$Bt"
	expect_tls target-other none default
	expect_needed target-other "$Bt" -libssl
fi

note "no silent default: zlib-c packaged, from a directory source, feature system on, nothing selecting"
vendor=$work/vendor
copy=$work/app-registry
if run_cargo package "$ws" -- package --offline --no-verify --allow-dirty --exclude-lockfile -p zlib-c &&
	run_cargo package-config "$root" -- package --locked --offline --no-verify --allow-dirty -p flagsplit-info -p flagsplit-config &&
	run_cargo vendor "$ws" -- vendor --locked --offline -q "$vendor"; then
	config_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/crates/config/Cargo.toml" | head -1)
	for c in zlib-c-0.1.0 "flagsplit-info-$config_version" "flagsplit-config-$config_version"; do
		crate=$CARGO_TARGET_DIR/package/$c.crate
		tar -xzf "$crate" -C "$vendor"
		printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" >"$vendor/$c/.cargo-checksum.json"
	done
	pass "directory source: zlib-c, flagsplit-info and flagsplit-config packaged, $(find "$vendor" -mindepth 1 -maxdepth 1 | wc -l) crates"
	mkdir -p "$copy/.cargo"
	cp -r "$ws/app/src" "$ws/app/build.rs" "$copy/"
	cp "$ws/Cargo.lock" "$copy/"
	sed -E -e "s|^(tls-[ab]) = \\{ path = \"\\.\\./|\\1 = { path = \"$ws/|" -e "s|^(xz-d) = \\{ path = \"\\.\\./|\\1 = { path = \"$ws/|" \
		-e 's|^zlib-c = \{ path = "[^"]*", |zlib-c = { |' "$ws/app/Cargo.toml" >"$copy/Cargo.toml"
	printf '\n[workspace]\n' >>"$copy/Cargo.toml"
	printf '[source.crates-io]\nreplace-with = "packaged"\n\n[source.packaged]\ndirectory = "%s"\n' "$vendor" >"$copy/.cargo/config.toml"
	pass "copy: $(grep '^zlib-c = ' "$copy/Cargo.toml")"
	# A registry package is keyed by name, version and source, not by its files' times: what an
	# earlier run built from an older .crate would count as fresh. (`-p` cleans every copy of the
	# name, the path ones too; later builds compile them again.)
	run_cargo clean-copy "$copy" -- clean --offline -p zlib-c -p flagsplit-info -p flagsplit-config || { cat "$log/clean-copy"; fail "cargo clean in the copy"; }
	# Cargo's default output: no -v.
	if run_cargo silent "$copy" -- build --offline; then
		fail "silent: the build succeeded"
	else
		pass "silent: the build failed"
		grep -qE '^ +Compiling zlib-c v0\.1\.0$' "$log/silent" && pass "silent: zlib-c compiled from the directory source (no path)" || fail "silent: zlib-c was not compiled from the directory source"
		{ grep -E '^error: zlib-c@0\.1\.0: .*but nothing selects it' "$log/silent" || true; } | head -1 | sed 's/^/  /'
		grep -qE '^error: zlib-c@0\.1\.0: .*but nothing selects it' "$log/silent" && pass "silent: Cargo's default output has zlib-c's error '... but nothing selects it'" || { cat "$log/silent"; fail "silent: no 'nothing selects it' error from zlib-c"; }
		for lib in tls-a tls-b; do
			grep -qE "^error: $lib@" "$log/silent" && fail "silent: an error from $lib (a path dependency: a warning)" || pass "silent: no error from $lib (a path dependency)"
		done
	fi
	for how in ZLIB_C_INFLATE_PROVIDER ${G}_ZLIB; do
		name=ack-$(tr 'A-Z_' 'a-z-' <<<"$how")
		if run_cargo "$name" "$copy" "$how=pure-rust" -- build --offline; then
			pass "$name: $how=pure-rust (the default, selected) builds"
			output "$name" "$B"
			case $how in
			ZLIB_C_INFLATE_PROVIDER) expect_zlib "$name" pure-rust ZLIB_C_INFLATE_PROVIDER ;;
			*) expect_zlib "$name" pure-rust "graph-wide $how" ;;
			esac
			lacks "$name" "nothing selects it: inflate"
		else
			cat "$log/$name"
			fail "$name: $how=pure-rust does not build"
		fi
	done
	# Without zlib1g-dev, libz-sys builds its own copy for zlib-c's `system` provider: from a
	# directory source, whose warnings Cargo shows to no one, that stops the build with both ways
	# out; asking for the copy (LIBZ_SYS_STATIC=1) builds.
	run_cargo clean-libz "$copy" -- clean --offline -p libz-sys || { cat "$log/clean-libz"; fail "cargo clean -p libz-sys in the copy"; }
	st=0; hidden bundled-unasked zlib "$copy" ZLIB_C_INFLATE_PROVIDER=system -- build --offline || st=$?
	case $st in
	0) fail "bundled-unasked: built with libz-sys's own copy, unasked" ;;
	77) ;;
	*) has bundled-unasked "error: zlib-c@0.1.0: libz-sys built its own copy of zlib (it found no system zlib)" \
		"zlib-c comes from a registry or git, whose build warnings Cargo shows to no one, so the substitution stops the build" \
		"fix: install zlib's development files (Debian/Ubuntu: apt-get install zlib1g-dev pkg-config" \
		"or, if the copy is wanted, say so: LIBZ_SYS_STATIC=1"
		st=0; hidden bundled-asked zlib "$copy" ZLIB_C_INFLATE_PROVIDER=system LIBZ_SYS_STATIC=1 -- build --offline || st=$?
		if [ "$st" = 0 ]; then
			pass "bundled-asked: LIBZ_SYS_STATIC=1, as the fix says, builds"
			output bundled-asked "$B"
			expect bundled-asked zlib-c "~^zlib-build: .*built by it.*\(static\)$"
		else
			cat "$log/bundled-asked"
			fail "bundled-asked: LIBZ_SYS_STATIC=1 does not build"
		fi ;;
	esac
else
	cat "$log/package" "$log/package-config" "$log/vendor" 2>/dev/null || true
	fail "cargo package or cargo vendor failed"
fi

note "the working tree"
status_after=$(git status --porcelain --untracked-files=all)
[ "$status_after" = "$status_before" ] && pass "git status: as before the run" || fail "git status changed: $(diff <(echo "$status_before") <(echo "$status_after"))"

echo
echo "graph case: $(($(date +%s) - started)) s"
finish "graph case"

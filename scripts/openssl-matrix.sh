#!/usr/bin/env bash
# Real builds of where OpenSSL comes from: the system's static libraries (OPENSSL_STATIC=1), OpenSSL
# built from source (feature openssl-vendored), and the supported-version check. Each checks what
# the binaries link (`readelf -d` NEEDED: no libssl/libcrypto although OpenSSL providers are in
# use), what they say (`version --build-options`: `OpenSSL: ... (static)`), that they hash like
# coreutils, and — for the vendored OpenSSL, which does not know the system's CA directory — that
# the CA bundle is probed and verifies a real Dovecot's certificate.
#
# Usage: scripts/openssl-matrix.sh   Target directory: target/openssl-matrix.
# The vendored OpenSSL compiles in about 3 minutes on 2 cores (once; later runs reuse it).
set -euo pipefail
cd "$(dirname "$0")/.."
# The builds below set these themselves; from the caller (scripts/test.sh may export
# OPENSSL_NO_VENDOR=1 for its --all-features sets) they would change what is checked.
unset OPENSSL_NO_VENDOR OPENSSL_STATIC OPENSSL_DIR OPENSSL_LIB_DIR OPENSSL_INCLUDE_DIR OPENSSL_NO_PKG_CONFIG
root=$PWD
T=$root/target/openssl-matrix
. scripts/lib/checks.sh
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

OPENSSL_FEATURES=openssl-sha1,openssl-md5,openssl-tls

# build NAME [VAR=value]... -- [cargo args...] — release build of both binaries, output in $log/NAME
build() {
	local name=$1
	shift
	local vars=()
	while [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	if ! env "${vars[@]}" cargo build --release --locked --target-dir "$T" --bins "$@" >"$log/$name" 2>&1; then
		cat "$log/$name"
		fail "$name: build failed"
		return 1
	fi
}

# expect_build_error NAME 'TEXT'... -- [VAR=value]... -- [cargo args...] — the build must fail
# and print every TEXT
expect_build_error() {
	local name=$1
	shift
	local texts=() vars=()
	while [ "$1" != "--" ]; do texts+=("$1"); shift; done
	shift
	while [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	if env "${vars[@]}" cargo build --release --locked --target-dir "$T" --bins "$@" >"$log/$name" 2>&1; then
		fail "$name: build succeeded, expected an error"
		return
	fi
	says "$name" "$log/$name" "${texts[@]}"
}

# no_openssl_needed NAME BIN — NEEDED lists neither libssl nor libcrypto
no_openssl_needed() {
	local name=$1 bin=$2 libs
	libs=$(needed "$bin" | tr '\n' ' ')
	case " $libs" in
	*" libssl.so"* | *" libcrypto.so"*) fail "$name: $(basename "$bin") NEEDED has OpenSSL: $libs" ;;
	*) pass "$name: $(basename "$bin") NEEDED: $libs" ;;
	esac
}

# expect_lines NAME TEXT REGEX... — every extended REGEX matches a line of TEXT
expect_lines() {
	local name=$1 text=$2
	shift 2
	for re in "$@"; do
		grep -qE -- "$re" <<<"$text" && pass "$name: matches /$re/" || fail "$name: nothing matches /$re/ in: $text"
	done
}

# hashes_like_coreutils NAME BIN — OpenSSL's SHA-1 and MD5 inside BIN agree with coreutils
hashes_like_coreutils() {
	local name=$1 bin=$2 f=$log/data
	head -c 1000003 /dev/urandom >"$f"
	[ "$("$bin" sha1sum "$f")" = "$(sha1sum "$f")" ] && pass "$name: sha1sum agrees with coreutils" || fail "$name: sha1sum differs from coreutils"
	[ "$("$bin" md5sum "$f")" = "$(md5sum "$f")" ] && pass "$name: md5sum agrees with coreutils" || fail "$name: md5sum differs from coreutils"
}

F=$T/release/flagsplit
S=$T/release/flagsplit-imap-send

note "static system OpenSSL: OPENSSL_STATIC=1 with OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR"
libdir=$(pkg-config --variable=libdir openssl)
includedir=$(pkg-config --variable=includedir openssl)
if [ ! -f "$libdir/libcrypto.a" ]; then
	fail "static: $libdir/libcrypto.a not found (libssl-dev ships it on Debian/Ubuntu)"
elif build static OPENSSL_STATIC=1 OPENSSL_LIB_DIR="$libdir" OPENSSL_INCLUDE_DIR="$includedir" -- \
	--no-default-features --features "$OPENSSL_FEATURES"; then
	no_openssl_needed static "$F"
	no_openssl_needed static "$S"
	expect_lines static "$("$F" version --build-options)" '^OpenSSL: OpenSSL [0-9.]+.* \(static\)$' \
		'^openssl-build: [0-9.]+[a-z]? located by OPENSSL_LIB_DIR/OPENSSL_INCLUDE_DIR in .* \(static\)$' '^links: libcrypto$'
	expect_lines static-sender "$("$S" --build-options)" '^OpenSSL: OpenSSL [0-9.]+.* \(static\)$' '^TLS: OPENSSL \(OpenSSL '
	hashes_like_coreutils static "$F"
fi

note "static libcrypto found by flagsplit's build script (no openssl-sys in the build): OPENSSL_STATIC=1 alone"
# pkg-config --static names the archive's directory and Libs.private; build.rs links libcrypto.a.
if build static-hashing OPENSSL_STATIC=1 -- --no-default-features --features openssl-sha1,openssl-md5; then
	no_openssl_needed static-hashing "$F"
	no_openssl_needed static-hashing "$S"
	expect_lines static-hashing "$("$F" version --build-options)" '^OpenSSL: OpenSSL [0-9.]+.* \(static\)$' \
		'^openssl-build: [0-9.]+[a-z]? located by pkg-config \(libcrypto\) in .* \(static\)$' '^links: libcrypto$'
	expect_lines static-hashing-sender "$("$S" --build-options)" '^MD5: MD5_OPENSSL$' '^OpenSSL: OpenSSL [0-9.]+.* \(static\)$'
	hashes_like_coreutils static-hashing "$F"
	# GNU ld takes archives in command-line order: every libcrypto reference must come before the
	# libcrypto.a the library carries. Both executables linked again by it (only they are compiled).
	for bin in flagsplit flagsplit-imap-send; do
		if OPENSSL_STATIC=1 cargo rustc --release --locked --target-dir "$T" --bin "$bin" --no-default-features \
			--features openssl-sha1,openssl-md5 -- -C linker-features=-lld >"$log/static-hashing-gnuld-$bin" 2>&1; then
			no_openssl_needed static-hashing-gnuld "$T/release/$bin"
			readelf -p .comment "$T/release/$bin" | grep -q 'Linker: LLD' && fail "static-hashing-gnuld: $bin linked by LLD" ||
				pass "static-hashing-gnuld: $bin linked by GNU ld"
		else
			cat "$log/static-hashing-gnuld-$bin"
			fail "static-hashing-gnuld: GNU ld link of $bin failed"
		fi
	done
	hashes_like_coreutils static-hashing-gnuld "$F"
fi

note "OPENSSL_STATIC=1 where openssl-sys finds OpenSSL in /usr through pkg-config: an error, not a silently dynamic build"
expect_build_error static-pkg-config "OpenSSL static linking was asked for" "libcrypto.so in NEEDED" \
	"OPENSSL_STATIC=1 OPENSSL_LIB_DIR=$libdir OPENSSL_INCLUDE_DIR=$includedir" \
	-- OPENSSL_STATIC=1 -- --no-default-features --features openssl-sha1,openssl-tls

note "supported range: a fake OpenSSL 1.1.0l and a fake LibreSSL 3.9.2 (headers only)"
fake=$log/fake-1.1.0
mkdir -p "$fake/openssl" "$log/fake-libressl/openssl"
printf '#ifndef HEADER_OPENSSLCONF_H\n# define HEADER_OPENSSLCONF_H\n#endif\n' >"$fake/openssl/opensslconf.h"
cp "$fake/openssl/opensslconf.h" "$log/fake-libressl/openssl/"
printf '#ifndef HEADER_OPENSSLV_H\n# define HEADER_OPENSSLV_H\n# define OPENSSL_VERSION_NUMBER 0x101000cfL\n#endif\n' >"$fake/openssl/opensslv.h"
printf '#ifndef HEADER_OPENSSLV_H\n# define HEADER_OPENSSLV_H\n# define LIBRESSL_VERSION_NUMBER 0x3090200fL\n# define OPENSSL_VERSION_NUMBER 0x20000000L\n#endif\n' >"$log/fake-libressl/openssl/opensslv.h"
expect_build_error too-old "OpenSSL version check failed: OpenSSL 1.1.0l is too old: flagsplit needs OpenSSL 1.1.1 or newer" \
	"headers in $fake" "library directories: $libdir" "--features openssl-vendored" "FLAGSPLIT_SHA1_PROVIDER=dc" \
	-- OPENSSL_LIB_DIR="$libdir" OPENSSL_INCLUDE_DIR="$fake" -- --no-default-features --features openssl-sha1
# The same headers through openssl-sys (in the build for TLS): the same judge, on what it published.
expect_build_error too-old-sys "OpenSSL version check failed: OpenSSL 1.1.0l is too old: flagsplit needs OpenSSL 1.1.1 or newer" \
	"headers in $fake" "--features openssl-vendored" "FLAGSPLIT_TLS_PROVIDER=rustls" \
	-- OPENSSL_LIB_DIR="$libdir" OPENSSL_INCLUDE_DIR="$fake" -- --features openssl-sha1,openssl-tls
# The fake LibreSSL gets its warning; the probe then fails on the fake headers, as it should.
expect_build_error libressl "warning: flagsplit@0.1.0: LibreSSL 3.9.2 is accepted but not tested by flagsplit" \
	-- OPENSSL_LIB_DIR="$libdir" OPENSSL_INCLUDE_DIR="$log/fake-libressl" -- --no-default-features --features openssl-sha1

note "openssl-vendored on its own: an error"
expect_build_error vendored-alone "feature \`openssl-vendored\` is on, but no OpenSSL provider is compiled" \
	"--features openssl-vendored,openssl-sha1" -- -- --features openssl-vendored

note "vendored OpenSSL: --features $OPENSSL_FEATURES,openssl-vendored (OpenSSL built from source)"
vstart=$(date +%s)
if build vendored -- --no-default-features --features "$OPENSSL_FEATURES,openssl-vendored"; then
	pass "vendored: built in $(($(date +%s) - vstart)) s"
	no_openssl_needed vendored "$F"
	no_openssl_needed vendored "$S"
	expect_lines vendored "$("$F" version --build-options)" '^OpenSSL: OpenSSL 3\.[0-9.]+.* \(static\)$' \
		'^openssl-build: [0-9.]+ located by vendored in .* \(static\)$'
	expect_lines vendored-sender "$("$S" --build-options)" '^OpenSSL: OpenSSL 3\.[0-9.]+.* \(static\)$'
	hashes_like_coreutils vendored "$F"
fi

note "vendored OpenSSL for hashing only: --features openssl-sha1,openssl-vendored"
if build vendored-hashing -- --no-default-features --features openssl-sha1,openssl-vendored; then
	no_openssl_needed vendored-hashing "$F"
	expect_lines vendored-hashing "$("$F" version --build-options)" '^OpenSSL: OpenSSL 3\.[0-9.]+.* \(static\)$' \
		'^openssl-build: [0-9.]+ located by vendored in .* \(static\)$' '^links: libcrypto$'
	hashes_like_coreutils vendored-hashing "$F"
fi

note "vendored OpenSSL: the CA bundle is probed, and verifies a real Dovecot"
# Its compiled-in locations (/usr/local/ssl) do not exist here: the system bundle must be found.
if env -u SSL_CERT_FILE -u SSL_CERT_DIR cargo test --release --locked --target-dir "$T" -p flagsplit-tls-openssl \
	--features vendored -- --nocapture >"$log/trust-unit" 2>&1; then
	pass "vendored: flagsplit-tls-openssl trust tests"
	expect_lines vendored-trust "$(cat "$log/trust-unit")" \
		'compiled-in /usr/local/ssl/cert.pem / /usr/local/ssl/certs \(exist: false\) -> Probed \{ file: Some\("/etc/ssl/certs/ca-certificates.crt"\)'
else
	cat "$log/trust-unit"
	fail "vendored: flagsplit-tls-openssl trust tests"
fi
# CI=true: a missing Dovecot fails instead of skipping.
if env -u SSL_CERT_FILE -u SSL_CERT_DIR CI=true cargo test --release --locked --target-dir "$T" -p flagsplit-imap \
	--features openssl-vendored --test openssl_trust >"$log/trust-dovecot" 2>&1; then
	pass "vendored: handshakes to Dovecot verified through the probed bundle (tests/openssl_trust.rs)"
else
	cat "$log/trust-dovecot"
	fail "vendored: handshakes to Dovecot through the probed bundle"
fi

echo "openssl matrix: $(($(date +%s) - checks_started)) s"
finish "openssl matrix"

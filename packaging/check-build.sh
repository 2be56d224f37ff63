#!/bin/sh
# packaging/check-build.sh DIR PROVIDERS [MESSAGES] — the check every package recipe runs on the binaries
# it built (debian/rules' dh_auto_test, the spec's %check, the PKGBUILD's check()), before packaging
# them, in the source tree.
#
# DIR is the directory holding the four executables (cargo's target/release). PROVIDERS is the
# recipe's provider choice: `openssl` (TLS through the system's libssl, zlib through the system's
# libz) or `rustls` (the crate's defaults: rustls and zlib-rs, no C library but the C runtime).
# Checks that the executables say they were built with that choice, and that they run: a SHA-1 of a
# known input, `--help` of the three partner executables. MESSAGES is the build's saved JSON
# messages: when CARGO_FLAGSPLIT names cargo-flagsplit, the build is checked against the choice's
# policy (packaging/policy-openssl.toml or packaging/policy.toml) from them, with this environment
# as the build's (the recipe's check step runs in it); without it, that check is said to be
# skipped. Exits non-zero, naming what differs, otherwise.
set -eu
usage="usage: check-build.sh DIR openssl|rustls [MESSAGES]"
dir=${1:?$usage}
providers=${2:?$usage}
messages=${3:-}
case $providers in
openssl) tls=openssl zlib=system ;;
rustls) tls=rustls zlib=zlib-rs ;;
*)
	echo "check-build.sh: unknown provider choice '$providers' (openssl or rustls)" >&2
	exit 2
	;;
esac
failed=0
expect() { # expect WHAT COMMAND... — the command's output has the line WHAT (its start)
	what=$1
	shift
	if ! out=$("$@" 2>&1) || ! printf '%s\n' "$out" | grep -q "^$what"; then
		printf 'check-build.sh: %s: expected a line starting "%s", got:\n%s\n' "$*" "$what" "$(printf '%s\n' "$out" | head -20)" >&2
		failed=1
	fi
}
expect "tls-provider: $tls " "$dir/flagsplit-imap-send" --build-options
expect "zlib-provider: $zlib " "$dir/flagsplit" version --build-options
links=$("$dir/flagsplit" version --build-options | sed -n 's/^links: //p')
case $links in
*libssl* | *libcrypto*)
	echo "check-build.sh: flagsplit links '$links': only flagsplit-imap-send may link OpenSSL here" >&2
	failed=1
	;;
esac
sum=$(printf abc | "$dir/flagsplit" sha1sum)
if [ "$sum" != "a9993e364706816aba3e25717850c26c9cd0d89d  -" ]; then
	echo "check-build.sh: flagsplit sha1sum of 'abc' gave '$sum'" >&2
	failed=1
fi
for bin in flagsplit-fsck flagsplit-report flagsplit-imap-send; do
	if ! "$dir/$bin" --help >/dev/null 2>&1; then
		echo "check-build.sh: $bin --help failed" >&2
		failed=1
	fi
done
if [ -n "$messages" ]; then
	policy=packaging/policy.toml
	[ "$providers" = openssl ] && policy=packaging/policy-openssl.toml
	if [ -n "${CARGO_FLAGSPLIT:-}" ]; then
		# /proc/self/environ: cargo-flagsplit's own environment, which is the build's.
		if ! "$CARGO_FLAGSPLIT" flagsplit check --policy "$policy" --messages "$messages" --manifest-path Cargo.toml \
			--offline --build-env /proc/self/environ; then
			echo "check-build.sh: the build breaks $policy (above)" >&2
			failed=1
		fi
	else
		echo "check-build.sh: CARGO_FLAGSPLIT is not set: the build is not checked against $policy"
	fi
fi
[ "$failed" = 0 ] && echo "check-build.sh: $dir: built with $providers (tls $tls, zlib $zlib), runs"
exit "$failed"

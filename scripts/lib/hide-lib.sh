#!/usr/bin/env bash
# scripts/lib/hide-lib.sh LIBRARY COMMAND [ARG...] — runs COMMAND as on a machine where LIBRARY's
# development files are not installed, leaving its run-time files (libzstd.so.1, libcrypto.so.3)
# in place, as they are on a machine that has the library but not its -dev package.
#
# LIBRARY is `zstd` (libzstd-dev), `openssl` (libssl-dev), `zlib` (zlib1g-dev) or `lzma`
# (liblzma-dev). In a private mount namespace
# (`unshare -m`: nothing outside it changes), /usr/include and /usr/lib/<multiarch> are each
# covered by an overlay whose upper directory holds whiteouts for the headers (a whole directory
# for OpenSSL's), the pkg-config files (.pc) and the link-time names (the `.so` symlinks and the
# `.a` archives). A whiteout hides exactly that name: a bind mount of /dev/null over a `.so`
# symlink would cover the file it points to, the run-time library too.
#
# Needs root and overlayfs. Exits 77 (with the reason) when either is missing, so that callers can
# skip loudly or fail with CI=true.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/lib/hide-lib.sh zstd|openssl|zlib|lzma COMMAND [ARG...]" >&2; exit 2; }
library=$1
shift
[ "$(id -u)" = 0 ] || { echo "hide-lib.sh: needs root (a private mount namespace)" >&2; exit 77; }
command -v unshare >/dev/null || { echo "hide-lib.sh: needs unshare (util-linux)" >&2; exit 77; }
multiarch=$(gcc -print-multiarch 2>/dev/null || true)
[ -n "$multiarch" ] || multiarch=$(uname -m)-linux-gnu
libdir=/usr/lib/$multiarch
case $library in
zstd)
	hide=(/usr/include/zstd.h /usr/include/zstd_errors.h /usr/include/zdict.h
		"$libdir/libzstd.so" "$libdir/libzstd.a" "$libdir/pkgconfig/libzstd.pc") ;;
openssl)
	hide=(/usr/include/openssl "/usr/include/$multiarch/openssl"
		"$libdir/libssl.so" "$libdir/libssl.a" "$libdir/libcrypto.so" "$libdir/libcrypto.a"
		"$libdir/pkgconfig/openssl.pc" "$libdir/pkgconfig/libssl.pc" "$libdir/pkgconfig/libcrypto.pc") ;;
zlib)
	hide=(/usr/include/zlib.h /usr/include/zconf.h
		"$libdir/libz.so" "$libdir/libz.a" "$libdir/pkgconfig/zlib.pc") ;;
lzma)
	hide=(/usr/include/lzma.h /usr/include/lzma
		"$libdir/liblzma.so" "$libdir/liblzma.a" "$libdir/pkgconfig/liblzma.pc") ;;
*) echo "hide-lib.sh: unknown library '$library' (zstd, openssl, zlib, lzma)" >&2; exit 2 ;;
esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for top in /usr/include "$libdir"; do
	key=$(echo "$top" | tr / _)
	mkdir -p "$scratch/$key/upper" "$scratch/$key/work"
done
for path in "${hide[@]}"; do
	for top in "$libdir" /usr/include; do
		case $path in
		"$top"/*)
			key=$(echo "$top" | tr / _)
			rel=${path#"$top"/}
			mkdir -p "$scratch/$key/upper/$(dirname "$rel")"
			mknod "$scratch/$key/upper/$rel" c 0 0
			break ;;
		esac
	done
done
# One overlay per top directory; $libdir first, since /usr/include does not contain it.
mounts=""
for top in "$libdir" /usr/include; do
	key=$(echo "$top" | tr / _)
	mounts+="mount -t overlay overlay -o lowerdir=$top,upperdir=$scratch/$key/upper,workdir=$scratch/$key/work $top && "
done
set +e
unshare -m -- sh -c "${mounts}exec \"\$@\"" sh "$@"
status=$?
set -e
exit $status

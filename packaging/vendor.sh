#!/bin/sh
# packaging/vendor.sh SOURCE_TARBALL VENDOR_TARBALL — makes the vendor tarball the package recipes
# build from: `cargo vendor` of the source tarball's Cargo.lock, as a tar.gz whose top directory is
# vendor/ (Debian unpacks it as the orig-vendor component; the spec and the PKGBUILD unpack it in
# the source tree).
#
# Crates that no Linux build of the packages compiles (Windows and macOS bindings, OpenSSL's source
# for openssl-vendored, zlib-ng's for zlib-ng, the test suites' crates) are kept as stubs, as
# cargo-vendor-filterer does: their Cargo.toml, so that `cargo build --locked` resolves the lock
# file unchanged, and an empty src/lib.rs (a manifest that names no target needs one to load). The kept set is what `cargo tree` lists for the recipes' two
# provider choices on the Linux targets below. A recipe that turned on another feature
# (openssl-vendored, zlib-ng, zlib-miniz) needs a vendor tarball made without this filtering.
#
# Reproducible: the files' times are SOURCE_DATE_EPOCH's (required), owners are root, order is by
# name, gzip records no name or time.
set -eu
src=${1:?usage: packaging/vendor.sh SOURCE_TARBALL VENDOR_TARBALL}
dest=${2:?usage: packaging/vendor.sh SOURCE_TARBALL VENDOR_TARBALL}
: "${SOURCE_DATE_EPOCH:?packaging/vendor.sh: set SOURCE_DATE_EPOCH (for example git log -1 --format=%ct)}"
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$src" -C "$tmp"
set -- "$tmp"/*/Cargo.toml
tree=$(dirname "$1")
cd "$tree"
cargo vendor --locked --quiet vendor >/dev/null

# The crates the recipes compile, as "name vVERSION" lines.
targets="--target x86_64-unknown-linux-gnu --target aarch64-unknown-linux-gnu --target i686-unknown-linux-gnu
	--target powerpc64le-unknown-linux-gnu --target s390x-unknown-linux-gnu --target riscv64gc-unknown-linux-gnu"
for features in openssl-tls,zlib-system rustls-tls; do
	# shellcheck disable=SC2086
	cargo tree --locked --offline -e normal,build --prefix none --format '{p}' $targets \
		-p flagsplit -p flagsplit-docgen --no-default-features --features "$features"
done | sed 's/ (\*)$//; s/ (proc-macro)$//' | grep -v ' (/' | sort -u >"$tmp/kept"

stubbed=0
for dir in vendor/*/; do
	dir=${dir%/}
	name=$(sed -n '/^\[package\]/,/^\[/s/^name = "\(.*\)"$/\1/p' "$dir/Cargo.toml" | head -1)
	version=$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' "$dir/Cargo.toml" | head -1)
	grep -qx "$name v$version" "$tmp/kept" && continue
	package=$(sed -n 's/.*"package": *"\([0-9a-f]*\)".*/\1/p' "$dir/.cargo-checksum.json")
	mv "$dir/Cargo.toml" "$tmp/Cargo.toml.stub"
	rm -rf "$dir"
	mkdir -p "$dir/src"
	mv "$tmp/Cargo.toml.stub" "$dir/Cargo.toml"
	: >"$dir/src/lib.rs"
	printf '{"files":{},"package":"%s"}' "$package" >"$dir/.cargo-checksum.json"
	stubbed=$((stubbed + 1))
done
echo "packaging/vendor.sh: $(ls vendor | wc -l) crates, $stubbed of them stubs (not compiled on Linux)" >&2
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -cf - vendor | gzip -9n >"$dest"

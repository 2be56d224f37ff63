#!/usr/bin/env bash
# Builds flagsplit's packages with the distributions' own tools, from the committed source (HEAD),
# into target/packages/: the Debian source package and, for each provider choice, the .deb
# packages (dpkg-buildpackage), the .rpm packages (rpmbuild) and the Arch packages (makepkg), from
# the recipes in packaging/. Then checks them: each package's dependency line as its tool computed
# it, printed next to the binaries' NEEDED entries; libssl only on the sender's package and only
# with the openssl choice; lintian; the file lists; and the installed Debian packages (dpkg -i, the
# commands, man, the completions from their installed places, dpkg --purge leaving nothing).
#
#   scripts/packages.sh [--work-dir DIR] [--providers openssl,rustls]
#
# --work-dir DIR keeps the build directories and cargo's target directories there (default: a
#   temporary directory, removed at the end); a second run with the same DIR reuses the builds.
# --providers LIST builds only these provider choices (default: both).
#
# The commands are PACKAGING.md's, run verbatim: the ```sh block after each `<!-- packages NAME -->`
# line. Needs root (it creates the unprivileged user that runs the builds, since makepkg refuses
# root, and installs the .deb packages) and Debian's dpkg-dev, debhelper, lintian, rpm, makepkg,
# libarchive-tools, zstd, dovecot-imapd, bash-completion, zsh, fish, man-db (scripts/test.sh
# installs them).
#
# The builds run as that user, in a network namespace without network (unshare --net), with the
# Rust toolchain bind-mounted where the user can read it. Each provider choice is one cargo build:
# the three tools build in the same directory with the same flags and one CARGO_TARGET_DIR, so the
# rpm and Arch builds find every crate fresh; the script fails if they compile anything.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
doc=$checkout/PACKAGING.md
. scripts/lib/checks.sh

work=
choices=(openssl rustls)
while [ $# -gt 0 ]; do
	case $1 in
	--work-dir) work=$2; shift 2 ;;
	--providers) IFS=, read -r -a choices <<<"$2"; shift 2 ;;
	*) echo "usage: scripts/packages.sh [--work-dir DIR] [--providers openssl,rustls]" >&2; exit 2 ;;
	esac
done
for c in "${choices[@]}"; do
	case $c in openssl | rustls) ;; *) echo "scripts/packages.sh: unknown provider choice '$c' (openssl, rustls)" >&2; exit 2 ;; esac
done

[ "$(id -u)" = 0 ] || { echo "scripts/packages.sh: run as root (it creates a build user and installs .deb packages)" >&2; exit 1; }
absent=()
for tool in dpkg-buildpackage dh lintian rpmbuild rpm2cpio makepkg bsdtar zstd unshare runuser useradd \
	/usr/sbin/dovecot openssl git man zsh fish readelf python3; do
	command -v "$tool" >/dev/null || absent+=("$tool")
done
[ -f /usr/share/bash-completion/bash_completion ] || absent+=(bash-completion)
if [ ${#absent[@]} -gt 0 ]; then
	echo "scripts/packages.sh: missing ${absent[*]} (apt-get install dpkg-dev debhelper lintian rpm makepkg libarchive-tools zstd dovecot-imapd bash-completion zsh fish man-db)" >&2
	exit 1
fi
started=$(date +%s)

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
note "flagsplit $version: the recipes agree on the version"
debver=$(sed -n '1s/^flagsplit (\(.*\)-[0-9]*) .*/\1/p' packaging/debian/changelog)
rpmver=$(sed -n 's/^Version: *//p' packaging/rpm/flagsplit.spec)
archver=$(sed -n 's/^pkgver=//p' packaging/arch/PKGBUILD)
for v in "debian/changelog $debver" "flagsplit.spec $rpmver" "PKGBUILD $archver"; do
	[ "${v#* }" = "$version" ] && pass "${v% *} says $version" || fail "${v% *} says ${v#* }, Cargo.toml $version"
done

# block NAME — PACKAGING.md's ```sh block after `<!-- packages NAME -->`
block() {
	local text
	text=$(awk -v marker="<!-- packages $1 -->" '
		$0 == marker { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		found && inside { print }' "$doc")
	[ -n "$text" ] || { echo "scripts/packages.sh: PACKAGING.md has no block <!-- packages $1 -->" >&2; exit 1; }
	printf '%s\n' "$text"
}

# --- the work directory, the build user, the toolchain ---------------------------------------
if [ -n "$work" ]; then
	mkdir -p "$work"
	work=$(cd "$work" && pwd -P)
else
	work=$(mktemp -d /tmp/flagsplit-packages.XXXXXX)
	remove_work=1
fi
out=$checkout/target/packages
rm -rf "$out"
mkdir -p "$out"
user=flagsplit-build
dovecot_pid=
cleanup() {
	[ -z "$dovecot_pid" ] || kill "$dovecot_pid" 2>/dev/null || true
	dpkg --purge flagsplit flagsplit-imap-send >/dev/null 2>&1 || true
	[ -z "${remove_work:-}" ] || rm -rf "$work"
	[ -z "${created_user:-}" ] || userdel "$user" 2>/dev/null || true
}
trap cleanup EXIT
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
	created_user=1
fi
chmod 0755 "$work"
mkdir -p "$work/home" "$work/toolchain"
chown "$user:" "$work/home"
sysroot=$(rustc --print sysroot)
[ -x "$sysroot/bin/cargo" ] || { echo "scripts/packages.sh: no cargo in $sysroot/bin (the toolchain of rustc on PATH)" >&2; exit 1; }

# as_builder DIR COMMAND... — runs COMMAND in DIR as the build user, with no network, the toolchain
# on PATH, and only the variables named here (plus those the caller puts in $builder_env).
builder_env=()
as_builder() {
	local dir=$1
	shift
	unshare --mount --net -- sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$sysroot" "$work/toolchain" \
		runuser -u "$user" -- env -i -C "$dir" HOME="$work/home" PATH="$work/toolchain/bin:/usr/bin:/bin" \
		LANG=C.UTF-8 SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" "${builder_env[@]}" "$@"
}

# --- the tarballs and the Debian source package -----------------------------------------------
dist=$work/flagsplit
rm -rf "$dist"
mkdir -p "$dist"
note "the source and vendor tarballs"
cd "$dist"
eval "$(block tarballs)" # exports SOURCE_DATE_EPOCH, the builds' too
cd "$checkout"
for f in "flagsplit-$version.tar.gz" "flagsplit-$version-vendor.tar.gz"; do
	[ -s "$dist/$f" ] && pass "$f: $(du -h "$dist/$f" | cut -f1)" || fail "no $f"
done
note "the Debian source package"
(cd "$dist" && eval "$(block debian-source)") >"$dist/dpkg-source.log" 2>&1 ||
	{ cat "$dist/dpkg-source.log"; fail "dpkg-source -b failed"; finish "packages"; }
dsc=$dist/flagsplit_$version-1.dsc
[ -f "$dsc" ] && pass "$(basename "$dsc") with $(grep -c '^ [0-9a-f]\{64\} ' "$dsc") files" || fail "no $dsc"
cp "$dsc" "$dist"/flagsplit_"$version"*.tar.* "$out/"
cp packaging/rpm/flagsplit.spec packaging/arch/PKGBUILD "$dist/"
chown -R "$user:" "$dist"
# The Arch recipe's checksums for these tarballs, as updpkgsums fills them in.
sums=$(as_builder "$dist" makepkg -g 2>/dev/null | tr '\n' ' ')
sed -i "s/^sha256sums=.*/$sums/" "$dist/PKGBUILD"
grep -q "^sha256sums=('[0-9a-f]\{64\}'" "$dist/PKGBUILD" && pass "PKGBUILD checksums filled in" || fail "makepkg -g gave '$sums'"

# The build directory every tool uses (makepkg's $srcdir/$pkgbase-$pkgver), and the C flags
# dpkg-buildpackage exports there, given to rpmbuild and makepkg too (both take them from the
# environment) so that the three builds of a choice are one build for cargo.
build_dir=$dist/src/flagsplit-$version
mkdir -p "$build_dir"
mapfile -t cflags < <(cd "$build_dir" && dpkg-buildflags --export=sh | sed -n 's/^export \([A-Z]*\)="\(.*\)"$/\1=\2/p')
rmdir "$build_dir"

lintian_out=$out/lintian.txt
note "lintian on the source package"
if lintian --fail-on error,warning --display-info --info "$dsc" >"$out/lintian-source.txt" 2>&1; then
	pass "lintian: no error or warning on the source package"
else
	fail "lintian on the source package:"
fi
sed 's/^/    /' "$out/lintian-source.txt"

# --- per provider choice ----------------------------------------------------------------------
deps_table=()
for choice in "${choices[@]}"; do
	note "provider choice $choice: Debian"
	dest=$out/$choice
	mkdir -p "$dest"
	target=$work/target-$choice
	mkdir -p "$target"
	chown "$user:" "$target"
	rm -rf "$dist/src" "$dist"/*.deb "$dist"/*.changes "$dist"/*.buildinfo "$dist"/x86_64 "$dist"/*.pkg.tar.*
	install -d -o "$user" -g "$user" "$dist/src"
	builder_env=(CARGO_TARGET_DIR="$target")
	log=$dest/build-deb.log
	if as_builder "$dist" bash -euc "$(block "debian-$choice")" >"$log" 2>&1; then
		pass "dpkg-buildpackage ($choice) built $(cd "$dist/src" && echo *.deb)"
	else
		tail -40 "$log"
		fail "dpkg-buildpackage ($choice) failed: $log"
		continue
	fi
	mv "$dist/src"/*.deb "$dist/src"/*.changes "$dist/src"/*.buildinfo "$dest/"

	note "provider choice $choice: RPM"
	builder_env=(CARGO_TARGET_DIR="$target" "${cflags[@]}")
	log=$dest/build-rpm.log
	if as_builder "$dist" bash -euc "$(block "rpm-$choice")" >"$log" 2>&1; then
		pass "rpmbuild ($choice) built $(cd "$dist/x86_64" && echo *.rpm)"
		mv "$dist/x86_64"/*.rpm "$dest/"
	else
		tail -40 "$log"
		fail "rpmbuild ($choice) failed: $log"
	fi
	compiled=$(grep -c '^ *Compiling ' "$log" || true)
	[ "$compiled" = 0 ] && pass "rpmbuild ($choice): cargo found the Debian build's crates fresh" ||
		fail "rpmbuild ($choice) compiled $compiled crates: its build differs from the Debian one ($(grep '^ *Compiling ' "$log" | head -3 | tr -s ' ' | tr '\n' ';'))"

	note "provider choice $choice: Arch"
	log=$dest/build-arch.log
	if as_builder "$dist" bash -euc "$(block "arch-$choice")" >"$log" 2>&1; then
		pass "makepkg ($choice) built $(cd "$dist" && echo *.pkg.tar.*)"
		mv "$dist"/*.pkg.tar.* "$dest/"
	else
		tail -40 "$log"
		fail "makepkg ($choice) failed: $log"
	fi
	compiled=$(grep -c '^ *Compiling ' "$log" || true)
	[ "$compiled" = 0 ] && pass "makepkg ($choice): cargo found the Debian build's crates fresh" ||
		fail "makepkg ($choice) compiled $compiled crates: its build differs from the Debian one ($(grep '^ *Compiling ' "$log" | head -3 | tr -s ' ' | tr '\n' ';'))"
done

finish "packages"

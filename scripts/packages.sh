#!/usr/bin/env bash
# Builds flagsplit's packages with the distributions' own tools, from the committed source (HEAD),
# into target/packages/: the Debian source package and, for each provider choice, the .deb
# packages (dpkg-buildpackage), the .rpm packages (rpmbuild) and the Arch packages (makepkg), from
# the recipes in packaging/. Then checks them: each package's dependency line as its tool computed
# it, printed next to the executables' NEEDED entries, against book/src/packaging.md's table and lists
# (libssl only on the sender's package, and only with the openssl choice); lintian; the file lists;
# the documentation of the flagsplit package in each format (the rendered book in
# /usr/share/doc/flagsplit/html, its links; README.md uncompressed, its relative links resolving
# there); and the installed Debian packages (dpkg -i, the commands, man, the completions from their
# installed places, the documentation, dpkg --purge leaving nothing).
#
#   scripts/packages.sh [--work-dir DIR] [--providers openssl,rustls]
#
# --work-dir DIR keeps the build directories and cargo's target directory there (default: a
#   temporary directory, removed at the end); a second run with the same DIR reuses the builds.
# --providers LIST builds only these provider choices (default: both; the dependency table is then
#   not compared).
#
# The commands are book/src/packaging.md's, run verbatim: the ```sh block after each `<!-- packages NAME -->`
# line. The tarballs step renders the book with scripts/book.sh, from the working tree (the other
# tarballs are HEAD's; a note says when the two differ). Needs root (it creates the unprivileged
# user that runs the builds, since makepkg refuses root, and installs the .deb packages) and
# Debian's dpkg-dev, debhelper, lintian, rpm, makepkg, pacman-package-manager, libarchive-tools,
# zstd, dovecot-imapd, bash-completion, zsh, fish, man-db (scripts/test.sh installs them); without
# them it skips, and fails with CI=true.
#
# The builds run as that user, in a network namespace without network (unshare --net), with the
# Rust toolchain bind-mounted where the user can read it. Each provider choice is one cargo build:
# the three tools build in the same directory with the same flags and one CARGO_TARGET_DIR, so the
# rpm and Arch builds find every crate fresh; the script fails if they compile anything.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
doc=$checkout/book/src/packaging.md
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

# skip WHY — without CI=true a missing tool or privilege skips the script, loudly; with it, fails
skip() {
	if [ "${CI:-false}" = true ]; then
		echo "scripts/packages.sh: CI=true and $1" >&2
		exit 1
	fi
	echo "SKIPPED: scripts/packages.sh: $1"
	exit 0
}
[ "$(id -u)" = 0 ] || skip "not root (it creates a build user and installs .deb packages)"
absent=()
for tool in dpkg-buildpackage dh lintian rpmbuild rpm2cpio makepkg bsdtar zstd unshare runuser useradd \
	/usr/sbin/dovecot openssl git man zsh fish readelf python3; do
	command -v "$tool" >/dev/null || absent+=("$tool")
done
[ -f /usr/share/bash-completion/bash_completion ] || absent+=(bash-completion)
[ ${#absent[@]} = 0 ] || skip "missing ${absent[*]} (apt-get install dpkg-dev debhelper lintian rpm makepkg pacman-package-manager libarchive-tools zstd dovecot-imapd bash-completion zsh fish man-db)"
started=$(date +%s)

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
note "flagsplit $version: the recipes agree on the version"
debver=$(sed -n '1s/^flagsplit (\(.*\)-[0-9]*) .*/\1/p' packaging/debian/changelog)
rpmver=$(sed -n 's/^Version: *//p' packaging/rpm/flagsplit.spec)
archver=$(sed -n 's/^pkgver=//p' packaging/arch/PKGBUILD)
for v in "debian/changelog $debver" "flagsplit.spec $rpmver" "PKGBUILD $archver"; do
	[ "${v#* }" = "$version" ] && pass "${v% *} says $version" || fail "${v% *} says ${v#* }, Cargo.toml $version"
done

# block_after MARKER — the contents of the first fenced block after the line MARKER in book/src/packaging.md
block_after() {
	awk -v marker="$1" '
		$0 == marker { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		found && inside { print }' "$doc"
}

# block NAME — book/src/packaging.md's ```sh block after `<!-- packages NAME -->`
block() {
	local text
	text=$(block_after "<!-- packages $1 -->")
	[ -n "$text" ] || { echo "scripts/packages.sh: book/src/packaging.md has no block <!-- packages $1 -->" >&2; exit 1; }
	printf '%s\n' "$text"
}

# --- what the packages are ---------------------------------------------------------------------
# soname → the package that provides it, per distribution (what dpkg-shlibdeps, rpm's elfdeps and
# namcap look up; namcap is not packaged for Debian, so the Arch check is this table).
declare -A deb_of=([libc.so.6]=libc6 [ld-linux-x86-64.so.2]=libc6 [libgcc_s.so.1]=libgcc-s1
	[libz.so.1]=zlib1g [libssl.so.3]=libssl3 [libcrypto.so.3]=libssl3)
declare -A arch_of=([libc.so.6]=glibc [ld-linux-x86-64.so.2]=glibc [libgcc_s.so.1]=gcc-libs
	[libz.so.1]=zlib [libssl.so.3]=openssl [libcrypto.so.3]=openssl)

# words — its arguments sorted, unique, on one line
words() { printf '%s\n' "$@" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# unpacked WHAT CHOICE DIR — prints the NEEDED entries of every executable under DIR/usr/bin and
# checks them against book/src/packaging.md's list for CHOICE; their union in $needed_all
unpacked() {
	local what=$1 choice=$2 bin name line want
	needed_all=()
	for bin in "$3"/usr/bin/*; do
		name=$(basename "$bin")
		mapfile -t line < <(needed "$bin")
		printf '      NEEDED %-20s %s\n' "$name:" "${line[*]}"
		needed_all+=("${line[@]}")
		want=$(block_after "<!-- packages-needed $choice -->" | sed -n "s/^$name: //p")
		expect_set "$what: $name NEEDED as book/src/packaging.md says" "${line[*]}" "$want"
		if grep -qF "$work" "$bin"; then
			fail "$what: $name names the build directory ($work): the path mapping did not apply"
		fi
	done
	# The packaged executables, stripped by the packaging tools, still say what they carry, and
	# are judged by the choice's policy from the files alone.
	local policy=packaging/policy.toml
	[ "$choice" = openssl ] && policy=packaging/policy-openssl.toml
	if [ -x "$work/bin/cargo-flagsplit" ]; then
		if "$work/bin/cargo-flagsplit" inspect "$3/usr/bin" >"$3.inspect" 2>&1 &&
			[ "$(grep -c ': 1 build record(s) (.note.flagsplit)$' "$3.inspect")" = "$(find "$3/usr/bin" -type f | wc -l)" ]; then
			pass "$what: cargo flagsplit inspect: every executable carries its record ($(grep -m1 '^    sha1 = ' "$3.inspect" | sed 's/^ *//'))"
		else
			fail "$what: cargo flagsplit inspect: an executable without its record"
			cat "$3.inspect"
		fi
		if "$work/bin/cargo-flagsplit" check --policy "$checkout/$policy" --binaries "$3/usr/bin" >"$3.check" 2>&1; then
			pass "$what: cargo flagsplit check --binaries: $(grep "^policy " "$3.check")"
		else
			fail "$what: cargo flagsplit check --policy $policy --binaries does not hold"
			grep -E "^(error|warning)\[|^policy " "$3.check" | sed 's/^/    /'
		fi
	fi
}

# expect_set WHAT GOT WANT — one ok/FAIL line: GOT and WANT are the same set of words
expect_set() {
	local got want
	got=$(words $2)
	want=$(words $3)
	[ "$got" = "$want" ] && pass "$1: $got" || fail "$1: '$got', expected '$want'"
}

# expected_files FORMAT PACKAGE — the executables, man pages and completions PACKAGE must hold
expected_files() {
	local format=$1 pkg=$2 zsh man=usr/share/man/man1 ext=.gz
	case $format in deb) zsh=usr/share/zsh/vendor-completions ;; *) zsh=usr/share/zsh/site-functions ;; esac
	if [ "$pkg" = flagsplit-imap-send ]; then
		printf '%s\n' usr/bin/flagsplit-imap-send "$man/flagsplit-imap-send.1$ext" \
			usr/share/bash-completion/completions/flagsplit-imap-send "$zsh/_flagsplit-imap-send" \
			usr/share/fish/vendor_completions.d/flagsplit-imap-send.fish
	else
		printf '%s\n' usr/bin/flagsplit usr/bin/flagsplit-fsck usr/bin/flagsplit-report \
			usr/share/bash-completion/completions/flagsplit "$zsh/_flagsplit" usr/share/fish/vendor_completions.d/flagsplit.fish
		for page in flagsplit flagsplit-bench flagsplit-fsck flagsplit-hash-object flagsplit-help flagsplit-md5sum \
			flagsplit-report flagsplit-sha1sum flagsplit-sha256sum flagsplit-version; do
			echo "$man/$page.1$ext"
		done
	fi
}

# check_files WHAT FORMAT PACKAGE LISTING — LISTING (paths, one a line) holds exactly the expected
# executables, man pages and completions (documentation and license files aside)
check_files() {
	local got want
	got=$(sed 's|^\./||; s|^/||' <<<"$4" | grep -E '^usr/(bin|share/(man|bash-completion|zsh|fish))/' | grep -v '/$' | sort)
	want=$(expected_files "$2" "$3" | sort)
	if [ "$got" = "$want" ]; then
		pass "$1: $(wc -l <<<"$got") files: executables, man pages, completions in $2's places"
	else
		fail "$1: files differ from the expected ones:"
		diff <(echo "$want") <(echo "$got") | sed 's/^/    /' || true
	fi
}

# check_docs WHAT DOC SHOWN — the documentation of the flagsplit package in DOC (its
# /usr/share/doc/flagsplit, installed or unpacked; SHOWN is how the lines name it): html/index.html,
# and every relative link of the rendered pages resolving in html/ (scripts/book-links.py html);
# README.md, uncompressed, and every relative link of it resolving inside DOC (scripts/book-links.py
# markdown --root DOC); nothing of it compressed; no font file (the book's theme has no web fonts,
# and debian/copyright names no font's license)
check_docs() {
	local what=$1 doc=$2 text pages files
	if [ -f "$doc/html/index.html" ]; then
		pages=$(find "$doc/html" -name '*.html' | wc -l)
		files=$(find "$doc/html" -type f | wc -l)
		if text=$(python3 "$checkout/scripts/book-links.py" html "$doc/html" 2>&1); then
			pass "$what: the book in $3/html: index.html, $pages pages ($files files); $(tail -1 <<<"$text")"
		else
			fail "$what: the book in $3/html: $(tail -1 <<<"$text")"
			head -n -1 <<<"$text" | sed 's/^/    /'
		fi
	else
		fail "$what: no $3/html/index.html"
	fi
	if [ -f "$doc/README.md" ]; then
		if text=$(python3 "$checkout/scripts/book-links.py" markdown "$doc/README.md" --root "$doc" 2>&1); then
			pass "$what: $3/README.md, each relative link resolving in $3: $(tail -1 <<<"$text")"
		else
			fail "$what: $3/README.md: $(tail -1 <<<"$text")"
			head -n -1 <<<"$text" | sed 's/^/    /'
		fi
	else
		fail "$what: no $3/README.md ($(cd "$doc" 2>/dev/null && ls | tr '\n' ' '))"
	fi
	text=$(cd "$doc" 2>/dev/null && find . -name '*.gz' ! -name 'changelog*.gz' | sed 's|^\./||' | sort | tr '\n' ' ')
	[ -z "$text" ] && pass "$what: nothing compressed in $3 but the changelogs" || fail "$what: compressed in $3: $text"
	text=$(cd "$doc" 2>/dev/null && find . -type f \( -iname '*.woff' -o -iname '*.woff2' -o -iname '*.ttf' -o -iname '*.otf' -o -iname '*.eot' \) | sed 's|^\./||' | sort | tr '\n' ' ')
	[ -z "$text" ] && pass "$what: no font file in $3" ||
		fail "$what: font files in $3 ($text): the book's theme is to have no web fonts (book/theme/fonts/fonts.css), and debian/copyright names no font's license"
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
note "the source, vendor and html tarballs"
# The html tarball is scripts/book.sh's rendering of the working tree's book; the others are HEAD's.
dirty=$(git -C "$checkout" status --porcelain | wc -l)
[ "$dirty" = 0 ] || echo "note: the working tree differs from HEAD ($dirty path(s), git status): the book in the html tarball is the working tree's"
# The step exports SOURCE_DATE_EPOCH, which the builds get too; its output (scripts/book.sh's checks
# among it) goes to tarballs.log.
cd "$dist"
if ! env checkout="$checkout" bash -euc "$(block tarballs)"$'\n''echo "$SOURCE_DATE_EPOCH" >"$1"' tarballs "$work/source-date-epoch" \
	>"$out/tarballs.log" 2>&1; then
	tail -40 "$out/tarballs.log"
	fail "the tarballs step failed: $out/tarballs.log"
	finish "packages"
fi
cd "$checkout"
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(cat "$work/source-date-epoch")
grep '^book: ' "$out/tarballs.log" | sed 's/^/scripts\/book.sh: /' || true
for f in "flagsplit-$version.tar.gz" "flagsplit-$version-vendor.tar.gz" "flagsplit-$version-html.tar.gz"; do
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
as_builder "$dist" bash -euc "$(block arch-sums)"
grep -q "^sha256sums=('[0-9a-f]\{64\}' '[0-9a-f]\{64\}' '[0-9a-f]\{64\}')" "$dist/PKGBUILD" && pass "PKGBUILD checksums filled in" ||
	fail "PKGBUILD checksums: $(grep '^sha256sums=' "$dist/PKGBUILD")"

# The build directory every tool uses (makepkg's $srcdir/$pkgbase-$pkgver), and the C flags
# dpkg-buildpackage exports there, given to rpmbuild and makepkg too (both take them from the
# environment) so that the three builds of a choice are one build for cargo.
build_dir=$dist/src/flagsplit-$version
mkdir -p "$build_dir"
mapfile -t cflags < <(cd "$build_dir" && dpkg-buildflags --export=sh | sed -n 's/^export \([A-Z]*\)="\(.*\)"$/\1=\2/p')
# rpmbuild's %build appends its directories to PKG_CONFIG_PATH (empty here): the other two get the result.
pkg_config_path=PKG_CONFIG_PATH=:$(rpm --eval '%{_libdir}/pkgconfig:%{_datadir}/pkgconfig')
# Build-Depends: only the Rust toolchain may be missing (it is rustup's here, not Debian's packages).
tar -xzf "$dist/flagsplit_$version.orig.tar.gz" -C "$dist/src"
cp -r "$build_dir/packaging/debian" "$build_dir/debian"
for profile in "" pkg.flagsplit.rustls; do
	unmet=$(cd "$build_dir" && dpkg-checkbuilddeps ${profile:+-P"$profile"} 2>&1 || true)
	unmet=${unmet#*Unmet build dependencies: }
	others=$(sed 's/([^)]*)//g' <<<"$unmet" | tr ' ' '\n' | grep -v -x -E '(cargo|rustc)(:native)?|' || true)
	if [ -z "$others" ]; then
		pass "dpkg-checkbuilddeps ${profile:+-P$profile}: nothing unmet but the Rust toolchain (${unmet:-none}), which -d skips"
	else
		fail "dpkg-checkbuilddeps ${profile:+-P$profile}: '$unmet' (only cargo and rustc may be unmet)"
	fi
done
rm -rf "$dist/src"

# lintian on the source package runs beside the first build (it is single-threaded, and the build
# leaves a core idle in its last steps); its result is reported after that build.
as_builder "$dist" bash -euc "$(block lintian-source)" >"$out/lintian-source.txt" 2>&1 &
lintian_source_pid=$!
lintian_source_reported=

# report_lintian_source — waits for lintian on the source package and reports it (once)
report_lintian_source() {
	[ -z "$lintian_source_reported" ] || return 0
	lintian_source_reported=1
	note "lintian on the source package"
	if wait "$lintian_source_pid"; then
		pass "lintian: no error or warning on the source package"
	else
		fail "lintian on the source package:"
	fi
	sed 's/^/    /' "$out/lintian-source.txt"
}

# `cargo flagsplit` (crates/cargo-flagsplit), with which each recipe's check step (packaging/check-build.sh)
# checks its build against the policy committed in packaging/, from the JSON messages the recipe keeps:
# given to the builds as CARGO_FLAGSPLIT, in a directory the build user can read.
note "cargo flagsplit, for the policy checks"
if cargo build -q --locked --offline -p cargo-flagsplit >"$out/cargo-flagsplit-build.log" 2>&1; then
	install -D -m 0755 "$checkout/target/debug/cargo-flagsplit" "$work/bin/cargo-flagsplit"
	cargo_flagsplit=CARGO_FLAGSPLIT=$work/bin/cargo-flagsplit
	pass "built cargo-flagsplit, for the builds: $cargo_flagsplit"
else
	cat "$out/cargo-flagsplit-build.log"
	fail "cargo build -p cargo-flagsplit failed"
	cargo_flagsplit=CARGO_FLAGSPLIT=
fi

# policy_checked CHOICE TOOL LOG — the recipe's check step checked its build against the choice's
# policy (packaging/policy-openssl.toml for openssl, packaging/policy.toml for rustls), and it holds
policy_checked() {
	local policy=packaging/policy.toml
	[ "$1" = openssl ] && policy=packaging/policy-openssl.toml
	if grep -q "^policy $policy: holds" "$3"; then
		pass "$2 ($1): cargo flagsplit check in the recipe: $(grep "^policy $policy: holds" "$3")"
	else
		fail "$2 ($1): no 'policy $policy: holds' in $3"
		grep -E "^(error|warning)\[|^policy |check-build.sh: " "$3" | sed 's/^/    /'
	fi
}

# --- per provider choice ----------------------------------------------------------------------
for choice in "${choices[@]}"; do
	note "provider choice $choice: Debian"
	dest=$out/$choice
	mkdir -p "$dest"
	# One target directory for both choices: the crates whose features do not depend on the choice
	# are compiled once.
	target=$work/target
	mkdir -p "$target"
	chown "$user:" "$target"
	rm -rf "$dist/src" "$dist"/*.deb "$dist"/*.changes "$dist"/*.buildinfo "$dist"/x86_64 "$dist"/*.pkg.tar.*
	install -d -o "$user" -g "$user" "$dist/src"
	builder_env=(CARGO_TARGET_DIR="$target" "$pkg_config_path" "$cargo_flagsplit")
	log=$dest/build-deb.log
	if as_builder "$dist" bash -euc "$(block "debian-$choice")" >"$log" 2>&1; then
		pass "dpkg-buildpackage ($choice) built $(cd "$dist/src" && echo *.deb)"
	else
		tail -40 "$log"
		fail "dpkg-buildpackage ($choice) failed: $log"
		continue
	fi
	if as_builder "$dist/src" bash -euc "$(block lintian-binary)" >"$dest/lintian.txt" 2>&1; then
		pass "lintian: no error or warning on the $choice .deb packages"
	else
		fail "lintian on the $choice .deb packages:"
	fi
	sed 's/^/    /' "$dest/lintian.txt"
	policy_checked "$choice" deb "$log"
	mv "$dist/src"/*.deb "$dist/src"/*.changes "$dist/src"/*.buildinfo "$dest/"
	report_lintian_source

	note "provider choice $choice: RPM"
	builder_env=(CARGO_TARGET_DIR="$target" "${cflags[@]}" "$cargo_flagsplit")
	log=$dest/build-rpm.log
	if as_builder "$dist" bash -euc "$(block "rpm-$choice")" >"$log" 2>&1; then
		pass "rpmbuild ($choice) built $(cd "$dist/x86_64" && echo *.rpm)"
		mv "$dist/x86_64"/*.rpm "$dest/"
		policy_checked "$choice" rpm "$log"
	else
		tail -40 "$log"
		fail "rpmbuild ($choice) failed: $log"
	fi
	compiled=$(grep -c '^ *Compiling ' "$log" || true)
	[ "$compiled" = 0 ] && pass "rpmbuild ($choice): cargo found the Debian build's crates fresh" ||
		fail "rpmbuild ($choice) compiled $compiled crates: its build differs from the Debian one ($(grep '^ *Compiling ' "$log" | head -3 | tr -s ' ' | tr '\n' ';'))"

	note "provider choice $choice: Arch"
	builder_env=(CARGO_TARGET_DIR="$target" "${cflags[@]}" "$pkg_config_path" "$cargo_flagsplit")
	log=$dest/build-arch.log
	if as_builder "$dist" bash -euc "$(block "arch-$choice")" >"$log" 2>&1; then
		pass "makepkg ($choice) built $(cd "$dist" && echo *.pkg.tar.*)"
		mv "$dist"/*.pkg.tar.* "$dest/"
		policy_checked "$choice" arch "$log"
	else
		tail -40 "$log"
		fail "makepkg ($choice) failed: $log"
	fi
	compiled=$(grep -c '^ *Compiling ' "$log" || true)
	[ "$compiled" = 0 ] && pass "makepkg ($choice): cargo found the Debian build's crates fresh" ||
		fail "makepkg ($choice) compiled $compiled crates: its build differs from the Debian one ($(grep '^ *Compiling ' "$log" | head -3 | tr -s ' ' | tr '\n' ';'))"
done
report_lintian_source
# The packages belong to the checkout's owner, not to the build user (removed at the end).
chown -R "$(stat -c %u:%g "$checkout")" "$out"

scratch=$work/scratch
declare -A dep_line
for choice in "${choices[@]}"; do
	dest=$out/$choice
	note "provider choice $choice: dependencies as the tools computed them, and the executables' NEEDED"
	for pkg in flagsplit flagsplit-imap-send; do
		deb=$dest/${pkg}_$version-1_amd64.deb
		rpm=$dest/$pkg-$version-1.x86_64.rpm
		ap=$dest/$pkg-$version-1-x86_64.pkg.tar.zst
		if [ -f "$deb" ]; then
			depends=$(dpkg-deb -f "$deb" Depends)
			printf '  deb   %-20s Depends: %s\n' "$pkg" "$depends"
			rm -rf "$scratch" && mkdir -p "$scratch" && dpkg-deb -x "$deb" "$scratch"
			unpacked "deb $choice $pkg" "$choice" "$scratch"
			mapped=()
			for so in "${needed_all[@]}"; do mapped+=("${deb_of[$so]:-?$so}"); done
			expect_set "deb $choice $pkg: Depends (\${shlibs:Depends}) names the NEEDED libraries' packages" \
				"$(sed 's/ *([^)]*)//g; s/,/ /g' <<<"$depends")" "${mapped[*]}"
			check_files "deb $choice $pkg" deb "$pkg" "$(dpkg-deb -c "$deb" | awk '{print $6}')"
			dep_line[deb,$choice,$pkg]=$depends
		else
			fail "no $deb"
		fi
		if [ -f "$rpm" ]; then
			requires=$(rpm -qp --requires "$rpm" 2>/dev/null | grep -v '^rpmlib(' | sort -u | tr '\n' ' ' | sed 's/ $//')
			printf '  rpm   %-20s Requires: %s\n' "$pkg" "$requires"
			rm -rf "$scratch" && mkdir -p "$scratch" && rpm2cpio "$rpm" | bsdtar -xf - -C "$scratch"
			unpacked "rpm $choice $pkg" "$choice" "$scratch"
			sonames=$(tr ' ' '\n' <<<"$requires" | grep '()(64bit)$' | tr '\n' ' ' | sed 's/ $//')
			expect_set "rpm $choice $pkg: the automatic Requires name the NEEDED sonames" \
				"$(sed 's/()(64bit)//g' <<<"$sonames")" "${needed_all[*]}"
			check_files "rpm $choice $pkg" rpm "$pkg" "$(rpm -qlp "$rpm" 2>/dev/null)"
			[ "$pkg" != flagsplit ] || check_docs "rpm $choice $pkg" "$scratch/usr/share/doc/flagsplit" /usr/share/doc/flagsplit
			dep_line[rpm,$choice,$pkg]=$sonames
		else
			fail "no $rpm"
		fi
		if [ -f "$ap" ]; then
			depends=$(bsdtar -xOf "$ap" .PKGINFO | sed -n 's/^depend = //p' | tr '\n' ' ' | sed 's/ $//')
			printf '  arch  %-20s depends=(%s)\n' "$pkg" "$depends"
			rm -rf "$scratch" && mkdir -p "$scratch" && bsdtar -xf "$ap" -C "$scratch"
			unpacked "arch $choice $pkg" "$choice" "$scratch"
			mapped=()
			for so in "${needed_all[@]}"; do mapped+=("${arch_of[$so]:-?$so}"); done
			expect_set "arch $choice $pkg: depends are the NEEDED libraries' packages (namcap's check)" "$depends" "${mapped[*]}"
			check_files "arch $choice $pkg" arch "$pkg" "$(bsdtar -tf "$ap" | grep -v '^\.')"
			[ "$pkg" != flagsplit ] || check_docs "arch $choice $pkg" "$scratch/usr/share/doc/flagsplit" /usr/share/doc/flagsplit
			dep_line[arch,$choice,$pkg]="depends=($depends)"
		else
			fail "no $ap"
		fi
	done
done

# --- the installed Debian packages --------------------------------------------------------------
# A Dovecot on the loopback with TLS only (imaps), for `flagsplit imap-send --dry-run`: the sender
# logs in through its TLS provider and examines the folder, storing nothing.
start_dovecot() {
	local d=$work/dovecot
	rm -rf "$d"
	mkdir -p "$d/run" "$d/state" "$d/mail"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/key.pem" -out "$d/cert.pem" \
		-days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost -addext basicConstraints=critical,CA:FALSE 2>/dev/null
	echo 'tester:{PLAIN}secret' >"$d/passwd"
	imap_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$d/dovecot.conf" <<-CONF
		base_dir = $d/run
		state_dir = $d/state
		instance_name = flagsplit-packages-$imap_port
		log_path = $d/dovecot.log
		protocols = imap
		listen = 127.0.0.1
		ssl = required
		ssl_cert = <$d/cert.pem
		ssl_key = <$d/key.pem
		disable_plaintext_auth = no
		auth_mechanisms = plain login
		passdb {
		  driver = passwd-file
		  args = scheme=PLAIN username_format=%u $d/passwd
		}
		userdb {
		  driver = static
		  args = uid=nobody gid=nogroup home=$d/mail/%u
		}
		mail_location = maildir:~/Maildir
		namespace inbox {
		  inbox = yes
		  separator = /
		  mailbox Drafts {
		    special_use = \\Drafts
		    auto = create
		  }
		}
		default_internal_user = nobody
		default_internal_group = nogroup
		default_login_user = nobody
		service imap-login {
		  chroot =
		  inet_listener imap {
		    port = 0
		  }
		  inet_listener imaps {
		    address = 127.0.0.1
		    port = $imap_port
		    ssl = yes
		  }
		}
		service anvil {
		  chroot =
		  unix_listener anvil-auth-penalty {
		    mode = 0
		  }
		}
	CONF
	chown -R nobody:nogroup "$d"
	chmod 0755 "$d"
	/usr/sbin/dovecot -F -c "$d/dovecot.conf" >"$d/stdout.log" 2>&1 &
	dovecot_pid=$!
	for _ in $(seq 100); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $imap_port), 1)" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$d/stdout.log" "$d/dovecot.log" 2>/dev/null
	fail "Dovecot did not start"
	return 1
}

# in_clean_env COMMAND... — COMMAND with a user's environment: PATH without cargo's directories
in_clean_env() {
	env -i HOME="$smoke/home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb "$@"
}

# smoke CHOICE — installs CHOICE's .deb packages, runs them, removes them
smoke_test() {
	local choice=$1 dest=$out/$1 out_text files
	note "provider choice $choice: the installed .deb packages"
	smoke=$work/smoke
	rm -rf "$smoke"
	mkdir -p "$smoke/home"
	if dpkg -i "$dest"/flagsplit_*.deb "$dest"/flagsplit-imap-send_*.deb >"$smoke/dpkg.log" 2>&1; then
		pass "dpkg -i flagsplit flagsplit-imap-send"
	else
		cat "$smoke/dpkg.log"
		fail "dpkg -i failed"
		return
	fi
	files=$(dpkg -L flagsplit flagsplit-imap-send | sort -u)

	printf 'flagsplit packaged\n' >"$smoke/file"
	if out_text=$(in_clean_env flagsplit sha1sum "$smoke/file") && [ "$out_text" = "$(sha1sum "$smoke/file")" ]; then
		pass "flagsplit sha1sum: $out_text"
	else
		fail "flagsplit sha1sum gave '$out_text', sha1sum '$(sha1sum "$smoke/file")'"
	fi

	# A repository with a pack and loose objects, checked by flagsplit fsck and git fsck.
	local repo=$smoke/repo
	git init -q "$repo"
	for i in 1 2 3; do
		echo "change $i" >>"$repo/file"
		git -C "$repo" add file
		git -C "$repo" -c user.name=Packager -c user.email=packager@example.invalid commit -q -m "change $i"
		[ "$i" != 2 ] || git -C "$repo" gc -q
	done
	if out_text=$(cd "$repo" && in_clean_env flagsplit fsck 2>&1) && git -C "$repo" fsck --full >/dev/null 2>&1; then
		pass "flagsplit fsck (the installed flagsplit-fsck) on a repository git fsck accepts: exit 0"
	else
		fail "flagsplit fsck: $out_text"
	fi

	# imap-send --dry-run through the installed sender's TLS provider.
	git -C "$repo" config imap.host imaps://localhost
	git -C "$repo" config imap.port "$imap_port"
	git -C "$repo" config imap.user tester
	git -C "$repo" config imap.pass secret
	git -C "$repo" config imap.folder Drafts
	git -C "$repo" config imap.sslCAInfo "$work/dovecot/cert.pem"
	git -C "$repo" format-patch -q --stdout -2 >"$smoke/patches.mbox"
	if out_text=$(cd "$repo" && in_clean_env flagsplit imap-send --dry-run <"$smoke/patches.mbox" 2>&1) &&
		grep -q "dry run: 2 of 2 messages would be stored in 'Drafts'" <<<"$out_text"; then
		pass "flagsplit imap-send --dry-run over imaps: $(grep 'dry run' <<<"$out_text")"
	else
		fail "flagsplit imap-send --dry-run: $out_text"
	fi
	local tls=rustls
	[ "$choice" = rustls ] || tls=openssl
	if in_clean_env flagsplit-imap-send --build-options | grep -q "^tls-provider: $tls "; then
		pass "the installed flagsplit-imap-send speaks TLS through $tls"
	else
		fail "the installed flagsplit-imap-send's TLS provider is not $tls"
	fi

	# The man page and the completions, found where the system looks for them.
	if [ "$(in_clean_env man -w flagsplit-fsck)" = /usr/share/man/man1/flagsplit-fsck.1.gz ] &&
		in_clean_env MANWIDTH=80 man -P cat flagsplit-fsck 2>/dev/null | grep -q '^NAME'; then
		pass "man flagsplit-fsck shows /usr/share/man/man1/flagsplit-fsck.1.gz"
	else
		fail "man flagsplit-fsck: $(in_clean_env man -w flagsplit-fsck 2>&1)"
	fi
	out_text=$(in_clean_env bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		__load_completion flagsplit || exit 1
		f=$(complete -p flagsplit | sed -n "s/.*-F \([^ ]*\).*/\1/p")
		COMP_WORDS=(flagsplit fs); COMP_CWORD=1; COMP_LINE="flagsplit fs"; COMP_POINT=12
		"$f" flagsplit fs flagsplit
		printf "%s\n" "${COMPREPLY[@]}"' 2>&1)
	grep -qx fsck <<<"$out_text" && pass "bash completes 'flagsplit fs' to fsck (the completion bash-completion loads)" ||
		fail "bash completion of 'flagsplit fs': $out_text"
	out_text=$(in_clean_env zsh -fc 'autoload -Uz compinit && compinit -D -u && print -r -- $_comps[flagsplit] $_comps[flagsplit-imap-send]' 2>&1)
	[ "$out_text" = "_flagsplit _flagsplit-imap-send" ] && pass "zsh's compinit finds _flagsplit and _flagsplit-imap-send" ||
		fail "zsh compinit: '$out_text'"
	out_text=$(in_clean_env fish -c 'complete -C "flagsplit fs"; complete -C "flagsplit-imap-send --dry"' 2>&1)
	grep -q '^fsck' <<<"$out_text" && grep -q '^--dry-run' <<<"$out_text" &&
		pass "fish completes 'flagsplit fs' and 'flagsplit-imap-send --dry' from its vendor directory" ||
		fail "fish completion: $out_text"

	# The documentation, where the package installed it.
	check_docs "installed deb $choice flagsplit" /usr/share/doc/flagsplit /usr/share/doc/flagsplit

	# Removal: no file of the packages left, no conffile, no trace in dpkg's database.
	[ -z "$(dpkg-query -W -f='${Conffiles}' flagsplit flagsplit-imap-send)" ] && pass "no conffiles" ||
		fail "conffiles: $(dpkg-query -W -f='${Conffiles}' flagsplit flagsplit-imap-send)"
	if dpkg --purge flagsplit flagsplit-imap-send >"$smoke/purge.log" 2>&1; then
		local left=()
		while IFS= read -r f; do
			[ -d "$f" ] && continue
			[ -e "$f" ] || [ -L "$f" ] && left+=("$f")
		done <<<"$files"
		for d in /usr/share/doc/flagsplit /usr/share/doc/flagsplit-imap-send; do [ -e "$d" ] && left+=("$d"); done
		if [ ${#left[@]} = 0 ] && ! dpkg-query -W flagsplit >/dev/null 2>&1 && ! dpkg-query -W flagsplit-imap-send >/dev/null 2>&1; then
			pass "dpkg --purge left none of the $(grep -c . <<<"$files") paths and no package record"
		else
			fail "after dpkg --purge: ${left[*]} $(dpkg-query -W flagsplit flagsplit-imap-send 2>&1)"
		fi
	else
		cat "$smoke/purge.log"
		fail "dpkg --purge failed"
	fi
}

if start_dovecot; then
	for choice in "${choices[@]}"; do
		ls "$out/$choice"/flagsplit_*.deb >/dev/null 2>&1 && smoke_test "$choice"
	done
fi

note "the dependency table"
table=("| package | providers | Debian \`Depends\` | RPM \`Requires\` (sonames) | Arch \`depends\` |" "|---|---|---|---|---|")
for pkg in flagsplit flagsplit-imap-send; do
	for choice in "${choices[@]}"; do
		table+=("| \`$pkg\` | $choice | ${dep_line[deb,$choice,$pkg]:-} | ${dep_line[rpm,$choice,$pkg]:-} | ${dep_line[arch,$choice,$pkg]:-} |")
	done
done
printf '%s\n' "${table[@]}" | tee "$out/dependencies.md"
documented=$(sed -n '/^<!-- packages-dependencies:begin -->$/,/^<!-- packages-dependencies:end -->$/p' "$doc" | sed '1d;$d')
if [ ${#choices[@]} = 2 ]; then
	if [ "$documented" = "$(cat "$out/dependencies.md")" ]; then
		pass "book/src/packaging.md's dependency table is this one"
	else
		fail "book/src/packaging.md's dependency table differs from this one (target/packages/dependencies.md):"
		diff <(echo "$documented") "$out/dependencies.md" | sed 's/^/    /' || true
	fi
fi

echo "scripts/packages.sh took $(($(date +%s) - started)) s"
finish "packages"

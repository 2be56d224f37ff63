#!/usr/bin/env bash
# Reproducible builds: clean release builds of the committed source (git archive HEAD) must give
# bit-identical flagsplit and flagsplit-imap-send binaries
#   - with --same-directory, twice in the same directory, with no flags at all (the default
#     features); and
#   - in two different directories, with two different CARGO_HOMEs (the second one filled from the
#     first one's downloads), when both use the RUSTFLAGS/CFLAGS of book/src/packaging.md's reproducible-build
#     recipe (the block after `<!-- reproducible-flags -->`, which must read exactly as $RECIPE below).
# The remapped binaries must not contain any absolute path of the build: either source tree, OUT_DIR,
# the target directory, either CARGO_HOME, the toolchain, the temporary directory, the checkout, $HOME;
# nor today's date. On a mismatch it names the differing sections and the first differing strings.
#
# Usage: scripts/reproducible.sh [--sets LIST] [--same-directory] [--keep]
#   LIST, comma-separated (default: default,openssl):
#     default    default features                                   2 builds (4 with --same-directory)
#     openssl    --features openssl-sha1,openssl-md5,openssl-tls     2 builds (cross-directory only:
#                every OpenSSL provider, the build-options table with the probe's results,
#                libcrypto/libssl linked)
#     debuginfo  default features, CARGO_PROFILE_RELEASE_DEBUG=true  2 builds (cross-directory only:
#                what a distribution's -dbgsym package is split from; C code included)
#     vendored   openssl + openssl-vendored                          2 builds (cross-directory only,
#                compiles OpenSSL twice, slow): both trees build into one CARGO_TARGET_DIR, with the
#                recipe's RUSTFLAGS but not its CFLAGS and with one SOURCE_DATE_EPOCH, as book/src/packaging.md
#                says for a vendored OpenSSL (which records its build directory and flags as strings)
#   --same-directory  also the same-directory pair without flags (two more clean builds; the
#                cross-directory pair with the recipe is the stricter check, and the one
#                scripts/test.sh runs)
#   --keep       keep the work directory (it is kept anyway when a check fails)
# Work directory: mktemp -d under $TMPDIR (default /tmp); about 1 GB at most. The default sets are
# 4 clean release builds, plus unpacking the second CARGO_HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh

# The reproducible-build recipe, as book/src/packaging.md gives it; evaluated in the source directory.
RECIPE='cargo_home=${CARGO_HOME:-$HOME/.cargo}
rust_src=$(rustc --print sysroot)/lib/rustlib/src/rust
rust_commit=$(rustc -vV | sed -n "s/^commit-hash: //p")
export RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$cargo_home=/cargo-home --remap-path-prefix=$(pwd -P)=/build/flagsplit --remap-path-prefix=$rust_src=/rustc/$rust_commit"
export CFLAGS="${CFLAGS:-} -ffile-prefix-map=$cargo_home=/cargo-home -ffile-prefix-map=$(pwd -P)=/build/flagsplit"'

sets=default,openssl
keep=0
same_directory=0
while [ $# -gt 0 ]; do
	case $1 in
	--same-directory) same_directory=1; shift ;;
	--sets) sets=${2:?--sets needs a list}; shift 2 ;;
	--sets=*) sets=${1#--sets=}; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "scripts/reproducible.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

die() { echo "scripts/reproducible.sh: $*" >&2; exit 2; }

for tool in git cargo rustc strings readelf cmp sha256sum; do
	command -v "$tool" >/dev/null || die "needs $tool"
done
git rev-parse --verify -q HEAD >/dev/null || die "needs a git checkout with a commit (it builds HEAD)"
# The flags this script sets itself; anything else in the environment applies to every build alike.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR \
	SOURCE_DATE_EPOCH FLAGSPLIT_CONFIG
cargo_home=${CARGO_HOME:-$HOME/.cargo}
sysroot=$(rustc --print sysroot)
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}

work=$(mktemp -d "${TMPDIR:-/tmp}/flagsplit-repro.XXXXXX")
work=$(cd "$work" && pwd -P) # physical, as rustc and cargo see it
cleanup() {
	if [ "$failures" -gt 0 ] || [ "$keep" = 1 ]; then
		echo "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
# Different names and depths; B also gets its own CARGO_HOME (see populate_home_b), so the CARGO_HOME
# mapping is exercised, not just present.
tree_a=$work/a/flagsplit
tree_b=$work/second-directory/nested/flagsplit-copy
home_b=$work/cargo-home-b
for p in "$tree_a" "$tree_b" "$cargo_home" "$home_b" "$sysroot"; do
	case $p in *[[:space:]]*) die "'$p' contains white space, which RUSTFLAGS cannot carry (use CARGO_ENCODED_RUSTFLAGS)" ;; esac
done
mkdir -p "$tree_a" "$tree_b" "$home_b" "$work/out" "$work/log"
git archive --format=tar HEAD | tar -x -C "$tree_a"
git archive --format=tar HEAD | tar -x -C "$tree_b"
# B's CARGO_HOME: a copy of the registry index and the downloaded .crate files (hard links where
# possible), unpacked again by B's build. Not a symlink: rustc records the physical working
# directory of a registry crate in debug information, so a symlinked home would not be a different
# home there.
populate_home_b() {
	local entry
	mkdir -p "$home_b/registry"
	[ -d "$cargo_home/registry/index" ] && cp -a "$cargo_home/registry/index" "$home_b/registry/"
	if [ -d "$cargo_home/registry/cache" ]; then
		cp -al "$cargo_home/registry/cache" "$home_b/registry/" 2>/dev/null ||
			{ rm -rf "$home_b/registry/cache"; cp -a "$cargo_home/registry/cache" "$home_b/registry/"; }
	fi
	for entry in git config.toml config; do
		[ -e "$cargo_home/$entry" ] && cp -a "$cargo_home/$entry" "$home_b/"
	done
	return 0
}
echo "building HEAD $(git rev-parse --short HEAD) in $work"
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "note: uncommitted changes are not part of these builds"

# --- the recipe and book/src/packaging.md ------------------------------------------------------------------
note "book/src/packaging.md's recipe"
doc_block=$(awk '$0 == "<!-- reproducible-flags -->" { found = 1; next }
	found && /^```/ { if (inside) exit; inside = 1; next }
	found && inside { print }' "$tree_a/book/src/packaging.md" 2>/dev/null || true)
if [ "$doc_block" = "$RECIPE" ]; then
	pass "book/src/packaging.md gives the flags this script builds with"
else
	fail "book/src/packaging.md (at HEAD) lacks these lines in a \`\`\`sh block after <!-- reproducible-flags -->:"
	printf '%s\n' "$RECIPE" | sed 's/^/      /'
fi

# recipe_env TREE CARGO_HOME — the RUSTFLAGS and CFLAGS the recipe gives in TREE, one per line
recipe_env() {
	(cd "$1" && export CARGO_HOME=$2 && eval "$RECIPE" && printf '%s\n%s\n' "$RUSTFLAGS" "$CFLAGS")
}

# --- builds -----------------------------------------------------------------------------------------
# The target directory of TREE: TREE/target, or $fixed_target when a set builds both trees there.
fixed_target=""
target_of() { echo "${fixed_target:-$1/target}"; }

# build NAME TREE MODE [cargo args...] — a clean release build of both binaries in TREE's target
# directory, copied to $work/out/NAME. MODE: plain (no flags), recipe, or recipe-b (recipe,
# CARGO_HOME=$home_b). Extra environment: the array build_env (VAR=value words). With no_cflags=1
# the recipe's RUSTFLAGS only.
no_cflags=0
build() {
	local name=$1 tree=$2 mode=$3 home=$cargo_home offline=() envs=() tdir
	shift 3
	tdir=$(target_of "$tree")
	rm -rf "$tdir"
	if [ "$mode" = recipe-b ]; then
		# After the A build of the same set, which fetched everything the lock file names.
		home=$home_b offline=(--offline)
		rm -rf "$home_b" && populate_home_b
	fi
	if [ "$mode" != plain ]; then
		local flags
		flags=$(recipe_env "$tree" "$home")
		envs=("RUSTFLAGS=$(sed -n 1p <<<"$flags")")
		[ "$no_cflags" = 1 ] || envs+=("CFLAGS=$(sed -n 2p <<<"$flags")")
	fi
	envs+=("${build_env[@]}")
	local t0=$SECONDS
	if ! (cd "$tree" && env CARGO_HOME="$home" CARGO_TARGET_DIR="$tdir" "${envs[@]}" \
		cargo build --release --locked "${offline[@]}" --bin flagsplit --bin flagsplit-imap-send "$@") >"$work/log/$name" 2>&1; then
		tail -30 "$work/log/$name"
		fail "$name: build failed (log: $work/log/$name)"
		return 1
	fi
	mkdir -p "$work/out/$name"
	cp "$tdir/release/flagsplit" "$tdir/release/flagsplit-imap-send" "$work/out/$name/"
	echo "      built $name in $((SECONDS - t0))s"
}

# --- checks -----------------------------------------------------------------------------------------
# sections FILE — "name offset size" (decimal) of each section with contents in the file
sections() {
	local name type off size
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' | while read -r name type _ off size _; do
		[ "$name" = NULL ] || [ "$type" = NOBITS ] || echo "$name $((16#$off)) $((16#$size))"
	done
}

# explain A B — what differs between two binaries, for the log
explain() {
	local a=$1 b=$2
	echo "      $(cmp "$a" "$b" | head -1); $(cmp -l "$a" "$b" 2>/dev/null | wc -l) bytes differ; sizes $(stat -c %s "$a") and $(stat -c %s "$b")"
	if [ "$(sections "$a" | cut -d' ' -f1)" != "$(sections "$b" | cut -d' ' -f1)" ]; then
		echo "      the section lists differ:"
		diff <(sections "$a") <(sections "$b") | head -20 | sed 's/^/        /' || true
	else
		local differing=() name off size off_b size_b
		while read -r name off size && read -r _ off_b size_b <&3; do
			if [ "$size" != "$size_b" ] ||
				! cmp -s <(tail -c +$((off + 1)) "$a" | head -c "$size") <(tail -c +$((off_b + 1)) "$b" | head -c "$size_b"); then
				differing+=("$name")
			fi
		done < <(sections "$a") 3< <(sections "$b")
		echo "      differing sections: ${differing[*]:-(none: headers only)}"
	fi
	echo "      first differing strings (diff of strings -a, < $a, > $b):"
	diff <(strings -a "$a") <(strings -a "$b") | grep '^[<>]' | head -20 | cut -c1-200 | sed 's/^/        /' || true
}

# same NAME1 NAME2 WHAT — both binaries of two builds are identical
same() {
	local x=$1 y=$2 what=$3 bin
	for bin in flagsplit flagsplit-imap-send; do
		local a=$work/out/$x/$bin b=$work/out/$y/$bin
		[ -f "$a" ] && [ -f "$b" ] || { fail "$what: $bin: a build is missing"; continue; }
		if cmp -s "$a" "$b"; then
			pass "$what: $bin identical ($(sha256sum "$a" | cut -c1-16), $(stat -c %s "$a") bytes)"
		else
			fail "$what: $bin differs ($x vs $y)"
			explain "$a" "$b"
		fi
	done
}

# no_paths NAME TREE HOME — no absolute path of the build in NAME's binaries
no_paths() {
	local name=$1 tree=$2 home=$3 bin out_dir tdir
	tdir=$(target_of "$tree")
	out_dir=$(find "$tdir/release/build" -regextype posix-extended -regex '.*/flagsplit-[0-9a-f]{16}/out' -type d 2>/dev/null | head -1)
	local -a paths=(
		"source tree=$tree" "OUT_DIR of flagsplit=${out_dir:-$tdir/release/build}"
		"target directory=$tdir" "CARGO_HOME=$home" "shared CARGO_HOME=$cargo_home"
		"toolchain=$sysroot" "RUSTUP_HOME=$rustup_home" "temporary directory=$work" "checkout=$root"
	)
	[ "${#HOME}" -gt 1 ] && paths+=("HOME=$HOME")
	if [ -n "$fixed_target" ]; then
		# Only the shared target directory (and the directories above it) may appear.
		local kept=() entry
		for entry in "${paths[@]}"; do
			case $fixed_target/ in "${entry#*=}"/*) ;; *) [[ ${entry#*=} == "$fixed_target"/* ]] || kept+=("$entry") ;; esac
		done
		paths=("${kept[@]}")
	fi
	for bin in flagsplit flagsplit-imap-send; do
		local f=$work/out/$name/$bin found=()
		for entry in "${paths[@]}"; do
			grep -qaF -- "${entry#*=}" "$f" && found+=("$entry")
		done
		if [ -n "$fixed_target" ]; then
			echo "      note: $name: $bin names the shared target directory $(grep -caF -- "$fixed_target" "$f" || true) times: $(strings -a "$f" | grep -F -- "$fixed_target" | sed -n 's/^\([A-Z]*DIR\): .*/\1/p' | sort -u | tr '\n' ' ')"
		fi
		if [ ${#found[@]} -eq 0 ]; then
			pass "$name: $bin names no ${fixed_target:+other }build path (${#paths[@]} checked)"
		else
			for entry in "${found[@]}"; do
				fail "$name: $bin contains the ${entry%%=*} ${entry#*=}:"
				strings -a "$f" | grep -F -- "${entry#*=}" | head -5 | cut -c1-200 | sed 's/^/        /' || true
			done
		fi
		# A C compiler's __DATE__, or any other build date: the binaries must not know today.
		local dates=("$(date +%Y-%m-%d)" "$(date '+%b %e %Y')") d
		for d in "${dates[@]}"; do
			[ "$d" = "$(rustc -vV | sed -n 's/^commit-date: //p')" ] && continue # rustc's own date
			! grep -qaF -- "$d" "$f" || fail "$name: $bin contains today's date '$d'"
		done
	done
}

# remapped_to NAME — the binaries do name the recipe's targets: the mapping was applied, not merely
# the paths avoided (informational: a dependency may one day have no panic location left)
remapped_to() {
	local n
	n=$(strings -a "$work/out/$1/flagsplit-imap-send" | grep -c '^/cargo-home/registry/' || true)
	echo "      note: $1: flagsplit-imap-send names /cargo-home/registry/... $n times (dependencies' panic locations or debug information)"
}

# probes_not_linked NAME TREE — the C probes built into flagsplit's OUT_DIR are only
# executables there: no flagsplit build script passes a link directive into its OUT_DIR
probes_not_linked() {
	local name=$1 tree=$2 probes bad
	local tdir
	tdir=$(target_of "$tree")
	probes=$(find "$tdir/release/build" -regextype posix-extended -regex '.*/flagsplit-[0-9a-f]{16}/out/probe-[a-z0-9]+' -type f -printf '%f ' 2>/dev/null)
	bad=$(grep -hE '^cargo:(:)?rustc-link-(search|lib|arg)' "$tdir"/release/build/flagsplit*/output 2>/dev/null |
		grep -F "$tdir" || true)
	if [ -n "$probes" ] && [ -z "$bad" ]; then
		pass "$name: the OpenSSL probes ($probes) stay in OUT_DIR: no flagsplit link directive points there"
	elif [ -n "$bad" ]; then
		fail "$name: a flagsplit build script links from its OUT_DIR: $bad"
	else
		fail "$name: no probe executable in flagsplit's OUT_DIR (did the OpenSSL providers build?)"
	fi
}

# expect_option NAME LINE — `flagsplit version --build-options` of build NAME prints LINE
expect_option() {
	local out
	out=$("$work/out/$1/flagsplit" version --build-options 2>&1) || { fail "$1: version --build-options failed"; return; }
	grep -qxF -- "$2" <<<"$out" && pass "$1: has '$2'" || fail "$1: no line '$2' in: $out"
}

# --- the sets -----------------------------------------------------------------------------------
# The recipe builds get SOURCE_DATE_EPOCH as a packager sets it, a different value in each
# directory: the binaries must not depend on it (the man pages do). Not for a vendored OpenSSL,
# which may date itself from it.
epoch=$(git log -1 --format=%ct HEAD)
IFS=, read -ra set_list <<<"$sets"
for set in "${set_list[@]}"; do
	common=()
	case $set in
	default) args=() ;;
	openssl) args=(--features openssl-sha1,openssl-md5,openssl-tls) ;;
	debuginfo) args=() common=(CARGO_PROFILE_RELEASE_DEBUG=true) ;;
	vendored)
		grep -q '^openssl-vendored *=' "$tree_a/Cargo.toml" || { fail "vendored: HEAD has no feature openssl-vendored"; continue; }
		args=(--features openssl-sha1,openssl-md5,openssl-tls,openssl-vendored)
		;;
	*) die "unknown set '$set' (default, openssl, debuginfo, vendored)" ;;
	esac
	note "$set: ${args[*]:-default features}${common[*]:+ ${common[*]}}"

	# The same-directory pair for the default features only: the cross-directory pair below, with
	# the recipe, is the stricter check, and the OpenSSL set's C probes and links are in it.
	if [ "$set" = default ] && [ "$same_directory" = 1 ]; then
		build_env=("${common[@]}")
		build "$set-plain-1" "$tree_a" plain "${args[@]}" &&
			build "$set-plain-2" "$tree_a" plain "${args[@]}" &&
			same "$set-plain-1" "$set-plain-2" "$set: same directory, no flags"
	fi

	# The cross-directory pair, with the recipe.
	env_a=("${common[@]}" "SOURCE_DATE_EPOCH=$epoch")
	env_b=("${common[@]}" "SOURCE_DATE_EPOCH=$((epoch + 400 * 86400))")
	what="two directories, CARGO_HOMEs and SOURCE_DATE_EPOCHs, book/src/packaging.md's flags"
	fixed_target="" no_cflags=0
	if [ "$set" = vendored ]; then
		# OpenSSL's build records its install directory (ENGINESDIR, MODULESDIR: under OUT_DIR) and
		# its compiler flags (CFLAGS included) as strings, which no mapping rewrites, and dates
		# itself from SOURCE_DATE_EPOCH: the same absolute target directory, no CFLAGS line, and
		# the same SOURCE_DATE_EPOCH, as book/src/packaging.md says for a vendored OpenSSL.
		env_b=("${env_a[@]}")
		fixed_target=$work/shared-target no_cflags=1
		what="two directories and CARGO_HOMEs, one CARGO_TARGET_DIR, book/src/packaging.md's RUSTFLAGS"
	fi
	if [ "$set" = default ]; then
		# Also a config file named by its absolute path (as `[env] FLAGSPLIT_CONFIG = { value =
		# "...", relative = true }` gives it), which version --build-options shows: the recipe's
		# mapping must apply there too. It restates the default provider.
		for tree in "$tree_a" "$tree_b"; do
			mkdir -p "$tree/packaging"
			printf '[sha1]\nprovider = "dc"\n' >"$tree/packaging/reproducible.toml"
		done
		env_a+=("FLAGSPLIT_CONFIG=$tree_a/packaging/reproducible.toml")
		env_b+=("FLAGSPLIT_CONFIG=$tree_b/packaging/reproducible.toml")
		what="$what, FLAGSPLIT_CONFIG by absolute path"
	fi
	ok_a=0
	build_env=("${env_a[@]}")
	build "$set-recipe-a" "$tree_a" recipe "${args[@]}" && ok_a=1
	build_env=("${env_b[@]}")
	if build "$set-recipe-b" "$tree_b" recipe-b "${args[@]}" && [ "$ok_a" = 1 ]; then
		same "$set-recipe-a" "$set-recipe-b" "$set: $what"
		no_paths "$set-recipe-a" "$tree_a" "$cargo_home"
		no_paths "$set-recipe-b" "$tree_b" "$home_b"
		remapped_to "$set-recipe-b"
		if [ "$set" = default ]; then
			expect_option "$set-recipe-b" "sha1-provider: dc (from /build/flagsplit/packaging/reproducible.toml:2:12)"
		fi
		if [ "$set" != default ] && [ "$set" != debuginfo ]; then
			probes_not_linked "$set-recipe-b" "$tree_b"
		fi
	fi
	rm -rf "$tree_a/target" "$tree_b/target" "$tree_a/packaging" "$tree_b/packaging" "$work/shared-target"
	fixed_target="" no_cflags=0
done

echo "reproducible builds: $(($(date +%s) - checks_started)) s"
finish "reproducible builds"

#!/usr/bin/env bash
# Builds a "fork network" store: one bare repository holding the packs of several repositories,
# as a hosting site keeps a repository and its forks in one object store. It writes no new pack:
# each repository's packs (.pack, .idx, .rev) are hard-linked into DEST/objects/pack (copied when
# DEST is on another file system, or with --copy) and its loose objects copied, so building a store
# of gigabytes takes seconds. Each repository's refs go under refs/network/NAME/ (refs/heads/x
# becomes refs/network/NAME/heads/x) and refs/heads/main, DEST's HEAD, names the first
# repository's HEAD commit.
#
#   scripts/make-network-store.sh [--copy] DEST [NAME=]REPO...
#
# NAME defaults to REPO's directory name without ".git" (for a directory named ".git" or "repo",
# the name of the directory above it). The repositories must share one object format, hold no alternates and no
# symbolic ref other than HEAD-like ones (symbolic refs are left out; their targets are there). What
# is not copied: bitmaps (git uses one bitmap per repository), multi-pack-indexes, commit-graphs,
# .keep and .promisor files (the store has no promisor remote), reflogs and configuration. DEST must
# not exist; it is built beside itself under a temporary name and renamed at the end, so a failure
# leaves nothing behind.
set -euo pipefail
copy=0
usage() { echo "usage: $0 [--copy] DEST [NAME=]REPO..." >&2; exit 2; }
die() { echo "make-network-store: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--copy) copy=1; shift ;;
	--help | -h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage
dest=$1
shift
[ ! -e "$dest" ] || die "$dest exists: name a directory that does not (the store is made anew)"
parent=$(dirname "$dest")
[ -d "$parent" ] || die "$parent is not a directory"

names=() dirs=()
format=
for arg in "$@"; do
	case $arg in
	*=*) name=${arg%%=*} dir=${arg#*=} ;;
	*)
		dir=$arg
		abs=$(cd "$dir" 2>/dev/null && pwd || echo "$dir")
		name=$(basename "$abs")
		case $name in .git | repo) name=$(basename "$(dirname "$abs")") ;; esac
		name=${name%.git}
		;;
	esac
	gitdir=$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) ||
		die "$dir is not a git repository"
	git check-ref-format "refs/network/$name/x" || die "$name: not usable in a ref name (give NAME=$dir)"
	for n in "${names[@]}"; do [ "$n" != "$name" ] || die "two repositories named $name (give NAME=REPO)"; done
	f=$(git -C "$dir" rev-parse --show-object-format)
	[ -z "$format" ] || [ "$f" = "$format" ] || die "$dir uses $f, the first repository $format: one store holds one object format"
	format=$f
	[ ! -s "$gitdir/objects/info/alternates" ] ||
		die "$dir borrows objects from another store (objects/info/alternates); repack it with 'git repack -a' first"
	names+=("$name") dirs+=("$gitdir")
done

tmp=$(mktemp -d "$parent/.network-store.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git init -q --bare --object-format="$format" -b main "$tmp"
pack=$tmp/objects/pack
start=$SECONDS
refs=$tmp/refs.txt
: >"$refs"
linked=0 copied=0
for i in "${!names[@]}"; do
	name=${names[$i]} gitdir=${dirs[$i]}
	for p in "$gitdir"/objects/pack/pack-*.pack; do
		[ -e "$p" ] || continue
		base=${p%.pack}
		[ -e "$base.idx" ] || die "$p has no .idx: run 'git index-pack $p' in $name first"
		for ext in pack idx rev; do
			[ -e "$base.$ext" ] || continue
			to=$pack/$(basename "$base.$ext")
			if [ -e "$to" ]; then
				# The same pack in two repositories (a fork cloned with --shared, then repacked).
				cmp -s "$base.$ext" "$to" || die "$(basename "$to") is in two repositories with different contents"
				continue
			fi
			if [ "$copy" = 0 ] && ln "$base.$ext" "$to" 2>/dev/null; then
				linked=$((linked + 1))
			else
				cp "$base.$ext" "$to"
				copied=$((copied + 1))
			fi
		done
	done
	# Loose objects, copied (a later `git gc` in the source would delete the linked file only there).
	(cd "$gitdir/objects" && find . -path './[0-9a-f][0-9a-f]/*' -type f -print0) |
		while IFS= read -r -d '' o; do
			mkdir -p "$tmp/objects/$(dirname "$o")"
			[ -e "$tmp/objects/$o" ] || cp "$gitdir/objects/$o" "$tmp/objects/$o"
		done
	# Every ref but symbolic ones, renamed under refs/network/NAME/.
	git --git-dir="$gitdir" for-each-ref --format='%(objectname) %(refname) %(symref)' |
		awk -v n="$name" 'NF == 2 { sub(/^refs\//, "refs/network/" n "/", $2); print $1, $2 }' >>"$refs"
	if [ "$i" = 0 ]; then
		head=$(git --git-dir="$gitdir" rev-parse --verify -q HEAD) || die "$name: HEAD names no commit"
		echo "$head refs/heads/main" >>"$refs"
	fi
done
# One packed-refs file, sorted as git sorts (bytewise), read by git without a header.
LC_ALL=C sort -k2,2 "$refs" >"$tmp/packed-refs"
rm "$refs"
count=$(wc -l <"$tmp/packed-refs")
git --git-dir="$tmp" rev-parse --verify -q refs/heads/main >/dev/null || die "refs/heads/main was not written"
mv "$tmp" "$dest"
trap - EXIT
objects=$(git --git-dir="$dest" count-objects -v | awk '/^in-pack|^count/ { s += $2 } END { print s }')
mb=$(du -smL "$dest/objects/pack" | cut -f1)
echo "make-network-store: $dest: ${#names[@]} repositories (${names[*]}), $objects objects, $mb MB of packs ($linked files linked, $copied copied), $count refs, in $((SECONDS - start)) s" >&2

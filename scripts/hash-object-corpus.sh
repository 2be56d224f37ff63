#!/usr/bin/env bash
# Regenerates tests/hash-object-corpus/: commits, trees and tags (well formed and malformed), each
# with git's verdict on it as `git hash-object -t TYPE --stdin` gives it.
# tests/integration/hash_object.rs compares flagsplit with these recorded verdicts on every run (no
# git needed) and with the installed git when that is 2.47 or later.
#
#   scripts/hash-object-corpus.sh [GIT]     (default: git on PATH; must be 2.47 or later)
#
# Files per case NAME:
#   NAME.obj       the object's content, generated below (never typed in by hand)
#   NAME.type      commit, tree or tag
#   NAME.format    sha256 for a case run in a SHA-256 repository (absent: SHA-1, outside any)
#   NAME.expected  `status N`, `id HEX` (or `id -`), then git's standard error verbatim
#
# Trees naming a regular .gitmodules or .gitattributes are left out: git reads those blobs from
# its object database after hashing (flagsplit reads none), and git 2.47.3 crashes on them
# outside a repository.
set -euo pipefail
cd "$(dirname "$0")/.."
git=${1:-git}
version=$("$git" --version | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
read -r major minor <<<"$version"
if [ "$major" -lt 2 ] || { [ "$major" = 2 ] && [ "$minor" -lt 47 ]; }; then
	echo "hash-object-corpus: $("$git" --version) runs no fsck checks in hash-object; need 2.47 or later" >&2
	exit 1
fi

out=tests/hash-object-corpus
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CEILING_DIRECTORIES=$work GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR
mkdir "$work/outside"
"$git" init -q --object-format=sha256 "$work/sha256"

# Bytes of a hexadecimal string.
bin() { printf "$(printf %s "$1" | sed 's/../\\x&/g')"; }
# A tree entry: mode, name (bytes), id (hex).
entry() { printf '%s %s\0' "$1" "$2"; bin "$3"; }

id1=e69de29bb2d1d6434b8b29ae775ad8c2e48c5391
id2=ce013625030ba8dba906f756967f9e9ca394464a
null=0000000000000000000000000000000000000000
s1=473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813
s2=2e99758548972a8e8822ad47fa1017ff72f06f3ff6a016851f45c398732bc50c
who='A U Thor <author@example.com>'
ident="$who 1700000000 +0130"

# case NAME TYPE [sha256]: the object's content is on standard input.
case_() {
	local name=$1 type=$2 format=${3:-sha1}
	cat >"$out/$name.obj"
	printf '%s\n' "$type" >"$out/$name.type"
	local dir=$work/outside
	if [ "$format" = sha256 ]; then
		printf 'sha256\n' >"$out/$name.format"
		dir=$work/sha256
	fi
	local status=0
	(cd "$dir" && "$git" hash-object -t "$type" --stdin <"$OLDPWD/$out/$name.obj" >"$work/stdout" 2>"$work/stderr") || status=$?
	{
		echo "status $status"
		if [ -s "$work/stdout" ]; then echo "id $(cat "$work/stdout")"; else echo "id -"; fi
		cat "$work/stderr"
	} >"$out/$name.expected"
}

# --- trees -------------------------------------------------------------------------------------
{ entry 100644 a $id1; entry 100755 b $id2; entry 120000 c $id1; entry 40000 d $id2; entry 160000 e $id1; } | case_ tree-ok tree
printf '' | case_ tree-empty tree
{ entry 100644 a.b $id1; entry 40000 a $id2; entry 100644 a0 $id1; } | case_ tree-dir-sorts-after-dot tree
{ entry 40000 a $id2; entry 100644 a.b $id1; } | case_ tree-not-sorted-dir tree
{ entry 100644 b $id1; entry 100644 a $id1; } | case_ tree-not-sorted tree
{ entry 100644 file $id1; entry 100644 file $id1; } | case_ tree-duplicate tree
{ entry 100644 foo $id1; entry 40000 foo $id2; } | case_ tree-file-dir-same-name tree
{ entry 100644 foo $id1; entry 100644 foo.bar $id1; entry 40000 foo $id2; } | case_ tree-file-dir-clash-apart tree
{ entry 100644 foo $id1; entry 100644 foo.bar $id1; entry 100644 foo.bar.baz $id1; entry 40000 foo.bar $id2; } | case_ tree-file-dir-clash-nested tree
printf 'abc\n' | case_ tree-too-short tree
{ printf '9100644 \0'; bin $id1; } | case_ tree-malformed-mode tree
{ printf ' a\0'; bin $id1; } | case_ tree-mode-missing tree
{ printf '100644 \0'; bin $id1; } | case_ tree-empty-filename tree
{ entry 100644 a $id1; printf '100644 b\0'; bin ${id1:0:20}; } | case_ tree-truncated-second-entry tree
{ entry 120000 .gitignore $id1; printf '10x644 b\0'; bin $id1; } | case_ tree-symlink-then-parse-error tree
entry 100644 a $null | case_ tree-null-id tree
entry 100664 a $id1 | case_ tree-mode-100664 tree
entry 100600 a $id1 | case_ tree-mode-100600 tree
entry 040000 a $id1 | case_ tree-zero-padded-mode tree
entry 0100644 a $id1 | case_ tree-zero-padded-file-mode tree
entry 1000000100644 a $id1 | case_ tree-mode-overflows-16-bits tree
entry 100644 . $id1 | case_ tree-dot tree
entry 40000 .. $id1 | case_ tree-dotdot tree
entry 100644 a/b $id1 | case_ tree-slash tree
long=$(printf 'x%.0s' $(seq 4096))
entry 100644 "$long" $id1 | case_ tree-name-4096 tree
entry 100644 "${long}y" $id1 | case_ tree-name-4097 tree
for n in .git .GIT .Git .git. '.git ' '.git. . ' '.git::$INDEX_ALLOCATION' git~1 GIT~1 'git~1.' $'.g\xe2\x80\x8cit' $'\xef\xbb\xbf.git' $'.gi\xe2\x80\xaet' $'.git\xe2\x80\x8d' 'a\.git' 'a\git~1' '.git/x'; do
	slug=$(printf %s "$n" | od -An -tx1 | tr -d ' \n')
	entry 100644 "$n" $id1 | case_ "tree-dotgit-$slug" tree
done
entry 40000 .git $id2 | case_ tree-dotgit-directory tree
for n in .gitx .gi git~2 .git~1 'git~1x' $'.g\xe2\x80\x8bit' $'.git\xc3'; do
	slug=$(printf %s "$n" | od -An -tx1 | tr -d ' \n')
	entry 100644 "$n" $id1 | case_ "tree-not-dotgit-$slug" tree
done
for n in .gitmodules .GITMODULES '.gitmodules ' GITMOD~1 gi7eba~1 'x\.gitmodules'; do
	slug=$(printf %s "$n" | od -An -tx1 | tr -d ' \n')
	entry 120000 "$n" $id1 | case_ "tree-gitmodules-symlink-$slug" tree
done
for n in .gitattributes GITATT~1 .gitignore GITIGN~1 gi250a~1 .mailmap MAILMA~1; do
	slug=$(printf %s "$n" | od -An -tx1 | tr -d ' \n')
	entry 120000 "$n" $id1 | case_ "tree-symlink-$slug" tree
done
entry 100644 .gitignore $id1 | case_ tree-gitignore-regular tree
entry 100644 .mailmap $id1 | case_ tree-mailmap-regular tree
{ entry 0100664 .. $null; entry 100644 .git $null; entry 100644 .git $null; entry 120000 .mailmap $id1; } | case_ tree-many-problems tree

# --- commits -----------------------------------------------------------------------------------
commit() { printf 'tree %s\n%sauthor %s\ncommitter %s\n%s\nmessage\n' "$id1" "${1:-}" "$ident" "$ident" "${2:-}"; }
commit | case_ commit-ok commit
commit "parent $id2"$'\n'"parent $id1"$'\n' | case_ commit-merge commit
commit "" "encoding ISO-8859-1"$'\n'"gpgsig x"$'\n'" y"$'\n' | case_ commit-extra-headers commit
printf 'tree %s\nauthor %s\ncommitter %s\n' "$id1" "$ident" "$ident" | case_ commit-no-message commit
printf 'tree %s\nauthor %s\ncommitter %s' "$id1" "$ident" "$ident" | case_ commit-unterminated-header commit
printf '' | case_ commit-empty commit
printf 'tree %s\nauthor %s\0\ncommitter %s\n\nm\n' "$id1" "$ident" "$ident" | case_ commit-nul-in-header commit
{ commit; printf 'body\0nul\n'; } | case_ commit-nul-in-body commit
printf 'parent %s\ntree %s\nauthor %s\ncommitter %s\n\nm\n' "$id2" "$id1" "$ident" "$ident" | case_ commit-parent-first commit
printf 'tree %s\nauthor %s\ncommitter %s\n\nm\n' "${id1^^}" "$ident" "$ident" | case_ commit-uppercase-tree-id commit
printf 'tree %s\nauthor %s\ncommitter %s\n\nm\n' "${id1:0:39}" "$ident" "$ident" | case_ commit-short-tree-id commit
printf 'tree %s \nauthor %s\ncommitter %s\n\nm\n' "$id1" "$ident" "$ident" | case_ commit-tree-id-trailing-space commit
commit "parent xyz"$'\n' | case_ commit-bad-parent commit
printf 'tree %s\ncommitter %s\n\nm\n' "$id1" "$ident" | case_ commit-no-author commit
printf 'tree %s\nauthor %s\nauthor %s\ncommitter %s\n\nm\n' "$id1" "$ident" "$ident" "$ident" | case_ commit-two-authors commit
printf 'tree %s\nauthor %s\n\nm\n' "$id1" "$ident" | case_ commit-no-committer commit
for ident_case in \
	'missing-name:<a@b> 1 +0000' \
	'bad-name:A> <a@b> 1 +0000' \
	'missing-email:A 1 +0000' \
	'no-space-before-email:A<a@b> 1 +0000' \
	'bad-email:A <a@b 1 +0000' \
	'no-space-before-date:A <a@b>1 +0000' \
	'bad-date:A <a@b> x +0000' \
	'no-date:A <a@b> +0000' \
	'zero-padded-date:A <a@b> 01 +0000' \
	'zero-date:A <a@b> 0 +0000' \
	'date-max:A <a@b> 9223372036854775807 +0000' \
	'date-overflow-time_t:A <a@b> 9223372036854775808 +0000' \
	'date-overflow-64-bits:A <a@b> 99999999999999999999 +0000' \
	'extra-spaces-before-date:A <a@b>  	 1 +0000' \
	'bad-timezone-short:A <a@b> 1 +000' \
	'bad-timezone-no-sign:A <a@b> 1 01000' \
	'bad-timezone-trailing:A <a@b> 1 +0000 ' \
	'no-timezone:A <a@b> 1' \
	'empty-name:  <a@b> 1 +0000' \
	'empty-email:A <> 1 +0000'; do
	slug=${ident_case%%:*}
	value=${ident_case#*:}
	printf 'tree %s\nauthor %s\ncommitter %s\n\nm\n' "$id1" "$value" "$ident" | case_ "commit-author-$slug" commit
	printf 'tree %s\nauthor %s\ncommitter %s\n\nm\n' "$id1" "$ident" "$value" | case_ "commit-committer-$slug" commit
done

# --- tags --------------------------------------------------------------------------------------
tag() { printf 'object %s\ntype %s\ntag %s\n%s\nmessage\n' "$id1" "${1:-commit}" "${2:-v1.0}" "${3-tagger $ident
}"; }
tag | case_ tag-ok tag
tag tree | case_ tag-of-tree tag
tag tag | case_ tag-of-tag tag
tag commit v1.0 "" | case_ tag-no-tagger tag
printf 'object %s\ntype commit\ntag v1\n' "$id1" | case_ tag-no-tagger-no-message tag
tag commit v1.0 "tagger $ident"$'\n'"extra header"$'\n' | case_ tag-extra-header tag
tag commit v1.0 "tagger bad"$'\n'"extra header"$'\n' | case_ tag-bad-tagger-then-extra-header tag
tag commit v1.0 "tagger bad"$'\n' | case_ tag-bad-tagger tag
tag commit v1.0 "tagger A <a@b> 99999999999999999999 +0000"$'\n' | case_ tag-tagger-date-overflow tag
tag blob2 | case_ tag-bad-type tag
tag '' | case_ tag-empty-type tag
printf 'object %s\ntype commit' "$id1" | case_ tag-unterminated-type tag
printf 'object %s\ntag v1\n' "$id1" | case_ tag-no-type tag
printf 'type commit\ntag v1\n' | case_ tag-no-object tag
printf 'object %s\ntype commit\ntag v1\ntagger %s\0\n\nm\n' "$id1" "$ident" | case_ tag-nul-in-header tag
printf 'object xyz\ntype commit\ntag v1\n\nm\n' | case_ tag-bad-object tag
printf 'object %s\ntype commit\n\nm\n' "$id1" | case_ tag-no-tag-line tag
for name in 'a b' a..b .a a. a.lock 'a@{1}' a/ a//b 'a~1' 'a^' 'a:b' 'a?' 'a[' 'a*' 'a\b' $'a\x01' $'a\x7f' '' @ 'a/.b' x@y $'caf\xc3\xa9' 'a/b' '-a'; do
	slug=$(printf %s "$name" | od -An -tx1 | tr -d ' \n')
	tag commit "$name" | case_ "tag-name-$slug" tag
done

# --- SHA-256 -----------------------------------------------------------------------------------
{ entry 100644 a $s1; entry 40000 d $s2; } | case_ sha256-tree-ok tree sha256
{ entry 100644 a $id1; entry 40000 d $id2; } | case_ sha256-tree-with-sha1-ids tree sha256
entry 100644 .git $s1 | case_ sha256-tree-dotgit tree sha256
entry 100644 a "$(printf '0%.0s' $(seq 64))" | case_ sha256-tree-null-id tree sha256
printf 'tree %s\nparent %s\nauthor %s\ncommitter %s\n\nm\n' "$s1" "$s2" "$ident" "$ident" | case_ sha256-commit-ok commit sha256
commit | case_ sha256-commit-with-sha1-id commit sha256
printf 'object %s\ntype commit\ntag v1\ntagger %s\n\nm\n' "$s1" "$ident" | case_ sha256-tag-ok tag sha256
tag | case_ sha256-tag-with-sha1-id tag sha256

n=$(find "$out" -name '*.expected' | wc -l)
refused=$(grep -l '^status 128' "$out"/*.expected | wc -l)
echo "hash-object-corpus: $n cases ($refused refused) from $("$git" --version)" >&2

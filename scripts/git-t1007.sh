#!/usr/bin/env bash
# Runs git's own test script for hash-object, t/t1007-hash-object.sh, with `flagsplit hash-object`
# standing in for `git hash-object`, and prints pass/fail per case. Not part of the test command:
# it needs git's source tree (only its t/ directory; nothing of git is built) and a git to run
# everything else.
#
#   scripts/git-t1007.sh GIT_SOURCE [VERSION]
#
# GIT_SOURCE is a clone of https://github.com/git/git (or any git directory holding the tag);
# VERSION defaults to v2.47.3. The flagsplit used is target/release/flagsplit (built if
# missing), or FLAGSPLIT=PATH. Needs perl (git's test library uses it) and a git for everything but hash-object
# (default: git on PATH; GIT=... to choose).
#
# The stand-in for git is a shim: `git hash-object` runs flagsplit, except what flagsplit does
# not do, which goes to the real git — `-w` (writing objects), `--path` (hashing as if at another
# path, for its filters) and any call where git would filter the content (core.autocrlf set, or
# a .gitattributes in the repository, without --no-filters). Every other git command is the
# real git. The shim logs which program answered each call; the summary counts them.
#
# test-lib.sh wants a built tree (GIT-BUILD-OPTIONS, templates, t/helper/test-tool); the script
# supplies a minimal GIT-BUILD-OPTIONS and a test-tool that answers the two questions test-lib asks
# on this path (env-helper, and the date sizes), and runs with GIT_TEST_INSTALLED pointing at the
# shim.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=${1:?usage: $0 GIT_SOURCE [VERSION]}
version=${2:-v2.47.3}
real_git=$(command -v "${GIT:-git}")
flagsplit=${FLAGSPLIT:-$root/target/release/flagsplit}
[ -x "$flagsplit" ] || cargo build --release --quiet --bin flagsplit

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/git
mkdir -p "$tree"
if [ -d "$src/.git" ] || [ -f "$src/HEAD" ]; then
	git -C "$src" archive "$version" t | tar -x -C "$tree"
else
	echo "git-t1007: $src is not a git repository" >&2
	exit 2
fi
mkdir -p "$tree/templates/blt" "$tree/t/helper" "$work/bin"

cat >"$tree/GIT-BUILD-OPTIONS" <<EOF
SHELL_PATH='/bin/sh'
TEST_SHELL_PATH='/bin/sh'
PERL_PATH='$(command -v perl)'
DIFF='diff'
PYTHON_PATH=''
TAR='tar'
NO_CURL=1
NO_EXPAT=1
NO_PERL=
NO_PTHREADS=
NO_PYTHON=1
NO_REGEX=
NO_UNIX_SOCKETS=
PAGER_ENV='LESS=FRX LV=-c'
X=''
GIT_TEST_CMP_USE_COPIED_CONTEXT=
GIT_TEST_TEMPLATE_DIR='$($real_git --exec-path)/../../share/git-core/templates'
GIT_TEST_GITPERLLIB=''
GIT_TEST_MERGE_TOOLS_DIR=''
RUNTIME_PREFIX='false'
GIT_INTEROP_MAKE_OPTS=''
GIT_TEST_INDEX_VERSION=''
GIT_TEST_PERL_FATAL_WARNINGS=''
EOF

# test-tool: only what test-lib.sh asks on the way to t1007's cases.
cat >"$tree/t/helper/test-tool" <<'EOF'
#!/bin/sh
case "$1" in
env-helper)
	# env-helper --type=bool --default=D --exit-code NAME
	default=false
	for a in "$@"; do
		case $a in --default=*) default=${a#--default=} ;; esac
		name=$a
	done
	eval "value=\${$name-$default}"
	case $value in 1|true|yes|on) exit 0 ;; *) exit 1 ;; esac ;;
date)
	exit 0 ;;
*)
	echo "test-tool stand-in: $* is not provided" >&2
	exit 1 ;;
esac
EOF
chmod +x "$tree/t/helper/test-tool"

log=$work/calls
: >"$log"
cat >"$work/bin/git" <<EOF
#!/bin/sh
if [ "\$1" != hash-object ]; then
	exec "$real_git" "\$@"
fi
to_git=
no_filters=
for a in "\$@"; do
	case \$a in
	-w|--path|--path=*) to_git=1 ;;
	--no-filters) no_filters=1 ;;
	esac
done
if [ -z "\$to_git" ] && [ -z "\$no_filters" ]; then
	if [ -n "\$("$real_git" config --get core.autocrlf 2>/dev/null)" ]; then
		to_git=1
	elif top=\$("$real_git" rev-parse --show-toplevel 2>/dev/null) && [ -n "\$(find "\$top" -name .gitattributes -not -path '*/.git/*' 2>/dev/null | head -1)" ]; then
		to_git=1
	fi
fi
if [ -n "\$to_git" ]; then
	echo "git \$*" >>"$log"
	exec "$real_git" "\$@"
fi
echo "flagsplit \$*" >>"$log"
exec "$flagsplit" "\$@"
EOF
chmod +x "$work/bin/git"
# git --exec-path must answer for the shim's directory too.
ln -s "$($real_git --exec-path)"/* "$work/bin/" 2>/dev/null || true
rm -f "$work/bin/git-hash-object"

echo "# $version t/t1007-hash-object.sh, flagsplit $("$flagsplit" --version | sed 's/^flagsplit version //') as git hash-object, $("$real_git" --version) for the rest"
status=0
(cd "$tree/t" && GIT_TEST_INSTALLED=$work/bin sh t1007-hash-object.sh) >"$work/out" 2>&1 || status=$?
grep -E '^(ok|not ok|# )' "$work/out" || cat "$work/out"
echo "# hash-object calls answered by flagsplit: $(grep -c '^flagsplit' "$log"), by git (-w, --path, filters): $(grep -c '^git' "$log")"
exit "$status"

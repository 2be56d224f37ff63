#!/usr/bin/env bash
# Runs git's own fsck-related test scripts with `git fsck` answered by `flagsplit fsck`, and
# compares flagsplit with git on the repository state before every git command those scripts run.
# Not part of the test command: it builds git (with its test-tool) from git's source tree.
#
#   scripts/git-fsck-tests.sh GIT_SOURCE [VERSION]
#
# GIT_SOURCE is a clone of https://github.com/git/git (or any git directory holding the tag);
# VERSION defaults to v2.47.3. git is built once, with `make` and options that need only a C
# compiler, perl and zlib's headers (NO_CURL, NO_EXPAT, NO_GETTEXT, NO_TCLTK, NO_PYTHON,
# NO_OPENSSL; zlib1g-dev is installed with apt-get when missing and run as root), in
# target/git-fsck-tests/git-VERSION (CACHE=DIR to choose), and reused while VERSION and the
# options are the same. The flagsplit used is target/release/flagsplit with flagsplit-fsck beside
# it (built if missing), or FLAGSPLIT=PATH.
#
# Each script runs twice with the built git:
# - "git": every git command is the built git (the baseline);
# - "flagsplit": through a shim, `git [OPTIONS] fsck ARGS` runs `flagsplit fsck ARGS` (as an
#   external git command, so git's own -C, -c, --git-dir... apply as they do to `git fsck`), and
#   every other command is the built git. Before it runs any git command in a repository, the shim
#   runs `git fsck` and `flagsplit fsck` there (when it is one of the scripts' repositories, under
#   their trash directories) with the command's global options, once for each variant in VARIANTS
#   (default: none, --connectivity-only, --unreachable, --no-dangling), with no standard input,
#   their output in files, GIT_NO_LAZY_FETCH=1, and without GIT_TRACE* and git's test hooks that
#   make it die on purpose (GIT_TEST_COMMIT_GRAPH_DIE_ON_PARSE, GIT_TEST_REV_INDEX_DIE_*); it
#   compares their exit status and their stdout and stderr lines, each with the number of times
#   it is printed (flagsplit's `notice: not checked: ...` lines left out). A repository state (the
#   files of its git directory, its objects and alternates, ~/.gitconfig, the directory, options
#   and GIT_* environment) is compared once per script run. Every `git fsck` the scripts run is
#   also compared with its own arguments, in its environment, each time (a call differs when its
#   status, a line or a line's count differs); a run with `--lost-found` (the variants' or a
#   call's) is made on two copies of the trash directory, one per program, and the two
#   `lost-found/` trees they write are compared with `diff -r`. A difference is classed by its differing lines
#   with object ids, numbers and the trash directory's path taken out, and the first state of each
#   class is saved in OUT/findings/classes/CLASS: the trash directory copied, the command, its
#   directory and environment, both outputs, and repro.sh, which runs both programs again on the
#   copy. The outputs of every differing state are kept in OUT/findings/states, and
#   OUT/findings/occurrences.tsv lists them by script, case, variant and class.
#
# Variables: TESTS (the scripts, by number; default: t1450, t1451, t1420, t5303, t5318, t5319,
# t5325, t5504, t5613, t7450, t3800, t1410, t0410, and t1450:reftable, which runs t1450 with
# GIT_TEST_DEFAULT_REF_FORMAT=reftable), JOBS (script runs at once, default 1), VARIANTS (a
# comma-separated list; an empty item is the default options), ORACLE=0 (no comparison, only the
# pass/fail counts), OUT (where the results go, default target/git-fsck-tests/out; emptied
# first), SUMMARY_ONLY=1 (print the summary of the results already in OUT, running nothing).
#
# Prints, per script run, the cases passed and failed with git and through flagsplit, the cases
# that pass with git and fail through flagsplit, the states compared and those that differ, the
# scripts' own `git fsck` calls compared and those that differ, and the classes of difference; exits 1 when a case that passes with git fails through flagsplit or any state
# differs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=${1:?usage: $0 GIT_SOURCE [VERSION]}
version=${2:-v2.47.3}
cache=${CACHE:-$root/target/git-fsck-tests}
out=${OUT:-$cache/out}
jobs=${JOBS:-1}
oracle=${ORACLE:-1}
variants=${VARIANTS-,--connectivity-only,--unreachable,--no-dangling}
tests=${TESTS:-t1450 t1450:reftable t1451 t1420 t5303 t5318 t5319 t5325 t5504 t5613 t7450 t3800 t1410 t0410}
flagsplit=${FLAGSPLIT:-$root/target/release/flagsplit}
if [ -z "${FLAGSPLIT:-}" ] && { [ ! -x "$flagsplit" ] || [ ! -x "$root/target/release/flagsplit-fsck" ]; }; then
	cargo build --release --quiet --bin flagsplit --bin flagsplit-fsck
fi
flagsplit=$(cd "$(dirname "$flagsplit")" && pwd)/$(basename "$flagsplit")
started=$(date +%s)

# --- the summary ------------------------------------------------------------------------------
lines_in() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
seconds_of() { if [ -f "$1" ]; then cut -d' ' -f2 "$1"; else echo '?'; fi; }
summary() {
	counts() { # TAP file: passed failed skipped known-breakages
		perl -ne '
			$p++ if /^ok \d+ /  && !/# (skip|TODO)/i;
			$s++ if /^ok \d+ /  && /# skip/i;
			$f++ if /^not ok \d+ / && !/# TODO/;
			$k++ if /^not ok \d+ / && /# TODO/;
			END { printf "%d %d %d %d", $p, $f, $s, $k }' "$1"
	}
	bad=0
	printf '\n%-18s %-22s %-22s %-8s %-8s %-8s %-8s %s\n' script "git pass/fail/skip" "flagsplit pass/fail/skip" states differ calls "differ" seconds
	for spec in $tests; do
		u=${spec/:/-}
		read -r gp gf gs _ <<<"$(counts "$out/tap/$u-git.out")"
		read -r fp ff fs _ <<<"$(counts "$out/tap/$u-flagsplit.out")"
		states=$(lines_in "$out/state/$u-flagsplit.count")
		differ=$(lines_in "$out/state/$u-flagsplit.differ")
		calls=$(lines_in "$out/state/$u-flagsplit.calls")
		calls_differ=$(lines_in "$out/state/$u-flagsplit.calls-differ")
		secs="$(seconds_of "$out/results/$u-git.status")/$(seconds_of "$out/results/$u-flagsplit.status")"
		printf '%-18s %-22s %-22s %-8s %-8s %-8s %-8s %s\n' "$u" "$gp/$gf/$gs" "$fp/$ff/$fs" "$states" "$differ" "$calls" "$calls_differ" "$secs"
		regressions=$(join -t $'\t' \
			<(sed -n 's/^ok \([0-9]*\) - \(.*\)/\1\t\2/p' "$out/tap/$u-git.out" | grep -v '# skip' | sort) \
			<(sed -n 's/^not ok \([0-9]*\) - .*/\1/p' "$out/tap/$u-flagsplit.out" | sort) | sort -n)
		if [ -n "$regressions" ]; then
			bad=1
			echo "$regressions" | sed 's/^/    passes with git, fails through flagsplit: #/'
		fi
		[ "$differ" = 0 ] || bad=1
	done
	echo
	echo "# classes of difference (states that differ, where first seen, the first difference); saved in $out/findings/classes"
	for c in "$out"/findings/classes/*/; do
		[ -d "$c" ] || continue
		c=$(basename "$c")
		n=$(awk -F'\t' -v c="$c" '$4 == c { n++ } END { print n + 0 }' "$out/findings/occurrences.tsv")
		where=$(awk -F'\t' -v c="$c" '$4 == c { print $1 " #" $2; exit }' "$out/findings/occurrences.tsv")
		echo "$c: $n differing runs (state and variant), first in $where"
		sed -n '1,/^$/p' "$out/findings/classes/$c/class.txt" | sed '/^$/d; s/^/    /' | head -12
	done
	echo "# calls of git fsck answered by flagsplit: $(cat "$out"/log/calls-* 2>/dev/null | wc -l)"
	return "$bad"
}
if [ "${SUMMARY_ONLY:-0}" = 1 ]; then
	summary
	exit
fi

# --- git, built once --------------------------------------------------------------------------
make_opts=(NO_CURL=YesPlease NO_EXPAT=YesPlease NO_GETTEXT=YesPlease NO_TCLTK=YesPlease
	NO_PYTHON=YesPlease NO_OPENSSL=YesPlease)
if ! git -C "$src" rev-parse --verify --quiet "$version^{commit}" >/dev/null; then
	echo "git-fsck-tests: $src is not a git repository holding $version" >&2
	exit 2
fi
build=$cache/git-$version
stamp="$(git -C "$src" rev-parse "$version^{commit}") ${make_opts[*]}"
if [ "$(cat "$build.built" 2>/dev/null)" != "$stamp" ] || [ ! -x "$build/t/helper/test-tool" ]; then
	for tool in make cc perl; do
		command -v "$tool" >/dev/null || { echo "git-fsck-tests: building git needs $tool" >&2; exit 2; }
	done
	if ! echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ]; then
			apt-get install -y -qq zlib1g-dev >/dev/null
		else
			echo "git-fsck-tests: building git needs zlib's headers (apt-get install zlib1g-dev)" >&2
			exit 2
		fi
	fi
	echo "# building git $version in $build (make -j$(nproc) ${make_opts[*]})"
	rm -rf "$build" "$build.built"
	mkdir -p "$build"
	git -C "$src" archive "$version" | tar -x -C "$build"
	make -C "$build" -j"$(nproc)" "${make_opts[@]}" all >"$build.log" 2>&1 ||
		{ tail -30 "$build.log" >&2; echo "git-fsck-tests: building git failed ($build.log)" >&2; exit 2; }
	echo "$stamp" >"$build.built"
fi
real_git=$build/bin-wrappers/git

# --- the shim -----------------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out/bin" "$out/tap" "$out/log" "$out/trash" "$out/results" "$out/findings/classes" "$out/state"
out=$(cd "$out" && pwd -P)
: >"$out/findings/occurrences.tsv"
for w in "$build"/bin-wrappers/*; do
	[ "$(basename "$w")" = git ] || ln -s "$w" "$out/bin/"
done
# `git fsck` becomes `git flagsplit-oracle-fsck`: git runs it as an external command with its
# global options applied (directory, config, git directory), as it would run its own fsck.
cat >"$out/bin/git-flagsplit-oracle-fsck" <<EOF
#!/bin/sh
exec "$flagsplit" fsck "\$@"
EOF
cp "$root/scripts/lib/git-fsck-tests-compare.pl" "$out/compare.pl"
cat >"$out/bin/git" <<'EOF'
#!/usr/bin/env bash
# git for the scripts under test: see scripts/git-fsck-tests.sh.
real=@REAL@
out=@OUT@
args=("$@")
globals=()
i=0
while [ $i -lt ${#args[@]} ]; do
	a=${args[i]}
	case $a in
	-C|-c|--git-dir|--work-tree|--namespace|--attr-source|--super-prefix|--shallow-file)
		globals+=("$a" "${args[i+1]-}")
		i=$((i + 2)) ;;
	-*)
		globals+=("$a")
		i=$((i + 1)) ;;
	*)
		break ;;
	esac
done
cmd=${args[i]-}
rest=("${args[@]:i+1}")
if [ -n "$cmd" ] && [ "${FSCK_ORACLE:-0}" = 1 ]; then
	call=
	[ "$cmd" = fsck ] && [ ${#rest[@]} -gt 0 ] && call=$(printf '%q ' "${rest[@]}")
	FSCK_ORACLE_ARGS="git $(printf '%q ' "$@")" FSCK_ORACLE_CALL="$call" \
		"$out/oracle.sh" "$cmd" "${globals[@]}" </dev/null >>"$out/log/oracle.log" 2>&1 || true
fi
if [ "$cmd" = fsck ] && [ "${FSCK_ORACLE_MODE:-git}" = flagsplit ]; then
	echo "flagsplit ${args[*]}" >>"$out/log/calls-${FSCK_ORACLE_UNIT:-none}"
	exec "$real" "${globals[@]}" flagsplit-oracle-fsck "${rest[@]}"
fi
exec "$real" "$@"
EOF
sed -i "s|@REAL@|'$real_git'|; s|@OUT@|'$out'|" "$out/bin/git"

# The comparison before a command: run in the command's directory with its global options.
cat >"$out/oracle.sh" <<'EOF'
#!/usr/bin/env bash
# oracle.sh COMMAND GLOBAL-OPTION...: compares git fsck and flagsplit fsck on the repository
# state COMMAND is about to run in (see scripts/git-fsck-tests.sh).
set -u
real=@REAL@
out=@OUT@
variants=@VARIANTS@
cmd=$1
shift
globals=("$@")
# No tracing into the test's trace files, and none of git's test hooks that make it die on purpose.
for v in $(compgen -e); do
	case $v in
	GIT_TRACE*|GIT_TEST_COMMIT_GRAPH_DIE_ON_PARSE|GIT_TEST_REV_INDEX_DIE_*) unset "$v" ;;
	esac
done
export GIT_NO_LAZY_FETCH=1
paths=$("$real" "${globals[@]}" rev-parse --path-format=absolute --absolute-git-dir --git-common-dir 2>/dev/null) || exit 0
gitdir=${paths%%$'\n'*}
common=${paths#*$'\n'}
# Only the scripts' own repositories: not a repository around the trash directories.
case $gitdir in "$out/trash/"*) ;; *) exit 0 ;; esac
case $common in "$out/trash/"*) ;; *) exit 0 ;; esac
objects=${GIT_OBJECT_DIRECTORY:-$common/objects}
case $objects in /*) ;; *) objects=$PWD/$objects ;; esac
dirs=("$gitdir" "$common" "$objects")
if [ -f "$objects/info/alternates" ]; then
	while IFS= read -r alt; do
		case $alt in '#'*|'') continue ;; /*) dirs+=("$alt") ;; *) dirs+=("$objects/$alt") ;; esac
	done <"$objects/info/alternates"
fi
unit=${FSCK_ORACLE_UNIT:-none}
state=$( {
	pwd
	printf '%s\n' "${globals[@]}"
	env | grep -E '^(GIT_|HOME=|XDG_CONFIG_HOME=)' | sort
	find "${dirs[@]}" "$HOME/.gitconfig" -printf '%p %s %T@ %m %l\n' 2>/dev/null | sort -u
} | md5sum | cut -c1-32)
seen=$out/state/$unit
mkdir -p "$seen"
# A state is compared once with the variants; each `git fsck` call of the scripts is compared
# with its own arguments too, every time.
vlist=()
if [ ! -e "$seen/$state" ]; then
	: >"$seen/$state"
	echo "$cmd" >>"$out/state/$unit.count"
	IFS=, read -r -a vlist <<<"$variants,"
	[ ${#vlist[@]} -eq 0 ] && vlist=("")
fi
call=()
if [ "$cmd" = fsck ]; then
	eval "call=(${FSCK_ORACLE_CALL:-})"
	echo "fsck ${FSCK_ORACLE_CALL:-}" >>"$out/state/$unit.calls"
fi
[ ${#vlist[@]} -eq 0 ] && [ "$cmd" != fsck ] && exit 0
trash=${TRASH_DIRECTORY:-$HOME}
run=$(mktemp -d "$out/state/run.XXXXXX")
# pair DIR LABEL ARG...: both programs with ARGS; `--lost-found` on two copies of the trash
# directory (the state as the command would find it), whose `lost-found/` trees are compared.
pair() {
	local d=$1 label=$2 side c rel common_rel
	shift 2
	mkdir -p "$d"
	printf '%s\n' "$label" >"$d/variant"
	case " $* " in
	*" --lost-found "*)
		case $PWD/ in "$trash"/*) ;; *) echo "the directory is outside the trash directory" >"$d/lost-found.diff"; return ;; esac
		rel=${PWD#"$trash"}
		common_rel=${common#"$trash"}
		for side in git fs; do
			c=$run/copy-$side
			rm -rf "$c"
			cp -a "$trash" "$c"
			(
				g=()
				for x in "${globals[@]}"; do g+=("${x//"$trash"/$c}"); done
				for v in GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR GIT_INDEX_FILE GIT_ALTERNATE_OBJECT_DIRECTORIES; do
					if [ -n "${!v-}" ]; then export "$v=${!v//"$trash"/$c}"; fi
				done
				cd "$c$rel" || exit 1
				if [ $side = git ]; then sub=fsck; else sub=flagsplit-oracle-fsck; fi
				"$real" "${g[@]}" $sub "$@" >"$d/$side.out" 2>"$d/$side.err"
				echo $? >"$d/$side.rc"
			)
			perl -pi -e "s{\\Q$c\\E}{$trash}g" "$d/$side.out" "$d/$side.err"
		done
		local lg=$run/copy-git$common_rel/lost-found lf=$run/copy-fs$common_rel/lost-found
		if [ -e "$lg" ] || [ -e "$lf" ]; then
			diff -r "$lg" "$lf" 2>&1 | sed "s|$run/copy-git|\$GIT_COPY|g; s|$run/copy-fs|\$COPY_FOR_FLAGSPLIT|g" >"$d/lost-found.diff"
		fi
		rm -rf "$run/copy-git" "$run/copy-fs"
		;;
	*)
		"$real" "${globals[@]}" fsck "$@" >"$d/git.out" 2>"$d/git.err"
		echo $? >"$d/git.rc"
		"$real" "${globals[@]}" flagsplit-oracle-fsck "$@" >"$d/fs.out" 2>"$d/fs.err"
		echo $? >"$d/fs.rc"
		;;
	esac
}
n=0
for variant in "${vlist[@]}"; do
	# shellcheck disable=SC2086
	pair "$run/$n" "$variant" $variant
	n=$((n + 1))
done
if [ "$cmd" = fsck ]; then
	pair "$run/$n" "the call: fsck ${call[*]}" "${call[@]}"
fi
tap=$out/tap/$unit.out
case_no=$(( $(grep -cE '^(ok|not ok) ' "$tap" 2>/dev/null || true) + 1 ))
verdict=$(perl "$out/compare.pl" "$out/findings" "$run" "$trash" "$unit" "$case_no" "${FSCK_ORACLE_ARGS:-git $cmd}")
if grep -q '^call-differs$' <<<"$verdict"; then
	echo "fsck ${FSCK_ORACLE_CALL:-}" >>"$out/state/$unit.calls-differ"
fi
if [ -n "$verdict" ]; then
	echo "$cmd" >>"$out/state/$unit.differ"
	# Every differing state's outputs are kept (text only), to be read or classed again.
	keep=$out/findings/states/$unit-$(wc -l <"$out/state/$unit.differ")
	mkdir -p "$keep"
	cp -a "$run"/* "$keep/"
	printf '%s\n%s\n%s\n%s\n' "case $case_no" "cwd $PWD" "command ${FSCK_ORACLE_ARGS:-git $cmd}" "$verdict" >"$keep/about"
fi
for class in $(sed -n 's/^new //p' <<<"$verdict"); do
	r=$out/findings/classes/$class/repro
	mkdir -p "$r"
	cp -a "$trash" "$r/trash" 2>/dev/null
	printf '%s\n' "$trash" >"$r/origin"
	here=$PWD
	case $here in "$trash"|"$trash"/*) here=${here#"$trash"}; here=${here#/} ;; esac
	printf '%s\n' "$here" >"$r/cwd"
	printf '%s\n' "${FSCK_ORACLE_ARGS:-git $cmd}" >"$r/command"
	: >"$r/globals"
	for g in "${globals[@]}"; do printf '%s\n' "$g" >>"$r/globals"; done
	env | grep -E '^(GIT_|HOME=|XDG_CONFIG_HOME=|TZ=|LANG=|LC_ALL=)' |
		grep -vE '^(GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GITPERLLIB|GIT_TEXTDOMAINDIR|GIT_NO_LAZY_FETCH)=' |
		sort >"$r/env"
	cp -a "$run"/* "$r/"
	cp "$out/repro.sh" "$r/repro.sh"
done
rm -rf "$run"
EOF
sed -i "s|@REAL@|'$real_git'|; s|@OUT@|'$out'|; s|@VARIANTS@|'$variants'|" "$out/oracle.sh"
chmod +x "$out/bin/git" "$out/bin/git-flagsplit-oracle-fsck" "$out/oracle.sh"

# repro.sh, copied into each saved class: runs both programs again on the copy.
cat >"$out/repro.sh" <<'EOF'
#!/usr/bin/env bash
# Runs `git fsck` and `flagsplit fsck` again on the saved repository state, for each variant
# saved beside this file (0/, 1/, ...), and shows their exit statuses and lines.
#   GIT=path/to/git (default git) FLAGSPLIT=path/to/flagsplit (default flagsplit) ./repro.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
R=$here/trash
origin=$(cat "$here/origin")
# Absolute paths into the original trash directory (alternates, gitdir files, config) are
# moved to the copy's place once.
if [ "$origin" != "$R" ]; then
	grep -rlIF "$origin" "$R" 2>/dev/null | while IFS= read -r f; do
		perl -pi -e "s{\Q$origin\E}{$R}g" "$f"
	done
	printf '%s\n' "$R" >"$here/origin"
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
printf '#!/bin/sh\nexec "%s" fsck "$@"\n' "$(command -v "${FLAGSPLIT:-flagsplit}")" >"$bin/git-flagsplit-oracle-fsck"
chmod +x "$bin/git-flagsplit-oracle-fsck"
globals=()
while IFS= read -r g; do globals+=("${g//"$origin"/$R}"); done <"$here/globals"
cwd=$(cat "$here/cwd")
case $cwd in /*) ;; *) cwd=$R/$cwd ;; esac
(
	while IFS= read -r kv; do export "${kv//"$origin"/$R}"; done <"$here/env"
	export PATH="$bin:$PATH" GIT_NO_LAZY_FETCH=1
	cd "$cwd" || exit 1
	rel=${cwd#"$R"}
	rel=${rel#/}
	for d in "$here"/[0-9]*/; do
		variant=$(cat "$d/variant")
		for prog in git flagsplit; do
			sub=fsck
			[ $prog = flagsplit ] && sub=flagsplit-oracle-fsck
			echo "== $prog fsck $variant (in trash/${rel:-.}, git options: ${globals[*]:-none})"
			# shellcheck disable=SC2086
			"${GIT:-git}" "${globals[@]}" $sub $variant 2>&1
			echo "== exit $?"
		done
	done
)
EOF
chmod +x "$out/repro.sh"

# --- the runs -----------------------------------------------------------------------------------
script_of() {
	git -C "$src" ls-tree --name-only "$version" t/ | sed -n "s|^t/\($1-.*\.sh\)$|\1|p"
}

# run_unit TEST[:reftable] MODE: one script run; its TAP output in tap/, its result in results/.
run_unit() {
	local spec=$1 mode=$2 t=${1%%:*} extra=() unit script status=0 t0
	unit=${spec/:/-}-$mode
	script=$(script_of "$t")
	[ "$spec" != "$t" ] && extra=(GIT_TEST_DEFAULT_REF_FORMAT=reftable)
	local o=0
	[ "$mode" = flagsplit ] && o=$oracle
	t0=$(date +%s)
	(cd "$build/t" && env "${extra[@]}" GIT_TEST_INSTALLED="$out/bin" \
		FSCK_ORACLE_MODE="$mode" FSCK_ORACLE="$o" FSCK_ORACLE_UNIT="$unit" \
		TEST_OUTPUT_DIRECTORY="$out/results/$unit" \
		timeout --foreground 7200 sh "$script" --root="$out/trash/$unit") >"$out/tap/$unit.out" 2>&1 || status=$?
	echo "$status $(($(date +%s) - t0))" >"$out/results/$unit.status"
}

units=()
for spec in $tests; do
	[ -n "$(script_of "${spec%%:*}")" ] || { echo "git-fsck-tests: no script ${spec%%:*} in $version" >&2; exit 2; }
	units+=("$spec git" "$spec flagsplit")
done
echo "# git $version's fsck scripts ($build), flagsplit $("$flagsplit" --version | sed 's/^flagsplit version //') as git fsck; results in $out"
for u in "${units[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	# shellcheck disable=SC2086
	run_unit $u &
done
wait
status=0
summary || status=$?
echo "# took $(($(date +%s) - started))s"
exit "$status"

#!/usr/bin/env bash
# Builds the default, openssl-sha1, openssl-tls and all-features configurations side by side and
# prints one Markdown report comparing them with coreutils, OpenSSL's CLI and git on this machine:
#
#   1. start-up instructions (valgrind --tool=callgrind, total Ir) of `flagsplit sha1sum /dev/null`
#      per build, next to coreutils `sha1sum /dev/null` and `git hash-object /dev/null` (outside any
#      repository);
#   2. throughput on a 300 MiB file: flagsplit sha1sum / md5sum (each build's providers) next to
#      coreutils, `openssl dgst` and `git hash-object`; flagsplit sha256sum (builtin, and OpenSSL
#      in the all-features build) next to `openssl dgst -sha256` and coreutils `sha256sum`;
#   3. `hash-object --stdin-paths` over a large real tree (default: the Rust toolchains under
#      ~/.rustup/toolchains, tens of thousands of files) next to `git hash-object --stdin-paths`
#      and to the I/O floor (`xargs -P$(nproc) cat` reading the same files), in SHA-1 and in a
#      SHA-256 repository, checking that the ids are identical;
#   4. peak memory (/usr/bin/time -v) hashing a 1 GiB file;
#   5. with --repo REPO (a git repository; git.git is the reference load): `flagsplit fsck` for each
#      `sha1` provider (dc, block, openssl) and each `zlib` provider (zlib-rs, miniz, system,
#      zlib-ng), on all cores and on one (and the default build with --low-memory), next to
#      `git fsck --full`, `git index-pack --verify`
#      (outside the repository) and gitoxide's `gix free pack verify --decode` + `gix fsck` when
#      `gix` is installed: wall, CPU and peak RSS of each, the verdicts compared with git's.
#
# Ratios are taken within this one run. Usage:
#   scripts/bench-builds.sh [--quick] [--tree DIR] [--repo REPO [--fsck-only]] [--json FILE] > report.md
#
# Beside the Markdown it writes one JSON report (schema 2, read by `flagsplit report`; default
# target/bench-builds/report.json): the generator, the machine, the tools, each build's options
# (`flagsplit version --build-options --json`) and every figure with its unit, method and rounds;
# unless --fsck-only, also the `flagsplit bench --json` reports (schema 1) of the default and
# sha1-block builds beside it, bench-default.json and bench-sha1-block.json.
# --quick uses 1 timing run instead of 5 (3 for the tree). Needs valgrind, GNU time (/usr/bin/time),
# git, openssl and coreutils; as root it installs missing ones with apt-get (unless
# FLAGSPLIT_TEST_NO_INSTALL=1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=5
tree_runs=3
tree=${HOME}/.rustup/toolchains
repo=
fsck_only=0
json_out=$root/target/bench-builds/report.json
arguments="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) runs=1 tree_runs=1 ;;
	--tree) tree=$2; shift ;;
	--repo) repo=$(cd "$2" && pwd); shift ;;
	--fsck-only) fsck_only=1 ;;
	--json) json_out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
	*) echo "usage: $0 [--quick] [--tree DIR] [--repo REPO [--fsck-only]] [--json FILE]" >&2; exit 2 ;;
	esac
	shift
done
[ "$fsck_only" = 0 ] || [ -n "$repo" ] || { echo "$0: --fsck-only needs --repo REPO" >&2; exit 2; }

need=()
command -v valgrind >/dev/null || need+=(valgrind)
[ -x /usr/bin/time ] || need+=(time)
command -v git >/dev/null || need+=(git)
command -v openssl >/dev/null || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && [ "${FLAGSPLIT_TEST_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
	else
		echo "missing: ${need[*]} (install them, or run as root)" >&2
		exit 1
	fi
fi

# The all-features build includes openssl-vendored; compare against the system OpenSSL.
export OPENSSL_NO_VENDOR=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log() { echo "bench-builds: $*" >&2; }

# --- builds -----------------------------------------------------------------------------------
declare -A feat=([default]="" [openssl-sha1]="--features openssl-sha1" [openssl-tls]="--features openssl-tls" [all-features]="--all-features"
	[sha1-block]="" [zlib-miniz]="--features zlib-miniz" [zlib-system]="--features zlib-system" [zlib-ng]="--features zlib-ng")
# Variables that select a provider for a build (the others keep their defaults).
declare -A sel=([sha1-block]="FLAGSPLIT_SHA1_PROVIDER=block")
builds=(default openssl-sha1 openssl-tls all-features)
fsck_builds=(default sha1-block openssl-sha1 zlib-miniz zlib-system zlib-ng)
wanted=()
# sha1-block too: its `flagsplit bench --json` report is written beside the default build's.
[ "$fsck_only" = 1 ] || wanted=("${builds[@]}" sha1-block)
[ -z "$repo" ] || wanted+=("${fsck_builds[@]}")
declare -A built=()
for b in "${wanted[@]}"; do
	[ -z "${built[$b]:-}" ] || continue
	built[$b]=1
	log "building $b"
	# shellcheck disable=SC2086
	env ${sel[$b]:-} cargo build --release --locked --quiet --bins --target-dir "target/bench-builds/$b" ${feat[$b]}
done
bin() { echo "$root/target/bench-builds/$1/release/flagsplit"; }

# --- helpers ----------------------------------------------------------------------------------
# Total instructions of a command under callgrind.
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
# Best wall time in seconds of $runs runs of a command (output discarded).
best() {
	local n=$1 best_ns=0 t0 t1 d
	shift
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		d=$((t1 - t0))
		if [ "$best_ns" = 0 ] || [ "$d" -lt "$best_ns" ]; then best_ns=$d; fi
	done
	awk -v ns="$best_ns" 'BEGIN { printf "%.3f", ns / 1e9 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
peak_kib() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }

# Outside any repository, with no user configuration.
nogit=$work/outside
mkdir -p "$nogit"
export GIT_CEILING_DIRECTORIES=$work GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
cd "$nogit"

# --- the JSON report's figures ------------------------------------------------------------------
figs=$work/figures
: >"$figs"
jstr() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\n\t' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"; }
jnum() { if [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then printf '%s' "$1"; else printf 'null'; fi; }
fig() { # section algorithm build label metric value unit method rounds
	local build=null
	[ -z "$3" ] || build=$(jstr "$3")
	printf '    {"section": %s, "algorithm": %s, "build": %s, "label": %s, "metric": %s, "value": %s, "unit": %s, "method": %s, "rounds": %s}\n' \
		"$(jstr "$1")" "$(jstr "$2")" "$build" "$(jstr "$4")" "$(jstr "$5")" "$(jnum "$6")" "$(jstr "$7")" "$(jstr "$8")" "$9" >>"$figs"
}

# --- report header ----------------------------------------------------------------------------
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo | grep -oE '\b(sha_ni|avx2|avx512f|bmi2)\b' | tr '\n' ' ')
echo "# flagsplit build comparison"
echo
echo "Machine: $cpu, $(nproc) logical CPUs, flags of note: ${flags:-none}; $(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"'), kernel $(uname -r)."
echo "Tools: $(rustc -V), $(git --version), $(openssl version), $(sha1sum --version | head -1), valgrind $(valgrind --version | sed 's/valgrind-//')."
echo "Load average at start: $load_at_start. Timings are the best of $runs runs; instruction counts are exact."
echo

if [ "$fsck_only" = 0 ]; then
# --- 1. start-up ------------------------------------------------------------------------------
log "start-up instructions"
echo "## Start-up: instructions of one run (callgrind, total Ir)"
echo
git_ir=$(ir git hash-object /dev/null)
cu_ir=$(ir sha1sum /dev/null)
default_ir=$(ir "$(bin default)" sha1sum /dev/null)
echo "| command | instructions | vs \`git hash-object /dev/null\` | vs default build |"
echo "|---|---:|---:|---:|"
for b in "${builds[@]}"; do
	n=$(ir "$(bin "$b")" sha1sum /dev/null)
	echo "| \`flagsplit sha1sum /dev/null\` ($b build) | $n | $(ratio "$n" "$git_ir") | $(ratio "$n" "$default_ir") |"
	fig startup "" "$b" "flagsplit sha1sum /dev/null ($b build)" instructions "$n" instructions "callgrind total Ir" 1
done
echo "| coreutils \`sha1sum /dev/null\` | $cu_ir | $(ratio "$cu_ir" "$git_ir") | |"
fig startup "" "" "coreutils sha1sum /dev/null" instructions "$cu_ir" instructions "callgrind total Ir" 1
# The other commands of the same binary: adding a command must cost the others nothing.
for cmd in md5sum sha256sum; do
	n=$(ir "$(bin default)" "$cmd" /dev/null)
	echo "| \`flagsplit $cmd /dev/null\` (default build) | $n | $(ratio "$n" "$git_ir") | $(ratio "$n" "$default_ir") |"
	fig startup "" default "flagsplit $cmd /dev/null (default build)" instructions "$n" instructions "callgrind total Ir" 1
done
echo "| \`git hash-object /dev/null\` (outside a repository) | $git_ir | 1.00 | |"
fig startup "" "" "git hash-object /dev/null (outside a repository)" instructions "$git_ir" instructions "callgrind total Ir" 1
echo

# --- 2. throughput ----------------------------------------------------------------------------
log "throughput on 300 MiB"
big=$work/300MiB
head -c $((300 * 1024 * 1024)) /dev/urandom >"$big"
cat "$big" >/dev/null # page cache
echo "## Throughput: one 300 MiB file (in the page cache)"
echo
D=$(bin default)
O=$(bin openssl-sha1)
A=$(bin all-features)
t_openssl_sha1=$(best "$runs" openssl dgst -sha1 "$big")
t_openssl_md5=$(best "$runs" openssl dgst -md5 "$big")
t_git=$(best "$runs" git hash-object "$big")
t_cu_sha1=$(best "$runs" sha1sum "$big")
t_cu_md5=$(best "$runs" md5sum "$big")
row() { # label seconds algorithm [build]
	local mbs
	mbs=$(awk -v t="$2" 'BEGIN { printf "%.0f", 300 * 1048576 / t / 1e6 }')
	echo "| $1 | $2 | $mbs | $(ratio "$t_openssl_sha1" "$2") | $(ratio "$t_openssl_md5" "$2") | $(ratio "$t_git" "$2") | $(ratio "$t_cu_sha1" "$2") | $(ratio "$t_cu_md5" "$2") |"
	fig throughput "$3 300 MiB" "${4:-}" "$1" mb_per_s "$mbs" MB/s "one 300 MiB file in the page cache, best of $runs wall-clock runs" "$runs"
	fig throughput "$3 300 MiB" "${4:-}" "$1" seconds "$2" s "one 300 MiB file in the page cache, best of $runs wall-clock runs" "$runs"
}
echo "| command | seconds | MB/s | × \`openssl dgst -sha1\` | × \`openssl dgst -md5\` | × \`git hash-object\` | × coreutils \`sha1sum\` | × coreutils \`md5sum\` |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row "\`flagsplit sha1sum\` (default: dc, collision detection)" "$(best "$runs" "$D" sha1sum "$big")" sha1 default
row "\`flagsplit sha1sum --no-collision-detection\` (default: block)" "$(best "$runs" "$D" sha1sum --no-collision-detection "$big")" sha1 default
row "\`flagsplit sha1sum\` (openssl-sha1 build: OpenSSL)" "$(best "$runs" "$O" sha1sum "$big")" sha1 openssl-sha1
row "\`flagsplit hash-object\` (default: dc)" "$(best "$runs" "$D" hash-object "$big")" sha1 default
row "\`flagsplit md5sum\` (default: builtin)" "$(best "$runs" "$D" md5sum "$big")" md5 default
row "\`flagsplit md5sum\` (all-features build: OpenSSL)" "$(best "$runs" "$A" md5sum "$big")" md5 all-features
row "\`openssl dgst -sha1\`" "$t_openssl_sha1" sha1
row "\`openssl dgst -md5\`" "$t_openssl_md5" md5
row "coreutils \`sha1sum\`" "$t_cu_sha1" sha1
row "coreutils \`md5sum\`" "$t_cu_md5" md5
row "\`git hash-object\`" "$t_git" sha1
echo
echo "Each × column is (that command's time) / (this row's time): above 1 means this row is faster."
echo
t_openssl_sha256=$(best "$runs" openssl dgst -sha256 "$big")
t_cu_sha256=$(best "$runs" sha256sum "$big")
row256() { # label seconds
	local mbs
	mbs=$(awk -v t="$2" 'BEGIN { printf "%.0f", 300 * 1048576 / t / 1e6 }')
	echo "| $1 | $2 | $mbs | $(ratio "$t_openssl_sha256" "$2") | $(ratio "$t_cu_sha256" "$2") |"
	fig throughput "sha256 300 MiB" "${3:-}" "$1" mb_per_s "$mbs" MB/s "one 300 MiB file in the page cache, best of $runs wall-clock runs" "$runs"
	fig throughput "sha256 300 MiB" "${3:-}" "$1" seconds "$2" s "one 300 MiB file in the page cache, best of $runs wall-clock runs" "$runs"
}
echo "SHA-256 on the same file:"
echo
echo "| command | seconds | MB/s | × \`openssl dgst -sha256\` | × coreutils \`sha256sum\` |"
echo "|---|---:|---:|---:|---:|"
row256 "\`flagsplit sha256sum\` (default: builtin)" "$(best "$runs" "$D" sha256sum "$big")" default
row256 "\`flagsplit sha256sum\` (all-features build: OpenSSL)" "$(best "$runs" "$A" sha256sum "$big")" all-features
row256 "\`openssl dgst -sha256\`" "$t_openssl_sha256"
row256 "coreutils \`sha256sum\`" "$t_cu_sha256"
echo

# --- 3. a real tree ---------------------------------------------------------------------------
log "hash-object --stdin-paths over $tree"
echo "## A real load: \`hash-object --stdin-paths\` over $tree"
echo
paths=$work/paths
(cd "$tree" && find "$PWD" -type f) >"$paths"
nfiles=$(wc -l <"$paths")
mib=$(tr '\n' '\0' <"$paths" | xargs -0 stat -c %s | awk '{ s += $1 } END { printf "%d", s / 1048576 }')
"$D" hash-object --stdin-paths <"$paths" >"$work/ids.flagsplit"
git hash-object --stdin-paths <"$paths" >"$work/ids.git"
if cmp -s "$work/ids.flagsplit" "$work/ids.git"; then same="identical"; else same="DIFFERENT (a bug)"; fi
t_f=$(best "$tree_runs" sh -c "\"$D\" hash-object --stdin-paths < \"$paths\"")
t_g=$(best "$tree_runs" sh -c "git hash-object --stdin-paths < \"$paths\"")
# The I/O floor: reading the same files with one cat per core.
t_cat=$(best "$tree_runs" sh -c "tr '\\n' '\\0' < \"$paths\" | xargs -0 -P\"$(nproc)\" cat >/dev/null")
# SHA-256: both inside a repository made with --object-format=sha256 (the paths are absolute).
s256=$work/sha256-repo
git init -q --object-format=sha256 "$s256"
(cd "$s256" && "$D" hash-object --stdin-paths <"$paths" >"$work/ids256.flagsplit" && git hash-object --stdin-paths <"$paths" >"$work/ids256.git")
if cmp -s "$work/ids256.flagsplit" "$work/ids256.git"; then same256="identical"; else same256="DIFFERENT (a bug)"; fi
t_f256=$(cd "$s256" && best "$tree_runs" sh -c "\"$D\" hash-object --stdin-paths < \"$paths\"")
t_g256=$(cd "$s256" && best "$tree_runs" sh -c "git hash-object --stdin-paths < \"$paths\"")
echo "$nfiles files, $mib MiB, warm page cache; SHA-1 ids $same, SHA-256 ids $same256."
echo
fps() { awk -v n="$nfiles" -v t="$1" 'BEGIN{printf "%.0f", n/t}'; }
echo "| command | seconds | files/s | × git (same format) | ÷ \`xargs -P$(nproc) cat\` (I/O floor) |"
echo "|---|---:|---:|---:|---:|"
echo "| \`flagsplit hash-object --stdin-paths\` (default build: dc, $(nproc) threads) | $t_f | $(fps "$t_f") | $(ratio "$t_g" "$t_f") | $(ratio "$t_f" "$t_cat") |"
echo "| \`git hash-object --stdin-paths\` | $t_g | $(fps "$t_g") | 1.00 | $(ratio "$t_g" "$t_cat") |"
echo "| \`flagsplit hash-object --stdin-paths\` in a SHA-256 repository | $t_f256 | $(fps "$t_f256") | $(ratio "$t_g256" "$t_f256") | $(ratio "$t_f256" "$t_cat") |"
echo "| \`git hash-object --stdin-paths\` in a SHA-256 repository | $t_g256 | $(fps "$t_g256") | 1.00 | $(ratio "$t_g256" "$t_cat") |"
echo "| \`xargs -0 -P$(nproc) cat >/dev/null\` (reading only) | $t_cat | $(fps "$t_cat") | | 1.00 |"
tm="$nfiles files, $mib MiB, warm page cache, best of $tree_runs wall-clock runs"
fig tree "" default "flagsplit hash-object --stdin-paths (SHA-1)" seconds "$t_f" s "$tm" "$tree_runs"
fig tree "" "" "git hash-object --stdin-paths (SHA-1)" seconds "$t_g" s "$tm" "$tree_runs"
fig tree "" default "flagsplit hash-object --stdin-paths (SHA-256)" seconds "$t_f256" s "$tm" "$tree_runs"
fig tree "" "" "git hash-object --stdin-paths (SHA-256)" seconds "$t_g256" s "$tm" "$tree_runs"
fig tree "" "" "xargs -P$(nproc) cat (the I/O floor)" seconds "$t_cat" s "$tm" "$tree_runs"
echo
echo

# --- 4. memory --------------------------------------------------------------------------------
log "peak memory on 1 GiB"
rm -f "$big"
gib=$work/1GiB
head -c $((1024 * 1024 * 1024)) /dev/zero >"$gib"
echo "## Peak memory hashing a 1 GiB file (maximum resident set size)"
echo
echo "| command | peak RSS (MiB) |"
echo "|---|---:|"
for cmd in "$D sha1sum" "$D md5sum" "$D sha256sum" "$D hash-object" "$O sha1sum" "git hash-object" "sha1sum"; do
	kib=$(peak_kib $cmd "$gib")
	label=${cmd/$root\/target\/bench-builds\//}
	label=${label/\/release\/flagsplit/: flagsplit}
	echo "| \`$label\` | $(awk -v k="$kib" 'BEGIN{printf "%.1f", k/1024}') |"
	fig memory "" "" "$label" peak_rss_mib "$(awk -v k="$kib" 'BEGIN{printf "%.1f", k/1024}')" MiB "GNU time -v maximum resident set size, a 1 GiB file" 1
done
echo
fi

# --- 5. the real load: fsck -------------------------------------------------------------------
if [ -n "$repo" ]; then
	log "fsck of $repo"
	# wall CPU RSS STATUS of a command run in a directory, its lines kept in $work/lines.NAME
	measure() { # name dir command...
		local name=$1 dir=$2
		shift 2
		(cd "$dir" && /usr/bin/time -f '%e %U %S %M %x' -o "$work/time.$name" "$@" >"$work/out.$name" 2>"$work/err.$name") || true
		# GNU time writes "Command exited with non-zero status N" first when the status is not 0.
		read -r w u s m x < <(tail -1 "$work/time.$name")
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		echo "$w $cpu $((m / 1024)) $x"
	}
	same_as_git() { # name: the same exit status and line sets as git fsck
		if [ "$(tail -1 "$work/time.$1" | sed 's/.* //')" = "$(tail -1 "$work/time.git" | sed 's/.* //')" ] &&
			cmp -s <(sort -u "$work/out.$1") <(sort -u "$work/out.git") &&
			cmp -s <(grep -v '^notice: not checked' "$work/err.$1" | sort -u) <(sort -u "$work/err.git"); then
			echo "same as git"
		else
			echo "DIFFERS from git"
		fi
	}
	objects=$(git -C "$repo" count-objects -v | awk '/^in-pack|^count/ { s += $2 } END { print s }')
	packdir=$(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd)/objects/pack
	packs=$(du -sm "$packdir")
	echo "## The real load: verifying $(basename "$repo") ($objects objects, ${packs%%[[:space:]]*} MB of packs)"
	echo
	cat "$packdir"/*.pack >/dev/null 2>&1 || true # page cache
	read -r g_w g_c g_m g_x < <(measure git "$repo" git fsck --full --no-progress)
	echo "| command | wall (s) | CPU (s) | peak RSS (MiB) | exit | verdict | × \`git fsck --full\` (wall) |"
	echo "|---|---:|---:|---:|---:|---|---:|"
	echo "| \`git fsck --full\` ($(git --version | sed 's/git version //')) | $g_w | $g_c | $g_m | $g_x | | 1.00 |"
	fsck_fig() { # build label wall cpu rss
		fig fsck "" "$1" "$2" wall_s "$3" s "GNU time, one run, warm page cache" 1
		fig fsck "" "$1" "$2" cpu_s "$4" s "GNU time (user + system), one run" 1
		[ -z "$5" ] || fig fsck "" "$1" "$2" peak_rss_mib "$5" MiB "GNU time maximum resident set size, one run" 1
	}
	fsck_fig "" "git fsck --full ($(git --version | sed 's/git version //'))" "$g_w" "$g_c" "$g_m"
	declare -A what=([default]="sha1 dc, zlib zlib-rs (default)" [sha1-block]="sha1 block" [openssl-sha1]="sha1 openssl"
		[zlib-miniz]="zlib miniz" [zlib-system]="zlib system" [zlib-ng]="zlib zlib-ng")
	for b in "${fsck_builds[@]}"; do
		for t in "" 1; do
			name="$b${t:+-t$t}"
			args=(--no-progress)
			[ -z "$t" ] || args+=(--threads "$t")
			read -r w c m x < <(measure "$name" "$repo" "$root/target/bench-builds/$b/release/flagsplit-fsck" "${args[@]}")
			label="\`flagsplit fsck${t:+ --threads $t}\` (${what[$b]})"
			[ "$b$t" != default ] || { d_w=$w; d_m=$m; }
			echo "| $label | $w | $c | $m | $x | $(same_as_git "$name") | $(ratio "$g_w" "$w") |"
			fsck_fig "$b" "flagsplit fsck${t:+ --threads $t} (${what[$b]})" "$w" "$c" "$m"
		done
	done
	# Without delta trees (each base made from its chain through a bounded cache).
	read -r w c m x < <(measure default-low "$repo" "$root/target/bench-builds/default/release/flagsplit-fsck" --no-progress --low-memory)
	echo "| \`flagsplit fsck --low-memory\` (${what[default]}) | $w | $c | $m | $x | $(same_as_git default-low) | $(ratio "$g_w" "$w") |"
	fsck_fig default "flagsplit fsck --low-memory (${what[default]})" "$w" "$c" "$m"
	# A peer that failed is named with its first line of standard error, never shown as a time.
	peer_ok() { # name status
		[ "$2" = 0 ] && return 0
		echo "bench-builds: $1 failed (exit $2): $(head -1 "$work/err.$1")" >&2
		return 1
	}
	# index-pack re-indexes each pack outside any repository (inside one it also re-reads every
	# object as a collision test); --verify compares what it computes with the pack's .idx.
	outside=$work/outside-repo
	mkdir -p "$outside"
	for p in "$packdir"/*.pack; do
		[ -e "$p" ] || continue
		cp "$p" "${p%.pack}.idx" "$outside/"
	done
	ipw=0 ipc=0 ipm=0 ipok=1
	for p in "$outside"/*.pack; do
		[ -e "$p" ] || continue
		read -r w c m x < <(measure index-pack "$outside" git index-pack --verify --threads="$(nproc)" "$p")
		peer_ok index-pack "$x" || ipok=0
		ipw=$(awk -v a="$ipw" -v b="$w" 'BEGIN { printf "%.2f", a + b }')
		ipc=$(awk -v a="$ipc" -v b="$c" 'BEGIN { printf "%.2f", a + b }')
		[ "$m" -gt "$ipm" ] && ipm=$m
	done
	if [ "$ipok" = 1 ]; then
		echo "| \`git index-pack --verify --threads=$(nproc)\` (each pack, outside the repository; pack and idx only) | $ipw | $ipc | $ipm | | | $(ratio "$g_w" "$ipw") |"
		fsck_fig "" "git index-pack --verify --threads=$(nproc)" "$ipw" "$ipc" "$ipm"
	else
		echo "| \`git index-pack --verify --threads=$(nproc)\` | failed: $(head -1 "$work/err.index-pack") | | | | | |"
	fi
	if command -v gix >/dev/null; then
		gw=0 gc=0 gm=0 gok=1
		for i in "$packdir"/*.idx; do
			read -r w c m x < <(measure gix-verify "$repo" gix --threads "$(nproc)" free pack verify --decode "$i")
			peer_ok gix-verify "$x" || gok=0
			gw=$(awk -v a="$gw" -v b="$w" 'BEGIN { printf "%.2f", a + b }')
			gc=$(awk -v a="$gc" -v b="$c" 'BEGIN { printf "%.2f", a + b }')
			[ "$m" -gt "$gm" ] && gm=$m
		done
		# gix refuses a GIT_CEILING_DIRECTORIES that is not above the repository.
		read -r w c m x < <(measure gix-fsck "$repo" env -u GIT_CEILING_DIRECTORIES gix --threads "$(nproc)" fsck)
		peer_ok gix-fsck "$x" || gok=0
		if [ "$gok" = 1 ]; then
			echo "| \`gix free pack verify --decode\` (pack and idx, objects parsed, no fsck checks) | $gw | $gc | $gm | | | $(ratio "$g_w" "$gw") |"
			echo "| \`gix fsck\` (connectivity from HEAD) | $w | $c | $m | | | $(ratio "$g_w" "$w") |"
			both=$(awk -v a="$gw" -v b="$w" 'BEGIN { printf "%.2f", a + b }')
			echo "| the two gix commands together | $both | $(awk -v a="$gc" -v b="$c" 'BEGIN { printf "%.2f", a + b }') | | | | $(ratio "$g_w" "$both") |"
			fsck_fig "" "gix free pack verify --decode ($(gix --version 2>/dev/null | head -1))" "$gw" "$gc" "$gm"
			fsck_fig "" "gix fsck" "$w" "$c" "$m"
			fsck_fig "" "the two gix commands together" "$both" "$(awk -v a="$gc" -v b="$c" 'BEGIN { printf "%.2f", a + b }')" ""
		else
			echo "| gitoxide (\`gix\`) | failed: $(head -1 "$work/err.gix-verify" "$work/err.gix-fsck" 2>/dev/null | grep -v '^==>' | grep . | head -1) | | | | | |"
		fi
	else
		echo "| gitoxide (\`gix\`) | not installed | | | | | |"
	fi
	echo
	line="The default build on all cores: $(ratio "$g_w" "$d_w")× \`git fsck --full\`"
	[ "$ipok" = 1 ] && line+=", $(ratio "$ipw" "$d_w")× \`git index-pack --verify\`"
	[ "${gok:-0}" = 1 ] && line+=", $(ratio "$both" "$d_w")× the two gix commands"
	pack_b=$(stat -c %s "$packdir"/*.pack 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	line+="; its peak RSS is the packs' $(awk -v b="$pack_b" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
	line+=" + $(awk -v m="$d_m" -v b="$pack_b" 'BEGIN { printf "%.1f", (m * 1048576 - b) / 1e6 }') MB"
	echo "$line (wall-clock ratios in this run)."
	echo
	echo "Wall and CPU seconds and peak RSS from GNU time; verdict: the same exit status and the same set"
	echo "of lines on standard output and standard error as \`git fsck --full\`. Peak RSS counts the pages"
	echo "of the mapped packs."
	echo
	t_file=$work/times
	(cd "$repo" && FLAGSPLIT_FSCK_TIMES=1 "$root/target/bench-builds/default/release/flagsplit-fsck" --no-progress 2>&1 >/dev/null | sed -n 's/^flagsplit fsck: //p' >"$t_file") || true
	echo "Where the time goes (default build, \`FLAGSPLIT_FSCK_TIMES=1\`; the pack stages are CPU summed over the threads):"
	echo
	sed 's/^/- /' "$t_file"
	echo
	# The stages as figures: "inflate 2.99 s CPU" and the like.
	while read -r stage value unit rest; do
		[ "$unit" = s ] || continue
		fig fsck-stages "" default "$stage${rest:+ $rest}" seconds "$value" s "FLAGSPLIT_FSCK_TIMES=1, one run" 1
	done <"$t_file"
fi

# --- 6. each provider in process: `flagsplit bench --json` of the default and sha1-block builds --
if [ "$fsck_only" = 0 ]; then
	for b in default sha1-block; do
		log "flagsplit bench --json ($b build)"
		quick=()
		[ "$runs" != 1 ] || quick=(--quick)
		"$(bin "$b")" bench "${quick[@]}" --json >"$(dirname "$json_out")/bench-$b.json.part"
		mv "$(dirname "$json_out")/bench-$b.json.part" "$(dirname "$json_out")/bench-$b.json"
	done
fi

# --- the JSON report ----------------------------------------------------------------------------
{
	echo "{"
	echo '  "schema": 2,'
	echo "  \"generator\": {\"name\": \"scripts/bench-builds.sh\", \"flagsplit\": $(jstr "$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"), \"arguments\": $(jstr "$arguments"), \"timing_runs\": $runs},"
	echo "  \"machine\": {\"cpu_model\": $(jstr "$cpu"), \"cpu_flags\": $(jstr "${flags% }"), \"logical_cpus\": $(nproc), \"os\": $(jstr "$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')"), \"kernel\": $(jstr "$(uname -r)"), \"arch\": $(jstr "$(uname -m)"), \"load_at_start\": $(jstr "$load_at_start")},"
	echo "  \"tools\": {\"rustc\": $(jstr "$(rustc -V)"), \"git\": $(jstr "$(git --version)"), \"openssl\": $(jstr "$(openssl version)"), \"coreutils\": $(jstr "$(sha1sum --version | head -1)"), \"valgrind\": $(jstr "$(valgrind --version)"), \"gix\": $(jstr "$(gix --version 2>/dev/null | head -1)")},"
	echo '  "builds": {'
	first=1
	for b in "${wanted[@]}"; do
		[ -n "${built[$b]:-}" ] || continue
		[ "${built[$b]}" = 1 ] || continue
		built[$b]=2
		[ "$first" = 1 ] || echo ","
		first=0
		printf '    %s: {"cargo": %s, "selection": %s, "options": %s}' "$(jstr "$b")" "$(jstr "${feat[$b]:-}")" "$(jstr "${sel[$b]:-}")" \
			"$("$(bin "$b")" version --build-options --json | tr '\n' ' ' | sed 's/  */ /g')"
	done
	echo
	echo "  },"
	echo '  "figures": ['
	sed '$!s/$/,/' "$figs"
	echo "  ]"
	echo "}"
} >"$json_out.part"
mv "$json_out.part" "$json_out"
log "JSON report: $json_out"
log "done"

#!/usr/bin/env bash
# What `cargo flagsplit inspect` costs on a directory of 1,000 executables, side by side with
# readelf reading the same two things (the notes and the dynamic section) file by file: a
# directory holding 1,000 ELF files, made of this machine's own executables and shared libraries
# (/usr/bin, /usr/lib/x86_64-linux-gnu, hard-linked or copied, so their sizes are real) with the
# stripped flagsplit executables of a release build among them, which carry build records.
#
# Each round runs both, interleaved, on a warm page cache; then, as root, one more round of each
# after dropping the page cache (`echo 3 > /proc/sys/vm/drop_caches`), the cold case. The report
# gives each round's wall time, the median, the CPU and the load average. Usage:
#   scripts/bench-inspect.sh [--rounds N]   (default 5; builds cargo-flagsplit and flagsplit --release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5
[ "${1:-}" = --rounds ] && rounds=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build -q --release --locked --offline -p cargo-flagsplit --bin cargo-flagsplit
cargo build -q --release --locked --offline --bins
dir=$work/bin
mkdir -p "$dir"
for exe in flagsplit flagsplit-fsck flagsplit-imap-send flagsplit-report; do
	strip -o "$dir/$exe" "target/release/$exe"
done
n=4
for f in /usr/bin/* /usr/lib/x86_64-linux-gnu/*.so* /usr/libexec/*/* /usr/lib/*/*; do
	[ "$n" -ge 1000 ] && break
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	[ "$(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	n=$((n + 1))
	ln "$f" "$dir/$n-$(basename "$f")" 2>/dev/null || cp "$f" "$dir/$n-$(basename "$f")"
done
echo "$n ELF files, $(du -sh --apparent-size "$dir" | cut -f1) in all"
tool=$PWD/target/release/cargo-flagsplit
run_inspect() { "$tool" inspect "$dir" >"$work/inspect.out" 2>&1 || true; }
run_readelf() { for f in "$dir"/*; do readelf -n -d "$f" >/dev/null 2>&1 || true; done; }
ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
declare -a a b
for r in $(seq 1 "$rounds"); do
	a+=("$(ms run_inspect)")
	b+=("$(ms run_readelf)")
done
grep -c ': 1 build record(s)' "$work/inspect.out" | sed 's/^/files with a build record: /'
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| warm page cache | each round (ms) | median (ms) |"
echo "|---|---|---:|"
echo "| cargo flagsplit inspect DIR | ${a[*]} | $(median "${a[@]}") |"
echo "| readelf -n -d, file by file | ${b[*]} | $(median "${b[@]}") |"
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
	sync
	echo 3 >/proc/sys/vm/drop_caches
	c=$(ms run_inspect)
	sync
	echo 3 >/proc/sys/vm/drop_caches
	d=$(ms run_readelf)
	echo "cold page cache (after drop_caches): cargo flagsplit inspect $c ms; readelf $d ms"
fi

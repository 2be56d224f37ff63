#!/usr/bin/env bash
# What `cargo flagsplit` costs, with the release build `cargo install` makes of it:
#
# - the warm overhead over a plain `cargo build` of the same workspace (nothing to compile: the
#   cost is Cargo's own no-op, then cargo metadata, the messages and the ELF files), on
#   tests/graph-workspace and on flagsplit's own workspace, ROUNDS interleaved rounds;
# - `check` with the largest policy read (4 MiB: 59,074 valid rules) and with a policy of one
#   million rules (about 50 MB), which is refused before it is read: time and peak memory.
#
# Usage: scripts/bench-cargo-flagsplit.sh [ROUNDS]   (default 10). Prints the CPU, the load, and
# for each figure the median with the minimum and maximum. Target directory: target/bench-cargo-flagsplit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-10}
export CARGO_TARGET_DIR=$root/target/bench-cargo-flagsplit
work=$CARGO_TARGET_DIR/scratch
rm -rf "$work"
mkdir -p "$work"
ws=$root/tests/graph-workspace
for v in $(compgen -e | grep -E '(^|_)BACKEND_[A-Z0-9_]+$|^(TLS_A_|TLS_B_|ZLIB_C_|FLAGSPLIT_)' || true); do unset "$v"; done

echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo build -q --release --locked -p cargo-flagsplit
tool=$CARGO_TARGET_DIR/release/cargo-flagsplit
cargo build -q --locked --offline --manifest-path "$ws/Cargo.toml"
cargo build -q --locked --offline

# stats NAME VALUE... — the median, minimum and maximum
stats() {
	local name=$1
	shift
	printf '%s\n' "$@" | sort -n | awk -v n="$name" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "  %-58s median %8.1f   min %8.1f   max %8.1f\n", n, m, v[1], v[NR] }'
}

# run OUT COMMAND... — wall milliseconds and peak RSS (KiB) of one run, appended to OUT.ms and OUT.kb
run() {
	local out=$1
	shift
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$out.rss" "$@" >/dev/null 2>"$out.err" || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$out.ms"
	# (time prints "Command exited with non-zero status N" first when it does.)
	tail -1 "$out.rss" >>"$out.kb"
}

echo
echo "warm overhead over cargo build, $rounds interleaved rounds (ms)"
for name in graph flagsplit; do
	if [ $name = graph ]; then args=(--manifest-path "$ws/Cargo.toml"); else args=(); fi
	for i in $(seq "$rounds"); do
		run "$work/$name-build" cargo build --locked --offline "${args[@]}"
		run "$work/$name-tool" "$tool" flagsplit --locked --offline "${args[@]}"
	done
	mapfile -t b <"$work/$name-build.ms"
	mapfile -t t <"$work/$name-tool.ms"
	d=()
	for i in "${!b[@]}"; do d+=($((t[i] - b[i]))); done
	stats "$name: cargo build" "${b[@]}"
	stats "$name: cargo flagsplit" "${t[@]}"
	stats "$name: cargo flagsplit - cargo build (each round)" "${d[@]}"
done

echo
echo "policies ($((rounds < 5 ? rounds : 5)) rounds each; ms and peak KiB of cargo-flagsplit itself)"
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
rule = '[[deny]]\nshared = "openssl"\nkind = "tls"\ncrate = "tls-a"\nreason = "r"\n\n'
n = (4 << 20) // len(rule)
open(f"{work}/max.toml", "w").write(rule * n)
with open(f"{work}/million.toml", "w") as f:
    for i in range(1_000_000):
        f.write('[[deny]]\nprovider = "p%07d"\nkind = "tls"\n\n' % i)
EOF
# The build's messages, saved once: the policy's cost alone, without Cargo's.
cargo build -q --locked --offline --manifest-path "$ws/Cargo.toml" --message-format=json-render-diagnostics >"$work/messages.json"
for p in max million; do
	for i in $(seq "$((rounds < 5 ? rounds : 5))"); do
		run "$work/policy-$p" "$tool" flagsplit check --policy "$work/$p.toml" --messages "$work/messages.json" --manifest-path "$ws/Cargo.toml" --offline
	done
	mapfile -t ms <"$work/policy-$p.ms"
	mapfile -t kb <"$work/policy-$p.kb"
	size=$(stat -c %s "$work/$p.toml")
	rules=$(grep -c '^\[\[' "$work/$p.toml")
	stats "$p: $rules rules, $size bytes: ms" "${ms[@]}"
	stats "$p: peak KiB" "${kb[@]}"
	echo "    $(tail -1 "$work/policy-$p.err")"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Shared by the check scripts (build-matrix, config-commands, example-crate, openssl-matrix,
# packaging-recipes, reproducible, quick-start): ok/FAIL lines, a failure count, NEEDED entries, expected texts
# in a log, timed parts, and the summary that sets the exit status.
# Source it after `set -euo pipefail`.

failures=0
checks_started=$(date +%s)

note() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - checks_started))"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
pass() { printf 'ok:   %s\n' "$*"; passes=$((passes + 1)); }
passes=0

# part NAME — starts a timed part (note NAME), recording the time of the one before it in $times;
# part_end ends the current one
times=()
part_name=
part() {
	part_end
	part_name=$1
	part_t0=$(date +%s.%N)
	note "$1"
}
part_end() {
	[ -n "$part_name" ] || return 0
	local s
	s=$(python3 -c "print(f'{$(date +%s.%N) - $part_t0:.1f}')")
	echo "   ($part_name: $s s)"
	times+=("$(printf '%7s s  %s' "$s" "$part_name")")
	part_name=
}

# needed BIN — the NEEDED entries of an ELF binary, one per line, in file order
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# says NAME LOG TEXT... — LOG holds every TEXT (one ok/FAIL line each; LOG is shown on a failure)
says() {
	local name=$1 file=$2 t
	shift 2
	for t in "$@"; do
		grep -qF -- "$t" "$file" && pass "$name: error says '$t'" || { fail "$name: error lacks '$t'"; cat "$file"; }
	done
}

# finish WHAT — prints the summary and exits non-zero when any check failed
finish() {
	echo
	if [ "$failures" -gt 0 ]; then
		echo "$1: $failures failure(s)"
		exit 1
	fi
	echo "$1: all checks passed"
}

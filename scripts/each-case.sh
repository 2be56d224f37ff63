#!/usr/bin/env bash
# `cargo flagsplit each` (crates/cargo-flagsplit/src/each.rs, plan.rs), on real workspaces:
#
# - plans: `--print-plan --json` for --each-provider and --pairwise on tests/graph-workspace and on
#   flagsplit's own workspace; read back, every provider of every facility is selected in some run
#   (every pair of providers of two facilities, with --pairwise), --each-provider makes as many
#   runs as the largest facility has providers, and the cargo-hack powerset count is beside it;
# - runs: `each --include-default -- test --workspace` on tests/graph-workspace, every run passing
#   and proven (the libraries' tests assert the compiled provider is the selected one, and tls-a's
#   calls libssl when openssl is selected); the wall time of both plans' runs; flagsplit's own lib
#   and bins' tests and the example libraries' tests with each provider;
# - the plan's powerset count against cargo-hack's own list (`--print-command-list`), cargo-hack
#   installed from crates.io into target/tools;
# - a run overridden by Cargo's `[env]` (a forced TLS_A_TLS_PROVIDER in the .cargo/config.toml of
#   the directory it runs in): exit 1, naming the facility, the provider that won and the entry's
#   FILE:LINE:COL;
# - liblzma's development files hidden (scripts/lib/hide-lib.sh): the run that selects liblzma
#   fails with liblzma named; --skip-unavailable reports it skipped (exit 0), --fail-on-skip exits 1;
#   a failed run stops the rest, unless --keep-going;
# - a policy (`--policy`): every sha1 run selects a provider with the property it requires, md5
#   never the one it denies; a rule that applies to nothing is exit 2;
# - bad input: an option naming nothing (exit 2 with the name meant), no Cargo command, and a Cargo
#   command that sets --message-format.
#
# The guide's library (inflate-demo) is tested with `each` in scripts/guide-case.sh, where it
# replaced a hand-written run per provider. The matrices that stay hand-written vary what `each`
# does not plan: scripts/build-matrix.sh checks what each release configuration links (NEEDED, with
# lld and with GNU ld) and the build errors a user can hit; scripts/openssl-matrix.sh where OpenSSL
# comes from (static, vendored); the graph, library and example cases the precedence of settings
# (a shell variable against [env], graph-wide against a crate's own) and the errors of each.
#
# Usage: scripts/each-case.sh
# Target directory: target/each-case; scratch files in target/each-case/scratch, replaced at each
# run. A first `cargo fetch --locked` may use the network; every build after it runs --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
export CARGO_TARGET_DIR=$root/target/each-case
. scripts/lib/graph-workspace.sh
cargo build -q --locked -p cargo-flagsplit 2>"$log/build" || { cat "$log/build"; fail "cargo build -p cargo-flagsplit"; finish "each case"; }
CF=$CARGO_TARGET_DIR/debug/cargo-flagsplit
(cd "$ws" && cargo fetch --locked -q) || fail "cargo fetch in tests/graph-workspace"

# each NAME DIR [VAR=...]... -- EACH ARGS... — `cargo flagsplit each ARGS` in DIR, standard output
# in $log/NAME, standard error in $log/NAME.err; its status in $status
each() {
	local name=$1 dir=$2 vars=()
	shift 2
	while [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	status=0
	(cd "$dir" && env "${vars[@]}" "$CF" flagsplit each "$@") >"$log/$name" 2>"$log/$name.err" || status=$?
}

# covers NAME — the JSON plan in $log/NAME selects every provider (and, for pairwise, every
# cross-facility pair), with the run count each strategy promises; prints the counts
covers() {
	python3 - "$log/$1" <<'PY'
import itertools, json, sys
plan = json.load(open(sys.argv[1]))
facilities = plan["facilities"]
left = {(l["crate"], l["facility"], l["provider"]) for l in plan["left_out"]}
runs = [r for r in plan["runs"] if not r["default"]]
chosen = [{(p["crate"], p["facility"]): p["provider"] for p in r["picks"]} for r in runs]
problems = []
for f in facilities:
    for p in f["providers"]:
        key = (f["crate"], f["name"])
        if (f["crate"], f["name"], p["name"]) not in left and not any(c.get(key) == p["name"] for c in chosen):
            problems.append(f"{f['crate']}:{f['name']}:{p['name']} is in no run")
largest = max(len(f["providers"]) for f in facilities)
if plan["strategy"] == "each-provider" and len(runs) != largest:
    problems.append(f"{len(runs)} runs, but the largest facility has {largest} providers")
pairs = 0
if plan["strategy"] == "pairwise":
    for a, b in itertools.combinations(facilities, 2):
        for pa in a["providers"]:
            for pb in b["providers"]:
                pairs += 1
                ka, kb = (a["crate"], a["name"]), (b["crate"], b["name"])
                if not any(c.get(ka) == pa["name"] and c.get(kb) == pb["name"] for c in chosen):
                    problems.append(f"pair {ka}={pa['name']} {kb}={pb['name']} is in no run")
    if pairs != plan["pairs"] or plan["pairs_covered"] != pairs:
        problems.append(f"pairs: {pairs} counted, the plan says {plan['pairs_covered']} of {plan['pairs']}")
for p in problems:
    print("PROBLEM:", p)
product = 1
for f in facilities:
    product *= len(f["providers"])
print(f"{len(runs)} runs, {len(facilities)} facilities, {sum(len(f['providers']) for f in facilities)} providers, {pairs} pairs; all combinations {product}; cargo-hack powerset {plan['powerset']}")
sys.exit(1 if problems else 0)
PY
}

note "plans, read back from --print-plan --json"
# flagsplit's own plans use its main target directory, where the test command's `cargo test
# --workspace` left what the discovery build (`cargo test --no-run --workspace`) needs.
for where in graph flagsplit; do
	dir=$ws
	target=()
	[ $where = flagsplit ] && dir=$root && target=(--target-dir "$root/target")
	for strategy in each-provider pairwise; do
		name=plan-$where-$strategy
		each "$name" "$dir" -- --print-plan --json --$strategy -- test --workspace --offline "${target[@]}"
		if [ $status = 0 ] && out=$(covers "$name"); then
			pass "$name: $out"
			echo "$where $strategy $out" >>"$work/plan-counts"
		else
			cat "$log/$name.err" | tail -20
			fail "$name: exit $status; ${out:-}"
		fi
	done
done
each plan-text "$ws" -- --print-plan -- test --workspace --offline
says plan-text "$log/plan-text" "2 runs (each provider) over 4 facilities and 8 providers" "env: TLS_A_TLS_PROVIDER=openssl TLS_B_TLS_PROVIDER=openssl XZ_D_DECOMPRESS_PROVIDER=liblzma ZLIB_C_INFLATE_PROVIDER=system"

note "a policy narrows the plan: every run keeps what it requires"
printf '[[require]]\nkind = "sha1"\nproperty = "collision-detection"\n\n[[deny]]\nshared = "openssl"\nkind = "md5"\n' >"$work/policy.toml"
each plan-policy "$root" -- --print-plan --json --policy "$work/policy.toml" -- test --workspace --offline --target-dir "$root/target"
if [ $status = 0 ] && python3 - "$log/plan-policy" <<'PY' >"$log/plan-policy.check"; then
import json, sys
plan = json.load(open(sys.argv[1]))
props = {(f["crate"], f["name"], p["name"]): p for f in plan["facilities"] for p in f["providers"]}
kinds = {(f["crate"], f["name"]): f["kind"] for f in plan["facilities"]}
sha1 = [(k["crate"], k["facility"], k["provider"]) for r in plan["runs"] for k in r["picks"] if kinds[(k["crate"], k["facility"])] == "sha1"]
assert sha1 and all("collision-detection" in props[s]["properties"] for s in sha1), sha1
md5 = [k["provider"] for r in plan["runs"] for k in r["picks"] if kinds[(k["crate"], k["facility"])] == "md5"]
assert md5 and all(props[(k["crate"], k["facility"], k["provider"])]["answers_to"] != "openssl" for r in plan["runs"] for k in r["picks"] if kinds[(k["crate"], k["facility"])] == "md5")
out = [l for l in plan["left_out"] if l["why"] == "policy"]
assert out, plan["left_out"]
print(f"sha1 runs select only {sorted({s[2] for s in sha1})}; {len(out)} providers left out by the policy")
PY
	pass "plan-policy: $(cat "$log/plan-policy.check")"
else
	tail -20 "$log/plan-policy.err"
	fail "plan-policy: exit $status"
fi
printf '[[require]]\nkind = "tls"\ncrate = "flagsplit-git"\nshared = "openssl"\n' >"$work/policy-nothing.toml"
each plan-policy-nothing "$root" -- --print-plan --policy "$work/policy-nothing.toml" -- test --workspace --offline --target-dir "$root/target"
[ $status = 2 ] && pass "plan-policy-nothing: a rule that applies to no facility: exit 2" || fail "plan-policy-nothing: exit $status, not 2"
says plan-policy-nothing "$log/plan-policy-nothing.err" "crate = \"flagsplit-git\" at $work/policy-nothing.toml:1:1 applies to no facility of this build"

note "runs on tests/graph-workspace, each proven"
t0=$(date +%s.%N)
each run-graph "$ws" -- --include-default -- test --workspace --offline
t1=$(date +%s.%N)
if [ $status = 0 ]; then
	pass "run-graph: each --include-default -- test --workspace: exit 0 in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
else
	tail -30 "$log/run-graph.err"
	fail "run-graph: exit $status"
fi
says run-graph "$log/run-graph" "run 1/3  passed" "run 3/3  passed" "tls-a:tls=openssl tls-b:tls=openssl xz-d:decompress=liblzma zlib-c:inflate=system" "every planned provider was exercised"
# Each library's tests ran in each run: three runs, four libraries' unit tests.
n=$(grep -c 'the_compiled_provider_is_the_selected_one ... ok' "$log/run-graph" || true)
[ "$n" = 9 ] && pass "run-graph: the_compiled_provider_is_the_selected_one passed 9 times (tls-a, tls-b, xz-d in 3 runs)" || fail "run-graph: the_compiled_provider_is_the_selected_one passed $n times, not 9"
t0=$(date +%s.%N)
each run-graph-pairwise "$ws" -- --pairwise --json -- test --workspace --offline
t1=$(date +%s.%N)
if [ $status = 0 ] && python3 -c "
import json, sys
d = json.load(open('$log/run-graph-pairwise'))
assert d['outcome'] == 'passed' and all(r['outcome'] == 'passed' for r in d['results']) and not d['never_exercised'], d['results']
# The fields book/src/cargo-flagsplit.md documents, and no others.
assert set(d) == {'schema', 'command', 'cargo', 'plan', 'results', 'never_exercised', 'skipped_only', 'outcome'}, set(d)
assert set(d['plan']) == {'strategy', 'facilities', 'runs', 'left_out', 'providers', 'pairs', 'pairs_covered', 'powerset'}, set(d['plan'])
assert set(d['plan']['facilities'][0]) == {'crate', 'name', 'kind', 'variable', 'member', 'default', 'providers'}
assert set(d['plan']['facilities'][0]['providers'][0]) == {'name', 'feature', 'compiled', 'links', 'answers_to', 'properties'}
assert set(d['plan']['runs'][0]) == {'number', 'default', 'picks', 'env', 'features'}
assert set(d['plan']['runs'][0]['picks'][0]) == {'crate', 'facility', 'provider', 'variable'}
assert set(d['results'][0]) == {'run', 'selection', 'outcome', 'exit', 'seconds', 'problems'}
print(len(d['results']))" >"$log/pairwise-runs"; then
	pass "run-graph-pairwise: --pairwise --json: $(cat "$log/pairwise-runs") runs passed in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s; the test output went to standard error"
else
	tail -30 "$log/run-graph-pairwise.err"
	fail "run-graph-pairwise: exit $status"
fi

note "flagsplit's own providers: the workspace's lib and bin unit tests, and the example libraries' tests, once per run"
# flagsplit's integration suite (tests/integration, about 100 s a run) stays with the default and
# --all-features runs of scripts/test.sh; what the selection changes is the flagsplit crate itself.
# --workspace --all-features as scripts/test.sh's own run, so that the discovery build reuses it.
for spec in "flagsplit:--workspace --lib --bins" "examples:-p inflate-demo -p zstd-demo -p checksum-demo"; do
	name=run-${spec%%:*}
	# shellcheck disable=SC2086
	t0=$(date +%s.%N)
	each "$name" "$root" -- -- test --locked --offline --all-features --target-dir "$root/target" ${spec#*:}
	t1=$(date +%s.%N)
	if [ $status = 0 ] && grep -q "every planned provider was exercised" "$log/$name"; then
		pass "$name: each -- test ${spec#*:} --all-features: $(grep -c '  passed  ' "$log/$name") runs passed in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
		grep -E '^run [0-9]+/' "$log/$name" | sed 's/^/      /'
	else
		tail -30 "$log/$name.err"
		cat "$log/$name"
		fail "$name: exit $status"
	fi
done

note "cargo hack --feature-powerset, the oracle of the powerset count"
tools=$root/target/tools
if [ ! -x "$tools/bin/cargo-hack" ]; then
	cargo install -q --locked --root "$tools" cargo-hack >"$log/install-hack" 2>&1 || { cat "$log/install-hack"; fail "cargo install cargo-hack"; }
fi
if [ -x "$tools/bin/cargo-hack" ]; then
	# tests/graph-workspace's libraries have no features but their providers': cargo-hack's own
	# list of runs for them is the plan's count.
	hack=$(cd "$ws" && PATH=$tools/bin:$PATH cargo hack --feature-powerset --print-command-list -p tls-a -p tls-b -p zlib-c -p xz-d check 2>/dev/null | grep -c '^cargo check')
	planned=$(python3 -c "import json; print(json.load(open('$log/plan-graph-each-provider'))['powerset'])")
	[ "$hack" = "$planned" ] && pass "graph: cargo hack --feature-powerset lists $hack runs for the four libraries, as the plan says" || fail "graph: cargo hack lists $hack runs, the plan says $planned"
	for where in "graph:$ws" "flagsplit:$root"; do
		n=$(cd "${where#*:}" && PATH=$tools/bin:$PATH cargo hack --feature-powerset --print-command-list --workspace check 2>/dev/null | grep -c '^cargo check')
		echo "${where%%:*} cargo-hack-workspace $n" >>"$work/plan-counts"
		pass "${where%%:*}: cargo hack --feature-powerset --workspace (every feature of every member): $n runs"
	done
fi

note "a run overridden by Cargo's [env] fails, naming the entry"
mkdir -p "$work/env-override/.cargo"
cat >"$work/env-override/.cargo/config.toml" <<'EOF'
[env]
TLS_A_TLS_PROVIDER = { value = "none", force = true }
EOF
each env-override "$work/env-override" -- -- test --manifest-path "$ws/Cargo.toml" --workspace --offline
[ $status = 1 ] && pass "env-override: exit 1" || { tail -20 "$log/env-override.err"; fail "env-override: exit $status, not 1"; }
says env-override "$log/env-override" "WRONG SELECTION" "tls-a's facility tls selected \`none\`, but this run planned \`openssl\` (TLS_A_TLS_PROVIDER=openssl)" \
	"the [env] entry \`TLS_A_TLS_PROVIDER = \"none\"\` at $work/env-override/.cargo/config.toml:2:1"

note "liblzma's development files hidden"
hidden() {
	local name=$1 st=0
	shift
	(cd "$ws" && "$root/scripts/lib/hide-lib.sh" lzma "$CF" flagsplit each "$@") >"$log/$name" 2>"$log/$name.err" || st=$?
	status=$st
}
hidden hidden-lzma -- test --workspace --offline
if [ $status = 77 ]; then
	[ "${CI:-}" = true ] && fail "hide-lib.sh cannot run with CI=true: $(cat "$log/hidden-lzma.err")" || echo "SKIPPED: liblzma hidden: $(tail -1 "$log/hidden-lzma.err")"
else
	[ $status = 1 ] && pass "hidden-lzma: exit 1" || fail "hidden-lzma: exit $status, not 1"
	says hidden-lzma "$log/hidden-lzma" "FAILED" "liblzma not found (for xz-d:decompress=liblzma)"
	grep -q "liblzma" "$log/hidden-lzma.err" && pass "hidden-lzma: the build script's message, naming liblzma, is shown" || fail "hidden-lzma: no liblzma message on standard error"
	hidden hidden-skip --skip-unavailable -- test --workspace --offline
	[ $status = 0 ] && pass "hidden-skip: --skip-unavailable: exit 0" || fail "hidden-skip: exit $status, not 0"
	says hidden-skip "$log/hidden-skip" "skipped: liblzma not found (for xz-d:decompress=liblzma)" "run 2/2  skipped" "not exercised, their runs skipped (4): tls-a:tls:openssl, tls-b:tls:openssl, xz-d:decompress:liblzma, zlib-c:inflate:system"
	hidden hidden-fail-on-skip --skip-unavailable --fail-on-skip -- test --workspace --offline
	[ $status = 1 ] && pass "hidden-fail-on-skip: --fail-on-skip: exit 1" || fail "hidden-fail-on-skip: exit $status, not 1"
	# Pairwise: several runs select liblzma. Without --keep-going the first failure stops the
	# rest ("not run"); with it, every run is made and the others pass.
	hidden hidden-pairwise --pairwise -- test --workspace --offline
	[ $status = 1 ] && grep -q "  not run  " "$log/hidden-pairwise" && pass "hidden-pairwise: stops at the first failed run, the rest not run" || { cat "$log/hidden-pairwise"; fail "hidden-pairwise: exit $status, or no run left unrun"; }
	hidden hidden-keep-going --pairwise --keep-going -- test --workspace --offline
	if [ $status = 1 ] && ! grep -q "  not run  " "$log/hidden-keep-going" && grep -q "  passed  " "$log/hidden-keep-going"; then
		pass "hidden-keep-going: every run made: $(grep -c '  passed  ' "$log/hidden-keep-going") passed, $(grep -c '  FAILED  ' "$log/hidden-keep-going") failed on liblzma"
	else
		cat "$log/hidden-keep-going"
		fail "hidden-keep-going: exit $status"
	fi
fi

note "the cargo flagsplit chapter's each commands, as written, in tests/graph-workspace"
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	if (cd "$ws" && PATH=$CARGO_TARGET_DIR/debug:$PATH eval "$cmd") >"$log/doc-$n" 2>&1; then
		pass "book/src/cargo-flagsplit.md: $cmd"
	else
		tail -20 "$log/doc-$n"
		fail "book/src/cargo-flagsplit.md: $cmd"
	fi
done < <(awk '$0 == "<!-- each commands -->" { f = 1; next } f && /^```/ { if (i) exit; i = 1; next } f && i { print }' book/src/cargo-flagsplit.md)
[ "$n" -ge 2 ] && pass "the chapter's each block: $n commands" || fail "the chapter's each block: $n commands"
# The chapter's pairwise figures are this run's.
read -r runs pairs product powerset < <(sed -n 's/^flagsplit pairwise \([0-9]*\) runs, [0-9]* facilities, [0-9]* providers, \([0-9]*\) pairs; all combinations \([0-9]*\); cargo-hack powerset \([0-9]*\)$/\1 \2 \3 \4/p' "$work/plan-counts")
product=$(python3 -c "print(f'{$product:,}')")
grep -qF "$runs runs cover $pairs pairs, where all combinations are $product and cargo" book/src/cargo-flagsplit.md &&
	grep -qF "hack's \`--feature-powerset\` over the same features makes $powerset runs" book/src/cargo-flagsplit.md &&
	pass "cargo-flagsplit.md: flagsplit's pairwise figures ($runs runs, $pairs pairs, $product combinations, powerset $powerset) are this run's" ||
	fail "cargo-flagsplit.md: flagsplit's pairwise figures are not this run's: $runs runs, $pairs pairs, $product combinations, powerset $powerset"

note "bad input"
each bad-skip "$ws" -- --print-plan --skip opensl -- test --workspace --offline
[ $status = 2 ] && pass "bad-skip: exit 2" || fail "bad-skip: exit $status, not 2"
says bad-skip "$log/bad-skip.err" "--skip opensl matches nothing in this build (did you mean" "tls-a:tls:openssl"
each bad-kind "$ws" -- --print-plan --kind tsl -- test --workspace --offline
[ $status = 2 ] && pass "bad-kind: exit 2" || fail "bad-kind: exit $status, not 2"
says bad-kind "$log/bad-kind.err" "--kind tsl matches nothing in this build (did you mean \`tls\`?)"
each no-command "$ws" --
[ $status = 2 ] && pass "no-command: exit 2" || fail "no-command: exit $status, not 2"
says no-command "$log/no-command.err" "no Cargo command: give one after \`--\`"
# A workspace whose crates use no flagsplit-config: nothing to plan is a refusal, not a pass.
mkdir -p "$work/plain"
printf '[workspace]\nmembers = ["lib"]\nresolver = "2"\n' >"$work/plain/Cargo.toml"
(cd "$work/plain" && cargo new --lib --vcs none --offline -q lib) || fail "cargo new --lib"
each no-facility "$work/plain" -- -- test --workspace --offline
[ $status = 2 ] && pass "no-facility: a workspace without flagsplit-config: exit 2" || fail "no-facility: exit $status, not 2"
says no-facility "$log/no-facility.err" "no crate of this build uses flagsplit-config"
each message-format "$ws" -- -- build --message-format json
[ $status = 2 ] && pass "message-format: exit 2" || fail "message-format: exit $status, not 2"
says message-format "$log/message-format.err" "the Cargo command sets --message-format"

echo
echo "each case: $(($(date +%s) - started)) s"
finish "each case"

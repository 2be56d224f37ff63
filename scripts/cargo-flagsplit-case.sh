#!/usr/bin/env bash
# `cargo flagsplit` (crates/cargo-flagsplit), checked against what the builds decided and link:
#
# - tests/graph-workspace: the text and --json reports for (a) nothing set, (b) RUST_BACKEND_TLS=openssl,
#   (c) (b) with TLS_B_TLS_PROVIDER=none, (d) `--target <host>` with <HOST>_RUST_BACKEND_TLS=openssl
#   (tls-a twice: the target's copy and app's build script's); graph-wide settings nothing reads
#   (the environment's and RUST_BACKEND_CONFIG's) as warnings;
# - `check --policy`: a [[deny]] broken (exit 1, naming the crate and the origin) and holding, a
#   [[libraries]] rule broken naming the executable;
# - flagsplit's own workspace: the report against `flagsplit version --build-options` and
#   `readelf -d` for the default build, `--features openssl-tls` and the OpenSSL build;
#   packaging/policy.toml and packaging/policy-openssl.toml hold on them;
# - bad input: a missing, invalid or mistyped policy file (exit 2, FILE:LINE:COL, the valid keys,
#   the fix), a failing build (Cargo's status), a workspace without flagsplit-config (exit 0);
# - the time `cargo flagsplit` adds to a plain `cargo build` on a warm target directory.
#
# Usage: scripts/cargo-flagsplit-case.sh
# Target directory: target/cargo-flagsplit-case; scratch files (logs, policies, the empty
# workspace) in target/cargo-flagsplit-case/scratch, replaced at each run. A first
# `cargo fetch --locked` may use the network; every build after it runs --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
export CARGO_TARGET_DIR=$root/target/cargo-flagsplit-case
. scripts/lib/graph-workspace.sh

# fs NAME DIR [VAR=...]... -- ARGS... — `cargo flagsplit ARGS` in DIR with the variables: standard
# output in $log/NAME, standard error in $log/NAME.err; its status
fs() {
	local name=$1 dir=$2
	shift 2
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	(cd "$dir" && env "${vars[@]}" cargo flagsplit "$@") >"$log/$name" 2>"$log/$name.err"
}

# gw NAME [VAR=...]... [-- ARGS...] — `cargo flagsplit ARGS --locked --offline` on the graph
# workspace; its status
gw() {
	local name=$1
	shift
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	fs "$name" "$root" "${vars[@]}" -- --manifest-path "$ws/Cargo.toml" --locked --offline "$@"
}

# status_is NAME WANT STATUS
status_is() {
	[ "$3" = "$2" ] && pass "$1: exit status $3" || { fail "$1: exit status $3, expected $2"; sed 's/^/  | /' "$log/$1" "$log/$1.err" | tail -40; }
}

# lines NAME LINE... — each LINE is a whole line of $log/NAME (a count prefix `N*` asks for N of them)
lines() {
	local name=$1 want n got
	shift
	for want in "$@"; do
		n=
		if [[ $want =~ ^([0-9]+)\*(.*)$ ]]; then n=${BASH_REMATCH[1]}; want=${BASH_REMATCH[2]}; fi
		got=$(grep -cxF -- "$want" "$log/$name" || true)
		if { [ -n "$n" ] && [ "$got" = "$n" ]; } || { [ -z "$n" ] && [ "$got" -gt 0 ]; }; then
			pass "$name: ${n:+$n× }'$want'"
		else
			if [ -n "$n" ]; then fail "$name: '$want' $got times, expected $n"; else fail "$name: no line '$want'"; fi
			sed 's/^/  | /' "$log/$name"
		fi
	done
}

# has NAME TEXT... — $log/NAME (or NAME.err for `NAME.err`) holds every TEXT
has() {
	local name=$1 t
	shift
	for t in "$@"; do
		grep -qF -- "$t" "$log/$name" && pass "$name: has '$t'" || { fail "$name: lacks '$t'"; sed 's/^/  | /' "$log/$name"; }
	done
}

# json NAME DESCRIPTION PYTHON-EXPRESSION — the expression holds on $log/NAME's JSON, with `r` the
# document, fac(crate, build="target") a crate's facilities, exe(name) an executable
json() {
	local name=$1 desc=$2 expr=$3
	if python3 - "$log/$name" "$expr" <<'EOF'; then pass "$name: json: $desc"; else fail "$name: json: $desc"; fi
import json, sys
r = json.load(open(sys.argv[1]))
def fac(name, build="target"):
    return [f for c in r["crates"] if c["name"] == name and c["build"] == build for f in c["options"]["facilities"]]
def exe(name):
    return [e for e in r["executables"] if e["name"] == name][0]
ok = eval(sys.argv[2])
if not ok:
    print("  | " + json.dumps(r)[:2000])
sys.exit(0 if ok else 1)
EOF
}

# count_fails FILE — adds the FAIL lines a python check printed to the failure count
count_fails() { local n; n=$(grep -c '^FAIL: ' "$1" || true); failures=$((failures + n)); }

# needed_is NAME EXE BIN — the report's NEEDED of EXE (JSON $log/NAME) is `readelf -d BIN`'s
needed_is() {
	local want got
	want=$(needed "$3" | paste -sd' ')
	got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join([e for e in r["executables"] if e["name"]==sys.argv[2]][0]["needed"]))' "$log/$1" "$2" 2>/dev/null || echo "(no $2)")
	[ "$got" = "$want" ] && pass "$1: $2 NEEDED as readelf says: $got" || fail "$1: $2 NEEDED '$got', readelf says '$want'"
}

note "cargo-flagsplit, and the crates (the one step that may use the network)"
if (cd "$ws" && cargo fetch --locked) >"$log/fetch" 2>&1 && cargo fetch --locked >>"$log/fetch" 2>&1; then pass "cargo fetch --locked"; else cat "$log/fetch"; fail "cargo fetch --locked"; fi
if cargo build -p cargo-flagsplit --locked --offline >"$log/build-tool" 2>&1; then
	pass "cargo build -p cargo-flagsplit"
else
	cat "$log/build-tool"
	fail "cargo build -p cargo-flagsplit"
	finish "cargo-flagsplit case"
fi
export PATH=$CARGO_TARGET_DIR/debug:$PATH
cargo flagsplit --help >"$log/help" 2>&1 && pass "cargo flagsplit --help: $(sed -n 1p "$log/help")" || fail "cargo flagsplit --help"

note "(a) nothing set"
st=0; gw a || st=$?; status_is a 0 $st
lines a "tls-a v0.1.0 (library, $host)" "tls-b v0.1.0 (library, $host)" "zlib-c v0.1.0 (library, $host)" \
	"2*└── tls (kind tls): none, from default" "2*    compiled: none, openssl (unselected)" \
	"└── inflate (kind zlib): pure-rust, from default" "    compiled: pure-rust, system (unselected)" "app (executable)"
grep -q '^graph-wide settings' "$log/a" && fail "a: a graph-wide settings line" || pass "a: no graph-wide settings line"
grep -q '^└── links: .*libssl' "$log/a" && fail "a: app links libssl" || pass "a: app does not link libssl: $(grep '^└── links' "$log/a")"
st=0; gw a-json -- --json || st=$?; status_is a-json 0 $st
json a-json "schema 1, three crates, the target copies" 'r["schema"] == 1 and sorted(c["name"] for c in r["crates"]) == ["tls-a", "tls-b", "zlib-c"] and all(c["build"] == "target" for c in r["crates"])'
json a-json "tls none, inflate pure-rust, from default" 'all(f["selected"] == "none" and f["origin_kind"] == "default" for f in fac("tls-a") + fac("tls-b")) and fac("zlib-c")[0]["selected"] == "pure-rust"'
json a-json "no graph settings, no warnings" 'r["graph_settings"] == [] and r["warnings"] == []'
needed_is a-json app "$CARGO_TARGET_DIR/debug/app"

note "(b) ${G}_TLS=openssl: both TLS libraries, from the graph-wide setting"
st=0; gw b ${G}_TLS=openssl || st=$?; status_is b 0 $st
lines b "2*├── tls (kind tls): openssl, from graph-wide ${G}_TLS" "2*│   compiled: none, openssl" \
	"└── inflate (kind zlib): pure-rust, from default" "graph-wide settings: ${G}_TLS=openssl"
has b "└── links: libssl.so.3 libcrypto.so.3"
st=0; gw b-json ${G}_TLS=openssl -- --json || st=$?; status_is b-json 0 $st
json b-json "tls-a and tls-b: openssl, graph-variable ${G}_TLS" 'all(f["selected"] == "openssl" and f["origin"] == "graph-wide RUST_BACKEND_TLS" and f["origin_kind"] == "graph-variable" for f in fac("tls-a") + fac("tls-b"))'
json b-json "the setting, read" 'r["graph_settings"] == [{"name": "RUST_BACKEND_TLS", "value": "openssl", "source": "environment", "at": None, "key": "tls", "read": True}]'
needed_is b-json app "$CARGO_TARGET_DIR/debug/app"

note "check: a [[deny]] broken by ${G}_TLS=openssl, holding without it; a [[libraries]] rule"
printf '[[deny]]\nshared = "openssl"\nkind = "tls"\nreason = "TLS through rustls only"\n' >"$work/deny.toml"
st=0; gw deny ${G}_TLS=openssl -- check --policy "$work/deny.toml" || st=$?; status_is deny 1 $st
has deny 'error[policy]: tls-a v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies' \
	'error[policy]: tls-b v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies' \
	"  = origin: graph-wide ${G}_TLS (graph-variable)" "  = rule: $work/deny.toml:1:1 [[deny]] shared = \"openssl\", kind = \"tls\"" \
	"  = reason: TLS through rustls only" "  = fix: ${G}_TLS chose it for every facility of kind tls: change or unset it" \
	"policy $work/deny.toml: 2 error(s)"
printf '[[libraries]]\nlibrary = "libssl"\nonly = []\n' >"$work/libssl.toml"
st=0; gw libssl ${G}_TLS=openssl -- check --policy "$work/libssl.toml" || st=$?; status_is libssl 1 $st
has libssl 'error[policy]: executable `app` links libssl.so.3, which the policy lets no executable link' \
	"  = selected by: tls-a v0.1.0: \`tls\` = openssl (from graph-wide ${G}_TLS (graph-variable)), which links libssl, libcrypto"
st=0; gw deny-unset -- check --policy "$work/deny.toml" || st=$?; status_is deny-unset 0 $st
has deny-unset "policy $work/deny.toml: holds (1 rule(s), 3 crate(s), 1 executable(s))"
st=0; gw libssl-unset -- check --policy "$work/libssl.toml" || st=$?; status_is libssl-unset 0 $st

note "graph-wide settings nothing reads: ${G}_ZSTD, and a zstd entry of ${G}_CONFIG"
printf 'zstd = "pure-rust"\ntls = "openssl"\n' >"$work/backends.toml"
st=0; gw unread ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" || st=$?; status_is unread 0 $st
lines unread "2*├── tls (kind tls): openssl, from graph-wide $work/backends.toml:2:7" \
	"warning: ${G}_ZSTD=system: no crate of this build has a facility of kind zstd, so nothing reads it" \
	"warning: $work/backends.toml:1:8: zstd = \"pure-rust\": no crate of this build has a facility of kind zstd, so nothing reads it"
grep -q "^warning: .*tls = " "$log/unread" && fail "unread: a warning for the tls entry" || pass "unread: no warning for the tls entry (read)"
st=0; gw unread-check ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" -- check --policy "$work/libssl.toml" || st=$?; status_is unread-check 1 $st
has unread-check "warning: ${G}_ZSTD=system: no crate of this build has a facility of kind zstd, so nothing reads it"
st=0; gw unread-json ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" -- --json || st=$?; status_is unread-json 0 $st
json unread-json "RUST_BACKEND_ZSTD and the file's zstd unread, tls read" '[(s["name"], s["read"]) for s in r["graph_settings"]] == [("RUST_BACKEND_CONFIG", True), ("RUST_BACKEND_ZSTD", False), ("zstd", False), ("tls", True)] and len(r["warnings"]) == 2'

note "(c) tls-b's own variable beats the graph-wide setting"
st=0; gw c ${G}_TLS=openssl TLS_B_TLS_PROVIDER=none || st=$?; status_is c 0 $st
lines c "1*├── tls (kind tls): openssl, from graph-wide ${G}_TLS" "1*└── tls (kind tls): none, from TLS_B_TLS_PROVIDER"
st=0; gw c-json ${G}_TLS=openssl TLS_B_TLS_PROVIDER=none -- --json || st=$?; status_is c-json 0 $st
json c-json "tls-a openssl (graph-variable), tls-b none (variable)" 'fac("tls-a")[0]["selected"] == "openssl" and fac("tls-a")[0]["origin_kind"] == "graph-variable" and fac("tls-b")[0]["selected"] == "none" and fac("tls-b")[0]["origin"] == "TLS_B_TLS_PROVIDER" and fac("tls-b")[0]["origin_kind"] == "variable"'
json c-json "app still links libssl (tls-a)" '"libssl.so.3" in exe("app")["needed"]'

note "the time cargo flagsplit adds to cargo build (warm target directory, nothing set; 3 runs each, interleaved)"
gw warm || true
plain=() tool=()
for i in 1 2 3; do
	t0=$(date +%s%N)
	cargo build --manifest-path "$ws/Cargo.toml" --locked --offline >"$log/time-plain" 2>&1 || fail "time: cargo build failed"
	t1=$(date +%s%N)
	gw time-tool || fail "time: cargo flagsplit failed"
	t2=$(date +%s%N)
	plain+=($(((t1 - t0) / 1000000))) tool+=($(((t2 - t1) / 1000000)))
done
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
mp=$(median "${plain[@]}") mt=$(median "${tool[@]}")
printf '  cargo build: %s ms (median of %s), cargo flagsplit: %s ms (median of %s): +%s ms\n' "$mp" "${plain[*]}" "$mt" "${tool[*]}" "$((mt - mp))"
pass "time: measured, cargo flagsplit adds $((mt - mp)) ms"

note "(d) --target $host: tls-a twice, both selected by ${HOST}_${G}_TLS"
st=0; gw d "${HOST}_${G}_TLS=openssl" -- --target "$host" || st=$?; status_is d 0 $st
lines d "1*tls-a v0.1.0 (library, $host)" "1*tls-a v0.1.0 (library, $host, host copy for build scripts)" \
	"3*├── tls (kind tls): openssl, from graph-wide ${HOST}_${G}_TLS" "graph-wide settings: ${HOST}_${G}_TLS=openssl"
st=0; gw d-json "${HOST}_${G}_TLS=openssl" -- --target "$host" --json || st=$?; status_is d-json 0 $st
json d-json "tls-a: a target and a host copy, both openssl from ${HOST}_${G}_TLS" "sorted(c['build'] for c in r['crates'] if c['name'] == 'tls-a') == ['host', 'target'] and all(f['selected'] == 'openssl' and f['origin'] == 'graph-wide ${HOST}_${G}_TLS' for f in fac('tls-a') + fac('tls-a', 'host') + fac('tls-b'))"
json d-json "the host copy's OUT_DIR outside $host/" "all(('/$host/' in c['out_dir']) == (c['build'] == 'target') for c in r['crates'])"
needed_is d-json app "$CARGO_TARGET_DIR/$host/debug/app"

note "bad input"
st=0; gw missing -- check --policy "$work/nonexistent.toml" || st=$?; status_is missing 2 $st
has missing.err "error: $work/nonexistent.toml: cannot read the policy file: No such file or directory" "= fix: give an existing TOML file with --policy"
printf '[[deny]]\nprovider = "rustls\n' >"$work/invalid.toml"
st=0; gw invalid -- check --policy "$work/invalid.toml" || st=$?; status_is invalid 2 $st
has invalid.err "error: $work/invalid.toml:2:19: invalid TOML: invalid character in string" "= fix: correct the TOML syntax at that position"
printf '[[deny]]\nprovider = "rustls"\nkinds = "tls"\n' >"$work/unknown-key.toml"
st=0; gw unknown-key -- check --policy "$work/unknown-key.toml" || st=$?; status_is unknown-key 2 $st
has unknown-key.err "error: $work/unknown-key.toml:3:1: unknown key \`kinds\` in [[deny]]" "  = valid: provider, shared, kind, crate, reason" "  = fix: remove \`kinds\` or use one of the valid keys"
printf '[[allow]]\nprovider = "rustls"\n' >"$work/unknown-table.toml"
st=0; gw unknown-table -- check --policy "$work/unknown-table.toml" || st=$?; status_is unknown-table 2 $st
has unknown-table.err "error: $work/unknown-table.toml:1:3: unknown table or key \`allow\`" "  = valid: deny, require, libraries"
printf '[[libraries]]\nlibrary = "libssl"\nonly = "app"\n' >"$work/wrong-type.toml"
st=0; gw wrong-type -- check --policy "$work/wrong-type.toml" || st=$?; status_is wrong-type 2 $st
has wrong-type.err "error: $work/wrong-type.toml:3:8: \`only\` in [[libraries]] must be an array of strings, found string" "  = fix: write it as only = [\"flagsplit-imap-send\"]"
printf '[[deny]]\nshared = "opnessl"\n' >"$work/bad-value.toml"
st=0; gw bad-value -- check --policy "$work/bad-value.toml" || st=$?; status_is bad-value 2 $st
has bad-value.err "error: $work/bad-value.toml:2:10: \`shared = \"opnessl\"\` is no shared provider name" "  = valid: openssl, rustls, system, pure-rust, zlib-ng, none"
st=0; gw bad-flag -- --bogus || st=$?; status_is bad-flag 2 $st
# No provider of tls answers to rustls: the build fails, with Cargo's status and tls-a's error.
st=0; gw build-fails ${G}_TLS=rustls || st=$?; status_is build-fails 101 $st
has build-fails.err "error: tls-a@0.1.0: ${G}_TLS=rustls"
[ -s "$log/build-fails" ] && fail "build-fails: a report on standard output" || pass "build-fails: no report"
# A workspace of its own (its root stops Cargo's search upwards, so `cargo new` leaves flagsplit's
# workspace alone) with one new library.
mkdir -p "$work/empty"
printf '[workspace]\nmembers = ["lib"]\nresolver = "2"\n' >"$work/empty/Cargo.toml"
(cd "$work/empty" && cargo new --lib --vcs none --offline lib) >"$log/new" 2>&1 && pass "cargo new --lib" || { cat "$log/new"; fail "cargo new --lib"; }
st=0; fs empty "$work/empty" -- --offline || st=$?; status_is empty 0 $st
lines empty "no crate in this build uses flagsplit-config"
st=0; fs empty-check "$work/empty" -- --offline check --policy "$work/deny.toml" || st=$?; status_is empty-check 0 $st
lines empty-check "no crate in this build uses flagsplit-config"

# root NAME FEATURE-ARGS... — the report of flagsplit's own build (text, then JSON), compared with
# `flagsplit version --build-options` and readelf
root_case() {
	local name=$1 st line fac rest
	shift
	st=0; fs "$name" "$root" -- --locked --offline "$@" || st=$?; status_is "$name" 0 $st
	st=0; fs "$name-json" "$root" -- --locked --offline "$@" --json || st=$?; status_is "$name-json" 0 $st
	"$CARGO_TARGET_DIR/debug/flagsplit" version --build-options >"$log/$name.options" 2>&1 || fail "$name: flagsplit version --build-options"
	python3 - "$log/$name.options" "$log/$name" "$log/$name-json" >"$log/$name.compare" 2>&1 <<'EOF' || { grep -q '^FAIL: ' "$log/$name.compare" || fail "$name: the comparison failed: $(tail -1 "$log/$name.compare")"; }
import json, re, sys
options = [re.fullmatch(r"([a-z0-9-]+)-provider: (\S+) \(from (.*)\)", l) for l in open(sys.argv[1]).read().splitlines()]
options = [m.groups() for m in options if m]
text = open(sys.argv[2]).read().splitlines()
start = next(i for i, l in enumerate(text) if l.startswith("flagsplit v"))
end = next((i for i in range(start + 1, len(text)) if not text[i][:1] in ("├", "│", "└", " ")), len(text))
section = text[start:end]
r = json.load(open(sys.argv[3]))
facs = {f["name"]: f for c in r["crates"] if c["name"] == "flagsplit" for f in c["options"]["facilities"]}
bad = 0
for fac, prov, origin in options:
    f = facs.get(fac, {})
    want = f"{fac} (kind {f.get('kind')}): {prov}, from {origin}" if f.get("kind") else f"{fac}: {prov}, from {origin}"
    in_text = any(l[4:] == want for l in section)
    in_json = f.get("selected") == prov and f.get("origin") == origin
    print(("ok:   " if in_text and in_json else "FAIL: ") + f"{sys.argv[2].split('/')[-1]}: {fac}-provider: {prov} (from {origin}): text {'has' if in_text else 'lacks'} '{want}', json {'agrees' if in_json else 'differs: ' + str(f.get('selected')) + ' / ' + str(f.get('origin'))}")
    bad += not (in_text and in_json)
if len(options) != len(facs) or not options:
    print(f"FAIL: {len(options)} provider lines, {len(facs)} facilities of flagsplit in the report")
    bad += 1
sys.exit(1 if bad else 0)
EOF
	cat "$log/$name.compare"
	count_fails "$log/$name.compare"
	needed_is "$name-json" flagsplit "$CARGO_TARGET_DIR/debug/flagsplit"
	needed_is "$name-json" flagsplit-imap-send "$CARGO_TARGET_DIR/debug/flagsplit-imap-send"
}

note "flagsplit's workspace: the default build"
root_case root-default
st=0; fs root-default-policy "$root" -- --locked --offline check --policy packaging/policy.toml || st=$?; status_is root-default-policy 0 $st
has root-default-policy "policy packaging/policy.toml: holds"

note "flagsplit's workspace: --features openssl-tls"
root_case root-openssl-tls --features openssl-tls
json root-openssl-tls-json "flagsplit-imap-send links libssl, flagsplit does not" '"libssl.so.3" in exe("flagsplit-imap-send")["needed"] and not any(n.startswith("libssl") for n in exe("flagsplit")["needed"])'
st=0; fs root-openssl-tls-policy "$root" -- --locked --offline --features openssl-tls check --policy packaging/policy.toml || st=$?; status_is root-openssl-tls-policy 0 $st
has root-openssl-tls-policy "policy packaging/policy.toml: holds"
# policy-openssl.toml asks for the system zlib, which this build does not select.
st=0; fs root-openssl-tls-policy2 "$root" -- --locked --offline --features openssl-tls check --policy packaging/policy-openssl.toml || st=$?; status_is root-openssl-tls-policy2 1 $st
has root-openssl-tls-policy2 'error[policy]: flagsplit v0.1.0: facility `zlib` (kind zlib) selects zlib-rs, where the policy requires a provider answering to system' "  = origin: default (default)" \
	"  = fix: no such provider is compiled: turn on flagsplit's feature \`zlib-system\` (system) (an application's provider feature makes its provider the default)"

note "flagsplit's workspace: the OpenSSL build (openssl-tls, the OpenSSL hashes, zlib-system)"
ossl=(--no-default-features --features openssl-tls,openssl-sha1,openssl-sha256,openssl-md5,zlib-system)
root_case root-openssl "${ossl[@]}"
json root-openssl-json "zlib: system, from the application's feature" '[(f["selected"], f["origin_kind"]) for f in fac("flagsplit") if f["name"] == "zlib"] == [("system", "feature")]'
for p in policy policy-openssl; do
	st=0; fs "root-openssl-$p" "$root" -- --locked --offline "${ossl[@]}" check --policy "packaging/$p.toml" || st=$?; status_is "root-openssl-$p" 0 $st
	has "root-openssl-$p" "policy packaging/$p.toml: holds"
done

note "--messages: a build already made, without any flagsplit-config crate, and files that are gone"
cp /bin/ls "$work/tool"
printf '{"reason":"compiler-artifact","package_id":"path+file:///x#tool@0.1.0","target":{"kind":["bin"],"name":"tool"},"executable":"%s"}\n' "$work/tool" >"$work/messages.json"
printf '[[libraries]]\nlibrary = "libc"\nonly = []\n' >"$work/libc.toml"
st=0; fs messages-libc "$root" -- check --policy "$work/libc.toml" --messages "$work/messages.json" || st=$?; status_is messages-libc 1 $st
has messages-libc "no crate in this build uses flagsplit-config" 'error[policy]: executable `tool` links libc.so.6'
rm "$work/tool"
st=0; fs messages-gone "$root" -- check --policy "$work/libc.toml" --messages "$work/messages.json" || st=$?; status_is messages-gone 2 $st
grep -qF "error: the policy was not checked: 1 file(s) of the build could not be read" "$log/messages-gone.err" && pass "messages-gone: says the policy was not checked" || { cat "$log/messages-gone.err"; fail "messages-gone: no message"; }

note "PACKAGING.md's cargo flagsplit commands, as written there"
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	if (cd "$root" && eval "$cmd") >"$log/packaging-$i" 2>&1; then
		pass "PACKAGING.md: $cmd"
	else
		cat "$log/packaging-$i"
		fail "PACKAGING.md: $cmd"
	fi
done < <(awk '$0 == "<!-- cargo flagsplit commands -->" { f = 1; next } f && /^```/ { if (i) exit; i = 1; next } f && i { print }' PACKAGING.md)
[ "$i" -gt 0 ] || fail "PACKAGING.md has no cargo flagsplit commands"

note "the working tree"
status_after=$(git status --porcelain --untracked-files=all)
[ "$status_after" = "$status_before" ] && pass "git status: as before the run" || fail "git status changed: $(diff <(echo "$status_before") <(echo "$status_after"))"

echo
echo "cargo-flagsplit case: $(($(date +%s) - started)) s"
finish "cargo-flagsplit case"

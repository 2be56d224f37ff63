#!/usr/bin/env bash
# `cargo flagsplit` (crates/cargo-flagsplit), checked against what the builds decided, link and
# carry:
#
# - tests/graph-workspace: the text and --json reports for (a) nothing set, (b) RUST_BACKEND_TLS=openssl,
#   (c) (b) with TLS_B_TLS_PROVIDER=none, (d) `--target <host>` with <HOST>_RUST_BACKEND_TLS=openssl
#   (tls-a twice: the target's copy and app's build script's); graph-wide settings nothing reads
#   (the environment's and RUST_BACKEND_CONFIG's) as warnings;
# - `check --policy`: a [[deny]] broken (exit 1, naming the crate, the origin, the rule as a
#   snippet) and holding, a [[libraries]] rule broken naming the executable and the crate that
#   linked the library; the JSON document of a check, with the diagnostics' codes;
# - misspelt settings added to a build already made (a crate's variable in [env], a RUST_BACKEND_*
#   name in the shell): Cargo reruns no build script, `check` exits 1 naming each, with the name
#   meant;
# - Cargo's flags (--profile, --workspace, --bin, --target-dir, -j, --config, what follows `--`)
#   reach `cargo build` and `cargo metadata`, through a $CARGO that records its arguments;
# - flagsplit's own workspace: the report against `flagsplit version --build-options` and
#   `readelf -d` for the default build (and ring's archive carried by flagsplit-imap-send alone),
#   `--features openssl-tls` and the OpenSSL build; packaging/policy.toml and policy-openssl.toml
#   hold on them; a static libcrypto (RUST_BACKEND_LINK=static) and libz-sys's bundled zlib
#   (LIBZ_SYS_STATIC=1) break them;
# - tests/sys-workspace, whose crates know nothing of flagsplit-config: libssl and libcrypto from
#   openssl-sys and libz from libz-sys, each on the executable that carries it;
# - --messages: a build's saved messages hold; a file that is no message stream, half a stream, a
#   failed build's, another workspace's, and a stream older than its executables are refused
#   (exit 2); --build-env checks the build's environment;
# - bad input: a missing, invalid or mistyped policy file, an empty one, names that match nothing
#   (exit 2, FILE:LINE:COL, the name meant, the fix), a failing build (Cargo's status), a
#   workspace without flagsplit-config;
# - the time `cargo flagsplit` adds to a plain `cargo build` on a warm target directory.
#
# Usage: scripts/cargo-flagsplit-case.sh
# Target directory: target/cargo-flagsplit-case; scratch files (logs, policies, workspaces) in
# target/cargo-flagsplit-case/scratch, replaced at each run. A first `cargo fetch --locked` may
# use the network; every build after it runs --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
export CARGO_TARGET_DIR=$root/target/cargo-flagsplit-case
. scripts/lib/graph-workspace.sh
sys=$root/tests/sys-workspace

# record_copies DIR — stripped copies of flagsplit's four executables of the last build in DIR,
# each checked to carry a .note.flagsplit section of at most 2 KiB
record_copies() {
	local dir=$1 exe size
	rm -rf "$dir"
	mkdir -p "$dir"
	for exe in flagsplit flagsplit-fsck flagsplit-imap-send flagsplit-report; do
		strip -o "$dir/$exe" "$CARGO_TARGET_DIR/debug/$exe"
		size=$(readelf -SW "$dir/$exe" | sed -n 's/.*\.note\.flagsplit *NOTE *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
		if [ -n "$size" ] && [ $((16#$size)) -le 2048 ]; then
			pass "$exe (stripped): .note.flagsplit, $((16#$size)) bytes"
		else
			fail "$exe (stripped): no .note.flagsplit of at most 2048 bytes (${size:-none})"
		fi
	done
}

# cyclonedx_valid NAME — $log/NAME validates against CycloneDX 1.5's JSON schema, with the Python
# cyclonedx library's validator (in a virtual environment made at the first call)
cyclonedx_valid() {
	local venv=$CARGO_TARGET_DIR/cyclonedx-venv
	if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import cyclonedx.validation.json' 2>/dev/null; then
		rm -rf "$venv"
		python3 -m venv "$venv" && "$venv/bin/pip" install -q 'cyclonedx-python-lib[json-validation]>=7' >"$log/venv" 2>&1 ||
			{ fail "cannot install the cyclonedx validator (pip install cyclonedx-python-lib)"; cat "$log/venv"; return; }
	fi
	if "$venv/bin/python" - "$log/$1" >"$log/$1.validation" 2>&1 <<'PY'
import sys
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
errors = JsonStrictValidator(SchemaVersion.V1_5).validate_str(open(sys.argv[1]).read())
print(errors or "valid")
sys.exit(1 if errors else 0)
PY
	then pass "$1: valid CycloneDX 1.5"; else fail "$1: not valid CycloneDX 1.5"; cat "$log/$1.validation"; fi
}

# halves EXE CUT HALVED — two damaged copies of EXE: CUT ends in the middle of its build record,
# HALVED has the record's length halved in its note header
halves() {
	python3 - "$@" <<'PY'
import re, struct, subprocess, sys
exe, cut, halved = sys.argv[1:]
out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True).stdout
m = re.search(r"\.note\.flagsplit\s+NOTE\s+\S+\s+(\S+)\s+(\S+)", out)
off, size = int(m.group(1), 16), int(m.group(2), 16)
data = open(exe, "rb").read()
open(cut, "wb").write(data[: off + size // 2])
d = bytearray(data)
struct.pack_into("<I", d, off + 4, struct.unpack_from("<I", d, off + 4)[0] // 2)
open(halved, "wb").write(bytes(d))
PY
}

# doc_commands MARKER DOC DIR NAME — runs, in DIR, each line of DOC's block after MARKER, as
# written (output in $log/NAME-<n>), an ok/FAIL line each; sets doc_ran to how many ran
doc_commands() {
	local cmd
	doc_ran=0
	while IFS= read -r cmd; do
		doc_ran=$((doc_ran + 1))
		if (cd "$3" && eval "$cmd") >"$log/$4-$doc_ran" 2>&1; then
			pass "$2: $cmd"
		else
			cat "$log/$4-$doc_ran"
			fail "$2: $cmd"
		fi
	done < <(awk -v m="$1" '$0 == m { f = 1; next } f && /^```/ { if (i) exit; i = 1; next } f && i { print }' "$2")
}

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
	[ "$3" = "$2" ] && pass "$1: exit status $3" || { fail "$1: exit status $3, expected $2"; sed 's/^/  | /' "$log/$1" "$log/$1.err" | tail -60; }
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

# lacks NAME TEXT... — $log/NAME holds no TEXT
lacks() {
	local name=$1 t
	shift
	for t in "$@"; do
		grep -qF -- "$t" "$log/$name" && { fail "$name: has '$t'"; sed 's/^/  | /' "$log/$name"; } || pass "$name: no '$t'"
	done
}

# json NAME DESCRIPTION PYTHON-EXPRESSION — the expression holds on $log/NAME's JSON document, with
# `d` the document, `r` its report, fac(crate, build="target") a crate's facilities, exe(name) an
# executable, lib(exe, name) the library `name` (as -l takes it) an executable carries, codes()
# the diagnostics' codes
json() {
	local name=$1 desc=$2 expr=$3
	if python3 - "$log/$name" "$expr" <<'EOF'; then pass "$name: json: $desc"; else fail "$name: json: $desc"; fi
import json, sys
d = json.load(open(sys.argv[1]))
r = d["report"] or {}
def fac(name, build="target"):
    return [f for c in r["crates"] if c["name"] == name and c["build"] == build for f in c["options"]["facilities"]]
def exe(name):
    return [e for e in r["executables"] if e["name"] == name][0]
def lib(e, name):
    return [l for l in exe(e)["libraries"] if l["name"] == name]
def codes():
    return [x["code"] for x in d["diagnostics"]]
ok = eval(sys.argv[2])
if not ok:
    print("  | " + json.dumps(d)[:3000])
sys.exit(0 if ok else 1)
EOF
}

# count_fails FILE — adds the FAIL lines a python check printed to the failure count
count_fails() { local n; n=$(grep -c '^FAIL: ' "$1" || true); failures=$((failures + n)); }

# needed_is NAME EXE BIN — the report's NEEDED of EXE (JSON $log/NAME) is `readelf -d BIN`'s
needed_is() {
	local want got
	want=$(needed "$3" | paste -sd' ')
	got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["report"]; print(" ".join([e for e in r["executables"] if e["name"]==sys.argv[2]][0]["needed"]))' "$log/$1" "$2" 2>/dev/null || echo "(no $2)")
	[ "$got" = "$want" ] && pass "$1: $2 NEEDED as readelf says: $got" || fail "$1: $2 NEEDED '$got', readelf says '$want'"
}

note "cargo-flagsplit, and the crates (the one step that may use the network)"
if (cd "$ws" && cargo fetch --locked) >"$log/fetch" 2>&1 && (cd "$sys" && cargo fetch --locked) >>"$log/fetch" 2>&1 &&
	cargo fetch --locked >>"$log/fetch" 2>&1; then pass "cargo fetch --locked"; else cat "$log/fetch"; fail "cargo fetch --locked"; fi
if cargo build -p cargo-flagsplit --locked --offline >"$log/build-tool" 2>&1; then
	pass "cargo build -p cargo-flagsplit"
else
	cat "$log/build-tool"
	fail "cargo build -p cargo-flagsplit"
	finish "cargo-flagsplit case"
fi
export PATH=$CARGO_TARGET_DIR/debug:$PATH
cargo flagsplit --help >"$log/help" 2>&1 && pass "cargo flagsplit --help: $(sed -n 1p "$log/help")" || fail "cargo flagsplit --help"
has help "--profile <PROFILE-NAME>" "--exclude <SPEC>" "--messages <FILE>" "--build-env <FILE>" "-D, --deny <warnings>" \
	"  library-not-allowed" "  foreign-messages" "[-- [CARGO-ARGS]...]"

note "(a) nothing set"
st=0; gw a || st=$?; status_is a 0 $st
lines a "tls-a v0.1.0 (library, $host)" "tls-b v0.1.0 (library, $host)" "zlib-c v0.1.0 (library, $host)" \
	"2*└── tls (kind tls): none, from default" "2*    compiled: none, openssl (unselected)" \
	"└── inflate (kind zlib): pure-rust, from default" "    compiled: pure-rust, system (unselected)" "app (executable)"
lacks a "settings:" "libssl"
st=0; gw a-json -- --json || st=$?; status_is a-json 0 $st
json a-json "schema 2, a report, four crates, the target copies" 'd["schema"] == 2 and d["command"] == "report" and d["outcome"] == "reported" and sorted(c["name"] for c in r["crates"]) == ["tls-a", "tls-b", "xz-d", "zlib-c"] and all(c["build"] == "target" for c in r["crates"])'
json a-json "tls none, inflate pure-rust, from default" 'all(f["selected"] == "none" and f["origin_kind"] == "default" for f in fac("tls-a") + fac("tls-b")) and fac("zlib-c")[0]["selected"] == "pure-rust"'
json a-json "no settings, no diagnostics" 'r["settings"] == [] and d["diagnostics"] == []'
needed_is a-json app "$CARGO_TARGET_DIR/debug/app"

note "(b) ${G}_TLS=openssl: both TLS libraries, from the graph-wide setting and linked by tls-a and tls-b"
st=0; gw b ${G}_TLS=openssl || st=$?; status_is b 0 $st
lines b "2*├── tls (kind tls): openssl, from graph-wide ${G}_TLS" "2*│   compiled: none, openssl" \
	"└── inflate (kind zlib): pure-rust, from default" "settings: ${G}_TLS=openssl"
has b "├── needed: libssl.so.3 libcrypto.so.3" "libssl.so.3: dynamic, linked by tls-a v0.1.0 (rustc-link-lib=ssl), tls-b v0.1.0 (rustc-link-lib=ssl)"
st=0; gw b-json ${G}_TLS=openssl -- --json || st=$?; status_is b-json 0 $st
json b-json "tls-a and tls-b: openssl, graph-variable ${G}_TLS" 'all(f["selected"] == "openssl" and f["origin"] == "graph-wide RUST_BACKEND_TLS" and f["origin_kind"] == "graph-variable" for f in fac("tls-a") + fac("tls-b"))'
json b-json "the setting, read by both" 'r["settings"] == [{"name": "RUST_BACKEND_TLS", "value": "openssl", "source": "environment", "at": None, "key": "tls", "read_by": ["tls-a", "tls-b"]}]'
json b-json "libssl and libcrypto dynamic, linked by tls-a and tls-b, found by them with pkg-config" 'all(l["link"] == "dynamic" and not l["bundled"] and sorted(b["package"] for b in l["linked_by"]) == ["tls-a", "tls-b"] and len(l["found_by"]) == 2 for n in ("ssl", "crypto") for l in lib("app", n))'
needed_is b-json app "$CARGO_TARGET_DIR/debug/app"

note "a kind of a library's own (xz-d's xz), and settings of kinds no crate has"
st=0; gw xz ${G}_XZ=system ${G}_BLAKE3=portable ${G}_NOSUCHKIND=system || st=$?; status_is xz 0 $st
lines xz "xz-d v0.1.0 (library, $host)" "├── decompress (kind xz): liblzma, from graph-wide ${G}_XZ" "│   compiled: none, liblzma" \
	"└── libraries: liblzma $(pkg-config --modversion liblzma), dynamic, located by pkg-config (liblzma)"
has xz "liblzma.so.5: dynamic, linked by xz-d v0.1.0 (rustc-link-lib=lzma)"
has xz.err "warning[unread-setting]: ${G}_BLAKE3=portable: no crate of this build has a facility of kind blake3, so nothing reads it" \
	"warning[unread-setting]: ${G}_NOSUCHKIND=system: no crate of this build has a facility of kind nosuchkind, so nothing reads it"
st=0; gw xz-json ${G}_XZ=system -- --json || st=$?; status_is xz-json 0 $st
json xz-json "xz-d's facility of kind xz, from RUST_BACKEND_XZ; the setting read by xz-d" '[(f["kind"], f["selected"], f["origin_kind"]) for f in fac("xz-d")] == [("xz", "liblzma", "graph-variable")] and {"name": "RUST_BACKEND_XZ", "value": "system", "source": "environment", "at": None, "key": "xz", "read_by": ["xz-d"]} in r["settings"]'
st=0; fs root-open-kinds "$root" ${G}_BLAKE3=portable ${G}_NOSUCHKIND=system -- --locked --offline || st=$?; status_is root-open-kinds 0 $st
has root-open-kinds.err "warning[unread-setting]: ${G}_BLAKE3=portable" "warning[unread-setting]: ${G}_NOSUCHKIND=system"

note "check: a [[deny]] broken by ${G}_TLS=openssl, holding without it; a [[libraries]] rule"
printf '[[deny]]\nshared = "openssl"\nkind = "tls"\nreason = "TLS through rustls only"\n' >"$work/deny.toml"
st=0; gw deny ${G}_TLS=openssl -- check --policy "$work/deny.toml" || st=$?; status_is deny 1 $st
lines deny.err 'error[denied-provider]: tls-a v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies' \
	'error[denied-provider]: tls-b v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies' \
	"2* --> $work/deny.toml:2:10" '2*2 | shared = "openssl"' "2*  |          ^^^^^^^^^ denied here" \
	"2*  = origin: graph-wide ${G}_TLS" "2*  = reason: TLS through rustls only" \
	"policy $work/deny.toml: broken: 2 error(s), 0 warning(s) (1 rule(s), 4 crate(s), 1 executable(s))"
has deny.err "= fix: ${G}_TLS chose it for every facility of kind tls: change or unset it, or set TLS_A_TLS_PROVIDER=<one of: none> for this crate alone"
[ -s "$log/deny" ] && fail "deny: something on standard output" || pass "deny: every diagnostic on standard error"
st=0; gw deny-json ${G}_TLS=openssl -- --json check --policy "$work/deny.toml" || st=$?; status_is deny-json 1 $st
json deny-json "a check document: broken, two denied-provider errors with their places" 'd["command"] == "check" and d["outcome"] == "broken" and d["errors"] == 2 and codes() == ["denied-provider", "denied-provider"] and all(x["location"] == sys.argv[1].rsplit("/", 2)[0] + "/deny.toml:2:10" and x["severity"] == "error" for x in d["diagnostics"])'
[ -s "$log/deny-json.err" ] && grep -q '^error\[' "$log/deny-json.err" && fail "deny-json: a diagnostic on standard error" || pass "deny-json: the diagnostics in the document only"
printf '[[libraries]]\nlibrary = "libssl"\nonly = []\n' >"$work/libssl.toml"
st=0; gw libssl ${G}_TLS=openssl -- check --policy "$work/libssl.toml" || st=$?; status_is libssl 1 $st
has libssl.err 'error[library-not-allowed]: executable `app` carries libssl (dynamic, libssl.so.3), which the policy lets no executable carry' \
	"= carried: NEEDED libssl.so.3" "= linked by: tls-a v0.1.0's build script (rustc-link-lib=ssl)" \
	"= selected by: tls-a v0.1.0: \`tls\` = openssl (from graph-wide ${G}_TLS)"
st=0; gw deny-unset -- check --policy "$work/deny.toml" || st=$?; status_is deny-unset 0 $st
has deny-unset.err "policy $work/deny.toml: holds (1 rule(s), 4 crate(s), 1 executable(s); 0 warning(s))"
st=0; gw libssl-unset -- check --policy "$work/libssl.toml" || st=$?; status_is libssl-unset 0 $st
has libssl-unset.err 'warning[absent-name]: `library = "libssl"` matches nothing in this build: no executable of this build carries libssl'
st=0; gw libssl-unset-D -- check --policy "$work/libssl.toml" -D warnings || st=$?; status_is libssl-unset-D 1 $st
has libssl-unset-D.err 'error[absent-name]:' "policy $work/libssl.toml: broken: 1 error(s)"

note "graph-wide settings nothing reads: ${G}_ZSTD, and a zstd entry of ${G}_CONFIG"
printf 'zstd = "pure-rust"\ntls = "openssl"\n' >"$work/backends.toml"
st=0; gw unread ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" || st=$?; status_is unread 0 $st
lines unread "2*├── tls (kind tls): openssl, from graph-wide $work/backends.toml:2:7"
lines unread.err "warning[unread-setting]: ${G}_ZSTD=system: no crate of this build has a facility of kind zstd, so nothing reads it" \
	"warning[unread-setting]: zstd = \"pure-rust\": no crate of this build has a facility of kind zstd, so nothing reads it" " --> $work/backends.toml:1:1"
lacks unread.err "tls = \"openssl\":"
st=0; gw unread-check ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" -- check --policy "$work/libssl.toml" || st=$?; status_is unread-check 1 $st
has unread-check.err "warning[unread-setting]: ${G}_ZSTD=system: no crate of this build has a facility of kind zstd, so nothing reads it"
st=0; gw unread-json ${G}_ZSTD=system ${G}_CONFIG="$work/backends.toml" -- --json || st=$?; status_is unread-json 0 $st
json unread-json "RUST_BACKEND_ZSTD and the file's zstd unread, tls read" '[(s["name"], bool(s["read_by"])) for s in r["settings"]] == [("RUST_BACKEND_CONFIG", True), ("RUST_BACKEND_ZSTD", False), ("zstd", False), ("tls", True)] and codes() == ["unread-setting", "unread-setting"]'

note "(c) tls-b's own variable beats the graph-wide setting"
st=0; gw c ${G}_TLS=openssl TLS_B_TLS_PROVIDER=none || st=$?; status_is c 0 $st
lines c "1*├── tls (kind tls): openssl, from graph-wide ${G}_TLS" "1*└── tls (kind tls): none, from TLS_B_TLS_PROVIDER"
st=0; gw c-json ${G}_TLS=openssl TLS_B_TLS_PROVIDER=none -- --json || st=$?; status_is c-json 0 $st
json c-json "tls-a openssl (graph-variable), tls-b none (variable)" 'fac("tls-a")[0]["selected"] == "openssl" and fac("tls-a")[0]["origin_kind"] == "graph-variable" and fac("tls-b")[0]["selected"] == "none" and fac("tls-b")[0]["origin"] == "TLS_B_TLS_PROVIDER" and fac("tls-b")[0]["origin_kind"] == "variable"'
json c-json "app carries libssl, linked by tls-a alone" '[b["package"] for l in lib("app", "ssl") for b in l["linked_by"]] == ["tls-a"]'
json c-json "TLS_B_TLS_PROVIDER listed, read by tls-b" '{"name": "TLS_B_TLS_PROVIDER", "value": "none", "source": "environment", "at": None, "key": None, "read_by": ["tls-b"]} in r["settings"]'

note "misspelt settings added to a build already made: a crate's variable in [env], ${G}_* in the shell"
app=$work/app
mkdir -p "$app/.cargo"
printf '[env]\nTLS_B_TLS_PROVIDER = "none"\n' >"$app/.cargo/config.toml"
st=0; fs built "$app" -- --manifest-path "$ws/Cargo.toml" --locked --offline || st=$?; status_is built 0 $st
printf 'TLS_A_TLS_PROVIDR = "none"\n' >>"$app/.cargo/config.toml"
# Cargo reruns no build script: nothing it watches changed.
(cd "$app" && env "${G}_ZLIBB=system" cargo build --manifest-path "$ws/Cargo.toml" --locked --offline --message-format=json) >"$log/rebuilt" 2>"$log/rebuilt.err" || fail "misspelt: cargo build"
fresh=$(python3 -c 'import json,sys; m=[json.loads(l) for l in open(sys.argv[1])]; a=[x for x in m if x["reason"]=="compiler-artifact"]; print(sum(not x["fresh"] for x in a), len(a))' "$log/rebuilt")
[ "${fresh%% *}" = 0 ] && pass "misspelt: cargo build reran nothing (${fresh#* } units fresh)" || fail "misspelt: cargo build rebuilt ${fresh%% *} of ${fresh#* } units"
st=0; fs misspelt "$app" ${G}_ZLIBB=system -- --manifest-path "$ws/Cargo.toml" --locked --offline check --policy "$work/deny.toml" || st=$?; status_is misspelt 1 $st
has misspelt.err "error[unknown-variable]: \`TLS_A_TLS_PROVIDR\` has tls-a's prefix, but tls-a reads no such variable" \
	" --> $app/.cargo/config.toml:3:1" "= help: did you mean TLS_A_TLS_PROVIDER?" \
	"error[unknown-setting]: \`${G}_ZLIBB\` is no setting any crate of this build reads" "= help: did you mean ${G}_ZLIB?" \
	"policy $work/deny.toml: broken: 2 error(s), 0 warning(s)"
lacks misspelt.err "TLS_B_TLS_PROVIDER"
# In a report the same names are warnings; a name close to a crate's with its prefix misspelt too.
st=0; fs misspelt-report "$app" ${G}_ZLIBB=system TL_B_TLS_PROVIDER=none -- --manifest-path "$ws/Cargo.toml" --locked --offline || st=$?; status_is misspelt-report 0 $st
has misspelt-report.err "warning[unknown-variable]: \`TLS_A_TLS_PROVIDR\`" "warning[unknown-setting]: \`${G}_ZLIBB\`" \
	"warning[unknown-variable]: \`TL_B_TLS_PROVIDER\` is no variable any crate of this build reads" "= help: did you mean TLS_B_TLS_PROVIDER?"
has misspelt-report "TLS_B_TLS_PROVIDER=none ([env] at $app/.cargo/config.toml:2:1)"

note "Cargo's flags reach cargo build and cargo metadata (a \$CARGO that records its arguments)"
cat >"$work/cargo-stub" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$log/cargo-args"
exec cargo "\$@"
EOF
chmod +x "$work/cargo-stub"
rm -f "$log/cargo-args"
# cargo-flagsplit itself: Cargo would set CARGO to its own path for `cargo flagsplit`.
st=0; (cd "$root" && CARGO=$work/cargo-stub cargo-flagsplit flagsplit --manifest-path "$ws/Cargo.toml" --locked --offline \
	--profile ci --config 'profile.ci.inherits="dev"' --workspace --exclude zlib-c --bin app --target-dir "$work/td" -j 1 \
	--json -- --quiet) >"$log/flags" 2>"$log/flags.err" || st=$?; status_is flags 0 $st
has cargo-args "build --message-format=json-render-diagnostics --manifest-path $ws/Cargo.toml --exclude zlib-c --profile ci --bin app --target-dir $work/td --jobs 1 --config profile.ci.inherits=\"dev\" --workspace --locked --offline --quiet" \
	"metadata --format-version 1 --no-deps --manifest-path $ws/Cargo.toml --config profile.ci.inherits=\"dev\" --locked --offline" \
	"metadata --format-version 1 --features tls-a/openssl,tls-b/openssl,xz-d/system,zlib-c/system --no-default-features --manifest-path $ws/Cargo.toml --config profile.ci.inherits=\"dev\" --locked --offline --filter-platform $host"
json flags "app built with the ci profile into the --target-dir" "exe('app')['path'] == '$work/td/ci/app'"

note "(d) --target $host: tls-a twice, both selected by ${HOST}_${G}_TLS"
st=0; gw d "${HOST}_${G}_TLS=openssl" -- --target "$host" || st=$?; status_is d 0 $st
lines d "1*tls-a v0.1.0 (library, $host)" "1*tls-a v0.1.0 (library, $host, host copy for build scripts)" \
	"3*├── tls (kind tls): openssl, from graph-wide ${HOST}_${G}_TLS" "settings: ${HOST}_${G}_TLS=openssl"
st=0; gw d-json "${HOST}_${G}_TLS=openssl" -- --target "$host" --json || st=$?; status_is d-json 0 $st
json d-json "tls-a: a target and a host copy, both openssl from ${HOST}_${G}_TLS" "sorted(c['build'] for c in r['crates'] if c['name'] == 'tls-a') == ['host', 'target'] and all(f['selected'] == 'openssl' and f['origin'] == 'graph-wide ${HOST}_${G}_TLS' for f in fac('tls-a') + fac('tls-a', 'host') + fac('tls-b'))"
json d-json "the host copy's OUT_DIR outside $host/" "all(('/$host/' in c['out_dir']) == (c['build'] == 'target') for c in r['crates'])"
needed_is d-json app "$CARGO_TARGET_DIR/$host/debug/app"

note "bad input: the policy file"
st=0; gw missing -- check --policy "$work/nonexistent.toml" || st=$?; status_is missing 2 $st
has missing.err "error[policy-unreadable]: cannot read the policy file $work/nonexistent.toml: No such file or directory" "= fix: give an existing TOML file with --policy"
printf '[[deny]]\nprovider = "rustls\n' >"$work/invalid.toml"
st=0; gw invalid -- check --policy "$work/invalid.toml" || st=$?; status_is invalid 2 $st
has invalid.err "error[policy-syntax]: invalid TOML: invalid character in string" " --> $work/invalid.toml:2:19" "= fix: correct the TOML syntax at that position"
printf '[[deny]]\nprovider = "rustls"\nkinds = "tls"\n' >"$work/unknown-key.toml"
st=0; gw unknown-key -- check --policy "$work/unknown-key.toml" || st=$?; status_is unknown-key 2 $st
has unknown-key.err "error[policy-key]: unknown key \`kinds\` in [[deny]]" " --> $work/unknown-key.toml:3:1" "= help: did you mean \`kind\`?" \
	"= note: the keys of [[deny]] are provider, shared, property, kind, crate, reason" "= fix: remove \`kinds\` or use one of the valid keys"
printf '[[allow]]\nprovider = "rustls"\n' >"$work/unknown-table.toml"
st=0; gw unknown-table -- check --policy "$work/unknown-table.toml" || st=$?; status_is unknown-table 2 $st
has unknown-table.err "error[policy-key]: unknown table \`allow\`" " --> $work/unknown-table.toml:1:3" "= note: the rule tables are deny, require, libraries"
printf '[[libraries]]\nlibrary = "libssl"\nonly = "app"\n' >"$work/wrong-type.toml"
st=0; gw wrong-type -- check --policy "$work/wrong-type.toml" || st=$?; status_is wrong-type 2 $st
has wrong-type.err "error[policy-type]: \`only\` in [[libraries]] must be an array of strings, found string" " --> $work/wrong-type.toml:3:8" "= fix: write it as only = [\"flagsplit-imap-send\"]"
printf '[[deny]]\nshared = "opnessl"\n' >"$work/bad-value.toml"
st=0; gw bad-value -- check --policy "$work/bad-value.toml" || st=$?; status_is bad-value 2 $st
has bad-value.err "error[policy-value]: \`shared = \"opnessl\"\` is no shared provider name" " --> $work/bad-value.toml:2:10" \
	"= help: did you mean \`openssl\`?" "= note: the values are openssl, rustls, system, pure-rust, zlib-ng, none"
: >"$work/empty.toml"
st=0; gw empty-policy -- check --policy "$work/empty.toml" || st=$?; status_is empty-policy 2 $st
has empty-policy.err "error[policy-empty]: the policy $work/empty.toml has no rule: it would hold for any build"
printf '[[deny]]\nshared = "openssl"\ncrate = "tls-aa"\n' >"$work/crate-typo.toml"
st=0; gw crate-typo -- check --policy "$work/crate-typo.toml" || st=$?; status_is crate-typo 2 $st
has crate-typo.err "error[unknown-name]: \`crate = \"tls-aa\"\`: no crate of this build, nor of Cargo.lock, has that name" " --> $work/crate-typo.toml:3:9" "= help: did you mean \`tls-a\`?"
st=0; gw bad-flag -- --bogus || st=$?; status_is bad-flag 2 $st
st=0; gw bad-D -- -D everything || st=$?; status_is bad-D 2 $st
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
# A policy about facilities, on a build that has none, checks nothing: refused, not held.
st=0; fs empty-check "$work/empty" -- --offline check --policy "$work/deny.toml" || st=$?; status_is empty-check 2 $st
has empty-check.err "error[no-match]: [[deny]] shared = \"openssl\", kind = \"tls\": no facility of this build matches it, so it checks nothing"

# root NAME [VAR=...]... -- FEATURE-ARGS... — the report of flagsplit's own build (text, then JSON),
# compared with `flagsplit version --build-options` and readelf
root_case() {
	local name=$1 st vars=()
	shift
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	shift
	st=0; fs "$name" "$root" "${vars[@]}" -- --locked --offline "$@" || st=$?; status_is "$name" 0 $st
	st=0; fs "$name-json" "$root" "${vars[@]}" -- --locked --offline "$@" --json || st=$?; status_is "$name-json" 0 $st
	"$CARGO_TARGET_DIR/debug/flagsplit" version --build-options >"$log/$name.options" 2>&1 || fail "$name: flagsplit version --build-options"
	python3 - "$log/$name.options" "$log/$name" "$log/$name-json" >"$log/$name.compare" 2>&1 <<'EOF' || { grep -q '^FAIL: ' "$log/$name.compare" || fail "$name: the comparison failed: $(tail -1 "$log/$name.compare")"; }
import json, re, sys
options = [re.fullmatch(r"([a-z0-9-]+)-provider: (\S+) \(from (.*)\)", l) for l in open(sys.argv[1]).read().splitlines()]
options = [m.groups() for m in options if m]
text = open(sys.argv[2]).read().splitlines()
start = next(i for i, l in enumerate(text) if l.startswith("flagsplit v"))
end = next((i for i in range(start + 1, len(text)) if not text[i][:1] in ("├", "│", "└", " ")), len(text))
section = text[start:end]
r = json.load(open(sys.argv[3]))["report"]
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

# symbols_of ARCHIVE EXE — as readelf sees them: how many of the global symbols the archive's objects
# define EXE defines too, global there unless the archive's visibility made them local
symbols_of() {
	python3 - "$1" "$2" <<'EOF'
import subprocess, sys
def symbols(path):
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            yield f[4], f[5], f[6], f[7]
archive, exe = {}, {}
for bind, vis, ndx, name in symbols(sys.argv[1]):
    if bind in ("GLOBAL", "WEAK") and ndx != "UND":
        archive[name] = archive.get(name, False) or vis != "DEFAULT"
for bind, vis, ndx, name in symbols(sys.argv[2]):
    if ndx != "UND":
        exe[name] = exe.get(name, False) or bind != "LOCAL"
print(sum(1 for n, hidden in archive.items() if n in exe and (hidden or exe[n])))
EOF
}

note "flagsplit's workspace: the default build (ring's archive in the sender alone)"
root_case root-default --
json root-default-json "ring's static archive: carried by flagsplit-imap-send, bundled, linked by ring; by no other executable" \
	'[(l["link"], l["bundled"], l["held"], l["linked_by"][0]["package"]) for l in lib("flagsplit-imap-send", "ring_core_0_17_14_")] == [("static", True, "yes", "ring")] and not any(lib(e, "ring_core_0_17_14_") for e in ("flagsplit", "flagsplit-fsck", "flagsplit-report"))'
ring_archive=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["report"]; print([l for e in r["executables"] for l in e["libraries"] if l["name"].startswith("ring_core")][0]["archive"])' "$log/root-default-json" 2>/dev/null || true)
if [ -f "$ring_archive" ]; then
	n=$(symbols_of "$ring_archive" "$CARGO_TARGET_DIR/debug/flagsplit-imap-send")
	has root-default "libring_core_0_17_14_.a: static, bundled, linked by ring v0.17.14 (rustc-link-lib=static=ring_core_0_17_14_): $n of the archive's"
	[ "$(symbols_of "$ring_archive" "$CARGO_TARGET_DIR/debug/flagsplit")" = 0 ] && pass "root-default: nm finds none of ring's symbols in flagsplit" || fail "root-default: nm finds ring's symbols in flagsplit"
else
	fail "root-default: no ring archive in the report"
fi
st=0; fs root-default-policy "$root" -- --locked --offline check --policy packaging/policy.toml || st=$?; status_is root-default-policy 0 $st
has root-default-policy.err "policy packaging/policy.toml: holds (4 rule(s), 1 crate(s), 4 executable(s); 4 warning(s))" \
	'warning[absent-name]: `library = "libcrypto"` matches nothing in this build: no executable of this build carries libcrypto'

note "the build record inside flagsplit's default executables, stripped: inspect, check --binaries"
bins=$work/bins-default
record_copies "$bins"
st=0; fs inspect-default "$root" -- inspect "$bins" || st=$?; status_is inspect-default 0 $st
lines inspect-default "$bins/flagsplit: 1 build record(s) (.note.flagsplit)" \
	"    sha1 = dc (default), guarantees: collision-detection" "    tls = rustls (default with feature rustls-tls)"
lacks inspect-default "C library"
st=0; fs inspect-default-json "$root" -- inspect --format json "$bins/flagsplit-imap-send" || st=$?; status_is inspect-default-json 0 $st
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["binaries"][0]; f={x["name"]: x for x in b["crates"][0]["facilities"]}; sys.exit(not (b["record"] == "section" and f["tls"]["selected"] == "rustls" and f["tls"]["origin_name"] == "rustls-tls" and f["sha1"]["kind"] == "sha1"))' "$log/inspect-default-json" &&
	pass "inspect-default-json: the record's section, tls = rustls from feature rustls-tls, sha1's kind" || fail "inspect-default-json: not the record expected"
st=0; fs bins-default-policy "$root" -- check --policy packaging/policy.toml --binaries "$bins" || st=$?; status_is bins-default-policy 0 $st
has bins-default-policy.err "policy packaging/policy.toml: holds (4 rule(s), 1 crate(s), 4 executable(s); 4 warning(s))"
# An executable without a record cannot be judged unless the policy allows it.
st=0; fs bins-no-record "$root" -- check --policy packaging/policy.toml --binaries "$(command -v readelf)" || st=$?; status_is bins-no-record 2 $st
has bins-no-record.err "error[no-record]: $(command -v readelf) carries no build record" "without-record = \"allow\""
printf '[binaries]\nwithout-record = "allow"\n\n[[libraries]]\nlibrary = "libssl"\nonly = ["flagsplit-imap-send"]\n' >"$work/allow.toml"
st=0; fs bins-allowed "$root" -- check --policy "$work/allow.toml" --binaries "$(command -v readelf)" "$bins/flagsplit" || st=$?; status_is bins-allowed 0 $st
printf '[binaries]\nwithout-record = "always"\n\n[[libraries]]\nlibrary = "libssl"\nlink = "dynamic"\n' >"$work/allow-bad.toml"
st=0; fs bins-allow-bad "$root" -- check --policy "$work/allow-bad.toml" --binaries "$bins" || st=$?; status_is bins-allow-bad 2 $st
has bins-allow-bad.err "error[policy-value]:" "$work/allow-bad.toml:2:19"
# Damaged copies: a clear error for that file, and the others still shown.
halves "$bins/flagsplit" "$work/flagsplit-cut" "$work/flagsplit-halved"
st=0; fs inspect-cut "$root" -- inspect "$work/flagsplit-cut" "$work/flagsplit-halved" "$bins/flagsplit-fsck" || st=$?; status_is inspect-cut 1 $st
has inspect-cut "$work/flagsplit-cut: error: cannot read the build records of $work/flagsplit-cut: its section headers cannot be read" \
	"the file is truncated or damaged" "$work/flagsplit-halved: error: " "the file is damaged" "$bins/flagsplit-fsck: 1 build record(s)"
has inspect-cut.err "error: 2 of 3 file(s) could not be read"
st=0; fs bins-cut "$root" -- check --policy packaging/policy.toml --binaries "$work/flagsplit-halved" || st=$?; status_is bins-cut 2 $st
has bins-cut.err "error[unreadable-record]: $work/flagsplit-halved:"
st=0; fs inspect-not-elf "$root" -- inspect "$root/README.md" || st=$?; status_is inspect-not-elf 1 $st
has inspect-not-elf "not an ELF file (no ELF magic number)"

note "flagsplit's workspace: names that match nothing (exit 2, with the name meant)"
printf '[[deny]]\nshared = "openssl"\ncrate = "flagspilt"\n' >"$work/flagspilt.toml"
st=0; fs flagspilt "$root" -- --locked --offline check --policy "$work/flagspilt.toml" || st=$?; status_is flagspilt 2 $st
has flagspilt.err "error[unknown-name]: \`crate = \"flagspilt\"\`: no crate of this build, nor of Cargo.lock, has that name" "= help: did you mean \`flagsplit\`?" \
	"policy $work/flagspilt.toml: not checked: the input cannot be trusted (1 error(s))"
printf '[[deny]]\nprovider = "opensll"\nkind = "sha1"\n' >"$work/opensll.toml"
st=0; fs opensll "$root" -- --locked --offline check --policy "$work/opensll.toml" || st=$?; status_is opensll 2 $st
has opensll.err "error[unknown-name]: \`provider = \"opensll\"\`: no facility of this build has a provider of that name, nor is it a shared name" \
	" --> $work/opensll.toml:2:12" "= help: did you mean \`openssl\`?"
printf '[[libraries]]\nlibrary = "libcrypto"\nonly = ["flagsplit-imap-sned"]\n' >"$work/sned.toml"
st=0; fs sned "$root" -- --locked --offline check --policy "$work/sned.toml" || st=$?; status_is sned 2 $st
has sned.err "error[unknown-name]: \`only = \"flagsplit-imap-sned\"\`: the workspace has no executable of that name" "= help: did you mean \`flagsplit-imap-send\`?"

note "flagsplit's workspace: a property required (sha1dc declares collision-detection, block does not)"
printf '[[require]]\nkind = "sha1"\nproperty = "collision-detection"\nreason = "untrusted objects"\n' >"$work/dc.toml"
st=0; fs property-dc "$root" -- --locked --offline check --policy "$work/dc.toml" || st=$?; status_is property-dc 0 $st
has property-dc.err "policy $work/dc.toml: holds (1 rule(s), 1 crate(s)"
json root-default-json "sha1dc declares collision-detection in the report" '[p["properties"] for f in fac("flagsplit") if f["name"] == "sha1" for p in f["providers"] if p["name"] == "dc"] == [["collision-detection"]]'
st=0; fs property-block "$root" FLAGSPLIT_SHA1_PROVIDER=block -- --locked --offline check --policy "$work/dc.toml" || st=$?; status_is property-block 1 $st
has property-block.err 'error[required-provider]: flagsplit v0.1.0: facility `sha1` (kind sha1) selects block, where the policy requires a provider with the property collision-detection' \
	"= origin: FLAGSPLIT_SHA1_PROVIDER" "= reason: untrusted objects" "= fix: select it: FLAGSPLIT_SHA1_PROVIDER=dc"

note "flagsplit's workspace: --features openssl-tls"
root_case root-openssl-tls -- --features openssl-tls
json root-openssl-tls-json "flagsplit-imap-send carries libssl from openssl-sys, flagsplit does not" '[l["linked_by"][0]["package"] for l in lib("flagsplit-imap-send", "ssl")] == ["openssl-sys"] and not lib("flagsplit", "ssl")'
st=0; fs root-openssl-tls-policy "$root" -- --locked --offline --features openssl-tls check --policy packaging/policy.toml || st=$?; status_is root-openssl-tls-policy 0 $st
has root-openssl-tls-policy.err "policy packaging/policy.toml: holds"
# policy-openssl.toml asks for the system zlib, which this build does not select.
st=0; fs root-openssl-tls-policy2 "$root" -- --locked --offline --features openssl-tls check --policy packaging/policy-openssl.toml || st=$?; status_is root-openssl-tls-policy2 1 $st
has root-openssl-tls-policy2.err 'error[required-provider]: flagsplit v0.1.0: facility `zlib` (kind zlib) selects zlib-rs, where the policy requires a provider answering to system' "= origin: default" \
	"= fix: no such provider is compiled: turn on flagsplit's feature \`zlib-system\` (system) (an application's provider feature makes its provider the default)"

note "flagsplit's workspace: the OpenSSL build (openssl-tls, the OpenSSL hashes, zlib-system)"
ossl=(--no-default-features --features openssl-tls,openssl-sha1,openssl-sha256,openssl-md5,zlib-system)
root_case root-openssl -- "${ossl[@]}"
json root-openssl-json "zlib: system, from the application's feature" '[(f["selected"], f["origin_kind"]) for f in fac("flagsplit") if f["name"] == "zlib"] == [("system", "feature")]'
json root-openssl-json "libz dynamic on flagsplit, linked by libz-sys, found by flagsplit; not on the sender" '[(l["link"], l["linked_by"][0]["package"], l["found_by"][0]["package"]) for l in lib("flagsplit", "z")] == [("dynamic", "libz-sys", "flagsplit")] and not lib("flagsplit-imap-send", "z")'
st=0; fs root-openssl-policy "$root" -- --locked --offline "${ossl[@]}" check --policy packaging/policy-openssl.toml || st=$?; status_is root-openssl-policy 0 $st
has root-openssl-policy.err "policy packaging/policy-openssl.toml: holds (4 rule(s), 1 crate(s), 4 executable(s); 0 warning(s))"
# The rustls choice's policy refuses libcrypto on flagsplit, which this choice hashes with.
st=0; fs root-openssl-rustls-policy "$root" -- --locked --offline "${ossl[@]}" check --policy packaging/policy.toml || st=$?; status_is root-openssl-rustls-policy 1 $st
has root-openssl-rustls-policy.err 'error[library-not-allowed]: executable `flagsplit` carries libcrypto (dynamic, libcrypto.so.3), which only flagsplit-imap-send may carry'

note "a static libcrypto (${G}_LINK=static, --features openssl-sha1) breaks packaging/policy.toml"
st=0; fs static-crypto "$root" ${G}_LINK=static -- --locked --offline --features openssl-sha1 check --policy packaging/policy.toml || st=$?; status_is static-crypto 1 $st
crypto_archive=$(sed -n 's/^ *= archive: //p' "$log/static-crypto.err" | head -1)
[ -f "$crypto_archive" ] && pass "static-crypto: the archive, $crypto_archive" || fail "static-crypto: no archive named"
# flagsplit-report too: the root library's rlib carries libcrypto's objects, and the report links it.
for exe in flagsplit flagsplit-fsck flagsplit-report; do
	n=$(symbols_of "$crypto_archive" "$CARGO_TARGET_DIR/debug/$exe" 2>/dev/null || echo '?')
	has static-crypto.err "error[library-not-allowed]: executable \`$exe\` carries libcrypto (static, libcrypto.a), which only flagsplit-imap-send may carry" \
		"error[library-link-mode]: executable \`$exe\` carries libcrypto (static, libcrypto.a), where the policy allows it only as a shared library" \
		"= carried: $n of the archive's"
done
has static-crypto.err "= linked by: flagsplit v0.1.0's build script (rustc-link-lib=static=crypto)" \
	"= selected by: flagsplit v0.1.0: \`sha1\` = openssl (from default with feature openssl-sha1)" "= archive: "
lacks static-crypto.err 'executable `flagsplit-imap-send` carries libcrypto'
st=0; fs static-crypto-report "$root" ${G}_LINK=static -- --locked --offline --features openssl-sha1 || st=$?; status_is static-crypto-report 0 $st
has static-crypto-report "libcrypto.a: static, linked by flagsplit v0.1.0 (rustc-link-lib=static=crypto); OpenSSL"
# The same build's executables, stripped, say so themselves.
bins=$work/bins-static
record_copies "$bins"
crypto_version=$(pkg-config --modversion libcrypto)
st=0; fs inspect-static "$root" -- inspect "$bins/flagsplit" || st=$?; status_is inspect-static 0 $st
lines inspect-static "    sha1 = openssl (default with feature openssl-sha1)" \
	"    C library OpenSSL $crypto_version: static (-lcrypto), found by pkg-config (libcrypto)"
st=0; fs bins-static-policy "$root" -- check --policy packaging/policy.toml --binaries "$bins" || st=$?; status_is bins-static-policy 1 $st
has bins-static-policy.err 'error[library-not-allowed]: executable `flagsplit` carries libcrypto (static, libcrypto.a), which only flagsplit-imap-send may carry' \
	"= carried: the build record of flagsplit" "= found by: flagsplit v0.1.0: OpenSSL ($crypto_version), located by pkg-config (libcrypto)"
st=0; fs sbom-static "$root" -- inspect --format cyclonedx "$bins" || st=$?; status_is sbom-static 0 $st
cyclonedx_valid sbom-static
has sbom-static "\"cpe\": \"cpe:2.3:a:openssl:openssl:$crypto_version:*:*:*:*:*:*:*\"" "\"purl\": \"pkg:generic/openssl@$crypto_version\"" \
	'"name": "flagsplit:link"' '"value": "static"'

note "libz-sys's bundled zlib (--features zlib-system, LIBZ_SYS_STATIC=1) breaks a bundled = false rule"
printf '[[libraries]]\nlibrary = "libz"\nbundled = false\nreason = "the system zlib"\n' >"$work/zlib.toml"
st=0; fs bundled-zlib "$root" LIBZ_SYS_STATIC=1 -- --locked --offline --features zlib-system check --policy "$work/zlib.toml" || st=$?; status_is bundled-zlib 1 $st
has bundled-zlib.err 'error[library-bundled]: executable `flagsplit` carries libz (static, bundled, libz.a), a copy libz-sys built, where the policy allows only the system'"'"'s' \
	" --> $work/zlib.toml:3:11" "= linked by: libz-sys v1.1.33's build script (rustc-link-lib=static=z)" \
	"= fix: make it use the system's library (libz-sys: unset LIBZ_SYS_STATIC or set it to 0, and turn off its \`static\` feature)"
st=0; fs system-zlib "$root" -- --locked --offline --features zlib-system check --policy "$work/zlib.toml" || st=$?; status_is system-zlib 0 $st

note "tests/sys-workspace: crates without flagsplit-config, each library on the executable that carries it"
st=0; fs sys "$sys" -- --locked --offline || st=$?; status_is sys 0 $st
lines sys "no crate in this build uses flagsplit-config" "gz (executable)" "tls (executable)"
has sys "libz.so.1: dynamic, linked by libz-sys v1.1.33 (rustc-link-lib=z)" "libssl.so.3: dynamic, linked by openssl-sys v0.9.118 (rustc-link-lib=ssl)" \
	"libcrypto.so.3: dynamic, linked by openssl-sys v0.9.118 (rustc-link-lib=crypto)"
st=0; fs sys-json "$sys" -- --locked --offline --json || st=$?; status_is sys-json 0 $st
json sys-json "tls: libssl and libcrypto from openssl-sys, no libz; gz: libz from libz-sys, no OpenSSL" '[b["package"] for n in ("ssl", "crypto") for l in lib("tls", n) for b in l["linked_by"]] == ["openssl-sys", "openssl-sys"] and not lib("tls", "z") and [b["package"] for l in lib("gz", "z") for b in l["linked_by"]] == ["libz-sys"] and not lib("gz", "ssl") and not lib("gz", "crypto")'
needed_is sys-json tls "$CARGO_TARGET_DIR/debug/tls"
needed_is sys-json gz "$CARGO_TARGET_DIR/debug/gz"
st=0; fs sys-check "$sys" -- --locked --offline check --policy "$work/libssl.toml" || st=$?; status_is sys-check 1 $st
has sys-check.err 'error[library-not-allowed]: executable `tls` carries libssl (dynamic, libssl.so.3), which the policy lets no executable carry' \
	"= linked by: openssl-sys v0.9.118's build script (rustc-link-lib=ssl)"
lacks sys-check.err 'executable `gz`'

note "--messages: a build's saved messages, and what is refused"
msgs=$work/messages
mkdir -p "$msgs"
(cd "$root" && cargo build --locked --offline --message-format=json-render-diagnostics >"$msgs/default.json" 2>"$log/messages-build.err") || fail "messages: cargo build"
st=0; fs messages "$root" -- check --policy packaging/policy.toml --messages "$msgs/default.json" || st=$?; status_is messages 0 $st
has messages.err "policy packaging/policy.toml: holds (4 rule(s), 1 crate(s), 4 executable(s)" \
	"note[environment-not-checked]: the build's environment was not checked"
env -0 >"$msgs/env"
st=0; fs messages-env "$root" -- check --policy packaging/policy.toml --messages "$msgs/default.json" --build-env "$msgs/env" || st=$?; status_is messages-env 0 $st
lacks messages-env.err "environment-not-checked"
printf '%s\0' ${G}_TLSS=rustls HOME=/root >"$msgs/env-typo"
st=0; fs messages-env-typo "$root" -- check --policy packaging/policy.toml --messages "$msgs/default.json" --build-env "$msgs/env-typo" || st=$?; status_is messages-env-typo 1 $st
has messages-env-typo.err "error[unknown-setting]: \`${G}_TLSS\` is no setting any crate of this build reads" "did you mean ${G}_TLS?"
printf '[1,2,3]\n' >"$msgs/array.json"
head -c "$(($(stat -c %s "$msgs/default.json") / 2))" "$msgs/default.json" >"$msgs/half.json"
head -n "$(($(wc -l <"$msgs/default.json") - 1))" "$msgs/default.json" >"$msgs/cut.json"
(cd "$root" && env "${G}_TLS=rustls" cargo build --manifest-path "$ws/Cargo.toml" --locked --offline --message-format=json-render-diagnostics >"$msgs/failed.json" 2>/dev/null) && fail "messages: the failing build built" || true
(cd "$sys" && cargo build --locked --offline --message-format=json-render-diagnostics >"$msgs/other.json" 2>/dev/null) || fail "messages: sys-workspace build"
for case in array:not-a-message half:not-a-message cut:incomplete-messages failed:failed-build other:foreign-messages; do
	f=${case%%:*} code=${case#*:}
	st=0; fs "messages-$f" "$root" -- check --policy packaging/policy.toml --messages "$msgs/$f.json" || st=$?; status_is "messages-$f" 2 $st
	has "messages-$f.err" "error[$code]:" "policy packaging/policy.toml: not checked: the input cannot be trusted"
done
has messages-other.err "package(s) that are not in the workspace of $root/Cargo.toml"
# The graph workspace's messages hold against it, flagsplit-config (a path dependency outside its
# root) included.
(cd "$root" && cargo build --manifest-path "$ws/Cargo.toml" --locked --offline --message-format=json-render-diagnostics >"$msgs/graph.json" 2>/dev/null) || fail "messages: graph workspace build"
st=0; fs messages-graph "$root" -- check --policy "$work/deny.toml" --messages "$msgs/graph.json" --manifest-path "$ws/Cargo.toml" || st=$?; status_is messages-graph 0 $st
has messages-graph.err "policy $work/deny.toml: holds (1 rule(s), 4 crate(s), 1 executable(s)"
# The sys-workspace's messages hold against their own workspace (--manifest-path).
st=0; fs messages-sys "$root" -- check --policy "$work/libssl.toml" --messages "$msgs/other.json" --manifest-path "$sys/Cargo.toml" || st=$?; status_is messages-sys 1 $st
has messages-sys.err 'error[library-not-allowed]: executable `tls` carries libssl'
# An executable written after the messages: another build's.
sleep 1
touch "$CARGO_TARGET_DIR/debug/flagsplit-fsck"
st=0; fs messages-stale "$root" -- check --policy packaging/policy.toml --messages "$msgs/default.json" || st=$?; status_is messages-stale 2 $st
has messages-stale.err "error[stale-messages]: $CARGO_TARGET_DIR/debug/flagsplit-fsck was written after $msgs/default.json"
st=0; fs messages-stale-json "$root" -- check --policy packaging/policy.toml --messages "$msgs/default.json" --json || st=$?; status_is messages-stale-json 2 $st
json messages-stale-json "refused, stale-messages, no report" 'd["outcome"] == "refused" and "stale-messages" in codes() and d["report"] is not None'

note "the book's packaging and cargo flagsplit chapters' outputs, as the runs above printed them"
# doc_lines MARKER NAME [DOC] — every line of DOC's (book/src/packaging.md's) block after MARKER is a line of $log/NAME
doc_lines() {
	local text
	text=$(awk -v m="$1" '$0 == m { f = 1; next } f && /^```/ { if (i) exit; i = 1; next } f && i { print }' "${3:-book/src/packaging.md}")
	[ -n "$text" ] || { fail "book/src/packaging.md has no block after $1"; return; }
	mapfile -t want <<<"$text"
	lines "$2" "${want[@]}"
}
doc_lines "<!-- cargo flagsplit report -->" root-default
doc_lines "<!-- cargo flagsplit error -->" root-openssl-tls-policy2.err
# The cargo flagsplit chapter's example is case (c), with this machine's OpenSSL version.
ssl_version=$(pkg-config --modversion libssl)
sed "s/openssl [0-9][0-9.]*[a-z]*, /openssl $ssl_version, /" book/src/cargo-flagsplit.md >"$work/cargo-flagsplit.md"
doc_lines "<!-- report example -->" c "$work/cargo-flagsplit.md"

note "the cargo flagsplit chapter's inspect commands, as written there (in a directory whose target/release holds the stripped default executables)"
docroot=$work/docroot
rm -rf "$docroot"
mkdir -p "$docroot/target" "$docroot/packaging"
ln -s "$work/bins-default" "$docroot/target/release"
cp packaging/policy.toml "$docroot/packaging/"
doc_commands "<!-- inspect commands -->" book/src/cargo-flagsplit.md "$docroot" inspect-doc
[ "$doc_ran" = 3 ] || fail "the cargo flagsplit chapter has $doc_ran inspect commands, not 3"
grep -q '"bomFormat": "CycloneDX"' "$docroot/sbom.json" && pass "cargo-flagsplit.md: sbom.json is a CycloneDX document" || fail "cargo-flagsplit.md: sbom.json is no CycloneDX document"

note "book/src/packaging.md's cargo flagsplit commands, as written there"
doc_commands "<!-- cargo flagsplit commands -->" book/src/packaging.md "$root" packaging
[ "$doc_ran" -gt 0 ] || fail "book/src/packaging.md has no cargo flagsplit commands"

note "the README's packager example, as written there"
doc_commands "<!-- packager commands -->" README.md "$root" readme-packager
[ "$doc_ran" = 1 ] || fail "README.md has $doc_ran packager commands, not 1"
grep -q "policy packaging/policy-openssl.toml: holds" "$log/readme-packager-1" &&
	pass "README.md: the packager's policy holds on the build it names" ||
	fail "README.md: the packager's policy did not say it holds: $(tail -3 "$log/readme-packager-1")"

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
printf '  cargo build: %s ms (median of %s), cargo flagsplit (a debug build of it): %s ms (median of %s): +%s ms\n' "$mp" "${plain[*]}" "$mt" "${tool[*]}" "$((mt - mp))"
pass "time: measured, cargo flagsplit adds $((mt - mp)) ms"

note "the working tree"
status_after=$(git status --porcelain --untracked-files=all)
[ "$status_after" = "$status_before" ] && pass "git status: as before the run" || fail "git status changed: $(diff <(echo "$status_before") <(echo "$status_after"))"

echo
echo "cargo-flagsplit case: $(($(date +%s) - started)) s"
finish "cargo-flagsplit case"

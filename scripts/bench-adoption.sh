#!/usr/bin/env bash
# What adopting flagsplit-config costs a library at build time, side by side with the two other ways
# to give a library an optional C-library provider: the cold debug build (an empty target
# directory, crates already downloaded) of one small library with one facility, `compress`, whose
# `zstd` provider links libzstd, in three variants made in a temporary directory outside this
# workspace:
#
#   flagsplit-config  as the guide writes it: its table in [package.metadata.flagsplit]
#                     (pkg-config or ZSTD_* variables, the generated probe compiled and linked
#                     by build.rs, which is `script::main()` and writes the build options), the
#                     library embedding them (flagsplit-info, its one run-time dependency); the
#                     provider selected with ADOPT_COMPRESS_PROVIDER=zstd;
#   system-deps 7     [package.metadata.system-deps] libzstd, optional behind the feature, and
#                     the crate's three-line build.rs;
#   plain features    `#[link(name = "zstd")]` behind the feature, no build script.
#
# Each is built two ways: `default` (no feature: the pure provider; flagsplit-config resolves and
# probes nothing, system-deps asks pkg-config nothing) and `zstd` (the feature on and, for
# flagsplit-config, the provider selected: libzstd found, probed and linked). Each round builds the
# six in turn (interleaved), each in a new target directory; the report gives each one's wall
# times, their median, and the number of crates Cargo compiled ("Compiling" lines), with the CPU
# and the load average. With --timings, one more build of each with `cargo build --timings`, and
# the units that took longest (Cargo's own measure of each crate's compile and of the build
# script's run). All crates come from one directory source (flagsplit-config and flagsplit-info
# packaged from this checkout), so each is compiled as a registry crate is. Usage:
#   scripts/bench-adoption.sh [--rounds N] [--timings]   (default 5; needs libzstd-dev, pkg-config)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=5
timings=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--timings) timings=1; shift ;;
	*) echo "usage: scripts/bench-adoption.sh [--rounds N] [--timings]" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' crates/config/Cargo.toml | head -1)
trap 'rm -rf "$work"' EXIT

lib_rs='//! One facility, `compress`: the `zstd` provider asks libzstd for its version.
#[cfg(PROVIDER_CFG)]
mod zstd {
    LINK_ATTR
    unsafe extern "C" {
        fn ZSTD_versionNumber() -> core::ffi::c_uint;
    }
    pub fn version() -> u32 {
        // SAFETY: ZSTD_versionNumber takes nothing and returns a number.
        unsafe { ZSTD_versionNumber() }
    }
}
/// libzstd'"'"'s version number, when the zstd provider is selected.
pub fn version() -> Option<u32> {
    #[cfg(PROVIDER_CFG)]
    return Some(zstd::version());
    #[cfg(not(PROVIDER_CFG))]
    None
}'

# flagsplit-config
d=$work/with-flagsplit-config
mkdir -p "$d/src"
cat >"$d/Cargo.toml" <<EOF
[package]
name = "adopt"
version = "0.1.0"
edition = "2021"
[features]
zstd = []
[dependencies]
flagsplit-info = "$version"
[build-dependencies]
flagsplit-config = { version = "$version", features = ["build-script"] }
[package.metadata.flagsplit.compress]
providers = ["stored", "zstd"]
[package.metadata.flagsplit.compress.zstd]
feature = "zstd"
pkg-config = "libzstd"
header = "zstd.h"
symbol = "ZSTD_versionNumber"
install = ["Debian/Ubuntu: apt-get install libzstd-dev pkg-config"]
[workspace]
EOF
cat >"$d/build.rs" <<'EOF'
fn main() {
    flagsplit_config::script::main();
}
EOF
{
	echo "$lib_rs" | sed -e 's/PROVIDER_CFG/adopt_compress = "zstd"/g' -e 's/LINK_ATTR//'
	printf '/// What the build decided.\npub const BUILD_INFO: flagsplit_info::BuildInfo = include!(concat!(env!("OUT_DIR"), "/build_info.rs"));\n'
} >"$d/src/lib.rs"

# system-deps 7
d=$work/with-system-deps
mkdir -p "$d/src"
cat >"$d/Cargo.toml" <<'EOF'
[package]
name = "adopt"
version = "0.1.0"
edition = "2021"
[features]
zstd = []
[build-dependencies]
system-deps = "7"
[package.metadata.system-deps]
libzstd = { version = "1.4", feature = "zstd" }
[workspace]
EOF
cat >"$d/build.rs" <<'EOF'
fn main() {
    system_deps::Config::new().probe().unwrap();
}
EOF
echo "$lib_rs" | sed -e 's/PROVIDER_CFG/feature = "zstd"/g' -e 's/LINK_ATTR//' >"$d/src/lib.rs"

# plain features
d=$work/with-plain-features
mkdir -p "$d/src"
cat >"$d/Cargo.toml" <<'EOF'
[package]
name = "adopt"
version = "0.1.0"
edition = "2021"
[features]
zstd = []
[workspace]
EOF
echo "$lib_rs" | sed -e 's/PROVIDER_CFG/feature = "zstd"/g' -e 's/LINK_ATTR/#[link(name = "zstd")]/' >"$d/src/lib.rs"

variants=(with-flagsplit-config with-system-deps with-plain-features)

# Every crate comes from one directory source, as a registry serves it: Cargo compiles such a
# crate as it compiles one from crates.io (not incrementally, its lints capped), where a path
# dependency would be compiled incrementally, as the workspace's own code, and cost more.
# flagsplit-config and flagsplit-info are this checkout's, packaged; the others are vendored.
mkdir -p "$work/deps/src"
touch "$work/deps/src/lib.rs"
cat >"$work/deps/Cargo.toml" <<EOF
[package]
name = "deps"
version = "0.1.0"
edition = "2021"
[dependencies]
flagsplit-config = { path = "$root/crates/config", features = ["build-script"] }
system-deps = "7"
[workspace]
EOF
(cd "$work/deps" && cargo vendor -q "$work/vendor" >/dev/null) || { echo "bench-adoption.sh: cargo vendor failed" >&2; exit 1; }
rm -rf "$work/vendor"/flagsplit-*
cargo package -q --offline --no-verify --allow-dirty -p flagsplit-info -p flagsplit-config --target-dir "$work/package" ||
	{ echo "bench-adoption.sh: cargo package failed" >&2; exit 1; }
for name in flagsplit-info flagsplit-config; do
	crate=$work/package/package/$name-$version.crate
	tar -xzf "$crate" -C "$work/vendor"
	printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" >"$work/vendor/$name-$version/.cargo-checksum.json"
done
mkdir -p "$work/.cargo"
printf '[source.crates-io]\nreplace-with = "packaged"\n\n[source.packaged]\ndirectory = "%s"\n' "$work/vendor" >"$work/.cargo/config.toml"
# build VARIANT SELECTION TARGET-DIR [CARGO ARGS...] — one build of the variant, its output in
# $work/log-VARIANT-SELECTION
build() {
	local v=$1 sel=$2 t=$3 vars=()
	shift 3
	local args=(--offline "$@")
	if [ "$sel" = zstd ]; then
		args+=(--features zstd)
		vars+=(ADOPT_COMPRESS_PROVIDER=zstd)
	fi
	(cd "$work/$v" && env "${vars[@]}" CARGO_TARGET_DIR="$t" cargo build "${args[@]}") >"$work/log-$v-$sel" 2>&1
}
for v in "${variants[@]}"; do
	(cd "$work/$v" && cargo generate-lockfile -q --offline) || { echo "bench-adoption.sh: $v: cannot resolve or fetch" >&2; exit 1; }
	# A first build checks that the variant works (and that the provider links libzstd).
	(cd "$work/$v" && ADOPT_COMPRESS_PROVIDER=zstd CARGO_TARGET_DIR="$work/check-$v" cargo test -q --features zstd --offline) >"$work/check-$v.log" 2>&1 ||
		{ tail -20 "$work/check-$v.log"; echo "bench-adoption.sh: $v does not build" >&2; exit 1; }
	rm -rf "$work/check-$v"
done
declare -A times crates
for r in $(seq 1 "$rounds"); do
	for sel in default zstd; do
		for v in "${variants[@]}"; do
			t=$work/target-$v-$sel-$r
			start=$(date +%s.%N)
			build "$v" "$sel" "$t" || { cat "$work/log-$v-$sel"; echo "bench-adoption.sh: $v ($sel) failed" >&2; exit 1; }
			end=$(date +%s.%N)
			times[$v-$sel]+="$(python3 -c "print(f'{$end - $start:.2f}')") "
			crates[$v-$sel]=$(grep -c '^ *Compiling ' "$work/log-$v-$sel")
			rm -rf "$t"
		done
	done
done
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
echo "Cold debug build of a one-facility library whose zstd provider links libzstd ($rounds interleaved rounds; $(nproc) cores, $cpu; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| variant | provider | crates compiled | wall, each round (s) | median (s) |"
echo "|---|---|---:|---|---:|"
for sel in default zstd; do
	for v in "${variants[@]}"; do
		median=$(python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" ${times[$v-$sel]})
		echo "| ${v#with-} | $([ "$sel" = zstd ] && echo "zstd (libzstd)" || echo "default (pure)") | ${crates[$v-$sel]} | ${times[$v-$sel]% } | $median |"
	done
done
if [ "$timings" = 1 ]; then
	for sel in default zstd; do
		for v in with-flagsplit-config with-system-deps; do
			t=$work/timings-$v-$sel
			build "$v" "$sel" "$t" --timings
			echo
			echo "cargo build --timings, ${v#with-}, $sel: the units that took longest (s; start after the build began)"
			python3 - "$t" <<'PY'
import glob, json, re, sys
page = open(sorted(glob.glob(sys.argv[1] + "/cargo-timings/cargo-timing-*.html"))[-1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", page, re.S).group(1))
total = re.search(r"<td>Total time:</td><td>([^<]*)</td>", page)
print("  total:", total.group(1) if total else "?", "|", len(units), "units, CPU", f'{sum(u["duration"] for u in units):.2f} s')
for u in sorted(units, key=lambda u: -u["duration"])[:8]:
    what = " (build script run)" if "run" in u.get("mode", "") else " (build script)" if u.get("target", "").strip() == "build-script" else ""
    print(f'  {u["duration"]:5.2f}  at {u["start"]:5.2f}  {u["name"]} {u["version"]}{what}')
PY
		done
	done
fi

#!/usr/bin/env bash
# What adopting flagsplit-config costs a library at build time, side by side with the two other ways
# to give a library an optional C-library provider: the cold debug build (an empty target
# directory, crates already downloaded) of one small library with one facility, `compress`, whose
# `zstd` provider links libzstd, in three variants made in a temporary directory outside this
# workspace:
#
#   flagsplit-config  as the guide writes it: its table (probe::System: pkg-config or ZSTD_*
#                     variables, probed and linked by build.rs), build.rs writing the build
#                     options, the library embedding them (flagsplit-info, its one run-time
#                     dependency); the provider selected with ADOPT_COMPRESS_PROVIDER=zstd;
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
# script's run). Usage:
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
mkdir -p "$d/src" "$d/compat"
cat >"$d/Cargo.toml" <<EOF
[package]
name = "adopt"
version = "0.1.0"
edition = "2021"
[features]
zstd = []
[dependencies]
flagsplit-info = { path = "$root/crates/info" }
[build-dependencies]
flagsplit-config = { path = "$root/crates/config", features = ["build-script"] }
[workspace]
EOF
cat >"$d/src/spec.rs" <<'EOF'
use flagsplit_config::probe::{Library, Probe, System};
use flagsplit_config::{Facility, Provider, Spec};
static LIBZSTD: System = System::new("libzstd", "ZSTD");
static ZSTD: Library = Library::new("zstd", &LIBZSTD).install(&[("Debian/Ubuntu", "apt-get install libzstd-dev pkg-config")]);
static PROBE: Probe = Probe::new(&ZSTD, "probe-zstd.c", "ZSTD_versionNumber", &["zstd"], "libzstd");
pub static SPEC: Spec = Spec::library("adopt", "ADOPT", "adopt").facilities(&[Facility::new(
    "compress", "COMPRESS", "compression",
    &[Provider::new("stored", "STORED", "none"), Provider::new("zstd", "ZSTD", "libzstd").feature("zstd").probe(&PROBE)],
)]);
EOF
cat >"$d/build.rs" <<'EOF'
#[path = "src/spec.rs"]
mod spec;
fn main() {
    let build = flagsplit_config::script::Build::new(&spec::SPEC);
    if let Some(resolved) = build.resolve_and_emit() {
        match build.probe(&resolved, &build.manifest_dir.join("compat")) {
            Ok(probed) => {
                build.write_build_info(&resolved, &probed);
            }
            Err(message) => flagsplit_config::script::error(&message),
        }
    }
}
EOF
printf '#include <zstd.h>\nint main(void) { return ZSTD_versionNumber() == 0; }\n' >"$d/compat/probe-zstd.c"
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
	(cd "$work/$v" && cargo generate-lockfile -q && cargo fetch -q) || { echo "bench-adoption.sh: $v: cannot resolve or fetch" >&2; exit 1; }
	# A first build checks that the variant works (and that the provider links libzstd).
	(cd "$work/$v" && ADOPT_COMPRESS_PROVIDER=zstd CARGO_TARGET_DIR="$work/check-$v" cargo test -q --features zstd --offline 2>&1 | tail -1) >/dev/null ||
		{ echo "bench-adoption.sh: $v does not build" >&2; exit 1; }
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

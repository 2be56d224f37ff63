#!/usr/bin/env bash
# What adopting flagsplit-config costs a library at build time, side by side with the two other ways
# to give a library an optional C-library provider: the cold debug build (an empty target
# directory, crates already downloaded) of one small library with one facility, `compress`, whose
# `zstd` provider links libzstd, built with that provider, in three variants made in a temporary
# directory outside this workspace:
#
#   flagsplit-config  its table (probe::System: pkg-config or ZSTD_* variables, probed and linked
#                     by build.rs), selected with ADOPT_COMPRESS_PROVIDER=zstd;
#   system-deps 7     [package.metadata.system-deps] libzstd, optional behind the feature, and
#                     the crate's three-line build.rs;
#   plain features    `#[link(name = "zstd")]` behind the feature, no build script.
#
# Each round builds the three in turn (interleaved), each in a new target directory; the report
# gives each variant's wall times, their median, and the number of crates Cargo compiled
# ("Compiling" lines), with the CPU and the load average. Usage:
#   scripts/bench-adoption.sh [--rounds N]        (default 5; needs libzstd-dev and pkg-config)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=5
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	*) echo "usage: scripts/bench-adoption.sh [--rounds N]" >&2; exit 2 ;;
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
        if let Err(message) = build.probe(&resolved, &build.manifest_dir.join("compat")) {
            flagsplit_config::script::error(&message);
        }
    }
}
EOF
printf '#include <zstd.h>\nint main(void) { return ZSTD_versionNumber() == 0; }\n' >"$d/compat/probe-zstd.c"
echo "$lib_rs" | sed -e 's/PROVIDER_CFG/adopt_compress = "zstd"/g' -e 's/LINK_ATTR//' >"$d/src/lib.rs"

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
for v in "${variants[@]}"; do
	(cd "$work/$v" && cargo generate-lockfile -q && cargo fetch -q) || { echo "bench-adoption.sh: $v: cannot resolve or fetch" >&2; exit 1; }
	# A first build checks that the variant works (and that the provider links libzstd).
	(cd "$work/$v" && ADOPT_COMPRESS_PROVIDER=zstd CARGO_TARGET_DIR="$work/check-$v" cargo test -q --features zstd --offline 2>&1 | tail -1) >/dev/null ||
		{ echo "bench-adoption.sh: $v does not build" >&2; exit 1; }
done
declare -A times crates
for r in $(seq 1 "$rounds"); do
	for v in "${variants[@]}"; do
		t=$work/target-$v-$r
		start=$(date +%s.%N)
		(cd "$work/$v" && ADOPT_COMPRESS_PROVIDER=zstd CARGO_TARGET_DIR=$t cargo build --features zstd --offline) >"$work/log-$v" 2>&1
		end=$(date +%s.%N)
		times[$v]+="$(python3 -c "print(f'{$end - $start:.2f}')") "
		crates[$v]=$(grep -c '^ *Compiling ' "$work/log-$v")
		rm -rf "$t"
	done
done
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
echo "Cold debug build of a one-facility library with its libzstd provider ($rounds interleaved rounds; $(nproc) cores, $cpu; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| variant | crates compiled | wall, each round (s) | median (s) |"
echo "|---|---:|---|---:|"
for v in "${variants[@]}"; do
	median=$(python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" ${times[$v]})
	echo "| ${v#with-} | ${crates[$v]} | ${times[$v]% } | $median |"
done

# Sourced by scripts/graph-case.sh and scripts/cargo-flagsplit-case.sh, from the repository root
# with CARGO_TARGET_DIR set: the scratch directory ($work, logs in $log, replaced), the graph
# workspace ($ws), an environment in which nothing selects (no graph-wide setting, no variable of
# the workspace's libraries, of OpenSSL's finder or of flagsplit), the working tree's status before
# the run ($status_before), the graph-wide prefix ($G) and the host triple ($host, and $HOST as
# a variable prefix spells it).
. scripts/lib/checks.sh
ws=$PWD/tests/graph-workspace
work=$CARGO_TARGET_DIR/scratch
rm -rf "$work"
mkdir -p "$work/log"
log=$work/log
for v in $(compgen -e | grep -E '(^|_)BACKEND_[A-Z0-9_]+$|^(TLS_A_|TLS_B_|ZLIB_C_|OPENSSL_|FLAGSPLIT_)|^LIBZ_SYS_STATIC$' || true); do unset "$v"; done
status_before=$(git status --porcelain --untracked-files=all)
# The graph-wide variables' prefix (flagsplit_config::graph::PREFIX): ${G}_TLS, ${G}_CONFIG, ...
G=RUST_BACKEND
host=$(rustc -vV | sed -n 's/^host: //p')
HOST=$(tr 'a-z-' 'A-Z_' <<<"$host")

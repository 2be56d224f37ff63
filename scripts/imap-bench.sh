#!/usr/bin/env bash
# Upload speed of flagsplit-imap-send against git imap-send: the same N patches (default 100) to a
# Dovecot 2.3 started here on loopback (crates/imap/tests/dovecot/dovecot.conf.tmpl, plain IMAP on
# 127.0.0.2), best of 3 runs each: git into Drafts (its curl code does not create a folder),
# flagsplit into a fresh folder each run (CREATE, then MULTIAPPEND). Prints both times and their ratio.
# Usage: scripts/imap-bench.sh [N] [path/to/flagsplit-imap-send]
set -euo pipefail
n=${1:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$root/target/release/flagsplit-imap-send}
[ -x "$bin" ] || bin=$root/target/debug/flagsplit-imap-send
[ -x "$bin" ] || { echo "build flagsplit-imap-send first (cargo build --release)" >&2; exit 1; }
dir=$(mktemp -d)
chmod 755 "$dir"
pgid=
cleanup() { [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$dir"; }
trap cleanup EXIT

p1=$((20000 + RANDOM % 20000)); p2=$((p1 + 1))
if [ "$(id -u)" = 0 ]; then user=nobody group=nogroup uid=65534 gid=65534; else
	user=$(id -un) group=$(id -gn) uid=$(id -u) gid=$(id -g); fi
mkdir -p "$dir/run" "$dir/state" "$dir/mail"
echo 'tester:{PLAIN}s3cr3t-pw' > "$dir/passwd"
printf 'introspection_mode = auth\nintrospection_url = http://127.0.0.1:1/introspect\n' > "$dir/oauth2.conf.ext"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/key.pem" \
	-out "$dir/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
sed -e "s|@DIR@|$dir|g" -e "s|@USER@|$user|g" -e "s|@GROUP@|$group|g" -e "s|@UID@|$uid|g" \
	-e "s|@GID@|$gid|g" -e "s|@P1@|$p1|g" -e "s|@P2@|$p2|g" -e "s|@EXTRA@||" \
	"$root/crates/imap/tests/dovecot/dovecot.conf.tmpl" > "$dir/dovecot.conf"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$dir"
setsid /usr/sbin/dovecot -F -c "$dir/dovecot.conf" > "$dir/out.log" 2>&1 &
pgid=$!
disown
for _ in $(seq 100); do
	# Ready when a connection gets the greeting (a connection alone is too early).
	(exec 3<>"/dev/tcp/127.0.0.2/$p1" && read -r -t 1 line <&3 && [[ $line == "* OK"* ]]) 2>/dev/null && break
	sleep 0.05
done

# The series: N commits, format-patch'ed.
repo=$dir/repo
git init -q "$repo"
for i in $(seq "$n"); do
	echo "line $i" >> "$repo/file"
	git -C "$repo" add file
	git -C "$repo" -c user.name=A -c user.email=a@example.org commit -qm "Change $i" -m "Body of change $i."
done
git -C "$repo" format-patch --stdout --root > "$dir/series.mbox"

common=(-c imap.host=imap://127.0.0.2 -c "imap.port=$p1" -c imap.user=tester -c imap.pass=s3cr3t-pw)
best() { sort -n | head -1; }
time_it() { local s e; s=$(date +%s.%N); "$@" < "$dir/series.mbox" > /dev/null 2>> "$dir/runs.log" || { cat "$dir/runs.log" >&2; exit 1; }; e=$(date +%s.%N); echo "$e - $s" | bc; }
git_t=$(for k in 1 2 3; do time_it git "${common[@]}" -c imap.folder=Drafts -C "$repo" imap-send; done | best)
# imap.pass is refused on flagsplit's command line: it comes from a git config file.
printf '[imap]\n\thost = imap://127.0.0.2\n\tport = %s\n\tuser = tester\n\tpass = s3cr3t-pw\n\tallowPlaintext = true\n' "$p1" > "$dir/gitconfig"
fs_t=$(for k in 1 2 3; do HOME=$dir GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$dir/gitconfig time_it "$bin" \
	-c "imap.folder=Fs$k" -q; done | best)
echo "messages: $n"
echo "git imap-send:        $git_t s"
echo "flagsplit-imap-send:  $fs_t s ($bin)"
echo "ratio: $(echo "scale=3; $fs_t / $git_t" | bc)"

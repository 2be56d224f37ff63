#!/usr/bin/env bash
# The rendered book (scripts/book.sh writes it to target/book) as headless Chromium shows it,
# served over loopback (`python3 -m http.server` on a port the system picks):
#
# - a full-page PNG screenshot of each page: Chromium's --screenshot captures only the window
#   (1280x1600 here), so the pages are captured through the DevTools protocol on a pipe
#   (--remote-debugging-pipe): the page loaded and its fonts ready, then Page.captureScreenshot
#   beyond the viewport, 1280 px wide and as tall as the page (at least 1600);
# - each PNG read back (its IHDR and its IDAT, inflated by Python's zlib, its rows unfiltered):
#   the size the page measured, and not blank: fails when one colour covers 99% of it or it has
#   fewer than 8 colours (counted on rows spread over the page); a blank page is shot and checked
#   first, so that the check is seen to fail;
# - each page's DOM as `chromium --headless --dump-dom` builds it: the page's title text in its
#   <title> or a heading of its content (not an error page), and, on mdBook's pages, the sidebar
#   (<nav class="sidebar">) filled with the chapters by mdBook's script; a page the server does
#   not have is checked first, so that the check is seen to fail;
# - the server's log: each page served (200) to Chromium.
#
# Usage: scripts/book-shots.sh [--book DIR] [--out DIR] [PAGE=TITLE...] [--plain PAGE=TITLE...]
#   --book DIR            the rendered book (default: target/book)
#   --out DIR             the screenshots, DOMs and logs (default: target/book-shots)
#   PAGE=TITLE            an mdBook page and the text its title or heading holds
#   --plain PAGE=TITLE    a page of its own (no sidebar), such as charts.html
#   Without pages: index.html=flagsplit 'packaging.html=Packaging flagsplit'
#   benchmarks.html=Benchmarks --plain 'charts.html=flagsplit benchmark reports'.
# Needs chromium (Debian's package: installed when run as root, unless FLAGSPLIT_TEST_NO_INSTALL=1).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh

book=target/book
out=target/book-shots
pages=()
plain=()
while [ $# -gt 0 ]; do
	case $1 in
	--book) book=${2:?--book needs a directory}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--plain) plain+=("${2:?--plain needs PAGE=TITLE}"); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*=*) pages+=("$1"); shift ;;
	*) echo "scripts/book-shots.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ ${#pages[@]} = 0 ] && [ ${#plain[@]} = 0 ]; then
	pages=(index.html=flagsplit "packaging.html=Packaging flagsplit" benchmarks.html=Benchmarks)
	plain=("charts.html=flagsplit benchmark reports")
fi
[ -f "$book/index.html" ] || { echo "scripts/book-shots.sh: no $book/index.html (scripts/book.sh renders the book)" >&2; exit 2; }
book=$(realpath "$book")
mkdir -p "$out"
out=$(realpath "$out")
log=$out/log
rm -rf "$log" "$out/dom"
mkdir -p "$log" "$out/dom"


part "chromium"
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
	if [ "${FLAGSPLIT_TEST_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends chromium >"$log/apt" 2>&1 || tail -20 "$log/apt"
		chromium=$(command -v chromium || true)
	fi
fi
if [ -z "$chromium" ]; then
	fail "no chromium (Debian's chromium package; install it as root)"
	part_end
	finish "book shots"
fi
pass "$("$chromium" --version 2>/dev/null | tail -1)"
# As tests/integration/report.rs runs it: no sandbox (root), nothing fetched but the pages.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
	--disable-component-update --disable-sync --hide-scrollbars)
width=1280
height=1600
profiles=$(mktemp -d)
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$profiles"' EXIT

part "the book served on loopback"
python3 -u -m http.server --bind 127.0.0.1 --directory "$book" 0 >"$log/http" 2>&1 &
server=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's/^Serving HTTP on [^ ]* port \([0-9]*\) .*/\1/p' "$log/http")
	[ -n "$port" ] && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$port" ]; then
	cat "$log/http"
	fail "python3 -m http.server did not start"
	part_end
	finish "book shots"
fi
base=http://127.0.0.1:$port
pass "$book at $base/ (server $server)"

# The pages: PAGE, TITLE, and whether it has mdBook's sidebar (sidebar or plain), tab-separated.
specs=()
for p in "${pages[@]}"; do specs+=("${p%%=*}"$'\t'"${p#*=}"$'\t'sidebar); done
for p in "${plain[@]}"; do specs+=("${p%%=*}"$'\t'"${p#*=}"$'\t'plain); done

part "full-page screenshots, through the DevTools protocol"
# shotname PAGE — the PNG's name: the page's path without .html, each / a -
shotname() { local n=${1%.html}; echo "${n//\//-}"; }
jobs=("blank"$'\t'"about:blank"$'\t'"$log/blank.png")
for s in "${specs[@]}"; do
	IFS=$'\t' read -r page _ _ <<<"$s"
	jobs+=("$(shotname "$page")"$'\t'"$base/$page"$'\t'"$out/$(shotname "$page").png")
	rm -f "$out/$(shotname "$page").png"
done
# shoot CHROMIUM WIDTH HEIGHT MANIFEST NAME<tab>URL<tab>PNG... -- FLAGS...: each URL's full page
# in PNG, and a manifest line per shot: NAME WIDTH HEIGHT (the size the page measured) PNG
st=0
python3 - "$chromium" "$width" "$height" "$log/shots" "${jobs[@]}" -- "${flags[@]}" "--user-data-dir=$profiles/shots" "--window-size=$width,$height" >"$log/shoot" 2>&1 <<'PY' || st=$?
import base64, json, os, select, subprocess, sys, time

chromium, width, height, manifest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rest = sys.argv[5:]
cut = rest.index("--")
jobs = [j.split("\t") for j in rest[:cut]]
flags = rest[cut + 1:]
TIMEOUT = 60

# Chromium reads the protocol's messages on its descriptor 3 and writes on 4, each a JSON text
# ended by a NUL. The two ends are moved out of the way first, then put in place by bash.
cmd_r, cmd_w = os.pipe()
res_r, res_w = os.pipe()
os.dup2(cmd_r, 100)
os.dup2(res_w, 101)
os.close(cmd_r)
os.close(res_w)
proc = subprocess.Popen(
    ["bash", "-c", 'exec "$0" "$@" 3<&100 4>&101 100<&- 101>&-', chromium, *flags, "--remote-debugging-pipe", "about:blank"],
    pass_fds=(100, 101), stdout=subprocess.DEVNULL, stderr=open(manifest + ".chromium.err", "w"))
os.close(100)
os.close(101)
buffered = b""
events = []
last_id = 0


def read_message(deadline):
    global buffered
    while b"\0" not in buffered:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("Chromium did not answer in time")
        ready, _, _ = select.select([res_r], [], [], left)
        if ready:
            chunk = os.read(res_r, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its end of the pipe")
            buffered += chunk
    message, _, buffered = buffered.partition(b"\0")
    return json.loads(message)


def call(method, params=None, session=None):
    global last_id
    last_id += 1
    message = {"id": last_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(cmd_w, json.dumps(message).encode() + b"\0")
    deadline = time.monotonic() + TIMEOUT
    while True:
        answer = read_message(deadline)
        if answer.get("id") == last_id:
            if "error" in answer:
                raise RuntimeError(f"{method}: {answer['error']}")
            return answer["result"]
        events.append(answer)


def wait_for(method, session):
    deadline = time.monotonic() + TIMEOUT
    while True:
        for i, event in enumerate(events):
            if event.get("method") == method and event.get("sessionId") == session:
                return events.pop(i)
        events.append(read_message(deadline))


lines = []
try:
    for name, url, png in jobs:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Page.enable", session=session)
        call("Emulation.setDeviceMetricsOverride",
             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        navigated = call("Page.navigate", {"url": url}, session=session)
        if navigated.get("errorText"):
            raise RuntimeError(f"{url}: {navigated['errorText']}")
        wait_for("Page.loadEventFired", session)
        # The web fonts loaded and two frames drawn since.
        call("Runtime.evaluate", {"expression": "document.fonts.ready.then(() => new Promise(r => "
                                  "requestAnimationFrame(() => requestAnimationFrame(r))))",
                                  "awaitPromise": True}, session=session)
        size = call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        full = max(height, int(-(-size["height"] // 1)))
        # optimizeForSpeed: a fast encoding (every row filtered "Up"), which the check reads fast.
        shot = call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "optimizeForSpeed": True,
                                               "clip": {"x": 0, "y": 0, "width": width, "height": full, "scale": 1}},
                    session=session)
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        lines.append(f"{name}\t{width}\t{full}\t{png}\n")
        call("Target.closeTarget", {"targetId": target})
    try:
        call("Browser.close")
    except (EOFError, RuntimeError, TimeoutError):
        pass
finally:
    os.close(cmd_w)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with open(manifest, "w") as f:
        f.writelines(lines)
PY
if [ $st = 0 ]; then
	pass "$(($(wc -l <"$log/shots") - 1)) pages and a blank one shot by one headless Chromium"
else
	cat "$log/shoot"
	grep -v -e dbus -e 'unexpected operator' "$log/shots.chromium.err" | tail -20 || true
	fail "the screenshots: exit $st"
fi

part "the screenshots read back: their size, not blank"
# pngcheck MANIFEST — one line per shot: NAME, STATUS (ok, or what is wrong), its facts
pngcheck() {
	python3 - "$1" <<'PY'
import collections, math, struct, sys, zlib
from array import array
from itertools import accumulate


def png_rows(path):
    """The size, the bytes per pixel and, one by one, the unfiltered rows of an 8-bit RGB or
    RGBA PNG (what Chromium writes), not interlaced."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if ihdr is None:
        raise ValueError("no IHDR")
    w, h, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"bit depth {depth}, colour type {colour}, interlace {interlace}: not 8-bit RGB or RGBA")
    bpp = 3 if colour == 2 else 4
    stride = w * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) != h * (stride + 1):
        raise ValueError(f"{len(raw)} bytes of image data, not {h * (stride + 1)}")
    # "Up" adds the row above, byte by byte: done on whole rows as big integers, each byte in a
    # 16-bit lane so that no sum carries into the next byte.
    mask = int.from_bytes(b"\xff\x00" * stride, "little")
    wide = bytearray(2 * stride)

    def lanes(row):
        wide[0::2] = row
        return int.from_bytes(wide, "little")

    def rows():
        prev = bytes(stride)
        for y in range(h):
            o = y * (stride + 1)
            kind, line = raw[o], raw[o + 1:o + 1 + stride]
            if kind == 0:
                cur = line
            elif kind == 2:
                cur = prev if line.count(0) == stride else ((lanes(line) + lanes(prev)) & mask).to_bytes(2 * stride, "little")[0::2]
            elif kind == 1:
                out = bytearray(stride)
                for c in range(bpp):
                    out[c::bpp] = bytes(map((255).__and__, accumulate(line[c::bpp])))
                cur = bytes(out)
            elif kind in (3, 4):
                out = bytearray(line)
                for x in range(stride):
                    a = out[x - bpp] if x >= bpp else 0
                    b = prev[x]
                    if kind == 3:
                        out[x] = (out[x] + (a + b) // 2) & 255
                    else:
                        c = prev[x - bpp] if x >= bpp else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        out[x] = (out[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                cur = bytes(out)
            else:
                raise ValueError(f"row {y}: filter {kind}")
            yield cur
            prev = cur

    return w, h, bpp, rows()


for line in open(sys.argv[1]):
    name, want_w, want_h, path = line.rstrip("\n").split("\t")
    try:
        w, h, bpp, rows = png_rows(path)
        # Colours counted on rows spread over the page, about two million pixels in all.
        step = max(1, math.ceil(w * h / 2_000_000))
        colours = collections.Counter()
        distinct_rows = set()
        pixel = bytearray(4 * w)
        for y, row in enumerate(rows):
            distinct_rows.add(row)
            if y % step == 0:
                if bpp == 3:
                    pixel[0::4], pixel[1::4], pixel[2::4] = row[0::3], row[1::3], row[2::3]
                    colours.update(array("I", bytes(pixel)))
                else:
                    colours.update(array("I", row))
        counted = sum(colours.values())
        top, top_n = colours.most_common(1)[0]
        share = top_n / counted
        # array("I") is in the machine's order: the pixel's R, G, B bytes back from its int.
        rgb = "#" + array("I", [top]).tobytes()[:3].hex()
        sampled = "every row" if step == 1 else f"1 row in {step}"
        facts = (f"{w}x{h}, {len(colours)} colour{'s' if len(colours) != 1 else ''} ({sampled}), "
                 f"{rgb} covers {share:.1%}, {len(distinct_rows)} distinct row{'s' if len(distinct_rows) != 1 else ''}")
        problems = []
        if (w, h) != (int(want_w), int(want_h)):
            problems.append(f"{w}x{h}, not the page's {want_w}x{want_h}")
        if share >= 0.99 or len(colours) < 8:
            problems.append("nearly uniform")
        print(f"{name}\t{'; '.join(problems) or 'ok'}\t{facts}")
    except (OSError, ValueError, zlib.error) as e:
        print(f"{name}\tunreadable: {e}\t")
PY
}
if [ -s "$log/shots" ] && pngcheck "$log/shots" >"$log/pngcheck" 2>"$log/pngcheck.err"; then
	while IFS=$'\t' read -r name status facts; do
		if [ "$name" = blank ]; then
			[ "$status" = "nearly uniform" ] && pass "the check flags a blank page: $facts" || fail "the blank page passed the check: $status; $facts"
			continue
		fi
		png=$out/$name.png
		if [ "$status" = ok ]; then
			pass "$png: $facts; $(wc -c <"$png") bytes"
		else
			fail "$png: $status; $facts"
		fi
	done <"$log/pngcheck"
else
	cat "$log/pngcheck.err" 2>/dev/null || true
	fail "the screenshots could not be read back"
fi

part "the DOM Chromium builds: the title, mdBook's sidebar"
# domcheck DOM TITLE sidebar|plain — the title text in <title> or a heading of the content, and
# on mdBook's pages the sidebar with its chapters; prints what it found, exits 1 when short
domcheck() {
	python3 - "$@" <<'PY'
import html.parser, sys

path, title, kind = sys.argv[1:4]


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.title, self.headings = [], None, []
        self.text, self.in_main, self.sidebar, self.chapters, self.in_sidebar = None, 0, False, 0, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "main":
            self.in_main += 1
        if tag == "nav" and ("sidebar" in classes or a.get("id") == "mdbook-sidebar"):
            self.sidebar = True
            self.in_sidebar += 1
        elif tag == "nav" and self.in_sidebar:
            self.in_sidebar += 1
        if tag == "li" and self.in_sidebar and "chapter-item" in classes:
            self.chapters += 1
        if tag == "title" and self.title is None and not self.stack_has("svg"):
            self.text = ["title"]
        elif tag in ("h1", "h2") and (self.in_main or kind == "plain"):
            self.text = ["heading"]
        if tag not in ("br", "img", "input", "link", "meta", "hr", "source", "wbr", "col", "area", "base", "embed", "track"):
            self.stack.append(tag)

    def stack_has(self, tag):
        return tag in self.stack

    def handle_endtag(self, tag):
        if tag == "main":
            self.in_main -= 1
        if tag == "nav" and self.in_sidebar:
            self.in_sidebar -= 1
        if self.text and tag in ("title", "h1", "h2"):
            what, text = self.text[0], "".join(self.text[1:]).strip()
            if what == "title":
                self.title = text
            else:
                self.headings.append(text)
            self.text = None
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


dom = Dom()
dom.feed(open(path, encoding="utf-8", errors="replace").read())
dom.close()
problems = []
found = dom.title is not None and title in dom.title or any(title in h for h in dom.headings)
if not found:
    problems.append(f"no {title!r} in its <title> ({dom.title!r}) or headings ({dom.headings[:3]})")
if kind == "sidebar":
    if not dom.sidebar:
        problems.append("no sidebar (<nav class=\"sidebar\">)")
    elif dom.chapters == 0:
        problems.append("a sidebar without chapters (mdBook's script did not fill it)")
facts = f"<title> {dom.title!r}" + (f", a sidebar of {dom.chapters} chapters" if kind == "sidebar" else "")
print("; ".join(problems) if problems else facts)
sys.exit(1 if problems else 0)
PY
}
# dump PAGE FILE — the DOM headless Chromium builds for PAGE, in FILE
dump() {
	local profile
	profile=$(mktemp -d -p "$profiles")
	timeout 60 "$chromium" "${flags[@]}" "--user-data-dir=$profile" "--window-size=$width,$height" --dump-dom "$base/$1" >"$2" 2>"$2.err"
}
if dump no-such-page.html "$log/no-such-page.dom" && ! facts=$(domcheck "$log/no-such-page.dom" "Packaging flagsplit" sidebar); then
	pass "the check flags a page the server does not have: $facts"
else
	fail "no-such-page.html passed the DOM check (or Chromium failed: $(tail -3 "$log/no-such-page.dom.err"))"
fi
for s in "${specs[@]}"; do
	IFS=$'\t' read -r page title kind <<<"$s"
	dom=$out/dom/$page
	if ! dump "$page" "$dom"; then
		tail -5 "$dom.err"
		fail "$page: chromium --dump-dom failed"
	elif facts=$(domcheck "$dom" "$title" "$kind"); then
		pass "$page: '$title' shown; $facts ($(wc -c <"$dom") bytes of DOM)"
	else
		fail "$page: $facts"
	fi
done

part "the server's log: each page served to Chromium"
for s in "${specs[@]}"; do
	IFS=$'\t' read -r page _ _ <<<"$s"
	n=$(grep -c "\"GET /$page HTTP/1.1\" 200" "$log/http" || true)
	# Twice at least: the screenshot, the DOM (a page that another embeds, more).
	[ "$n" -ge 2 ] && pass "$page: served with 200 $n times" || fail "$page: served with 200 $n times, not twice"
done
part_end

echo
echo "screenshots:"
while IFS=$'\t' read -r name w h png; do
	[ "$name" = blank ] || printf '  %s  %sx%s  %s bytes\n' "$png" "$w" "$h" "$(wc -c <"$png")"
done <"$log/shots"
echo "times:"
printf '%s\n' "${times[@]}"
echo "book shots: $passes passed, $failures failed ($(($(date +%s) - checks_started)) s)"
finish "book shots"

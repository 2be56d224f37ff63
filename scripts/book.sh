#!/usr/bin/env bash
# The book (book/, mdBook) built and checked, and the README's limits:
#
# - mdBook 0.5.4, installed from crates.io into target/tools (search only: no serve or watch)
#   unless target/tools/bin/mdbook is that version already;
# - `mdbook build`, with missing chapter files an error (mdBook's default is to create them, empty,
#   in the book's source directory, silently): fails on a non-zero exit and on any line of its
#   standard error that is not an INFO line. mdBook 0.5.4 logs `ERROR`, `WARN` and `INFO` lines
#   there (and exits 0) for a {{#include}} of a missing file, an unclosed HTML tag and the like;
#   a missing chapter file or a malformed SUMMARY.md are an ERROR and exit 101;
# - the benchmark charts, `flagsplit report benchmarks/reference/*.json`, written into the rendered
#   book as charts.html (the benchmarks chapter links to it and embeds it);
# - the manual pages flagsplit-docgen generates, rendered by man(1) into man/NAME.html, each one
#   linked from the reference chapter's table and no other;
# - book/MOVED.md: every section it names exists in the file it names;
# - every relative link of every rendered page, and of the README, and every {{#include}} of the
#   book's sources (an anchor or a line range that selects nothing is included as nothing, without
#   a word from mdBook): scripts/book-links.py, its self-test first, so that the checker is seen to
#   find broken links;
# - the README: at most 1,200 words (as `wc -w` counts them), `## Quick start` in its first 40 lines.
#
# Usage: scripts/book.sh [--book DIR] [--out DIR] [--readme FILE]
#   --book DIR     the book's directory, with book.toml (default: book)
#   --out DIR      where the book is rendered (default: target/book); mdBook empties it first, so
#                  an existing directory must be empty or hold a rendered book (an index.html)
#   --readme FILE  the README checked (default: README.md); its links are resolved in the
#                  repository
# Logs in target/book-check (replaced at each run). The first run installs mdBook (about a minute
# and a quarter of compiling; needs the network) and builds flagsplit's release binaries (Cargo skips them when fresh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib/checks.sh

book=book
out=target/book
readme=README.md
while [ $# -gt 0 ]; do
	case $1 in
	--book) book=${2:?--book needs a directory}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--readme) readme=${2:?--readme needs a file}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "scripts/book.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
out=$(realpath -m "$out")
[ -f "$book/book.toml" ] || { echo "scripts/book.sh: $book/book.toml: no such file" >&2; exit 2; }
[ -f "$readme" ] || { echo "scripts/book.sh: $readme: no such file" >&2; exit 2; }
book_abs=$(realpath "$book")
case $out in
"$root" | "$root/target" | / | "$book_abs" | "$book_abs"/*)
	echo "scripts/book.sh: --out $out would be emptied by mdBook" >&2
	exit 2
	;;
esac
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/index.html" ] && [ ! -f "$out/html/index.html" ]; then
	echo "scripts/book.sh: $out is not empty and holds no rendered book: mdBook would empty it" >&2
	exit 2
fi

log=$root/target/book-check
rm -rf "$log"
mkdir -p "$log"


mdbook_version=0.5.4
tools=$root/target/tools
mdbook=$tools/bin/mdbook

part "mdBook $mdbook_version in target/tools"
if [ "$("$mdbook" --version 2>/dev/null || true)" = "mdbook v$mdbook_version" ]; then
	pass "$mdbook is mdbook v$mdbook_version"
else
	echo "installing mdbook $mdbook_version (cargo install, about a minute and a quarter)"
	if cargo install --locked --force --root "$tools" --no-default-features --features search \
		mdbook --version "$mdbook_version" >"$log/install-mdbook" 2>&1 &&
		[ "$("$mdbook" --version 2>/dev/null || true)" = "mdbook v$mdbook_version" ]; then
		pass "installed $mdbook: $("$mdbook" --version) ($(grep -o 'Finished .*' "$log/install-mdbook" || true))"
	else
		tail -30 "$log/install-mdbook"
		fail "cargo install mdbook --version $mdbook_version"
		part_end
		finish "book"
	fi
fi

part "mdbook build $book"
# Its log filter left at its default (INFO): MDBOOK_LOG would change the lines' format and could
# hide warnings.
st=0
env -u MDBOOK_LOG MDBOOK_BUILD__CREATE_MISSING=false "$mdbook" build "$book" -d "$out" \
	>"$log/mdbook.out" 2>"$log/mdbook.err" || st=$?
# The rendered pages: in $out, or in $out/html when book.toml has more than one [output].
html=$out
[ -f "$out/index.html" ] || [ ! -f "$out/html/index.html" ] || html=$out/html
built=false
if [ $st != 0 ]; then
	grep -vq '^ INFO ' "$log/mdbook.err" || cat "$log/mdbook.err"
	fail "mdbook build $book: exit $st"
else
	pass "mdbook build $book: exit 0, rendered in $html"
	built=true
fi
# Anything but an INFO line is a problem: WARN and ERROR lines, the lines that continue them
# (`\tCaused by:`, an HTML fragment), a preprocessor's own output.
if grep -vq '^ INFO ' "$log/mdbook.err"; then
	grep -v '^ INFO ' "$log/mdbook.err" | sed 's/^/      /'
	fail "mdbook build $book: $(grep -c '^ *WARN ' "$log/mdbook.err" || true) WARN and $(grep -c '^ *ERROR ' "$log/mdbook.err" || true) ERROR line(s), $(grep -vc '^ INFO ' "$log/mdbook.err") line(s) other than INFO on standard error (above)"
else
	pass "mdbook build $book: standard error has INFO lines only ($(wc -l <"$log/mdbook.err"))"
fi
if $built && [ ! -f "$html/index.html" ]; then
	fail "mdbook build $book: no $html/index.html"
	built=false
fi
# After a failed build, $out holds what an earlier build left, if anything: not checked.
$built || echo "not done: the charts and the rendered book's links (mdbook build failed)"

# charts — writes $html/charts.html
charts() {
	part "the benchmark charts: flagsplit report benchmarks/reference/*.json -o charts.html"
	# flagsplit's release binaries (Cargo decides what is fresh); `flagsplit report` runs the
	# flagsplit-report beside it, so both are built (a `cargo run` of flagsplit would build only
	# flagsplit and run whatever flagsplit-report is there).
	local bin=$root/target/release/flagsplit st
	if CARGO_TARGET_DIR=$root/target cargo build --release --locked --bin flagsplit --bin flagsplit-report >"$log/release-build" 2>&1; then
		pass "cargo build --release --bin flagsplit --bin flagsplit-report: $(grep -o 'Finished .*' "$log/release-build")"
	else
		tail -30 "$log/release-build"
		fail "cargo build --release --locked --bin flagsplit --bin flagsplit-report"
	fi
	if [ -x "$bin" ]; then
		st=0
		env -u FLAGSPLIT_EXEC_PATH "$bin" report benchmarks/reference/*.json -o "$html/charts.html" >"$log/report" 2>"$log/report.err" || st=$?
		if [ $st = 0 ] && [ -s "$html/charts.html" ]; then
			# It names the page it wrote on standard error: "flagsplit report: FILE (3 runs, 3 charts)".
			pass "$(cat "$log/report.err") ($(wc -c <"$html/charts.html") bytes)"
		else
			cat "$log/report" "$log/report.err"
			fail "flagsplit report benchmarks/reference/*.json -o $html/charts.html: exit $st"
		fi
	fi
}
if $built; then charts; fi

# man_pages — writes $html/man/NAME.html, one per page flagsplit-docgen generates
man_pages() {
	part "the manual pages: flagsplit-docgen's pages rendered by man(1) into man/NAME.html"
	local docs=$log/docs page name st
	if ! SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
		CARGO_TARGET_DIR=$root/target cargo run --locked --release -q -p flagsplit-docgen -- --out-dir "$docs" >"$log/docgen" 2>&1; then
		cat "$log/docgen"
		fail "cargo run -p flagsplit-docgen -- --out-dir $docs"
		return
	fi
	mkdir -p "$html/man"
	local rendered=()
	for page in "$docs"/man/man1/*.1; do
		name=$(basename "$page" .1)
		st=0
		MANWIDTH=100 MAN_KEEP_FORMATTING= man -l "$page" 2>"$log/man-$name.err" | col -bx >"$log/man-$name.txt" || st=$?
		if [ $st != 0 ] || [ ! -s "$log/man-$name.txt" ] || [ -s "$log/man-$name.err" ]; then
			cat "$log/man-$name.err"
			fail "man -l $page: exit $st, $(wc -l <"$log/man-$name.txt") lines"
			continue
		fi
		python3 - "$name" "$log/man-$name.txt" "$html/man/$name.html" <<'PY'
import html, sys
name, text, out = sys.argv[1], open(sys.argv[2], encoding="utf-8").read(), sys.argv[3]
open(out, "w", encoding="utf-8").write(
    '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
    f"<title>{html.escape(name)}(1)</title>"
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n'
    '<body style="max-width: 60em; margin: 2em auto; padding: 0 1em">\n'
    '<p><a href="../reference.html">The manual pages</a></p>\n'
    f'<pre style="font-family: monospace; line-height: 1.3">{html.escape(text)}</pre>\n</body>\n</html>\n'
)
PY
		rendered+=("$name")
	done
	pass "rendered ${#rendered[@]} manual page(s) into $html/man: ${rendered[*]}"
	# The reference chapter's table lists every page, and no other.
	local listed
	listed=$(grep -o '](man/[^)]*\.html)' "$book/src/reference.md" | sed 's#](man/##; s#\.html)##' | sort -u)
	if [ "$listed" = "$(printf '%s\n' "${rendered[@]}" | sort -u)" ]; then
		pass "$book/src/reference.md links every manual page flagsplit-docgen generates, and no other ($(wc -l <<<"$listed"))"
	else
		fail "$book/src/reference.md's manual pages differ from flagsplit-docgen's: $(diff <(echo "$listed") <(printf '%s\n' "${rendered[@]}" | sort -u) | grep '^[<>]' | tr '\n' ' ')"
	fi
}
if $built; then man_pages; fi

part "the moved sections: every section book/MOVED.md names exists where it says"
if [ -f "$book/MOVED.md" ]; then
	if python3 - "$book/MOVED.md" "$root" >"$log/moved" 2>&1 <<'PY'
import re, sys, os
moved, root = sys.argv[1], sys.argv[2]
text = open(moved, encoding="utf-8").read()
rows = text.split("<!-- moved:begin -->")[1].split("<!-- moved:end -->")[0].strip().split("\n")[2:]
bad = 0
checked = 0
def headings(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6} ", line):
            out.add(line.lstrip("#").strip())
    return out
for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 3:
        print(f"not a row of three cells: {row}"); bad += 1; continue
    for target in cells[2].split("; "):
        m = re.match(r"^`([^`]+)`(?: § (.+))?$", target)
        if not m:
            print(f"{cells[1]}: cannot read {target!r}"); bad += 1; continue
        path = os.path.join(root, m.group(1))
        checked += 1
        if not os.path.isfile(path):
            print(f"{cells[1]}: {m.group(1)} does not exist"); bad += 1
        elif m.group(2) and m.group(2) not in headings(path):
            print(f"{cells[1]}: {m.group(1)} has no section {m.group(2)!r}"); bad += 1
print(f"{len(rows)} sections, {checked} places, {bad} missing")
sys.exit(1 if bad or not rows else 0)
PY
	then
		pass "book/MOVED.md: $(tail -1 "$log/moved")"
	else
		sed 's/^/      /' "$log/moved"
		fail "book/MOVED.md: $(tail -1 "$log/moved")"
	fi
fi

part "links: the checker's self-test, the book's includes, the rendered book's links, the README's"
if python3 scripts/book-links.py --self-test >"$log/links-self-test" 2>&1; then
	pass "book-links.py --self-test: $(sed 's/^self-test: //' "$log/links-self-test")"
else
	cat "$log/links-self-test"
	fail "book-links.py --self-test"
fi
if python3 scripts/book-links.py includes "$book" >"$log/includes" 2>&1; then
	pass "$book's includes: $(tail -1 "$log/includes")"
else
	head -n -1 "$log/includes" | sed 's/^/      /'
	fail "$book's includes: $(tail -1 "$log/includes")"
fi
if $built; then
	if python3 scripts/book-links.py html "$html" >"$log/links-html" 2>&1; then
		pass "the rendered book's links: $(tail -1 "$log/links-html")"
	else
		head -n -1 "$log/links-html" | sed 's/^/      /'
		fail "the rendered book's links: $(tail -1 "$log/links-html")"
	fi
fi
if python3 scripts/book-links.py markdown "$readme" --root "$root" >"$log/links-readme" 2>&1; then
	pass "$readme's links: $(tail -1 "$log/links-readme")"
else
	head -n -1 "$log/links-readme" | sed 's/^/      /'
	fail "$readme's links: $(tail -1 "$log/links-readme")"
fi

part "the README's limits"
words=$(wc -w <"$readme")
[ "$words" -le 1200 ] && pass "$readme: $words words (at most 1,200)" || fail "$readme: $words words, more than 1,200"
line=$(grep -nx '## Quick start' "$readme" | head -1 | cut -d: -f1 || true)
if [ -z "$line" ]; then
	fail "$readme: no '## Quick start' line"
elif [ "$line" -le 40 ]; then
	pass "$readme: '## Quick start' at line $line (in the first 40)"
else
	fail "$readme: '## Quick start' at line $line, not in the first 40"
fi
part_end

echo
echo "times:"
printf '%s\n' "${times[@]}"
echo "book: $passes passed, $failures failed ($(($(date +%s) - checks_started)) s)"
finish "book"

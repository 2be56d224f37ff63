#!/usr/bin/env python3
"""Relative links of the rendered book and of Markdown files, checked offline (stdlib only).

    book-links.py html DIR            every .html file under DIR (the rendered book): each relative
                                      href/src must name a file inside DIR (a directory: its
                                      index.html), and its #fragment an id or name in that page
    book-links.py markdown FILE...    each relative Markdown link of FILE ([text](path),
                                      ![alt](path), [label]: path) must name a file or directory of
                                      the repository (--root DIR, default: the current directory);
                                      a #fragment of a link to a .md file (or of a fragment-only
                                      link) must be the GitHub anchor of one of its headings
    book-links.py includes BOOK       each {{#include}} and {{#rustdoc_include}} of the .md files
                                      of the book in BOOK (its book.toml's src) must name a file,
                                      its ANCHOR an `ANCHOR: name` line there, its line range lines
                                      of the file: mdBook includes nothing for a missing anchor or
                                      a range past the end, and says nothing
    book-links.py --self-test         the checks on small trees made in a temporary directory,
                                      with links known good and known broken

Relative: not http:, https:, mailto:, data:, javascript: (nor any other scheme), not starting
with //. A path starting with / is taken from the site's root: the book directory, or the
prefix of a <base href> (mdBook gives its 404.html the site-url as its base); in Markdown, the
repository root. A query (?x) is ignored.

Each broken link is printed as `PAGE: broken link HREF (why)`, then a count; the exit status is
1 when any link is broken, 2 on a usage error.
"""

import html.parser
import os
import re
import sys
import tempfile
import unicodedata
import urllib.parse

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def is_relative(url):
    """True for a link that stays on the site: no scheme, not protocol-relative."""
    url = url.strip()
    return not (SCHEME.match(url) or url.startswith("//"))


def inside(path, root):
    """True when path is root or lies under it (both absolute, normalised)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


# ---------------------------------------------------------------------------------------------
# HTML


class Page(html.parser.HTMLParser):
    """One HTML page's anchors (id and name attributes), <base href>, and href/src links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.links = []  # (attribute value, line)
        self.base = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag in ("a", "map")):
                self.anchors.add(value)
            elif name in ("href", "src"):
                if tag == "base" and name == "href":
                    if self.base is None:
                        self.base = value
                else:
                    self.links.append((value, self.getpos()[0]))

    handle_startendtag = handle_starttag


class Site:
    """The rendered book: pages parsed once, looked up by absolute path."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.pages = {}
        self.checked = 0  # relative links checked

    def page(self, path):
        if path not in self.pages:
            parser = Page()
            with open(path, encoding="utf-8", errors="replace") as f:
                parser.feed(f.read())
            parser.close()
            self.pages[path] = parser
        return self.pages[path]

    def html_files(self):
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".html") or name.endswith(".htm"):
                    yield os.path.join(dirpath, name)

    def site_prefix(self):
        """The URL path the book is served under: the first absolute <base href> of its pages
        (mdBook's 404.html has site-url there), else /."""
        for path in self.html_files():
            base = self.page(path).base
            if base and base.startswith("/") and not base.startswith("//"):
                return base if base.endswith("/") else base + "/"
        return "/"

    def check(self):
        """Every broken relative link of every page: (page, href, why)."""
        broken = {}
        prefix = self.site_prefix()
        for path in self.html_files():
            page = self.page(path)
            rel_page = os.path.relpath(path, self.root)
            for href, _line in page.links:
                if href.strip() and is_relative(href):
                    self.checked += 1
                why = self.check_link(path, page, href, prefix)
                if why:
                    key = (rel_page, href, why)
                    broken[key] = broken.get(key, 0) + 1
        # A link repeated in one page (print.html repeats every chapter's) is named once.
        return [(p, h, why if n == 1 else f"{why}; {n} times in the page") for (p, h, why), n in broken.items()]

    def check_link(self, path, page, href, prefix):
        href = href.strip()
        if not href or not is_relative(href):
            return None
        url, _, fragment = href.partition("#")
        url = url.split("?", 1)[0]
        fragment = urllib.parse.unquote(fragment)
        page_dir = os.path.dirname(path)
        if page.base is not None and is_relative(page.base):
            base = page.base.split("#", 1)[0].split("?", 1)[0]
            if base.startswith("/"):
                if not base.startswith(prefix.rstrip("/")):
                    return f"the page's <base href={page.base!r}> is outside the site {prefix}"
                page_dir = os.path.join(self.root, urllib.parse.unquote(base[len(prefix):]))
                if not base.endswith("/"):
                    page_dir = os.path.dirname(page_dir)
            else:
                page_dir = os.path.normpath(os.path.join(page_dir, urllib.parse.unquote(base)))
                if not base.endswith("/"):
                    page_dir = os.path.dirname(page_dir)
        if url == "":
            # A fragment-only link is checked against its own page, <base href> or not: mdBook's
            # 404.html has <base href="/"> and its heading's own #anchor link.
            target = path
        elif url.startswith("/"):
            if not (url + "/").startswith(prefix):
                return f"an absolute path outside the site's root {prefix}"
            target = os.path.join(self.root, urllib.parse.unquote(url[len(prefix):]))
        else:
            target = os.path.join(page_dir, urllib.parse.unquote(url))
        target = os.path.normpath(target)
        if os.path.exists(target):
            target = os.path.realpath(target)
        if not inside(target, self.root):
            return "leaves the book directory"
        if os.path.isdir(target):
            target = os.path.join(target, "index.html")
        if not os.path.isfile(target):
            return f"no file {os.path.relpath(target, self.root)}"
        if fragment and (target.endswith(".html") or target.endswith(".htm")):
            if fragment not in self.page(target).anchors:
                return f"no id or name {fragment!r} in {os.path.relpath(target, self.root)}"
        return None


def check_html(root, counts=None):
    """Every broken relative link of the book in root; counts["checked"] is set to the number of
    relative links checked."""
    if not os.path.isdir(root):
        raise SystemExit(f"book-links.py: {root}: not a directory")
    site = Site(root)
    broken = site.check()
    if counts is not None:
        counts["checked"] = site.checked
        counts["pages"] = len(site.pages)
    return broken


# ---------------------------------------------------------------------------------------------
# Markdown

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']|<[a-zA-Z][^>]*\bid\s*=\s*[\"']([^\"']+)[\"']")


def outside_fences(text):
    """The lines of a Markdown text outside fenced code blocks: (line number, line)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            closing = m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
            if closing and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line


def prose_lines(text):
    """The lines outside fenced code blocks, code spans blanked out: (line number, line)."""
    for number, line in outside_fences(text):
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", lambda c: " " * len(c.group(0)), line)


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown: code spans, links, images and
    emphasis reduced to their text, HTML tags removed."""
    text = re.sub(r"(`+)((?:(?!\1).)+?)\1", lambda m: m.group(2).strip(), raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*{1,3})(\S(?:.*?\S)?)\1", r"\2", text)
    text = re.sub(r"(?<![\w])(_{1,3})(\S(?:.*?\S)?)\1(?![\w])", r"\2", text)
    return text


def slug(text):
    """GitHub's anchor for a heading's text: lowercase; every character removed but letters,
    marks, digits, connector punctuation (_), spaces and -; each space a -."""
    out = []
    for ch in text.strip().lower():
        if ch == " ":
            out.append("-")
        elif ch == "-" or unicodedata.category(ch)[0] in "LMN" or unicodedata.category(ch) == "Pc":
            out.append(ch)
    return "".join(out)


ANCHORS = {}


def anchors_of(path):
    """The anchors a Markdown file's headings get on GitHub (ATX `## x` and setext `x` over
    `---`/`===`; repeats numbered -1, -2, ...), and the ids and names of its HTML elements."""
    if path in ANCHORS:
        return ANCHORS[path]
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    seen = {}
    anchors = set()
    previous = None  # the line before, when it could be a setext heading's text
    for _number, line in outside_fences(text):
        m = HEADING.match(line)
        heading = m.group(2) if m else None
        if heading is None and previous and SETEXT.match(line):
            heading = previous
        if heading is not None:
            base = slug(heading_text(heading))
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
        for a, b in HTML_ANCHOR.findall(line):
            anchors.add(a or b)
        plain = line.strip() and not m and not SETEXT.match(line) and not re.match(r" {0,3}([>|*+-]|\d+[.)]|<)", line)
        previous = line.strip() if plain else None
    ANCHORS[path] = anchors
    return anchors


def markdown_links(text):
    """The link destinations of a Markdown text outside code: (line number, destination)."""
    for number, line in prose_lines(text):
        for m in INLINE_LINK.finditer(line):
            yield number, m.group(1)
        m = REFERENCE_DEF.match(line)
        if m:
            yield number, m.group(1)


def check_markdown(files, root, counts=None):
    """Every broken relative link of the Markdown files: (file, href, why); counts["checked"] is
    set to the number of relative links checked."""
    root = os.path.realpath(root)
    broken = []
    checked = 0
    for md in files:
        with open(md, encoding="utf-8", errors="replace") as f:
            text = f.read()
        md_abs = os.path.realpath(md)
        shown = os.path.relpath(md_abs, root) if inside(md_abs, root) else md
        for number, dest in markdown_links(text):
            href = dest[1:-1] if dest.startswith("<") and dest.endswith(">") else dest
            if not href or not is_relative(href):
                continue
            checked += 1
            why = check_markdown_link(md_abs, href, root)
            if why:
                broken.append((f"{shown}:{number}", href, why))
    if counts is not None:
        counts["checked"] = checked
    return broken


def check_markdown_link(md, href, root):
    url, _, fragment = href.partition("#")
    url = urllib.parse.unquote(url.split("?", 1)[0])
    fragment = urllib.parse.unquote(fragment)
    if url == "":
        target = md
    elif url.startswith("/"):
        target = os.path.join(root, url.lstrip("/"))
    else:
        target = os.path.join(os.path.dirname(md), url)
    target = os.path.normpath(target)
    if os.path.exists(target):
        target = os.path.realpath(target)
    if not inside(target, root):
        return "leaves the repository"
    if not os.path.exists(target):
        return f"no file {os.path.relpath(target, root)}"
    if fragment and target.endswith(".md") and os.path.isfile(target):
        if fragment not in anchors_of(target):
            return f"no heading with anchor #{fragment} in {os.path.relpath(target, root)}"
    return None


# ---------------------------------------------------------------------------------------------
# mdBook's includes

# mdBook's own pattern (mdbook-driver's links.rs): an escaped \{{#...}} or {{#TYPE ARGS}}.
INCLUDE = re.compile(r"\\\{\{#.*\}\}|\{\{\s*#([a-zA-Z0-9_]+)\s+([^}]+)\}\}")
ANCHOR_LINE = re.compile(r"ANCHOR:\s*([\w_-]+)")


def book_src(book):
    """The source directory of the book in directory book (book.toml's [book] src, else src)."""
    import tomllib

    with open(os.path.join(book, "book.toml"), "rb") as f:
        config = tomllib.load(f)
    return os.path.join(book, config.get("book", {}).get("src", "src"))


def check_includes(book, counts=None):
    """Every include of the book's .md files that includes nothing or fails: (file:line, the
    include, why)."""
    src = book_src(book)
    broken = []
    checked = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".md"):
                continue
            md = os.path.join(dirpath, name)
            with open(md, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                if m.group(1) not in ("include", "rustdoc_include"):
                    continue
                checked += 1
                number = text.count("\n", 0, m.start()) + 1
                why = check_include(dirpath, m.group(2).split()[0])
                if why:
                    broken.append((f"{os.path.relpath(md, book)}:{number}", m.group(0), why))
    if counts is not None:
        counts["checked"] = checked
    return broken


def check_include(directory, arg):
    path, _, selection = arg.partition(":")
    target = os.path.normpath(os.path.join(directory, path))
    if not os.path.isfile(target):
        return f"no file {target}"
    with open(target, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    first, _, last = selection.partition(":")
    if first and not first.isdigit():
        if not any(m.group(1) == first for line in lines for m in [ANCHOR_LINE.search(line)] if m):
            return f"no line 'ANCHOR: {first}' in {target}"
    elif first.isdigit():
        start = int(first)
        if start > len(lines) or start == 0 and len(lines) == 0:
            return f"line {start} is past the end of {target} ({len(lines)} lines)"
        if last.isdigit() and int(last) < start:
            return f"the range {start}:{last} is empty"
    elif last.isdigit() and int(last) == 0:
        return "the range :0 is empty"
    return None


# ---------------------------------------------------------------------------------------------
# Output, self-test, command line


def report(broken, counts):
    for where, href, why in broken:
        print(f"{where}: broken link {href} ({why})")
    print(f"{len(broken)} broken link(s) of {counts['checked']} relative link(s) checked")
    return 1 if broken else 0


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test():
    """Both checks on trees with known links: the good ones pass, each broken one is named."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        book = os.path.join(tmp, "book")
        write(os.path.join(tmp, "outside.html"), "<p>outside</p>")
        write(os.path.join(book, "index.html"), """<!DOCTYPE html><html><head>
<link rel="stylesheet" href="css/style.css"><script src="book.js"></script></head><body>
<h1 id="top">Index</h1>
<a href="a.html">good</a> <a href="a.html#here">good anchor</a> <a href="a.html#old-name">good name</a>
<a href="sub/">good directory</a> <a href="sub/page.html#deep">good deep</a> <a href="#top">good self</a>
<a href="#">top of page</a> <a href="a.html?x=1#here">good with query</a> <a href="a%20b.html">good escaped</a>
<a href="https://example.invalid/x">absolute</a> <a href="mailto:x@example.invalid">mail</a>
<a href="//example.invalid/y">protocol-relative</a> <a href="javascript:void(0)">script</a>
<img src="data:image/png;base64,AAAA">
<a href="missing.html">broken file</a>
<a href="a.html#nowhere">broken anchor</a>
<a href="#nothere">broken self anchor</a>
<a href="../outside.html">leaves</a>
<iframe src="gone/frame.html"></iframe>
</body></html>""")
        write(os.path.join(book, "a.html"), '<h2 id="here">A</h2><a name="old-name"></a><a href="index.html#top">back</a>')
        write(os.path.join(book, "a b.html"), "<p>space</p>")
        write(os.path.join(book, "css/style.css"), "body {}")
        write(os.path.join(book, "book.js"), "")
        write(os.path.join(book, "sub/index.html"), '<a href="../a.html#here">up</a>')
        write(os.path.join(book, "sub/page.html"), '<p id="deep"></p><a href="/a.html">site root</a>')
        write(os.path.join(book, "404.html"), '<base href="/"><h1 id="lost"><a href="#lost">Lost</a></h1><a href="index.html#top">home</a><a href="/">root</a><a href="nope.html">broken under base</a>')
        html_counts = {}
        got = sorted((p, h) for p, h, _ in check_html(book, html_counts))
        want = sorted([
            ("index.html", "missing.html"),
            ("index.html", "a.html#nowhere"),
            ("index.html", "#nothere"),
            ("index.html", "../outside.html"),
            ("index.html", "gone/frame.html"),
            ("404.html", "nope.html"),
        ])
        if got != want:
            problems.append(f"html: found {got}, expected {want}")

        repo = os.path.join(tmp, "repo")
        write(os.path.join(repo, "docs/guide.md"), """# The `guide`: setting *things* up

## Quick start

## Quick start

## What's new in v1.2?

<a name="custom"></a>

Setext heading_name
-------------------
""")
        write(os.path.join(repo, "src/lib.rs"), "")
        write(os.path.join(repo, "README.md"), """# Project

## Quick start

[good](docs/guide.md) [good anchor](docs/guide.md#quick-start) [repeat](docs/guide.md#quick-start-1)
[code heading](docs/guide.md#the-guide-setting-things-up) [punctuation](docs/guide.md#whats-new-in-v12)
[html anchor](docs/guide.md#custom) [dir](src/) [source line](src/lib.rs#L1) [self](#quick-start)
[setext](docs/guide.md#setext-heading_name) [^1]

[^1]: a footnote, not a link.
[titled](docs/guide.md "Guide") ![image](src/lib.rs) [web](https://example.invalid/a.md)
`[in code](missing-in-code.md)`

```
[in a fence](missing-in-fence.md)
```

[broken file](docs/missing.md)
[broken anchor](docs/guide.md#quick-stop)
[broken self](#nowhere)
[leaves](../outside.md)

[ref]: docs/gone.md
""")
        md_counts = {}
        got = sorted(h for _, h, _ in check_markdown([os.path.join(repo, "README.md")], repo, md_counts))
        want = sorted(["docs/missing.md", "docs/guide.md#quick-stop", "#nowhere", "../outside.md", "docs/gone.md"])
        if got != want:
            problems.append(f"markdown: found {got}, expected {want}")
        write(os.path.join(tmp, "inc/book.toml"), '[book]\ntitle = "t"\nsrc = "pages"\n')
        write(os.path.join(tmp, "inc/code/demo.rs"), "// ANCHOR: main\nfn main() {}\n// ANCHOR_END: main\n")
        write(os.path.join(tmp, "inc/pages/chapter.md"), """# Chapter

```rust
{{#include ../code/demo.rs}}
{{#include ../code/demo.rs:main}}
{{#rustdoc_include ../code/demo.rs:2}}
{{#include ../code/demo.rs:2:3}}
{{#include ../code/demo.rs::2}}
\\{{#include escaped.rs:nothing}}
{{#playground ../code/demo.rs}}
```

{{#include ../code/demo.rs:mian}}
{{#include ../code/demo.rs:9}}
{{#include ../code/demo.rs:3:2}}
{{#rustdoc_include missing.rs}}
""")
        inc_counts = {}
        got = sorted(i for _, i, _ in check_includes(os.path.join(tmp, "inc"), inc_counts))
        want = sorted(["{{#include ../code/demo.rs:mian}}", "{{#include ../code/demo.rs:9}}",
                       "{{#include ../code/demo.rs:3:2}}", "{{#rustdoc_include missing.rs}}"])
        if got != want:
            problems.append(f"includes: found {got}, expected {want}")
    for p in problems:
        print(f"self-test: FAILED: {p}")
    if not problems:
        print(f"self-test: html: the 6 broken links of {html_counts['checked']} relative ones found "
              "(a missing file, a missing anchor, one in the same page, a link leaving the book, "
              "a missing iframe, a broken link under <base href>), the others passed; markdown: "
              f"the 5 broken links of {md_counts['checked']} found (a missing file, a missing "
              "heading anchor, one in the same file, a link leaving the repository, a reference "
              "definition), the others passed, the links in code ignored; includes: the 4 "
              f"broken ones of {inc_counts['checked']} found (a missing anchor, a line past the end, "
              "an empty range, a missing file), the others passed")
    return 1 if problems else 0


def main(argv):
    if argv[:1] == ["--self-test"] and len(argv) == 1:
        return self_test()
    if len(argv) == 2 and argv[0] == "html":
        counts = {}
        return report(check_html(argv[1], counts), counts)
    if len(argv) == 2 and argv[0] == "includes":
        if not os.path.isfile(os.path.join(argv[1], "book.toml")):
            print(f"book-links.py: {argv[1]}: no book.toml", file=sys.stderr)
            return 2
        counts = {}
        broken = check_includes(argv[1], counts)
        for where, include, why in broken:
            print(f"{where}: broken include {include} ({why})")
        print(f"{len(broken)} broken include(s) of {counts['checked']} checked")
        return 1 if broken else 0
    if len(argv) >= 2 and argv[0] == "markdown":
        args, root = argv[1:], "."
        if "--root" in args:
            i = args.index("--root")
            if i + 1 >= len(args):
                print("book-links.py: --root needs a directory", file=sys.stderr)
                return 2
            root = args[i + 1]
            args = args[:i] + args[i + 2:]
        if not args:
            print("book-links.py: markdown needs a file", file=sys.stderr)
            return 2
        for md in args:
            if not os.path.isfile(md):
                print(f"book-links.py: {md}: no such file", file=sys.stderr)
                return 2
        counts = {}
        return report(check_markdown(args, root, counts), counts)
    print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

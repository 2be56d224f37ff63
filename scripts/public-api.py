#!/usr/bin/env python3
"""The public API of a crate, one line per item, from the HTML that `cargo doc` writes.

Usage: scripts/public-api.py DOC_DIR          (DOC_DIR: target/doc/<crate>)

Stable rustdoc writes only HTML (its JSON output needs a nightly compiler, which
cargo-public-api requires), so this reads the HTML: every item page (struct, enum, trait,
function, constant, static, type alias, macro, module), and on each type's page its fields,
variants, inherent methods and associated items, and the traits it implements (auto-trait and
blanket implementations left out: they follow from the fields). Items marked #[doc(hidden)]
have no page, so they are not listed. Each line is `KIND PATH: DECLARATION` with the
declaration's text as rustdoc shows it; the lines are sorted, so a change to the surface is a
diff of this listing. The HTML layout belongs to the rustdoc that wrote it: a new toolchain may
change the listing without a change to the crate (regenerate it with the test command's
toolchain).
"""

import html
import os
import re
import sys

KINDS = ("struct", "enum", "trait", "fn", "constant", "static", "type", "macro", "union")


def text(fragment):
    """The visible text of an HTML fragment, whitespace collapsed."""
    fragment = re.sub(r"<span class=\"where\">", " ", fragment)
    fragment = re.sub(r"<summary[^>]*>.*?</summary>", "", fragment, flags=re.S)
    fragment = re.sub(r"<[^>]+>", "", fragment)
    return re.sub(r"\s+", " ", html.unescape(fragment)).strip()


def decl(page):
    m = re.search(r'<pre class="rust item-decl"><code>(.*?)</code></pre>', page, re.S)
    return text(m.group(1)) if m else ""


def module_path(doc_dir, rel):
    crate = os.path.basename(os.path.normpath(doc_dir))
    parts = [crate] + [p for p in os.path.dirname(rel).split(os.sep) if p]
    return "::".join(parts)


def listing(doc_dir):
    out = []
    for dirpath, _, files in os.walk(doc_dir):
        for name in files:
            if not name.endswith(".html"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), doc_dir)
            page = open(os.path.join(dirpath, name), encoding="utf-8").read()
            if name == "index.html":
                path = module_path(doc_dir, rel)
                out.append(f"mod {path}")
                for m in re.finditer(r'<code>pub use (.*?);</code>', page, re.S):
                    out.append(f"use {path}::{{{text(m.group(1))}}}")
                continue
            kind, _, item = name[: -len(".html")].partition(".")
            if kind not in KINDS or not item:
                continue
            if "Redirecting to" in page and not decl(page):
                continue  # a re-export's redirect page: the item is listed where it is shown
            path = f"{module_path(doc_dir, rel)}::{item}"
            out.append(f"{kind} {path}: {decl(page)}")
            if kind not in ("struct", "enum", "trait", "union"):
                continue
            # Where the trait implementations start, and where the ones not listed start.
            cut = [page.find(f'id="{s}"') for s in (
                "trait-implementations", "synthetic-implementations", "blanket-implementations",
                "implementors", "dyn-compatibility")]
            trait_start = cut[0] if cut[0] >= 0 else len(page)
            rest = [c for c in cut[1:] if c >= 0]
            trait_end = min(rest) if rest else len(page)
            found = [c for c in cut if c >= 0]
            own = page[: min(found) if found else len(page)]
            for m in re.finditer(r'id="structfield\.(\w+)"[^>]*>.*?<code>(.*?)</code>', own, re.S):
                out.append(f"field {path}.{m.group(1)}: {text(m.group(2))}")
            for m in re.finditer(r'<section id="variant\.(\w+)"[^>]*>.*?<h3 class="code-header">(.*?)</h3>', own, re.S):
                out.append(f"variant {path}::{text(m.group(2))}")
            for m in re.finditer(r'<section id="(method|tymethod|associatedconstant|associatedtype)\.(\w+)"[^>]*>.*?<h4 class="code-header">(.*?)</h4>', own, re.S):
                out.append(f"{m.group(1)} {path}::{m.group(2)}: {text(m.group(3))}")
            traits = page[trait_start:trait_end]
            for m in re.finditer(r'<section id="impl-[^"]*" class="impl">.*?<h3 class="code-header">(.*?)</h3>', traits, re.S):
                out.append(f"impl {path}: {text(m.group(1))}")
    return sorted(set(out))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: scripts/public-api.py target/doc/<crate>")
    lines = listing(sys.argv[1])
    if not lines:
        sys.exit(f"no item found under {sys.argv[1]}")
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()

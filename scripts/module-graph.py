#!/usr/bin/env python3
"""The module graph of a crate's `src/`: which module names which, through `crate::` and
`super::` paths (in `use` items and in code), with comments, string literals and tests left out.

Each file is a module (`a/mod.rs` and `a.rs` are `a`); a path names the longest module it
reaches (`crate::probe::library::Library` names `probe::library`, `crate::probe::Library` names
`probe`, whose re-export it goes through), and a path through the crate root's re-exports names
the module the item comes from (`crate::Spec`, with `pub use model::Spec;` in lib.rs, names
`model`). A module may name its own submodules to declare and
re-export them (`mod x; pub use x::Y;`): that edge counts too, so a submodule that names its
parent makes a circle.

Usage: scripts/module-graph.py SRC_DIR [--layers "a b | c d | ..."]
Prints the edges, then every circle (a strongly connected component of more than one module);
exits 1 when there is one. With --layers (lowest first, `|` between layers, a module's
submodules in its layer), also every edge from a layer to a higher one, and exits 1 on one.
"""
import os
import re
import sys


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3]  # drop .rs
    parts = rel.split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def strip(text):
    """The code without comments, string and char literals, and `#[cfg(test)]` items."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 20]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            i += len(re.match(r"'(\\.|[^\\'])'", text[i:i + 4]).group(0))
        else:
            out.append(c)
            i += 1
    code = "".join(out)
    # `#[cfg(test)]` on an item: drop the item (to its matching brace, or its semicolon).
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*", code)
        if not m:
            break
        j = m.end()
        depth = 0
        k = j
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            elif code[k] == ";" and depth == 0:
                k += 1
                break
            k += 1
        code = code[:m.start()] + code[k:]
    return code


def expand_use_groups(code):
    """`use a::{b, c::{d}}` becomes `a::b a::c::d`, so that each path is seen whole."""
    def expand(prefix, body):
        items, depth, cur = [], 0, ""
        for ch in body:
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        items.append(cur)
        paths = []
        for item in items:
            item = item.strip()
            if not item:
                continue
            m = re.match(r"^(.*?)::\{(.*)\}$", item, re.S)
            if m:
                paths += expand(prefix + m.group(1).strip() + "::", m.group(2))
            else:
                paths.append(prefix + item)
        return paths

    out = []
    for m in re.finditer(r"\buse\s+([^;]*);", code, re.S):
        stmt = m.group(1)
        g = re.match(r"^(.*?)::\{(.*)\}$", stmt.strip(), re.S)
        out += expand(g.group(1).strip() + "::", g.group(2)) if g else [stmt.strip()]
    return " ".join(out) + " " + re.sub(r"\buse\s+[^;]*;", " ", code)


def main():
    argv = sys.argv[1:]
    layers = None
    if "--layers" in argv:
        i = argv.index("--layers")
        layers = [layer.split() for layer in argv[i + 1].split("|")]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    src = args[0]
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                files[module_of(src, path)] = path
    # Test-only modules (`#[cfg(test)] mod tests;` in their parent) are not part of the graph.
    test_modules = set()
    for mod, path in files.items():
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text):
            test_modules.add((mod + "::" if mod else "") + m.group(1))
    modules = set(files) - test_modules
    edges = {m: set() for m in modules}

    def resolve(mod, head, rest):
        """The longest module a path reaches, or None."""
        base = mod.split("::") if mod else []
        if head == "crate":
            base = []
        elif head == "super":
            base = base[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif head != "self":
            return None
        target = "::".join(base)
        for part in rest:
            if part == "self":
                break
            cand = (target + "::" if target else "") + part
            if cand in modules:
                target = cand
            else:
                break
        return target

    # The crate root's re-exports (`pub use model::{Spec, PolicyChoice};` in lib.rs): a path
    # through the root (`crate::PolicyChoice`) names the module the item comes from.
    root_items = {}
    if "" in files:
        root = strip(open(files[""], encoding="utf-8").read())
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", root, re.S):
            for path in expand_use_groups("use " + m.group(1) + ";").split():
                parts = [p for p in path.split("::") if p]
                if parts and parts[0] == "crate":
                    parts = parts[1:]
                target = ""
                for part in parts[:-1]:
                    cand = (target + "::" if target else "") + part
                    if cand not in modules:
                        break
                    target = cand
                if target:
                    root_items[parts[-1]] = target

    for mod in sorted(modules):
        code = expand_use_groups(strip(open(files[mod], encoding="utf-8").read()))
        # Local names of modules: submodules, and modules brought in by `use` (`use crate::probe::{self}`).
        aliases = {}
        for child in modules:
            if child.rsplit("::", 1)[0] == mod and "::" in child or (mod == "" and "::" not in child):
                aliases[child.rsplit("::", 1)[-1]] = child
        for m in re.finditer(r"\b(crate|super|self)((?:::\w+)*)(?:\s+as\s+(\w+))?", code):
            head, rest = m.group(1), [p for p in m.group(2).split("::") if p]
            target = resolve(mod, head, rest)
            if target is None:
                continue
            names = [p for p in rest if p != "self"]
            full = "::".join(([] if head == "crate" else []) + names)
            if target and (m.group(2).endswith("::self") or target.endswith(names[-1] if names else "\0")):
                aliases[m.group(3) or target.rsplit("::", 1)[-1]] = target
            if target == "" and names and names[0] in root_items:
                target = root_items[names[0]]
            if target != mod and target in modules and target != "":
                edges[mod].add(target)
        for m in re.finditer(r"(?<![:\w])(\w+)((?:::\w+)+)", code):
            alias = m.group(1)
            if alias in ("crate", "super", "self") or alias not in aliases:
                continue
            target = aliases[alias]
            for part in m.group(2).split("::")[1:]:
                cand = target + "::" + part
                if cand in modules:
                    target = cand
                else:
                    break
            if target != mod and target in modules:
                edges[mod].add(target)
    for mod in sorted(edges):
        for t in sorted(edges[mod]):
            print(f"{mod or 'crate'} -> {t}")
    # strongly connected components (Tarjan)
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    bad = False
    if comps:
        for c in comps:
            print("circle: " + " <-> ".join(c))
        bad = True
    if layers is not None:
        def layer_of(m):
            top = m.split("::")[0]
            for n, layer in enumerate(layers):
                if top in layer:
                    return n
            return None
        for m in sorted(modules):
            if m and layer_of(m) is None:
                print(f"not in any layer: {m}")
                bad = True
        for m in sorted(edges):
            for t in sorted(edges[m]):
                if m and layer_of(m) is not None and layer_of(t) is not None and layer_of(t) > layer_of(m):
                    print(f"upward: {m} (layer {layer_of(m) + 1}) -> {t} (layer {layer_of(t) + 1})")
                    bad = True
    if bad:
        sys.exit(1)
    print(f"no circle among {len(modules)} modules" + (f", every edge to its own layer or a lower one of {len(layers)}" if layers else ""))


if __name__ == "__main__":
    main()

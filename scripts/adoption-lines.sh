#!/usr/bin/env bash
# How many lines a library writes to adopt flagsplit-config, counted on the guide's zstd-demo (one
# facility, a pure provider and one linking libzstd), as crates/config/GUIDE.md gives its files:
# in Cargo.toml the dependency lines on flagsplit-config and flagsplit-info (with their section
# header when the section holds nothing else) and every line of the [package.metadata.flagsplit*]
# tables; all of build.rs; in src/lib.rs the BUILD_INFO declaration; and any file the library has
# only for flagsplit-config (a table in src/spec.rs, a probe in compat/). Blank lines and comments
# do not count. Fails above 20. For comparison it counts examples/zstd the same way: the same
# library with its table in Rust, its own probe and a shim (not held to the limit).
#
# Usage: scripts/adoption-lines.sh        (run by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/checks.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

note "lines written to adopt flagsplit-config"
python3 - crates/config/GUIDE.md "$work/guide" <<'EOF'
import os, re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for i, line in enumerate(lines):
    m = re.fullmatch(r"<!-- file: (zstd-demo/\S+) -->", line)
    if m:
        k = i + 2
        while not lines[k].startswith("```"):
            k += 1
        path = os.path.join(sys.argv[2], m.group(1))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w", encoding="utf-8").write("\n".join(lines[i + 2:k]) + "\n")
EOF
# count DIR — prints "FILE: N" lines and "total: N"
count() {
	python3 - "$1" <<'EOF'
import os, re, sys
root = sys.argv[1]
def code(text, comment):
    return [l for l in text.split("\n") if l.strip() and not l.strip().startswith(comment)]
counts = {}
# Cargo.toml
section, kept, sections = None, [], {}
for line in code(open(os.path.join(root, "Cargo.toml")).read(), "#"):
    m = re.match(r"\s*\[+([^\]]+)\]+", line)
    if m:
        section = m.group(1).strip()
        sections.setdefault(section, [])
        continue
    sections[section].append(line)
n = 0
for name, body in sections.items():
    if name.startswith("package.metadata.flagsplit"):
        n += 1 + len(body)
    elif name in ("dependencies", "build-dependencies", "dev-dependencies"):
        ours = [l for l in body if re.match(r"\s*flagsplit-(config|info)\s*=", l)]
        n += len(ours) + (1 if ours and len(ours) == len(body) else 0)
counts["Cargo.toml"] = n
counts["build.rs"] = len(code(open(os.path.join(root, "build.rs")).read(), "//"))
lib = code(open(os.path.join(root, "src/lib.rs")).read(), "//")
counts["src/lib.rs (BUILD_INFO)"] = sum(1 for l in lib if re.search(r"BUILD_INFO|flagsplit_info|build_info\.rs", l))
for extra in ["src/spec.rs"] + sorted("compat/" + f for f in (os.listdir(os.path.join(root, "compat")) if os.path.isdir(os.path.join(root, "compat")) else []) if f.startswith("probe")):
    p = os.path.join(root, extra)
    if os.path.exists(p):
        text = open(p).read()
        if extra.endswith(".c"):
            text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        counts[extra] = len(code(text, "//"))
for k, v in counts.items():
    print(f"{k}: {v}")
print(f"total: {sum(counts.values())}")
EOF
}
count "$work/guide/zstd-demo" >"$work/guide.txt"
count examples/zstd >"$work/rust.txt"
sed 's/^/  guide zstd-demo, /' "$work/guide.txt"
sed 's/^/  examples\/zstd (the table in Rust), /' "$work/rust.txt"
total=$(sed -n 's/^total: //p' "$work/guide.txt")
[ "$total" -le 20 ] && pass "the guide's zstd-demo adopts flagsplit-config in $total lines (at most 20); the same library with its table in Rust: $(sed -n 's/^total: //p' "$work/rust.txt")" ||
	fail "the guide's zstd-demo takes $total lines to adopt flagsplit-config (more than 20)"
finish "adoption lines"

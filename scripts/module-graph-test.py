#!/usr/bin/env python3
"""Tests of scripts/module-graph.py on small crates written to a temporary directory: each way of
naming a module of a higher layer (a path through the module, a `use` of it, a path through the
crate root's re-export), a circle, and a clean crate. Run by scripts/test.sh."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "module-graph.py")

CASES = [
    # (name, files, layers, expected exit status, a line the output must have)
    ("an upward path through the root's re-export",
     {"lib.rs": "mod low;\nmod high;\npub use high::Thing;\n",
      "low.rs": "pub fn f() -> crate::Thing { crate::Thing }\n",
      "high.rs": "pub struct Thing;\n"},
     "low | high", 1, "upward: low (layer 1) -> high (layer 2)"),
    ("an upward `use` through the root's grouped re-export",
     {"lib.rs": "mod low;\nmod high;\npub use high::{Other, Thing};\n",
      "low.rs": "use crate::{Thing};\npub fn f() -> Thing { Thing }\n",
      "high.rs": "pub struct Thing;\npub struct Other;\n"},
     "low | high", 1, "upward: low (layer 1) -> high (layer 2)"),
    ("an upward path through the module",
     {"lib.rs": "mod low;\nmod high;\n",
      "low.rs": "pub fn f() -> crate::high::Thing { crate::high::Thing }\n",
      "high.rs": "pub struct Thing;\n"},
     "low | high", 1, "upward: low (layer 1) -> high (layer 2)"),
    ("a circle",
     {"lib.rs": "mod a;\nmod b;\n",
      "a.rs": "pub use crate::b::B;\npub struct A;\n",
      "b.rs": "pub use crate::a::A;\npub struct B;\n"},
     "a b", 1, "circle: a <-> b"),
    ("a downward path through the root's re-export",
     {"lib.rs": "mod low;\nmod high;\npub use low::Thing;\n",
      "high.rs": "pub fn f() -> crate::Thing { crate::Thing }\n",
      "low.rs": "pub struct Thing;\n"},
     "low | high", 0, "high -> low"),
    ("a name in a comment or a string is no edge",
     {"lib.rs": "mod low;\nmod high;\npub use high::Thing;\n",
      "low.rs": "// crate::Thing\npub const S: &str = \"crate::Thing\";\n",
      "high.rs": "pub struct Thing;\n"},
     "low | high", 0, "no circle among 3 modules, every edge to its own layer or a lower one of 2"),
]

failures = 0
for name, files, layers, status, line in CASES:
    with tempfile.TemporaryDirectory() as d:
        for path, text in files.items():
            with open(os.path.join(d, path), "w", encoding="utf-8") as f:
                f.write(text)
        run = subprocess.run([sys.executable, SCRIPT, d, "--layers", layers], capture_output=True, text=True)
        if run.returncode == status and line in run.stdout.splitlines():
            print(f"ok:   module-graph.py: {name}: exit {status}, says '{line}'")
        else:
            failures += 1
            print(f"FAIL: module-graph.py: {name}: exit {run.returncode} (want {status}), output:\n{run.stdout}{run.stderr}")
sys.exit(1 if failures else 0)

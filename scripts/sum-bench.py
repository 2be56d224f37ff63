#!/usr/bin/env python3
"""Whole-process timings of `flagsplit sha1sum`/`md5sum`/`sha256sum` on files, beside
`openssl dgst` and coreutils, in interleaved rounds (every command once per round, so that drift
and other load affect all alike); medians of wall, user and system time, and ratios.

Usage: scripts/sum-bench.py [--flagsplit EXE] [--rounds N] [--dir DIR] [--one-core]
                            [--base EXE] CASE...

CASE is one of:
  cached     one 300 MiB file in the page cache
  uncached   one 4 GiB file dropped from the page cache before every run (`dd iflag=nocache
             count=0`, which drops that file's pages only); coreutils is left out (disk-bound, ~10 s
             a run)
  small      10,000 files of 4 KiB in one command
  rss        peak RSS of each flagsplit command on a 1 GiB file (GNU time's %M)

--one-core runs every command under `taskset -c 0`. --base EXE adds another flagsplit (an earlier
build, say) as one more contender. The files are made once in DIR (default
target/sum-bench) from /dev/urandom and kept. Prints the machine (CPU model, cores, load before
and after) and one Markdown table per case; ratio = other's wall / flagsplit's wall (above 1:
flagsplit is faster).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

MIB = 1 << 20

ALGORITHMS = [
    # (label, flagsplit arguments, openssl digest, coreutils command)
    ("sha1 (collision detection)", ["sha1sum"], "-sha1", "sha1sum"),
    ("sha1 --no-collision-detection", ["sha1sum", "--no-collision-detection"], "-sha1", "sha1sum"),
    ("md5", ["md5sum"], "-md5", "md5sum"),
    ("sha256", ["sha256sum"], "-sha256", "sha256sum"),
]


def make_file(path, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    with open("/dev/urandom", "rb") as src, open(path + ".tmp", "wb") as out:
        left = size
        while left:
            chunk = src.read(min(left, 16 * MIB))
            out.write(chunk)
            left -= len(chunk)
    os.rename(path + ".tmp", path)


def drop_cache(paths):
    """Drops the files' pages from the page cache (GNU dd's `nocache` with `count=0` drops the
    whole file), and only theirs: other work on the machine keeps its cache."""
    for p in paths:
        subprocess.run(["dd", f"if={p}", "iflag=nocache", "count=0", "status=none"], check=True)


def run(argv, before=None):
    """Wall, user and system seconds of one run of argv (stdout discarded), from wait4."""
    if before:
        before()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)}")
    return wall, usage.ru_utime, usage.ru_stime


def rounds(contenders, n, before=None):
    """contenders: [(name, argv)]; every one once per round, n rounds; medians per name."""
    times = {name: [] for name, _ in contenders}
    for _ in range(n):
        for name, argv in contenders:
            times[name].append(run(argv, before))
    return {
        name: tuple(statistics.median(t[i] for t in ts) for i in range(3))
        for name, ts in times.items()
    }


def table(title, results, algorithm_rows):
    print(f"\n### {title}\n")
    print("| command | contender | wall s | user s | sys s | flagsplit faster by |")
    print("|---|---|---:|---:|---:|---:|")
    for label, names in algorithm_rows:
        ours = results[names[0]][0]
        for name in names:
            wall, user, sys_ = results[name]
            ratio = "" if name == names[0] else f"{wall / ours:.2f}×"
            print(f"| {label} | {name.split(': ', 1)[1]} | {wall:.3f} | {user:.3f} | {sys_:.3f} | {ratio} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flagsplit", default="target/release/flagsplit")
    ap.add_argument("--base")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dir", default="target/sum-bench")
    ap.add_argument("--one-core", action="store_true")
    ap.add_argument("cases", nargs="+", choices=["cached", "uncached", "small", "rss"])
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    prefix = ["taskset", "-c", "0"] if a.one_core else []
    model = next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"
    )
    cores = len(os.sched_getaffinity(0))
    print(f"CPU: {model}; {cores} cores{' (commands on core 0 only)' if a.one_core else ''}")
    print(f"load before: {os.getloadavg()}")
    print(f"flagsplit: {a.flagsplit}; rounds: {a.rounds}, interleaved; medians")

    for case in a.cases:
        if case == "rss":
            path = os.path.join(a.dir, "file-1g")
            make_file(path, 1024 * MIB)
            print("\n### peak RSS on a 1 GiB file\n")
            print("| command | peak RSS MiB |")
            print("|---|---:|")
            # GNU time's child execs at once: a child of this Python process would count the
            # parent's pages it shares until its exec in its peak.
            for label, args, _, _ in ALGORITHMS:
                for name, exe in [("flagsplit", a.flagsplit)] + ([("base", a.base)] if a.base else []):
                    out = subprocess.run(
                        ["/usr/bin/time", "-f", "%M"] + prefix + [exe] + args + [path],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True,
                    )
                    rss = int(out.stderr.strip().splitlines()[-1])
                    print(f"| {name} {' '.join(args)} | {rss / 1024:.1f} |")
            continue
        if case == "cached":
            paths = [os.path.join(a.dir, "file-300m")]
            make_file(paths[0], 300 * MIB)
            subprocess.run(["cat", paths[0]], stdout=subprocess.DEVNULL, check=True)
            before, title = None, "one 300 MiB file in the page cache"
        elif case == "uncached":
            paths = [os.path.join(a.dir, "file-4g")]
            make_file(paths[0], 4096 * MIB)
            before, title = (lambda: drop_cache(paths)), "one 4 GiB file, dropped from the page cache before each run"
        else:
            d = os.path.join(a.dir, "small")
            os.makedirs(d, exist_ok=True)
            paths = [os.path.join(d, f"{i:05}") for i in range(10000)]
            for p in paths:
                make_file(p, 4096)
            for p in paths:
                with open(p, "rb") as f:
                    f.read()
            before, title = None, "10,000 files of 4 KiB in the page cache"
        contenders, rows = [], []
        for label, args, digest, coreutils in ALGORITHMS:
            names = [f"{label}: flagsplit"]
            contenders.append((names[0], prefix + [a.flagsplit] + args + paths))
            if a.base:
                names.append(f"{label}: base")
                contenders.append((names[-1], prefix + [a.base] + args + paths))
            names.append(f"{label}: openssl dgst")
            contenders.append((names[-1], prefix + ["openssl", "dgst", digest] + paths))
            if case != "uncached":
                names.append(f"{label}: coreutils")
                contenders.append((names[-1], prefix + [coreutils] + paths))
            rows.append((label, names))
        # One warm-up of each, untimed.
        if before is None:
            for _, argv in contenders:
                run(argv)
        results = rounds(contenders, a.rounds, before)
        table(title, results, rows)
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

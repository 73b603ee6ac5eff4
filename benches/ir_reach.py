#!/usr/bin/env python3
"""What a provider's crate compiles of tfvalue's generic code, and through which doors.

A release build compiles every generic function it reaches again inside the crate that
reaches it (release builds share no generics across crates). This reads the LLVM IR of
such a crate (the kv example), builds its call graph and answers two questions:

  gateways   which functions named by no type of the crate (`kv::`) are called straight
             from the crate's own generic code, and how many lines of IR each one drags
             in (what it reaches without going back into the crate's code; reaches overlap)
  cut RE..   how many lines would be left if the functions matching these regular
             expressions were compiled elsewhere (not generic, so not instantiated here):
             what making them thin would save, at most

Usage (the IR with v0 mangling, so that generic arguments show; see benches/README.md,
"Generic code compiled once"):

  CARGO_TARGET_DIR=/tmp/v0target RUSTFLAGS="-Csymbol-mangling-version=v0" \\
    cargo rustc --release -p tfvalue-plugin --example kv -- \\
    --emit=llvm-ir -Cno-prepopulate-passes -Cpasses=name-anon-globals
  python3 benches/ir_reach.py /tmp/v0target/release/examples/kv-*.ll gateways
  python3 benches/ir_reach.py /tmp/v0target/release/examples/kv-*.ll cut 'read_refinements'

Needs `rustfilt` (`cargo install rustfilt`) to demangle. The crate's own code is what
names `--own` (default `kv::`).
"""

import argparse
import collections
import re
import subprocess
import sys


def read_ir(path):
    """Lines of each defined function, and the functions each one mentions."""
    lines = {}
    calls = collections.defaultdict(set)
    current = None
    count = 0
    sym = re.compile(r'@("?_R[^"(\s,)]+"?)')
    with open(path) as f:
        for line in f:
            if line.startswith("define "):
                m = re.search(r'@("?[^"(\s]+"?)\(', line)
                current = m.group(1).strip('"') if m else None
                count = 0
                continue
            if current is None:
                continue
            count += 1
            if line.startswith("}"):
                lines[current] = count
                current = None
                continue
            for m in sym.finditer(line):
                calls[current].add(m.group(1).strip('"'))
    return lines, calls


def demangle(symbols):
    try:
        out = subprocess.run(
            ["rustfilt"], input="\n".join(symbols), capture_output=True, text=True, check=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        sys.exit("ir_reach.py needs rustfilt: cargo install rustfilt")
    return {s: re.sub(r"\[[0-9a-f]+\]", "", d) for s, d in zip(symbols, out)}


def reach(start, lines, calls, stop):
    seen = set(start)
    todo = list(start)
    while todo:
        f = todo.pop()
        for g in calls.get(f, ()):
            if g in lines and g not in seen and not stop(g):
                seen.add(g)
                todo.append(g)
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ir")
    ap.add_argument("what", choices=["gateways", "cut"])
    ap.add_argument("patterns", nargs="*")
    ap.add_argument("--own", default="kv::")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()

    lines, calls = read_ir(args.ir)
    name = demangle(list(lines))
    own = lambda f: args.own in name[f]
    total = sum(lines.values())
    print(f"{len(lines)} functions, {total} lines of IR")

    if args.what == "gateways":
        callers = collections.defaultdict(set)
        for f, gs in calls.items():
            if f in lines and own(f):
                for g in gs:
                    if g in lines and not own(g):
                        callers[g].add(f)
        rows = []
        for g in callers:
            r = reach([g], lines, calls, own)
            rows.append((sum(lines[x] for x in r), lines[g], len(callers[g]), name[g]))
        rows.sort(reverse=True)
        print("reached  own  callers  gateway")
        for r, n, c, nm in rows[: args.top]:
            print(f"{r:7d} {n:6d} {c:5d}  {nm[:160]}")
    else:
        pats = [re.compile(p) for p in args.patterns]
        cut = lambda f: any(p.search(name[f]) for p in pats)
        roots = [f for f in lines if own(f) and not cut(f)]
        kept = reach(roots, lines, calls, cut)
        left = sum(lines[f] for f in kept)
        print(f"left {left} of {total} ({(total - left) / total:.1%} less)")


if __name__ == "__main__":
    main()

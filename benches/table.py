#!/usr/bin/env python3
"""Prints the Markdown tables of benches/README.md from one run of benches/run.sh.

    python3 benches/table.py [--criterion DIR] [--callgrind DIR] [--note TEXT]
                             [--readme FILE]

--criterion: criterion's output directory ($CARGO_TARGET_DIR/criterion; default
  target/criterion). Times are criterion's mean, throughput from its benchmark.json.
--callgrind: a directory of callgrind outputs named callgrind.<bench>.<workload>.out
  (what run.sh writes), each from a run of one bench binary on one workload with
  --toggle-collect='<bench>::op_*'. Instructions per call of a measured function `op_X`
  are its inclusive instruction count over the number of calls to it.
--note: a line printed above the tables (run.sh passes the machine, commit and load).
--readme: instead of printing, replace the text between the lines
  `<!-- bench-tables:begin -->` and `<!-- bench-tables:end -->` of this file.

Every measured operation is the criterion benchmark `<workload>/<group>/<function>`, run
in the function `op_<group>_<function>` of benches/<bench>.rs.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

WORKLOADS = ["small", "wide", "deep_tags"]

# (bench, label, (group, function) of tfvalue, (group, function) of the baseline, goal)
ROWS = [
    ("msgpack", "typed decode (owned `String`s)",
     ("decode", "tfvalue"), ("decode", "rmp_serde"), None),
    ("msgpack", "typed decode (borrowed `&str`/`Cow<str>`)",
     ("decode_borrowed", "tfvalue"), ("decode_borrowed", "rmp_serde"), None),
    ("msgpack", "typed encode (`msgpack::to_vec` / `to_vec_named`)",
     ("encode", "tfvalue"), ("encode", "rmp_serde"), 1.1),
    ("msgpack", "`Value` decode (`Value::from_msgpack` / rmpv)",
     ("value_decode", "tfvalue"), ("value_decode", "rmpv"), None),
    ("msgpack", "`Value::from_msgpack` vs rmp-serde typed decode",
     ("value_decode", "tfvalue"), ("decode", "rmp_serde"), 1.5),
    ("msgpack", "`Value::to_msgpack` / rmpv encode",
     ("value_encode", "tfvalue"), ("value_encode", "rmpv"), 1.2),
    ("json", "typed JSON decode (`json::from_slice`)",
     ("json_decode", "tfvalue"), ("json_decode", "serde_json"), None),
    ("json", "typed JSON encode (`json::to_vec`)",
     ("json_encode", "tfvalue"), ("json_encode", "serde_json"), 1.1),
    ("json", "`Value::to_json` / `serde_json::Value` encode",
     ("value_to_json", "tfvalue"), ("value_to_json", "serde_json"), 1.5),
    ("json", "upgrade: `RawState::transcode` / `serde_json::Value` decode",
     ("upgrade", "tfvalue"), ("upgrade", "serde_json"), 1.0),
    ("json", "upgrade through a `Value` (`decode_value` + `encode_value`) / `serde_json::Value` decode",
     ("upgrade", "tfvalue_via_value"), ("upgrade", "serde_json"), None),
    ("convert", "`to_value_as` / the same through the wire (`msgpack::to_vec` + `Value::from_msgpack`)",
     ("to_value", "tfvalue"), ("to_value", "via_msgpack"), None),
    ("convert", "`to_value_as` / `serde_json::to_value`",
     ("to_value", "tfvalue"), ("to_value", "serde_json"), None),
    ("convert", "`from_value` / the same through the wire (`msgpack::to_vec` + `msgpack::from_slice`)",
     ("from_value", "tfvalue"), ("from_value", "via_msgpack"), None),
    ("convert", "`from_value` / `T::deserialize(&serde_json::Value)`",
     ("from_value", "tfvalue"), ("from_value", "serde_json"), None),
]

BASELINE = {"rmp_serde": "rmp_serde", "rmpv": "rmpv", "serde_json": "serde_json"}


# ---------------------------------------------------------------------------- criterion

def criterion_dir_name(text):
    # criterion's make_filename_safe: '/', '\\', ':' and a few more become '_'.
    return re.sub(r'[?"/\\*<>:|^]', "_", text)


def criterion_estimate(root, workload, group, function):
    """(mean ns, throughput bytes or None), or None when not measured."""
    d = os.path.join(root, criterion_dir_name(f"{workload}/{group}"), function, "new")
    try:
        with open(os.path.join(d, "estimates.json")) as f:
            mean = json.load(f)["mean"]["point_estimate"]
    except OSError:
        return None
    size = None
    try:
        with open(os.path.join(d, "benchmark.json")) as f:
            throughput = json.load(f).get("throughput") or {}
        size = throughput.get("Bytes") or throughput.get("BytesDecimal")
    except OSError:
        pass
    return mean, size


def fmt_time(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.2f} µs"


# ---------------------------------------------------------------------------- callgrind

NAME = re.compile(r"\((\d+)\)(?:\s+(.*))?$")


def parse_callgrind(path):
    """Inclusive Ir and number of calls of every function of a callgrind output file."""
    names = {}
    inclusive = collections.Counter()
    calls = collections.Counter()
    npos, ir = 1, 0
    current = callee = None

    def name(spec):
        m = NAME.match(spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), spec)

    with open(path, errors="replace") as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                # A cost line: positions, then events. Under `fn=` it is the function's
                # own cost, after `calls=` the inclusive cost of those calls: both belong
                # to the current function's inclusive cost.
                parts = line.split()
                if len(parts) > npos + ir:
                    inclusive[current] += int(parts[npos + ir])
            elif line.startswith("fn="):
                current = name(line[3:].strip())
            elif line.startswith("cfn="):
                callee = name(line[4:].strip())
            elif line.startswith("calls="):
                calls[callee] += int(line[6:].split()[0])
            elif line.startswith("positions:"):
                npos = len(line.split()[1:])
            elif line.startswith("events:"):
                ir = line.split()[1:].index("Ir")
    return inclusive, calls


def op_key(name):
    """`msgpack::op_decode_tfvalue` (generic arguments and hashes dropped) -> the op name."""
    name = re.sub(r"::h[0-9a-f]{16}$", "", name.split("<")[0])
    m = re.search(r"::(op_[A-Za-z0-9_]+)$", name)
    return m.group(1) if m else None


def callgrind_counts(root):
    """{(bench, workload): {op name: instructions per call}}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "callgrind.*.out"))):
        m = re.match(r"callgrind\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\.out$", os.path.basename(path))
        if not m:
            continue
        inclusive, calls = parse_callgrind(path)
        per_op_ir = collections.Counter()
        per_op_calls = collections.Counter()
        for fn, cost in inclusive.items():
            if fn and op_key(fn):
                per_op_ir[op_key(fn)] += cost
        for fn, n in calls.items():
            if fn and op_key(fn):
                per_op_calls[op_key(fn)] += n
        out[m.group(1), m.group(2)] = {
            op: per_op_ir[op] / n for op, n in per_op_calls.items() if n and per_op_ir[op]
        }
    return out


def fmt_count(n):
    if n >= 1e6:
        return f"{n / 1e6:.1f} M"
    return f"{n:,.0f}"


# ---------------------------------------------------------------------------- tables

def goal_cell(ratio, goal):
    if goal is None:
        return ""
    return f"<= {goal}" + (" (met)" if ratio <= goal else " (**not met**)")


def time_table(root):
    lines = [
        "| workload | operation | tfvalue | baseline | tfvalue / baseline | goal | tfvalue MiB/s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for w in WORKLOADS:
        for bench, label, ours, theirs, goal in ROWS:
            a = criterion_estimate(root, w, *ours)
            b = criterion_estimate(root, w, *theirs)
            if a is None or b is None:
                continue
            ratio = a[0] / b[0]
            mibs = f"{a[1] / (a[0] / 1e9) / (1 << 20):.0f}" if a[1] else ""
            lines.append(
                f"| {w} | {label} | {fmt_time(a[0])} | {theirs[1]} {fmt_time(b[0])} "
                f"| **{ratio:.2f}** | {goal_cell(ratio, goal)} | {mibs} |"
            )
    return lines if len(lines) > 2 else []


def count_tables(root):
    counts = callgrind_counts(root)
    out = []
    for w in WORKLOADS:
        lines = [
            f"| {w} (instructions per call) | tfvalue | baseline | ratio | goal |",
            "| --- | --- | --- | --- | --- |",
        ]
        for bench, label, ours, theirs, goal in ROWS:
            ops = counts.get((bench, w), {})
            a = ops.get(f"op_{ours[0]}_{ours[1]}")
            b = ops.get(f"op_{theirs[0]}_{theirs[1]}")
            if a is None or b is None:
                continue
            ratio = a / b
            lines.append(
                f"| {label} | {fmt_count(a)} | {theirs[1]} {fmt_count(b)} "
                f"| **{ratio:.2f}** | {goal_cell(ratio, goal)} |"
            )
        if len(lines) > 2:
            out += lines + [""]
    return out[:-1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--criterion", default=None)
    p.add_argument("--callgrind", default=None)
    p.add_argument("--note", default=None)
    p.add_argument("--readme", default=None)
    p.add_argument("criterion_positional", nargs="?", help=argparse.SUPPRESS)
    args = p.parse_args()
    crit = args.criterion or args.criterion_positional
    if crit is None and args.callgrind is None:
        crit = "target/criterion"

    out = []
    if args.note:
        out += [args.note, ""]
    if crit:
        t = time_table(crit)
        if t:
            out += ["Times (criterion, mean):", ""] + t + [""]
        else:
            print(f"table.py: no criterion results under {crit}", file=sys.stderr)
    if args.callgrind:
        t = count_tables(args.callgrind)
        if t:
            out += ["Instructions per call (callgrind, `op_*` inclusive / calls):", ""] + t + [""]
        else:
            print(f"table.py: no callgrind outputs under {args.callgrind}", file=sys.stderr)
    text = "\n".join(out).rstrip("\n") + "\n"

    if args.readme:
        with open(args.readme) as f:
            readme = f.read()
        begin, end = "<!-- bench-tables:begin -->\n", "<!-- bench-tables:end -->"
        i, j = readme.find(begin), readme.find(end)
        if i < 0 or j < i:
            sys.exit(f"table.py: {args.readme} has no {begin.strip()} ... {end} block")
        readme = readme[: i + len(begin)] + "\n" + text + "\n" + readme[j:]
        with open(args.readme, "w") as f:
            f.write(readme)
        print(f"table.py: tables written to {args.readme}", file=sys.stderr)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

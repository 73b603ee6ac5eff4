#!/usr/bin/env python3
"""Prints the Markdown table of benches/README.md from criterion's estimates.

Run after `cargo bench -p tfvalue --bench msgpack`; reads target/criterion (or the
directory given as the first argument, e.g. $CARGO_TARGET_DIR/criterion).
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
SIZES = {"small": 2325, "wide": 23255032, "deep_tags": 2800005}
ROWS = [
    ("decode", "tfvalue", "rmp_serde", "typed decode (owned `String`s)"),
    ("decode_borrowed", "tfvalue", "rmp_serde", "typed decode (borrowed `&str`/`Cow<str>`)"),
    ("encode", "tfvalue", "rmp_serde", "typed encode"),
    ("value_decode", "tfvalue", "rmpv", "`Value` decode"),
    ("value_encode", "tfvalue", "rmpv", "`Value` encode"),
]


def mean_ns(group, bench):
    path = os.path.join(root, group, bench, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["mean"]["point_estimate"]


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.2f} µs"


print("| workload | operation | tfvalue | baseline | tfvalue / baseline | tfvalue MiB/s |")
print("| --- | --- | --- | --- | --- | --- |")
for w, size in SIZES.items():
    for op, ours, theirs, label in ROWS:
        try:
            a = mean_ns(f"{w}_{op}", ours)
            b = mean_ns(f"{w}_{op}", theirs)
        except OSError:
            continue
        mibs = size / (a / 1e9) / (1 << 20)
        print(f"| {w} | {label} | {fmt(a)} | {theirs} {fmt(b)} | **{a / b:.2f}** | {mibs:.0f} |")
    try:
        v = mean_ns(f"{w}_value_decode", "tfvalue")
        t = mean_ns(f"{w}_decode", "rmp_serde")
        print(f"| {w} | `Value` decode vs rmp-serde typed decode | {fmt(v)} | rmp_serde {fmt(t)} | **{v / t:.2f}** | |")
    except OSError:
        pass

#!/usr/bin/env python3
"""Averages results.csv (one row per graph and policy) into the table of summary.md, per CCR and overall."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
graphs = len({r["graph"] for r in rows})
by = defaultdict(list)
for r in rows:
    by[(r["policy"], r["engine"], "all")].append(r)
    by[(r["policy"], r["engine"], r["ccr"])].append(r)
ccrs = sorted({r["ccr"] for r in rows}, key=float)


def mean(rs, key):
    return sum(float(r[key]) for r in rs) / len(rs)


policies = sorted({(r["policy"], r["engine"]) for r in rows}, key=lambda pe: mean(by[(pe[0], pe[1], "all")], "slr"))
out = [f"{graphs} explicit-cost random DAGs on 4 processors (see study.cpp for the generator and metrics).", ""]
out.append("| policy | engine | SLR (all) | " + " | ".join(f"SLR (CCR {c})" for c in ccrs) + " | speedup | efficiency |")
out.append("|---|---|" + "---|" * (len(ccrs) + 3))
for p, e in policies:
    cells = [f"{mean(by[(p, e, 'all')], 'slr'):.3f}"] + [f"{mean(by[(p, e, c)], 'slr'):.3f}" for c in ccrs]
    cells += [f"{mean(by[(p, e, 'all')], 'speedup'):.3f}", f"{mean(by[(p, e, 'all')], 'efficiency'):.3f}"]
    out.append(f"| {p} | {e} | " + " | ".join(cells) + " |")
print("\n".join(out))

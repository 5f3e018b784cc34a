#!/usr/bin/env python3
"""Reads the histories run.sh wrote and prints the search-efficiency table (Markdown). Standard library only."""
import csv
import os
import sys

GUIDED = [("archive", "archive search, unguided"), ("gnn", "archive + prior gnn"),
          ("speed", "archive + prior speed")]


def history(path):
    with open(path) as f:
        return [(int(r["evaluations"]), float(r["hypervolume"])) for r in csv.DictReader(f)]


def first_reaching(hist, target):
    for e, hv in hist:
        if hv >= target - 1e-12:
            return e
    return None


def main():
    out, budget, seeds, workloads = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
    print("# Search efficiency with and without a proposal prior (issue 14)\n")
    print(f"Platform hetero-server; objectives latency, energy, memory; budget {budget} distinct evaluations by "
          "the contention-aware evaluator; hypervolume of the archive on the evaluator's values (history.csv, "
          f"a point every {max(1, budget // 200)} evaluations), reference point (2, 2, 1); seeds "
          f"{', '.join(seeds)}. Reproduce: `bash results/prior_search/run.sh`.\n")
    print("Evaluations to reach NSGA-II's final hypervolume (same seed), per seed, and their mean over "
          f"NSGA-II's {budget} as the ratio (target: at most 0.1); '-' where never reached within the budget. "
          "Final HV: mean over seeds, and the seeds where it is at least NSGA-II's.\n")
    print("| workload | NSGA-II final HV | search | evals to reach, per seed | ratio | final HV | final >= NSGA-II |")
    print("|---|---|---|---|---|---|---|")
    for w in workloads:
        tag = w.replace(":", "_").replace(",", "-").replace("=", "-")
        targets = [history(os.path.join(out, tag, f"nsga2-s{s}", "history.csv"))[-1][1] for s in seeds]
        first = True
        for key, label in GUIDED:
            head = f"| {w} | {sum(targets) / len(targets):.4f} " if first else "| | "
            if not all(os.path.exists(os.path.join(out, tag, f"{key}-s{s}", "history.csv")) for s in seeds):
                # A search this build cannot run (--prior gnn needs the libtorch plug-in) is named, not dropped.
                print(f"{head}| {label} | not run | - | - | - |")
                first = False
                continue
            reach, finals, at_least = [], [], 0
            for s, target in zip(seeds, targets):
                h = history(os.path.join(out, tag, f"{key}-s{s}", "history.csv"))
                reach.append(first_reaching(h, target))
                finals.append(h[-1][1])
                at_least += h[-1][1] >= target - 1e-12
            per_seed = " / ".join("-" if r is None else str(r) for r in reach)
            ratio = "-" if None in reach else f"{sum(reach) / len(reach) / budget:.3f}"
            print(f"{head}| {label} | {per_seed} | {ratio} | {sum(finals) / len(finals):.4f} | "
                  f"{at_least}/{len(seeds)} |")
            first = False


if __name__ == "__main__":
    main()

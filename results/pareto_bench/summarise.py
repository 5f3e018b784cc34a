#!/usr/bin/env python3
"""Reads the fronts run.sh wrote and prints the benchmark table (Markdown). Standard library only."""
import csv
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def history(path):
    with open(path) as f:
        return [(int(r["evaluations"]), float(r["hypervolume"])) for r in csv.DictReader(f)]


def point_hv(point, ref):
    v = 1.0
    for p, r in zip(point, ref):
        if p >= r:
            return 0.0
        v *= r - p
    return v


def first_reaching(hist, target):
    for e, hv in hist:
        if hv >= target - 1e-12:
            return e
    return None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, d=4):
    return "-" if x is None else f"{x:.{d}f}"


def main():
    out, budgets, seeds = sys.argv[1], [int(b) for b in sys.argv[2].split()], sys.argv[3].split()
    workloads = sys.argv[4:]
    top = budgets[-1]
    print("# Pareto search benchmark: archive search vs NSGA-II (pagmo), same encoding and budget\n")
    print(f"Platform hetero-server; objectives latency, energy, memory (normalised by the fastest-device plan);")
    print(f"hypervolume reference point (2, 2, 1); replayed values where the front was replayed; mean over seeds {', '.join(seeds)}.")
    print("Reproduce: `bash results/pareto_bench/run.sh` (after building).\n")
    print("## Hypervolume at equal budgets\n")
    print("Baselines: hypervolume of their points together, then of each alone (greedy: where registered).\n")
    print("| workload | ops | genes | budget | archive HV | NSGA-II HV | baselines HV | heft | greedy | fastest-device |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for spec in workloads:
        base = os.path.basename(spec)
        base = base[:-5] if base.endswith(".json") else base
        tag = base.replace(":", "_").replace(",", "-").replace("=", "-")
        w = base
        for b in budgets:
            a = [load(os.path.join(out, tag, f"archive-b{b}-s{s}", "front.json")) for s in seeds]
            n = [load(os.path.join(out, tag, f"nsga2-b{b}-s{s}", "front.json")) for s in seeds]
            ref = a[0]["hypervolume"]["reference_point"]
            base = {bl["policy"]: point_hv(bl["normalised"], ref) for bl in a[0]["baselines"]}
            print(f"| {w} | {a[0]['search_space']['ops']} | {a[0]['search_space']['genes']} | {b} | "
                  f"{fmt(mean([x['hypervolume']['front'] for x in a]))} | {fmt(mean([x['hypervolume']['front'] for x in n]))} | "
                  f"{fmt(a[0]['hypervolume']['baselines'])} | {fmt(base.get('heft'))} | {fmt(base.get('greedy'))} | {fmt(base.get('fastest-device'))} |")
        summary.append((w, tag))
    print("\n## Evaluations to reach NSGA-II's final hypervolume (budget %d)\n" % top)
    print("| workload | NSGA-II final HV | archive evals to reach it | NSGA-II evals to reach it | ratio |")
    print("|---|---|---|---|---|")
    for w, tag in summary:
        ours, theirs, finals = [], [], []
        for s in seeds:
            n_hist = history(os.path.join(out, tag, f"nsga2-b{top}-s{s}", "history.csv"))
            a_hist = history(os.path.join(out, tag, f"archive-b{top}-s{s}", "history.csv"))
            final = n_hist[-1][1]
            finals.append(final)
            ours.append(first_reaching(a_hist, final))
            theirs.append(first_reaching(n_hist, final))
        reached = [o for o in ours if o is not None]
        m_ours, m_theirs = mean(ours), mean(theirs)
        ratio = (m_ours / m_theirs) if (m_ours and m_theirs and len(reached) == len(ours)) else None
        note = "" if len(reached) == len(ours) else f" (reached in {len(reached)}/{len(ours)} seeds)"
        print(f"| {w} | {fmt(mean(finals))} | {fmt(m_ours, 0)}{note} | {fmt(m_theirs, 0)} | {fmt(ratio, 3)} |")
    print("\n## Best plans of the archive front (budget %d, seed %s) relative to fastest-device\n" % (top, seeds[0]))
    print("Contention-aware evaluator values, and the same plan replayed in SimGrid (relative to fastest-device's")
    print("evaluated value). The last latency column is the best SimGrid latency over the whole replayed front.\n")
    print("| workload | front size | best latency (evaluator / SimGrid) | best energy (evaluator / SimGrid) | best memory (evaluator / SimGrid) | plans with fusion / split | best SimGrid latency on the front |")
    print("|---|---|---|---|---|---|---|")
    for w, tag in summary:
        j = load(os.path.join(out, tag, f"archive-b{top}-s{seeds[0]}", "front.json"))
        fd = next(b for b in j["baselines"] if b["policy"] == "fastest-device")["evaluator"]
        plans = j["plans"]

        def best(key):
            p = min(plans, key=lambda p: p["evaluator"][key])
            sg = p.get("simgrid", {}).get(key)
            return f"{p['evaluator'][key] / fd[key]:.3f} / {fmt(sg / fd[key] if sg is not None else None, 3)}"

        fused = sum(1 for p in plans if p["rewrites"]["fusions"])
        split = sum(1 for p in plans if p["rewrites"]["splits"])
        sg = [p["simgrid"]["latency_s"] for p in plans if "simgrid" in p]
        sg_best = fmt(min(sg) / fd["latency_s"], 3) if sg else "-"
        print(f"| {w} | {len(plans)} | {best('latency_s')} | {best('energy_j')} | {best('memory_ratio')} | {fused} / {split} | {sg_best} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Summarises agreement.csv (results/contention/run.sh) as markdown: agreement of each engine with the
SimGrid replay, and each static policy's replayed latency relative to fastest-device."""
import csv
import statistics
import sys

CONTENTION_LIST = ["heft", "peft", "memory-aware", "heft-dvfs"]

rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in ("analytic_s", "evaluator_s", "replay_s", "evaluator_error", "analytic_error", "replay_vs_fastest_device"):
        r[k] = float(r[k])


def pct(x):
    return f"{100 * x:+.2f}%"


ev = [abs(r["evaluator_error"]) for r in rows]
an = [abs(r["analytic_error"]) for r in rows]
print("# Contention-aware evaluator vs SimGrid replay\n")
print(f"{len(rows)} plans ({len({(r['platform'], r['workload']) for r in rows})} platform x workload cases, every static policy).\n")
print("| engine | median abs error | 90th percentile | worst |")
print("|---|---:|---:|---:|")
for name, xs in (("contention-aware evaluator", ev), ("analytic (contention-free)", an)):
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    print(f"| {name} | {100 * statistics.median(xs):.2f}% | {100 * p90:.2f}% | {100 * max(xs):.2f}% |")
worst = max(rows, key=lambda r: abs(r["evaluator_error"]))
print(f"\nWorst evaluator case: {worst['policy']} on {worst['workload']} / {worst['platform']} "
      f"({pct(worst['evaluator_error'])}).\n")

print("## Planning quality in the replay (latency / fastest-device's replayed latency)\n")
policies = sorted({r["policy"] for r in rows})
cases = []
for r in rows:
    key = (r["platform"], r["workload"])
    if key not in cases:
        cases.append(key)
print("| platform | workload | " + " | ".join(policies) + " |")
print("|---|---|" + "---:|" * len(policies))
by = {(r["platform"], r["workload"], r["policy"]): r for r in rows}
for p, w in cases:
    cells = []
    for pol in policies:
        r = by.get((p, w, pol))
        cells.append(f"{r['replay_vs_fastest_device']:.3f}" if r else "-")
    print(f"| {p} | {w} | " + " | ".join(cells) + " |")
print()
for pol in CONTENTION_LIST:
    xs = [r for r in rows if r["policy"] == pol]
    if not xs:
        continue
    slower = [r for r in xs if r["replay_vs_fastest_device"] > 1.0 + 1e-9]
    print(f"- {pol}: slower than fastest-device in {len(slower)} of {len(xs)} cases; worst "
          f"{max(r['replay_vs_fastest_device'] for r in xs):.3f}, median "
          f"{statistics.median(r['replay_vs_fastest_device'] for r in xs):.3f}")
for pol in CONTENTION_LIST:
    classic = pol + "-classic"
    pairs = [(by[(p, w, pol)], by[(p, w, classic)]) for p, w in cases if (p, w, pol) in by and (p, w, classic) in by]
    if pairs:
        ratios = [a["replay_s"] / b["replay_s"] for a, b in pairs]
        print(f"- {pol} / {classic}, replayed latency: median {statistics.median(ratios):.3f}, "
              f"best {min(ratios):.3f}, worst {max(ratios):.3f}")
main = by.get(("hetero-server", "random:ops=2000,precision=fp16", "heft"))
main_classic = by.get(("hetero-server", "random:ops=2000,precision=fp16", "heft-classic"))
if main and main_classic:
    print(f"\nMain job (hetero-server, random:ops=2000,precision=fp16): heft replays at "
          f"{1000 * main['replay_s']:.2f} ms, heft-classic at {1000 * main_classic['replay_s']:.2f} ms "
          f"({100 * (1 - main['replay_s'] / main_classic['replay_s']):.1f}% faster); evaluator "
          f"{1000 * main['evaluator_s']:.2f} ms ({pct(main['evaluator_error'])}).")

print("\n## Every plan\n")
print("| platform | workload | policy | analytic | evaluator | replay | evaluator error | analytic error |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['platform']} | {r['workload']} | {r['policy']} | {1000 * r['analytic_s']:.3f} ms | "
          f"{1000 * r['evaluator_s']:.3f} ms | {1000 * r['replay_s']:.3f} ms | {pct(r['evaluator_error'])} | "
          f"{pct(r['analytic_error'])} |")

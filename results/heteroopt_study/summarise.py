#!/usr/bin/env python3
"""The HeteroOpt study table from a directory of `heterosim pareto` fronts (results/heteroopt_study/run.sh).

Every figure comes from the SimGrid replay recorded in front.json ("simgrid" values of the front's plans and
of its baselines). Usage: summarise.py FRONTS_DIR PICKS_CSV > table.md
"""
import csv
import json
import os
import re
import statistics
import sys

REF = None  # the front's hypervolume reference point, read per front

ARTICLE = {
    "latency": "+3 to +5%",
    "energy": "-20 to -30%",
    "memory": "about -15%",
    "peak_bytes": "about -15%",
    "hv_single": "+12 to +20%",
    "hv_greedy": "more than +25%",
}


def hv(points, ref):
    """Exact hypervolume (minimisation) of 2- or 3-objective points inside the box below `ref`."""
    pts = [p for p in points if all(x < r for x, r in zip(p, ref))]
    if not pts:
        return 0.0
    if len(ref) == 2:
        pts.sort()
        area, best_y = 0.0, ref[1]
        for x, y in pts:
            if y < best_y:
                area += (ref[0] - x) * (best_y - y)
                best_y = y
        return area
    xs = sorted({p[0] for p in pts}) + [ref[0]]
    vol = 0.0
    for a, b in zip(xs, xs[1:]):
        slab = [p[1:] for p in pts if p[0] <= a]
        vol += (b - a) * hv(slab, ref[1:])
    return vol


def watts(text):
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kKmM]?)W\s*", str(text))
    scale = {"": 1, "k": 1e3, "K": 1e3, "m": 1e-3, "M": 1e6}[m.group(2)]
    return float(m.group(1)) * scale


def idle_watts(platform_file):
    """Idle power of every device and link of the platform (nominal p-state)."""
    p = json.load(open(platform_file))
    total = 0.0
    for d in p["devices"]:
        total += watts(d["pstates"][0]["idle"] if "pstates" in d else d["power"]["idle"])
    for link in p["links"]:
        if "power" in link:
            total += watts(link["power"]["idle"])
    return total


def tdp(platform_file):
    """Nominal busy power (the presets take it from each datasheet's TDP / max power) per device."""
    p = json.load(open(platform_file))
    out = {}
    for d in p["devices"]:
        busy = d["pstates"][0]["busy"] if "pstates" in d else d["power"]["busy"]
        out[d["name"]] = watts(busy)
    return out


def norm(s, n, objectives):
    v = []
    for o in objectives:
        if o == "latency":
            v.append(s["latency_s"] / n["latency_s"])
        elif o == "energy":
            v.append(s["energy_j"] / n["energy_j"])
        elif o == "memory":
            v.append(s["memory_ratio"])
        else:
            v.append(s["precision_penalty"])
    return v


def pct(x):
    return f"{100 * (x - 1):+.1f}%"


root = sys.argv[1]
platforms_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "platforms")
rows = []
for case in sorted(os.listdir(root), key=lambda c: int(c) if c.isdigit() else c):
    d = os.path.join(root, case)
    if not os.path.exists(os.path.join(d, "front.json")):
        continue
    platform, workload = open(os.path.join(d, "case")).read().split()
    j = json.load(open(os.path.join(d, "front.json")))
    objectives = [o["name"] for o in j["objectives"]]
    ref = j["hypervolume"]["reference_point"]
    n = j["normalisation"]
    base = {b["policy"]: b for b in j["baselines"]}
    fd = base["fastest-device"]["simgrid"]
    plans = [p for p in j["plans"] if "simgrid" in p]
    front = [norm(p["simgrid"], n, objectives) for p in plans]
    within = [p for p in plans if p["simgrid"]["latency_s"] <= 1.05 * fd["latency_s"]]
    pick = min(within, key=lambda p: (p["simgrid"]["energy_j"], p["simgrid"]["latency_s"]))
    ps = pick["simgrid"]
    hv_front = hv(front, ref)

    def hv_of(names):
        return hv([norm(base[b]["simgrid"], n, objectives) for b in names if b in base], ref)

    fd_device = max(fd["peak_memory_bytes"], key=lambda k: fd["peak_memory_bytes"][k])
    tdps = tdp(os.path.join(platforms_dir, platform + ".json"))
    e_tdp_device = tdps[fd_device] * fd["latency_s"]
    idle_share = idle_watts(os.path.join(platforms_dir, platform + ".json")) * fd["latency_s"] / fd["energy_j"]
    e_tdp_machine = sum(tdps.values()) * fd["latency_s"]
    errors = [abs(p["search_error"]["latency"]) for p in plans]
    rows.append({
        "platform": platform,
        "workload": workload,
        "ops": j["search_space"]["ops"],
        "front": len(plans),
        "dropped": len(j.get("dropped_by_replay", [])),
        "pick": pick["origin"],
        "latency": ps["latency_s"] / fd["latency_s"],
        "energy": ps["energy_j"] / fd["energy_j"],
        "memory": ps["memory_ratio"] / fd["memory_ratio"] if fd["memory_ratio"] > 0 else float("nan"),
        "peak_max_bytes": max(ps["peak_memory_bytes"].values()),
        "peak_bytes": max(ps["peak_memory_bytes"].values()) / max(fd["peak_memory_bytes"].values()),
        "fd_peak_bytes": max(fd["peak_memory_bytes"].values()),
        "peaks": ps["peak_memory_bytes"],
        "energy_tdp_device": ps["energy_j"] / e_tdp_device,
        "idle_share": idle_share,
        "energy_tdp_machine": ps["energy_j"] / e_tdp_machine,
        "fd_device": fd_device,
        "hv_single": hv_front / hv_of(["fastest-device", "heft"]),
        "hv_greedy": hv_front / hv_of(["greedy"]) if hv_of(["greedy"]) > 0 else float("inf"),
        "hv_expert": hv_front / hv_of(["expert-grouping"]) if hv_of(["expert-grouping"]) > 0 else float("inf"),
        "heft_latency": base["heft"]["simgrid"]["latency_s"] / fd["latency_s"] if "heft" in base else float("nan"),
        "search_error_max": max(errors) if errors else 0.0,
        "search_error_median": statistics.median(errors) if errors else 0.0,
    })

with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["platform", "workload", "ops", "front_plans", "dropped_by_replay", "pick_origin",
                "latency_vs_fd", "energy_vs_fd", "peak_bytes_vs_fd", "memory_ratio_vs_fd", "pick_max_peak_bytes", "fd_peak_bytes",
                "energy_vs_tdp_of_fd_device", "energy_vs_tdp_of_machine", "hv_vs_fd_heft", "hv_vs_greedy",
                "hv_vs_expert_grouping", "heft_latency_vs_fd", "search_latency_error_median",
                "search_latency_error_max", "idle_share_of_fd_energy"])
    for r in rows:
        w.writerow([r["platform"], r["workload"], r["ops"], r["front"], r["dropped"], r["pick"],
                    f"{r['latency']:.4f}", f"{r['energy']:.4f}", f"{r['peak_bytes']:.4f}", f"{r['memory']:.4f}", f"{r['peak_max_bytes']:.0f}",
                    f"{r['fd_peak_bytes']:.0f}", f"{r['energy_tdp_device']:.4f}", f"{r['energy_tdp_machine']:.4f}",
                    f"{r['hv_single']:.4f}", f"{r['hv_greedy']:.4f}", f"{r['hv_expert']:.4f}",
                    f"{r['heft_latency']:.4f}", f"{r['search_error_median']:.6f}", f"{r['search_error_max']:.6f}", f"{r['idle_share']:.4f}"])

print("# HeteroOpt seed study, regenerated (all values from the SimGrid replay)\n")
print("Pick = the least-energy front plan within +5% of fastest-device's replayed latency. Ratios are the "
      "pick's over fastest-device's (the whole graph on the single fastest device). HV = hypervolume of the "
      "replayed front over that of a baseline set, reference point (2, 2, 1) in normalised "
      "(latency, energy, memory). Search budget 2000 evaluations, seed 1.\n")
print("| platform | workload | ops | front | pick | latency | energy | peak bytes | memory objective "
      "| max peak (pick / fd) | energy / TDP x t_fd | HV vs fd+HEFT | HV vs greedy | HV vs expert-grouping "
      "| search err (max) | idle share of fd energy |")
print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def hvpct(x):
    # A baseline set entirely outside the reference box has no hypervolume: no ratio exists.
    return "baseline outside box" if x == float("inf") else pct(x)


def mb(x):
    return f"{x / 1e6:.1f} MB"


for r in rows:
    print(f"| {r['platform']} | {r['workload']} | {r['ops']} | {r['front']} | {r['pick']} | {pct(r['latency'])} | "
          f"{pct(r['energy'])} | {pct(r['peak_bytes'])} | {pct(r['memory'])} | "
          f"{mb(r['peak_max_bytes'])} / {mb(r['fd_peak_bytes'])} | "
          f"{r['energy_tdp_device']:.3f} | {hvpct(r['hv_single'])} | {hvpct(r['hv_greedy'])} | {hvpct(r['hv_expert'])} | "
          f"{100 * r['search_error_max']:.2f}% | {100 * r['idle_share']:.0f}% |")

print("\n## Beside the article's claims (medians over the cases above, per platform)\n")
print("| figure | article | " + " | ".join(sorted({r['platform'] for r in rows})) + " |")
print("|---|---|" + "---:|" * len({r['platform'] for r in rows}))
for key, label in (("latency", "pick latency vs fastest-device"), ("energy", "pick energy vs fastest-device"),
                   ("peak_bytes", "pick peak memory (max device bytes) vs fastest-device"),
                   ("memory", "pick memory objective (peak / capacity) vs fastest-device"), ("hv_single", "HV vs single-objective (fd, HEFT)"),
                   ("hv_greedy", "HV vs greedy")):
    cells = []
    for p in sorted({r['platform'] for r in rows}):
        xs = [r[key] for r in rows if r["platform"] == p and r[key] == r[key] and r[key] != float("inf")]
        cells.append(pct(statistics.median(xs)) if xs else "-")
    print(f"| {label} | {ARTICLE[key]} | " + " | ".join(cells) + " |")

print("\n## Peak memory per device of each pick (bytes, replayed)\n")
print("| platform | workload | " + "per-device peaks |")
print("|---|---|---|")
for r in rows:
    peaks = ", ".join(f"{k} {mb(v)}" for k, v in r["peaks"].items() if v > 0)
    print(f"| {r['platform']} | {r['workload']} | {peaks} |")
print("\nEnergy / TDP x t_fd: the pick's energy over the fastest device's datasheet TDP (the preset's nominal "
      "busy power) times fastest-device's replayed latency, the energy that device would draw at TDP for the "
      "baseline's time. Against the whole machine's TDP for that time, see picks.csv "
      "(energy_vs_tdp_of_machine).")

#!/usr/bin/env python3
"""A GPU measurement set (heterosim-measurements, device_kind gpu, as hs_measure_cuda writes it) made from one
board's published GEMM timings in validation/measurements/neusight, and that folder without the board.

The set stands in for what a user's own hs_measure_cuda run would give: the board's timings, measured by
NeuSight (PyTorch 2.1, one framework call at a time; validation/measurements/neusight/SOURCE.md), at most
--max evenly spaced GEMMs. Its model string is suffixed so that the shipped trees, which learned the board
by name, treat it as a board they have not seen; the folder written beside it has the board's rows removed,
so the retrained trees do not see them either.

usage: make_set.py NEUSIGHT_DIR GPU_KEY OUT_DIR [--max N]
"""
import csv
import json
import os
import sys


def main():
    args = sys.argv[1:]
    cap = 300
    if "--max" in args:
        i = args.index("--max")
        cap = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    src, key, out = args
    with open(os.path.join(src, "gpus.csv"), newline="") as f:
        gpus = list(csv.DictReader(f))
    board = next((g for g in gpus if g["gpu"] == key), None)
    if board is None:
        sys.exit(f"{src}/gpus.csv: no GPU '{key}' (have: {', '.join(g['gpu'] for g in gpus)})")
    with open(os.path.join(src, "gemm.csv"), newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        rows = list(reader)
    own = [r for r in rows if r["gpu_model"] == board["model"]]
    if not own:
        sys.exit(f"{src}/gemm.csv: no row of model '{board['model']}'")
    step = max(1, len(own) // cap)
    points = []
    for r in own[::step][:cap]:
        b, m, n, k = (float(r[x]) for x in ("b", "m", "n", "k"))
        shape = {"m": m, "n": n, "k": k}
        if b > 1:
            shape["batch"] = b
        seconds = float(r["latency_ms"]) / 1e3
        points.append({"kind": "gemm", "label": f"{r['op']} b={int(b)} m={int(m)} n={int(n)} k={int(k)}",
                       "shape": shape, "flops": 2 * b * m * n * k, "bytes": 4 * b * (m * k + k * n + m * n),
                       "repeats": 1, "co_running_threads": 1, "p50_s": seconds, "p95_s": seconds})
    clock = float(board["boost_clock_mhz"])
    cc = {"Pascal": "6.0", "Volta": "7.0", "Turing": "7.5", "Ampere": "8.0", "Ada": "8.9", "Hopper": "9.0"}
    env = {"gpu_model": board["model"] + " (published timings)",
           "compute_capability": cc[board["architecture"]],
           "multiprocessors": board["compute_units"],
           "clock_khz": str(int(clock * 1000)),
           "max_sm_clock_mhz": board["boost_clock_mhz"],
           "power_limit_w": board["power_limit_w"],
           "date": "published (validation/measurements/neusight/SOURCE.md)",
           "source": f"results/measured_gpu/make_set.py from {src}/gemm.csv, GPU {key}"}
    measurement = {"format": "heterosim-measurements", "version": 1, "device": "gpu0", "device_kind": "gpu",
                   "environment": env,
                   "peaks": {"fp32_flops": float(board["fp32_tflops"]) * 1e12,
                             "memory_bandwidth": float(board["memory_gbps"]) * 1e9},
                   "points": points}
    os.makedirs(os.path.join(out, "published"), exist_ok=True)
    with open(os.path.join(out, "gpu-set.json"), "w") as f:
        json.dump(measurement, f, indent=1)
    with open(os.path.join(out, "published", "gemm.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(r for r in rows if r["gpu_model"] != board["model"])
    with open(os.path.join(out, "published", "gpus.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(gpus[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(g for g in gpus if g["gpu"] != key)
    print(f"{out}/gpu-set.json: {len(points)} GEMMs of {board['model']}; {out}/published: the other boards")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Every policy on one model of each family (ResNet-50, BERT-base, GPT-2 small with decode, GCN), fp16
# inference, on the heterogeneous server (CPU + GPU + NPU + FPGA behind one PCIe switch), SimGrid engine: one
# sweep (sweep.json). Writes sweep.csv (with each metric's ratio to fastest-device) and table.txt, the latency
# ratios as a table. Usage: results/model_families/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
bash "$here/../run_sweep.sh" "$here" "$build"
# table.txt: a row per policy, a column per model, latency relative to fastest-device.
python3 - "$here/sweep.csv" > "$here/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
models = list(dict.fromkeys(r["workload"] for r in rows))
policies = list(dict.fromkeys(r["policy"] for r in rows))
cell = {(r["workload"], r["policy"]): r for r in rows}
print("latency relative to fastest-device (SimGrid replay, hetero-server, seed 1)")
print("policy".ljust(22) + "".join(m.split(":")[0].rjust(12) for m in models))
for p in policies:
    print(p.ljust(22) + "".join(("%.3f" % float(cell[(m, p)]["latency_s_ratio"]) if cell[(m, p)]["latency_s_ratio"] else cell[(m, p)]["outcome"]).rjust(12) for m in models))
PY
cat "$here/table.txt"

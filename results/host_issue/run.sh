#!/usr/bin/env bash
# The host issue study (README.md here): BERT-large and GPT-2 large inference on one H100 SXM with the host
# issuing each op in no time, in eager PyTorch's measured time or in 20 us, at batch 1 to 16, as one sweep. Writes sweep.csv, table.md and
# plots/*.svg here (the points go to a scratch directory).
# Usage: results/host_issue/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
bash "$here/../run_sweep.sh" "$here" "$build" --plots
python3 - "$here/sweep.csv" > "$here/table.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| workload | batch | issue=captured | issue=eager (measured) | 20 us per op (device) | ops waited (eager / 20 us) |")
print("|---|---:|---:|---:|---:|---:|")
for workload in dict.fromkeys(r["workload"] for r in rows):
    for batch in dict.fromkeys(r["batch"] for r in rows):
        by = {(r["issue"], r["device_issue"]): r for r in rows if r["workload"] == workload and r["batch"] == batch}
        ms = lambda key: float(by[key]["latency_s"]) * 1e3
        waited = lambda key: by[key]["/devices/gpu0/host_issue/ops_waited"]
        base, eager, slow = ("captured", "0s"), ("eager", "0s"), ("eager", "20us")
        print(f"| {workload.split(':')[0]} | {batch} | {ms(base):.2f} ms | {ms(eager):.2f} ms "
              f"(x{ms(eager) / ms(base):.2f}) | {ms(slow):.2f} ms (x{ms(slow) / ms(base):.2f}) | "
              f"{waited(eager)} / {waited(slow)} |")
PY
cat "$here/table.md"

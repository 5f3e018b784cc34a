#!/usr/bin/env bash
# The host issue study (README.md here): BERT-large and GPT-2 large inference on one H100 SXM with the host
# issuing each op in 0, 8.2 or 20 us, at batch 1 to 16, as one sweep. Writes sweep.csv, table.md and
# plots/*.svg here (the points go to a scratch directory).
# Usage: results/host_issue/run.sh [build-dir]   (from the repository root)
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
bash "$here/../run_sweep.sh" "$here" "$build" --plots
python3 - "$here/sweep.csv" > "$here/table.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| workload | batch | latency, host keeps ahead | 8.2 us per op | 20 us per op | ops waited (8.2 us / 20 us) |")
print("|---|---:|---:|---:|---:|---:|")
for workload in dict.fromkeys(r["workload"] for r in rows):
    for batch in dict.fromkeys(r["batch"] for r in rows):
        by = {r["issue"]: r for r in rows if r["workload"] == workload and r["batch"] == batch}
        ms = lambda issue: float(by[issue]["latency_s"]) * 1e3
        waited = lambda issue: by[issue]["/devices/gpu0/host_issue/ops_waited"]
        print(f"| {workload.split(':')[0]} | {batch} | {ms('0s'):.2f} ms | {ms('8.2us'):.2f} ms "
              f"(x{ms('8.2us') / ms('0s'):.2f}) | {ms('20us'):.2f} ms (x{ms('20us') / ms('0s'):.2f}) | "
              f"{waited('8.2us')} / {waited('20us')} |")
PY
cat "$here/table.md"

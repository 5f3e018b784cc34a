#!/usr/bin/env bash
# The main job: HEFT on the heterogeneous server (CPU + GPU + NPU + FPGA behind one PCIe switch) with a
# generated 2,000-op workload, replayed in SimGrid. Extra arguments go to `heterosim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
HS_QUIET_BUILD=1 bash scripts/build.sh heterosim # only what the main job runs
./build/heterosim run --platform hetero-server --workload random:ops=2000,precision=fp16 --policy heft --seed 1 --out out/main --force "$@"

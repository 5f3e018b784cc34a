#!/usr/bin/env bash
# Pareto search benchmark: the project's archive search against pagmo's NSGA-II on the same encoding and
# evaluation budgets, one model per family on the hetero-server preset. Writes table.md here.
#   bash results/pareto_bench/run.sh [path/to/heterosim]
# Environment: BUDGETS (default "100 300 1000 3000"), SEEDS (default "1 2 3"), WORKLOADS (space-separated specs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cli="${1:-$root/build/heterosim}"
budgets="${BUDGETS:-100 300 1000 3000}"
seeds="${SEEDS:-1 2 3}"
platform="${PLATFORM:-hetero-server}"
# One model per family where the builders exist; the random DAG otherwise (see table.md for what ran).
default_workloads=()
# The list is read once: `grep -q` in a pipe under pipefail would count the writer's SIGPIPE as a miss.
registered="$("$cli" workloads 2>/dev/null)"
for spec in "resnet50:batch=8,precision=fp16" "bert-base:batch=8,precision=fp16" \
            "gpt2-small:precision=fp16,heads=fused" "gcn:precision=fp16" "random:ops=200,precision=fp16"; do
  name="${spec%%:*}"
  if grep -q "^ *$name\b" <<<"$registered"; then default_workloads+=("$spec"); fi
done
read -r -a workloads <<<"${WORKLOADS:-${default_workloads[*]}}"
out="$here/out"
mkdir -p "$out"
for w in "${workloads[@]}"; do
  tag="$(basename "$w" .json | tr ':,=' '_\-\-')"
  for b in $budgets; do
    for s in $seeds; do
      for alg in archive nsga2; do
        dir="$out/$tag/$alg-b$b-s$s"
        # Replay in SimGrid only for the largest budget of the first seed (the front reported below).
        replay="--no-replay"
        if [[ "$b" == "${budgets##* }" && "$s" == "${seeds%% *}" && "$alg" == archive ]]; then replay=""; fi
        "$cli" pareto --platform "$platform" --workload "$w" --budget "$b" --seed "$s" --algorithm "$alg" \
          --out "$dir" --force --quiet $replay
      done
    done
  done
done
python3 "$here/summarise.py" "$out" "$budgets" "$seeds" "${workloads[@]}" >"$here/table.md"
cat "$here/table.md"

#!/usr/bin/env bash
# Search efficiency with and without a proposal prior (issue 14, "use 2"): pagmo's NSGA-II, the archive
# search unguided, guided by the learned prior (--prior gnn) and by the cost-model-only prior (--prior speed,
# the ablation), each on the same encoding, evaluator, seeds and budget of distinct evaluations. Writes
# table.md here (the fronts go to out/, not committed).
#   bash results/prior_search/run.sh [path/to/heterosim]
# Environment: BUDGET (default 3000), SEEDS (default "1 2 3"), JOBS (default 2), WORKLOADS, PLATFORM.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cli="${1:-$root/build/heterosim}"
budget="${BUDGET:-3000}"
seeds="${SEEDS:-1 2 3}"
jobs="${JOBS:-2}"
platform="${PLATFORM:-hetero-server}"
# One model per family, as results/pareto_bench/ (fp16, so that every device of hetero-server can take work).
read -r -a workloads <<<"${WORKLOADS:-resnet50:batch=8,precision=fp16 bert-base:batch=8,precision=fp16 \
gpt2-small:precision=fp16,heads=fused gcn:precision=fp16 random:ops=200,precision=fp16}"
if ! grep -q -- "--prior" <<<"$("$cli" pareto --help)"; then echo "$cli has no --prior" >&2; exit 1; fi
out="$here/out"
mkdir -p "$out"
runs=()
for w in "${workloads[@]}"; do
  tag="$(echo "$w" | tr ':,=' '_\-\-')"
  for s in $seeds; do
    runs+=("$w|$tag/nsga2-s$s|--seed $s --algorithm nsga2")
    runs+=("$w|$tag/archive-s$s|--seed $s")
    runs+=("$w|$tag/gnn-s$s|--seed $s --prior gnn")
    runs+=("$w|$tag/speed-s$s|--seed $s --prior speed")
  done
done
export cli platform budget out
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -I{} bash -c '
  IFS="|" read -r w dir args <<<"{}"
  "$cli" pareto --platform "$platform" --workload "$w" --budget "$budget" --out "$out/$dir" --force --quiet \
    --no-replay $args'
python3 "$here/summarise.py" "$out" "$budget" "$seeds" "${workloads[@]}" >"$here/table.md"
cat "$here/table.md"

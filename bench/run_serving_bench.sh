#!/usr/bin/env bash
# The serving simulation at scale: two tenants (bert-base fp16 with dynamic batching on the NPU, gpt2-small
# with continuous batching on the GPU) on hetero-server, at 100k and 1M requests. Prints CPU time (user + sys)
# and peak RSS of each run, and the 1M / 100k ratios: 10 = linear time, 1.0 = memory that does not grow with
# finished requests. Target (issue 11): 1M requests under 120 s CPU.
# Usage: bench/run_serving_bench.sh [path/to/heterosim]
set -euo pipefail
cli=${1:-build/heterosim}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/serving.json" <<'JSON'
{"format": "heterosim-serving", "version": 1,
 "description": "bench/run_serving_bench.sh: two tenants on hetero-server",
 "tenants": [
  {"name": "bert", "workload": "bert-base:seq=128,precision=fp16", "arrival": {"process": "poisson", "rate": 300},
   "slo": "50ms", "priority": 1, "batching": {"mode": "dynamic", "max_batch": 8, "max_delay": "5ms"},
   "placement": {"policy": "heft", "devices": ["npu0"]}},
  {"name": "gpt2", "workload": "gpt2-small:seq=128,decode=8", "arrival": {"process": "gamma", "rate": 40, "cv": 2},
   "slo": "500ms", "batching": {"mode": "continuous", "max_batch": 8},
   "placement": {"policy": "heft", "devices": ["gpu0"]}}]}
JSON
printf '%-9s %9s %12s %14s\n' requests "CPU s" "peak RSS MiB" "requests/CPU s"
declare -A cpu rss
for n in 100000 1000000; do
  /usr/bin/time -f '%U %S %M' -o "$dir/time" "$cli" serve --platform hetero-server --config "$dir/serving.json" \
    --requests "$n" --scheduler edf --seed 1 --out "$dir/o$n" -q
  read -r user sys kib < "$dir/time"
  cpu[$n]=$(echo "$user + $sys" | bc -l)
  rss[$n]=$(echo "$kib / 1024" | bc -l)
  printf '%-9d %9.2f %12.1f %14.0f\n' "$n" "${cpu[$n]}" "${rss[$n]}" "$(echo "$n / ${cpu[$n]}" | bc -l)"
done
echo
echo "growth, CPU time 1M / 100k requests: $(printf '%.1f' "$(echo "${cpu[1000000]} / ${cpu[100000]}" | bc -l)") (10 = linear)"
echo "growth, peak RSS 1M / 100k requests: $(printf '%.2f' "$(echo "${rss[1000000]} / ${rss[100000]}" | bc -l)") (1.0 = flat)"
echo "request-level simulation alone, (CPU 1M - CPU 100k) / 900k: $(printf '%.0f' "$(echo "(${cpu[1000000]} - ${cpu[100000]}) * 1000000000 / 900000" | bc -l)") ns per request (the rest is building, planning and evaluating the batch graphs once)"
echo "1M requests: $(printf '%.1f' "${cpu[1000000]}") s CPU (target < 120 s): $(
  [[ $(echo "${cpu[1000000]} < 120" | bc -l) == 1 ]] && echo met || echo NOT met)"
jq -r '.tenants[] | "  \(.name): served \(.served), p99 \(.latency_s.p99) s, SLO met \(.slo_attainment)"' \
  "$dir/o1000000/serving.json"

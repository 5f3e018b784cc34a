#!/usr/bin/env bash
# The serving study (issue 11, docs/serving.md): on hetero-server, with each batch's service time from the
# contention-aware evaluator of its HEFT plan,
#   knee.csv      latency and throughput as load rises, bert-base on the GPU, without and with dynamic batching;
#   batching.csv  batching's effect on P99 and energy per request at one load (max batch, then max delay);
#   decoder.csv   gpt2-small without batching, with dynamic and with continuous batching, as load rises;
#   edf_fifo.csv  SLO attainment of two tenants with different deadlines sharing the GPU, per scheduler;
#   shapes.csv    bert-base over the whole server with request shapes seq 16..128: plans from a Pareto cache
#                 (serve-cache, fronts per seq bucket and batch size) against one fixed plan.
# Writes the CSVs and tables.md here. 20k requests a point, seed 1. Usage (from the repo root):
#   results/serving_study/run.sh [path/to/heterosim]
set -euo pipefail
cli=${1:-build/heterosim}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
requests=20000

# On gpu0 alone a served model runs each layer's attention heads as one batched kernel, as serving stacks do
# (heads=fused); over the whole server (shapes, below) the heads stay branches a plan can spread.
# bert-base (fp32, seq 128) on gpu0 at `rate` req/s with `batching` (a JSON object), SLO 50 ms.
bert_config() {
  cat <<JSON
{"format": "heterosim-serving", "version": 1, "tenants": [
  {"name": "bert", "workload": "bert-base:seq=128,heads=fused", "arrival": {"process": "poisson", "rate": $1},
   "slo": "50ms", "batching": $2, "placement": {"policy": "heft", "devices": ["gpu0"]}}]}
JSON
}

# Runs one point; prints the serving.json path.
serve() { # name, config text, extra arguments
  printf '%s\n' "$2" > "$work/$1.json"
  "$cli" serve --platform hetero-server --config "$work/$1.json" --requests "$requests" --seed 1 -q \
    --out "$work/$1" "${@:3}"
  echo "$work/$1/serving.json"
}

none='{"mode": "none"}'
dynamic='{"mode": "dynamic", "max_batch": 8, "max_delay": "2ms"}'
{
  echo "batching,offered_rps,throughput_rps,p50_ms,p99_ms,slo_attainment,mean_batch,gpu0_utilisation"
  for mode in none dynamic; do
    for rate in 40 80 120 160 180 190 200 240 300 360 400 420 440 460; do
      j=$(serve "knee-$mode-$rate" "$(bert_config "$rate" "${!mode}")")
      jq -r --arg m "$mode" --arg r "$rate" '[$m, $r, (.throughput_rps*10|round/10), (.tenants[0].latency_s.p50*1e5|round/100),
        (.tenants[0].latency_s.p99*1e5|round/100), (.tenants[0].slo_attainment*1e4|round/1e4),
        (.tenants[0].mean_batch*100|round/100), (.devices.gpu0.utilisation*1e4|round/1e4)] | @csv' "$j"
    done
  done
} > "$here/knee.csv"

{
  echo "max_batch,max_delay_ms,p50_ms,p99_ms,mean_batch,energy_per_request_mj,slo_attainment"
  point() { # max_batch, max_delay
    j=$(serve "batch-$1-$2" "$(bert_config 130 "{\"mode\": \"dynamic\", \"max_batch\": $1, \"max_delay\": \"$2ms\"}")")
    jq -r --arg b "$1" --arg d "$2" '[$b, $d, (.tenants[0].latency_s.p50*1e5|round/100), (.tenants[0].latency_s.p99*1e5|round/100),
      (.tenants[0].mean_batch*100|round/100), (.energy_per_request_j*1e4|round/10), (.tenants[0].slo_attainment*1e4|round/1e4)] | @csv' "$j"
  }
  for b in 1 2 4 8 16; do point "$b" 5; done
  for d in 0 1 2 10 20; do point 8 "$d"; done
} > "$here/batching.csv"

# Two tenants on gpu0: bert-base with a tight deadline (60 ms) and gpt2-small (8 generated tokens) with a
# loose one (500 ms), about 80% load together when chosen (70 x 7.59 ms + 9 / 31.7 req/s, the unbatched service
# time and capacity in knee.csv and decoder.csv on 2026-12-06; 78% with 2026-12-07's 6.88 ms and 30.4 req/s);
# bert has the higher priority.
two='{"format": "heterosim-serving", "version": 1, "tenants": [
  {"name": "bert", "workload": "bert-base:seq=128,heads=fused", "arrival": {"process": "poisson", "rate": 70}, "slo": "60ms",
   "priority": 1, "placement": {"policy": "heft", "devices": ["gpu0"]}},
  {"name": "gpt2", "workload": "gpt2-small:seq=128,decode=8,heads=fused", "arrival": {"process": "poisson", "rate": 9},
   "slo": "500ms", "placement": {"policy": "heft", "devices": ["gpu0"]}}]}'
{
  echo "scheduler,admission,bert_slo_attainment,gpt2_slo_attainment,bert_p99_ms,gpt2_p99_ms,dropped,jain_fairness,goodput_rps"
  for s in fifo priority edf least-slack; do
    for adm in off on; do
      flag=(); [[ $adm == on ]] && flag=(--admission)
      j=$(serve "two-$s-$adm" "$two" --scheduler "$s" "${flag[@]}")
      jq -r --arg s "$s" --arg a "$adm" '[$s, $a, (.tenants[0].slo_attainment*1e4|round/1e4), (.tenants[1].slo_attainment*1e4|round/1e4),
        (.tenants[0].latency_s.p99*1e5|round/100), (.tenants[1].latency_s.p99*1e5|round/100),
        (.tenants[0].dropped + .tenants[1].dropped), (.jain_fairness_slo_attainment*1e4|round/1e4), (.goodput_rps*10|round/10)] | @csv' "$j"
    done
  done
} > "$here/edf_fifo.csv"

# A decoder: gpt2-small (seq 128, 8 generated tokens) on gpu0, SLO 500 ms, without batching, with dynamic
# batching of whole requests, and with continuous batching (requests join and leave between decode steps).
gpt2_config() { # rate, batching
  cat <<JSON
{"format": "heterosim-serving", "version": 1, "tenants": [
  {"name": "gpt2", "workload": "gpt2-small:seq=128,decode=8,heads=fused", "arrival": {"process": "poisson", "rate": $1},
   "slo": "500ms", "batching": $2, "placement": {"policy": "heft", "devices": ["gpu0"]}}]}
JSON
}
{
  echo "batching,offered_rps,throughput_rps,p50_ms,p99_ms,slo_attainment,mean_batch,energy_per_request_mj"
  continuous='{"mode": "continuous", "max_batch": 8}'
  gdynamic='{"mode": "dynamic", "max_batch": 8, "max_delay": "10ms"}'
  for mode in none gdynamic continuous; do
    for rate in 10 20 40 80 120; do
      j=$(serve "gpt2-$mode-$rate" "$(gpt2_config "$rate" "${!mode}")")
      jq -r --arg m "${mode#g}" --arg r "$rate" '[$m, $r, (.throughput_rps*10|round/10), (.tenants[0].latency_s.p50*1e5|round/100),
        (.tenants[0].latency_s.p99*1e5|round/100), (.tenants[0].slo_attainment*1e4|round/1e4),
        (.tenants[0].mean_batch*100|round/100), (.energy_per_request_j*1e4|round/10)] | @csv' "$j"
    done
  done
} > "$here/decoder.csv"

# Shapes: bert-base (fp32) over the whole server, seq uniform on 16..128 (a trace, Poisson arrivals), SLO
# 20 ms, dynamic batching (8, 2 ms). Placements: one fixed plan (HEFT's at seq 128 for each batch size, run
# at each request's shape: two-level with one bucket), and a Pareto cache (buckets 32/64/128 refined at 5%,
# batches 1/2/4/8, 200 evaluations a front) picking least latency, or least energy within the SLO. The
# study serves on the contention-aware evaluator, so its cache picks on evaluator values (--no-replay).
"$cli" serve-cache --platform hetero-server --workload bert-base --tenant bert --buckets 32,64,128 \
  --batches 1,2,4,8 --budget 200 --refine 0.05 --seed 1 --no-replay -q --out "$work/cache.json"
shapes_trace() { # rate -> a trace of $requests requests
  python3 - "$1" "$requests" <<'PY'
import random, sys
rate, n = float(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
t = 0.0
print("time,tenant,seq")
for _ in range(n):
    t += rng.expovariate(rate)
    print(f"{t:.9f},bert,{rng.randint(16, 128)}")
PY
}
fixed='{"policy": "heft"}, "seq_buckets": [128], "shape_plans": "two-level"'
cache_latency='{"cache": "cache.json", "pick": "least-latency"}'
cache_energy='{"cache": "cache.json", "pick": "least-energy-within-slo"}'
{
  echo "placement,offered_rps,throughput_rps,p50_ms,p99_ms,slo_attainment,mean_batch,energy_per_request_mj"
  for rate in 100 150 200; do
    shapes_trace "$rate" > "$work/shapes-$rate.csv"
    for placement in fixed cache_latency cache_energy; do
      config='{"format": "heterosim-serving", "version": 1, "trace": "shapes-'$rate'.csv", "tenants": [
        {"name": "bert", "workload": "bert-base", "arrival": {"process": "trace"}, "slo": "20ms",
         "batching": {"mode": "dynamic", "max_batch": 8, "max_delay": "2ms"}, "placement": '"${!placement}"'}]}'
      j=$(serve "shapes-$placement-$rate" "$config")
      jq -r --arg p "${placement/_/-}" --arg r "$rate" '[$p, $r, (.throughput_rps*10|round/10), (.tenants[0].latency_s.p50*1e5|round/100),
        (.tenants[0].latency_s.p99*1e5|round/100), (.tenants[0].slo_attainment*1e4|round/1e4),
        (.tenants[0].mean_batch*100|round/100), (.energy_per_request_j*1e4|round/10)] | @csv' "$j"
    done
  done
} > "$here/shapes.csv"

# The batch records behind the curves (engine figures, once per batch size).
jq -r '.service_records[] | "\(.batch),\(.seconds*1e5|round/100),\(.dynamic_energy_j*1e3|round)"' \
  "$work/batch-16-5/serving.json" | sort -t, -n -k1 > "$work/records.csv"

table() { # csv file -> markdown table
  awk -F, 'NR == 1 { printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n|"; for (i = 1; i <= NF; i++) printf "---|"; printf "\n"; next }
    { gsub(/"/, ""); printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }' "$1"
}
{
  echo "# Serving study tables (generated by run.sh; do not edit)"
  echo
  echo "## Knee: bert-base fp32 seq 128 on gpu0 of hetero-server, SLO 50 ms, Poisson arrivals"
  echo; table "$here/knee.csv"; echo
  echo "## Batching at 130 req/s (same tenant): max batch at 5 ms delay, then max delay at max batch 8"
  echo; table "$here/batching.csv"; echo
  echo "Service records (batch, ms, dynamic mJ) from the evaluator: $(tr '\n' ' ' < "$work/records.csv")"
  echo
  echo "## A decoder: gpt2-small seq 128, 8 tokens, on gpu0, SLO 500 ms (mean_batch: requests per batch or per decode step)"
  echo; table "$here/decoder.csv"; echo
  echo "## Two tenants on gpu0: bert-base (SLO 60 ms, 70 req/s, priority 1) and gpt2-small decode 8 (SLO 500 ms, 9 req/s)"
  echo; table "$here/edf_fifo.csv"; echo
  echo "## Shapes: bert-base fp32 over hetero-server, seq uniform 16..128, SLO 20 ms, dynamic batching (8, 2 ms); one fixed plan against a Pareto cache"
  echo; table "$here/shapes.csv"
} > "$here/tables.md"
echo "wrote $here/knee.csv, batching.csv, decoder.csv, edf_fifo.csv, shapes.csv, tables.md"

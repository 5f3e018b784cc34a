#!/usr/bin/env bash
# What the allocator costs a large run: the same data-parallel GPT-2 small training step (as
# results/training_scale) run by the heterosim program linked with jemalloc (the default build) and by one
# linked with glibc's malloc (configured beside it, in BUILD-glibc, with -DHS_JEMALLOC=OFF; the first run
# builds that program, about 8 minutes on 2 cores, later runs only check it is up to date).
# The two are alternated, R rounds, and the script prints each run's CPU seconds (user + system, the
# replay's child included), the glibc/jemalloc ratio of the medians, and whether report.json is
# byte-identical between the two programs (it must be: the allocator changes no result).
# Usage: bench/run_allocator_bench.sh [build dir, default build] [nodes, default 32] [rounds, default 3]
set -euo pipefail
build=${1:-build}
nodes=${2:-32}
rounds=${3:-3}
glibc_build="$build-glibc"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$glibc_build" -DCMAKE_BUILD_TYPE=Release -DHS_JEMALLOC=OFF "${launcher[@]}" >/dev/null
nice make -C "$glibc_build" -j2 heterosim >/dev/null
grep -q jemalloc <<<"$(ldd "$build/heterosim")" || { echo "bench: $build/heterosim is not linked with jemalloc" >&2; exit 1; }
if grep -q jemalloc <<<"$(ldd "$glibc_build/heterosim")"; then
  echo "bench: $glibc_build/heterosim is linked with jemalloc" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gpus=$((nodes * 8))
if ((nodes == 1)); then parallel="dp=8"; else parallel="dp=$gpus,algo=hierarchical,group=8"; fi
run_once() { # $1 = label, $2 = program
  /usr/bin/time -f '%U %S' -o "$out/time" "$2" run --platform "dgx-a100-cluster:nodes=$nodes" \
    --workload gpt2-small:mode=training,batch=4 --policy as-pinned --parallel "$parallel" \
    --out "$out/$1" --force --report-only >/dev/null
  read -r user sys <"$out/time"
  echo "$user + $sys" | bc -l >>"$out/$1.cpu"
  printf '%-8s %8.2f CPU s\n' "$1" "$(tail -1 "$out/$1.cpu")"
}
echo "GPT-2 small DP step on $gpus GPUs, $rounds rounds alternated"
for ((r = 0; r < rounds; ++r)); do
  run_once jemalloc "$build/heterosim"
  run_once glibc "$glibc_build/heterosim"
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
j=$(median "$out/jemalloc.cpu")
g=$(median "$out/glibc.cpu")
printf 'median CPU s: jemalloc %.2f, glibc %.2f; glibc / jemalloc = %.2f\n' "$j" "$g" "$(echo "$g / $j" | bc -l)"
if cmp -s "$out/jemalloc/report.json" "$out/glibc/report.json"; then
  echo "report.json: byte-identical"
else
  echo "report.json: DIFFERS between the two allocators" >&2
  exit 1
fi

#!/usr/bin/env bash
# This tree's contention-aware evaluator against another git revision's (default: main), in one script:
# 1. evaluator_digest on both: every number the evaluator computes over a matrix of platforms x workloads x
#    planning policies x scenarios must be bit-identical (any difference is printed, and the exit code is 1);
# 2. the HEFT row of evaluator_bench (random:ops=2000,precision=fp16 on hetero-server) on both, alternating,
#    ROUNDS times: the median of each in op-evaluations per CPU second, and new / reference.
# The reference is built from `git archive REV` in build/ref-<rev>/ (this tree's evaluator_bench.cpp and
# evaluator_digest.cpp are copied in, so an older revision gets the same drivers).
# Usage: bench/compare_evaluator.sh [REV [ROUNDS]]   (from the repository root; builds build/ first)
set -euo pipefail
rev=${1:-main}
rounds=${2:-5}
ref=build/ref-$(git rev-parse --short "$rev")
if [[ ! -x $ref/build/evaluator_bench ]]; then
  mkdir -p "$ref/src"
  git archive "$rev" | tar -x -C "$ref/src"
  cp bench/evaluator_bench.cpp bench/evaluator_digest.cpp "$ref/src/bench/"
  grep -q evaluator_digest "$ref/src/CMakeLists.txt" ||
    printf '%s\n' 'add_executable(evaluator_digest EXCLUDE_FROM_ALL bench/evaluator_digest.cpp)' \
      'target_link_libraries(evaluator_digest PRIVATE heterosim_plugins heterosim_core)' >> "$ref/src/CMakeLists.txt"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$ref/src" -B "$ref/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build "$ref/build" --target evaluator_bench evaluator_digest -j"$(nproc)" >/dev/null
fi
cmake --build build --target evaluator_bench evaluator_digest -j"$(nproc)" >/dev/null
export HETEROSIM_DATA=${HETEROSIM_DATA:-$PWD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ref/build/evaluator_digest" > "$tmp/ref.txt"
build/evaluator_digest > "$tmp/new.txt"
status=0
if cmp -s "$tmp/ref.txt" "$tmp/new.txt"; then
  echo "digests: $(wc -l < "$tmp/new.txt") cases, all bit-identical to $rev"
else
  echo "digests: these cases differ from $rev:"
  diff "$tmp/ref.txt" "$tmp/new.txt" | grep '^>' || true
  status=1
fi
ref_rates=() new_rates=()
for _ in $(seq "$rounds"); do
  ref_rates+=("$("$ref/build/evaluator_bench" heft 2000 | awk '{print $6}')")
  new_rates+=("$(build/evaluator_bench heft 2000 | awk '{print $6}')")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
m_ref=$(median "${ref_rates[@]}")
m_new=$(median "${new_rates[@]}")
echo "heft plan, 2000 ops, op-evaluations per CPU second, $rounds alternating runs each:"
echo "  $rev: ${ref_rates[*]}"
echo "  this tree: ${new_rates[*]}"
printf '  median %s %.2f M, this tree %.2f M: %.3fx\n' "$rev" "$(echo "$m_ref / 1000000" | bc -l)" \
  "$(echo "$m_new / 1000000" | bc -l)" "$(echo "$m_new / $m_ref" | bc -l)"
exit $status

#!/usr/bin/env bash
# Layers point one way (docs/architecture.md, "Layers"): each folder may include only the folders below it.
#   sim        model types, cost model, engines
#   workloads  sim
#   policies   sim, workloads            (policies/pareto: also policies)
#   gnn        sim, workloads, policies, policies/pareto  (the learned placement, on libtorch)
#   validation sim, workloads, policies
#   serving    sim, workloads, policies  (the serving simulation: request streams above the engines)
#   cli        everything above
#   python     everything above (the Python module: an application beside cli)
# tests/, bench/, fuzz/ and results/ may include any layer. Prints each include that points up; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [sim]="sim"
  [workloads]="sim workloads"
  [policies]="sim workloads policies"
  [policies/pareto]="sim workloads policies policies/pareto"
  [gnn]="sim workloads policies policies/pareto gnn"
  [validation]="sim workloads policies policies/pareto validation"
  [serving]="sim workloads policies policies/pareto serving"
  [cli]="sim workloads policies policies/pareto gnn validation serving cli"
  [python]="sim workloads policies policies/pareto gnn validation serving cli python"
)
bad=0
for layer in sim workloads policies policies/pareto gnn validation serving cli python; do
  for file in "$layer"/*.cpp "$layer"/*.hpp; do
    [[ -e $file ]] || continue
    while IFS= read -r line; do
      inc=${line#*\"}
      inc=${inc%%\"*}
      dir=$(dirname "$inc")
      [[ $dir == . ]] && continue # a header beside the file
      ok=0
      for a in ${allowed[$layer]}; do [[ $dir == "$a" ]] && ok=1; done
      if ((ok == 0)); then
        echo "$file includes $inc: $layer may include only ${allowed[$layer]}"
        bad=1
      fi
    done < <(grep -E '^#include "' "$file" || true)
  done
done
if ((bad == 0)); then echo "layers: every include points down"; fi
exit "$bad"

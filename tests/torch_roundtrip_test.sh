#!/usr/bin/env bash
# The PyTorch measurement program's files round-trip through `heterosim validate`: a quick kernel grid and a
# quick ResNet-18 run at 1 and 2 intra-op threads are measured for real, then validated. Exits 77 (skipped)
# where Debian's python3-torch is not installed.
# Usage: tests/torch_roundtrip_test.sh path/to/heterosim
set -euo pipefail
heterosim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
python=${HS_PYTHON:-/usr/bin/python3}
measure=$here/../validation/torch/measure_torch.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$python" "$measure" kernels --quick --out "$work/kernels.json" 2> "$work/kernels.log" || {
  rc=$?; cat "$work/kernels.log" >&2; exit $rc; }
"$python" "$measure" models --quick --models resnet18 --out "$work/models.json" 2> "$work/models.log" ||
  { cat "$work/models.log" >&2; fail "the models run failed"; }
# Nothing is overwritten without --force.
if "$python" "$measure" kernels --quick --out "$work/kernels.json" 2> "$work/again.log"; then
  fail "a second run replaced kernels.json without --force"
fi
grep -q "pass --force" "$work/again.log" || fail "no clear message when --out exists"

"$heterosim" validate --torch-kernels "$work/kernels.json" --torch-models "$work/models.json" --deepbench none \
  --out "$work/validate" --quiet
"$python" - "$work/validate/report.json" "$work/kernels.json" <<'PY'
import json, sys
report, kernels = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
torch = report["torch"]
rows = {(m["model"], m["threads"]) for m in torch["models"]}
assert rows == {("resnet18", 1), ("resnet18", 2)}, rows
for m in torch["models"]:
    assert m["measured_s"] > 0 and m["predicted_s"] > 0, m
    assert not any(m["network"] + ":" in line or line.startswith(m["model"] + " at") for line in m["fit_inputs"]), m
    assert m["fit_inputs"][0] == f"kernel grid: {len(kernels['points'])} points", m["fit_inputs"]
env = kernels["environment"]
for key in ("framework", "torch_config", "blas", "onednn", "cpu_model", "loadavg_at_start", "intra_op_threads_measured"):
    assert env.get(key), key
assert {p["shape"]["threads"] for p in kernels["points"]} == {1.0, 2.0}
print("torch round trip: %d kernel points, %d model rows" % (len(kernels["points"]), len(rows)))
PY

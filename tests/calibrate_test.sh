#!/usr/bin/env bash
# `heterosim calibrate` on the committed fixture (tests/data/calibrate/, make_fixture.py): the trace and
# the times file it round-trips to give the same calibration; the calibration, used by `heterosim run
# --calibration`, reproduces the measured run end to end; nothing is overwritten without --force; a times
# file that does not match the workload is refused, naming the op.
# Usage: tests/calibrate_test.sh path/to/heterosim
set -euo pipefail
heterosim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
fixture=$here/data/calibrate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
calibrate() { "$heterosim" calibrate --workload "$fixture/tiny-cnn.json" --platform "$fixture/tiny-cpu.json" \
  --device cpu0 --quiet "$@"; }

# The committed fixture is what its script writes.
mkdir "$work/fixture"
python3 "$fixture/make_fixture.py" "$work/fixture"
for f in tiny-cnn.json tiny-cpu.json times.csv trace.json trace-times.csv tiny-gpu.json gpu-trace.json; do
  cmp "$fixture/$f" "$work/fixture/$f" || fail "tests/data/calibrate/$f is not what make_fixture.py writes"
done

calibrate --times "$fixture/times.csv" --out "$work/times"
for f in calibration.json framework-model.json report.json report.txt predictions.csv op-times.csv; do
  [[ -s $work/times/$f ]] || fail "calibrate wrote no $f"
done
# A second run into the same folder is refused without --force, and allowed with it.
if calibrate --times "$fixture/times.csv" --out "$work/times" 2> "$work/again.log"; then
  fail "a second calibrate replaced calibration.json without --force"
fi
grep -q "pass --force" "$work/again.log" || fail "no clear message when --out holds a calibration"
calibrate --times "$fixture/times.csv" --out "$work/times" --force

# The trace, and the times it round-trips to (op-times.csv, matched by index), give the same calibration.
calibrate --trace "$fixture/trace.json" --out "$work/trace"
calibrate --times "$work/trace/op-times.csv" --out "$work/trace-times"
python3 - "$work/trace" "$work/trace-times" <<'PY'
import json, sys
a, b = (json.load(open(d + "/calibration.json"))["entries"][0] for d in sys.argv[1:])
for key in ("efficiency", "memory_efficiency", "launch_overhead", "held_out_mape_percent"):
    assert a[key] == b[key], (key, a[key], b[key])
ra, rb = (json.load(open(d + "/report.json")) for d in sys.argv[1:])
assert ra["measurements"]["matched"] == "in topological order by kind", ra["measurements"]
assert rb["measurements"]["matched"] == "by index", rb["measurements"]
assert ra["end_to_end"] == rb["end_to_end"]
PY

# Cross-check: `run` with the written calibration (the SimGrid replay of the graph on the one device)
# reproduces the measured run end to end within 3 % (the framework model's trees, in sample), and within
# 1e-6 with the roofline alone, which the known roofline behind the fixture fits exactly.
calibrate --times "$fixture/times.csv" --out "$work/roofline" --roofline-only
for fit in times roofline; do
  "$heterosim" run --platform "$fixture/tiny-cpu.json" --workload "$fixture/tiny-cnn.json" \
    --calibration "$work/$fit/calibration.json" --policy heft --out "$work/run-$fit" --report-only > "$work/run-$fit.log"
  grep -q "calibration 'cpu0'.*calibrated cpu0" "$work/run-$fit.log" || fail "run did not name the calibration"
done
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
for fit, tolerance in (("times", 0.03), ("roofline", 1e-6)):
    measured = json.load(open(f"{work}/{fit}/report.json"))["end_to_end"]["measured_s"]
    latency = json.load(open(f"{work}/run-{fit}/report.json"))["makespan_s"]
    assert abs(latency - measured) <= tolerance * measured, (fit, latency, measured)
    print(f"calibrate cross-check ({fit}): run {latency * 1e3:.4f} ms, measured {measured * 1e3:.4f} ms")
PY

# A GPU trace: ops timed by their kernels (the same roofline as times.csv's pass 0, so the same fit), the
# host's 12 us per op written as the entry's issue_overhead; `run` with it starts the first op 12 us in and
# then runs the kernels back to back (each is longer than 12 us), so its latency is the measured sum + 12 us.
"$heterosim" calibrate --workload "$fixture/tiny-cnn.json" --platform "$fixture/tiny-gpu.json" --device gpu0 \
  --quiet --trace "$fixture/gpu-trace.json" --out "$work/gpu" --roofline-only
grep -q "issue_overhead" "$work/gpu/report.txt" || fail "calibrate did not report the host's issue time"
"$heterosim" run --platform "$fixture/tiny-gpu.json" --workload "$fixture/tiny-cnn.json" \
  --calibration "$work/gpu/calibration.json" --policy heft --out "$work/run-gpu" --report-only > "$work/run-gpu.log"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
gpu, cpu = (json.load(open(f"{work}/{d}/calibration.json"))["entries"][0] for d in ("gpu", "roofline"))
assert abs(gpu["issue_overhead"] - 12e-6) <= 1e-12, gpu["issue_overhead"]
for kind, e in cpu["efficiency"].items():
    assert abs(gpu["efficiency"][kind] - e) <= 1e-6 * e, (kind, gpu["efficiency"][kind], e)
report = json.load(open(f"{work}/gpu/report.json"))
assert report["gpu_trace"]["unattributed"] == 1, report["gpu_trace"]
measured = report["end_to_end"]["measured_s"]
latency = json.load(open(f"{work}/run-gpu/report.json"))["makespan_s"]
assert abs(latency - (measured + 12e-6)) <= 1e-6 * measured, (latency, measured)
print(f"calibrate from a GPU trace: run {latency * 1e3:.4f} ms = measured {measured * 1e3:.4f} ms + 12 us issue")
PY

# A run measured at 2 intra-op threads: the trees are keyed by 2, the entry says so, and `run` uses them
# (the same fit keyed differently: the same latency as the 1-thread calibration's).
calibrate --times "$fixture/times.csv" --out "$work/threads2" --intra-op-threads 2
"$heterosim" run --platform "$fixture/tiny-cpu.json" --workload "$fixture/tiny-cnn.json" \
  --calibration "$work/threads2/calibration.json" --policy heft --out "$work/run-threads2" --report-only > /dev/null
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
entry = json.load(open(f"{work}/threads2/calibration.json"))["entries"][0]
assert entry["intra_op_threads"] == 2, entry
kinds = json.load(open(f"{work}/threads2/framework-model.json"))["kinds"]
assert all(list(k["trees_by_threads"]) == ["2"] for k in kinds.values()), kinds
one, two = (json.load(open(f"{work}/{d}/report.json"))["makespan_s"] for d in ("run-times", "run-threads2"))
assert one == two, (one, two)
PY
if calibrate --times "$fixture/times.csv" --out "$work/threads0" --intra-op-threads 0 2> "$work/threads0.log"; then
  fail "--intra-op-threads 0 was accepted"
fi

# A times file that names an op the workload lacks is refused, naming it and its line.
printf 'op,kind,seconds\nconv1,conv2d,0.001\nconv9,conv2d,0.001\n' > "$work/bad.csv"
if calibrate --times "$work/bad.csv" --out "$work/bad" 2> "$work/bad.log"; then fail "a mismatched times file was accepted"; fi
grep -q "bad.csv: line 3, column op: the workload has no op 'conv9'" "$work/bad.log" ||
  { cat "$work/bad.log" >&2; fail "the refusal does not name the op and its line"; }
[[ ! -e $work/bad/calibration.json ]] || fail "a refused calibrate wrote a calibration"
echo "calibrate: ok"

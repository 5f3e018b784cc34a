#!/usr/bin/env bash
# The same sweep run here and as a Slurm job array on a real single-node Slurm (scripts/start-slurm.sh)
# gives the same sweep.csv, byte for byte; an interrupted sweep resumes; no sbatch on PATH is a clear error.
# Usage: tests/sweep_slurm_test.sh path/to/heterosim
set -euo pipefail
heterosim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
sweep=$here/data/sweep_small.json
work=$(mktemp -d)
started=0
cleanup() {
  if ((started)); then HS_SLURM_DIR=$work/slurm bash "$here/../scripts/start-slurm.sh" --stop; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Here, two processes at a time.
"$heterosim" sweep "$sweep" --out "$work/local" --jobs 2 --quiet
[[ $(wc -l < "$work/local/sweep.csv") -eq 9 ]] || fail "expected a header and 8 rows in sweep.csv"
grep -q '^7,31.5GBps,fastest-device,2,ok,' "$work/local/sweep.csv" || fail "row 7 is not the last grid point"

# Resume: a lost point and a half-written one are run again; the table comes out the same.
rm -rf "$work/local/points/p0005"
mkdir "$work/local/points/p0006.partial"
cp "$work/local/sweep.csv" "$work/expected.csv"
"$heterosim" sweep "$sweep" --out "$work/local" --quiet
cmp "$work/expected.csv" "$work/local/sweep.csv" || fail "a resumed sweep changed the table"
[[ ! -e $work/local/points/p0006.partial ]] || fail "the half-written point was left behind"

# No sbatch: a clear error, at once.
if out=$(PATH=/nonexistent "$heterosim" sweep "$sweep" --out "$work/nosbatch" --slurm 2>&1); then
  fail "--slurm without sbatch succeeded"
fi
grep -q "no 'sbatch' on PATH" <<<"$out" || fail "unclear error without sbatch: $out"

# On Slurm: three array tasks and a merge job.
export SLURM_CONF
SLURM_CONF=$(HS_SLURM_DIR=$work/slurm bash "$here/../scripts/start-slurm.sh")
started=1
timeout 300 "$heterosim" sweep "$sweep" --out "$work/cluster" --slurm --shards 3 --wait --quiet ||
  fail "the Slurm sweep failed: $(cat "$work"/cluster/slurm/*.log 2>/dev/null)"
cmp "$work/local/sweep.csv" "$work/cluster/sweep.csv" || fail "the Slurm sweep's CSV differs from the local one"
for k in 0 1 2; do [[ -e $work/cluster/slurm/shard-$k.log ]] || fail "no log of shard $k"; done
echo "sweep: local and Slurm tables identical ($(($(wc -l < "$work/local/sweep.csv") - 1)) points)"

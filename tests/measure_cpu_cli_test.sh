#!/usr/bin/env bash
# hs_measure_cpu refuses a bad --rounds with a message that names the option, exit status 2, and no file.
set -uo pipefail
measure=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bad in 0 51 abc 3x ""; do
  message=$("$measure" --out "$out/m.json" --rounds "$bad" 2>&1)
  status=$?
  [[ $status -eq 2 ]] || { echo "--rounds '$bad': exit $status, expected 2"; exit 1; }
  [[ $message == *"--rounds: expected a whole number from 1 to 50, got '$bad'"* ]] ||
    { echo "--rounds '$bad': message was: $message"; exit 1; }
  [[ ! -e $out/m.json ]] || { echo "--rounds '$bad' wrote a file"; exit 1; }
done
echo "hs_measure_cpu --rounds: bad values refused"

#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds tests/consumer against it with find_package, and
# checks that the consumer's HEFT plan evaluates to what the installed CLI reports for the same run, and that
# the installed CLI finds its presets in <prefix>/share/heterosim with no environment set.
# Usage: tests/consumer/consumer_test.sh BUILD_DIR CONSUMER_SOURCE_DIR
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
[[ -f $work/prefix/lib/cmake/HeteroSim/HeteroSimConfig.cmake ]] || fail "no HeteroSimConfig.cmake installed"
[[ -f $work/prefix/include/heterosim/sim/platform.hpp ]] || fail "no headers under include/heterosim"
[[ -f $work/prefix/share/heterosim/platforms/hetero-server.json ]] || fail "no presets under share/heterosim"

cmake -S "$source_dir" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$work/configure.log" || { cat "$work/configure.log"; fail "the consumer did not configure"; }
cmake --build "$work/consumer" -j"$(nproc)" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "the consumer did not build"; }

# Outside <prefix>/bin the library finds its data through HETEROSIM_DATA, and says so when it cannot.
if "$work/consumer/consumer" 2> "$work/err.txt"; then fail "the consumer found presets without HETEROSIM_DATA"; fi
grep -q HETEROSIM_DATA "$work/err.txt" || fail "unclear error without a data directory: $(cat "$work/err.txt")"
out=$(HETEROSIM_DATA=$work/prefix/share/heterosim "$work/consumer/consumer")
echo "consumer: $out"
consumer_makespan=$(awk '{print $(NF-1)}' <<<"$out")

# The installed CLI, with no environment, on the same run.
(cd "$work" && "$work/prefix/bin/heterosim" run --platform hetero-server --workload random:ops=200,precision=fp16 \
  --seed 1 --engine evaluator --report-only -q --out "$work/run")
cli_makespan=$(python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['makespan_s']))" "$work/run/report.json")
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if a==b else 1)" \
  "$consumer_makespan" "$cli_makespan" || fail "consumer says $consumer_makespan s, the installed CLI $cli_makespan s"
echo "install: the consumer and the installed CLI agree ($cli_makespan s)"

# `validate` is a module too (docs/architecture.md, "Plug-in modules"), always built and installed.
"$work/prefix/bin/heterosim" validate --help >/dev/null 2>&1 ||
  fail "the installed CLI has no validate command: lib/heterosim/plugins/heterosim_validation.so not loaded"
echo "install: the installed CLI loads validate from lib/heterosim/plugins"

# Where libtorch built the gnn-placement module, the installed CLI loads it from <prefix>/lib/heterosim/plugins.
if [[ -f $work/prefix/lib/heterosim/plugins/heterosim_gnn.so ]]; then
  policies=$("$work/prefix/bin/heterosim" policies 2>&1)
  grep -q '^gnn-placement' <<<"$policies" ||
    fail "the installed CLI does not list gnn-placement from its plug-in module"
  echo "install: the installed CLI loads gnn-placement from lib/heterosim/plugins"
fi

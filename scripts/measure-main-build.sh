#!/usr/bin/env bash
# The main job's build cost: configures an empty build directory and builds the `heterosim` target (what
# scripts/run-main.sh builds) with ccache disabled, printing wall and CPU (user, sys) seconds of each step.
# On a shared machine compare CPU time; wall on an idle 2-core machine is about CPU / 2.
# Usage: scripts/measure-main-build.sh [build-dir]   (default: a fresh directory under /tmp, removed after)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$(mktemp -d)/build}
rm -rf "$build"
export CCACHE_DISABLE=1
/usr/bin/time -f "configure: %e s wall, %U s user, %S s sys" \
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHS_WERROR=ON >/dev/null
/usr/bin/time -f "build: %e s wall, %U s user, %S s sys" \
  nice cmake --build "$build" -j2 --target heterosim >"$build.log" 2>&1

#!/usr/bin/env bash
# Installs HeteroSim's build dependencies from Debian 12 packages.
# Fast when nothing is missing: it only calls apt-get for packages dpkg does not report as installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libsimgrid-dev libboost-dev libeigen3-dev libxgboost-dev libcli11-dev nlohmann-json3-dev doctest-dev libpagmo-dev libtorch-dev
  libonnx-dev libprotobuf-dev
  libjemalloc-dev          # the program's allocator: large replays run 2.5x faster than on glibc malloc
  libexpat1-dev            # SimGrid platform files (.xml) are read with expat
  clang libclang-rt-14-dev
  slurm-wlm munge          # the sweep test runs a real single-node Slurm (scripts/start-slurm.sh)
  chromium python3         # the report page's test loads it in headless Chromium and reads the DOM in Python
  librsvg2-bin             # rsvg-convert: run writes gantt.png beside gantt.svg
  python3-torch python3-torchvision  # validate's PyTorch measurements (validation/torch/measure_torch.py)
  pybind11-dev python3-dev python3-pytest  # the Python module (python/) and its tests
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all dependencies present"
fi

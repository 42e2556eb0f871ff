#!/usr/bin/env bash
# Installs everything rlx needs to build and test on Debian 12 (run as root).
# Quick the second time: packages already present are skipped.
set -euo pipefail

packages=(
  # build
  cmake ninja-build ccache git pkg-config
  # LLVM/MLIR 22.1 (bookworm-security)
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22 libclang-rt-22-dev
  # the thread pool of parallel kernels
  libomp-22-dev
  # C++ libraries
  libcli11-dev nlohmann-json3-dev libgtest-dev
  # benchmark reference
  libopenblas-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "rlx: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

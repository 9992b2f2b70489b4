#!/usr/bin/env bash
# Configures and builds hetc in build/ (Release, Ninja, ccache, lld, -j2).
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths under the checkout are hashed relative to it, so that ccache serves
# every clone of the repository (CI builds a fresh one each time).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
BUILD_DIR="${HETC_BUILD_DIR:-build}"
PYTHON="$(bash scripts/python.sh)"
cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE="$PYTHON"
cmake --build "$BUILD_DIR" -j "${HETC_JOBS:-2}"

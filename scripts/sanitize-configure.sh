#!/usr/bin/env bash
# Installs what the sanitizer build needs and configures it in
# build-sanitize/ (or $HETC_SANITIZE_BUILD_DIR): clang-22, RelWithDebInfo,
# AddressSanitizer, UBSan and libFuzzer's coverage instrumentation
# (HETC_FUZZ). scripts/sanitize.sh and scripts/fuzz.sh build in it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --sanitizers
cmake -S . -B "${HETC_SANITIZE_BUILD_DIR:-build-sanitize}" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DHETC_FUZZ=ON -DHETC_PYTHON=OFF \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE="$(bash scripts/python.sh)"

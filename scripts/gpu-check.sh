#!/usr/bin/env bash
# Every check that needs a GPU, on a machine that has one (CI machines have
# none: there these tests skip, saying so):
#   1. `hetc backends` must say "cuda: ready";
#   2. the unit tests of the plan backends, CUDA cases included;
#   3. every lit test, run-cuda-backend.test among them (REQUIRES: a CUDA
#      device);
#   4. the Python module's test of the CUDA backend;
#   5. the model suite's kernel plans on the GPU against ONNX Runtime
#      (bench/models/cpu_backend.py --backend cuda; --quick with QUICK=1);
#   6. the decode bench: tokens per second against the GPU's memory
#      bandwidth (bench/gpu/decode_bench.py).
# Builds first (scripts/build.sh) unless HETC_NO_BUILD=1. Exits non-zero
# at the first check that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${HETC_BUILD_DIR:-build}"
PYTHON="$(bash scripts/python.sh)"
if [ "${HETC_NO_BUILD:-0}" != 1 ]; then
  bash scripts/build.sh
fi
HETC="$BUILD_DIR/bin/hetc"
echo "== 1. backends"
"$HETC" backends | tee "$BUILD_DIR/gpu-backends.txt"
if ! grep -q "^cuda: ready" "$BUILD_DIR/gpu-backends.txt"; then
  echo "gpu-check: the CUDA backend cannot run here (see above)" >&2
  exit 1
fi
echo "== 2. unit tests"
"$BUILD_DIR/unittests/PlanBackendTest"
echo "== 3. lit"
/usr/lib/llvm-22/bin/lit "$BUILD_DIR/test/lit" -q
echo "== 4. Python"
PYTHONPATH="$BUILD_DIR/python" HETC_TEST_WORK_DIR="$BUILD_DIR/test/python" \
  "$PYTHON" -m pytest -q -p no:cacheprovider test/python -k "cuda or backend"
echo "== 5. model suite on the GPU"
QUICK_FLAG=""
if [ "${QUICK:-0}" = 1 ]; then QUICK_FLAG="--quick"; fi
"$PYTHON" bench/models/cpu_backend.py --hetc "$HETC" --backend cuda $QUICK_FLAG
echo "== 6. decode bench"
"$PYTHON" bench/gpu/decode_bench.py --hetc "$HETC"

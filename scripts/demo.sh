#!/usr/bin/env bash
# Installs, builds, compiles the bundled example model for tsp-v1, runs it on
# the chip model and checks its output against ONNX Runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
BUILD_DIR="${HETC_BUILD_DIR:-build}"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"
MODEL=test/e2e/example/mlp.onnx
echo "== hetc compile $MODEL"
"$BUILD_DIR/bin/hetc" compile "$MODEL" --chip chips/tsp-v1.chip -o "$OUT/mlp.hetx"
echo "== hetc run $OUT/mlp.hetx"
"$BUILD_DIR/bin/hetc" run "$OUT/mlp.hetx" --output-dir "$OUT/run" --seed 1
echo "== check against ONNX Runtime"
"$(bash scripts/python.sh)" scripts/compare_with_ort.py "$MODEL" "$OUT/run"

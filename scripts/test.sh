#!/usr/bin/env bash
# Installs, builds and runs every test: lit, GoogleTest units and the
# end-to-end comparison with ONNX Runtime, all through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir "${HETC_BUILD_DIR:-build}" --output-on-failure -j "${HETC_JOBS:-2}"

#!/usr/bin/env bash
# Installs every build and test dependency of hetc on a fresh Debian 12 machine.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build ccache lld-22 clang-22
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libprotobuf-dev protobuf-compiler libonnx-dev
  libcli11-dev libgtest-dev googletest
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
)
PY_PACKAGES=(onnx onnxruntime numpy)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -ne 0 ]; then
  echo "hetc: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import onnx, onnxruntime, numpy' >/dev/null 2>&1; then
  echo "hetc: installing Python packages: ${PY_PACKAGES[*]}"
  "$PYTHON" -m pip install -q "${PY_PACKAGES[@]}"
fi

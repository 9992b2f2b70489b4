#!/usr/bin/env bash
# Installs every build and test dependency of hetc on a fresh Debian 12
# machine: Debian's packages with apt, and onnx, onnxruntime and numpy for
# the Python that scripts/python.sh names (the first python3 on PATH when
# it can take them, else a virtual environment in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build ccache lld-22 clang-22
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libprotobuf-dev protobuf-compiler libonnx-dev
  libcli11-dev libgtest-dev googletest
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  python3 python3-pip python3-venv
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

has_packages() { "$1" -c 'import onnx, onnxruntime, numpy' >/dev/null 2>&1; }

PYTHON="$(bash scripts/python.sh)"
if has_packages "$PYTHON"; then
  exit 0
fi
echo "hetc: installing Python packages for $PYTHON: ${PY_PACKAGES[*]}"
if ! "$PYTHON" -m pip install -q "${PY_PACKAGES[@]}"; then
  # A system Python that refuses pip (PEP 668) gets a virtual environment.
  echo "hetc: $PYTHON refuses packages; creating a virtual environment in .venv"
  "$PYTHON" -m venv .venv
  .venv/bin/python3 -m pip install -q "${PY_PACKAGES[@]}"
fi
has_packages "$(bash scripts/python.sh)"

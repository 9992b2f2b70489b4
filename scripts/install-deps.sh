#!/usr/bin/env bash
# Installs every build and test dependency of hetc on a fresh Debian 12
# machine: Debian's packages with apt, and the Python packages of
# scripts/requirements.lock (onnx, onnxruntime, numpy and their
# dependencies, exact versions checked by hash) for the Python that
# scripts/python.sh names (the first python3 on PATH when it can take them,
# else a virtual environment in .venv). Debian's python3-torch and
# python3-torchvision, for /usr/bin/python3, export the model suite
# (bench/models). Debian's LLVM is held to major
# version 22 by package name; the archive keeps only its newest point release.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build ccache lld-22 clang-22
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libprotobuf-dev protobuf-compiler libonnx-dev
  libcli11-dev libgtest-dev googletest
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  python3 python3-pip python3-venv python3-dev pybind11-dev
  python3-torch python3-torchvision
  libdnnl-dev
  libsentencepiece-dev sentencepiece
)
LOCK=scripts/requirements.lock
LOCKS=("$LOCK")
# --sanitizers adds the runtimes of AddressSanitizer, UBSan and libFuzzer
# for scripts/sanitize.sh and scripts/fuzz.sh; --iree adds the IREE
# compiler of scripts/requirements-iree.lock, which the roofline bench
# times against hetc (bench/roofline/roofline.py --iree).
for flag in "$@"; do
  case "$flag" in
    --sanitizers) APT_PACKAGES+=(libclang-rt-22-dev libfuzzer-22-dev) ;;
    --iree) LOCKS+=(scripts/requirements-iree.lock) ;;
    *) echo "hetc: install-deps.sh takes --sanitizers and --iree, not '$flag'" >&2
       exit 2 ;;
  esac
done

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

# True when `$1` has exactly the versions the lock files name.
has_packages() {
  "$1" - "${LOCKS[@]}" <<'PY' >/dev/null 2>&1
import re, sys
from importlib import metadata
for lock in sys.argv[1:]:
    for line in open(lock):
        m = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if m and metadata.version(m.group(1)) != m.group(2):
            sys.exit(1)
PY
}
pip_install() {
  local requirements=()
  for lock in "${LOCKS[@]}"; do requirements+=(-r "$lock"); done
  "$1" -m pip install -q --disable-pip-version-check --require-hashes \
    --only-binary=:all: "${requirements[@]}"
}

PYTHON="$(bash scripts/python.sh)"
if has_packages "$PYTHON"; then
  exit 0
fi
echo "hetc: installing the Python packages of ${LOCKS[*]} for $PYTHON"
PIP_LOG="$(mktemp)"
trap 'rm -f "$PIP_LOG"' EXIT
if ! pip_install "$PYTHON" 2>"$PIP_LOG"; then
  # A system Python that refuses pip (PEP 668) gets a virtual environment;
  # any other failure (a download, a hash, a conflict) is reported as is.
  if ! grep -q externally-managed-environment "$PIP_LOG"; then
    cat "$PIP_LOG" >&2
    echo "hetc: pip could not install ${LOCKS[*]} for $PYTHON" >&2
    exit 1
  fi
  echo "hetc: $PYTHON refuses packages; creating a virtual environment in .venv"
  "$PYTHON" -m venv .venv
  pip_install .venv/bin/python3
fi
if ! has_packages "$(bash scripts/python.sh)"; then
  echo "hetc: the Python packages do not match ${LOCKS[*]}" >&2
  exit 1
fi

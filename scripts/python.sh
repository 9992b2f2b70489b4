#!/usr/bin/env bash
# Prints the Python that hetc's scripts and tests use: $PYTHON when set,
# else .venv/bin/python3 when scripts/install-deps.sh made one, else the
# first python3 on PATH.
cd "$(dirname "$0")/.."
if [ -n "${PYTHON:-}" ]; then
  command -v "$PYTHON"
elif [ -x .venv/bin/python3 ]; then
  echo "$PWD/.venv/bin/python3"
else
  command -v python3
fi

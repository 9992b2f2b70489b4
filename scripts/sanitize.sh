#!/usr/bin/env bash
# Builds hetc with AddressSanitizer and UBSan (clang-22, RelWithDebInfo)
# in build-sanitize/ and runs the lit, unit, end-to-end and fuzz-replay
# tests under them. The same build serves scripts/fuzz.sh (its code also
# carries libFuzzer's coverage instrumentation). A cold build takes about
# half an hour at -j2; ccache keeps later ones short.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths under the checkout are hashed relative to it, so that ccache serves
# every clone of the repository (CI builds a fresh one each time).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
BUILD_DIR="${HETC_SANITIZE_BUILD_DIR:-build-sanitize}"
bash scripts/sanitize-configure.sh
cmake --build "$BUILD_DIR" -j "${HETC_JOBS:-2}"
# Debian's MLIR is not instrumented: the instrumented LLVM headers poison
# allocator slabs that libMLIR then writes (a false use-after-poison), so
# user poisoning is off; everything else is checked and any report fails.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The conformance suite takes long under the sanitizers and the docs
# checks do not run code; both run in the normal test command.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${HETC_JOBS:-2}" \
  -E '^(conformance|docs-up-to-date-.*)$'

#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer, AddressSanitizer and UBSan in
# build-sanitize/ (as scripts/sanitize.sh configures it) and runs each for
# a while from its seed corpus. New coverage goes to
# build-sanitize/fuzz-corpus/<target>/, findings to
# build-sanitize/fuzz-findings/<target>/; the summary gives executions and
# findings per target. Usage:
#   scripts/fuzz.sh [--time SECONDS] [--runs N] [target ...]
# (default: 60 s, all targets). --runs stops a target after N executions
# (libFuzzer's -runs) or at --time, whichever comes first: a long campaign
# is `--runs 10000000 --time 36000`.
# Add a finding, once fixed, to test/fuzz/corpus/<target>/ so that the
# normal test command replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths under the checkout are hashed relative to it, so that ccache serves
# every clone of the repository (CI builds a fresh one each time).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
TIME=60
RUNS=-1
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
ALL=(fuzz-chip-file fuzz-artifact fuzz-npy fuzz-schedule fuzz-input-value
     fuzz-onnx fuzz-mlir)
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")

BUILD_DIR="${HETC_SANITIZE_BUILD_DIR:-build-sanitize}"
bash scripts/sanitize-configure.sh >/dev/null
cmake --build "$BUILD_DIR" -j "${HETC_JOBS:-2}" --target "${TARGETS[@]}"

export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The extra seed folders of each target, as test/fuzz/CMakeLists.txt
# names them.
seeds() {
  case "$1" in
    fuzz-chip-file) echo chips ;;
    fuzz-schedule) echo test/lit/scheduler ;;
    fuzz-mlir) echo test/lit/dialects ;;
  esac
}
SUMMARY=()
status=0
for target in "${TARGETS[@]}"; do
  corpus="$BUILD_DIR/fuzz-corpus/$target"
  findings="$BUILD_DIR/fuzz-findings/$target"
  mkdir -p "$corpus" "$findings"
  log="$BUILD_DIR/fuzz-findings/$target.log"
  echo "== $target for $TIME s"
  started=$SECONDS
  # shellcheck disable=SC2046
  if "$BUILD_DIR/fuzz/$target" -max_total_time="$TIME" -runs="$RUNS" -print_final_stats=1 \
      -timeout=25 -rss_limit_mb=4096 -artifact_prefix="$findings/" \
      "$corpus" "test/fuzz/corpus/$target" $(seeds "$target") >"$log" 2>&1; then
    result="no finding"
  else
    result="FINDING (see $log and $findings/)"
    status=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  SUMMARY+=("$target: ${runs:-?} executions in $((SECONDS - started)) s, $result")
done
echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
exit $status

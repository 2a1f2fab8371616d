#!/usr/bin/env bash
# Checks that #include arrows point down the floors (docs/architecture.md):
#   core <- checkpoint <- runtime/graph <- runtime/engine, runtime/cc <- session
#     <- session/distributed <- session/training <- tools
# Test-only files (tests, benchmarks, test utilities) may also reach the
# session and kernel targets they run graphs with. Prints each violation and
# exits 1 if there is one.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# allowed <file> <include>: succeeds when <file> may include <include>.
allowed() {
  local f="$1" inc="$2"
  case "$inc" in
    */*) ;;
    *) return 0 ;;  # system or third-party header without a project path
  esac
  case "$inc" in
    core/*|absl/*|google/*|gtest/*|gmock/*|benchmark/*|Eigen/*|unsupported/*|leveldb/*|isa-l*|isal/*) ;;
    checkpoint/*|runtime/*|session/*|tools/*|tests/*) ;;
    *) return 0 ;;
  esac
  local test_only=0
  case "$f" in
    *_test.cc|*_benchmark.cc|*/kernel_test_util.*|tests/*) test_only=1 ;;
  esac
  case "$f" in
    core/*) [[ "$inc" != checkpoint/* && "$inc" != runtime/* && "$inc" != session/* && "$inc" != tools/* ]] ;;
    checkpoint/*) [[ "$inc" != runtime/* && "$inc" != session/* && "$inc" != tools/* ]] || { [ $test_only = 1 ] && [[ "$inc" == tests/* ]]; } ;;
    runtime/graph/*)
      [[ "$inc" != checkpoint/* && "$inc" != runtime/engine/* && "$inc" != runtime/cc/* && "$inc" != session/* && "$inc" != tools/* ]] ||
        { [ $test_only = 1 ] && [[ "$inc" == tests/* ]]; } ;;
    runtime/engine/kernels/*)
      [[ "$inc" != runtime/cc/* && "$inc" != session/* && "$inc" != tools/* ]] ||
        { [ $test_only = 1 ] && [[ "$inc" == runtime/cc/* ]]; } ;;
    runtime/engine/*) [[ "$inc" != checkpoint/* && "$inc" != runtime/cc/* && "$inc" != runtime/engine/kernels/* && "$inc" != session/* && "$inc" != tools/* ]] ;;
    runtime/cc/*)
      [[ "$inc" != checkpoint/* && "$inc" != runtime/engine/* && "$inc" != session/* && "$inc" != tools/* ]] ||
        { [ $test_only = 1 ] && [[ "$inc" == session/* || "$inc" == runtime/engine/kernels/* ]]; } ;;
    session/distributed/*) [[ "$inc" != tools/* && "$inc" != session/training/* ]] ;;
    session/training/*) [[ "$inc" != tools/* ]] ;;
    session/*) [[ "$inc" != tools/* && "$inc" != session/distributed/* && "$inc" != session/training/* ]] ;;
    *) return 0 ;;
  esac
}

bad=0
files=$(git ls-files --cached --others --exclude-standard '*.h' '*.cc' 2>/dev/null | grep -v '^third_party/') ||
  files=$(find core checkpoint runtime session tools tests -name '*.h' -o -name '*.cc')
for f in $files; do
  while IFS= read -r inc; do
    if ! allowed "$f" "$inc"; then
      echo "layers: $f includes \"$inc\", an arrow up the floors"
      bad=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
n=$(echo "$files" | wc -l)
if [ $bad = 0 ]; then echo "layers: $n files, every include points down the floors"; fi
exit $bad

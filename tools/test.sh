#!/usr/bin/env bash
# Runs minigraph's whole test suite: installs what the build needs (once),
# builds, and runs every test. Extra arguments go to `bazel test`.
# Prints a closing line "tests: N passed, N failed" and exits non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

tools/setup.sh || exit 1

args=()
shared="$(cd .. && pwd)/shared/testdata"
if [ -d "$shared" ]; then
  args+=("--test_env=MG_SHARED_TESTDATA=$shared")
else
  echo "test: $shared not found; tests that read TensorFlow-written files will skip"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Always run the tests: the disk cache would otherwise replay old results.
bazel test //... --nocache_test_results "${args[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

total=$(bazel query 'tests(//...) except attr(tags, manual, //...)' 2>/dev/null | wc -l)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log" || true)
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=$total  # the build itself failed
fi
echo "tests: $((total - failed)) passed, $failed failed"
exit "$rc"

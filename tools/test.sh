#!/usr/bin/env bash
# Runs minigraph's test suite: installs what the build needs (once), builds,
# and runs every test, and checks the layers. With --full (what CI runs), it
# then runs every test again under ASan + UBSan and under ThreadSanitizer,
# and each fuzzer. Other arguments go to `bazel test`. Prints a closing line
# "tests: N passed, N failed" and exits non-zero on any failure.
#   tools/test.sh           # quick: about 7 minutes cold, 2 warm
#   tools/test.sh --full    # the sanitizers and fuzzers too
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
full=0
if [ "${1:-}" = "--full" ]; then
  full=1
  shift
fi
# MG_SANITIZERS=0 leaves the sanitizer passes out of a full run.
sanitizers=0
[ "$full" = 1 ] && [ "${MG_SANITIZERS:-1}" != 0 ] && sanitizers=1

# Each pass's wall time, for the closing lines: a cold full run must stay
# well inside CI's limit, and these say where its minutes go.
times=()
phase_start=$SECONDS
# phase NAME: records the time since the last phase ended as NAME's.
phase() {
  times+=("$1 $(((SECONDS - phase_start) / 60)) min $(((SECONDS - phase_start) % 60)) s")
  phase_start=$SECONDS
}

# The build's Debian packages, and TensorFlow 2.21 in its virtualenv for
# the interop tests (tests/tf_interop), which must then run, not skip.
tools/setup.sh tf || exit 1
phase setup

args=("--test_env=MG_TF_PYTHON=${MG_TF_VENV:-/var/cache/minigraph-tf}/bin/python"
      "--test_env=MG_TF_REQUIRED=1")
shared="$(cd .. && pwd)/shared/testdata"
if [ -d "$shared" ]; then
  args+=("--test_env=MG_SHARED_TESTDATA=$shared")
else
  echo "test: $shared not found; tests that read TensorFlow-written files will skip"
fi

# The include graph must point down the floors (docs/architecture.md).
layers_failed=0
tools/check_layers.sh || layers_failed=1

# The end of each failed test's log, so that a CI record shows why.
show_failures() {
  grep -oE '^FAIL: //[^ ]+.*\(see [^)]+\)' "$1" | sed -E 's/^FAIL: ([^ ]+).*\(see ([^)]+)\)/\1 \2/' |
    while read -r target testlog; do
      echo "---- the last 40 lines of $target's log ($testlog)"
      tail -n 40 "$testlog" 2>/dev/null || echo "(the log is gone)"
    done
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Always run the tests: the disk cache would otherwise replay old results.
# Progress lines show what is being built while a cold build runs.
bazel test //... --nocache_test_results --show_progress --show_progress_rate_limit=15 \
  "${args[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
show_failures "$log"
phase quick

# The same tests again under AddressSanitizer and UndefinedBehaviorSanitizer
# (--config=asan), in a full run, but those tagged "noasan" (the Keras
# applications: minutes of convolutions the op tests cover there).
asan_rc=0
asan_log=$(mktemp)
trap 'rm -f "$log" "$asan_log"' EXIT
if [ "$sanitizers" = 1 ]; then
  bazel test --config=asan //... --test_tag_filters=-noasan --nocache_test_results \
    --show_progress --show_progress_rate_limit=30 "${args[@]}" "$@" 2>&1 | tee "$asan_log"
  asan_rc=${PIPESTATUS[0]}
  show_failures "$asan_log"
  phase asan
fi

# The tests once more under ThreadSanitizer (--config=tsan), with Abseil and
# gRPC compiled from their Debian sources so that the sanitizer sees their
# synchronization (tools/tsan_deps.sh): the tests of the code that runs
# threads (core's pools, checkpoints' parallel restore, the executor,
# sessions, the distributed runtime, datasets, summaries, the stateful random
# ops, while loops, the tools and the end-to-end runs). Left out: the
# kernel families whose tests only shard pure computation over the step's
# pool (the executor and session tests run those kernels in threads), and
# the graph-building and shape tests, which start no threads of their own:
# each was a compile of its own under TSan; and, tagged "notsan", op_golden_test (the
# same kernels on one thread). The families of pure computation that no test
# run here uses (image, linalg, signal) are left out of TSan's
# :standard_kernels too (runtime/engine/kernels/BUILD).
# The TensorFlow interop tests ran under ASan already. In a full run, with
# ASan.
tsan_skipped=(//runtime/engine/kernels:all //runtime/engine/kernels/array/...
              //runtime/engine/kernels/image/... //runtime/engine/kernels/linalg/...
              //runtime/engine/kernels/math/... //runtime/engine/kernels/nn/...
              //runtime/engine/kernels/parsing/... //runtime/engine/kernels/signal/...
              //runtime/engine/kernels/sparse/... //runtime/engine/kernels/strings/...
              //runtime/graph/... //core/proto/...
              //runtime/cc:variables_test //runtime/cc:tensor_array_test //runtime/cc:scope_test
              //runtime/cc:optimizers_test //runtime/cc:lookup_test //runtime/cc:import_graph_test
              //runtime/cc:gradients_test)
tsan_targets=(//...)
for t in "${tsan_skipped[@]}"; do tsan_targets+=("-$t"); done
tsan_rc=0
tsan_log=$(mktemp)
trap 'rm -f "$log" "$asan_log" "$tsan_log"' EXIT
if [ "$sanitizers" = 1 ]; then
  if tools/tsan_deps.sh; then
    bazel test --config=tsan --test_tag_filters=-notsan,-tf_interop --build_tests_only \
      --nocache_test_results --show_progress --show_progress_rate_limit=30 "${args[@]}" "$@" \
      -- "${tsan_targets[@]}" 2>&1 | tee "$tsan_log"
    tsan_rc=${PIPESTATUS[0]}
    show_failures "$tsan_log"
  else
    tsan_rc=1
  fi
  phase tsan
fi

# In a full run, the fuzzers, bounded ($MG_FUZZ_SECONDS each, default 30; 0
# skips them): any crash, leak, hang or allocation bomb fails the suite.
fuzz_seconds="${MG_FUZZ_SECONDS:-30}"
[ "$full" = 1 ] || fuzz_seconds=0
fuzz_failed=0
if [ "$fuzz_seconds" -gt 0 ]; then
  tools/fuzz.sh "$fuzz_seconds" || fuzz_failed=1
  phase fuzz
fi

total=$(bazel query 'tests(//...) except attr(tags, manual, //...)' 2>/dev/null | wc -l)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$log" || true)
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=$total  # the build itself failed
fi
if [ "$sanitizers" = 1 ]; then
  asan_total=$(bazel query 'tests(//...) except attr(tags, "manual|noasan", //...)' 2>/dev/null |
               wc -l)
  asan_failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$asan_log" || true)
  if [ "$asan_rc" -ne 0 ] && [ "$asan_failed" -eq 0 ]; then asan_failed=$asan_total; fi
  skipped_tests=$(IFS=+; echo "${tsan_skipped[*]}")
  tsan_total=$(bazel query "tests(//...) except attr(tags, \"manual|notsan|tf_interop\", //...)
                            except tests($skipped_tests)" 2>/dev/null |
               wc -l)
  tsan_failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY)' "$tsan_log" || true)
  if [ "$tsan_rc" -ne 0 ] && [ "$tsan_failed" -eq 0 ]; then tsan_failed=$tsan_total; fi
  total=$((total + asan_total + tsan_total))
  failed=$((failed + asan_failed + tsan_failed))
  [ "$asan_rc" -eq 0 ] && [ "$tsan_rc" -eq 0 ] || rc=1
fi
# The layer check counts as one more test, and so does the fuzz run.
total=$((total + 1))
[ "$fuzz_seconds" -gt 0 ] && total=$((total + 1))
failed=$((failed + layers_failed + fuzz_failed))
[ "$layers_failed" -eq 0 ] && [ "$fuzz_failed" -eq 0 ] || rc=1
for t in "${times[@]}"; do echo "time: $t"; done
echo "time: all $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "tests: $((total - failed)) passed, $failed failed"
exit "$rc"

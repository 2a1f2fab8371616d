#!/usr/bin/env bash
# Fuzzes minigraph's input parsers with libFuzzer (clang, ASan, UBSan;
# --config=fuzz): the checkpoint reader, the `checkpoint` state-file parser,
# TensorProto -> Tensor, GraphDef import with one executor step,
# LoadSavedModel with a run of each signature, and the ops that parse a
# serving graph's serialized inputs (tf.train.Examples, TensorProtos, raw
# bytes, base64, ZLIB and GZIP).
#
#   tools/fuzz.sh [--runs=N] [--jobs=J] [--max_len=BYTES] [SECONDS_EACH] [FUZZER...]
#
# Each fuzzer runs for SECONDS_EACH (default 30; as many fuzzers at once as
# there are cores) or, with --runs, until it has executed N inputs, whichever
# comes first (a campaign: --runs=10000000 86400). --jobs runs each fuzzer,
# one after the other, as J processes at once (libFuzzer's -jobs, one per
# core), sharing one corpus; --runs is then their total and
# SECONDS_EACH bounds each process. --max_len caps the inputs the campaign
# makes (libFuzzer's -max_len): the checkpoint reader reaches the same code
# with 16 KB inputs as with the ~1 MB TensorFlow checkpoints among its seeds,
# 50 times as fast.
# Without it libFuzzer cuts seeds at 1 MB: the SavedModel fuzzer then sees
# TensorFlow's Keras model (5.4 MB) only cut; --max_len=6000000 takes it
# whole (15,600 edges instead of 8,700, at ~60 executions/s, not ~3,700).
#
# Corpora grow in $MG_FUZZ_DIR (default /var/cache/minigraph-fuzz, outside
# the clone like Bazel's disk cache); seeds are written afresh from
# ../shared/testdata and from files minigraph writes (tests/fuzz/make_seeds).
# Inputs that once crashed are kept in tests/fuzz/regressions/<fuzzer>/ and
# replayed first. A finding is saved in $MG_FUZZ_DIR/findings/<fuzzer>/ and
# fails the run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

runs=""
jobs=1
max_len=""
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --runs=*)
      runs="${1#--runs=}"
      if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
        echo "fuzz: --runs wants a positive number of executions, not '$runs'" >&2
        exit 2
      fi
      ;;
    --jobs=*)
      jobs="${1#--jobs=}"
      if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
        echo "fuzz: --jobs wants a positive number of processes, not '$jobs'" >&2
        exit 2
      fi
      ;;
    --max_len=*)
      max_len="${1#--max_len=}"
      if ! [[ "$max_len" =~ ^[1-9][0-9]*$ ]]; then
        echo "fuzz: --max_len wants a positive number of bytes, not '$max_len'" >&2
        exit 2
      fi
      ;;
    *)
      echo "fuzz: unknown option $1 (known: --runs=N, --jobs=J, --max_len=BYTES)" >&2
      exit 2
      ;;
  esac
  shift
done
seconds="${1:-30}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: SECONDS_EACH must be a positive number of seconds, not '$seconds'" >&2
  exit 2
fi
[ $# -gt 0 ] && shift
fuzzers=("$@")
if [ ${#fuzzers[@]} -eq 0 ]; then
  fuzzers=(bundle_reader_fuzzer checkpoint_state_fuzzer tensor_proto_fuzzer graph_fuzzer
           saved_model_fuzzer serialized_input_fuzzer)
fi
work="${MG_FUZZ_DIR:-/var/cache/minigraph-fuzz}"
mkdir -p "$work" && work="$(cd "$work" && pwd)" || exit 1

targets=()
for f in "${fuzzers[@]}"; do targets+=("//tests/fuzz:$f"); done
bazel build --config=fuzz --symlink_prefix=/ "${targets[@]}" || exit 1
bazel build //tests/fuzz:make_seeds || exit 1
fuzz_bin="$(bazel info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz"
make_seeds="$(bazel info bazel-bin 2>/dev/null)/tests/fuzz/make_seeds"

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
shared="$(cd .. && pwd)/shared/testdata"
[ -d "$shared" ] || shared=""
"$make_seeds" "$seeds/out" $shared >/dev/null || exit 1

# -malloc_limit_mb makes any single allocation over 1 GiB a finding (an
# allocation bomb); the fuzzers cap tensors far below it.
opts=(-timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=1024 -print_final_stats=1)
# --runs bounds the campaign, not the replay of the regressions (where
# libFuzzer's -runs would run each input that many times).
campaign=()
[ -n "$runs" ] && campaign=(-runs="$(((runs + jobs - 1) / jobs))")
[ -n "$max_len" ] && campaign+=(-max_len="$max_len")
# fuzz_one FUZZER: replays its regressions, then fuzzes it; prints one line
# (and where the input and logs are, on a finding); non-zero on a finding.
fuzz_one() {
  local f="$1"
  corpus="$work/corpus/$f"
  findings="$work/findings/$f"
  mkdir -p "$corpus" "$findings"
  regressions="tests/fuzz/regressions/$f"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if ! "$fuzz_bin/$f" "${opts[@]}" "$regressions"/* >"$work/$f.regressions.log" 2>&1; then
      echo "fuzz: $f: an input in $regressions fails again (log: $work/$f.regressions.log)"
      return 1
    fi
  fi
  dict=()
  [ -f "$seeds/out/$f.dict" ] && dict=(-dict="$seeds/out/$f.dict")
  start=$SECONDS
  if [ "$jobs" -eq 1 ]; then
    "$fuzz_bin/$f" "${opts[@]}" "${campaign[@]}" "${dict[@]}" -max_total_time="$seconds" \
      -artifact_prefix="$findings/" "$corpus" "$seeds/out/$f" >"$work/$f.log" 2>&1
    rc=$?
    logs=("$work/$f.log")
    job_logs=("${logs[@]}")
  else
    # libFuzzer writes job K's output to fuzz-K.log in its working directory
    # (and copies it into its own output when the job ends).
    jobdir="$work/jobs/$f"
    rm -rf "$jobdir" && mkdir -p "$jobdir" || exit 1
    (cd "$jobdir" && "$fuzz_bin/$f" "${opts[@]}" "${campaign[@]}" "${dict[@]}" \
      -max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" -artifact_prefix="$findings/" \
      "$corpus" "$seeds/out/$f") >"$work/$f.log" 2>&1
    rc=$?
    job_logs=()
    for l in "$jobdir"/fuzz-*.log; do [ -f "$l" ] && job_logs+=("$l"); done
    logs=("$work/$f.log" "${job_logs[@]}")
  fi
  execs=0
  for l in "${job_logs[@]}"; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l" | tail -n 1)
    execs=$((execs + ${n:-0}))
  done
  if [ "$rc" -ne 0 ] && grep -q "libFuzzer: run interrupted" "${logs[@]}"; then
    echo "fuzz: $f interrupted after $execs executions, with nothing found"
    return 1
  elif [ "$rc" -ne 0 ]; then
    echo "fuzz: $f FAILED after $execs executions: $(grep -h -m 1 -E 'ERROR|SUMMARY|Timeout|malloc' "${logs[@]}" | head -n 1)"
    echo "  the input is in $findings, the logs: ${logs[*]}"
    return 1
  else
    procs=""
    [ "$jobs" -gt 1 ] && procs=" in $jobs processes"
    echo "fuzz: $f: $execs executions in $((SECONDS - start)) s$procs: no crash, leak, hang or allocation bomb ($(ls "$corpus" | wc -l) corpus inputs)"
  fi
}

# The fuzzers run side by side, one per core, each for SECONDS_EACH (a
# campaign with --jobs runs them one after the other, each in J processes).
parallel=1
[ "$jobs" -eq 1 ] && parallel=$(nproc)
results="$(mktemp -d)"
trap 'rm -rf "$seeds" "$results"' EXIT
for f in "${fuzzers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  { fuzz_one "$f" >"$results/$f.out" 2>&1; echo "$?" >"$results/$f.rc"; } &
done
wait
failed=0
for f in "${fuzzers[@]}"; do
  cat "$results/$f.out"
  [ "$(cat "$results/$f.rc")" = 0 ] || failed=1
done
exit "$failed"

#!/usr/bin/env bash
# Runs the checkpoint tools the way users do: inspect_checkpoint on a
# TensorFlow checkpoint (list, print, verify, catch a corrupted byte, show a
# directory's state), restore_bench on a small synthetic checkpoint, and
# graph_bench on a small dataset graph; and that distributed_bench refuses a
# stray argument, as every tool does.
set -euo pipefail
inspect="$1"
bench="$2"
chief_worker="$3"
run_graph="$4"
graph_bench="$5"
server="$6"
train="$7"
distributed_bench="$8"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run SECONDS CMD...: CMD's output; a CMD still running after SECONDS is
# killed and fails the test naming it, with what it printed (a hang here
# once ended as Bazel's silent 300 s timeout).
run() {
  local limit="$1" out rc
  shift
  rc=0
  out=$(timeout --kill-after=5 "$limit" "$@" 2>&1) || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "hung for ${limit} s and was killed: $*
$out"
  fi
  printf '%s\n' "$out"
  return "$rc"
}

help=$("$inspect" --help 2>&1 || true)
[[ "$help" == *"--prefix"* && "$help" == *"--verify"* ]] || fail "inspect_checkpoint --help: $help"
help=$("$bench" --help 2>&1 || true)
[[ "$help" == *"--size_mb"* && "$help" == *"--repeats"* ]] || fail "restore_bench --help: $help"

# restore_bench: the last line is the JSON object with every field.
# A tool that fails says so with its output (an assignment alone would end
# the test silently under set -e).
json=$(run 120 "$bench" --size_mb=4 --tensors=10 --repeats=1 --dir="$TEST_TMPDIR/bench") ||
  fail "restore_bench exited $?: $json"
json=$(echo "$json" | tail -n 1)
for field in size_mb tensors threads aligned baseline_gbps fresh_baseline_gbps mapped_read_gbps \
  memcpy_gbps reader_gbps session_gbps reader_ratio session_ratio session_first_vs_fresh; do
  echo "$json" | grep -q "\"$field\":" || fail "restore_bench JSON lacks $field: $json"
done
json=$(run 120 "$bench" --size_mb=4 --tensors=10 --repeats=1 --align_tensors \
  --dir="$TEST_TMPDIR/bench_aligned") || fail "restore_bench --align_tensors exited $?: $json"
echo "$json" | tail -n 1 | grep -q '"aligned":true' || fail "restore_bench --align_tensors: $json"

# chief_worker_demo: workers train after the chief initializes; a second run
# restores the chief's checkpoint and continues.
out=$(run 120 "$chief_worker" --logdir="$TEST_TMPDIR/cw" --workers=2 --steps=5) ||
  fail "chief_worker_demo --logdir=cw --workers=2 --steps=5 exited $?: $out"
echo "$out" | grep -q "after the workers: global_step 10," || fail "chief_worker_demo: $out"
out=$(run 120 "$chief_worker" --logdir="$TEST_TMPDIR/cw" --workers=3 --steps=5) ||
  fail "chief_worker_demo --logdir=cw --workers=3 --steps=5 exited $?: $out"
echo "$out" | grep -q "after the workers: global_step 25," || fail "chief_worker_demo rerun: $out"
# The same as four processes on loopback: a ps, the chief, two workers.
out=$(run 120 "$chief_worker" --processes --logdir="$TEST_TMPDIR/cwp" --workers=2 --steps=5) ||
  fail "chief_worker_demo --processes --logdir=cwp --workers=2 --steps=5 exited $?: $out"
echo "$out" | grep -q "after the workers: global_step 10," || fail "chief_worker_demo --processes: $out"
echo "$out" | grep -q "all processes finished; ps stopped" || fail "chief_worker_demo --processes: $out"
# Again: the chief restores global_step 10 and waits for 10 more steps,
# however far the workers got before its first Run.
out=$(run 120 "$chief_worker" --processes --logdir="$TEST_TMPDIR/cwp" --workers=2 --steps=5) ||
  fail "chief_worker_demo --processes --logdir=cwp --workers=2 --steps=5 exited $?: $out"
echo "$out" | grep -q "model ready on the ps at global_step 10$" || fail "chief_worker_demo --processes rerun: $out"
echo "$out" | grep -q "after the workers: global_step 20," || fail "chief_worker_demo --processes rerun: $out"

# inspect_checkpoint's everyday mistakes, on the chief's checkpoint: each is
# an error that says what to do, with exit code 2 for a usage error.
expect_error() {  # expect_error CODE SUBSTRING ARGS...
  local code="$1" want="$2"; shift 2
  local got=0
  "$inspect" "$@" >"$TEST_TMPDIR/out" 2>"$TEST_TMPDIR/err" || got=$?
  [ "$got" -eq "$code" ] || fail "inspect_checkpoint $* exited $got, not $code: $(cat "$TEST_TMPDIR/err")"
  grep -qF -- "$want" "$TEST_TMPDIR/err" ||
    fail "inspect_checkpoint $*: expected \"$want\" in: $(cat "$TEST_TMPDIR/err")"
}
ck=$(ls "$TEST_TMPDIR/cw"/*.index | sort -V | tail -n 1)
ck="${ck%.index}"
"$inspect" --prefix="$ck" | grep -q "global_step" || fail "listing $ck"
expect_error 1 "pass the checkpoint's prefix (without .index, .data-* or .meta): $ck" --prefix="$ck.index"
expect_error 1 "pass the checkpoint's prefix" --prefix="$ck.data-00000-of-00001"
expect_error 1 "checkpoint index $TEST_TMPDIR/nothing/here.index not found" \
  --prefix="$TEST_TMPDIR/nothing/here"
expect_error 1 "directory $TEST_TMPDIR/no_such_dir does not exist" --dir="$TEST_TMPDIR/no_such_dir"
expect_error 2 "--max_values must be at least 1, got 0" --prefix="$ck" --tensor=global_step --max_values=0
expect_error 2 "--max_values must be at least 1, got -1" --prefix="$ck" --tensor=global_step --max_values=-1
expect_error 2 "give one of them" --prefix="$ck" --tensor=global_step --verify
expect_error 2 "give one of them" --prefix="$ck" --dir="$TEST_TMPDIR/cw"
expect_error 2 "use them with --prefix" --dir="$TEST_TMPDIR/cw" --verify
expect_error 2 'unexpected argument "stray"' --prefix="$ck" stray
expect_error 2 "give --prefix or --dir"
# --full prints every value where the default summarizes after --max_values.
key=$("$inspect" --prefix="$ck" | awk -F'\t' '$2 == "DT_FLOAT" && $4 > 12 {print $1; exit}')
[ -n "$key" ] || fail "no float tensor over 3 values in $ck"
"$inspect" --prefix="$ck" --tensor="$key" --max_values=3 | tail -n 1 | grep -qE '^[^ ]+ [^ ]+ [^ ]+\.\.\.$' ||
  fail "--max_values=3 did not show 3 values and ...: $("$inspect" --prefix="$ck" --tensor="$key" --max_values=3)"
"$inspect" --prefix="$ck" --tensor="$key" --full | tail -n 1 | grep -q '\.\.\.$' && fail "--full summarized"
# A tensor over --max_tensor_bytes is refused before it is allocated, naming it.
expect_error 1 "tensor \"$key\" in checkpoint $ck: a tensor of" --prefix="$ck" --tensor="$key" --max_tensor_bytes=8
expect_error 2 "--max_tensor_bytes=-1 is out of range" --prefix="$ck" --max_tensor_bytes=-1

# A state file naming a path with a NUL byte: printed escaped, not cut.
mkdir -p "$TEST_TMPDIR/nul"
printf 'model_checkpoint_path: "model\\000evil"\n' >"$TEST_TMPDIR/nul/checkpoint"
"$inspect" --dir="$TEST_TMPDIR/nul" | grep -qF 'model\000evil' ||
  fail "NUL in a state path: $("$inspect" --dir="$TEST_TMPDIR/nul" | od -c | head -5)"

# --repair_state: a lost state file rebuilt from the complete checkpoints.
rep="$TEST_TMPDIR/repair"
mkdir -p "$rep"
cp "$TEST_TMPDIR/cw"/model-* "$rep"/
newest=$(ls "$rep"/*.index | sort -V | tail -n 1)
newest=$(basename "${newest%.index}")
printf 'garbage' >"$rep/model-99.index"  # an incomplete checkpoint is skipped
out=$("$inspect" --dir="$rep" --repair_state 2>&1)
echo "$out" | grep -q "^model_checkpoint_path: \"$newest\"$" || fail "--repair_state: $out"
echo "$out" | grep -q "skipping model-99" || fail "--repair_state did not skip the bad checkpoint: $out"
[ ! -e "$rep/checkpoint" ] || fail "--repair_state without --write wrote"
"$inspect" --dir="$rep" --repair_state --write >/dev/null 2>&1 || fail "--repair_state --write"
"$inspect" --dir="$rep" | grep -q "^model_checkpoint_path.$rep/$newest.present$" ||
  fail "repaired state: $("$inspect" --dir="$rep")"
expect_error 2 "--repair_state works on a directory" --prefix="$ck" --repair_state

# --diff: what a restore of this checkpoint into a graph would find.
var() {  # var NAME DTYPE DIMS...: a VariableV2 node in GraphDef text
  local name="$1" dtype="$2"; shift 2
  local dims=""
  for d in "$@"; do dims="$dims dim { size: $d }"; done
  echo "node { name: \"$name\" op: \"VariableV2\" attr { key: \"dtype\" value { type: $dtype } } attr { key: \"shape\" value { shape {$dims } } } }"
}
{ var w DT_FLOAT 4; var global_step DT_INT64; } >"$TEST_TMPDIR/same.pbtxt"
"$inspect" --prefix="$ck" --diff="$TEST_TMPDIR/same.pbtxt" | grep -q "2 tensors expected, 2 in the checkpoint: 0 missing, 0 mismatched, 0 unused; a restore would succeed" ||
  fail "--diff of a matching graph: $("$inspect" --prefix="$ck" --diff="$TEST_TMPDIR/same.pbtxt")"
{ var model/w DT_FLOAT 4; var global_step DT_INT32; var lr DT_FLOAT; } >"$TEST_TMPDIR/other.pbtxt"
rc=0
"$inspect" --prefix="$ck" --diff="$TEST_TMPDIR/other.pbtxt" >"$TEST_TMPDIR/diff" || rc=$?
[ "$rc" -eq 1 ] || fail "--diff of a graph that would not restore exited $rc"
grep -qP '^missing\tmodel/w\tfloat \[4\]\tmaybe renamed from "w" \(same dtype and shape\)$' "$TEST_TMPDIR/diff" ||
  fail "--diff rename hint: $(cat "$TEST_TMPDIR/diff")"
grep -qP '^mismatch\tglobal_step\tmodel int32 \[\], checkpoint int64 \[\]$' "$TEST_TMPDIR/diff" ||
  fail "--diff dtype mismatch: $(cat "$TEST_TMPDIR/diff")"
grep -qP '^missing\tlr\tfloat \[\]$' "$TEST_TMPDIR/diff" || fail "--diff missing lr: $(cat "$TEST_TMPDIR/diff")"
echo "not a graph" >"$TEST_TMPDIR/bad.meta"
expect_error 1 "is not a graph" --prefix="$ck" --diff="$TEST_TMPDIR/bad.meta"
expect_error 2 "--diff compares one checkpoint" --prefix="$ck" --diff="$TEST_TMPDIR/same.pbtxt" --verify

# restore_bench and chief_worker_demo: out-of-range flags and directories
# they cannot create are errors that say so.
expect_tool_error() {  # expect_tool_error TOOL CODE SUBSTRING ARGS...
  local tool="$1" code="$2" want="$3"; shift 3
  local got=0
  "$tool" "$@" >"$TEST_TMPDIR/out" 2>"$TEST_TMPDIR/err" || got=$?
  [ "$got" -eq "$code" ] || fail "$(basename "$tool") $* exited $got, not $code: $(cat "$TEST_TMPDIR/err")"
  grep -qF -- "$want" "$TEST_TMPDIR/err" ||
    fail "$(basename "$tool") $*: expected \"$want\" in: $(cat "$TEST_TMPDIR/err")"
}
# run_graph: a graph that reads the checkpoint's w runs here; its output on
# an .npy input of ones is w itself. What it lacks is listed, exit 1.
{ var w DT_FLOAT 4; var global_step DT_INT64
  echo 'node { name: "w/read" op: "Identity" input: "w" attr { key: "T" value { type: DT_FLOAT } } }'
  echo 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }'
  echo 'node { name: "y" op: "Mul" input: "w/read" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
} >"$TEST_TMPDIR/model.pbtxt"
"$run_graph" "$TEST_TMPDIR/model.pbtxt" --checkpoint="$ck" | grep -q "every op known; 2 variables restored from $ck" ||
  fail "run_graph check: $("$run_graph" "$TEST_TMPDIR/model.pbtxt" --checkpoint="$ck" 2>&1)"
# ones.npy: NumPy's format 1.0, a header padded to 64 bytes, four float32 1s.
header="{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
while [ $(( (10 + ${#header} + 1) % 64 )) -ne 0 ]; do header="$header "; done
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( ${#header} + 1 )))\\x00"; printf '%s\n' "$header"
  for _ in 1 2 3 4; do printf '\x00\x00\x80\x3f'; done; } >"$TEST_TMPDIR/ones.npy"
"$run_graph" "$TEST_TMPDIR/model.pbtxt" --checkpoint="$ck" --fetch=y:0,w:0 --input=x="$TEST_TMPDIR/ones.npy" >"$TEST_TMPDIR/run"
y=$(sed -n '/^y:0: float \[4\]$/{n;p}' "$TEST_TMPDIR/run")
w=$(sed -n '/^w:0: float \[4\]$/{n;p}' "$TEST_TMPDIR/run")
[ -n "$y" ] && [ "$y" = "$w" ] || fail "run_graph --fetch: $(cat "$TEST_TMPDIR/run")"
{ cat "$TEST_TMPDIR/model.pbtxt"
  echo 'node { name: "f1" op: "Frobnicate" input: "x" }'
  echo 'node { name: "f2" op: "Frobnicate" input: "x" }'
} >"$TEST_TMPDIR/unknown.pbtxt"
rc=0
"$run_graph" "$TEST_TMPDIR/unknown.pbtxt" --checkpoint="$ck" >"$TEST_TMPDIR/run" || rc=$?
[ "$rc" -eq 1 ] && grep -q "ops neither minigraph nor TensorFlow 2.21 has: Frobnicate (2 nodes)" "$TEST_TMPDIR/run" ||
  fail "run_graph with an unknown op: $rc $(cat "$TEST_TMPDIR/run")"
# Ops of TensorFlow's without a kernel here (Abort, and NcclAllReduce, which
# only GPUs run): listed; a fetch that needs none runs, one that does is
# refused before anything runs.
{ cat "$TEST_TMPDIR/model.pbtxt"
  echo 'node { name: "stop" op: "Abort" }'
  echo 'node { name: "all" op: "NcclAllReduce" input: "y" attr { key: "T" value { type: DT_FLOAT } }'
  echo '  attr { key: "reduction" value { s: "sum" } } attr { key: "num_devices" value { i: 2 } }'
  echo '  attr { key: "shared_name" value { s: "s" } } }'
} >"$TEST_TMPDIR/no_kernel.pbtxt"
"$run_graph" "$TEST_TMPDIR/no_kernel.pbtxt" --checkpoint="$ck" >"$TEST_TMPDIR/run" ||
  fail "run_graph with ops without kernels: $(cat "$TEST_TMPDIR/run")"
grep -q "ops without a kernel here: Abort (1 node), NcclAllReduce (1 node); a step that needs one fails naming it" "$TEST_TMPDIR/run" ||
  fail "run_graph lists ops without kernels: $(cat "$TEST_TMPDIR/run")"
"$run_graph" "$TEST_TMPDIR/no_kernel.pbtxt" --checkpoint="$ck" --fetch=y:0 --input=x="$TEST_TMPDIR/ones.npy" >"$TEST_TMPDIR/run" ||
  fail "run_graph --fetch past ops without kernels: $(cat "$TEST_TMPDIR/run")"
grep -q "present but not needed by --fetch: Abort (1 node), NcclAllReduce (1 node)$" "$TEST_TMPDIR/run" &&
  grep -q '^y:0: float \[4\]$' "$TEST_TMPDIR/run" ||
  fail "run_graph --fetch past ops without kernels: $(cat "$TEST_TMPDIR/run")"
rc=0
"$run_graph" "$TEST_TMPDIR/no_kernel.pbtxt" --checkpoint="$ck" --fetch=all:0 >"$TEST_TMPDIR/run" || rc=$?
[ "$rc" -eq 1 ] && grep -q "present but not needed by --fetch: Abort (1 node)$" "$TEST_TMPDIR/run" &&
  grep -q -- "--fetch needs ops without a kernel here: NcclAllReduce (1 node)$" "$TEST_TMPDIR/run" ||
  fail "run_graph --fetch needing an op without a kernel: $rc $(cat "$TEST_TMPDIR/run")"
rc=0
"$run_graph" "$TEST_TMPDIR/other.pbtxt" --checkpoint="$ck" >"$TEST_TMPDIR/run" || rc=$?
[ "$rc" -eq 1 ] && grep -qP '^missing\tlr\tfloat \[\]$' "$TEST_TMPDIR/run" ||
  fail "run_graph with variables the checkpoint lacks: $rc $(cat "$TEST_TMPDIR/run")"
rc=0
"$run_graph" "$TEST_TMPDIR/model.pbtxt" >"$TEST_TMPDIR/run" || rc=$?
[ "$rc" -eq 1 ] && grep -q "has 2 variables and no checkpoint goes with it" "$TEST_TMPDIR/run" ||
  fail "run_graph without a checkpoint: $rc $(cat "$TEST_TMPDIR/run")"
head -c 20 "$TEST_TMPDIR/ones.npy" >"$TEST_TMPDIR/short.npy"
expect_tool_error "$run_graph" 1 "is not a .npy file NumPy writes" "$TEST_TMPDIR/model.pbtxt" --checkpoint="$ck" --fetch=y:0 --input=x="$TEST_TMPDIR/short.npy"
expect_tool_error "$run_graph" 2 "give the graph" --checkpoint="$ck"
expect_tool_error "$run_graph" 2 "--input=x is not NAME=FILE.npy" "$TEST_TMPDIR/model.pbtxt" --input=x
expect_tool_error "$run_graph" 2 "--signature runs a SavedModel: give its directory" "$TEST_TMPDIR/model.pbtxt" --signature=serving_default
# Repeated --input and --fetch flags all count; --output_dir writes each
# fetch as NumPy writes it, every bit (2.0f = 0x40000000).
{ echo 'node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  echo 'node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  echo 'node { name: "s" op: "AddV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }'
} >"$TEST_TMPDIR/sum.pbtxt"
{ head -c 128 "$TEST_TMPDIR/ones.npy"; for _ in 1 2 3 4; do printf '\x00\x00\x00\x40'; done; } >"$TEST_TMPDIR/twos.npy"
mkdir -p "$TEST_TMPDIR/out_npy"
"$run_graph" "$TEST_TMPDIR/sum.pbtxt" --input=a="$TEST_TMPDIR/ones.npy" --input b="$TEST_TMPDIR/ones.npy" \
  --fetch=s:0 --fetch=a:0 --output_dir="$TEST_TMPDIR/out_npy" >"$TEST_TMPDIR/run" ||
  fail "run_graph with repeated flags: $(cat "$TEST_TMPDIR/run")"
cmp -s "$TEST_TMPDIR/out_npy/s_0.npy" "$TEST_TMPDIR/twos.npy" &&
  cmp -s "$TEST_TMPDIR/out_npy/a_0.npy" "$TEST_TMPDIR/ones.npy" ||
  fail "run_graph --output_dir: $(cat "$TEST_TMPDIR/run"); $(od -c "$TEST_TMPDIR/out_npy/s_0.npy" | head)"
expect_tool_error "$run_graph" 2 "--input gives a twice" "$TEST_TMPDIR/sum.pbtxt" \
  --input=a="$TEST_TMPDIR/ones.npy" --input=a="$TEST_TMPDIR/ones.npy"
expect_tool_error "$run_graph" 2 "is not a directory" "$TEST_TMPDIR/sum.pbtxt" --output_dir="$TEST_TMPDIR/none"
# A string has no .npy form; a big-endian array is not read as little-endian.
echo 'node { name: "t" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "x" } } } }' >"$TEST_TMPDIR/str.pbtxt"
expect_tool_error "$run_graph" 1 "a string tensor has no .npy form" "$TEST_TMPDIR/str.pbtxt" \
  --fetch=t:0 --output_dir="$TEST_TMPDIR/out_npy"
sed 's/<f4/>f4/' "$TEST_TMPDIR/ones.npy" >"$TEST_TMPDIR/big_endian.npy"
expect_tool_error "$run_graph" 1 "dtype '>f4' is not supported" "$TEST_TMPDIR/sum.pbtxt" \
  --input=a="$TEST_TMPDIR/big_endian.npy" --fetch=s:0
echo "run_graph: checked, ran, and listed what is missing; repeated flags, fetches written as .npy"

for bad in --tensors=0 --tensors=-1 --size_mb=0 --repeats=0 --threads=-4; do
  expect_tool_error "$bench" 2 "${bad%%=*}=" "$bad" --dir="$TEST_TMPDIR/rb"
done
expect_tool_error "$bench" 2 "--tensors=300000 is out of range: give 1 to 262144" --size_mb=1 --tensors=300000
touch "$TEST_TMPDIR/a_file"
expect_tool_error "$bench" 1 "cannot create --dir" --size_mb=1 --tensors=1 --dir="$TEST_TMPDIR/a_file/sub"
expect_tool_error "$chief_worker" 2 "--workers=-1 is out of range" --workers=-1
expect_tool_error "$chief_worker" 2 'unexpected argument "extra"' extra
expect_tool_error "$chief_worker" 1 "cannot create --logdir" --logdir="$TEST_TMPDIR/a_file/sub"
expect_tool_error "$server" 2 'unexpected argument "extra"' extra
expect_tool_error "$server" 2 "--max_tensor_bytes=-5" --max_tensor_bytes=-5
# TF_CONFIG, when no cluster flag is given: its errors name it.
TF_CONFIG='{"cluster": ' expect_tool_error "$server" 1 "TF_CONFIG: not a JSON object"
TF_CONFIG='{"cluster": {"ps": ["127.0.0.1:1"]}, "task": {"type": "worker"}}' \
  expect_tool_error "$server" 1 "TF_CONFIG: task worker:0"

shared="${MG_SHARED_TESTDATA:-}"
if [ -z "$shared" ] || [ ! -d "$shared" ]; then
  echo "shared test data not found (MG_SHARED_TESTDATA); skipping the TensorFlow checkpoint checks"
  exit 0
fi
src="$shared/tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints"
work="$TEST_TMPDIR/ckpt"
mkdir -p "$work"
cp "$src"/checkpoint "$src"/checkpoint-779049.index "$src"/checkpoint-779049.data-00000-of-00001 "$work"/
prefix="$work/checkpoint-779049"

out=$("$inspect" --prefix="$prefix")
[ "$(echo "$out" | wc -l)" -eq 10 ] || fail "expected 10 tensors, got: $out"
echo "$out" | grep -qP '^layer1/weight\tDT_FLOAT\t\[69,20\]\t5520\t0\t5772\t[0-9a-f]{8}$' ||
  fail "unexpected line for layer1/weight: $out"
echo "$out" | grep -qP '^global_step\tDT_INT32\t\[\]\t4\t0\t5688\t061fa008$' || fail "global_step line"
"$inspect" --prefix="$prefix" --tensor=global_step | grep -q "^779049$" || fail "global_step value"
"$inspect" --prefix="$prefix" --verify | grep -q "10 tensors, 0 bad" || fail "verify of a good checkpoint"
"$inspect" --dir="$work" | grep -q "model_checkpoint_path.*checkpoint-779049.*present" || fail "--dir"
# The graph TensorFlow saved with the checkpoint restores it exactly.
cp "$src"/checkpoint-779049.meta "$work"/
"$inspect" --prefix="$prefix" --diff="$prefix.meta" | grep -q "10 tensors expected, 10 in the checkpoint: 0 missing, 0 mismatched, 0 unused" ||
  fail "--diff with TensorFlow's own .meta: $("$inspect" --prefix="$prefix" --diff="$prefix.meta")"
"$run_graph" "$prefix.meta" | grep -q "191 nodes, 0 functions, every op known; 10 variables restored from $prefix$" ||
  fail "run_graph on TensorFlow's own .meta: $("$run_graph" "$prefix.meta" 2>&1)"

# The other graphs TensorFlow wrote: an Estimator with a tf.data pipeline,
# and a Keras SavedModel (its cuDNN LSTM twins and its training functions
# are not what a run needs; its variables restore by object-graph keys).
ipo="$shared/tf_checkpoints/lcferrara4__IPOpredictor/data_model/model.ckpt-3760"
"$run_graph" "$ipo.meta" | grep -q "2477 nodes, 1 functions, every op known; 87 variables restored from $ipo$" ||
  fail "run_graph on the Estimator's .meta: $("$run_graph" "$ipo.meta" 2>&1)"
keras="$shared/tf_checkpoints/MurphyAdam__flask-ai/sentiment_model"
"$run_graph" "$keras" | grep -q "108 nodes, 329 functions, every op known; 48 variables restored from $keras/variables/variables$" ||
  fail "run_graph on the Keras SavedModel: $("$run_graph" "$keras" 2>&1)"

# Flip one byte inside layer1/weight (offset 5772, 5520 bytes).
printf '\xff' | dd of="$prefix.data-00000-of-00001" bs=1 seek=6000 conv=notrunc status=none
if "$inspect" --prefix="$prefix" --verify 2>"$TEST_TMPDIR/err"; then fail "verify passed a corrupt file"; fi
grep -q 'BAD layer1/weight: Checksum does not match for tensor "layer1/weight"' "$TEST_TMPDIR/err" ||
  fail "verify did not name the bad tensor: $(cat "$TEST_TMPDIR/err")"
# graph_bench: a range of 5 drained, a fetch run 3 times, and a fetch that
# never ends refused at --max_elements instead of running for ever.
int64() { echo "node { name: \"$1\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT64 } }
  attr { key: \"value\" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: $2 } } } }"; }
spec='attr { key: "output_types" value { list { type: DT_INT64 } } }
  attr { key: "output_shapes" value { list { shape {} } } }'
{ int64 start 0; int64 stop 5; int64 one 1
  echo "node { name: \"range\" op: \"RangeDataset\" input: \"start\" input: \"stop\" input: \"one\" $spec }"
  echo "node { name: \"it\" op: \"IteratorV2\" attr { key: \"shared_name\" value { s: \"\" } }
    attr { key: \"container\" value { s: \"\" } } $spec }"
  echo 'node { name: "make" op: "MakeIterator" input: "range" input: "it" }'
  echo "node { name: \"bench_step\" op: \"IteratorGetNext\" input: \"it\" $spec }"
} >"$TEST_TMPDIR/data.pbtxt"
json=$(run 60 "$graph_bench" --graph="$TEST_TMPDIR/data.pbtxt" --reps=2 | tail -n 1)
[[ "$json" == *'"elements": 5,'* && "$json" == *'"elements_per_s":'* ]] ||
  fail "graph_bench drain: $json"
json=$(run 60 "$graph_bench" --graph="$TEST_TMPDIR/data.pbtxt" --fetch=stop:0 --runs=3 | tail -n 1)
[[ "$json" == *'"runs": 3,'* ]] || fail "graph_bench --runs: $json"
rc=0
out=$(run 60 "$graph_bench" --graph="$TEST_TMPDIR/data.pbtxt" --fetch=stop:0 --max_elements=10) ||
  rc=$?
[ "$rc" -eq 1 ] && [[ "$out" == *"stop:0 gave more than --max_elements=10 elements"* ]] ||
  fail "graph_bench on a fetch that never ends: $rc $out"
echo "PASS"

# The production train carries no test hook: MG_TEST_KILL_IN_SAVE (which
# //tools:train_with_test_hooks obeys) leaves its saves alone.
out=$(MG_TEST_KILL_IN_SAVE=1 run 120 "$train" --logdir="$TEST_TMPDIR/train_hooks" --model=linear \
  --steps=3 --save_every=1) || fail "train with MG_TEST_KILL_IN_SAVE exited $?: $out"
[[ "$out" == *"done: step 3"* ]] || fail "train with MG_TEST_KILL_IN_SAVE: $out"

# distributed_bench runs minutes of benchmarks: only its command line here.
rc=0
out=$("$distributed_bench" stray 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ "$out" == *'unexpected argument "stray"'* ]] ||
  fail "distributed_bench stray: exited $rc: $out"

#!/usr/bin/env bash
# End-to-end: what others can do to train's log directory and inputs. Each
# name train writes there planted as a symbolic link to a victim file leaves
# the victim as it was; a lock file deleted under a running training stops
# it with an error before it saves again; FIFOs, a directory and a huge
# sparse file where train reads its state file or --graph are refused at
# once, naming the file; a training blocked before it trains ends at once on
# SIGTERM; warm starts from a live trainer keep their checkpoint; --input
# naming no file and a train op that updates nothing are refused; so are
# flags absl cannot parse (exit 2) and a tensor bound below what the model
# needs (an error, not an abort).
set -uo pipefail
train="$1"
graph="$2"  # a TensorFlow 1 meta graph with its own input pipeline
records="$3"  # its input
t="$TEST_TMPDIR"

# shellcheck source=tests/e2e/e2e_lib.sh
source "$(dirname "$0")/e2e_lib.sh"

# Symbolic links planted at every name train writes in a fresh directory
# (the lock, the state file, the graph and its temporary name, a
# checkpoint's files and its marks): the victim is never written. A link
# that train would have to write through makes it fail with an error naming
# the directory; one it replaces by a rename is replaced.
victim="$t/victim"
for name in train.lock checkpoint graph.pbtxt graph.pbtxt.tmp model.ckpt-0.unrecorded \
            model.ckpt-0.index model.ckpt-0.meta model.ckpt-0.data-00000-of-00001 \
            model.ckpt-5.unrecorded model.ckpt-5.index; do
  printf 'precious\n' >"$victim"
  d="$t/links_$name"
  mkdir -p "$d"
  ln -s "$victim" "$d/$name"
  rc=0
  "$train" --logdir="$d" --model=linear --steps=5 --save_every=5 >"$t/link.log" 2>&1 || rc=$?
  [ "$(cat "$victim")" = precious ] || fail "$name: train wrote through the link: $(cat "$t/link.log")"
  case "$rc" in
    0) [ ! -L "$d/$name" ] || [ "$name" = graph.pbtxt.tmp ] ||
         fail "$name: train succeeded, but the link is still there" ;;
    1) grep -q "^train: .*$d" "$t/link.log" || fail "$name: $(cat "$t/link.log")" ;;
    *) fail "$name: exit $rc: $(cat "$t/link.log")" ;;
  esac
done
echo "symbolic links: 10 names planted, the victim unchanged"

# The lock file deleted under a running training: a second training takes
# the directory, and the first stops with an error, without saving.
lk="$t/unlocked"
"$train" --logdir="$lk" --model=linear --steps=100000000 --save_every=1000000 >"$t/first.log" 2>&1 &
first=$!
wait_for "grep -q '^step ' '$t/first.log'" || fail "the first training did not start: $(cat "$t/first.log")"
rm "$lk/train.lock"
"$train" --logdir="$lk" --model=linear --steps=100 --save_every=50 >"$t/second.log" 2>&1 ||
  fail "the second training failed: $(cat "$t/second.log")"
rc=0
wait "$first" || rc=$?
[ "$rc" -eq 1 ] || fail "the first training exited $rc: $(cat "$t/first.log")"
grep -qE "lost the lock on log directory $lk: $lk/train.lock was (deleted|replaced)" "$t/first.log" &&
  grep -q "stopped without saving" "$t/first.log" || fail "lock message: $(cat "$t/first.log")"
grep -q "^model_checkpoint_path: \"$lk/model.ckpt-100\"" "$lk/checkpoint" ||
  fail "the state file is not the second training's: $(cat "$lk/checkpoint")"
echo "deleted lock: the first training stopped, the second's checkpoints stand"

# Special files where train reads.
sp="$t/special"
mkdir -p "$sp"
mkfifo "$sp/checkpoint"
rc=0
timeout 120 "$train" --logdir="$sp" --model=linear --steps=5 >"$t/fifo_state.log" 2>&1 || rc=$?
# Unreadable, so (strict, the default) nothing starts from scratch over it.
[ "$rc" -eq 1 ] && grep -q "$sp/checkpoint: a FIFO, not a regular file" "$t/fifo_state.log" ||
  fail "a FIFO as the state file: exit $rc: $(cat "$t/fifo_state.log")"
mkfifo "$t/graph.fifo"
truncate -s 64G "$t/sparse.meta"
for g in "$t/graph.fifo" "$t/sparse.meta"; do
  rc=0
  timeout 120 "$train" --logdir="$t/special_graph" --graph="$g" >"$t/special.log" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] && grep -q "$g" "$t/special.log" || fail "--graph=$g: exit $rc: $(cat "$t/special.log")"
done
grep -q "holds 68719476736 bytes, more than" "$t/special.log" || fail "size: $(cat "$t/special.log")"
dir="$t/dir_state"
mkdir -p "$dir/checkpoint"
for strict in --strict --nostrict; do
  rc=0
  "$train" --logdir="$dir" --model=linear --steps=30 --save_every=10 "$strict" >"$t/dir.log" 2>&1 ||
    rc=$?
  [ "$rc" -eq 1 ] && grep -qE "$dir/checkpoint(: a| is a) directory" "$t/dir.log" ||
    fail "a directory as the state file ($strict): exit $rc: $(cat "$t/dir.log")"
  # No checkpoint that no state file names, no temporary file.
  left=$(ls "$dir" | grep -v -e '^checkpoint$' -e '^train.lock$' -e '^events.out' -e '^graph.pbtxt$' |
    tr '\n' ' ')
  [ -z "$left" ] || fail "a refused run ($strict) left $left"
done
echo "special files: FIFO state file, FIFO and 64 GiB sparse --graph refused, directory state file refused at once"

# A chief whose ps never comes is blocked before it trains: SIGTERM ends it
# at once.
port=$(( 20000 + RANDOM % 20000 ))
"$train" --cluster="ps=127.0.0.1:$port;worker=127.0.0.1:$(( port + 1 ))" --job_name=worker \
  --task_index=0 --logdir="$t/cluster" --model=linear --steps=10 >"$t/blocked.log" 2>&1 &
pid=$!
wait_for "grep -q 'chief waiting for the cluster' '$t/blocked.log'" ||
  fail "the chief did not wait: $(cat "$t/blocked.log")"
kill -TERM "$pid"
wait_for "! kill -0 $pid 2>/dev/null" || fail "SIGTERM did not end a blocked train"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 143 ] && grep -q "stopped by signal" "$t/blocked.log" ||
  fail "blocked train on SIGTERM: exit $rc: $(cat "$t/blocked.log")"
echo "SIGTERM: a chief waiting for its ps ended at once"

# Warm starts from a live trainer that saves every step and keeps one
# checkpoint: each takes the checkpoint it chose under a lease, so none
# loses it to the trainer's retention.
live="$t/live"
"$train" --logdir="$live" --model=linear --steps=100000000 --save_every=1 --max_to_keep=1 \
  >"$t/live.log" 2>&1 &
trainer=$!
wait_for "grep -q '^step ' '$t/live.log'" || fail "the live trainer did not start: $(cat "$t/live.log")"
for i in $(seq 1 30); do
  "$train" --logdir="$t/warm_$i" --model=linear --steps=1 --save_every=0 --warm_start_from="$live" \
    >"$t/warm.log" 2>&1 || fail "warm start $i from a live trainer: $(cat "$t/warm.log")"
done
kill -TERM "$trainer"
wait "$trainer" || fail "the live trainer: $(cat "$t/live.log")"
echo "warm starts: 30 from a trainer saving every step with max_to_keep=1, none failed"

# Graphs that would train nothing.
for bad in "--input=,,," "--train_op=global_step"; do
  rc=0
  input="--input=$records"
  [ "${bad%%=*}" = --input ] && input="$bad"
  "$train" --logdir="$t/nothing" --graph="$graph" "$input" "$bad" --steps=5 >"$t/nothing.log" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || fail "$bad: exit $rc: $(cat "$t/nothing.log")"
done
grep -q "the train op global_step updates no variable" "$t/nothing.log" || fail "$(cat "$t/nothing.log")"
echo "nothing to train: --input=,,, and --train_op=global_step refused"

for bad in --batch=99999999999 --no_such_flag; do
  rc=0
  "$train" --logdir="$t/flags" "$bad" >"$t/flags.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "$bad: exit $rc: $(cat "$t/flags.log")"
done
rc=0
"$train" --logdir="$t/bound" --model=linear --steps=5 --max_tensor_bytes=1 >"$t/bound.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "more than the limit of 1 (max_tensor_bytes)" "$t/bound.log" ||
  fail "--max_tensor_bytes=1: exit $rc: $(cat "$t/bound.log")"
echo "flags: overflow and unknown flag exit 2; --max_tensor_bytes=1 an error naming the bound"
echo "PASS"

#!/usr/bin/env bash
# End-to-end: the training binary killed with SIGKILL at several points
# (where it stops or kills itself on a test hook, not by timing) resumes
# from the newest complete checkpoint each time, and its final checkpoint is
# bitwise identical to an uninterrupted run's; SIGTERM saves and exits 0; a
# corrupted checkpoint stops the restart with DataLoss naming the tensor.
set -uo pipefail
train="$1"
flags=(--model=mlp --steps=1000 --save_every=10 --max_to_keep=3 --seed=7)

# shellcheck source=tests/e2e/e2e_lib.sh
source "$(dirname "$0")/e2e_lib.sh"

# Whether process $1 is stopped (state T in /proc/PID/stat).
stopped() { [ "$(sed -E 's/^[0-9]+ \(.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)" = T ]; }

ref="$TEST_TMPDIR/reference"
"$train" --logdir="$ref" "${flags[@]}" >"$TEST_TMPDIR/ref.log" || fail "reference run failed"
grep -q "initialized from scratch" "$TEST_TMPDIR/ref.log" || fail "reference did not start fresh"

# Crash at `kills` points, chosen by a seeded generator: half when the index
# of checkpoint K is in place (before the state file names it, or just after:
# train stops itself there when MG_TEST_STOP_AT_CHECKPOINT says so, and is
# killed from here), half in the middle of the restart's first or second save
# (its data file written under a ".tempstate" name: train kills itself there
# when MG_TEST_KILL_IN_SAVE says so, since that moment lasts about a
# millisecond and watching for it from here misses it in some runs). Each
# restart must restore the checkpoint the state file named when the process
# died, never an older one, and never fail; the run's final checkpoint must be
# bitwise the uninterrupted run's.
crash_loop() {
  local run="$1" kills="$2" seed="$3"
  shift 3
  local last=0 killed=0 i k pid point restored
  RANDOM=$seed
  for i in $(seq 1 "$kills"); do
    # The restart begins at the state file's step; K lies ahead of it.
    k=$(( last + 10 * (1 + RANDOM % 4) ))
    # A kill that came when K's index appeared but before the state file
    # named it leaves that index behind; watching for it again would kill
    # the restart at once, before it restored anything.
    while [ -e "$run/model.ckpt-$k.index" ]; do k=$(( k + 10 )); done
    [ "$k" -lt 990 ] || break
    if [ $(( i % 2 )) -eq 0 ]; then
      # What earlier kills left behind does not count.
      compgen -G "$run/*.data-*.tempstate*" | sort >"$TEST_TMPDIR/stale"
      MG_TEST_KILL_IN_SAVE=$(( 1 + RANDOM % 2 )) \
        "$train" --logdir="$run" "${flags[@]}" "$@" >"$TEST_TMPDIR/run_$i.log" 2>&1
      [ $? -eq 137 ] || fail "run $i was to kill itself in a save: $(cat "$TEST_TMPDIR/run_$i.log")"
      compgen -G "$run/*.data-*.tempstate*" | sort | comm -13 "$TEST_TMPDIR/stale" - | grep -q . ||
        fail "run $i died outside a save: no new data file under its temporary name"
    else
      # Stopped by itself once K's index is in place, or once the state file
      # names K; killed here.
      point=$k
      [ $(( RANDOM % 2 )) -eq 0 ] || point="$k:state"
      MG_TEST_STOP_AT_CHECKPOINT=$point \
        "$train" --logdir="$run" "${flags[@]}" "$@" >"$TEST_TMPDIR/run_$i.log" 2>&1 &
      pid=$!
      wait_for "stopped $pid || ! kill -0 $pid 2>/dev/null" || fail "kill point $i never came"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
    fi
    grep -q "^done" "$TEST_TMPDIR/run_$i.log" && fail "run $i finished before it was killed"
    killed=$(( killed + 1 ))
    if [ "$last" -gt 0 ]; then
      grep -q "restored step" "$TEST_TMPDIR/run_$i.log" || fail "restart $i (killed at $k) did not restore: $(cat "$TEST_TMPDIR/run_$i.log"); $(ls "$run")"
      restored=$(sed -n 's/^restored step \([0-9]*\) .*/\1/p' "$TEST_TMPDIR/run_$i.log")
      [ "$restored" -ge "$last" ] || fail "went backwards: restored $restored, the state file named $last"
    fi
    # What the state file names after the crash is what the restart must reach.
    if [ -e "$run/checkpoint" ]; then
      last=$(sed -n 's/^model_checkpoint_path: ".*-\([0-9]*\)"$/\1/p' "$run/checkpoint")
    fi
  done
  echo "crash/resume $*: $killed kills survived"
  "$train" --logdir="$run" "${flags[@]}" "$@" >"$TEST_TMPDIR/final.log" 2>&1 || fail "final run failed: $(cat "$TEST_TMPDIR/final.log")"
  grep -q "restored step" "$TEST_TMPDIR/final.log" || fail "final run did not restore"
  for f in model.ckpt-1000.index model.ckpt-1000.data-00000-of-00001; do
    cmp -s "$ref/$f" "$run/$f" || fail "$f differs from the uninterrupted run's"
  done
  echo "crash/resume $*: final checkpoint bitwise identical"
  # Whatever the kills left (temporary files, checkpoints saved but never
  # recorded, or dropped from the state file but not yet deleted, their
  # marks) is gone: the three kept checkpoints (with their meta graphs and
  # their readers' leases), the graph, the state file, the directory's lease
  # and the lock, besides the event files (one per start, as TensorFlow's
  # writer makes them).
  local expected
  expected=$(printf '%s\n' checkpoint checkpoint.lease train.lock graph.pbtxt \
    model.ckpt-{980,990,1000}.{data-00000-of-00001,index,meta,lease} | sort)
  [ "$(ls "$run" | grep -v '^events\.out\.tfevents\.' | sort)" = "$expected" ] ||
    fail "leftovers after the crash loop: $(ls "$run" | tr '\n' ' ')"
  compgen -G "$run/events.out.tfevents.*" >/dev/null || fail "no event file in $run"
  echo "crash/resume $*: the log directory holds only the kept checkpoints and event files"
}
crash_loop "$TEST_TMPDIR/crashy" 20 20261129
# Killed during asynchronous saves (the snapshot being written while the
# steps go on): the same guarantees, and the same bytes as synchronous saves.
crash_loop "$TEST_TMPDIR/crashy_async" 12 20261201 --async_save

# SIGTERM: save at the current step, exit 0; the next start restores it.
term="$TEST_TMPDIR/term"
"$train" --logdir="$term" --model=linear --steps=100000000 --save_every=1000000 >"$TEST_TMPDIR/term.log" 2>&1 &
pid=$!
# Once it trains (its first progress line): a signal before that ends it at once.
wait_for "grep -q '^step ' '$TEST_TMPDIR/term.log'" || fail "term run did not start"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "SIGTERM exit code $rc"
step=$(sed -n 's/^saved checkpoint at step \([0-9]*\) on signal$/\1/p' "$TEST_TMPDIR/term.log")
[ -n "$step" ] || fail "no 'saved checkpoint at step N on signal': $(cat "$TEST_TMPDIR/term.log")"
"$train" --logdir="$term" --model=linear --steps="$step" >"$TEST_TMPDIR/term2.log" 2>&1 || fail "restart after SIGTERM"
grep -q "^restored step $step from" "$TEST_TMPDIR/term2.log" || fail "did not restore step $step: $(cat "$TEST_TMPDIR/term2.log")"
echo "SIGTERM: saved and restored step $step"

# Chief and workers in one process on a local:// target: workers wait for
# the chief through WaitForSession, then train the shared model with it.
cw="$TEST_TMPDIR/chief_workers"
"$train" --logdir="$cw" --target=local://e2e --workers=2 --model=linear --steps=300 --save_every=0 \
  >"$TEST_TMPDIR/cw.log" 2>&1 || fail "chief/workers run failed: $(cat "$TEST_TMPDIR/cw.log")"
for w in 0 1; do grep -q "^worker $w ran [0-9]* steps" "$TEST_TMPDIR/cw.log" || fail "worker $w: $(cat "$TEST_TMPDIR/cw.log")"; done
final=$(sed -n 's/^done: step \([0-9]*\) .*/\1/p' "$TEST_TMPDIR/cw.log")
[ -n "$final" ] && [ "$final" -ge 300 ] || fail "chief/workers ended at step '$final'"
echo "chief/workers: $(grep -c '^worker' "$TEST_TMPDIR/cw.log") workers, final step $final"

# A small CNN (Conv2D, MaxPool, their gradients, Adam) learns its teacher
# (the loss falls well below ln 10 = 2.30, chance) and resumes from its
# checkpoint.
cnn="$TEST_TMPDIR/cnn"
cnn_flags=(--model=cnn --optimizer=adam --learning_rate=0.005 --save_every=200 --seed=4)
"$train" --logdir="$cnn" "${cnn_flags[@]}" --steps=400 >"$TEST_TMPDIR/cnn.log" 2>&1 ||
  fail "cnn run failed: $(cat "$TEST_TMPDIR/cnn.log")"
loss=$(sed -n 's/^done: step 400 loss \([0-9.]*\) .*/\1/p' "$TEST_TMPDIR/cnn.log")
awk -v l="$loss" 'BEGIN { exit !(l != "" && l < 2.0) }' || fail "cnn loss did not fall: '$loss'"
"$train" --logdir="$cnn" "${cnn_flags[@]}" --steps=450 >"$TEST_TMPDIR/cnn2.log" 2>&1 ||
  fail "cnn restart failed: $(cat "$TEST_TMPDIR/cnn2.log")"
grep -q "restored step 400" "$TEST_TMPDIR/cnn2.log" || fail "cnn did not restore: $(cat "$TEST_TMPDIR/cnn2.log")"
echo "cnn: loss $loss after 400 steps, restored at 400"

# Bad flags: an error naming the flag and exit code 2, before any work.
for bad in --batch=-1 --batch=0 --batch=100000000 --learning_rate=nan --learning_rate=inf \
           --learning_rate=-1 --steps=-1 --save_every=-5 --max_to_keep=-3 --threads=-4 \
           --workers=-1 --recovery_wait_secs=0 --warm_start_map=old/=new/; do
  rc=0
  "$train" --logdir="$TEST_TMPDIR/badflags" "$bad" >"$TEST_TMPDIR/bad.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "train $bad exited $rc: $(cat "$TEST_TMPDIR/bad.log")"
  grep -qF -- "${bad%%=*}=" "$TEST_TMPDIR/bad.log" || fail "train $bad: flag not named: $(cat "$TEST_TMPDIR/bad.log")"
done
rc=0
"$train" --logdir="$TEST_TMPDIR/badflags" stray >"$TEST_TMPDIR/bad.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q 'unexpected argument "stray"' "$TEST_TMPDIR/bad.log" ||
  fail "stray argument: $rc $(cat "$TEST_TMPDIR/bad.log")"
[ ! -e "$TEST_TMPDIR/badflags" ] || fail "a bad flag still created the log directory"
echo "bad flags: 14 refused"

# One chief per log directory: a second train on it is refused, naming the
# first one's pid; the first is not disturbed.
lk="$TEST_TMPDIR/locked"
"$train" --logdir="$lk" --model=linear --steps=100000000 --save_every=1000000 >"$TEST_TMPDIR/lk1.log" 2>&1 &
pid=$!
wait_for "grep -q '^step ' '$TEST_TMPDIR/lk1.log'" || fail "first locked run did not start"
rc=0
"$train" --logdir="$lk" --model=linear --steps=10 >"$TEST_TMPDIR/lk2.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "a second train on one logdir exited $rc: $(cat "$TEST_TMPDIR/lk2.log")"
grep -q "log directory $lk in use by pid $pid" "$TEST_TMPDIR/lk2.log" || fail "lock message: $(cat "$TEST_TMPDIR/lk2.log")"
kill -TERM "$pid"
wait "$pid" || fail "the first run did not exit 0 on SIGTERM: $(cat "$TEST_TMPDIR/lk1.log")"
"$train" --logdir="$lk" --model=linear --steps=10 >"$TEST_TMPDIR/lk3.log" 2>&1 || fail "lock not released: $(cat "$TEST_TMPDIR/lk3.log")"
echo "logdir lock: second run refused while pid $pid trained"

# A diverging run (non-finite loss) stops before it saves over good checkpoints.
nan="$TEST_TMPDIR/nan"
"$train" --logdir="$nan" --model=linear --steps=20 --save_every=10 >"$TEST_TMPDIR/nan1.log" 2>&1 || fail "nan setup run"
# What the checkpoints hold (the restart saves the model it restored again,
# as TensorFlow's CheckpointSaverHook does: the same bytes; its .meta is this
# run's graph).
checkpoints() { (cd "$nan" && md5sum checkpoint model.ckpt-*.data-* model.ckpt-*.index); }
before=$(checkpoints)
rc=0
"$train" --logdir="$nan" --model=linear --steps=500 --save_every=1 --learning_rate=1e38 >"$TEST_TMPDIR/nan2.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "a diverging run exited $rc: $(cat "$TEST_TMPDIR/nan2.log")"
grep -qE "loss is (nan|inf|-inf|-nan) at step [0-9]+ .*stopped without saving" "$TEST_TMPDIR/nan2.log" ||
  fail "non-finite loss message: $(cat "$TEST_TMPDIR/nan2.log")"
after=$(checkpoints)
[ "$before" = "$after" ] || fail "a diverging run changed the checkpoints: $before // $after"
echo "non-finite loss: $(grep -oE 'loss is [^ ]+ at step [0-9]+' "$TEST_TMPDIR/nan2.log"), checkpoints untouched"

# Corruption: flip a byte of the newest data file.
data="$ref/model.ckpt-1000.data-00000-of-00001"
printf '\xff' | dd of="$data" bs=1 seek=20 conv=notrunc status=none
if "$train" --logdir="$ref" "${flags[@]}" >"$TEST_TMPDIR/corrupt.log" 2>&1; then
  fail "a corrupted checkpoint restored"
fi
grep -q "DATA_LOSS" "$TEST_TMPDIR/corrupt.log" || fail "not DataLoss: $(cat "$TEST_TMPDIR/corrupt.log")"
grep -q "Checksum does not match for tensor" "$TEST_TMPDIR/corrupt.log" || fail "no tensor named"
grep -q "model.ckpt-1000.data-00000-of-00001" "$TEST_TMPDIR/corrupt.log" || fail "no file named"
echo "corruption: $(grep -o 'Checksum does not match for tensor "[^"]*"' "$TEST_TMPDIR/corrupt.log")"

# --fallback_to_valid_checkpoint: the corrupt newest checkpoint is skipped
# with a warning naming both; training resumes from 990 and, being
# deterministic, saves a step 1000 identical to the uninterrupted run's.
"$train" --logdir="$ref" "${flags[@]}" --fallback_to_valid_checkpoint >"$TEST_TMPDIR/fallback.log" 2>&1 ||
  fail "fallback run failed: $(cat "$TEST_TMPDIR/fallback.log")"
grep -q "Skipping checkpoint $ref/model.ckpt-1000: Checksum does not match" "$TEST_TMPDIR/fallback.log" ||
  fail "no skip warning: $(cat "$TEST_TMPDIR/fallback.log")"
grep -q "Restored $ref/model.ckpt-990, an older checkpoint: the newest, $ref/model.ckpt-1000" "$TEST_TMPDIR/fallback.log" ||
  fail "no fallback warning: $(cat "$TEST_TMPDIR/fallback.log")"
grep -q "^restored step 990 from $ref/model.ckpt-990" "$TEST_TMPDIR/fallback.log" || fail "did not report step 990"
cmp -s "$ref/model.ckpt-1000.data-00000-of-00001" "$TEST_TMPDIR/crashy/model.ckpt-1000.data-00000-of-00001" ||
  fail "the step 1000 trained again from 990 differs"
echo "fallback: skipped the corrupt model.ckpt-1000, resumed at 990, step 1000 identical again"

# A lost state file, or one bad byte in it: the newest complete checkpoint
# in the directory is restored and the state file rewritten (TensorFlow
# would start from step 0 and save over the checkpoints).
rm "$ref/checkpoint"
"$train" --logdir="$ref" "${flags[@]}" >"$TEST_TMPDIR/lost.log" 2>&1 || fail "lost state: $(cat "$TEST_TMPDIR/lost.log")"
grep -q "checkpoint is missing; recovering from the directory" "$TEST_TMPDIR/lost.log" &&
  grep -q "^restored step 1000 from $ref/model.ckpt-1000" "$TEST_TMPDIR/lost.log" ||
  fail "lost state not recovered: $(cat "$TEST_TMPDIR/lost.log")"
printf 'model_checkpoint_path: "x"\x01\n' >"$ref/checkpoint"
"$train" --logdir="$ref" "${flags[@]}" >"$TEST_TMPDIR/mangled.log" 2>&1 || fail "mangled state: $(cat "$TEST_TMPDIR/mangled.log")"
grep -q "checkpoint cannot be read or parsed; recovering from the directory" "$TEST_TMPDIR/mangled.log" &&
  grep -q "^restored step 1000 from $ref/model.ckpt-1000" "$TEST_TMPDIR/mangled.log" ||
  fail "mangled state not recovered: $(cat "$TEST_TMPDIR/mangled.log")"
grep -q "^model_checkpoint_path: \".*model.ckpt-1000\"" "$ref/checkpoint" || fail "state not rewritten: $(cat "$ref/checkpoint")"
echo "state file: lost and mangled, step 1000 recovered from the directory both times"

# --norecover_state reads the state file as TensorFlow does; --strict (the
# default) still refuses to start from scratch over the checkpoints.
printf 'model_checkpoint_path: "x"\x01\n' >"$ref/checkpoint"
before=$(ls -l --time-style=+%s.%N "$ref" | grep -v train.lock)
rc=0
"$train" --logdir="$ref" "${flags[@]}" --norecover_state >"$TEST_TMPDIR/strict.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "strict: $ref holds .* checkpoint file(s)" "$TEST_TMPDIR/strict.log" ||
  fail "strict: $rc $(cat "$TEST_TMPDIR/strict.log")"
[ "$before" = "$(ls -l --time-style=+%s.%N "$ref" | grep -v train.lock)" ] || fail "a refused run changed $ref"
echo "strict: refused to start from scratch; $ref $(grep -o "holds [0-9]* checkpoint file(s)" "$TEST_TMPDIR/strict.log")"
# --start_over: step 0, as asked, whatever the directory holds.
"$train" --logdir="$ref" --model=mlp --steps=20 --save_every=10 --start_over >"$TEST_TMPDIR/over.log" 2>&1 &&
  grep -q "^initialized from scratch" "$TEST_TMPDIR/over.log" || fail "start over: $(cat "$TEST_TMPDIR/over.log")"
grep -q "^model_checkpoint_path: \"$ref/model.ckpt-20\"" "$ref/checkpoint" || fail "start over: $(cat "$ref/checkpoint")"
echo "start over: trained from step 0 to 20 beside the old checkpoints"
# Resource variables (TensorFlow 2's VarHandleOp, ReadVariableOp,
# ResourceApplyAdam): the same bytes as ref variables, and each restores the
# other's checkpoints.
for r in false true; do
  "$train" --logdir="$TEST_TMPDIR/res_$r" --model=mlp --optimizer=adam --steps=40 --save_every=20 \
    --resource_variables=$r >"$TEST_TMPDIR/res_$r.log" 2>&1 || fail "resource_variables=$r: $(cat "$TEST_TMPDIR/res_$r.log")"
done
cmp -s "$TEST_TMPDIR/res_false/model.ckpt-40.data-00000-of-00001" "$TEST_TMPDIR/res_true/model.ckpt-40.data-00000-of-00001" ||
  fail "resource variables trained differently"
"$train" --logdir="$TEST_TMPDIR/res_false" --model=mlp --optimizer=adam --steps=60 --resource_variables \
  >"$TEST_TMPDIR/res_mix.log" 2>&1 && grep -q "^restored step 40" "$TEST_TMPDIR/res_mix.log" ||
  fail "resource variables did not restore a ref-variable checkpoint: $(cat "$TEST_TMPDIR/res_mix.log")"
echo "resource variables: checkpoints identical to ref variables', restored across"

# --warm_start_from: a new run's trainable variables start from another
# run's checkpoint (its first step's loss is the trained model's, far below
# a fresh model's on the same batch); once the new run has a checkpoint of
# its own, that is what it restores.
scratch_loss=$("$train" --logdir="$TEST_TMPDIR/ws_scratch" --model=mlp --steps=1 --save_every=0 |
  sed -n 's/^done: step 1 loss \([0-9.]*\).*/\1/p')
"$train" --logdir="$TEST_TMPDIR/ws" --model=mlp --steps=1 --save_every=0 \
  --warm_start_from="$TEST_TMPDIR/res_true" >"$TEST_TMPDIR/ws.log" 2>&1 || fail "warm start: $(cat "$TEST_TMPDIR/ws.log")"
grep -q "^initialized from scratch, warm-started from $TEST_TMPDIR/res_true (4 assignments)" "$TEST_TMPDIR/ws.log" ||
  fail "warm start not reported: $(cat "$TEST_TMPDIR/ws.log")"
warm_loss=$(sed -n 's/^done: step 1 loss \([0-9.]*\).*/\1/p' "$TEST_TMPDIR/ws.log")
awk -v w="$warm_loss" -v s="$scratch_loss" 'BEGIN { exit !(w + 0.5 < s) }' ||
  fail "warm-started loss $warm_loss is not below the fresh model's $scratch_loss"
"$train" --logdir="$TEST_TMPDIR/ws" --model=mlp --steps=2 --save_every=0 \
  --warm_start_from="$TEST_TMPDIR/res_true" >"$TEST_TMPDIR/ws2.log" 2>&1 &&
  grep -q "^restored step 1 from $TEST_TMPDIR/ws/model.ckpt-1" "$TEST_TMPDIR/ws2.log" ||
  fail "a warm-started run did not restore its own checkpoint: $(cat "$TEST_TMPDIR/ws2.log")"
rc=0
"$train" --logdir="$TEST_TMPDIR/ws_bad" --model=mlp --steps=1 --warm_start_from="$TEST_TMPDIR/res_true" \
  --warm_start_map=nope/=layer1/ >"$TEST_TMPDIR/ws_bad.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "Tensor nope/bias (bias in nope/) is not found" "$TEST_TMPDIR/ws_bad.log" ||
  fail "a bad --warm_start_map: $rc $(cat "$TEST_TMPDIR/ws_bad.log")"
echo "warm start: first-step loss $warm_loss against $scratch_loss from scratch; own checkpoint restored after"
echo "PASS"

#!/usr/bin/env bash
# minigraph's main job, end to end: set up, build, then in a temporary
# directory train the MLP with checkpoints, kill it with SIGKILL part-way,
# restart it (it resumes from the last checkpoint and says how fast the
# restore was), finish, inspect the final checkpoint, measure restore
# throughput against plain pread(), and run the same training as a cluster
# of four processes on loopback (1 ps, the chief, 2 workers) whose chief is
# killed and restarted while the workers go on; then train a model written in
# Python with TensorFlow (tools/demo/regression.meta), alone (killed and
# restarted) and as three processes, with no Python.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
echo "== building (cold, under 3 minutes on 2 cores; later builds come from the cache)"
bazel build --show_progress --show_progress_rate_limit=15 //tools:all

work=$(mktemp -d /tmp/minigraph-demo.XXXXXX)
bin=bazel-bin/tools
logdir="$work/logs"
flags=(--logdir="$logdir" --model=mlp --steps=3000 --save_every=250 --optimizer=adam --learning_rate=0.001)

echo
echo "== 1. train the MLP (784-128-10, Adam) toward step 3000, checkpoint every 250 steps"
"$bin/train" "${flags[@]}" &
pid=$!
# Kill it once the checkpoint of step 1000 is on disk.
for _ in $(seq 1 6000); do
  [ -e "$logdir/model.ckpt-1000.index" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
echo "   ... SIGKILL after the step-1000 checkpoint; the state file names: $(sed -n 's/^model_checkpoint_path: //p' "$logdir/checkpoint")"

echo
echo "== 2. restart: it resumes from the last checkpoint and finishes"
"$bin/train" "${flags[@]}"

echo
echo "== 3. the final checkpoint"
"$bin/inspect_checkpoint" --dir="$logdir"
"$bin/inspect_checkpoint" --prefix="$logdir/model.ckpt-3000"
"$bin/inspect_checkpoint" --prefix="$logdir/model.ckpt-3000" --verify

echo
echo "== 4. restore throughput, 256 MiB in 100 tensors (ratios to single-thread pread)"
json=$("$bin/restore_bench" --size_mb=256 --dir="$work/bench" 2>/dev/null | tail -n 1)
echo "$json" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("  %-10s %8s %8s" % ("method", "GB/s", "ratio"))
print("  %-10s %8.2f %8s" % ("baseline", r["baseline_gbps"], "1.00"))
print("  %-10s %8.2f %8.2f" % ("reader", r["reader_gbps"], r["reader_ratio"]))
print("  %-10s %8.2f %8.2f" % ("session", r["session_gbps"], r["session_ratio"]))
print("  (%d tensors, %d threads)" % (r["tensors"], r["threads"]))
' 2>/dev/null || echo "  $json"

echo
echo "== 5. four processes on 127.0.0.1: ps 0 holds the variables, worker 0 is the chief, workers 1-2 train too"
base=$((20000 + RANDOM % 20000))
cluster="ps=127.0.0.1:$base;worker=127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
clogdir="$work/cluster"
cflags=(--cluster="$cluster" --model=mlp --steps=4000 --save_every=500 --optimizer=adam
        --learning_rate=0.001 --recovery_wait_secs=0.5)
"$bin/train" --cluster="$cluster" --job_name=ps --task_index=0 >"$work/ps.log" 2>&1 &
ps_pid=$!
for t in 1 2; do
  "$bin/train" "${cflags[@]}" --job_name=worker --task_index=$t >"$work/worker$t.log" 2>&1 &
  eval "w${t}_pid=$!"
done
"$bin/train" "${cflags[@]}" --job_name=worker --task_index=0 --logdir="$clogdir" >"$work/chief.log" 2>&1 &
chief=$!
for _ in $(seq 1 6000); do
  [ -e "$clogdir/checkpoint" ] && grep -q "ckpt-1[0-9][0-9][0-9]\"" "$clogdir/checkpoint" && break
  kill -0 "$chief" 2>/dev/null || break
  sleep 0.01
done
kill -KILL "$chief" 2>/dev/null || true
wait "$chief" 2>/dev/null || true
echo "   ... chief SIGKILLed after $(sed -n 's/^model_checkpoint_path: //p' "$clogdir/checkpoint"); ps and workers keep running"
"$bin/train" "${cflags[@]}" --job_name=worker --task_index=0 --logdir="$clogdir" 2>&1 |
  grep -E "restored|initialized|done|rror" | sed 's/^/   chief:    /'
wait "$w1_pid" "$w2_pid" || true
for t in 1 2; do grep "done" "$work/worker$t.log" | sed "s/^/   worker $t: /"; done
kill -TERM "$ps_pid"
if wait "$ps_pid"; then echo "   ps 0:     stopped cleanly on SIGTERM"; fi

echo
echo "== 6. a model written in Python with tf.compat.v1 (tools/demo/regression.meta), trained with no Python"
echo "   (its tf.data pipeline reads tools/demo/regression.tfrecord: y = x . [1, -2, 3, 0.5] + 1)"
glogdir="$work/graph"
gflags=(--graph=tools/demo/regression.meta --input=tools/demo/regression.tfrecord
        --save_every=100 --summary_every=20 --log_every=100)
"$bin/train" "${gflags[@]}" --logdir="$glogdir" --steps=100000000 >"$work/graph1.log" 2>&1 &
pid=$!
for _ in $(seq 1 6000); do
  [ -e "$glogdir/model.ckpt-300.index" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
echo "   ... SIGKILL after $(sed -n 's/^model_checkpoint_path: //p' "$glogdir/checkpoint")"
"$bin/train" "${gflags[@]}" --logdir="$glogdir" --steps=1500 | grep -E "restored|done" | sed 's/^/   /'
"$bin/inspect_checkpoint" --prefix="$glogdir/model.ckpt-1500" --tensor=linear/w | sed 's/^/   /'
base=$((20000 + RANDOM % 20000))
gcluster="ps=127.0.0.1:$base;worker=127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
"$bin/train" --cluster="$gcluster" --job_name=ps >"$work/graph_ps.log" 2>&1 &
ps_pid=$!
"$bin/train" "${gflags[@]}" --cluster="$gcluster" --job_name=worker --task_index=1 --steps=3000 \
  --recovery_wait_secs=0.5 >"$work/graph_worker1.log" 2>&1 &
w1_pid=$!
"$bin/train" "${gflags[@]}" --cluster="$gcluster" --job_name=worker --task_index=0 --steps=3000 \
  --recovery_wait_secs=0.5 --logdir="$work/graph_cluster" 2>&1 | grep -E "restored|initialized|done" |
  sed 's/^/   chief:    /'
wait "$w1_pid" || true
grep "done" "$work/graph_worker1.log" | sed 's/^/   worker 1: /'
kill -TERM "$ps_pid"
wait "$ps_pid" || true
echo "   TensorBoard draws its loss: tensorboard --logdir=$glogdir"

echo
echo "Done. Checkpoints and logs are in $work."

#!/usr/bin/env bash
# Runs every benchmark, and the peers this machine can run, in one go; prints
# one table of same-run ratios against the speed goals, writes it as JSON
# (OUT/bench.json) and draws PNG plots with gnuplot (OUT/restore.png,
# OUT/mlp.png). docs/benchmarks.md shows the latest.
#
#   tools/bench.sh [--out DIR] [--no-peers] [--quick]
#
#   --out DIR    where the raw outputs, bench.json and the plots go
#                (default: bench_out in the work tree, which git ignores)
#   --no-peers   skip PyTorch, NumPy and TensorFlow (then they are not installed)
#   --quick      fewer repetitions and no 1 GiB run: a check that it all runs
#
# The peers come from ../shared/bench (eigen_mlp.cc, peers_ckpt.py,
# torch_overhead.py); without that directory only minigraph's own figures
# are taken. TensorFlow 2.21 (the virtualenv of `tools/setup.sh tf`) is
# measured by tools/tf_bench.py on the same checkpoints, MLP, one-op graph,
# cluster, tf.data pipelines and single kernels as minigraph, each beside
# minigraph's run. The MLP and its hand-fused peer run in alternating rounds, so a
# drift of the machine's speed affects both sides of the ratio alike.
set -euo pipefail
cd "$(dirname "$0")/.."

out=bench_out
peers=1
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --no-peers) peers=0; shift ;;
    --quick) quick=1; shift ;;
    *) echo "bench: unknown argument $1 (see the top of tools/bench.sh)" >&2; exit 2 ;;
  esac
done

if [ "$peers" = 1 ]; then tools/setup.sh bench peers tf; else tools/setup.sh bench; fi
tf_py="${MG_TF_PYTHON:-${MG_TF_VENV:-/var/cache/minigraph-tf}/bin/python}"
tf=0
if [ "$peers" = 1 ] && [ -x "$tf_py" ]; then tf=1; fi
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.jsonl "$out"/*.txt "$out"/*.dat "$out"/*.png
shared="$(cd .. && pwd)/shared/bench"
[ -d "$shared" ] || echo "bench: $shared not found: no peers, no hand-fused MLP"

echo "bench: building"
bazel build --show_progress --show_progress_rate_limit=15 //core:crc32c_benchmark \
  //session:local_session_benchmark //session:mlp_benchmark //tools:restore_bench \
  //tools:distributed_bench //tools:graph_bench //tools:train
bin=bazel-bin
# Debian's Python, which has the packages setup.sh installs (a python3 found
# first on the PATH, e.g. pyenv's, may not).
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/minigraph_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ "$quick" = 1 ]; then
  sizes=(64 256); reps=3; rounds=1; gbench=(--benchmark_repetitions=3)
else
  sizes=(64 256 1024); reps=5; rounds=3; gbench=(--benchmark_repetitions=5)
fi
gbench+=(--benchmark_report_aggregates_only=true --benchmark_format=json)

# 1. Restore, warm cache: each size and thread count in a fresh process, so
# the first restore is a fresh process's first. With 2 threads (TensorFlow's
# pool on this machine) also a durable save, and TensorFlow's Saver restores
# and saves the same checkpoint.
# Each checkpoint twice: as TensorFlow lays it out (tensors back to back,
# copied out) and aligned (SaverOptions::align_tensors: read in place).
for t in 1 2; do
  for s in "${sizes[@]}"; do
    echo "bench: restore ${s} MiB, ${t} thread(s), aligned"
    rm -rf "$tmp/restore" && mkdir -p "$tmp/restore"
    "$bin/tools/restore_bench" --size_mb="$s" --threads="$t" --repeats="$reps" --align_tensors \
      --dir="$tmp/restore" 2>/dev/null | tail -n 1 >> "$out/restore.jsonl"
    echo "bench: restore ${s} MiB, ${t} thread(s)"
    extra=()
    if [ "$t" = 2 ]; then extra=(--save --keep); fi
    rm -rf "$tmp/restore" && mkdir -p "$tmp/restore"
    "$bin/tools/restore_bench" --size_mb="$s" --threads="$t" --repeats="$reps" \
      --dir="$tmp/restore" "${extra[@]}" 2>/dev/null | tail -n 1 >> "$out/restore.jsonl"
    if [ "$t" = 2 ] && [ "$tf" = 1 ]; then
      echo "bench: TensorFlow's Saver, ${s} MiB"
      "$tf_py" tools/tf_bench.py ckpt --prefix="$tmp/restore/bench" --dir="$tmp/restore" \
        --reps="$reps" 2>/dev/null | tail -n 1 >> "$out/tf_ckpt.jsonl"
    fi
    rm -rf "$tmp/restore"
  done
done
# 2, 3. Cold restore and durable save (the files on this machine's disk).
echo "bench: cold restore and durable save, 256 MiB"
"$bin/tools/restore_bench" --size_mb=256 --repeats="$reps" --cold --save \
  --dir="$tmp/cold" 2>/dev/null | tail -n 1 > "$out/cold_save.json"
# 4. Many small tensors.
echo "bench: 20,000 tensors of 1 KiB"
"$bin/tools/restore_bench" --tensors=20000 --tensor_kb=1 --repeats="$reps" \
  --dir="$tmp/small" 2>/dev/null | tail -n 1 > "$out/small.json"

# 5. The MLP step against the hand-fused Eigen step, alternating rounds.
if [ -f "$shared/eigen_mlp.cc" ]; then
  # The same compiler as minigraph's own build (.bazelrc), so the ratio
  # compares code, not compilers.
  clang++-14 -O3 -march=native -DNDEBUG -I/usr/include/eigen3 "$shared/eigen_mlp.cc" \
    -o "$tmp/eigen_mlp"
  clang++-14 -O3 -march=native -DNDEBUG -fopenmp -I/usr/include/eigen3 "$shared/eigen_mlp.cc" \
    -o "$tmp/eigen_mlp_omp"
fi
train_steps=20000
if [ "$quick" = 1 ]; then train_steps=15000; fi
for r in $(seq 1 "$rounds"); do
  echo "bench: MLP round $r of $rounds"
  # The demo's own rate: `train --model=mlp` (the MLP and SGD step of
  # mlp_benchmark, its batches made once and cycled), no saves or
  # summaries, the rate it prints once a second.
  rm -rf "$tmp/train"
  "$bin/tools/train" --logdir="$tmp/train" --steps="$train_steps" --save_every=0 \
    --summary_every=0 --log_every=0 >> "$out/train_mlp.txt" 2>&1
  "$bin/session/mlp_benchmark" --benchmark_filter='BM_MlpTrainStep/' "${gbench[@]}" \
    > "$out/mlp_$r.json" 2>/dev/null
  if [ -x "$tmp/eigen_mlp" ]; then
    "$tmp/eigen_mlp" 2000 5 > "$out/eigen_mlp_t1_$r.txt"
    OMP_NUM_THREADS=2 "$tmp/eigen_mlp_omp" 2000 5 > "$out/eigen_mlp_t2_$r.txt"
  fi
  if [ "$tf" = 1 ]; then
    for t in 1 2; do
      "$tf_py" tools/tf_bench.py mlp --threads="$t" 2>/dev/null | tail -n 1 >> "$out/tf_mlp.jsonl"
    done
  fi
done

# Executor-level pairs (a session against Eigen called directly) and crc32c.
echo "bench: MatMul and Tanh against Eigen, crc32c"
"$bin/session/local_session_benchmark" --benchmark_filter='MatMul(Session|Eigen)|Tanh|OneOpRun' \
  "${gbench[@]}" > "$out/micro.json" 2>/dev/null
if [ "$tf" = 1 ]; then
  "$tf_py" tools/tf_bench.py oneop 2>/dev/null | tail -n 1 > "$out/tf_oneop.json"
  # TensorFlow's C++ client on the same one-op graph and MLP step, built
  # against the wheel's libtensorflow_cc with the wheel's own flags.
  echo "bench: TensorFlow's C++ Session::Run"
  "$tf_py" tools/tf_bench.py session_graphs --export="$tmp/session_graphs" > /dev/null 2>&1
  tf_dir=$("$tf_py" -c 'import tensorflow as tf; print(tf.sysconfig.get_lib())' 2>/dev/null)
  read -r -a tf_cflags < <("$tf_py" -c \
    'import tensorflow as tf; print(" ".join(tf.sysconfig.get_compile_flags()))' 2>/dev/null)
  clang++-14 -O2 -w "${tf_cflags[@]}" tools/tf_session_peer.cc -o "$tmp/tf_session_peer" \
    -L"$tf_dir" -l:libtensorflow_cc.so.2 -l:libtensorflow_framework.so.2 -Wl,-rpath,"$tf_dir"
  TF_CPP_MIN_LOG_LEVEL=2 "$tmp/tf_session_peer" "$tmp/session_graphs" 2>/dev/null | tail -n 1 \
    > "$out/tf_session_peer.json"
fi

# Across processes' protocol on loopback: minigraph's 1 ps + 2 workers MLP and
# 64 MiB RecvTensor (distributed_bench), and TensorFlow's.
echo "bench: 1 ps + 2 workers, RecvTensor"
dist_steps=300
if [ "$quick" = 1 ]; then dist_steps=100; fi
"$bin/tools/distributed_bench" --mlp_steps="$dist_steps" --waiters=8 --repeats="$reps" \
  2>/dev/null | tail -n 1 > "$out/distributed.json"
if [ "$tf" = 1 ]; then
  "$tf_py" tools/tf_bench.py cluster --mlp_steps="$dist_steps" --reps="$reps" 2>/dev/null |
    tail -n 1 > "$out/tf_cluster.json"
fi
"$bin/core/crc32c_benchmark" "${gbench[@]}" > "$out/crc.json" 2>/dev/null

# tf.data pipelines TensorFlow writes (a JPEG decoded and resized per
# element; sequential, with threads, prefetched ahead of a training step),
# drained by TensorFlow and by minigraph's graph_bench, and a TensorFlow 1
# while loop with its gradient: without TensorFlow there are no graphs to
# run.
if [ "$tf" = 1 ]; then
  echo "bench: tf.data pipelines"
  data_elements=256
  if [ "$quick" = 1 ]; then data_elements=64; fi
  "$tf_py" tools/tf_bench.py data --export="$tmp/data" --elements="$data_elements" \
    --reps="$reps" 2>/dev/null | tail -n 1 > "$out/tf_data.json"
  echo "bench: a TensorFlow 1 while loop and its gradient"
  "$tf_py" tools/tf_bench.py loops --export="$tmp/loops" --reps="$reps" 2>/dev/null |
    tail -n 1 > "$out/tf_loops.json"
  for f in loss:0 train; do
    "$bin/tools/graph_bench" --graph="$tmp/loops/rnn.meta" --init=init --fetch="$f" --runs=50 \
      --reps="$reps" 2>/dev/null | tail -n 1 >> "$out/loops.jsonl"
  done
  # Single ops at models' shapes (a MobileNetV2 depthwise layer, l2_loss),
  # forward and backward, at 1 and 2 threads, against TensorFlow's runs of
  # the same graphs.
  echo "bench: kernels at models' shapes"
  "$tf_py" tools/tf_bench.py kernels --export="$tmp/kernels" --reps="$reps" 2>/dev/null |
    tail -n 1 > "$out/tf_kernels.json"
  for g in "$tmp"/kernels/*.meta; do
    for f in forward backward; do
      for t in 1 2; do
        result=$("$bin/tools/graph_bench" --graph="$g" --init=init --fetch="$f" --runs=20 \
          --reps="$reps" --intra_op_threads="$t" 2>/dev/null | tail -n 1)
        echo "{\"key\": \"$(basename "$g" .meta)/$f/$t\", \"result\": $result}" \
          >> "$out/kernels.jsonl"
      done
    done
  done
  # Training steps of ordinary models (tools/tf_bench.py MODELS: a CNN
  # with batch norm, a MobileNet-style depthwise net, LSTMs by dynamic_rnn
  # and by Keras, transformer encoder blocks), and their forward passes:
  # each model by TensorFlow and then by minigraph on the same graph, at 1
  # and 2 threads, in three rounds (this machine's speed drifts by 20 to 30%
  # over minutes; the pairs are back to back); then one traced step of each
  # (step stats, summed per op type) on each side: where the time goes.
  model_rounds=3
  if [ "$quick" = 1 ]; then model_rounds=1; fi
  models=(cnn mobilenet lstm keras_lstm transformer keras_transformer)
  for r in $(seq 1 "$model_rounds"); do
    for t in 1 2; do
      echo "bench: models, round $r of $model_rounds, $t thread(s)"
      for m in "${models[@]}"; do
        "$tf_py" tools/tf_bench.py models --export="$tmp/models" --only="$m" --threads="$t" \
          --reps="$reps" 2>/dev/null | tail -n 1 >> "$out/tf_models.jsonl"
        for f in train:bench_step:0 forward:forward:0; do
          result=$("$bin/tools/graph_bench" --graph="$tmp/models/$m.meta" --init=init \
            --fetch="${f#*:}" --runs=10 --reps="$reps" --intra_op_threads="$t" 2>/dev/null |
            tail -n 1)
          echo "{\"key\": \"$m/${f%%:*}/$t\", \"result\": $result}" >> "$out/models.jsonl"
        done
      done
    done
  done
  echo "bench: models, per-op profiles"
  "$tf_py" tools/tf_bench.py models --export="$tmp/models" --threads=1 --runs=1 --reps=1 \
    --profile="$out/tf_model_profiles.json" > /dev/null 2>&1
  for g in "$tmp"/models/*.meta; do
    "$bin/tools/graph_bench" --graph="$g" --init=init --fetch=bench_step:0 --runs=1 --reps=1 \
      --intra_op_threads=1 --profile="$out/profile_$(basename "$g" .meta).json" > /dev/null 2>&1
  done
  for g in "$tmp"/data/*.meta; do
    "$bin/tools/graph_bench" --graph="$g" --reps="$reps" --intra_op_threads=1 2>/dev/null |
      tail -n 1 >> "$out/data.jsonl"
  done
  # What two cores give this work here: two processes of the sequential
  # map at once (their rates summed, over one process alone above).
  for i in 1 2; do
    "$bin/tools/graph_bench" --graph="$tmp/data/map.meta" --reps="$reps" --intra_op_threads=1 \
      2>/dev/null | tail -n 1 >> "$out/data_two_processes.jsonl" &
  done
  wait
fi

# Peers: PyTorch and NumPy at the same sizes, and PyTorch's MLP.
if [ "$peers" = 1 ] && [ -f "$shared/peers_ckpt.py" ] &&
  "$py" -c 'import torch, numpy' 2>/dev/null; then
  for s in "${sizes[@]}"; do
    echo "bench: peers ${s} MiB"
    "$py" "$shared/peers_ckpt.py" --gib="$(awk "BEGIN { print $s / 1024 }")" \
      --reps="$reps" --dir="$tmp/peers" > "$out/peers_$s.txt" 2>&1 || true
    rm -rf "$tmp/peers"
  done
  for t in 1 2; do
    "$py" "$shared/torch_overhead.py" --threads="$t" > "$out/torch_mlp_t$t.txt" 2>&1 || true
  done
fi

"$py" tools/bench_report.py "$out" | tee "$out/table.txt"
gnuplot -e "out='$out'" tools/bench_plots.gp
echo "bench: plots $out/restore.png $out/mlp.png"

#!/usr/bin/env bash
# Makes docs/images/tensorboard.png: TensorBoard (from the TensorFlow
# virtualenv of `tools/setup.sh tf`) drawing the event file of a `train` run,
# photographed by headless Chromium (Debian's chromium package, installed
# here if missing). Not part of the tests; run it when the picture should
# change.
set -euo pipefail
cd "$(dirname "$0")/.."
py="${MG_TF_PYTHON:-/var/cache/minigraph-tf/bin/python}"
[ -x "$py" ] || { echo "no TensorFlow virtualenv at $py: tools/setup.sh tf makes it" >&2; exit 1; }
command -v chromium >/dev/null || sudo_apt=1
if [ "${sudo_apt:-0}" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q chromium; else sudo apt-get install -y -q chromium; fi
fi
bazel build //tools:train
work=$(mktemp -d /tmp/minigraph-tensorboard.XXXXXX)
bazel-bin/tools/train --logdir="$work/mlp" --model=mlp --optimizer=adam --learning_rate=0.001 \
  --steps=3000 --save_every=500 --summary_every=10 --log_every=50 >/dev/null
port=$((30000 + RANDOM % 20000))
"$py" -m tensorboard.main --logdir="$work" --port="$port" --host=127.0.0.1 >"$work/tb.log" 2>&1 &
tb=$!
trap 'kill $tb 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$port/data/runs" | grep -q mlp && break
  sleep 0.1
done
# The scalars dashboard, the loss only, unsmoothed; SwiftShader draws its
# WebGL charts without a GPU.
chromium --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
  --hide-scrollbars --window-size=1200,760 --virtual-time-budget=20000 \
  --screenshot="$PWD/docs/images/tensorboard.png" \
  "http://127.0.0.1:$port/?smoothing=0#scalars&tagFilter=%5Eloss%24&_smoothingWeight=0" 2>/dev/null
echo "wrote docs/images/tensorboard.png (the run: $work/mlp)"

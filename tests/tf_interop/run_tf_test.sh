#!/usr/bin/env bash
# Runs one TensorFlow interop test (a Python unittest) with the Python of
# the virtualenv `tools/setup.sh tf` makes, beside minigraph's binaries.
#   run_tf_test.sh SCRIPT.py NAME=FILE...   (each file as MG_<NAME>; a .py file's
#                                           module importable too)
# Without that virtualenv the test says so and skips, unless MG_TF_REQUIRED=1
# (tools/test.sh sets it after installing TensorFlow): then it fails.
set -euo pipefail
py="${MG_TF_PYTHON:-/var/cache/minigraph-tf/bin/python}"
if [ ! -x "$py" ]; then
  if [ "${MG_TF_REQUIRED:-0}" = 1 ]; then
    echo "FAIL: no TensorFlow virtualenv at $py (tools/setup.sh tf makes it)" >&2
    exit 1
  fi
  echo "SKIP: no TensorFlow virtualenv at $py; tools/setup.sh tf makes it"
  exit 0
fi
script="$(realpath "$1")"
shift
pythonpath="$(dirname "$script")"
for arg in "$@"; do
  name="${arg%%=*}"
  file="$(realpath "${arg#*=}")"
  export "MG_${name^^}=$file"
  # A Python module from elsewhere in the tree is importable by its name.
  case "$file" in *.py) pythonpath="$pythonpath:$(dirname "$file")" ;; esac
done
# TensorFlow and Keras write caches under HOME; keep them in the sandbox.
export HOME="$TEST_TMPDIR" TMPDIR="$TEST_TMPDIR"
export PYTHONPATH="$pythonpath" PYTHONDONTWRITEBYTECODE=1
exec "$py" "$script"

#!/usr/bin/env bash
# docs/ops.md must be what //tools:op_coverage prints today.
set -uo pipefail
if ! diff -u "$2" <("$1" "$3" "$4"); then
  echo "FAIL: docs/ops.md is out of date:" \
    "bazel run //tools:op_coverage -- \$PWD/tests/tf_interop/op_counts.tsv" \
    "\$PWD/tests/tf_interop/op_census.tsv > docs/ops.md" >&2
  exit 1
fi
echo "docs/ops.md is current"

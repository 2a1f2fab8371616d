#!/usr/bin/env bash
# minigraph's main job, end to end: set up, build, then show what works.
# Today that is the foundation (issue #2): crc32c through ISA-L against
# memcpy, and fresh tensor buffers from the huge-page allocator against
# malloc. The train / crash / restore demo replaces this as the checkpoint,
# SessionManager and training issues land.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
echo "== building"
bazel build //... >/dev/null 2>&1 || bazel build //...

out=$(mktemp -d /tmp/minigraph-demo.XXXXXX)
bin=bazel-bin/core
echo "== crc32c (ISA-L) vs memcpy, same run"
"$bin/crc32c_benchmark" --benchmark_filter='/(67108864|268435456)$' \
  --benchmark_min_time=0.2 --benchmark_format=console 2>/dev/null | tee "$out/crc32c.txt" | grep BM_
echo "== fresh 64 MiB tensor buffers: default (huge-page) allocator vs malloc"
"$bin/allocator_benchmark" --benchmark_min_time=0.2 2>/dev/null | tee "$out/allocator.txt" | grep BM_

cat <<MSG

Done. Benchmark output is in $out.
Not yet here (open issues): the graph runtime (#3), checkpoints (#4), the
SessionManager (#5), gradients (#6), and the train / SIGKILL / restore demo
that this command will run (#7).
MSG

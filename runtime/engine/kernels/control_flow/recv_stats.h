// How long this process's _Recv kernels took, for benchmarks
// (tools/distributed_bench).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_CONTROL_FLOW_RECV_STATS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_CONTROL_FLOW_RECV_STATS_H_

#include <cstdint>

namespace minigraph {

// _Recv kernels run in this process so far, and the seconds they took
// (waiting for the value and moving it). Thread-safe.
struct RecvStats {
  int64_t count = 0;
  double seconds = 0;
};
RecvStats GetRecvStats();

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_CONTROL_FLOW_RECV_STATS_H_

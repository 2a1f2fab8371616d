// The nodes a traced step ran, with when each started and ended and on which
// thread, and what each output held: TensorFlow's step stats
// (RunOptions.trace_level FULL_TRACE), which a session turns into a StepStats
// proto (AppendStepStats) and tools sum into a per-op profile. A step runs
// traced when its StepContext has a collector; nodes of the functions it
// calls are recorded too (the calling node's time includes theirs). Untraced
// steps pay one null check per node.
//
// Thread safety: Record may be called from any thread.

#ifndef MINIGRAPH_RUNTIME_ENGINE_STEP_STATS_H_
#define MINIGRAPH_RUNTIME_ENGINE_STEP_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/proto/step_stats.pb.h"
#include "core/tensor.h"
#include "runtime/graph/graph.h"

namespace minigraph {

// One output of a node run: what TensorFlow's NodeOutput describes.
struct OutputRun {
  int slot = 0;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  int64_t bytes = 0;
};

struct NodeRun {
  std::string node;
  // "NAME = Op(input, ...)", as TensorFlow's timeline labels a node.
  std::string label;
  int64_t start_nanos = 0;  // the host's clock (absl::GetCurrentTimeNanos)
  int64_t end_nanos = 0;
  uint32_t thread = 0;  // a small number per thread of this process
  std::vector<OutputRun> outputs;
};

class StepStatsCollector {
 public:
  void Record(const Node& node, int64_t start_nanos, int64_t end_nanos,
              std::vector<OutputRun> outputs = {});
  // The runs recorded so far, in the order they ended; leaves none.
  std::vector<NodeRun> Take();

 private:
  absl::Mutex mu_;
  std::vector<NodeRun> runs_ ABSL_GUARDED_BY(mu_);
};

// Adds `runs` to `out` as TensorFlow's RunMetadata has them: one
// DeviceStepStats of `device`, a NodeExecStats per run (times in micro- and
// nanoseconds; outputs with their dtype, shape and bytes).
void AppendStepStats(std::vector<NodeRun> runs, const std::string& device,
                     tensorflow::StepStats* out);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_STEP_STATS_H_

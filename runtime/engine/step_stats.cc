#include "runtime/engine/step_stats.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minigraph {
namespace {

uint32_t ThreadNumber() {
  static std::atomic<uint32_t> next{0};
  thread_local const uint32_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

}  // namespace

void StepStatsCollector::Record(const Node& node, int64_t start_nanos, int64_t end_nanos) {
  NodeRun run;
  run.node = node.name();
  run.label = absl::StrCat(node.name(), " = ", node.type_string(), "(",
                           absl::StrJoin(node.def().input(), ", "), ")");
  run.start_nanos = start_nanos;
  run.end_nanos = end_nanos;
  run.thread = ThreadNumber();
  absl::MutexLock l(&mu_);
  runs_.push_back(std::move(run));
}

std::vector<NodeRun> StepStatsCollector::Take() {
  absl::MutexLock l(&mu_);
  return std::exchange(runs_, {});
}

}  // namespace minigraph

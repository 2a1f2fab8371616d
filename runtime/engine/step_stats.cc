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

void StepStatsCollector::Record(const Node& node, int64_t start_nanos, int64_t end_nanos,
                                std::vector<OutputRun> outputs) {
  NodeRun run;
  run.node = node.name();
  run.label = absl::StrCat(node.name(), " = ", node.type_string(), "(",
                           absl::StrJoin(node.def().input(), ", "), ")");
  run.start_nanos = start_nanos;
  run.end_nanos = end_nanos;
  run.thread = ThreadNumber();
  run.outputs = std::move(outputs);
  absl::MutexLock l(&mu_);
  runs_.push_back(std::move(run));
}

std::vector<NodeRun> StepStatsCollector::Take() {
  absl::MutexLock l(&mu_);
  return std::exchange(runs_, {});
}

void AppendStepStats(std::vector<NodeRun> runs, const std::string& device,
                     tensorflow::StepStats* out) {
  tensorflow::DeviceStepStats* dev = out->add_dev_stats();
  dev->set_device(device);
  for (NodeRun& run : runs) {
    tensorflow::NodeExecStats* n = dev->add_node_stats();
    const int64_t nanos = run.end_nanos - run.start_nanos;
    n->set_node_name(std::move(run.node));
    n->set_timeline_label(std::move(run.label));
    n->set_all_start_micros(run.start_nanos / 1000);
    n->set_all_start_nanos(run.start_nanos);
    n->set_scheduled_micros(run.start_nanos / 1000);
    n->set_scheduled_nanos(run.start_nanos);
    n->set_op_start_rel_micros(0);
    n->set_op_end_rel_micros(nanos / 1000);
    n->set_op_end_rel_nanos(nanos);
    n->set_all_end_rel_micros(nanos / 1000);
    n->set_all_end_rel_nanos(nanos);
    n->set_thread_id(run.thread);
    for (const OutputRun& o : run.outputs) {
      tensorflow::NodeOutput* out = n->add_output();
      out->set_slot(o.slot);
      tensorflow::TensorDescription* d = out->mutable_tensor_description();
      d->set_dtype(o.dtype);
      o.shape.AsProto(d->mutable_shape());
      tensorflow::AllocationDescription* a = d->mutable_allocation_description();
      a->set_requested_bytes(o.bytes);
      a->set_allocated_bytes(o.bytes);
      a->set_allocator_name("cpu");
    }
  }
}

}  // namespace minigraph

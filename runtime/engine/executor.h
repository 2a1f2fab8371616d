// Runs the part of a graph that one step needs: the nodes that the fetched
// tensors and target nodes depend on (through data and control edges),
// where fed tensors cut the graph. Independent nodes run in parallel on the
// inter-op pool; nodes made ready by a finishing node run next on the same
// thread when they are cheap (control flow, Identity, Const, or measured
// below a thread hand-off's cost), and so does one expensive one, so chains
// of small ops cost no thread hops.
//
//   MG_ASSIGN_OR_RETURN(auto ex, Executor::Create(graph, kernels, feeds, fetches, targets));
//   Executor::Args args;
//   args.feeds = {x};
//   args.step = {...};
//   std::vector<Tensor> out;
//   MG_RETURN_IF_ERROR(ex->Run(args, &out));
//
// Switch/Merge (TensorFlow's cond) work as in TensorFlow: the untaken
// output of a Switch is "dead", nodes with a dead input are skipped and pass
// deadness on (also along control edges), and Merge forwards its first live
// input. Fetching a dead tensor is InvalidArgument.
//
// While loops are TensorFlow's frames: Enter passes a value into iteration 0
// of the child frame named by its frame_name (into every iteration when
// is_constant), NextIteration into the next iteration, Exit back to the
// parent frame; a dead NextIteration ends the loop. Each (frame, iteration)
// has its own input slots and counts, iterations run in parallel up to the
// loop's parallel_iterations, and a finished iteration is freed at once, so
// a long loop holds only its live iterations. Feeds, fetches and targets
// must be outside loops. Bookkeeping for loop plans is serialized by one
// mutex per step; kernels still run in parallel.
//
// The first error cancels the step (no further node starts) and comes back
// with the node name appended, as "message\n\t [[{{node NAME}}]]". An
// Executor is immutable after Create; concurrent Run calls are safe.
//
// Thread safety: an Executor does not change once made; Run may be called from
// several threads at once, each step with state of its own.

#ifndef MINIGRAPH_RUNTIME_ENGINE_EXECUTOR_H_
#define MINIGRAPH_RUNTIME_ENGINE_EXECUTOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/node_def_util.h"

namespace Eigen {
class ThreadPoolInterface;
}  // namespace Eigen

namespace minigraph {
namespace executor_internal {
class Plan;
}  // namespace executor_internal

class Executor {
 public:
  struct Args {
    // Values for the feeds given to Create, in that order.
    std::vector<Tensor> feeds;
    StepContext step;
    // Inter-op pool; nullptr runs every node on the calling thread.
    Eigen::ThreadPoolInterface* pool = nullptr;
    // Zero means no deadline; past it the step fails with DeadlineExceeded.
    absl::Duration timeout = absl::ZeroDuration();
    // When set, asked every 64 nodes and every 100 ms while the caller
    // waits; true cancels the step (Cancelled).
    std::function<bool()> cancelled;
  };

  // `graph` and `kernels` (one per node id, nullptr for nodes that never
  // run) are not owned and must outlive the executor. Returns
  // InvalidArgument (naming the tensor or node) for a feed, fetch or target
  // that does not exist, a duplicate feed, or a needed node with no kernel;
  // for that last, `why_no_kernel` (one per node id, when given) holds the
  // error to return instead: what creating its kernel returned.
  // A target must lie outside loops, unless `every_node`: then every node
  // of the graph runs, as the partition of a distributed step does (its
  // loops may hold a _Send that nothing in the partition consumes).
  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      const Graph* graph, const std::vector<const OpKernel*>& kernels,
      const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
      const std::vector<std::string>& targets, bool every_node = false,
      const std::vector<absl::Status>* why_no_kernel = nullptr);

  // Runs one step. `fetches` receives one tensor per fetch given to Create.
  absl::Status Run(const Args& args, std::vector<Tensor>* fetches) const;

  // Node ids this step runs (for tests and diagnostics), in no order.
  std::vector<int> PlannedNodes() const;

  ~Executor();

 private:
  explicit Executor(std::unique_ptr<const executor_internal::Plan> plan);

  std::unique_ptr<const executor_internal::Plan> plan_;
};

// Appends TensorFlow's node marker to `s`'s message: "...\n\t [[{{node N}}]]".
absl::Status WithNodeName(const absl::Status& s, absl::string_view node);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_EXECUTOR_H_

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

#ifndef MINIGRAPH_RUNTIME_EXECUTOR_H_
#define MINIGRAPH_RUNTIME_EXECUTOR_H_

#define EIGEN_USE_THREADS
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/graph.h"
#include "runtime/node_def_util.h"
#include "runtime/op_kernel.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace minigraph {

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
  };

  // `graph` and `kernels` (one per node id, nullptr for nodes that never
  // run) are not owned and must outlive the executor. Returns
  // InvalidArgument (naming the tensor or node) for a feed, fetch or target
  // that does not exist, a duplicate feed, or a needed node with no kernel.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      const Graph* graph, const std::vector<const OpKernel*>& kernels,
      const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
      const std::vector<std::string>& targets);

  // Runs one step. `fetches` receives one tensor per fetch given to Create.
  absl::Status Run(const Args& args, std::vector<Tensor>* fetches) const;

  // Node ids this step runs (for tests and diagnostics), in no order.
  std::vector<int> PlannedNodes() const;

  ~Executor();

 private:
  struct Item;
  struct FrameInfo;
  struct Iteration;
  struct Frame;
  struct Task;
  struct StepState;
  using ReadyList = absl::InlinedVector<Task, 8>;
  Executor() = default;
  absl::Status AssignFrames(const std::vector<int>& item_of);
  void Process(StepState* state, Task task) const;
  // `frame_end`: the dead values a finished loop leaves on its Exits.
  absl::Status Fetch(StepState* state, const Item& item, TensorValue* outputs,
                     bool frame_end = false) const;
  void Propagate(StepState* state, const Task& task, bool dead, TensorValue* outputs,
                 ReadyList* ready) const;
  void PropagateLoop(StepState* state, const Task& task, bool dead, TensorValue* outputs,
                     ReadyList* ready) const;
  // Delivers `item`'s outputs into `iter`; returns how many nodes
  // became ready. `may_move` lets last edges take the values.
  int Activate(const Item& item, bool dead, TensorValue* outputs, Iteration* iter, bool may_move,
               ReadyList* ready) const;
  std::unique_ptr<Iteration> NewIteration(Frame* frame, int64_t num) const;
  Iteration* IncrementIteration(Frame* frame, ReadyList* ready) const;
  void CleanupIterations(StepState* state, Frame* frame, Iteration* iter, ReadyList* ready) const;
  void NodeDone(StepState* state) const;

  const Graph* graph_ = nullptr;
  std::vector<Item> items_;
  // Static frames; 0 is the root (everything outside loops).
  std::vector<FrameInfo> frames_;
  std::vector<int> initial_ready_;
  // (slot, feed index) pairs filled before the step starts.
  std::vector<std::pair<int, int>> fed_slots_;
  // For each fetch: the feed index it returns directly, or -1.
  std::vector<int> fetch_from_feed_;
  std::vector<TensorId> feeds_;
  std::vector<PartialShape> feed_shapes_;
  std::vector<DataType> feed_types_;
  // The plan has Switch or Merge nodes, so deadness is tracked.
  bool has_control_flow_ = false;
  // The plan has while loops (more than the root frame).
  bool has_loops_ = false;
  // Per item, a running estimate of its kernel's cost in CPU cycles,
  // measured when a pool runs the step: a node cheaper than a thread
  // hand-off runs on the thread that made it ready (TensorFlow's rule).
  std::unique_ptr<std::atomic<uint64_t>[]> cost_cycles_;
};

// Appends TensorFlow's node marker to `s`'s message: "...\n\t [[{{node N}}]]".
absl::Status WithNodeName(const absl::Status& s, absl::string_view node);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_EXECUTOR_H_

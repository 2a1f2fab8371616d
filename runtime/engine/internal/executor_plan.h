// The executor's plan (executor_plan.cc) and the step machinery over it
// (executor_run.cc): what runtime/engine/executor.h hides. Only the
// executor's own files include this.

#ifndef MINIGRAPH_RUNTIME_ENGINE_INTERNAL_EXECUTOR_PLAN_H_
#define MINIGRAPH_RUNTIME_ENGINE_INTERNAL_EXECUTOR_PLAN_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace executor_internal {

// Every node starts as expensive until measured.
inline constexpr uint64_t kInitialCostCycles = 1'000'000;

// One node of the plan: where its inputs live and where its outputs go.
struct Item {
  const Node* node = nullptr;
  const OpKernel* kernel = nullptr;
  int local = 0;        // index among its frame's items (counts, winners)
  int input_start = 0;  // first slot of this node's inputs, in its frame
  int num_inputs = 0;
  int initial_pending = 0;
  struct Out {
    int output;     // this node's output index
    int item;       // consumer
    int local;      // consumer's index in its frame
    int slot;       // consumer's input slot (in the consumer's frame)
    bool last;      // the last edge of `output`: the value moves, not copies
    bool to_merge;  // the consumer is a Merge
  };
  std::vector<Out> outs;
  struct ControlOut {
    int item;
    int local;
    bool to_merge;
  };
  std::vector<ControlOut> control_outs;
  // (output index, fetch index) for outputs the step returns.
  std::vector<std::pair<int, int>> fetches;
  // Inputs (relative index) that arrive as variable references but are read
  // as values: dereferenced just before Compute.
  std::vector<int> deref_inputs;
  // Merge runs when its control inputs have all arrived and a live data
  // input has (the first one wins) or every data input arrived dead; the
  // executor computes it. Its pending count covers data inputs only.
  bool is_merge = false;
  // ControlTrigger: runs, and its outputs are live, even when its inputs
  // arrive dead (TensorFlow 1 while-loop gradients order each iteration's
  // stack pops with one).
  bool control_trigger = false;
  // _Send: runs even when its input arrives dead, and sends the deadness
  // on (TensorFlow's transfer nodes do), so that the receiving task's step
  // ends, with the untaken branch of a cond that spans tasks dead there too.
  bool is_send = false;
  int num_control = 0;
  enum Kind : uint8_t { kPlain, kEnter, kExit, kNextIteration } kind = kPlain;
  // Forwards or makes a small value (control flow, Identity, Const, NoOp):
  // always runs on the thread that made it ready, unmeasured.
  bool cheap = false;
  // Waits outside the step (OpKernel::IsBlocking): runs on a thread of the
  // blocking pool, never inline.
  bool blocking = false;
  bool constant_enter = false;
  // Free of side effects, and no one reads its outputs (no fetch, and its
  // data consumers are skipped too; control edges wait only for it to
  // finish): it finishes without computing, as TensorFlow's grappler turns
  // such nodes into NoOps (the dead branches of gradients, such as the
  // gradient of a constant's Conv2D input or of Pow's constant exponent).
  bool skip = false;
  int child_frame = -1;  // Enter: the frame its consumers run in
};

struct FrameInfo {
  std::vector<int> items;  // in this frame, by local index
  int num_slots = 0;
  int num_enters = 0;  // Enter nodes feeding one instance of the frame
  int parallel_iterations = 1;
};

struct Iteration;
struct Frame;
struct Task;
struct StepState;

// An immutable plan for one (feeds, fetches, targets) over one graph, and
// the methods that run steps of it. Concurrent Run calls are safe.
class Plan {
 public:
  using Args = Executor::Args;

  // See Executor::Create.
  static absl::StatusOr<std::unique_ptr<Plan>> Build(
      const Graph* graph, const std::vector<const OpKernel*>& kernels,
      const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
      const std::vector<std::string>& targets, bool every_node,
      const std::vector<absl::Status>* why_no_kernel);
  // See Executor::Run.
  absl::Status Run(const Args& args, std::vector<Tensor>* fetches) const;
  std::vector<int> PlannedNodes() const;

 private:
  friend class PlanBuilder;  // Build's steps (executor_plan.cc)
  using ReadyList = absl::InlinedVector<Task, 8>;
  Plan() = default;

  // Run's and Process's steps below are defined always-inline in
  // executor_run.cc: as calls they cost 4% of a one-op step
  // (BM_OneOpRun) and as much per node of a chain (BM_ScalarChain).
  //
  // Run's steps: the feeds against the plan's, the initial nodes started
  // (the first on the calling thread), every fetch delivered.
  absl::Status CheckFeeds(const Args& args) const;
  void Start(StepState* state, Iteration* root_iter) const;
  absl::Status CheckAllFetched(const StepState& state) const;
  // Runs `task` and every node it makes ready that stays on this thread.
  void Process(StepState* state, Task task) const;
  // Process's steps: one node's run into `outputs` (`*dead` when its inputs
  // were), its kernel's run (timed for the cost estimate on a pool), and
  // the nodes it made ready handed on: to the pool, or to `cheap`, which
  // this thread runs next.
  absl::Status RunItem(StepState* state, const Task& task, TensorValue* outputs,
                       bool* dead) const;
  absl::Status Compute(StepState* state, int item_index, TensorValue* inputs,
                       TensorValue* outputs) const;
  void Dispatch(StepState* state, const ReadyList& ready, ReadyList* cheap) const;
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
  // Runs `task` on a pool thread: the blocking pool for a blocking node,
  // the step's pool otherwise.
  void Schedule(StepState* state, const Task& task) const;

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
  // The plan has blocking nodes: its steps always run on a pool.
  bool has_blocking_ = false;
  // Per item, a running estimate of its kernel's cost in CPU cycles,
  // measured when a pool runs the step: a node cheaper than a thread
  // hand-off runs on the thread that made it ready (TensorFlow's rule).
  std::unique_ptr<std::atomic<uint64_t>[]> cost_cycles_;
};

}  // namespace executor_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_INTERNAL_EXECUTOR_PLAN_H_

// Kernels: the code that computes one node. A kernel is created once per
// node (from its attrs) and computes many times, possibly concurrently, so
// Compute() must not mutate the kernel.
//
//   class NegOp : public OpKernel {
//    public:
//     using OpKernel::OpKernel;
//     absl::Status Compute(OpKernelContext* ctx) override {
//       const Tensor& x = ctx->input(0);
//       Tensor* y;
//       MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
//       y->flat<float>().device(ctx->eigen_device()) = -x.flat<float>();
//       return absl::OkStatus();
//     }
//   };
//
// The executor adds the node's name to any error a kernel returns.

#ifndef MINIGRAPH_RUNTIME_ENGINE_OP_KERNEL_H_
#define MINIGRAPH_RUNTIME_ENGINE_OP_KERNEL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "runtime/engine/rendezvous.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/engine/step_stats.h"
#include "runtime/engine/variable.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/node_def_util.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace minigraph {

// What flows along one edge in a step: a tensor, or a reference to a
// variable (from VariableV2 to a Ref(T) input such as Assign's).
struct TensorValue {
  Tensor tensor;
  Var* ref = nullptr;  // Not owned; lives in the step's ResourceMgr.
  // On the untaken side of a Switch: consumers do not run (except Merge).
  bool dead = false;
};

class OpKernelConstruction {
 public:
  explicit OpKernelConstruction(const Node* node) : node_(node) {}
  const Node& node() const { return *node_; }
  const NodeDef& def() const { return node_->def(); }
  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(node_->def(), name, value);
  }
  DataType input_type(int i) const { return node_->input_type(i); }
  DataType output_type(int i) const { return node_->output_type(i); }
  int num_inputs() const { return node_->num_inputs(); }
  int num_outputs() const { return node_->num_outputs(); }

 private:
  const Node* node_;  // Not owned.
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* c)
      : node_(&c->node()), name_(c->def().name()), type_(c->def().op()) {}
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual absl::Status Compute(class OpKernelContext* ctx) const = 0;

  // True for a kernel that may wait on something outside the step (_Recv
  // waits for another executor or process): the executor runs it on a
  // thread of its own, so waiting never holds up the step's other nodes.
  virtual bool IsBlocking() const { return false; }

  const std::string& name() const { return name_; }
  const std::string& type_string() const { return type_; }
  const Node& node() const { return *node_; }

 private:
  const Node* node_;  // Not owned; the graph outlives its kernels.
  const std::string name_;
  const std::string type_;
};

// Per-step facilities every kernel may use.
struct StepContext {
  const Eigen::ThreadPoolDevice* device = nullptr;  // intra-op parallelism
  Env* env = nullptr;                               // files (checkpoints)
  ResourceMgr* resource_mgr = nullptr;
  // Resources that live for this step only (TensorFlow's per-step
  // container: TensorArrays). Functions the step calls share it. The
  // executor makes one for a step whose caller gives none.
  ResourceMgr* step_resources = nullptr;
  Allocator* allocator = nullptr;
  int64_t step_id = 0;
  const std::atomic<bool>* cancelled = nullptr;
  // Past it the step fails with DeadlineExceeded (InfiniteFuture: none).
  // Kernels that loop (While) check it.
  absl::Time deadline = absl::InfiniteFuture();
  // Where _Send and _Recv meet; null in a step without them.
  Rendezvous* rendezvous = nullptr;
  // Set in a traced step: every node's run is recorded here.
  StepStatsCollector* stats = nullptr;
};

// The inputs and outputs of one kernel call. Not thread-safe; one per call.
class OpKernelContext {
 public:
  // `inputs` has one value per node input (refs already resolved to tensors
  // where the input is not a Ref(T)); `outputs` one slot per node output.
  OpKernelContext(const OpKernel* kernel, const StepContext* step, TensorValue* inputs,
                  TensorValue* outputs)
      : kernel_(kernel), step_(step), inputs_(inputs), outputs_(outputs) {}
  // For work within a step's facilities but outside any kernel call (the
  // threads of a tf.data iterator): it has no kernel, inputs or outputs.
  explicit OpKernelContext(const StepContext* step)
      : kernel_(nullptr), step_(step), inputs_(nullptr), outputs_(nullptr) {}

  int num_inputs() const { return kernel_->node().num_inputs(); }
  int num_outputs() const { return kernel_->node().num_outputs(); }
  const Tensor& input(int i) const { return inputs_[i].tensor; }
  // Only a _Send sees a dead input (executor_plan.h): its tensor is empty.
  bool input_dead(int i) const { return inputs_[i].dead; }
  // Moves input `i` into `out` when no one else holds its buffer (so the
  // kernel may keep or modify it); returns false, leaving the input alone,
  // otherwise.
  bool forward_input(int i, Tensor* out) {
    if (!inputs_[i].tensor.RefCountIsOne()) return false;
    *out = std::move(inputs_[i].tensor);
    return true;
  }
  // The variable behind a Ref(T) input.
  Var* input_ref(int i) const { return inputs_[i].ref; }
  // The variable behind input `i`: a Ref(T) input's, or the one the
  // resource handle in it names (LookupVar's FailedPrecondition when there
  // is none).
  absl::StatusOr<Var*> input_var(int i) const;
  // A snapshot of the value of input_var(i) (later updates copy first):
  // FailedPrecondition as LookupVar when it has no value, InvalidArgument
  // when its dtype is not `dtype`.
  absl::StatusOr<Tensor> read_variable(int i, DataType dtype) const;
  // The error for input_var(i) having no value, in TensorFlow's text for
  // its kind: "Attempting to use uninitialized value NAME" for a Ref(T)
  // input, LookupVar's "Could not find variable NAME ..." for a handle.
  absl::Status uninitialized_error(int i, const Var& v) const;
  DataType input_dtype(int i) const { return kernel_->node().input_type(i); }
  DataType expected_output_dtype(int i) const { return kernel_->node().output_type(i); }

  // Allocates output `i` with its expected dtype.
  absl::Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // As TensorFlow's: output `output` of `shape` in the buffer of the first
  // of `inputs` that no one else holds and that has the output's dtype and
  // as many elements, else newly allocated. For element-wise kernels, which
  // may then write out[j] after reading in[j] (the input's Tensor stays
  // valid until Compute returns): the output reuses memory that is warm in
  // cache, and a step allocates less.
  absl::Status forward_input_or_allocate_output(std::initializer_list<int> inputs, int output,
                                                const TensorShape& shape, Tensor** out);
  void set_output(int i, Tensor t) { outputs_[i].tensor = std::move(t); }
  void set_output_ref(int i, Var* v) { outputs_[i].ref = v; }
  // Marks output `i` as not taken (Switch): its consumers are skipped.
  void set_output_dead(int i) { outputs_[i].dead = true; }
  // Allocates a temporary (not an output).
  absl::StatusOr<Tensor> allocate_temp(DataType dtype, const TensorShape& shape) const {
    return Tensor::Create(dtype, shape, step_->allocator);
  }

  const Eigen::ThreadPoolDevice& eigen_device() const { return *step_->device; }
  // Runs fn(begin, end) over [0, n), split across the step's intra-op
  // threads by Eigen's cost model (the costs are per index). For kernels
  // written without Eigen expressions, which then need not parse Eigen.
  void ParallelFor(int64_t n, double bytes_loaded, double bytes_stored, double cycles,
                   const std::function<void(int64_t, int64_t)>& fn) const;
  // The number of threads ParallelFor may use (1 without a pool).
  int intra_op_threads() const;
  ResourceMgr* resource_manager() const { return step_->resource_mgr; }
  ResourceMgr* step_resources() const { return step_->step_resources; }
  Env* env() const { return step_->env != nullptr ? step_->env : Env::Default(); }
  int64_t step_id() const { return step_->step_id; }
  Rendezvous* rendezvous() const { return step_->rendezvous; }
  const std::atomic<bool>* cancelled_flag() const { return step_->cancelled; }
  bool cancelled() const { return step_->cancelled != nullptr && step_->cancelled->load(); }
  const OpKernel& kernel() const { return *kernel_; }
  // The step's facilities, for a kernel that runs a graph of its own (a
  // function call) within this step.
  const StepContext& step_context() const { return *step_; }

 private:
  const OpKernel* kernel_;
  const StepContext* step_;
  TensorValue* inputs_;
  TensorValue* outputs_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_OP_KERNEL_H_

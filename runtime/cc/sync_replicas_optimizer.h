// TensorFlow 1's SyncReplicasOptimizer as a graph builder: synchronous
// data-parallel training, so no worker trains on stale weights.
//
// Each worker's step applies its gradients to one ConditionalAccumulator per
// variable (on the variable's device, shared by name) and then waits for a
// token from the token queue (on the global step's device). The chief runs
// one more thread (chief_queue_runner()): it takes the mean of
// `replicas_to_aggregate` gradients from every accumulator (gradients older
// than the global step are dropped), applies them with the wrapped optimizer,
// increments the global step and puts max(total_num_replicas,
// replicas_to_aggregate) tokens in the queue, one per worker step the update
// allows.
//
//   SyncReplicasOptimizer sync(&sgd, /*replicas_to_aggregate=*/2);
//   MG_ASSIGN_OR_RETURN(Operation train, sync.Minimize(root, loss, {}, step));
//   MG_ASSIGN_OR_RETURN(SyncReplicasHookOps hook, sync.HookOps(root, is_chief));
//   // hook: SyncReplicasHook (session/basic_session_run_hooks.h) runs it
//
// Names, devices and order follow tensorflow/python/training/
// sync_replicas_optimizer.py (its accumulators are the resource kind, as
// TensorFlow 2 builds them); a TensorFlow-built graph of it trains on
// minigraph (tests/tf_interop/sync_replicas_interop_test.py). Dense
// gradients only (minigraph's gradients are dense).
//
// Like Scope's, not thread-safe: build on one thread; an object builds
// into one graph.

#ifndef MINIGRAPH_RUNTIME_CC_SYNC_REPLICAS_OPTIMIZER_H_
#define MINIGRAPH_RUNTIME_CC_SYNC_REPLICAS_OPTIMIZER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/queue_runner.pb.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/scope.h"
#include "runtime/cc/variables.h"

namespace minigraph {

// What a replica's session runs once it is made (TensorFlow's
// _SyncReplicasOptimizerHook), by name.
struct SyncReplicasHookOps {
  // Must report nothing before local_init_op runs: the global variables'
  // uninitialized names ("node:0").
  std::string ready_for_local_init_op;
  // The chief's chief_init_op (its local step, the accumulators' global
  // step), or a worker's local_step_init_op.
  std::string local_init_op;
  // The chief's: the first tokens, and the queue runner it starts. Empty
  // for a worker.
  std::string init_tokens_op;
  std::vector<QueueRunnerDef> queue_runners;
};

class SyncReplicasOptimizer {
 public:
  // `opt` (not owned; must outlive the build) computes and applies the
  // gradients. `total_num_replicas` 0 means `replicas_to_aggregate`.
  SyncReplicasOptimizer(Optimizer* opt, int replicas_to_aggregate, int total_num_replicas = 0,
                        std::string name = "sync_replicas");

  // The wrapped optimizer's gradients, then ApplyGradients.
  absl::StatusOr<Operation> Minimize(const Scope& scope, Output loss,
                                     std::vector<Variable> var_list, const Variable& global_step);
  // Builds the accumulators, the chief's update, the token queue and the
  // local step; returns the replicas' train op (a token dequeued into the
  // local step, after the gradients went to the accumulators).
  // InvalidArgument "Must supply at least one variable" for none, or when
  // called twice; the builder's errors.
  absl::StatusOr<Operation> ApplyGradients(
      const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
      const Variable& global_step);

  // After ApplyGradients (FailedPrecondition before): the ops a replica's
  // session runs, building the chief's init tokens op (`num_tokens`, -1:
  // replicas_to_aggregate; InvalidArgument "Too few tokens to finish the
  // first step: ..." below replicas_to_aggregate - total_num_replicas).
  absl::StatusOr<SyncReplicasHookOps> HookOps(const Scope& scope, bool is_chief,
                                              int num_tokens = -1);

  int replicas_to_aggregate() const { return replicas_to_aggregate_; }
  int total_num_replicas() const { return total_num_replicas_; }

 private:
  Optimizer* const opt_;
  const int replicas_to_aggregate_;
  const int total_num_replicas_;
  const std::string name_;
  bool applied_ = false;
  Variable global_step_;
  std::string global_step_device_;
  Output token_queue_;
  Operation local_step_init_op_, chief_init_op_;
  Output ready_for_local_init_op_;
  QueueRunnerDef chief_queue_runner_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_SYNC_REPLICAS_OPTIMIZER_H_

#include "runtime/cc/sync_replicas_optimizer.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer* opt, int replicas_to_aggregate,
                                             int total_num_replicas, std::string name)
    : opt_(opt),
      replicas_to_aggregate_(replicas_to_aggregate),
      total_num_replicas_(total_num_replicas > 0 ? total_num_replicas : replicas_to_aggregate),
      name_(std::move(name)) {}

absl::StatusOr<Operation> SyncReplicasOptimizer::Minimize(const Scope& scope, Output loss,
                                                          std::vector<Variable> var_list,
                                                          const Variable& global_step) {
  MG_ASSIGN_OR_RETURN(auto grads_and_vars,
                      opt_->ComputeGradients(scope, loss, std::move(var_list)));
  return ApplyGradients(scope, grads_and_vars, global_step);
}

absl::StatusOr<Operation> SyncReplicasOptimizer::ApplyGradients(
    const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
    const Variable& global_step) {
  MG_RETURN_IF_ERROR(scope.status());
  if (grads_and_vars.empty()) {
    return absl::InvalidArgumentError("Must supply at least one variable");
  }
  if (applied_) {
    return absl::InvalidArgumentError(
        "SyncReplicasOptimizer::ApplyGradients was called twice: one object builds one graph");
  }
  if (replicas_to_aggregate_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replicas_to_aggregate must be at least 1, got ", replicas_to_aggregate_));
  }
  applied_ = true;
  global_step_ = global_step;
  global_step_device_ = scope.GetNodeDef(global_step.ref().op()).device();
  const DataType step_dtype = BaseType(global_step.value().dtype());
  if (step_dtype != DT_INT64 && step_dtype != DT_INT32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the global step ", global_step.name(), " is ", DataTypeString(step_dtype),
        "; SyncReplicasOptimizer needs an int64 or int32 one"));
  }

  // The local step lives with the replica (next to a no-op the device
  // function places), not on a ps with the model.
  Operation anchor = ops::NoOp(scope);
  const Scope here = scope.WithDevice(scope.GetNodeDef(anchor).device());
  Variable local_step = Variable::Create(
      here, "sync_rep_local_step",
      step_dtype == DT_INT64 ? Tensor::Scalar<int64_t>(0) : Tensor::Scalar<int32_t>(0),
      {.trainable = false, .collections = {kLocalVariables}});
  local_step_init_op_ = ops::Assign(here, local_step.ref(), global_step.value()).op();
  // The accumulators count steps in int64.
  auto as_int64 = [&](const Scope& at, Output step) {
    return step_dtype == DT_INT64 ? step : ops::Cast(at, step, DT_INT64);
  };
  ready_for_local_init_op_ = ReportUninitializedVariables(scope, GlobalVariables(scope));

  const Scope s = scope.NewSubScope(name_);
  std::vector<Operation> applies;
  std::vector<std::pair<Output, Variable>> aggregated;
  std::vector<std::pair<Output, std::string>> accumulators;  // and their devices
  for (const auto& [grad, var] : grads_and_vars) {
    const std::string device = scope.GetNodeDef(var.ref().op()).device();
    const Scope on_var = s.WithDevice(device);
    AttrValue shape;
    var.value().shape().AsProto(shape.mutable_shape());
    const DataType dtype = BaseType(grad.dtype());
    Output accum = on_var.WithOpName("conditional_accumulator")
                       .AddOp("ResourceConditionalAccumulator", {},
                              {{"dtype", MakeAttrValue(dtype)},
                               {"shape", shape},
                               {"shared_name", MakeAttrValue(var.name() + ":0/grad_accum")},
                               {"reduction_type", MakeAttrValue(std::string("MEAN"))}})
                       .output(0);
    applies.push_back(on_var.WithOpName("AccumulatorApplyGradient")
                          .AddOp("ResourceAccumulatorApplyGradient",
                                 {{accum}, {as_int64(on_var, local_step.value())}, {grad}},
                                 {{"dtype", MakeAttrValue(dtype)}}));
    Output mean = on_var.WithOpName("AccumulatorTakeGradient")
                      .AddOp("ResourceAccumulatorTakeGradient",
                             {{accum}, {ops::Const<int32_t>(on_var, replicas_to_aggregate_)}},
                             {{"dtype", MakeAttrValue(dtype)}})
                      .output(0);
    aggregated.emplace_back(mean, var);
    accumulators.emplace_back(accum, device);
  }
  MG_RETURN_IF_ERROR(scope.status());
  MG_ASSIGN_OR_RETURN(Operation update, opt_->ApplyGradients(scope, aggregated, &global_step));

  const Scope on_step = scope.WithDevice(global_step_device_);
  token_queue_ = on_step.WithOpName("sync_token_q")
                     .AddOp("FIFOQueueV2", {},
                            {{"component_types", MakeAttrValue(std::vector<DataType>{step_dtype})},
                             {"shapes", [] {
                                AttrValue shapes;
                                PartialShape::Scalar().AsProto(shapes.mutable_list()->add_shape());
                                return shapes;
                              }()},
                             {"capacity", MakeAttrValue(-1)},
                             {"shared_name", MakeAttrValue(std::string("sync_token_q"))}})
                     .output(0);
  Output token = on_step.WithOpName("sync_token_q_Dequeue")
                     .WithControlDependencies(applies)
                     .AddOp("QueueDequeueV2", {{token_queue_}},
                            {{"component_types", MakeAttrValue(std::vector<DataType>{step_dtype})}})
                     .output(0);
  Output train = ops::Assign(here, local_step.ref(), token);
  const Scope after_update = on_step.WithControlDependencies({update});
  const int tokens_per_step = std::max(total_num_replicas_, replicas_to_aggregate_);
  // The step the update made, read after it: TensorFlow fills from the
  // variable's snapshot, which aliases the variable's buffer there; here a
  // read taken before the increment keeps its value, and tokens of the old
  // step would make every replica's next gradient stale.
  Output new_step = ops::Identity(after_update, global_step.ref());
  Output tokens = ops::Fill(after_update,
                            ops::Const(after_update, Tensor::Vector<int32_t>({tokens_per_step})),
                            new_step);
  Operation sync = after_update.WithOpName("sync_token_q_EnqueueMany")
                       .AddOp("QueueEnqueueManyV2", {{token_queue_}, {tokens}});
  Operation close = on_step.WithOpName("sync_token_q_Close")
                        .AddOp("QueueCloseV2", {{token_queue_}});
  Operation cancel = on_step.WithOpName("sync_token_q_Close_1")
                         .AddOp("QueueCloseV2", {{token_queue_}},
                                {{"cancel_pending_enqueues", MakeAttrValue(true)}});
  chief_queue_runner_.set_queue_name(token_queue_.op().name());
  chief_queue_runner_.add_enqueue_op_name(sync.name());
  chief_queue_runner_.set_close_op_name(close.name());
  chief_queue_runner_.set_cancel_op_name(cancel.name());

  std::vector<Operation> chief_init = {local_step_init_op_};
  for (const auto& [accum, device] : accumulators) {
    chief_init.push_back(scope.WithDevice(device)
                             .WithOpName("SetGlobalStep")
                             .AddOp("ResourceAccumulatorSetGlobalStep",
                                    {{accum}, {as_int64(scope.WithDevice(device),
                                                        global_step.value())}}));
  }
  chief_init_op_ = ops::Group(scope, chief_init);
  MG_RETURN_IF_ERROR(scope.status());
  return train.op();
}

absl::StatusOr<SyncReplicasHookOps> SyncReplicasOptimizer::HookOps(const Scope& scope,
                                                                   bool is_chief,
                                                                   int num_tokens) {
  if (!applied_) {
    return absl::FailedPreconditionError(
        "SyncReplicasOptimizer::HookOps must be called after ApplyGradients");
  }
  SyncReplicasHookOps hook;
  hook.ready_for_local_init_op = ready_for_local_init_op_.tensor_name();
  if (!is_chief) {
    hook.local_init_op = local_step_init_op_.name();
    return hook;
  }
  hook.local_init_op = chief_init_op_.name();
  const int needed = replicas_to_aggregate_ - total_num_replicas_;
  if (num_tokens == -1) {
    num_tokens = replicas_to_aggregate_;
  } else if (num_tokens < needed) {
    return absl::InvalidArgumentError(
        absl::StrCat("Too few tokens to finish the first step: ", num_tokens, " (given) vs ",
                     needed, " (needed)"));
  }
  const Scope on_step = scope.WithDevice(global_step_device_);
  if (num_tokens > 0) {
    Output tokens = ops::Fill(on_step, ops::Const(on_step, Tensor::Vector<int32_t>({num_tokens})),
                              global_step_.value());
    hook.init_tokens_op = on_step.WithOpName("sync_token_q_EnqueueMany")
                              .AddOp("QueueEnqueueManyV2", {{token_queue_}, {tokens}})
                              .name();
  } else {
    hook.init_tokens_op = ops::NoOp(on_step.WithOpName("no_init_tokens")).name();
  }
  hook.queue_runners = {chief_queue_runner_};
  MG_RETURN_IF_ERROR(scope.status());
  return hook;
}

}  // namespace minigraph

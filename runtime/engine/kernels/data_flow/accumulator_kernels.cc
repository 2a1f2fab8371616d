// TensorFlow 1's ConditionalAccumulator (ref and resource forms), what
// SyncReplicasOptimizer aggregates its workers' gradients in: gradients
// applied with a step older than the accumulator's are dropped (stale), the
// others summed; a take waits until `num_required` were summed, returns
// their mean (or sum), resets the sum and moves the accumulator's step on.
// After TensorFlow's conditional_accumulator_base.cc, for the dtypes
// TensorFlow registers (float, double, half).
#include <algorithm>
#include <atomic>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "Eigen/Core"  // half
#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/resource_handles.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr char kAccumulatorTypeName[] = "N10tensorflow26ConditionalAccumulatorBaseE";

class Accumulator : public Resource {
 public:
  Accumulator(DataType dtype, PartialShape shape, std::string name, bool mean)
      : dtype_(dtype), shape_(std::move(shape)), name_(std::move(name)), mean_(mean) {}
  std::string TypeName() const override { return "ConditionalAccumulator"; }
  DataType dtype() const { return dtype_; }

  // Sums `grad` unless `local_step` is older than the accumulator's step.
  template <typename T>
  absl::Status Apply(int64_t local_step, const Tensor& grad) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (local_step < global_step_) return absl::OkStatus();  // stale: dropped
    if (counter_ > 0 && sum_.shape() != grad.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected ",
                                                     sum_.shape().DebugString(), ", got ",
                                                     grad.shape().DebugString()));
    }
    if (!shape_.IsCompatibleWith(grad.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch: expected ", shape_.DebugString(), ", got ", grad.shape().DebugString()));
    }
    if (counter_ == 0) {
      sum_ = Tensor(dtype_, grad.shape());
      std::copy(grad.data<T>(), grad.data<T>() + grad.NumElements(), sum_.data<T>());
    } else {
      T* s = sum_.data<T>();
      const T* g = grad.data<T>();
      for (int64_t i = 0; i < grad.NumElements(); ++i) s[i] = s[i] + g[i];
    }
    ++counter_;
    return absl::OkStatus();
  }

  // Waits until `num_required` gradients were summed (or `cancelled`, or
  // `deadline`); returns their mean or sum.
  template <typename T>
  absl::StatusOr<Tensor> Take(int64_t num_required, const std::atomic<bool>* cancelled,
                              absl::Time deadline) ABSL_LOCKS_EXCLUDED(mu_) {
    if (num_required <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Argument num_required must be positive, but was ", num_required));
    }
    absl::MutexLock l(&mu_);
    // Takes are served in arrival order, as TensorFlow's.
    TakeWait wait{this, next_ticket_++, num_required};
    const int64_t ticket = wait.ticket;
    while (!Ready(&wait)) {
      const absl::Time now = absl::Now();
      if ((cancelled != nullptr && cancelled->load()) || now >= deadline) {
        if (serving_ == ticket) ++serving_;
        abandoned_.push_back(ticket);
        SkipAbandonedLocked();
        return cancelled != nullptr && cancelled->load()
                   ? absl::CancelledError("TakeGrad operation was cancelled")
                   : absl::DeadlineExceededError(
                         absl::StrCat("TakeGrad from ConditionalAccumulator '", name_,
                                      "' passed its step's deadline"));
      }
      // The step's cancellation notifies no one: looked at every 50 ms.
      mu_.AwaitWithDeadline(absl::Condition(&Ready, &wait),
                            std::min(deadline, now + absl::Milliseconds(50)));
    }
    ++global_step_;
    Tensor out = sum_;
    if (mean_) {
      T* s = out.data<T>();
      const T n = static_cast<T>(counter_);
      for (int64_t i = 0; i < out.NumElements(); ++i) s[i] = s[i] / n;
    }
    counter_ = 0;
    sum_ = Tensor();
    ++serving_;
    SkipAbandonedLocked();
    return out;
  }

  void SetGlobalStep(int64_t step) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (step < global_step_) {
      MG_LOG(WARNING) << "Attempt to set current_global_step_ to smaller value: "
                      << "current_global_step_ = " << global_step_ << " >= " << step
                      << " = new_global_step.";
    }
    global_step_ = step;
  }
  int32_t num_accumulated() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return static_cast<int32_t>(counter_);
  }
 private:
  // A take waiting for its turn and enough gradients.
  struct TakeWait {
    const Accumulator* self;
    int64_t ticket;
    int64_t num_required;
  };
  // (Called by the Mutex with mu_ held.)
  static bool Ready(TakeWait* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return w->self->serving_ == w->ticket && w->self->counter_ >= w->num_required;
  }

  void SkipAbandonedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (bool skipped = true; skipped;) {
      skipped = false;
      for (auto it = abandoned_.begin(); it != abandoned_.end(); ++it) {
        if (*it == serving_) {
          ++serving_;
          abandoned_.erase(it);
          skipped = true;
          break;
        }
      }
    }
  }

  const DataType dtype_;
  const PartialShape shape_;
  const std::string name_;
  const bool mean_;
  mutable absl::Mutex mu_;
  int64_t global_step_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t counter_ ABSL_GUARDED_BY(mu_) = 0;
  Tensor sum_ ABSL_GUARDED_BY(mu_);
  int64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t serving_ ABSL_GUARDED_BY(mu_) = 0;
  std::list<int64_t> abandoned_ ABSL_GUARDED_BY(mu_);
};

// ConditionalAccumulator (a reference handle) and
// ResourceConditionalAccumulator.
class AccumulatorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("shape", &shape_));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    std::string reduction = "MEAN";
    if (c->def().attr().count("reduction_type")) {
      MG_RETURN_IF_ERROR(c->GetAttr("reduction_type", &reduction));
    }
    if (reduction != "MEAN" && reduction != "SUM") {
      return absl::InvalidArgumentError(absl::StrCat(c->def().op(), " '", c->def().name(),
                                                     "': reduction_type '", reduction,
                                                     "' is not MEAN or SUM"));
    }
    mean_ = reduction == "MEAN";
    if (name_.empty()) name_ = c->def().name();
    if (c->def().op() == "ConditionalAccumulator") {
      ref_handle_ = RefHandle(container_, name_, c->def().name());
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                        ctx->resource_manager()->LookupOrCreateResource(container_, name_, [&] {
                          return std::make_unique<Accumulator>(dtype_, shape_, name_, mean_);
                        }));
    if (dynamic_cast<Accumulator*>(r.get()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource ", name_, " exists and is not an accumulator but a ", r->TypeName()));
    }
    SetHandleOutput(ctx, ref_handle_.get(), container_, name_, kAccumulatorTypeName);
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape shape_;
  std::string container_, name_;
  bool mean_ = true;
  std::unique_ptr<Var> ref_handle_;
};

// The accumulator input 0 names, with this node's dtype attr (if any)
// checked against it.
absl::StatusOr<Accumulator*> AccumulatorOf(OpKernelContext* ctx, std::shared_ptr<Resource>* hold,
                                           DataType dtype) {
  MG_ASSIGN_OR_RETURN(Accumulator * acc,
                      ResourceFromInput<Accumulator>(ctx, 0, kAccumulatorTypeName, hold));
  if (dtype != DT_INVALID && dtype != acc->dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx->kernel().type_string(), ": the accumulator ", ctx->kernel().node().def().input(0),
        " holds ",
        DataTypeString(acc->dtype()), ", this node's dtype is ", DataTypeString(dtype)));
  }
  return acc;
}

absl::StatusOr<int64_t> ScalarInput(const OpKernelContext* ctx, int i, absl::string_view what) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  return t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[0]} : t.data<int64_t>()[0];
}

template <typename T>
class ApplyGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold, DataTypeToEnum<T>::value));
    MG_ASSIGN_OR_RETURN(int64_t local_step, ScalarInput(ctx, 1, "local_step"));
    return acc->Apply<T>(local_step, ctx->input(2));
  }
};

template <typename T>
class TakeGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold, DataTypeToEnum<T>::value));
    MG_ASSIGN_OR_RETURN(int64_t n, ScalarInput(ctx, 1, "num_required"));
    MG_ASSIGN_OR_RETURN(Tensor out, acc->Take<T>(n, ctx->cancelled_flag(),
                                                 ctx->step_context().deadline));
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }
};

// AccumulatorNumAccumulated and AccumulatorSetGlobalStep (and Resource*).
class AccumulatorStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold, DT_INVALID));
    if (absl::EndsWith(type_string(), "NumAccumulated")) {
      ctx->set_output(0, Tensor::Scalar<int32_t>(acc->num_accumulated()));
      return absl::OkStatus();
    }
    MG_ASSIGN_OR_RETURN(int64_t step, ScalarInput(ctx, 1, "new_global_step"));
    acc->SetGlobalStep(step);
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterAccumulatorKernels(KernelRegistry* r) {
  // The accumulators of the dtypes TensorFlow's kernels take.
  KernelFactory make = [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dt));
    if (dt != DT_FLOAT && dt != DT_DOUBLE && dt != DT_HALF) return NoKernelForType(c, dt);
    return MakeFactory<AccumulatorOp>()(c);
  };
  for (const char* op : {"ConditionalAccumulator", "ResourceConditionalAccumulator"}) {
    r->Register(op, make);
  }
  for (const char* op : {"AccumulatorApplyGradient", "ResourceAccumulatorApplyGradient"}) {
    r->Register(op, TypedFactory<ApplyGradientOp, float, double, half>("dtype"));
  }
  for (const char* op : {"AccumulatorTakeGradient", "ResourceAccumulatorTakeGradient"}) {
    r->Register(op, TypedFactory<TakeGradientOp, float, double, half>("dtype"));
  }
  for (const char* op : {"AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated",
                         "AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep"}) {
    r->Register(op, MakeFactory<AccumulatorStateOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

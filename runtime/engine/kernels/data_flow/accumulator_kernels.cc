// TensorFlow 1's ConditionalAccumulator and SparseConditionalAccumulator
// (ref and resource forms), what SyncReplicasOptimizer aggregates its
// workers' gradients in: gradients applied with a step older than the
// accumulator's are dropped (stale), the others summed; a take waits until
// `num_required` were summed, returns their mean (or sum), and moves the
// accumulator's step on. A sparse accumulator sums IndexedSlices (indices,
// values, dense shape) row by row, and its mean divides each row by the
// number of gradients that had it. After TensorFlow's
// conditional_accumulator_base.cc and sparse_conditional_accumulator.h, for
// the dtypes TensorFlow registers (float, double, half).
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

// What both kinds share: the step, the count, and takes served in arrival
// order. A kind sums a gradient (AddLocked, its inputs read from the
// kernel's context) and sets a take's outputs (TakeLocked).
class Accumulator : public Resource {
 public:
  Accumulator(DataType dtype, PartialShape shape, std::string name, bool mean, bool sparse)
      : dtype_(dtype), shape_(std::move(shape)), name_(std::move(name)), mean_(mean),
        sparse_(sparse) {}
  std::string TypeName() const override {
    return sparse_ ? "SparseConditionalAccumulator" : "ConditionalAccumulator";
  }
  DataType dtype() const { return dtype_; }
  bool sparse() const { return sparse_; }

  // Sums the gradient `ctx` applies unless `local_step` is older than the
  // accumulator's step.
  absl::Status Apply(OpKernelContext* ctx, int64_t local_step) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (local_step < global_step_) return absl::OkStatus();  // stale: dropped
    MG_RETURN_IF_ERROR(AddLocked(ctx, counter_ == 0));
    ++counter_;
    return absl::OkStatus();
  }

  // Waits until `num_required` gradients were summed (or the step is
  // cancelled or passes its deadline); sets `ctx`'s outputs to their mean
  // or sum.
  absl::Status Take(OpKernelContext* ctx, int64_t num_required) ABSL_LOCKS_EXCLUDED(mu_) {
    if (num_required <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Argument num_required must be positive, but was ", num_required));
    }
    const std::atomic<bool>* cancelled = ctx->cancelled_flag();
    const absl::Time deadline = ctx->step_context().deadline;
    absl::MutexLock l(&mu_);
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
                   : absl::DeadlineExceededError(absl::StrCat("TakeGrad from ", TypeName(), " '",
                                                              name_,
                                                              "' passed its step's deadline"));
      }
      // The step's cancellation notifies no one: looked at every 50 ms.
      mu_.AwaitWithDeadline(absl::Condition(&Ready, &wait),
                            std::min(deadline, now + absl::Milliseconds(50)));
    }
    ++global_step_;
    absl::Status taken = TakeLocked(ctx);
    counter_ = 0;
    ++serving_;
    SkipAbandonedLocked();
    return taken;
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

 protected:
  // Sums the gradient ctx's inputs hold (the first since the last take when
  // `first`); a gradient of the wrong shape is InvalidArgument, the sum as
  // it was.
  virtual absl::Status AddLocked(OpKernelContext* ctx, bool first)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;
  // Sets ctx's outputs to the sum (divided when mean_).
  virtual absl::Status TakeLocked(OpKernelContext* ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) = 0;

  const DataType dtype_;
  const PartialShape shape_;
  const std::string name_;
  const bool mean_;
  mutable absl::Mutex mu_;
  int64_t counter_ ABSL_GUARDED_BY(mu_) = 0;

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

  const bool sparse_;
  int64_t global_step_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t serving_ ABSL_GUARDED_BY(mu_) = 0;
  std::list<int64_t> abandoned_ ABSL_GUARDED_BY(mu_);
};

// Dense gradients: input 2 of (Resource)AccumulatorApplyGradient.
template <typename T>
class DenseAccumulator : public Accumulator {
 public:
  DenseAccumulator(PartialShape shape, std::string name, bool mean)
      : Accumulator(DataTypeToEnum<T>::value, std::move(shape), std::move(name), mean, false) {}

 protected:
  absl::Status AddLocked(OpKernelContext* ctx, bool first) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const Tensor& grad = ctx->input(2);
    if (!first && sum_.shape() != grad.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected ",
                                                     sum_.shape().DebugString(), ", got ",
                                                     grad.shape().DebugString()));
    }
    if (!shape_.IsCompatibleWith(grad.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch: expected ", shape_.DebugString(), ", got ", grad.shape().DebugString()));
    }
    if (first) {
      sum_ = Tensor(dtype_, grad.shape());
      std::copy(grad.data<T>(), grad.data<T>() + grad.NumElements(), sum_.data<T>());
    } else {
      T* s = sum_.data<T>();
      const T* g = grad.data<T>();
      for (int64_t i = 0; i < grad.NumElements(); ++i) s[i] = s[i] + g[i];
    }
    return absl::OkStatus();
  }

  absl::Status TakeLocked(OpKernelContext* ctx) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Tensor out = std::move(sum_);
    if (mean_) {
      T* s = out.data<T>();
      const T n = static_cast<T>(counter_);
      for (int64_t i = 0; i < out.NumElements(); ++i) s[i] = s[i] / n;
    }
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  Tensor sum_ ABSL_GUARDED_BY(mu_);
};

// IndexedSlices: SparseAccumulatorApplyGradient's indices (2), values (3)
// and, with has_known_shape, dense shape (4). The sum keeps TensorFlow's
// order: the first gradient's rows as given, later ones merged in the way
// TensorFlow's merge of sorted indices walks them (rows with equal indices
// met at the same place are added; the result is TensorFlow's for unsorted
// indices too).
template <typename T>
class SparseAccumulator : public Accumulator {
 public:
  SparseAccumulator(PartialShape shape, std::string name, bool mean)
      : Accumulator(DataTypeToEnum<T>::value, std::move(shape), std::move(name), mean, true) {}

 protected:
  absl::Status AddLocked(OpKernelContext* ctx, bool first) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const Tensor& indices = ctx->input(2);
    const Tensor& values = ctx->input(3);
    bool has_known_shape = false;
    MG_RETURN_IF_ERROR(GetNodeAttr(ctx->kernel().node().def(), "has_known_shape",
                                   &has_known_shape));
    MG_RETURN_IF_ERROR(Validate(indices, values, has_known_shape ? &ctx->input(4) : nullptr,
                                first));
    const int64_t nnz = indices.NumElements();
    const int64_t row = nnz == 0 ? 0 : values.NumElements() / nnz;
    const int64_t* idx = indices.data<int64_t>();
    const T* val = values.data<T>();
    if (first) {
      indices_.assign(idx, idx + nnz);
      counts_.assign(nnz, 1);
      sum_ = Tensor(dtype_, values.shape());
      std::copy(val, val + values.NumElements(), sum_.data<T>());
      return absl::OkStatus();
    }
    // A merge of the two index lists, as TensorFlow's sparse add walks them.
    std::vector<int64_t> merged;
    std::vector<int> counts;
    std::vector<std::pair<int64_t, int64_t>> from;  // (row of the sum, row of grad); -1: none
    const int64_t have = static_cast<int64_t>(indices_.size());
    int64_t i = 0, j = 0;
    while (i < have || j < nnz) {
      if (j >= nnz || (i < have && indices_[i] < idx[j])) {
        merged.push_back(indices_[i]);
        counts.push_back(counts_[i]);
        from.emplace_back(i++, -1);
      } else if (i >= have || idx[j] < indices_[i]) {
        merged.push_back(idx[j]);
        counts.push_back(1);
        from.emplace_back(-1, j++);
      } else {
        merged.push_back(indices_[i]);
        counts.push_back(counts_[i] + 1);
        from.emplace_back(i++, j++);
      }
    }
    std::vector<int64_t> dims(values.shape().dim_sizes().begin(),
                              values.shape().dim_sizes().end());
    dims[0] = static_cast<int64_t>(merged.size());
    Tensor sum(dtype_, TensorShape(absl::MakeConstSpan(dims)));
    T* out = sum.data<T>();
    const T* old = sum_.data<T>();
    for (size_t r = 0; r < from.size(); ++r) {
      const auto [a, b] = from[r];
      for (int64_t k = 0; k < row; ++k) {
        const T x = a >= 0 ? old[a * row + k] : T(0);
        out[r * row + k] = b >= 0 ? (a >= 0 ? x + val[b * row + k] : val[b * row + k]) : x;
      }
    }
    indices_ = std::move(merged);
    counts_ = std::move(counts);
    sum_ = std::move(sum);
    return absl::OkStatus();
  }

  absl::Status TakeLocked(OpKernelContext* ctx) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const int64_t nnz = static_cast<int64_t>(indices_.size());
    Tensor values = sum_;
    if (mean_ && nnz > 0) {
      const int64_t row = values.NumElements() / nnz;
      T* v = values.data<T>();
      for (int64_t r = 0; r < nnz; ++r) {
        const T n = static_cast<T>(counts_[r]);
        for (int64_t k = 0; k < row; ++k) v[r * row + k] = v[r * row + k] / n;
      }
    }
    Tensor indices(DT_INT64, TensorShape({nnz}));
    std::copy(indices_.begin(), indices_.end(), indices.data<int64_t>());
    // The dense shape: the accumulator's first dimension (-1 unknown), the
    // values' others.
    Tensor shape(DT_INT64, TensorShape({values.dims()}));
    int64_t* dims = shape.data<int64_t>();
    for (int d = 0; d < values.dims(); ++d) dims[d] = values.dim_size(d);
    if (values.dims() > 0) dims[0] = shape_.rank() > 0 ? shape_.dim(0) : -1;
    ctx->set_output(0, std::move(indices));
    ctx->set_output(1, std::move(values));
    ctx->set_output(2, std::move(shape));
    return absl::OkStatus();
  }

 private:
  // TensorFlow's checks and texts (sparse_conditional_accumulator.h).
  absl::Status Validate(const Tensor& indices, const Tensor& values, const Tensor* dense_shape,
                        bool first) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (indices.dims() != 1 || indices.dtype() != DT_INT64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input indices should be vector but received shape: ", indices.shape().DebugString()));
    }
    const int64_t nnz = indices.dim_size(0);
    if (values.dims() == 0) return absl::InvalidArgumentError("Values cannot be 0-dimensional.");
    if (values.dim_size(0) != nnz) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected ", nnz, " non-empty input values, got ", values.dim_size(0)));
    }
    const int rank = std::max(0, shape_.rank());
    if (dense_shape != nullptr) {
      if (dense_shape->dtype() != DT_INT64 || rank > dense_shape->NumElements()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Shape mismatch: expected shape rank at least ", rank, ", got ",
                         dense_shape->NumElements()));
      }
      for (int d = 0; d < rank; ++d) {
        const int64_t got = dense_shape->data<int64_t>()[d];
        if (shape_.dim(d) != -1 && shape_.dim(d) != got) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Shape mismatch: expected shape dim ", d, " to be ", shape_.dim(d), ", got ", got));
        }
      }
    }
    if (rank > 0 && shape_.dim(0) != -1) {
      for (int64_t k = 0; k < nnz; ++k) {
        const int64_t index = indices.data<int64_t>()[k];
        if (index >= shape_.dim(0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Shape mismatch: index of slice ", k, " exceeded limits of shape; index is ", index,
              " exceeded ", shape_.dim(0)));
        }
      }
    }
    if (!first) {
      if (sum_.dims() != values.dims()) {
        return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values rank ",
                                                       sum_.dims(), ", got ", values.dims()));
      }
      for (int d = 1; d < values.dims(); ++d) {
        if (sum_.dim_size(d) != values.dim_size(d)) {
          return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values dim ", d,
                                                         " to be ", sum_.dim_size(d), ", got ",
                                                         values.dim_size(d)));
        }
      }
      return absl::OkStatus();
    }
    if (rank > values.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch: expected values rank at least ", rank, ", got ", values.dims()));
    }
    for (int d = 1; d < rank; ++d) {
      if (shape_.dim(d) != -1 && shape_.dim(d) != values.dim_size(d)) {
        return absl::InvalidArgumentError(absl::StrCat("Shape mismatch: expected values dim ", d,
                                                       " to be ", shape_.dim(d), ", got ",
                                                       values.dim_size(d)));
      }
    }
    return absl::OkStatus();
  }

  std::vector<int64_t> indices_ ABSL_GUARDED_BY(mu_);
  std::vector<int> counts_ ABSL_GUARDED_BY(mu_);
  Tensor sum_ ABSL_GUARDED_BY(mu_);
};

template <template <typename> class Kind>
std::unique_ptr<Accumulator> NewAccumulator(DataType dtype, const PartialShape& shape,
                                            const std::string& name, bool mean) {
  switch (dtype) {
    case DT_FLOAT: return std::make_unique<Kind<float>>(shape, name, mean);
    case DT_DOUBLE: return std::make_unique<Kind<double>>(shape, name, mean);
    default: return std::make_unique<Kind<half>>(shape, name, mean);
  }
}

// ConditionalAccumulator and SparseConditionalAccumulator (reference
// handles) and ResourceConditionalAccumulator.
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
    sparse_ = c->def().op() == "SparseConditionalAccumulator";
    if (name_.empty()) name_ = c->def().name();
    if (!absl::StartsWith(c->def().op(), "Resource")) {
      ref_handle_ = RefHandle(container_, name_, c->def().name());
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                        ctx->resource_manager()->LookupOrCreateResource(container_, name_, [&] {
                          return sparse_ ? NewAccumulator<SparseAccumulator>(dtype_, shape_,
                                                                             name_, mean_)
                                         : NewAccumulator<DenseAccumulator>(dtype_, shape_,
                                                                            name_, mean_);
                        }));
    auto* acc = dynamic_cast<Accumulator*>(r.get());
    if (acc == nullptr || acc->sparse() != sparse_) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " '", name(), "': resource ",
                                                     name_, " exists and is a ", r->TypeName()));
    }
    SetHandleOutput(ctx, ref_handle_.get(), container_, name_, kAccumulatorTypeName);
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape shape_;
  std::string container_, name_;
  bool mean_ = true;
  bool sparse_ = false;
  std::unique_ptr<Var> ref_handle_;
};

// The accumulator input 0 names, with this node's dtype attr (if any)
// checked against it, and its kind against the op's (Sparse* ops take
// sparse accumulators).
absl::StatusOr<Accumulator*> AccumulatorOf(OpKernelContext* ctx, std::shared_ptr<Resource>* hold) {
  MG_ASSIGN_OR_RETURN(Accumulator * acc,
                      ResourceFromInput<Accumulator>(ctx, 0, kAccumulatorTypeName, hold));
  const NodeDef& def = ctx->kernel().node().def();
  DataType dtype = DT_INVALID;
  if (def.attr().count("dtype") > 0) MG_RETURN_IF_ERROR(GetNodeAttr(def, "dtype", &dtype));
  if (dtype != DT_INVALID && dtype != acc->dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        def.op(), " '", def.name(), "': the accumulator ", def.input(0), " holds ",
        DataTypeString(acc->dtype()), ", this node's dtype is ", DataTypeString(dtype)));
  }
  const bool sparse_op = absl::StartsWith(def.op(), "Sparse");
  const bool kind_free = absl::EndsWith(def.op(), "NumAccumulated") ||
                         absl::EndsWith(def.op(), "SetGlobalStep");
  if (!kind_free && sparse_op != acc->sparse()) {
    return absl::InvalidArgumentError(absl::StrCat(def.op(), " '", def.name(),
                                                   "': the accumulator ", def.input(0), " is a ",
                                                   acc->TypeName()));
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

// (Resource)AccumulatorApplyGradient and SparseAccumulatorApplyGradient.
class ApplyGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold));
    MG_ASSIGN_OR_RETURN(int64_t local_step, ScalarInput(ctx, 1, "local_step"));
    return acc->Apply(ctx, local_step);
  }
};

// (Resource)AccumulatorTakeGradient and SparseAccumulatorTakeGradient.
class TakeGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold));
    MG_ASSIGN_OR_RETURN(int64_t n, ScalarInput(ctx, 1, "num_required"));
    return acc->Take(ctx, n);
  }
};

// AccumulatorNumAccumulated and AccumulatorSetGlobalStep (and Resource*),
// of either kind.
class AccumulatorStateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(Accumulator * acc, AccumulatorOf(ctx, &hold));
    if (absl::EndsWith(type_string(), "NumAccumulated")) {
      ctx->set_output(0, Tensor::Scalar<int32_t>(acc->num_accumulated()));
      return absl::OkStatus();
    }
    MG_ASSIGN_OR_RETURN(int64_t step, ScalarInput(ctx, 1, "new_global_step"));
    acc->SetGlobalStep(step);
    return absl::OkStatus();
  }
};

// Kernels of the dtypes TensorFlow registers them for (float, double, half).
template <typename Kernel>
KernelFactory ForAccumulatorDtypes() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dt));
    if (dt != DT_FLOAT && dt != DT_DOUBLE && dt != DT_HALF) return NoKernelForType(c, dt);
    return MakeFactory<Kernel>()(c);
  };
}

}  // namespace

void RegisterAccumulatorKernels(KernelRegistry* r) {
  for (const char* op : {"ConditionalAccumulator", "ResourceConditionalAccumulator",
                         "SparseConditionalAccumulator"}) {
    r->Register(op, ForAccumulatorDtypes<AccumulatorOp>());
  }
  for (const char* op : {"AccumulatorApplyGradient", "ResourceAccumulatorApplyGradient",
                         "SparseAccumulatorApplyGradient"}) {
    r->Register(op, ForAccumulatorDtypes<ApplyGradientOp>());
  }
  for (const char* op : {"AccumulatorTakeGradient", "ResourceAccumulatorTakeGradient",
                         "SparseAccumulatorTakeGradient"}) {
    r->Register(op, ForAccumulatorDtypes<TakeGradientOp>());
  }
  for (const char* op : {"AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated",
                         "AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep"}) {
    r->Register(op, MakeFactory<AccumulatorStateOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

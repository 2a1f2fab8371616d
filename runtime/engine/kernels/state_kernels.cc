// VariableV2 and the ops that set and inspect variables.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

class VariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &shared_name_));
    MG_RETURN_IF_ERROR(c->GetAttr("shape", &shape_));
    if (shared_name_.empty()) shared_name_ = c->def().name();
    if (!IsSupportedTensorType(dtype_)) return NoKernelForType(c, dtype_);
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(Var * v,
                        ctx->resource_manager()->LookupOrCreateVar(container_, shared_name_, dtype_,
                                                                   shape_));
    ctx->set_output_ref(0, v);
    return absl::OkStatus();
  }

 private:
  DataType dtype_;
  std::string container_, shared_name_;
  PartialShape shape_;
};

class AssignOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("validate_shape", &validate_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    Var* v = ctx->input_ref(0);
    const Tensor& rhs = ctx->input(1);
    {
      absl::MutexLock l(v->mu());
      // As in TensorFlow, an uninitialized variable has its declared shape.
      if (validate_) {
        const bool init = v->is_initialized();
        const bool same = init ? v->value().shape() == rhs.shape()
                               : v->declared_shape().IsCompatibleWith(rhs.shape());
        if (!same) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Assign requires shapes of both tensors to match. lhs shape= ",
              init ? v->value().shape().DebugString() : v->declared_shape().DebugString(),
              " rhs shape= ", rhs.shape().DebugString(), " (variable '", v->name(), "')"));
        }
      }
      Tensor owned;
      if (ctx->forward_input(1, &owned)) {
        v->set_value(std::move(owned));  // nobody else holds it: adopt, no copy
      } else if (v->is_initialized() && v->value().shape() == rhs.shape() &&
                 v->value().RefCountIsOne() && DataTypeCanUseMemcpy(rhs.dtype())) {
        Tensor* dst = v->mutable_value();  // reuse the variable's buffer
        if (rhs.TotalBytes() > 0) std::memcpy(dst->raw_data(), rhs.raw_data(), rhs.TotalBytes());
      } else {
        v->set_value(tensor::DeepCopy(rhs));
      }
    }
    ctx->set_output_ref(0, v);
    return absl::OkStatus();
  }

 private:
  bool validate_ = true;
};

template <bool kAdd>
struct AssignUpdateFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      Var* v = ctx->input_ref(0);
      const Tensor& rhs = ctx->input(1);
      {
        absl::MutexLock l(v->mu());
        if (!v->is_initialized()) return UninitializedError(v->name());
        if (v->value().shape() != rhs.shape()) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), " requires shapes of both tensors to match. lhs shape= ",
              v->value().shape().DebugString(), " rhs shape= ", rhs.shape().DebugString()));
        }
        T* __restrict dst = v->mutable_value()->data<T>();
        const T* __restrict src = rhs.data<T>();
        ctx->ParallelFor(rhs.NumElements(), 2 * sizeof(T), sizeof(T), 1,
                         [&](int64_t begin, int64_t end) {
#pragma omp simd
                           for (int64_t i = begin; i < end; ++i) {
                             dst[i] = kAdd ? dst[i] + src[i] : dst[i] - src[i];
                           }
                         });
      }
      ctx->set_output_ref(0, v);
      return absl::OkStatus();
    }
  };
};

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    Var* v = ctx->input_ref(0);
    bool init;
    {
      absl::ReaderMutexLock l(v->mu());
      init = v->is_initialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(init));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterStateKernels(KernelRegistry* r) {
  r->Register("VariableV2", MakeFactory<VariableOp>());
  r->Register("Variable", MakeFactory<VariableOp>());
  r->Register("Assign", MakeFactory<AssignOp>());
  r->Register("AssignAdd",
              TypedFactory<AssignUpdateFor<true>::Op, float, double, int32_t, int64_t>());
  r->Register("AssignSub",
              TypedFactory<AssignUpdateFor<false>::Op, float, double, int32_t, int64_t>());
  r->Register("IsVariableInitialized", MakeFactory<IsVariableInitializedOp>());
}

}  // namespace minigraph

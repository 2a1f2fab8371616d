// VariableV2 and the ops that set and inspect variables.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// What names a variable and says what it holds: the attrs of VariableV2 and
// VarHandleOp. Without a shared name a VariableV2 is the node's own, as
// TensorFlow's; VarHandleOps without one all name the one variable "" of
// their container, as TensorFlow's do (its Python always names them).
struct VariableAttrs {
  DataType dtype;
  std::string container, shared_name;
  PartialShape shape;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &shared_name));
    MG_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
    if (shared_name.empty() && c->def().op() != "VarHandleOp") shared_name = c->def().name();
    if (!IsSupportedTensorType(dtype)) return NoKernelForType(c, dtype);
    return absl::OkStatus();
  }
};

class VariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return a_.Init(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(Var * v, ctx->resource_manager()->LookupOrCreateVar(
                                     a_.container, a_.shared_name, a_.dtype, a_.shape));
    ctx->set_output_ref(0, v);
    return absl::OkStatus();
  }

 private:
  VariableAttrs a_;
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

// AssignAdd/AssignSub (a Ref(T) input, which they output) and
// AssignAdd/SubVariableOp (a resource handle, no output): in place, the
// buffer copied first while anyone else holds it.
template <bool kAdd>
struct AssignUpdateFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
      const bool ref = ctx->input_ref(0) != nullptr;
      const Tensor& rhs = ctx->input(1);
      {
        absl::MutexLock l(v->mu());
        if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
        if (v->dtype() != rhs.dtype()) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": variable ", v->name(), " has dtype ", DataTypeString(v->dtype()),
              ", the value ", DataTypeString(rhs.dtype())));
        }
        if (v->value().shape() != rhs.shape()) {
          // Each kind's TensorFlow text.
          return absl::InvalidArgumentError(
              ref ? absl::StrCat(
                        type_string(), " requires shapes of both tensors to match. lhs shape= ",
                        v->value().shape().DebugString(), " rhs shape= ", rhs.shape().DebugString())
                  : absl::StrCat("Cannot update variable with shape ",
                                 v->value().shape().DebugString(), " using a Tensor with shape ",
                                 rhs.shape().DebugString(), ", shapes must be equal."));
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
      if (ref) ctx->set_output_ref(0, v);
      return absl::OkStatus();
    }
  };
};

// CountUpTo (a Ref(T) input) and ResourceCountUpTo: the variable's value,
// which it then increments; OutOfRange "Reached limit of L" once the value
// is `limit` (how tf.train.limit_epochs ends an input after its epochs).
template <typename T>
class CountUpToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("limit", &limit_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
    T before;
    {
      absl::MutexLock l(v->mu());
      if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
      if (v->dtype() != DataTypeToEnum<T>::value || v->value().NumElements() != 1 ||
          v->value().dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            type_string(), ": variable ", v->name(), " must be a scalar ",
            DataTypeString(DataTypeToEnum<T>::value), ", it is ", DataTypeString(v->dtype()),
            " ", v->value().shape().DebugString()));
      }
      before = v->value().template data<T>()[0];
      if (before >= limit_) {
        return absl::OutOfRangeError(absl::StrCat("Reached limit of ", limit_));
      }
      v->mutable_value()->template data<T>()[0] = before + 1;
    }
    ctx->set_output(0, Tensor::Scalar<T>(before));
    return absl::OkStatus();
  }

 private:
  int64_t limit_ = 0;
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

// Resource variables. The variable itself is created by the first
// AssignVariableOp (TensorFlow's LookupOrCreate), so before initialization
// there is none and reads fail with TensorFlow's "Could not find variable".

class VarHandleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    VariableAttrs a;
    MG_RETURN_IF_ERROR(a.Init(c));
    handle_ = MakeVarHandle(a.container, a.shared_name, a.dtype, a.shape);
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, handle_);
    return absl::OkStatus();
  }

 private:
  Tensor handle_;
};

class ReadVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("dtype", &dtype_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(Tensor value, ctx->read_variable(0, dtype_));
    ctx->set_output(0, std::move(value));
    return absl::OkStatus();
  }

 private:
  DataType dtype_;
};

const ResourceHandle* HandleOf(const OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  return t.dtype() == DT_RESOURCE && t.NumElements() == 1 ? &t.data<ResourceHandle>()[0] : nullptr;
}

absl::Status NotAHandle(const OpKernelContext* ctx, int i) {
  return absl::InvalidArgumentError(absl::StrCat(
      "input ", i, " must be a scalar resource handle, got ", DataTypeString(ctx->input(i).dtype()),
      " ", ctx->input(i).shape().DebugString()));
}

class AssignVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    if (c->def().attr().count("validate_shape")) {
      MG_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const ResourceHandle* h = HandleOf(ctx, 0);
    if (h == nullptr) return NotAHandle(ctx, 0);
    PartialShape declared;
    if (h->dtypes_and_shapes_size() > 0) {
      declared = PartialShape::FromProto(h->dtypes_and_shapes(0).shape());
    }
    MG_ASSIGN_OR_RETURN(Var * v, ctx->resource_manager()->LookupOrCreateVar(
                                     h->container(), h->name(), dtype_, declared));
    const Tensor& value = ctx->input(1);
    absl::MutexLock l(v->mu());
    if (validate_ && !v->declared_shape().IsCompatibleWith(value.shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Trying to assign to variable ", h->name(), " with shape ",
                       v->declared_shape().DebugString(), " a value of incompatible shape ",
                       value.shape().DebugString()));
    }
    // No copy: the variable shares the buffer, and an in-place update
    // copies it first while anyone else holds it (Var::mutable_value).
    v->set_value(value);
    return absl::OkStatus();
  }

 private:
  DataType dtype_;
  bool validate_ = false;
};

class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const ResourceHandle* h = HandleOf(ctx, 0);
    if (h == nullptr) return NotAHandle(ctx, 0);
    bool init = false;
    if (Var* v = ctx->resource_manager()->FindVar(h->container(), h->name()); v != nullptr) {
      absl::ReaderMutexLock l(v->mu());
      init = v->is_initialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(init));
    return absl::OkStatus();
  }
};

template <typename Index>
class VariableShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    if (HandleOf(ctx, 0) == nullptr) return NotAHandle(ctx, 0);
    MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
    absl::ReaderMutexLock l(v->mu());
    if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
    const TensorShape& s = v->value().shape();
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({s.dims()}), &out));
    for (int d = 0; d < s.dims(); ++d) out->data<Index>()[d] = static_cast<Index>(s.dim_size(d));
    return absl::OkStatus();
  }
};

class DisableCopyOnReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
    absl::ReaderMutexLock l(v->mu());
    if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
    return absl::OkStatus();
  }
};

class DestroyResourceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return c->GetAttr("ignore_lookup_error", &ignore_lookup_error_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const ResourceHandle* h = HandleOf(ctx, 0);
    if (h == nullptr) return NotAHandle(ctx, 0);
    if (!ctx->resource_manager()->DeleteVar(h->container(), h->name()) && !ignore_lookup_error_) {
      return absl::NotFoundError(absl::StrCat("Resource ", h->container(), "/", h->name(),
                                              "/N10tensorflow3VarE does not exist."));
    }
    return absl::OkStatus();
  }

 private:
  bool ignore_lookup_error_ = true;
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
  r->Register("VarHandleOp", MakeFactory<VarHandleOp>());
  r->Register("ReadVariableOp", MakeFactory<ReadVariableOp>());
  r->Register("AssignVariableOp", MakeFactory<AssignVariableOp>());
  r->Register("AssignAddVariableOp",
              TypedFactory<AssignUpdateFor<true>::Op, float, double, int32_t, int64_t>("dtype"));
  r->Register("AssignSubVariableOp",
              TypedFactory<AssignUpdateFor<false>::Op, float, double, int32_t, int64_t>("dtype"));
  r->Register("VarIsInitializedOp", MakeFactory<VarIsInitializedOp>());
  r->Register("VariableShape", TypedFactory<VariableShapeOp, int32_t, int64_t>("out_type"));
  r->Register("DestroyResourceOp", MakeFactory<DestroyResourceOp>());
  r->Register("DisableCopyOnRead", MakeFactory<DisableCopyOnReadOp>());
  r->Register("CountUpTo", TypedFactory<CountUpToOp, int32_t, int64_t>());
  r->Register("ResourceCountUpTo", TypedFactory<CountUpToOp, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph

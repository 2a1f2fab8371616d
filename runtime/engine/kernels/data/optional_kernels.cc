// tf.experimental.Optional's ops: a value (a tuple of tensors) or none, in
// a DT_VARIANT scalar. cond_v2's gradient carries a branch's intermediates
// in them: the branch not taken outputs OptionalNone.
#include <optional>
#include <vector>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/optional_value.h"

namespace minigraph {
namespace kernels_internal {
namespace {

absl::StatusOr<const OptionalValue*> OptionalInput(const OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  const OptionalValue* o = nullptr;
  if (t.dtype() == DT_VARIANT && t.dims() == 0) o = t.data<Variant>()->get<OptionalValue>();
  if (o == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be a scalar of dtype DT_VARIANT holding an Optional, got ",
        t.dtype() == DT_VARIANT && t.dims() == 0 ? t.data<Variant>()->DebugString()
                                                 : DataTypeString(t.dtype()) + " " +
                                                       t.shape().DebugString()));
  }
  return o;
}

void OutputOptional(OpKernelContext* ctx, std::optional<std::vector<Tensor>> value) {
  ctx->set_output(0, Tensor::Scalar<Variant>(Variant(
                         std::make_shared<const OptionalValue>(std::move(value)))));
}

class FromValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
    OutputOptional(ctx, std::move(components));
    return absl::OkStatus();
  }
};

class NoneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    OutputOptional(ctx, std::nullopt);
    return absl::OkStatus();
  }
};

class HasValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const OptionalValue* o, OptionalInput(ctx));
    ctx->set_output(0, Tensor::Scalar<bool>(o->value.has_value()));
    return absl::OkStatus();
  }
};

class GetValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("output_types", &types_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const OptionalValue* o, OptionalInput(ctx));
    if (!o->value) {
      return absl::InvalidArgumentError(
          "The given optional does not have a value.");
    }
    if (o->value->size() != types_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The given optional has ", o->value->size(), " components, expected ", types_.size()));
    }
    for (size_t i = 0; i < types_.size(); ++i) {
      if ((*o->value)[i].dtype() != types_[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input optional value ", i, " has type ", DataTypeString((*o->value)[i].dtype()),
            ", expected ", DataTypeString(types_[i])));
      }
      ctx->set_output(static_cast<int>(i), (*o->value)[i]);
    }
    return absl::OkStatus();
  }

 private:
  std::vector<DataType> types_;
};

}  // namespace

void RegisterOptionalKernels(KernelRegistry* r) {
  r->Register("OptionalFromValue", MakeFactory<FromValueOp>());
  r->Register("OptionalNone", MakeFactory<NoneOp>());
  r->Register("OptionalHasValue", MakeFactory<HasValueOp>());
  r->Register("OptionalGetValue", MakeFactory<GetValueOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph

// Sum, Mean, ArgMax, ArgMin, All and Any.
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/reduction_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

template <typename T, bool kMin>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("output_type", &out_type_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> d, IntsFromTensor(ctx->input(1), "dimension"));
    if (d.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " dimension must be a scalar"));
    }
    int64_t axis = d[0];
    if (axis < -x.dims() || axis >= x.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " dimension ", axis,
                                                     " is out of range for input of shape ",
                                                     x.shape().DebugString()));
    }
    if (axis < 0) axis += x.dims();
    if (x.dim_size(axis) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), " over an empty dimension of input ", x.shape().DebugString()));
    }
    std::vector<int64_t> out_dims;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < x.dims(); ++i) {
      if (i == axis) continue;
      out_dims.push_back(x.dim_size(i));
      (i < axis ? outer : inner) *= x.dim_size(i);
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    auto in = x.shaped<T, 3>({outer, x.dim_size(axis), inner});
    if constexpr (kMin) {
      return Write(ctx, out, in.argmin(1), outer, inner);
    } else {
      return Write(ctx, out, in.argmax(1), outer, inner);
    }
  }

 private:
  template <typename Idx>
  absl::Status Write(OpKernelContext* ctx, Tensor* out, const Idx& idx, int64_t outer,
                     int64_t inner) const {
    if (out_type_ == DT_INT64) {
      Evaluate(ctx, out->shaped<int64_t, 2>({outer, inner}), idx.template cast<int64_t>());
    } else {
      Evaluate(ctx, out->shaped<int32_t, 2>({outer, inner}), idx.template cast<int32_t>());
    }
    return absl::OkStatus();
  }

  DataType out_type_ = DT_INT64;
};

template <typename T>
using ArgMaxOp = ArgOp<T, false>;
template <typename T>
using ArgMinOp = ArgOp<T, true>;

}  // namespace

void RegisterReductionKernels(KernelRegistry* r) {
  using kernels_internal::ReductionFor;
  using namespace Eigen::internal;  // NOLINT: reducers
  r->Register("Sum", TypedFactory<ReductionFor<SumReducer>::Op, float, double, int32_t, int64_t>());
  r->Register("Mean",
              TypedFactory<ReductionFor<MeanReducer>::Op, float, double, int32_t, int64_t>());
  r->Register("ArgMax", TypedFactory<ArgMaxOp, float, double, int32_t, int64_t>());
  r->Register("ArgMin", TypedFactory<ArgMinOp, float, double, int32_t, int64_t>());
  // All and Any: the min and max of bools.
  r->Register("All", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<
        kernels_internal::ReductionOp<bool, Eigen::internal::MinReducer<bool>>>(c);
  });
  r->Register("Any", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<
        kernels_internal::ReductionOp<bool, Eigen::internal::MaxReducer<bool>>>(c);
  });
}

}  // namespace minigraph

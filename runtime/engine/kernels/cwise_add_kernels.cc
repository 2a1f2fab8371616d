// Add, AddV2, Sub (with broadcasting) and AddN.
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

// AddN: the sum of N same-shaped tensors.
template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x0 = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (ctx->input(i).shape() != x0.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddN inputs must have the same shape: input 0 is ", x0.shape().DebugString(),
            ", input ", i, " is ", ctx->input(i).shape().DebugString()));
      }
    }
    if (ctx->num_inputs() == 1) {
      ctx->set_output(0, x0);
      return absl::OkStatus();
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x0.shape(), &out));
    auto o = out->flat<T>();
    Evaluate(ctx, o, x0.flat<T>() + ctx->input(1).flat<T>());
    for (int i = 2; i < ctx->num_inputs(); ++i) Evaluate(ctx, o, o + ctx->input(i).flat<T>());
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterAddKernels(KernelRegistry* r) {
  using Eigen::internal::scalar_difference_op;
  using Eigen::internal::scalar_sum_op;
  auto add = TypedFactory<BinaryKernelFor<scalar_sum_op>::Op, float, double, int32_t, int64_t>();
  r->Register("Add", add);
  r->Register("AddV2", add);
  r->Register("Sub", TypedFactory<BinaryKernelFor<scalar_difference_op>::Op, float, double,
                                  int32_t, int64_t>());
  r->Register("AddN", TypedFactory<AddNOp, float, double, int32_t, int64_t>());
}

}  // namespace minigraph

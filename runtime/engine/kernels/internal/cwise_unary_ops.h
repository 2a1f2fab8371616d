// Unary element-wise kernels: Eigen's functors (with their vectorized math)
// or those of cwise_ops.h, evaluated as Eigen Array expressions.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_UNARY_OPS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_UNARY_OPS_H_

#include "runtime/engine/kernels/internal/array_eval.h"
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// y = F(x).
template <template <typename> class F>
struct UnaryKernelFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& x = ctx->input(0);
      Tensor* y;
      MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
      UnaryEvaluate(ctx, x.data<T>(), y->data<T>(), x.NumElements(), F<T>());
      return absl::OkStatus();
    }
  };
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_UNARY_OPS_H_

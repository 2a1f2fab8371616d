// A kernel applying a matrix function (Eigen's MatrixFunctions module) to
// each square matrix of a batch, as TensorFlow's matrix_square_root_op.cc
// and matrix_logarithm_op.cc call it. Internal to linalg: each function's
// kernels sit in a file of their own, so that the two heavy instantiations
// compile on both cores.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRIX_FUNCTION_OP_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRIX_FUNCTION_OP_H_

#include "runtime/engine/kernels/linalg/matrices.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace minigraph {
namespace kernels_internal {

// F: a functor taking a column-major Eigen matrix and returning f(matrix).
template <typename T, typename F>
class MatrixFunctionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, a.shape(), &out));
    const int64_t n = a.dim_size(a.dims() - 1);
    if (n == 0) return absl::OkStatus();
    ForEachMatrix(ctx, MatrixCount(a), n, [&](int64_t i) {
      // (Eigen's matrix functions want a column-major plain matrix.)
      const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> m =
          ConstMatrixMap<T>(a.data<T>() + i * n * n, n, n);
      MatrixMap<T>(out->data<T>() + i * n * n, n, n) = F()(m);
    });
    return absl::OkStatus();
  }
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRIX_FUNCTION_OP_H_

// Evaluation of Eigen expressions for the kernels that compute with Eigen.
// (Helpers without Eigen are in tensor_util.h.)

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_

#include <cstdint>

#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {
namespace kernels_internal {

// Evaluates `expr` into `out` on the step's ThreadPoolDevice, the one device
// kernel expressions are compiled for; Eigen's cost model keeps an
// expression too small to split on the calling thread. Evaluation is
// element-wise (vectorized), never block-tiled: tiling (which Eigen picks for
// broadcasts and reductions) multiplies each expression's compile time and
// gains little for these element-wise kernels.
template <typename Out, typename Expr>
void Evaluate(const OpKernelContext* ctx, Out out, const Expr& expr) {
  using Assign = const Eigen::TensorAssignOp<Out, const Expr>;
  Assign assign(out, expr);
  Eigen::internal::TensorExecutor<
      Assign, Eigen::ThreadPoolDevice,
      Eigen::internal::IsVectorizable<Eigen::ThreadPoolDevice, Assign>::value,
      Eigen::internal::TiledEvaluation::Off>::run(assign, ctx->eigen_device());
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_

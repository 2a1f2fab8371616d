// Helpers shared by the Eigen kernels.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_

#include <cstdint>

#include "core/tensor_types.h"
#include "runtime/engine/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {

// Below this many output elements an expression runs on the calling thread:
// handing it to the intra-op pool costs more than it saves.
inline constexpr int64_t kParallelThreshold = 1 << 18;

// Evaluates `expr` into `out`, on the intra-op pool when large.
template <typename Out, typename Expr>
void Evaluate(const OpKernelContext* ctx, Out out, const Expr& expr) {
  if (out.size() < kParallelThreshold) {
    out = expr;
  } else {
    out.device(ctx->eigen_device()) = expr;
  }
}

// Reads the int32 or int64 elements of a 1-D (or scalar) tensor.
absl::StatusOr<std::vector<int64_t>> IntsFromTensor(const Tensor& t, absl::string_view what);

// A TensorShape from an int vector tensor (Fill dims, random op shapes).
absl::StatusOr<TensorShape> ShapeFromTensor(const Tensor& t, absl::string_view what);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EIGEN_UTIL_H_

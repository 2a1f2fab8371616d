// MatMul: for float and double Eigen's dense GEMM, a large product split
// into row (or column) blocks across the intra-op pool; for integers a
// plain loop.
// The kernel template is instantiated once per dtype, in matmul_kernels.cc
// and matmul_int_kernels.cc (the extern template declarations below keep
// every other file from instantiating it again).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// A MatMul kernel for element type T (float, double, int32_t or int64_t).
template <typename T>
absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel(OpKernelConstruction* c);

extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<float>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<double>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int32_t>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int64_t>(
    OpKernelConstruction* c);

// C = op(A) * op(B), or C += op(A) * op(B) when `accumulate`, for
// row-major matrices: op(A) is m x k (A stored k x m when `ta`), op(B) is
// k x n (B stored n x k when `tb`), C is m x n. A large product runs on the
// step's intra-op pool. For kernels that lower to a product (convolutions).
// T: float or double.
template <typename T>
void Gemm(const OpKernelContext* ctx, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, bool accumulate);

extern template void Gemm<float>(const OpKernelContext*, const float*, const float*, float*,
                                 int64_t, int64_t, int64_t, bool, bool, bool);
extern template void Gemm<double>(const OpKernelContext*, const double*, const double*, double*,
                                  int64_t, int64_t, int64_t, bool, bool, bool);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_

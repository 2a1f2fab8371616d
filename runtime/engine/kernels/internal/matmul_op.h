// MatMul: an Eigen tensor contraction on the intra-op pool when large, Eigen's
// dense GEMM otherwise. The kernel template is instantiated once per dtype,
// in matmul_float_kernels.cc and matmul_int_kernels.cc (the extern template
// declarations below keep every other file from instantiating it again).

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

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_

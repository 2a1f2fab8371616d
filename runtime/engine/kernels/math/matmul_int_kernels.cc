// MatMul for int32_t, int64_t, complex64 and complex128 (plain loops).
#include "runtime/engine/kernels/internal/matmul_op_impl.h"

namespace minigraph {
namespace kernels_internal {

template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int32_t>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int64_t>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<complex64>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<complex128>(
    OpKernelConstruction* c);

}  // namespace kernels_internal
}  // namespace minigraph

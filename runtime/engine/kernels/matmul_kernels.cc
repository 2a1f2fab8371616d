// MatMul for float and double, and MatMul's registration (which picks the
// kernel built for the node's dtype; int32 and int64 are built in
// matmul_int_kernels.cc).
#include "runtime/engine/kernels/internal/matmul_op_impl.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace kernels_internal {

template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<float>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<double>(
    OpKernelConstruction* c);

}  // namespace kernels_internal

void RegisterMatMulKernels(KernelRegistry* r) {
  r->Register("MatMul", [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    switch (dt) {
      case DT_FLOAT: return kernels_internal::NewMatMulKernel<float>(c);
      case DT_DOUBLE: return kernels_internal::NewMatMulKernel<double>(c);
      case DT_INT32: return kernels_internal::NewMatMulKernel<int32_t>(c);
      case DT_INT64: return kernels_internal::NewMatMulKernel<int64_t>(c);
      default: return NoKernelForType(c, dt);
    }
  });
}

}  // namespace minigraph

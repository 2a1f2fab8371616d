// Maximum and Minimum, with broadcasting.
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {

void RegisterMaxMinKernels(KernelRegistry* r) {
  r->Register(
      "Maximum",
      TypedFactory<BinaryKernelFor<functor::maximum>::Op, float, double, int32_t, int64_t>());
  r->Register(
      "Minimum",
      TypedFactory<BinaryKernelFor<functor::minimum>::Op, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph

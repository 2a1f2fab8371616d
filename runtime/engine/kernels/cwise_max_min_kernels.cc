// Maximum and Minimum, with broadcasting.
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterMaxMinKernels(KernelRegistry* r) {
  r->Register(
      "Maximum",
      TypedFactory<BinaryKernelFor<functor::maximum>::Op, float, double, int32_t, int64_t>());
  r->Register(
      "Minimum",
      TypedFactory<BinaryKernelFor<functor::minimum>::Op, float, double, int32_t, int64_t>());
}

}  // namespace minigraph

// Maximum and Minimum, with broadcasting.
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterMaxMinKernels(KernelRegistry* r) {
  using Eigen::internal::scalar_max_op;
  using Eigen::internal::scalar_min_op;
  r->Register("Maximum", TypedFactory<BinaryKernelFor<scalar_max_op>::Op, float, double,
                                      int32_t, int64_t>());
  r->Register("Minimum", TypedFactory<BinaryKernelFor<scalar_min_op>::Op, float, double,
                                      int32_t, int64_t>());
}

}  // namespace minigraph

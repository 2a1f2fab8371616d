// Max, Min, Prod and EuclideanNorm.
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/reduction_ops.h"

namespace minigraph {
namespace kernels_internal {

void RegisterMaxMinProdKernels(KernelRegistry* r) {
  r->Register("Max",
              TypedFactory<ReductionFor<reducers::Max>::Op, float, double, int32_t, int64_t>());
  r->Register("Min",
              TypedFactory<ReductionFor<reducers::Min>::Op, float, double, int32_t, int64_t>());
  r->Register("Prod",
              TypedFactory<ReductionFor<reducers::Prod>::Op, float, double, int32_t, int64_t>());
  r->Register("EuclideanNorm", TypedFactory<ReductionFor<reducers::EuclideanNorm>::Op, float,
                                            double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph

// Max, Min and Prod.
#include "runtime/engine/kernels/internal/reduction_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterMaxMinProdKernels(KernelRegistry* r) {
  using kernels_internal::ReductionFor;
  namespace reducers = kernels_internal::reducers;
  r->Register("Max",
              TypedFactory<ReductionFor<reducers::Max>::Op, float, double, int32_t, int64_t>());
  r->Register("Min",
              TypedFactory<ReductionFor<reducers::Min>::Op, float, double, int32_t, int64_t>());
  r->Register("Prod",
              TypedFactory<ReductionFor<reducers::Prod>::Op, float, double, int32_t, int64_t>());
}

}  // namespace minigraph

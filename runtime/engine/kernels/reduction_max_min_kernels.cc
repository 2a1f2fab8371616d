// Max, Min and Prod.
#include "runtime/engine/kernels/internal/reduction_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterMaxMinProdKernels(KernelRegistry* r) {
  using kernels_internal::ReductionFor;
  using namespace Eigen::internal;  // NOLINT: reducers
  r->Register("Max", TypedFactory<ReductionFor<MaxReducer>::Op, float, double, int32_t, int64_t>());
  r->Register("Min", TypedFactory<ReductionFor<MinReducer>::Op, float, double, int32_t, int64_t>());
  r->Register("Prod", TypedFactory<ReductionFor<ProdReducer>::Op, float, double, int32_t, int64_t>());
}

}  // namespace minigraph

// Mul, RealDiv, Pow and SquaredDifference, with broadcasting.
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterMulKernels(KernelRegistry* r) {
  using Eigen::internal::scalar_product_op;
  using Eigen::internal::scalar_quotient_op;
  r->Register("Mul", TypedFactory<BinaryKernelFor<scalar_product_op>::Op, float, double,
                                  int32_t, int64_t>());
  r->Register("RealDiv", TypedFactory<BinaryKernelFor<scalar_quotient_op>::Op, float, double>());
  r->Register("Pow", TypedFactory<BinaryKernelFor<functor::pow>::Op, float, double>());
  r->Register("SquaredDifference",
              TypedFactory<BinaryKernelFor<functor::squared_difference>::Op, float, double,
                           int32_t, int64_t>());
}

}  // namespace minigraph

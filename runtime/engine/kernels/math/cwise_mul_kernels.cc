// Mul, RealDiv, Pow and SquaredDifference, with broadcasting.
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {

void RegisterMulKernels(KernelRegistry* r) {
  r->Register("Mul",
              TypedFactory<BinaryKernelFor<functor::mul>::Op, float, double, int32_t, int64_t,
                           complex64, complex128>());
  r->Register("RealDiv", TypedFactory<BinaryKernelFor<functor::quotient>::Op, float, double,
                                         complex64, complex128>());
  r->Register("Pow", TypedFactory<BinaryKernelFor<functor::pow>::Op, float, double>());
  r->Register("SquaredDifference",
              TypedFactory<BinaryKernelFor<functor::squared_difference>::Op, float, double,
                           int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph

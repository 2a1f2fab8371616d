// Div, DivNoNan, FloorDiv and FloorMod, with broadcasting (TensorFlow's
// semantics: floor division and modulo take the divisor's sign; integer
// division by zero is an error).
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {

void RegisterDivKernels(KernelRegistry* r) {
  r->Register(
      "Div",
      TypedFactory<IntDivKernelFor<functor::truncate_div>::Op, float, double, int32_t, int64_t,
                   complex64, complex128>());
  r->Register("DivNoNan", TypedFactory<BinaryKernelFor<functor::div_no_nan>::Op, float, double,
                                          complex64, complex128>());
  r->Register(
      "FloorDiv",
      TypedFactory<IntDivKernelFor<functor::floor_div>::Op, float, double, int32_t, int64_t>());
  r->Register(
      "FloorMod",
      TypedFactory<IntDivKernelFor<functor::floor_mod>::Op, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph

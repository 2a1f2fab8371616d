// Comparisons (Greater, GreaterEqual, Less, LessEqual, Equal, NotEqual),
// LogicalAnd and LogicalOr, with broadcasting; bool outputs. (LogicalNot is
// unary.)
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {

void RegisterCompareKernels(KernelRegistry* r) {
  r->Register("Greater", TypedFactory<BinaryKernelFor<functor::greater, true>::Op, float,
                                      double, int32_t, int64_t>());
  r->Register("GreaterEqual", TypedFactory<BinaryKernelFor<functor::greater_equal, true>::Op,
                                           float, double, int32_t, int64_t>());
  r->Register("Less", TypedFactory<BinaryKernelFor<functor::less, true>::Op, float, double,
                                   int32_t, int64_t>());
  r->Register("LessEqual", TypedFactory<BinaryKernelFor<functor::less_equal, true>::Op, float,
                                        double, int32_t, int64_t>());
  r->Register("Equal", TypedFactory<BinaryKernelFor<functor::equal_to, true>::Op, float, double,
                                    int32_t, int64_t, bool, std::string>());
  r->Register("NotEqual", TypedFactory<BinaryKernelFor<functor::not_equal_to, true>::Op, float,
                                       double, int32_t, int64_t, bool, std::string>());
  r->Register("LogicalAnd", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<BinaryKernelFor<functor::logical_and, true>::Op<bool>>(
        c);
  });
  r->Register("LogicalOr", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<BinaryKernelFor<functor::logical_or, true>::Op<bool>>(c);
  });
}

}  // namespace kernels_internal
}  // namespace minigraph

#include "runtime/kernels/standard_kernels.h"

namespace minigraph {

const KernelRegistry* StandardKernels() {
  static const KernelRegistry* const registry = [] {
    auto* r = new KernelRegistry;
    RegisterArrayKernels(r);
    RegisterBinaryArithmeticKernels(r);
    RegisterCompareKernels(r);
    RegisterUnaryKernels(r);
    RegisterMatMulKernels(r);
    RegisterReductionKernels(r);
    RegisterNnKernels(r);
    RegisterRandomKernels(r);
    RegisterStateKernels(r);
    RegisterTrainingKernels(r);
    RegisterControlFlowKernels(r);
    RegisterSaveRestoreKernels(r);
    return r;
  }();
  return registry;
}

}  // namespace minigraph

#include "runtime/kernels/standard_kernels.h"

namespace minigraph {

namespace {

KernelRegistry* MutableStandardKernels() {
  static KernelRegistry* const registry = [] {
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
    RegisterSummaryKernels(r);
    return r;
  }();
  return registry;
}

}  // namespace

const KernelRegistry* StandardKernels() { return MutableStandardKernels(); }

void RegisterKernel(const std::string& op, KernelFactory factory) {
  MutableStandardKernels()->Register(op, std::move(factory));
}

}  // namespace minigraph

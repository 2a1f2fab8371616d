// The registry of every kernel minigraph has, and the functions that fill
// it, one per kernel family.
//
//   MG_ASSIGN_OR_RETURN(auto kernel, StandardKernels()->CreateKernel(node));

#ifndef MINIGRAPH_RUNTIME_KERNELS_STANDARD_KERNELS_H_
#define MINIGRAPH_RUNTIME_KERNELS_STANDARD_KERNELS_H_

#include "runtime/kernel_registry.h"

namespace minigraph {

// Every kernel below, registered once, plus those added with
// RegisterKernel. Never destroyed.
const KernelRegistry* StandardKernels();

// Adds (or replaces) the kernel sessions use for `op` (TensorFlow's
// REGISTER_KERNEL_BUILDER), for ops of your own (RegisterOp). Thread-safe;
// sessions created afterwards use it.
void RegisterKernel(const std::string& op, KernelFactory factory);

void RegisterArrayKernels(KernelRegistry* r);
void RegisterBinaryArithmeticKernels(KernelRegistry* r);
void RegisterCompareKernels(KernelRegistry* r);
void RegisterUnaryKernels(KernelRegistry* r);
void RegisterMatMulKernels(KernelRegistry* r);
void RegisterReductionKernels(KernelRegistry* r);
void RegisterNnKernels(KernelRegistry* r);
void RegisterRandomKernels(KernelRegistry* r);
void RegisterStateKernels(KernelRegistry* r);
void RegisterTrainingKernels(KernelRegistry* r);
void RegisterControlFlowKernels(KernelRegistry* r);
void RegisterSaveRestoreKernels(KernelRegistry* r);
void RegisterSummaryKernels(KernelRegistry* r);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_KERNELS_STANDARD_KERNELS_H_

// minigraph's CPU kernels (Eigen), one registration function per kernel
// family. Linking this target (alwayslink) registers them all into
// GlobalKernelRegistry() at start-up: its one static registrar, in
// standard_kernels.cc, is how a binary says "I run graphs on the CPU". It is
// one of minigraph's three static initializers; the others register the
// session kinds (local_session.cc, session/distributed/grpc_session.cc).
//
//   deps = ["//runtime/engine/kernels:standard_kernels", ...]
//
// A binary that only builds graphs or reads checkpoints does not link them.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_

#include <cstdint>

#include "runtime/engine/kernel_registry.h"

namespace minigraph {

// Registers every kernel family below into `r`.
void RegisterStandardKernels(KernelRegistry* r);

void RegisterArrayKernels(KernelRegistry* r);
void RegisterSliceKernels(KernelRegistry* r);
void RegisterSegmentKernels(KernelRegistry* r);
void RegisterSparseKernels(KernelRegistry* r);
void RegisterLookupKernels(KernelRegistry* r);
void RegisterDenseHashTableKernels(KernelRegistry* r);
void RegisterAddKernels(KernelRegistry* r);
void RegisterMulKernels(KernelRegistry* r);
void RegisterDivKernels(KernelRegistry* r);
void RegisterMaxMinKernels(KernelRegistry* r);
void RegisterCompareKernels(KernelRegistry* r);
void RegisterUnaryKernels(KernelRegistry* r);
void RegisterMatMulKernels(KernelRegistry* r);
void RegisterBatchMatMulKernels(KernelRegistry* r);
void RegisterReductionKernels(KernelRegistry* r);
void RegisterMaxMinProdKernels(KernelRegistry* r);
void RegisterNnKernels(KernelRegistry* r);
void RegisterConvKernels(KernelRegistry* r);
void RegisterPoolingKernels(KernelRegistry* r);
void RegisterRandomKernels(KernelRegistry* r);
void RegisterStatelessRandomKernels(KernelRegistry* r);
void RegisterStateKernels(KernelRegistry* r);
void RegisterTrainingKernels(KernelRegistry* r);
void RegisterControlFlowKernels(KernelRegistry* r);
void RegisterSaveRestoreKernels(KernelRegistry* r);
void RegisterSummaryKernels(KernelRegistry* r);
void RegisterSendRecvKernels(KernelRegistry* r);
void RegisterStringKernels(KernelRegistry* r);
void RegisterSerializationKernels(KernelRegistry* r);
void RegisterImageCodecKernels(KernelRegistry* r);
void RegisterImageResizeKernels(KernelRegistry* r);
void RegisterRaggedKernels(KernelRegistry* r);
void RegisterFunctionalKernels(KernelRegistry* r);
void RegisterDatasetKernels(KernelRegistry* r);
void RegisterDatasetSourceKernels(KernelRegistry* r);
void RegisterDatasetComposeKernels(KernelRegistry* r);
void RegisterDecodeCsvKernels(KernelRegistry* r);
void RegisterListKernels(KernelRegistry* r);
void RegisterOptionalKernels(KernelRegistry* r);
void RegisterTensorArrayKernels(KernelRegistry* r);
void RegisterExampleParsingKernels(KernelRegistry* r);
void RegisterSequenceExampleParsingKernels(KernelRegistry* r);

// _Recv kernels run in this process so far, and the seconds they took
// (waiting for the value and moving it), for benchmarks.
struct RecvStats {
  int64_t count = 0;
  double seconds = 0;
};
RecvStats GetRecvStats();

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_

#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterStandardKernels(KernelRegistry* r) {
  RegisterArrayKernels(r);
  RegisterSliceKernels(r);
  RegisterSegmentKernels(r);
  RegisterSparseKernels(r);
  RegisterLookupKernels(r);
  RegisterDenseHashTableKernels(r);
  RegisterAddKernels(r);
  RegisterMulKernels(r);
  RegisterDivKernels(r);
  RegisterMaxMinKernels(r);
  RegisterCompareKernels(r);
  RegisterUnaryKernels(r);
  RegisterMatMulKernels(r);
  RegisterBatchMatMulKernels(r);
  RegisterReductionKernels(r);
  RegisterMaxMinProdKernels(r);
  RegisterNnKernels(r);
  RegisterConvKernels(r);
  RegisterPoolingKernels(r);
  RegisterRandomKernels(r);
  RegisterStatelessRandomKernels(r);
  RegisterStateKernels(r);
  RegisterTrainingKernels(r);
  RegisterControlFlowKernels(r);
  RegisterSaveRestoreKernels(r);
  RegisterSummaryKernels(r);
  RegisterSendRecvKernels(r);
  RegisterStringKernels(r);
  RegisterSerializationKernels(r);
  RegisterImageCodecKernels(r);
  RegisterImageResizeKernels(r);
  RegisterExampleParsingKernels(r);
  RegisterSequenceExampleParsingKernels(r);
  RegisterRaggedKernels(r);
  RegisterFunctionalKernels(r);
  RegisterDatasetKernels(r);
  RegisterDatasetSourceKernels(r);
  RegisterDatasetComposeKernels(r);
  RegisterDecodeCsvKernels(r);
  RegisterListKernels(r);
  RegisterOptionalKernels(r);
  RegisterTensorArrayKernels(r);
}

namespace {

// The static registrar (see the header): runs before main(), so kernels a
// program registers itself with RegisterKernel replace these, never the
// other way round.
const bool kStandardKernelsRegistered = [] {
  RegisterStandardKernels(GlobalKernelRegistry());
  return true;
}();

}  // namespace
}  // namespace minigraph

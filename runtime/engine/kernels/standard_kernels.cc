#include "runtime/engine/kernels/standard_kernels.h"

#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {

void RegisterStandardKernels(KernelRegistry* r) {
  kernels_internal::RegisterArrayKernels(r);
  kernels_internal::RegisterSliceKernels(r);
  kernels_internal::RegisterSpaceBatchKernels(r);
  kernels_internal::RegisterMirrorPadKernels(r);
  kernels_internal::RegisterReorderKernels(r);
  kernels_internal::RegisterSegmentKernels(r);
  kernels_internal::RegisterSegmentReductionKernels(r);
  kernels_internal::RegisterSparseKernels(r);
  kernels_internal::RegisterCountKernels(r);
  kernels_internal::RegisterSparseSegmentKernels(r);
  kernels_internal::RegisterSparseMathKernels(r);
  kernels_internal::RegisterSetKernels(r);
  kernels_internal::RegisterSparseSliceKernels(r);
  kernels_internal::RegisterSparseSerializationKernels(r);
  kernels_internal::RegisterLookupKernels(r);
  kernels_internal::RegisterDenseHashTableKernels(r);
  kernels_internal::RegisterAddKernels(r);
  kernels_internal::RegisterMulKernels(r);
  kernels_internal::RegisterDivKernels(r);
  kernels_internal::RegisterMaxMinKernels(r);
  kernels_internal::RegisterCompareKernels(r);
  kernels_internal::RegisterUnaryKernels(r);
  kernels_internal::RegisterSpecialKernels(r);
  kernels_internal::RegisterComplexKernels(r);
  kernels_internal::RegisterBitwiseKernels(r);
  kernels_internal::RegisterBinaryMathKernels(r);
  kernels_internal::RegisterMatMulKernels(r);
  kernels_internal::RegisterBatchMatMulKernels(r);
  kernels_internal::RegisterReductionKernels(r);
  kernels_internal::RegisterMaxMinProdKernels(r);
  kernels_internal::RegisterNnKernels(r);
  kernels_internal::RegisterActivationKernels(r);
  kernels_internal::RegisterConvKernels(r);
  kernels_internal::RegisterDepthwiseConvKernels(r);
  kernels_internal::RegisterPoolingKernels(r);
  kernels_internal::RegisterCtcKernels(r);
  kernels_internal::RegisterDilationKernels(r);
  kernels_internal::RegisterPatchesKernels(r);
  kernels_internal::RegisterIsotonicKernels(r);
  kernels_internal::RegisterFractionalPoolKernels(r);
  kernels_internal::RegisterCandidateSamplingKernels(r);
  kernels_internal::RegisterRandomKernels(r);
  kernels_internal::RegisterStatelessRandomKernels(r);
  kernels_internal::RegisterGammaKernels(r);
  kernels_internal::RegisterPoissonKernels(r);
  kernels_internal::RegisterBinomialKernels(r);
  kernels_internal::RegisterCandidateSamplerKernels(r);
  kernels_internal::RegisterTruncatedNormalKernels(r);
  kernels_internal::RegisterSobolKernels(r);
  kernels_internal::RegisterStateKernels(r);
  kernels_internal::RegisterTrainingKernels(r);
  kernels_internal::RegisterScatterKernels(r);
  kernels_internal::RegisterControlFlowKernels(r);
  kernels_internal::RegisterSaveRestoreKernels(r);
  kernels_internal::RegisterSummaryKernels(r);
  kernels_internal::RegisterReaderKernels(r);
  kernels_internal::RegisterSendRecvKernels(r);
  kernels_internal::RegisterStringKernels(r);
  kernels_internal::RegisterStringConvertKernels(r);
  kernels_internal::RegisterStringFormatKernels(r);
  kernels_internal::RegisterStringNGramsKernels(r);
  kernels_internal::RegisterUnicodeKernels(r);
  kernels_internal::RegisterSerializationKernels(r);
  kernels_internal::RegisterProtoKernels(r);
  kernels_internal::RegisterExampleParsingKernels(r);
  kernels_internal::RegisterSequenceExampleParsingKernels(r);
  kernels_internal::RegisterRaggedKernels(r);
  kernels_internal::RegisterRaggedCrossKernels(r);
  kernels_internal::RegisterFunctionalKernels(r);
  kernels_internal::RegisterDatasetKernels(r);
  kernels_internal::RegisterDatasetSourceKernels(r);
  kernels_internal::RegisterDatasetComposeKernels(r);
  kernels_internal::RegisterDecodeCsvKernels(r);
  kernels_internal::RegisterListKernels(r);
  kernels_internal::RegisterQueueKernels(r);
  kernels_internal::RegisterAccumulatorKernels(r);
  kernels_internal::RegisterOptionalKernels(r);
  kernels_internal::RegisterTensorArrayKernels(r);
#ifndef MG_UNTHREADED_KERNEL_FAMILIES_LEFT_OUT
  // Left out of ThreadSanitizer's build (see BUILD).
  kernels_internal::RegisterImageCodecKernels(r);
  kernels_internal::RegisterImageResizeKernels(r);
  kernels_internal::RegisterImageTransformKernels(r);
  kernels_internal::RegisterCropAndResizeKernels(r);
  kernels_internal::RegisterNonMaxSuppressionKernels(r);
  kernels_internal::RegisterSampleDistortedBoxKernels(r);
  kernels_internal::RegisterGlimpseKernels(r);
  kernels_internal::RegisterDrawBoxesKernels(r);
  kernels_internal::RegisterImageColorKernels(r);
  kernels_internal::RegisterMatrixBandPartKernels(r);
  kernels_internal::RegisterMatrixDiagKernels(r);
  kernels_internal::RegisterLuKernels(r);
  kernels_internal::RegisterQrKernels(r);
  kernels_internal::RegisterSelfAdjointEigKernels(r);
  kernels_internal::RegisterSvdKernels(r);
  kernels_internal::RegisterEigKernels(r);
  kernels_internal::RegisterMatrixSquareRootKernels(r);
  kernels_internal::RegisterMatrixLogarithmKernels(r);
  kernels_internal::RegisterEinsumKernels(r);
  kernels_internal::RegisterCrossKernels(r);
  kernels_internal::RegisterTriangularKernels(r);
  kernels_internal::RegisterTridiagonalKernels(r);
  kernels_internal::RegisterFftKernels(r);
#endif
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

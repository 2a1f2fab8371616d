// The registration function of each kernel family, one per source file;
// RegisterStandardKernels (standard_kernels.h) calls them all. Internal to
// this package.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_KERNEL_FAMILIES_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_KERNEL_FAMILIES_H_

#include "runtime/engine/kernel_registry.h"

namespace minigraph {
namespace kernels_internal {

void RegisterArrayKernels(KernelRegistry* r);
void RegisterSliceKernels(KernelRegistry* r);
void RegisterSpaceBatchKernels(KernelRegistry* r);
void RegisterMirrorPadKernels(KernelRegistry* r);
void RegisterReorderKernels(KernelRegistry* r);
void RegisterSegmentKernels(KernelRegistry* r);
void RegisterSegmentReductionKernels(KernelRegistry* r);
void RegisterSparseKernels(KernelRegistry* r);
void RegisterCountKernels(KernelRegistry* r);
void RegisterSparseSegmentKernels(KernelRegistry* r);
void RegisterSparseMathKernels(KernelRegistry* r);
void RegisterSetKernels(KernelRegistry* r);
void RegisterSparseSliceKernels(KernelRegistry* r);
void RegisterSparseSerializationKernels(KernelRegistry* r);
void RegisterLookupKernels(KernelRegistry* r);
void RegisterQueueKernels(KernelRegistry* r);
void RegisterAccumulatorKernels(KernelRegistry* r);
void RegisterReaderKernels(KernelRegistry* r);
void RegisterDenseHashTableKernels(KernelRegistry* r);
void RegisterAddKernels(KernelRegistry* r);
void RegisterMulKernels(KernelRegistry* r);
void RegisterDivKernels(KernelRegistry* r);
void RegisterMaxMinKernels(KernelRegistry* r);
void RegisterCompareKernels(KernelRegistry* r);
void RegisterUnaryKernels(KernelRegistry* r);
void RegisterSpecialKernels(KernelRegistry* r);
void RegisterComplexKernels(KernelRegistry* r);
void RegisterBitwiseKernels(KernelRegistry* r);
void RegisterBinaryMathKernels(KernelRegistry* r);
void RegisterMatMulKernels(KernelRegistry* r);
void RegisterBatchMatMulKernels(KernelRegistry* r);
void RegisterReductionKernels(KernelRegistry* r);
void RegisterMaxMinProdKernels(KernelRegistry* r);
void RegisterNnKernels(KernelRegistry* r);
void RegisterActivationKernels(KernelRegistry* r);
void RegisterConvKernels(KernelRegistry* r);
void RegisterDepthwiseConvKernels(KernelRegistry* r);
void RegisterPoolingKernels(KernelRegistry* r);
void RegisterCtcKernels(KernelRegistry* r);
void RegisterDilationKernels(KernelRegistry* r);
void RegisterPatchesKernels(KernelRegistry* r);
void RegisterIsotonicKernels(KernelRegistry* r);
void RegisterFractionalPoolKernels(KernelRegistry* r);
void RegisterCandidateSamplingKernels(KernelRegistry* r);
void RegisterRandomKernels(KernelRegistry* r);
void RegisterStatelessRandomKernels(KernelRegistry* r);
void RegisterGammaKernels(KernelRegistry* r);
void RegisterPoissonKernels(KernelRegistry* r);
void RegisterBinomialKernels(KernelRegistry* r);
void RegisterCandidateSamplerKernels(KernelRegistry* r);
void RegisterTruncatedNormalKernels(KernelRegistry* r);
void RegisterSobolKernels(KernelRegistry* r);
void RegisterStateKernels(KernelRegistry* r);
void RegisterTrainingKernels(KernelRegistry* r);
void RegisterScatterKernels(KernelRegistry* r);
void RegisterControlFlowKernels(KernelRegistry* r);
void RegisterSaveRestoreKernels(KernelRegistry* r);
void RegisterSummaryKernels(KernelRegistry* r);
void RegisterSendRecvKernels(KernelRegistry* r);
void RegisterStringKernels(KernelRegistry* r);
void RegisterStringConvertKernels(KernelRegistry* r);
void RegisterStringFormatKernels(KernelRegistry* r);
void RegisterStringNGramsKernels(KernelRegistry* r);
void RegisterUnicodeKernels(KernelRegistry* r);
void RegisterSerializationKernels(KernelRegistry* r);
void RegisterProtoKernels(KernelRegistry* r);
void RegisterImageCodecKernels(KernelRegistry* r);
void RegisterImageResizeKernels(KernelRegistry* r);
void RegisterImageTransformKernels(KernelRegistry* r);
void RegisterCropAndResizeKernels(KernelRegistry* r);
void RegisterNonMaxSuppressionKernels(KernelRegistry* r);
void RegisterSampleDistortedBoxKernels(KernelRegistry* r);
void RegisterGlimpseKernels(KernelRegistry* r);
void RegisterDrawBoxesKernels(KernelRegistry* r);
void RegisterImageColorKernels(KernelRegistry* r);
void RegisterRaggedKernels(KernelRegistry* r);
void RegisterRaggedCrossKernels(KernelRegistry* r);
void RegisterFunctionalKernels(KernelRegistry* r);
void RegisterDatasetKernels(KernelRegistry* r);
void RegisterDatasetSourceKernels(KernelRegistry* r);
void RegisterDatasetComposeKernels(KernelRegistry* r);
void RegisterDecodeCsvKernels(KernelRegistry* r);
void RegisterListKernels(KernelRegistry* r);
void RegisterOptionalKernels(KernelRegistry* r);
void RegisterTensorArrayKernels(KernelRegistry* r);
void RegisterMatrixBandPartKernels(KernelRegistry* r);
void RegisterMatrixDiagKernels(KernelRegistry* r);
void RegisterLuKernels(KernelRegistry* r);
void RegisterQrKernels(KernelRegistry* r);
void RegisterSelfAdjointEigKernels(KernelRegistry* r);
void RegisterSvdKernels(KernelRegistry* r);
void RegisterEigKernels(KernelRegistry* r);
void RegisterMatrixSquareRootKernels(KernelRegistry* r);
void RegisterMatrixLogarithmKernels(KernelRegistry* r);
void RegisterEinsumKernels(KernelRegistry* r);
void RegisterCrossKernels(KernelRegistry* r);
void RegisterFftKernels(KernelRegistry* r);
void RegisterTriangularKernels(KernelRegistry* r);
void RegisterTridiagonalKernels(KernelRegistry* r);
void RegisterExampleParsingKernels(KernelRegistry* r);
void RegisterSequenceExampleParsingKernels(KernelRegistry* r);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_KERNEL_FAMILIES_H_

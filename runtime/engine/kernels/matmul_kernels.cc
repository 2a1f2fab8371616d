// MatMul for float and double, and MatMul's registration (which picks the
// kernel built for the node's dtype; int32 and int64 are built in
// matmul_int_kernels.cc).
#include "runtime/engine/kernels/internal/eigen_util.h"
#include "runtime/engine/kernels/internal/matmul_op_impl.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace kernels_internal {

template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<float>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<double>(
    OpKernelConstruction* c);

template <typename T>
void Gemm(const OpKernelContext* ctx, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) std::fill(c, c + m * n, T(0));
    return;
  }
  // Large float32 products on several threads: the tensor contraction on
  // the intra-op pool (float only, and not accumulating: each would be
  // another instantiation of Eigen's contraction, the costliest code in the
  // build).
  if constexpr (std::is_same_v<T, float>) {
    if (!accumulate && ctx->eigen_device().numThreads() > 1 && m * n * k >= kParallelFlops) {
      using In = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>, Eigen::Unaligned>;
      using Out = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>, Eigen::Unaligned>;
      In A(a, ta ? k : m, ta ? m : k);
      In B(b, tb ? n : k, tb ? k : n);
      Out C(c, m, n);
      Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
          Eigen::IndexPair<Eigen::DenseIndex>(ta ? 0 : 1, tb ? 1 : 0)};
      C.device(ctx->eigen_device()) = A.contract(B, dims);
      return;
    }
  }
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Mat> A(a, ta ? k : m, ta ? m : k);
  Eigen::Map<const Mat> B(b, tb ? n : k, tb ? k : n);
  Eigen::Map<Mat> C(c, m, n);
  if (!accumulate) {
    if (!ta && !tb) C.noalias() = A * B;
    if (!ta && tb) C.noalias() = A * B.transpose();
    if (ta && !tb) C.noalias() = A.transpose() * B;
    if (ta && tb) C.noalias() = A.transpose() * B.transpose();
  } else {
    if (!ta && !tb) C.noalias() += A * B;
    if (!ta && tb) C.noalias() += A * B.transpose();
    if (ta && !tb) C.noalias() += A.transpose() * B;
    if (ta && tb) C.noalias() += A.transpose() * B.transpose();
  }
}

template void Gemm<float>(const OpKernelContext*, const float*, const float*, float*, int64_t,
                          int64_t, int64_t, bool, bool, bool);
template void Gemm<double>(const OpKernelContext*, const double*, const double*, double*,
                           int64_t, int64_t, int64_t, bool, bool, bool);

}  // namespace kernels_internal

void RegisterMatMulKernels(KernelRegistry* r) {
  r->Register("MatMul", [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    switch (dt) {
      case DT_FLOAT: return kernels_internal::NewMatMulKernel<float>(c);
      case DT_DOUBLE: return kernels_internal::NewMatMulKernel<double>(c);
      case DT_INT32: return kernels_internal::NewMatMulKernel<int32_t>(c);
      case DT_INT64: return kernels_internal::NewMatMulKernel<int64_t>(c);
      default: return NoKernelForType(c, dt);
    }
  });
}

}  // namespace minigraph

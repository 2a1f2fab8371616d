// SelfAdjointEigV2 by Eigen's SelfAdjointEigenSolver, the solver
// TensorFlow's CPU kernel uses (ascending eigenvalues, the same signs).
#include <atomic>

#include "Eigen/Eigenvalues"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// SelfAdjointEigV2: the eigenvalues of each symmetric matrix (its lower
// triangle read), ascending, and with compute_v the eigenvectors as
// columns.
template <typename T>
class SelfAdjointEigV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("compute_v", &compute_v_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    const int64_t n = a.dim_size(a.dims() - 1);
    Tensor *e, *v;
    MG_RETURN_IF_ERROR(AllocateEigenOutputs<T>(ctx, a, compute_v_, &e, &v));
    if (n == 0) return absl::OkStatus();
    std::atomic<bool> converged{true};
    ForEachMatrix(ctx, MatrixCount(a), n, [&](int64_t i) {
      Eigen::SelfAdjointEigenSolver<RowMatrix<T>> eig(
          ConstMatrixMap<T>(a.data<T>() + i * n * n, n, n),
          compute_v_ ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
      if (eig.info() != Eigen::Success) converged = false;
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(e->data<T>() + i * n, n) =
          eig.eigenvalues();
      if (compute_v_) MatrixMap<T>(v->data<T>() + i * n * n, n, n) = eig.eigenvectors();
    });
    if (!converged) {
      return absl::InvalidArgumentError(
          "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
    }
    return absl::OkStatus();
  }

 private:
  bool compute_v_ = true;
};

}  // namespace

void RegisterSelfAdjointEigKernels(KernelRegistry* r) {
  r->Register("SelfAdjointEigV2", TypedFactory<SelfAdjointEigV2Op, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

// Eig by Eigen's ComplexEigenSolver, as TensorFlow's eig_op_impl.h: the
// matrix cast to Tout first (real inputs too), the eigenvalues in the
// solver's order (ascending magnitude) and, with compute_v, the unit
// eigenvectors as columns.
#include <atomic>
#include <complex>

#include "Eigen/Eigenvalues"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// T the input's dtype, C = Tout (complex64 for float and complex64,
// complex128 for double and complex128).
template <typename T, typename C>
class EigOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("compute_v", &compute_v_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    const int64_t n = a.dim_size(a.dims() - 1);
    Tensor *e, *v;
    MG_RETURN_IF_ERROR(AllocateEigenOutputs<C>(ctx, a, compute_v_, &e, &v));
    if (n == 0) return absl::OkStatus();
    std::atomic<bool> converged{true};
    ForEachMatrix(ctx, MatrixCount(a), n, [&](int64_t i) {
      const RowMatrix<C> m = ConstMatrixMap<T>(a.data<T>() + i * n * n, n, n).template cast<C>();
      Eigen::ComplexEigenSolver<RowMatrix<C>> eig(m, compute_v_);
      if (eig.info() != Eigen::Success) converged = false;
      Eigen::Map<Eigen::Matrix<C, Eigen::Dynamic, 1>>(e->data<C>() + i * n, n) =
          eig.eigenvalues();
      if (compute_v_) MatrixMap<C>(v->data<C>() + i * n * n, n, n) = eig.eigenvectors();
    });
    if (!converged) {
      return absl::InvalidArgumentError(
          "Eigen decomposition was not successful. The input might not be valid.");
    }
    return absl::OkStatus();
  }

 private:
  bool compute_v_ = true;
};

KernelFactory EigFactory() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType t, tout;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &t));
    MG_RETURN_IF_ERROR(c->GetAttr("Tout", &tout));
    using C64 = std::complex<float>;
    using C128 = std::complex<double>;
    if (tout == DT_COMPLEX64 && t == DT_FLOAT) return MakeFactory<EigOp<float, C64>>()(c);
    if (tout == DT_COMPLEX64 && t == DT_COMPLEX64) return MakeFactory<EigOp<C64, C64>>()(c);
    if (tout == DT_COMPLEX128 && t == DT_DOUBLE) return MakeFactory<EigOp<double, C128>>()(c);
    if (tout == DT_COMPLEX128 && t == DT_COMPLEX128) return MakeFactory<EigOp<C128, C128>>()(c);
    return NoKernelForType(c, t);
  };
}

}  // namespace

void RegisterEigKernels(KernelRegistry* r) { r->Register("Eig", EigFactory()); }

}  // namespace kernels_internal
}  // namespace minigraph

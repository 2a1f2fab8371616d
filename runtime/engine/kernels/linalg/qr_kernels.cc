// Qr by Eigen's HouseholderQR, the solver TensorFlow's CPU kernel uses, so
// that signs come out as there (tf_keras' orthogonal initializer). Each
// decomposition has a file of its own: Eigen's solvers are slow to compile,
// and apart both cores build them.
#include <algorithm>

#include "Eigen/Householder"
#include "Eigen/QR"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Qr: A = Q R, Q with orthonormal columns (m x min(m, n), or m x m with
// full_matrices) and R upper triangular (min(m, n) x n, or m x n).
template <typename T>
class QrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("full_matrices", &full_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckMatrixBatch(a, 0));
    const int64_t m = a.dim_size(a.dims() - 2), n = a.dim_size(a.dims() - 1);
    const int64_t k = std::min(m, n);
    const int64_t q_cols = full_ ? m : k, r_rows = full_ ? m : k;
    MG_ASSIGN_OR_RETURN(TensorShape q_shape, BatchShape(a, {m, q_cols}));
    MG_ASSIGN_OR_RETURN(TensorShape r_shape, BatchShape(a, {r_rows, n}));
    Tensor *q, *r;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, q_shape, &q));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, r_shape, &r));
    if (q->NumElements() == 0 && r->NumElements() == 0) return absl::OkStatus();
    ForEachMatrix(ctx, MatrixCount(a), std::max(m, n), [&](int64_t i) {
      MatrixMap<T> q_i(q->data<T>() + i * m * q_cols, m, q_cols);
      MatrixMap<T> r_i(r->data<T>() + i * r_rows * n, r_rows, n);
      if (m == 0 || n == 0) {
        q_i.setIdentity();
        r_i.setZero();
        return;
      }
      Eigen::HouseholderQR<RowMatrix<T>> qr(ConstMatrixMap<T>(a.data<T>() + i * m * n, m, n));
      q_i = qr.householderQ() * RowMatrix<T>::Identity(m, q_cols);
      r_i = qr.matrixQR().topRows(r_rows).template triangularView<Eigen::Upper>();
    });
    return absl::OkStatus();
  }

 private:
  bool full_ = false;
};

}  // namespace

void RegisterQrKernels(KernelRegistry* r) {
  r->Register("Qr", TypedFactory<QrOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

// Svd by Eigen's BDCSVD, the solver TensorFlow's CPU kernel uses
// (descending singular values, the same signs).
#include <algorithm>

#include "Eigen/SVD"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Svd: A = U diag(s) V', s descending; with compute_uv, U (m x min(m, n),
// or m x m with full_matrices) and V (n x min(m, n), or n x n).
template <typename T>
class SvdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("compute_uv", &compute_uv_));
    return c->GetAttr("full_matrices", &full_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckMatrixBatch(a, 0));
    const int64_t m = a.dim_size(a.dims() - 2), n = a.dim_size(a.dims() - 1);
    const int64_t k = std::min(m, n);
    MG_ASSIGN_OR_RETURN(TensorShape s_shape, BatchShape(a, {k}));
    Tensor *s, *u = nullptr, *v = nullptr;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, s_shape, &s));
    const int64_t u_cols = full_ ? m : k, v_cols = full_ ? n : k;
    if (compute_uv_) {
      MG_ASSIGN_OR_RETURN(TensorShape u_shape, BatchShape(a, {m, u_cols}));
      MG_ASSIGN_OR_RETURN(TensorShape v_shape, BatchShape(a, {n, v_cols}));
      MG_RETURN_IF_ERROR(ctx->allocate_output(1, u_shape, &u));
      MG_RETURN_IF_ERROR(ctx->allocate_output(2, v_shape, &v));
    } else {
      MG_RETURN_IF_ERROR(NotComputed<T>(ctx, 1));
      MG_RETURN_IF_ERROR(NotComputed<T>(ctx, 2));
    }
    if (m == 0 || n == 0) {
      // No singular values; U and V are identities (TensorFlow's).
      for (Tensor* t : {u, v}) {
        if (t == nullptr || t->NumElements() == 0) continue;
        const int64_t rows = t->dim_size(t->dims() - 2), cols = t->dim_size(t->dims() - 1);
        for (int64_t i = 0; i < MatrixCount(*t); ++i) {
          MatrixMap<T>(t->data<T>() + i * rows * cols, rows, cols).setIdentity();
        }
      }
      return absl::OkStatus();
    }
    const unsigned options =
        compute_uv_ ? (full_ ? Eigen::ComputeFullU | Eigen::ComputeFullV
                             : Eigen::ComputeThinU | Eigen::ComputeThinV)
                    : 0;
    ForEachMatrix(ctx, MatrixCount(a), std::max(m, n), [&](int64_t i) {
      Eigen::BDCSVD<RowMatrix<T>> svd(ConstMatrixMap<T>(a.data<T>() + i * m * n, m, n), options);
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(s->data<T>() + i * k, k) =
          svd.singularValues();
      if (compute_uv_) {
        MatrixMap<T>(u->data<T>() + i * m * u_cols, m, u_cols) = svd.matrixU();
        MatrixMap<T>(v->data<T>() + i * n * v_cols, n, v_cols) = svd.matrixV();
      }
    });
    return absl::OkStatus();
  }

 private:
  bool compute_uv_ = true;
  bool full_ = false;
};

}  // namespace

void RegisterSvdKernels(KernelRegistry* r) {
  r->Register("Svd", TypedFactory<SvdOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

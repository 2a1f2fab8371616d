// The orthogonal decompositions, by the Eigen solvers TensorFlow's CPU
// kernels use (so that signs and orders come out as there): Qr
// (HouseholderQR; tf_keras' orthogonal initializer), SelfAdjointEigV2
// (SelfAdjointEigenSolver, ascending eigenvalues) and Svd (BDCSVD,
// descending singular values).
#include <algorithm>
#include <atomic>
#include <vector>

#include "Eigen/Eigenvalues"
#include "Eigen/Householder"
#include "Eigen/QR"
#include "Eigen/SVD"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The batch dimensions of `t` followed by `inner`.
absl::StatusOr<TensorShape> BatchShape(const Tensor& t, std::vector<int64_t> inner) {
  std::vector<int64_t> dims(t.shape().dim_sizes().begin(), t.shape().dim_sizes().end() - 2);
  dims.insert(dims.end(), inner.begin(), inner.end());
  return TensorShape::Build(dims);
}

// The output TensorFlow gives for vectors not asked for: a scalar, 0.
template <typename T>
absl::Status NotComputed(OpKernelContext* ctx, int index) {
  Tensor* out;
  MG_RETURN_IF_ERROR(ctx->allocate_output(index, TensorShape({}), &out));
  *out->data<T>() = T(0);
  return absl::OkStatus();
}

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
    MG_ASSIGN_OR_RETURN(TensorShape e_shape, BatchShape(a, {n}));
    Tensor *e, *v = nullptr;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, e_shape, &e));
    if (compute_v_) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(1, a.shape(), &v));
    } else {
      MG_RETURN_IF_ERROR(NotComputed<T>(ctx, 1));
    }
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

void RegisterDecompositionKernels(KernelRegistry* r) {
  r->Register("Qr", TypedFactory<QrOp, float, double>());
  r->Register("SelfAdjointEigV2", TypedFactory<SelfAdjointEigV2Op, float, double>());
  r->Register("Svd", TypedFactory<SvdOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

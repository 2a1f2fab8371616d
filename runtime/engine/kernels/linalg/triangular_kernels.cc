// Triangular factors and solves, as TensorFlow's cholesky_op.cc and
// matrix_triangular_solve_op_impl.h compute them with Eigen: Cholesky (a
// matrix that is not positive definite gives NaNs in its lower triangle, as
// TensorFlow's does, not an error), MatrixTriangularSolve (batches
// broadcast; a zero on the diagonal divides by zero, as there) and
// BandedTriangularSolve (banded_triangular_solve_op.cc: substitution over
// the band only).
#include <algorithm>
#include <complex>
#include <limits>
#include <optional>
#include <vector>

#include "Eigen/Cholesky"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matrix_batch.h"
#include "runtime/engine/kernels/linalg/matrices.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T>
class CholeskyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(input, 0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return absl::OkStatus();
    const int64_t n = input.dim_size(input.dims() - 1);
    ForEachMatrix(ctx, MatrixCount(input), n, [&](int64_t i) {
      // Reads the lower triangle only.
      Eigen::LLT<RowMatrix<T>, Eigen::Lower> llt(
          ConstMatrixMap<T>(input.data<T>() + i * n * n, n, n));
      MatrixMap<T> l(out->data<T>() + i * n * n, n, n);
      if (llt.info() == Eigen::Success) {
        l = llt.matrixL();
      } else {
        l.setZero();
        l.template triangularView<Eigen::Lower>().setConstant(
            std::numeric_limits<T>::quiet_NaN());
      }
    });
    return absl::OkStatus();
  }
};

// X with A X = B for triangular A (lower or upper, or its adjoint).
template <typename T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("lower", &lower_));
    return c->GetAttr("adjoint", &adjoint_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    MG_RETURN_IF_ERROR(CheckMatrixBatch(a, 0));
    MG_RETURN_IF_ERROR(CheckMatrixBatch(b, 1));
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    const int64_t n = a.dim_size(a.dims() - 1);
    const int64_t k = b.dim_size(b.dims() - 1);
    if (b.dim_size(b.dims() - 2) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input matrix and right-hand side must have the same number of rows: ",
          a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    }
    std::optional<MatrixBatch> batch = MatrixBatch::Make(a.shape(), b.shape(), true);
    if (!batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Incompatible shapes: ", a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    }
    std::vector<int64_t> dims = batch->dims();
    dims.push_back(n);
    dims.push_back(k);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    ForEachMatrix(ctx, batch->count(), n, [&](int64_t i) {
      ConstMatrixMap<T> m(a.data<T>() + batch->x(i) * n * n, n, n);
      ConstMatrixMap<T> rhs(b.data<T>() + batch->y(i) * n * k, n, k);
      MatrixMap<T> x(out->data<T>() + i * n * k, n, k);
      if (lower_ && adjoint_) {
        x.noalias() = m.template triangularView<Eigen::Lower>().adjoint().solve(rhs);
      } else if (lower_) {
        x.noalias() = m.template triangularView<Eigen::Lower>().solve(rhs);
      } else if (adjoint_) {
        x.noalias() = m.template triangularView<Eigen::Upper>().adjoint().solve(rhs);
      } else {
        x.noalias() = m.template triangularView<Eigen::Upper>().solve(rhs);
      }
    });
    return absl::OkStatus();
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

// BandedTriangularSolve: X with A X = B for a triangular A given by its K
// bands, [..., K, M]: lower, row k holds the k-th subdiagonal (A[i][i-k] =
// bands[k][i], padded on the left); upper, row K-1-d holds the d-th
// superdiagonal (A[i][i+d] = bands[K-1-d][i], padded on the right). Bands
// past the matrix are never read. A zero on any matrix's diagonal is
// InvalidArgument (TensorFlow's kernel checks the batch's first matrix
// only, and divides by zero in the others).
template <typename T>
class BandedTriangularSolveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("lower", &lower_));
    return c->GetAttr("adjoint", &adjoint_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    for (const auto& [t, i] : {std::pair<const Tensor*, int>{&a, 0}, {&b, 1}}) {
      if (t->dims() < 2) {
        return absl::InvalidArgumentError(absl::StrCat("In[", i, "] ndims must be >= 2: ",
                                                       t->dims()));
      }
      if (t->NumElements() == 0) {
        return absl::InvalidArgumentError(absl::StrCat("In[", i, "] must not be an empty tensor: ",
                                                       t->shape().DebugString()));
      }
    }
    std::optional<MatrixBatch> batch = MatrixBatch::Make(a.shape(), b.shape(), true);
    if (!batch) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] must have compatible batch dimensions: ",
                       a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    }
    const int64_t bands = a.dim_size(a.dims() - 2), m = a.dim_size(a.dims() - 1);
    const int64_t k = b.dim_size(b.dims() - 1);
    if (b.dim_size(b.dims() - 2) != m) {
      return absl::InvalidArgumentError(absl::StrCat("In[0] mismatch In[1] shape: ", m, " vs. ",
                                                     b.dim_size(b.dims() - 2), ": ",
                                                     a.shape().DebugString(), " ",
                                                     b.shape().DebugString()));
    }
    // The diagonal: the first band of a lower matrix, the last of an upper.
    const int64_t diagonal = lower_ ? 0 : bands - 1;
    for (int64_t i = 0; i < MatrixCount(a); ++i) {
      const T* d = a.data<T>() + (i * bands + diagonal) * m;
      if (std::any_of(d, d + m, [](T v) { return v == T(0); })) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input matrix is not invertible: matrix ", i, " has a zero on its diagonal"));
      }
    }
    std::vector<int64_t> dims = batch->dims();
    dims.push_back(m);
    dims.push_back(k);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t width = std::min(bands, m);  // bands that fit
    ctx->ParallelFor(batch->count(), 8.0 * m * (width + k), 8.0 * m * k, 2.0 * m * width * k,
                     [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        ConstMatrixMap<T> band(a.data<T>() + batch->x(i) * bands * m, bands, m);
        ConstMatrixMap<T> rhs(b.data<T>() + batch->y(i) * m * k, m, k);
        MatrixMap<T> x(out->data<T>() + i * m * k, m, k);
        Solve(band, rhs, width, x);
      }
    });
    return absl::OkStatus();
  }

 private:
  // A[i][j] within the band (j - i between -(width-1) and width-1 on the
  // matrix's side).
  T At(const ConstMatrixMap<T>& band, int64_t i, int64_t j) const {
    return lower_ ? band(i - j, i) : band(band.rows() - 1 - (j - i), i);
  }

  // Forward substitution when the system (A, or its adjoint) is lower
  // triangular, back substitution when upper.
  void Solve(const ConstMatrixMap<T>& band, const ConstMatrixMap<T>& rhs, int64_t width,
             MatrixMap<T>& x) const {
    const int64_t m = x.rows();
    const bool forward = lower_ != adjoint_;
    for (int64_t step = 0; step < m; ++step) {
      const int64_t i = forward ? step : m - 1 - step;
      x.row(i) = rhs.row(i);
      const int64_t first = forward ? std::max<int64_t>(0, i - width + 1) : i + 1;
      const int64_t last = forward ? i : std::min(m, i + width);  // exclusive
      for (int64_t j = first; j < last; ++j) {
        // The system's element (i, j): A's, or A's (j, i) conjugated.
        const T aij = adjoint_ ? Eigen::numext::conj(At(band, j, i)) : At(band, i, j);
        x.row(i) -= aij * x.row(j);
      }
      x.row(i) /= adjoint_ ? Eigen::numext::conj(At(band, i, i)) : At(band, i, i);
    }
  }

  bool lower_ = true;
  bool adjoint_ = false;
};

}  // namespace

void RegisterTriangularKernels(KernelRegistry* r) {
  r->Register("Cholesky", TypedFactory<CholeskyOp, float, double>());
  r->Register("MatrixTriangularSolve", TypedFactory<MatrixTriangularSolveOp, float, double>());
  r->Register("BandedTriangularSolve",
              TypedFactory<BandedTriangularSolveOp, float, double, std::complex<float>,
                           std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph

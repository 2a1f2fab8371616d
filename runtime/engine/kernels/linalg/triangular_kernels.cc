// Triangular factors and solves, as TensorFlow's cholesky_op.cc and
// matrix_triangular_solve_op_impl.h compute them with Eigen: Cholesky (a
// matrix that is not positive definite gives NaNs in its lower triangle, as
// TensorFlow's does, not an error) and MatrixTriangularSolve (batches
// broadcast; a zero on the diagonal divides by zero, as there).
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

}  // namespace

void RegisterTriangularKernels(KernelRegistry* r) {
  r->Register("Cholesky", TypedFactory<CholeskyOp, float, double>());
  r->Register("MatrixTriangularSolve", TypedFactory<MatrixTriangularSolveOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

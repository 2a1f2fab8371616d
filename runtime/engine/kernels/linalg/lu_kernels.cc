// The ops TensorFlow computes from a partially pivoted LU decomposition
// (Eigen's PartialPivLU, as TensorFlow's matrix_inverse_op.cc,
// determinant_op.cc, matrix_solve_op.cc and lu_op.cc use it):
// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, MatrixSolve, Lu.
// An exactly zero pivot is "not invertible" (InvalidArgument), as there; a
// singular matrix's determinant is 0.
#include <atomic>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "Eigen/LU"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The LU of `a` (or of its adjoint), and whether every pivot is nonzero.
template <typename T>
bool Factor(const ConstMatrixMap<T>& a, bool adjoint, Eigen::PartialPivLU<RowMatrix<T>>* lu) {
  if (adjoint) {
    lu->compute(a.adjoint());
  } else {
    lu->compute(a);
  }
  return lu->matrixLU().diagonal().cwiseAbs().minCoeff() > typename Eigen::NumTraits<T>::Real(0);
}

// The batch dimensions of `t` (rank >= 2).
absl::StatusOr<TensorShape> BatchShape(const Tensor& t) {
  return TensorShape::Build(
      absl::Span<const int64_t>(t.shape().dim_sizes().data(), t.dims() - 2));
}

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("adjoint", &adjoint_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(input, 0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return absl::OkStatus();
    const int64_t n = input.dim_size(input.dims() - 1);
    std::atomic<bool> singular{false};
    ForEachMatrix(ctx, MatrixCount(input), n, [&](int64_t i) {
      Eigen::PartialPivLU<RowMatrix<T>> lu(n);
      if (!Factor<T>(ConstMatrixMap<T>(input.data<T>() + i * n * n, n, n), adjoint_, &lu)) {
        singular = true;
        return;
      }
      MatrixMap<T>(out->data<T>() + i * n * n, n, n) = lu.inverse();
    });
    if (singular) return absl::InvalidArgumentError("Input is not invertible.");
    return absl::OkStatus();
  }

 private:
  bool adjoint_ = false;
};

// The sign and log |det| of a (TensorFlow's SLogDet): from the LU's
// permutation and pivots; an empty matrix has determinant 1, a singular one
// sign 0 and log |det| -inf.
template <typename T>
void SignAndLogAbsDet(const ConstMatrixMap<T>& a, T* sign, T* log_abs_det) {
  *sign = 1;
  *log_abs_det = 0;
  if (a.size() > 0) {
    Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> lu(a);
    *sign = lu.permutationP().determinant();
    auto diag = lu.matrixLU().diagonal().array().eval();
    auto abs_diag = diag.cwiseAbs().eval();
    *log_abs_det = abs_diag.log().sum();
    *sign *= (diag / abs_diag).prod();
  }
  if (!std::isfinite(*log_abs_det)) {
    *sign = 0;
    *log_abs_det = *log_abs_det > 0 ? std::numeric_limits<T>::infinity()
                                    : -std::numeric_limits<T>::infinity();
  }
}

// MatrixDeterminant (one output) and LogMatrixDeterminant (sign, log |det|).
template <typename T>
class DeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(input, 0));
    MG_ASSIGN_OR_RETURN(TensorShape shape, BatchShape(input));
    const bool log = ctx->num_outputs() == 2;
    Tensor* first;
    Tensor* second = nullptr;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &first));
    if (log) MG_RETURN_IF_ERROR(ctx->allocate_output(1, shape, &second));
    const int64_t n = input.dim_size(input.dims() - 1);
    ForEachMatrix(ctx, first->NumElements(), n, [&](int64_t i) {
      T sign, log_abs_det;
      SignAndLogAbsDet<T>(ConstMatrixMap<T>(input.data<T>() + i * n * n, n, n), &sign,
                          &log_abs_det);
      if (log) {
        first->data<T>()[i] = sign;
        second->data<T>()[i] = log_abs_det;
      } else {
        first->data<T>()[i] = sign * std::exp(log_abs_det);
      }
    });
    return absl::OkStatus();
  }
};

// MatrixSolve: X with A X = B (or A^H X = B), a batch of each of the same
// batch shape.
template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("adjoint", &adjoint_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    MG_RETURN_IF_ERROR(CheckMatrixBatch(a, 0));
    MG_RETURN_IF_ERROR(CheckMatrixBatch(b, 1));
    if (a.dims() != b.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "All input tensors must have the same rank: ", a.shape().DebugString(), " vs. ",
          b.shape().DebugString()));
    }
    for (int d = 0; d < a.dims() - 2; ++d) {
      if (a.dim_size(d) != b.dim_size(d)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All input tensors must have the same outer dimensions: ", a.shape().DebugString(),
            " vs. ", b.shape().DebugString()));
      }
    }
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    const int64_t n = a.dim_size(a.dims() - 1);
    const int64_t k = b.dim_size(b.dims() - 1);
    if (b.dim_size(b.dims() - 2) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input matrix and right-hand side must have the same number of rows: ",
          a.shape().DebugString(), " vs. ", b.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, b.shape(), &out));
    if (n == 0 || k == 0 || out->NumElements() == 0) return absl::OkStatus();
    std::atomic<bool> singular{false};
    ForEachMatrix(ctx, MatrixCount(a), n, [&](int64_t i) {
      Eigen::PartialPivLU<RowMatrix<T>> lu(n);
      if (!Factor<T>(ConstMatrixMap<T>(a.data<T>() + i * n * n, n, n), adjoint_, &lu)) {
        singular = true;
        return;
      }
      MatrixMap<T>(out->data<T>() + i * n * k, n, k) =
          lu.solve(ConstMatrixMap<T>(b.data<T>() + i * n * k, n, k));
    });
    if (singular) return absl::InvalidArgumentError("Input matrix is not invertible.");
    return absl::OkStatus();
  }

 private:
  bool adjoint_ = false;
};

// Lu: the packed factors (L's unit diagonal left out) and the permutation
// p with A[p] = L U, of `output_idx_type`.
template <typename T>
class LuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(input, 0));
    const int64_t n = input.dim_size(input.dims() - 1);
    Tensor* lu_out;
    Tensor* p_out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &lu_out));
    std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                              input.shape().dim_sizes().end() - 1);
    MG_ASSIGN_OR_RETURN(TensorShape p_shape, TensorShape::Build(dims));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, p_shape, &p_out));
    if (input.NumElements() == 0) return absl::OkStatus();
    const bool p64 = p_out->dtype() == DT_INT64;
    ForEachMatrix(ctx, MatrixCount(input), n, [&](int64_t i) {
      Eigen::PartialPivLU<RowMatrix<T>> lu(ConstMatrixMap<T>(input.data<T>() + i * n * n, n, n));
      MatrixMap<T>(lu_out->data<T>() + i * n * n, n, n) = lu.matrixLU();
      // permutationP() sends row r of A to row indices()(r) of P A = L U;
      // p lists, for each row of L U, the row of A it came from.
      const auto& to = lu.permutationP().indices();
      for (int64_t r = 0; r < n; ++r) {
        if (p64) {
          p_out->data<int64_t>()[i * n + to(r)] = r;
        } else {
          p_out->data<int32_t>()[i * n + to(r)] = static_cast<int32_t>(r);
        }
      }
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterLuKernels(KernelRegistry* r) {
  r->Register("MatrixInverse", TypedFactory<MatrixInverseOp, float, double, std::complex<float>,
                                            std::complex<double>>());
  r->Register("MatrixDeterminant", TypedFactory<DeterminantOp, float, double>());
  r->Register("LogMatrixDeterminant", TypedFactory<DeterminantOp, float, double>());
  r->Register("MatrixSolve", TypedFactory<MatrixSolveOp, float, double, std::complex<float>,
                                          std::complex<double>>());
  r->Register("Lu", TypedFactory<LuOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph

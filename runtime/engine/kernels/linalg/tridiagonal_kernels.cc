// Tridiagonal systems, as TensorFlow's tridiagonal_matmul_op.cc and
// tridiagonal_solve_op.cc define them on CPU: TridiagonalMatMul (the three
// diagonals as [..., 1, M] each, the superdiagonal's last and the
// subdiagonal's first element unused) and TridiagonalSolve (the diagonals
// as the rows of [..., 3, M]). A solve is Gaussian elimination with partial
// pivoting (LAPACK's xGTSV), or without it the Thomas algorithm, or with
// perturb_singular LAPACK's xLAGTF and xLAGTS, whose tiny pivots are nudged
// so that a numerically singular system (inverse iteration's) still
// solves. A singular system gives NaNs, not an error, as TensorFlow's does.
//
// Written here because Eigen has no banded or tridiagonal solver; the
// elimination is LAPACK's, from its documentation.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// InvalidArgument unless every input has the rank and the batch dimensions
// of input 0 (TensorFlow's LinearAlgebraOp rule: no broadcasting).
absl::Status CheckSameBatches(const OpKernelContext* ctx, int inputs) {
  for (int i = 0; i < inputs; ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dims() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input tensor ", i, " must have rank >= 2, got ", t.dims()));
    }
  }
  const Tensor& first = ctx->input(0);
  for (int i = 1; i < inputs; ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dims() != first.dims()) {
      return absl::InvalidArgumentError("All input tensors must have the same rank.");
    }
    for (int d = 0; d < t.dims() - 2; ++d) {
      if (t.dim_size(d) != first.dim_size(d)) {
        return absl::InvalidArgumentError("All input tensors must have the same outer dimensions.");
      }
    }
  }
  return absl::OkStatus();
}

// out = T rhs for the tridiagonal T of each batch entry.
template <typename T>
class TridiagonalMatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckSameBatches(ctx, 4));
    const Tensor& rhs = ctx->input(3);
    const int64_t m = rhs.dim_size(rhs.dims() - 2), n = rhs.dim_size(rhs.dims() - 1);
    for (const auto& [index, what] :
         {std::pair<int, const char*>{0, "superdiagonal"}, {1, "main diagonal"},
          {2, "subdiagonal"}}) {
      const Tensor& d = ctx->input(index);
      if (d.dim_size(d.dims() - 2) != 1 || d.dim_size(d.dims() - 1) != m) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid ", what, " shape ", d.shape().DebugString(), ": it must be [..., 1, ", m,
            "] for a right-hand side of ", rhs.shape().DebugString()));
      }
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* super = ctx->input(0).data<T>();
    const T* main = ctx->input(1).data<T>();
    const T* sub = ctx->input(2).data<T>();
    const T* b = rhs.data<T>();
    T* y = out->data<T>();
    const int64_t rows = rhs.NumElements() / n;  // batch * m
    ctx->ParallelFor(rows, 3.0 * n * sizeof(T), n * sizeof(T), 6.0 * n,
                     [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % m;
        const T* row = b + r * n;
        T* o = y + r * n;
        for (int64_t j = 0; j < n; ++j) o[j] = main[r] * row[j];
        if (i > 0) {
          for (int64_t j = 0; j < n; ++j) o[j] += sub[r] * row[j - n];
        }
        if (i + 1 < m) {
          for (int64_t j = 0; j < n; ++j) o[j] += super[r] * row[j + n];
        }
      }
    });
    return absl::OkStatus();
  }
};

// One tridiagonal system of m equations and k right-hand sides, solved in
// place in `x` (holding rhs on entry, row-major m x k).
template <typename T>
class TridiagonalSystem {
 public:
  using Real = typename Eigen::NumTraits<T>::Real;
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;

  TridiagonalSystem(const T* super, const T* diag, const T* sub, int64_t m, MatrixMap<T> x)
      : super_(super), diag_(diag), sub_(sub), m_(m), x_(x) {}

  // Gaussian elimination with row interchanges (xGTSV): U keeps its
  // diagonal and two superdiagonals in u_.
  void SolveWithPivoting() {
    if (m_ == 1) return SolveScalar();
    std::vector<T> u0(m_), u1(m_), u2(m_, T(0));
    u0[0] = diag_[0];
    u1[0] = super_[0];
    for (int64_t i = 0; i + 1 < m_; ++i) {
      if (std::abs(u0[i]) >= std::abs(sub_[i + 1])) {
        if (u0[i] == T(0)) return Singular();
        const T factor = sub_[i + 1] / u0[i];
        u0[i + 1] = diag_[i + 1] - factor * u1[i];
        x_.row(i + 1) -= factor * x_.row(i);
        if (i + 2 < m_) u1[i + 1] = super_[i + 1];
      } else {  // rows i and i + 1 swap
        const T factor = u0[i] / sub_[i + 1];
        u0[i] = sub_[i + 1];
        u0[i + 1] = u1[i] - factor * diag_[i + 1];
        u1[i] = diag_[i + 1];
        const Row below = x_.row(i + 1);
        x_.row(i + 1) = x_.row(i) - factor * below;
        x_.row(i) = below;
        if (i + 2 < m_) {
          u2[i] = super_[i + 1];
          u1[i + 1] = -factor * super_[i + 1];
        }
      }
    }
    if (u0[m_ - 1] == T(0)) return Singular();
    x_.row(m_ - 1) /= u0[m_ - 1];
    x_.row(m_ - 2) = (x_.row(m_ - 2) - u1[m_ - 2] * x_.row(m_ - 1)) / u0[m_ - 2];
    for (int64_t i = m_ - 3; i >= 0; --i) {
      x_.row(i) = (x_.row(i) - u1[i] * x_.row(i + 1) - u2[i] * x_.row(i + 2)) / u0[i];
    }
  }

  // The Thomas algorithm: elimination without interchanges; a zero pivot
  // gives NaNs (the system may still be solvable with pivoting).
  void SolveWithoutPivoting() {
    if (m_ == 1) return SolveScalar();
    std::vector<T> u(m_);
    if (diag_[0] == T(0)) return Singular();
    u[0] = super_[0] / diag_[0];
    x_.row(0) /= diag_[0];
    for (int64_t i = 1; i < m_; ++i) {
      const T denom = diag_[i] - sub_[i] * u[i - 1];
      if (denom == T(0)) return Singular();
      u[i] = super_[i] / denom;
      x_.row(i) = (x_.row(i) - sub_[i] * x_.row(i - 1)) / denom;
    }
    for (int64_t i = m_ - 2; i >= 0; --i) x_.row(i) -= u[i] * x_.row(i + 1);
  }

  // xLAGTF's factorization with interchanges chosen on scaled pivots, then
  // xLAGTS's back substitution with each tiny pivot perturbed (by about
  // eps * max |U|) or scaled so that nothing overflows.
  void SolveWithPerturbedPivots() {
    constexpr Real kEps = std::numeric_limits<Real>::epsilon();
    if (m_ == 1) {
      T pivot = diag_[0];
      Row row = x_.row(0);
      PerturbPivot(kEps * std::abs(pivot), &pivot, &row);
      x_.row(0) = row * (T(1) / pivot);
      return;
    }
    std::vector<T> u0(m_), u1(m_), u2(m_, T(0));
    u0[0] = diag_[0];
    u1[0] = super_[0];
    Real max_u = std::max(std::abs(u0[0]), std::abs(u1[0]));
    Real scale1 = std::abs(u0[0]) + std::abs(u1[0]);
    for (int64_t k = 0; k + 1 < m_; ++k) {
      u0[k + 1] = diag_[k + 1];
      Real scale2 = std::abs(sub_[k + 1]) + std::abs(u0[k + 1]);
      if (k + 2 < m_) scale2 += std::abs(super_[k + 1]);
      if (sub_[k + 1] == T(0)) {
        scale1 = scale2;
        u1[k + 1] = super_[k + 1];
        u2[k] = T(0);
      } else {
        const Real piv1 = u0[k] == T(0) ? Real(0) : std::abs(u0[k]) / scale1;
        const Real piv2 = std::abs(sub_[k + 1]) / scale2;
        if (piv2 <= piv1) {
          scale1 = scale2;
          const T factor = sub_[k + 1] / u0[k];
          u0[k + 1] = diag_[k + 1] - factor * u1[k];
          u1[k + 1] = super_[k + 1];
          u2[k] = T(0);
          x_.row(k + 1) -= factor * x_.row(k);
        } else {
          const T factor = u0[k] / sub_[k + 1];
          u0[k] = sub_[k + 1];
          u0[k + 1] = u1[k] - factor * diag_[k + 1];
          u1[k] = diag_[k + 1];
          if (k + 2 < m_) {
            u2[k] = super_[k + 1];
            u1[k + 1] = -factor * super_[k + 1];
          }
          const Row below = x_.row(k + 1);
          x_.row(k + 1) = x_.row(k) - factor * below;
          x_.row(k) = below;
        }
      }
      if (k + 2 < m_) {
        max_u = std::max({max_u, std::abs(u0[k]), std::abs(u1[k]), std::abs(u2[k])});
      }
    }
    max_u = std::max(max_u, std::abs(u0[m_ - 1]));
    const Real tol = kEps * max_u;
    for (int64_t k = m_ - 1; k >= 0; --k) {
      Row row = x_.row(k);
      if (k + 1 < m_) row -= u1[k] * x_.row(k + 1);
      if (k + 2 < m_) row -= u2[k] * x_.row(k + 2);
      T pivot = u0[k];
      PerturbPivot(k == m_ - 1 ? tol : std::copysign(tol, std::real(pivot)), &pivot, &row);
      x_.row(k) = row * (T(1) / pivot);
    }
  }

 private:
  void SolveScalar() {
    if (diag_[0] == T(0)) return Singular();
    x_.row(0) /= diag_[0];
  }
  void Singular() { x_.setConstant(T(std::numeric_limits<Real>::quiet_NaN())); }

  // xLAGTS's guard on a pivot below 1 in magnitude: grows it by `perturb`
  // (doubling) until neither 1 / pivot nor row / pivot can overflow, or
  // scales pivot and row up together when the pivot is tiny but the row
  // tinier still.
  static void PerturbPivot(Real perturb, T* pivot, Row* row) {
    constexpr Real kOne = 1;
    constexpr Real kTiny = std::numeric_limits<Real>::min();
    constexpr Real kSmall = kOne / std::numeric_limits<Real>::max();
    constexpr Real kSafeMin =
        kSmall < kTiny ? kTiny : (kOne + std::numeric_limits<Real>::epsilon()) * kSmall;
    constexpr Real kBig = kOne / kSafeMin;
    Real abs_pivot = std::abs(*pivot);
    if (abs_pivot >= kOne) return;
    perturb = std::copysign(std::max(std::abs(perturb), kSafeMin), std::real(*pivot));
    const Real row_max = row->size() == 0 ? Real(0) : row->array().abs().maxCoeff();
    while (abs_pivot < kOne) {
      if (abs_pivot < kSafeMin) {
        if (abs_pivot == 0 || row_max * kSafeMin > abs_pivot) {
          *pivot += perturb;
          perturb *= 2;
        } else {
          *pivot *= kBig;
          *row *= kBig;
          return;
        }
      } else if (row_max > abs_pivot * kBig) {
        *pivot += perturb;
        perturb *= 2;
      } else {
        return;
      }
      abs_pivot = std::abs(*pivot);
    }
  }

  const T* super_;
  const T* diag_;
  const T* sub_;
  int64_t m_;
  MatrixMap<T> x_;
};

template <typename T>
class TridiagonalSolveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("partial_pivoting", &pivoting_));
    if (c->def().attr().contains("perturb_singular")) {
      MG_RETURN_IF_ERROR(c->GetAttr("perturb_singular", &perturb_));
    }
    if (perturb_ && !pivoting_) {
      return absl::InvalidArgumentError(
          "Setting perturb_singular requires also setting partial_pivoting.");
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckSameBatches(ctx, 2));
    const Tensor& diagonals = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const int64_t rows = diagonals.dim_size(diagonals.dims() - 2);
    const int64_t m = diagonals.dim_size(diagonals.dims() - 1);
    const int64_t k = rhs.dim_size(rhs.dims() - 1);
    if (rows != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected diagonals to be provided as a matrix with 3 rows, got ", rows, " rows."));
    }
    if (rhs.dim_size(rhs.dims() - 2) != m) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected the same number of left-hand sides and right-hand sides, got ", m, " and ",
          rhs.dim_size(rhs.dims() - 2), "."));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    std::copy_n(rhs.data<T>(), rhs.NumElements(), out->data<T>());
    const T* d = diagonals.data<T>();
    ctx->ParallelFor(MatrixCount(rhs), 3.0 * m * sizeof(T), m * k * sizeof(T), 8.0 * m * (k + 1),
                     [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const T* diags = d + i * 3 * m;
        TridiagonalSystem<T> system(diags, diags + m, diags + 2 * m, m,
                                    MatrixMap<T>(out->data<T>() + i * m * k, m, k));
        if (perturb_) {
          system.SolveWithPerturbedPivots();
        } else if (pivoting_) {
          system.SolveWithPivoting();
        } else {
          system.SolveWithoutPivoting();
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  bool pivoting_ = true;
  bool perturb_ = false;
};

}  // namespace

void RegisterTridiagonalKernels(KernelRegistry* r) {
  r->Register("TridiagonalMatMul",
              TypedFactory<TridiagonalMatMulOp, float, double, std::complex<float>,
                           std::complex<double>>());
  r->Register("TridiagonalSolve",
              TypedFactory<TridiagonalSolveOp, float, double, std::complex<float>,
                           std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph

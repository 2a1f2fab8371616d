// MatMul: for float and double Eigen's dense GEMM, a large product split
// into row (or column) blocks across the intra-op pool; for integers a
// plain loop. GemmBatch: the products of a batch of matrices (BatchMatMul,
// Einsum).
// The kernel template is instantiated once per dtype, in matmul_kernels.cc
// and matmul_int_kernels.cc (the extern template declarations below keep
// every other file from instantiating it again).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "absl/status/statusor.h"
#include "runtime/engine/kernels/internal/matrix_batch.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// A MatMul kernel for element type T (float, double, int32_t, int64_t,
// complex64 or complex128).
template <typename T>
absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel(OpKernelConstruction* c);

extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<float>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<double>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int32_t>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<int64_t>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<complex64>(
    OpKernelConstruction* c);
extern template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<complex128>(
    OpKernelConstruction* c);

// C = op(A) * op(B), or C += op(A) * op(B) when `accumulate`, for
// row-major matrices: op(A) is m x k (A stored k x m when `ta`), op(B) is
// k x n (B stored n x k when `tb`), C is m x n. A large product runs on the
// step's intra-op pool. For kernels that lower to a product (convolutions).
// T: float or double.
template <typename T>
void Gemm(const OpKernelContext* ctx, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, bool accumulate);

extern template void Gemm<float>(const OpKernelContext*, const float*, const float*, float*,
                                 int64_t, int64_t, int64_t, bool, bool, bool);
extern template void Gemm<double>(const OpKernelContext*, const double*, const double*, double*,
                                  int64_t, int64_t, int64_t, bool, bool, bool);

// C = op(A) * op(B) for integers, as Gemm's arguments, wrapping around on
// overflow. A plain loop over the output's rows on this thread: integer
// products are rare in training graphs, and Eigen's GEMM for int32 and
// int64 cost more build time than their use warrants.
template <typename T>
void IntMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  using U = std::make_unsigned_t<T>;
  std::fill(c, c + m * n, T(0));
  for (int64_t i = 0; i < m; ++i) {
    U* __restrict row = reinterpret_cast<U*>(c + i * n);
    for (int64_t p = 0; p < k; ++p) {
      const U aip = static_cast<U>(ta ? a[p * m + i] : a[i * k + p]);
      if (tb) {
        for (int64_t j = 0; j < n; ++j) row[j] += aip * static_cast<U>(b[j * k + p]);
      } else {
        const T* __restrict brow = b + p * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) row[j] += aip * static_cast<U>(brow[j]);
      }
    }
  }
}

// C = op(A) * op(B) for complex numbers, as Gemm's arguments; with
// `conjugate`, a transposed operand is also conjugated (BatchMatMul's
// adjoints; MatMul's and Einsum's transposes are plain). A plain loop on
// this thread, each product the schoolbook one (ComplexMul): complex
// products are rare in training graphs (the gradients of 2-D real FFTs),
// and Eigen's complex GEMM would cost more build time than their use.
template <typename T>
void ComplexMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool ta,
                   bool tb, bool conjugate) {
  auto maybe_conj = [conjugate](T v, bool transposed) {
    return conjugate && transposed ? std::conj(v) : v;
  };
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum(0);
      for (int64_t p = 0; p < k; ++p) {
        const T x = maybe_conj(ta ? a[p * m + i] : a[i * k + p], ta);
        const T y = maybe_conj(tb ? b[j * k + p] : b[p * n + j], tb);
        sum += T(x.real() * y.real() - x.imag() * y.imag(),
                 x.real() * y.imag() + x.imag() * y.real());
      }
      c[i * n + j] = sum;
    }
  }
}

// Below this many multiply-adds a product runs on one thread (an LSTM's
// 32 x 256 x 512 gate product, ~50 us, gains from two).
constexpr int64_t kParallelFlops = int64_t{1} << 21;

// GemmBatch of small float products on oneDNN's batched matmul, the
// batch cut into a share per intra-op thread: false (nothing done) unless
// each result matrix reads its own matrix of x and its own of y, or one y
// for all.
bool GemmBatchOnOneDnn(const OpKernelContext* ctx, const MatrixBatch& batch, const float* a,
                       const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta,
                       bool tb);

// For each matrix i of `batch`: C_i = op(A_x(i)) * op(B_y(i)), where A's
// matrices (m x k as op(A) sees them), B's (k x n) and C's (m x n) are
// stored one after another. Products below kParallelFlops run side by side
// on the intra-op pool (attention's many small ones; float ones as
// GemmBatchOnOneDnn's batched matmuls); a larger one is split as Gemm
// splits it. T: float, double, int32_t, int64_t, complex64 or
// complex128 (`conjugate` as ComplexMatMul's).
template <typename T>
void GemmBatch(const OpKernelContext* ctx, const MatrixBatch& batch, const T* a, const T* b,
               T* c, int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool conjugate = false) {
  if constexpr (std::is_same_v<T, float>) {
    if (m * n > 0 && GemmBatchOnOneDnn(ctx, batch, a, b, c, m, n, k, ta, tb)) return;
  }
  auto one = [&](int64_t i) {
    T* ci = c + i * m * n;
    const T* ai = a + batch.x(i) * m * k;
    const T* bi = b + batch.y(i) * k * n;
    if constexpr (std::is_integral_v<T>) {
      IntMatMul(ai, bi, ci, m, n, k, ta, tb);
    } else if constexpr (kIsComplex<T>) {
      ComplexMatMul(ai, bi, ci, m, n, k, ta, tb, conjugate);
    } else {
      Gemm(ctx, ai, bi, ci, m, n, k, ta, tb, /*accumulate=*/false);
    }
  };
  if (m * n == 0) return;
  if (batch.count() == 1 || m * n * k >= kParallelFlops) {
    for (int64_t i = 0; i < batch.count(); ++i) one(i);
    return;
  }
  const double cost = 2.0 * static_cast<double>(m) * n * std::max<int64_t>(k, 1);
  ctx->ParallelFor(batch.count(), 0, 0, cost, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) one(i);
  });
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_H_

// MatMul for float and double, and MatMul's registration (which picks the
// kernel built for the node's dtype; the integer and complex ones are built
// in matmul_int_kernels.cc).
#include "Eigen/Core"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matmul_op_impl.h"
#include "runtime/engine/kernels/internal/onednn_conv.h"

namespace minigraph {
namespace kernels_internal {

template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<float>(
    OpKernelConstruction* c);
template absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel<double>(
    OpKernelConstruction* c);

namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatMap = Eigen::Map<const Mat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// C += op(A) * op(B) on this thread, for row-major blocks whose rows are
// `lda`, `ldb` and `ldc` elements apart. Every product, whole or one
// thread's share, goes through these four expressions: Eigen's GEMM is the
// costliest code in the build, so it is instantiated once per layout and
// dtype (assigning would add four more; zeroing C first costs one pass over
// it, which is what Eigen does itself for a product of this size).
template <typename T>
void GemmAccumulate(const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t m,
                    int64_t n, int64_t k, bool ta, bool tb) {
  ConstMatMap<T> A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  ConstMatMap<T> B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  Eigen::Map<Mat<T>, Eigen::Unaligned, Eigen::OuterStride<>> C(c, m, n, Eigen::OuterStride<>(ldc));
  if (!ta && !tb) C.noalias() += A * B;
  if (!ta && tb) C.noalias() += A * B.transpose();
  if (ta && !tb) C.noalias() += A.transpose() * B;
  if (ta && tb) C.noalias() += A.transpose() * B.transpose();
}

// Rows (or columns) of C per thread's share are multiples of this, so the
// shares stay aligned with GEMM's register blocks.
constexpr int64_t kGemmShareAlign = 16;

}  // namespace

template <typename T>
void Gemm(const OpKernelContext* ctx, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool ta, bool tb, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) std::fill(c, c + m * n, T(0));
    return;
  }
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  // C's rows [row, row + rows) and columns [col, col + cols) on this thread.
  // Float on oneDNN (as TensorFlow's MatMul): Eigen's GEMM took twice as
  // long on the LSTM and attention products of tools/tf_bench.py's models.
  // On one thread per call: oneDNN's own OpenMP threads would spin on the
  // cores after each product, taking them from the intra-op pool.
  auto block = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
    const T* ab = a + (ta ? row : row * k);
    const T* bb = b + (tb ? col * k : col);
    T* cb = c + row * n + col;
    if constexpr (std::is_same_v<T, float>) {
      if (OneDnnGemm(ab, lda, bb, ldb, cb, n, rows, cols, k, ta, tb, accumulate, 1).ok()) return;
    }
    if (!accumulate) {
      for (int64_t i = 0; i < rows; ++i) std::fill_n(cb + i * n, cols, T(0));
    }
    GemmAccumulate(ab, lda, bb, ldb, cb, n, rows, cols, k, ta, tb);
  };
  const int threads = ctx->intra_op_threads();
  if (threads <= 1 || m * n * k < kParallelFlops) {
    block(0, m, 0, n);
    return;
  }
  // A large product on the intra-op pool: C is cut into row blocks (or
  // column blocks when it is wider than tall), each a product of its own
  // with the matching rows of op(A) (columns of op(B)). A few shares per
  // thread even out threads that start late.
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  int64_t share = (extent + 4 * threads - 1) / (4 * threads);
  share =
      std::max(kGemmShareAlign, (share + kGemmShareAlign - 1) / kGemmShareAlign * kGemmShareAlign);
  const int64_t shares = (extent + share - 1) / share;
  const double flops_per_share = 2.0 * static_cast<double>(share) * (by_rows ? n : m) * k;
  ctx->ParallelFor(shares, 0, 0, flops_per_share, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t begin = i * share, size = std::min(share, extent - begin);
      if (by_rows) {
        block(begin, size, 0, n);
      } else {
        block(0, m, begin, size);
      }
    }
  });
}

bool GemmBatchOnOneDnn(const OpKernelContext* ctx, const MatrixBatch& batch, const float* a,
                       const float* b, float* c, int64_t m, int64_t n, int64_t k, bool ta,
                       bool tb) {
  const int64_t count = batch.count();
  if (count <= 1 || k == 0 || m * n * k >= kParallelFlops) return false;
  bool x_own = true, y_own = true, y_shared = true;
  for (int64_t i = 0; i < count; ++i) {
    x_own = x_own && batch.x(i) == i;
    y_own = y_own && batch.y(i) == i;
    y_shared = y_shared && batch.y(i) == 0;
  }
  if (!x_own || !(y_own || y_shared)) return false;
  // One oneDNN call per thread's share of the batch (each call has a fixed
  // cost), one share for a batch too small to split.
  const int shares = count * m * n * k < kParallelFlops
                         ? 1
                         : static_cast<int>(std::min<int64_t>(count, ctx->intra_op_threads()));
  ctx->ParallelFor(shares, 0, 0, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      const int64_t first = count * s / shares, last = count * (s + 1) / shares;
      const float* bs = y_shared ? b : b + first * k * n;
      if (OneDnnBatchGemm(a + first * m * k, bs, c + first * m * n, last - first, m, n, k, ta,
                          tb, y_shared, 1)
              .ok()) {
        continue;
      }
      for (int64_t i = first; i < last; ++i) {
        Gemm(ctx, a + i * m * k, y_shared ? b : b + i * k * n, c + i * m * n, m, n, k, ta, tb,
             /*accumulate=*/false);
      }
    }
  });
  return true;
}

template void Gemm<float>(const OpKernelContext*, const float*, const float*, float*, int64_t,
                          int64_t, int64_t, bool, bool, bool);
template void Gemm<double>(const OpKernelContext*, const double*, const double*, double*,
                           int64_t, int64_t, int64_t, bool, bool, bool);

void RegisterMatMulKernels(KernelRegistry* r) {
  r->Register("MatMul", [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    switch (dt) {
      case DT_FLOAT: return NewMatMulKernel<float>(c);
      case DT_DOUBLE: return NewMatMulKernel<double>(c);
      case DT_INT32: return NewMatMulKernel<int32_t>(c);
      case DT_INT64: return NewMatMulKernel<int64_t>(c);
      case DT_COMPLEX64: return NewMatMulKernel<complex64>(c);
      case DT_COMPLEX128: return NewMatMulKernel<complex128>(c);
      default: return NoKernelForType(c, dt);
    }
  });
}

}  // namespace kernels_internal
}  // namespace minigraph

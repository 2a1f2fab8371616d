// What the decompositions of linalg/ share: a tensor's innermost two
// dimensions as a batch of row-major Eigen matrices (TensorFlow's
// linalg_ops_common.h layout, so that Eigen's decompositions see what they
// see in TensorFlow), the checks of their shapes, and a parallel loop over
// the batch.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRICES_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRICES_H_

#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;

// InvalidArgument unless `t` (input `index`) has rank >= 2.
inline absl::Status CheckMatrixBatch(const Tensor& t, int index) {
  if (t.dims() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("Input tensor ", index,
                                                   " must have rank >= 2, received shape: ",
                                                   t.shape().DebugString()));
  }
  return absl::OkStatus();
}

// InvalidArgument unless `t` is a batch of square matrices.
inline absl::Status CheckSquareBatch(const Tensor& t, int index) {
  MG_RETURN_IF_ERROR(CheckMatrixBatch(t, index));
  if (t.dim_size(t.dims() - 1) != t.dim_size(t.dims() - 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input matrix must be square, received shape: ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

// The number of matrices of `t` (rank >= 2).
inline int64_t MatrixCount(const Tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dims() - 2; ++i) n *= t.dim_size(i);
  return n;
}

// Runs fn(i) for each of `count` matrices of n x n, across the step's
// threads (a decomposition costs about n^3).
template <typename Fn>
void ForEachMatrix(OpKernelContext* ctx, int64_t count, int64_t n, const Fn& fn) {
  const double cube = static_cast<double>(n) * n * n;
  ctx->ParallelFor(count, 8.0 * n * n, 8.0 * n * n, cube + 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i);
  });
}

// The batch dimensions of `t` followed by `inner`.
inline absl::StatusOr<TensorShape> BatchShape(const Tensor& t, std::vector<int64_t> inner) {
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

// The outputs of an eigen decomposition of the square matrices `a`: the
// eigenvalues e [..., n] and, with `compute_v`, the eigenvectors v like a
// (else NotComputed, v left null); E is their element type.
template <typename E>
absl::Status AllocateEigenOutputs(OpKernelContext* ctx, const Tensor& a, bool compute_v,
                                  Tensor** e, Tensor** v) {
  const int64_t n = a.dim_size(a.dims() - 1);
  MG_ASSIGN_OR_RETURN(TensorShape e_shape, BatchShape(a, {n}));
  MG_RETURN_IF_ERROR(ctx->allocate_output(0, e_shape, e));
  *v = nullptr;
  if (compute_v) return ctx->allocate_output(1, a.shape(), v);
  return NotComputed<E>(ctx, 1);
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_LINALG_MATRICES_H_

// A SparseTensor given to a kernel as three inputs (indices [N, rank],
// values [N], dense_shape [rank]), read and checked once for the sparse
// families' kernels.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_SPARSE_SPARSE_INPUT_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_SPARSE_SPARSE_INPUT_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// A SparseTensor's indices (int64, or int32 where the op allows) and dense
// shape, as read by ReadSparse; its values stay in the kernel's input.
struct SparseInput {
  std::vector<int64_t> indices;  // row-major [nnz, rank]
  int64_t nnz = 0;
  std::vector<int64_t> shape;

  int rank() const { return static_cast<int>(shape.size()); }
  const int64_t* at(int64_t i) const { return indices.data() + i * rank(); }
};

// The SparseTensor at inputs first, first + 1 and first + 2 of `ctx`,
// checked against each other: indices a matrix with one column per
// dimension, values a vector of one per row of indices, and (with
// `in_range`) every index inside the shape. InvalidArgument naming k's op
// otherwise.
absl::StatusOr<SparseInput> ReadSparse(const OpKernelContext* ctx, const OpKernel& k, int first,
                                       bool in_range = true);
// As ReadSparse, the three tensors at inputs `indices`, `values` and
// `shape` (an op taking lists of SparseTensors).
absl::StatusOr<SparseInput> ReadSparseAt(const OpKernelContext* ctx, const OpKernel& k,
                                         int indices, int values, int shape, bool in_range);

// OK when sp's indices are inside its shape and strictly increasing in
// row-major order (TensorFlow's SparseTensor::IndicesValid, which many
// sparse ops run under validate_indices); else InvalidArgument naming k's
// op and the first index that is out of bounds, out of order or repeated.
absl::Status CheckIndicesOrdered(const SparseInput& sp, const OpKernel& k);

// -1, 0 or 1 as the first `rank` coordinates of index a come before, with
// or after those of b (row-major order).
int CompareIndex(const int64_t* a, const int64_t* b, int rank);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_SPARSE_SPARSE_INPUT_H_

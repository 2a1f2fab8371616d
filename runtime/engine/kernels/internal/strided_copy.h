// Copies an N-dimensional block of elements between two strided layouts:
// the one loop behind Transpose, Slice, StridedSlice (and its gradient),
// Tile, Pad, ReverseV2, Split and Unpack. Works on any dtype (strings
// included) by element size, so it is compiled once, not per op and dtype.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_STRIDED_COPY_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_STRIDED_COPY_H_

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace minigraph {
namespace kernels_internal {

// For every index i in [0, dims): dst[dst_offset + sum(i_k * dst_strides_k)]
// = src[src_offset + sum(i_k * src_strides_k)]. Offsets and strides count
// elements and may be negative (a reversed axis) or zero (a repeated one).
// REQUIRES: src and dst have one dtype; every index stays in bounds.
struct StridedBlock {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides, dst_strides;
  int64_t src_offset = 0, dst_offset = 0;
};
void CopyStrided(const Tensor& src, Tensor* dst, const StridedBlock& block);

// Row-major strides of `shape` (in elements).
std::vector<int64_t> RowMajorStrides(const TensorShape& shape);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_STRIDED_COPY_H_

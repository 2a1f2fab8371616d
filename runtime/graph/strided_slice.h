// TensorFlow's StridedSlice semantics (tf.Tensor.__getitem__): the begin,
// end and strides vectors with their five masks, resolved against an
// input's dims into one begin, stride and size per input dimension and the
// output's dims. The shape function and the kernels (StridedSlice,
// StridedSliceGrad) share it, so they agree by construction.
//
//   x[1:, ..., ::-1, tf.newaxis, 2]
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_RUNTIME_GRAPH_STRIDED_SLICE_H_
#define MINIGRAPH_RUNTIME_GRAPH_STRIDED_SLICE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace minigraph {

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

struct StridedSlice {
  // Per input dimension: the first index, the step, and how many elements
  // (-1 when the input's dim is unknown).
  std::vector<int64_t> begin, stride, size;
  // The output's dims: sizes without the shrunk dims, with a 1 per new
  // axis (-1 unknown).
  std::vector<int64_t> output_dims;
};

// `input_dims` may hold -1 for unknown dims (shape inference). Returns
// InvalidArgument with TensorFlow's messages: a zero stride, a shrunk index
// out of bounds, more than one ellipsis, more indices than dims, vectors of
// different lengths.
absl::StatusOr<StridedSlice> ResolveStridedSlice(absl::Span<const int64_t> input_dims,
                                                 absl::Span<const int64_t> begin,
                                                 absl::Span<const int64_t> end,
                                                 absl::Span<const int64_t> strides,
                                                 const StridedSliceMasks& masks);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_STRIDED_SLICE_H_

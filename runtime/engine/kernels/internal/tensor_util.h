// Helpers shared by the kernels that need no Eigen (reading shapes and
// indices out of int tensors).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_TENSOR_UTIL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_TENSOR_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"

namespace minigraph {
namespace kernels_internal {

// Reads the int32 or int64 elements of a 1-D (or scalar) tensor.
absl::StatusOr<std::vector<int64_t>> IntsFromTensor(const Tensor& t, absl::string_view what);

// Reads the int32 or int64 elements of a tensor of any shape, row-major.
absl::StatusOr<std::vector<int64_t>> FlatInts(const Tensor& t, absl::string_view what);

// A TensorShape from an int vector tensor (Fill dims, random op shapes).
absl::StatusOr<TensorShape> ShapeFromTensor(const Tensor& t, absl::string_view what);

// `axis` in [-rank, rank) made non-negative, or InvalidArgument naming `op`.
absl::StatusOr<int64_t> CanonicalAxis(int64_t axis, int rank, absl::string_view op);

// OK when `count` elements of `element_bytes` each (scratch a kernel sizes
// from its inputs' values, not from a tensor it allocates) fit within
// MaxTensorBytes(); else ResourceExhausted naming `what`, before anything is
// allocated.
absl::Status CheckScratchSize(int64_t count, size_t element_bytes, absl::string_view what);

// "[2,0]" for element `i` of a tensor of dimensions `dims` (where a bad
// index sits, for messages).
std::string ElementPosition(absl::Span<const int64_t> dims, int64_t i);

// Copies `n` elements between tensors of one dtype, at element offsets
// (memcpy for plain types, element copies for strings and handles).
void CopyElements(const Tensor& src, int64_t src_off, Tensor* dst, int64_t dst_off, int64_t n);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_TENSOR_UTIL_H_

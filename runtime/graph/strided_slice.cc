#include "runtime/graph/strided_slice.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return (mask >> i) & 1; }

// The spec with the ellipsis expanded and new axes left out: one begin,
// end, stride and mask bit per input dimension (TensorFlow's
// BuildDenseSpec, tensorflow/core/util/strided_slice_op.cc, restated).
struct DenseSpec {
  std::vector<int64_t> begin, end, stride;
  int64_t begin_mask = 0, end_mask = 0, shrink = 0;
  std::vector<int> gather;  // per sparse index: a dense dim, kNewAxis or kShrinkAxis
};

absl::Status CheckSpec(absl::Span<const int64_t> begin, absl::Span<const int64_t> end,
                       absl::Span<const int64_t> strides, const StridedSliceMasks& masks) {
  if (begin.size() != end.size() || begin.size() != strides.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [",
        begin.size(), "], [", end.size(), "], and [", strides.size(), "] instead."));
  }
  if (masks.ellipsis & (masks.ellipsis - 1)) {
    return absl::InvalidArgumentError("Multiple ellipses in slice spec not allowed");
  }
  return absl::OkStatus();
}

absl::StatusOr<DenseSpec> BuildDenseSpec(int dims, absl::Span<const int64_t> begin,
                                         absl::Span<const int64_t> end,
                                         absl::Span<const int64_t> strides,
                                         const StridedSliceMasks& masks) {
  int sparse_dims = static_cast<int>(begin.size());
  int64_t ellipsis = masks.ellipsis;
  // No ellipsis: one is implied after the last index.
  if (ellipsis == 0) {
    ellipsis = int64_t{1} << sparse_dims;
    ++sparse_dims;
  }
  int new_axis_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (seen && Bit(masks.new_axis, i)) ++new_axis_after_ellipsis;
    if (Bit(ellipsis, i)) seen = true;
  }
  DenseSpec d;
  d.begin.assign(dims, 0);
  d.end.assign(dims, 0);
  d.stride.assign(dims, 1);
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis, i)) {
      const int next = std::min(dims - (sparse_dims - i) + 1 + new_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        d.begin_mask |= int64_t{1} << full;
        d.end_mask |= int64_t{1} << full;
        d.gather.push_back(full);
      }
    } else if (Bit(masks.new_axis, i)) {
      d.gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return absl::InvalidArgumentError(absl::StrCat("Index out of range using input dim ", full,
                                                       "; input has only ", dims, " dims"));
      }
      d.begin[full] = begin[i];
      d.end[full] = end[i];
      d.stride[full] = strides[i];
      if (Bit(masks.begin, i)) d.begin_mask |= int64_t{1} << full;
      if (Bit(masks.end, i)) d.end_mask |= int64_t{1} << full;
      if (Bit(masks.shrink_axis, i)) {
        d.gather.push_back(kShrinkAxis);
        d.shrink |= int64_t{1} << full;
      } else {
        d.gather.push_back(full);
      }
      ++full;
    }
  }
  return d;
}

// Dense dimension i's first index, stride and size in `out`, against the
// input's dim there (-1: unknown).
absl::Status ResolveDim(const DenseSpec& d, int i, int64_t dim, StridedSlice* out) {
  const int64_t stride = d.stride[i];
  if (stride == 0) {
    return absl::InvalidArgumentError(absl::StrCat("strides[", i, "] must be non-zero"));
  }
  const bool shrink = Bit(d.shrink, i);
  if (shrink && stride <= 0) {
    return absl::InvalidArgumentError("only stride 1 allowed on non-range indexing.");
  }
  out->stride[i] = stride;
  if (dim < 0) {  // unknown (shape inference only)
    out->begin[i] = 0;
    out->size[i] = shrink ? 1 : -1;
    return absl::OkStatus();
  }
  const bool masked[2] = {Bit(d.begin_mask, i), Bit(d.end_mask, i)};
  const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  auto canonical = [&](int64_t x, int c) {
    if (masked[c]) return stride > 0 ? (c == 0 ? lo : hi) : (c == 0 ? hi : lo);
    const int64_t fwd = x < 0 ? dim + x : x;
    return std::clamp(fwd, lo, hi);
  };
  int64_t b, e;
  if (shrink) {
    b = d.begin[i] < 0 ? dim + d.begin[i] : d.begin[i];
    e = b + 1;
    if (b < 0 || b >= dim) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice index ", d.begin[i], " of dimension ", i, " out of bounds."));
    }
  } else {
    b = canonical(d.begin[i], 0);
    e = canonical(d.end[i], 1);
  }
  const int64_t length = e - b;
  int64_t size = 0;
  if (length != 0 && (length < 0) == (stride < 0)) {
    size = length / stride + (length % stride != 0 ? 1 : 0);
  }
  out->begin[i] = b;
  out->size[i] = size;
  return absl::OkStatus();
}

}  // namespace

// TensorFlow's BuildDenseSpec and ValidateStridedSliceOp
// (tensorflow/core/util/strided_slice_op.cc), restated.
absl::StatusOr<StridedSlice> ResolveStridedSlice(absl::Span<const int64_t> input_dims,
                                                 absl::Span<const int64_t> begin,
                                                 absl::Span<const int64_t> end,
                                                 absl::Span<const int64_t> strides,
                                                 const StridedSliceMasks& masks) {
  MG_RETURN_IF_ERROR(CheckSpec(begin, end, strides, masks));
  const int dims = static_cast<int>(input_dims.size());
  MG_ASSIGN_OR_RETURN(const DenseSpec d, BuildDenseSpec(dims, begin, end, strides, masks));
  StridedSlice out;
  out.begin.resize(dims);
  out.stride.resize(dims);
  out.size.resize(dims);
  for (int i = 0; i < dims; ++i) MG_RETURN_IF_ERROR(ResolveDim(d, i, input_dims[i], &out));
  for (int g : d.gather) {
    if (g >= 0) {
      out.output_dims.push_back(out.size[g]);
    } else if (g == kNewAxis) {
      out.output_dims.push_back(1);
    }
  }
  return out;
}

}  // namespace minigraph

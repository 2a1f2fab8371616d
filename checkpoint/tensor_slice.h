// A slice of a tensor: per dimension a start and a length, or the whole
// dimension. Partitioned variables save one slice each under the full
// tensor's name; a checkpoint stores each slice as a tensor of its own under
// an OrderedCode key (EncodeTensorNameSlice) and lists the slices in the
// full tensor's entry (../shared/reference/tensor_bundle_format.md §8).
//
//   MG_ASSIGN_OR_RETURN(TensorSlice s, TensorSlice::Parse("0,5:-", 2));  // rows 0..4
//   TensorShape part = s.SliceShape(TensorShape({10, 3}));              // [5,3]

#ifndef MINIGRAPH_CHECKPOINT_TENSOR_SLICE_H_
#define MINIGRAPH_CHECKPOINT_TENSOR_SLICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/tensor_slice.pb.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"

namespace minigraph {

class TensorSlice {
 public:
  // The length of a whole dimension.
  static constexpr int64_t kFullExtent = -1;

  // The whole of a tensor of rank `rank`.
  static TensorSlice Full(int rank);
  // TensorFlow's text form: per dimension "start,length" or "-", joined by
  // ':' ("0,5:-"); "" for a scalar. InvalidArgument naming `spec`.
  static absl::StatusOr<TensorSlice> Parse(absl::string_view spec);
  static absl::StatusOr<TensorSlice> FromProto(const TensorSliceProto& proto);

  int dims() const { return static_cast<int>(starts_.size()); }
  int64_t start(int d) const { return starts_[d]; }
  int64_t length(int d) const { return lengths_[d]; }
  bool IsFullAt(int d) const { return lengths_[d] == kFullExtent; }
  // True when the slice is the whole of a tensor of `shape` (each
  // dimension whole, or from 0 to its size).
  bool Covers(const TensorShape& shape) const;

  // InvalidArgument naming the slice unless it has `shape`'s rank and lies
  // within it.
  absl::Status CheckWithin(const TensorShape& shape) const;
  // The shape of the slice of a tensor of `shape`. REQUIRES: CheckWithin.
  TensorShape SliceShape(const TensorShape& shape) const;
  // The part both slices cover, with whole dimensions resolved against
  // `shape`; false when they do not overlap.
  bool Intersect(const TensorSlice& other, const TensorShape& shape, TensorSlice* result) const;

  // As TensorFlow's TensorSlice::AsProto writes it: an empty Extent for a
  // whole dimension, else start (omitted when 0) and length.
  void AsProto(TensorSliceProto* proto) const;
  // The text form Parse reads.
  std::string DebugString() const;

 private:
  std::vector<int64_t> starts_, lengths_;
};

// For a reader of saved slices: an error message unless `slice` lies within
// `shape` and overlaps none of `others` (empty when it fits).
std::string SlicePlacementError(const TensorSlice& slice, const TensorShape& shape,
                                const std::vector<TensorSlice>& others);

// The key a checkpoint stores slice `slice` of tensor `name` under, as
// TensorFlow's checkpoint::EncodeTensorNameSlice makes it (OrderedCode:
// 0, the name, the rank, then each dimension's start and length).
std::string EncodeTensorNameSlice(absl::string_view name, const TensorSlice& slice);
// True for a key EncodeTensorNameSlice made (it starts with a 0x00 byte,
// which no tensor name does).
inline bool IsSliceKey(absl::string_view key) { return !key.empty() && key[0] == '\0'; }

// Copies the elements in `region` (whole dimensions resolved against
// `full_shape`) from `src`, which holds slice `src_slice` of the full
// tensor, into `dst`, which holds slice `dst_slice`. REQUIRES: the same
// dtype, and `region` within both slices.
void CopySliceRegion(const Tensor& src, const TensorSlice& src_slice, const TensorSlice& region,
                     const TensorShape& full_shape, const TensorSlice& dst_slice, Tensor* dst);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_TENSOR_SLICE_H_

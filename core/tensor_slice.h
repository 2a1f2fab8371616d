// A slice of a tensor: per dimension a start and a length, or the whole
// dimension, and TensorFlow's "shape and slice" text that savers and
// restore ops carry ("10 20 0,5:-": rows 0 to 4 of a [10,20] tensor, what
// one part of a partitioned variable saves). In core so that every floor
// reads and writes the same form: the client's partitioned variables, the
// graph's shape functions, the checkpoint's reader and writer.
//
//   MG_ASSIGN_OR_RETURN(TensorSlice s, TensorSlice::Parse("0,5:-"));  // rows 0..4
//   TensorShape part = s.SliceShape(TensorShape({10, 3}));           // [5,3]
//
// Thread safety: a TensorSlice is a value (thread-compatible): const methods
// may run on several threads at once; one being changed must not be read
// meanwhile.

#ifndef MINIGRAPH_CORE_TENSOR_SLICE_H_
#define MINIGRAPH_CORE_TENSOR_SLICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/tensor_slice.pb.h"
#include "core/status_macros.h"
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
  // Per dimension a start and a length (kFullExtent: the whole dimension).
  static TensorSlice FromExtents(std::vector<int64_t> starts, std::vector<int64_t> lengths);

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

// A shape_and_slices entry: the full tensor's shape and the slice.
struct ShapeAndSlice {
  TensorShape full;
  TensorSlice slice;
  bool partial() const { return !slice.Covers(full); }
};

// Parses "dim0 dim1 ... slice"; nullopt for "" (the whole tensor, whatever
// its shape). InvalidArgument naming `spec` for a malformed one, or a slice
// outside the shape.
absl::StatusOr<std::optional<ShapeAndSlice>> ParseShapeAndSlice(absl::string_view spec);
// The text ParseShapeAndSlice reads.
std::string ShapeAndSliceString(const TensorShape& full, const TensorSlice& slice);

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_SLICE_H_

// The shape of a dense tensor: up to kMaxDims non-negative dimensions whose
// product fits in int64.
//
//   MG_ASSIGN_OR_RETURN(TensorShape s, TensorShape::Build({69, 20}));
//   s.num_elements();            // 1380
//   s.DebugString();             // "[69,20]"
//   TensorShape scalar;          // rank 0, one element
//
// Value type; thread-compatible.

#ifndef MINIGRAPH_CORE_TENSOR_SHAPE_H_
#define MINIGRAPH_CORE_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/proto/tensor_shape.pb.h"

namespace minigraph {

class TensorShape {
 public:
  // The largest rank minigraph supports (Eigen views are instantiated up to
  // this rank).
  static constexpr int kMaxDims = 8;

  // A scalar: rank 0, one element.
  TensorShape() = default;

  // Returns InvalidArgument when a dimension is negative, the rank exceeds
  // kMaxDims or the element count overflows int64.
  static absl::StatusOr<TensorShape> Build(absl::Span<const int64_t> dims);
  static absl::StatusOr<TensorShape> Build(std::initializer_list<int64_t> dims) {
    return Build(absl::Span<const int64_t>(dims.begin(), dims.size()));
  }
  // Same checks for a proto; unknown_rank and -1 dimensions are rejected.
  static absl::StatusOr<TensorShape> FromProto(const TensorShapeProto& proto);

  // For shapes known valid at compile time (tests, literals). Aborts on an
  // invalid shape.
  TensorShape(std::initializer_list<int64_t> dims);
  // The same for dims held in a container (std::vector<int64_t>, ...), when
  // they are known valid. Use Build() for dims that come from input.
  explicit TensorShape(absl::Span<const int64_t> dims);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // Appends a dimension. Returns InvalidArgument as Build() does.
  absl::Status AddDim(int64_t size);

  bool IsSameSize(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator==(const TensorShape& o) const { return IsSameSize(o); }
  bool operator!=(const TensorShape& o) const { return !IsSameSize(o); }

  void AsProto(TensorShapeProto* proto) const;
  // "[69,20]"; "[]" for a scalar.
  std::string DebugString() const;

 private:
  absl::InlinedVector<int64_t, 4> dims_;
  int64_t num_elements_ = 1;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_SHAPE_H_

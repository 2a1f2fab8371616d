// The static shape of a graph edge, known in part: an unknown rank, or a
// list of dims, each -1 if unknown (TensorFlow's PartialTensorShape). The
// vocabulary of op attrs, shape functions and the graph builder.
//
//   PartialShape batch_of_rows({-1, 784});      // "[?,784]"
//   batch_of_rows.IsCompatibleWith(TensorShape({32, 784}));  // true
//   MG_ASSIGN_OR_RETURN(PartialShape s, PartialShape::Broadcast(a, b));

#ifndef MINIGRAPH_RUNTIME_GRAPH_PARTIAL_SHAPE_H_
#define MINIGRAPH_RUNTIME_GRAPH_PARTIAL_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/tensor_shape.pb.h"
#include "core/tensor_shape.h"

namespace minigraph {

// A value type; thread-compatible.
class PartialShape {
 public:
  // Unknown rank.
  PartialShape() = default;
  // Known rank; -1 for an unknown dimension. PartialShape({}) is a scalar
  // (PartialShape() is of unknown rank).
  explicit PartialShape(std::initializer_list<int64_t> dims) : known_(true), dims_(dims) {}
  explicit PartialShape(std::vector<int64_t> dims) : known_(true), dims_(std::move(dims)) {}
  static PartialShape Scalar() { return PartialShape(std::vector<int64_t>{}); }
  static PartialShape UnknownOfRank(int rank) {
    return PartialShape(std::vector<int64_t>(rank, -1));
  }
  static PartialShape FromShape(const TensorShape& s) {
    return PartialShape(std::vector<int64_t>(s.dim_sizes().begin(), s.dim_sizes().end()));
  }
  // unknown_rank, or dims with -1 for unknown.
  static PartialShape FromProto(const TensorShapeProto& p);

  bool rank_known() const { return known_; }
  int rank() const { return known_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool IsFullyDefined() const;
  // True when a tensor of shape `s` has this shape.
  bool IsCompatibleWith(const TensorShape& s) const;
  // "?" for unknown rank, else "[2,?,3]".
  std::string DebugString() const;
  void AsProto(TensorShapeProto* p) const;

  // The most specific shape compatible with both, or InvalidArgument.
  static absl::StatusOr<PartialShape> Merge(const PartialShape& a, const PartialShape& b);
  // NumPy-style broadcast of two shapes, or InvalidArgument.
  static absl::StatusOr<PartialShape> Broadcast(const PartialShape& a, const PartialShape& b);

 private:
  bool known_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_PARTIAL_SHAPE_H_

// Static shapes of graph edges, known in part, and the context a shape
// function sees when a graph is built.
//
//   absl::Status MatMulShape(InferenceContext* c) {
//     MG_ASSIGN_OR_RETURN(bool ta, c->GetAttr<bool>("transpose_a"));
//     ...
//     c->set_output(0, PartialShape({m, n}));
//     return absl::OkStatus();
//   }
//
// An InferenceContext serves one node's shape function on one thread.
// Shape functions keep no state: different nodes may be inferred on
// different threads at once.

#ifndef MINIGRAPH_RUNTIME_GRAPH_SHAPE_INFERENCE_H_
#define MINIGRAPH_RUNTIME_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/node_def.pb.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"
#include "runtime/graph/versions.h"

namespace minigraph {

class InferenceContext {
 public:
  // All pointers are borrowed for the call of one shape function.
  // `input_tensors[i]` is the value of input i when it is a constant, else
  // nullptr.
  // `graph_def_version`: the producer version of the node's graph
  // (runtime/graph/versions.h).
  InferenceContext(const NodeDef* node, std::vector<DataType> input_types,
                   std::vector<PartialShape> input_shapes,
                   std::vector<const Tensor*> input_tensors, int num_outputs,
                   int graph_def_version = kGraphDefVersion);

  const NodeDef& node_def() const { return *node_; }
  int graph_def_version() const { return graph_def_version_; }
  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  // For a DT_RESOURCE input or output, the shape is that of the variable
  // the handle names (TensorFlow's "handle data"), as VarHandleOp's `shape`
  // attr declares it; the handle itself is always a scalar.
  const PartialShape& input(int i) const { return input_shapes_[i]; }
  DataType input_type(int i) const { return input_types_[i]; }
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  void set_output(int i, PartialShape s) { output_shapes_[i] = std::move(s); }
  const std::vector<PartialShape>& outputs() const { return output_shapes_; }

  template <typename T>
  absl::StatusOr<T> GetAttr(absl::string_view name) const {
    T value;
    MG_RETURN_IF_ERROR(GetNodeAttr(*node_, name, &value));
    return value;
  }

  // The values of input `i` when it is a constant int32 or int64 tensor
  // (a scalar or a vector: block shapes, axes, perms); false otherwise.
  bool ConstantInts(int i, std::vector<int64_t>* out) const;

  // Helpers for common shape functions.
  // Requires input `i` to have rank `rank` (if known); returns the merged shape.
  absl::StatusOr<PartialShape> WithRank(int i, int rank) const;
  // An InvalidArgument with `message`; the graph that runs shape functions
  // (Graph::Create) puts the node's name and op in front of it.
  absl::Status Error(absl::string_view message) const;

 private:
  const NodeDef* node_;
  std::vector<DataType> input_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialShape> output_shapes_;
  int graph_def_version_;
};

// Shape functions shared by many ops.
namespace shape_fn {
absl::Status Unknown(InferenceContext* c);
absl::Status Scalar(InferenceContext* c);
// Output 0 has input 0's shape.
absl::Status Unchanged(InferenceContext* c);
// Output 0 has the broadcast of inputs 0 and 1.
absl::Status BroadcastBinary(InferenceContext* c);
// All inputs merge to one shape, which is output 0's.
absl::Status MergeAllInputs(InferenceContext* c);
// Output i has the node's `output_shapes` attr's shape i, when the attr
// lists one per output; otherwise every output's shape is unknown.
absl::Status OutputShapesAttr(InferenceContext* c);
}  // namespace shape_fn

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_SHAPE_INFERENCE_H_

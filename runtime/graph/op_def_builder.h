// Builds an OpDef from TensorFlow-style signature strings.
//
//   OpDefBuilder("MatMul")
//       .Input("a: T")
//       .Input("b: T")
//       .Output("product: T")
//       .Attr("transpose_a: bool = false")
//       .Attr("T: {float, double, int32, int64}")
//       .SetShapeFn(MatMulShape);
//
// Input/output specs: "name: float" (fixed type), "name: T" (type attr),
// "name: N * T" (N tensors of type T), "name: dtypes" (a list(type) attr),
// and "name: Ref(T)" for reference (variable) edges.
// Attr specs: "name: TYPE [= DEFAULT]" where TYPE is string, int, float,
// bool, type, shape, tensor, list(...) of those, or "{float, int32}" (a type
// with allowed values); "int >= 1" sets a minimum. Defaults: true/false,
// numbers, "quoted strings", type names (DT_FLOAT or float), [] and
// [1, 2] lists, and the shape default "unknown".
//
// An OpDefBuilder is a value built on one thread; what it builds goes
// into an OpRegistry, which is filled at start-up and read from any
// thread after.

#ifndef MINIGRAPH_RUNTIME_GRAPH_OP_DEF_BUILDER_H_
#define MINIGRAPH_RUNTIME_GRAPH_OP_DEF_BUILDER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/op_def.pb.h"

namespace minigraph {

class InferenceContext;
using ShapeFn = std::function<absl::Status(InferenceContext*)>;

// An op's signature plus what the runtime needs to know about it.
struct OpRegistrationData {
  OpDef op_def;
  // Computes output shapes from input shapes; may be empty (unknown shapes).
  ShapeFn shape_fn;
  // The dtypes minigraph's kernels take, by type attr (its name, "T", to the
  // allowed values), where fewer than op_def allows: op_def is TensorFlow's
  // interface, so a graph of any of its dtypes imports, and a node of
  // another dtype fails when a step needs its kernel (KernelRegistry).
  std::map<std::string, std::vector<DataType>> kernel_types;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  // The op moves tensors between tasks (_Recv; TensorFlow's flag).
  OpDefBuilder& SetIsDistributedCommunication();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  // The op is refused in graphs of producer `version` and newer (TensorFlow's
  // OpDeprecation); `explanation` says what replaces it.
  OpDefBuilder& Deprecated(int version, std::string explanation);
  OpDefBuilder& Doc(std::string summary);

  // Returns InvalidArgument naming the op and the bad spec.
  absl::StatusOr<OpRegistrationData> Finalize() const;

 private:
  OpRegistrationData data_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> attrs_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OP_DEF_BUILDER_H_

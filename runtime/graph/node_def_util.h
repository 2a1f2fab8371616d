// Reading and checking a NodeDef against its OpDef.
//
//   DataType t;
//   MG_RETURN_IF_ERROR(GetNodeAttr(node, "T", &t));
//   SetAttr("transpose_a", true, &node);
//   MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName("layer1/weight:0"));
//
// Thread safety: the functions change only the NodeDef or AttrValue they are
// given.

#ifndef MINIGRAPH_RUNTIME_GRAPH_NODE_DEF_UTIL_H_
#define MINIGRAPH_RUNTIME_GRAPH_NODE_DEF_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/node_def.pb.h"
#include "core/proto/op_def.pb.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "core/types.h"

namespace minigraph {

class PartialShape;

// Each returns NotFound if the attr is absent and InvalidArgument (naming
// the node and attr) if it holds another type.
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, std::string* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, int64_t* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, int32_t* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, float* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, bool* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, DataType* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, PartialShape* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, Tensor* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int64_t>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int32_t>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, std::vector<float>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<DataType>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<std::string>* value);

// AttrValues for building NodeDefs.
AttrValue MakeAttrValue(const std::string& value);
AttrValue MakeAttrValue(const char* value);
AttrValue MakeAttrValue(int64_t value);
AttrValue MakeAttrValue(int value);
AttrValue MakeAttrValue(float value);
AttrValue MakeAttrValue(bool value);
AttrValue MakeAttrValue(DataType value);
AttrValue MakeAttrValue(const PartialShape& value);
AttrValue MakeAttrValue(const Tensor& value);
AttrValue MakeAttrValue(const std::vector<int64_t>& value);
AttrValue MakeAttrValue(const std::vector<DataType>& value);
AttrValue MakeAttrValue(const std::vector<std::string>& value);

// Sets attr `name` of `node` to MakeAttrValue(value).
template <typename T>
void SetAttr(absl::string_view name, const T& value, NodeDef* node) {
  (*node->mutable_attr())[std::string(name)] = MakeAttrValue(value);
}

// Adds the OpDef's default for every attr the node does not set.
void AddDefaultsToNodeDef(const OpDef& op, NodeDef* node);

// Checks that every attr the op declares is present with the right type and
// an allowed value, and that the node sets no attr the op lacks. Returns
// InvalidArgument naming the node, op and attr.
absl::Status ValidateNodeAttrs(const NodeDef& node, const OpDef& op);

// How many tensors each input and each output argument of `op` stands for
// on `node`: its length attr, the length of its type-list attr, else 1.
// Needs no type attr. InvalidArgument naming the node for a length or list
// attr it lacks.
absl::Status ArgSizesForNode(const NodeDef& node, const OpDef& op, std::vector<int64_t>* inputs,
                             std::vector<int64_t>* outputs);

// The dtypes of the node's inputs and outputs (ref types for Ref(...)
// args), resolved from its attrs. REQUIRES: ValidateNodeAttrs passed.
absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op,
                               std::vector<DataType>* inputs,
                               std::vector<DataType>* outputs);

// "name", "name:k" or "^name" (control).
struct TensorId {
  std::string node;
  int index = 0;
  bool control = false;
  std::string ToString() const;
};
// Returns InvalidArgument for an empty name or a malformed index.
absl::StatusOr<TensorId> ParseTensorName(absl::string_view name);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_NODE_DEF_UTIL_H_

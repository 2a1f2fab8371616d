#include "tools/graph_variables.h"

#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace minigraph {
namespace {

// What the SaveV2 nodes among `nodes` write, when their names and slices
// are constants among them (empty otherwise). Inputs may be "name",
// "name:0" or, in a function body, "name:output:0".
std::vector<ExpectedTensor> SavedTensors(const google::protobuf::RepeatedPtrField<NodeDef>& nodes) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : nodes) by_name[node.name()] = &node;
  auto const_strings = [&](absl::string_view input) {
    std::vector<std::string> out;
    auto it = by_name.find(std::string(input.substr(0, input.find(':'))));
    if (it == by_name.end() || it->second->op() != "Const") return out;
    auto value = it->second->attr().find("value");
    if (value == it->second->attr().end()) return out;
    for (const std::string& v : value->second.tensor().string_val()) out.push_back(v);
    return out;
  };
  std::vector<ExpectedTensor> saved;
  std::set<std::string> seen;
  for (const NodeDef& node : nodes) {
    if (node.op() != "SaveV2" || node.input_size() < 3) continue;
    const std::vector<std::string> keys = const_strings(node.input(1));
    const std::vector<std::string> slices = const_strings(node.input(2));
    auto dtypes = node.attr().find("dtypes");
    if (keys.empty() || slices.size() != keys.size() || dtypes == node.attr().end() ||
        dtypes->second.list().type_size() != static_cast<int>(keys.size())) {
      continue;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!seen.insert(keys[i]).second) continue;
      ExpectedTensor e;
      e.key = keys[i];
      e.dtype = static_cast<DataType>(dtypes->second.list().type(static_cast<int>(i)));
      if (!slices[i].empty()) {  // "235 100 0,235:0,100": the full shape first
        std::vector<int64_t> dims;
        for (absl::string_view d : absl::StrSplit(slices[i].substr(0, slices[i].rfind(' ')), ' ')) {
          int64_t v;
          if (absl::SimpleAtoi(d, &v)) dims.push_back(v);
        }
        absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
        if (shape.ok()) e.shape = *shape;
      } else {
        // The saved tensor's variable (through its "/read" Identity).
        std::string var(node.input(static_cast<int>(i) + 3));
        var = var.substr(0, var.find(':'));
        auto it = by_name.find(var);
        while (it != by_name.end() && it->second->op() == "Identity" &&
               it->second->input_size() > 0) {
          it = by_name.find(it->second->input(0).substr(0, it->second->input(0).find(':')));
        }
        if (it != by_name.end()) {
          if (auto a = it->second->attr().find("shape"); a != it->second->attr().end()) {
            absl::StatusOr<TensorShape> shape = TensorShape::FromProto(a->second.shape());
            if (shape.ok() && !a->second.shape().unknown_rank()) e.shape = *shape;
          }
        }
      }
      saved.push_back(std::move(e));
    }
  }
  // A sharded Saver has one SaveV2 per device: the keys of all of them.
  return saved;
}

}  // namespace

std::vector<ExpectedTensor> GraphVariables(const GraphDef& graph) {
  // With a Saver in the graph, its SaveV2 node says exactly which key each
  // tensor is saved under (partitioned variables: one key for their parts,
  // whose full shape leads "shape_and_slices"). TensorFlow 2 saves through
  // a function (a SavedModel's "__inference__traced_save"): its SaveV2
  // nodes say it there, under the object graph's names.
  std::vector<ExpectedTensor> saved = SavedTensors(graph.node());
  if (!saved.empty()) return saved;
  for (const FunctionDef& f : graph.library().function()) {
    saved = SavedTensors(f.node_def());
    if (!saved.empty()) return saved;
  }
  std::vector<ExpectedTensor> vars;
  for (const NodeDef& node : graph.node()) {
    if (node.op() != "VariableV2" && node.op() != "Variable" && node.op() != "VarHandleOp") {
      continue;
    }
    ExpectedTensor e;
    e.key = node.name();
    if (auto it = node.attr().find("dtype"); it != node.attr().end()) e.dtype = it->second.type();
    if (auto it = node.attr().find("shape"); it != node.attr().end()) {
      const TensorShapeProto& p = it->second.shape();
      bool known = !p.unknown_rank();
      for (const auto& d : p.dim()) known = known && d.size() >= 0;
      if (known) {
        absl::StatusOr<TensorShape> shape = TensorShape::FromProto(p);
        if (shape.ok()) e.shape = *shape;
      }
    }
    vars.push_back(std::move(e));
  }
  return vars;
}

}  // namespace minigraph

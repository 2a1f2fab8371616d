#include "runtime/graph/ops/shape_test_util.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/versions.h"

namespace minigraph {

ShapeTestOp::ShapeTestOp(absl::string_view op) {
  node_.set_name("op");
  node_.set_op(std::string(op));
}

ShapeTestOp& ShapeTestOp::Input(int i, Tensor value) {
  constants_[i] = std::move(value);
  return *this;
}

absl::StatusOr<PartialShape> ParseShape(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text == "?") return PartialShape();
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    return absl::InvalidArgumentError(absl::StrCat("shape \"", text, "\" is not ? or [...]"));
  }
  std::vector<int64_t> dims;
  const absl::string_view inside = text.substr(1, text.size() - 2);
  if (!inside.empty()) {
    for (absl::string_view d : absl::StrSplit(inside, ',')) {
      d = absl::StripAsciiWhitespace(d);
      int64_t v = -1;
      if (d != "?" && (!absl::SimpleAtoi(d, &v) || v < 0)) {
        return absl::InvalidArgumentError(absl::StrCat("shape \"", text, "\": bad dimension \"",
                                                       d, "\""));
      }
      dims.push_back(v);
    }
  }
  return PartialShape(dims);
}

std::string ShapesOrError(const absl::StatusOr<std::string>& shapes) {
  return shapes.ok() ? *shapes : absl::StrCat("error: ", shapes.status().ToString());
}

absl::StatusOr<std::string> ShapeTestOp::Infer(absl::string_view shapes) const {
  const OpRegistry* ops = GlobalOpRegistry();
  MG_ASSIGN_OR_RETURN(const OpRegistrationData* op, ops->LookUp(node_.op()));
  NodeDef node = node_;
  AddDefaultsToNodeDef(op->op_def, &node);
  std::vector<DataType> input_types, output_types;
  MG_RETURN_IF_ERROR(InOutTypesForNode(node, op->op_def, &input_types, &output_types));
  std::vector<absl::string_view> texts;
  if (!shapes.empty()) texts = absl::StrSplit(shapes, ';');
  if (texts.size() != input_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(node.op(), " takes ", input_types.size(),
                                                   " inputs here; the test gives ", texts.size(),
                                                   " shapes: \"", shapes, "\""));
  }
  GraphDef graph;
  // Today's semantics (at version 0 a Placeholder's shape [] is unknown).
  graph.mutable_versions()->set_producer(kGraphDefVersion);
  for (size_t i = 0; i < texts.size(); ++i) {
    NodeDef* in = graph.add_node();
    in->set_name(absl::StrCat("in", i));
    auto c = constants_.find(static_cast<int>(i));
    if (c != constants_.end()) {
      in->set_op("Const");
      SetAttr("dtype", c->second.dtype(), in);
      SetAttr("value", c->second, in);
    } else {
      MG_ASSIGN_OR_RETURN(PartialShape shape, ParseShape(texts[i]));
      in->set_op("Placeholder");
      SetAttr("dtype", BaseType(input_types[i]), in);
      SetAttr("shape", shape, in);
    }
    node.add_input(in->name());
  }
  *graph.add_node() = node;
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::Create(graph, ops));
  const Node* n = g->FindNode("op");
  std::vector<std::string> out;
  for (int i = 0; i < n->num_outputs(); ++i) out.push_back(n->output_shape(i).DebugString());
  return absl::StrJoin(out, ";");
}

}  // namespace minigraph

#include "runtime/graph/graph.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

absl::StatusOr<std::unique_ptr<Graph>> Graph::Create(const GraphDef& def,
                                                    const OpRegistry* ops) {
  MG_RETURN_IF_ERROR(CheckGraphDefVersions(def.versions()));
  return Create(def, std::make_shared<const FunctionDefLibrary>(def.library()), ops,
                def.versions().producer());
}

absl::StatusOr<std::unique_ptr<Graph>> Graph::Create(
    const GraphDef& def, std::shared_ptr<const FunctionDefLibrary> library, const OpRegistry* ops) {
  return Create(def, std::move(library), ops,
                def.has_versions() ? def.versions().producer() : kGraphDefVersion);
}

absl::StatusOr<std::unique_ptr<Graph>> Graph::Create(
    const GraphDef& def, std::shared_ptr<const FunctionDefLibrary> library, const OpRegistry* ops,
    int version) {
  std::unique_ptr<Graph> g(new Graph);
  g->version_ = version;
  // Everything but the library, which can be far larger than the nodes.
  *g->def_.mutable_node() = def.node();
  if (def.has_versions()) *g->def_.mutable_versions() = def.versions();
  g->library_ = std::move(library);
  MG_RETURN_IF_ERROR(g->Build(ops));
  return g;
}

namespace {
bool TypeIs(const Node& n, absl::string_view a, absl::string_view b) {
  return n.type_string() == a || n.type_string() == b;
}
}  // namespace

bool IsMerge(const Node& n) { return TypeIs(n, "Merge", "RefMerge"); }
bool IsSwitch(const Node& n) { return TypeIs(n, "Switch", "RefSwitch"); }
bool IsEnter(const Node& n) { return TypeIs(n, "Enter", "RefEnter"); }
bool IsExit(const Node& n) { return TypeIs(n, "Exit", "RefExit"); }
bool IsNextIteration(const Node& n) { return TypeIs(n, "NextIteration", "RefNextIteration"); }

bool Node::IsBackEdge(int i) const { return back_edge_[i]; }

const Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &nodes_[it->second];
}

absl::Status Graph::Build(const OpRegistry* ops) {
  nodes_.resize(def_.node_size());
  for (Node& node : nodes_) node.graph_ = this;
  MG_RETURN_IF_ERROR(LookUpOps(ops));
  MG_RETURN_IF_ERROR(ResolveTypes());
  for (int i = 0; i < def_.node_size(); ++i) MG_RETURN_IF_ERROR(ConnectInputs(i));
  MG_RETURN_IF_ERROR(TopologicalOrder());
  return InferShapes();
}

absl::Status Graph::LookUpOps(const OpRegistry* ops) {
  const int n = def_.node_size();
  // Names first, and every unknown op at once, so one error lists them all.
  std::map<std::string, std::vector<std::string>> unknown;
  for (int i = 0; i < n; ++i) {
    NodeDef* nd = def_.mutable_node(i);
    if (nd->name().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node #", i, " (op ", nd->op(), ") has an empty name"));
    }
    if (!by_name_.emplace(nd->name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate node name '", nd->name(), "'"));
    }
    auto op = ops->LookUp(nd->op());
    if (!op.ok()) {
      unknown[nd->op()].push_back(nd->name());
      continue;
    }
    MG_RETURN_IF_ERROR(CheckOpDeprecation((*op)->op_def, version_));
    nodes_[i].op_ = *op;
  }
  if (!unknown.empty()) {
    std::vector<std::string> parts;
    for (const auto& [op, names] : unknown) {
      parts.push_back(absl::StrCat(op, " (", names.size(), " node", names.size() > 1 ? "s" : "",
                                   ", e.g. '", names[0], "')"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "graph uses ", unknown.size(), " op type", unknown.size() > 1 ? "s" : "",
        " that neither minigraph nor TensorFlow 2.21 registers: ", absl::StrJoin(parts, ", ")));
  }
  return absl::OkStatus();
}

absl::Status Graph::ResolveTypes() {
  const int n = def_.node_size();
  for (int i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.id_ = i;
    NodeDef* nd = def_.mutable_node(i);
    AddDefaultsToNodeDef(node.op_->op_def, nd);
    MG_RETURN_IF_ERROR(ValidateNodeAttrs(*nd, node.op_->op_def));
    MG_RETURN_IF_ERROR(
        InOutTypesForNode(*nd, node.op_->op_def, &node.input_types_, &node.output_types_));
    node.def_ = *nd;
  }
  return absl::OkStatus();
}

absl::Status Graph::ConnectInputs(int i) {
  Node& node = nodes_[i];
  const NodeDef& nd = node.def_;
  bool seen_control = false;
  for (const std::string& in : nd.input()) {
    auto id = ParseTensorName(in);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", nd.name(), "': ", id.status().message()));
    }
    auto src = by_name_.find(id->node);
    if (src == by_name_.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", nd.name(), "' has input '", in, "' naming a node that does not exist"));
    }
    if (id->control) {
      seen_control = true;
      node.control_inputs_.push_back(src->second);
      nodes_[src->second].control_outputs_.push_back(i);
      continue;
    }
    if (seen_control) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", nd.name(), "' has data input '", in, "' after a control input"));
    }
    Node& s = nodes_[src->second];
    if (id->index >= s.num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", nd.name(), "' has input '", in, "', but node '", s.name(), "' (",
          s.type_string(), ") has only ", s.num_outputs(), " output",
          s.num_outputs() == 1 ? "" : "s"));
    }
    const int k = node.num_inputs();
    node.inputs_.push_back({src->second, id->index});
    if (k < static_cast<int>(node.input_types_.size())) {
      const DataType want = node.input_types_[k];
      const DataType got = s.output_types_[id->index];
      const bool ok = IsRefType(want) ? got == want : BaseType(got) == want;
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", nd.name(), "' (", nd.op(), ") input ", k, " expects ",
            DataTypeString(want), ", but '", in, "' is ", DataTypeString(got)));
      }
    }
    s.out_edges_.push_back({i, k});
  }
  if (node.num_inputs() != static_cast<int>(node.input_types_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", nd.name(), "' (", nd.op(), ") expects ", node.input_types_.size(),
        " input", node.input_types_.size() == 1 ? "" : "s", ", got ", node.num_inputs()));
  }
  return absl::OkStatus();
}

absl::Status Graph::TopologicalOrder() {
  const int n = def_.node_size();
  // Kahn's algorithm without the loops' back edges; whatever is left is on
  // or behind a cycle.
  std::vector<int> pending(n);
  for (int i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.back_edge_.assign(node.num_inputs(), false);
    int back = 0;
    if (IsMerge(node)) {
      for (int k = 0; k < node.num_inputs(); ++k) {
        node.back_edge_[k] = IsNextIteration(nodes_[node.inputs_[k].src]);
        back += node.back_edge_[k];
      }
    }
    pending[i] = node.num_inputs() - back + static_cast<int>(node.control_inputs_.size());
    if (pending[i] == 0) topo_.push_back(i);
  }
  for (size_t head = 0; head < topo_.size(); ++head) {
    const Node& node = nodes_[topo_[head]];
    for (const auto& e : node.out_edges_) {
      if (nodes_[e.dst].back_edge_[e.dst_input]) continue;
      if (--pending[e.dst] == 0) topo_.push_back(e.dst);
    }
    for (int c : node.control_outputs_) {
      if (--pending[c] == 0) topo_.push_back(c);
    }
  }
  if (static_cast<int>(topo_.size()) != n) {
    std::vector<std::string> names;
    for (int i = 0; i < n && names.size() < 10; ++i) {
      if (pending[i] > 0) names.push_back(absl::StrCat("'", nodes_[i].name(), "'"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "graph has a cycle through or behind nodes ", absl::StrJoin(names, ", ")));
  }
  return absl::OkStatus();
}

absl::Status Graph::InferShapes() {
  // Constant values feed shape functions that need them (Reshape, Fill, ...).
  absl::flat_hash_map<int, Tensor> consts;
  for (int id : topo_) {
    Node& node = nodes_[id];
    if (node.type_string() == "Const") {
      Tensor t;
      if (GetNodeAttr(node.def_, "value", &t).ok()) consts[id] = t;
    }
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> values;
    for (int k = 0; k < node.num_inputs(); ++k) {
      const Node::Input& in = node.inputs_[k];
      // A back edge's source comes later in the order: its shape is unknown.
      shapes.push_back(node.back_edge_[k] ? PartialShape()
                                          : nodes_[in.src].output_shapes_[in.src_output]);
      auto c = consts.find(in.src);
      values.push_back(c == consts.end() ? nullptr : &c->second);
    }
    std::vector<DataType> types(node.input_types_.begin(), node.input_types_.end());
    InferenceContext ctx(&node.def_, std::move(types), std::move(shapes), std::move(values),
                         node.num_outputs(), version_);
    if (node.op_->shape_fn) {
      absl::Status s = node.op_->shape_fn(&ctx);
      if (!s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (",
                                                       node.type_string(), "): ", s.message()));
      }
    }
    node.output_shapes_ = ctx.outputs();
  }
  return absl::OkStatus();
}

}  // namespace minigraph

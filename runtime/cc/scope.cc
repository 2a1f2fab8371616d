#include "runtime/cc/scope.h"

#include <algorithm>
#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"
#include "runtime/graph/versions.h"

namespace minigraph {

struct Scope::Graph {
  const OpRegistry* ops;
  GraphDef def;
  absl::Status status;
  absl::flat_hash_set<std::string> names;
  // For each name UniqueName has given out, the next suffix to try, so
  // that the n-th "Const" costs one lookup rather than n.
  absl::flat_hash_map<std::string, int> next_suffix;
  absl::flat_hash_map<std::string, Tensor> consts;  // node name -> value
  absl::flat_hash_map<std::string, Operation> ops_by_name;
  absl::flat_hash_map<std::string, int> node_index;
  std::vector<Operation> ops_in_order;
  std::map<std::string, std::vector<std::string>> node_collections;
  std::map<std::string, std::vector<std::string>> bytes_collections;
  SaverDef saver_def;
  bool has_saver_def = false;
};

const std::string& Operation::name() const {
  static const std::string* const empty = new std::string();
  return node_ == nullptr ? *empty : node_->name;
}

std::string Output::name() const {
  return index_ == 0 ? op_.name() : absl::StrCat(op_.name(), ":", index_);
}

std::string Output::tensor_name() const { return absl::StrCat(op_.name(), ":", index_); }

DataType Output::dtype() const {
  return index_ < op_.num_outputs() ? op_.node_->types[index_] : DT_INVALID;
}

const PartialShape& Output::shape() const {
  static const PartialShape* const unknown = new PartialShape();
  return index_ < op_.num_outputs() ? op_.node_->shapes[index_] : *unknown;
}

Scope Scope::NewRootScope(const OpRegistry* ops) {
  auto g = std::make_shared<Graph>();
  g->ops = ops != nullptr ? ops : GlobalOpRegistry();
  g->def.mutable_versions()->set_producer(kGraphDefVersion);
  return Scope(std::move(g));
}

Scope Scope::NewSubScope(absl::string_view name) const {
  Scope s = *this;
  s.op_name_.clear();
  if (!name.empty()) {
    const std::string unique = UniqueName(name);
    s.prefix_ = unique;
    graph_->names.insert(unique);
  }
  return s;
}

Scope Scope::InsideOp(const Operation& op) const {
  Scope s = *this;
  s.op_name_.clear();
  s.prefix_ = op.name();
  return s;
}

Scope Scope::WithOpName(absl::string_view name) const {
  Scope s = *this;
  s.op_name_ = std::string(name);
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Operation>& deps) const {
  Scope s = *this;
  s.control_deps_.insert(s.control_deps_.end(), deps.begin(), deps.end());
  return s;
}

Scope Scope::WithLoopFrame(std::string frame) const {
  Scope s = *this;
  s.loop_frame_ = std::move(frame);
  return s;
}

Scope Scope::WithInputMapper(InputMapper map) const {
  Scope s = *this;
  s.input_mapper_ = std::move(map);
  return s;
}

Scope Scope::WithDevice(std::string device) const {
  Scope s = *this;
  s.device_ = std::move(device);
  s.device_fn_ = nullptr;
  return s;
}

Scope Scope::WithDeviceFunction(DeviceFunction fn) const {
  Scope s = *this;
  s.device_fn_ = std::move(fn);
  return s;
}

DeviceFunction ReplicaDeviceSetter(int ps_tasks, std::string worker_device, std::string ps_job) {
  auto next = std::make_shared<std::atomic<int>>(0);
  return [ps_tasks, worker_device = std::move(worker_device), ps_job = std::move(ps_job),
          next](const NodeDef& node) -> std::string {
    static const auto* const kVariableOps =
        new absl::flat_hash_set<std::string>{"VariableV2", "Variable", "VarHandleOp"};
    if (ps_tasks > 0 && kVariableOps->contains(node.op())) {
      return absl::StrCat("/job:", ps_job, "/task:", next->fetch_add(1) % ps_tasks);
    }
    return worker_device;
  };
}

Scope Scope::WithNoControlDependencies() const {
  Scope s = *this;
  s.control_deps_.clear();
  return s;
}

bool Scope::ok() const { return graph_->status.ok(); }
absl::Status Scope::status() const { return graph_->status; }

void Scope::UpdateStatus(const absl::Status& s) const {
  if (graph_->status.ok() && !s.ok()) graph_->status = s;
}

void Scope::UpdateInput(const Operation& op, int index, const Output& input) const {
  Graph& g = *graph_;
  if (!g.status.ok()) return;
  auto it = g.node_index.find(op.name());
  if (it == g.node_index.end() || !input.op().valid()) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("UpdateInput: no node '", op.name(), "', or an invalid input")));
    return;
  }
  NodeDef* node = g.def.mutable_node(it->second);
  int data_inputs = 0;
  while (data_inputs < node->input_size() && node->input(data_inputs)[0] != '^') ++data_inputs;
  if (index < 0 || index >= data_inputs) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("UpdateInput: node '", op.name(), "' has no data input ", index)));
    return;
  }
  absl::StatusOr<TensorId> old_id = ParseTensorName(node->input(index));
  absl::StatusOr<Operation> old =
      old_id.ok() ? FindOp(old_id->node) : absl::StatusOr<Operation>(old_id.status());
  const DataType want = old.ok() ? Output(*old, old_id->index).dtype() : DT_INVALID;
  if (BaseType(want) != BaseType(input.dtype())) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "UpdateInput: node '", op.name(), "' input ", index, " is ", DataTypeString(want), ", '",
        input.name(), "' is ", DataTypeString(input.dtype()))));
    return;
  }
  node->set_input(index, input.name());
}

void Scope::ExtendOp(const Operation& op, const std::vector<Output>& inputs,
                     const std::map<std::string, AttrValue>& attrs) const {
  Graph& g = *graph_;
  if (!g.status.ok()) return;
  auto fail = [&](const std::string& why) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat("ExtendOp '", op.name(), "': ", why)));
  };
  auto it = g.node_index.find(op.name());
  if (it == g.node_index.end()) return fail("no such node");
  NodeDef node = g.def.node(it->second);
  std::vector<std::string> data, control;
  for (const std::string& in : node.input()) (in[0] == '^' ? control : data).push_back(in);
  const size_t old_inputs = data.size();
  for (const Output& in : inputs) {
    if (!in.op().valid()) return fail("an invalid input");
    data.push_back(in.name());
  }
  node.clear_input();
  for (const std::string& in : data) node.add_input(in);
  for (const std::string& in : control) node.add_input(in);
  for (const auto& [k, v] : attrs) (*node.mutable_attr())[k] = v;
  absl::StatusOr<const OpRegistrationData*> reg = g.ops->LookUp(node.op());
  if (!reg.ok()) return fail(std::string(reg.status().message()));
  std::vector<DataType> in_types, out_types;
  if (absl::Status s = InOutTypesForNode(node, (*reg)->op_def, &in_types, &out_types); !s.ok()) {
    return fail(std::string(s.message()));
  }
  if (in_types.size() != data.size()) {
    return fail(absl::StrCat("takes ", in_types.size(), " inputs, given ", data.size()));
  }
  for (size_t i = old_inputs; i < data.size(); ++i) {
    const Output& in = inputs[i - old_inputs];
    if (BaseType(in.dtype()) != BaseType(in_types[i])) {
      return fail(absl::StrCat("input ", i, " ('", in.name(), "') is ",
                               DataTypeString(in.dtype()), ", expected ",
                               DataTypeString(in_types[i])));
    }
  }
  // The new inputs' nodes, and those of their ancestors created after `op`,
  // go just before it, so that AllOps() stays a topological order.
  absl::flat_hash_map<std::string, size_t> position;
  for (size_t i = 0; i < g.ops_in_order.size(); ++i) position[g.ops_in_order[i].name()] = i;
  const size_t at = position.at(op.name());
  absl::flat_hash_set<std::string> moved;
  std::vector<std::string> todo;
  for (const Output& in : inputs) todo.push_back(in.op().name());
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    if (name == op.name()) return fail(absl::StrCat("input '", name, "' depends on it"));
    if (position.at(name) < at || !moved.insert(name).second) continue;
    for (const std::string& in : g.def.node(g.node_index.at(name)).input()) {
      absl::StatusOr<TensorId> id = ParseTensorName(in[0] == '^' ? in.substr(1) : in);
      if (id.ok()) todo.push_back(id->node);
    }
  }
  *g.def.mutable_node(it->second) = std::move(node);
  auto* n = const_cast<Operation::Node*>(g.ops_by_name.at(op.name()).node_.get());
  n->types = std::move(out_types);
  n->shapes.resize(n->types.size());
  if (moved.empty()) return;
  std::vector<Operation> order(g.ops_in_order.begin(), g.ops_in_order.begin() + at);
  for (size_t i = at; i < g.ops_in_order.size(); ++i) {
    if (moved.contains(g.ops_in_order[i].name())) order.push_back(g.ops_in_order[i]);
  }
  for (size_t i = at; i < g.ops_in_order.size(); ++i) {
    if (!moved.contains(g.ops_in_order[i].name())) order.push_back(g.ops_in_order[i]);
  }
  google::protobuf::RepeatedPtrField<NodeDef> nodes;
  for (const Operation& o : order) {
    *nodes.Add() = std::move(*g.def.mutable_node(g.node_index.at(o.name())));
  }
  g.def.mutable_node()->Swap(&nodes);
  for (int i = 0; i < g.def.node_size(); ++i) g.node_index[g.def.node(i).name()] = i;
  g.ops_in_order = std::move(order);
}

absl::StatusOr<GraphDef> Scope::ToGraphDef() const {
  if (!graph_->status.ok()) return graph_->status;
  return graph_->def;
}

absl::StatusOr<MetaGraphDef> Scope::ToMetaGraphDef() const {
  if (!graph_->status.ok()) return graph_->status;
  MetaGraphDef meta;
  *meta.mutable_graph_def() = graph_->def;
  // The producer in the git version: TensorFlow parses tensorflow_version
  // as a release number (import_meta_graph fails on "minigraph") and takes
  // an empty one for a graph whose VariableDefs say whether they train.
  meta.mutable_meta_info_def()->set_tensorflow_git_version("minigraph");
  for (const auto& [key, names] : graph_->node_collections) {
    auto* list = (*meta.mutable_collection_def())[key].mutable_node_list();
    for (const auto& n : names) list->add_value(n);
  }
  for (const auto& [key, values] : graph_->bytes_collections) {
    auto* list = (*meta.mutable_collection_def())[key].mutable_bytes_list();
    for (const auto& v : values) list->add_value(v);
  }
  if (graph_->has_saver_def) *meta.mutable_saver_def() = graph_->saver_def;
  return meta;
}

absl::StatusOr<Operation> Scope::FindOp(absl::string_view name) const {
  auto it = graph_->ops_by_name.find(name);
  if (it == graph_->ops_by_name.end()) {
    return absl::NotFoundError(absl::StrCat("no node named '", name, "' in the graph"));
  }
  return it->second;
}

const NodeDef& Scope::GetNodeDef(const Operation& op) const {
  return graph_->def.node(graph_->node_index.at(op.name()));
}

std::vector<Output> Scope::GetInputs(const Operation& op) const {
  std::vector<Output> inputs;
  for (const std::string& in : GetNodeDef(op).input()) {
    if (!in.empty() && in[0] == '^') continue;
    absl::StatusOr<TensorId> id = ParseTensorName(in);
    if (!id.ok()) continue;
    inputs.push_back(Output(graph_->ops_by_name.at(id->node), id->index));
  }
  return inputs;
}

std::vector<Operation> Scope::AllOps() const { return graph_->ops_in_order; }

std::string Scope::UniqueName(absl::string_view base) const {
  const std::string full = prefix_.empty() ? std::string(base) : absl::StrCat(prefix_, "/", base);
  if (!graph_->names.contains(full)) return full;
  int& next = graph_->next_suffix[full];
  for (int i = std::max(next, 1);; ++i) {
    std::string candidate = absl::StrCat(full, "_", i);
    if (!graph_->names.contains(candidate)) {
      next = i + 1;
      return candidate;
    }
  }
}

void Scope::AddToCollection(const std::string& key, const std::string& node_name) const {
  graph_->node_collections[key].push_back(node_name);
}

void Scope::AddBytesToCollection(const std::string& key, const std::string& bytes) const {
  graph_->bytes_collections[key].push_back(bytes);
}

std::vector<std::string> Scope::GetCollection(const std::string& key) const {
  auto it = graph_->node_collections.find(key);
  if (it != graph_->node_collections.end()) return it->second;
  auto b = graph_->bytes_collections.find(key);
  return b == graph_->bytes_collections.end() ? std::vector<std::string>() : b->second;
}

void Scope::EditCollection(const std::string& key,
                           const std::function<void(std::string*)>& edit) const {
  auto it = graph_->bytes_collections.find(key);
  if (it == graph_->bytes_collections.end()) return;
  for (std::string& bytes : it->second) edit(&bytes);
}

void Scope::SetSaverDef(const SaverDef& saver_def) const {
  graph_->saver_def = saver_def;
  graph_->has_saver_def = true;
}

void Scope::AddFunctionLibrary(const FunctionDefLibrary& library) const {
  FunctionDefLibrary* have = graph_->def.mutable_library();
  for (const FunctionDef& f : library.function()) {
    const FunctionDef* same_name = nullptr;
    for (const FunctionDef& h : have->function()) {
      if (h.signature().name() == f.signature().name()) same_name = &h;
    }
    if (same_name == nullptr) {
      *have->add_function() = f;
    } else if (!google::protobuf::util::MessageDifferencer::Equals(*same_name, f)) {
      UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "the graph already has a different function named '", f.signature().name(), "'")));
      return;
    }
  }
  for (const GradientDef& g : library.gradient()) {
    bool known = false;
    for (const GradientDef& h : have->gradient()) known |= h.function_name() == g.function_name();
    if (!known) *have->add_gradient() = g;
  }
}

const FunctionDefLibrary& Scope::library() const { return graph_->def.library(); }

const OpRegistry* Scope::op_registry() const { return graph_->ops; }

namespace {

// Adds `inputs` (one list per input argument of `op`) to `node`, and the
// type and length attrs they imply where `node` does not set them.
absl::Status AddInputs(const OpDef& op, const std::vector<std::vector<Output>>& inputs,
                       NodeDef* node) {
  for (int a = 0; a < op.input_arg_size(); ++a) {
    const auto& arg = op.input_arg(a);
    for (const Output& in : inputs[a]) {
      if (!in.op().valid()) {
        return absl::InvalidArgumentError(absl::StrCat("input ", arg.name(), " is invalid"));
      }
    }
    if (!arg.number_attr().empty() && !node->attr().contains(arg.number_attr())) {
      SetAttr(arg.number_attr(), static_cast<int64_t>(inputs[a].size()), node);
    }
    if (!arg.type_attr().empty() && !node->attr().contains(arg.type_attr()) &&
        !inputs[a].empty()) {
      SetAttr(arg.type_attr(), BaseType(inputs[a][0].dtype()), node);
    }
    if (!arg.type_list_attr().empty() && !node->attr().contains(arg.type_list_attr())) {
      std::vector<DataType> types;
      for (const Output& in : inputs[a]) types.push_back(BaseType(in.dtype()));
      SetAttr(arg.type_list_attr(), types, node);
    }
    for (const Output& in : inputs[a]) node->add_input(in.name());
  }
  return absl::OkStatus();
}

// Checks each input's dtype against the node's; collects their shapes and
// the values of those that are constants, for the shape function.
absl::Status CheckInputTypes(const std::vector<Output>& flat,
                             const std::vector<DataType>& in_types,
                             const absl::flat_hash_map<std::string, Tensor>& consts,
                             std::vector<PartialShape>* shapes,
                             std::vector<const Tensor*>* values) {
  for (size_t i = 0; i < flat.size(); ++i) {
    const DataType want = in_types[i], got = flat[i].dtype();
    if (IsRefType(want) ? got != want : BaseType(got) != want) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " ('", flat[i].name(), "') is ",
                                                     DataTypeString(got), ", expected ",
                                                     DataTypeString(want)));
    }
    shapes->push_back(flat[i].shape());
    auto c = consts.find(flat[i].op().name());
    values->push_back(c == consts.end() ? nullptr : &c->second);
  }
  return absl::OkStatus();
}

// A graph TensorFlow exported records the shapes its own inference found
// (`_output_shapes`); where ours knows less (a function call's results),
// they refine it, as TensorFlow's importer uses them.
void RefineWithRecordedShapes(const NodeDef& node, std::vector<PartialShape>* out_shapes) {
  auto recorded = node.attr().find("_output_shapes");
  if (recorded == node.attr().end() ||
      recorded->second.list().shape_size() != static_cast<int>(out_shapes->size())) {
    return;
  }
  for (size_t i = 0; i < out_shapes->size(); ++i) {
    absl::StatusOr<PartialShape> merged = PartialShape::Merge(
        (*out_shapes)[i], PartialShape::FromProto(recorded->second.list().shape(i)));
    if (merged.ok()) (*out_shapes)[i] = *std::move(merged);
  }
}

}  // namespace

Operation Scope::AddOp(absl::string_view op_type,
                       const std::vector<std::vector<Output>>& given_inputs,
                       const std::map<std::string, AttrValue>& attrs) const {
  Graph& g = *graph_;
  if (!g.status.ok()) return Operation();
  std::vector<std::vector<Output>> mapped;
  if (input_mapper_) {
    mapped = given_inputs;
    for (std::vector<Output>& arg : mapped) {
      for (Output& in : arg) {
        if (in.op().valid()) in = input_mapper_(in);
      }
    }
    if (!g.status.ok()) return Operation();
  }
  const std::vector<std::vector<Output>>& inputs = input_mapper_ ? mapped : given_inputs;
  // A name ending in '/' is taken as is (TensorFlow's rule for naming an op
  // after a name scope it opened, like the optimizer's final op).
  const bool exact = !op_name_.empty() && op_name_.back() == '/';
  const std::string name =
      exact
          ? (prefix_.empty() ? op_name_.substr(0, op_name_.size() - 1)
                             : absl::StrCat(prefix_, "/", op_name_.substr(0, op_name_.size() - 1)))
          : UniqueName(op_name_.empty() ? op_type : op_name_);
  if (exact && g.ops_by_name.contains(name)) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat("duplicate node name '", name, "'")));
    return Operation();
  }
  auto fail = [&](const absl::Status& s) {
    UpdateStatus(absl::Status(
        s.code(), absl::StrCat("while adding node '", name, "' (", op_type, "): ", s.message())));
    return Operation();
  };
  auto reg = g.ops->LookUp(op_type);
  if (!reg.ok()) return fail(reg.status());
  const OpDef& op = (*reg)->op_def;
  if (static_cast<int>(inputs.size()) != op.input_arg_size()) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("expected ", op.input_arg_size(), " input argument(s), got ", inputs.size())));
  }
  NodeDef node;
  node.set_name(name);
  node.set_op(std::string(op_type));
  for (const auto& [k, v] : attrs) (*node.mutable_attr())[k] = v;
  if (absl::Status s = AddInputs(op, inputs, &node); !s.ok()) return fail(s);
  for (const Operation& dep : control_deps_) {
    if (dep.valid()) node.add_input(absl::StrCat("^", dep.name()));
  }
  AddDefaultsToNodeDef(op, &node);
  if (!device_.empty()) node.set_device(device_);
  if (device_fn_) node.set_device(device_fn_(node));
  if (absl::Status s = ValidateNodeAttrs(node, op); !s.ok()) return fail(s);
  std::vector<DataType> in_types, out_types;
  if (absl::Status s = InOutTypesForNode(node, op, &in_types, &out_types); !s.ok()) {
    return fail(s);
  }
  std::vector<Output> flat;
  for (const auto& list : inputs) flat.insert(flat.end(), list.begin(), list.end());
  if (flat.size() != in_types.size()) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("expected ", in_types.size(), " inputs, got ", flat.size())));
  }
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  if (absl::Status s = CheckInputTypes(flat, in_types, g.consts, &shapes, &values); !s.ok()) {
    return fail(s);
  }
  InferenceContext ctx(&node, in_types, shapes, values, static_cast<int>(out_types.size()));
  if ((*reg)->shape_fn) {
    if (absl::Status s = (*reg)->shape_fn(&ctx); !s.ok()) return fail(s);
  }
  std::vector<PartialShape> out_shapes = ctx.outputs();
  RefineWithRecordedShapes(node, &out_shapes);
  if (op_type == "Const") {
    Tensor value;
    if (GetNodeAttr(node, "value", &value).ok()) g.consts[name] = value;
  }
  g.names.insert(name);
  *g.def.add_node() = node;
  Operation result;
  result.node_ = std::make_shared<const Operation::Node>(
      Operation::Node{name, std::move(out_types), std::move(out_shapes)});
  g.ops_by_name[name] = result;
  g.node_index[name] = g.def.node_size() - 1;
  g.ops_in_order.push_back(result);
  return result;
}

}  // namespace minigraph

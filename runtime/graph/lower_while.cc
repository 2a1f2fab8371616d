#include "runtime/graph/lower_while.h"

#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/function.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

bool MarkedForLowering(const NodeDef& n) {
  if (n.op() != "While" && n.op() != "StatelessWhile") return false;
  auto it = n.attr().find("_lower_using_switch_merge");
  return it != n.attr().end() && it->second.b();
}

class Lowering {
 public:
  Lowering(const OpRegistry* ops, const FunctionDefLibrary& library, const GraphDef& graph)
      : ops_(ops), library_(library) {
    for (const NodeDef& n : graph.node()) names_.insert(n.name());
  }

  // The nodes that replace `loop`, the last one named as it; false (and no
  // nodes) when it stays as it is.
  bool Lower(const NodeDef& loop, std::vector<NodeDef>* nodes);

  // Each lowered loop's outputs (an Identity of each Exit), by the loop's
  // name.
  const absl::flat_hash_map<std::string, std::vector<std::string>>& exits() const {
    return exits_;
  }

 private:
  // `base`, or base_1, base_2, ... when taken.
  std::string Unique(const std::string& base) {
    std::string name = base;
    for (int i = 1; names_.contains(name); ++i) name = absl::StrCat(base, "_", i);
    names_.insert(name);
    return name;
  }

  NodeDef Node(const std::string& base, const std::string& op, DataType type,
               std::vector<std::string> inputs) const {
    NodeDef n;
    n.set_name(base);
    n.set_op(op);
    n.set_device(device_);
    for (std::string& in : inputs) n.add_input(std::move(in));
    SetAttr("T", type, &n);
    return n;
  }

  // Copies `f`'s nodes, named prefix/<node>, into `nodes`, its arguments
  // taken from the tensors `args`; a node with no inputs waits for `pivot`,
  // so that it runs in the frame. The copies of its results go to `rets`,
  // its control results (as control inputs) to `after`.
  absl::Status Inline(const FunctionGraph& f, const std::string& prefix,
                      const std::vector<std::string>& args, const std::string& pivot,
                      std::vector<NodeDef>* nodes, std::vector<std::string>* rets,
                      std::vector<std::string>* after);

  const OpRegistry* const ops_;
  const FunctionDefLibrary& library_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, std::vector<std::string>> exits_;
  std::string device_;
};

absl::Status Lowering::Inline(const FunctionGraph& f, const std::string& prefix,
                              const std::vector<std::string>& args, const std::string& pivot,
                              std::vector<NodeDef>* nodes, std::vector<std::string>* rets,
                              std::vector<std::string>* after) {
  absl::flat_hash_map<std::string, std::string> arg_tensor, renamed;
  for (size_t i = 0; i < f.args.size(); ++i) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(f.args[i]));
    arg_tensor[id.node] = args[i];
  }
  for (const NodeDef& n : f.graph.node()) {
    if (!arg_tensor.contains(n.name())) renamed[n.name()] = Unique(prefix + "/" + n.name());
  }
  auto map = [&](const std::string& tensor) -> absl::StatusOr<std::string> {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(tensor));
    auto arg = arg_tensor.find(id.node);
    if (arg != arg_tensor.end()) {
      if (!id.control) return arg->second;
      MG_ASSIGN_OR_RETURN(TensorId of, ParseTensorName(arg->second));
      return "^" + of.node;
    }
    auto it = renamed.find(id.node);
    if (it == renamed.end()) {
      return absl::InvalidArgumentError(absl::StrCat("'", tensor, "' is not in function '",
                                                     f.name, "'"));
    }
    if (id.control) return "^" + it->second;
    return id.index == 0 ? it->second : absl::StrCat(it->second, ":", id.index);
  };
  for (const NodeDef& n : f.graph.node()) {
    if (arg_tensor.contains(n.name())) continue;
    NodeDef copy = n;
    copy.set_name(renamed.at(n.name()));
    copy.clear_input();
    for (const std::string& in : n.input()) {
      MG_ASSIGN_OR_RETURN(std::string mapped, map(in));
      copy.add_input(std::move(mapped));
    }
    if (copy.input_size() == 0) copy.add_input("^" + pivot);
    if (copy.device().empty()) copy.set_device(device_);
    nodes->push_back(std::move(copy));
  }
  for (const std::string& r : f.rets) {
    MG_ASSIGN_OR_RETURN(std::string mapped, map(r));
    rets->push_back(std::move(mapped));
  }
  for (const std::string& t : f.targets) {
    MG_ASSIGN_OR_RETURN(std::string mapped, map("^" + t));
    after->push_back(std::move(mapped));
  }
  return absl::OkStatus();
}

bool Lowering::Lower(const NodeDef& loop, std::vector<NodeDef>* nodes) {
  const auto& attr = loop.attr();
  auto types_it = attr.find("T");
  auto cond_it = attr.find("cond");
  auto body_it = attr.find("body");
  if (types_it == attr.end() || cond_it == attr.end() || body_it == attr.end()) return false;
  const auto& types = types_it->second.list().type();
  const int k = types.size();
  std::vector<std::string> inputs, control;
  for (const std::string& in : loop.input()) (in[0] == '^' ? control : inputs).push_back(in);
  if (k == 0 || static_cast<int>(inputs.size()) != k) return false;
  NameAttrList cond = cond_it->second.func(), body = body_it->second.func();
  cond.set_name(CpuImplementation(library_, cond.name()));
  body.set_name(CpuImplementation(library_, body.name()));
  absl::StatusOr<FunctionGraph> c = InstantiateFunction(library_, cond, ops_);
  absl::StatusOr<FunctionGraph> b = InstantiateFunction(library_, body, ops_);
  if (!c.ok() || !b.ok() || c->ret_types.size() != 1 || c->ret_types[0] != DT_BOOL ||
      static_cast<int>(c->args.size()) != k || static_cast<int>(b->args.size()) != k ||
      static_cast<int>(b->rets.size()) != k) {
    return false;
  }
  int64_t parallel = 10;
  auto p = attr.find("parallel_iterations");
  if (p != attr.end() && p->second.i() > 0) parallel = p->second.i();
  device_ = loop.device();
  const std::string& frame = loop.name();
  std::vector<NodeDef> out;
  std::vector<std::string> merge(k), next(k), ident(k), exits(k);
  for (int i = 0; i < k; ++i) {
    const DataType t = static_cast<DataType>(types[i]);
    std::vector<std::string> enter_in = {inputs[i]};
    enter_in.insert(enter_in.end(), control.begin(), control.end());
    NodeDef enter = Node(Unique(frame + "/Enter"), "Enter", t, std::move(enter_in));
    SetAttr("frame_name", frame, &enter);
    SetAttr("is_constant", false, &enter);
    SetAttr("parallel_iterations", parallel, &enter);
    merge[i] = Unique(frame + "/Merge");
    next[i] = Unique(frame + "/NextIteration");
    NodeDef m = Node(merge[i], "Merge", t, {enter.name(), next[i]});
    SetAttr("N", int64_t{2}, &m);
    out.push_back(std::move(enter));
    out.push_back(std::move(m));
  }
  std::vector<std::string> pred, cond_after;
  if (!Inline(*c, frame + "/cond", merge, merge[0], &out, &pred, &cond_after).ok()) return false;
  std::vector<std::string> loop_cond_in = {pred[0]};
  loop_cond_in.insert(loop_cond_in.end(), cond_after.begin(), cond_after.end());
  NodeDef loop_cond = Node(Unique(frame + "/LoopCond"), "LoopCond", DT_BOOL, loop_cond_in);
  loop_cond.mutable_attr()->erase("T");
  for (int i = 0; i < k; ++i) {
    const DataType t = static_cast<DataType>(types[i]);
    const std::string sw = Unique(frame + "/Switch");
    out.push_back(Node(sw, "Switch", t, {merge[i], loop_cond.name()}));
    exits[i] = Unique(frame + "/Exit");
    out.push_back(Node(exits[i], "Exit", t, {sw}));
    ident[i] = Unique(frame + "/Identity");
    out.push_back(Node(ident[i], "Identity", t, {sw + ":1"}));
  }
  out.push_back(std::move(loop_cond));
  std::vector<std::string> rets, body_after;
  if (!Inline(*b, frame + "/body", ident, ident[0], &out, &rets, &body_after).ok()) return false;
  for (int i = 0; i < k; ++i) {
    std::vector<std::string> in = {rets[i]};
    in.insert(in.end(), body_after.begin(), body_after.end());
    out.push_back(Node(next[i], "NextIteration", static_cast<DataType>(types[i]), in));
  }
  // Each output also on its own outside the frame, for its readers (and
  // for a step that feeds it).
  std::vector<std::string> each(k);
  for (int i = 0; i < k; ++i) {
    each[i] = Unique(frame + "/Output");
    out.push_back(Node(each[i], "Identity", static_cast<DataType>(types[i]), {exits[i]}));
  }
  NodeDef outputs;
  outputs.set_name(loop.name());
  outputs.set_op("IdentityN");
  outputs.set_device(device_);
  for (const std::string& e : each) outputs.add_input(e);
  (*outputs.mutable_attr())["T"] = types_it->second;
  out.push_back(std::move(outputs));
  nodes->insert(nodes->end(), std::make_move_iterator(out.begin()),
                std::make_move_iterator(out.end()));
  exits_[loop.name()] = std::move(each);
  return true;
}

}  // namespace

bool HasLoopsToLower(const GraphDef& graph) {
  for (const NodeDef& n : graph.node()) {
    if (MarkedForLowering(n)) return true;
  }
  return false;
}

absl::Status LowerWhileLoops(GraphDef* graph, const OpRegistry* ops,
                             const FunctionDefLibrary* library,
                             absl::flat_hash_map<std::string, std::string>* exits_of) {
  if (!HasLoopsToLower(*graph)) return absl::OkStatus();
  const FunctionDefLibrary& lib = library != nullptr ? *library : graph->library();
  Lowering lowering(ops, lib, *graph);
  // A loop inside a lowered body is lowered in turn.
  std::deque<NodeDef> todo(graph->node().begin(), graph->node().end());
  google::protobuf::RepeatedPtrField<NodeDef> done;
  while (!todo.empty()) {
    NodeDef n = std::move(todo.front());
    todo.pop_front();
    std::vector<NodeDef> lowered;
    if (MarkedForLowering(n) && lowering.Lower(n, &lowered)) {
      todo.insert(todo.end(), std::make_move_iterator(lowered.begin()),
                  std::make_move_iterator(lowered.end()));
      continue;
    }
    *done.Add() = std::move(n);
  }
  // What reads a loop's output reads that output alone (the IdentityN
  // stays for fetches and control inputs), so that a step that needs some
  // of a loop's outputs runs only the part of the frame they depend on, as
  // TensorFlow rewires a loop that is not fetched.
  const auto& exits = lowering.exits();
  for (NodeDef& n : done) {
    if (exits.contains(n.name()) && n.op() == "IdentityN") continue;
    for (std::string& in : *n.mutable_input()) {
      if (in.empty() || in[0] == '^') continue;
      absl::StatusOr<TensorId> id = ParseTensorName(in);
      if (!id.ok()) continue;
      auto it = exits.find(id->node);
      if (it != exits.end() && id->index < static_cast<int>(it->second.size())) {
        in = it->second[id->index];
      }
    }
  }
  graph->mutable_node()->Swap(&done);
  if (exits_of != nullptr) {
    for (const auto& [loop, loop_exits] : exits) {
      for (size_t i = 0; i < loop_exits.size(); ++i) {
        (*exits_of)[absl::StrCat(loop, ":", i)] = loop_exits[i] + ":0";
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace minigraph

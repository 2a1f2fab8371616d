#include "runtime/graph/function.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

// An attr of the call, else the function's, else the signature's default.
const AttrValue* FindAttr(const std::string& name, const NameAttrList& call,
                          const FunctionDef& fdef) {
  if (auto it = call.attr().find(name); it != call.attr().end()) return &it->second;
  if (auto it = fdef.attr().find(name); it != fdef.attr().end()) return &it->second;
  for (const OpDef::AttrDef& a : fdef.signature().attr()) {
    if (a.name() == name && a.has_default_value()) return &a.default_value();
  }
  return nullptr;
}

// The dtypes an argument or result stands for: one, or a list (N * T, or
// list(type)).
absl::StatusOr<std::vector<DataType>> ArgTypes(const OpDef::ArgDef& arg, const NameAttrList& call,
                                               const FunctionDef& fdef, absl::string_view what) {
  auto missing = [&](const std::string& attr, absl::string_view kind) {
    return absl::InvalidArgumentError(absl::StrCat("function '", fdef.signature().name(),
                                                   "': ", what, " '", arg.name(), "' has ", kind,
                                                   " '", attr, "', which the call does not set"));
  };
  if (!arg.type_list_attr().empty()) {
    const AttrValue* v = FindAttr(arg.type_list_attr(), call, fdef);
    if (v == nullptr || v->value_case() != AttrValue::kList) {
      return missing(arg.type_list_attr(), "type list attr");
    }
    std::vector<DataType> types;
    for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
    return types;
  }
  int64_t n = 1;
  if (!arg.number_attr().empty()) {
    const AttrValue* v = FindAttr(arg.number_attr(), call, fdef);
    if (v == nullptr || v->value_case() != AttrValue::kI || v->i() < 0) {
      return missing(arg.number_attr(), "length attr");
    }
    n = v->i();
  }
  DataType dt = arg.type();
  if (dt == DT_INVALID) {
    const AttrValue* v = FindAttr(arg.type_attr(), call, fdef);
    if (v == nullptr || v->value_case() != AttrValue::kType) {
      return missing(arg.type_attr(), "type attr");
    }
    dt = v->type();
  }
  return std::vector<DataType>(n, dt);
}

// One InstantiateFunction call: `fdef`'s body as a graph, its arguments
// placeholders, its inputs resolved to "node:k" names.
class Instantiator {
 public:
  Instantiator(const FunctionDef& fdef, const NameAttrList& call,
               const absl::flat_hash_map<std::string, const FunctionDef*>& functions)
      : fdef_(fdef), call_(call), functions_(functions) {
    out_.name = fdef.signature().name();
  }

  absl::StatusOr<FunctionGraph> Run(const OpRegistry* ops);

 private:
  absl::Status Fail(absl::string_view node, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat("function '", fdef_.signature().name(),
                                                   "', node '", node, "': ", message));
  }
  // Each argument's placeholders: "x" for one tensor, "xs_0", "xs_1", ...
  // for a list of several (TensorFlow's names). "xs" names them all, "xs:i"
  // one of them.
  absl::Status AddArguments();
  // The body's nodes with the call's values for their "$placeholder" attrs.
  absl::Status SubstituteAttrs();
  // Each node's output arguments, as offsets into its flat outputs and
  // lengths.
  absl::Status IndexOutputs(const OpRegistry* ops);
  // The tensors an input names: "x" (an argument, all of a list), "xs:i"
  // (one of a list), "node:out" (all of an output argument), "node:out:k",
  // "node:k" (an output by index) or "node" (output 0); "^node" (control).
  absl::StatusOr<std::vector<std::string>> Resolve(absl::string_view node,
                                                   const std::string& input) const;
  // The results and the control outputs.
  absl::Status AddResults();

  const FunctionDef& fdef_;
  const NameAttrList& call_;
  const absl::flat_hash_map<std::string, const FunctionDef*>& functions_;
  FunctionGraph out_;
  absl::flat_hash_map<std::string, std::vector<std::string>> arg_tensors_;
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::pair<int64_t, int64_t>>>
      outputs_;
  std::vector<NodeDef> body_;
};

absl::Status Instantiator::AddArguments() {
  for (const OpDef::ArgDef& arg : fdef_.signature().input_arg()) {
    MG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, call_, fdef_, "argument"));
    std::vector<std::string>& tensors = arg_tensors_[arg.name()];
    for (size_t i = 0; i < types.size(); ++i) {
      NodeDef* p = out_.graph.add_node();
      p->set_name(types.size() == 1 ? arg.name() : absl::StrCat(arg.name(), "_", i));
      p->set_op("Placeholder");
      SetAttr("dtype", types[i], p);
      tensors.push_back(p->name() + ":0");
      out_.args.push_back(p->name() + ":0");
      out_.arg_types.push_back(types[i]);
    }
  }
  return absl::OkStatus();
}

absl::Status Instantiator::SubstituteAttrs() {
  body_.assign(fdef_.node_def().begin(), fdef_.node_def().end());
  for (NodeDef& node : body_) {
    for (auto& [name, value] : *node.mutable_attr()) {
      if (value.value_case() != AttrValue::kPlaceholder) continue;
      const AttrValue* v = FindAttr(value.placeholder(), call_, fdef_);
      if (v == nullptr) {
        return Fail(node.name(), absl::StrCat("attr '", name, "' is $", value.placeholder(),
                                              ", which the call does not set"));
      }
      value = *v;
    }
  }
  return absl::OkStatus();
}

absl::Status Instantiator::IndexOutputs(const OpRegistry* ops) {
  for (const NodeDef& node : body_) {
    if (functions_.contains(node.op())) {
      return absl::UnimplementedError(absl::StrCat(
          "function '", fdef_.signature().name(), "', node '", node.name(), "' calls function '",
          node.op(), "' by name; only calls through PartitionedCall, If and While are supported"));
    }
    absl::StatusOr<const OpRegistrationData*> op = ops->LookUp(node.op());
    if (!op.ok()) return Fail(node.name(), std::string(op.status().message()));
    NodeDef with_defaults = node;
    AddDefaultsToNodeDef((*op)->op_def, &with_defaults);
    std::vector<int64_t> in_sizes, sizes;
    MG_RETURN_IF_ERROR(ArgSizesForNode(with_defaults, (*op)->op_def, &in_sizes, &sizes));
    int64_t at = 0;
    for (int i = 0; i < (*op)->op_def.output_arg_size(); ++i) {
      outputs_[node.name()][(*op)->op_def.output_arg(i).name()] = {at, sizes[i]};
      at += sizes[i];
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Instantiator::Resolve(absl::string_view node,
                                                               const std::string& input) const {
  if (!input.empty() && input[0] == '^') return std::vector<std::string>{input};
  std::vector<std::string> parts = absl::StrSplit(input, ':');
  auto arg = arg_tensors_.find(parts[0]);
  auto node_it = outputs_.find(parts[0]);
  int64_t k = 0;
  if (parts.size() == 1) {
    if (arg != arg_tensors_.end()) return arg->second;
    return std::vector<std::string>{input};
  }
  if (parts.size() == 2 && arg != arg_tensors_.end()) {
    if (!absl::SimpleAtoi(parts[1], &k) || k < 0 ||
        k >= static_cast<int64_t>(arg->second.size())) {
      return Fail(node, absl::StrCat("input '", input, "': argument '", parts[0], "' has ",
                                     arg->second.size(), " tensor(s)"));
    }
    return std::vector<std::string>{arg->second[k]};
  }
  if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &k)) {
    return std::vector<std::string>{input};  // already "node:k"
  }
  if (node_it == outputs_.end() || parts.size() > 3 ||
      (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &k))) {
    return Fail(node, absl::StrCat("cannot resolve input '", input, "'"));
  }
  auto out_it = node_it->second.find(parts[1]);
  if (out_it == node_it->second.end()) {
    return Fail(node, absl::StrCat("input '", input, "': node '", parts[0],
                                   "' has no output argument '", parts[1], "'"));
  }
  const auto [offset, length] = out_it->second;
  std::vector<std::string> tensors;
  if (parts.size() == 3) {
    if (k < 0 || k >= length) {
      return Fail(node, absl::StrCat("input '", input, "': output argument '", parts[1], "' has ",
                                     length, " tensor(s)"));
    }
    tensors.push_back(absl::StrCat(parts[0], ":", offset + k));
  } else {
    for (int64_t i = 0; i < length; ++i) tensors.push_back(absl::StrCat(parts[0], ":", offset + i));
  }
  return tensors;
}

absl::Status Instantiator::AddResults() {
  const OpDef& sig = fdef_.signature();
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    MG_ASSIGN_OR_RETURN(std::vector<DataType> types, ArgTypes(arg, call_, fdef_, "result"));
    auto it = fdef_.ret().find(arg.name());
    if (it == fdef_.ret().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", sig.name(), "' does not say what result '", arg.name(), "' returns"));
    }
    MG_ASSIGN_OR_RETURN(std::vector<std::string> tensors, Resolve("<return>", it->second));
    if (tensors.size() != types.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("function '", sig.name(), "': result '", arg.name(), "' is ", types.size(),
                       " tensor(s), but '", it->second, "' names ", tensors.size()));
    }
    out_.rets.insert(out_.rets.end(), tensors.begin(), tensors.end());
    out_.ret_types.insert(out_.ret_types.end(), types.begin(), types.end());
  }
  for (const std::string& c : sig.control_output()) {
    auto it = fdef_.control_ret().find(c);
    out_.targets.push_back(it == fdef_.control_ret().end() ? c : it->second);
  }
  return absl::OkStatus();
}

absl::StatusOr<FunctionGraph> Instantiator::Run(const OpRegistry* ops) {
  MG_RETURN_IF_ERROR(AddArguments());
  MG_RETURN_IF_ERROR(SubstituteAttrs());
  MG_RETURN_IF_ERROR(IndexOutputs(ops));
  for (const NodeDef& node : body_) {
    NodeDef* n = out_.graph.add_node();
    *n = node;
    n->clear_input();
    for (const std::string& input : node.input()) {
      MG_ASSIGN_OR_RETURN(std::vector<std::string> tensors, Resolve(node.name(), input));
      for (std::string& t : tensors) n->add_input(std::move(t));
    }
  }
  MG_RETURN_IF_ERROR(AddResults());
  return std::move(out_);
}

}  // namespace

absl::StatusOr<FunctionGraph> InstantiateFunction(const FunctionDefLibrary& library,
                                                  const NameAttrList& call, const OpRegistry* ops) {
  const FunctionDef* fdef = nullptr;
  absl::flat_hash_map<std::string, const FunctionDef*> functions;
  for (const FunctionDef& f : library.function()) {
    functions[f.signature().name()] = &f;
    if (f.signature().name() == call.name()) fdef = &f;
  }
  if (fdef == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("function '", call.name(), "' is not in the graph's function library"));
  }
  return Instantiator(*fdef, call, functions).Run(ops);
}

std::string CpuImplementation(const FunctionDefLibrary& library, const std::string& name) {
  auto attr = [](const FunctionDef& f, const char* key) -> std::string {
    auto it = f.attr().find(key);
    return it == f.attr().end() ? std::string() : it->second.s();
  };
  const FunctionDef* called = nullptr;
  for (const FunctionDef& f : library.function()) {
    if (f.signature().name() == name) called = &f;
  }
  if (called == nullptr) return name;
  const std::string api = attr(*called, "api_implements");
  if (api.empty() || absl::AsciiStrToUpper(attr(*called, "api_preferred_device")) == "CPU") {
    return name;
  }
  for (const FunctionDef& f : library.function()) {
    if (attr(f, "api_implements") == api &&
        absl::AsciiStrToUpper(attr(f, "api_preferred_device")) == "CPU") {
      return f.signature().name();
    }
  }
  return name;
}

std::set<std::string> ReachableFunctions(const GraphDef& graph) {
  std::vector<const NodeDef*> nodes;
  for (const NodeDef& n : graph.node()) nodes.push_back(&n);
  return ReachableFunctions(graph.library(), nodes);
}

std::set<std::string> ReachableFunctions(const FunctionDefLibrary& library,
                                         const std::vector<const NodeDef*>& nodes) {
  absl::flat_hash_map<std::string, const FunctionDef*> functions;
  for (const FunctionDef& f : library.function()) functions[f.signature().name()] = &f;
  std::set<std::string> reached;
  std::vector<std::string> todo;
  auto reach = [&](const std::string& name) {
    const std::string chosen = CpuImplementation(library, name);
    if (functions.count(chosen) > 0 && reached.insert(chosen).second) todo.push_back(chosen);
  };
  auto scan = [&](const NodeDef& n) {
    reach(n.op());
    for (const auto& [key, value] : n.attr()) {
      if (value.has_func()) reach(value.func().name());
      for (const NameAttrList& f : value.list().func()) reach(f.name());
    }
  };
  for (const NodeDef* n : nodes) scan(*n);
  while (!todo.empty()) {
    const FunctionDef* f = functions[todo.back()];
    todo.pop_back();
    for (const NodeDef& n : f->node_def()) scan(n);
  }
  return reached;
}

absl::StatusOr<std::vector<const NodeDef*>> NodesNeeded(const GraphDef& graph,
                                                        const std::vector<std::string>& outputs,
                                                        const std::set<std::string>& fed) {
  absl::flat_hash_map<absl::string_view, int> index;
  for (int i = 0; i < graph.node_size(); ++i) index[graph.node(i).name()] = i;
  // The node an input or output names: "^n", "n", "n:1".
  auto node_of = [](absl::string_view name) {
    absl::ConsumePrefix(&name, "^");
    return name.substr(0, name.find(':'));
  };
  std::vector<bool> needed(graph.node_size(), false);
  std::vector<int> todo;
  for (const std::string& output : outputs) {
    auto it = index.find(node_of(output));
    if (it == index.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", output, "' names no node of the graph"));
    }
    if (!needed[it->second]) {
      needed[it->second] = true;
      todo.push_back(it->second);
    }
  }
  while (!todo.empty()) {
    const NodeDef& n = graph.node(todo.back());
    todo.pop_back();
    if (fed.count(n.name()) > 0) continue;
    for (const std::string& input : n.input()) {
      auto it = index.find(node_of(input));
      if (it == index.end() || needed[it->second]) continue;
      needed[it->second] = true;
      todo.push_back(it->second);
    }
  }
  std::vector<const NodeDef*> nodes;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (needed[i]) nodes.push_back(&graph.node(i));
  }
  return nodes;
}

}  // namespace minigraph

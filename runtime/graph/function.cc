#include "runtime/graph/function.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

absl::StatusOr<DataType> ArgType(const OpDef::ArgDef& arg, const NameAttrList& call,
                                 const FunctionDef& fdef, absl::string_view what) {
  if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
    return absl::UnimplementedError(absl::StrCat("function '", fdef.signature().name(), "': ", what,
                                                 " '", arg.name(),
                                                 "' is a list; list arguments are not supported"));
  }
  if (arg.type() != DT_INVALID) return arg.type();
  auto it = call.attr().find(arg.type_attr());
  if (it == call.attr().end()) it = fdef.attr().find(arg.type_attr());
  if (it == call.attr().end() || it->second.value_case() != AttrValue::kType) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", fdef.signature().name(), "': ", what, " '", arg.name(),
                     "' has type attr '", arg.type_attr(), "', which the call does not set"));
  }
  return it->second.type();
}

// How many tensors each output argument of `op` stands for on `node`.
absl::StatusOr<std::vector<int64_t>> OutputArgSizes(const NodeDef& node, const OpDef& op) {
  std::vector<int64_t> sizes;
  for (const OpDef::ArgDef& arg : op.output_arg()) {
    int64_t n = 1;
    if (!arg.number_attr().empty()) {
      auto it = node.attr().find(arg.number_attr());
      if (it == node.attr().end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", node.name(), "' lacks attr '", arg.number_attr(), "'"));
      }
      n = it->second.i();
    } else if (!arg.type_list_attr().empty()) {
      auto it = node.attr().find(arg.type_list_attr());
      if (it == node.attr().end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", node.name(), "' lacks attr '", arg.type_list_attr(), "'"));
      }
      n = it->second.list().type_size();
    }
    sizes.push_back(n);
  }
  return sizes;
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
  const OpDef& sig = fdef->signature();
  auto fail = [&](absl::string_view node, const std::string& message) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", sig.name(), "', node '", node, "': ", message));
  };
  FunctionGraph out;
  out.name = sig.name();
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    MG_ASSIGN_OR_RETURN(DataType dt, ArgType(arg, call, *fdef, "argument"));
    NodeDef* p = out.graph.add_node();
    p->set_name(arg.name());
    p->set_op("Placeholder");
    SetAttr("dtype", dt, p);
    out.args.push_back(arg.name() + ":0");
    out.arg_types.push_back(dt);
  }
  // Each node's output arguments, as offsets into its flat outputs.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, int64_t>> offsets;
  for (const NodeDef& node : fdef->node_def()) {
    if (functions.contains(node.op())) {
      return absl::UnimplementedError(absl::StrCat(
          "function '", sig.name(), "', node '", node.name(), "' calls function '", node.op(),
          "' by name; only calls through PartitionedCall, If and While are supported"));
    }
    absl::StatusOr<const OpRegistrationData*> op = ops->LookUp(node.op());
    if (!op.ok()) return fail(node.name(), std::string(op.status().message()));
    NodeDef with_defaults = node;
    AddDefaultsToNodeDef((*op)->op_def, &with_defaults);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, OutputArgSizes(with_defaults, (*op)->op_def));
    int64_t at = 0;
    for (int i = 0; i < (*op)->op_def.output_arg_size(); ++i) {
      offsets[node.name()][(*op)->op_def.output_arg(i).name()] = at;
      at += sizes[i];
    }
  }
  // "x" (an argument), "node:arg:k" (an output), "^node" (control).
  auto resolve = [&](absl::string_view node,
                     const std::string& input) -> absl::StatusOr<std::string> {
    if (!input.empty() && input[0] == '^') return input;
    std::vector<std::string> parts = absl::StrSplit(input, ':');
    if (parts.size() == 1) return input;  // an argument, or a node's output 0
    if (parts.size() == 2) return input;  // already "node:k"
    int64_t k;
    auto node_it = offsets.find(parts[0]);
    if (parts.size() != 3 || node_it == offsets.end() || !absl::SimpleAtoi(parts[2], &k)) {
      return fail(node, absl::StrCat("cannot resolve input '", input, "'"));
    }
    auto arg_it = node_it->second.find(parts[1]);
    if (arg_it == node_it->second.end()) {
      return fail(node, absl::StrCat("input '", input, "': node '", parts[0],
                                     "' has no output argument '", parts[1], "'"));
    }
    return absl::StrCat(parts[0], ":", arg_it->second + k);
  };
  for (const NodeDef& node : fdef->node_def()) {
    NodeDef* n = out.graph.add_node();
    *n = node;
    for (int i = 0; i < n->input_size(); ++i) {
      MG_ASSIGN_OR_RETURN(*n->mutable_input(i), resolve(node.name(), node.input(i)));
    }
    for (auto& [name, value] : *n->mutable_attr()) {
      if (value.value_case() != AttrValue::kPlaceholder) continue;
      auto it = call.attr().find(value.placeholder());
      if (it == call.attr().end()) {
        return fail(node.name(), absl::StrCat("attr '", name, "' is $", value.placeholder(),
                                              ", which the call does not set"));
      }
      value = it->second;
    }
  }
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    MG_ASSIGN_OR_RETURN(DataType dt, ArgType(arg, call, *fdef, "result"));
    auto it = fdef->ret().find(arg.name());
    if (it == fdef->ret().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", sig.name(), "' does not say what result '", arg.name(), "' returns"));
    }
    MG_ASSIGN_OR_RETURN(std::string tensor, resolve("<return>", it->second));
    out.rets.push_back(tensor);
    out.ret_types.push_back(dt);
  }
  for (const std::string& c : sig.control_output()) {
    auto it = fdef->control_ret().find(c);
    out.targets.push_back(it == fdef->control_ret().end() ? c : it->second);
  }
  return out;
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
  absl::flat_hash_map<std::string, const FunctionDef*> functions;
  for (const FunctionDef& f : graph.library().function()) functions[f.signature().name()] = &f;
  std::set<std::string> reached;
  std::vector<std::string> todo;
  auto reach = [&](const std::string& name) {
    const std::string chosen = CpuImplementation(graph.library(), name);
    if (functions.count(chosen) > 0 && reached.insert(chosen).second) todo.push_back(chosen);
  };
  auto scan = [&](const NodeDef& n) {
    reach(n.op());
    for (const auto& [key, value] : n.attr()) {
      if (value.has_func()) reach(value.func().name());
      for (const NameAttrList& f : value.list().func()) reach(f.name());
    }
  };
  for (const NodeDef& n : graph.node()) scan(n);
  while (!todo.empty()) {
    const FunctionDef* f = functions[todo.back()];
    todo.pop_back();
    for (const NodeDef& n : f->node_def()) scan(n);
  }
  return reached;
}

}  // namespace minigraph

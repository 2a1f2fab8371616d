// Gradients of calls of library functions (PartitionedCall and
// StatefulPartitionedCall): what TensorFlow's SymbolicGradient computes.
//
// The called body (its CPU implementation) is instantiated, the part of it
// its results depend on is copied into the gradient's name scope with the
// call's inputs as its arguments, and that copy is differentiated like any
// other subgraph. Calls inside the body get their gradients the same way.
// As with SymbolicGradient, the forward computation runs again in the
// backward pass; a body whose results depend on an op with side effects or
// randomness is refused, because its second run would not be the first.

#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/function.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

// Stateful ops that a second run leaves as the first: reads of state, and
// calls (whose bodies are checked when they are differentiated in turn).
bool RunsTheSameTwice(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "ReadVariableOp", "ResourceGather",  "VarIsInitializedOp",
      "VarHandleOp",    "PartitionedCall", "StatefulPartitionedCall"};
  return kOps->contains(op);
}

absl::Status CallGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_outputs, std::vector<Output>* grad_inputs) {
  const NodeDef& node = scope.GetNodeDef(op);
  auto f = node.attr().find("f");
  if (f == node.attr().end() || !f->second.has_func()) {
    return absl::InvalidArgumentError(absl::StrCat("call '", op.name(), "' has no attr 'f'"));
  }
  NameAttrList call = f->second.func();
  call.set_name(CpuImplementation(scope.library(), call.name()));
  MG_ASSIGN_OR_RETURN(FunctionGraph body,
                      InstantiateFunction(scope.library(), call, scope.op_registry()));

  // The body's nodes that its results depend on, through data and control
  // inputs: what runs again.
  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : body.graph.node()) by_name[n.name()] = &n;
  absl::flat_hash_set<std::string> needed;
  std::deque<std::string> todo;
  auto need = [&](const std::string& tensor) -> absl::Status {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(tensor));
    if (needed.insert(id.node).second) todo.push_back(id.node);
    return absl::OkStatus();
  };
  for (const std::string& ret : body.rets) MG_RETURN_IF_ERROR(need(ret));
  while (!todo.empty()) {
    const NodeDef* n = by_name.at(todo.front());
    todo.pop_front();
    MG_ASSIGN_OR_RETURN(const OpRegistrationData* reg, scope.op_registry()->LookUp(n->op()));
    if (reg->op_def.is_stateful() && !RunsTheSameTwice(n->op())) {
      return absl::InvalidArgumentError(
          absl::StrCat("the gradient of '", op.name(), "' runs function '", call.name(),
                       "' again, and its result depends on node '", n->name(), "' (", n->op(),
                       "), which has side effects or randomness"));
    }
    for (const std::string& in : n->input()) MG_RETURN_IF_ERROR(need(in));
  }

  // The copy: the arguments are Identities of the call's inputs (so that
  // each argument's gradient is its own, even where one input is computed
  // from another), the needed nodes come after them.
  const Scope b = scope.NewSubScope(absl::StrCat(op.name(), "_body"));
  const std::vector<Output> inputs = scope.GetInputs(op);
  ImportGraphDefOptions options;
  std::vector<Output> xs;
  std::vector<int> x_input;
  absl::flat_hash_set<std::string> args;
  for (size_t i = 0; i < body.args.size() && i < inputs.size(); ++i) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(body.args[i]));
    args.insert(id.node);
    if (!needed.contains(id.node)) continue;
    Output x = ops::Identity(b.WithOpName(id.node), inputs[i]);
    options.input_map[body.args[i]] = x;
    xs.push_back(x);
    x_input.push_back(static_cast<int>(i));
  }
  GraphDef copy;
  for (const NodeDef& n : body.graph.node()) {
    if (needed.contains(n.name()) && !args.contains(n.name())) *copy.add_node() = n;
  }
  MG_ASSIGN_OR_RETURN(auto imported, ImportGraphDef(b, copy, options));
  std::vector<Output> ys;
  for (const std::string& ret : body.rets) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(ret));
    auto mapped = options.input_map.find(absl::StrCat(id.node, ":", id.index));
    ys.push_back(mapped != options.input_map.end() ? mapped->second
                                                   : imported.at(id.node).output(id.index));
  }
  std::vector<Output> grads;
  MG_RETURN_IF_ERROR(AddSymbolicGradients(b, ys, xs, grad_outputs, &grads));
  grad_inputs->assign(inputs.size(), Output());
  for (size_t k = 0; k < xs.size(); ++k) (*grad_inputs)[x_input[k]] = grads[k];
  return absl::OkStatus();
}

}  // namespace

void RegisterFunctionCallGradients(GradientRegistry* r) {
  r->Register("PartitionedCall", CallGrad);
  r->Register("StatefulPartitionedCall", CallGrad);
}

}  // namespace minigraph

// Gradients of calls of library functions (PartitionedCall and
// StatefulPartitionedCall): what TensorFlow's SymbolicGradient computes;
// and of If and StatelessIf, as a choice between the branches' gradients.
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

// d(results of `fn` on `inputs`)/d(inputs), weighted by `dys`, built in `b`:
// the body's needed part is copied there and differentiated. An input the
// results do not depend on gets an invalid Output. `caller` names the node
// in errors.
absl::Status DifferentiateBody(const Scope& b, const std::string& caller, NameAttrList fn,
                               const std::vector<Output>& inputs, const std::vector<Output>& dys,
                               std::vector<Output>* dxs) {
  fn.set_name(CpuImplementation(b.library(), fn.name()));
  MG_ASSIGN_OR_RETURN(FunctionGraph body, InstantiateFunction(b.library(), fn, b.op_registry()));

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
    MG_ASSIGN_OR_RETURN(const OpRegistrationData* reg, b.op_registry()->LookUp(n->op()));
    if (reg->op_def.is_stateful() && !RunsTheSameTwice(n->op())) {
      return absl::InvalidArgumentError(
          absl::StrCat("the gradient of '", caller, "' runs function '", fn.name(),
                       "' again, and its result depends on node '", n->name(), "' (", n->op(),
                       "), which has side effects or randomness"));
    }
    for (const std::string& in : n->input()) MG_RETURN_IF_ERROR(need(in));
  }

  // The copy: the arguments are Identities of the inputs (so that each
  // argument's gradient is its own, even where one input is computed from
  // another), the needed nodes come after them.
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
  MG_RETURN_IF_ERROR(AddSymbolicGradients(b, ys, xs, dys, &grads));
  dxs->assign(inputs.size(), Output());
  for (size_t k = 0; k < xs.size(); ++k) (*dxs)[x_input[k]] = grads[k];
  return absl::OkStatus();
}

const NameAttrList* FuncAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() || !it->second.has_func() ? nullptr : &it->second.func();
}

absl::Status CallGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_outputs, std::vector<Output>* grad_inputs) {
  const NameAttrList* f = FuncAttr(scope.GetNodeDef(op), "f");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("call '", op.name(), "' has no attr 'f'"));
  }
  return DifferentiateBody(scope.NewSubScope(absl::StrCat(op.name(), "_body")), op.name(), *f,
                           scope.GetInputs(op), grad_outputs, grad_inputs);
}

bool IsFloating(DataType t) {
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF || t == DT_BFLOAT16 || t == DT_COMPLEX64 ||
         t == DT_COMPLEX128;
}

// The library function a call of `name` runs on the CPU, or nullptr.
const FunctionDef* FindFunction(const FunctionDefLibrary& library, const std::string& name) {
  const std::string chosen = CpuImplementation(library, name);
  for (const FunctionDef& f : library.function()) {
    if (f.signature().name() == chosen) return &f;
  }
  return nullptr;
}

// The dtype of the value `f` reads through its resource argument `arg`, or
// DT_INVALID when it reads none.
DataType ReadDtype(const FunctionDef& f, const std::string& arg) {
  for (const NodeDef& n : f.node_def()) {
    if ((n.op() == "ReadVariableOp" || n.op() == "ResourceGather") && n.input_size() > 0 &&
        n.input(0) == arg) {
      auto it = n.attr().find("dtype");
      if (it != n.attr().end()) return it->second.type();
    }
  }
  return DT_INVALID;
}

// If and StatelessIf (cond_v2's gradient): an If-like choice, as ops::Cond,
// between the two branches' gradients, each built by DifferentiateBody in
// its own branch. Every floating input gets a gradient (zeros from the
// branch that does not use it), and so does a resource input that a branch
// reads; other inputs get none.
absl::Status IfGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_outputs, std::vector<Output>* grad_inputs) {
  const NodeDef& node = scope.GetNodeDef(op);
  const NameAttrList* then_fn = FuncAttr(node, "then_branch");
  const NameAttrList* else_fn = FuncAttr(node, "else_branch");
  if (then_fn == nullptr || else_fn == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", op.name(), "' lacks attr then_branch or else_branch"));
  }
  const std::vector<Output> inputs = scope.GetInputs(op);
  Output pred = inputs[0];
  if (BaseType(pred.dtype()) != DT_BOOL) {
    return absl::UnimplementedError(absl::StrCat("the gradient of '", op.name(),
                                                 "' needs a bool condition, not ",
                                                 DataTypeString(pred.dtype())));
  }
  const std::vector<Output> args(inputs.begin() + 1, inputs.end());
  // The dtype of each argument's gradient, or DT_INVALID for none.
  std::vector<DataType> grad_type(args.size(), DT_INVALID);
  const FunctionDef* bodies[] = {FindFunction(scope.library(), then_fn->name()),
                                 FindFunction(scope.library(), else_fn->name())};
  for (size_t i = 0; i < args.size(); ++i) {
    const DataType t = BaseType(args[i].dtype());
    if (IsFloating(t)) grad_type[i] = t;
    if (t != DT_RESOURCE) continue;
    for (const FunctionDef* f : bodies) {
      if (f != nullptr && grad_type[i] == DT_INVALID &&
          static_cast<int>(i) < f->signature().input_arg_size()) {
        grad_type[i] = ReadDtype(*f, f->signature().input_arg(i).name());
      }
    }
  }
  std::vector<Output> branch_inputs = args;
  branch_inputs.insert(branch_inputs.end(), grad_outputs.begin(), grad_outputs.end());
  absl::Status status;
  auto branch = [&](const NameAttrList& fn, const char* which) {
    return [&, which](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
      const std::vector<Output> xs(in.begin(), in.begin() + args.size());
      const std::vector<Output> dys(in.begin() + args.size(), in.end());
      std::vector<Output> dxs;
      absl::Status s = DifferentiateBody(b.NewSubScope(absl::StrCat(op.name(), "_", which)),
                                         op.name(), fn, xs, dys, &dxs);
      if (!s.ok()) {
        if (status.ok()) status = s;
        return {};
      }
      std::vector<Output> out;
      for (size_t i = 0; i < args.size(); ++i) {
        if (grad_type[i] == DT_INVALID) continue;
        if (dxs[i].op().valid()) {
          out.push_back(dxs[i]);
        } else if (BaseType(xs[i].dtype()) == DT_RESOURCE) {
          out.push_back(ops::ZerosLike(b, ops::ReadVariableOp(b, xs[i], grad_type[i])));
        } else {
          out.push_back(ops::ZerosLike(b, xs[i]));
        }
      }
      return out;
    };
  };
  const Scope s = scope.NewSubScope(absl::StrCat(op.name(), "_grad"));
  std::vector<Output> chosen =
      ops::Cond(s, pred, branch_inputs, branch(*then_fn, "then"), branch(*else_fn, "else"));
  MG_RETURN_IF_ERROR(status);
  MG_RETURN_IF_ERROR(s.status());
  grad_inputs->assign(inputs.size(), Output());
  size_t k = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (grad_type[i] != DT_INVALID && k < chosen.size()) (*grad_inputs)[i + 1] = chosen[k++];
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterFunctionCallGradients(GradientRegistry* r) {
  r->Register("PartitionedCall", CallGrad);
  r->Register("StatefulPartitionedCall", CallGrad);
  r->Register("If", IfGrad);
  r->Register("StatelessIf", IfGrad);
}

}  // namespace minigraph

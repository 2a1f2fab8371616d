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

// Stateful ops that a second run leaves as the first: reads of variables
// and lookup tables, and calls (whose bodies are checked when they are
// differentiated in turn).
bool RunsTheSameTwice(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "ReadVariableOp",    "ResourceGather",    "VarIsInitializedOp",
      "VarHandleOp",       "LookupTableFindV2", "LookupTableFind",
      "LookupTableSizeV2", "PartitionedCall",   "StatefulPartitionedCall"};
  return kOps->contains(op);
}

// A function's body copied into `b`, as a call of it on `inputs` would run
// it: only the part its results depend on, each argument an Identity of its
// input (so that each argument's gradient is its own, even where one input
// is computed from another), invalid for an argument nothing needs.
struct InlinedBody {
  std::vector<Output> args;
  std::vector<Output> rets;
};

// `caller` names the node in errors. InvalidArgument when the results
// depend on an op that would not run the same twice.
absl::StatusOr<InlinedBody> InlineBody(const Scope& b, const std::string& caller, NameAttrList fn,
                                       const std::vector<Output>& inputs) {
  fn.set_name(CpuImplementation(b.library(), fn.name()));
  MG_ASSIGN_OR_RETURN(FunctionGraph body, InstantiateFunction(b.library(), fn, b.op_registry()));
  if (body.args.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("'", caller, "' passes ", inputs.size(),
                                                   " inputs to function '", fn.name(),
                                                   "', which takes ", body.args.size()));
  }
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

  InlinedBody out;
  ImportGraphDefOptions options;
  absl::flat_hash_set<std::string> args;
  for (size_t i = 0; i < body.args.size(); ++i) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(body.args[i]));
    args.insert(id.node);
    out.args.emplace_back();
    if (!needed.contains(id.node)) continue;
    out.args[i] = ops::Identity(b.WithOpName(id.node), inputs[i]);
    options.input_map[body.args[i]] = out.args[i];
  }
  GraphDef copy;
  for (const NodeDef& n : body.graph.node()) {
    if (needed.contains(n.name()) && !args.contains(n.name())) *copy.add_node() = n;
  }
  MG_ASSIGN_OR_RETURN(auto imported, ImportGraphDef(b, copy, options));
  for (const std::string& ret : body.rets) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(ret));
    auto mapped = options.input_map.find(absl::StrCat(id.node, ":", id.index));
    out.rets.push_back(mapped != options.input_map.end() ? mapped->second
                                                         : imported.at(id.node).output(id.index));
  }
  return out;
}

// d(results of `fn` on `inputs`)/d(inputs), weighted by `dys` (an invalid
// one: nothing flows back from that result), built in `b`. Only the inputs
// `want` marks (all, when it is empty) are differentiated; the others, and
// those the results do not depend on, get an invalid Output.
absl::Status DifferentiateBody(const Scope& b, const std::string& caller, const NameAttrList& fn,
                               const std::vector<Output>& inputs, const std::vector<Output>& dys,
                               const std::vector<bool>& want, std::vector<Output>* dxs) {
  MG_ASSIGN_OR_RETURN(InlinedBody body, InlineBody(b, caller, fn, inputs));
  std::vector<Output> xs;
  std::vector<int> x_input;
  for (size_t i = 0; i < body.args.size(); ++i) {
    if (!body.args[i].op().valid() || (!want.empty() && !want[i])) continue;
    xs.push_back(body.args[i]);
    x_input.push_back(static_cast<int>(i));
  }
  std::vector<Output> grads;
  MG_RETURN_IF_ERROR(AddSymbolicGradients(b, body.rets, xs, dys, &grads));
  dxs->assign(inputs.size(), Output());
  for (size_t k = 0; k < xs.size(); ++k) (*dxs)[x_input[k]] = grads[k];
  return absl::OkStatus();
}

const NameAttrList* FuncAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() || !it->second.has_func() ? nullptr : &it->second.func();
}

absl::Status CallGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_outputs, const std::vector<bool>& wanted,
                      std::vector<Output>* grad_inputs) {
  const NameAttrList* f = FuncAttr(scope.GetNodeDef(op), "f");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("call '", op.name(), "' has no attr 'f'"));
  }
  return DifferentiateBody(scope.NewSubScope(absl::StrCat(op.name(), "_body")), op.name(), *f,
                           scope.GetInputs(op), grad_outputs, wanted, grad_inputs);
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
// its own branch. Every wanted floating or TensorList input gets a
// gradient (zeros from the branch that does not use it), and so does a
// resource input that a branch reads; other inputs get none.
absl::Status IfGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_outputs, const std::vector<bool>& wanted,
                    std::vector<Output>* grad_inputs) {
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
  std::vector<bool> want(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    want[i] = wanted[i + 1];
    const DataType t = BaseType(args[i].dtype());
    if (!want[i]) continue;
    if (IsFloating(t) || t == DT_VARIANT) grad_type[i] = t;
    if (t != DT_RESOURCE) continue;
    for (const FunctionDef* f : bodies) {
      if (f != nullptr && grad_type[i] == DT_INVALID &&
          static_cast<int>(i) < f->signature().input_arg_size()) {
        grad_type[i] = ReadDtype(*f, f->signature().input_arg(i).name());
      }
    }
  }
  // The branches take the arguments and the results' gradients (those there
  // are: a handle's is none).
  std::vector<Output> branch_inputs = args;
  std::vector<int> dy_of;
  for (size_t j = 0; j < grad_outputs.size(); ++j) {
    if (!grad_outputs[j].op().valid()) continue;
    dy_of.push_back(static_cast<int>(j));
    branch_inputs.push_back(grad_outputs[j]);
  }
  absl::Status status;
  auto branch = [&](const NameAttrList& fn, const char* which) {
    return [&, which](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
      const std::vector<Output> xs(in.begin(), in.begin() + args.size());
      std::vector<Output> dys(grad_outputs.size());
      for (size_t k = 0; k < dy_of.size(); ++k) dys[dy_of[k]] = in[args.size() + k];
      std::vector<Output> dxs;
      absl::Status s = DifferentiateBody(b.NewSubScope(absl::StrCat(op.name(), "_", which)),
                                         op.name(), fn, xs, dys, want, &dxs);
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

// While and StatelessWhile (while_v2's gradient, with recomputation): a
// loop built as TensorFlow 1's frames (ops::WhileLoop) runs the forward loop
// again and pushes, at the start of each iteration, every loop variable the
// body changes onto a TensorList; a second loop then pops them in reverse
// and, for each iteration, runs the body once more on that state and
// differentiates it, carrying the loop variables' gradients from the last
// iteration to the first. A variable the body passes through unchanged (a
// variable's handle, a constant) is not pushed; its gradient sums over the
// iterations. Floating variables and TensorLists (a list's gradient is a
// list) get gradients, and resources the body reads; integers (counters)
// get none.
absl::Status WhileGrad(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_outputs, const std::vector<bool>& wanted,
                       std::vector<Output>* grad_inputs) {
  const NodeDef& node = scope.GetNodeDef(op);
  const NameAttrList* cond_fn = FuncAttr(node, "cond");
  const NameAttrList* body_fn = FuncAttr(node, "body");
  if (cond_fn == nullptr || body_fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("'", op.name(), "' lacks attr cond or body"));
  }
  const std::vector<Output> inputs = scope.GetInputs(op);
  const size_t n = inputs.size();
  const FunctionDef* body_def = FindFunction(scope.library(), body_fn->name());
  if (body_def == nullptr || body_def->signature().input_arg_size() != static_cast<int>(n) ||
      body_def->signature().output_arg_size() != static_cast<int>(n)) {
    return absl::InvalidArgumentError(absl::StrCat("'", op.name(), "': body '", body_fn->name(),
                                                   "' is missing or does not take and return ", n,
                                                   " values"));
  }
  // Which variables the body passes through, and each one's gradient dtype.
  std::vector<bool> through(n), carried(n);
  std::vector<DataType> grad_type(n, DT_INVALID);
  for (size_t i = 0; i < n; ++i) {
    const std::string& arg = body_def->signature().input_arg(i).name();
    auto ret = body_def->ret().find(body_def->signature().output_arg(i).name());
    through[i] = ret != body_def->ret().end() && ret->second == arg;
    const DataType t = BaseType(inputs[i].dtype());
    if (IsFloating(t) || t == DT_VARIANT) grad_type[i] = t;
    if (t == DT_RESOURCE) grad_type[i] = ReadDtype(*body_def, arg);
    if (t == DT_RESOURCE && !through[i]) {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of '", op.name(), "': loop variable ", i, " ('", arg,
          "') is a resource that the body changes; only the handles a body passes through "
          "are supported"));
    }
    // A changing variable's gradient may flow into a wanted one's in an
    // earlier iteration; a passed-through one's flows only to itself.
    carried[i] = grad_type[i] != DT_INVALID && (wanted[i] || !through[i]);
  }
  const std::string caller = op.name();
  const Scope s = scope.NewSubScope(absl::StrCat(op.name(), "_grad"));
  absl::Status status;
  auto fail = [&](const absl::Status& st) {
    if (status.ok()) status = st;
  };
  auto unknown_shape = [&](const Scope& at) { return ops::Const<int32_t>(at, -1); };

  // The forward loop again: {count, the variables..., one list per changing
  // variable...}.
  std::vector<Output> init = {ops::Const<int32_t>(s, 0)};
  init.insert(init.end(), inputs.begin(), inputs.end());
  std::vector<size_t> pushed;
  for (size_t i = 0; i < n; ++i) {
    if (through[i]) continue;
    pushed.push_back(i);
    init.push_back(s.AddOp("EmptyTensorList", {{unknown_shape(s)}, {ops::Const<int32_t>(s, -1)}},
                           {{"element_dtype", MakeAttrValue(BaseType(inputs[i].dtype()))}})
                       .output(0));
  }
  std::vector<Output> forward = ops::WhileLoop(
      s.NewSubScope("forward"), init,
      [&](const Scope& c, const std::vector<Output>& v) -> Output {
        absl::StatusOr<InlinedBody> cond =
            InlineBody(c.NewSubScope("cond"), caller, *cond_fn,
                       std::vector<Output>(v.begin() + 1, v.begin() + 1 + n));
        if (!cond.ok()) {
          fail(cond.status());
          return ops::Const(c, false);
        }
        return cond->rets.empty() ? ops::Const(c, false) : cond->rets[0];
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        const std::vector<Output> state(v.begin() + 1, v.begin() + 1 + n);
        absl::StatusOr<InlinedBody> step =
            InlineBody(b.NewSubScope("body"), caller, *body_fn, state);
        if (!step.ok()) {
          fail(step.status());
          return {};
        }
        std::vector<Output> next = {ops::Add(b, v[0], ops::Const<int32_t>(b, 1))};
        next.insert(next.end(), step->rets.begin(), step->rets.end());
        for (size_t k = 0; k < pushed.size(); ++k) {
          next.push_back(
              b.AddOp("TensorListPushBack", {{v[1 + n + k]}, {state[pushed[k]]}}).output(0));
        }
        return next;
      });
  MG_RETURN_IF_ERROR(status);
  MG_RETURN_IF_ERROR(s.status());

  // Backward: {count, the carried variables' gradients..., the lists...}.
  std::vector<size_t> carried_at;
  std::vector<Output> back_init = {forward[0]};
  for (size_t i = 0; i < n; ++i) {
    if (!carried[i]) continue;
    carried_at.push_back(i);
    Output dy = grad_outputs[i];
    if (!dy.op().valid()) {
      Output like = BaseType(inputs[i].dtype()) == DT_RESOURCE
                        ? ops::ReadVariableOp(s, inputs[i], grad_type[i])
                        : inputs[i];
      dy = ops::ZerosLike(s, like);
    }
    back_init.push_back(dy);
  }
  for (size_t k = 0; k < pushed.size(); ++k) back_init.push_back(forward[1 + n + k]);
  const size_t m = carried_at.size();
  std::vector<Output> backward = ops::WhileLoop(
      s.NewSubScope("backward"), back_init,
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        std::vector<Output> state(n), lists(pushed.size());
        for (size_t k = 0; k < pushed.size(); ++k) {
          Operation pop =
              b.AddOp("TensorListPopBack", {{v[1 + m + k]}, {unknown_shape(b)}},
                      {{"element_dtype", MakeAttrValue(BaseType(inputs[pushed[k]].dtype()))}});
          lists[k] = pop.output(0);
          state[pushed[k]] = pop.output(1);
        }
        for (size_t i = 0; i < n; ++i) {
          if (through[i]) state[i] = ops::LoopInvariant(b, inputs[i]);
        }
        std::vector<Output> dys(n);
        for (size_t j = 0; j < m; ++j) dys[carried_at[j]] = v[1 + j];
        std::vector<Output> dstate;
        absl::Status st = DifferentiateBody(b.NewSubScope("body"), caller, *body_fn, state, dys,
                                            carried, &dstate);
        if (!st.ok()) {
          fail(st);
          return {};
        }
        std::vector<Output> next = {ops::Sub(b, v[0], ops::Const<int32_t>(b, 1))};
        for (size_t j = 0; j < m; ++j) {
          const Output& d = dstate[carried_at[j]];
          next.push_back(d.op().valid() ? d : ops::ZerosLike(b, v[1 + j]));
        }
        next.insert(next.end(), lists.begin(), lists.end());
        return next;
      });
  MG_RETURN_IF_ERROR(status);
  MG_RETURN_IF_ERROR(s.status());
  grad_inputs->assign(n, Output());
  for (size_t j = 0; j < m; ++j) (*grad_inputs)[carried_at[j]] = backward[1 + j];
  return absl::OkStatus();
}

}  // namespace

void RegisterFunctionCallGradients(GradientRegistry* r) {
  r->RegisterSelective("PartitionedCall", CallGrad);
  r->RegisterSelective("StatefulPartitionedCall", CallGrad);
  r->RegisterSelective("If", IfGrad);
  r->RegisterSelective("StatelessIf", IfGrad);
  r->RegisterSelective("While", WhileGrad);
  r->RegisterSelective("StatelessWhile", WhileGrad);
}

}  // namespace minigraph

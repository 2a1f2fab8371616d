// Gradients of calls of library functions (PartitionedCall and
// StatefulPartitionedCall): what TensorFlow's SymbolicGradient computes;
// of If and StatelessIf, as a choice between the branches' gradients; and
// of While and StatelessWhile (WhileGrad, below).
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
#include "runtime/cc/internal/gradient_families.h"
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
  // Each copied node's name in the body's graph (an argument's: the
  // argument's), by the copy's name; the argument each Identity stands for;
  // the copies of the body's constants.
  absl::flat_hash_map<std::string, std::string> origin;
  absl::flat_hash_map<std::string, int> arg_of;
  absl::flat_hash_set<std::string> consts;
};

// `caller` names the node in errors. With `runs_again`, InvalidArgument
// when the results depend on an op that would not run the same twice.
absl::StatusOr<InlinedBody> InlineBody(const Scope& b, const std::string& caller, NameAttrList fn,
                                       const std::vector<Output>& inputs,
                                       bool runs_again = true) {
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
    if (runs_again && reg->op_def.is_stateful() && !RunsTheSameTwice(n->op())) {
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
    out.origin[out.args[i].op().name()] = id.node;
    out.arg_of[out.args[i].op().name()] = static_cast<int>(i);
  }
  GraphDef copy;
  for (const NodeDef& n : body.graph.node()) {
    if (needed.contains(n.name()) && !args.contains(n.name())) *copy.add_node() = n;
  }
  MG_ASSIGN_OR_RETURN(auto imported, ImportGraphDef(b, copy, options));
  for (const NodeDef& n : copy.node()) {
    const std::string& name = imported.at(n.name()).name();
    out.origin[name] = n.name();
    if (n.op() == "Const") out.consts.insert(name);
  }
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

// A While's gradient, as while_v2 builds it: the forward loop itself is
// rewritten (Scope::ExtendOp) to push, each iteration, every value of its
// body that the body's gradient reads onto a TensorList of its own, and to
// count its iterations; a second loop, built as TensorFlow 1's frames
// (ops::WhileLoop), then pops them in reverse and runs the body's gradient
// on them, carrying the loop variables' gradients from the last iteration
// to the first. Nothing of the body runs again, so a body with side
// effects or randomness (dropout) has its gradient too.
//
// Which values the gradient reads is found first, by building it once on a
// copy of the body in a scratch graph: every tensor of the copy a gradient
// op takes, except constants and the variables the body passes through
// unchanged (a variable's handle), whose values the backward loop has
// anyway. A body with a While of its own (whose gradient would rewrite a
// loop inside the copy), or with list-typed arguments, keeps its loop
// variables only and runs again in the backward loop, as SymbolicGradient
// does.
//
// Floating variables and TensorLists (a list's gradient is a list) get
// gradients, and resources the body reads; integers (counters) get none. A
// loop rewritten by an earlier gradient (TensorFlow's or this one's) says
// how many of its variables are the user's in "_num_original_outputs".
struct WhileLoopParts {
  std::string caller;
  NameAttrList cond_fn, body_fn;
  const FunctionDef* cond = nullptr;
  const FunctionDef* body = nullptr;
  std::vector<Output> inputs;      // every loop variable's initial value
  size_t n = 0;                    // the user's loop variables, first
  std::vector<bool> through;       // passed through by the body unchanged
  std::vector<bool> carried;       // a gradient flows back through it
  std::vector<DataType> grad_type;  // its gradient's dtype, or DT_INVALID
  // Its shape in every iteration: its input's when passed through, else
  // the loop's output_shapes (TensorFlow's shape invariants), if given.
  std::vector<PartialShape> shapes;
};

// A tensor of the body ("node:index" of its graph, or "argument:0") the
// forward loop keeps for the backward, and its shape there.
struct KeptValue {
  std::string key;
  PartialShape shape;
};

absl::StatusOr<WhileLoopParts> PartsOf(const Scope& scope, const Operation& op,
                                       const std::vector<bool>& wanted) {
  const NodeDef& node = scope.GetNodeDef(op);
  WhileLoopParts w;
  w.caller = op.name();
  const NameAttrList* cond_fn = FuncAttr(node, "cond");
  const NameAttrList* body_fn = FuncAttr(node, "body");
  if (cond_fn == nullptr || body_fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("'", op.name(), "' lacks attr cond or body"));
  }
  w.cond_fn = *cond_fn;
  w.body_fn = *body_fn;
  w.inputs = scope.GetInputs(op);
  const size_t vars = w.inputs.size();
  w.n = vars;
  auto original = node.attr().find("_num_original_outputs");
  if (original != node.attr().end() && original->second.i() > 0 &&
      static_cast<size_t>(original->second.i()) <= vars) {
    w.n = static_cast<size_t>(original->second.i());
  }
  w.cond = FindFunction(scope.library(), cond_fn->name());
  w.body = FindFunction(scope.library(), body_fn->name());
  if (w.cond == nullptr || w.body == nullptr ||
      w.body->signature().input_arg_size() != static_cast<int>(vars) ||
      w.body->signature().output_arg_size() != static_cast<int>(vars)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", op.name(), "': cond '", cond_fn->name(), "' or body '", body_fn->name(),
        "' is missing, or the body does not take and return ", vars, " values"));
  }
  w.through.assign(vars, false);
  w.carried.assign(vars, false);
  w.grad_type.assign(vars, DT_INVALID);
  w.shapes.assign(vars, PartialShape());
  auto invariants = node.attr().find("output_shapes");
  for (size_t i = 0; i < vars; ++i) {
    const std::string& arg = w.body->signature().input_arg(i).name();
    auto ret = w.body->ret().find(w.body->signature().output_arg(i).name());
    w.through[i] = ret != w.body->ret().end() && ret->second == arg;
    if (w.through[i]) {
      w.shapes[i] = w.inputs[i].shape();
    } else if (invariants != node.attr().end() &&
               static_cast<size_t>(invariants->second.list().shape_size()) == vars) {
      w.shapes[i] = PartialShape::FromProto(invariants->second.list().shape(i));
    }
    if (i >= w.n) continue;
    const DataType t = BaseType(w.inputs[i].dtype());
    if (IsFloating(t) || t == DT_VARIANT) w.grad_type[i] = t;
    if (t == DT_RESOURCE) w.grad_type[i] = ReadDtype(*w.body, arg);
    if (t == DT_RESOURCE && !w.through[i]) {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of '", op.name(), "': loop variable ", i, " ('", arg,
          "') is a resource that the body changes; only the handles a body passes through "
          "are supported"));
    }
    // A changing variable's gradient may flow into a wanted one's in an
    // earlier iteration; a passed-through one's flows only to itself.
    w.carried[i] = w.grad_type[i] != DT_INVALID && (wanted[i] || !w.through[i]);
  }
  return w;
}

// Maps a tensor of an inlined body copy to what the gradient reads instead.
using BodyTensorMap = std::function<Output(const InlinedBody&, const Output&)>;

// The gradient of one iteration, built in `b` on a copy of the body whose
// arguments are `state`: d(results)/d(arguments), weighted by `dys`, for the
// carried variables (the others' entries invalid). `map` (unless null)
// turns the copy's tensors the gradient reads into others, leaving the copy
// unused; without it the copy runs again (so it must run the same twice).
absl::Status IterationGradient(const Scope& b, const WhileLoopParts& w,
                               const std::vector<Output>& state, const std::vector<Output>& dys,
                               const BodyTensorMap& map, std::vector<Output>* dstate) {
  MG_ASSIGN_OR_RETURN(InlinedBody body,
                      InlineBody(b, w.caller, w.body_fn, state, /*runs_again=*/map == nullptr));
  std::vector<Output> xs;
  std::vector<size_t> x_var;
  for (size_t i = 0; i < w.n; ++i) {
    if (!w.carried[i] || !body.args[i].op().valid()) continue;
    xs.push_back(body.args[i]);
    x_var.push_back(i);
  }
  const Scope g = map == nullptr ? b : b.WithInputMapper([&](const Output& in) {
    return map(body, in);
  });
  std::vector<Output> grads;
  MG_RETURN_IF_ERROR(AddSymbolicGradients(g, body.rets, xs, dys, &grads));
  dstate->assign(state.size(), Output());
  for (size_t k = 0; k < xs.size(); ++k) (*dstate)[x_var[k]] = grads[k];
  return absl::OkStatus();
}

// Whether the copy's tensor `in` is one the forward loop must keep for the
// backward: not a constant, nor a passed-through variable, nor outside the
// copy. Its name in the body's graph ("node:index") goes to `key`.
bool KeptInLoop(const InlinedBody& body, const WhileLoopParts& w, const Output& in,
                std::string* key) {
  const std::string& name = in.op().name();
  auto origin = body.origin.find(name);
  if (origin == body.origin.end() || body.consts.contains(name)) return false;
  auto arg = body.arg_of.find(name);
  if (arg != body.arg_of.end() && w.through[arg->second]) return false;
  *key = absl::StrCat(origin->second, ":", in.index());
  return true;
}

// Whether the body's values can be kept: it has no While of its own, and
// every argument is one tensor of a fixed dtype.
bool CanKeepValues(const WhileLoopParts& w) {
  for (const OpDef::ArgDef& arg : w.body->signature().input_arg()) {
    if (arg.type() == DT_INVALID || !arg.number_attr().empty()) return false;
  }
  for (const NodeDef& n : w.body->node_def()) {
    if (n.op() == "While" || n.op() == "StatelessWhile") return false;
  }
  return true;
}

// The body's tensors ("node:index" of its graph, or "argument:0") that the
// gradient of an iteration reads, found by building it in a scratch graph.
// (Its arguments have the shapes the backward loop gives them, so that
// shape-dependent gradients read the same values in both.)
absl::StatusOr<std::vector<KeptValue>> ValuesToKeep(const Scope& scope, const WhileLoopParts& w) {
  const Scope scratch = Scope::NewRootScope(scope.op_registry());
  scratch.AddFunctionLibrary(scope.library());
  std::vector<Output> state, dys(w.inputs.size());
  for (size_t i = 0; i < w.inputs.size(); ++i) {
    state.push_back(ops::Placeholder(scratch, BaseType(w.inputs[i].dtype()), w.shapes[i]));
    if (i < w.n && w.carried[i]) dys[i] = ops::Placeholder(scratch, w.grad_type[i]);
  }
  std::vector<KeptValue> kept;
  absl::flat_hash_set<std::string> seen;
  std::vector<Output> ignored;
  MG_RETURN_IF_ERROR(IterationGradient(
      scratch, w, state, dys,
      [&](const InlinedBody& body, const Output& in) {
        std::string key;
        if (KeptInLoop(body, w, in, &key) && seen.insert(key).second) {
          kept.push_back({key, in.shape()});
        }
        return in;
      },
      &ignored));
  MG_RETURN_IF_ERROR(scratch.status());
  return kept;
}

// How the rewritten body refers to the tensor `key` ("node:index" of the
// body's graph): "node:output_arg:k", or the argument's name; and its dtype.
absl::Status FunctionTensor(const Scope& scope, const WhileLoopParts& w, const FunctionGraph& fg,
                            const std::string& key, std::string* ref, DataType* dtype) {
  MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(key));
  for (size_t i = 0; i < fg.args.size(); ++i) {
    if (fg.args[i] == absl::StrCat(id.node, ":0")) {
      *ref = w.body->signature().input_arg(i).name();
      *dtype = fg.arg_types[i];
      return absl::OkStatus();
    }
  }
  for (const NodeDef& n : fg.graph.node()) {
    if (n.name() != id.node) continue;
    MG_ASSIGN_OR_RETURN(const OpRegistrationData* reg, scope.op_registry()->LookUp(n.op()));
    NodeDef with_defaults = n;
    AddDefaultsToNodeDef(reg->op_def, &with_defaults);
    std::vector<int64_t> in_sizes, sizes;
    std::vector<DataType> in_types, out_types;
    MG_RETURN_IF_ERROR(ArgSizesForNode(with_defaults, reg->op_def, &in_sizes, &sizes));
    MG_RETURN_IF_ERROR(InOutTypesForNode(with_defaults, reg->op_def, &in_types, &out_types));
    int64_t at = id.index;
    for (int a = 0; a < reg->op_def.output_arg_size(); ++a) {
      if (at < sizes[a]) {
        *ref = absl::StrCat(id.node, ":", reg->op_def.output_arg(a).name(), ":", at);
        *dtype = out_types[id.index];
        return absl::OkStatus();
      }
      at -= sizes[a];
    }
  }
  return absl::InternalError(absl::StrCat("the gradient of '", w.caller, "' reads '", key,
                                          "', which function '", w.body->signature().name(),
                                          "' does not have"));
}

// TensorList ops' element_shape for `shape`: -1 for an unknown rank, else
// its sizes (-1 where unknown).
Output ShapeConst(const Scope& s, const PartialShape& shape) {
  if (!shape.rank_known()) return ops::Const<int32_t>(s, -1);
  Tensor t(DT_INT32, TensorShape({shape.rank()}));
  for (int i = 0; i < shape.rank(); ++i) {
    t.data<int32_t>()[i] = static_cast<int32_t>(std::max<int64_t>(shape.dims()[i], -1));
  }
  return ops::Const(s, t);
}

// A name no function of `library` has, from `base`.
std::string UnusedFunctionName(const FunctionDefLibrary& library, const std::string& base) {
  absl::flat_hash_set<std::string> taken;
  for (const FunctionDef& f : library.function()) taken.insert(f.signature().name());
  std::string name = base;
  for (int i = 1; taken.contains(name); ++i) name = absl::StrCat(base, "_", i);
  return name;
}

// The attrs of the forward `While` (`node`) that change when it runs `body`
// and `cond`, which carry the iteration count and `num_kept` lists after
// the loop's own variables.
std::map<std::string, AttrValue> KeepingLoopAttrs(const NodeDef& node, const WhileLoopParts& w,
                                                  const FunctionDef& body, const FunctionDef& cond,
                                                  int num_kept) {
  std::map<std::string, AttrValue> attrs;
  NameAttrList body_fn = w.body_fn, cond_fn = w.cond_fn;
  body_fn.set_name(body.signature().name());
  cond_fn.set_name(cond.signature().name());
  *attrs["body"].mutable_func() = body_fn;
  *attrs["cond"].mutable_func() = cond_fn;
  AttrValue types = node.attr().at("T");
  types.mutable_list()->add_type(DT_INT32);
  for (int k = 0; k < num_kept; ++k) types.mutable_list()->add_type(DT_VARIANT);
  attrs["T"] = types;
  auto shapes = node.attr().find("output_shapes");
  if (shapes != node.attr().end() && shapes->second.list().shape_size() > 0) {
    AttrValue more = shapes->second;
    for (int k = 0; k < 1 + num_kept; ++k) {
      more.mutable_list()->add_shape()->set_unknown_rank(true);
    }
    attrs["output_shapes"] = more;
  }
  attrs["_num_original_outputs"] = MakeAttrValue(static_cast<int64_t>(w.n));
  return attrs;
}

// The forward loop rewritten to count its iterations and push the body's
// tensors `kept` each iteration: returns the count's output, then one list
// per kept tensor (their element dtypes in `dtypes`).
absl::StatusOr<std::vector<Output>> KeepInForwardLoop(const Scope& scope, const Scope& s,
                                                      const Operation& op,
                                                      const WhileLoopParts& w,
                                                      const std::vector<KeptValue>& kept,
                                                      std::vector<DataType>* dtypes) {
  NameAttrList body_call = w.body_fn;
  body_call.set_name(w.body->signature().name());
  MG_ASSIGN_OR_RETURN(FunctionGraph fg,
                      InstantiateFunction(scope.library(), body_call, scope.op_registry()));
  absl::flat_hash_set<std::string> names;
  for (const NodeDef& n : w.body->node_def()) names.insert(n.name());
  for (const OpDef::ArgDef& a : w.body->signature().input_arg()) names.insert(a.name());
  std::string p = "mg_kept";
  for (int i = 1; names.contains(p + "_count"); ++i) p = absl::StrCat("mg_kept", i);
  auto out_name = [&](const std::string& op_type) -> absl::StatusOr<std::string> {
    MG_ASSIGN_OR_RETURN(const OpRegistrationData* reg, scope.op_registry()->LookUp(op_type));
    return reg->op_def.output_arg(0).name();
  };
  MG_ASSIGN_OR_RETURN(std::string const_out, out_name("Const"));
  MG_ASSIGN_OR_RETURN(std::string add_out, out_name("AddV2"));
  MG_ASSIGN_OR_RETURN(std::string push_out, out_name("TensorListPushBack"));

  FunctionDef body = *w.body, cond = *w.cond;
  body.mutable_signature()->set_name(
      UnusedFunctionName(scope.library(), w.body->signature().name() + "_kept"));
  cond.mutable_signature()->set_name(
      UnusedFunctionName(scope.library(), w.cond->signature().name() + "_kept"));
  auto add_var = [&](const std::string& name, DataType dtype) {
    for (FunctionDef* f : {&body, &cond}) {
      OpDef::ArgDef* in = f->mutable_signature()->add_input_arg();
      in->set_name(name);
      in->set_type(dtype);
    }
    OpDef::ArgDef* out = body.mutable_signature()->add_output_arg();
    out->set_name(name + "_out");
    out->set_type(dtype);
  };
  add_var(p + "_count", DT_INT32);
  NodeDef* one = body.add_node_def();
  one->set_name(p + "_one");
  one->set_op("Const");
  (*one->mutable_attr())["dtype"] = MakeAttrValue(DT_INT32);
  (*one->mutable_attr())["value"] = MakeAttrValue(Tensor::Scalar<int32_t>(1));
  NodeDef* next = body.add_node_def();
  next->set_name(p + "_next");
  next->set_op("AddV2");
  next->add_input(p + "_count");
  next->add_input(absl::StrCat(p, "_one:", const_out, ":0"));
  (*next->mutable_attr())["T"] = MakeAttrValue(DT_INT32);
  (*body.mutable_ret())[p + "_count_out"] = absl::StrCat(p, "_next:", add_out, ":0");
  std::vector<Output> extra = {ops::Const<int32_t>(s, 0)};
  for (size_t k = 0; k < kept.size(); ++k) {
    std::string ref;
    DataType dtype;
    MG_RETURN_IF_ERROR(FunctionTensor(scope, w, fg, kept[k].key, &ref, &dtype));
    dtypes->push_back(dtype);
    const std::string list = absl::StrCat(p, "_", k);
    add_var(list, DT_VARIANT);
    NodeDef* push = body.add_node_def();
    push->set_name(list + "_push");
    push->set_op("TensorListPushBack");
    push->add_input(list);
    push->add_input(ref);
    (*push->mutable_attr())["element_dtype"] = MakeAttrValue(dtype);
    (*body.mutable_ret())[list + "_out"] = absl::StrCat(list, "_push:", push_out, ":0");
    extra.push_back(s.AddOp("EmptyTensorList",
                            {{ShapeConst(s, kept[k].shape)}, {ops::Const<int32_t>(s, -1)}},
                            {{"element_dtype", MakeAttrValue(dtype)}})
                        .output(0));
  }
  FunctionDefLibrary added;
  *added.add_function() = body;
  *added.add_function() = cond;
  scope.AddFunctionLibrary(added);

  const int first = op.num_outputs();
  const int num_kept = static_cast<int>(kept.size());
  scope.ExtendOp(op, extra, KeepingLoopAttrs(scope.GetNodeDef(op), w, body, cond, num_kept));
  MG_RETURN_IF_ERROR(scope.status());
  std::vector<Output> outs;
  for (size_t k = 0; k < extra.size(); ++k) outs.push_back(op.output(first + static_cast<int>(k)));
  return outs;
}

// What the backward loop needs of the forward: the values kept (in the
// forward's lists, their dtypes), and how its variables are laid out.
struct BackwardLoop {
  const WhileLoopParts* w;
  std::vector<KeptValue> kept;
  std::vector<DataType> dtypes;
  absl::flat_hash_map<std::string, size_t> kept_at;  // key -> index in kept
  bool keep_values;  // else the body runs again on the kept variables
  // The backward loop's variables: {count, the carried variables'
  // gradients (of w->inputs[carried_at[j]])..., the lists...}.
  std::vector<size_t> carried_at;
};

// One iteration of the backward loop: the kept values popped, the body's
// gradient on them; the next values of the loop's variables `v`.
absl::StatusOr<std::vector<Output>> BackwardIteration(const Scope& b, const BackwardLoop& loop,
                                                      const std::vector<Output>& v) {
  const WhileLoopParts& w = *loop.w;
  const size_t vars = w.inputs.size(), m = loop.carried_at.size(), kept = loop.kept.size();
  std::vector<Output> popped(kept), lists(kept);
  for (size_t k = 0; k < kept; ++k) {
    Operation pop =
        b.AddOp("TensorListPopBack", {{v[1 + m + k]}, {ShapeConst(b, loop.kept[k].shape)}},
                {{"element_dtype", MakeAttrValue(loop.dtypes[k])}});
    lists[k] = pop.output(0);
    popped[k] = pop.output(1);
  }
  // The body's arguments: what was kept of them; a passed-through one's
  // input; the others unused (the gradient reads kept values), of their
  // shapes in every iteration.
  std::vector<Output> state(vars);
  for (size_t i = 0; i < vars; ++i) {
    auto at = loop.kept_at.find(absl::StrCat(w.body->signature().input_arg(i).name(), ":0"));
    if (at != loop.kept_at.end()) {
      state[i] = popped[at->second];
    } else if (w.through[i]) {
      state[i] = ops::LoopInvariant(b, w.inputs[i]);
    } else {
      state[i] =
          ops::PlaceholderWithDefault(b, ops::LoopInvariant(b, w.inputs[i]), w.shapes[i]);
    }
  }
  std::vector<Output> dys(vars);
  for (size_t j = 0; j < m; ++j) dys[loop.carried_at[j]] = v[1 + j];
  BodyTensorMap map;
  if (loop.keep_values) {
    map = [&](const InlinedBody& body, const Output& in) {
      std::string key;
      if (!KeptInLoop(body, w, in, &key)) return in;
      auto at = loop.kept_at.find(key);
      if (at != loop.kept_at.end()) return popped[at->second];
      b.UpdateStatus(absl::InternalError(absl::StrCat(
          "the gradient of '", w.caller, "' reads '", key, "', which was not kept")));
      return in;
    };
  }
  std::vector<Output> dstate;
  MG_RETURN_IF_ERROR(IterationGradient(b.NewSubScope("body"), w, state, dys, map, &dstate));
  std::vector<Output> next = {ops::Sub(b, v[0], ops::Const<int32_t>(b, 1))};
  for (size_t j = 0; j < m; ++j) {
    const Output& d = dstate[loop.carried_at[j]];
    next.push_back(d.op().valid() ? d : ops::ZerosLike(b, v[1 + j]));
  }
  next.insert(next.end(), lists.begin(), lists.end());
  return next;
}

absl::Status WhileGrad(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_outputs, const std::vector<bool>& wanted,
                       std::vector<Output>* grad_inputs) {
  MG_ASSIGN_OR_RETURN(WhileLoopParts w, PartsOf(scope, op, wanted));
  BackwardLoop loop;
  loop.w = &w;
  // What the forward loop keeps: the values the gradient reads, or (when
  // the body runs again) the variables it changes.
  loop.keep_values = CanKeepValues(w);
  if (loop.keep_values) {
    MG_ASSIGN_OR_RETURN(loop.kept, ValuesToKeep(scope, w));
  } else {
    for (size_t i = 0; i < w.n; ++i) {
      if (w.through[i]) continue;
      loop.kept.push_back(
          {absl::StrCat(w.body->signature().input_arg(i).name(), ":0"), w.shapes[i]});
    }
  }
  for (size_t k = 0; k < loop.kept.size(); ++k) loop.kept_at[loop.kept[k].key] = k;
  const Scope s = scope.NewSubScope(absl::StrCat(op.name(), "_grad"));
  MG_ASSIGN_OR_RETURN(std::vector<Output> forward,
                      KeepInForwardLoop(scope, s, op, w, loop.kept, &loop.dtypes));

  std::vector<Output> init = {forward[0]};
  for (size_t i = 0; i < w.n; ++i) {
    if (!w.carried[i]) continue;
    loop.carried_at.push_back(i);
    Output dy = grad_outputs[i];
    if (!dy.op().valid()) {
      Output like = BaseType(w.inputs[i].dtype()) == DT_RESOURCE
                        ? ops::ReadVariableOp(s, w.inputs[i], w.grad_type[i])
                        : w.inputs[i];
      dy = ops::ZerosLike(s, like);
    }
    init.push_back(dy);
  }
  init.insert(init.end(), forward.begin() + 1, forward.end());
  absl::Status status;
  std::vector<Output> backward = ops::WhileLoop(
      s.NewSubScope("backward"), init,
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        absl::StatusOr<std::vector<Output>> next = BackwardIteration(b, loop, v);
        if (next.ok()) return *std::move(next);
        if (status.ok()) status = next.status();
        return {};
      });
  MG_RETURN_IF_ERROR(status);
  MG_RETURN_IF_ERROR(s.status());
  grad_inputs->assign(w.inputs.size(), Output());
  for (size_t j = 0; j < loop.carried_at.size(); ++j) {
    (*grad_inputs)[loop.carried_at[j]] = backward[1 + j];
  }
  return absl::OkStatus();
}

}  // namespace

void gradients_internal::RegisterFunctionCallGradients(GradientRegistry* r) {
  r->RegisterSelective("PartitionedCall", CallGrad);
  r->RegisterSelective("StatefulPartitionedCall", CallGrad);
  r->RegisterSelective("If", IfGrad);
  r->RegisterSelective("StatelessIf", IfGrad);
  r->RegisterSelective("While", WhileGrad);
  r->RegisterSelective("StatelessWhile", WhileGrad);
}

}  // namespace minigraph

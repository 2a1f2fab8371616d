// The gradient of a TensorFlow 1 while loop (Enter / Merge / Switch /
// NextIteration / Exit frames, as ops::WhileLoop and TensorFlow's
// tf.while_loop build them), the way TensorFlow's control-flow gradients
// (control_flow_grad.py, GradLoopState) compute it, without running the
// forward loop again:
//
// - the forward loop gets a counter (a loop variable of its own, "f_count")
//   whose Exit says how many times the body ran;
// - every forward value that a gradient function asks for is pushed onto a
//   stack (StackPushV2) in each iteration of the forward loop; each push
//   is ordered before the counter's increment, so the count is final only
//   when every push of every iteration has happened;
// - a backward loop runs that many times. Its variables are the count, the
//   gradient of each floating loop variable (starting from its Exit's) and
//   an accumulator per loop invariant that needs a gradient. Its body runs
//   the gradient functions of the forward body's ops in reverse, with
//   forward values replaced by stack pops (and loop invariants and
//   constants brought into the backward frame); the pops of an iteration
//   are ordered before the next iteration's through a ControlTrigger;
// - the backward loop's Exits are the gradients of the forward Enters'
//   inputs.
//
// A cond inside the body works as in TensorFlow: a value of one of its
// branches is pushed only in the iterations that took the branch, and popped
// behind a pivot of the backward body that is live exactly then (a Switch
// of the popped predicate). A loop inside the body gets its gradient built
// inside the backward body, the same way, one level down: its stacks are
// made afresh in each outer iteration that runs it, and their handles and
// its count are values of the outer loop, pushed and popped by the outer
// loop's gradient (TensorFlow's outer_grad_state).

#include "runtime/cc/internal/while_gradients.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace gradients_internal {
namespace {

using Key = std::pair<std::string, int>;

Key KeyOf(const Output& o) { return {o.op().name(), o.index()}; }

// Whether `n` is a `type` op or its ref form (RefEnter, ...).
bool IsOpOrRef(const NodeDef& n, const char* type) {
  return n.op() == type || n.op() == absl::StrCat("Ref", type);
}

bool Differentiable(DataType t) {
  t = BaseType(t);
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF || t == DT_BFLOAT16 || t == DT_COMPLEX64 ||
         t == DT_COMPLEX128 || t == DT_VARIANT;
}

// One loop variable's nodes.
struct LoopVar {
  Output enter, merge, next, exit;
  Output body;    // the Identity (or Switch output) the body reads
  Output result;  // what the body passes to NextIteration
};

struct Loop {
  std::vector<LoopVar> vars;
  std::vector<Output> invariants;  // constant Enters
  Output pred;                     // LoopCond's output
  int64_t parallel_iterations = 10;
  // Forward op name -> the loop variable it is the top of (Merge, Switch,
  // Identity), or the invariant it is (Enter).
  absl::flat_hash_map<std::string, int> var_of, invariant_of;
  absl::flat_hash_map<std::string, bool> structure;
  std::vector<Operation> body;  // the rest, in creation order
  // The conds of the body that each body op runs in, outermost first: the
  // predicate and the branch (0: false, 1: true). A Switch's outputs are in
  // its branches; a Merge is where a cond's branches meet again.
  absl::flat_hash_map<std::string, std::vector<std::pair<Output, int>>> conds;
  absl::flat_hash_map<std::string, bool> cond_switch;
  // The units of the backward body, in creation order: a body op, or the
  // ops of a loop inside the body (its frame name set).
  struct Unit {
    std::string frame;
    std::vector<Operation> ops;
  };
  std::vector<Unit> units;

  // The conds `t` (a forward value of the loop) is computed in.
  std::vector<std::pair<Output, int>> CondsOf(const Scope& graph, const Output& t) const {
    auto it = conds.find(t.op().name());
    if (it == conds.end()) return {};
    std::vector<std::pair<Output, int>> c = it->second;
    if (cond_switch.contains(t.op().name())) c.emplace_back(graph.GetInputs(t.op())[1], t.index());
    return c;
  }
};

absl::Status Unsupported(const WhileLoopGradientArgs& a, const std::string& what) {
  return absl::UnimplementedError(
      absl::StrCat("the gradient of while loop '", a.frame, "': ", what));
}

// The loop inside the body `op` runs in, or "" for the loop's own.
std::string InnerFrame(const WhileLoopGradientArgs& a, const Operation& op) {
  const std::vector<std::string>& stack = a.frames->at(op.name());
  return stack.size() > a.depth + 1 ? stack[a.depth + 1] : std::string();
}

// The ops of the loop that read each (op, output).
using Consumers = std::map<Key, std::vector<Operation>>;

// The consumer of `o` that is a `type` op (or its ref form), or an invalid
// Operation.
Operation ConsumerOfType(const Scope& graph, const Consumers& consumers, const Output& o,
                         const char* type) {
  auto it = consumers.find(KeyOf(o));
  if (it == consumers.end()) return Operation();
  for (const Operation& c : it->second) {
    if (IsOpOrRef(graph.GetNodeDef(c), type)) return c;
  }
  return Operation();
}

// Adds to `loop` the variable that the (not constant) Enter `enter` starts:
// its Merge, NextIteration, Switch, Exit and the body's Identity.
absl::Status AddLoopVar(const WhileLoopGradientArgs& a, const Consumers& consumers,
                        const Operation& enter, Loop* loop) {
  const Scope& graph = a.graph;
  LoopVar v;
  v.enter = enter.output(0);
  Operation merge = ConsumerOfType(graph, consumers, v.enter, "Merge");
  if (!merge.valid()) {
    return Unsupported(a, absl::StrCat("Enter '", enter.name(), "' feeds no Merge"));
  }
  v.merge = merge.output(0);
  const std::vector<Output> merge_in = graph.GetInputs(merge);
  if (merge_in.size() != 2) {
    return Unsupported(a, absl::StrCat("Merge '", merge.name(), "' has ", merge_in.size(),
                                       " inputs, not an Enter and a NextIteration"));
  }
  v.next = merge_in[1];
  v.result = graph.GetInputs(v.next.op())[0];
  Operation sw = ConsumerOfType(graph, consumers, v.merge, "Switch");
  if (!sw.valid()) {
    return Unsupported(a, absl::StrCat("Merge '", merge.name(), "' feeds no Switch"));
  }
  Operation exit = ConsumerOfType(graph, consumers, sw.output(0), "Exit");
  Operation ident = ConsumerOfType(graph, consumers, sw.output(1), "Identity");
  v.exit = exit.valid() ? exit.output(0) : Output();
  v.body = ident.valid() ? ident.output(0) : sw.output(1);
  const int k = static_cast<int>(loop->vars.size());
  for (const Operation& o : {merge, sw, v.next.op(), ident, exit}) {
    if (!o.valid()) continue;
    loop->structure[o.name()] = true;
    if (o.name() != v.next.op().name() && o.name() != exit.name()) loop->var_of[o.name()] = k;
  }
  loop->vars.push_back(v);
  return absl::OkStatus();
}

// The loop's own frame: its variables, invariants and predicate.
absl::Status FindStructure(const WhileLoopGradientArgs& a, Loop* loop) {
  const Scope& graph = a.graph;
  Consumers consumers;
  for (const Operation& op : a.ops) {
    for (const Output& in : graph.GetInputs(op)) consumers[KeyOf(in)].push_back(op);
  }
  for (const Operation& op : a.ops) {
    if (!InnerFrame(a, op).empty()) continue;
    const NodeDef& n = graph.GetNodeDef(op);
    if (IsOpOrRef(n, "Enter")) {
      loop->parallel_iterations = n.attr().at("parallel_iterations").i();
      loop->structure[op.name()] = true;
      if (n.attr().at("is_constant").b()) {
        loop->invariant_of[op.name()] = static_cast<int>(loop->invariants.size());
        loop->invariants.push_back(op.output(0));
        continue;
      }
      MG_RETURN_IF_ERROR(AddLoopVar(a, consumers, op, loop));
    } else if (n.op() == "LoopCond") {
      loop->pred = op.output(0);
      loop->structure[op.name()] = true;
    }
  }
  if (loop->vars.empty() || !loop->pred.op().valid()) {
    return Unsupported(a, "its Enter, Merge, Switch and LoopCond nodes were not found");
  }
  return absl::OkStatus();
}

// The deepest cond among those of `n`'s inputs (a branch may use a value
// from outside the cond directly).
std::vector<std::pair<Output, int>> DeepestInputConds(const Scope& graph, const Loop& loop,
                                                      const NodeDef& n) {
  std::vector<std::pair<Output, int>> deepest;
  for (const std::string& in : n.input()) {
    const bool control = !in.empty() && in[0] == '^';
    absl::StatusOr<TensorId> id = ParseTensorName(control ? in.substr(1) : in);
    if (!id.ok()) continue;
    absl::StatusOr<Operation> src = graph.FindOp(id->node);
    if (!src.ok()) continue;
    std::vector<std::pair<Output, int>> c = loop.CondsOf(graph, src->output(id->index));
    if (control && loop.cond_switch.contains(id->node)) c.pop_back();  // the Switch itself
    if (c.size() > deepest.size()) deepest = std::move(c);
  }
  return deepest;
}

// The body: its units (an op, or an inner loop's ops) and the conds each
// op runs in.
void FindBody(const WhileLoopGradientArgs& a, Loop* loop) {
  const Scope& graph = a.graph;
  // An inner loop runs in the deepest cond of its Enters' inputs.
  absl::flat_hash_map<std::string, std::vector<std::pair<Output, int>>> inner_conds;
  absl::flat_hash_map<std::string, int> unit_of_frame;
  for (const Operation& op : a.ops) {
    if (loop->structure.contains(op.name())) continue;
    const NodeDef& n = graph.GetNodeDef(op);
    const std::string inner = InnerFrame(a, op);
    if (!inner.empty()) {
      auto [it, added] = unit_of_frame.try_emplace(inner, static_cast<int>(loop->units.size()));
      if (added) loop->units.push_back({inner, {}});
      loop->units[it->second].ops.push_back(op);
    } else {
      loop->units.push_back({"", {op}});
    }
    if (IsOpOrRef(n, "Switch") && inner.empty()) loop->cond_switch[op.name()] = true;
    std::vector<std::pair<Output, int>> deepest = DeepestInputConds(graph, *loop, n);
    if (!inner.empty()) {
      // Everything of an inner loop runs where its Enters do.
      std::vector<std::pair<Output, int>>& c = inner_conds[inner];
      if (IsOpOrRef(n, "Enter") && a.frames->at(op.name()).size() == a.depth + 2 &&
          deepest.size() > c.size()) {
        c = deepest;
      }
      loop->conds[op.name()] = c;
      continue;
    }
    // A Merge leaves its branches' cond.
    if (IsOpOrRef(n, "Merge") && !deepest.empty()) deepest.pop_back();
    loop->conds[op.name()] = std::move(deepest);
    loop->body.push_back(op);
  }
}

absl::StatusOr<Loop> Analyze(const WhileLoopGradientArgs& a) {
  Loop loop;
  MG_RETURN_IF_ERROR(FindStructure(a, &loop));
  FindBody(a, &loop);
  return loop;
}

// The gradient of one while loop (AddWhileLoopGradients): a counter of the
// forward iterations, then a backward loop that runs the body's gradients
// as many times, with the forward values it needs popped from stacks the
// forward iterations pushed them on.
class WhileLoopGradient {
 public:
  WhileLoopGradient(const WhileLoopGradientArgs& a, Loop loop);

  absl::Status Build();

 private:
  class Body;

  // Which loop variables (carried_) and invariants (accumulated_) carry
  // gradients.
  void ChooseCarried();
  // The forward counter, but for its increment (CloseForwardCounter).
  absl::Status AddForwardCounter();
  // The backward loop's initial values: the count, the loop variables'
  // gradients and the invariants' zeros.
  std::vector<Output> InitialValues();
  // The forward counter's increment, after each iteration's pushes.
  absl::Status CloseForwardCounter();
  // A value of the frame the loop runs in, as the backward pass sees it
  // there (popped, inside another loop's backward body).
  Output OuterValue(const Output& o) const { return a_.outer_map ? a_.outer_map(o) : o; }
  // A value this gradient adds to the frame the loop runs in.
  Output OuterAdded(const Output& o) {
    if (a_.outer_register) a_.outer_register(o);
    return OuterValue(o);
  }

  const WhileLoopGradientArgs& a_;
  const Scope& graph_;
  Loop loop_;
  std::vector<int> carried_;      // loop variable indices, in backward order
  std::vector<int> accumulated_;  // invariant indices
  // Per invariant: the dtype a variable read in the body reads, else
  // DT_INVALID.
  std::vector<DataType> read_dtype_;
  const Scope s_;
  const Scope outer_;
  // Constants of the frame the loop runs in: inside another loop's body,
  // made in each of its iterations.
  const Scope outer_const_;
  // Values this gradient adds to the loop's own forward frame for the
  // gradients of loops inside its body (their stacks, their counts).
  absl::flat_hash_set<std::string> added_forward_;
  absl::flat_hash_set<std::string> in_loop_;
  Output f_merge_, f_body_, f_total_;
  std::vector<Operation> pushes_;
  absl::Status status_;  // the backward body's first error
};

// One build of the backward loop's body: maps forward values to backward
// ones and runs each body unit's gradient, last unit first.
class WhileLoopGradient::Body {
 public:
  Body(WhileLoopGradient* lg, const Scope& b, const std::vector<Output>& v)
      : lg_(*lg), loop_(lg->loop_), graph_(lg->graph_), b_(b), v_(v), m_(lg->carried_.size()),
        d_var_(loop_.vars.size()), d_inv_(loop_.invariants.size()) {}

  // The next iteration's values, or {} after an error (in lg->status_).
  std::vector<Output> Build();

 private:
  using Conds = std::vector<std::pair<Output, int>>;

  // A node of the backward body that is live exactly when the forward
  // iteration took branch `cond.second` of the cond on `cond.first`.
  Operation Pivot(const std::pair<Output, int>& cond);
  // A forward value as the backward body sees it: itself (built by the
  // gradient), an invariant, a constant, or popped from its stack.
  Output Map(const Output& o);
  // Pushes `o` in each forward iteration; returns its pop here.
  Output PushAndPop(const Output& o, const std::string& key);
  // The incoming gradients of the loop variables' tops.
  void SeedGradients();
  Output Sum(const std::vector<Output>& parts) {
    if (parts.empty()) return Output();
    return parts.size() == 1 ? parts[0] : ops::AddN(b_, parts);
  }
  bool Wants(const Output& in) const {
    const std::string& src = in.op().name();
    return lg_.a_.from_x->contains(src) || loop_.var_of.contains(src);
  }
  // Adds `dx`, the gradient of `input` from an op running in the conds
  // `op_conds`.
  void Contribute(const Conds& op_conds, const Output& input, Output dx);
  // The gradient of a loop inside the body, built here in this backward
  // body with this loop's stacks for its values.
  absl::Status InnerLoopGradient(const Loop::Unit& unit, const Conds& op_conds);
  // The gradient of one body op.
  absl::Status OpGradient(const Operation& op, const Conds& op_conds);
  // The next iteration's count and gradients.
  std::vector<Output> Next();

  WhileLoopGradient& lg_;
  Loop& loop_;
  const Scope& graph_;
  const Scope b_;
  const std::vector<Output>& v_;
  const size_t m_;
  std::vector<Operation> pops_;
  absl::flat_hash_map<std::string, Output> mapped_;  // forward tensor -> backward
  // Per (predicate, branch) of a cond in the forward body: see Pivot.
  absl::flat_hash_map<std::string, Operation> pivots_;
  // Gradients inside the body: of each loop variable's top, of each
  // invariant, and per body output.
  std::map<Key, std::vector<Output>> pending_;
  std::vector<std::vector<Output>> d_var_, d_inv_;
};

Operation WhileLoopGradient::Body::Pivot(const std::pair<Output, int>& cond) {
  const std::string key = absl::StrCat(cond.first.tensor_name(), "#", cond.second);
  auto it = pivots_.find(key);
  if (it != pivots_.end()) return it->second;
  Output pred = Map(cond.first);
  ops::SwitchOutputs sw = ops::Switch(b_.WithOpName("cond_pivot"), pred, pred);
  const Output taken = cond.second == 1 ? sw.output_true : sw.output_false;
  Operation p = ops::Identity(b_.WithOpName("cond_pivot"), taken).op();
  pivots_[key] = p;
  return p;
}

Output WhileLoopGradient::Body::Map(const Output& o) {
  const std::string name = o.op().name();
  const bool added = lg_.added_forward_.contains(name);
  if (!lg_.a_.before->contains(name) && !added) return o;  // built by the gradient
  const std::string key = o.tensor_name();
  auto it = mapped_.find(key);
  if (it != mapped_.end()) return it->second;
  Output r;
  const NodeDef& n = graph_.GetNodeDef(o.op());
  if (!lg_.in_loop_.contains(name) && !added) {
    r = ops::LoopInvariant(b_, lg_.OuterValue(o));
  } else if (loop_.invariant_of.contains(name)) {
    r = ops::LoopInvariant(b_, lg_.OuterValue(graph_.GetInputs(o.op())[0]));
  } else if (n.op() == "Const") {
    r = b_.AddOp("Const", {}, {{"value", n.attr().at("value")}, {"dtype", n.attr().at("dtype")}})
            .output(0);
  } else {
    r = PushAndPop(o, key);
  }
  mapped_[key] = r;
  return r;
}

Output WhileLoopGradient::Body::PushAndPop(const Output& o, const std::string& key) {
  // Pushed in each forward iteration, popped in reverse here. A push waits
  // for its iteration's count, and the count's increment for the push: so
  // one iteration's pushes come before the next one's. A value in a cond's
  // branch is pushed only when the branch runs, so its pop waits on the
  // same branch here.
  const DataType t = BaseType(o.dtype());
  Output stack =
      lg_.outer_.WithOpName("stack")
          .AddOp("StackV2", {{ops::Const<int32_t>(lg_.outer_const_, -1)}},
                 {{"elem_type", MakeAttrValue(t)}, {"stack_name", MakeAttrValue(key)}})
          .output(0);
  Output enter = ops::Enter(lg_.outer_.WithOpName("stack_enter"), stack, lg_.a_.frame, true,
                            loop_.parallel_iterations);
  lg_.pushes_.push_back(lg_.outer_.WithControlDependencies({lg_.f_body_.op()})
                            .WithOpName("stack_push")
                            .AddOp("StackPushV2", {{enter}, {o}}));
  const Conds conds = loop_.CondsOf(graph_, o);
  Scope at = b_;
  if (!conds.empty()) at = b_.WithControlDependencies({Pivot(conds.back())});
  Output r = at.WithOpName("stack_pop")
                 .AddOp("StackPopV2", {{ops::LoopInvariant(b_, lg_.OuterAdded(stack))}},
                        {{"elem_type", MakeAttrValue(t)}})
                 .output(0);
  pops_.push_back(r.op());
  return r;
}

void WhileLoopGradient::Body::SeedGradients() {
  for (size_t j = 0; j < m_; ++j) {
    const Output& result = loop_.vars[lg_.carried_[j]].result;
    const std::string& src = result.op().name();
    if (auto var = loop_.var_of.find(src); var != loop_.var_of.end()) {
      d_var_[var->second].push_back(v_[1 + j]);  // passed through unchanged
    } else if (auto inv = loop_.invariant_of.find(src); inv != loop_.invariant_of.end()) {
      d_inv_[inv->second].push_back(v_[1 + j]);
    } else {
      pending_[KeyOf(result)].push_back(v_[1 + j]);
    }
  }
}

void WhileLoopGradient::Body::Contribute(const Conds& op_conds, const Output& input, Output dx) {
  // A branch's op that uses a value from outside its cond directly (not
  // through the cond's Switch): its gradient is dead when the branch did
  // not run, so zeros stand in for it then (a Merge with zeros that only
  // the other branch lets through), level by level.
  const size_t in_depth = loop_.CondsOf(graph_, input).size();
  for (size_t d = op_conds.size(); d > in_depth; --d) {
    const std::pair<Output, int>& c = op_conds[d - 1];
    Output pred = Map(c.first);
    Output like = Map(input);
    if (BaseType(like.dtype()) == DT_RESOURCE) {
      like = ops::ReadVariableOp(b_, like, BaseType(dx.dtype()));
    }
    ops::SwitchOutputs gate = ops::Switch(b_, ops::ZerosLike(b_, like), pred);
    dx = ops::Merge(b_, {dx, c.second == 1 ? gate.output_false : gate.output_true});
  }
  const std::string& src = input.op().name();
  if (auto var = loop_.var_of.find(src); var != loop_.var_of.end()) {
    d_var_[var->second].push_back(dx);
  } else if (auto inv = loop_.invariant_of.find(src); inv != loop_.invariant_of.end()) {
    d_inv_[inv->second].push_back(dx);
  } else {
    pending_[KeyOf(input)].push_back(dx);
  }
}

absl::Status WhileLoopGradient::Body::InnerLoopGradient(const Loop::Unit& unit,
                                                        const Conds& op_conds) {
  const WhileLoopGradientArgs& a = lg_.a_;
  WhileLoopGradientArgs inner(graph_, b_);
  inner.frame = unit.frame;
  inner.ops = unit.ops;
  inner.before = a.before;
  inner.from_x = a.from_x;
  inner.frames = a.frames;
  inner.depth = a.depth + 1;
  inner.grad_of = [&](const Output& o) {
    auto p = pending_.find(KeyOf(o));
    return p == pending_.end() ? Output() : Sum(p->second);
  };
  inner.add_grad = [&](const Output& in, const Output& grad) {
    if (grad.op().valid() && Wants(in)) Contribute(op_conds, in, grad);
  };
  inner.outer_map = [this](const Output& o) { return Map(o); };
  // Live in the forward iterations where the inner loop runs: an Identity
  // of the input of its Enter in the deepest cond.
  for (const Operation& op : unit.ops) {
    const NodeDef& n = graph_.GetNodeDef(op);
    if (!IsOpOrRef(n, "Enter") || a.frames->at(op.name()).size() != a.depth + 2) continue;
    const Output in = graph_.GetInputs(op)[0];
    if (!inner.outer_pivot.valid() || loop_.CondsOf(graph_, in).size() == op_conds.size()) {
      inner.outer_pivot = ops::Identity(lg_.outer_.WithOpName("inner_pivot"), in).op();
      if (loop_.CondsOf(graph_, in).size() == op_conds.size()) break;
    }
  }
  inner.outer_register = [&](const Output& value) {
    lg_.added_forward_.insert(value.op().name());
    loop_.conds[value.op().name()] = op_conds;
  };
  return AddWhileLoopGradients(inner);
}

absl::Status WhileLoopGradient::Body::OpGradient(const Operation& op, const Conds& op_conds) {
  std::vector<Output> dys(op.num_outputs());
  bool any = false;
  for (int i = 0; i < op.num_outputs(); ++i) {
    auto p = pending_.find({op.name(), i});
    if (p != pending_.end()) dys[i] = Sum(p->second);
    any |= dys[i].op().valid();
  }
  if (!any) return absl::OkStatus();
  const std::vector<Output> inputs = graph_.GetInputs(op);
  std::vector<bool> wanted(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) wanted[i] = Wants(inputs[i]);
  std::vector<Output> dxs;
  const Scope bm = b_.WithInputMapper([this](const Output& o) { return Map(o); });
  MG_RETURN_IF_ERROR(CallGradient(bm, graph_, op, dys, wanted, &dxs));
  for (size_t i = 0; i < inputs.size() && i < dxs.size(); ++i) {
    if (dxs[i].op().valid() && wanted[i]) Contribute(op_conds, inputs[i], dxs[i]);
  }
  return absl::OkStatus();
}

std::vector<Output> WhileLoopGradient::Body::Next() {
  // The next iteration starts when this one's pops are done (through a
  // ControlTrigger: a pop in a branch not taken is dead).
  Scope count = b_;
  if (!pops_.empty()) {
    count = b_.WithControlDependencies({b_.WithNoControlDependencies()
                                            .WithControlDependencies(pops_)
                                            .WithOpName("b_sync")
                                            .AddOp("ControlTrigger", {})});
  }
  std::vector<Output> next = {ops::Sub(count, v_[0], ops::Const<int32_t>(b_, 1))};
  for (size_t j = 0; j < m_; ++j) {
    Output d = Sum(d_var_[lg_.carried_[j]]);
    next.push_back(d.op().valid() ? d : ops::ZerosLike(b_, v_[1 + j]));
  }
  for (size_t k = 0; k < lg_.accumulated_.size(); ++k) {
    Output d = Sum(d_inv_[lg_.accumulated_[k]]);
    next.push_back(d.op().valid() ? ops::Add(b_, v_[1 + m_ + k], d) : v_[1 + m_ + k]);
  }
  return next;
}

std::vector<Output> WhileLoopGradient::Body::Build() {
  SeedGradients();
  std::vector<std::vector<Operation>> unit_ops;
  for (const Loop::Unit& u : loop_.units) unit_ops.push_back(u.ops);
  for (const int u : ReverseTopologicalOrder(graph_, unit_ops)) {
    const Loop::Unit& unit = loop_.units[u];
    // (A copy: registering an inner loop's values adds to the map.)
    const Conds op_conds = loop_.conds.at(unit.ops[0].name());
    absl::Status st = unit.frame.empty() ? OpGradient(unit.ops[0], op_conds)
                                         : InnerLoopGradient(unit, op_conds);
    if (!st.ok()) {
      if (lg_.status_.ok()) lg_.status_ = st;
      return {};
    }
  }
  return Next();
}

WhileLoopGradient::WhileLoopGradient(const WhileLoopGradientArgs& a, Loop loop)
    : a_(a),
      graph_(a.graph),
      loop_(std::move(loop)),
      s_(a.g.NewSubScope(absl::StrCat(loop_.vars[0].enter.op().name(), "_grad"))),
      outer_(s_.WithNoControlDependencies()),
      outer_const_(a.outer_pivot.valid() ? outer_.WithControlDependencies({a.outer_pivot})
                                         : outer_) {
  for (const Operation& op : a.ops) in_loop_.insert(op.name());
}

void WhileLoopGradient::ChooseCarried() {
  for (size_t i = 0; i < loop_.vars.size(); ++i) {
    if (Differentiable(loop_.vars[i].enter.dtype())) carried_.push_back(static_cast<int>(i));
  }
  read_dtype_.assign(loop_.invariants.size(), DT_INVALID);
  for (size_t k = 0; k < loop_.invariants.size(); ++k) {
    const Output source = graph_.GetInputs(loop_.invariants[k].op())[0];
    if (!a_.from_x->contains(source.op().name())) continue;
    if (BaseType(source.dtype()) == DT_RESOURCE) {
      // A variable read in the body: its gradient is that of the value read.
      for (const Operation& op : loop_.body) {
        const NodeDef& n = graph_.GetNodeDef(op);
        if ((n.op() == "ReadVariableOp" || n.op() == "ResourceGather") &&
            graph_.GetInputs(op)[0].op().name() == loop_.invariants[k].op().name()) {
          read_dtype_[k] = n.attr().at("dtype").type();
        }
      }
      if (read_dtype_[k] == DT_INVALID) continue;
    } else if (!Differentiable(source.dtype())) {
      continue;
    }
    accumulated_.push_back(static_cast<int>(k));
  }
}

absl::Status WhileLoopGradient::AddForwardCounter() {
  Output f_enter = ops::Enter(outer_.WithOpName("f_count"), ops::Const<int32_t>(outer_const_, 0),
                              a_.frame, false, loop_.parallel_iterations);
  f_merge_ = ops::Merge(outer_.WithOpName("f_count"), {f_enter, f_enter});
  ops::SwitchOutputs f_switch = ops::Switch(outer_.WithOpName("f_count"), f_merge_, loop_.pred);
  f_body_ = ops::Identity(outer_.WithOpName("f_count"), f_switch.output_true);
  f_total_ = ops::Exit(outer_.WithOpName("f_count"), f_switch.output_false);
  return s_.status();
}

std::vector<Output> WhileLoopGradient::InitialValues() {
  std::vector<Output> init = {OuterAdded(f_total_)};
  for (int i : carried_) {
    const LoopVar& v = loop_.vars[i];
    Output dy = v.exit.op().valid() ? a_.grad_of(v.exit) : Output();
    if (!dy.op().valid()) {
      dy = ops::ZerosLike(
          s_, OuterValue(v.exit.op().valid() ? v.exit : graph_.GetInputs(v.enter.op())[0]));
    }
    init.push_back(dy);
  }
  for (int k : accumulated_) {
    const Output source = graph_.GetInputs(loop_.invariants[k].op())[0];
    const Output there = OuterValue(source);
    init.push_back(ops::ZerosLike(
        s_, read_dtype_[k] != DT_INVALID ? ops::ReadVariableOp(s_, there, read_dtype_[k]) : there));
  }
  return init;
}

absl::Status WhileLoopGradient::CloseForwardCounter() {
  // After this iteration's pushes (through a ControlTrigger: a push in a
  // branch not taken is dead, and must not make the count dead).
  Output one = ops::Const<int32_t>(outer_.WithControlDependencies({f_body_.op()}), 1);
  std::vector<Operation> sync;
  if (!pushes_.empty()) {
    sync.push_back(
        outer_.WithControlDependencies(pushes_).WithOpName("f_sync").AddOp("ControlTrigger", {}));
  }
  Output f_next = ops::NextIteration(
      outer_.WithOpName("f_count"),
      ops::Add(outer_.WithControlDependencies(sync).WithOpName("f_count"), f_body_, one));
  s_.UpdateInput(f_merge_.op(), 1, f_next);
  return s_.status();
}

absl::Status WhileLoopGradient::Build() {
  ChooseCarried();
  // The forward counter (its increment waits for the pushes, made below).
  MG_RETURN_IF_ERROR(AddForwardCounter());
  const std::vector<Output> init = InitialValues();
  std::vector<Output> done = ops::WhileLoop(
      s_.NewSubScope("backward"), init,
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [this](const Scope& b, const std::vector<Output>& v) { return Body(this, b, v).Build(); },
      static_cast<int>(loop_.parallel_iterations));
  MG_RETURN_IF_ERROR(status_);
  MG_RETURN_IF_ERROR(s_.status());
  MG_RETURN_IF_ERROR(CloseForwardCounter());
  const size_t m = carried_.size();
  for (size_t j = 0; j < m; ++j) {
    a_.add_grad(graph_.GetInputs(loop_.vars[carried_[j]].enter.op())[0], done[1 + j]);
  }
  for (size_t k = 0; k < accumulated_.size(); ++k) {
    a_.add_grad(graph_.GetInputs(loop_.invariants[accumulated_[k]].op())[0], done[1 + m + k]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddWhileLoopGradients(const WhileLoopGradientArgs& a) {
  MG_ASSIGN_OR_RETURN(Loop loop, Analyze(a));
  return WhileLoopGradient(a, std::move(loop)).Build();
}

}  // namespace gradients_internal
}  // namespace minigraph

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

bool Is(const NodeDef& n, const char* type) {
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

absl::StatusOr<Loop> Analyze(const WhileLoopGradientArgs& a) {
  const Scope& graph = a.graph;
  auto unsupported = [&](const std::string& what) {
    return absl::UnimplementedError(
        absl::StrCat("the gradient of while loop '", a.frame, "': ", what));
  };
  Loop loop;
  absl::flat_hash_map<std::string, Operation> by_name;
  for (const Operation& op : a.ops) by_name[op.name()] = op;
  // Consumers by (op, output), within the loop.
  std::map<Key, std::vector<Operation>> consumers;
  for (const Operation& op : a.ops) {
    for (const Output& in : graph.GetInputs(op)) consumers[KeyOf(in)].push_back(op);
  }
  auto only_consumer = [&](const Output& o, const char* type) -> Operation {
    for (const Operation& c : consumers[KeyOf(o)]) {
      if (Is(graph.GetNodeDef(c), type)) return c;
    }
    return Operation();
  };
  // The loop inside the body an op runs in, or "" for the loop's own.
  auto inner_frame = [&](const Operation& op) -> std::string {
    const std::vector<std::string>& stack = a.frames->at(op.name());
    return stack.size() > a.depth + 1 ? stack[a.depth + 1] : std::string();
  };
  for (const Operation& op : a.ops) {
    if (!inner_frame(op).empty()) continue;
    const NodeDef& n = graph.GetNodeDef(op);
    if (Is(n, "Enter")) {
      loop.parallel_iterations = n.attr().at("parallel_iterations").i();
      loop.structure[op.name()] = true;
      if (n.attr().at("is_constant").b()) {
        loop.invariant_of[op.name()] = static_cast<int>(loop.invariants.size());
        loop.invariants.push_back(op.output(0));
        continue;
      }
      LoopVar v;
      v.enter = op.output(0);
      Operation merge = only_consumer(v.enter, "Merge");
      if (!merge.valid()) {
        return unsupported(absl::StrCat("Enter '", op.name(), "' feeds no Merge"));
      }
      v.merge = merge.output(0);
      const std::vector<Output> merge_in = graph.GetInputs(merge);
      if (merge_in.size() != 2) {
        return unsupported(absl::StrCat("Merge '", merge.name(), "' has ", merge_in.size(),
                                        " inputs, not an Enter and a NextIteration"));
      }
      v.next = merge_in[1];
      v.result = graph.GetInputs(v.next.op())[0];
      Operation sw = only_consumer(v.merge, "Switch");
      if (!sw.valid())
        return unsupported(absl::StrCat("Merge '", merge.name(), "' feeds no Switch"));
      Operation exit = only_consumer(sw.output(0), "Exit");
      Operation ident = only_consumer(sw.output(1), "Identity");
      v.exit = exit.valid() ? exit.output(0) : Output();
      v.body = ident.valid() ? ident.output(0) : sw.output(1);
      const int k = static_cast<int>(loop.vars.size());
      for (const Operation& o : {merge, sw, v.next.op(), ident, exit}) {
        if (!o.valid()) continue;
        loop.structure[o.name()] = true;
        if (o.name() != v.next.op().name() && o.name() != exit.name()) loop.var_of[o.name()] = k;
      }
      loop.vars.push_back(v);
    } else if (n.op() == "LoopCond") {
      loop.pred = op.output(0);
      loop.structure[op.name()] = true;
    }
  }
  if (loop.vars.empty() || !loop.pred.op().valid()) {
    return unsupported("its Enter, Merge, Switch and LoopCond nodes were not found");
  }
  // An inner loop runs in the deepest cond of its Enters' inputs.
  absl::flat_hash_map<std::string, std::vector<std::pair<Output, int>>> inner_conds;
  absl::flat_hash_map<std::string, int> unit_of_frame;
  for (const Operation& op : a.ops) {
    if (loop.structure.contains(op.name())) continue;
    const NodeDef& n = graph.GetNodeDef(op);
    const std::string inner = inner_frame(op);
    if (!inner.empty()) {
      auto [it, added] = unit_of_frame.try_emplace(inner, static_cast<int>(loop.units.size()));
      if (added) loop.units.push_back({inner, {}});
      loop.units[it->second].ops.push_back(op);
    } else {
      loop.units.push_back({"", {op}});
    }
    if (Is(n, "Switch") && inner.empty()) loop.cond_switch[op.name()] = true;
    // The deepest cond among the inputs' (a branch may use a value from
    // outside the cond directly); a Merge leaves its branches' cond.
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
    if (!inner.empty()) {
      // Everything of an inner loop runs where its Enters do.
      std::vector<std::pair<Output, int>>& c = inner_conds[inner];
      if (Is(n, "Enter") && a.frames->at(op.name()).size() == a.depth + 2 &&
          deepest.size() > c.size()) {
        c = deepest;
      }
      loop.conds[op.name()] = c;
      continue;
    }
    if (Is(n, "Merge") && !deepest.empty()) deepest.pop_back();
    loop.conds[op.name()] = std::move(deepest);
    loop.body.push_back(op);
  }
  return loop;
}

}  // namespace

absl::Status AddWhileLoopGradients(const WhileLoopGradientArgs& a) {
  const Scope& graph = a.graph;
  MG_ASSIGN_OR_RETURN(Loop loop, Analyze(a));
  // Which loop variables and invariants carry gradients.
  std::vector<int> carried;  // loop variable indices, in backward order
  for (size_t i = 0; i < loop.vars.size(); ++i) {
    if (Differentiable(loop.vars[i].enter.dtype())) carried.push_back(static_cast<int>(i));
  }
  std::vector<int> accumulated;  // invariant indices
  std::vector<DataType> read_dtype(loop.invariants.size(), DT_INVALID);
  for (size_t k = 0; k < loop.invariants.size(); ++k) {
    const Output source = graph.GetInputs(loop.invariants[k].op())[0];
    if (!a.from_x->contains(source.op().name())) continue;
    if (BaseType(source.dtype()) == DT_RESOURCE) {
      // A variable read in the body: its gradient is that of the value read.
      for (const Operation& op : loop.body) {
        const NodeDef& n = graph.GetNodeDef(op);
        if ((n.op() == "ReadVariableOp" || n.op() == "ResourceGather") &&
            graph.GetInputs(op)[0].op().name() == loop.invariants[k].op().name()) {
          read_dtype[k] = n.attr().at("dtype").type();
        }
      }
      if (read_dtype[k] == DT_INVALID) continue;
    } else if (!Differentiable(source.dtype())) {
      continue;
    }
    accumulated.push_back(static_cast<int>(k));
  }

  const Scope s = a.g.NewSubScope(absl::StrCat(loop.vars[0].enter.op().name(), "_grad"));
  const Scope outer = s.WithNoControlDependencies();
  // Constants of the frame the loop runs in: inside another loop's body,
  // made in each of its iterations.
  const Scope outer_const =
      a.outer_pivot.valid() ? outer.WithControlDependencies({a.outer_pivot}) : outer;
  // A value of the frame the loop runs in, as the backward pass sees it
  // there (popped, inside another loop's backward body).
  auto outer_value = [&](const Output& o) { return a.outer_map ? a.outer_map(o) : o; };
  // A value this gradient adds to the frame the loop runs in.
  auto outer_added = [&](const Output& o) {
    if (a.outer_register) a.outer_register(o);
    return outer_value(o);
  };
  // Values this gradient adds to the loop's own forward frame for the
  // gradients of loops inside its body (their stacks, their counts).
  absl::flat_hash_set<std::string> added_forward;
  absl::flat_hash_set<std::string> in_loop;
  for (const Operation& op : a.ops) in_loop.insert(op.name());

  // The forward counter (its increment waits for the pushes, made below).
  Output f_enter = ops::Enter(outer.WithOpName("f_count"), ops::Const<int32_t>(outer_const, 0),
                              a.frame, false, loop.parallel_iterations);
  Output f_merge = ops::Merge(outer.WithOpName("f_count"), {f_enter, f_enter});
  ops::SwitchOutputs f_switch = ops::Switch(outer.WithOpName("f_count"), f_merge, loop.pred);
  Output f_body = ops::Identity(outer.WithOpName("f_count"), f_switch.output_true);
  Output f_total = ops::Exit(outer.WithOpName("f_count"), f_switch.output_false);
  MG_RETURN_IF_ERROR(s.status());

  // The backward loop's initial values.
  std::vector<Output> init = {outer_added(f_total)};
  for (int i : carried) {
    const LoopVar& v = loop.vars[i];
    Output dy = v.exit.op().valid() ? a.grad_of(v.exit) : Output();
    if (!dy.op().valid()) {
      dy = ops::ZerosLike(
          s, outer_value(v.exit.op().valid() ? v.exit : graph.GetInputs(v.enter.op())[0]));
    }
    init.push_back(dy);
  }
  for (int k : accumulated) {
    const Output source = graph.GetInputs(loop.invariants[k].op())[0];
    const Output there = outer_value(source);
    init.push_back(ops::ZerosLike(
        s, read_dtype[k] != DT_INVALID ? ops::ReadVariableOp(s, there, read_dtype[k]) : there));
  }

  std::vector<Operation> pushes;
  absl::Status status;
  auto fail = [&](const absl::Status& st) {
    if (status.ok()) status = st;
  };
  const size_t m = carried.size();
  std::vector<Output> done = ops::WhileLoop(
      s.NewSubScope("backward"), init,
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        std::vector<Operation> pops;
        absl::flat_hash_map<std::string, Output> mapped;  // forward tensor -> backward
        // Per (predicate, branch) of a cond in the forward body: a node of
        // the backward body that is live exactly when the forward iteration
        // took that branch.
        absl::flat_hash_map<std::string, Operation> pivots;
        std::function<Output(const Output&)> map;
        auto pivot = [&](const std::pair<Output, int>& cond) -> Operation {
          const std::string key = absl::StrCat(cond.first.tensor_name(), "#", cond.second);
          auto it = pivots.find(key);
          if (it != pivots.end()) return it->second;
          Output pred = map(cond.first);
          ops::SwitchOutputs sw = ops::Switch(b.WithOpName("cond_pivot"), pred, pred);
          Operation p = ops::Identity(b.WithOpName("cond_pivot"),
                                      cond.second == 1 ? sw.output_true : sw.output_false)
                            .op();
          pivots[key] = p;
          return p;
        };
        // A forward value as the backward body sees it.
        map = [&](const Output& o) -> Output {
          const std::string name = o.op().name();
          const bool added = added_forward.contains(name);
          if (!a.before->contains(name) && !added) return o;  // built by the gradient
          const std::string key = o.tensor_name();
          auto it = mapped.find(key);
          if (it != mapped.end()) return it->second;
          Output r;
          const NodeDef& n = graph.GetNodeDef(o.op());
          if (!in_loop.contains(name) && !added) {
            r = ops::LoopInvariant(b, outer_value(o));
          } else if (loop.invariant_of.contains(name)) {
            r = ops::LoopInvariant(b, outer_value(graph.GetInputs(o.op())[0]));
          } else if (n.op() == "Const") {
            r = b.AddOp("Const", {},
                        {{"value", n.attr().at("value")}, {"dtype", n.attr().at("dtype")}})
                    .output(0);
          } else {
            // Pushed in each forward iteration, popped in reverse here. A
            // push waits for its iteration's count, and the count's
            // increment for the push: so one iteration's pushes come before
            // the next one's. A value in a cond's branch is pushed only when
            // the branch runs, so its pop waits on the same branch here.
            const DataType t = BaseType(o.dtype());
            Output stack =
                outer.WithOpName("stack")
                    .AddOp("StackV2", {{ops::Const<int32_t>(outer_const, -1)}},
                           {{"elem_type", MakeAttrValue(t)}, {"stack_name", MakeAttrValue(key)}})
                    .output(0);
            Output enter = ops::Enter(outer.WithOpName("stack_enter"), stack, a.frame, true,
                                      loop.parallel_iterations);
            pushes.push_back(outer.WithControlDependencies({f_body.op()})
                                 .WithOpName("stack_push")
                                 .AddOp("StackPushV2", {{enter}, {o}}));
            const std::vector<std::pair<Output, int>> conds = loop.CondsOf(graph, o);
            Scope at = b;
            if (!conds.empty()) at = b.WithControlDependencies({pivot(conds.back())});
            r = at.WithOpName("stack_pop")
                    .AddOp("StackPopV2", {{ops::LoopInvariant(b, outer_added(stack))}},
                           {{"elem_type", MakeAttrValue(t)}})
                    .output(0);
            pops.push_back(r.op());
          }
          mapped[key] = r;
          return r;
        };
        const Scope bm = b.WithInputMapper(map);

        // Gradients inside the body: of each loop variable's top, of each
        // invariant, and per body output.
        std::map<Key, std::vector<Output>> pending;
        std::vector<std::vector<Output>> d_var(loop.vars.size()), d_inv(loop.invariants.size());
        for (size_t j = 0; j < m; ++j) {
          const Output& result = loop.vars[carried[j]].result;
          const std::string& src = result.op().name();
          if (auto var = loop.var_of.find(src); var != loop.var_of.end()) {
            d_var[var->second].push_back(v[1 + j]);  // passed through unchanged
          } else if (auto inv = loop.invariant_of.find(src); inv != loop.invariant_of.end()) {
            d_inv[inv->second].push_back(v[1 + j]);
          } else {
            pending[KeyOf(result)].push_back(v[1 + j]);
          }
        }
        auto sum = [&](const std::vector<Output>& parts) -> Output {
          if (parts.empty()) return Output();
          return parts.size() == 1 ? parts[0] : ops::AddN(b, parts);
        };
        auto wants = [&](const Output& in) {
          const std::string& src = in.op().name();
          return a.from_x->contains(src) || loop.var_of.contains(src);
        };
        // Adds `dx`, the gradient of `input` from an op running in the conds
        // `op_conds`.
        auto contribute = [&](const std::vector<std::pair<Output, int>>& op_conds,
                              const Output& input, Output dx) {
          // A branch's op that uses a value from outside its cond directly
          // (not through the cond's Switch): its gradient is dead when the
          // branch did not run, so zeros stand in for it then (a Merge with
          // zeros that only the other branch lets through), level by level.
          const size_t in_depth = loop.CondsOf(graph, input).size();
          for (size_t d = op_conds.size(); d > in_depth; --d) {
            const std::pair<Output, int>& c = op_conds[d - 1];
            Output pred = map(c.first);
            Output like = map(input);
            if (BaseType(like.dtype()) == DT_RESOURCE) {
              like = ops::ReadVariableOp(b, like, BaseType(dx.dtype()));
            }
            ops::SwitchOutputs gate = ops::Switch(b, ops::ZerosLike(b, like), pred);
            dx = ops::Merge(b, {dx, c.second == 1 ? gate.output_false : gate.output_true});
          }
          const std::string& src = input.op().name();
          if (auto var = loop.var_of.find(src); var != loop.var_of.end()) {
            d_var[var->second].push_back(dx);
          } else if (auto inv = loop.invariant_of.find(src); inv != loop.invariant_of.end()) {
            d_inv[inv->second].push_back(dx);
          } else {
            pending[KeyOf(input)].push_back(dx);
          }
        };
        std::vector<std::vector<Operation>> unit_ops;
        for (const Loop::Unit& u : loop.units) unit_ops.push_back(u.ops);
        for (const int u : ReverseTopologicalOrder(graph, unit_ops)) {
          const Loop::Unit& unit = loop.units[u];
          // (A copy: registering an inner loop's values adds to the map.)
          const std::vector<std::pair<Output, int>> op_conds = loop.conds.at(unit.ops[0].name());
          if (!unit.frame.empty()) {
            // A loop inside the body: its gradient is built here, in this
            // backward body, with this loop's stacks for its values.
            WhileLoopGradientArgs inner(graph, b);
            inner.frame = unit.frame;
            inner.ops = unit.ops;
            inner.before = a.before;
            inner.from_x = a.from_x;
            inner.frames = a.frames;
            inner.depth = a.depth + 1;
            inner.grad_of = [&](const Output& o) {
              auto p = pending.find(KeyOf(o));
              return p == pending.end() ? Output() : sum(p->second);
            };
            inner.add_grad = [&](const Output& in, const Output& grad) {
              if (grad.op().valid() && wants(in)) contribute(op_conds, in, grad);
            };
            inner.outer_map = map;
            // Live in the forward iterations where the inner loop runs: an
            // Identity of the input of its Enter in the deepest cond.
            for (const Operation& op : unit.ops) {
              const NodeDef& n = graph.GetNodeDef(op);
              if (!Is(n, "Enter") || a.frames->at(op.name()).size() != a.depth + 2) continue;
              const Output in = graph.GetInputs(op)[0];
              if (!inner.outer_pivot.valid() || loop.CondsOf(graph, in).size() == op_conds.size()) {
                inner.outer_pivot = ops::Identity(outer.WithOpName("inner_pivot"), in).op();
                if (loop.CondsOf(graph, in).size() == op_conds.size()) break;
              }
            }
            inner.outer_register = [&](const Output& value) {
              added_forward.insert(value.op().name());
              loop.conds[value.op().name()] = op_conds;
            };
            absl::Status st = AddWhileLoopGradients(inner);
            if (!st.ok()) {
              fail(st);
              return {};
            }
            continue;
          }
          const Operation& op = unit.ops[0];
          std::vector<Output> dys(op.num_outputs());
          bool any = false;
          for (int i = 0; i < op.num_outputs(); ++i) {
            auto p = pending.find({op.name(), i});
            if (p != pending.end()) dys[i] = sum(p->second);
            any |= dys[i].op().valid();
          }
          if (!any) continue;
          const std::vector<Output> inputs = graph.GetInputs(op);
          std::vector<bool> wanted(inputs.size());
          for (size_t i = 0; i < inputs.size(); ++i) wanted[i] = wants(inputs[i]);
          std::vector<Output> dxs;
          absl::Status st = CallGradient(bm, graph, op, dys, wanted, &dxs);
          if (!st.ok()) {
            fail(st);
            return {};
          }
          for (size_t i = 0; i < inputs.size() && i < dxs.size(); ++i) {
            if (dxs[i].op().valid() && wanted[i]) contribute(op_conds, inputs[i], dxs[i]);
          }
        }
        // The next iteration starts when this one's pops are done (through a
        // ControlTrigger: a pop in a branch not taken is dead).
        Scope count = b;
        if (!pops.empty()) {
          count = b.WithControlDependencies({b.WithNoControlDependencies()
                                                 .WithControlDependencies(pops)
                                                 .WithOpName("b_sync")
                                                 .AddOp("ControlTrigger", {})});
        }
        std::vector<Output> next = {ops::Sub(count, v[0], ops::Const<int32_t>(b, 1))};
        for (size_t j = 0; j < m; ++j) {
          Output d = sum(d_var[carried[j]]);
          next.push_back(d.op().valid() ? d : ops::ZerosLike(b, v[1 + j]));
        }
        for (size_t k = 0; k < accumulated.size(); ++k) {
          Output d = sum(d_inv[accumulated[k]]);
          next.push_back(d.op().valid() ? ops::Add(b, v[1 + m + k], d) : v[1 + m + k]);
        }
        return next;
      },
      static_cast<int>(loop.parallel_iterations));
  MG_RETURN_IF_ERROR(status);
  MG_RETURN_IF_ERROR(s.status());

  // The forward counter's increment, after this iteration's pushes (through
  // a ControlTrigger: a push in a branch not taken is dead, and must not
  // make the count dead).
  Output one = ops::Const<int32_t>(outer.WithControlDependencies({f_body.op()}), 1);
  std::vector<Operation> sync;
  if (!pushes.empty()) {
    sync.push_back(
        outer.WithControlDependencies(pushes).WithOpName("f_sync").AddOp("ControlTrigger", {}));
  }
  Output f_next = ops::NextIteration(
      outer.WithOpName("f_count"),
      ops::Add(outer.WithControlDependencies(sync).WithOpName("f_count"), f_body, one));
  s.UpdateInput(f_merge.op(), 1, f_next);
  MG_RETURN_IF_ERROR(s.status());

  for (size_t j = 0; j < m; ++j) {
    a.add_grad(graph.GetInputs(loop.vars[carried[j]].enter.op())[0], done[1 + j]);
  }
  for (size_t k = 0; k < accumulated.size(); ++k) {
    a.add_grad(graph.GetInputs(loop.invariants[accumulated[k]].op())[0], done[1 + m + k]);
  }
  return absl::OkStatus();
}

}  // namespace gradients_internal
}  // namespace minigraph

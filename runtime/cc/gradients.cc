#include "runtime/cc/gradients.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/internal/while_gradients.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

void GradientRegistry::Register(const std::string& op, GradFunc fn) {
  fns_[op] = [fn = std::move(fn)](const Scope& scope, const Operation& o,
                                  const std::vector<Output>& dy, const std::vector<bool>&,
                                  std::vector<Output>* dx) { return fn(scope, o, dy, dx); };
}

void GradientRegistry::RegisterSelective(const std::string& op, SelectiveGradFunc fn) {
  fns_[op] = std::move(fn);
}

void GradientRegistry::RegisterNoGradient(const std::string& op) { no_gradient_[op] = true; }

const SelectiveGradFunc* GradientRegistry::Lookup(const std::string& op, bool* no_gradient) const {
  *no_gradient = no_gradient_.contains(op);
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

const GradientRegistry* GlobalGradientRegistry() {
  static const GradientRegistry* const r = [] {
    auto* reg = new GradientRegistry;
    gradients_internal::RegisterMathGradients(reg);
    gradients_internal::RegisterControlFlowGradients(reg);
    gradients_internal::RegisterNnGradients(reg);
    gradients_internal::RegisterArrayGradients(reg);
    gradients_internal::RegisterFunctionCallGradients(reg);
    gradients_internal::RegisterListGradients(reg);
    gradients_internal::RegisterLinalgGradients(reg);
    gradients_internal::RegisterFftGradients(reg);
    gradients_internal::RegisterSparseGradients(reg);
    gradients_internal::RegisterTensorArrayGradients(reg);
    return reg;
  }();
  return r;
}

namespace gradients_internal {

absl::Status CallGradient(const Scope& g, const Scope& graph, const Operation& op,
                          std::vector<Output> dys, const std::vector<bool>& wanted,
                          std::vector<Output>* dxs) {
  const std::string& type = graph.GetNodeDef(op).op();
  dxs->clear();
  bool no_gradient = false;
  const SelectiveGradFunc* fn = GlobalGradientRegistry()->Lookup(type, &no_gradient);
  if (fn == nullptr) {
    if (no_gradient) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("no gradient function is registered for op type ", type, " (node '", op.name(),
                     "', on the path from the xs to the ys)"));
  }
  // Zeros for the outputs nothing flows back to (for a TensorList, a list
  // of unset items); none for handles, which have no zeros.
  for (int i = 0; i < op.num_outputs(); ++i) {
    const DataType t = BaseType(op.output(i).dtype());
    if (!dys[i].op().valid() && t != DT_RESOURCE) dys[i] = ops::ZerosLike(g, op.output(i));
  }
  MG_RETURN_WITH_CONTEXT_IF_ERROR((*fn)(g, op, dys, wanted, dxs), "gradient of '", op.name(), "'");
  return g.status();
}

std::vector<int> ReverseTopologicalOrder(const Scope& graph,
                                         const std::vector<std::vector<Operation>>& units) {
  absl::flat_hash_map<std::string, int> unit_of;
  for (size_t u = 0; u < units.size(); ++u) {
    for (const Operation& op : units[u]) unit_of[op.name()] = static_cast<int>(u);
  }
  std::vector<std::set<int>> consumers(units.size()), producers(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    for (const Operation& op : units[u]) {
      for (const Output& in : graph.GetInputs(op)) {
        auto it = unit_of.find(in.op().name());
        if (it != unit_of.end() && it->second != static_cast<int>(u)) {
          consumers[it->second].insert(static_cast<int>(u));
          producers[u].insert(it->second);
        }
      }
    }
  }
  std::vector<int> waiting(units.size()), order;
  std::set<int> ready;
  for (size_t u = 0; u < units.size(); ++u) {
    waiting[u] = static_cast<int>(consumers[u].size());
    if (waiting[u] == 0) ready.insert(static_cast<int>(u));
  }
  while (!ready.empty()) {
    const int u = *ready.rbegin();
    ready.erase(u);
    order.push_back(u);
    for (int p : producers[u]) {
      if (--waiting[p] == 0) ready.insert(p);
    }
  }
  return order;
}

}  // namespace gradients_internal

namespace {

using Key = std::pair<std::string, int>;  // (op name, output index)

Key KeyOf(const Output& o) { return {o.op().name(), o.index()}; }

// The while-loop frames each op runs in, outermost first (empty outside
// any loop), from the Enters and Exits on its inputs: an Enter adds its
// frame, a consumer of an Exit leaves one.
absl::flat_hash_map<std::string, std::vector<std::string>> LoopFrames(
    const Scope& scope, const std::vector<Operation>& all) {
  absl::flat_hash_map<std::string, std::vector<std::string>> frames;
  for (const Operation& op : all) {
    const NodeDef& node = scope.GetNodeDef(op);
    std::vector<std::string> stack;
    for (const std::string& in : node.input()) {
      absl::StatusOr<TensorId> id = ParseTensorName(in[0] == '^' ? in.substr(1) : in);
      if (!id.ok()) continue;
      auto it = frames.find(id->node);
      if (it == frames.end()) continue;  // a back edge, from a NextIteration
      stack = it->second;
      absl::StatusOr<Operation> src = scope.FindOp(id->node);
      if (src.ok()) {
        const std::string& t = scope.GetNodeDef(*src).op();
        if ((t == "Exit" || t == "RefExit") && !stack.empty()) stack.pop_back();
      }
      break;
    }
    if (node.op() == "Enter" || node.op() == "RefEnter") {
      auto f = node.attr().find("frame_name");
      stack.push_back(f == node.attr().end() ? std::string() : f->second.s());
    }
    frames[op.name()] = std::move(stack);
  }
  return frames;
}

// The ops between the xs and the ys: those the ys depend on (backward from
// the ys, stopping nowhere) that depend on an x (forward from the xs,
// repeated until nothing changes: a loop's back edge, NextIteration into
// Merge, points to an op created earlier).
absl::flat_hash_set<std::string> OpsFromXsToYs(const Scope& scope,
                                               const std::vector<Operation>& all,
                                               const std::vector<Output>& xs,
                                               const std::vector<Output>& ys) {
  absl::flat_hash_set<std::string> x_ops;
  for (const Output& x : xs) x_ops.insert(x.op().name());
  absl::flat_hash_set<std::string> reaches_y;
  std::deque<Operation> queue;
  for (const Output& y : ys) {
    if (reaches_y.insert(y.op().name()).second) queue.push_back(y.op());
  }
  while (!queue.empty()) {
    Operation op = queue.front();
    queue.pop_front();
    for (const Output& in : scope.GetInputs(op)) {
      if (reaches_y.insert(in.op().name()).second) queue.push_back(in.op());
    }
  }
  absl::flat_hash_set<std::string> from_x;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Operation& op : all) {
      if (!reaches_y.contains(op.name()) || from_x.contains(op.name())) continue;
      bool depends = x_ops.contains(op.name());
      for (const Output& in : scope.GetInputs(op)) depends |= from_x.contains(in.op().name());
      if (depends) changed |= from_x.insert(op.name()).second;
    }
  }
  return from_x;
}

// The units of the backward pass: one op, or a whole while loop (its
// outermost frame inside the ys' own, `base` frames deep: gradients built
// inside a loop's body, as a call's in a functional While's gradient,
// differentiate the ops of that frame one by one), whose gradient is built
// at once. A loop takes in all of its frame's ops, also those no x reaches.
struct BackwardUnits {
  std::vector<std::vector<Operation>> ops;
  std::vector<std::string> frame;  // per unit: its loop's frame, or ""
};

BackwardUnits GroupIntoUnits(
    const std::vector<Operation>& all, const absl::flat_hash_set<std::string>& from_x,
    const absl::flat_hash_map<std::string, std::vector<std::string>>& frames, size_t base) {
  auto loop_of = [&](const Operation& op) -> std::string {
    const std::vector<std::string>& stack = frames.at(op.name());
    return stack.size() > base ? stack[base] : std::string();
  };
  BackwardUnits units;
  absl::flat_hash_map<std::string, int> unit_of;        // op name -> unit
  absl::flat_hash_map<std::string, int> unit_of_frame;  // frame -> unit
  for (const Operation& op : all) {
    if (!from_x.contains(op.name())) continue;
    const std::string frame = loop_of(op);
    int u;
    if (frame.empty()) {
      u = static_cast<int>(units.ops.size());
      units.ops.emplace_back();
      units.frame.emplace_back();
    } else {
      auto [it, added] = unit_of_frame.try_emplace(frame, static_cast<int>(units.ops.size()));
      if (added) {
        units.ops.emplace_back();
        units.frame.push_back(frame);
      }
      u = it->second;
    }
    units.ops[u].push_back(op);
    unit_of[op.name()] = u;
  }
  for (const Operation& op : all) {
    if (unit_of.contains(op.name())) continue;
    const std::string frame = loop_of(op);
    if (frame.empty()) continue;
    auto it = unit_of_frame.find(frame);
    if (it == unit_of_frame.end()) continue;
    unit_of[op.name()] = it->second;
  }
  for (auto& [frame, u] : unit_of_frame) {
    std::vector<Operation>& ops_of = units.ops[u];
    ops_of.clear();
    for (const Operation& op : all) {
      auto it = unit_of.find(op.name());
      if (it != unit_of.end() && it->second == u) ops_of.push_back(op);
    }
  }
  return units;
}

// The backward pass's gradient contributions per output, summed when they
// are all in.
class Backprop {
 public:
  Backprop(const Scope& scope, const Scope& g, const std::vector<Output>& xs,
           const absl::flat_hash_set<std::string>& from_x)
      : scope_(scope), g_(g), from_x_(from_x) {
    for (const Output& x : xs) x_keys_.insert(KeyOf(x));
  }

  void Add(const Output& of, const Output& grad) { pending_[KeyOf(of)].push_back(grad); }
  Output Sum(const Key& k) const {
    auto it = pending_.find(k);
    if (it == pending_.end() || it->second.empty()) return Output();
    if (it->second.size() == 1) return it->second[0];
    return ops::AddN(g_, it->second);
  }
  bool Wanted(const Output& in) const {
    return from_x_.contains(in.op().name()) || x_keys_.count(KeyOf(in)) > 0;
  }
  // Passes the gradients of `op`'s outputs to its wanted inputs, unless it
  // is an x (whose gradient is what was collected so far; an x computed
  // from another x still passes gradients on) or a StopGradient.
  absl::Status OpGradient(const Operation& op);

 private:
  const Scope& scope_;
  const Scope& g_;
  const absl::flat_hash_set<std::string>& from_x_;
  std::set<Key> x_keys_;
  std::map<Key, std::vector<Output>> pending_;
};

absl::Status Backprop::OpGradient(const Operation& op) {
  std::vector<Output> dys(op.num_outputs());
  bool any = false;
  for (int i = 0; i < op.num_outputs(); ++i) {
    dys[i] = Sum({op.name(), i});
    any |= dys[i].op().valid();
  }
  if (!any) return absl::OkStatus();
  const std::string& type = scope_.GetNodeDef(op).op();
  bool is_only_x = true;
  for (int i = 0; i < op.num_outputs(); ++i) is_only_x &= x_keys_.count({op.name(), i}) > 0;
  if (is_only_x || type == "StopGradient") return absl::OkStatus();
  const std::vector<Output> inputs = scope_.GetInputs(op);
  std::vector<bool> wanted(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) wanted[i] = Wanted(inputs[i]);
  std::vector<Output> dxs;
  MG_RETURN_IF_ERROR(gradients_internal::CallGradient(g_, scope_, op, dys, wanted, &dxs));
  for (size_t i = 0; i < inputs.size() && i < dxs.size(); ++i) {
    if (dxs[i].op().valid() && wanted[i]) Add(inputs[i], dxs[i]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                                  const std::vector<Output>& xs,
                                  const std::vector<Output>& grad_ys,
                                  std::vector<Output>* grads) {
  MG_RETURN_IF_ERROR(scope.status());
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    return absl::InvalidArgumentError(absl::StrCat("got ", grad_ys.size(), " grad_ys for ",
                                                   ys.size(), " ys"));
  }
  const Scope g = scope.NewSubScope("gradients");
  std::vector<Operation> all = scope.AllOps();
  absl::flat_hash_set<std::string> before;
  for (const Operation& op : all) before.insert(op.name());
  const absl::flat_hash_set<std::string> from_x = OpsFromXsToYs(scope, all, xs, ys);
  Backprop backprop(scope, g, xs, from_x);
  for (size_t i = 0; i < ys.size(); ++i) {
    Output dy = grad_ys.empty() ? ops::OnesLike(g, ys[i]) : grad_ys[i];
    if (dy.op().valid()) backprop.Add(ys[i], dy);
  }
  const absl::flat_hash_map<std::string, std::vector<std::string>> frames = LoopFrames(scope, all);
  // (An Exit runs in its loop's frame; its output is outside it.)
  const size_t base = ys.empty()
                          ? 0
                          : frames.at(ys[0].op().name()).size() -
                                (absl::EndsWith(scope.GetNodeDef(ys[0].op()).op(), "Exit") ? 1 : 0);
  const BackwardUnits units = GroupIntoUnits(all, from_x, frames, base);
  for (const int u : gradients_internal::ReverseTopologicalOrder(scope, units.ops)) {
    if (units.frame[u].empty()) {
      MG_RETURN_IF_ERROR(backprop.OpGradient(units.ops[u][0]));
      continue;
    }
    gradients_internal::WhileLoopGradientArgs loop(scope, g);
    loop.frame = units.frame[u];
    loop.ops = units.ops[u];
    loop.before = &before;
    loop.from_x = &from_x;
    loop.frames = &frames;
    loop.depth = base;
    loop.grad_of = [&](const Output& o) { return backprop.Sum(KeyOf(o)); };
    loop.add_grad = [&](const Output& in, const Output& grad) {
      if (grad.op().valid() && backprop.Wanted(in)) backprop.Add(in, grad);
    };
    MG_RETURN_IF_ERROR(gradients_internal::AddWhileLoopGradients(loop));
  }
  grads->clear();
  for (const Output& x : xs) {
    Output dx = backprop.Sum(KeyOf(x));
    if (!dx.op().valid() && x.dtype() != DT_RESOURCE) dx = ops::ZerosLike(g, x);
    grads->push_back(dx);
  }
  return g.status();
}

}  // namespace minigraph

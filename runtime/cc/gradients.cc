#include "runtime/cc/gradients.h"

#include <deque>
#include <map>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"

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

const GradientRegistry* StandardGradients() {
  static const GradientRegistry* const r = [] {
    auto* reg = new GradientRegistry;
    RegisterStandardGradients(reg);
    RegisterFunctionCallGradients(reg);
    RegisterListGradients(reg);
    RegisterTensorArrayGradients(reg);
    return reg;
  }();
  return r;
}

namespace {

using Key = std::pair<std::string, int>;  // (op name, output index)

Key KeyOf(const Output& o) { return {o.op().name(), o.index()}; }

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
  const GradientRegistry* registry = StandardGradients();
  std::vector<Operation> all = scope.AllOps();

  // Ops that the ys depend on (backward from the ys), stopping at the xs.
  std::set<Key> x_keys;
  for (const Output& x : xs) x_keys.insert(KeyOf(x));
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
  // Of those, the ones that depend on an x (forward from the xs).
  absl::flat_hash_set<std::string> from_x;
  for (const Operation& op : all) {
    if (!reaches_y.contains(op.name())) continue;
    bool depends = x_ops.contains(op.name());
    for (const Output& in : scope.GetInputs(op)) depends |= from_x.contains(in.op().name());
    if (depends) from_x.insert(op.name());
  }

  // Gradient contributions per output, summed when they are all in.
  std::map<Key, std::vector<Output>> pending;
  for (size_t i = 0; i < ys.size(); ++i) {
    Output dy = grad_ys.empty() ? ops::OnesLike(g, ys[i]) : grad_ys[i];
    if (dy.op().valid()) pending[KeyOf(ys[i])].push_back(dy);
  }
  auto sum = [&](const Key& k) -> Output {
    auto it = pending.find(k);
    if (it == pending.end() || it->second.empty()) return Output();
    if (it->second.size() == 1) return it->second[0];
    return ops::AddN(g, it->second);
  };

  // Reverse creation order is a reverse topological order.
  std::vector<Operation> path;
  for (const Operation& op : all) {
    if (from_x.contains(op.name())) path.push_back(op);
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Operation& op = *it;
    std::vector<Output> dys(op.num_outputs());
    bool any = false;
    for (int i = 0; i < op.num_outputs(); ++i) {
      dys[i] = sum({op.name(), i});
      any |= dys[i].op().valid();
    }
    if (!any) continue;
    const std::string& type = scope.GetNodeDef(op).op();
    // Stop at the xs: their gradient is what was collected so far. An x
    // that is itself computed from another x still passes gradients on.
    bool is_only_x = true;
    for (int i = 0; i < op.num_outputs(); ++i) is_only_x &= x_keys.count({op.name(), i}) > 0;
    if (is_only_x || type == "StopGradient") continue;
    bool no_gradient = false;
    const SelectiveGradFunc* fn = registry->Lookup(type, &no_gradient);
    if (fn == nullptr) {
      if (no_gradient) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "no gradient function is registered for op type ", type, " (node '", op.name(),
          "', on the path from the xs to the ys)"));
    }
    // Zeros for the outputs nothing flows back to (for a TensorList, a list
    // of unset items); none for handles, which have no zeros.
    for (int i = 0; i < op.num_outputs(); ++i) {
      const DataType t = BaseType(op.output(i).dtype());
      if (!dys[i].op().valid() && t != DT_RESOURCE) {
        dys[i] = ops::ZerosLike(g, op.output(i));
      }
    }
    const std::vector<Output> inputs = scope.GetInputs(op);
    std::vector<bool> wanted(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      wanted[i] = from_x.contains(inputs[i].op().name()) || x_keys.count(KeyOf(inputs[i])) > 0;
    }
    std::vector<Output> dxs;
    MG_RETURN_WITH_CONTEXT_IF_ERROR((*fn)(g, op, dys, wanted, &dxs), "gradient of '", op.name(),
                                    "'");
    MG_RETURN_IF_ERROR(g.status());
    for (size_t i = 0; i < inputs.size() && i < dxs.size(); ++i) {
      if (!dxs[i].op().valid() || !wanted[i]) continue;
      pending[KeyOf(inputs[i])].push_back(dxs[i]);
    }
  }
  grads->clear();
  for (const Output& x : xs) {
    Output dx = sum(KeyOf(x));
    if (!dx.op().valid() && x.dtype() != DT_RESOURCE) dx = ops::ZerosLike(g, x);
    grads->push_back(dx);
  }
  return g.status();
}

}  // namespace minigraph

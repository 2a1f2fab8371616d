#include "runtime/cc/optimizers.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

namespace {
// TensorFlow's update `op` of a variable and its slots (`inputs` start
// with them): Apply<op> on ref variables, Resource<op> on resource ones.
Operation Apply(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
                std::map<std::string, AttrValue> attrs = {}) {
  const std::string type = inputs[0].dtype() == DT_RESOURCE ? "Resource" + op : op;
  std::vector<std::vector<Output>> in;
  for (const Output& i : inputs) in.push_back({i});
  return scope.WithOpName(type).AddOp(type, in, attrs);
}

// `full` relative to `scope`'s prefix.
std::string RelativeName(const Scope& scope, const std::string& full) {
  return scope.prefix().empty() ? full : full.substr(scope.prefix().size() + 1);
}
}  // namespace

Variable GetOrCreateGlobalStep(const Scope& scope) {
  for (const std::string& name : scope.GetCollection(kGlobalStepCollection)) {
    for (const Variable& v : GlobalVariables(scope)) {
      if (v.name() == name) return v;
    }
  }
  Variable step = Variable::Create(scope, "global_step", Tensor::Scalar<int64_t>(0),
                                   {.trainable = false});
  scope.AddToCollection(kGlobalStepCollection, step.name());
  return step;
}

Output Optimizer::Hyper(const Scope& scope, const std::string& name, DataType dtype, double v) {
  Tensor t(dtype, TensorShape());
  if (dtype == DT_DOUBLE) {
    *t.data<double>() = v;
  } else {
    *t.data<float>() = static_cast<float>(v);
  }
  return ops::Const(scope.WithOpName(name), t);
}

Variable Optimizer::CreateSlot(const Scope& root, const Variable& var,
                               const std::string& slot_name, double init) {
  // A Fill, so the graph does not carry a constant the size of the
  // variable.
  const PartialShape& shape = var.shape();
  Tensor dims(DT_INT64, TensorShape({shape.rank()}));
  for (int i = 0; i < shape.rank(); ++i) dims.data<int64_t>()[i] = shape.dim(i);
  const Scope s = root.NewSubScope(absl::StrCat(var.name(), "/", slot_name, "/Initializer"));
  Output value = ops::Fill(s, ops::Const(s, dims),
                           Hyper(s, init == 0 ? "zero" : "value", var.dtype(), init));
  return Variable::Create(root, absl::StrCat(var.name(), "/", slot_name), value,
                          {.trainable = false, .use_resource = var.is_resource()});
}

absl::StatusOr<Operation> Optimizer::Minimize(const Scope& scope, Output loss,
                                              std::vector<Variable> var_list,
                                              const Variable* global_step) {
  MG_ASSIGN_OR_RETURN(auto pairs, ComputeGradients(scope, loss, std::move(var_list)));
  return ApplyGradients(scope, pairs, global_step);
}

absl::StatusOr<std::vector<std::pair<Output, Variable>>> Optimizer::ComputeGradients(
    const Scope& scope, Output loss, std::vector<Variable> var_list) {
  // A graph that failed to build has lost what it failed on: say why.
  MG_RETURN_IF_ERROR(scope.status());
  if (var_list.empty()) var_list = TrainableVariables(scope);
  if (var_list.empty()) return absl::InvalidArgumentError("No variables to optimize.");
  std::vector<Output> xs;
  for (const Variable& v : var_list) xs.push_back(v.value());
  std::vector<Output> grads;
  MG_RETURN_IF_ERROR(AddSymbolicGradients(scope, {loss}, xs, &grads));
  std::vector<std::pair<Output, Variable>> pairs;
  for (size_t i = 0; i < var_list.size(); ++i) pairs.emplace_back(grads[i], var_list[i]);
  return pairs;
}

absl::StatusOr<Operation> Optimizer::ApplyGradients(
    const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
    const Variable* global_step) {
  if (grads_and_vars.empty()) return absl::InvalidArgumentError("No gradients provided");
  std::vector<Variable> vars;
  for (const auto& [g, v] : grads_and_vars) vars.push_back(v);
  const Scope s = scope.NewSubScope(name_);
  MG_RETURN_IF_ERROR(Prepare(scope, s, vars));
  std::vector<Operation> updates;
  for (const auto& [grad, var] : grads_and_vars) {
    const Scope u = s.NewSubScope(absl::StrCat("update_", var.name()));
    updates.push_back(ApplyDense(u, grad, var));
  }
  std::vector<Operation> deps = updates;
  for (const Operation& op : Finish(s, updates)) deps.push_back(op);
  MG_RETURN_IF_ERROR(scope.status());
  const std::string exact = s.prefix() + "/";  // the op takes the scope's own name
  if (global_step == nullptr) return ops::Group(scope.WithOpName(RelativeName(scope, exact)), deps);
  Output inc = ops::AssignAdd(scope.WithOpName(RelativeName(scope, exact)).WithControlDependencies(
                                  {ops::Group(s.WithOpName("update"), deps)}),
                              global_step->ref(), ops::Const<int64_t>(s, 1), /*use_locking=*/true);
  MG_RETURN_IF_ERROR(scope.status());
  return inc.op();
}

absl::Status GradientDescentOptimizer::Prepare(const Scope& root, const Scope& scope,
                                               const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!lr_t_.count(v.dtype())) lr_t_[v.dtype()] = Hyper(scope, "learning_rate", v.dtype(), lr_);
  }
  return absl::OkStatus();
}

Operation GradientDescentOptimizer::ApplyDense(const Scope& scope, Output grad,
                                               const Variable& var) {
  return Apply(scope, "ApplyGradientDescent", {var.ref(), lr_t_.at(var.dtype()), grad});
}

absl::Status MomentumOptimizer::Prepare(const Scope& root, const Scope& scope,
                                        const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!accum_.count(v.name())) accum_.emplace(v.name(), CreateSlot(root, v, name()));
    if (!hyper_.count(v.dtype())) {
      hyper_[v.dtype()] = {Hyper(scope, "learning_rate", v.dtype(), lr_),
                           Hyper(scope, "momentum", v.dtype(), momentum_)};
    }
  }
  return absl::OkStatus();
}

Operation MomentumOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  const auto& [lr, momentum] = hyper_.at(var.dtype());
  return Apply(scope, "ApplyMomentum", {var.ref(), accum_.at(var.name()).ref(), lr, grad, momentum},
               {{"use_nesterov", MakeAttrValue(nesterov_)}});
}

absl::Status AdamOptimizer::Prepare(const Scope& root, const Scope& scope,
                                    const std::vector<Variable>& vars) {
  const DataType dt = vars[0].dtype();
  if (!beta1_power_.ref().op().valid()) {
    beta1_power_ =
        Variable::Create(root, "beta1_power", Hyper(root, "beta1_power/initial_value", dt, beta1_),
                         {.trainable = false});
    beta2_power_ =
        Variable::Create(root, "beta2_power", Hyper(root, "beta2_power/initial_value", dt, beta2_),
                         {.trainable = false});
  }
  for (const Variable& v : vars) {
    if (v.dtype() != dt) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Adam: all variables must have one dtype; '", v.name(), "' is ",
          DataTypeString(v.dtype()), ", '", vars[0].name(), "' is ", DataTypeString(dt)));
    }
    if (!slots_.count(v.name())) {
      Variable m = CreateSlot(root, v, name());
      Variable s2 = CreateSlot(root, v, name() + "_1");
      slots_.emplace(v.name(), std::make_pair(m, s2));
    }
  }
  if (!hyper_.count(dt)) {
    hyper_[dt] = {Hyper(scope, "learning_rate", dt, lr_), Hyper(scope, "beta1", dt, beta1_),
                  Hyper(scope, "beta2", dt, beta2_), Hyper(scope, "epsilon", dt, epsilon_)};
  }
  return absl::OkStatus();
}

Operation AdamOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  const std::vector<Output>& h = hyper_.at(var.dtype());
  const auto& [m, v] = slots_.at(var.name());
  return Apply(scope, "ApplyAdam",
               {var.ref(), m.ref(), v.ref(), beta1_power_.value(), beta2_power_.value(), h[0], h[1],
                h[2], h[3], grad});
}

std::vector<Operation> AdamOptimizer::Finish(const Scope& scope,
                                             const std::vector<Operation>& updates) {
  const std::vector<Output>& h = hyper_.at(beta1_power_.dtype());
  const Scope after = scope.WithControlDependencies(updates);
  Output b1 = ops::Assign(after.WithOpName("Assign"), beta1_power_.ref(),
                          ops::Mul(after, beta1_power_.value(), h[1]));
  Output b2 = ops::Assign(after.WithOpName("Assign_1"), beta2_power_.ref(),
                          ops::Mul(after, beta2_power_.value(), h[2]));
  return {b1.op(), b2.op()};
}

absl::Status RMSPropOptimizer::Prepare(const Scope& root, const Scope& scope,
                                       const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!slots_.count(v.name())) {
      slots_.emplace(v.name(), std::make_pair(CreateSlot(root, v, name(), 1.0),
                                              CreateSlot(root, v, name() + "_1")));
    }
    if (!hyper_.count(v.dtype())) {
      hyper_[v.dtype()] = {Hyper(scope, "learning_rate", v.dtype(), lr_),
                           Hyper(scope, "decay", v.dtype(), decay_),
                           Hyper(scope, "momentum", v.dtype(), momentum_),
                           Hyper(scope, "epsilon", v.dtype(), epsilon_)};
    }
  }
  return absl::OkStatus();
}

Operation RMSPropOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  const std::vector<Output>& h = hyper_.at(var.dtype());
  const auto& [rms, mom] = slots_.at(var.name());
  return Apply(scope, "ApplyRMSProp",
               {var.ref(), rms.ref(), mom.ref(), h[0], h[1], h[2], h[3], grad});
}

absl::Status AdagradOptimizer::Prepare(const Scope& root, const Scope& scope,
                                       const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!accum_.count(v.name())) accum_.emplace(v.name(), CreateSlot(root, v, name(), init_));
    if (!lr_t_.count(v.dtype())) lr_t_[v.dtype()] = Hyper(scope, "learning_rate", v.dtype(), lr_);
  }
  return absl::OkStatus();
}

Operation AdagradOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  return Apply(scope, "ApplyAdagrad",
               {var.ref(), accum_.at(var.name()).ref(), lr_t_.at(var.dtype()), grad});
}

absl::Status AdadeltaOptimizer::Prepare(const Scope& root, const Scope& scope,
                                        const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!slots_.count(v.name())) {
      slots_.emplace(v.name(), std::make_pair(CreateSlot(root, v, name()),
                                              CreateSlot(root, v, name() + "_1")));
    }
    if (!hyper_.count(v.dtype())) {
      hyper_[v.dtype()] = {Hyper(scope, "lr", v.dtype(), lr_), Hyper(scope, "rho", v.dtype(), rho_),
                           Hyper(scope, "epsilon", v.dtype(), epsilon_)};
    }
  }
  return absl::OkStatus();
}

Operation AdadeltaOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  const std::vector<Output>& h = hyper_.at(var.dtype());
  const auto& [accum, update] = slots_.at(var.name());
  return Apply(scope, "ApplyAdadelta",
               {var.ref(), accum.ref(), update.ref(), h[0], h[1], h[2], grad});
}

absl::Status FtrlOptimizer::Prepare(const Scope& root, const Scope& scope,
                                    const std::vector<Variable>& vars) {
  if (lr_power_ > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("learning_rate_power must be <= 0, got ", lr_power_));
  }
  if (init_ <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("initial_accumulator_value must be positive, got ", init_));
  }
  for (const Variable& v : vars) {
    if (!slots_.count(v.name())) {
      slots_.emplace(v.name(), std::make_pair(CreateSlot(root, v, name(), init_),
                                              CreateSlot(root, v, name() + "_1")));
    }
    if (!hyper_.count(v.dtype())) {
      hyper_[v.dtype()] = {Hyper(scope, "learning_rate", v.dtype(), lr_),
                           Hyper(scope, "l1_regularization_strength", v.dtype(), l1_),
                           Hyper(scope, "l2_regularization_strength", v.dtype(), l2_),
                           Hyper(scope, "learning_rate_power", v.dtype(), lr_power_)};
    }
  }
  return absl::OkStatus();
}

Operation FtrlOptimizer::ApplyDense(const Scope& scope, Output grad, const Variable& var) {
  const std::vector<Output>& h = hyper_.at(var.dtype());
  const auto& [accum, linear] = slots_.at(var.name());
  return Apply(scope, "ApplyFtrl",
               {var.ref(), accum.ref(), linear.ref(), grad, h[0], h[1], h[2], h[3]});
}

}  // namespace minigraph

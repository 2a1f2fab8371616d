// TensorFlow 1.x optimizers as graph builders: Minimize adds the gradients,
// the update ops (ApplyGradientDescent / ApplyMomentum / ApplyAdam) and the
// global-step increment, so one Session::Run is one training step. Slot
// variables use TensorFlow's names ("w/Momentum", "w/Adam", "w/Adam_1",
// "beta1_power", "beta2_power"), so checkpoints look like TensorFlow's.
//
//   Variable step = GetOrCreateGlobalStep(root);
//   AdamOptimizer adam(0.001);
//   MG_ASSIGN_OR_RETURN(Operation train, adam.Minimize(root, loss, {}, &step));
//   // session->Run({feeds}, {}, {train.name()}, &out) per step
//
// Like Scope's, not thread-safe: build a graph on one thread. An
// optimizer object holds its hyperparameters only; it may build into
// several graphs, one after another.

#ifndef MINIGRAPH_RUNTIME_CC_OPTIMIZERS_H_
#define MINIGRAPH_RUNTIME_CC_OPTIMIZERS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cc/scope.h"
#include "runtime/cc/variables.h"

namespace minigraph {

inline constexpr char kGlobalStepCollection[] = "global_step";

// The int64 scalar variable "global_step" (global, not trainable), created
// on first use and recorded in the "global_step" collection.
Variable GetOrCreateGlobalStep(const Scope& scope);

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // Gradients of `loss` for `var_list` (default: trainable variables),
  // applied; then `global_step` (if given) incremented after every update.
  // The returned op is the step to run. InvalidArgument when no variable
  // gets a gradient, or the gradient builder's error.
  absl::StatusOr<Operation> Minimize(const Scope& scope, Output loss,
                                     std::vector<Variable> var_list = {},
                                     const Variable* global_step = nullptr);
  // TensorFlow's compute_gradients: the gradient of `loss` for each of
  // `var_list` (default: the trainable variables). InvalidArgument when
  // there are none, or the gradient builder's error.
  absl::StatusOr<std::vector<std::pair<Output, Variable>>> ComputeGradients(
      const Scope& scope, Output loss, std::vector<Variable> var_list = {});
  absl::StatusOr<Operation> ApplyGradients(
      const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
      const Variable* global_step = nullptr);

  const std::string& name() const { return name_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  // Creates slots and hyperparameter constants under `scope` (the
  // optimizer's name scope) before any update is built.
  virtual absl::Status Prepare(const Scope& root, const Scope& scope,
                               const std::vector<Variable>& vars) = 0;
  // The update of one variable.
  virtual Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) = 0;
  // Extra ops after all updates (Adam's beta powers); returns their ops.
  virtual std::vector<Operation> Finish(const Scope& scope,
                                        const std::vector<Operation>& updates) {
    return {};
  }
  // A slot variable named "<var>/<slot_name>", every element `init`; a
  // resource variable when `var` is one.
  Variable CreateSlot(const Scope& root, const Variable& var, const std::string& slot_name,
                      double init = 0);
  // A scalar constant of `dtype`.
  static Output Hyper(const Scope& scope, const std::string& name, DataType dtype, double v);

 private:
  const std::string name_;
};

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate, std::string name = "GradientDescent")
      : Optimizer(std::move(name)), lr_(learning_rate) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_;
  std::map<DataType, Output> lr_t_;
};

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false,
                    std::string name = "Momentum")
      : Optimizer(std::move(name)), lr_(learning_rate), momentum_(momentum),
        nesterov_(use_nesterov) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_, momentum_;
  const bool nesterov_;
  std::map<std::string, Variable> accum_;
  std::map<DataType, std::pair<Output, Output>> hyper_;
};

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8, std::string name = "Adam")
      : Optimizer(std::move(name)), lr_(learning_rate), beta1_(beta1), beta2_(beta2),
        epsilon_(epsilon) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  std::vector<Operation> Finish(const Scope& scope,
                                const std::vector<Operation>& updates) override;
  const double lr_, beta1_, beta2_, epsilon_;
  std::map<std::string, std::pair<Variable, Variable>> slots_;
  Variable beta1_power_, beta2_power_;
  std::map<DataType, std::vector<Output>> hyper_;  // lr, beta1, beta2, epsilon
};

// TensorFlow 1.x's RMSPropOptimizer (not centered): slots "<var>/RMSProp"
// (the mean square, starting at 1 as in TensorFlow 1.x) and
// "<var>/RMSProp_1" (the momentum), so checkpoints match TensorFlow's.
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0,
                            double epsilon = 1e-10, std::string name = "RMSProp")
      : Optimizer(std::move(name)), lr_(learning_rate), decay_(decay), momentum_(momentum),
        epsilon_(epsilon) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_, decay_, momentum_, epsilon_;
  std::map<std::string, std::pair<Variable, Variable>> slots_;  // rms, momentum
  std::map<DataType, std::vector<Output>> hyper_;               // lr, decay, momentum, epsilon
};

// TensorFlow's AdagradOptimizer: slot "<var>/Adagrad" starting at
// `initial_accumulator_value`.
class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(double learning_rate, double initial_accumulator_value = 0.1,
                            std::string name = "Adagrad")
      : Optimizer(std::move(name)), lr_(learning_rate), init_(initial_accumulator_value) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_, init_;
  std::map<std::string, Variable> accum_;
  std::map<DataType, Output> lr_t_;
};

// TensorFlow's AdadeltaOptimizer: slots "<var>/Adadelta" (the mean square
// gradient) and "<var>/Adadelta_1" (the mean square update).
class AdadeltaOptimizer : public Optimizer {
 public:
  explicit AdadeltaOptimizer(double learning_rate = 0.001, double rho = 0.95, double epsilon = 1e-8,
                             std::string name = "Adadelta")
      : Optimizer(std::move(name)), lr_(learning_rate), rho_(rho), epsilon_(epsilon) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_, rho_, epsilon_;
  std::map<std::string, std::pair<Variable, Variable>> slots_;  // accum, accum_update
  std::map<DataType, std::vector<Output>> hyper_;               // lr, rho, epsilon
};

// TensorFlow's FtrlOptimizer (FTRL-Proximal): slots "<var>/Ftrl" (the
// accumulator, starting at `initial_accumulator_value`) and "<var>/Ftrl_1"
// (the linear term).
class FtrlOptimizer : public Optimizer {
 public:
  explicit FtrlOptimizer(double learning_rate, double learning_rate_power = -0.5,
                         double initial_accumulator_value = 0.1,
                         double l1_regularization_strength = 0.0,
                         double l2_regularization_strength = 0.0, std::string name = "Ftrl")
      : Optimizer(std::move(name)),
        lr_(learning_rate),
        lr_power_(learning_rate_power),
        init_(initial_accumulator_value),
        l1_(l1_regularization_strength),
        l2_(l2_regularization_strength) {}

 private:
  absl::Status Prepare(const Scope& root, const Scope& scope,
                       const std::vector<Variable>& vars) override;
  Operation ApplyDense(const Scope& scope, Output grad, const Variable& var) override;
  const double lr_, lr_power_, init_, l1_, l2_;
  std::map<std::string, std::pair<Variable, Variable>> slots_;  // accum, linear
  std::map<DataType, std::vector<Output>> hyper_;               // lr, l1, l2, lr_power
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_OPTIMIZERS_H_

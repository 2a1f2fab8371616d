// Optimizer updates (TensorFlow's training_ops), applied in place under the
// variables' locks. The math is TensorFlow's, term for term.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/eigen_util.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

// Locks the variables of Ref inputs `refs` (in order), checks they are
// initialized and shaped like `grad`, and returns their writable tensors.
class LockedVars {
 public:
  LockedVars(OpKernelContext* ctx, std::initializer_list<int> refs) {
    for (int i : refs) vars_.push_back(ctx->input_ref(i));
    for (Var* v : vars_) v->mu()->Lock();
  }
  ~LockedVars() {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) (*it)->mu()->Unlock();
  }
  absl::StatusOr<std::vector<Tensor*>> Check(const OpKernel& k,
                                             const Tensor& grad) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    std::vector<Tensor*> out;
    for (Var* v : vars_) {
      if (!v->is_initialized()) return UninitializedError(v->name());
      if (v->value().shape() != grad.shape()) {
        return absl::InvalidArgumentError(
            absl::StrCat(k.type_string(), ": variable '", v->name(), "' has shape ",
                         v->value().shape().DebugString(), " but the gradient has shape ",
                         grad.shape().DebugString()));
      }
      out.push_back(v->mutable_value());
    }
    return out;
  }

 private:
  std::vector<Var*> vars_;
};

absl::Status CheckScalars(const OpKernelContext* ctx, const OpKernel& k,
                          std::initializer_list<int> inputs) {
  for (int i : inputs) {
    if (ctx->input(i).dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": input ", i,
                                                     " must be a scalar, got shape ",
                                                     ctx->input(i).shape().DebugString()));
    }
  }
  return absl::OkStatus();
}

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {1}));
    const Tensor& delta = ctx->input(2);
    {
      LockedVars locked(ctx, {0});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, delta));
      auto var = vars[0]->flat<T>();
      const T alpha = ctx->input(1).scalar<T>()();
      Evaluate(ctx, var, var - delta.flat<T>() * alpha);
    }
    ctx->set_output_ref(0, ctx->input_ref(0));
    return absl::OkStatus();
  }
};

template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("use_nesterov", &nesterov_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {2, 4}));
    const Tensor& grad = ctx->input(3);
    {
      LockedVars locked(ctx, {0, 1});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      auto var = vars[0]->flat<T>();
      auto accum = vars[1]->flat<T>();
      auto g = grad.flat<T>();
      const T lr = ctx->input(2).scalar<T>()();
      const T momentum = ctx->input(4).scalar<T>()();
      Evaluate(ctx, accum, accum * momentum + g);
      if (nesterov_) {
        Evaluate(ctx, var, var - (g * lr + accum * momentum * lr));
      } else {
        Evaluate(ctx, var, var - accum * lr);
      }
    }
    ctx->set_output_ref(0, ctx->input_ref(0));
    return absl::OkStatus();
  }

 private:
  bool nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("use_nesterov", &nesterov_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {3, 4, 5, 6, 7, 8}));
    const Tensor& grad = ctx->input(9);
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      auto var = vars[0]->flat<T>();
      auto m = vars[1]->flat<T>();
      auto v = vars[2]->flat<T>();
      auto g = grad.flat<T>();
      const T beta1_power = ctx->input(3).scalar<T>()();
      const T beta2_power = ctx->input(4).scalar<T>()();
      const T lr = ctx->input(5).scalar<T>()();
      const T beta1 = ctx->input(6).scalar<T>()();
      const T beta2 = ctx->input(7).scalar<T>()();
      const T epsilon = ctx->input(8).scalar<T>()();
      const T alpha = lr * Eigen::numext::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
      Evaluate(ctx, m, m + (g - m) * (T(1) - beta1));
      Evaluate(ctx, v, v + (g.square() - v) * (T(1) - beta2));
      if (nesterov_) {
        Evaluate(ctx, var, var - ((g * (T(1) - beta1) + m * beta1) * alpha) / (v.sqrt() + epsilon));
      } else {
        Evaluate(ctx, var, var - (m * alpha) / (v.sqrt() + epsilon));
      }
    }
    ctx->set_output_ref(0, ctx->input_ref(0));
    return absl::OkStatus();
  }

 private:
  bool nesterov_ = false;
};

// ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + grad * lr /
// sqrt(ms + epsilon); var -= mom.
template <typename T>
class ApplyRMSPropOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {3, 4, 5, 6}));
    const Tensor& grad = ctx->input(7);
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      auto var = vars[0]->flat<T>();
      auto ms = vars[1]->flat<T>();
      auto mom = vars[2]->flat<T>();
      auto g = grad.flat<T>();
      const T lr = ctx->input(3).scalar<T>()();
      const T rho = ctx->input(4).scalar<T>()();
      const T momentum = ctx->input(5).scalar<T>()();
      const T epsilon = ctx->input(6).scalar<T>()();
      Evaluate(ctx, ms, ms + (g.square() - ms) * (T(1) - rho));
      Evaluate(ctx, mom, mom * momentum + (g * lr) / (ms + epsilon).sqrt());
      Evaluate(ctx, var, var - mom);
    }
    ctx->set_output_ref(0, ctx->input_ref(0));
    return absl::OkStatus();
  }
};

// accum += grad^2 (when update_slots); var -= grad * lr / sqrt(accum).
template <typename T>
class ApplyAdagradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("update_slots", &update_slots_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {2}));
    const Tensor& grad = ctx->input(3);
    {
      LockedVars locked(ctx, {0, 1});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      auto var = vars[0]->flat<T>();
      auto accum = vars[1]->flat<T>();
      auto g = grad.flat<T>();
      const T lr = ctx->input(2).scalar<T>()();
      if (update_slots_) Evaluate(ctx, accum, accum + g.square());
      Evaluate(ctx, var, var - g * lr * accum.rsqrt());
    }
    ctx->set_output_ref(0, ctx->input_ref(0));
    return absl::OkStatus();
  }

 private:
  bool update_slots_ = true;
};

}  // namespace

void RegisterTrainingKernels(KernelRegistry* r) {
  r->Register("ApplyGradientDescent", TypedFactory<ApplyGradientDescentOp, float, double>());
  r->Register("ApplyMomentum", TypedFactory<ApplyMomentumOp, float, double>());
  r->Register("ApplyAdam", TypedFactory<ApplyAdamOp, float, double>());
  r->Register("ApplyRMSProp", TypedFactory<ApplyRMSPropOp, float, double>());
  r->Register("ApplyAdagrad", TypedFactory<ApplyAdagradOp, float, double>());
}

}  // namespace minigraph

// Optimizer updates (TensorFlow's training_ops), applied in place under the
// variables' locks. The math is TensorFlow's, term for term, each update one
// pass over the elements (ForEachElement) rather than one Eigen expression
// per slot: one read of each slot instead of several, and no Eigen to
// compile.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Runs update(i) for every i < n, vectorized, split across the step's
// threads (`bytes` read and written per element, for the cost model).
// Updates capture by value and branch outside: a flag read through a
// reference inside the loop keeps it from vectorizing.
template <typename F>
void ForEachElement(const OpKernelContext* ctx, int64_t n, double bytes, const F& update) {
  ctx->ParallelFor(n, bytes, bytes, bytes, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) update(i);
  });
}

// Locks the variables of inputs `inputs` (Ref(T) inputs, or resource
// handles in the Resource* forms), in order, each once; checks they are
// initialized, of the gradient's dtype and shape, and returns their
// writable tensors.
class LockedVars {
 public:
  LockedVars(OpKernelContext* ctx, std::initializer_list<int> inputs) : ctx_(ctx), inputs_(inputs) {
    for (int i : inputs) {
      absl::StatusOr<Var*> v = ctx->input_var(i);
      if (!v.ok()) {
        status_ = v.status();
        return;
      }
      vars_.push_back(*v);
    }
    for (Var* v : vars_) {
      if (std::find(locked_.begin(), locked_.end(), v) != locked_.end()) continue;
      v->mu()->Lock();
      locked_.push_back(v);
    }
  }
  ~LockedVars() {
    for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) (*it)->mu()->Unlock();
  }
  // With `sparse_rows` >= 0 the gradient holds that many rows of each
  // variable (the sparse updates) rather than the whole of it.
  absl::StatusOr<std::vector<Tensor*>> Check(const OpKernel& k, const Tensor& grad,
                                             int64_t sparse_rows = -1)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    MG_RETURN_IF_ERROR(status_);
    std::vector<Tensor*> out;
    for (size_t i = 0; i < vars_.size(); ++i) {
      Var* v = vars_[i];
      if (!v->is_initialized()) return ctx_->uninitialized_error(inputs_[i], *v);
      if (v->dtype() != grad.dtype()) {
        return absl::InvalidArgumentError(absl::StrCat(
            k.type_string(), ": variable '", v->name(), "' has dtype ", DataTypeString(v->dtype()),
            " but the gradient is ", DataTypeString(grad.dtype())));
      }
      const TensorShape& shape = v->value().shape();
      const bool fits = sparse_rows < 0
                            ? shape == grad.shape()
                            : shape.dims() >= 1 && grad.dims() == shape.dims() &&
                                  grad.dim_size(0) == sparse_rows &&
                                  std::equal(shape.dim_sizes().begin() + 1, shape.dim_sizes().end(),
                                             grad.shape().dim_sizes().begin() + 1);
      if (!fits) {
        return absl::InvalidArgumentError(absl::StrCat(
            k.type_string(), ": variable '", v->name(), "' has shape ", shape.DebugString(),
            " but the gradient", sparse_rows < 0 ? "" : absl::StrCat(" of ", sparse_rows, " rows"),
            " has shape ", grad.shape().DebugString()));
      }
      out.push_back(v->mutable_value());
    }
    return out;
  }

 private:
  const OpKernelContext* ctx_;
  const std::vector<int> inputs_;
  absl::Status status_;
  std::vector<Var*> vars_;  // of inputs_, in order
  std::vector<Var*> locked_;
};

// The ref forms output their variable; the resource forms have no output.
void ForwardRef(OpKernelContext* ctx) {
  if (ctx->num_outputs() > 0) ctx->set_output_ref(0, ctx->input_ref(0));
}

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

// A sparse update's `indices` (input `input`, a vector).
absl::StatusOr<std::vector<int64_t>> SparseIndices(const OpKernelContext* ctx, const OpKernel& k,
                                                   int input) {
  if (ctx->input(input).dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(k.type_string(),
                                                   ": indices must be a vector, got shape ",
                                                   ctx->input(input).shape().DebugString()));
  }
  return FlatInts(ctx->input(input), absl::StrCat(k.type_string(), " indices"));
}

// The elements per row of `var`, once every index is a row of it.
absl::StatusOr<int64_t> SparseRowWidth(const OpKernel& k, const std::vector<int64_t>& indices,
                                       const Tensor& var) {
  const int64_t rows = var.dim_size(0);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= rows) {
      return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": Index ", indices[i],
                                                     " at offset ", i,
                                                     " in indices is out of range [0, ", rows,
                                                     ")"));
    }
  }
  return rows > 0 ? var.NumElements() / rows : 0;
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
      T* __restrict var = vars[0]->data<T>();
      const T* __restrict d = delta.data<T>();
      const T alpha = *ctx->input(1).data<T>();
      ForEachElement(ctx, delta.NumElements(), 2 * sizeof(T),
                     [=](int64_t i) { var[i] -= d[i] * alpha; });
    }
    ForwardRef(ctx);
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
      T* __restrict var = vars[0]->data<T>();
      T* __restrict accum = vars[1]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(2).data<T>();
      const T momentum = *ctx->input(4).data<T>();
      if (nesterov_) {
        ForEachElement(ctx, grad.NumElements(), 3 * sizeof(T), [=](int64_t i) {
          accum[i] = accum[i] * momentum + g[i];
          var[i] -= g[i] * lr + accum[i] * momentum * lr;
        });
      } else {
        ForEachElement(ctx, grad.NumElements(), 3 * sizeof(T), [=](int64_t i) {
          accum[i] = accum[i] * momentum + g[i];
          var[i] -= accum[i] * lr;
        });
      }
    }
    ForwardRef(ctx);
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
      T* __restrict var = vars[0]->data<T>();
      T* __restrict m = vars[1]->data<T>();
      T* __restrict v = vars[2]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T beta1_power = *ctx->input(3).data<T>();
      const T beta2_power = *ctx->input(4).data<T>();
      const T lr = *ctx->input(5).data<T>();
      const T beta1 = *ctx->input(6).data<T>();
      const T beta2 = *ctx->input(7).data<T>();
      const T epsilon = *ctx->input(8).data<T>();
      const T alpha = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
      auto slots = [=](int64_t i) {
        m[i] += (g[i] - m[i]) * (T(1) - beta1);
        v[i] += (g[i] * g[i] - v[i]) * (T(1) - beta2);
      };
      if (nesterov_) {
        ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
          slots(i);
          var[i] -= (g[i] * (T(1) - beta1) + m[i] * beta1) * alpha / (std::sqrt(v[i]) + epsilon);
        });
      } else {
        ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
          slots(i);
          var[i] -= m[i] * alpha / (std::sqrt(v[i]) + epsilon);
        });
      }
    }
    ForwardRef(ctx);
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
      T* __restrict var = vars[0]->data<T>();
      T* __restrict ms = vars[1]->data<T>();
      T* __restrict mom = vars[2]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(3).data<T>();
      const T rho = *ctx->input(4).data<T>();
      const T momentum = *ctx->input(5).data<T>();
      const T epsilon = *ctx->input(6).data<T>();
      ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
        ms[i] += (g[i] * g[i] - ms[i]) * (T(1) - rho);
        mom[i] = mom[i] * momentum + (g[i] * lr) / std::sqrt(ms[i] + epsilon);
        var[i] -= mom[i];
      });
    }
    ForwardRef(ctx);
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
      T* __restrict var = vars[0]->data<T>();
      T* __restrict accum = vars[1]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(2).data<T>();
      if (update_slots_) {
        ForEachElement(ctx, grad.NumElements(), sizeof(T),
                       [=](int64_t i) { accum[i] += g[i] * g[i]; });
      }
      ForEachElement(ctx, grad.NumElements(), 3 * sizeof(T),
                     [=](int64_t i) { var[i] -= g[i] * lr * (T(1) / std::sqrt(accum[i])); });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }

 private:
  bool update_slots_ = true;
};

// accum = accum * rho + grad^2 * (1 - rho); update = sqrt(accum_update +
// epsilon) / sqrt(accum + epsilon) * grad; accum_update = accum_update * rho
// + update^2 * (1 - rho); var -= update * lr.
template <typename T>
class ApplyAdadeltaOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {3, 4, 5}));
    const Tensor& grad = ctx->input(6);
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      T* __restrict var = vars[0]->data<T>();
      T* __restrict accum = vars[1]->data<T>();
      T* __restrict accum_update = vars[2]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(3).data<T>();
      const T rho = *ctx->input(4).data<T>();
      const T epsilon = *ctx->input(5).data<T>();
      ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
        accum[i] = accum[i] * rho + g[i] * g[i] * (T(1) - rho);
        const T update =
            std::sqrt(accum_update[i] + epsilon) / std::sqrt(accum[i] + epsilon) * g[i];
        accum_update[i] = accum_update[i] * rho + update * update * (T(1) - rho);
        var[i] -= update * lr;
      });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }
};

// TensorFlow's FTRL-Proximal, one element: accum_new = accum + grad^2;
// linear += grad - (accum_new^-p - accum^-p) / lr * var (p = lr_power; with
// multiply_linear_by_lr, linear += grad * lr - (...) * var); var = (sign(linear)
// * l1 - linear) / (accum_new^-p / lr + 2 * l2) where |linear| > l1, else 0
// (l1 and 2 * l2 scaled by lr with multiply_linear_by_lr).
template <typename T>
struct FtrlStep {
  T lr, l1, l2, lr_power;
  bool multiply;

  void operator()(T& var, T& accum, T& linear, T g) const {
    const bool sqrt_power = lr_power == T(-0.5);
    const T new_accum = accum + g * g;
    const T old_root = sqrt_power ? std::sqrt(accum) : std::pow(accum, -lr_power);
    const T new_root = sqrt_power ? std::sqrt(new_accum) : std::pow(new_accum, -lr_power);
    if (multiply) {
      linear += g * lr - (new_root - old_root) * var;
    } else {
      linear += g - (new_root - old_root) / lr * var;
    }
    const T l1_eff = multiply ? l1 * lr : l1;
    const T quadratic = multiply ? new_root + T(2) * l2 * lr : new_root / lr + T(2) * l2;
    const T sign = linear > T(0) ? T(1) : (linear < T(0) ? T(-1) : T(0));
    var = std::abs(linear) > l1_eff ? (sign * l1_eff - linear) / quadratic : T(0);
    accum = new_accum;
  }
};

// Reads and checks FTRL's scalars (inputs first..first+3: lr, l1, l2,
// lr_power).
template <typename T>
absl::StatusOr<FtrlStep<T>> FtrlScalars(const OpKernelContext* ctx, const OpKernel& k, int first,
                                        bool multiply) {
  MG_RETURN_IF_ERROR(CheckScalars(ctx, k, {first, first + 1, first + 2, first + 3}));
  FtrlStep<T> step{*ctx->input(first).data<T>(), *ctx->input(first + 1).data<T>(),
                   *ctx->input(first + 2).data<T>(), *ctx->input(first + 3).data<T>(), multiply};
  if (!(step.lr > T(0))) {
    return absl::InvalidArgumentError(
        absl::StrCat(k.type_string(), ": lr is not positive: ", step.lr));
  }
  if (step.l1 < T(0) || step.l2 < T(0) || step.lr_power > T(0)) {
    return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": l1 (", step.l1, ") and l2 (",
                                                   step.l2, ") must be >= 0 and lr_power (",
                                                   step.lr_power, ") <= 0"));
  }
  return step;
}

template <typename T>
class ApplyFtrlOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return c->GetAttr("multiply_linear_by_lr", &multiply_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const FtrlStep<T> step, FtrlScalars<T>(ctx, *this, 4, multiply_));
    const Tensor& grad = ctx->input(3);
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      T* __restrict var = vars[0]->data<T>();
      T* __restrict accum = vars[1]->data<T>();
      T* __restrict linear = vars[2]->data<T>();
      const T* __restrict g = grad.data<T>();
      ForEachElement(ctx, grad.NumElements(), 5 * sizeof(T),
                     [=](int64_t i) { step(var[i], accum[i], linear[i], g[i]); });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }

 private:
  bool multiply_ = false;
};

// SparseApplyFtrl: the update for the rows `indices` of the variables only,
// row i of `grad` going to row indices[i]; a repeated index is updated once
// per occurrence, in order, as in TensorFlow.
template <typename T>
class SparseApplyFtrlOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return c->GetAttr("multiply_linear_by_lr", &multiply_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const FtrlStep<T> step, FtrlScalars<T>(ctx, *this, 5, multiply_));
    const Tensor& grad = ctx->input(3);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, SparseIndices(ctx, *this, 4));
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars,
                          locked.Check(*this, grad, static_cast<int64_t>(indices.size())));
      MG_ASSIGN_OR_RETURN(const int64_t width, SparseRowWidth(*this, indices, *vars[0]));
      T* var = vars[0]->data<T>();
      T* accum = vars[1]->data<T>();
      T* linear = vars[2]->data<T>();
      const T* g = grad.data<T>();
      for (size_t i = 0; i < indices.size(); ++i) {
        const int64_t row = indices[i] * width;
        for (int64_t j = 0; j < width; ++j) {
          step(var[row + j], accum[row + j], linear[row + j], g[i * width + j]);
        }
      }
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }

 private:
  bool multiply_ = false;
};

// The proximal step of TensorFlow's proximal optimizers: `prox` shrunk by
// `lr * l1` towards zero (when l1 > 0), then scaled by 1 / (1 + lr * l2).
template <typename T>
inline T Proximal(T prox, T lr, T l1, T l2) {
  const T shrunk =
      l1 > T(0) ? (prox > T(0) ? T(1) : prox < T(0) ? T(-1) : T(0)) *
                      std::max(std::abs(prox) - lr * l1, T(0))
                : prox;
  return shrunk / (T(1) + lr * l2);
}

// var = Proximal(var - alpha * delta, alpha, l1, l2).
template <typename T>
class ApplyProximalGradientDescentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {1, 2, 3}));
    const Tensor& delta = ctx->input(4);
    {
      LockedVars locked(ctx, {0});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, delta));
      T* __restrict var = vars[0]->data<T>();
      const T* __restrict d = delta.data<T>();
      const T alpha = *ctx->input(1).data<T>();
      const T l1 = *ctx->input(2).data<T>();
      const T l2 = *ctx->input(3).data<T>();
      ForEachElement(ctx, delta.NumElements(), 2 * sizeof(T), [=](int64_t i) {
        var[i] = Proximal(var[i] - alpha * d[i], alpha, l1, l2);
      });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }
};

// accum += grad^2; with lr' = lr / sqrt(accum):
// var = Proximal(var - grad * lr', lr', l1, l2).
template <typename T>
class ApplyProximalAdagradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {2, 3, 4}));
    const Tensor& grad = ctx->input(5);
    {
      LockedVars locked(ctx, {0, 1});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      T* __restrict var = vars[0]->data<T>();
      T* __restrict accum = vars[1]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(2).data<T>();
      const T l1 = *ctx->input(3).data<T>();
      const T l2 = *ctx->input(4).data<T>();
      ForEachElement(ctx, grad.NumElements(), 3 * sizeof(T), [=](int64_t i) {
        accum[i] += g[i] * g[i];
        const T rate = lr / std::sqrt(accum[i]);
        var[i] = Proximal(var[i] - g[i] * rate, rate, l1, l2);
      });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }
};

// ms += (grad^2 - ms) * (1 - rho); mg += (grad - mg) * (1 - rho);
// mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); var -= mom.
template <typename T>
class ApplyCenteredRMSPropOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {4, 5, 6, 7}));
    const Tensor& grad = ctx->input(8);
    {
      LockedVars locked(ctx, {0, 1, 2, 3});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      T* __restrict var = vars[0]->data<T>();
      T* __restrict mg = vars[1]->data<T>();
      T* __restrict ms = vars[2]->data<T>();
      T* __restrict mom = vars[3]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(4).data<T>();
      const T rho = *ctx->input(5).data<T>();
      const T momentum = *ctx->input(6).data<T>();
      const T epsilon = *ctx->input(7).data<T>();
      ForEachElement(ctx, grad.NumElements(), 5 * sizeof(T), [=](int64_t i) {
        ms[i] += (g[i] * g[i] - ms[i]) * (T(1) - rho);
        mg[i] += (g[i] - mg[i]) * (T(1) - rho);
        const T denom = (ms[i] - mg[i] * mg[i]) + epsilon;
        mom[i] = mom[i] * momentum + lr * g[i] / std::sqrt(denom);
        var[i] -= mom[i];
      });
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }
};

// g += grad; gg += grad^2; with T the global step:
// var = -sign(g) * lr * max(|g| - l1 * T, 0) / (sqrt(gg) + T * lr * l2)
// (without l1: -g * lr / (sqrt(gg) + T * lr * l2)).
template <typename T>
class ApplyAdagradDAOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {4, 5, 6, 7}));
    const Tensor& grad = ctx->input(3);
    {
      LockedVars locked(ctx, {0, 1, 2});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars, locked.Check(*this, grad));
      T* __restrict var = vars[0]->data<T>();
      T* __restrict acc = vars[1]->data<T>();
      T* __restrict sq = vars[2]->data<T>();
      const T* __restrict g = grad.data<T>();
      const T lr = *ctx->input(4).data<T>();
      const T l1 = *ctx->input(5).data<T>();
      const T l2 = *ctx->input(6).data<T>();
      const T step = static_cast<T>(*ctx->input(7).data<int64_t>());
      const T denom_l2 = step * lr * l2;
      if (l1 > T(0)) {
        ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
          acc[i] += g[i];
          sq[i] += g[i] * g[i];
          const T sign = acc[i] > T(0) ? T(1) : acc[i] < T(0) ? T(-1) : T(0);
          var[i] = lr * (-sign * std::max(std::abs(acc[i]) - step * l1, T(0))) /
                   (std::sqrt(sq[i]) + denom_l2);
        });
      } else {
        ForEachElement(ctx, grad.NumElements(), 4 * sizeof(T), [=](int64_t i) {
          acc[i] += g[i];
          sq[i] += g[i] * g[i];
          var[i] = lr * acc[i] * T(-1) / (std::sqrt(sq[i]) + denom_l2);
        });
      }
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }
};

// SparseApplyAdagrad: for row i of `grad`, into row indices[i]:
// accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum). A
// repeated index is updated once per occurrence, in order.
template <typename T>
class SparseApplyAdagradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("update_slots", &update_slots_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckScalars(ctx, *this, {2}));
    const Tensor& grad = ctx->input(3);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, SparseIndices(ctx, *this, 4));
    {
      LockedVars locked(ctx, {0, 1});
      MG_ASSIGN_OR_RETURN(std::vector<Tensor*> vars,
                          locked.Check(*this, grad, static_cast<int64_t>(indices.size())));
      MG_ASSIGN_OR_RETURN(const int64_t width, SparseRowWidth(*this, indices, *vars[0]));
      T* var = vars[0]->data<T>();
      T* accum = vars[1]->data<T>();
      const T* g = grad.data<T>();
      const T lr = *ctx->input(2).data<T>();
      for (size_t i = 0; i < indices.size(); ++i) {
        const int64_t row = indices[i] * width;
        for (int64_t j = 0; j < width; ++j) {
          const T gj = g[i * width + j];
          if (update_slots_) accum[row + j] += gj * gj;
          var[row + j] -= lr * gj / std::sqrt(accum[row + j]);
        }
      }
    }
    ForwardRef(ctx);
    return absl::OkStatus();
  }

 private:
  bool update_slots_ = true;
};

}  // namespace

void RegisterTrainingKernels(KernelRegistry* r) {
  // Each update on a ref variable and on a resource variable: one kernel
  // class serves both (it reads the variable through its input).
  for (const char* op : {"ApplyGradientDescent", "ResourceApplyGradientDescent"}) {
    r->Register(op, TypedFactory<ApplyGradientDescentOp, float, double>());
  }
  for (const char* op : {"ApplyMomentum", "ResourceApplyMomentum"}) {
    r->Register(op, TypedFactory<ApplyMomentumOp, float, double>());
  }
  for (const char* op : {"ApplyAdam", "ResourceApplyAdam"}) {
    r->Register(op, TypedFactory<ApplyAdamOp, float, double>());
  }
  for (const char* op : {"ApplyRMSProp", "ResourceApplyRMSProp"}) {
    r->Register(op, TypedFactory<ApplyRMSPropOp, float, double>());
  }
  for (const char* op : {"ApplyAdagrad", "ResourceApplyAdagrad"}) {
    r->Register(op, TypedFactory<ApplyAdagradOp, float, double>());
  }
  for (const char* op : {"ApplyAdadelta", "ResourceApplyAdadelta"}) {
    r->Register(op, TypedFactory<ApplyAdadeltaOp, float, double>());
  }
  for (const char* op : {"ApplyFtrl", "ResourceApplyFtrl"}) {
    r->Register(op, TypedFactory<ApplyFtrlOp, float, double>());
  }
  for (const char* op : {"SparseApplyFtrl", "ResourceSparseApplyFtrl"}) {
    r->Register(op, TypedFactory<SparseApplyFtrlOp, float, double>());
  }
  for (const char* op : {"ApplyProximalGradientDescent", "ResourceApplyProximalGradientDescent"}) {
    r->Register(op, TypedFactory<ApplyProximalGradientDescentOp, float, double>());
  }
  for (const char* op : {"ApplyProximalAdagrad", "ResourceApplyProximalAdagrad"}) {
    r->Register(op, TypedFactory<ApplyProximalAdagradOp, float, double>());
  }
  for (const char* op : {"ApplyCenteredRMSProp", "ResourceApplyCenteredRMSProp"}) {
    r->Register(op, TypedFactory<ApplyCenteredRMSPropOp, float, double>());
  }
  for (const char* op : {"ApplyAdagradDA", "ResourceApplyAdagradDA"}) {
    r->Register(op, TypedFactory<ApplyAdagradDAOp, float, double>());
  }
  for (const char* op : {"SparseApplyAdagrad", "ResourceSparseApplyAdagrad"}) {
    r->Register(op, TypedFactory<SparseApplyAdagradOp, float, double>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

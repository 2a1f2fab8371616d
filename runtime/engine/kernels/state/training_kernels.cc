// Optimizer updates (TensorFlow's training_ops), applied in place under the
// variables' locks. The math is TensorFlow's, term for term, each update one
// pass over the elements (ForEachElement) rather than one Eigen expression
// per slot: one read of each slot instead of several, and no Eigen to
// compile. Each optimizer is a rule for one element, which its dense and
// sparse forms share.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
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

// Locks the variables of inputs 0 .. n - 1 (Ref(T) inputs, or resource
// handles in the Resource* forms), in order, each once; checks they are
// initialized, of the gradient's dtype and shape, and returns their
// writable tensors.
class LockedVars {
 public:
  LockedVars(OpKernelContext* ctx, int n) : ctx_(ctx) {
    for (int i = 0; i < n; ++i) {
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
      if (!v->is_initialized()) return ctx_->uninitialized_error(static_cast<int>(i), *v);
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
  absl::Status status_;
  std::vector<Var*> vars_;  // of inputs 0 .. n - 1, in order
  std::vector<Var*> locked_;
};

// The ref forms output their variable; the resource forms have no output.
void ForwardRef(OpKernelContext* ctx) {
  if (ctx->num_outputs() > 0) ctx->set_output_ref(0, ctx->input_ref(0));
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

// The optimizers' boolean attrs; each rule reads those its op has.
struct UpdateAttrs {
  bool nesterov = false;
  bool update_slots = true;
  bool multiply_linear_by_lr = false;

  absl::Status Read(const OpKernelConstruction* c) {
    const auto& attrs = c->def().attr();
    if (attrs.contains("use_nesterov")) MG_RETURN_IF_ERROR(c->GetAttr("use_nesterov", &nesterov));
    if (attrs.contains("update_slots")) {
      MG_RETURN_IF_ERROR(c->GetAttr("update_slots", &update_slots));
    }
    if (attrs.contains("multiply_linear_by_lr")) {
      MG_RETURN_IF_ERROR(c->GetAttr("multiply_linear_by_lr", &multiply_linear_by_lr));
    }
    return absl::OkStatus();
  }
};

// The most inputs an update has (SparseApplyFtrlV2: 10).
constexpr int kMaxUpdateInputs = 12;

// An optimizer's update of one element, TensorFlow's math term for term,
// as a rule that the dense kernel (UpdateKernel<Rule, false>, every
// element) and the sparse one (UpdateKernel<Rule, true>, the rows `indices`
// names) both run. A rule has
//   kVars: its variables, inputs 0 .. kVars - 1 (the variable, then slots);
//   kGrad: the gradient's input in the dense form (the sparse form takes
//     `indices` right after it, which moves the later inputs on by one);
//   kScalars: its scalar inputs, numbered as in the dense form;
//   a constructor from those scalars (s[i] is input i's value; an int64
//     global step arrives converted as TensorFlow does, through float) and
//     the attrs;
//   Check(): InvalidArgument for scalars the update refuses;
//   operator()(var, slots..., grad), updating one element in place.
// Branches on attrs inside operator() are selects in the vectorized loop.
struct RuleBase {
  absl::Status Check(absl::string_view op) const { return absl::OkStatus(); }
};

// Reads rule R's scalar inputs into s (by dense input number), checking
// each is a scalar of T (or, for a global step, of int64).
template <typename R, typename T>
absl::Status ReadScalars(const OpKernelContext* ctx, const OpKernel& k, bool sparse, T* s) {
  for (int dense : R::kScalars) {
    const int i = sparse && dense > R::kGrad ? dense + 1 : dense;
    const Tensor& t = ctx->input(i);
    if (t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": input ", i,
                                                     " must be a scalar, got shape ",
                                                     t.shape().DebugString()));
    }
    s[dense] = t.dtype() == DT_INT64 ? static_cast<T>(static_cast<float>(*t.data<int64_t>()))
                                     : *t.data<T>();
  }
  return absl::OkStatus();
}

template <typename R, typename T, size_t... I>
void DenseUpdate(const OpKernelContext* ctx, const R& rule, const std::vector<Tensor*>& vars,
                 const T* g, int64_t n, std::index_sequence<I...>) {
  const std::array<T*, sizeof...(I)> v = {vars[I]->template data<T>()...};
  ForEachElement(ctx, n, (sizeof...(I) + 1) * sizeof(T),
                 [=](int64_t i) { rule(v[I][i]..., g[i]); });
}

// Row r of the gradient into row indices[r] of each variable, in order: a
// repeated index is updated once per occurrence, as in TensorFlow.
template <typename R, typename T, size_t... I>
void SparseUpdate(const R& rule, const std::vector<Tensor*>& vars, const T* g,
                  const std::vector<int64_t>& indices, int64_t width, std::index_sequence<I...>) {
  const std::array<T*, sizeof...(I)> v = {vars[I]->template data<T>()...};
  for (size_t r = 0; r < indices.size(); ++r) {
    const int64_t row = indices[r] * width;
    for (int64_t j = 0; j < width; ++j) rule(v[I][row + j]..., g[r * width + j]);
  }
}

// Apply<Name> and ResourceApply<Name> (kSparse false), SparseApply<Name>
// and ResourceSparseApply<Name> (kSparse true): one kernel class serves the
// ref and the resource forms (it reads the variables through their inputs).
template <template <typename> class Rule, bool kSparse>
struct UpdateKernel {
  template <typename T>
  class Op : public OpKernel {
   public:
    using R = Rule<T>;
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return attrs_.Read(c); }
    absl::Status Compute(OpKernelContext* ctx) const override {
      T s[kMaxUpdateInputs] = {};
      MG_RETURN_IF_ERROR(ReadScalars<R>(ctx, *this, kSparse, s));
      const R rule(s, attrs_);
      MG_RETURN_IF_ERROR(rule.Check(type_string()));
      const Tensor& grad = ctx->input(R::kGrad);
      std::vector<int64_t> indices;
      if constexpr (kSparse) {
        MG_ASSIGN_OR_RETURN(indices, SparseIndices(ctx, *this, R::kGrad + 1));
      }
      {
        LockedVars locked(ctx, R::kVars);
        MG_ASSIGN_OR_RETURN(
            std::vector<Tensor*> vars,
            locked.Check(*this, grad, kSparse ? static_cast<int64_t>(indices.size()) : -1));
        const auto seq = std::make_index_sequence<R::kVars>();
        if constexpr (kSparse) {
          MG_ASSIGN_OR_RETURN(const int64_t width, SparseRowWidth(*this, indices, *vars[0]));
          SparseUpdate(rule, vars, grad.data<T>(), indices, width, seq);
        } else {
          DenseUpdate(ctx, rule, vars, grad.data<T>(), grad.NumElements(), seq);
        }
      }
      ForwardRef(ctx);
      return absl::OkStatus();
    }

   private:
    UpdateAttrs attrs_;
  };
};

// var -= alpha * delta.
template <typename T>
struct GradientDescentRule : RuleBase {
  static constexpr int kVars = 1, kGrad = 2;
  static constexpr int kScalars[] = {1};
  T alpha;
  GradientDescentRule(const T* s, const UpdateAttrs&) : alpha(s[1]) {}
  void operator()(T& var, T g) const { var -= g * alpha; }
};

// The proximal step of TensorFlow's proximal optimizers: `prox` shrunk by
// `lr * l1` towards zero (when l1 > 0), then scaled by 1 / (1 + lr * l2).
template <typename T>
inline T Proximal(T prox, T lr, T l1, T l2) {
  const T sign = prox > T(0) ? T(1) : prox < T(0) ? T(-1) : T(0);
  const T shrunk = l1 > T(0) ? sign * std::max(std::abs(prox) - lr * l1, T(0)) : prox;
  return shrunk / (T(1) + lr * l2);
}

// var = Proximal(var - alpha * delta, alpha, l1, l2).
template <typename T>
struct ProximalGradientDescentRule : RuleBase {
  static constexpr int kVars = 1, kGrad = 4;
  static constexpr int kScalars[] = {1, 2, 3};
  T alpha, l1, l2;
  ProximalGradientDescentRule(const T* s, const UpdateAttrs&) : alpha(s[1]), l1(s[2]), l2(s[3]) {}
  void operator()(T& var, T g) const { var = Proximal(var - alpha * g, alpha, l1, l2); }
};

// accum = accum * momentum + grad; var -= accum * lr (with Nesterov:
// var -= grad * lr + accum * momentum * lr).
template <typename T>
struct MomentumRule : RuleBase {
  static constexpr int kVars = 2, kGrad = 3;
  static constexpr int kScalars[] = {2, 4};
  T lr, momentum;
  bool nesterov;
  MomentumRule(const T* s, const UpdateAttrs& a) : lr(s[2]), momentum(s[4]), nesterov(a.nesterov) {}
  void operator()(T& var, T& accum, T g) const {
    accum = accum * momentum + g;
    var -= nesterov ? g * lr + accum * momentum * lr : accum * lr;
  }
};

// tf_keras' SGD with momentum: accum = accum * momentum - grad * lr;
// var += accum (with Nesterov: var += accum * momentum - grad * lr).
template <typename T>
struct KerasMomentumRule : MomentumRule<T> {
  using MomentumRule<T>::MomentumRule;
  void operator()(T& var, T& accum, T g) const {
    accum = accum * this->momentum - g * this->lr;
    var += this->nesterov ? accum * this->momentum - g * this->lr : accum;
  }
};

// m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2); with
// alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power):
// var -= m * alpha / (sqrt(v) + epsilon) (with Nesterov, m replaced by
// grad * (1 - beta1) + m * beta1).
template <typename T>
struct AdamRule : RuleBase {
  static constexpr int kVars = 3, kGrad = 9;
  static constexpr int kScalars[] = {3, 4, 5, 6, 7, 8};
  T beta1, beta2, epsilon, alpha;
  bool nesterov;
  AdamRule(const T* s, const UpdateAttrs& a)
      : beta1(s[6]),
        beta2(s[7]),
        epsilon(s[8]),
        alpha(s[5] * std::sqrt(T(1) - s[4]) / (T(1) - s[3])),
        nesterov(a.nesterov) {}
  void operator()(T& var, T& m, T& v, T g) const {
    m += (g - m) * (T(1) - beta1);
    v += (g * g - v) * (T(1) - beta2);
    const T step = nesterov ? g * (T(1) - beta1) + m * beta1 : m;
    var -= step * alpha / (std::sqrt(v) + epsilon);
  }
};

// Adam keeping vhat = max(vhat, v): var -= m * alpha / (sqrt(vhat) +
// epsilon).
template <typename T>
struct AdamWithAmsgradRule : RuleBase {
  static constexpr int kVars = 4, kGrad = 10;
  static constexpr int kScalars[] = {4, 5, 6, 7, 8, 9};
  T beta1, beta2, epsilon, alpha;
  AdamWithAmsgradRule(const T* s, const UpdateAttrs&)
      : beta1(s[7]),
        beta2(s[8]),
        epsilon(s[9]),
        alpha(s[6] * std::sqrt(T(1) - s[5]) / (T(1) - s[4])) {}
  void operator()(T& var, T& m, T& v, T& vhat, T g) const {
    m += (g - m) * (T(1) - beta1);
    v += (g * g - v) * (T(1) - beta2);
    vhat = std::max(vhat, v);
    var -= m * alpha / (std::sqrt(vhat) + epsilon);
  }
};

// m += (grad - m) * (1 - beta1); v = max(beta2 * v, |grad|);
// var -= lr / (1 - beta1_power) * (m / (v + epsilon)).
template <typename T>
struct AdaMaxRule : RuleBase {
  static constexpr int kVars = 3, kGrad = 8;
  static constexpr int kScalars[] = {3, 4, 5, 6, 7};
  T beta1, beta2, epsilon, rate;
  AdaMaxRule(const T* s, const UpdateAttrs&)
      : beta1(s[5]), beta2(s[6]), epsilon(s[7]), rate(s[4] / (T(1) - s[3])) {}
  void operator()(T& var, T& m, T& v, T g) const {
    m += (g - m) * (T(1) - beta1);
    v = std::max(beta2 * v, std::abs(g));
    var -= rate * (m / (v + epsilon));
  }
};

// ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + grad * lr /
// sqrt(ms + epsilon); var -= mom.
template <typename T>
struct RMSPropRule : RuleBase {
  static constexpr int kVars = 3, kGrad = 7;
  static constexpr int kScalars[] = {3, 4, 5, 6};
  T lr, rho, momentum, epsilon;
  RMSPropRule(const T* s, const UpdateAttrs&)
      : lr(s[3]), rho(s[4]), momentum(s[5]), epsilon(s[6]) {}
  void operator()(T& var, T& ms, T& mom, T g) const {
    ms += (g * g - ms) * (T(1) - rho);
    mom = mom * momentum + (g * lr) / std::sqrt(ms + epsilon);
    var -= mom;
  }
};

// ms += (grad^2 - ms) * (1 - rho); mg += (grad - mg) * (1 - rho);
// mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); var -= mom.
template <typename T>
struct CenteredRMSPropRule : RuleBase {
  static constexpr int kVars = 4, kGrad = 8;
  static constexpr int kScalars[] = {4, 5, 6, 7};
  T lr, rho, momentum, epsilon;
  CenteredRMSPropRule(const T* s, const UpdateAttrs&)
      : lr(s[4]), rho(s[5]), momentum(s[6]), epsilon(s[7]) {}
  void operator()(T& var, T& mg, T& ms, T& mom, T g) const {
    ms += (g * g - ms) * (T(1) - rho);
    mg += (g - mg) * (T(1) - rho);
    const T denom = (ms - mg * mg) + epsilon;
    mom = mom * momentum + lr * g / std::sqrt(denom);
    var -= mom;
  }
};

// accum += grad^2 (when update_slots); var -= grad * lr / sqrt(accum).
template <typename T>
struct AdagradRule : RuleBase {
  static constexpr int kVars = 2, kGrad = 3;
  static constexpr int kScalars[] = {2};
  T lr;
  bool update_slots;
  AdagradRule(const T* s, const UpdateAttrs& a) : lr(s[2]), update_slots(a.update_slots) {}
  void operator()(T& var, T& accum, T g) const {
    accum = update_slots ? accum + g * g : accum;
    var -= g * lr * (T(1) / std::sqrt(accum));
  }
};

// accum += grad^2 (when update_slots); var -= grad * lr / (sqrt(accum) +
// epsilon).
template <typename T>
struct AdagradV2Rule : RuleBase {
  static constexpr int kVars = 2, kGrad = 4;
  static constexpr int kScalars[] = {2, 3};
  T lr, epsilon;
  bool update_slots;
  AdagradV2Rule(const T* s, const UpdateAttrs& a)
      : lr(s[2]), epsilon(s[3]), update_slots(a.update_slots) {}
  void operator()(T& var, T& accum, T g) const {
    accum = update_slots ? accum + g * g : accum;
    var -= g * lr / (std::sqrt(accum) + epsilon);
  }
};

// accum += grad^2; with lr' = lr / sqrt(accum):
// var = Proximal(var - grad * lr', lr', l1, l2).
template <typename T>
struct ProximalAdagradRule : RuleBase {
  static constexpr int kVars = 2, kGrad = 5;
  static constexpr int kScalars[] = {2, 3, 4};
  T lr, l1, l2;
  ProximalAdagradRule(const T* s, const UpdateAttrs&) : lr(s[2]), l1(s[3]), l2(s[4]) {}
  void operator()(T& var, T& accum, T g) const {
    accum += g * g;
    const T rate = lr / std::sqrt(accum);
    var = Proximal(var - g * rate, rate, l1, l2);
  }
};

// accum = accum * rho + grad^2 * (1 - rho); update = sqrt(accum_update +
// epsilon) / sqrt(accum + epsilon) * grad; accum_update = accum_update * rho
// + update^2 * (1 - rho); var -= update * lr.
template <typename T>
struct AdadeltaRule : RuleBase {
  static constexpr int kVars = 3, kGrad = 6;
  static constexpr int kScalars[] = {3, 4, 5};
  T lr, rho, epsilon;
  AdadeltaRule(const T* s, const UpdateAttrs&) : lr(s[3]), rho(s[4]), epsilon(s[5]) {}
  void operator()(T& var, T& accum, T& accum_update, T g) const {
    accum = accum * rho + g * g * (T(1) - rho);
    const T update = std::sqrt(accum_update + epsilon) / std::sqrt(accum + epsilon) * g;
    accum_update = accum_update * rho + update * update * (T(1) - rho);
    var -= update * lr;
  }
};

// g += grad; gg += grad^2; with T the global step:
// var = -sign(g) * lr * max(|g| - l1 * T, 0) / (sqrt(gg) + T * lr * l2)
// (without l1: -g * lr / (sqrt(gg) + T * lr * l2)).
template <typename T>
struct AdagradDARule : RuleBase {
  static constexpr int kVars = 3, kGrad = 3;
  static constexpr int kScalars[] = {4, 5, 6, 7};
  T lr, l1, step, denom_l2;
  AdagradDARule(const T* s, const UpdateAttrs&)
      : lr(s[4]), l1(s[5]), step(s[7]), denom_l2(s[7] * s[4] * s[6]) {}
  void operator()(T& var, T& acc, T& sq, T g) const {
    acc += g;
    sq += g * g;
    const T sign = acc > T(0) ? T(1) : acc < T(0) ? T(-1) : T(0);
    const T shrunk = l1 > T(0) ? -sign * std::max(std::abs(acc) - step * l1, T(0)) : -acc;
    var = lr * shrunk / (std::sqrt(sq) + denom_l2);
  }
};

// TensorFlow's FTRL-Proximal, one element: accum_new = accum + grad^2;
// linear += grad' - (accum_new^-p - accum^-p) / lr * var (p = lr_power;
// grad' = grad + 2 * l2_shrinkage * var in FtrlV2, else grad; with
// multiply_linear_by_lr, linear += grad' * lr - (...) * var); var =
// (sign(linear) * l1 - linear) / (accum_new^-p / lr + 2 * l2) where
// |linear| > l1, else 0 (l1 and 2 * l2 scaled by lr with
// multiply_linear_by_lr).
template <typename T, bool kShrinkage>
struct FtrlRuleFor : RuleBase {
  static constexpr int kVars = 3, kGrad = 3;
  // lr, l1, l2, (l2_shrinkage,) lr_power
  static constexpr int kLast = kShrinkage ? 8 : 7;
  static constexpr int kScalars[] = {4, 5, 6, 7, kLast};
  T lr, l1, l2, shrinkage, lr_power;
  bool multiply;
  FtrlRuleFor(const T* s, const UpdateAttrs& a)
      : lr(s[4]),
        l1(s[5]),
        l2(s[6]),
        shrinkage(kShrinkage ? s[7] : T(0)),
        lr_power(s[kLast]),
        multiply(a.multiply_linear_by_lr) {}
  absl::Status Check(absl::string_view op) const {
    if (!(lr > T(0))) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": lr is not positive: ", lr));
    }
    if (l1 < T(0) || l2 < T(0) || shrinkage < T(0) || lr_power > T(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": l1 (", l1, "), l2 (", l2, ")",
          kShrinkage ? absl::StrCat(", l2_shrinkage (", shrinkage, ")") : "",
          " must be >= 0 and lr_power (", lr_power, ") <= 0"));
    }
    return absl::OkStatus();
  }
  void operator()(T& var, T& accum, T& linear, T g) const {
    const bool sqrt_power = lr_power == T(-0.5);
    const T shrunk_g = kShrinkage ? g + T(2) * shrinkage * var : g;
    const T new_accum = accum + g * g;
    const T old_root = sqrt_power ? std::sqrt(accum) : std::pow(accum, -lr_power);
    const T new_root = sqrt_power ? std::sqrt(new_accum) : std::pow(new_accum, -lr_power);
    if (multiply) {
      linear += shrunk_g * lr - (new_root - old_root) * var;
    } else {
      linear += shrunk_g - (new_root - old_root) / lr * var;
    }
    const T l1_eff = multiply ? l1 * lr : l1;
    const T quadratic = multiply ? new_root + T(2) * l2 * lr : new_root / lr + T(2) * l2;
    const T sign = linear > T(0) ? T(1) : (linear < T(0) ? T(-1) : T(0));
    var = std::abs(linear) > l1_eff ? (sign * l1_eff - linear) / quadratic : T(0);
    accum = new_accum;
  }
};
template <typename T>
using FtrlRule = FtrlRuleFor<T, false>;
template <typename T>
using FtrlV2Rule = FtrlRuleFor<T, true>;

// m = m * beta + grad * (1 - beta); with s = sign(grad) * sign(m):
// AddSign: var -= lr * (alpha + sign_decay * s) * grad;
// PowerSign: var -= lr * exp(logbase * sign_decay * s) * grad.
template <typename T, bool kPower>
struct SignRuleFor : RuleBase {
  static constexpr int kVars = 2, kGrad = 6;
  static constexpr int kScalars[] = {2, 3, 4, 5};
  T lr, base, sign_decay, beta;
  SignRuleFor(const T* s, const UpdateAttrs&)
      : lr(s[2]), base(s[3]), sign_decay(s[4]), beta(s[5]) {}
  void operator()(T& var, T& m, T g) const {
    m = m * beta + g * (T(1) - beta);
    const T sg = g > T(0) ? T(1) : g < T(0) ? T(-1) : T(0);
    const T sm = m > T(0) ? T(1) : m < T(0) ? T(-1) : T(0);
    const T scale =
        kPower ? std::exp(base * sign_decay * (sg * sm)) : base + sign_decay * (sg * sm);
    var -= lr * scale * g;
  }
};
template <typename T>
using AddSignRule = SignRuleFor<T, false>;
template <typename T>
using PowerSignRule = SignRuleFor<T, true>;

// Registers rule Rule's dense forms (`dense`: Apply<Name> and
// ResourceApply<Name>) and sparse ones (`sparse`: SparseApply<Name> and
// ResourceSparseApply<Name>), each named in full so that a grep finds it.
template <template <typename> class Rule>
void RegisterUpdate(KernelRegistry* r, std::initializer_list<const char*> dense,
                    std::initializer_list<const char*> sparse = {}) {
  for (const char* op : dense) {
    r->Register(op, TypedFactory<UpdateKernel<Rule, false>::template Op, float, double>());
  }
  for (const char* op : sparse) {
    r->Register(op, TypedFactory<UpdateKernel<Rule, true>::template Op, float, double>());
  }
}

}  // namespace

void RegisterTrainingKernels(KernelRegistry* r) {
  RegisterUpdate<GradientDescentRule>(r, {"ApplyGradientDescent", "ResourceApplyGradientDescent"});
  RegisterUpdate<ProximalGradientDescentRule>(
      r, {"ApplyProximalGradientDescent", "ResourceApplyProximalGradientDescent"},
      {"SparseApplyProximalGradientDescent", "ResourceSparseApplyProximalGradientDescent"});
  RegisterUpdate<MomentumRule>(r, {"ApplyMomentum", "ResourceApplyMomentum"},
                               {"SparseApplyMomentum", "ResourceSparseApplyMomentum"});
  // tf_keras' updates, which TensorFlow has in the resource forms only.
  RegisterUpdate<KerasMomentumRule>(r, {"ResourceApplyKerasMomentum"},
                                    {"ResourceSparseApplyKerasMomentum"});
  RegisterUpdate<AdamWithAmsgradRule>(r, {"ResourceApplyAdamWithAmsgrad"});
  RegisterUpdate<AdamRule>(r, {"ApplyAdam", "ResourceApplyAdam"});
  RegisterUpdate<AdaMaxRule>(r, {"ApplyAdaMax", "ResourceApplyAdaMax"});
  RegisterUpdate<RMSPropRule>(r, {"ApplyRMSProp", "ResourceApplyRMSProp"},
                              {"SparseApplyRMSProp", "ResourceSparseApplyRMSProp"});
  RegisterUpdate<CenteredRMSPropRule>(
      r, {"ApplyCenteredRMSProp", "ResourceApplyCenteredRMSProp"},
      {"SparseApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp"});
  RegisterUpdate<AdagradRule>(r, {"ApplyAdagrad", "ResourceApplyAdagrad"},
                              {"SparseApplyAdagrad", "ResourceSparseApplyAdagrad"});
  RegisterUpdate<AdagradV2Rule>(r, {"ApplyAdagradV2", "ResourceApplyAdagradV2"},
                                {"SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2"});
  RegisterUpdate<ProximalAdagradRule>(
      r, {"ApplyProximalAdagrad", "ResourceApplyProximalAdagrad"},
      {"SparseApplyProximalAdagrad", "ResourceSparseApplyProximalAdagrad"});
  RegisterUpdate<AdadeltaRule>(r, {"ApplyAdadelta", "ResourceApplyAdadelta"},
                               {"SparseApplyAdadelta", "ResourceSparseApplyAdadelta"});
  RegisterUpdate<AdagradDARule>(r, {"ApplyAdagradDA", "ResourceApplyAdagradDA"},
                                {"SparseApplyAdagradDA", "ResourceSparseApplyAdagradDA"});
  RegisterUpdate<FtrlRule>(r, {"ApplyFtrl", "ResourceApplyFtrl"},
                           {"SparseApplyFtrl", "ResourceSparseApplyFtrl"});
  RegisterUpdate<FtrlV2Rule>(r, {"ApplyFtrlV2", "ResourceApplyFtrlV2"},
                             {"SparseApplyFtrlV2", "ResourceSparseApplyFtrlV2"});
  RegisterUpdate<AddSignRule>(r, {"ApplyAddSign", "ResourceApplyAddSign"});
  RegisterUpdate<PowerSignRule>(r, {"ApplyPowerSign", "ResourceApplyPowerSign"});
}

}  // namespace kernels_internal
}  // namespace minigraph
